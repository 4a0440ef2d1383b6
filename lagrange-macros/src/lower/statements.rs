//! The statements' meaning: energies, forces and torques by virtual power, constraints
//! (holonomic or affine in the velocities), with the errors of what they depend on
//! spanned on the smallest sub-expression at fault.

use super::{Constraint, Contact, Degree, Force, Lowerer, Shape};
use crate::ast::{Expr, Extent, Statement};
use crate::check::{key, Symbol};
use crate::ir::{Deps, Id, Ir, Op};
use syn::Ident;

impl<'a> Lowerer<'_, 'a, '_> {
    pub(super) fn energy(&mut self, e: &Expr) -> Option<Id> {
        Some(self.expr(e)?.elems[0])
    }

    pub(super) fn force(&mut self, force: &Expr, point: &Expr, out: &mut Vec<Force>) {
        let (f, p) = (self.expr(force), self.expr(point));
        let (Some(f), Some(p)) = (f, p) else { return };
        let deps = self.deps_of(&p);
        let problem = if deps.has(Deps::QD) {
            "a force acts on a position, which cannot depend on velocities: `force F on p` needs p(q, t)"
        } else if deps.has(Deps::U) {
            "a force acts on a position p(q, t), which cannot depend on inputs (the force itself may)"
        } else if !deps.has(Deps::Q) {
            "this position does not depend on any coordinate, so the force does no virtual work\n= help: a torque on an angle is `force tau on theta;`"
        } else {
            ""
        };
        if !problem.is_empty() {
            return self.errors.spanning(point.extent(), problem);
        }
        let at = point.extent();
        for (&f, &p) in f.elems.iter().zip(&p.elems) {
            let velocity = self.node(Op::Dot(p), at);
            push_force(&self.ir, out, f, velocity);
        }
    }

    /// `contact name = p;` or `contact name = frame(R, p);`: p a position p(q, t), R a
    /// rotation that moves; at least one of them moves with the coordinates.
    pub(super) fn contact(
        &mut self,
        name: &Ident,
        rotation: Option<&Expr>,
        point: &Expr,
        out: &mut Vec<Contact>,
    ) {
        let p = self.expr(point);
        let r = rotation.map(|r| (r, self.expr(r)));
        let Some(p) = p else { return };
        let deps = self.deps_of(&p);
        let problem = if deps.has(Deps::QD) {
            "a contact point is a position, which cannot depend on velocities: `contact name = p;` needs p(q, t)"
        } else if deps.has(Deps::U) {
            "a contact point is a position p(q, t), which cannot depend on inputs"
        } else {
            ""
        };
        if !problem.is_empty() {
            return self.errors.spanning(point.extent(), problem);
        }
        let mut elems = Vec::new();
        let mut velocity = Vec::new();
        let mut moves = deps.has(Deps::Q);
        if let Some((rotation, r)) = r {
            let Some(r) = r else { return };
            if !self.moving_rotation(rotation, &r, "a frame contact is on") {
                return;
            }
            moves |= self.deps_of(&r).has(Deps::Q);
            let omega = self.angular_velocity(&r.elems, false, rotation.extent());
            elems.extend(&omega.elems);
            velocity.extend([true; 3]);
        }
        if !moves {
            let at = match rotation {
                Some(r) => Extent(r.first_span(), point.last_span()),
                None => point.extent(),
            };
            return self.errors.spanning(
                at,
                format!(
                    "contact `{name}` does not move with any coordinate, so it constrains nothing"
                ),
            );
        }
        elems.extend(&p.elems);
        velocity.extend([false; 3]);
        let at = point.extent();
        let velocities = elems
            .iter()
            .zip(&velocity)
            .map(|(&e, &at_velocity)| {
                if at_velocity {
                    e
                } else {
                    self.node(Op::Dot(e), at)
                }
            })
            .collect();
        out.push(Contact {
            name: name.clone(),
            elems,
            velocity,
            velocities,
        });
    }

    pub(super) fn torque(
        &mut self,
        keyword: &Ident,
        torque: &Expr,
        rotation: &Expr,
        out: &mut Vec<Force>,
    ) {
        let (tau, r) = (self.expr(torque), self.expr(rotation));
        let (Some(tau), Some(r)) = (tau, r) else {
            return;
        };
        if !self.moving_rotation(rotation, &r, "a torque acts on") {
            return;
        }
        if !self.deps_of(&r).has(Deps::Q) {
            return self.errors.spanning(
                rotation.extent(),
                format!("this rotation does not depend on any coordinate, so the `{keyword}` does no virtual work"),
            );
        }
        let omega = self.angular_velocity(&r.elems, false, rotation.extent());
        for (&t, &w) in tau.elems.iter().zip(&omega.elems) {
            push_force(&self.ir, out, t, w);
        }
    }

