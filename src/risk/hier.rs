//! Two levels of the hierarchy (KR §3.2 and supplement S3, S4).
//!
//! Unknowns: X₁ ∈ {m, m+1} (the target's block), X₂ ≥ X₁ (its block group). Data D = (x₁*, x₂*, y₁*)
//! with y₁* the sum of the noisy counts of the d sibling blocks. The adversary's likelihood (S3.4) is
//! e^{−ρ₁(x₁*−k₁)²} · e^{−ρ₂(x₂*−k₂)²} · e^{−(ρ₁/d)(y₁*−(k₂−k₁))²}, the last factor by KR's approximation
//! (3.7) Σ of d DG(0, 1/(2ρ₁)) ≈ DG(0, d/(2ρ₁)). Prior: P[X₁ = m+1] = p and X₂ | X₁ = k₁ from [`Prior2`].
//!
//! Three ways to get P[X₁ = m+1 | D]:
//! * [`TwoLevel::posterior`] — exact enumeration of the (small) state space, certified (the default);
//! * [`TwoLevel::gibbs_stationary`] — the exact stationary law of the two-block Gibbs sampler of
//!   (3.8)/(3.9), in two variants: [`Sampler::Correct`] (X₁-step with the support indicator
//!   1[k₁ ≤ k₂] and the prior factor; its stationary law *is* the posterior) and [`Sampler::Paper`]
//!   (X₁-step exactly as printed in (3.8): no indicator, no prior factor). The two conditionals of the
//!   paper's sampler are incompatible, so its stationary law is not a posterior of any model; it is what
//!   reproduces the paper's Tables 7 and 8 (docs/risk-findings.md);
//! * [`TwoLevel::gibbs_mc`] — the sampler run as Monte Carlo, seeded, with batch-means standard errors.

use crate::error::Fallible;
use crate::noise::dgauss::round_to;
use crate::noise::gauss_terms::{gauss_tail_upper, radius_for_bits};
use crate::num::Interval;
use crate::risk::single::Decision;
use crate::risk::{check_count, check_p, check_rho, Rng};
use crate::{err, fallible};
use rug::float::Round;
use rug::{Float, Rational};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Prior of X₂ | X₁ = k₁ (KR S4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prior2 {
    /// improper uniform on {k₁, k₁+1, …} (S4.1; the main text's default), weight 1 per point for both k₁
    Unbounded,
    /// uniform on {k₁, …, N} (S4.2)
    UpTo(i64),
    /// all mass at K (S4, Figure 11)
    Point(i64),
}

impl Prior2 {
    /// `unbounded` | `uniform:N` | `point:K`.
    pub fn parse(s: &str) -> Fallible<Prior2> {
        let t = s.trim();
        if t == "unbounded" || t == "uniform" {
            return Ok(Prior2::Unbounded);
        }
        let int = |v: &str, what: &str| -> Fallible<i64> {
            v.trim().parse::<i64>().map_err(|_| err!(Input, "prior '{t}': {what} must be an integer"))
        };
        if let Some(v) = t.strip_prefix("uniform:") {
            return Ok(Prior2::UpTo(int(v, "the bound")?));
        }
        if let Some(v) = t.strip_prefix("point:") {
            return Ok(Prior2::Point(int(v, "the point")?));
        }
        fallible!(Input, "unknown prior '{t}' (expected unbounded, uniform:N or point:K)")
    }

    pub fn describe(&self) -> String {
        match self {
            Prior2::Unbounded => "Unif{k1, k1+1, ...} (improper)".into(),
            Prior2::UpTo(n) => format!("Unif{{k1, ..., {n}}}"),
            Prior2::Point(k) => format!("point mass at {k}"),
        }
    }

    pub fn is_finite(&self) -> bool {
        !matches!(self, Prior2::Unbounded)
    }

    /// Prior weight of X₂ = k₂ given X₁ = k₁ (0 outside the support).
    pub fn weight(&self, k1: i64, k2: i64) -> Rational {
        if k2 < k1 {
            return Rational::from(0);
        }
        match self {
            Prior2::Unbounded => Rational::from(1),
            Prior2::UpTo(n) => {
                if k2 <= *n {
                    Rational::from((1, n - k1 + 1))
                } else {
                    Rational::from(0)
                }
            }
            Prior2::Point(k) => Rational::from((k2 == *k) as i32),
        }
    }

    /// Largest k₂ with positive weight (None: unbounded).
    pub fn upper(&self) -> Option<i64> {
        match self {
            Prior2::Unbounded => None,
            Prior2::UpTo(n) => Some(*n),
            Prior2::Point(k) => Some(*k),
        }
    }
}

/// Observed noisy counts D = (x₁*, x₂*, y₁*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Data {
    pub x1s: i64,
    pub x2s: i64,
    pub y1s: i64,
}

