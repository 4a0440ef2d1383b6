//! The differential-drive robot driven in a curve for 8 s, its crossings of x = 1 recorded.

use edit_to_run::rolling::Rolling;
use lagrange_runtime::plot::quick_look;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Event, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Rolling::default();
    let run = Simulation::new(&model, State::at_rest(SVector::zeros()))
        .inputs(|_, _| SVector::from([1.0, 1.3]))
        .event(Event::record("x_is_1", |_, s| s.q[0] - 1.0))
        .run(&DormandPrince::new(1e-9, 1e-12), 8.0)?;
    std::fs::create_dir_all("plots")?;
    quick_look(&run, "plots/rolling.png")?;
    println!("{} crossings of x = 1", run.crossings().len());
    Ok(())
}
