//! Property tests of the dimension rules, called directly on generated models (no compiler run):
//! a random well-dimensioned model is accepted; the same model with one factor given a
//! wrong unit is rejected with exactly one error, on an expression that contains that
//! factor.

use crate::units::Dim;
use proptest::prelude::*;

/// Builds a random model from a tape of choices. Every leaf is a parameter used once,
/// declared with exactly the dimension its place needs, so the model is well
/// dimensioned by construction. Sums have two or three terms (and sometimes a `0`),
/// vectors three elements.
struct Gen {
    tape: Vec<u32>,
    at: usize,
    parameters: Vec<Dim>,
    coordinates: Vec<Dim>,
}

const SMALL: [Dim; 6] = [
    Dim([1, 0, 0, 0, 0, 0, 0]),
    Dim([0, 1, 0, 0, 0, 0, 0]),
    Dim([0, 0, 1, 0, 0, 0, 0]),
    Dim([1, 1, -2, 0, 0, 0, 0]),
    Dim([0, 1, -1, 0, 0, 0, 0]),
    Dim::ONE,
];

impl Gen {
    fn pick(&mut self, n: usize) -> usize {
        let x = self.tape.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        x as usize % n
    }

    fn leaf(&mut self, target: Dim) -> String {
        self.parameters.push(target);
        format!("p{}", self.parameters.len() - 1)
    }

    fn expr(&mut self, target: Dim, depth: u32) -> String {
        if depth == 0 {
            return self.leaf(target);
        }
        let d = SMALL[self.pick(SMALL.len())];
        match self.pick(10) {
            0 => self.leaf(target),
            1 => format!(
                "({}) * ({})",
                self.expr(d, depth - 1),
                self.expr(target.div(d), depth - 1)
            ),
            2 => format!(
                "({}) / ({})",
                self.expr(target.mul(d), depth - 1),
                self.expr(d, depth - 1)
            ),
            3 => {
                let zero = if self.pick(2) == 0 { " + 0" } else { "" };
                let third = if self.pick(2) == 0 {
                    format!(" - {}", self.expr(target, depth - 1))
                } else {
                    String::new()
                };
                format!(
                    "({} + {}{third}{zero})",
                    self.expr(target, depth - 1),
                    self.expr(target, depth - 1),
                )
            }
            4 => match target.root(2) {
                Some(root) => format!("({})^2", self.expr(root, depth - 1)),
                None => self.leaf(target),
            },
            5 => {
                let f = ["sin", "cos", "exp", "atan", "tanh"][self.pick(5)];
                format!(
                    "{f}({}) * ({})",
                    self.expr(Dim::ONE, depth - 1),
                    self.expr(target, depth - 1)
                )
            }
            6 => format!("sqrt({})", self.expr(target.mul(target), depth - 1)),
            7 => {
                self.coordinates.push(target.mul(Dim::SECOND));
                format!("dot(c{})", self.coordinates.len() - 1)
            }
            8 => {
                let [a, b, c, x, y, z] = [d, d, d, target.div(d), target.div(d), target.div(d)]
                    .map(|dim| self.expr(dim, depth - 1));
                format!("inner([{a}, {b}, {c}], [{x}, {y}, {z}])")
            }
            _ => format!("({})^-1", self.expr(Dim::ONE.div(target), depth - 1)),
        }
    }
}

/// A unit for `dim` in base units: `kg^1*m^2*s^-2`, `1`.
fn unit(dim: Dim) -> String {
    let base = ["kg", "m", "s", "A", "K", "mol", "cd"];
    let factors: Vec<String> = base
        .iter()
        .zip(dim.0)
        .filter(|(_, e)| *e != 0)
        .map(|(b, e)| format!("{b}^{e}"))
        .collect();
    if factors.is_empty() {
        "1".into()
    } else {
        factors.join("*")
    }
}

/// The model's source on one line, with parameter `wrong` (if any) declared `off`
/// times the dimension its place needs.
fn source(g: &Gen, kinetic: &str, wrong: Option<(usize, Dim)>) -> String {
    let parameters: Vec<String> = g
        .parameters
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let d = match wrong {
                Some((w, off)) if w == i => d.mul(off),
                _ => *d,
            };
            format!("p{i} = 1 [{}]", unit(d))
        })
        .collect();
    let mut coordinates: Vec<String> = g
        .coordinates
        .iter()
        .enumerate()
        .map(|(i, d)| format!("c{i} [{}]", unit(*d)))
        .collect();
    coordinates.push("x [m]".into());
    let parameters = if parameters.is_empty() {
        String::new()
    } else {
        format!("parameters: {};", parameters.join(", "))
    };
    format!(
        "struct M {{ {parameters} coordinates: {}; kinetic = {kinetic}; }}",
        coordinates.join(", ")
    )
}