/// Which Gibbs sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampler {
    /// full conditionals of the model (X₁-step restricted to k₁ ≤ k₂, with the prior factor)
    Correct,
    /// (3.8) as printed: X₁-step without 1[k₁ ≤ k₂] and without the prior of X₂ | X₁
    Paper,
}

impl Sampler {
    pub fn as_str(&self) -> &'static str {
        match self {
            Sampler::Correct => "correct",
            Sampler::Paper => "paper",
        }
    }
}

/// The two-level model.
#[derive(Clone, Debug)]
pub struct TwoLevel {
    pub p: Rational,
    pub m: i64,
    pub rho1: Rational,
    pub rho2: Rational,
    pub d: u32,
    pub prior: Prior2,
}

/// Posterior summary: P[X₁ = m+1 | D] and the law of X₂ on a window of k₂.
#[derive(Clone, Debug)]
pub struct Posterior2 {
    pub p_target: Interval,
    pub x2: Vec<(i64, Interval)>,
}

/// Certified building blocks on a window of k₂ (index j ↔ k₂ = k2_lo + j).
struct Pieces {
    k2_lo: i64,
    n: usize,
    /// P(k₁)·e^{−ρ₁(x₁*−k₁)²}, i = k₁ − m
    ex1: [Interval; 2],
    /// e^{−(ρ₁/d)(y₁* − k₂ + k₁)²}
    ey: [Vec<Rc<Interval>>; 2],
    /// e^{−ρ₂(x₂* − k₂)²}
    ex2: Vec<Rc<Interval>>,
    /// prior weights
    pw: [Vec<Rational>; 2],
    /// upper bound on Σ over k₂ beyond the window of prior·e^{−ρ₂(x₂*−k₂)²}·e^{−(ρ₁/d)(…)²} (≤ 1·gauss tail)
    tail: Float,
}

/// The certified factors of the likelihood: e^{−ρc²} for ρ ∈ {ρ₁, ρ₁/d, ρ₂} and an integer c, and the
/// bound on the k₂ beyond the window, at a working precision. A posterior at one data point needs a
/// few hundred of them; a decision map (4 × 9 × 61 points, each decided at two precisions) asks for
/// the same few hundred again and again, so [`Factors::cached`] computes each one once and shares it
/// (the same MPFR operations on the same exact arguments, hence the same intervals).
pub struct Factors {
    cache: Option<RefCell<FactorCache>>,
}

#[derive(Default)]
struct FactorCache {
    /// the parameters seen (ρ for the exponentials, the variance for the tail bounds): key slot = index
    params: Vec<Rational>,
    gauss: HashMap<(u32, usize, i64), Rc<Interval>>,
    tails: HashMap<(u32, usize, u64), Float>,
}

impl FactorCache {
    fn slot(&mut self, x: &Rational) -> usize {
        match self.params.iter().position(|q| q == x) {
            Some(i) => i,
            None => {
                self.params.push(x.clone());
                self.params.len() - 1
            }
        }
    }
}

impl Factors {
    /// Every factor computed when asked (one-off posteriors).
    pub fn once() -> Factors {
        Factors { cache: None }
    }

