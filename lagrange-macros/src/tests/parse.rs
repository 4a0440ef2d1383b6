//! The parser: precedence and associativity, statements, the header, syntax errors.

use super::*;

// ---------------------------------------------------------------------------------------
// Parser: precedence and associativity
// ---------------------------------------------------------------------------------------

#[test]
fn power_binds_tighter_than_unary_minus_and_products() {
    // `-m*v^2/2` means −(m·v²)/2: the power applies to `v` alone, the minus never ends up
    // under the power. (The minus is attached to `m`, which gives the same value.)
    assert_eq!(tree(quote!(-m * v ^ 2 / 2)), "(/ (* (neg m) (^ v 2)) 2)");
    with_kinetic(quote!(-m * v ^ 2 / 2), |e| {
        assert_eq!(eval(e, &[("m", 3.0), ("v", 2.0)]), -6.0);
    });
    assert_eq!(tree(quote!(-v ^ 2)), "(neg (^ v 2))");
    with_kinetic(quote!(-2 ^ 2), |e| assert_eq!(eval(e, &[]), -4.0));
    assert_eq!(tree(quote!(a * b ^ 2)), "(* a (^ b 2))");
    assert_eq!(tree(quote!(a / b ^ 2)), "(/ a (^ b 2))");
    assert_eq!(tree(quote!(a ^ 2 * b)), "(* (^ a 2) b)");
    assert_eq!(tree(quote!((a * b) ^ 2)), "(^ [(* a b)] 2)");
    assert_eq!(tree(quote!(--x ^ 2)), "(neg (neg (^ x 2)))");
}

#[test]
fn power_is_right_associative() {
    assert_eq!(tree(quote!(a ^ b ^ c)), "(^ a (^ b c))");
    assert_eq!(tree(quote!(a ^ b ^ c ^ d)), "(^ a (^ b (^ c d)))");
    with_kinetic(quote!(2 ^ 3 ^ 2), |e| assert_eq!(eval(e, &[]), 512.0));
    assert_eq!(tree(quote!((a ^ b) ^ c)), "(^ [(^ a b)] c)");
}

#[test]
fn negative_exponents() {
    assert_eq!(tree(quote!(x ^ -2)), "(^ x (neg 2))");
    assert_eq!(tree(quote!(x ^ -y ^ 2)), "(^ x (neg (^ y 2)))");
    assert_eq!(tree(quote!(x ^ --1)), "(^ x (neg (neg 1)))");
    assert_eq!(tree(quote!(x ^ -2 * y)), "(* (^ x (neg 2)) y)");
    with_kinetic(quote!(x ^ -2), |e| assert_eq!(eval(e, &[("x", 2.0)]), 0.25));
}

#[test]
fn sums_and_products_are_left_associative() {
    assert_eq!(tree(quote!(a - b - c)), "(- (- a b) c)");
    assert_eq!(tree(quote!(a / b / c)), "(/ (/ a b) c)");
    assert_eq!(tree(quote!(a + b * c - d / e)), "(- (+ a (* b c)) (/ d e))");
    assert_eq!(tree(quote!(a - -b)), "(- a (neg b))");
    assert_eq!(tree(quote!(a * -b)), "(* a (neg b))");
    assert_eq!(tree(quote! { ((a)) }), "[[a]]");
}

#[test]
fn method_calls_take_the_receiver_as_first_argument() {
    assert_eq!(tree(quote!(x.sin())), "(.sin x)");
    assert_eq!(tree(quote!(x.powi(2))), "(.powi x 2)");
    assert_eq!(tree(quote!(y.atan2(x))), "(.atan2 y x)");
    assert_eq!(tree(quote!((a + b).sin().cos())), "(.cos (.sin [(+ a b)]))");
    // The method binds tighter than `^` and unary minus.
    assert_eq!(tree(quote!(-x.sin())), "(neg (.sin x))");
    assert_eq!(tree(quote!(x ^ y.sin())), "(^ x (.sin y))");
    assert_eq!(tree(quote!(x.sin() ^ 2)), "(^ (.sin x) 2)");
    assert_eq!(tree(quote!(2.0.sqrt())), "(.sqrt 2)");
    assert_eq!(tree(quote!(sin(x).abs())), "(.abs (sin x))");
    with_kinetic(quote!(x.sin()), |e| match e {
        Expr::Call { method, args, .. } => {
            assert!(*method);
            assert_eq!(args.len(), 1);
        }
        _ => panic!("not a call"),
    });
}

