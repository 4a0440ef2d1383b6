//! The derivative construction: the lowered model ([`Lowered`]'s [`crate::ir::Ir`]) in the
//! form the rules of differentiation apply to, one form per generator — [`Graph::unrolled`]
//! for the fast path (built once, for its equations and its rows of frame Jacobians) and
//! [`Graph::swept`] for the sweep — written into a graph of the same [`Ir`] by the same
//! code, so one operation type, one hash-consing and one dependency analysis serve both.
//!
//! From the lowered form it differs in three ways:
//!
//! - a division by what varies with the state becomes a product with a reciprocal, and a
//!   real power is split by what its exponent depends on (a constant exponent, a varying
//!   one), so that every function is called with its jet ([`Jet1`], [`Jet2`]);
//! - the derivative of a function can itself be a node ([`Op::D1`], [`Op::P1`]), which
//!   shares the function's jet;
//! - in the [`Form::Swept`] form `dot(e)` is expanded into nodes by the chain rule, the
//!   velocities becoming leaves ([`Op::Vel`]), and the nodes this makes are shared like
//!   any other: the graph is hash-consed, so a derivative that is written twice, or that
//!   equals an expression of the model, is computed once.
//!
//! What a node depends on ([`Deps`]: q, q̇, t; parameters and inputs never vary for
//! differentiation) is computed once, when it is made, by [`Ir::add`].

use crate::ir::{post_order, Deps, Id, Ir, Jet1, Jet2, Op};
use crate::lower::Lowered;
use std::collections::HashMap;

/// What the generator's numbers are, which decides what is constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// Plain `f64` (the unrolled fast path): parameters and inputs are constants, so any
    /// exponent that does not vary with the state is a constant one, and `dot(e)` stays
    /// a node whose components the generator reads off those of `e`.
    Unrolled,
    /// Any scalar (the sweep): parameters and inputs are values of the scalar and may carry
    /// derivatives of their own, so only a literal exponent is a constant one; `dot(e)` is
    /// expanded into nodes.
    Swept,
}

/// The graph and the roots of the equations of motion: L = T − V, D, and the forces with
/// the velocities they act along.
pub struct Graph {
    pub form: Form,
    ir: Ir,
    /// The node of each node of the lowered graph.
    of: Vec<Id>,
    /// The derivative along the motion of a node, once built (`None`: zero).
    motion: HashMap<Id, Option<Id>>,
    pub lagrangian: Id,
    pub dissipation: Option<Id>,
    /// (force, velocity) pairs: the virtual power is Σ force · velocity.
    pub forces: Vec<(Id, Id)>,
}

impl Graph {
    /// The model in the unrolled form, which holds every model.
    pub fn unrolled(l: &Lowered) -> Self {
        Self::new(l, Form::Unrolled).expect("the unrolled form keeps `dot` as a node")
    }

    /// The model in the swept form, or `None` where the form cannot hold it: a `dot` of an
    /// expression with velocities, which the checker rejects (its expansion would need
    /// third derivatives).
    pub fn swept(l: &Lowered) -> Option<Self> {
        Self::new(l, Form::Swept)
    }

    fn new(l: &Lowered, form: Form) -> Option<Self> {
        let mut g = Graph {
            form,
            ir: Ir::with_capacity(l.ir.len()),
            of: Vec::with_capacity(l.ir.len()),
            motion: HashMap::new(),
            lagrangian: 0,
            dissipation: None,
            forces: Vec::new(),
        };
        for id in 0..l.ir.len() {
            let id = g.lower(l.ir.op(id))?;
            g.of.push(id);
        }
        let kinetic = g.of[l.kinetic];
        g.lagrangian = match l.potential {
            Some(v) => {
                let v = g.of[v];
                g.push(Op::Sub(kinetic, v))
            }
            None => kinetic,
        };
        g.dissipation = l.dissipation.map(|d| g.of[d]);
        g.forces = l
            .forces
            .iter()
            .map(|f| (g.of[f.force], g.of[f.velocity]))
            .collect();
        Some(g)
    }

    pub fn len(&self) -> usize {
        self.ir.len()
    }

    /// The node of a node of the lowered graph.
    pub fn of(&self, lowered: usize) -> Id {
        self.of[lowered]
    }

    pub fn op(&self, id: Id) -> Op {
        self.ir.op(id)
    }

    pub fn deps(&self, id: Id) -> Deps {
        self.ir.deps(id)
    }

    /// Whether the node varies with the state (q, q̇ or t).
    pub fn varies(&self, id: Id) -> bool {
        self.ir.varies(id)
    }

    /// The node of an operation if the graph has it (a leaf, say).
    pub fn find(&self, op: Op) -> Option<Id> {
        self.ir.find(op)
    }

    /// The nodes the roots reach: the roots themselves and, transitively, their operands.
    pub fn live(&self, roots: &[Id]) -> Vec<bool> {
        self.ir.live(roots)
    }

    /// Every root of the equations of motion.
    pub fn roots(&self) -> Vec<Id> {
        let mut roots = vec![self.lagrangian];
        roots.extend(self.dissipation);
        for &(f, v) in &self.forces {
            roots.extend([f, v]);
        }
        roots
    }

