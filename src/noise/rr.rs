//! k-ary randomized response with parameter ε: each record reports its own value with probability
//! e^ε/(e^ε + k − 1) and each other value with probability 1/(e^ε + k − 1) [War65], [KOV16, §2].
//!
//! Neighbours differ in one record's value (the replace relation: the pair A = RR(x), B = RR(x′), x ≠ x′,
//! is the whole mechanism). With Z = e^ε + k − 1 the privacy loss takes three values:
//!
//!   ε  (report x):  A-mass e^ε/Z, B-mass 1/Z;     −ε (report x′): A-mass 1/Z, B-mass e^ε/Z;
//!   0  (any of the k − 2 other values): A- and B-mass (k − 2)/Z,                                   (1)
//!
//! so one report is ε-DP (pure) and ε²/2-zCDP [BS16, Prop. 1.4]; the law is symmetric. Given instead the
//! probability p of reporting the own value (`rr:keep=P`; dp_accounting's `RandomizedResponseDpEvent` with
//! noise parameter λ keeps with p = 1 − λ(k − 1)/k), the same three atoms hold with e^ε/Z = p and
//! 1/Z = (1 − p)/(k − 1), at the losses ±ln r, r = p(k − 1)/(1 − p): exact rational masses, transcendental
//! losses (no lattice, no rational ρ).

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, FiniteLaw, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::num::Interval;
use rug::Rational;

/// How the report's probability is given: by ε (own value e^ε/Z, losses ±ε exact) or by the keep
/// probability p (own value p, each other value (1 − p)/(k − 1); losses ±ln r, r = p(k − 1)/(1 − p), a
/// transcendental number enclosed to any precision).
#[derive(Clone, Debug, PartialEq)]
enum Param {
    Epsilon(Rational),
    Keep(Rational),
}

/// k-ary randomized response with an exact rational ε > 0 or keep probability p ∈ (1/k, 1).
#[derive(Clone, Debug, PartialEq)]
pub struct RandomizedResponse {
    param: Param,
    k: u64,
}

/// Largest number of values k.
pub const MAX_K: u64 = 1 << 40;

impl RandomizedResponse {
    pub fn new(eps: Rational, k: u64) -> Fallible<RandomizedResponse> {
        if eps <= 0 {
            return crate::fallible!(Input, "randomized response needs epsilon > 0, got {eps}");
        }
        Self::check_k(k)?;
        Ok(RandomizedResponse { param: Param::Epsilon(eps), k })
    }

    /// Randomized response that reports the own value with probability `keep` (each other value with
    /// probability (1 − keep)/(k − 1)).
    pub fn with_keep(keep: Rational, k: u64) -> Fallible<RandomizedResponse> {
        Self::check_k(k)?;
        if !(keep > (1, k) && keep < 1) {
            return crate::fallible!(
                Input,
                "randomized response needs a keep probability in (1/k, 1) = (1/{k}, 1), got {} (at 1/k the report carries no information, at 1 it is the value itself)",
                crate::num::format::fmt_rational(&keep)
            );
        }
        Ok(RandomizedResponse { param: Param::Keep(keep), k })
    }

    fn check_k(k: u64) -> Fallible<()> {
        if !(2..=MAX_K).contains(&k) {
            return crate::fallible!(Input, "randomized response needs k between 2 and {MAX_K} values, got {k}");
        }
        Ok(())
    }

    /// `rr:epsilon=E[,k=K]` or `rr:keep=P[,k=K]` (k = 2 by default).
    pub fn from_params(p: &mut crate::noise::params::Params) -> Fallible<RandomizedResponse> {
        let k = match p.take("k") {
            Some(v) => {
                v.trim().parse::<u64>().map_err(|_| crate::err!(Input, "mechanism '{}': k must be an integer >= 2, got '{v}'", p.spec()))?
            }
            None => 2,
        };
        match p.positive_any(&["epsilon", "keep"])? {
            Some((key, x)) if key == "keep" => RandomizedResponse::with_keep(x, k),
            Some((_, x)) => RandomizedResponse::new(x, k),
            None => {
                crate::fallible!(Input, "mechanism '{}': missing epsilon (or keep, the probability of reporting the own value)", p.spec())
            }
        }
    }

