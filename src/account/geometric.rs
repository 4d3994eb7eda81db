//! Compositions of sensitivity-1 counts with two-sided geometric noise of pure-DP parameters ε_j = r_j
//! (SafeTab's geometric variant, [HSM21]): the exact ε(δ) from the lattice of their privacy losses
//! (`pld::pure`, no truncation), as a [`Certified`] value — so that the mechanisms above `account` get it
//! from the accountant, not from the engine.

use super::certified::{Certified, Engine, Trust};
use crate::error::Fallible;
use crate::num::Interval;
use crate::pld::pure::PurePld;
use rug::Rational;

/// One group of identical geometric counts: m counts with parameter ε = r.
pub use crate::pld::pure::GeoComponent;

/// ε(δ) of the composition of the counts `comps` (ε_j = r_j exactly), certified to the working precision
/// `prec`: the exact law of the privacy loss on its lattice (MPFR intervals, nothing truncated), inverted
/// by certified bisection.
pub fn epsilon(comps: &[GeoComponent], delta: &Rational, prec: u32) -> Fallible<Certified> {
    let pld = PurePld::build(comps, &Interval::one(prec), prec)?;
    let iv = pld.epsilon(delta)?;
    let counts: u64 = comps.iter().map(|g| g.m as u64).sum();
    let detail = format!("exact lattice of {counts} geometric counts ({} entries), {prec} bits", pld.pmf.len());
    Certified::new(iv, Engine::Lattice, Trust::Exact, detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    /// One count of parameter 1: randomized response, ε(δ) = ln(e − δ(1 + e)) in closed form.
    #[test]
    fn one_count_closed_form() {
        let d = parse_rational("0.1").unwrap();
        let c = epsilon(&[GeoComponent { r: Rational::from(1), m: 1 }], &d, 128).unwrap();
        let e1 = 1f64.exp();
        let want = (e1 - 0.1 * (1.0 + e1)).ln();
        assert!(c.lo().to_f64() <= want + 1e-15 && want - 1e-15 <= c.hi().to_f64(), "{} vs {want}", c.describe());
        assert!(c.digits() >= 30, "{}", c.describe());
        assert_eq!((c.engine(), c.trust()), (Engine::Lattice, Trust::Exact));
    }
}
