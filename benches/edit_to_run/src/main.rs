//! What a user's crate does after an edit of its model: linearize, design an LQR, simulate
//! 5 s with an event, write a quick look (PNG) and an animation (GIF). `measure.sh` times
//! the rebuild and the run after an edit of the model (`src/furuta.rs`), in the profiles it
//! compares. The crate holds four more models with a binary each (`src/bin/`), as a
//! user's crate would.

use edit_to_run::furuta::Furuta;
use lagrange_runtime::control::lqr_gain;
use lagrange_runtime::linearize::linearize;
use lagrange_runtime::nalgebra::{DMatrix, DVector};
use lagrange_runtime::plot::{animate, quick_look, Animation};
use lagrange_runtime::prelude::*;
use lagrange_runtime::simulate::{DormandPrince, Event, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Furuta::default();
    let lin = linearize(&model, &State::at_rest(SVector::zeros()), &SVector::zeros())?;
    let q = DMatrix::from_diagonal(&DVector::from_vec(vec![4.0, 400.0, 0.04, 0.04]));
    let (gain, _) = lqr_gain(&lin, &q, &SMatrix::<f64, 1, 1>::new(100.0))?;
    let start = State::new(0.0, SVector::zeros(), SVector::from([0.0, 1.5]));
    let run = Simulation::new(&model, start)
        .inputs(gain.law())
        .event(Event::record("arm_crossing", |_, s| s.q[0]))
        .run(&DormandPrince::new(1e-9, 1e-12), 5.0)?;
    std::fs::create_dir_all("plots")?;
    quick_look(&run, "plots/furuta.png")?;
    animate(&run, "plots/furuta.gif", &Animation::default(), |s| {
        let lets = model.lets(s, &SVector::zeros());
        let tip = [
            (model.r * s.q[0].cos(), model.r * s.q[0].sin()),
            (lets.c[0], lets.c[1]),
        ];
        vec![vec![(0.0, 0.0), tip[0], tip[1]]]
    })?;
    println!("{} samples, θ(5 s) = {:.2e}", run.len(), run.last().q[1]);
    Ok(())
}