    pub(super) fn constraint(&mut self, name: &Ident, e: &Expr, out: &mut Vec<Constraint>) {
        let Some(v) = self.expr(e) else { return };
        let plain = key(name);
        let names: Vec<String> = match v.shape {
            Shape::Vector(n) => (0..n).map(|k| format!("{plain}[{k}]")).collect(),
            _ => vec![plain],
        };
        let mut nonlinear = None;
        for (&id, element) in v.elems.iter().zip(names) {
            let (deps, degree) = (self.ir.deps(id), self.degree[id]);
            if deps.has(Deps::U) {
                let at = match self.site(e, &|deps, _| deps.has(Deps::U)) {
                    Site::Here(at) | Site::Let(_, at, _) => at,
                };
                self.errors.spanning(
                    at,
                    format!("constraint `{element}` depends on an input: constraints may depend on coordinates, velocities and time only"),
                );
                return;
            }
            if !deps.has(Deps::Q) && !deps.has(Deps::QD) {
                self.errors.spanning(
                    e.extent(),
                    format!("constraint `{element}` does not depend on any coordinate or velocity\n= help: a constraint restricts the coordinates, as in `constraint rod = x^2 + y^2 - l^2;`"),
                );
                return;
            }
            if matches!(degree, Degree::Nonlinear(_)) {
                nonlinear = nonlinear.or(Some(element.clone()));
            }
            out.push(Constraint {
                name: element,
                value: id,
                holonomic: !deps.has(Deps::QD),
            });
        }
        if let Some(element) = nonlinear {
            self.not_affine(&element, e);
        }
    }

    /// Reports a constraint that is not affine in the velocities at the smallest
    /// sub-expression that makes it so (and inside the `let` it comes through).
    fn not_affine(&mut self, name: &str, e: &Expr) {
        let message = format!("constraint `{name}` is not affine in the velocities: a nonholonomic constraint must have the form A(q, t)·q̇ + b(q, t)\n= note: products of velocities, division by them, and powers and functions of them are not allowed; a holonomic constraint is written without `dot`");
        let nonlinear = |_, degree| matches!(degree, Degree::Nonlinear(_));
        match self.site(e, &nonlinear) {
            Site::Here(at) => self.errors.spanning(at, message),
            Site::Let(let_name, used, inner) => {
                self.errors.spanning(used, message);
                self.errors.spanning(
                    inner,
                    format!("`{let_name}` is not affine in the velocities because of this"),
                );
            }
        }
    }

    /// Whether some element of `e` satisfies `property`. Lowering again adds no node and
    /// no error: the graph is hash-consed and `e` was lowered without error.
    fn holds(&mut self, e: &Expr, property: &Property) -> bool {
        self.expr(e).is_some_and(|v| {
            v.elems
                .iter()
                .any(|&x| property(self.ir.deps(x), self.degree[x]))
        })
    }

    /// The smallest sub-expression of `e` (which has `property`) that has it while none of
    /// its parts does, or the use of a `let` that has it, with the place inside the let.
    /// A loop, not recursion: the descent follows `let`s into their definitions, and a chain
    /// of them is as long as the model.
    fn site<'x>(&mut self, e: &'x Expr, property: &Property) -> Site
    where
        'a: 'x,
    {
        let mut e = e;
        // The first `let` the descent entered: its name and use.
        let mut entered: Option<(String, Extent)> = None;
        let finish = |entered: Option<(String, Extent)>, at: Extent| match entered {
            Some((name, used)) => Site::Let(name, used, at),
            None => Site::Here(at),
        };
        loop {
            let children: Vec<&'x Expr> = match e {
                Expr::Number(_) => vec![],
                Expr::Name(ident) => {
                    let value = match self.c.symbol(ident) {
                        Some(Symbol::Let(i)) => {
                            match &self.c.model.statements[self.c.let_statement[i]] {
                                Statement::Let { value, .. } => Some(value),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match (value, entered.is_some()) {
                        // A second `let` on the way: the place inside the first is its use.
                        (Some(_), true) | (None, _) => return finish(entered, e.extent()),
                        (Some(value), false) => {
                            entered = Some((ident.to_string(), e.extent()));
                            e = value;
                            continue;
                        }
                    }
                }
                Expr::Neg { operand: x, .. }
                | Expr::Paren { inner: x, .. }
                | Expr::Index { base: x, .. }
                | Expr::Component { base: x, .. }
                | Expr::Quantity { value: x, .. } => vec![x],
                Expr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
                Expr::Call { args, .. } => args.iter().collect(),
                Expr::List { items, .. } => items.iter().collect(),
            };
            match children
                .into_iter()
                .find(|child| self.holds(child, property))
            {
                Some(child) => e = child,
                None => return finish(entered, e.extent()),
            }
        }
    }
}

/// Where a constraint stops being affine.
enum Site {
    Here(Extent),
    /// Through a `let`: its name, its use, and the place in its definition.
    Let(String, Extent, Extent),
}

/// A property of a node, by what it depends on and how it depends on the velocities.
type Property = dyn Fn(Deps, Degree) -> bool;

/// A force whose force or velocity is structurally zero does no work and is left out.
fn push_force(ir: &Ir, out: &mut Vec<Force>, force: Id, velocity: Id) {
    let zero = |id: Id| ir.op(id).literal() == Some(0.0);
    if !zero(force) && !zero(velocity) {
        out.push(Force { force, velocity });
    }
}