#[test]
fn free_calls() {
    assert_eq!(tree(quote!(sin(x))), "(sin x)");
    assert_eq!(tree(quote!(atan2(y, x + 1))), "(atan2 y (+ x 1))");
    assert_eq!(tree(quote!(powi(x, 3,))), "(powi x 3)");
    assert_eq!(tree(quote!(f())), "(f)");
    assert_eq!(
        tree(quote!(m / 2 * dot(x) ^ 2)),
        "(* (/ m 2) (^ (dot x) 2))"
    );
    with_kinetic(quote!(sin(x)), |e| match e {
        Expr::Call { method, .. } => assert!(!*method),
        _ => panic!("not a call"),
    });
}

#[test]
fn numbers() {
    // `1/2` is two numbers and a division, 0.5 once evaluated: no integer division.
    assert_eq!(tree(quote!(1 / 2)), "(/ 1 2)");
    with_kinetic(quote!(1 / 2), |e| {
        match e {
            Expr::Binary {
                op: BinOp::Div,
                lhs,
                rhs,
                ..
            } => {
                assert!(matches!(**lhs, Expr::Number(n) if n.value == 1.0));
                assert!(matches!(**rhs, Expr::Number(n) if n.value == 2.0));
            }
            _ => panic!("not a division"),
        }
        assert_eq!(eval(e, &[]), 0.5);
    });
    let value = |e: TokenStream| with_kinetic(e, |e| e.literal());
    assert_eq!(value(quote!(0.5)), Some(0.5));
    assert_eq!(value(quote!(1e3)), Some(1000.0));
    assert_eq!(value(quote!(2.5E-3)), Some(0.0025));
    assert_eq!(value(quote!(1_000)), Some(1000.0));
    assert_eq!(value(quote!(0x10)), Some(16.0));
    assert_eq!(value(quote!(-(3))), Some(-3.0));
    assert_eq!(
        value(quote!(18446744073709551616)),
        Some(18446744073709551616.0)
    );
    assert_eq!(value(quote!(x)), None);
}

// ---------------------------------------------------------------------------------------
// Parser: statements, the model's header, syntax errors
// ---------------------------------------------------------------------------------------

#[test]
fn statements_split_at_semicolons() {
    let model = parse_ok(double_pendulum());
    assert_eq!(model.header.name, "DoublePendulum");
    assert!(matches!(model.header.vis, syn::Visibility::Public(_)));
    assert_eq!(model.header.attrs.len(), 1);
    assert!(model.header.attrs[0].path().is_ident("doc"));
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds,
        [
            "parameters(5)",
            "coordinates(2)",
            "let x1",
            "let y1",
            "let x2",
            "let y2",
            "kinetic",
            "potential"
        ]
    );
    let Statement::Parameters(params) = &model.statements[0] else {
        panic!("not parameters")
    };
    let defaults: Vec<Option<f64>> = params
        .iter()
        .map(|p| p.default.as_ref().and_then(Expr::literal))
        .collect();
    assert_eq!(
        defaults,
        [Some(1.0), Some(1.0), Some(1.0), Some(1.0), Some(9.81)]
    );

    let model = parse_ok(cart_pole());
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds,
        [
            "parameters(5)",
            "coordinates(2)",
            "inputs(1)",
            "let px",
            "let py",
            "kinetic",
            "potential",
            "dissipation",
            "force"
        ]
    );
    assert!(matches!(model.header.vis, syn::Visibility::Restricted(_)));
    assert_eq!(model.header.attrs.len(), 2);
}

#[test]
fn empty_statements_and_trailing_commas_are_accepted() {
    let model = parse_ok(quote! {
        struct M {
            ;
            parameters: a, b = 2.0, c = -1,;
            coordinates: x,;;
            /// A documented statement.
            kinetic = a * dot(x)^2;
        }
    });
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(kinds, ["parameters(3)", "coordinates(1)", "kinetic"]);
    let Statement::Parameters(params) = &model.statements[0] else {
        panic!("not parameters")
    };
    let defaults: Vec<Option<f64>> = params
        .iter()
        .map(|p| p.default.as_ref().and_then(Expr::literal))
        .collect();
    assert_eq!(defaults, [None, Some(2.0), Some(-1.0)]);
    assert!(parse_ok(quote!(
        struct Empty {}
    ))
    .statements
    .is_empty());
}

#[test]
fn force_and_constraint_statements() {
    let model = parse_ok(quote! {
        struct M {
            force -k * dot(x) on x + l * sin(th);
            constraint c = x^2 + y^2 - 1;
        }
    });
    match &model.statements[..] {
        [Statement::Force { force, point, .. }, Statement::Constraint { name, value }] => {
            assert_eq!(sexpr(force), "(* (neg k) (dot x))");
            assert_eq!(sexpr(point), "(+ x (* l (sin th)))");
            assert_eq!(name, "c");
            assert_eq!(sexpr(value), "(- (+ (^ x 2) (^ y 2)) 1)");
        }
        _ => panic!("expected a force and a constraint"),
    }
}

