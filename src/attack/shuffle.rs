//! Shuffled batches (shuffle and iterate): a certified *lower* bound on the privacy of DP-SGD whose epochs
//! shuffle the data and cut it into T batches, from one explicit attack, in the manner of [CGK+24].
//!
//! The input: every record but one contributes the same gradient at every step; the differing record
//! contributes its own at the step its batch is processed. Each step releases its batch's sum of gradients
//! clipped to norm 1, plus N(0, σ²) (a sum, not normalised by a data-dependent batch size). Each epoch
//! reshuffles, so the record's batch is uniform on the T steps and independent across epochs.
//!
//! * add/remove: the others' gradients 0, the record's +1, present or absent: per epoch the outputs are
//!   P = (1/T) Σ_t N(e_t, σ² I) with it and Q = N(0, σ² I) without (the random-allocation pair of
//!   [FS25] with one step per record);
//! * replace: the others' gradients −1, the record's +1 replaced by −1 (the input of [CGK+24]): replaced,
//!   the record is one of the crowd and every batch sums alike, so after a shift by the crowd's sum
//!   P = (1/T) Σ_t N(2e_t, σ² I) against Q = N(0, σ² I).
//!
//! The attack: per epoch, is the largest output above τ? Its probabilities have closed forms
//! (m = max_t y_t, shift c = 1 or 2): P[m ≤ τ] = Φ((τ − c)/σ) Φ(τ/σ)^{T−1} and Q[m ≤ τ] = Φ(τ/σ)^T. Over E epochs the number K of epochs above τ is binomial, and the
//! test S = {K ≥ k} (or, in the other direction, {K < k}) has δ(ε) ≥ P(S) − e^ε Q(S): every test of two
//! neighbouring inputs bounds the mechanism's δ from below (δ is a supremum over sets and pairs). So
//! ε(δ) ≥ ln((P(S) − δ)/Q(S)) where P(S) > δ. τ and k are searched in f64; the bound at the (τ, k) chosen is
//! then enclosed in MPFR intervals (Φ by MPFR's erfc rounded outward, `num::special`): the printed lower end
//! is certified whatever the search found. It bounds shuffling from below only: the true ε may be larger.

use crate::error::Fallible;
use crate::fallible;
use crate::noise::truncated::binomial_tail;
use crate::num::special::{normal_cdf, normal_sf_f64};
use crate::num::Interval;
use rug::Rational;

/// The pair's neighbour relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    AddRemove,
    Replace,
}

/// The setting: noise multiplier σ, T steps per epoch, E epochs.
#[derive(Clone, Debug)]
pub struct Shuffle {
    pub sigma: Rational,
    pub steps: u64,
    pub epochs: u64,
    pub relation: Relation,
}

/// A certified bound from one test: the threshold τ, the count k, the direction, and the bound.
#[derive(Clone, Debug)]
pub struct TestBound {
    pub tau: Rational,
    pub k: u64,
    /// true: S = {K ≥ k} tested with the record first; false: S = {K < k} with the record second
    pub with_record_first: bool,
    /// the enclosure of the bound (ε lower bound, or δ lower bound), whose lower end is the certified bound
    pub value: Interval,
}

/// Most epochs taken (the binomial sums are exact over all counts).
pub const MAX_EPOCHS: u64 = 10_000;

impl Shuffle {
    pub fn new(sigma: Rational, steps: u64, epochs: u64, relation: Relation) -> Fallible<Shuffle> {
        if sigma <= 0 {
            return fallible!(Input, "sigma must be positive");
        }
        if !(2..=1u64 << 40).contains(&steps) {
            return fallible!(Input, "steps (batches per epoch) must be between 2 and 2^40, got {steps}");
        }
        if !(1..=MAX_EPOCHS).contains(&epochs) {
            return fallible!(Input, "epochs must be between 1 and {MAX_EPOCHS}, got {epochs}");
        }
        Ok(Shuffle { sigma, steps, epochs, relation })
    }

