//! The fast path: generated when small enough, left out past its statement limit.

use super::*;

// ---------------------------------------------------------------------------------------
// The fast path
// ---------------------------------------------------------------------------------------

/// The generated `eval_equations` of a model, as text, with at most `limit` statements.
fn equations_code(tokens: TokenStream, limit: usize) -> Option<String> {
    let l = lower_ok(tokens);
    crate::fast::equations_fn(&l, &crate::graph::Graph::unrolled(&l), limit)
        .map(|code| code.to_string())
}

/// The number of statements of the generated code that compute a value (a `let` of an
/// input, or an assignment to one of the locals declared together).
fn statements(code: &str) -> usize {
    code.matches(" = ").count()
}

#[test]
fn every_valid_model_has_a_fast_path() {
    for tokens in [double_pendulum(), cart_pole(), driven(), oscillator()] {
        let code = equations_code(tokens, crate::fast::MAX_STATEMENTS).expect("a fast path");
        assert!(code.contains("fn eval_equations"), "{code}");
    }
}

#[test]
fn structurally_zero_derivatives_are_not_computed() {
    // Two uncoupled oscillators: the off-diagonal mass entries are the literal zero, and
    // nothing is computed for them.
    let code = equations_code(
        quote! {
            struct Two {
                coordinates: a, b;
                kinetic = dot(a)^2/2 + 3*dot(b)^2/2;
                potential = a^2/2 + b^4;
            }
        },
        crate::fast::MAX_STATEMENTS,
    )
    .unwrap();
    let mass = &code[code.find("mass").unwrap()..code.find("momenta").unwrap()];
    assert_eq!(mass.matches("0f64").count(), 2, "{mass}");
    // Each coordinate's square: value, q̇ gradient and (q̇, q̇) entry, and no more.
    assert!(statements(&code) < 40, "{code}");
}

#[test]
fn a_model_too_large_for_the_unrolled_path_is_left_to_the_sweep() {
    let code = equations_code(double_pendulum(), crate::fast::MAX_STATEMENTS).unwrap();
    let n = statements(&code);
    // The double pendulum takes well under a thousand statements; with a lower limit the
    // unrolled path is left out (and `eval_equations` is the sweep).
    assert!((20..1000).contains(&n), "{n} statements");
    assert!(equations_code(double_pendulum(), n / 2).is_none());
    assert!(equations_code(double_pendulum(), n).is_some());
}

#[test]
fn what_cancels_in_the_right_hand_side_is_not_computed() {
    // The right-hand side of the double pendulum is −Σ m ∂x/∂q ẍ|q̈=0 − ∂V/∂q, from the
    // positions' Jacobians and drifts: no ∂ẋ/∂q = ∂²x/∂q∂w (the sine's second derivative
    // times one velocity, `f″ · q̇`), whose products with ẋ cancel between ∂L/∂q and
    // d/dt ∂L/∂q̇. Computing both parts took 145 statements.
    let code = equations_code(double_pendulum(), crate::fast::MAX_STATEMENTS).unwrap();
    let n = statements(&code);
    assert!(n <= 131, "{n} statements: {code}");
    // `[value, f′, f″] = …jet::sin(__q0);`
    let jet = code.find("jet :: sin (__q0)").expect("the sine's jet");
    let outputs = &code[code[..jet].rfind('[').unwrap() + 1..];
    let f2 = outputs[..outputs.find(']').unwrap()]
        .split(" , ")
        .nth(2)
        .unwrap();
    assert!(!code.contains(&format!("{f2} * __qd0 ;")), "{code}");
    assert!(code.contains(&format!("{f2} * __qd0 * __qd0 ;")), "{code}");
}

