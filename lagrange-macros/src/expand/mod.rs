//! Code generation: the model struct, its coordinate names, and the `Model`, `Dynamics`,
//! `Constrained` and `Parametric` impls, read from the lowered form only.
//!
//! The model's terms are generated generic over the number type: one local per node of
//! the lowered graph that a function needs, in graph order. A node is either a constant
//! (`f64`: literals, parameters and what is built from them only) or a variable (the
//! generic dual type), so parameter arithmetic costs what it costs in plain Rust. `dot(e)`
//! evaluates `e` in the tangent type `Dual<D>`, seeded with (q̇, 1) on (q, t): its `eps`
//! part is the total time derivative, exact to every order the outer dual type carries.
//!
//! Here: the model's items and the impls of `Model` and `Parametric`, and the one place that
//! picks the equations' generator (`Generated::choose`); `types.rs` the named types,
//! `lets.rs` `Name::lets` and `Name::jacobians`, `terms.rs` the generic terms ([`terms::Gen`]).

use crate::ast::Header;
use crate::graph::Graph;
use crate::lower::{Lowered, TreeDynamics};
use crate::names::{float, internal, private};
use crate::typing::ModelUnits;
use crate::units::Unit;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::quote;
use syn::Ident;

mod contacts;
mod lets;
mod terms;
mod types;

pub use contacts::{contact_forces_type, contact_types, contacts_type, ContactFace};
use lets::{jacobians_impl, lets_impl};
use terms::point_type;
use terms::term_fns;
pub use types::{data_types, jacobians_type, lets_type, LetFace};

/// A user's name as a binding of the generated code: at the name's source location, with
/// mixed-site hygiene and a prefix, so that nothing in the user's scope can capture it or
/// clash with it (Rust forbids `let G` where a `const G` is in scope).
fn local(ident: &Ident) -> Ident {
    let span = ident.span().resolved_at(Span::mixed_site());
    let name = crate::check::key(ident);
    Ident::new(&format!("__{name}"), span)
}