    /// The record's shift c: 1 under add/remove, 2 under replace (module doc).
    fn shift(&self) -> i64 {
        match self.relation {
            Relation::AddRemove => 1,
            Relation::Replace => 2,
        }
    }

    /// Per-epoch probabilities that the largest output exceeds τ, (with the record, without it), in f64.
    fn above_f64(&self, tau: f64) -> (f64, f64) {
        let s = self.sigma.to_f64();
        let t = self.steps as f64;
        let ln_cdf = |z: f64| (-normal_sf_f64(z)).ln_1p();
        let p = -(ln_cdf((tau - self.shift() as f64) / s) + (t - 1.0) * ln_cdf(tau / s)).exp_m1();
        let q = -(t * ln_cdf(tau / s)).exp_m1();
        (p, q)
    }

    /// The same, enclosed at `prec` bits (τ rational).
    fn above(&self, tau: &Rational, prec: u32) -> (Interval, Interval) {
        let s = Interval::from_rational(&self.sigma, prec);
        let z = |shift: i64| Interval::from_rational(&Rational::from(tau - shift), prec).div(&s);
        let one = Interval::one(prec);
        let p = one.sub(&normal_cdf(&z(self.shift())).mul(&normal_cdf(&z(0)).pow_u64(self.steps - 1)));
        let q = one.sub(&normal_cdf(&z(0)).pow_u64(self.steps));
        (p.clamp_unit(), q.clamp_unit())
    }

    /// The certified lower bound of ε(δ) (None: no test found gives a positive one).
    pub fn epsilon_lower(&self, delta: &Rational) -> Fallible<Option<TestBound>> {
        if !(*delta > 0 && *delta < 1) {
            return fallible!(Input, "delta must be in (0, 1)");
        }
        let d = delta.to_f64();
        let best = self.search(|p, q| if p > d && q > 0.0 { ((p - d) / q).ln() } else { f64::NEG_INFINITY });
        let Some((tau, k, first)) = best else { return Ok(None) };
        let v = self.certify(&tau, k, first, |p, q, prec| {
            let num = p.sub(&Interval::from_rational(delta, prec));
            (num.is_positive() && q.is_positive()).then(|| num.div(&q).ln())
        });
        // (a bound ε ≤ 0 says nothing)
        Ok(v.filter(|v| v.is_positive()).map(|value| TestBound { tau, k, with_record_first: first, value }))
    }

    /// The certified lower bound of δ(ε) (None: no test found gives a positive one).
    pub fn delta_lower(&self, eps: &Rational) -> Fallible<Option<TestBound>> {
        if *eps < 0 {
            return fallible!(Input, "epsilon must be >= 0");
        }
        let e = eps.to_f64().exp();
        let best = self.search(|p, q| p - e * q);
        let Some((tau, k, first)) = best else { return Ok(None) };
        let v = self.certify(&tau, k, first, |p, q, prec| Some(p.sub(&Interval::from_rational(eps, prec).exp().mul(&q))));
        Ok(v.filter(|v| v.is_positive()).map(|value| TestBound { tau, k, with_record_first: first, value }))
    }

