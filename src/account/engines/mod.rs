//! The engines, one file each.
//!
//! * [`atoms`] — laws with finitely many losses on one lattice (randomized response, stated (ε, δ)
//!   pairs), composed exactly.
//! * [`laplace_sum`] — n releases of Laplace mechanisms with one ε₀, as an exact finite sum.
//! * [`tilted`] — laws with a certified moment generating function (the Poisson-subsampled Gaussian, with
//!   Gaussians), by a tilted Fourier inversion whose cost does not grow with the number of releases.

pub mod atoms;
pub mod laplace_sum;
pub mod tilted;

#[cfg(test)]
use crate::num::Interval;
#[cfg(test)]
use rug::Float;

#[cfg(test)]
/// The bracket meets the reference's rounding interval (± half a unit of its last printed digit).
pub(crate) fn holds(x: &Interval, want: &str) -> bool {
    let p = x.prec();
    let w = Float::with_val(p, Float::parse(want).unwrap());
    let last = want.split(['e', 'E']).next().unwrap().rsplit('.').next().map_or(0, |f| f.len() as i32);
    let exp = want.split(['e', 'E']).nth(1).map_or(0, |e| e.parse::<i32>().unwrap());
    let ulp = Float::with_val(p, 10f64.powi(exp - last) * 0.5000001);
    let r = Interval::new(Float::with_val(p, &w - &ulp), Float::with_val(p, &w + &ulp));
    x.overlaps(&r)
}
