//! The five-bar linkage released from a closed, symmetric pose, 5 s by RATTLE.

use edit_to_run::five_bar::FiveBar;
use lagrange_runtime::plot::quick_look;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Rattle, Simulation};
use std::f64::consts::PI;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = FiveBar::default();
    // Outer bars at 100° and 80°; the inner bars meet above the middle.
    let (a1, a4) = (100f64.to_radians(), 80f64.to_radians());
    let gap = model.d + model.l * (a4.cos() - a1.cos());
    let a2 = (gap / (2.0 * model.l)).acos();
    let start = State::at_rest(SVector::from([a1, a2, PI - a2, a4]));
    let run = Simulation::new(&model, start).run(&Rattle::new(1e-3), 5.0)?;
    std::fs::create_dir_all("plots")?;
    quick_look(&run, "plots/five_bar.png")?;
    println!(
        "energy drift {:.1e}",
        run.energies()[run.len() - 1] - run.energies()[0]
    );
    Ok(())
}