    /// The three (A-mass, B-mass) pairs of (1) at losses ℓ₁, 0, −ℓ₁.
    pub(super) fn masses(&self, prec: u32) -> [(Interval, Interval); 3] {
        let (top, one) = match &self.param {
            Param::Epsilon(eps) => {
                let e = Interval::from_rational(eps, prec).exp();
                let z = e.add(&Interval::from_rational(&Rational::from(self.k - 1), prec));
                (e.div(&z), Interval::one(prec).div(&z))
            }
            Param::Keep(p) => {
                let other = (1 - p.clone()) / Rational::from(self.k - 1);
                (Interval::from_rational(p, prec), Interval::from_rational(&other, prec))
            }
        };
        let mid = Interval::from_rational(&Rational::from(self.k - 2), prec).mul(&one);
        [(top.clone(), one.clone()), (mid.clone(), mid), (one, top)]
    }

    /// r = e^{ℓ₁} exactly, for the keep probability: p(k − 1)/(1 − p) > 1.
    fn ratio(p: &Rational, k: u64) -> Rational {
        (p * Rational::from(k - 1)) / (1 - p.clone())
    }

    /// The top loss ℓ₁ enclosed (ε, or ln r).
    pub(super) fn top_loss(&self, prec: u32) -> Interval {
        match &self.param {
            Param::Epsilon(eps) => Interval::from_rational(eps, prec),
            Param::Keep(p) => Interval::from_rational(&Self::ratio(p, self.k), prec).ln(),
        }
    }

    /// True if ℓ₁ ≥ ℓ for ℓ > 0: exact for ε; for the keep probability e^ℓ against r, refined until the
    /// enclosure decides (e^ℓ is transcendental for rational ℓ ≠ 0, so it never equals r).
    fn top_at_or_above(&self, l: &Rational) -> Fallible<bool> {
        match &self.param {
            Param::Epsilon(eps) => Ok(eps >= l),
            Param::Keep(p) => {
                let r = Self::ratio(p, self.k);
                let mut prec = 128;
                while prec <= 1 << 16 {
                    let e = Interval::from_rational(l, prec).exp();
                    let ri = Interval::from_rational(&r, prec);
                    if e.hi() < ri.lo() {
                        return Ok(true);
                    }
                    if e.lo() > ri.hi() {
                        return Ok(false);
                    }
                    prec *= 4;
                }
                crate::fallible!(Internal, "randomized response: e^{l} and {r} not separated at 65536 bits")
            }
        }
    }
}

