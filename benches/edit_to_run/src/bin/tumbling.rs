//! The box spun near its intermediate axis, 20 s by RATTLE: it tumbles.

use edit_to_run::tumbling::Tumbling;
use lagrange_runtime::plot::quick_look;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Rattle, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Tumbling::default();
    // ω = (0.1, 4, 0.1) in the body at the identity: q̇ = ½ (0, ω).
    let start = State::new(
        0.0,
        SVector::from([1.0, 0.0, 0.0, 0.0]),
        SVector::from([0.0, 0.05, 2.0, 0.05]),
    );
    let run = Simulation::new(&model, start).run(&Rattle::new(1e-3), 20.0)?;
    std::fs::create_dir_all("plots")?;
    quick_look(&run, "plots/tumbling.png")?;
    println!(
        "energy drift {:.1e}",
        run.energies()[run.len() - 1] - run.energies()[0]
    );
    Ok(())
}
