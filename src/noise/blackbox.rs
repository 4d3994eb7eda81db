//! Stated guarantees as building blocks: a mechanism known only by the guarantee its owner states.
//!
//! * `dp:epsilon=E,delta=D` — an (ε, δ)-DP mechanism. Every (ε, δ)-DP mechanism is dominated by the
//!   four-point pair [KOV15, §3, proof of Thm 3.3]
//!
//!     A = (δ, (1 − δ) e^ε/(1 + e^ε), (1 − δ)/(1 + e^ε), 0),   B = (0, (1 − δ)/(1 + e^ε), (1 − δ) e^ε/(1 + e^ε), δ),   (1)
//!
//!   whose privacy loss is +∞ (A-mass δ), +ε, −ε, −∞ (B-mass δ); it is symmetric and the composition of
//!   such pairs is the optimal composition of the stated guarantees [KOV15]. The result is the exact
//!   profile of that worst case: a certified *bound* on the real mechanism's (`is_bound`).
//! * `zcdp:rho=R` — a ρ-zCDP mechanism [BS16, Def. 1.1]. No single pair dominates every ρ-zCDP
//!   mechanism, so it has no loss law here: a composition holding one is accounted through its total ρ
//!   (zCDP composes additively [BS16, Lemma 2.3]) and the optimal conversion [CKS20, Prop. 12]
//!   (`account::laws`). Subsampling is refused (zCDP has no general amplification by subsampling).
//! * `zcdp:rho=R,xi=X` — approximate (ξ, ρ)-zCDP, D_α ≤ ξ + ρα for every α > 1 [BS16, Def. 1.1; dp_accounting's
//!   `ZCDpEvent`]: known only by that bound on its Rényi divergences, so a composition holding one is
//!   accounted through Rényi divergences on dp_accounting's orders (`account::rdp_bound`), a certified
//!   bound. ξ = 0 is `zcdp:rho=R`.
//!
//! Both hold under whatever neighbour relation they were stated for: one record's change is one copy.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, FiniteLaw, LossLaw, LossRange, Split};
use crate::noise::neighbors::Neighbors;
use crate::num::format::fmt_rational;
use crate::num::Interval;
use crate::{err, fallible};
use rug::Rational;
use std::sync::Arc;

/// An (ε, δ)-DP mechanism by its stated guarantee, ε > 0, 0 ≤ δ < 1.
#[derive(Clone, Debug)]
pub struct ApproxDp {
    eps: Rational,
    delta: Rational,
}

impl ApproxDp {
    pub fn new(eps: Rational, delta: Rational) -> Fallible<ApproxDp> {
        if eps <= 0 {
            return fallible!(Input, "an (epsilon, delta)-DP mechanism needs epsilon > 0 here, got {eps} (epsilon = 0 states (0, delta): give a small positive epsilon)");
        }
        if !(Rational::from(0)..Rational::from(1)).contains(&delta) {
            return fallible!(Input, "an (epsilon, delta)-DP mechanism needs 0 <= delta < 1, got {delta}");
        }
        Ok(ApproxDp { eps, delta })
    }

    /// `dp:epsilon=E[,delta=D]` (δ = 0 by default: pure ε-DP).
    pub fn from_params(p: &mut crate::noise::params::Params) -> Fallible<ApproxDp> {
        let eps = p.positive("epsilon")?;
        let delta = match p.take("delta") {
            Some(v) => crate::num::parse_rational(&v).map_err(|e| e.context(format!("mechanism '{}': delta", p.spec())))?,
            None => Rational::from(0),
        };
        ApproxDp::new(eps, delta)
    }

    /// The A- and B-masses of (1) at the losses +ε and −ε.
    fn masses(&self, prec: u32) -> [(Interval, Interval); 2] {
        let e = Interval::from_rational(&self.eps, prec).exp();
        let keep = Interval::from_rational(&(Rational::from(1) - self.delta.clone()), prec);
        let z = e.add(&Interval::one(prec));
        let big = keep.mul(&e).div(&z);
        let small = keep.div(&z);
        [(big.clone(), small.clone()), (small, big)]
    }
}

impl LossLaw for ApproxDp {
    fn spec(&self) -> String {
        format!("dp:epsilon={},delta={}", fmt_rational(&self.eps), fmt_rational(&self.delta))
    }

    fn symmetric(&self) -> bool {
        true
    }

    /// At δ = 0 the pair (1) is binary randomized response with the same ε: its two atoms' finite sum
    /// (`noise::mgf_atoms`). With δ > 0 the loss +∞ has mass δ: no moment generating function.
    fn mgf(&self) -> Option<crate::noise::mgf::Mgf> {
        if self.delta != 0 {
            return None;
        }
        let rr = crate::noise::rr::RandomizedResponse::new(self.eps.clone(), 2).ok()?;
        Some(crate::noise::mgf::Mgf::RandomizedResponse(rr))
    }

