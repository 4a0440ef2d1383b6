//! The kinematic tree of a model's mass matrix, read off the lowered graph: which
//! velocities ever meet in a term of L (the structural sparsity of M = ∂²L/∂q̇²) and which
//! coordinates a constraint involves (that of JᵀJ, which completes a semidefinite M), and,
//! when that pattern is a tree in the order the coordinates are declared, each
//! coordinate's parent: the `MASS_TREE` the runtime factors M along (Featherstone's
//! L D Lᵀ on branch-induced sparsity). A branched robot's legs share no velocity; a chain's
//! every joint moves the next, and its tree is a path, no cheaper than the dense
//! factorization, so it gets none.

use crate::ir::{Id, Op};
use crate::lower::Lowered;

/// Sets of coordinates (or velocities) by index, one bit each.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn union(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            (0..64)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }
}

/// The structural pattern of M + JᵀJ: `rows[i]` holds every j whose entry (i, j) can be
/// nonzero. Conservative: an entry outside it is zero at every state. With it, one past
/// the last coordinate a constraint involves (0 without constraints).
fn pattern(l: &Lowered) -> (Vec<Bits>, usize) {
    let n = l.coordinates.len();
    let count = l.ir.len();
    // The coordinates each node depends on, and the velocities (through `dot`, whose
    // argument the checker keeps free of velocities: dot(e) is linear in q̇, along the
    // coordinates of e).
    let mut coords: Vec<Bits> = Vec::with_capacity(count);
    let mut vels: Vec<Bits> = Vec::with_capacity(count);
    for id in 0..count {
        let (mut q, mut v) = (Bits::new(n), Bits::new(n));
        match l.ir.op(id) {
            Op::Coord(i) => q.insert(i),
            Op::Dot(e) => {
                q.union(&coords[e]);
                v.union(&coords[e]);
            }
            op => {
                for a in op.operands() {
                    q.union(&coords[a]);
                    v.union(&vels[a]);
                }
            }
        }
        coords.push(q);
        vels.push(v);
    }
    // The nodes L reaches.
    let mut roots = vec![l.kinetic];
    roots.extend(l.potential);
    let live = l.ir.live(&roots);
    let mut rows = vec![Bits::new(n); n];
    let mut meet = |a: &Bits, b: &Bits| {
        for i in a.ones() {
            rows[i].union(b);
        }
        for i in b.ones() {
            rows[i].union(a);
        }
    };
    for id in (0..count).filter(|&id| live[id]) {
        let on = |a: Id| !vels[a].is_empty();
        match l.ir.op(id) {
            // Linear in what they combine: no curvature of their own.
            Op::Neg(_) | Op::Add(..) | Op::Sub(..) | Op::Dot(_) => {}
            Op::Div(_, b) if !on(b) => {}
            Op::Mul(a, b) => {
                if on(a) && on(b) {
                    meet(&vels[a], &vels[b]);
                }
            }
            // Any other function of what depends on the velocities curves in all of them.
            op => {
                let mut all = Bits::new(n);
                for a in op.operands() {
                    all.union(&vels[a]);
                }
                meet(&all, &all);
            }
        }
    }
    let mut constrained = 0;
    for constraint in &l.constraints {
        let mut columns = coords[constraint.value].clone();
        columns.union(&vels[constraint.value]);
        meet(&columns, &columns);
        constrained = columns.ones().map(|i| i + 1).fold(constrained, usize::max);
    }
    (rows, constrained)
}

/// What the runtime's `MassTree` holds: each coordinate's parent (`usize::MAX` for a
/// root), one past the last coordinate a constraint involves.
#[derive(Debug, PartialEq, Eq)]
pub struct MassTree {
    pub parents: Vec<usize>,
    pub constrained: usize,
}

/// The elimination tree of the pattern of [`pattern`] in the declared order, when
/// following it costs at most half the dense factorization (Σ depth² against Σ k²): each
/// coordinate's parent, `usize::MAX` for a root. Eliminating from the last coordinate,
/// k's earlier neighbours become coupled with each other (fill); its parent is the last
/// of them, which inherits the others as neighbours, so that k's row of the factor lies
/// among its ancestors (the standard construction of sparse Cholesky, here for the
/// L D Lᵀ the runtime computes from the leaves up). The base of a floating robot, whose
/// position coordinates are not coupled with each other but each with everything else,
/// becomes a path of its coordinates; each limb a branch from it.
pub fn mass_tree(l: &Lowered) -> Option<MassTree> {
    let n = l.coordinates.len();
    let (mut rows, constrained) = pattern(l);
    let mut parents = vec![usize::MAX; n];
    for k in (0..n).rev() {
        let earlier: Vec<usize> = rows[k].ones().filter(|&j| j < k).collect();
        if let Some(&parent) = earlier.last() {
            parents[k] = parent;
            for &j in &earlier {
                rows[parent].insert(j);
            }
        }
    }
    let mut depth = vec![0usize; n];
    for k in 0..n {
        if parents[k] != usize::MAX {
            depth[k] = depth[parents[k]] + 1;
        }
    }
    let tree: usize = depth.iter().map(|d| d * d).sum();
    let dense: usize = (0..n).map(|k| k * k).sum();
    (tree < dense && 2 * tree <= dense).then_some(MassTree {
        parents,
        constrained,
    })
}