    /// Each factor computed once and kept (decision maps: many data points of one model).
    pub fn cached() -> Factors {
        Factors { cache: Some(RefCell::new(FactorCache::default())) }
    }

    /// e^{−ρc²}, enclosed at `prec` (shared, not copied, when cached).
    fn gauss(&self, rho: &Rational, c: i64, prec: u32) -> Rc<Interval> {
        let compute = || {
            let c = Rational::from(c);
            Rc::new(Interval::from_rational(&-(Rational::from(&c * &c) * rho), prec).exp())
        };
        let Some(cache) = &self.cache else { return compute() };
        let mut cache = cache.borrow_mut();
        let key = (prec, cache.slot(rho), c);
        cache.gauss.entry(key).or_insert_with(compute).clone()
    }

    /// [`gauss_tail_upper`]`(v, m, prec)`.
    fn tail(&self, v: &Rational, m: u64, prec: u32) -> Float {
        let Some(cache) = &self.cache else { return gauss_tail_upper(v, m, prec) };
        let mut cache = cache.borrow_mut();
        let key = (prec, cache.slot(v), m);
        cache.tails.entry(key).or_insert_with(|| gauss_tail_upper(v, m, prec)).clone()
    }
}

fn frac(x: &Interval, y: &Interval, prec: u32) -> Interval {
    // x/(x+y) for x, y ≥ 0: increasing in x, decreasing in y
    let lo_den = Float::with_val_round(prec, x.lo() + y.hi(), Round::Up).0;
    let hi_den = Float::with_val_round(prec, x.hi() + y.lo(), Round::Down).0;
    let lo = if lo_den > 0 { Float::with_val_round(prec, x.lo() / &lo_den, Round::Down).0 } else { Float::with_val(prec, 0) };
    let hi = if hi_den > 0 { Float::with_val_round(prec, x.hi() / &hi_den, Round::Up).0 } else { Float::with_val(prec, 1) };
    let one = Float::with_val(prec, 1);
    Interval::new(lo, if hi > one { one } else { hi })
}

/// x times a prior weight w. A weight of 1 (every weight of the unbounded prior) leaves x as it is:
/// the product rounds exactly, so skipping it gives the same interval.
fn times_weight(x: Interval, w: &Rational) -> Interval {
    if *w == 1 {
        x
    } else {
        x.mul_rational(w)
    }
}

fn add_hi(x: &Interval, t: &Float, prec: u32) -> Interval {
    Interval::new(x.lo().clone(), Float::with_val_round(prec, x.hi() + t, Round::Up).0)
}

/// The decision of a certified enclosure of P[X₁ = m+1 | D] that excludes 1/2 (None if it does not).
pub fn separated(p: &Interval) -> Option<Decision> {
    if *p.lo() > 0.5 {
        Some(Decision::Target)
    } else if *p.hi() < 0.5 {
        Some(Decision::Other)
    } else {
        None
    }
}

/// The precision of the first certified enclosure of a decision (doubled while it straddles 1/2).
const FIRST_PREC: u32 = 128;

/// Largest enumeration window of X₂ (values of k₂) in the exact and Monte Carlo posteriors.
pub const WINDOW_MAX: u64 = 2_000_000;

impl TwoLevel {
    pub fn new(p: Rational, m: i64, rho1: Rational, rho2: Rational, d: u32, prior: Prior2) -> Fallible<TwoLevel> {
        check_p(&p)?;
        check_rho(&rho1, "rho1")?;
        check_rho(&rho2, "rho2")?;
        check_count(m, "m", true)?;
        if d < 1 {
            return fallible!(Input, "d (number of sibling blocks) must be at least 1");
        }
        if let Some(u) = prior.upper() {
            check_count(u, "the prior's bound", false)?;
            if u < m {
                return fallible!(Input, "prior {} has no support at or above m = {m}", prior.describe());
            }
        }
        Ok(TwoLevel { p, m, rho1, rho2, d, prior })
    }

    fn pk1(&self, i: usize) -> Rational {
        if i == 1 {
            self.p.clone()
        } else {
            1 - self.p.clone()
        }
    }