#[test]
fn contact_statements() {
    let model = parse_ok(quote! {
        struct M {
            contact toe = [x, 0, y];
            contact sole = frame(rot_z(th), [x, y, 0]);
            contact frame = frame;
        }
    });
    let kinds: Vec<String> = model.statements.iter().map(statement_kind).collect();
    assert_eq!(
        kinds,
        ["contact toe", "contact sole frame", "contact frame"]
    );
    match &model.statements[1] {
        Statement::Contact {
            rotation: Some(r),
            point,
            ..
        } => {
            assert_eq!(sexpr(r), "(rot_z th)");
            assert_eq!(sexpr(point), "(list x y 0)");
        }
        _ => panic!("expected a frame contact"),
    }
    // A point that is a name `frame` is a point; `frame(…)` takes a rotation and a point.
    for (source, message) in [
        (
            quote!(struct M { contact c = frame(R); }),
            "a frame contact is `contact name = frame(R, p);`",
        ),
        (
            quote!(struct M { contact c = frame(R, p, q); }),
            "a frame contact is `contact name = frame(R, p);`",
        ),
        (
            quote!(struct M { contact c [m] = p; }),
            "a contact is a point or a frame",
        ),
    ] {
        let errors = parse_errors(source);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains(message), "{errors:?}");
    }
}

#[test]
fn a_semicolon_inside_parentheses_does_not_split() {
    let errors = parse_errors(quote!(struct M { kinetic = (a; b); }));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("expected an operator or `)`"),
        "{errors:?}"
    );
}

#[test]
fn missing_final_semicolon() {
    let errors = parse_errors(quote!(struct M { coordinates: x; kinetic = dot(x)^2 }));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("expected `;`"), "{errors:?}");
}

#[test]
fn syntax_errors_of_different_statements_are_all_reported() {
    let errors = parse_errors(quote! {
        struct M {
            coordinates x;
            let = 3;
            kinetic = m * ;
            potential = x**2;
            parameters: a = 1u8;
            kinetc = 1;
            let fn = 2;
            dissipation = x[a];
        }
    });
    let expected = [
        "expected `:`",
        "expected a name",
        "expected an expression",
        "powers are written `x^2`, not `x**2`",
        "numbers take no type suffix",
        "did you mean `kinetic`?",
        "`fn` is a Rust keyword",
        "an index is an integer literal",
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, want) in errors.iter().zip(expected) {
        assert!(error.contains(want), "`{error}` should contain `{want}`");
    }
}

#[test]
fn header_errors() {
    let cases = [
        (quote!(), "expected `struct Name { … }`"),
        (
            quote!(
                fn f() {}
            ),
            "expected `struct Name { … }`",
        ),
        (
            quote!(
                struct M<T> {}
            ),
            "generic parameters",
        ),
        (
            quote!(
                struct M;
            ),
            "expected `{`",
        ),
        (
            quote!(
                struct M {}
                struct N {}
            ),
            "takes one model",
        ),
        (quote!(struct {}), "expected the model's name"),
        (
            quote!(struct M { #[inline] kinetic = 1; }),
            "only doc comments",
        ),
        (quote!(struct M { kinetic: 1; }), "expected `=`"),
        (quote!(struct M { 3 = x; }), "expected a statement"),
        (quote!(struct M { force f at x; }), "expected `on`"),
        (quote!(struct M { kinetic = []; }), "an empty list"),
        (quote!(struct M { kinetic = x[]; }), "expected an index"),
        (quote!(struct M { kinetic = x.; }), "expected a component"),
        (quote!(struct M { torque t at R; }), "expected `on`"),
        (
            quote!(struct M { kinetic = x y; }),
            "expected an operator or `;`",
        ),
        (
            quote!(struct M { kinetic = "x"; }),
            "expected an expression",
        ),
    ];
    for (tokens, want) in cases {
        let text = tokens.to_string();
        let errors = parse_errors(tokens);
        assert!(
            errors.iter().any(|e| e.contains(want)),
            "`{text}`: {errors:?} should contain `{want}`"
        );
    }
}

#[test]
fn a_bracket_after_a_literal_is_its_unit() {
    assert_eq!(tree(quote!(0.333[m])), "(0.333 [m])");
    assert_eq!(tree(quote!(-2[kg * m ^ 2] * x)), "(* (neg (2 [kg*m^2])) x)");
    assert_eq!(tree(quote!([0.1, 0, 0.333][m])), "((list 0.1 0 0.333) [m])");
    // Never an index after a literal, even an integer one: `[1]` is dimensionless.
    assert_eq!(tree(quote!([4, 5][1])), "((list 4 5) [1])");
    // After anything else a bracket indexes.
    assert_eq!(tree(quote!(v[1])), "(index v 1)");
    with_kinetic(quote!(0.5[m] * 2), |e| assert_eq!(eval(e, &[]), 1.0));
}
