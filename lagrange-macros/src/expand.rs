//! Code generation: the model struct, its coordinate names, and the `Model` and `Dynamics`
//! impls.
//!
//! Quantities are either constants (`f64`: literals, parameters, lets of them) or
//! variables (the generic dual type). Constants never become dual numbers, so parameter
//! arithmetic costs what it costs in plain Rust. `dot(e)` evaluates `e` in the tangent type
//! `Dual<D>`, seeded with (q̇, 1) on (q, t): its `eps` part is the total time derivative,
//! exact to every order the outer dual type carries.

use crate::ast::{BinOp, Expr, Model, Parameter};
use crate::check::{Checked, Symbol};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

/// An identifier of the generated code that user code can never see or shadow.
pub(crate) fn internal(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// A user's name as a binding of the generated code: at the name's source location, with
/// mixed-site hygiene and a prefix, so that nothing in the user's scope can capture it or
/// clash with it (Rust forbids `let G` where a `const G` is in scope).
fn local(ident: &Ident) -> Ident {
    let span = ident.span().resolved_at(Span::mixed_site());
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    Ident::new(&format!("__{name}"), span)
}

pub(crate) fn private() -> TokenStream {
    quote!(::lagrange_runtime::__private)
}

pub fn expand(c: &Checked) -> TokenStream {
    let items = [
        data_types(c.model, &c.parameters, &c.coordinates, &c.inputs),
        model_impl(c),
        dynamics_impl(
            c.model,
            c.coordinates.len(),
            c.inputs.len(),
            c.constraints.len(),
        ),
        constrained_impls(c),
        parametric_impl(c),
    ];
    quote!(#(#items)*)
}

/// The model struct with its constructor, and the structs naming coordinates and inputs.
pub fn data_types(
    model: &Model,
    parameters: &[&Parameter],
    coordinates: &[&Ident],
    inputs: &[&Ident],
) -> TokenStream {
    let items = [
        model_struct(model, parameters),
        named_vector(model, "Coordinates", coordinates, "coordinates"),
        named_vector(model, "Inputs", inputs, "inputs"),
    ];
    quote!(#(#items)*)
}

fn model_struct(model: &Model, parameters: &[&Parameter]) -> TokenStream {
    let (name, vis, attrs) = (&model.name, &model.vis, &model.attrs);
    let params: Vec<&Ident> = parameters.iter().map(|p| &p.name).collect();
    // Without parameters a unit struct, so that the model's name alone is a value.
    let body = if params.is_empty() {
        quote!(;)
    } else {
        let docs = parameters.iter().map(|p| match p.default {
            Some(d) => format!("Parameter `{}` (default {:?}).", p.name, d.value),
            None => format!("Parameter `{}`.", p.name),
        });
        quote!({ #( #[doc = #docs] pub #params: f64, )* })
    };
    let locals: Vec<Ident> = params.iter().map(|p| local(p)).collect();
    let names: Vec<String> = params.iter().map(|p| format!("`{p}`")).collect();
    let new_doc = if names.is_empty() {
        String::new()
    } else {
        format!("\nArguments: {}.", names.join(", "))
    };
    let default = parameters
        .iter()
        .map(|p| p.default.map(|d| float(d.value, d.span)))
        .collect::<Option<Vec<_>>>()
        .map(|values| {
            quote! {
                // The defaults are the user's literals (clippy would re-lint their spelling).
                #[allow(clippy::all, clippy::pedantic)]
                impl ::core::default::Default for #name {
                    /// The model with every parameter at its declared default.
                    fn default() -> Self {
                        Self::new(#(#values),*)
                    }
                }
            }
        });
    quote! {
        #(#attrs)*
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq)]
        #[allow(non_snake_case)]
        #vis struct #name #body

        impl #name {
            /// The model with the given parameters, in the order they are declared.
            #[doc = #new_doc]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            #[must_use]
            pub const fn new(#(#locals: f64),*) -> Self {
                Self { #(#params: #locals),* }
            }
        }

        #default
    }
}

/// `NameCoordinates` / `NameInputs`: one field per name, converting to and from `SVector`.
fn named_vector(model: &Model, suffix: &str, names: &[&Ident], what: &str) -> TokenStream {
    if names.is_empty() && suffix == "Inputs" {
        return TokenStream::new();
    }
    let (model, vis) = (&model.name, &model.vis);
    let ty = format_ident!("{}{}", model, suffix, span = model.span());
    let n = names.len();
    let index = 0..n;
    let p = private();
    let v = internal("v");
    let doc = format!(
        "The {what} of [`{model}`] by name, checked by the compiler. Converts to and from `SVector<f64, {n}>` in declaration order."
    );
    let field_docs = names.iter().map(|n| format!("`{n}`"));
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::default::Default)]
        #[allow(non_snake_case)]
        #vis struct #ty {
            #( #[doc = #field_docs] pub #names: f64, )*
        }

        impl #p::From<#p::SVector<f64, #n>> for #ty {
            fn from(#v: #p::SVector<f64, #n>) -> Self {
                Self { #( #names: #v[#index], )* }
            }
        }

        impl #p::From<#ty> for #p::SVector<f64, #n> {
            fn from(#v: #ty) -> Self {
                #p::SVector::from([#( #v.#names ),*])
            }
        }
    }
}

