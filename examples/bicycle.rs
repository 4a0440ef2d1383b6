//! The Whipple bicycle: self-stability from the exact linearization of a constrained model.
//!
//! The benchmark of Meijaard, Papadopoulos, Ruina and Schwab, "Linearized dynamics
//! equations for the balance and steer of a bicycle: a benchmark and review", Proc. R. Soc.
//! A 463 (2007): four rigid bodies (rear wheel, rear frame with rider, handlebar and fork,
//! front wheel), knife-edge wheels rolling without slipping, written in the DSL from the
//! paper's Table 1 in its model (`tests/models/src/bicycle.rs`): eight coordinates, a holonomic
//! constraint (the front wheel touches the ground) and four nonholonomic ones (neither
//! wheel slips). Nothing of the paper's linearized equations is typed in: `steady_motion`
//! finds upright straight running at each speed, `linearize` differentiates the
//! constrained accelerations exactly, and the spectrum in independent coordinates gives the
//! four eigenvalues of lean and steer (weave, capsize, castering) besides the zero ones of
//! the cyclic coordinates and the conserved speed.
//!
//! The program prints the paper's Table 2 beside what it computes, finds the weave and
//! capsize speeds by bisection, and draws the paper's Figure 3: the eigenvalues' real
//! parts (and the weave's frequency) against speed, the self-stable range shaded, in
//! `target/plots/bicycle.png`.

mod common;

use common::{figure, Panel, SeriesLabelPosition};
use lagrange_test_models::bicycle::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let bike = Bicycle::default();

    println!("Table 2 of Meijaard et al. (2007) against the DSL model, eigenvalues in 1/s:");
    println!(
        "{:>4}  {:>38}  {:>38}  {:>19}  {:>19}",
        "v", "weave (paper)", "weave (model)", "capsize", "castering"
    );
    let mut worst = 0.0f64;
    for (v, (weave_re, weave_im), capsize, castering) in TABLE_2 {
        let motion = straight_running(&bike, v)?;
        let (mut lateral, _) = lean_and_steer(&motion);
        lateral.sort_by(|a, b| a.re.total_cmp(&b.re).then(b.im.total_cmp(&a.im)));
        let weave = lateral.iter().find(|l| l.im > 0.0).ok_or("no weave pair")?;
        let real: Vec<f64> = lateral
            .iter()
            .filter(|l| l.im == 0.0)
            .map(|l| l.re)
            .collect();
        let [model_castering, model_capsize] = real[..] else {
            return Err("expected two real eigenvalues".into());
        };
        println!(
            "{v:>4}  {weave_re:>18.14} ± {weave_im:>15.14}i  {:>18.14} ± {:>15.14}i  {capsize:>19.14}  {castering:>19.14}",
            weave.re, weave.im
        );
        println!(
            "{:>86}  {model_capsize:>19.14}  {model_castering:>19.14}",
            "model:"
        );
        for (got, want) in [
            (weave.re, weave_re),
            (weave.im, weave_im),
            (model_capsize, capsize),
            (model_castering, castering),
        ] {
            worst = worst.max((got - want).abs());
        }
    }
    println!("largest deviation from Table 2: {worst:.1e}");

    let weave = bisect(|v| weave_real_part(&bike, v), 4.0, 5.0, 1e-12);
    let capsize = bisect(|v| capsize_eigenvalue(&bike, v), 6.0, 7.0, 1e-12);
    println!("weave speed   {weave:.14} m/s (paper {WEAVE_SPEED})");
    println!("capsize speed {capsize:.14} m/s (paper {CAPSIZE_SPEED})");
    println!("self-stable from {weave:.4} to {capsize:.4} m/s");

    // The paper's Figure 3: every eigenvalue of lean and steer against speed.
    let (mut real_parts, mut frequencies) = (Vec::new(), Vec::new());
    for i in 0..=400 {
        let v = 10.0 * f64::from(i) / 400.0;
        let (lateral, _) = lean_and_steer(&straight_running(&bike, v)?);
        for l in lateral {
            real_parts.push((v, l.re));
            if l.im > 0.0 {
                frequencies.push((v, l.im));
            }
        }
    }
    let visible = |(_, y): &(f64, f64)| (-10.0..10.0).contains(y);
    figure("bicycle", (1200, 800), |root| {
        Panel::new(
            "Whipple bicycle (Meijaard et al. 2007): eigenvalues of upright straight running",
            "forward speed v [m/s]",
            "λ [1/s]",
        )
        .band(weave..capsize)
        .points(
            "Re λ (weave, capsize, castering)",
            real_parts.into_iter().filter(visible),
        )
        .points("Im λ of the weave", frequencies.into_iter().filter(visible))
        .line("", [(0.0, 0.0), (10.0, 0.0)])
        .x_range(0.0..10.0)
        .y_range(-10.0..10.0)
        .legend(SeriesLabelPosition::LowerLeft)
        .draw(root)
    })?;
    Ok(())
}
