//! The statements of a robot, written as a user would write them by hand: its coordinates
//! and `g`, each link's frame (`L_R`, `L_p`) down the tree and centre of mass (`L_c`), the
//! energies `urdf_kinetic` (with the tree's velocities), `urdf_potential` and
//! `urdf_dissipation`, the centroidal `urdf_mass`, `urdf_com`, `urdf_momentum` and
//! `urdf_angular_momentum` (from the kinetic energy's velocities), and the constraints of a floating base's quaternion and of mimic
//! joints; with the joints' limits for `Name::JOINT_LIMITS`. Every token at the path.

use super::failure::Failure;
use super::kind::Motion;
use super::maths::{apply, rpy_matrix, unit_ldlt, Matrix};
use super::mimic::leaders;
use super::names::{claim_all, escaped, identifier, Identifiers, FLOATING_BASE};
use super::order::{walk, Walk};
use super::units::Si;
use super::xml::{Joint, Link, Urdf};
use crate::ast::{
    BinOp, Declared, Expr, Index, Number, Parameter, RobotJoint, RobotTree, Statement, TreeBody,
    TreeJoint, TreeLink,
};
use proc_macro2::Span;
use syn::Ident;

/// Each fixed joint's identifier, with its child link's.
pub type FixedJoints = Vec<(String, String)>;

/// Each joint that has a coordinate, with its name in the file and its limits.
pub type Limits = Vec<RobotJoint>;

/// The robot as the statements name it: the file's links and joints, the walk of its tree
/// from the root, and the identifiers of the links and of the joints' coordinates.
struct Tree<'a> {
    links: &'a [Link],
    joints: &'a [Joint],
    root: usize,
    order: Vec<usize>,
    link_id: Vec<String>,
    joint_id: Vec<String>,
    floating: bool,
}

/// How each link moves, as expressions of its parent's (indexed by link).
struct Kinematics {
    /// The links whose frames were written, the root first, then in the walk's order.
    frames: Vec<usize>,
    /// Whether the link's frame moves with the coordinates.
    moves: Vec<bool>,
    /// The link whose origin is the link's reference point o: the nearest link above it
    /// (or itself) that does not move, or with `floating` the root.
    reference: Vec<usize>,
    /// The link's origin from the reference point o (`None`: o itself).
    from_o: Vec<Option<Expr>>,
    /// The link's angular velocity in the world frame (`None`: zero).
    omega: Vec<Option<Expr>>,
    /// The velocity of the link's point at o in the world frame (`None`: zero).
    velocity: Vec<Option<Expr>>,
}

/// A link that moves and has mass or inertia, as its energy is written.
struct Body {
    link: usize,
    /// Its reference point's link (`Kinematics::reference`).
    reference: usize,
    mass: f64,
    /// Its centre of mass from its reference point o (`None`: o itself).
    from_o: Option<Expr>,
    /// The velocity of its centre of mass, ċ (`None`: zero, or a link without mass).
    velocity: Option<Expr>,
    /// Its rotational terms (`None`: no inertia, or a link that does not turn).
    spin: Option<Spin>,
}

/// A link's rotational terms ([`Writer::spin`]).
enum Spin {
    /// I = L D Lᵀ: each nonzero pivot d_k, with a_k = L_R l_k and a_k · ω.
    Factored(Vec<(f64, Expr, Expr)>),
    /// Without that factorization: ω_b = L_Rᵀ ω and I ω_b.
    Plain { body: Expr, spin: Expr },
}

/// Writes the statements, every token at `span`.
pub struct Writer {
    pub span: Span,
    /// Whether the model's declarations carry units, and so the spliced ones.
    pub units: bool,
    /// `actuated`: an input `tau_<joint>` and its `force` for every joint that has a
    /// coordinate and mimics none.
    pub actuated: bool,
}

impl Writer {
    fn ident(&self, name: &str) -> Ident {
        escaped(name, self.span)
    }

    fn name(&self, name: &str) -> Expr {
        Expr::Name(self.ident(name))
    }

    /// A literal, with its unit when the model carries units.
    fn number(&self, value: f64, unit: Option<Si>) -> Expr {
        let number = Expr::Number(Number {
            value: value.abs(),
            span: self.span,
        });
        let literal = if value.is_sign_negative() && value != 0.0 {
            Expr::Neg {
                minus: self.span,
                operand: Box::new(number),
            }
        } else {
            number
        };
        self.with_unit(literal, unit)
    }