    /// The exponent of the likelihood at (k₁, k₂): −ρ₁(x₁*−k₁)² − ρ₂(x₂*−k₂)² − (ρ₁/d)(y₁*−k₂+k₁)², exact.
    pub fn exponent(&self, dt: &Data, k1: i64, k2: i64) -> Rational {
        let a = Rational::from(dt.x1s - k1);
        let b = Rational::from(dt.x2s - k2);
        let c = Rational::from(dt.y1s - k2 + k1);
        -(Rational::from(&a * &a) * &self.rho1)
            - Rational::from(&b * &b) * &self.rho2
            - Rational::from(&c * &c) * &self.rho1 / Rational::from(self.d)
    }

    /// Refuse released counts out of range and an enumeration window of X₂ larger than WINDOW_MAX
    /// points (each point holds a few certified exponentials, ~1 KB at 256 bits).
    pub fn check_data(&self, dt: &Data, prec: u32) -> Fallible<()> {
        check_count(dt.x1s, "x1star", false)?;
        check_count(dt.x2s, "x2star", false)?;
        check_count(dt.y1s, "ystar", false)?;
        let (lo, hi) = self.window(dt, prec);
        let n = hi as i128 - lo as i128 + 1;
        if n > WINDOW_MAX as i128 {
            return fallible!(Resource,
                "the posterior would enumerate {n} values of X2 (about {:.1} GB; limit {WINDOW_MAX}): narrow the prior of X2 or bring x2star nearer m",
                n as f64 * 1e3 * 1e-9
            );
        }
        Ok(())
    }

    fn window(&self, dt: &Data, prec: u32) -> (i64, i64) {
        let lo = self.m;
        let hi = match self.prior.upper() {
            Some(u) => u,
            None => {
                let v = Rational::from(self.rho2.recip_ref()) / 2u32;
                dt.x2s.max(self.m + 1) + radius_for_bits(&v, prec + 40) as i64 + 1
            }
        };
        (lo, hi)
    }

    fn pieces(&self, dt: &Data, prec: u32, f: &Factors) -> Pieces {
        let (k2_lo, k2_hi) = self.window(dt, prec);
        let n = (k2_hi - k2_lo + 1) as usize;
        let rd = &self.rho1 / Rational::from(self.d);
        let ex1 = [0usize, 1].map(|i| f.gauss(&self.rho1, dt.x1s - (self.m + i as i64), prec).mul_rational(&self.pk1(i)));
        let ey = [0usize, 1].map(|i| {
            let k1 = self.m + i as i64;
            (0..n).map(|j| f.gauss(&rd, dt.y1s - (k2_lo + j as i64) + k1, prec)).collect::<Vec<_>>()
        });
        let ex2 = (0..n).map(|j| f.gauss(&self.rho2, dt.x2s - (k2_lo + j as i64), prec)).collect();
        let pw = [0usize, 1].map(|i| (0..n).map(|j| self.prior.weight(self.m + i as i64, k2_lo + j as i64)).collect::<Vec<_>>());
        let tail = if self.prior.is_finite() {
            Float::with_val(prec, 0)
        } else {
            let v = Rational::from(self.rho2.recip_ref()) / 2u32;
            f.tail(&v, (k2_hi + 1 - dt.x2s) as u64, prec)
        };
        Pieces { k2_lo, n, ex1, ey, ex2, pw, tail }
    }

    /// Exact posterior by enumeration, certified: P[X₁ = m+1 | D] and P[X₂ = k₂ | D] for k₂ ∈ [m, m+nx2).
    pub fn posterior(&self, dt: &Data, nx2: usize, prec: u32) -> Posterior2 {
        self.posterior_with(dt, nx2, prec, &Factors::once())
    }

