//! The exact privacy-loss distribution of a composition of pure-DP geometric counts, on its loss lattice,
//! without truncation.
//!
//! For a sensitivity-1 count with two-sided geometric noise of parameter ε (pmf ∝ e^{−ε|y|}) the privacy
//! loss ln p(o)/q(o) is +ε with probability 1/(1+e^{−ε}) and −ε otherwise (o ≤ 0 vs o ≥ 1): the mechanism
//! is exactly randomized response in f-DP terms (SafeTab's geometric variant, [HSM21], composes such
//! counts). A composition of such counts has loss L = Σ ±ε_j; with ε_j = c·r_j (r_j rational) it lives
//! on the lattice c·h·ℤ, h the common step of the r_j, and its law is a finite convolution of binomials —
//! computed here with certified intervals, no truncation at all. δ(ε) = E_P[(1 − e^{ε−L})₊]
//! ([SSW24, Lemma A.9]), ε(δ) by the certified bisection of `pld::search`.
//!
//! The accountant reaches it through `account::geometric` (the modules above `account` do not call an
//! engine).

use crate::error::Fallible;
use crate::num::Interval;
use crate::pld::frame::common_step;
use crate::{err, fallible};
use rug::float::Round;
use rug::ops::{AddAssignRound, AssignRound};
use rug::{Float, Rational};

/// Most lattice entries a composition may span (the convolution is quadratic in it).
pub const MAX_SPAN: f64 = 5e7;

/// One group of identical geometric counts: m counts with parameter ε = c·r.
#[derive(Clone, Debug)]
pub struct GeoComponent {
    pub r: Rational,
    pub m: u32,
}

/// The exact law of the privacy loss L = unit·K (K integer) of a composition of geometric counts, with
/// its suffix sums Σ_{j≥i} P[j] and Σ_{j≥i} P[j] e^{−unit·j} (outward rounded, summed from the top), so
/// that δ(ε) costs O(log N) instead of one exponential per lattice point above ε.
#[derive(Clone, Debug)]
pub struct PurePld {
    pub unit: Interval,
    pub min: i64,
    pub pmf: Vec<Interval>,
    tail_p: Vec<Interval>,
    tail_pe: Vec<Interval>,
}