    /// `value [unit]` when the model carries units.
    fn with_unit(&self, value: Expr, unit: Option<Si>) -> Expr {
        match unit.filter(|_| self.units) {
            Some(u) => Expr::Quantity {
                value: Box::new(value),
                unit: crate::parse::unit_at(u.text(), self.span),
                close: self.span,
            },
            None => value,
        }
    }

    fn binary(&self, op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    fn call(&self, func: &str, args: Vec<Expr>) -> Expr {
        Expr::Call {
            func: self.ident(func),
            args,
            method: false,
            close: self.span,
        }
    }

    fn list(&self, items: Vec<Expr>) -> Expr {
        Expr::List {
            items,
            open: self.span,
            close: self.span,
        }
    }

    fn vector(&self, v: [f64; 3], unit: Option<Si>) -> Expr {
        let list = self.list(v.iter().map(|&x| self.number(x, None)).collect());
        self.with_unit(list, unit)
    }

    fn matrix(&self, m: &Matrix, unit: Option<Si>) -> Expr {
        let rows = m.iter().map(|row| self.vector(*row, None)).collect();
        self.with_unit(self.list(rows), unit)
    }

    /// A declaration's unit, when the model carries units.
    fn unit(&self, text: &str) -> Option<crate::ast::UnitExpr> {
        self.units.then(|| crate::parse::unit_at(text, self.span))
    }

    fn declared(&self, name: &str, unit: &str) -> Declared {
        Declared {
            name: self.ident(name),
            unit: self.unit(unit),
        }
    }

    fn let_(&self, name: &str, value: Expr) -> Statement {
        Statement::Let {
            name: self.ident(name),
            value,
        }
    }

    /// A sum of terms; `0` for none.
    fn sum(&self, terms: Vec<Expr>) -> Expr {
        self.total(terms.into_iter().map(Some))
            .unwrap_or_else(|| self.number(0.0, None))
    }

    /// The sum of the terms present; `None` for none (a velocity that is zero).
    fn total(&self, terms: impl IntoIterator<Item = Option<Expr>>) -> Option<Expr> {
        terms
            .into_iter()
            .flatten()
            .reduce(|a, b| self.binary(BinOp::Add, a, b))
    }

    /// The rotation of a joint by its coordinate `q` about its unit `axis`: an axis
    /// rotation when the axis is a coordinate axis, so that its zeros stay literal.
    fn joint_rotation(&self, axis: [f64; 3], q: &str) -> Expr {
        for (k, f) in ["rot_x", "rot_y", "rot_z"].iter().enumerate() {
            let others = (0..3).filter(|&i| i != k).all(|i| axis[i] == 0.0);
            if others && axis[k].abs() == 1.0 {
                let angle = if axis[k] > 0.0 {
                    self.name(q)
                } else {
                    Expr::Neg {
                        minus: self.span,
                        operand: Box::new(self.name(q)),
                    }
                };
                return self.call(f, vec![angle]);
            }
        }
        self.call("rot", vec![self.vector(axis, None), self.name(q)])
    }

    /// The rotational terms of link `id` turning at `w` (world frame), I its inertia about
    /// the centre of mass in its frame and ω_b = L_Rᵀ w, from which both its energy ½ ω_bᵀ
    /// I ω_b and its angular momentum L_R I ω_b are written ([`Spin`]): with I = L D Lᵀ (L
    /// unit lower triangular, D diagonal, at compile time), Σ_k d_k/2 (l_kᵀ ω_b)² = Σ_k
    /// d_k/2 ((L_R l_k) · w)², l_k the columns of L. Three squares whose velocity
    /// derivatives are three products each, where ωᵀ I ω would take nine, and L_R l₂ is a
    /// column of L_R; the momentum is Σ_k d_k ((L_R l_k) · w) L_R l_k, of the same
    /// products. An inertia without that factorization (a zero pivot over a nonzero
    /// entry, not a physical one) or whose factors overflow `f64` is written with ω_b.
    fn spin(&self, id: &str, tensor: &Matrix, w: &Expr) -> Spin {
        let frame = || self.name(&format!("{id}_R"));
        let Some(factor) = inertia_factors(tensor) else {
            let body = self.call("transpose", vec![frame()]);
            let body = self.binary(BinOp::Mul, body, w.clone());
            let spin = self.binary(
                BinOp::Mul,
                self.matrix(tensor, Some(Si::KilogramMetreSquared)),
                body.clone(),
            );
            return Spin::Plain { body, spin };
        };
        let squares = factor
            .into_iter()
            .map(|(d, column)| {
                let axis = self.binary(BinOp::Mul, frame(), self.vector(column, None));
                let along = self.call("inner", vec![axis.clone(), w.clone()]);
                (d, axis, along)
            })
            .collect();
        Spin::Factored(squares)
    }

    /// ½ ω_bᵀ I ω_b, of a link's [`Spin`].
    fn rotational_energy(&self, spin: &Spin) -> Vec<Expr> {
        match spin {
            Spin::Plain { body, spin } => {
                let energy = self.call("inner", vec![body.clone(), spin.clone()]);
                vec![self.binary(BinOp::Div, energy, self.number(2.0, None))]
            }
            Spin::Factored(squares) => squares
                .iter()
                .map(|(d, _, along)| {
                    self.binary(
                        BinOp::Mul,
                        self.number(d / 2.0, Some(Si::KilogramMetreSquared)),
                        self.binary(BinOp::Mul, along.clone(), along.clone()),
                    )
                })
                .collect(),
        }
    }

    /// L_R I ω_b, the angular momentum of a link's [`Spin`] about its centre of mass.
    fn rotational_momentum(&self, id: &str, spin: &Spin) -> Vec<Expr> {
        match spin {
            Spin::Plain { spin, .. } => {
                vec![self.binary(BinOp::Mul, self.name(&format!("{id}_R")), spin.clone())]
            }
            Spin::Factored(squares) => squares
                .iter()
                .map(|(d, axis, along)| {
                    let weight = self.binary(
                        BinOp::Mul,
                        self.number(*d, Some(Si::KilogramMetreSquared)),
                        along.clone(),
                    );
                    self.binary(BinOp::Mul, weight, axis.clone())
                })
                .collect(),
        }
    }

    /// The statements and the joint limits.
    pub fn statements(
        &self,
        robot: &Urdf,
        floating: bool,
        declared: &[String],
        own_coordinates: bool,
    ) -> Result<(Vec<Statement>, Limits, FixedJoints, RobotTree), Failure> {
        let declare_g = !declared.iter().any(|n| n == "g");
        let Walk { root, order } = walk(robot)?;
        let Identifiers {
            links: link_id,
            joints: joint_id,
        } = claim_all(robot, &order, floating, declare_g, self.actuated, declared)?;
        let tree = Tree {
            links: &robot.links,
            joints: &robot.joints,
            root,
            order,
            link_id,
            joint_id,
            floating,
        };
        let fixed = robot
            .joints
            .iter()
            .filter(|j| j.kind.motion().is_none())
            .map(|j| (identifier(&j.name), tree.link_id[j.child].clone()))
            .collect();
        let mut out = Vec::new();
        let limits = self.declarations(&tree, declare_g, own_coordinates, &mut out)?;
        let kinematics = self.frames(&tree, &mut out);
        let bodies = self.energies(&tree, &kinematics, &mut out);
        self.dissipation(&tree, &mut out);
        self.centroidal(&tree, &bodies, &mut out);
        self.constraints(&tree, &mut out)?;
        let robot_tree = robot_tree(&tree, &kinematics, &bodies);
        Ok((out, limits, fixed, robot_tree))
    }

    /// The coordinates (the floating base's, then one per joint that has one, in the walk's
    /// order) and `g` unless the model declares it; the joints' limits.
    fn declarations(
        &self,
        tree: &Tree,
        declare_g: bool,
        own_coordinates: bool,
        out: &mut Vec<Statement>,
    ) -> Result<Limits, Failure> {
        let Tree {
            joints,
            ref order,
            ref joint_id,
            floating,
            ..
        } = *tree;
        let mut coordinates = Vec::new();
        if floating {
            for (n, unit) in FLOATING_BASE {
                coordinates.push(self.declared(n, unit));
            }
        }
        let mut limits = Vec::new();
        for &j in order {
            let joint = &joints[j];
            let Some(motion) = joint.kind.motion() else {
                continue;
            };
            coordinates.push(self.declared(&joint_id[j], motion.unit()));
            limits.push(RobotJoint {
                name: joint_id[j].clone(),
                file_name: joint.name.clone(),
                limit: joint.limit,
                friction: joint.friction,
                damping: joint.damping,
            });
        }
        if coordinates.is_empty() && !own_coordinates {
            let fixed = joints.len();
            let joints = match fixed {
                0 => "it has no joints".to_string(),
                1 => "its one joint is fixed".to_string(),
                n => format!("its {n} joints are all fixed"),
            };
            return Err(Failure::File(
                None,
                format!(
                    "the robot has no movable joint ({joints}), so the model has no \
                     coordinates: give the root a free base with `floating` after the path, \
                     or declare coordinates of the model's own"
                ),
            ));
        }
        if !coordinates.is_empty() {
            out.push(Statement::Coordinates(coordinates));
        }
        if self.actuated {
            // One input per driven joint, in coordinate order, and its virtual work.
            let driven: Vec<(usize, Motion)> = order
                .iter()
                .filter(|&&j| joints[j].mimic.is_none())
                .filter_map(|&j| Some((j, joints[j].kind.motion()?)))
                .collect();
            let inputs = driven
                .iter()
                .map(|&(j, motion)| self.declared(&format!("tau_{}", joint_id[j]), motion.effort()))
                .collect::<Vec<_>>();
            if !inputs.is_empty() {
                out.push(Statement::Inputs(inputs));
            }
            for &(j, _) in &driven {
                out.push(Statement::Force {
                    force: self.name(&format!("tau_{}", joint_id[j])),
                    point: self.name(&joint_id[j]),
                });
            }
        }
        if declare_g {
            out.push(Statement::Parameters(vec![Parameter {
                name: self.ident("g"),
                default: Some(self.number(9.81, None)),
                unit: self.unit("m/s^2"),
            }]));
        }
        Ok(limits)
    }

    /// The root's frame, then each link's below its joint (`L_R`, `L_p`), and how each link
    /// moves.
    fn frames(&self, tree: &Tree, out: &mut Vec<Statement>) -> Kinematics {
        let Tree {
            links,
            joints,
            root,
            ref order,
            ref link_id,
            ref joint_id,
            floating,
        } = *tree;
        let r = &link_id[root];
        let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let (root_r, root_p) = if floating {
            // The rotation of the normalized quaternion, quat(n) · (1 / |n|²) (one
            // division, not nine), so that off the unit sphere the robot is still a rigid
            // tree (turned by n / |n|), and the analytical algorithms of `tree_dynamics`
            // are the derivatives of this Lagrangian everywhere.
            let quaternion = ["base_qw", "base_qx", "base_qy", "base_qz"];
            let squares =
                quaternion.map(|n| self.binary(BinOp::Pow, self.name(n), self.number(2.0, None)));
            let inverse = self.binary(BinOp::Div, self.number(1.0, None), self.sum(squares.into()));
            (
                self.binary(
                    BinOp::Mul,
                    self.call("quat", quaternion.map(|n| self.name(n)).into()),
                    inverse,
                ),
                self.list(["base_x", "base_y", "base_z"].map(|n| self.name(n)).into()),
            )
        } else {
            (
                self.matrix(&identity, None),
                self.vector([0.0; 3], Some(Si::Metre)),
            )
        };
        out.push(self.let_(&format!("{r}_R"), root_r));
        out.push(self.let_(&format!("{r}_p"), root_p));
        // Whether each link's frame moves with the coordinates.
        let mut moves = vec![false; links.len()];
        moves[root] = floating;
        let mut frames = vec![root];
        // Each link's origin from its reference point o: the origin of the nearest link
        // above it (or itself) that does not move, or with `floating` the root's. The sum
        // of the arms from there (`None`: o itself), never a position measured from the
        // world's origin: a robot far from it would then have terms that grow with the
        // distance and cancel in the energy (issue 50: M₇₇ of TIAGo's wrist off by
        // 2.2e-5 at 1 414 m).
        let mut from_o: Vec<Option<Expr>> = vec![None; links.len()];
        let mut reference: Vec<usize> = vec![root; links.len()];
        // Below a link that does not move, each link's o is that link's origin, fixed in
        // the world (`Some(anchor)`; `None` under a floating root, whose o moves), and its
        // origin L_p is written o's plus the sum of the arms from there, `r`, so that
        // `L_p − o_p` is `r` itself, a name in the velocities: the sum written out in each
        // link's velocity would nest every ancestor's, a syntax tree that grows with the
        // cube of a chain's length (a 200-link chain built in 68 s and 3.4 GB, not 37 s
        // and 1.7 GB).
        let mut anchor: Vec<Option<usize>> = vec![None; links.len()];
        let mut from_anchor: Vec<Option<Expr>> = vec![None; links.len()];
        // Each link's angular velocity and the velocity of its point at o, in the world
        // frame, as expressions of its parent's (`None`: zero, a link that does not move).
        let mut omega: Vec<Option<Expr>> = vec![None; links.len()];
        let mut velocity: Vec<Option<Expr>> = vec![None; links.len()];
        if floating {
            omega[root] = Some(self.call("angular_velocity", vec![self.name(&format!("{r}_R"))]));
            velocity[root] = Some(self.call("dot", vec![self.name(&format!("{r}_p"))]));
        }
        for &j in order {
            let joint = &joints[j];
            let (parent, child) = (&link_id[joint.parent], &link_id[joint.child]);
            let motion = joint.kind.motion();
            moves[joint.child] = moves[joint.parent] || motion.is_some();
            reference[joint.child] = if moves[joint.parent] {
                reference[joint.parent]
            } else {
                joint.parent
            };
            let origin = rpy_matrix(joint.rpy);
            let mut rotation = self.name(&format!("{parent}_R"));
            if origin != identity {
                rotation = self.binary(BinOp::Mul, rotation, self.matrix(&origin, None));
            }
            let mut offset = self.vector(joint.xyz, Some(Si::Metre));
            let parent_r = || self.name(&format!("{parent}_R"));
            // The joint's axis in the world frame times its rate.
            let along = apply(&origin, joint.axis);
            let rate = || {
                let axis = self.binary(BinOp::Mul, parent_r(), self.vector(along, None));
                self.binary(
                    BinOp::Mul,
                    self.call("dot", vec![self.name(&joint_id[j])]),
                    axis,
                )
            };
            let (mut spin, mut slide) = (None, None);
            match motion {
                Some(Motion::Turn) => {
                    let turn = self.joint_rotation(joint.axis, &joint_id[j]);
                    rotation = self.binary(BinOp::Mul, rotation, turn);
                    spin = Some(rate());
                }
                Some(Motion::Slide) => {
                    let slide_by = self.binary(
                        BinOp::Mul,
                        self.name(&joint_id[j]),
                        self.vector(along, None),
                    );
                    offset = self.binary(BinOp::Add, offset, slide_by);
                    slide = Some(rate());
                }
                None => {}
            }
            let arm = self.binary(BinOp::Mul, parent_r(), offset);
            // ω_L = ω_P + a q̇; v_L = v_P + ((L_p − o) × a) q̇ for a revolute joint, v_P +
            // a q̇ for a prismatic one.
            let (w_parent, v_parent) = (&omega[joint.parent], &velocity[joint.parent]);
            let mut position =
                self.binary(BinOp::Add, self.name(&format!("{parent}_p")), arm.clone());
            if !moves[joint.parent] {
                // o is the parent's origin.
                anchor[joint.child] = Some(joint.parent);
                from_anchor[joint.child] = Some(arm.clone());
                from_o[joint.child] = Some(arm.clone());
            } else if let Some(a) = anchor[joint.parent] {
                let r = self.total([from_anchor[joint.parent].clone(), Some(arm.clone())]);
                let o = self.name(&format!("{}_p", link_id[a]));
                position = self.binary(BinOp::Add, o.clone(), r.clone().expect("an arm"));
                anchor[joint.child] = Some(a);
                from_anchor[joint.child] = r;
                from_o[joint.child] =
                    Some(self.binary(BinOp::Sub, self.name(&format!("{child}_p")), o));
            } else {
                from_o[joint.child] = self.total([from_o[joint.parent].clone(), Some(arm.clone())]);
            }
            let turning = spin
                .clone()
                .zip(from_o[joint.child].clone())
                .map(|(spin, at)| self.call("cross", vec![at, spin]));
            velocity[joint.child] = self.total([v_parent.clone(), turning, slide]);
            omega[joint.child] = self.total([w_parent.clone(), spin]);
            out.push(self.let_(&format!("{child}_R"), rotation));
            out.push(self.let_(&format!("{child}_p"), position));
            frames.push(joint.child);
        }
        Kinematics {
            frames,
            moves,
            reference,
            from_o,
            omega,
            velocity,
        }
    }

    /// The centres of mass (`L_c`), `urdf_kinetic` and `urdf_potential`; the links that
    /// move and carry mass or inertia, for [`Writer::centroidal`].
    fn energies(
        &self,
        tree: &Tree,
        kinematics: &Kinematics,
        out: &mut Vec<Statement>,
    ) -> Vec<Body> {
        let Tree {
            links, ref link_id, ..
        } = *tree;
        let Kinematics {
            frames,
            moves,
            reference,
            from_o,
            omega,
            velocity,
        } = kinematics;
        // Centres of mass, and the energies.
        let (mut kinetic, mut potential, mut bodies) = (Vec::new(), Vec::new(), Vec::new());
        for &l in frames {
            let id = &link_id[l];
            let inertial = links[l].inertial.as_ref();
            let com = inertial.map_or([0.0; 3], |i| i.xyz);
            // The centre of mass from the link's origin, R times the file's offset (`None`:
            // the origin itself).
            let offset = (com != [0.0; 3]).then(|| {
                self.binary(
                    BinOp::Mul,
                    self.name(&format!("{id}_R")),
                    self.vector(com, Some(Si::Metre)),
                )
            });
            let c = self.total([Some(self.name(&format!("{id}_p"))), offset.clone()]);
            out.push(self.let_(&format!("{id}_c"), c.expect("a position")));
            let Some(inertial) = inertial.filter(|i| i.mass > 0.0 || i.tensor != [[0.0; 3]; 3])
            else {
                continue;
            };
            // A link that does not move adds constants to the energies: left out, as
            // Pinocchio leaves it out.
            if !moves[l] {
                continue;
            }
            let m = inertial.mass;
            let c = || self.name(&format!("{id}_c"));
            // The centre of mass from o.
            let r = self.total([from_o[l].clone(), offset]);
            let mut body = Body {
                link: l,
                reference: reference[l],
                mass: m,
                from_o: r.clone(),
                velocity: None,
                spin: None,
            };
            if m > 0.0 {
                // m g c_z
                let height = Expr::Index {
                    base: Box::new(c()),
                    indices: vec![Index {
                        value: 2,
                        span: self.span,
                    }],
                    close: self.span,
                };
                let weight = self.binary(
                    BinOp::Mul,
                    self.number(m, Some(Si::Kilogram)),
                    self.name("g"),
                );
                potential.push(self.binary(BinOp::Mul, weight, height));
                // ċ = v + ω × r: v, the velocity of the link's point at o, and ω have
                // velocity Jacobians that are the same for every link below a joint.
                let turning = omega[l]
                    .clone()
                    .zip(r)
                    .map(|(w, r)| self.call("cross", vec![w, r]));
                if let Some(v) = self.total([velocity[l].clone(), turning]) {
                    let speed = self.call("inner", vec![v.clone(), v.clone()]);
                    let half = self.number(m / 2.0, Some(Si::Kilogram));
                    kinetic.push(self.binary(BinOp::Mul, half, speed));
                    body.velocity = Some(v);
                }
            }
            if inertial.tensor != [[0.0; 3]; 3] {
                if let Some(w) = omega[l].clone() {
                    let spin = self.spin(id, &inertial.tensor, &w);
                    kinetic.extend(self.rotational_energy(&spin));
                    body.spin = Some(spin);
                }
            }
            bodies.push(body);
        }
        let kinetic = self.sum(kinetic);
        out.push(self.let_("urdf_kinetic", kinetic));
        let potential = self.sum(potential);
        out.push(self.let_("urdf_potential", potential));
        bodies
    }

    /// The centroidal `let`s, of the links that move (as Pinocchio's, whose bodies fixed
    /// to the world are part of the universe; and as `urdf_potential`, which is then
    /// `urdf_mass * g * urdf_com[2]`): `urdf_mass` Σ m, `urdf_com` Σ (m / urdf_mass) L_c
    /// (whose Jacobian's rows are sums of the links' own, which `jacobians` has), and
    /// `urdf_momentum` Σ m ċ and `urdf_angular_momentum` Σ m (c − o) × ċ − ρ ×
    /// urdf_momentum + Σ R I Rᵀ ω with ρ = Σ (m / urdf_mass) (c − o) = urdf_com − o, the
    /// angular momentum about `urdf_com` in world axes. The velocities ċ and the
    /// rotational terms are the kinetic energy's ([`Body`]), and every lever is measured
    /// from o, the reference point of the velocities (`Kinematics::reference`), never as a
    /// difference of positions from the world's origin: the momenta and the Jacobians do
    /// not depend on where the robot stands (`urdf_com`'s value is rounded as the L_c
    /// are, to ε of the distance). A robot whose reference points differ (links that move below two links
    /// fixed to the world) takes the first's, the others' levers shifted by the constant
    /// between them. Without mass that moves there is no centre of mass: `urdf_com` is not
    /// declared (`urdf::splice` says why where the model names it), and the angular
    /// momentum, with no linear momentum, is the same about every point.
    fn centroidal(&self, tree: &Tree, bodies: &[Body], out: &mut Vec<Statement>) {
        let link_id = &tree.link_id;
        let origin = |l: usize| self.name(&format!("{}_p", link_id[l]));
        let total: f64 = bodies.iter().map(|b| b.mass).sum();
        out.push(self.let_("urdf_mass", self.number(total, Some(Si::Kilogram))));
        let massive = || bodies.iter().filter(|b| b.mass > 0.0);
        // Each centre of mass from the first body's reference point o.
        let o = massive().next().map(|b| b.reference);
        let lever = |b: &Body| -> Option<Expr> {
            let o = o.expect("a body with mass");
            let shift =
                (b.reference != o).then(|| self.binary(BinOp::Sub, origin(b.reference), origin(o)));
            self.total([shift, b.from_o.clone()])
        };
        // ρ = urdf_com − o.
        let rho = || {
            self.total(massive().map(|b| {
                lever(b).map(|r| self.binary(BinOp::Mul, self.number(b.mass / total, None), r))
            }))
        };
        if o.is_some() {
            // Σ (m / urdf_mass) L_c: the rows of its Jacobian are sums of those of the
            // links' centres of mass, which `jacobians` computes anyway.
            let com = self.total(massive().map(|b| {
                Some(self.binary(
                    BinOp::Mul,
                    self.number(b.mass / total, None),
                    self.name(&format!("{}_c", link_id[b.link])),
                ))
            }));
            out.push(self.let_("urdf_com", com.expect("a body with mass")));
        }
        let momentum = self.total(massive().map(|b| {
            let v = b.velocity.clone()?;
            Some(self.binary(BinOp::Mul, self.number(b.mass, Some(Si::Kilogram)), v))
        }));
        let moving = momentum.is_some();
        let momentum =
            momentum.unwrap_or_else(|| self.vector([0.0; 3], Some(Si::KilogramMetrePerSecond)));
        out.push(self.let_("urdf_momentum", momentum));
        // Σ m (c − o) × ċ − ρ × p, and the links' own.
        let mut angular: Vec<Expr> = massive()
            .filter_map(|b| {
                let arm = self.call("cross", vec![lever(b)?, b.velocity.clone()?]);
                Some(self.binary(BinOp::Mul, self.number(b.mass, Some(Si::Kilogram)), arm))
            })
            .collect();
        if let Some(rho) = rho().filter(|_| moving) {
            let shift = self.call("cross", vec![rho, self.name("urdf_momentum")]);
            angular.push(Expr::Neg {
                minus: self.span,
                operand: Box::new(shift),
            });
        }
        for b in bodies {
            if let Some(spin) = &b.spin {
                angular.extend(self.rotational_momentum(&link_id[b.link], spin));
            }
        }
        let angular = self
            .total(angular.into_iter().map(Some))
            .unwrap_or_else(|| self.vector([0.0; 3], Some(Si::KilogramMetreSquaredPerSecond)));
        out.push(self.let_("urdf_angular_momentum", angular));
    }

    /// `urdf_dissipation`: ½ Σ damping q̇².
    fn dissipation(&self, tree: &Tree, out: &mut Vec<Statement>) {
        let Tree {
            joints,
            ref order,
            ref joint_id,
            ..
        } = *tree;
        let mut dissipation = Vec::new();
        for &j in order {
            let joint = &joints[j];
            let Some(motion) = joint.kind.motion() else {
                continue;
            };
            if joint.damping == 0.0 {
                continue;
            }
            let unit = motion.damping();
            let rate = self.binary(
                BinOp::Pow,
                self.call("dot", vec![self.name(&joint_id[j])]),
                self.number(2.0, None),
            );
            let half = self.binary(
                BinOp::Div,
                self.number(joint.damping, Some(unit)),
                self.number(2.0, None),
            );
            dissipation.push(self.binary(BinOp::Mul, half, rate));
        }
        let dissipation = self.sum(dissipation);
        out.push(self.let_("urdf_dissipation", dissipation));
    }

    /// The constraints: the floating base's unit quaternion, and mimic joints.
    fn constraints(&self, tree: &Tree, out: &mut Vec<Statement>) -> Result<(), Failure> {
        let Tree {
            joints,
            ref order,
            ref joint_id,
            floating,
            ..
        } = *tree;
        if floating {
            let squares = ["base_qw", "base_qx", "base_qy", "base_qz"]
                .map(|n| self.binary(BinOp::Pow, self.name(n), self.number(2.0, None)));
            let norm = self.sum(squares.into());
            out.push(Statement::Constraint {
                name: self.ident("base_unit"),
                value: self.binary(BinOp::Sub, norm, self.number(1.0, None)),
            });
        }
        // Mimic joints: each follows the joint it names (`mimic::leaders`).
        let leader = leaders(joints)?;
        for &j in order {
            let joint = &joints[j];
            let (Some((_, multiplier, offset)), Some(o)) = (&joint.mimic, leader[j]) else {
                continue;
            };
            // q = multiplier · q_leader + offset: the multiplier converts the leader's
            // unit into the follower's (m/rad for a prismatic joint following a revolute
            // one), the offset is in the follower's.
            let (Some(follower), Some(leading)) = (joint.kind.motion(), joints[o].kind.motion())
            else {
                unreachable!("`mimic::leaders` pairs joints that have coordinates")
            };
            let per = follower.per(leading);
            let unit = follower.offset();
            let followed = self.binary(
                BinOp::Mul,
                self.number(*multiplier, per),
                self.name(&joint_id[o]),
            );
            let target = self.binary(BinOp::Add, followed, self.number(*offset, unit));
            let name = format!("mimic_{}", joint_id[j]);
            out.push(Statement::Constraint {
                name: self.ident(&name),
                value: self.binary(BinOp::Sub, self.name(&joint_id[j]), target),
            });
        }
        Ok(())
    }
}

/// The nonzero pivots d_k and columns l_k of I = L D Lᵀ (L unit lower triangular) that a
/// link's rotational terms are written with ([`Writer::spin`]), `None` when the tensor has
/// no such factorization or its factors overflow `f64` (a tiny pivot under large entries
/// can make them; the tensor itself is finite).
fn inertia_factors(tensor: &Matrix) -> Option<Vec<(f64, [f64; 3])>> {
    let factor = unit_ldlt(tensor)?;
    let finite = factor
        .iter()
        .all(|(d, l)| (d / 2.0).is_finite() && l.iter().all(|x| x.is_finite()));
    finite.then(|| factor.into_iter().filter(|&(d, _)| d != 0.0).collect())
}

/// The tree as [`Writer::centroidal`] wrote the momenta from the kinematics
/// ([`Writer::frames`]) and the bodies ([`Writer::energies`]): the links in the order of
/// their frames, each joint with its coordinate's index (the floating base's seven first,
/// then the joints that have one in the walk's order, as [`Writer::declarations`]), and
/// each body's rotational terms as [`Writer::spin`] factors them.
fn robot_tree(tree: &Tree, kinematics: &Kinematics, bodies: &[Body]) -> RobotTree {
    let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut index = vec![usize::MAX; tree.links.len()];
    for (k, &l) in kinematics.frames.iter().enumerate() {
        index[l] = k;
    }
    let com = |l: usize| tree.links[l].inertial.as_ref().map_or([0.0; 3], |i| i.xyz);
    let mut links = vec![TreeLink {
        name: tree.link_id[tree.root].clone(),
        com: com(tree.root),
        parent: 0,
        joint: TreeJoint::Root,
        xyz: [0.0; 3],
        rpy: None,
    }];
    let mut coordinate = if tree.floating { 7 } else { 0 };
    for &j in &tree.order {
        let joint = &tree.joints[j];
        let origin = rpy_matrix(joint.rpy);
        let along = apply(&origin, joint.axis);
        let kind = match joint.kind.motion() {
            Some(Motion::Turn) => TreeJoint::Revolute {
                coordinate,
                axis: joint.axis,
                along,
            },
            Some(Motion::Slide) => TreeJoint::Prismatic { coordinate, along },
            None => TreeJoint::Fixed,
        };
        if joint.kind.motion().is_some() {
            coordinate += 1;
        }
        debug_assert_eq!(index[joint.child], links.len());
        links.push(TreeLink {
            name: tree.link_id[joint.child].clone(),
            com: com(joint.child),
            parent: index[joint.parent],
            joint: kind,
            xyz: joint.xyz,
            rpy: (origin != identity).then_some(origin),
        });
    }
    let bodies = bodies
        .iter()
        .map(|b| {
            let inertial = tree.links[b.link].inertial.as_ref();
            let tensor = inertial.map_or([[0.0; 3]; 3], |i| i.tensor);
            TreeBody {
                link: index[b.link],
                mass: b.mass,
                com: inertial.map_or([0.0; 3], |i| i.xyz),
                inertia: b
                    .spin
                    .as_ref()
                    .map(|_| inertia_factors(&tensor).ok_or(tensor)),
            }
        })
        .collect();
    RobotTree {
        floating: tree.floating,
        links,
        bodies,
    }
}