    /// [`TwoLevel::posterior`] with the likelihood factors from `f`.
    pub fn posterior_with(&self, dt: &Data, nx2: usize, prec: u32, f: &Factors) -> Posterior2 {
        let p = prec + 32;
        let pc = self.pieces(dt, p, f);
        let mut w: [Vec<Interval>; 2] = [Vec::new(), Vec::new()];
        let mut a = [Interval::zero(p), Interval::zero(p)];
        for i in 0..2 {
            for j in 0..pc.n {
                let x = if pc.pw[i][j] == 0 {
                    Interval::zero(p)
                } else {
                    times_weight(pc.ex1[i].mul(&pc.ey[i][j]).mul(&pc.ex2[j]), &pc.pw[i][j])
                };
                a[i] = a[i].add(&x);
                w[i].push(x);
            }
            // dropped k₂: prior ≤ 1, y-factor ≤ 1
            let t = Interval::from_float(&pc.tail, p).mul(&pc.ex1[i]);
            a[i] = add_hi(&a[i], t.hi(), p);
        }
        let p_target = frac(&a[1], &a[0], p);
        let tot = a[0].add(&a[1]);
        let x2 = (0..nx2.min(pc.n))
            .map(|j| {
                let s = w[0][j].add(&w[1][j]);
                let lo = Float::with_val_round(p, s.lo() / tot.hi(), Round::Down).0;
                let hi = Float::with_val_round(p, s.hi() / tot.lo(), Round::Up).0;
                (pc.k2_lo + j as i64, round_to(&Interval::new(lo, hi), prec))
            })
            .collect();
        Posterior2 { p_target: round_to(&p_target, prec), x2 }
    }

    /// Exact stationary law of the systematic-scan Gibbs sampler X₁ | X₂ then X₂ | X₁. The k₁-chain is a
    /// two-state Markov chain with a = P[m → m+1] = Σ_{k₂} P₂(k₂|m) q(k₂), b = P[m+1 → m] =
    /// Σ_{k₂} P₂(k₂|m+1)(1 − q(k₂)); P[X₁ = m+1] = a/(a+b); the law of X₂ is the mixture
    /// (1 − P)·P₂(·|m) + P·P₂(·|m+1). q is the X₁-step's probability of m+1 given k₂ (3.8), P₂ the
    /// X₂-step (3.9) on the prior's support.
    pub fn gibbs_stationary(&self, dt: &Data, sampler: Sampler, nx2: usize, prec: u32) -> Fallible<Posterior2> {
        self.gibbs_stationary_with(dt, sampler, nx2, prec, &Factors::once())
    }

