//! The macro's one intermediate representation: a hash-consed graph of scalar operations,
//! [`Ir`], in which lowering writes the model and the derivative construction
//! (`graph.rs`) writes the forms its generators differentiate. One operation type, one
//! hash-consing and one dependency analysis, computed when a node is added (egg's shape:
//! the analysis of a node is made from its operands' once, at `add`).
//!
//! Every node comes after its operands, so a pass in index order sees operands first and a
//! pass in reverse order sees users first.
//!
//! Which operations a graph holds depends on who wrote it:
//!
//! - **lowered** (`lower/`): `dot(e)` is [`Op::Dot`], a division is [`Op::Div`] whatever
//!   its denominator, a real power is [`Jet2::Powd`] whatever its exponent; no
//!   [`Op::Vel`], [`Op::D1`], [`Op::P1`], [`Jet1::Recip`] or [`Jet1::Powf`];
//! - **differentiated** (`graph.rs`, in one of its forms): a division only by what does not
//!   vary with the state (otherwise a product with [`Jet1::Recip`]), a power with a constant
//!   exponent as [`Jet1::Powf`], and in the swept form `dot` expanded by the chain rule into
//!   velocity leaves and derivative nodes ([`Op::D1`], [`Op::P1`]) that share their
//!   function's jet.

use crate::func::Unary;
use std::collections::{HashMap, HashSet};

/// A node of the graph; nodes come after their operands.
pub type Id = usize;

/// A function of one argument that the generators call with its first two derivatives,
/// `jet::f(a) -> [f, f′, f″]`. The exponent of `Powf` does not vary with the state (a
/// node, emitted as code by [`jet1_call`](crate::names::jet1_call)'s caller).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Jet1<E> {
    Named(Unary),
    Powi(i32),
    Powf(E),
    /// 1/a, for a division by what varies.
    Recip,
}

impl<E> Jet1<E> {
    /// The same function with the exponent held as `f` makes it.
    pub(crate) fn map<F>(self, f: impl FnOnce(E) -> F) -> Jet1<F> {
        match self {
            Jet1::Named(g) => Jet1::Named(g),
            Jet1::Powi(k) => Jet1::Powi(k),
            Jet1::Powf(x) => Jet1::Powf(f(x)),
            Jet1::Recip => Jet1::Recip,
        }
    }
}

/// A function of two arguments called with its first and second partial derivatives,
/// `jet::f(a, b) -> [f, f_a, f_b, f_aa, f_ab, f_bb]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Jet2 {
    /// atan2(y, x).
    Atan2,
    /// a^b, the exponent a node.
    Powd,
}

/// A scalar operation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Op {
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
    Div(Id, Id),
    /// A function of one argument, the exponent of `Powf` among the operands.
    Unary(Jet1<Id>, Id),
    Binary(Jet2, Id, Id),
    /// The total time derivative along the motion.
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

    /// The same operation on the operands `f` gives for these.
    pub fn map(self, mut f: impl FnMut(Id) -> Id) -> Op {
        match self {
            Op::Lit(_) | Op::Param(_) | Op::Input(_) | Op::Coord(_) | Op::Vel(_) | Op::Time => self,
            Op::Neg(a) => Op::Neg(f(a)),
            Op::Add(a, b) => Op::Add(f(a), f(b)),
            Op::Sub(a, b) => Op::Sub(f(a), f(b)),
            Op::Mul(a, b) => Op::Mul(f(a), f(b)),
            Op::Div(a, b) => Op::Div(f(a), f(b)),
            Op::Unary(g, a) => {
                let a = f(a);
                Op::Unary(g.map(f), a)
            }
            Op::Binary(g, a, b) => Op::Binary(g, f(a), f(b)),
            Op::Dot(a) => Op::Dot(f(a)),
            Op::D1(a) => Op::D1(f(a)),
            Op::P1(a, k) => Op::P1(f(a), k),
        }
    }
}

/// What a quantity depends on: a set of [`Deps::Q`], [`Deps::T`], [`Deps::QD`], [`Deps::U`].
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct Deps(u8);

impl Deps {
    pub const Q: Deps = Deps(1);
    pub const T: Deps = Deps(2);
    pub const QD: Deps = Deps(4);
    pub const U: Deps = Deps(8);
    /// The state: q, q̇, t (what differentiation varies; parameters and inputs never do).
    pub const STATE: Deps = Deps(1 | 2 | 4);

    pub fn has(self, other: Deps) -> bool {
        self.0 & other.0 != 0
    }
    pub fn union(self, other: Deps) -> Deps {
        Deps(self.0 | other.0)
    }
    /// Changes along the motion: depends on q or t (velocities only through `dot`).
    pub fn moves(self) -> bool {
        self.has(Deps::Q.union(Deps::T))
    }
}

/// The graph: its operations, each with its [`Deps`], and the index that makes an
/// operation added twice one node.
#[derive(Clone, Default)]
pub struct Ir {
    ops: Vec<Op>,
    deps: Vec<Deps>,
    index: HashMap<Op, Id>,
}

impl Ir {
    pub fn with_capacity(capacity: usize) -> Self {
        Ir {
            ops: Vec::with_capacity(capacity),
            deps: Vec::with_capacity(capacity),
            index: HashMap::with_capacity(capacity),
        }
    }

    /// The node of an operation: the existing one if the graph has it, else a new one,
    /// whose dependencies are made from its operands'.
    pub fn add(&mut self, op: Op) -> Id {
        if let Some(&id) = self.index.get(&op) {
            return id;
        }
        let deps = match op {
            Op::Lit(_) | Op::Param(_) => Deps::default(),
            Op::Input(_) => Deps::U,
            Op::Coord(_) => Deps::Q,
            Op::Vel(_) => Deps::QD,
            Op::Time => Deps::T,
            Op::Dot(a) => self.deps[a].union(Deps::QD),
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

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn op(&self, id: Id) -> Op {
        self.ops[id]
    }

    pub fn deps(&self, id: Id) -> Deps {
        self.deps[id]
    }

    /// Whether the node varies with the state (q, q̇ or t).
    pub fn varies(&self, id: Id) -> bool {
        self.deps[id].has(Deps::STATE)
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
