//! The spherical pendulum, 10 s by RK4, and its quick look.

use edit_to_run::spherical::Spherical;
use lagrange_runtime::plot::quick_look;
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{Rk4, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Spherical::default();
    let start = State::new(0.0, SVector::from([1.0, 0.0]), SVector::from([0.0, 2.0]));
    let run = Simulation::new(&model, start).run(&Rk4::new(1e-3), 10.0)?;
    std::fs::create_dir_all("plots")?;
    quick_look(&run, "plots/spherical.png")?;
    println!(
        "energy drift {:.1e}",
        run.energies()[run.len() - 1] - run.energies()[0]
    );
    Ok(())
}
