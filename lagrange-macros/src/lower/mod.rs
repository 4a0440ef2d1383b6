//! Lowering: the checked model becomes an owned, resolved form that every code generator
//! reads, and nothing after this stage looks at a name or a string again.
//!
//! It reads a model that typing has found well shaped, so the only errors it reports are
//! the rules on what a quantity depends on (a constraint affine in the velocities, a force
//! on a position p(q, t), `dot` of what has a derivative): those are decided on the graph,
//! after folding, where the analysis is exact.
//! Vectors and matrices exist only here: each is lowered to its scalar elements, nodes of
//! one graph shared by the whole model (a `let` is its nodes, reused wherever it is used).
//! The graph is hash-consed, so an expression written twice is computed once, and literal
//! zeros and ones are folded away (`rot_z(a) * rot_y(b)` costs the products a hand
//! derivation would write, not 27). What each node depends on (q, q̇, t, u) and how it
//! depends on the velocities is computed once, when the node is made, so every rule that
//! needs it (`dot`, `force`, `torque`, `constraint`) is linear in the size of the model.

use crate::ast::{Energy, Extent, Header, Statement};
use crate::check::{Checked, Symbol};
use crate::errors::Errors;
use crate::ir::{Id, Ir, Jet1, Op};
use crate::typing::Shape;
use syn::Ident;

mod expressions;
mod functions;
mod nodes;
mod rotations;
mod statements;

/// Integer powers beyond this go through `powf`: num-dual's `powi` forms n(n − 1) in `i32`.
pub const MAX_POWI: u32 = 1024;

/// How a node depends on the velocities.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Degree {
    Zero,
    /// A(q, t) q̇ + b(q, t).
    Affine,
    /// Otherwise; the node where it first stops being affine.
    Nonlinear(Id),
}

/// A value: its shape and its elements (row by row for a matrix).
#[derive(Clone)]
pub struct Value {
    pub shape: Shape,
    pub elems: Vec<Id>,
}

impl Value {
    fn scalar(id: Id) -> Value {
        Value {
            shape: Shape::Scalar,
            elems: vec![id],
        }
    }
}

/// A parameter with its default, evaluated.
pub struct Parameter {
    pub name: Ident,
    pub default: Option<f64>,
}

/// A generalized force by virtual power: Q_j += force · ∂velocity/∂q̇_j. `force F on p`
/// gives one per element with velocity ṗ_k; `torque tau on R` one per element with the
/// angular velocity ω_k of R.
pub struct Force {
    pub force: Id,
    pub velocity: Id,
}

/// One scalar constraint (an element of a vector constraint is one).
pub struct Constraint {
    /// `name`, or `name[k]` for element k of a vector constraint.
    pub name: String,
    pub value: Id,
    pub holonomic: bool,
}

/// A candidate contact: the elements whose rows (Jacobian and drift) the contact
/// constrains while it is active. A point contact is its point p (3 position-level
/// elements, ṗ = J q̇); a frame contact the world angular velocity ω of its rotation (3
/// velocity-level elements) then its point p.
pub struct Contact {
    pub name: Ident,
    pub elems: Vec<Id>,
    /// For each element, whether it is at velocity level.
    pub velocity: Vec<bool>,
    /// Each row's velocity, affine in q̇: ω's elements as they are, ṗ for the point's.
    pub velocities: Vec<Id>,
}

/// A `let`, by name: its value, or `None` when it has an error.
pub struct Let {
    pub name: Ident,
    /// The expression as written, up to [`crate::ast::QUOTED`] characters.
    pub text: String,
    pub value: Option<Value>,
}

/// The model, resolved and lowered to scalar operations: everything code generation
/// reads (it never goes back to the syntax tree).
pub struct Lowered {
    pub header: Header,
    pub parameters: Vec<Parameter>,
    pub coordinates: Vec<Ident>,
    pub inputs: Vec<Ident>,
    /// The model's scalar operations, in the lowered form ([`crate::ir`]).
    pub ir: Ir,
    /// How each node of `ir` depends on the velocities.
    pub degree: Vec<Degree>,
    pub kinetic: Id,
    pub potential: Option<Id>,
    pub dissipation: Option<Id>,
    pub forces: Vec<Force>,
    pub constraints: Vec<Constraint>,
    /// The candidate contacts, in declaration order.
    pub contacts: Vec<Contact>,
    /// Every `let`, in declaration order.
    pub lets: Vec<Let>,
    /// What an `urdf:` file brought besides statements.
    pub robot: Option<crate::ast::Robot>,
}