impl PurePld {
    /// Compose `comps` with ε_j = c·r_j (c > 0 an enclosed constant, e.g. 1 or ln 20).
    pub fn build(comps: &[GeoComponent], c: &Interval, prec: u32) -> Fallible<PurePld> {
        let comps: Vec<&GeoComponent> = comps.iter().filter(|g| g.m > 0).collect();
        if comps.is_empty() {
            return fallible!(Input, "no geometric counts to compose");
        }
        if comps.iter().any(|g| g.r <= 0) {
            return fallible!(Input, "geometric parameters must be positive");
        }
        let (h, w) = common_step(&comps.iter().map(|g| g.r.clone()).collect::<Vec<_>>());
        let span: f64 = comps.iter().zip(&w).map(|(g, wi)| 2.0 * g.m as f64 * wi.to_f64()).sum();
        if span > MAX_SPAN {
            return Err(err!(Declined, "loss lattice would need {span:.0} entries; parameters not commensurate").over_limits());
        }
        let unit = c.mul(&Interval::from_rational(&h, prec));
        let mut acc = (0i64, vec![Interval::one(prec)]);
        for (g, wi) in comps.iter().zip(&w) {
            let wi = wi.to_i64().ok_or_else(|| err!(Declined, "lattice weight too large").over_limits())?;
            let eps = c.mul(&Interval::from_rational(&g.r, prec));
            // P[+] = 1/(1+e^{−ε}), P[−] = e^{−ε}/(1+e^{−ε})
            let one = Interval::one(prec);
            let en = eps.neg().exp();
            let pp = one.div(&one.add(&en));
            let pm = en.div(&one.add(&en));
            // binomial law of #plus
            let m = g.m as i64;
            let mut binom = Vec::with_capacity(m as usize + 1);
            let mut coef = Rational::from(1);
            for j in 0..=m {
                let v = Interval::from_rational(&coef, prec).mul(&pp.powu(j as u32)).mul(&pm.powu((m - j) as u32));
                binom.push(v);
                coef = coef * Rational::from(m - j) / Rational::from(j + 1);
            }
            // value of this block: wi·(2j − m)
            let new_min = acc.0 - wi * m;
            let new_len = acc.1.len() + (2 * wi * m) as usize;
            let mut lo = vec![Float::with_val(prec, 0); new_len];
            let mut hi = vec![Float::with_val(prec, 0); new_len];
            // in place, through one scratch product each way: the same roundings as a fresh Float per
            // product and sum, without an allocation per term (malloc and free were a third of the time)
            let (mut l, mut u) = (Float::new(prec), Float::new(prec));
            for (j, bj) in binom.iter().enumerate() {
                let off = (2 * wi * j as i64) as usize;
                for (i, a) in acc.1.iter().enumerate() {
                    l.assign_round(a.lo() * bj.lo(), Round::Down);
                    u.assign_round(a.hi() * bj.hi(), Round::Up);
                    let k = i + off;
                    lo[k].add_assign_round(&l, Round::Down);
                    hi[k].add_assign_round(&u, Round::Up);
                }
            }
            acc = (new_min, lo.into_iter().zip(hi).map(|(l, u)| Interval::new(l, u)).collect());
        }
        let (min, pmf) = acc;
        let n = pmf.len();
        let mut tail_p = vec![Interval::zero(prec); n + 1];
        let mut tail_pe = vec![Interval::zero(prec); n + 1];
        for i in (0..n).rev() {
            let l = unit.mul(&Interval::from_i64(min + i as i64, prec));
            tail_p[i] = tail_p[i + 1].add(&pmf[i]);
            tail_pe[i] = tail_pe[i + 1].add(&pmf[i].mul(&l.neg().exp()));
        }
        Ok(PurePld { unit, min, pmf, tail_p, tail_pe })
    }

    /// Loss at lattice index i (enclosed).
    fn loss(&self, i: usize) -> Interval {
        self.unit.mul(&Interval::from_i64(self.min + i as i64, self.prec()))
    }

    fn prec(&self) -> u32 {
        self.unit.prec()
    }

