//! [`Scalar`], the number types a model's terms and the linear algebra are evaluated in: a
//! leaf, so that [`terms`](crate::terms) and [`linalg`](crate::linalg) both read it and
//! neither imports the other's reader. Public as `lagrange_runtime::model::Scalar`.

use num_dual::DualNum;

/// A number the model's expressions can be evaluated in: `f64`, or any num-dual dual
/// number over `f64` (nested ones included).
///
/// Implemented for every such type; you never implement it yourself.
pub trait Scalar: DualNum<Primitive = f64> + Copy {}

impl<T: DualNum<Primitive = f64> + Copy> Scalar for T {}
