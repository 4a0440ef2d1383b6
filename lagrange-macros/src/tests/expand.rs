//! The whole macro: valid models expand to their items, invalid ones to all their errors at once, and regressions.

use super::*;

// ---------------------------------------------------------------------------------------
// The whole macro
// ---------------------------------------------------------------------------------------

#[test]
fn valid_models_expand_to_a_model_impl() {
    for (tokens, name) in [
        (double_pendulum(), "DoublePendulum"),
        (cart_pole(), "CartPole"),
        (driven(), "Driven"),
        (oscillator(), "Osc"),
    ] {
        let out = crate::expand(tokens);
        assert_eq!(compile_errors(&out), Vec::<String>::new(), "{name}");
        assert!(!out.to_string().contains("compile_error"), "{name}");
        assert!(implements(&out, "Model", name), "{name}: {out}");
        assert!(implements(&out, "Parametric", name), "{name}: {out}");
        check_output(&out).unwrap();
    }
    let out = crate::expand(double_pendulum());
    assert!(implements(&out, "Default", "DoublePendulum"));
    let text = out.to_string();
    assert!(text.contains("struct DoublePendulum"), "{text}");
    assert!(text.contains("struct DoublePendulumCoordinates"), "{text}");
    // Not every parameter of `Driven` has a default.
    assert!(!implements(&crate::expand(driven()), "Default", "Driven"));
}

#[test]
fn invalid_models_expand_to_compile_errors() {
    let cases = [
        (
            quote!(struct M { coordinates: theta; kinetic = dot(thta)^2; }),
            "unknown name `thta`, did you mean `theta`?",
        ),
        (
            quote!(struct M { coordinates: x, x; kinetic = dot(x)^2; }),
            "`x` is declared twice",
        ),
        (
            quote!(struct M { coordinates: t; kinetic = dot(t)^2; }),
            "`t` is reserved",
        ),
        (
            quote!(struct M { coordinates: x; potential = x^2; }),
            "has no kinetic energy",
        ),
        (
            quote!(struct M { parameters: m; kinetic = m; }),
            "declares no coordinates",
        ),
        (
            quote!(struct M { parameters: m; coordinates: x; kinetic = dot(m)^2; }),
            "`dot` of parameter `m`",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = dot(dot(x))^2; }),
            "would need accelerations",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = dot(x)^2; force 1 on dot(x); }),
            "cannot depend on velocities",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = sinn(x) * dot(x)^2; }),
            "unknown function `sinn`, did you mean `sin`?",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = atan2(x) * dot(x)^2; }),
            "`atan2` takes 2 arguments, found 1",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = y * dot(x)^2; let y = 2; }),
            "used before its definition",
        ),
        (
            quote!(struct M { coordinates: x; kinetic = dot(x)^2 }),
            "expected `;`",
        ),
        (quote!(), "expected `struct Name { … }`"),
    ];
    for (tokens, want) in cases {
        let text = tokens.to_string();
        let out = crate::expand(tokens);
        let errors = compile_errors(&out);
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "`{text}`: {errors:?} should contain `{want}`"
        );
        check_output(&out).unwrap();
    }
}

#[test]
fn a_model_that_fails_its_checks_still_defines_its_struct() {
    let out = crate::expand(quote! {
        pub struct M {
            parameters: m, k;
            coordinates: x;
            kinetic = m * dot(y)^2;
        }
    });
    assert_eq!(compile_errors(&out).len(), 1);
    let text = out.to_string();
    assert!(text.contains("pub struct M"), "{text}");
    assert!(text.contains("fn new"), "{text}");
}

#[test]
fn all_check_errors_are_reported_together() {
    let out = crate::expand(quote! {
        struct M {
            coordinates: x, x;
            kinetic = a * dot(b)^2 + foo(x);
        }
    });
    let errors = compile_errors(&out);
    // twice + first declared here + `a` + `b` + `foo`.
    assert_eq!(errors.len(), 5, "{errors:#?}");
}

// ---------------------------------------------------------------------------------------
// Known bugs, kept as regression tests
// ---------------------------------------------------------------------------------------

/// The shape every known-bug test checks: `expand` returns (does not panic) and reports a
/// compile error.
fn expands_to_an_error(tokens: TokenStream) {
    let out = crate::expand(tokens);
    assert!(!compile_errors(&out).is_empty(), "{out}");
}

#[test]
fn overflowing_float_literal_in_an_expression() {
    expands_to_an_error(quote!(struct M { coordinates: x; kinetic = 1e400 * dot(x)^2; }));
}

#[test]
fn overflowing_parameter_default() {
    expands_to_an_error(
        quote!(struct M { parameters: m = 1e400; coordinates: x; kinetic = m * dot(x)^2; }),
    );
}

#[test]
fn overflowing_exponent() {
    expands_to_an_error(quote!(struct M { coordinates: x; kinetic = dot(x)^1e400; }));
}