    /// [`TwoLevel::gibbs_stationary`] with the likelihood factors from `f`.
    pub fn gibbs_stationary_with(&self, dt: &Data, sampler: Sampler, nx2: usize, prec: u32, f: &Factors) -> Fallible<Posterior2> {
        let p = prec + 32;
        let pc = self.pieces(dt, p, f);
        // X₂-step weights v_i(k₂) = prior·e^{−ρ₂(…)²}·e^{−(ρ₁/d)(…)²}
        let mut v: [Vec<Interval>; 2] = [Vec::new(), Vec::new()];
        let mut wsum = [Interval::zero(p), Interval::zero(p)];
        for i in 0..2 {
            for j in 0..pc.n {
                let x = if pc.pw[i][j] == 0 { Interval::zero(p) } else { times_weight(pc.ex2[j].mul(&pc.ey[i][j]), &pc.pw[i][j]) };
                wsum[i] = wsum[i].add(&x);
                v[i].push(x);
            }
            if *wsum[i].hi() == 0 {
                return fallible!(
                    Input,
                    "the X2-step has no support for X1 = {} under the prior {}",
                    self.m + i as i64,
                    self.prior.describe()
                );
            }
        }
        // q(k₂)
        let qv: Vec<Interval> = (0..pc.n)
            .map(|j| {
                let u: Vec<Interval> = (0..2)
                    .map(|i| {
                        let base = pc.ex1[i].mul(&pc.ey[i][j]);
                        match sampler {
                            Sampler::Paper => base,
                            Sampler::Correct => times_weight(base, &pc.pw[i][j]),
                        }
                    })
                    .collect();
                if *u[0].hi() == 0 && *u[1].hi() == 0 {
                    Interval::zero(p) // unreachable state (no X₂-step mass there)
                } else {
                    frac(&u[1], &u[0], p)
                }
            })
            .collect();
        let one = Interval::one(p);
        let (zero_f, one_f) = (Float::with_val(p, 0), Float::with_val(p, 1));
        let mut an = Interval::zero(p);
        let mut bn = Interval::zero(p);
        for j in 0..pc.n {
            an = an.add(&v[0][j].mul(&qv[j]));
            bn = bn.add(&v[1][j].mul(&one.sub(&qv[j]).clamp_to(&zero_f, &one_f)));
        }
        // dropped k₂ beyond the window contribute [0, tail] to numerators and denominators
        let t = &pc.tail;
        let ratio = |num: &Interval, den: &Interval| -> Interval {
            let lo = Float::with_val_round(p, num.lo() / Float::with_val_round(p, den.hi() + t, Round::Up).0, Round::Down).0;
            let hi = Float::with_val_round(p, Float::with_val_round(p, num.hi() + t, Round::Up).0 / den.lo(), Round::Up).0;
            Interval::new(lo, hi)
        };
        let a = ratio(&an, &wsum[0]);
        let b = ratio(&bn, &wsum[1]);
        let p1 = frac(&a, &b, p);
        let x2 = (0..nx2.min(pc.n))
            .map(|j| {
                let p20 = ratio(&v[0][j], &wsum[0]);
                let p21 = ratio(&v[1][j], &wsum[1]);
                let mix = one.sub(&p1).mul(&p20).add(&p1.mul(&p21));
                (pc.k2_lo + j as i64, round_to(&mix, prec))
            })
            .collect();
        Ok(Posterior2 { p_target: round_to(&p1, prec), x2 })
    }

    /// Exact tie test for priors of finite support: P[X₁ = m+1 | D] = 1/2 ⇔ Σ_{k₂} P(m+1)π(k₂|m+1)e^{E(m+1,k₂)}
    /// − Σ_{k₂} P(m)π(k₂|m)e^{E(m,k₂)} = 0 with rational coefficients and exponents; by
    /// Lindemann–Weierstrass this holds iff, for every distinct exponent, the coefficients cancel.
    /// None for the unbounded prior (infinite sums).
    pub fn exact_tie(&self, dt: &Data) -> Option<bool> {
        let hi = self.prior.upper()?;
        let mut terms: BTreeMap<Rational, Rational> = BTreeMap::new();
        for i in 0..2usize {
            let k1 = self.m + i as i64;
            for k2 in k1..=hi {
                let w = self.prior.weight(k1, k2);
                if w == 0 {
                    continue;
                }
                let c = Rational::from(&w * &self.pk1(i));
                let e = terms.entry(self.exponent(dt, k1, k2)).or_insert_with(|| Rational::from(0));
                if i == 1 {
                    *e += c;
                } else {
                    *e -= c;
                }
            }
        }
        Some(terms.values().all(|c| *c == 0))
    }

    /// The adversary's certified decision under the exact posterior with the tie rule (ties → m).
    /// Returns the decision and whether it was resolved (false only if an unbounded-prior posterior
    /// could not be separated from 1/2 at 4096 bits; it is then reported as a tie).
    pub fn decide_exact(&self, dt: &Data) -> (Decision, bool) {
        self.decide_exact_with(dt, &Factors::once())
    }

    /// [`TwoLevel::decide_exact`] with the likelihood factors from `f`.
    pub fn decide_exact_with(&self, dt: &Data, f: &Factors) -> (Decision, bool) {
        // A certified posterior separated from 1/2 settles the decision and rules out an exact tie, so
        // the (rational) tie test runs only when the first enclosure is not separated: the same answer.
        if let Some(d) = separated(&self.posterior_with(dt, 0, FIRST_PREC, f).p_target) {
            return (d, true);
        }
        if let Some(t) = self.exact_tie(dt) {
            if t {
                return (Decision::Tie, true);
            }
        }
        self.decide_by_intervals(|prec| self.posterior_with(dt, 0, prec, f).p_target)
    }

