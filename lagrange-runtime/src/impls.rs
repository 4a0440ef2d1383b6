//! The blanket impls that make every [`Model`] a [`Dynamics`], a
//! [`Constrained<N, M, K>`](Constrained) with its own K and a [`ConstraintSolver`].
//!
//! `Dynamics` and `ConstraintSolver` are implemented for every `T: Model<N, M>`, so that
//! generic code bounded on `Model<N, M>` alone calls `accelerations` or `project`: the
//! methods that need K as a const parameter (the constrained solver's matrices are K × N)
//! run the K-generic functions of `constrained.rs` through
//! [`ConstraintCount::with`](crate::model::ConstraintCount::with), which for
//! [`Count<K>`](Count), the only count, is an inlined call with that K: the same
//! monomorphized code as a where clause naming K. `Constrained<N, M, K>` names K in its
//! type, so its impl reads it from `Constraints = Count<K>`.
//!
//! The names are the model's: `Dynamics`'s and `Constrained`'s constants are defined here,
//! and only here, from [`Model`]'s (the one place a model declares them, in the code
//! `lagrangian!` generates or by hand).

use crate::constrained::{self, Stabilization, Violation};
use crate::dynamics::{Constrained, ConstraintSolver, Dynamics};
use crate::eval;
use crate::model::{ConstraintCount, Count, Model, Point, WithCount};
use crate::{DynamicsError, State};
use nalgebra::{SMatrix, SVector};

/// A computation at a state `s` with inputs `u` that calls a function of `constrained.rs`
/// generic over K with the model's own K ([`ConstraintCount::with`]): the struct that
/// carries its arguments and its [`WithCount`] impl.
macro_rules! with_model_count {
    ($(#[$doc:meta])* $name:ident { $($arg:ident: $ty:ty),* } -> $out:ty = $f:ident) => {
        $(#[$doc])*
        struct $name<'a, T, const N: usize, const M: usize> {
            model: &'a T,
            s: &'a State<N>,
            u: &'a SVector<f64, M>,
            $($arg: $ty,)*
        }

        impl<T: Model<N, M>, const N: usize, const M: usize> WithCount for $name<'_, T, N, M> {
            type Output = $out;
            #[inline]
            fn run<const K: usize>(self) -> Self::Output {
                constrained::$f::<T, N, M, K>(self.model, self.s, self.u $(, self.$arg)*)
            }
        }
    };
}

with_model_count!(
    /// [`constrained::accelerations`], stabilized or not.
    Accelerations { stabilization: Option<Stabilization> }
        -> Result<SVector<f64, N>, DynamicsError> = accelerations
);
with_model_count!(
    /// [`constrained::check_on_constraints`].
    CheckStart {} -> Result<(), DynamicsError> = check_on_constraints
);
with_model_count!(
    /// [`constrained::project`].
    Project { hold: &'a [usize], tolerance: f64 }
        -> Result<State<N>, DynamicsError> = project
);
with_model_count!(
    /// [`constrained::violation`].
    ViolationAt {} -> Violation = violation
);
with_model_count!(
    /// [`constrained::reaction_forces`].
    ReactionForces {} -> Result<SVector<f64, N>, DynamicsError> = reaction_forces
);

impl<T: Model<N, M>, const N: usize, const M: usize> Dynamics<N, M> for T {
    const COORDINATES: [&'static str; N] = T::COORDINATES;
    const INPUTS: [&'static str; M] = T::INPUTS;
    const UNITS: Option<crate::Units<N, M>> = T::UNITS;

    fn lagrangian(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        eval::lagrangian(self, s, u)
    }
    fn kinetic_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.eval_energies(&Point::new(s, u)).kinetic
    }
    fn potential_energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.eval_energies(&Point::new(s, u)).potential
    }
    fn dissipation(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        self.eval_dissipation(&Point::new(s, u))
    }
    fn energy(&self, s: &State<N>, u: &SVector<f64, M>) -> f64 {
        eval::energy(self, s, u)
    }
    fn momenta(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        eval::momenta(self, s, u)
    }
    fn mass_matrix(&self, s: &State<N>, u: &SVector<f64, M>) -> SMatrix<f64, N, N> {
        eval::mass_matrix(self, s, u)
    }
    fn generalized_forces(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, N> {
        eval::generalized_forces(self, s, u)
    }
    fn accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        T::Constraints::with(Accelerations {
            model: self,
            s,
            u,
            stabilization: None,
        })
    }
    fn inverse_dynamics(
        &self,
        s: &State<N>,
        qdd: &SVector<f64, N>,
        u: &SVector<f64, M>,
    ) -> SVector<f64, N> {
        eval::inverse_dynamics(self, s, qdd, u)
    }
    fn check_start(&self, s: &State<N>, u: &SVector<f64, M>) -> Result<(), DynamicsError> {
        if T::Constraints::K == 0 {
            Ok(())
        } else {
            T::Constraints::with(CheckStart { model: self, s, u })
        }
    }
}

impl<T, const N: usize, const M: usize, const K: usize> Constrained<N, M, K> for T
where
    T: Model<N, M, Constraints = Count<K>>,
{
    const CONSTRAINTS: [&'static str; K] = crate::model::names(T::CONSTRAINT_NAMES);

    fn constraint_residuals(&self, s: &State<N>, u: &SVector<f64, M>) -> SVector<f64, K> {
        constrained::residuals::<T, N, M, K>(self, s, u)
    }

    fn multipliers(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, K>, DynamicsError> {
        constrained::solution::<T, N, M, K>(self, s, u, None).map(|r| r.multipliers)
    }
}

impl<T: Model<N, M>, const N: usize, const M: usize> ConstraintSolver<N, M> for T {
    fn stabilized_accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        stabilization: Stabilization,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        T::Constraints::with(Accelerations {
            model: self,
            s,
            u,
            stabilization: Some(stabilization),
        })
    }

    fn project(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        hold: &[usize],
        tolerance: f64,
    ) -> Result<State<N>, DynamicsError> {
        T::Constraints::with(Project {
            model: self,
            s,
            u,
            hold,
            tolerance,
        })
    }

    fn violation(&self, s: &State<N>, u: &SVector<f64, M>) -> Violation {
        T::Constraints::with(ViolationAt { model: self, s, u })
    }

    fn reaction_forces(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        T::Constraints::with(ReactionForces { model: self, s, u })
    }
}
