//! Accounting for the SafeTab mechanisms: RDP on the α grid, zCDP conversions, and the exact privacy
//! profile of compositions of discrete-Laplace (two-sided geometric) counts on a loss lattice.
//!
//! * RDP → (ε, δ): ε = min_α τ(α) + [ln(1/δ) + (α−1)ln(1−1/α) − ln α]/(α−1)
//!   ([HSM21, Lemma 4] eq. 6/40; Canonne–Kamath–Steinke Prop. 12),
//!   α on the grid {1.01, 1.02, …, 10.00} (RE F.2).
//! * Geometric RDP: the exact Rényi divergence of Pr[y] ∝ e^{−ε|y|} against its shift by 1,
//!   D_α = ln[(e^{(α−1)ε} + e^{−αε})/(1+e^{−ε})]/(α−1) (docs/research/safetab-numbers.md §3), and the
//!   paper's eq. (17) for comparison (it is *below* the true divergence: not a valid bound).
//! * Exact profile: for a sensitivity-1 count with geometric noise of parameter ε the privacy loss
//!   ln p(o)/q(o) is +ε with probability 1/(1+e^{−ε}) and −ε otherwise (o ≤ 0 vs o ≥ 1), i.e. the
//!   mechanism is exactly randomized response in f-DP terms. A composition of such counts has loss
//!   L = Σ ±ε_j; with ε_j = c·r_j (r_j rational) it lives on the lattice c·h·ℤ, h the common step of the
//!   r_j, and its law is a finite convolution of binomials — computed with certified intervals, no
//!   truncation at all. δ(ε) = E_P[(1 − e^{ε−L})_+].

use crate::num::Interval;
use crate::pld::compose::common_step;
use rug::float::Round;
use rug::{Float, Rational};

/// The α grid {1.01, …, 10.00} (900 points).
pub fn alpha_grid() -> Vec<Rational> {
    (101..=1000).map(|k| Rational::from((k, 100))).collect()
}

/// Exact RDP of the geometric mechanism (sensitivity 1) at order α.
pub fn tau_geometric_exact(a: &Interval, e: &Interval) -> Interval {
    let p = a.prec();
    let one = Interval::one(p);
    let am1 = a.sub(&one);
    let num = am1.mul(e).exp().add(&a.mul(e).neg().exp());
    let den = one.add(&e.neg().exp());
    num.div(&den).ln().div(&am1)
}

/// The paper's eq. (17)/(29) as printed (integrates the pmf as a density; under-estimates D_α).
pub fn tau_geometric_eq17(a: &Interval, e: &Interval) -> Interval {
    let p = a.prec();
    let one = Interval::one(p);
    let two = Interval::from_i64(2, p);
    let am1 = a.sub(&one);
    let ee = e.exp();
    let f = ee.sub(&one).div(&ee.add(&one));
    let d = e.mul(&two.mul(a).sub(&one));
    let t1 = two.mul(a).div(&d).mul(&am1.mul(e).exp());
    let t2 = two.mul(&am1).div(&d).mul(&a.mul(e).neg().exp());
    f.mul(&t1.add(&t2)).ln().div(&am1)
}

/// CKS conversion of an RDP value τ at order α to ε at δ.
pub fn rdp_to_eps(a: &Interval, tau: &Interval, delta: &Rational) -> Interval {
    let p = a.prec();
    let one = Interval::one(p);
    let am1 = a.sub(&one);
    let l = Interval::from_rational(delta, p).ln().neg();
    let t = one.sub(&one.div(a)).ln().mul(&am1);
    tau.add(&l.add(&t).sub(&a.ln()).div(&am1))
}

/// min over the α grid of `conv(α, f(α))`; returns the certified value at the best grid point and α*.
/// (The value at any α is a valid ε; the minimiser is chosen on midpoints.)
pub fn grid_min(prec: u32, delta: &Rational, f: &(dyn Fn(&Interval) -> Interval + Sync)) -> (Interval, Rational) {
    use rayon::prelude::*;
    // the α are evaluated side by side, the minimum taken in grid order (the first of equal midpoints)
    let values: Vec<(Interval, Rational)> = alpha_grid()
        .into_par_iter()
        .map(|a| {
            let ai = Interval::from_rational(&a, prec);
            (rdp_to_eps(&ai, &f(&ai), delta), a)
        })
        .collect();
    let mut best: Option<(Interval, Rational)> = None;
    for (e, a) in values {
        if best.as_ref().is_none_or(|(b, _)| e.mid() < b.mid()) {
            best = Some((e, a));
        }
    }
    best.unwrap()
}