    /// Decision from the stationary law of a Gibbs sampler (what a long MCMC run converges to).
    pub fn decide_sampler(&self, dt: &Data, sampler: Sampler) -> (Decision, bool) {
        self.decide_sampler_with(dt, sampler, &Factors::once())
    }

    /// [`TwoLevel::decide_sampler`] with the likelihood factors from `f`.
    pub fn decide_sampler_with(&self, dt: &Data, sampler: Sampler, f: &Factors) -> (Decision, bool) {
        if let Prior2::Point(_) = self.prior {
            // both X₂-steps are the point mass: the stationary P equals q(K) = the exact posterior
            return self.decide_exact_with(dt, f);
        }
        self.decide_by_intervals(|prec| {
            self.gibbs_stationary_with(dt, sampler, 0, prec, f).map(|x| x.p_target).unwrap_or_else(|_| Interval::zero(prec))
        })
    }

    fn decide_by_intervals(&self, f: impl Fn(u32) -> Interval) -> (Decision, bool) {
        let mut prec = FIRST_PREC;
        while prec <= 4096 {
            let v = f(prec);
            if *v.lo() > 0.5 {
                return (Decision::Target, true);
            }
            if *v.hi() < 0.5 {
                return (Decision::Other, true);
            }
            if *v.lo() == 0.5 && *v.hi() == 0.5 {
                return (Decision::Tie, true);
            }
            prec *= 2;
        }
        (Decision::Tie, false)
    }

    /// Monte Carlo run of the Gibbs sampler (3.8)/(3.9), seeded: `draws` recorded sweeps after `burn_in`.
    /// Start: k₁ = m+1, k₂ = max(x₂*, m+1) (clamped to the prior support). Standard errors by batch means
    /// (50 batches).
    pub fn gibbs_mc(&self, dt: &Data, sampler: Sampler, draws: usize, burn_in: usize, seed: u64, nx2: usize) -> Fallible<GibbsMc> {
        if draws < 50 {
            return fallible!(Input, "draws must be at least 50");
        }
        let prec = 64;
        let pc = self.pieces(dt, prec, &Factors::once());
        let f = |x: &Interval| x.to_f64();
        let mut cdf: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for i in 0..2 {
            let w: Vec<f64> = (0..pc.n).map(|j| f(&pc.ex2[j]) * f(&pc.ey[i][j]) * pc.pw[i][j].to_f64()).collect();
            let s: f64 = w.iter().sum();
            if !(s > 0.0) {
                return fallible!(Input, "the X2-step has no support for X1 = {}", self.m + i as i64);
            }
            let mut acc = 0.0;
            cdf[i] = w
                .iter()
                .map(|x| {
                    acc += x / s;
                    acc
                })
                .collect();
        }
        let qv: Vec<f64> = (0..pc.n)
            .map(|j| {
                let u: Vec<f64> = (0..2)
                    .map(|i| {
                        let base = f(&pc.ex1[i]) * f(&pc.ey[i][j]);
                        match sampler {
                            Sampler::Paper => base,
                            Sampler::Correct => base * pc.pw[i][j].to_f64(),
                        }
                    })
                    .collect();
                if u[0] + u[1] > 0.0 {
                    u[1] / (u[0] + u[1])
                } else {
                    0.0
                }
            })
            .collect();
        let mut rng = Rng::new(seed);
        let sup_hi = self.prior.upper().unwrap_or(i64::MAX);
        let mut j2 = (dt.x2s.max(self.m + 1).min(sup_hi) - pc.k2_lo).clamp(0, pc.n as i64 - 1) as usize;
        let mut k1i;
        let nb = 50;
        let per = draws / nb;
        let used = per * nb;
        let mut batch_t = vec![0.0f64; nb];
        let mut batch_x2 = vec![vec![0.0f64; nx2]; nb];
        for it in 0..(burn_in + used) {
            k1i = (rng.uniform() < qv[j2]) as usize;
            let u = rng.uniform();
            j2 = cdf[k1i].partition_point(|c| *c < u).min(pc.n - 1);
            if it >= burn_in {
                let b = (it - burn_in) / per;
                batch_t[b] += k1i as f64;
                let k2 = pc.k2_lo + j2 as i64 - self.m;
                if k2 >= 0 && (k2 as usize) < nx2 {
                    batch_x2[b][k2 as usize] += 1.0;
                }
            }
        }
        let stat = |v: Vec<f64>| -> (f64, f64) {
            let means: Vec<f64> = v.iter().map(|x| x / per as f64).collect();
            let mu = means.iter().sum::<f64>() / nb as f64;
            let var = means.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / (nb - 1) as f64;
            (mu, (var / nb as f64).sqrt())
        };
        let p_target = stat(batch_t);
        let x2 = (0..nx2)
            .map(|k| {
                let (a, b) = stat(batch_x2.iter().map(|r| r[k]).collect());
                (self.m + k as i64, a, b)
            })
            .collect();
        Ok(GibbsMc { draws: used, burn_in, seed, p_target: p_target.0, p_target_se: p_target.1, x2 })
    }
}

