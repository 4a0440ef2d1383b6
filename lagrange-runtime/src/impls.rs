//! The blanket impls that make every [`Model`] a [`Dynamics`], a
//! [`Constrained<N, M, K>`](Constrained) with its own K and a [`ConstraintSolver`]: for
//! models whose `Constraints` is `Count<K>` (the only count), K read from the where clause.

use crate::constrained::{self, Stabilization, Violation};
use crate::dynamics::{Constrained, ConstraintSolver, Dynamics};
use crate::eval;
use crate::model::{Count, Model, Point};
use crate::{DynamicsError, State};
use nalgebra::{SMatrix, SVector};

impl<T, const N: usize, const M: usize, const K: usize> Dynamics<N, M> for T
where
    T: Model<N, M, Constraints = Count<K>>,
{
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
        constrained::accelerations::<T, N, M, K>(self, s, u, None)
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
        if K == 0 {
            Ok(())
        } else {
            constrained::check_on_constraints::<T, N, M, K>(self, s, u)
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
        constrained::solve::<T, N, M, K>(self, s, u, None).map(|r| r.multipliers)
    }
}

impl<T, const N: usize, const M: usize, const K: usize> ConstraintSolver<N, M> for T
where
    T: Model<N, M, Constraints = Count<K>>,
{
    fn stabilized_accelerations(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        stabilization: Stabilization,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        constrained::accelerations::<T, N, M, K>(self, s, u, Some(stabilization))
    }

    fn project(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
        hold: &[usize],
        tolerance: f64,
    ) -> Result<State<N>, DynamicsError> {
        constrained::project::<T, N, M, K>(self, s, u, hold, tolerance)
    }

    fn violation(&self, s: &State<N>, u: &SVector<f64, M>) -> Violation {
        constrained::violation::<T, N, M, K>(self, s, u)
    }

    fn reaction_forces(
        &self,
        s: &State<N>,
        u: &SVector<f64, M>,
    ) -> Result<SVector<f64, N>, DynamicsError> {
        constrained::reaction_forces::<T, N, M, K>(self, s, u)
    }
}