    /// The (τ, k, direction) maximising `objective(P(S), Q(S))` over a grid of τ refined by golden
    /// sections, in f64 (the certification does not rely on it).
    fn search(&self, objective: impl Fn(f64, f64) -> f64) -> Option<(Rational, u64, bool)> {
        let s = self.sigma.to_f64();
        let (lo, hi) = (-2.0 * s - 1.0, 1.0 + 40.0 * s);
        let score = |tau: f64| -> (f64, u64, bool) {
            let (p, q) = self.above_f64(tau);
            let mut best = (f64::NEG_INFINITY, 1, true);
            let (ps, qs) = (binomial_upper_f64(self.epochs, p), binomial_upper_f64(self.epochs, q));
            for k in 1..=self.epochs as usize {
                let a = objective(ps[k], qs[k]);
                if a > best.0 {
                    best = (a, k as u64, true);
                }
                // the other direction: S = {K < k} with the record second
                let b = objective(1.0 - qs[k], 1.0 - ps[k]);
                if b > best.0 {
                    best = (b, k as u64, false);
                }
            }
            best
        };
        let n = 400;
        let grid: Vec<f64> = (0..=n).map(|i| lo + (hi - lo) * i as f64 / n as f64).collect();
        let (mut at, mut top) = (0, score(grid[0]));
        for (i, &t) in grid.iter().enumerate().skip(1) {
            let v = score(t);
            if v.0 > top.0 {
                (at, top) = (i, v);
            }
        }
        if !top.0.is_finite() {
            return None;
        }
        // golden sections on the neighbouring cells
        let (mut a, mut b) = (grid[at.saturating_sub(1)], grid[(at + 1).min(n)]);
        let g = (5f64.sqrt() - 1.0) / 2.0;
        let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
        let (mut fc, mut fd) = (score(c), score(d));
        for _ in 0..60 {
            // one new point a section: the kept interior point is the other one of the narrower bracket
            if fc.0 >= fd.0 {
                (b, d, fd) = (d, c, fc);
                c = b - g * (b - a);
                fc = score(c);
            } else {
                (a, c, fc) = (c, d, fd);
                d = a + g * (b - a);
                fd = score(d);
            }
        }
        let mid = (a + b) / 2.0;
        let at_mid = score(mid);
        let (tau, v) = if at_mid.0 > top.0 { (mid, at_mid) } else { (grid[at], top) };
        Some((Rational::from_f64(tau)?, v.1, v.2))
    }

    /// The bound at (τ, k, direction), enclosed; the precision is doubled (to 4096 bits) while the enclosure
    /// is wider than 1e-12 of its value.
    fn certify(
        &self,
        tau: &Rational,
        k: u64,
        first: bool,
        bound: impl Fn(Interval, Interval, u32) -> Option<Interval>,
    ) -> Option<Interval> {
        let mut prec = 256;
        loop {
            let (p, q) = self.above(tau, prec);
            let (ps, qs) = (binomial_upper(self.epochs, &p, k, prec), binomial_upper(self.epochs, &q, k, prec));
            let one = Interval::one(prec);
            let v = if first { bound(ps, qs, prec) } else { bound(one.sub(&qs).clamp_unit(), one.sub(&ps).clamp_unit(), prec) };
            let tight = v.as_ref().is_some_and(|v| v.width().to_f64() <= 1e-12 * v.to_f64().abs().max(1e-300));
            if tight || prec >= 4096 {
                return v;
            }
            prec *= 2;
        }
    }
}

/// P[Bin(n, p) ≥ k] for k = 0..=n, in f64 (from the top, in the log domain where the terms are tiny).
fn binomial_upper_f64(n: u64, p: f64) -> Vec<f64> {
    let n_us = n as usize;
    let mut out = vec![0.0; n_us + 2];
    if p <= 0.0 {
        out[0] = 1.0;
        return out;
    }
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    let mut ln_c = 0.0; // ln C(n, j), built from j = 0
    let mut terms = vec![0.0; n_us + 1];
    for (j, t) in terms.iter_mut().enumerate() {
        if j > 0 {
            ln_c += ((n - j as u64 + 1) as f64).ln() - (j as f64).ln();
        }
        *t = (ln_c + j as f64 * lp + (n_us - j) as f64 * lq).exp();
    }
    for j in (0..=n_us).rev() {
        out[j] = (out[j + 1] + terms[j]).min(1.0);
    }
    out
}

/// P[Bin(n, p) ≥ k] enclosed, for p in the enclosure `p`: the tail is increasing in p, so its ends are the
/// tails at p's ends (each an exact rational).
fn binomial_upper(n: u64, p: &Interval, k: u64, prec: u32) -> Interval {
    let at = |x: &rug::Float| -> Interval {
        let q = x.to_rational().expect("a probability's enclosure has finite ends");
        binomial_tail(n, &q, k, prec).clamp_unit()
    };
    let (lo, hi) = (at(p.lo()), at(p.hi()));
    Interval::new(lo.lo().clone(), hi.hi().clone())
}

#[cfg(test)]
#[path = "shuffle_tests.rs"]
mod tests;