#[test]
fn overflowing_integer_literal() {
    let huge: Literal = huge_integer().parse().unwrap();
    expands_to_an_error(quote!(struct M { coordinates: x; kinetic = #huge * dot(x)^2; }));
}

// ---------------------------------------------------------------------------------------
// Regressions of the reliability review
// ---------------------------------------------------------------------------------------

/// `let a0 = x; let a1 = a0 + a0; …` under a constraint: every analysis over lets once
/// followed them recursively (2ᴺ visits, days of compile time at N = 40). The lowered graph
/// has one node per let, and the whole macro finishes at once.
#[test]
fn a_doubling_chain_of_lets_is_linear_in_its_length() {
    const N: usize = 60;
    let mut statements = quote!(let a0 = x;);
    for k in 1..=N {
        let (a, b) = (format_ident!("a{k}"), format_ident!("a{}", k - 1));
        statements.extend(quote!(let #a = #b + #b;));
    }
    let last = format_ident!("a{N}");
    let tokens = quote! {
        struct Chain {
            coordinates: x, y;
            #statements
            kinetic = dot(x)^2 + dot(y)^2 + dot(#last)^2;
            constraint c = #last - y;
        }
    };
    let model = parse_ok(tokens.clone());
    let mut errors = crate::errors::Errors::default();
    let checked = crate::check::check(&model, &mut errors);
    let lowered = crate::lower::lower(&checked, &mut errors);
    assert!(errors.finish().is_ok());
    assert!(lowered.ir.len() < 4 * N, "{} nodes", lowered.ir.len());
    let out = crate::expand(tokens);
    assert_eq!(compile_errors(&out), Vec::<String>::new());
    assert!(implements(&out, "Model", "Chain"));
    // One constraint: the model is a `Constrained<2, 0, 1>` through the runtime's impl.
    let text = out.to_string();
    assert!(
        text.contains("type Constraints = :: lagrange_runtime :: __private :: Count < 1usize >"),
        "{text}"
    );
}

/// A model's `#[cfg]` goes on every generated item, the other attributes on the struct.
#[test]
fn cfg_attributes_apply_to_every_generated_item() {
    let out = crate::expand(quote! {
        #[cfg(feature = "models")]
        #[derive(Hash)]
        struct Osc { parameters: k = 1.0; coordinates: x; kinetic = dot(x)^2; potential = k*x^2; }
    });
    let cfg = quote!(#[cfg(feature = "models")]).to_string();
    let text = out.to_string();
    let items = text.matches(&cfg).count();
    // The struct, its inherent impl, `Default`, `OscCoordinates` and its conversions, and
    // the trait impls: each under the `cfg`, and nothing else at the top level.
    assert!(items >= 8, "{items} items under cfg: {text}");
    assert!(text.starts_with(&cfg), "{text}");
    assert_eq!(text.matches("Hash").count(), 1, "{text}");
}

/// A planar chain of `n` point masses, positions as `let`s built link by link.
fn chain(n: usize) -> TokenStream {
    let q: Vec<_> = (1..=n).map(|k| format_ident!("q{k}")).collect();
    let x: Vec<_> = (1..=n).map(|k| format_ident!("x{k}")).collect();
    let y: Vec<_> = (1..=n).map(|k| format_ident!("y{k}")).collect();
    let mut lets = vec![quote!(let x1 = l * sin(q1); let y1 = -l * cos(q1);)];
    for k in 1..n {
        let (xk, yk, qk, xp, yp) = (&x[k], &y[k], &q[k], &x[k - 1], &y[k - 1]);
        lets.push(quote!(let #xk = #xp + l * sin(#qk); let #yk = #yp - l * cos(#qk);));
    }
    quote! {
        struct Chain {
            parameters: m = 1.0, l = 1.0, g = 9.81;
            coordinates: #(#q),*;
            #(#lets)*
            kinetic = m/2 * (#(dot(#x)^2)+*) + m/2 * (#(dot(#y)^2)+*);
            potential = m * g * (#(#y)+*);
        }
    }
}

#[test]
fn generated_code_declares_its_locals_once_whatever_the_size_of_the_model() {
    // A `let` per value nests one lexical scope in the next, as deep as the model is
    // large, and LLVM's debug-info pass recurses through them until it overflows its
    // stack (a crash of rustc with full debug info). Every generator declares all its
    // locals in one `let` per function, so the count of `let`s does not grow with the
    // model: this guards the cause, whatever debug info the test profile builds with.
    let count = |n: usize| {
        let out = crate::expand(chain(n));
        assert_eq!(compile_errors(&out), Vec::<String>::new());
        let code = out.to_string();
        (code.matches("let ").count(), code.matches(" = ").count())
    };
    let ((small, _), (large, assignments)) = (count(4), count(12));
    // Only the model's own bindings (a coordinate and a velocity per function) grow with
    // N, a few per coordinate; the thousands of values are assignments.
    assert!(
        large <= small + 10 * 8,
        "{small} lets at N = 4, {large} at N = 12"
    );
    assert!(
        assignments > 10 * large,
        "{assignments} assignments, {large} lets"
    );
}