/// ρ-zCDP → ε at δ on the α grid (RE eq. 7, the "experimental" column of Table 2).
pub fn zcdp_grid_eps(rho: &Rational, delta: &Rational, prec: u32) -> (Interval, Rational) {
    let r = Interval::from_rational(rho, prec);
    grid_min(prec, delta, &|a| a.mul(&r))
}

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
    pub fn build(comps: &[GeoComponent], c: &Interval, prec: u32) -> Result<PurePld, String> {
        let comps: Vec<&GeoComponent> = comps.iter().filter(|g| g.m > 0).collect();
        if comps.is_empty() {
            return Err("no geometric counts to compose".into());
        }
        if comps.iter().any(|g| g.r <= 0) {
            return Err("geometric parameters must be positive".into());
        }
        let (h, w) = common_step(&comps.iter().map(|g| g.r.clone()).collect::<Vec<_>>());
        let span: f64 = comps.iter().zip(&w).map(|(g, wi)| 2.0 * g.m as f64 * wi.to_f64()).sum();
        if span > 5e7 {
            return Err(format!("loss lattice would need {span:.0} entries; parameters not commensurate"));
        }
        let unit = c.mul(&Interval::from_rational(&h, prec));
        let mut acc = (0i64, vec![Interval::one(prec)]);
        for (g, wi) in comps.iter().zip(&w) {
            let wi = wi.to_i64().ok_or("lattice weight too large")?;
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
            for (j, bj) in binom.iter().enumerate() {
                let off = (2 * wi * j as i64) as usize;
                for (i, a) in acc.1.iter().enumerate() {
                    let l = Float::with_val_round(prec, &a.lo * &bj.lo, Round::Down).0;
                    let u = Float::with_val_round(prec, &a.hi * &bj.hi, Round::Up).0;
                    let k = i + off;
                    lo[k] = Float::with_val_round(prec, &lo[k] + &l, Round::Down).0;
                    hi[k] = Float::with_val_round(prec, &hi[k] + &u, Round::Up).0;
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
            if self.loss(m).lo > e.hi {
                hi = m;
            } else {
                lo = m + 1;
            }
        }
        let first = lo;
        let mut acc = self.tail_p[first].sub(&e.exp().mul(&self.tail_pe[first]));
        let zero = Float::with_val(p, 0);
        if acc.lo < 0 {
            acc = Interval::new(zero.clone(), acc.hi.max(&zero).clone());
        }
        for i in (0..first).rev() {
            let l = self.loss(i);
            if l.hi <= e.lo {
                break;
            }
            let term = Interval::one(p).sub(&e.sub(&l).exp());
            let term = if term.lo < 0 { Interval::new(zero.clone(), term.hi.max(&zero).clone()) } else { term };
            acc = acc.add(&self.pmf[i].mul(&term));
        }
        acc
    }

    /// Pure-DP bound: the largest loss with positive probability.
    pub fn max_loss(&self) -> Interval {
        let mut i = self.pmf.len() - 1;
        while i > 0 && self.pmf[i].hi == 0 {
            i -= 1;
        }
        self.unit.mul(&Interval::from_i64(self.min + i as i64, self.prec()))
    }

    /// ε(δ), certified: bisection on exact rationals with certain comparisons only
    /// (`pld::search::bisect_epsilon`); δ(ε) = 0 beyond the largest loss, which starts the search.
    pub fn epsilon(&self, delta: &Rational) -> Result<Interval, String> {
        let p = self.prec();
        let top = self.max_loss().hi;
        let start = Rational::from_f64(top.to_f64().max(1e-300) * 2.0 + 1e-12).ok_or("maximal loss out of range")?;
        let rel = 2f64.powi(-(p.min(1000) as i32 - 16)).max(1e-300);
        Ok(crate::pld::search::bisect_epsilon(&|e: &Rational| self.delta(e), delta, &start, rel, p)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    fn q(s: &str) -> Rational {
        parse_rational(s).unwrap()
    }

    /// Exact RDP formula vs a brute-force sum Σ p(x)^α q(x)^{1−α} (docs/research §3: at α = 5,
    /// ε = 0.427: eq. 17 gives 0.280544, exact 0.306734).
    #[test]
    fn geometric_rdp_values() {
        let p = 128;
        let a = Interval::from_i64(5, p);
        let e = Interval::from_rational(&q("0.427"), p);
        assert!((tau_geometric_exact(&a, &e).to_f64() - 0.306734).abs() < 1e-6);
        assert!((tau_geometric_eq17(&a, &e).to_f64() - 0.280544).abs() < 1e-6);
        // brute force in f64
        let (al, ep) = (5.0f64, 0.427f64);
        let pp = (-ep).exp();
        let c = (1.0 - pp) / (1.0 + pp);
        let s: f64 = (-400i32..400).map(|x| c * pp.powi(x.abs()) * (pp.powi(x.abs()) / pp.powi((x - 1).abs())).powf(al - 1.0)).sum();
        assert!((s.ln() / (al - 1.0) - 0.306734).abs() < 1e-6);
    }

    /// One count: the profile of randomized response, δ(ε') = (e^ε − e^{ε'})/(1 + e^ε) for ε' < ε.
    #[test]
    fn single_count_is_randomized_response() {
        let pld = PurePld::build(&[GeoComponent { r: q("1"), m: 1 }], &Interval::one(128), 128).unwrap();
        let d = pld.delta(&q("0.5")).to_f64();
        let e1 = 1f64.exp();
        assert!((d - (e1 - 0.5f64.exp()) / (1.0 + e1)).abs() < 1e-14);
        assert!(pld.delta(&q("1")).hi == 0);
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

    /// RE Table 2 zCDP "experimental" column: ρ = 1.41 → 12.1773094826 at α* = 4.90 (research script).
    #[test]
    fn zcdp_grid_table2() {
        let (e, a) = zcdp_grid_eps(&q("1.41"), &q("1e-10"), 128);
        assert!((e.to_f64() - 12.1773094826).abs() < 1e-9);
        assert_eq!(a, q("4.90"));
    }
}