/// A robot whose inverse dynamics is its tree's alone, so that the runtime can
/// differentiate it from the tree (`lagrange_runtime::tree_dynamics`)
/// ([`Lowered::tree_dynamics`]).
pub struct TreeDynamics {
    /// The parameter that is gravity's magnitude (`urdf_potential`'s `g`), by index, or
    /// `None` without a potential.
    pub gravity: Option<usize>,
    /// Each coordinate's damping (`urdf_dissipation`), zeros without a dissipation.
    pub damping: Vec<f64>,
    /// The forces that move the generalized forces with the state (that read it, or act
    /// through anything but a coordinate's rate), by index into [`Lowered::forces`]; their
    /// derivatives are unrolled (`crate::fast::forces_along_state_code`) or taken in dual
    /// numbers over the forces alone (`lagrange_runtime::tree_dynamics::forces_along_state`).
    pub moving: Vec<usize>,
    /// Whether one of them reads the velocities.
    pub forces_read_velocities: bool,
    /// The coordinates the forces read (in their values or their velocities): the only
    /// directions of q along which Q can change.
    pub forces_read: Vec<usize>,
}

impl Lowered {
    /// The one scalar element of the `let` `name` (`urdf_kinetic`, …), if it has one.
    fn urdf_let(&self, name: &str) -> Option<Id> {
        let found = self.lets.iter().find(|l| l.name == name)?;
        match found.value.as_ref()?.elems.as_slice() {
            &[id] => Some(id),
            _ => None,
        }
    }

    /// Whether the kinetic energy is its URDF tree's alone, `kinetic = urdf_kinetic;`,
    /// with every coordinate a joint's (after a floating base's seven): then the runtime
    /// forms the mass matrix from the tree (`lagrange_runtime::tree_dynamics::mass_matrix`).
    pub fn tree_kinetic(&self) -> bool {
        let Some(robot) = self.robot.as_ref() else {
            return false;
        };
        let base = if robot.tree.floating { 7 } else { 0 };
        robot.joints.len() + base == self.coordinates.len()
            && Some(self.kinetic) == self.urdf_let("urdf_kinetic")
    }

