//! The model's terms as generic code (T and V, D, forces, constraints in any scalar), one
//! local per node of the lowered graph a function needs: [`Gen`], which writes them as
//! [`Stmt`](crate::emit::Stmt)s, with `dot(e)` in the tangent type `Dual<D>`.

use crate::emit::{declare, Stmt};
use crate::ir::{Id, Jet1, Jet2, Op};
use crate::lower::Lowered;
use crate::names::{float, internal, private, unary_fn};
use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;
use syn::Ident;

/// The model's terms as functions generic over the number type, each taking a `Point`:
/// `eval_energies`, `eval_dissipation`, `eval_forces` and `eval_constraints`, or with
/// `parametric` their `_with` forms taking the parameters as an array first.
pub(super) fn term_fns(l: &Lowered, parametric: bool) -> TokenStream {
    let np = l.parameters.len();
    let p = private();
    let [d, f, x, apply, pa] = ["__D", "__F", "x", "apply", "parameters"].map(internal);
    let point = point_type(l, &d);
    let args = if parametric {
        quote!(&self, #pa: &[#d; #np], #x: &#point)
    } else {
        quote!(&self, #x: &#point)
    };
    let unpack = unpack_point(&x);
    let suffix = if parametric { "_with" } else { "" };
    let fn_name = |base: &str| Ident::new(&format!("{base}{suffix}"), Span::call_site());
    let allow = quote!(#[allow(non_snake_case, unused_variables, unused_parens, clippy::all, clippy::pedantic)]);

    let mut g = Gen::new(l, parametric);
    let kinetic = lift(g.primal(l.kinetic));
    let potential = match l.potential {
        Some(v) => lift(g.primal(v)),
        None => quote!(<#d as #p::From<f64>>::from(0.0)),
    };
    let energies = g.body(quote!(#p::Energies { kinetic: #kinetic, potential: #potential }));
    let eval_energies = fn_name("eval_energies");

    let dissipation = l.dissipation.map(|e| {
        let mut g = Gen::new(l, parametric);
        let v = g.primal(e);
        let body = g.body(lift(v));
        let eval_dissipation = fn_name("eval_dissipation");
        quote! {
            #allow
            #[inline]
            fn #eval_dissipation<#d: #p::Scalar>(#args) -> #d { #unpack #body }
        }
    });

    let forces = (!l.forces.is_empty()).then(|| {
        let mut g = Gen::new(l, parametric);
        let calls: Vec<TokenStream> = l
            .forces
            .iter()
            .map(|force| {
                let (fv, v) = (lift(g.primal(force.force)), lift(g.primal(force.velocity)));
                quote!(#apply(#fv, #v);)
            })
            .collect();
        let body = g.body(quote!(#(#calls)*));
        let eval_forces = fn_name("eval_forces");
        quote! {
            #allow
            #[inline]
            fn #eval_forces<#d: #p::Scalar, #f: #p::FnMut(#d, #d)>(#args, mut #apply: #f) { #unpack #body }
        }
    });

    let constraints = constraints_fn(l, &allow, parametric);
    quote! {
        #allow
        #[inline]
        fn #eval_energies<#d: #p::Scalar>(#args) -> #p::Energies<#d> { #unpack #energies }

        #dissipation
        #forces
        #constraints
    }
}

/// `eval_constraints` (or `eval_constraints_with`): each constraint as written at
/// `Level::Position`; at `Level::Velocity` holonomic ones differentiated along the motion
/// (their tangent's `eps`) and nonholonomic ones as written.
fn constraints_fn(l: &Lowered, allow: &TokenStream, parametric: bool) -> Option<TokenStream> {
    if l.constraints.is_empty() {
        return None;
    }
    let p = private();
    let [d, f, apply, level, x, pa] =
        ["__D", "__F", "apply", "level", "x", "parameters"].map(internal);
    let np = l.parameters.len();
    let mut position = Gen::new(l, parametric);
    let calls: Vec<TokenStream> = l
        .constraints
        .iter()
        .enumerate()
        .map(|(k, constraint)| {
            let v = lift(position.primal(constraint.value));
            quote!(#apply(#k, #v);)
        })
        .collect();
    let position = position.body(quote!(#(#calls)*));
    let mut velocity = Gen::new(l, parametric);
    let calls: Vec<TokenStream> = l
        .constraints
        .iter()
        .enumerate()
        .map(|(k, constraint)| {
            let v = if constraint.holonomic {
                let v = velocity.tangent(constraint.value);
                quote!((#v).eps)
            } else {
                lift(velocity.primal(constraint.value))
            };
            quote!(#apply(#k, #v);)
        })
        .collect();
    let velocity = velocity.body(quote!(#(#calls)*));
    let (name, parameters) = if parametric {
        (quote!(eval_constraints_with), quote!(#pa: &[#d; #np],))
    } else {
        (quote!(eval_constraints), quote!())
    };
    let point = point_type(l, &d);
    let unpack = unpack_point(&x);
    Some(quote! {
        #allow
        #[inline]
        fn #name<#d: #p::Scalar, #f: #p::FnMut(usize, #d)>(
            &self,
            #level: #p::Level,
            #parameters
            #x: &#point,
            mut #apply: #f,
        ) {
            #unpack
            match #level {
                #p::Level::Position => { #position }
                #p::Level::Velocity => { #velocity }
            }
        }
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// An `f64` that does not change with the state.
    Const,
    /// A value of the generic dual type (or of its tangent type).
    Var,
}

/// A value in the generated code and its kind.
pub(super) type Code = (TokenStream, Kind);

/// Generates the body of one function: it is asked for the nodes it returns, in primal
/// (`D`) or tangent (`Dual<D>`) form, and emits exactly the nodes those need, one local
/// each, in graph order (operands first).
pub(super) struct Gen<'l> {
    l: &'l Lowered,
    /// Parameters are variables taken from the `parameters` array (for differentiation)
    /// rather than `f64` constants read from `self`.
    parametric: bool,
    kind: Vec<Kind>,
    primal: Vec<bool>,
    tangent: Vec<bool>,
}

impl<'l> Gen<'l> {
    pub(super) fn new(l: &'l Lowered, parametric: bool) -> Self {
        let mut kind = Vec::with_capacity(l.ir.len());
        for id in 0..l.ir.len() {
            let k = match l.ir.op(id) {
                Op::Lit(_) => Kind::Const,
                Op::Param(_) if !parametric => Kind::Const,
                Op::Param(_) | Op::Coord(_) | Op::Input(_) | Op::Vel(_) | Op::Time | Op::Dot(_) => {
                    Kind::Var
                }
                op => {
                    if op.operands().iter().all(|&a| kind[a] == Kind::Const) {
                        Kind::Const
                    } else {
                        Kind::Var
                    }
                }
            };
            kind.push(k);
        }
        let n = l.ir.len();
        Gen {
            l,
            parametric,
            kind,
            primal: vec![false; n],
            tangent: vec![false; n],
        }
    }

    /// Whether a node has a tangent form of its own: a variable that changes along the
    /// motion. Anything else enters tangent code as its primal value, lifted.
    fn moves(&self, id: Id) -> bool {
        self.kind[id] == Kind::Var && self.l.ir.deps(id).moves()
    }

    /// A node's value of type `D` (or `f64` for a constant), to be used in the tail.
    pub(super) fn primal(&mut self, id: Id) -> Code {
        self.primal[id] = true;
        self.reference(id, false)
    }

    /// A node's value in the tangent type `Dual<D>`: its `eps` is the time derivative.
    fn tangent(&mut self, id: Id) -> TokenStream {
        if !self.moves(id) {
            self.primal[id] = true;
            let (p, v) = (private(), self.reference(id, false).0);
            return quote!(#p::Dual::from_re(#p::From::from(#v)));
        }
        self.tangent[id] = true;
        self.reference(id, true).0
    }

    fn reference(&self, id: Id, tangent: bool) -> Code {
        if let Some(v) = self.l.ir.op(id).literal() {
            return (float(v, Span::call_site()), Kind::Const);
        }
        let kind = self.kind[id];
        let name = if tangent && kind == Kind::Var {
            tangent_local(id)
        } else {
            primal_local(id)
        };
        (quote!(#name), kind)
    }

    /// Marks what every needed node needs, from the last node back to the first.
    fn mark(&mut self) {
        for id in (0..self.l.ir.len()).rev() {
            let op = self.l.ir.op(id);
            if self.tangent[id] {
                for a in op.operands() {
                    if !self.moves(a) {
                        self.primal[a] = true;
                    } else {
                        self.tangent[a] = true;
                    }
                }
            }
            // A node with a tangent takes its primal value from it (`.re`, in `body`), not
            // from its operands' primal values.
            if self.primal[id] && !self.tangent[id] {
                match op {
                    Op::Dot(a) => {
                        self.tangent[a] = true;
                    }
                    op => {
                        for a in op.operands() {
                            self.primal[a] = true;
                        }
                    }
                }
            }
        }
    }

    /// The statements computing every needed node, then `tail`.
    pub(super) fn body(&mut self, tail: TokenStream) -> TokenStream {
        self.mark();
        // Every local is declared by one `let` ([`declare`]) and assigned once below.
        // The types are written out: left to inference, each local's type would be a
        // variable whose obligations stay pending, and type checking such a function grows
        // with the square of its size (20 `let`s of 120 terms: 41 s of `cargo check`).
        let (mut names, mut types, mut statements) = (Vec::new(), Vec::new(), Vec::new());
        let (p, d) = (private(), internal("__D"));
        for id in 0..self.l.ir.len() {
            if self.l.ir.op(id).literal().is_some() {
                continue;
            }
            if self.tangent[id] {
                let name = tangent_local(id);
                let (code, reads) = self.code(id, true);
                statements.push(Stmt::assign(vec![name.clone()], code, reads));
                names.push(name);
                types.push(quote!(#p::Dual<#d>));
            }
            if self.primal[id] {
                let name = primal_local(id);
                let (code, reads) = if self.tangent[id] {
                    let t = tangent_local(id);
                    (quote!(#t.re), vec![t])
                } else {
                    self.code(id, false)
                };
                statements.push(Stmt::assign(vec![name.clone()], code, reads));
                names.push(name);
                types.push(if self.kind[id] == Kind::Const {
                    quote!(f64)
                } else {
                    quote!(#d)
                });
            }
        }
        let declaration = declare(&names, &types);
        quote! {
            #declaration
            #(#statements)*
            #tail
        }
    }

    /// The expression computing node `id` in primal or tangent form, and the locals it reads.
    fn code(&self, id: Id, tangent: bool) -> (TokenStream, Vec<Ident>) {
        let p = private();
        let [t, q, qd, u, pa] = ["t", "q", "qd", "u", "parameters"].map(internal);
        let reads = std::cell::RefCell::new(Vec::new());
        let r = |a: Id| {
            let a_tangent = tangent && self.moves(a);
            let lifted = tangent && !a_tangent && self.kind[a] == Kind::Var;
            let (v, kind) = self.reference(a, a_tangent && !lifted);
            if self.l.ir.op(a).literal().is_none() {
                reads.borrow_mut().push(if a_tangent && kind == Kind::Var {
                    tangent_local(a)
                } else {
                    primal_local(a)
                });
            }
            if lifted {
                return (quote!(#p::Dual::from_re(#v)), Kind::Var);
            }
            (v, kind)
        };
        let code = match self.l.ir.op(id) {
            Op::Lit(bits) => float(f64::from_bits(bits), Span::call_site()),
            Op::Param(i) if self.parametric => quote!(#pa[#i]),
            Op::Param(i) => {
                let field = &self.l.parameters[i].name;
                quote!(self.#field)
            }
            Op::Coord(i) if tangent => quote!(#p::tangent(#q[#i], #qd[#i])),
            Op::Coord(i) => quote!(#q[#i]),
            Op::Input(i) => quote!(#u[#i]),
            Op::Time if tangent => quote!(#p::tangent(#t, #p::From::from(1.0))),
            Op::Time => quote!(#t),
            Op::Neg(a) => {
                let (v, _) = r(a);
                quote!(-#v)
            }
            Op::Add(a, b) => combine(Binary::Add, r(a), r(b)).0,
            Op::Sub(a, b) => combine(Binary::Sub, r(a), r(b)).0,
            Op::Mul(a, b) => combine(Binary::Mul, r(a), r(b)).0,
            Op::Div(a, b) => combine(Binary::Div, r(a), r(b)).0,
            Op::Unary(Jet1::Named(f), a) => {
                let (v, _) = r(a);
                let f = unary_fn(f);
                quote!(#p::functions::#f(#v))
            }
            Op::Unary(Jet1::Powi(n), a) => {
                let (v, _) = r(a);
                let n = Literal::i32_unsuffixed(n);
                quote!(#p::functions::powi(#v, #n))
            }
            Op::Binary(Jet2::Powd, a, b) => match (r(a), r(b)) {
                ((x, _), (e, Kind::Const)) => quote!(#p::functions::powf(#x, #e)),
                (x, (e, Kind::Var)) => {
                    let x = lift(x);
                    quote!(#p::functions::powd(#x, #e))
                }
            },
            Op::Binary(Jet2::Atan2, a, b) => {
                let (y, x) = (r(a), r(b));
                let (y, x) = if y.1 == Kind::Const && x.1 == Kind::Const {
                    (y.0, x.0)
                } else {
                    (lift(y), lift(x))
                };
                quote!(#p::functions::atan2(#y, #x))
            }
            Op::Dot(a) => {
                let v = tangent_local(a);
                reads.borrow_mut().push(v.clone());
                quote!(#v.eps)
            }
            // The derivative construction's operations (`graph.rs`): never in the lowered
            // form this generator reads.
            Op::Vel(_) | Op::D1(_) | Op::P1(..) | Op::Unary(Jet1::Recip | Jet1::Powf(_), _) => {
                unreachable!("{:?} is not in the lowered form", self.l.ir.op(id))
            }
        };
        (code, reads.into_inner())
    }
}

fn primal_local(id: Id) -> Ident {
    internal(&format!("__n{id}"))
}

fn tangent_local(id: Id) -> Ident {
    internal(&format!("__t{id}"))
}

/// A constant turned into the dual type the context expects.
pub(super) fn lift((v, kind): Code) -> TokenStream {
    match kind {
        Kind::Var => v,
        Kind::Const => {
            let p = private();
            quote!(<_ as #p::From<f64>>::from(#v))
        }
    }
}

#[derive(Clone, Copy)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
}

/// `a op b` where either side may be a constant: constants stay `f64` and go on the
/// side of the operator the dual type implements.
fn combine(op: Binary, (a, ka): Code, (b, kb): Code) -> Code {
    let p = private();
    use Binary::*;
    use Kind::*;
    let code = match (op, ka, kb) {
        (Add, Const, Var) => quote!((#b + #a)),
        (Mul, Const, Var) => quote!((#b * #a)),
        (Sub, Const, Var) => quote!((-#b + #a)),
        (Div, Const, Var) => quote!(#p::functions::divide_constant(#a, #b)),
        (Add, ..) => quote!((#a + #b)),
        (Sub, ..) => quote!((#a - #b)),
        (Mul, ..) => quote!((#a * #b)),
        (Div, ..) => quote!((#a / #b)),
    };
    let kind = if ka == Const && kb == Const {
        Const
    } else {
        Var
    };
    (code, kind)
}

/// `Point<D, N, M>`, the argument of every generated term.
pub(super) fn point_type(l: &Lowered, d: &Ident) -> TokenStream {
    let (n, m, p) = (l.coordinates.len(), l.inputs.len(), private());
    quote!(#p::Point<#d, #n, #m>)
}

/// The locals `t`, `q`, `qd` and `u` that generated code reads, from the point `x`.
pub(super) fn unpack_point(x: &Ident) -> TokenStream {
    let [t, q, qd, u] = ["t", "q", "qd", "u"].map(internal);
    quote!(let (#t, #q, #qd, #u) = (#x.t, &#x.q, &#x.qd, &#x.u);)
}