impl LossLaw for RandomizedResponse {
    /// The three atoms' finite sum (`noise::mgf_atoms`), for compositions with decaying laws.
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        Some(crate::noise::mgf::Mgf::RandomizedResponse(self.clone()))
    }

    fn spec(&self) -> String {
        match &self.param {
            Param::Epsilon(eps) => format!("rr:epsilon={},k={}", crate::num::format::fmt_rational(eps), self.k),
            Param::Keep(p) => format!("rr:keep={},k={}", crate::num::format::fmt_rational(p), self.k),
        }
    }

    fn symmetric(&self) -> bool {
        true
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let p = prec + 8;
        let [(at, bt), (am, bm), (ab, bb)] = self.masses(p);
        // which atoms (at ℓ₁, 0, −ℓ₁) are at or above ℓ: by symmetry −ℓ₁ ≥ ℓ ⟺ ℓ₁ ≤ −ℓ
        let (top, mid, bottom) = if *l > 0 {
            (self.top_at_or_above(l)?, false, false)
        } else if *l == 0 {
            (true, true, false)
        } else {
            let m = Rational::from(-l);
            (true, true, !self.top_at_or_above(&m)? || matches!(&self.param, Param::Epsilon(e) if *e == m))
        };
        Ok(Split::of_sides([(top, at, bt), (mid, am, bm), (bottom, ab, bb)], p))
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        Ok((Interval::zero(prec), Interval::zero(prec)))
    }

    /// The atoms ℓ₁, 0 (k > 2) and −ℓ₁ with their masses; nothing at ±∞.
    fn finite(&self, _dir: Direction, prec: u32) -> Option<Fallible<FiniteLaw>> {
        let [(at, bt), (am, bm), (ab, bb)] = self.masses(prec);
        let t = self.top_loss(prec);
        let mut atoms = vec![(t.clone(), at, bt)];
        if self.k > 2 {
            atoms.push((Interval::zero(prec), am, bm));
        }
        atoms.push((t.neg(), ab, bb));
        Some(Ok(FiniteLaw { atoms, a_inf: Interval::zero(prec), b_neg_inf: Interval::zero(prec), mirrored: true }))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        let t = self.top_loss(128);
        LossRange { lo: End::Atom(t.neg()), hi: End::Atom(t) }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let e = self.top_loss(64).to_f64();
        let [(at, _), _, (ab, _)] = self.masses(64);
        // A[L ≥ ℓ₁] the top atom, A[L < −ℓ₁]… the bottom atom
        crate::noise::loss::two_atom_quantile(e, at.to_f64().ln(), ab.to_f64().ln(), ln_p, upper)
    }

    fn lattice(&self) -> Option<Rational> {
        match &self.param {
            Param::Epsilon(eps) => Some(eps.clone()),
            Param::Keep(_) => None,
        }
    }

    fn log_lattice(&self) -> Option<Rational> {
        match &self.param {
            Param::Epsilon(_) => None,
            Param::Keep(p) => Some(Self::ratio(p, self.k)),
        }
    }

    fn rho(&self) -> Option<Rational> {
        match &self.param {
            Param::Epsilon(eps) => Some(Rational::from(eps * eps) / 2u32),
            Param::Keep(_) => None,
        }
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        match &self.param {
            Param::Epsilon(eps) => Some(eps.clone()),
            Param::Keep(_) => None,
        }
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

    /// The keep law: exact masses on the right sides of splits around its transcendental losses ±ln r.
    #[test]
    fn keep_probability_matches_epsilon() {
        // keep = 3/4, k = 3: r = (3/4)(2)/(1/4) = 6, ℓ₁ = ln 6 ≈ 1.7918; masses 3/4, 1/8, 1/8
        let rr = RandomizedResponse::with_keep(q("3/4"), 3).unwrap();
        let s = rr.split(Direction::Remove, &q("179/100"), 128).unwrap(); // below ln 6
        assert!((s.a_above.to_f64() - 0.75).abs() < 1e-15 && (s.b_above.to_f64() - 0.125).abs() < 1e-15);
        let s = rr.split(Direction::Remove, &q("9/5"), 128).unwrap(); // above ln 6
        assert_eq!(s.a_above.to_f64(), 0.0);
        // −1.79 lies above −ln 6: the bottom atom (A-mass 1/8) is below it; −1.8 lies below every atom
        let s = rr.split(Direction::Remove, &q("-179/100"), 128).unwrap();
        assert!((s.a_below.to_f64() - 0.125).abs() < 1e-15 && (s.b_below.to_f64() - 0.75).abs() < 1e-15);
        let s = rr.split(Direction::Remove, &q("-9/5"), 128).unwrap();
        assert!((s.a_above.to_f64() - 1.0).abs() < 1e-15 && s.a_below.to_f64() == 0.0);
        let s = rr.split(Direction::Remove, &q("0"), 128).unwrap(); // the middle atom is at 0, above
        assert!((s.a_below.to_f64() - 0.125).abs() < 1e-15 && (s.b_below.to_f64() - 0.75).abs() < 1e-15);
        assert!(rr.lattice().is_none() && rr.rho().is_none());
        assert_eq!(rr.spec(), "rr:keep=3/4,k=3");
        for (p, k) in [("1/3", 3), ("1", 2), ("1/4", 3)] {
            let e = RandomizedResponse::with_keep(q(p), k).unwrap_err().to_string();
            assert!(e.contains("keep probability in (1/k, 1)"), "{e}");
        }
    }
}