    /// With δ > 0: the pair (1) given a finite loss is the pure guarantee's, with probability 1 − δ in both
    /// directions (A's +∞ and B's −∞ outputs have mass δ each, and the rest of each is (1 − δ) times the pure
    /// pair's).
    fn finite_part(&self) -> Option<(Arc<dyn LossLaw>, Rational)> {
        if self.delta == 0 {
            return None;
        }
        let pure = ApproxDp::new(self.eps.clone(), Rational::new()).ok()?;
        Some((Arc::new(pure), Rational::from(1) - self.delta.clone()))
    }

    fn split(&self, _dir: Direction, l: &Rational, prec: u32) -> Fallible<Split> {
        let [(at, bt), (ab, bb)] = self.masses(prec + 8);
        Ok(Split::of_atoms([(self.eps.clone(), at, bt), (-self.eps.clone(), ab, bb)], l, prec + 8))
    }

    fn infinite(&self, _dir: Direction, prec: u32) -> Fallible<(Interval, Interval)> {
        let d = Interval::from_rational(&self.delta, prec);
        Ok((d.clone(), d))
    }

    fn infinite_exact(&self, _dir: Direction) -> Option<(Rational, Rational)> {
        Some((self.delta.clone(), self.delta.clone()))
    }

    /// The atoms ±ε of (1) and the masses δ at ±∞.
    fn finite(&self, _dir: Direction, prec: u32) -> Option<Fallible<FiniteLaw>> {
        let [(at, bt), (ab, bb)] = self.masses(prec);
        let d = Interval::from_rational(&self.delta, prec);
        let e = Interval::from_rational(&self.eps, prec);
        let atoms = vec![(e.clone(), at, bt), (e.neg(), ab, bb)];
        Some(Ok(FiniteLaw { atoms, a_inf: d.clone(), b_neg_inf: d, mirrored: true }))
    }

    fn range(&self, _dir: Direction) -> LossRange {
        LossRange {
            lo: End::Atom(Interval::from_rational(&-self.eps.clone(), 128)),
            hi: End::Atom(Interval::from_rational(&self.eps, 128)),
        }
    }

    fn quantile(&self, _dir: Direction, ln_p: f64, upper: bool) -> f64 {
        let e = self.eps.to_f64();
        let keep = 1.0 - self.delta.to_f64();
        crate::noise::loss::two_atom_quantile(e, (keep * e.exp() / (1.0 + e.exp())).ln(), (keep / (1.0 + e.exp())).ln(), ln_p, upper)
    }

    fn lattice(&self) -> Option<Rational> {
        Some(self.eps.clone())
    }

    /// Pure ε-DP is ε²/2-zCDP [BS16, Prop. 1.4]; with δ > 0 there is no ρ.
    fn rho(&self) -> Option<Rational> {
        if self.delta == 0 {
            Some(Rational::from(&self.eps * &self.eps) / 2u32)
        } else {
            None
        }
    }

    fn pure_epsilon(&self) -> Option<Rational> {
        if self.delta == 0 {
            Some(self.eps.clone())
        } else {
            None
        }
    }

    fn shifts(&self, _neighbors: Neighbors) -> Fallible<u64> {
        Ok(1)
    }

    fn is_bound(&self) -> bool {
        true
    }
}

/// A (ξ, ρ)-zCDP mechanism by its stated guarantee (no loss law; see the module doc): ρ-zCDP at ξ = 0.
#[derive(Clone, Debug)]
pub struct Zcdp {
    rho: Rational,
    xi: Rational,
}

impl Zcdp {
    #[cfg(test)]
    pub fn new(rho: Rational) -> Fallible<Zcdp> {
        Zcdp::approximate(rho, Rational::new())
    }

    /// (ξ, ρ)-zCDP: D_α ≤ ξ + ρα for every α > 1, ξ ≥ 0.
    pub fn approximate(rho: Rational, xi: Rational) -> Fallible<Zcdp> {
        if rho <= 0 {
            return fallible!(Input, "a zCDP mechanism needs rho > 0, got {rho}");
        }
        if xi < 0 {
            return fallible!(Input, "an approximate zCDP mechanism needs xi >= 0, got {xi}");
        }
        Ok(Zcdp { rho, xi })
    }

    /// `zcdp:rho=R[,xi=X]`.
    pub fn from_params(p: &mut crate::noise::params::Params) -> Fallible<Zcdp> {
        let rho = p.positive("rho")?;
        let xi = match p.take("xi") {
            None => Rational::new(),
            Some(v) => crate::num::parse_rational(v.trim())
                .ok()
                .filter(|x| *x >= 0)
                .ok_or_else(|| err!(Input, "mechanism '{}': xi must be a number >= 0, got '{v}'", p.spec()))?,
        };
        Zcdp::approximate(rho, xi)
    }