/// A URDF chain of `links` links on revolute joints turning through z, y, x, every link with
/// a full (non-diagonal) inertia about an offset centre of mass, written to a file of its
/// own; its absolute path.
pub(super) fn urdf_chain(links: usize) -> String {
    let mut text = String::from("<robot name=\"chain\">\n<link name=\"l0\"/>\n");
    for k in 1..=links {
        let a = 0.01 * k as f64;
        text += &format!(
            "<link name=\"l{k}\"><inertial><origin xyz=\"0.02 -0.01 0.15\"/>\
             <mass value=\"{m}\"/><inertia ixx=\"0.08\" ixy=\"{a}\" ixz=\"-0.004\" \
             iyy=\"0.07\" iyz=\"0.003\" izz=\"0.09\"/></inertial></link>\n\
             <joint name=\"j{k}\" type=\"revolute\"><parent link=\"l{p}\"/>\
             <child link=\"l{k}\"/><origin xyz=\"0.01 0 0.3\" rpy=\"0.1 -0.2 0.3\"/>\
             <axis xyz=\"{axis}\"/></joint>\n",
            m = 1.0 + a,
            a = a / 10.0,
            p = k - 1,
            axis = ["0 0 1", "0 1 0", "1 0 0"][k % 3],
        );
    }
    text += "</robot>\n";
    let dir = std::env::temp_dir().join(format!("lagrange-fast-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(format!("chain{links}.urdf"));
    std::fs::write(&path, text).expect("written");
    path.to_string_lossy().into_owned()
}

/// The model `urdf: path; kinetic = urdf_kinetic; potential = urdf_potential;`, lowered.
pub(super) fn urdf_model(path: &str) -> crate::lower::Lowered {
    let mut model = parse_ok(quote! {
        struct Chain {
            urdf: #path;
            kinetic = urdf_kinetic;
            potential = urdf_potential;
        }
    });
    crate::urdf::splice(&mut model).expect("a valid file");
    checked_lowered(&model)
}

/// The components the fast path's analysis hands down while it tries `l`, and its result.
fn analysed(l: &crate::lower::Lowered) -> (usize, bool) {
    crate::fast::ANALYSED.with(|a| a.set(0));
    let g = crate::graph::Graph::unrolled(l);
    let fast = crate::fast::equations_fn(l, &g, crate::fast::MAX_STATEMENTS).is_some();
    (crate::fast::ANALYSED.with(std::cell::Cell::get), fast)
}

#[test]
fn a_model_past_the_budget_by_its_values_alone_is_not_analysed() {
    // Issue 45: the analysis of which derivatives each node needs hands every node the
    // pairs of coordinates of the mass matrix, n² components for each of a chain's ~180 n
    // nodes (a URDF chain of 100 links: 4.5 GB of the build, and most of its time), and
    // ran to its end before the budget refused its code. Each operation's value is a
    // statement of its own, so a chain of 20 links (3 500 of them) is past the budget
    // before any derivative is counted: nothing may be analysed. Before, 880 000
    // components were.
    let (work, fast) = analysed(&urdf_model(&urdf_chain(20)));
    assert!(!fast);
    assert_eq!(work, 0);
    // A chain of two links fits, and is analysed (the count above counts).
    let (work, fast) = analysed(&urdf_model(&urdf_chain(2)));
    assert!(fast);
    assert!(work > 100, "{work}");
}

// ---------------------------------------------------------------------------------------
// The forces' derivatives
// ---------------------------------------------------------------------------------------

/// The generated `eval_forces_along_inputs` of a model, as text.
fn forces_along_inputs_code(tokens: TokenStream) -> Option<String> {
    let l = lower_ok(tokens);
    let g = crate::graph::Graph::unrolled(&l);
    crate::fast::forces_along_inputs_fn(&l, &g, crate::fast::MAX_STATEMENTS).map(|c| c.to_string())
}

#[test]
fn the_forces_derivatives_along_the_inputs_are_unrolled_where_the_scheme_holds() {
    // The cart-pole's push on its cart: ∂Q/∂f is the unit column along x, a literal.
    let code = forces_along_inputs_code(cart_pole()).expect("unrolled");
    assert!(code.contains("fn eval_forces_along_inputs"), "{code}");
    assert!(code.contains("[[1f64 , 0f64]]"), "{code}");
    // No force reads an input: nothing to unroll.
    assert!(forces_along_inputs_code(driven()).is_none());
    // An input that divides, or is an exponent, is not a constant of the unrolled form
    // along the inputs: left to the runtime's dual numbers.
    for force in [quote!(a / b * x), quote!(x.powf(b) * a)] {
        let tokens = quote! {
            struct Pushed {
                coordinates: x;
                inputs: a, b;
                kinetic = dot(x)^2/2;
                force #force on x;
            }
        };
        assert!(forces_along_inputs_code(tokens).is_none(), "{force}");
    }
}

#[test]
fn the_forces_derivatives_along_the_state_reach_second_derivatives_of_positions() {
    // A spring along a rotating arm's tip and a damper on its rate: ∂Q/∂q needs
    // ∂²(tip)/∂θ², and the damper's ∂F/∂θ is a (θ, w) component of the tip.
    let l = lower_ok(quote! {
        struct Arm {
            parameters: k = 2.0, c = 0.5;
            coordinates: theta;
            let tip = [cos(theta), sin(theta)];
            kinetic = dot(theta)^2/2;
            force [-k * tip[0], -c * dot(tip[1])] on tip;
        }
    });
    let g = crate::graph::Graph::unrolled(&l);
    let [x, d_q, d_qd] = ["x", "d_q", "d_qd"].map(crate::names::internal);
    let code = crate::fast::forces_along_state_code(
        &l,
        &g,
        &[0, 1],
        &[0],
        [&x, &d_q, &d_qd],
        crate::fast::MAX_STATEMENTS,
    )
    .expect("unrolled")
    .to_string();
    assert!(code.contains("d_q [(0usize , 0usize)] -="), "{code}");
    assert!(code.contains("d_qd [(0usize , 0usize)] -="), "{code}");
}