    /// δ(ε) = Σ_{k: unit·k > ε} P[k](1 − e^{ε − unit·k}): the lattice points certainly above ε through the
    /// suffix sums, Σ P − e^ε Σ P e^{−l} (each term non-negative, so the lower end is clamped at 0); the
    /// few whose enclosed loss straddles ε (unit not exactly representable) term by term, clamped at 0.
    pub fn delta(&self, eps: &Rational) -> Interval {
        let p = self.prec();
        let e = Interval::from_rational(eps, p);
        let n = self.pmf.len();
        // first index whose loss is certainly above ε (losses increase with the index)
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let m = (lo + hi) / 2;
            if self.loss(m).lo() > e.hi() {
                hi = m;
            } else {
                lo = m + 1;
            }
        }
        let first = lo;
        let mut acc = self.tail_p[first].sub(&e.exp().mul(&self.tail_pe[first]));
        let zero = Float::with_val(p, 0);
        if *acc.lo() < 0 {
            acc = Interval::new(zero.clone(), acc.into_parts().1.max(&zero));
        }
        for i in (0..first).rev() {
            let l = self.loss(i);
            if l.hi() <= e.lo() {
                break;
            }
            let term = Interval::one(p).sub(&e.sub(&l).exp());
            let term = if *term.lo() < 0 { Interval::new(zero.clone(), term.into_parts().1.max(&zero)) } else { term };
            acc = acc.add(&self.pmf[i].mul(&term));
        }
        acc
    }

    /// Pure-DP bound: the largest loss with positive probability.
    pub fn max_loss(&self) -> Interval {
        let mut i = self.pmf.len() - 1;
        while i > 0 && *self.pmf[i].hi() == 0 {
            i -= 1;
        }
        self.unit.mul(&Interval::from_i64(self.min + i as i64, self.prec()))
    }

    /// ε(δ), certified: bisection on exact rationals with certain comparisons only
    /// (`pld::search::bisect_epsilon`); δ(ε) = 0 beyond the largest loss, which starts the search.
    pub fn epsilon(&self, delta: &Rational) -> Fallible<Interval> {
        let p = self.prec();
        let top = self.max_loss().into_parts().1;
        let start =
            Rational::from_f64(top.to_f64().max(1e-300) * 2.0 + 1e-12).ok_or_else(|| err!(Declined, "maximal loss out of range"))?;
        let rel = 2f64.powi(-(p.min(1000) as i32 - 16)).max(1e-300);
        crate::pld::search::bisect_epsilon(&|e: &Rational| self.delta(e), delta, &start, rel, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    fn q(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    /// One count: the profile of randomized response, δ(ε') = (e^ε − e^{ε'})/(1 + e^ε) for ε' < ε.
    #[test]
    fn single_count_is_randomized_response() {
        let pld = PurePld::build(&[GeoComponent { r: q("1"), m: 1 }], &Interval::one(128), 128).unwrap();
        let d = pld.delta(&q("0.5")).to_f64();
        let e1 = 1f64.exp();
        assert!((d - (e1 - 0.5f64.exp()) / (1.0 + e1)).abs() < 1e-14);
        assert!(*pld.delta(&q("1")).hi() == 0);
        assert!((pld.max_loss().to_f64() - 1.0).abs() < 1e-30);
        let eps = pld.epsilon(&q("0.1")).unwrap().to_f64();
        assert!((eps - (e1 - 0.1 * (1.0 + e1)).ln()).abs() < 1e-12);
    }

    /// Two counts with different ε against a brute-force sum over the four loss outcomes.
    #[test]
    fn two_counts_brute_force() {
        let pld =
            PurePld::build(&[GeoComponent { r: q("0.3"), m: 1 }, GeoComponent { r: q("0.5"), m: 2 }], &Interval::one(128), 128).unwrap();
        let pe = |e: f64| 1.0 / (1.0 + (-e).exp());
        let eps = 0.4;
        let mut d = 0.0;
        for s1 in [-1.0, 1.0] {
            for s2 in [-1.0, 1.0] {
                for s3 in [-1.0, 1.0] {
                    let l: f64 = s1 * 0.3 + s2 * 0.5 + s3 * 0.5;
                    let pr =
                        [(s1, 0.3), (s2, 0.5), (s3, 0.5)].iter().map(|&(s, e)| if s > 0.0 { pe(e) } else { 1.0 - pe(e) }).product::<f64>();
                    if l > eps {
                        d += pr * (1.0 - (eps - l).exp());
                    }
                }
            }
        }
        assert!((pld.delta(&q("0.4")).to_f64() - d).abs() < 1e-14);
    }

    /// Refusals are typed: bad parameters are the caller's (`Input`), a lattice too large for this engine
    /// is `Declined` (settling as a resource limit).
    #[test]
    fn refusals_are_typed() {
        use crate::error::ErrorKind;
        let one = Interval::one(64);
        let e = PurePld::build(&[], &one, 64).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Input);
        let e = PurePld::build(&[GeoComponent { r: q("-1"), m: 1 }], &one, 64).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Input);
        // steps 1/10^9 and 1: 2·10^9 entries per count
        let e = PurePld::build(&[GeoComponent { r: q("1e-9"), m: 1 }, GeoComponent { r: q("1"), m: 1 }], &one, 64).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Declined, "{e}");
    }
}