/// Result of a Monte Carlo Gibbs run.
#[derive(Clone, Debug)]
pub struct GibbsMc {
    pub draws: usize,
    pub burn_in: usize,
    pub seed: u64,
    pub p_target: f64,
    pub p_target_se: f64,
    /// (k₂, estimate, standard error)
    pub x2: Vec<(i64, f64, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::paper;

    fn table6(prior: Prior2) -> (TwoLevel, Data) {
        let t = TwoLevel::new(Rational::from((1, 2)), 0, paper::rho_block(), paper::rho_obg(), 27, prior).unwrap();
        (t, Data { x1s: 2, x2s: 1, y1s: -1 })
    }

    #[test]
    fn risk_correct_sampler_stationary_law_is_the_posterior() {
        for prior in [Prior2::Unbounded, Prior2::UpTo(10), Prior2::Point(3)] {
            let (t, d) = table6(prior);
            let a = t.posterior(&d, 8, 128);
            let b = t.gibbs_stationary(&d, Sampler::Correct, 8, 128).unwrap();
            assert!(a.p_target.overlaps(&b.p_target), "{} vs {}", a.p_target, b.p_target);
            assert!(a.p_target.width() < 1e-30);
            for (x, y) in a.x2.iter().zip(&b.x2) {
                assert!(x.1.overlaps(&y.1));
            }
        }
    }

    #[test]
    fn risk_exact_tie_detection() {
        // point mass K = 1, p = 1/2, d = 27: log-odds ρ₁(2x₁*−1) − (ρ₁/d)(2y₁* + 1 − 2K) = 0 ⇔ y₁* = 27x₁* − 13 (K = 1)
        let (t, _) = table6(Prior2::Point(1));
        let d = Data { x1s: 1, x2s: 0, y1s: 14 };
        assert_eq!(t.exact_tie(&d), Some(true));
        assert_eq!(t.decide_exact(&d), (Decision::Tie, true));
        let d2 = Data { x1s: 1, x2s: 0, y1s: 13 };
        assert_eq!(t.exact_tie(&d2), Some(false));
        assert_eq!(t.decide_exact(&d2).0, Decision::Target);
    }

    #[test]
    fn risk_gibbs_mc_is_seeded_and_near_the_stationary_law() {
        let (t, d) = table6(Prior2::Unbounded);
        let a = t.gibbs_mc(&d, Sampler::Paper, 20000, 1000, 42, 8).unwrap();
        let b = t.gibbs_mc(&d, Sampler::Paper, 20000, 1000, 42, 8).unwrap();
        assert_eq!(a.p_target, b.p_target);
        let s = t.gibbs_stationary(&d, Sampler::Paper, 8, 64).unwrap().p_target.to_f64();
        assert!((a.p_target - s).abs() < 5.0 * a.p_target_se + 1e-3, "{} ± {} vs {s}", a.p_target, a.p_target_se);
    }
}