/// The messages and column ranges of the errors of the dimension check of `source`.
fn dimension_errors(source: &str) -> Vec<(String, usize, usize)> {
    let model = crate::parse::parse(source.parse().unwrap()).unwrap();
    let mut errors = crate::errors::Errors::default();
    let checked = crate::check::check(&model, &mut errors);
    assert!(errors.finish().is_ok(), "names of {source}");
    let mut errors = crate::errors::Errors::default();
    let typed = super::infer(&checked, &mut errors);
    assert!(errors.finish().is_ok(), "shapes of {source}");
    match typed.dimension_errors.finish() {
        Ok(()) => Vec::new(),
        Err(e) => e
            .into_iter()
            .map(|e| {
                let (start, end) = (e.span().start(), e.span().end());
                assert_eq!((start.line, end.line), (1, 1), "{e} in {source}");
                (e.to_string(), start.column, end.column)
            })
            .collect(),
    }
}

/// The column of the one use of parameter `i` in `source`.
fn use_of(source: &str, i: usize) -> usize {
    let name = format!("p{i}");
    let kinetic = source.find("kinetic").unwrap();
    source[kinetic..]
        .match_indices(&name)
        .map(|(at, _)| kinetic + at)
        .find(|&at| !source[at + name.len()..].starts_with(|c: char| c.is_ascii_digit()))
        .unwrap()
}

#[test]
fn very_long_or_deep_units_are_an_error_not_a_crash() {
    crate::tests::with_compiler_stack(|| {
        let long = vec!["m"; 20_000].join("*");
        let deep = format!("{}m{}", "(".repeat(5000), ")".repeat(5000));
        for unit in [long, deep] {
            let source = format!("struct M {{ coordinates: x [{unit}]; kinetic = dot(x)^2; }}");
            let out = crate::expand(source.parse().unwrap()).to_string();
            assert!(
                out.contains("split it") || out.contains("nested more than"),
                "{out}"
            );
        }
    });
}

#[test]
fn absurd_exponents_are_no_panic() {
    // A unit's exponents are small, so that no product of dimensions overflows.
    let source = "struct M { parameters: a = 1 [m^2147483647]; coordinates: x [m]; \
        kinetic = a * dot(x)^2; }";
    let out = crate::expand(source.parse().unwrap()).to_string();
    assert!(out.contains("exponent is at most 64"), "{out}");
    // A unit's exponents stay within 64 at every step of its arithmetic.
    let source = "struct M { parameters: a = 1 [m^64 * m^64]; coordinates: x [m]; \
        kinetic = a * dot(x)^2; }";
    let out = crate::expand(source.parse().unwrap()).to_string();
    assert!(out.contains("exponent out of range"), "{out}");
    // Absurd powers in expressions saturate instead of overflowing.
    let source = "struct M { parameters: a = 1 [m^64 / s^-64]; coordinates: x [m]; \
        kinetic = a^2147483647 * a^2147483647 * x^-2147483647 / x^2147483647; }";
    let out = crate::expand(source.parse().unwrap()).to_string();
    assert!(out.contains("kinetic energy must be J"), "{out}");
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn one_wrong_factor_is_found_where_it_is(
        tape in prop::collection::vec(any::<u32>(), 80),
        depth in 1..4u32,
        wrong in any::<prop::sample::Index>(),
        off in 0..3usize,
    ) {
        let mut g = Gen { tape, at: 0, parameters: Vec::new(), coordinates: Vec::new() };
        let kinetic = g.expr(Dim::JOULE, depth);
        let good = source(&g, &kinetic, None);
        prop_assert_eq!(dimension_errors(&good), Vec::new(), "{}", good);
        if g.parameters.is_empty() {
            return Ok(());
        }

        let off = [Dim([0, 1, 0, 0, 0, 0, 0]), Dim([0, 0, -1, 0, 0, 0, 0]), Dim([1, 0, 0, 0, 0, 0, 0])][off];
        let w = wrong.index(g.parameters.len());
        let bad = source(&g, &kinetic, Some((w, off)));
        let errors = dimension_errors(&bad);
        prop_assert_eq!(errors.len(), 1, "{:?} for {}", errors, bad);
        let at = use_of(&bad, w);
        for (message, start, end) in &errors {
            prop_assert!(
                (*start..*end).contains(&at),
                "`p{}` at column {} is not in the error at {}..{}: {} in {}",
                w, at, start, end, message, bad
            );
        }
    }
}
