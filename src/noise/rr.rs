//! k-ary randomized response with parameter ε: each record reports its own value with probability
//! e^ε/(e^ε + k − 1) and each other value with probability 1/(e^ε + k − 1) [War65], [KOV16, §2].
//!
//! Neighbours differ in one record's value (the replace relation: the pair A = RR(x), B = RR(x′), x ≠ x′,
//! is the whole mechanism). With Z = e^ε + k − 1 the privacy loss takes three values:
//!
//!   ε  (report x):  A-mass e^ε/Z, B-mass 1/Z;     −ε (report x′): A-mass 1/Z, B-mass e^ε/Z;
//!   0  (any of the k − 2 other values): A- and B-mass (k − 2)/Z,                                   (1)
//!
//! so one report is ε-DP (pure) and ε²/2-zCDP [BS16, Prop. 1.4]; the law is symmetric.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::num::Interval;
use rug::Rational;

/// k-ary randomized response with an exact rational ε > 0.
#[derive(Clone, Debug)]
pub struct RandomizedResponse {
    eps: Rational,
    k: u64,
}

/// Largest number of values k.
pub const MAX_K: u64 = 1 << 40;

impl RandomizedResponse {
    pub fn new(eps: Rational, k: u64) -> Fallible<RandomizedResponse> {
        if eps <= 0 {
            return crate::fallible!(Input, "randomized response needs epsilon > 0, got {eps}");
        }
        if !(2..=MAX_K).contains(&k) {
            return crate::fallible!(Input, "randomized response needs k between 2 and {MAX_K} values, got {k}");
        }
        Ok(RandomizedResponse { eps, k })
    }

    /// `rr:epsilon=E[,k=K]` (k = 2 by default).
    pub fn from_params(p: &mut crate::noise::registry::Params) -> Fallible<RandomizedResponse> {
        let eps = p.positive("epsilon")?;
        let k = match p.take("k") {
            Some(v) => {
                v.trim().parse::<u64>().map_err(|_| crate::err!(Input, "mechanism '{}': k must be an integer >= 2, got '{v}'", p.spec()))?
            }
            None => 2,
        };
        RandomizedResponse::new(eps, k)
    }

    /// The three (A-mass, B-mass) pairs of (1) at losses ε, 0, −ε.
    fn masses(&self, prec: u32) -> [(Interval, Interval); 3] {
        let e = Interval::from_rational(&self.eps, prec).exp();
        let z = e.add(&Interval::from_rational(&Rational::from(self.k - 1), prec));
        let one = Interval::one(prec).div(&z);
        let top = e.div(&z);
        let mid = Interval::from_rational(&Rational::from(self.k - 2), prec).div(&z);
        [(top.clone(), one.clone()), (mid.clone(), mid), (one, top)]
    }
}

impl LossLaw for RandomizedResponse {
    fn spec(&self) -> String {
        format!("rr:epsilon={},k={}", crate::num::format::fmt_rational(&self.eps), self.k)
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let [(at, bt), (am, bm), (ab, bb)] = self.masses(prec + 8);
        let atoms = [(self.eps.clone(), at, bt), (Rational::from(0), am, bm), (-self.eps.clone(), ab, bb)];
        Ok(Split::of_atoms(atoms, l, prec + 8))
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        LossRange {
            lo: End::Atom(Interval::from_rational(&-self.eps.clone(), 128)),
            hi: End::Atom(Interval::from_rational(&self.eps, 128)),
        }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let e = self.eps.to_f64();
        let z = e.exp() + (self.k - 1) as f64;
        // A[L ≥ ε] = e^ε/Z, A[L < −ε]… the bottom atom 1/Z
        crate::noise::loss::two_atom_quantile(e, (e.exp() / z).ln(), (1.0 / z).ln(), ln_p, upper)
    }

    fn lattice(&self) -> Option<Rational> {
        Some(self.eps.clone())
    }

    fn rho(&self) -> Option<Rational> {
        Some(Rational::from(&self.eps * &self.eps) / 2u32)
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        Some(self.eps.clone())
    }

    /// One report per record: the pair above is the replace pair; add/remove is not defined for it.
    fn shifts(&self, neighbors: Neighbors) -> Fallible<u64> {
        match neighbors {
            Neighbors::Replace => Ok(1),
            Neighbors::AddRemove => crate::fallible!(
                Input,
                "{}: randomized response is accounted under replace neighbours (one record's value changes); give --neighbors replace",
                self.spec()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// (1) at ε = ln 3 ≈ 1.0986 is not rational; at ε = 1, k = 3: Z = e + 2, the masses by hand.
    #[test]
    fn masses_are_the_response_probabilities() {
        let rr = RandomizedResponse::new(q("1"), 3).unwrap();
        let z = 1f64.exp() + 2.0;
        let s = rr.split(Direction::Remove, &q("0"), 128).unwrap();
        // losses 0 and 1 are at or above 0: A-mass (e + 1)/Z, B-mass 2/Z
        assert!((s.a_above.to_f64() - (1f64.exp() + 1.0) / z).abs() < 1e-15);
        assert!((s.b_above.to_f64() - 2.0 / z).abs() < 1e-15);
        assert!((s.a_below.to_f64() - 1.0 / z).abs() < 1e-15);
        let top = rr.split(Direction::Remove, &q("1"), 128).unwrap();
        assert!((top.a_above.to_f64() - 1f64.exp() / z).abs() < 1e-15 && (top.b_above.to_f64() - 1.0 / z).abs() < 1e-15);
        assert_eq!(rr.shifts(Neighbors::Replace).unwrap(), 1);
        assert!(rr.shifts(Neighbors::AddRemove).is_err());
        assert!(RandomizedResponse::new(q("0"), 2).is_err() && RandomizedResponse::new(q("1"), 1).is_err());
    }
}