    /// Whether the model is its URDF's tree and nothing else, as far as its inverse
    /// dynamics goes: every coordinate a joint's (after a floating base's seven); `kinetic = urdf_kinetic;`,
    /// `potential = urdf_potential;` (with a parameter `g`) or none, `dissipation =
    /// urdf_dissipation;` or none. Forces of any kind (their derivatives along the state,
    /// when they move with it, are unrolled apart), constraints, contacts and `let`s do not
    /// matter. `None` for any other model.
    pub fn tree_dynamics(&self) -> Option<TreeDynamics> {
        let robot = self.robot.as_ref()?;
        if !self.tree_kinetic() {
            return None;
        }
        let gravity = match self.potential {
            None => None,
            Some(v) if Some(v) == self.urdf_let("urdf_potential") => {
                Some(self.parameters.iter().position(|p| p.name == "g")?)
            }
            Some(_) => return None,
        };
        let damping = match self.dissipation {
            None => vec![0.0; self.coordinates.len()],
            Some(d) if Some(d) == self.urdf_let("urdf_dissipation") => {
                let base = if robot.tree.floating { 7 } else { 0 };
                let joints = robot.joints.iter().map(|j| j.damping);
                std::iter::repeat_n(0.0, base).chain(joints).collect()
            }
            Some(_) => return None,
        };
        let on_a_coordinate = |velocity: Id| match self.ir.op(velocity) {
            Op::Vel(_) => true,
            Op::Dot(a) => matches!(self.ir.op(a), Op::Coord(_)),
            _ => false,
        };
        let still = |force: Id| !self.ir.deps(force).has(crate::ir::Deps::STATE);
        // A force that does not read the state, on a coordinate, keeps Q constant; the
        // others move it.
        let moving: Vec<usize> = (0..self.forces.len())
            .filter(|&k| {
                let f = &self.forces[k];
                !(still(f.force) && on_a_coordinate(f.velocity))
            })
            .collect();
        let forces_read_velocities = moving
            .iter()
            .any(|&k| self.ir.deps(self.forces[k].force).has(crate::ir::Deps::QD));
        let roots: Vec<Id> = moving
            .iter()
            .flat_map(|&k| [self.forces[k].force, self.forces[k].velocity])
            .collect();
        let live = self.ir.live(&roots);
        let forces_read = (0..self.ir.len())
            .filter(|&id| live[id])
            .filter_map(|id| match self.ir.op(id) {
                Op::Coord(c) => Some(c),
                _ => None,
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        Some(TreeDynamics {
            gravity,
            damping,
            moving,
            forces_read_velocities,
            forces_read,
        })
    }

    /// Whether L = T − V is a polynomial of degree at most two in the velocities, so that
    /// the momenta are affine in q̇ and the mass matrix does not depend on q̇: true of
    /// every kinetic energy ½ q̇ᵀ M(q) q̇ + q̇ᵀ b(q, t) + c(q, t), false of a relativistic
    /// one (a square root of the speed).
    pub fn quadratic_in_velocities(&self) -> bool {
        // The degree of each node in q̇; `None` when it is not a polynomial in q̇.
        let mut degree: Vec<Option<u32>> = Vec::with_capacity(self.ir.len());
        for id in 0..self.ir.len() {
            let d = |a: Id| degree[a];
            let free = |ids: &[Id]| ids.iter().all(|&a| d(a) == Some(0)).then_some(0);
            let value = match self.ir.op(id) {
                Op::Lit(_) | Op::Param(_) | Op::Coord(_) | Op::Input(_) | Op::Time => Some(0),
                // Not in the lowered form.
                Op::Vel(_) => Some(1),
                Op::D1(a) | Op::P1(a, _) => free(&[a]),
                // The checker rejects a `dot` of anything that depends on q̇.
                Op::Dot(_) => Some(1),
                Op::Neg(a) => d(a),
                Op::Add(a, b) | Op::Sub(a, b) => d(a).zip(d(b)).map(|(x, y)| x.max(y)),
                Op::Mul(a, b) => d(a).zip(d(b)).map(|(x, y)| x + y),
                Op::Div(a, b) => d(b).filter(|&y| y == 0).and(d(a)),
                Op::Unary(Jet1::Powi(k), a) => match u32::try_from(k) {
                    Ok(k) => d(a).map(|x| x.saturating_mul(k)),
                    Err(_) => free(&[a]),
                },
                Op::Unary(f, a) => free(&[a]).and(match f {
                    Jet1::Powf(e) => free(&[e]),
                    _ => Some(0),
                }),
                Op::Binary(_, a, b) => free(&[a, b]),
            };
            degree.push(value);
        }
        let at_most_two = |id: Id| degree[id].is_some_and(|x| x <= 2);
        at_most_two(self.kinetic) && self.potential.is_none_or(at_most_two)
    }
}

/// Lowers a model without name or type errors; errors of the rules on what a quantity
/// depends on go to `errors`. The result is complete only if there are none.
pub fn lower(c: &Checked, errors: &mut Errors) -> Lowered {
    let mut lw = Lowerer {
        c,
        errors,
        ir: Ir::default(),
        degree: Vec::new(),
        at: Vec::new(),
        lets: vec![None; c.let_statement.len()],
        statement: 0,
    };
    let parameters = c
        .parameters
        .iter()
        .zip(&c.defaults)
        .map(|(p, &default)| Parameter {
            name: p.name.clone(),
            default,
        })
        .collect();
    let mut out = Lowered {
        header: c.model.header.clone(),
        parameters,
        coordinates: c.coordinates.iter().map(|d| d.name.clone()).collect(),
        inputs: c.inputs.iter().map(|d| d.name.clone()).collect(),
        ir: Ir::default(),
        degree: Vec::new(),
        kinetic: 0,
        potential: None,
        dissipation: None,
        forces: Vec::new(),
        constraints: Vec::new(),
        contacts: Vec::new(),
        lets: Vec::new(),
        robot: c.model.robot.clone(),
    };
    let mut kinetic = None;
    for (index, statement) in c.model.statements.iter().enumerate() {
        lw.statement = index;
        match statement {
            Statement::Let { name, value: e } => {
                let value = lw.expr(e);
                if let Some(Symbol::Let(i)) = c.symbol(name) {
                    lw.lets[i] = value.clone();
                }
                out.lets.push(Let {
                    name: name.clone(),
                    text: e.text_up_to(crate::ast::QUOTED),
                    value,
                });
            }
            Statement::Energy { kind, value, .. } => {
                let Some(id) = lw.energy(value) else {
                    continue;
                };
                match kind {
                    Energy::Kinetic => kinetic = kinetic.or(Some(id)),
                    Energy::Potential => out.potential = out.potential.or(Some(id)),
                    Energy::Dissipation => out.dissipation = out.dissipation.or(Some(id)),
                }
            }
            Statement::Force { force, point } => lw.force(force, point, &mut out.forces),
            Statement::Torque {
                keyword,
                torque,
                rotation,
            } => lw.torque(keyword, torque, rotation, &mut out.forces),
            Statement::Constraint { name, value } => {
                lw.constraint(name, value, &mut out.constraints);
            }
            Statement::Contact {
                name,
                rotation,
                point,
            } => lw.contact(name, rotation.as_ref(), point, &mut out.contacts),
            Statement::Parameters(_)
            | Statement::Coordinates(_)
            | Statement::Inputs(_)
            | Statement::Urdf { .. } => {}
        }
    }
    out.kinetic = kinetic.unwrap_or_else(|| lw.constant(0.0));
    out.ir = lw.ir;
    out.degree = lw.degree;
    out
}

struct Lowerer<'c, 'a, 'e> {
    c: &'c Checked<'a>,
    errors: &'e mut Errors,
    ir: Ir,
    /// How each node depends on the velocities (the analysis `ir` does not make: only
    /// lowering's rules read it).
    degree: Vec<Degree>,
    /// The source of the expression that first made each node.
    at: Vec<Extent>,
    /// The value of each let once lowered; `None` before, or when it has an error.
    lets: Vec<Option<Value>>,
    /// The statement being lowered.
    statement: usize,
}