    fn no_loss_law(&self) -> crate::error::Error {
        err!(Declined, "{}: a zCDP guarantee has no privacy-loss law; it is accounted through its rho", self.spec())
    }
}

impl LossLaw for Zcdp {
    fn spec(&self) -> String {
        if self.xi == 0 {
            format!("zcdp:rho={}", fmt_rational(&self.rho))
        } else {
            format!("zcdp:rho={},xi={}", fmt_rational(&self.rho), fmt_rational(&self.xi))
        }
    }

    fn symmetric(&self) -> bool {
        true
    }

    crate::noise::loss::without_loss_law!();

    /// ρ of a ρ-zCDP guarantee; none for ξ > 0 (not ρ-zCDP for any ρ).
    fn rho(&self) -> Option<Rational> {
        (self.xi == 0).then(|| self.rho.clone())
    }

    /// ξ + ρα, the stated bound, where ξ > 0 (ξ = 0 is accounted through ρ).
    fn renyi(&self, _dir: Direction, alpha: &Rational, prec: u32) -> Option<Fallible<Interval>> {
        (self.xi > 0).then(|| Ok(Interval::from_rational(&(self.xi.clone() + self.rho.clone() * alpha), prec)))
    }

    fn shifts(&self, _neighbors: Neighbors) -> Fallible<u64> {
        Ok(1)
    }

    fn is_bound(&self) -> bool {
        true
    }

    fn rho_only(&self) -> bool {
        self.xi == 0
    }

    fn rdp_only(&self) -> bool {
        self.xi > 0
    }

    /// Exact or approximate, a zCDP guarantee has no general amplification by subsampling.
    fn not_subsampled(&self) -> Option<String> {
        Some("a zCDP guarantee (zCDP has no general amplification by subsampling); give the subsampled mechanism itself".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// (1) by hand at ε = 1, δ = 1/10: A-masses 1/10, 0.9e/(1+e), 0.9/(1+e); its hockey-stick divergence at
    /// ε is exactly δ (the pair is (ε, δ)-DP and no better): A[+∞] + (A(ε) − e^ε B(ε)) = δ + 0.
    #[test]
    fn the_pair_is_the_stated_guarantee() {
        let m = ApproxDp::new(q("1"), q("1/10")).unwrap();
        let e = 1f64.exp();
        let s = m.split(Direction::Remove, &q("0"), 128).unwrap();
        assert!((s.a_above.to_f64() - 0.9 * e / (1.0 + e)).abs() < 1e-15);
        assert!((s.b_above.to_f64() - 0.9 / (1.0 + e)).abs() < 1e-15);
        assert!((s.a_below.to_f64() - 0.9 / (1.0 + e)).abs() < 1e-15);
        let (inf_a, inf_b) = m.infinite(Direction::Remove, 128).unwrap();
        assert!((inf_a.to_f64() - 0.1).abs() < 1e-16 && (inf_b.to_f64() - 0.1).abs() < 1e-16);
        // masses sum to one on each side
        let tot = s.a_above.add(&s.a_below).add(&inf_a);
        assert!(*tot.lo() <= 1 && *tot.hi() >= 1 && tot.hi().to_f64() - tot.lo().to_f64() < 1e-30);
        assert_eq!(m.rho(), None);
        assert_eq!(ApproxDp::new(q("1/2"), q("0")).unwrap().rho(), Some(q("1/8")));
        assert!(ApproxDp::new(q("0"), q("0")).is_err() && ApproxDp::new(q("1"), q("1")).is_err());
        assert!(Zcdp::new(q("0")).is_err());
        let z = Zcdp::new(q("1/2")).unwrap();
        assert!(z.rho_only() && z.split(Direction::Remove, &q("0"), 64).is_err());
        assert!(z.renyi(Direction::Remove, &q("2"), 64).is_none() && !z.rdp_only());
    }

    /// (ξ, ρ)-zCDP: D_α = ξ + ρα exactly as stated (ξ = 1/10, ρ = 1/8: 1/10 + 3/16 at α = 3/2), known by
    /// that bound only; ξ < 0 refused.
    #[test]
    fn approximate_zcdp_is_its_renyi_bound() {
        let z = Zcdp::approximate(q("1/8"), q("1/10")).unwrap();
        assert!(z.rdp_only() && !z.rho_only() && z.rho().is_none() && z.is_bound());
        let d = z.renyi(Direction::Add, &q("3/2"), 128).unwrap().unwrap();
        let want = rug::Float::with_val(256, &q("23/80"));
        assert!(d.contains(&want) && d.hi().to_f64() - d.lo().to_f64() < 1e-30, "{}", d.to_f64());
        assert_eq!(z.spec(), "zcdp:rho=1/8,xi=1/10");
        assert!(Zcdp::approximate(q("1/8"), q("-1/10")).is_err());
    }
}
