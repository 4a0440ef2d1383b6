//! The graph both equation generators differentiate: the lowered graph in the form the
//! rules of differentiation apply to, built once per generator from [`Lowered`] by the
//! same code.
//!
//! From the lowered graph it differs in three ways:
//!
//! - a division by what varies with the state becomes a product with a reciprocal, and a
//!   power is split by what its exponent depends on (an integer, a constant exponent, a
//!   varying one), so that every function is called with its jet ([`Jet1`], [`Jet2`]);
//! - the derivative of a function can itself be a node ([`Op::D1`], [`Op::P1`]), which
//!   shares the function's jet;
//! - in the [`Form::Swept`] form `dot(e)` is expanded into nodes by the chain rule, the
//!   velocities becoming leaves ([`Op::Vel`]), and the nodes this makes are shared like
//!   any other: the graph is hash-consed, so a derivative that is written twice, or that
//!   equals an expression of the model, is computed once.
//!
//! What a node depends on ([`Deps`]: q, q̇, t; parameters and inputs never vary for
//! differentiation) is computed once, when it is made.

use crate::lower::{self, Deps, Lowered};
use crate::names::{Jet1, Jet2};
use std::collections::{HashMap, HashSet};

/// A node of the graph; nodes come after their operands.
pub type Id = usize;

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

/// A scalar operation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// A literal, by its bits (so that the graph can be hashed).
    Lit(u64),
    Param(usize),
    Input(usize),
    Coord(usize),
    /// A velocity (only in the swept form: elsewhere velocities enter through `dot`).
    Vel(usize),
    Time,
    Neg(Id),
    Add(Id, Id),
    Sub(Id, Id),
    Mul(Id, Id),
    /// Division by a node that does not vary.
    Div(Id, Id),
    /// A function of one argument; the exponent of `Powf` is a node that does not vary
    /// (a literal in the swept form).
    Unary(Jet1<Id>, Id),
    Binary(Jet2, Id, Id),
    /// The total time derivative along the motion (only in the unrolled form).
    Dot(Id),
    /// f′(a) of the `Unary` node given (only in the swept form).
    D1(Id),
    /// The partial derivative of the `Binary` node given along its operand 0 or 1 (only
    /// in the swept form).
    P1(Id, usize),
}

impl Op {
    pub fn lit(value: f64) -> Op {
        Op::Lit(value.to_bits())
    }