fn model_impl(c: &Checked) -> TokenStream {
    let name = &c.model.name;
    let (n, m) = (c.coordinates.len(), c.inputs.len());
    let p = private();
    let coordinates = c.coordinates.iter().map(|i| i.to_string());
    let inputs = c.inputs.iter().map(|i| i.to_string());
    let has_dissipation = c.dissipation.is_some();
    let has_forces = !c.forces.is_empty();
    let terms = term_fns(c, false);
    let equations = crate::fast::equations_fn(c, crate::fast::MAX_STATEMENTS);
    let names = c.constraints.iter().map(|k| k.name.to_string());
    let holonomic = c.constraints.iter().map(|k| k.holonomic);
    quote! {
        impl #p::Model<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = [#(#coordinates),*];
            const INPUTS: [&'static str; #m] = [#(#inputs),*];
            const HAS_DISSIPATION: bool = #has_dissipation;
            const HAS_FORCES: bool = #has_forces;
            const CONSTRAINT_NAMES: &'static [&'static str] = &[#(#names),*];
            const HOLONOMIC: &'static [bool] = &[#(#holonomic),*];

            #terms
            #equations
        }
    }
}

/// `impl Parametric<N, M, P>`: the same terms with the parameters taken from an array of
/// the number type (so that they can be differentiated), and the accelerations in them.
fn parametric_impl(c: &Checked) -> TokenStream {
    let name = &c.model.name;
    let (n, m, k) = (c.coordinates.len(), c.inputs.len(), c.constraints.len());
    let np = c.parameters.len();
    let p = private();
    let names = c.parameters.iter().map(|x| x.name.to_string());
    let fields = c.parameters.iter().map(|x| &x.name);
    let terms = term_fns(c, true);
    let [values, x, scalar] = ["values", "x", "__S"].map(internal);
    let accelerations = if k == 0 {
        quote!(#p::eval::accelerations_in(&#p::WithParameters { model: self, parameters: *#values }, #x))
    } else {
        quote!(#p::constrained::accelerations_in::<_, #scalar, #n, #m, #k>(
            &#p::WithParameters { model: self, parameters: *#values }, #x))
    };
    quote! {
        impl #p::Parametric<#n, #m, #np> for #name {
            const PARAMETERS: [&'static str; #np] = [#(#names),*];

            fn parameter_values(&self) -> [f64; #np] {
                [#(self.#fields),*]
            }

            #terms

            fn accelerations_with<#scalar: #p::Scalar>(
                &self,
                #values: &[#scalar; #np],
                #x: &#p::eval::Point<#scalar, #n, #m>,
            ) -> ::core::option::Option<#p::SVector<#scalar, #n>> {
                #accelerations
            }
        }
    }
}

/// The model's terms as functions generic over the number type: `eval_lagrangian`,
/// `eval_dissipation`, `eval_forces` and `eval_constraints`, or with `parametric` their
/// `_with` forms taking the parameters as an array.
fn term_fns(c: &Checked, parametric: bool) -> TokenStream {
    let (n, m, np) = (c.coordinates.len(), c.inputs.len(), c.parameters.len());
    let p = private();
    let [d, f, t, q, qd, u, apply, pa] =
        ["__D", "__F", "t", "q", "qd", "u", "apply", "parameters"].map(internal);
    let params = quote!(#t: #d, #q: &[#d; #n], #qd: &[#d; #n], #u: &[#d; #m]);
    let (args, suffix) = if parametric {
        (quote!(&self, #pa: &[#d; #np], #params), "_with")
    } else {
        (quote!(&self, #params), "")
    };
    let fn_name = |base: &str| Ident::new(&format!("{base}{suffix}"), Span::call_site());
    let allow = quote!(#[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]);

    let mut g = Gen::new(c, parametric);
    let kinetic = g.expr(c.kinetic, Mode::Primal);
    let potential = match c.potential {
        Some(v) => g.expr(v, Mode::Primal),
        None => (quote!(0.0), Kind::Const),
    };
    let (l, kind) = combine(BinOp::Sub, Span::call_site(), kinetic, potential);
    let l = lift(l, kind);
    let lagrangian = g.body(quote!(#l));
    let eval_lagrangian = fn_name("eval_lagrangian");

    let dissipation = c.dissipation.map(|e| {
        let mut g = Gen::new(c, parametric);
        let (v, kind) = g.expr(e, Mode::Primal);
        let v = lift(v, kind);
        let body = g.body(quote!(#v));
        let eval_dissipation = fn_name("eval_dissipation");
        quote! {
            #allow
            #[inline]
            fn #eval_dissipation<#d: #p::Scalar>(#args) -> #d { #body }
        }
    });

    let forces = (!c.forces.is_empty()).then(|| {
        let mut g = Gen::new(c, parametric);
        let calls: Vec<TokenStream> = c
            .forces
            .iter()
            .map(|(force, point)| {
                let (fv, fk) = g.expr(force, Mode::Primal);
                let (pv, pk) = g.expr(point, Mode::Primal);
                let (fv, pv) = (lift(fv, fk), lift(pv, pk));
                quote!(#apply(#fv, #pv);)
            })
            .collect();
        let body = g.body(quote!(#(#calls)*));
        let eval_forces = fn_name("eval_forces");
        quote! {
            #allow
            #[inline]
            fn #eval_forces<#d: #p::Scalar, #f: #p::FnMut(#d, #d)>(#args, mut #apply: #f) { #body }
        }
    });

    let constraints = constraints_fn(c, &params, &allow, parametric);
    quote! {
        #allow
        #[inline]
        fn #eval_lagrangian<#d: #p::Scalar>(#args) -> #d { #lagrangian }

        #dissipation
        #forces
        #constraints
    }
}

/// `impl Dynamics`, each method calling `eval` (the accelerations of a model with `k`
/// constraints through the constrained solver).
pub fn dynamics_impl(model: &Model, n: usize, m: usize, k: usize) -> TokenStream {
    let name = &model.name;
    let p = private();
    let [s, u, qdd] = ["s", "u", "qdd"].map(internal);
    let state = quote!(#s: &#p::State<#n>);
    let input = quote!(#u: &#p::SVector<f64, #m>);
    let accelerations = if k == 0 {
        quote!(#p::eval::accelerations(self, #s, #u))
    } else {
        quote!(#p::constrained::solve::<Self, #n, #m, #k>(self, #s, #u, None).map(|r| r.0))
    };
    quote! {
        impl #p::Dynamics<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = <Self as #p::Model<#n, #m>>::COORDINATES;
            const INPUTS: [&'static str; #m] = <Self as #p::Model<#n, #m>>::INPUTS;

            fn lagrangian(&self, #state, #input) -> f64 {
                #p::eval::lagrangian(self, #s, #u)
            }
            fn energy(&self, #state, #input) -> f64 {
                #p::eval::energy(self, #s, #u)
            }
            fn momenta(&self, #state, #input) -> #p::SVector<f64, #n> {
                #p::eval::momenta(self, #s, #u)
            }
            fn mass_matrix(&self, #state, #input) -> #p::SMatrix<f64, #n, #n> {
                #p::eval::mass_matrix(self, #s, #u)
            }
            fn generalized_forces(&self, #state, #input) -> #p::SVector<f64, #n> {
                #p::eval::generalized_forces(self, #s, #u)
            }
            fn accelerations(&self, #state, #input)
                -> #p::Result<#p::SVector<f64, #n>, #p::DynamicsError> {
                #accelerations
            }
            fn inverse_dynamics(&self, #state, #qdd: &#p::SVector<f64, #n>, #input)
                -> #p::SVector<f64, #n> {
                #p::eval::inverse_dynamics(self, #s, #qdd, #u)
            }
        }
    }
}

/// `eval_constraints`: each constraint as written at `Level::Position`; at
/// `Level::Velocity` holonomic ones differentiated along the motion (their tangent's `eps`)
/// and nonholonomic ones as written.
fn constraints_fn(
    c: &Checked,
    params: &TokenStream,
    allow: &TokenStream,
    parametric: bool,
) -> Option<TokenStream> {
    if c.constraints.is_empty() {
        return None;
    }
    let p = private();
    let [d, f, apply, level, x, scalar, pa] =
        ["__D", "__F", "apply", "level", "x", "__S", "parameters"].map(internal);
    let (n, m, k) = (c.coordinates.len(), c.inputs.len(), c.constraints.len());
    let np = c.parameters.len();
    let mut position = Gen::new(c, parametric);
    let calls: Vec<TokenStream> = c
        .constraints
        .iter()
        .enumerate()
        .map(|(k, constraint)| {
            let (v, kind) = position.expr(constraint.value, Mode::Primal);
            let v = lift(v, kind);
            quote!(#apply(#k, #v);)
        })
        .collect();
    let position = position.body(quote!(#(#calls)*));
    let mut velocity = Gen::new(c, parametric);
    let calls: Vec<TokenStream> = c
        .constraints
        .iter()
        .enumerate()
        .map(|(k, constraint)| {
            if constraint.holonomic {
                velocity.uses_tangent = true;
                let (v, _) = velocity.expr(constraint.value, Mode::Tangent);
                quote!(#apply(#k, (#v).eps);)
            } else {
                let (v, kind) = velocity.expr(constraint.value, Mode::Primal);
                let v = lift(v, kind);
                quote!(#apply(#k, #v);)
            }
        })
        .collect();
    let velocity = velocity.body(quote!(#(#calls)*));
    let dispatch = quote! {
        match #level {
            #p::Level::Position => { #position }
            #p::Level::Velocity => { #velocity }
        }
    };
    if parametric {
        return Some(quote! {
            #allow
            #[inline]
            fn eval_constraints_with<#d: #p::Scalar, #f: #p::FnMut(usize, #d)>(
                &self,
                #level: #p::Level,
                #pa: &[#d; #np],
                #params,
                mut #apply: #f,
            ) { #dispatch }
        });
    }
    Some(quote! {
        #allow
        #[inline]
        fn eval_constraints<#d: #p::Scalar, #f: #p::FnMut(usize, #d)>(
            &self,
            #level: #p::Level,
            #params,
            mut #apply: #f,
        ) { #dispatch }

        fn accelerations_in<#scalar: #p::Scalar>(&self, #x: &#p::eval::Point<#scalar, #n, #m>)
            -> ::core::option::Option<#p::SVector<#scalar, #n>> {
            #p::constrained::accelerations_in::<Self, #scalar, #n, #m, #k>(self, #x)
        }
    })
}

/// `impl Constrained<N, M, K>` and `impl ConstraintSolver<N, M>` for a model with
/// constraints: the runtime's generic solver, instantiated with this model's K.
fn constrained_impls(c: &Checked) -> TokenStream {
    let k = c.constraints.len();
    if k == 0 {
        return TokenStream::new();
    }
    let name = &c.model.name;
    let (n, m) = (c.coordinates.len(), c.inputs.len());
    let p = private();
    let [s, u, hold, tolerance, stabilization, settings, momentum, t_next] = [
        "s",
        "u",
        "hold",
        "tolerance",
        "stabilization",
        "settings",
        "momentum",
        "t_next",
    ]
    .map(internal);
    let state = quote!(#s: &#p::State<#n>);
    let input = quote!(#u: &#p::SVector<f64, #m>);
    let names = c.constraints.iter().map(|k| k.name.to_string());
    let solver = quote!(#p::constrained);
    quote! {
        impl #p::Constrained<#n, #m, #k> for #name {
            const CONSTRAINTS: [&'static str; #k] = [#(#names),*];

            fn constraint_residuals(&self, #state, #input) -> #p::SVector<f64, #k> {
                #solver::residuals::<Self, #n, #m, #k>(self, #s, #u)
            }
            fn multipliers(&self, #state, #input)
                -> #p::Result<#p::SVector<f64, #k>, #p::DynamicsError> {
                #solver::solve::<Self, #n, #m, #k>(self, #s, #u, None).map(|r| r.1)
            }
        }

        impl #p::ConstraintSolver<#n, #m> for #name {
            fn stabilized_accelerations(&self, #state, #input, #stabilization: #solver::Stabilization)
                -> #p::Result<#p::SVector<f64, #n>, #p::DynamicsError> {
                #solver::solve::<Self, #n, #m, #k>(self, #s, #u, Some(#stabilization)).map(|r| r.0)
            }
            fn project(&self, #state, #input, #hold: &[usize], #tolerance: f64)
                -> #p::Result<#p::State<#n>, #p::DynamicsError> {
                #solver::project::<Self, #n, #m, #k>(self, #s, #u, #hold, #tolerance)
            }
            fn violation(&self, #state, #input) -> #solver::Violation {
                #solver::violation::<Self, #n, #m, #k>(self, #s, #u)
            }
            fn reaction_forces(&self, #state, #input)
                -> #p::Result<#p::SVector<f64, #n>, #p::DynamicsError> {
                #solver::reaction_forces::<Self, #n, #m, #k>(self, #s, #u)
            }
            fn rattle_step(
                &self,
                #settings: &#p::simulate::Rattle,
                #state,
                #momentum: &#p::SVector<f64, #n>,
                #input,
                #t_next: f64,
            ) -> #p::Result<(#p::State<#n>, #p::SVector<f64, #n>), #p::simulate::StepError> {
                #p::simulate::rattle_step::<Self, #n, #m, #k>(#settings, self, #s, #momentum, #u, #t_next)
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An `f64` that does not change with the state.
    Const,
    /// A value of the generic dual type (or of its tangent type).
    Var,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Values of the generic type `D`.
    Primal,
    /// Values of `Dual<D>` carrying their total time derivative.
    Tangent,
}

/// Generates the expressions of one function, recording which lets (and in which mode)
/// they need, so that the body computes exactly those.
struct Gen<'a> {
    c: &'a Checked<'a>,
    /// Parameters are variables taken from the `parameters` array (for differentiation)
    /// rather than `f64` constants read from `self`.
    parametric: bool,
    primal: Vec<bool>,
    tangent: Vec<bool>,
    uses_tangent: bool,
    /// The kind of each constant let's code, once generated.
    let_kinds: Vec<Kind>,
    /// Generated code of each let, once generated: (primal, tangent).
    code: Vec<(Option<TokenStream>, Option<TokenStream>)>,
}

impl<'a> Gen<'a> {
    fn new(c: &'a Checked<'a>, parametric: bool) -> Self {
        let n = c.lets.len();
        Gen {
            c,
            parametric,
            primal: vec![false; n],
            tangent: vec![false; n],
            uses_tangent: false,
            let_kinds: vec![Kind::Var; n],
            code: vec![(None, None); n],
        }
    }

    /// The statements binding parameters, coordinates, inputs and the needed lets, then `tail`.
    fn body(&self, tail: TokenStream) -> TokenStream {
        let p = private();
        let [t, q, qd, u] = ["t", "q", "qd", "u"].map(internal);
        let fields: Vec<&Ident> = self.c.parameters.iter().map(|x| &x.name).collect();
        let params: Vec<Ident> = fields.iter().map(|x| local(x)).collect();
        let coords: Vec<Ident> = self.c.coordinates.iter().map(|x| local(x)).collect();
        let inputs: Vec<Ident> = self.c.inputs.iter().map(|x| local(x)).collect();
        let (ci, ui) = (0..coords.len(), 0..inputs.len());
        let tangents = self.uses_tangent.then(|| {
            let names = (0..coords.len()).map(tangent_coordinate);
            let index = 0..coords.len();
            let tt = internal("t_tangent");
            quote! {
                #( let #names = #p::tangent(#q[#index], #qd[#index]); )*
                let #tt = #p::tangent(#t, #p::From::from(1.0));
            }
        });
        let lets = self.c.lets.iter().enumerate().map(|(i, l)| {
            let name = local(l.name);
            let tangent = self.code[i].1.as_ref().map(|code| {
                let tl = tangent_let(i);
                quote!(let #tl = #code;)
            });
            let primal = self.code[i]
                .0
                .as_ref()
                .map(|code| quote!(let #name = #code;));
            quote!(#tangent #primal)
        });
        let parameters = if self.parametric {
            let array = internal("parameters");
            let index = 0..self.c.parameters.len();
            quote!(#( let #params = #array[#index]; )*)
        } else {
            quote!(#( let #params: f64 = self.#fields; )*)
        };
        quote! {
            #parameters
            #( let #coords = #q[#ci]; )*
            #( let #inputs = #u[#ui]; )*
            #tangents
            #(#lets)*
            #tail
        }
    }

    fn expr(&mut self, e: &Expr, mode: Mode) -> (TokenStream, Kind) {
        match e {
            Expr::Number(n) => (float(n.value, n.span), Kind::Const),
            Expr::Name(ident) => self.name(ident, mode),
            Expr::Paren { inner, .. } => {
                let (v, k) = self.expr(inner, mode);
                (quote!((#v)), k)
            }
            Expr::Neg { minus, operand } => {
                let (v, k) = self.expr(operand, mode);
                (quote_spanned!(*minus=> (-#v)), k)
            }
            Expr::Binary {
                op: BinOp::Pow,
                op_span,
                lhs,
                rhs,
            } => self.power(lhs, rhs, *op_span, mode),
            Expr::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let l = self.expr(lhs, mode);
                let r = self.expr(rhs, mode);
                combine(*op, *op_span, l, r)
            }
            Expr::Call { func, args, .. } => self.call(func, args, mode),
        }
    }

    fn name(&mut self, ident: &Ident, mode: Mode) -> (TokenStream, Kind) {
        let tangent = mode == Mode::Tangent;
        match ident.to_string().as_str() {
            "t" => {
                let t = internal(if tangent { "t_tangent" } else { "t" });
                return (quote!(#t), Kind::Var);
            }
            "pi" => {
                return (
                    quote_spanned!(ident.span()=> ::core::f64::consts::PI),
                    Kind::Const,
                )
            }
            _ => {}
        }
        match self.c.symbols[&ident.to_string()] {
            Symbol::Parameter(_) if !self.parametric => {
                let name = local(ident);
                (quote!(#name), Kind::Const)
            }
            // A variable parameter is constant along the motion: its tangent has no `eps`.
            Symbol::Parameter(_) if tangent => {
                let (p, name) = (private(), local(ident));
                (quote!(#p::Dual::from_re(#name)), Kind::Var)
            }
            Symbol::Parameter(_) => {
                let name = local(ident);
                (quote!(#name), Kind::Var)
            }
            Symbol::Coordinate(i) if tangent => {
                let q = tangent_coordinate(i);
                (quote!(#q), Kind::Var)
            }
            Symbol::Let(i) => self.let_ref(ident, i, mode),
            _ => {
                let name = local(ident);
                (quote!(#name), Kind::Var)
            }
        }
    }

    fn let_ref(&mut self, ident: &Ident, i: usize, mode: Mode) -> (TokenStream, Kind) {
        let c = self.c;
        let l = &c.lets[i];
        let name = local(ident);
        if l.deps.is_constant() {
            // Parameters and literals only: an `f64`, unless parameters are variables here;
            // either way constant along the motion.
            if !self.primal[i] {
                self.primal[i] = true;
                let (code, kind) = self.expr(l.value, Mode::Primal);
                self.code[i].0 = Some(code);
                self.let_kinds[i] = kind;
            }
            let kind = self.let_kinds[i];
            if mode == Mode::Tangent && kind == Kind::Var {
                let p = private();
                return (quote!(#p::Dual::from_re(#name)), kind);
            }
            return (quote!(#name), kind);
        }
        if mode == Mode::Tangent {
            if !self.tangent[i] {
                self.tangent[i] = true;
                let (code, _) = self.expr(l.value, Mode::Tangent);
                self.code[i].1 = Some(code);
            }
            let tl = tangent_let(i);
            return (quote!(#tl), Kind::Var);
        }
        if !self.primal[i] {
            self.primal[i] = true;
            let code = if self.tangent[i] {
                let tl = tangent_let(i);
                quote!(#tl.re)
            } else {
                self.expr(l.value, Mode::Primal).0
            };
            self.code[i].0 = Some(code);
        }
        (quote!(#name), Kind::Var)
    }

    fn power(&mut self, base: &Expr, exp: &Expr, span: Span, mode: Mode) -> (TokenStream, Kind) {
        let p = private();
        let (b, bk) = self.expr(base, mode);
        if let Some(n) = exp.integer().filter(|n| n.unsigned_abs() <= MAX_POWI) {
            let n = Literal::i32_unsuffixed(n);
            return (quote_spanned!(span=> #p::functions::powi(#b, #n)), bk);
        }
        let (e, ek) = self.expr(exp, mode);
        match (bk, ek) {
            (_, Kind::Const) => (quote_spanned!(span=> #p::functions::powf(#b, #e)), bk),
            (bk, Kind::Var) => {
                let b = lift(b, bk);
                (
                    quote_spanned!(span=> #p::functions::powd(#b, #e)),
                    Kind::Var,
                )
            }
        }
    }

    fn call(&mut self, func: &Ident, args: &[Expr], mode: Mode) -> (TokenStream, Kind) {
        let p = private();
        let name = func.to_string();
        if name == "dot" {
            self.uses_tangent = true;
            let (v, _) = self.expr(&args[0], Mode::Tangent);
            return (quote_spanned!(func.span()=> (#v).eps), Kind::Var);
        }
        // `powi(x, n)` and `powf(x, y)` are `x^n` and `x^y`.
        if name == "powf" || name == "powi" {
            return self.power(&args[0], &args[1], func.span(), mode);
        }
        let values: Vec<(TokenStream, Kind)> = args.iter().map(|a| self.expr(a, mode)).collect();
        let kind = if values.iter().all(|(_, k)| *k == Kind::Const) {
            Kind::Const
        } else {
            Kind::Var
        };
        let values = values.into_iter().map(|(v, k)| match kind {
            Kind::Var => lift(v, k),
            Kind::Const => v,
        });
        let f = Ident::new(&name, func.span());
        (
            quote_spanned!(func.span()=> #p::functions::#f(#(#values),*)),
            kind,
        )
    }
}

/// Integer powers beyond this go through `powf`: num-dual's `powi` forms n(n − 1) in `i32`.
pub(crate) const MAX_POWI: u32 = 1024;

fn tangent_coordinate(i: usize) -> Ident {
    internal(&format!("q_tangent_{i}"))
}

fn tangent_let(i: usize) -> Ident {
    internal(&format!("let_tangent_{i}"))
}

/// An `f64` literal at the user's span.
pub(crate) fn float(value: f64, span: Span) -> TokenStream {
    let mut lit = Literal::f64_suffixed(value.abs());
    lit.set_span(span);
    if value < 0.0 {
        quote_spanned!(span=> (-#lit))
    } else {
        quote!(#lit)
    }
}

/// A constant turned into the dual type the context expects.
fn lift(v: TokenStream, kind: Kind) -> TokenStream {
    match kind {
        Kind::Var => v,
        Kind::Const => {
            let p = private();
            quote!(<_ as #p::From<f64>>::from(#v))
        }
    }
}

/// `a op b` where either side may be a constant: constants stay `f64` and go on the
/// side of the operator the dual type implements.
fn combine(
    op: BinOp,
    span: Span,
    (a, ka): (TokenStream, Kind),
    (b, kb): (TokenStream, Kind),
) -> (TokenStream, Kind) {
    let p = private();
    use BinOp::*;
    use Kind::*;
    let code = match (op, ka, kb) {
        (_, Const, Const) | (_, Var, Var) | (_, Var, Const) => match op {
            Add => quote_spanned!(span=> (#a + #b)),
            Sub => quote_spanned!(span=> (#a - #b)),
            Mul => quote_spanned!(span=> (#a * #b)),
            Div => quote_spanned!(span=> (#a / #b)),
            Pow => unreachable!("powers are generated by Gen::power"),
        },
        (Add, Const, Var) => quote_spanned!(span=> (#b + #a)),
        (Mul, Const, Var) => quote_spanned!(span=> (#b * #a)),
        (Sub, Const, Var) => quote_spanned!(span=> (-#b + #a)),
        (Div, Const, Var) => quote_spanned!(span=> #p::functions::divide_constant(#a, #b)),
        (Pow, _, _) => unreachable!("powers are generated by Gen::power"),
    };
    let kind = if ka == Const && kb == Const {
        Const
    } else {
        Var
    };
    (code, kind)
}
