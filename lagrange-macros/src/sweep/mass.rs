//! The mass matrix of the sweep: the code that fills it, either written out (by the
//! velocity Jacobians carried forward, Σₙ n̄ Jᵀ ∇²n J with the products grouped by their
//! Jacobian entries, [`mass_from_jacobians`]; or one tangent sweep per column) or, beyond
//! [`MAX_WRITTEN_MASS`], as tangent sweeps in loops over groups of columns
//! ([`loop_groups`]). [`mass_columns`] picks among them. See the parent module for where
//! this stands in the sweep.

use super::{second, tangent, Sweep};
use crate::chunk::Parts;
use crate::emit::{Emit, Scalar, Stmt, Term, Val};
use crate::ir::{post_order, Deps, Id, Op};
use crate::names::{internal, private};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use syn::Ident;

/// `mass[(i, j)] = value`, and its mirror `mass[(j, i)]` (`j` a literal or a loop's
/// variable).
fn store(mass: &Ident, i: usize, j: &Ident, value: &Val) -> Stmt {
    let v = value.scalar();
    let code = quote!(#mass[(#i, #j)] = #v; #mass[(#j, #i)] = #mass[(#i, #j)];);
    Stmt::effect(
        code,
        [mass, j]
            .into_iter()
            .chain(value.local())
            .cloned()
            .collect(),
    )
}

/// [`store`] at a known entry: the diagonal without its mirror.
fn store_at(mass: &Ident, i: usize, j: usize, value: &Val) -> Stmt {
    let v = value.scalar();
    let code = if i == j {
        quote!(#mass[(#i, #j)] = #v;)
    } else {
        quote!(#mass[(#i, #j)] = #v; #mass[(#j, #i)] = #mass[(#i, #j)];)
    };
    Stmt::effect(
        code,
        std::iter::once(mass)
            .chain(value.local())
            .cloned()
            .collect(),
    )
}

/// The budget of the mass matrix's code written out, in statements (for
/// [`mass_from_jacobians`], statements of the velocity Jacobians plus terms of the entries'
/// sums): beyond it the columns run in loops ([`loop_groups`]). Written out, the code is
/// one function's straight line, and its build grows faster than its size: the G1's mass
/// matrix by the Jacobians, 43 000, took 65 s and 9.5 GB to build in the dev profile,
/// against 29 s and 2.1 GB in loops. Measured in instructions per call of `mass_matrix`
/// (callgrind, `benches/robots.rs`'s states): the UR5's 9 055 by one written-out tangent
/// sweep per column (1 907 statements) → 7 828 by the Jacobians (1 432), the Panda's 20 217
/// (5 258) → 17 530 (4 400).
pub(crate) const MAX_WRITTEN_MASS: usize = 6_000;

/// A column joins the loop of a larger column whose nonzero rows contain its own when that
/// column costs at most this many times its statements ([`loop_groups`]).
const LOOP_SHARE: usize = 3;

/// The columns of a model beyond the written-out budget, in loops: one sweep
/// seeded on the velocities of a group, run once per velocity of the group, computing only
/// what depends on them.
/// Largest first, a column joins the group of the smallest larger column whose nonzero
/// rows contain its own and which costs at most [`LOOP_SHARE`] times as much; else it
/// starts a group. On a tree that makes a group of each limb (its first joint's column
/// holds every row the limb's other columns have), and one of the columns that move the
/// whole body (a floating base), so that a joint of a hand does not sweep the whole
/// model; a chain's columns, within a factor [`LOOP_SHARE`] of each other, make one loop.
/// `sizes[j]` is column j's statements written out, `rows[j]` its nonzero rows. Measured
/// in instructions per call (callgrind, one loop over every column before): the Solo-12's
/// `mass_matrix` 129 k → 55 k and `accelerations` 167 k → 93 k (8 loops); the G1's
/// 642 k → 258 k and 824 k → 439 k (12 loops); building the G1's test took 28 s and 1.5 GB
/// before, 38 s and 2.1 GB after (dev profile).
pub(crate) fn loop_groups(sizes: &[usize], rows: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&j| (std::cmp::Reverse(sizes[j]), j));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for j in order {
        let contains = |g: &Vec<usize>| {
            let first = g[0];
            sizes[first] <= LOOP_SHARE * sizes[j]
                && rows[j]
                    .iter()
                    .zip(&rows[first])
                    .all(|(&mine, &its)| its || !mine)
        };
        let host = groups
            .iter_mut()
            .filter(|g| contains(g))
            .min_by_key(|g| sizes[g[0]]);
        match host {
            Some(g) => g.push(j),
            None => groups.push(vec![j]),
        }
    }
    groups
}

/// The mass matrix as the Hessian of L in the velocities by the second-order adjoint:
///
/// ```text
/// M = Σₙ n̄ Σ_{a,b} ∂²n/∂a∂b J_aᵀ J_b
/// ```
///
/// over the nodes n whose operands a and b both depend on the velocities, with n̄ = ∂L/∂n
/// the adjoint of the reverse pass and J_a = ∂a/∂q̇ the operand's row of velocity
/// derivatives, carried forward with its nonzero columns known at compile time. It is
/// exact for any graph (the reduced Hessian of the graph's equations, whose multipliers
/// are the adjoints). Unlike one tangent sweep per column, no tangent of an adjoint is
/// needed.
///
/// For a sum of rigid bodies, T = Σ ½ m |v + ω × r|² + ½ ωᵀ I ω with v the velocity of
/// the body's point at a reference point o, r its centre of mass from o, the operands
/// expand (`expand`, [`Expansions`]) into the components of v and ω, whose Jacobian
/// columns are the same for every body below a joint i (ω's a_i, v's (p_i − o) × a_i for
/// a revolute joint through p_i): S_i. Each entry i ≤ j is then Σ_y y Σ_x W_xy x over
/// the entries x of column j and y of column i, W_xy the sum of the weights (m r_a r_b,
/// the inertia's) of the bodies below both joints: the composite inertia of joint j's
/// subtree, formed once from its children's ([`Interner::sums`]); Σ_x W_xy x, that is
/// I_c S_j, is formed once per joint and shared by every entry of its column. Entries
/// cost a few products each at any depth, as in CRBA (Featherstone, *Rigid Body Dynamics
/// Algorithms*, §6.2); measured in instructions per call of `mass_matrix` (callgrind),
/// the Solo-12 29 737 → 18 331, the G1 106 819 → 51 500, the 32-link chain 38 373 →
/// 11 384, against the same Jacobians' entries summed body by body.
///
/// Returns the statements and the stores of the entries i ≤ j and their mirrors (the
/// statements' arithmetic is their [`Emit::work`]); `None` when its size (statements and
/// terms of the entries' sums) is beyond [`MAX_WRITTEN_MASS`], or when the products
/// before grouping are beyond [`GROUPED_MASS`] times it (a large model, whose products
/// are not grouped at all).
fn mass_from_jacobians(
    s: &Sweep,
    adjoint: &[Option<Val>],
    mass: &Ident,
    expand: bool,
) -> Option<(Emit, Vec<Stmt>)> {
    let g = s.g;
    let n = g.len();
    let on_velocity = |a: Id| g.deps(a).has(Deps::QD);
    let mut e = Emit::new("__j", Scalar::Generic);
    let mut expansions = Expansions::new(s, expand);
    // The nodes with curvature in the velocities: (n̄, ∂²n/∂a∂b, a, b) for each ordered
    // pair of operands on the velocities, each operand through its expansion.
    let mut pairs: Vec<(Vec<Val>, Id, Id)> = Vec::new();
    let mut needed = vec![false; n];
    for (id, bar) in adjoint.iter().enumerate() {
        let Some(bar) = bar else { continue };
        if !s.live[id] || !on_velocity(id) {
            continue;
        }
        let local: Vec<(Id, Id, Val)> = match g.op(id) {
            Op::Mul(a, b) if a == b && on_velocity(a) => vec![(a, a, Val::Lit(2.0))],
            Op::Mul(a, b) if on_velocity(a) && on_velocity(b) => {
                vec![(a, b, Val::Lit(1.0)), (b, a, Val::Lit(1.0))]
            }
            Op::Unary(_, a) if on_velocity(a) => {
                vec![(a, a, s.jet[id].as_ref().expect("jet")[2].clone())]
            }
            Op::Binary(_, a, b) => {
                let jet = s.jet[id].as_ref().expect("jet");
                let operands = [a, b];
                let mut local = Vec::new();
                for (k, &x) in operands.iter().enumerate() {
                    for (m, &y) in operands.iter().enumerate() {
                        if on_velocity(x) && on_velocity(y) {
                            local.push((x, y, second(jet, k, m)));
                        }
                    }
                }
                local
            }
            _ => Vec::new(),
        };
        for (a, b, h) in local {
            let (x, y) = (expansions.of(a), expansions.of(b));
            for (cx, a) in x.iter() {
                for (cy, b) in y.iter() {
                    needed[*a] = true;
                    needed[*b] = true;
                    let mut factors = vec![bar.clone(), h.clone()];
                    factors.extend(cx.iter().chain(cy).cloned());
                    pairs.push((factors, *a, *b));
                }
            }
        }
    }
    // Every node on the velocities that a needed node reads.
    for id in (0..n).rev() {
        if needed[id] {
            for a in g.op(id).operands() {
                if on_velocity(a) {
                    needed[a] = true;
                }
            }
        }
    }
    // J of each needed node, by columns in increasing order, each entry with its key in
    // `values` (equal keys, equal values).
    let mut values = Interner::default();
    let mut jac: Vec<Vec<(usize, Val, usize)>> = vec![Vec::new(); n];
    for id in 0..n {
        if !needed[id] {
            continue;
        }
        if let Op::Vel(i) = g.op(id) {
            let one = Val::Lit(1.0);
            jac[id] = vec![(i, one.clone(), values.key(&one))];
            continue;
        }
        let mut columns: BTreeMap<usize, Vec<Term>> = BTreeMap::new();
        for (a, link) in s.chain(id) {
            for (c, v, _) in &jac[a] {
                columns.entry(*c).or_default().push(link.term(v.clone()));
            }
        }
        jac[id] = columns
            .into_iter()
            .filter_map(|(c, terms)| {
                let v = e.sum(terms)?;
                let key = values.key(&v);
                Some((c, v, key))
            })
            .collect();
        // The size the result is checked against at the end, reached by the statements
        // alone (which only grow): declined here, not after every Jacobian (a chain's
        // node has one entry per joint above it) and their products (as many squared):
        // 110 s of the 270 s a 200-link URDF chain took to build (issue 45). (Against the
        // products' limit, 50 times larger, TIAGo dual's Jacobians were all formed, 59 000
        // statements, to be declined at the end: a tenth of the macro's time.)
        if e.statements.len() > MAX_WRITTEN_MASS {
            return None;
        }
    }
    // The entries i ≤ j as products w · x · y: a weight (n̄ ∂²n/∂a∂b, free of the
    // velocities), x an entry of the later column j of one operand's Jacobian, y of the
    // earlier column i of the other's.
    let mut products: BTreeMap<(usize, usize), Vec<Product>> = BTreeMap::new();
    let mut count = 0;
    for (factors, a, b) in pairs {
        let w = values.weight(factors);
        for (i, _, earlier) in &jac[a] {
            for (j, _, later) in &jac[b] {
                if i <= j {
                    products
                        .entry((*i, *j))
                        .or_default()
                        .push((w, *later, *earlier));
                    count += 1;
                    #[cfg(test)]
                    PRODUCTS.with(|p| p.set(p.get() + 1));
                }
            }
        }
        // (Checked as they are counted: a long chain's are as many as its links cubed.)
        if e.statements.len() + count > GROUPED_MASS * MAX_WRITTEN_MASS {
            return None;
        }
    }
    // Each entry as Σ_y y Σ_x W_xy x: the products of one (x, y) share the sum W_xy of
    // their weights, and those of one y the sum over x.
    let entries: Vec<((usize, usize), Entry)> = products
        .into_iter()
        .map(|(ij, list)| {
            let mut by_pair: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
            for (w, x, y) in list {
                by_pair.entry((y, x)).or_default().push(w);
            }
            let mut by_y: BTreeMap<usize, Vec<(usize, Vec<usize>)>> = BTreeMap::new();
            for ((y, x), mut set) in by_pair {
                set.sort_unstable();
                by_y.entry(y).or_default().push((x, set));
            }
            (ij, by_y.into_iter().collect())
        })
        .collect();
    let sets = entries
        .iter()
        .flat_map(|(_, by_y)| by_y.iter().flat_map(|(_, xs)| xs.iter().map(|(_, s)| s)));
    let sums = values.sums(&mut e, sets);
    let mut inner: HashMap<Vec<(usize, usize)>, Val> = HashMap::new();
    let mut stores = Vec::new();
    let mut size = e.statements.len();
    for ((i, j), by_y) in entries {
        let mut terms = Vec::new();
        for (y, xs) in by_y {
            let key: Vec<(usize, usize)> = xs.iter().map(|(x, set)| (*x, sums[set].1)).collect();
            let value = match inner.get(&key) {
                Some(v) => v.clone(),
                None => {
                    let row: Vec<Term> = xs
                        .iter()
                        .map(|(x, set)| {
                            Term::new(vec![sums[set].0.clone(), values.value(*x).clone()])
                        })
                        .collect();
                    size += row.len();
                    let Some(v) = e.sum(row) else { continue };
                    inner.insert(key, v.clone());
                    v
                }
            };
            terms.push(Term::new(vec![values.value(y).clone(), value]));
        }
        size += terms.len();
        let Some(value) = e.sum(terms) else { continue };
        stores.push(store_at(mass, i, j, &value));
    }
    if size > MAX_WRITTEN_MASS {
        return None;
    }
    Some((e, stores))
}

#[cfg(test)]
thread_local! {
    /// The products of Jacobian entries [`mass_from_jacobians`] has formed on this thread,
    /// for the tests of when it stops.
    pub static PRODUCTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The most terms an operand's expansion may have ([`Expansions`]).
const EXPANSION: usize = 8;

/// Operands of the mass matrix's products as linear combinations of the nodes they are
/// made of: a node read by one node only, linear in the velocities (a sum, a difference, a
/// product with or a division by what does not depend on them), is replaced by its
/// operands on the velocities, with the coefficients of the combination, down to nodes
/// read by several (up to [`EXPANSION`] terms). A rigid body's kinetic energy, ½ m |v + ω ×
/// r|² + ½ Σ_k d_k (u_k · ω)², is so written in products of the components of v and ω,
/// whose Jacobians are shared by every body below a joint (`urdf`), with weights
/// m r_a r_b, d_k u_ka u_kb that only the mass matrix computes; the products of one pair of
/// Jacobian entries then share the sum of their weights ([`Interner::sums`]).
struct Expansions<'s, 'g> {
    s: &'s Sweep<'g>,
    /// How many live nodes read each node; `None` when nothing is expanded. An expansion is
    /// exact whoever reads the node: this decides only what is shared.
    readers: Option<Vec<u32>>,
    done: HashMap<Id, Rc<Combination>>,
}

impl<'s, 'g> Expansions<'s, 'g> {
    fn new(s: &'s Sweep<'g>, expand: bool) -> Self {
        let readers = expand.then(|| {
            let mut readers = vec![0u32; s.g.len()];
            for id in (0..s.g.len()).filter(|&id| s.live[id]) {
                let mut operands = s.g.op(id).operands();
                operands.dedup();
                for a in operands {
                    readers[a] += 1;
                }
            }
            readers
        });
        Expansions {
            s,
            readers,
            done: HashMap::new(),
        }
    }

    /// Node `id` as Σ coefficient · node, each coefficient a product of values, its
    /// operands expanded first in [`post_order`] (not by recursion: a chain of sums is as
    /// deep as the model is long).
    fn of(&mut self, id: Id) -> Rc<Combination> {
        let order = post_order(
            id,
            |node| {
                self.linear(node)
                    .into_iter()
                    .flatten()
                    .map(|(a, _)| a)
                    .filter(|&a| self.on_velocity(a))
                    .collect()
            },
            |node| self.done.contains_key(&node),
        );
        for node in order {
            let mut terms = Vec::new();
            for (a, c) in self.linear(node).into_iter().flatten() {
                if !self.on_velocity(a) {
                    continue;
                }
                for (factors, leaf) in self.done[&a].iter() {
                    let mut factors = factors.clone();
                    if !c.is_literal(1.0) {
                        factors.push(c.clone());
                    }
                    terms.push((factors, *leaf));
                }
            }
            let x = Rc::new(if terms.is_empty() || terms.len() > EXPANSION {
                vec![(Vec::new(), node)]
            } else {
                terms
            });
            self.done.insert(node, x);
        }
        self.done[&id].clone()
    }

    fn on_velocity(&self, a: Id) -> bool {
        self.s.g.deps(a).has(Deps::QD)
    }

    /// The operands of node `id` that it is linear in, each with its coefficient, when it
    /// is expanded (one reader) and is such a node.
    fn linear(&self, id: Id) -> Option<Vec<(Id, Val)>> {
        let g = self.s.g;
        match &self.readers {
            Some(readers) if readers[id] == 1 => match g.op(id) {
                Op::Add(a, b) => Some(vec![(a, Val::Lit(1.0)), (b, Val::Lit(1.0))]),
                Op::Sub(a, b) => Some(vec![(a, Val::Lit(1.0)), (b, Val::Lit(-1.0))]),
                Op::Neg(a) => Some(vec![(a, Val::Lit(-1.0))]),
                Op::Mul(a, b) if !self.on_velocity(b) => Some(vec![(a, self.s.val(b))]),
                Op::Mul(a, b) if !self.on_velocity(a) => Some(vec![(b, self.s.val(a))]),
                Op::Div(a, b) => match self.s.val(b) {
                    Val::Lit(d) if (1.0 / d).is_finite() => Some(vec![(a, Val::Lit(1.0 / d))]),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }
}

/// A product of the mass matrix's entries by keys ([`Interner`]): its weight, its entry x
/// of the later column and y of the earlier.
type Product = (usize, usize, usize);

/// The products of an entry that share one y: each x with the weights (a sorted multiset)
/// of its products.
type Terms = Vec<(usize, Vec<usize>)>;

/// An entry's products, by their y.
type Entry = Vec<(usize, Terms)>;

/// A linear combination Σ coefficient · node, each coefficient a product of values.
type Combination = Vec<(Vec<Val>, Id)>;

/// How many times [`MAX_WRITTEN_MASS`] the products of the mass matrix's entries may be
/// before they are grouped ([`mass_from_jacobians`]): beyond, the written-out matrix would
/// be too large however much they share.
pub(crate) const GROUPED_MASS: usize = 50;

/// Values by key: equal values (the same literal, the same local) have the same key; and
/// the weights of the mass matrix's products, by keys of their own. Sound because every
/// local of the generated code is assigned once: the same name is the same value. Values
/// equal by arithmetic but not by name (x and 1 · x, weights of opposite signs) have
/// different keys, which costs sharing, never correctness.
#[derive(Default)]
struct Interner {
    keys: HashMap<String, usize>,
    values: Vec<Val>,
    /// The weights ([`Interner::weight`]), by key: a literal and the other factors.
    weight_keys: HashMap<String, usize>,
    weights: Vec<(f64, Vec<Val>)>,
}

impl Interner {
    fn key(&mut self, v: &Val) -> usize {
        let text = match v {
            Val::Lit(x) => format!("{:x}", x.to_bits()),
            Val::Id(i) => i.to_string(),
        };
        let next = self.values.len();
        let key = *self.keys.entry(text).or_insert(next);
        if key == next {
            self.values.push(v.clone());
        }
        key
    }

    fn value(&self, key: usize) -> &Val {
        &self.values[key]
    }

    /// The weight, a product of `factors`, as a key: its literal factors multiplied at
    /// compile time, the others in the order of their names (a product is one whatever
    /// the order of its factors).
    fn weight(&mut self, all: Vec<Val>) -> usize {
        let mut literal = 1.0;
        let mut factors = Vec::new();
        for v in all {
            match v {
                Val::Lit(x) => literal *= x,
                Val::Id(i) => factors.push((i.to_string(), Val::Id(i))),
            }
        }
        factors.sort_by(|a, b| a.0.cmp(&b.0));
        let text = std::iter::once(format!("{:x}", literal.to_bits()))
            .chain(factors.iter().map(|f| f.0.clone()))
            .collect::<Vec<_>>()
            .join("*");
        let factors: Vec<Val> = factors.into_iter().map(|f| f.1).collect();
        let next = self.weights.len();
        let key = *self.weight_keys.entry(text).or_insert(next);
        if key == next {
            self.weights.push((literal, factors));
        }
        key
    }

    /// The sum of each multiset of weights in `sets` (sorted keys), with the key of its
    /// value in `values`. Smallest first, each is the sum of the largest sums already
    /// formed that it contains and of its remaining weights: on a kinematic tree the sets
    /// of an entry's products are the bodies below a joint, so each joint's sum is its
    /// body's weight plus its children's sums, the composite inertias of CRBA (Featherstone,
    /// *Rigid Body Dynamics Algorithms*, §6.2) found from the products.
    fn sums<'s>(
        &mut self,
        e: &mut Emit,
        sets: impl Iterator<Item = &'s Vec<usize>>,
    ) -> HashMap<Vec<usize>, (Val, usize)> {
        let mut order: Vec<&Vec<usize>> = sets.collect();
        order.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        order.dedup();
        let mut done: HashMap<Vec<usize>, (Val, usize)> = HashMap::new();
        // The sums formed, by their first weight.
        let mut by_first: HashMap<usize, Vec<&Vec<usize>>> = HashMap::new();
        for set in order {
            let mut left: Vec<usize> = set.clone();
            let mut candidates: Vec<&Vec<usize>> = left
                .iter()
                .flat_map(|w| by_first.get(w).into_iter().flatten().copied())
                .collect();
            candidates.sort_unstable_by_key(|c| std::cmp::Reverse(c.len()));
            let mut terms = Vec::new();
            let mut constant = 0.0;
            for c in candidates {
                if let Some(rest) = without(&left, c) {
                    left = rest;
                    match &done[c].0 {
                        Val::Lit(x) => constant += x,
                        v => terms.push(Term::new(vec![v.clone()])),
                    }
                }
            }
            for w in left {
                let (literal, factors) = &self.weights[w];
                if factors.is_empty() {
                    constant += literal;
                } else {
                    let mut factors = factors.clone();
                    factors.insert(0, Val::Lit(*literal));
                    terms.push(Term::new(factors));
                }
            }
            if constant != 0.0 {
                terms.push(Term::new(vec![Val::Lit(constant)]));
            }
            let value = e.sum(terms).unwrap_or(Val::Lit(0.0));
            let key = self.key(&value);
            done.insert(set.clone(), (value, key));
            if let Some(&first) = set.first() {
                by_first.entry(first).or_default().push(set);
            }
        }
        done
    }
}

/// The multiset `set` without `part` (both sorted), `None` when `part` is not in it.
fn without(set: &[usize], part: &[usize]) -> Option<Vec<usize>> {
    let mut rest = Vec::with_capacity(set.len());
    let mut k = 0;
    for &w in set {
        if k < part.len() && part[k] == w {
            k += 1;
        } else {
            rest.push(w);
        }
    }
    (k == part.len()).then_some(rest)
}

/// The code that fills `mass`, the mass matrix: within [`MAX_WRITTEN_MASS`] written out,
/// by [`mass_from_jacobians`] (with its operands expanded or not) or by one tangent
/// sweep per velocity, whichever does less arithmetic ([`Emit::work`]); beyond it, the
/// columns' sweeps in loops ([`loop_groups`]). A written-out column computes only what
/// depends on its velocity (a serial arm's last joint moves one body), so its work grows
/// with a body's depth. The Jacobians' entries summed body by body grew with its square,
/// and long chains favoured the columns (24 links: 12 168 instructions per call of
/// `mass_matrix` against 8 933); with the weights' sums shared down the chain
/// ([`mass_from_jacobians`]) an entry costs the same at any depth, and the Jacobians win
/// on chains and trees alike. The columns remain for models whose curvature in the
/// velocities is not in products of shared nodes.
///
/// Each entry is computed once and mirrored, so the matrix is exactly symmetric: a
/// written-out column j stores the rows i ≥ j; a looped column stores the rows of later
/// loops, and the rows of its own loop from its own position on.
pub(super) fn mass_columns(
    s: &Sweep,
    adjoint: &[Option<Val>],
    velocities: &[Option<Id>],
    mass: &Ident,
    parts: &mut Parts,
) -> TokenStream {
    // By the Jacobians, with and without expanding the products' operands.
    let by_jacobians = [true, false]
        .into_iter()
        .filter_map(|expand| mass_from_jacobians(s, adjoint, mass, expand))
        .min_by_key(|(e, _)| e.work);
    let n = velocities.len();
    // Column j seeded by the literal one on q̇_j.
    let column = |j: usize| {
        let mut column = Emit::new("__c", Scalar::Generic);
        let seed = |op: Op| match op {
            Op::Vel(i) if i == j => Some(Val::Lit(1.0)),
            _ => None,
        };
        let tangents = tangent(&mut column, s, adjoint, Deps::QD, &seed);
        (column, tangents)
    };
    // Every column once, to measure it, until their work passes the Jacobians' (which
    // then win: a robot's columns do three to eight times their arithmetic, and building
    // all N of them to know it cost the macro O(N · size)).
    let mut columns: Vec<(Emit, Vec<Option<Val>>)> = Vec::with_capacity(n);
    let mut work = 0;
    for j in 0..n {
        if let Some((e, _)) = &by_jacobians {
            if e.work <= work {
                break;
            }
        }
        columns.push(column(j));
        work += columns[j].0.work;
    }
    if let Some((e, stores)) = by_jacobians {
        if e.work <= work {
            let code = parts.straight(e.declaration(), &e.statements, stores, &[]);
            return quote!({ #code });
        }
    }
    let row =
        |tangents: &[Option<Val>], i: usize| -> Option<Val> { tangents[velocities[i]?].clone() };
    let sizes: Vec<usize> = columns.iter().map(|c| c.0.statements.len()).collect();
    let written = sizes.iter().sum::<usize>();
    if written <= MAX_WRITTEN_MASS {
        let code: Vec<TokenStream> = columns
            .iter()
            .enumerate()
            .map(|(j, (column, tangents))| {
                let entries = (j..n)
                    .filter_map(|i| Some(store_at(mass, i, j, &row(tangents, i)?)))
                    .collect();
                let statements = &column.statements;
                let code = parts.straight(column.declaration(), statements, entries, &[]);
                quote!({ #code })
            })
            .collect();
        return quote!(#(#code)*);
    }
    let rows: Vec<Vec<bool>> = columns
        .iter()
        .map(|(_, t)| (0..n).map(|i| row(t, i).is_some()).collect())
        .collect();
    drop(columns);
    let groups = loop_groups(&sizes, &rows);
    // Each column's (loop, position in it).
    let mut rank = vec![(0, 0); n];
    for (g, group) in groups.iter().enumerate() {
        for (position, &j) in group.iter().enumerate() {
            rank[j] = (g, position);
        }
    }
    let p = private();
    let (one_hot, j, k) = (internal("__seed"), internal("__j"), internal("__k"));
    let mut code = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        // One sweep seeded on the group's velocities, e_i = one_hot[i].
        let mut column = Emit::new("__c", Scalar::Generic);
        let seed = |i: usize| internal(&format!("__e{i}"));
        let seed_velocity = |op: Op| match op {
            Op::Vel(i) if group.contains(&i) => Some(Val::Id(seed(i))),
            _ => None,
        };
        let tangents = tangent(&mut column, s, adjoint, Deps::QD, &seed_velocity);
        let entries = (0..n)
            .filter_map(|i| {
                let store = store(mass, i, &j, &row(&tangents, i)?);
                match rank[i].0.cmp(&g) {
                    std::cmp::Ordering::Less => None,
                    std::cmp::Ordering::Greater => Some(store),
                    std::cmp::Ordering::Equal => {
                        let r = rank[i].1;
                        let mut reads = store.reads.clone();
                        reads.push(k.clone());
                        Some(Stmt::effect(quote!(if #r >= #k { #store }), reads))
                    }
                }
            })
            .collect();
        let seeds: Vec<Ident> = group.iter().map(|&i| seed(i)).collect();
        let straight = parts.straight(column.declaration(), &column.statements, entries, &seeds);
        code.push(quote! {
            for (#k, #j) in [#(#group),*].into_iter().enumerate() {
                let mut #one_hot = [<__S as #p::From<f64>>::from(0.0); #n];
                #one_hot[#j] = <__S as #p::From<f64>>::from(1.0);
                #( let #seeds: __S = #one_hot[#group]; )*
                #straight
            }
        });
    }
    quote!(#(#code)*)
}