    /// The node in this form of a node of the lowered graph, its operands already mapped.
    fn lower(&mut self, op: Op) -> Option<Id> {
        let op = match op {
            Op::Div(a, b) => {
                let (a, b) = (self.of[a], self.of[b]);
                if self.varies(b) {
                    let r = self.push(Op::Unary(Jet1::Recip, b));
                    Op::Mul(a, r)
                } else {
                    Op::Div(a, b)
                }
            }
            Op::Binary(Jet2::Powd, a, e) => {
                let (a, e) = (self.of[a], self.of[e]);
                let constant = match self.form {
                    Form::Unrolled => !self.varies(e),
                    Form::Swept => self.op(e).literal().is_some(),
                };
                if constant {
                    Op::Unary(Jet1::Powf(e), a)
                } else {
                    Op::Binary(Jet2::Powd, a, e)
                }
            }
            Op::Dot(e) => {
                let e = self.of[e];
                match self.form {
                    Form::Unrolled => Op::Dot(e),
                    Form::Swept if self.deps(e).has(Deps::QD) => return None,
                    Form::Swept => {
                        return Some(match self.along_motion(e) {
                            Some(d) => d,
                            None => self.push(Op::lit(0.0)),
                        })
                    }
                }
            }
            op => op.map(|a| self.of[a]),
        };
        Some(self.push(op))
    }

    /// The node of an operation: the existing one if the graph has it.
    pub fn push(&mut self, op: Op) -> Id {
        self.ir.add(op)
    }

    /// The derivative of node `id` along the motion (q̇ in q, 1 in t), as nodes; `None`
    /// when it is zero. In [`post_order`], not by recursion: a chain of `let`s is as deep as
    /// the model is long, and recursion through it overflows the compiler's stack.
    fn along_motion(&mut self, id: Id) -> Option<Id> {
        let order = post_order(
            id,
            |node| self.differentiated_operands(node),
            |node| self.motion.contains_key(&node),
        );
        for node in order {
            let d = self.motion_from_operands(node);
            self.motion.insert(node, d);
        }
        self.motion[&id]
    }

    /// The operands whose derivatives along the motion that of `id` is made of.
    fn differentiated_operands(&self, id: Id) -> Vec<Id> {
        if !self.deps(id).moves() {
            return vec![];
        }
        match self.op(id) {
            Op::Neg(a) | Op::Div(a, _) | Op::Unary(_, a) => vec![a],
            Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Binary(_, a, b) => vec![a, b],
            _ => vec![],
        }
    }

    /// The derivative of `id` along the motion, once its
    /// [`differentiated_operands`](Self::differentiated_operands)' are known.
    fn motion_from_operands(&mut self, id: Id) -> Option<Id> {
        let of = |g: &Self, a: Id| g.motion[&a];
        match self.op(id) {
            _ if !self.deps(id).moves() => None,
            Op::Lit(_) | Op::Param(_) | Op::Input(_) | Op::Vel(_) => None,
            Op::Coord(i) => Some(self.push(Op::Vel(i))),
            Op::Time => Some(self.push(Op::lit(1.0))),
            Op::Neg(a) => of(self, a).map(|da| self.push(Op::Neg(da))),
            Op::Add(a, b) | Op::Sub(a, b) => {
                let sub = matches!(self.op(id), Op::Sub(..));
                match (of(self, a), of(self, b)) {
                    (Some(x), Some(y)) if sub => Some(self.push(Op::Sub(x, y))),
                    (Some(x), Some(y)) => Some(self.push(Op::Add(x, y))),
                    (Some(x), None) => Some(x),
                    (None, Some(y)) if sub => Some(self.push(Op::Neg(y))),
                    (None, y) => y,
                }
            }
            Op::Mul(a, b) => {
                let x = of(self, a).map(|da| self.push(Op::Mul(da, b)));
                let y = of(self, b).map(|db| self.push(Op::Mul(a, db)));
                self.sum(x, y)
            }
            Op::Div(a, b) => of(self, a).map(|da| self.push(Op::Div(da, b))),
            Op::Unary(_, a) => of(self, a).map(|da| {
                let f1 = self.push(Op::D1(id));
                self.push(Op::Mul(f1, da))
            }),
            Op::Binary(_, a, b) => {
                let x = of(self, a).map(|da| {
                    let fa = self.push(Op::P1(id, 0));
                    self.push(Op::Mul(fa, da))
                });
                let y = of(self, b).map(|db| {
                    let fb = self.push(Op::P1(id, 1));
                    self.push(Op::Mul(fb, db))
                });
                self.sum(x, y)
            }
            // Derivatives of derivatives: only reachable through `dot(dot(…))`, which the
            // swept form expands before it can be reached; `Dot` is not in this form.
            Op::D1(_) | Op::P1(..) | Op::Dot(_) => None,
        }
    }

    fn sum(&mut self, x: Option<Id>, y: Option<Id>) -> Option<Id> {
        match (x, y) {
            (Some(x), Some(y)) => Some(self.push(Op::Add(x, y))),
            (x, None) => x,
            (None, y) => y,
        }
    }
}