/// `items` (generated items, one after the other) each under the model's `#[cfg(...)]`
/// attributes, so that a model compiled out takes everything generated for it along.
pub fn under_cfg(header: &Header, items: TokenStream) -> TokenStream {
    let cfgs: Vec<_> = header
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();
    if cfgs.is_empty() {
        return items;
    }
    // An item ends with a `;` or a braced body (`impl … { }`, `struct … { }`), followed by
    // a `;` in `const _: T = { … };`: the forms the generators emit at the top level.
    let mut out = TokenStream::new();
    let mut item = TokenStream::new();
    let mut tokens = items.into_iter().peekable();
    while let Some(token) = tokens.next() {
        let ends = match &token {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => {
                g.delimiter() == Delimiter::Brace
                    && !matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ';')
            }
            _ => false,
        };
        item.extend([token]);
        if ends {
            let body = std::mem::take(&mut item);
            out.extend(quote!(#(#cfgs)* #body));
        }
    }
    debug_assert!(item.is_empty(), "generated items end with `;` or a body");
    out.extend(item);
    out
}

/// The model's items; `units` are the declared units when the model declares them and
/// its dimensions check.
pub fn expand(l: &Lowered, units: Option<&ModelUnits>) -> TokenStream {
    // The form the fast path differentiates, built once for its equations and its rows of
    // frame Jacobians.
    let unrolled = Graph::unrolled(l);
    let items = [
        data_types(
            &l.header,
            &l.parameters,
            &l.coordinates,
            &l.inputs,
            &LetFace::of(l),
            units,
        ),
        contact_types(&l.header, &ContactFace::of(l)),
        lets_impl(l),
        jacobians_impl(l, &unrolled),
        contacts::contacts_impl(l, &unrolled),
    ];
    let generated = Generated::choose(l, &unrolled);
    let model = model_impl(l, units, &generated, &unrolled);
    let parametric = parametric_impl(l, units, generated.sweep.is_some());
    let robot = robot_items(l);
    quote!(#(#items)* #model #parametric #robot)
}

/// For a model read from a URDF file: `Name::JOINT_LIMITS`, `Name::coordinate` (a joint's
/// coordinate by its name in the file or in the model), and the file included as bytes so
/// that rustc rebuilds the crate when it changes.
fn robot_items(l: &Lowered) -> TokenStream {
    let Some(robot) = &l.robot else {
        return TokenStream::new();
    };
    let (name, p, file) = (&l.header.name, private(), &robot.file);
    let count = robot.joints.len();
    let limits = robot.joints.iter().map(|j| {
        let joint = &j.name;
        let limit = match j.limit {
            Some(values) => {
                let [lower, upper, velocity, effort] = values.map(|v| {
                    if v.is_finite() {
                        float(v, Span::call_site())
                    } else if v > 0.0 {
                        quote!(f64::INFINITY)
                    } else {
                        quote!(f64::NEG_INFINITY)
                    }
                });
                quote!(::core::option::Option::Some(#p::JointLimit { lower: #lower, upper: #upper, velocity: #velocity, effort: #effort }))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!((#joint, #limit))
    });
    let friction = robot.joints.iter().map(|j| {
        let (joint, value) = (&j.name, float(j.friction, Span::call_site()));
        quote!((#joint, #value))
    });
    // Each joint's coordinate index, by its names in the file and in the model.
    let arms = robot.joints.iter().filter_map(|j| {
        let index = l
            .coordinates
            .iter()
            .position(|c| crate::check::key(c) == j.name)?;
        Some(if j.file_name == j.name {
            let name = &j.name;
            quote!(#name => ::core::option::Option::Some(#index),)
        } else {
            let (name, file_name) = (&j.name, &j.file_name);
            quote!(#name | #file_name => ::core::option::Option::Some(#index),)
        })
    });
    quote! {
        // The file's numbers as written (`6.28318530718`, say): no lint of the user's applies.
        #[allow(clippy::all)]
        impl #name {
            /// Each joint coordinate of the URDF file with its `<limit>` (in the order of
            /// the coordinates), or `None` where the file gives none.
            pub const JOINT_LIMITS: [(&'static str, ::core::option::Option<#p::JointLimit>); #count] = [#(#limits),*];

            /// Each joint coordinate's `<dynamics friction>` (N·m for a revolute joint, N
            /// for a prismatic one; 0 where the file gives none), in the order of the
            /// coordinates. Not in the equations: dry friction is no Rayleigh dissipation
            /// (only `damping` is, in `urdf_dissipation`); a model that wants it writes a
            /// force, a smoothed law with a parameter set from this, say.
            pub const JOINT_FRICTION: [(&'static str, f64); #count] = [#(#friction),*];

            /// The index of a joint's coordinate, by the joint's name in the URDF file
            /// (`"joint_0.0"`) or in the model (`"joint_0_0"`: characters an identifier
            /// cannot hold become `_`); `None` for a fixed joint or a name the file does not
            /// have.
            pub fn coordinate(joint: &str) -> ::core::option::Option<usize> {
                match joint {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            }
        }
        const _: &[u8] = ::core::include_bytes!(#file);
    }
}

/// The code of the equations of motion, and the one place that chooses which generator
/// writes it: the unrolled fast path ([`crate::fast`]) for `eval_equations` where the
/// model is within its size, else the sweep ([`crate::sweep`]) in `f64`, which then also
/// gives `eval_mass_matrix` without its pass along the motion; the sweep for everything
/// generic (`eval_equations_in`, inverse dynamics, the gradient, parameters). A model that
/// neither handles (a `dot` of velocities, which the checker rejects) keeps the runtime's
/// generic dual-number passes.
struct Generated {
    /// `__lagrange_sweep`, an associated function of the model.
    sweep: Option<TokenStream>,
    /// `eval_equations` and `FAST_EQUATIONS` for `impl Model`, and `eval_mass_matrix`
    /// where the mass matrix alone costs less than the equations (the sweep).
    equations: Option<TokenStream>,
}

impl Generated {
    fn choose(l: &Lowered, unrolled: &Graph) -> Self {
        let sweep = crate::sweep::sweep_fn(l);
        let tree_mass = tree_mass_matrix(l);
        let equations = match crate::fast::equations_fn(l, unrolled, crate::fast::MAX_STATEMENTS) {
            Some(code) => Some(quote!(#code #tree_mass)),
            None if sweep.is_some() => {
                let p = private();
                let (n, m) = (l.coordinates.len(), l.inputs.len());
                let fields: Vec<_> = l.parameters.iter().map(|x| &x.name).collect();
                let x = internal("x");
                let values = quote!(&[#(self.#fields),*]);
                let equations = sweep_equations(n, &quote!(f64), &values, &x, true);
                let mass_matrix = tree_mass.unwrap_or_else(|| {
                    let mass_matrix = sweep_equations(n, &quote!(f64), &values, &x, false);
                    quote! {
                        fn eval_mass_matrix(&self, #x: &#p::Point<f64, #n, #m>) -> #p::SMatrix<f64, #n, #n> {
                            #mass_matrix.mass
                        }
                    }
                });
                Some(quote! {
                    const FAST_EQUATIONS: bool = true;

                    fn eval_equations(&self, #x: &#p::Point<f64, #n, #m>) -> #p::Equations<#n> {
                        #equations
                    }

                    #mass_matrix
                })
            }
            None => tree_mass,
        };
        Generated { sweep, equations }
    }
}

/// `Model::eval_mass_matrix` of a robot whose kinetic energy is its URDF tree's alone
/// ([`Lowered::tree_kinetic`]): the composite-rigid-body algorithm over its tree constant
/// (`lagrange_runtime::tree_dynamics::mass_matrix`), which costs less than the sweep's
/// columns (the Panda 699 → 607 ns, the Solo-12 1.46 → 1.08 µs, the G1 3.88 → 2.95 µs).
fn tree_mass_matrix(l: &Lowered) -> Option<TokenStream> {
    if !l.tree_kinetic() {
        return None;
    }
    let p = private();
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let tree = internal(lets::ROBOT_TREE);
    let x = internal("x");
    Some(quote! {
        fn eval_mass_matrix(&self, #x: &#p::Point<f64, #n, #m>) -> #p::SMatrix<f64, #n, #n> {
            #p::tree_dynamics::mass_matrix(&Self::#tree, #x)
        }
    })
}

/// The [`Equations`](lagrange_runtime::model::Equations) from `__lagrange_sweep` in the
/// scalar given, the parameters as `values` and the point as `x`, the mass matrix written
/// into one the call clears; with `motion` false, the bias is not computed (for the mass
/// matrix alone).
fn sweep_equations(
    n: usize,
    scalar: &TokenStream,
    values: &TokenStream,
    x: &Ident,
    motion: bool,
) -> TokenStream {
    let p = private();
    let (mass, bias, gradient) = (
        internal("__mass"),
        internal("__bias"),
        internal("__gradient"),
    );
    quote! {{
        // From an array rather than `from_element`, whose iterator an unoptimized build
        // copies through frames of several matrices each (565 KB of stack for N = 101).
        let mut #mass = <#p::SMatrix<#scalar, #n, #n> as #p::From<[[#scalar; #n]; #n]>>::from(
            [[<#scalar as #p::From<f64>>::from(0.0); #n]; #n],
        );
        let (#bias, #gradient) = Self::__lagrange_sweep::<#scalar>(
            #values,
            #x,
            ::core::option::Option::None,
            #motion,
            ::core::option::Option::Some(&mut #mass),
        );
        #p::Equations {
            mass: #mass,
            momenta: #gradient.momenta,
            bias: #bias,
            lagrangian: #gradient.lagrangian,
        }
    }}
}

fn model_impl(
    l: &Lowered,
    units: Option<&ModelUnits>,
    generated: &Generated,
    unrolled: &Graph,
) -> TokenStream {
    let name = &l.header.name;
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let p = private();
    let coordinates = l.coordinates.iter().map(crate::check::key);
    let inputs = l.inputs.iter().map(crate::check::key);
    let has_dissipation = l.dissipation.is_some();
    let has_forces = !l.forces.is_empty();
    let quadratic = l.quadratic_in_velocities();
    let reads_inputs = |id| l.ir.deps(id).has(crate::ir::Deps::U);
    let inputs_only_in_forces = !reads_inputs(l.kinetic)
        && !l.potential.is_some_and(reads_inputs)
        && !l.dissipation.is_some_and(reads_inputs);
    // A large model's terms are written once, in `impl Parametric`; a small one's twice,
    // its parameters constants of `f64` here (a dual number times an `f64` costs less than
    // times a dual: a slider pendulum's constrained accelerations, whose rod length is a
    // parameter, 1 480 instructions per call against 1 563 through `Parametric`).
    let terms = if l.ir.len() > DELEGATE_ABOVE {
        delegated_term_fns(l)
    } else {
        term_fns(l, false)
    };
    let [x, qdd, scalar] = ["x", "qdd", "__S"].map(internal);
    let lifted = lifted_parameters(l, &scalar);
    let equations = &generated.equations;
    let equations_in = sweep_equations(n, &quote!(#scalar), &lifted, &x, true);
    let swept = generated.sweep.as_ref().map(|_| {
        quote! {
            fn eval_equations_in<#scalar: #p::Scalar>(
                &self,
                #x: &#p::Point<#scalar, #n, #m>,
            ) -> #p::Equations<#n, #scalar> {
                #equations_in
            }

            fn eval_inverse_dynamics_in<#scalar: #p::Scalar>(
                &self,
                #x: &#p::Point<#scalar, #n, #m>,
                #qdd: &[#scalar; #n],
            ) -> [#scalar; #n] {
                let (bias, _) = Self::__lagrange_sweep(#lifted, #x, ::core::option::Option::Some(#qdd), true, ::core::option::Option::None);
                (-bias).into()
            }

            fn eval_gradient_in<#scalar: #p::Scalar>(
                &self,
                #x: &#p::Point<#scalar, #n, #m>,
            ) -> #p::Gradient<#n, #scalar> {
                let zero = [<#scalar as #p::From<f64>>::from(0.0); #n];
                Self::__lagrange_sweep(#lifted, #x, ::core::option::Option::Some(&zero), false, ::core::option::Option::None).1
            }
        }
    });
    let inherent = generated
        .sweep
        .as_ref()
        .map(|code| quote!(impl #name { #code }));
    let names = l.constraints.iter().map(|k| &k.name);
    let holonomic = l.constraints.iter().map(|k| k.holonomic);
    let k = l.constraints.len();
    let units = units_const(units);
    let tree = crate::tree::mass_tree(l).map(|tree| {
        let constrained = tree.constrained;
        let parents = tree.parents.iter().map(|&parent| {
            if parent == usize::MAX {
                quote!(#p::NO_PARENT)
            } else {
                quote!(#parent)
            }
        });
        quote! {
            const MASS_TREE: ::core::option::Option<#p::MassTree<#n>> =
                ::core::option::Option::Some(#p::MassTree {
                    parents: [#(#parents),*],
                    constrained: #constrained,
                });
        }
    });
    let tree_derivatives = tree_derivatives(l, unrolled);
    let tree_accelerations = tree_accelerations(l, unrolled);
    let tree_inverse_dynamics = tree_inverse_dynamics(l, unrolled);
    let forces_along_inputs =
        crate::fast::forces_along_inputs_fn(l, unrolled, crate::fast::MAX_STATEMENTS);
    quote! {
        #inherent

        impl #p::Model<#n, #m> for #name {
            const COORDINATES: [&'static str; #n] = [#(#coordinates),*];
            const INPUTS: [&'static str; #m] = [#(#inputs),*];
            #units
            type Constraints = #p::Count<#k>;
            const HAS_DISSIPATION: bool = #has_dissipation;
            const HAS_FORCES: bool = #has_forces;
            const QUADRATIC_IN_VELOCITIES: bool = #quadratic;
            const INPUTS_ONLY_IN_FORCES: bool = #inputs_only_in_forces;
            const CONSTRAINT_NAMES: &'static [&'static str] = &[#(#names),*];
            const HOLONOMIC: &'static [bool] = &[#(#holonomic),*];
            #tree

            #terms
            #equations
            #swept
            #tree_derivatives
            #tree_accelerations
            #tree_inverse_dynamics
            #forces_along_inputs
        }
    }
}

/// The gravity and the damping a robot's tree passes `lagrange_runtime::tree_dynamics`:
/// the parameter `g` (or 0 without `urdf_potential`) and the file's damping of each
/// coordinate.
fn tree_arguments(l: &Lowered, dynamics: &TreeDynamics) -> (TokenStream, TokenStream) {
    let gravity = match dynamics.gravity {
        Some(k) => {
            let g = &l.parameters[k].name;
            quote!(self.#g)
        }
        None => quote!(0.0),
    };
    let damping = dynamics
        .damping
        .iter()
        .map(|&d| float(d, Span::call_site()));
    (gravity, quote!([#(#damping),*]))
}

/// `Model::eval_tree_accelerations` (and `TREE_ACCELERATIONS`) of a robot that is its
/// URDF's tree and nothing else ([`Lowered::tree_dynamics`]) and whose only constraint is
/// its floating base's (mimic joints and the user's constraints are the KKT solve's), its
/// applied forces Q unrolled ([`crate::fast::generalized_forces_code`]): the
/// articulated-body algorithm (`lagrange_runtime::tree_dynamics::accelerations`).
fn tree_accelerations(l: &Lowered, unrolled: &Graph) -> Option<TokenStream> {
    let dynamics = l.tree_dynamics()?;
    let floating = l.robot.as_ref()?.tree.floating;
    if l.constraints.len() != usize::from(floating) {
        return None;
    }
    let p = private();
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let (gravity, damping) = tree_arguments(l, &dynamics);
    let tree = internal(lets::ROBOT_TREE);
    let [x, constraint, qdd] = ["x", "constraint", "qdd"].map(internal);
    let forces = tree_forces(l, unrolled, &x)?;
    Some(quote! {
        const TREE_ACCELERATIONS: bool = true;

        #[inline]
        fn eval_tree_accelerations(
            &self,
            #x: &#p::Point<f64, #n, #m>,
            #constraint: ::core::option::Option<(&[f64; #n], f64)>,
            #qdd: &mut [f64; #n],
        ) -> bool {
            #p::tree_dynamics::accelerations(
                &Self::#tree,
                #gravity,
                &#damping,
                #x,
                // A block's tail: the unrolled code is a block with attributes.
                &{ #forces },
                #constraint,
                #qdd,
            )
        }
    })
}

/// The applied generalized forces Q of a robot at the point `x`, as the tree's algorithms
/// take them: zeros without forces, else the unrolled code
/// ([`crate::fast::generalized_forces_code`]); `None` where that declines.
fn tree_forces(l: &Lowered, unrolled: &Graph, x: &Ident) -> Option<TokenStream> {
    let n = l.coordinates.len();
    if l.forces.is_empty() {
        Some(quote!([0.0f64; #n]))
    } else {
        crate::fast::generalized_forces_code(l, unrolled, x, crate::fast::MAX_STATEMENTS)
    }
}

/// `Model::eval_tree_inverse_dynamics` of a robot that is its URDF's tree and nothing else
/// ([`Lowered::tree_dynamics`]; constraints do not enter the inverse dynamics), its
/// applied forces unrolled ([`tree_forces`]): the recursive Newton–Euler algorithm
/// (`lagrange_runtime::tree_dynamics::inverse_dynamics`).
fn tree_inverse_dynamics(l: &Lowered, unrolled: &Graph) -> Option<TokenStream> {
    let dynamics = l.tree_dynamics()?;
    let p = private();
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let (gravity, damping) = tree_arguments(l, &dynamics);
    let tree = internal(lets::ROBOT_TREE);
    let [x, qdd, tau] = ["x", "qdd", "tau"].map(internal);
    let forces = tree_forces(l, unrolled, &x)?;
    Some(quote! {
        #[inline]
        fn eval_tree_inverse_dynamics(
            &self,
            #x: &#p::Point<f64, #n, #m>,
            #qdd: &[f64; #n],
            #tau: &mut [f64; #n],
        ) -> bool {
            #p::tree_dynamics::inverse_dynamics(
                &Self::#tree,
                #gravity,
                &#damping,
                #x,
                #qdd,
                // A block's tail: the unrolled code is a block with attributes.
                &{ #forces },
                #tau,
            );
            true
        }
    })
}

/// `Model::eval_inverse_dynamics_derivatives` of a robot that is its URDF's tree and
/// nothing else ([`Lowered::tree_dynamics`]): from its tree constant, gravity the
/// parameter `g`, damping the file's (`lagrange_runtime::tree_dynamics`).
fn tree_derivatives(l: &Lowered, unrolled: &Graph) -> Option<TokenStream> {
    let dynamics = l.tree_dynamics()?;
    let p = private();
    let (n, m) = (l.coordinates.len(), l.inputs.len());
    let (gravity, damping) = tree_arguments(l, &dynamics);
    let tree = internal(lets::ROBOT_TREE);
    let [x, qdd, d_q, d_qd, mass, forces, tau] =
        ["x", "qdd", "d_q", "d_qd", "mass", "forces", "tau"].map(internal);
    // τ: the tree's less the applied forces' Q (unrolled), else the model's own inverse
    // dynamics.
    let tau_value = if l.forces.is_empty() {
        Some(quote!(#p::SVector::from(#tau)))
    } else {
        crate::fast::generalized_forces_code(l, unrolled, &x, crate::fast::MAX_STATEMENTS)
            .map(|q| quote!(#p::SVector::from(#tau) - #p::SVector::<f64, #n>::from(#q)))
    }
    .unwrap_or_else(|| quote!(#p::SVector::from(self.eval_inverse_dynamics_in(#x, #qdd))));
    // The forces' derivatives along the state unrolled where they stay small, else in
    // dual numbers over the forces.
    let moving = (!dynamics.moving.is_empty()).then(|| {
        let read = &dynamics.forces_read;
        crate::fast::forces_along_state_code(
            l,
            unrolled,
            &dynamics.moving,
            read,
            [&x, &d_q, &d_qd],
            crate::fast::MAX_STATEMENTS,
        )
        .unwrap_or_else(|| {
            let velocities = dynamics.forces_read_velocities;
            quote!(#p::tree_dynamics::forces_along_state(self, #x, &[#(#read),*], #velocities, #d_q, #d_qd);)
        })
    });
    Some(quote! {
        #[inline]
        fn eval_inverse_dynamics_derivatives(
            &self,
            #x: &#p::Point<f64, #n, #m>,
            #qdd: &[f64; #n],
            #d_q: &mut #p::SMatrix<f64, #n, #n>,
            #d_qd: &mut #p::SMatrix<f64, #n, #n>,
            #mass: &mut #p::SMatrix<f64, #n, #n>,
            #forces: ::core::option::Option<&mut #p::SVector<f64, #n>>,
        ) -> bool {
            let mut #tau = [0.0f64; #n];
            #p::tree_dynamics::derivatives(
                &Self::#tree,
                #gravity,
                &#damping,
                #x,
                #qdd,
                #d_q,
                #d_qd,
                #mass,
                &mut #tau,
            );
            #moving
            if let ::core::option::Option::Some(#forces) = #forces {
                *#forces = #tau_value;
            }
            true
        }
    })
}

/// `impl Parametric<N, M, P>`: the same terms with the parameters taken from an array of
/// the number type (so that they can be differentiated), and the accelerations in them.
fn parametric_impl(c: &Lowered, units: Option<&ModelUnits>, swept: bool) -> TokenStream {
    let name = &c.header.name;
    let (n, m) = (c.coordinates.len(), c.inputs.len());
    let np = c.parameters.len();
    let p = private();
    let names = c.parameters.iter().map(|x| crate::check::key(&x.name));
    let fields = c.parameters.iter().map(|x| &x.name);
    let terms = term_fns(c, true);
    let parameter_units = units.map(|u| {
        let units = u.parameters.iter().map(Unit::text);
        quote!(const PARAMETER_UNITS: ::core::option::Option<[&'static str; #np]> =
            ::core::option::Option::Some([#(#units),*]);)
    });
    let [values, x, scalar] = ["values", "x", "__S"].map(internal);
    let qdd = internal("qdd");
    let inverse_dynamics = swept.then(|| {
        quote! {
            fn eval_inverse_dynamics_with<#scalar: #p::Scalar>(
                &self,
                #values: &[#scalar; #np],
                #x: &#p::Point<#scalar, #n, #m>,
                #qdd: &[#scalar; #n],
            ) -> [#scalar; #n] {
                let (bias, _) = Self::__lagrange_sweep(#values, #x, ::core::option::Option::Some(#qdd), true, ::core::option::Option::None);
                (-bias).into()
            }
        }
    });
    quote! {
        impl #p::Parametric<#n, #m, #np> for #name {
            const PARAMETERS: [&'static str; #np] = [#(#names),*];
            #parameter_units

            fn parameter_values(&self) -> [f64; #np] {
                [#(self.#fields),*]
            }

            #terms
            #inverse_dynamics
        }
    }
}

/// The struct's parameters as an array of the scalar `scalar` (an expression of a method
/// of `impl Model`), for the functions that take them as values: `__lagrange_sweep` and
/// `impl Parametric`'s `_with` forms.
fn lifted_parameters(l: &Lowered, scalar: &Ident) -> TokenStream {
    let p = private();
    let fields = l.parameters.iter().map(|x| &x.name);
    quote!(&[#(<#scalar as #p::From<f64>>::from(self.#fields)),*])
}

/// Beyond this many nodes of `Lowered`, `impl Model`'s terms call `impl Parametric`'s
/// ([`delegated_term_fns`]): the G1 humanoid (about 5 100) and the 16 `let`s of 120 terms of
/// `tests/common/large_model.rs` (6 500) are; the Solo-12 (1 900) is not.
const DELEGATE_ABOVE: usize = 4_000;

/// `Model`'s terms, `eval_energies`, `eval_dissipation`, `eval_forces` and
/// `eval_constraints`: those of `Parametric` ([`term_fns`]) at the model's parameters, so
/// that the terms are written once (a model of 60 `let`s of 120 terms: 2.6 MB of tokens for
/// each copy of its energies, every one type-checked and borrow-checked).
fn delegated_term_fns(l: &Lowered) -> TokenStream {
    let (n, m, np) = (l.coordinates.len(), l.inputs.len(), l.parameters.len());
    let p = private();
    let [d, f, x, apply, level] = ["__D", "__F", "x", "apply", "level"].map(internal);
    let point = point_type(l, &d);
    let values = lifted_parameters(l, &d);
    let with = quote!(<Self as #p::Parametric<#n, #m, #np>>);
    let dissipation = l.dissipation.is_some().then(|| {
        quote! {
            #[inline]
            fn eval_dissipation<#d: #p::Scalar>(&self, #x: &#point) -> #d {
                #with::eval_dissipation_with(self, #values, #x)
            }
        }
    });
    let forces = (!l.forces.is_empty()).then(|| {
        quote! {
            #[inline]
            fn eval_forces<#d: #p::Scalar, #f: #p::FnMut(#d, #d)>(&self, #x: &#point, #apply: #f) {
                #with::eval_forces_with(self, #values, #x, #apply)
            }
        }
    });
    let constraints = (!l.constraints.is_empty()).then(|| {
        quote! {
            #[inline]
            fn eval_constraints<#d: #p::Scalar, #f: #p::FnMut(usize, #d)>(
                &self,
                #level: #p::Level,
                #x: &#point,
                #apply: #f,
            ) {
                #with::eval_constraints_with(self, #level, #values, #x, #apply)
            }
        }
    });
    quote! {
        #[inline]
        fn eval_energies<#d: #p::Scalar>(&self, #x: &#point) -> #p::Energies<#d> {
            #with::eval_energies_with(self, #values, #x)
        }
        #dissipation
        #forces
        #constraints
    }
}

/// `const UNITS` of `impl Dynamics` when the model declares units; nothing otherwise.
fn units_const(units: Option<&ModelUnits>) -> TokenStream {
    let Some(units) = units else {
        return TokenStream::new();
    };
    let p = private();
    let (n, m) = (units.coordinates.len(), units.inputs.len());
    let coordinates = units.coordinates.iter().map(Unit::text);
    let velocities = units.coordinates.iter().map(|u| u.per_second().text());
    let inputs = units.inputs.iter().map(Unit::text);
    quote! {
        const UNITS: ::core::option::Option<#p::Units<#n, #m>> =
            ::core::option::Option::Some(#p::Units {
                coordinates: [#(#coordinates),*],
                velocities: [#(#velocities),*],
                inputs: [#(#inputs),*],
            });
    }
}