    /// The value of a literal.
    pub fn literal(self) -> Option<f64> {
        match self {
            Op::Lit(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// The operands of the operation, the exponent of a power among them.
    pub fn operands(self) -> Vec<Id> {
        match self {
            Op::Lit(_) | Op::Param(_) | Op::Input(_) | Op::Coord(_) | Op::Vel(_) | Op::Time => {
                vec![]
            }
            Op::Unary(Jet1::Powf(e), a) => vec![a, e],
            Op::Neg(a) | Op::Unary(_, a) | Op::Dot(a) | Op::D1(a) | Op::P1(a, _) => vec![a],
            Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Div(a, b) | Op::Binary(_, a, b) => {
                vec![a, b]
            }
        }
    }
}

/// The graph and the roots of the equations of motion: L = T − V, D, and the forces with
/// the velocities they act along.
pub struct Graph {
    pub form: Form,
    ops: Vec<Op>,
    deps: Vec<Deps>,
    index: HashMap<Op, Id>,
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
    /// The graph of the model in the given form, or `None` where the form cannot hold it:
    /// a `dot` of an expression with velocities, which the checker rejects (its expansion
    /// would need third derivatives).
    pub fn new(l: &Lowered, form: Form) -> Option<Self> {
        let mut g = Graph {
            form,
            ops: Vec::with_capacity(l.nodes.len()),
            deps: Vec::with_capacity(l.nodes.len()),
            index: HashMap::new(),
            of: Vec::with_capacity(l.nodes.len()),
            motion: HashMap::new(),
            lagrangian: 0,
            dissipation: None,
            forces: Vec::new(),
        };
        for node in &l.nodes {
            let id = g.lower(node.op)?;
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
        self.ops.len()
    }

    /// The node of a node of the lowered graph.
    pub fn of(&self, lowered: usize) -> Id {
        self.of[lowered]
    }

    pub fn op(&self, id: Id) -> Op {
        self.ops[id]
    }

    pub fn deps(&self, id: Id) -> Deps {
        self.deps[id]
    }

    /// Whether the node varies with the state (q, q̇ or t).
    pub fn varies(&self, id: Id) -> bool {
        !self.deps[id].is_empty()
    }

    /// The node of an operation if the graph has it (a leaf, say).
    pub fn find(&self, op: Op) -> Option<Id> {
        self.index.get(&op).copied()
    }

    /// The nodes the roots reach: the roots themselves and, transitively, their operands.
    pub fn live(&self, roots: &[Id]) -> Vec<bool> {
        let mut live = vec![false; self.len()];
        for &r in roots {
            live[r] = true;
        }
        for id in (0..self.len()).rev() {
            if live[id] {
                for a in self.ops[id].operands() {
                    live[a] = true;
                }
            }
        }
        live
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

    fn lower(&mut self, op: lower::Op) -> Option<Id> {
        use lower::Op as L;
        let of = |a: lower::Id| self.of[a];
        let op = match op {
            L::Lit(bits) => Op::Lit(bits),
            L::Param(i) => Op::Param(i),
            L::Coord(i) => Op::Coord(i),
            L::Input(i) => Op::Input(i),
            L::Time => Op::Time,
            L::Neg(a) => Op::Neg(of(a)),
            L::Add(a, b) => Op::Add(of(a), of(b)),
            L::Sub(a, b) => Op::Sub(of(a), of(b)),
            L::Mul(a, b) => Op::Mul(of(a), of(b)),
            L::Div(a, b) => {
                let (a, b) = (of(a), of(b));
                if self.varies(b) {
                    let r = self.push(Op::Unary(Jet1::Recip, b));
                    Op::Mul(a, r)
                } else {
                    Op::Div(a, b)
                }
            }
            L::Unary(f, a) => Op::Unary(Jet1::Named(f), of(a)),
            L::Powi(a, n) => Op::Unary(Jet1::Powi(n), of(a)),
            L::Pow(a, e) => {
                let (a, e) = (of(a), of(e));
                let constant = match self.form {
                    Form::Unrolled => !self.varies(e),
                    Form::Swept => self.ops[e].literal().is_some(),
                };
                if constant {
                    Op::Unary(Jet1::Powf(e), a)
                } else {
                    Op::Binary(Jet2::Powd, a, e)
                }
            }
            L::Atan2(y, x) => Op::Binary(Jet2::Atan2, of(y), of(x)),
            L::Dot(e) => {
                let e = of(e);
                match self.form {
                    Form::Unrolled => Op::Dot(e),
                    Form::Swept if self.deps[e].has(Deps::QD) => return None,
                    Form::Swept => {
                        return Some(match self.along_motion(e) {
                            Some(d) => d,
                            None => self.push(Op::lit(0.0)),
                        })
                    }
                }
            }
        };
        Some(self.push(op))
    }

    /// The node of an operation: the existing one if the graph has it.
    pub fn push(&mut self, op: Op) -> Id {
        if let Some(&id) = self.index.get(&op) {
            return id;
        }
        let deps = match op {
            Op::Lit(_) | Op::Param(_) | Op::Input(_) => Deps::default(),
            Op::Coord(_) => Deps::Q,
            Op::Vel(_) => Deps::QD,
            Op::Time => Deps::T,
            _ => op
                .operands()
                .into_iter()
                .fold(Deps::default(), |d, a| d.union(self.deps[a])),
        };
        self.ops.push(op);
        self.deps.push(deps);
        let id = self.ops.len() - 1;
        self.index.insert(op, id);
        id
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
        if !self.deps[id].moves() {
            return vec![];
        }
        match self.ops[id] {
            Op::Neg(a) | Op::Div(a, _) | Op::Unary(_, a) => vec![a],
            Op::Add(a, b) | Op::Sub(a, b) | Op::Mul(a, b) | Op::Binary(_, a, b) => vec![a, b],
            _ => vec![],
        }
    }

    /// The derivative of `id` along the motion, once its
    /// [`differentiated_operands`](Self::differentiated_operands)' are known.
    fn motion_from_operands(&mut self, id: Id) -> Option<Id> {
        let of = |g: &Self, a: Id| g.motion[&a];
        match self.ops[id] {
            _ if !self.deps[id].moves() => None,
            Op::Lit(_) | Op::Param(_) | Op::Input(_) | Op::Vel(_) => None,
            Op::Coord(i) => Some(self.push(Op::Vel(i))),
            Op::Time => Some(self.push(Op::lit(1.0))),
            Op::Neg(a) => of(self, a).map(|da| self.push(Op::Neg(da))),
            Op::Add(a, b) | Op::Sub(a, b) => {
                let sub = matches!(self.ops[id], Op::Sub(..));
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

/// The nodes under `root` that `done` does not hold yet, each once and after those of its
/// `operands` that it needs: the order in which to compute a memoized function of the
/// graph with a stack instead of recursion (a chain of `let`s is as deep as the model is
/// long, and recursion through it overflowed the compiler's stack at opt-level 0).
pub fn post_order(
    root: Id,
    operands: impl Fn(Id) -> Vec<Id>,
    done: impl Fn(Id) -> bool,
) -> Vec<Id> {
    let mut order = Vec::new();
    let mut placed = HashSet::new();
    let mut stack = vec![(root, false)];
    while let Some((id, ready)) = stack.pop() {
        if done(id) || placed.contains(&id) {
            continue;
        }
        if ready {
            placed.insert(id);
            order.push(id);
        } else {
            stack.push((id, true));
            // Reversed, so that the first operand comes first, as recursion would take it.
            stack.extend(operands(id).into_iter().rev().map(|a| (a, false)));
        }
    }
    order
}
