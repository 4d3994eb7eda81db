//! Decision maps and the probability of a correct decision with hierarchical information (KR §4.3,
//! Figures 4–6, supplement S4), by exact enumeration over the noisy data instead of nested Monte Carlo.
//!
//! The data law (the truth, not the adversary's approximation): x₁* = x₁ + η₁, x₂* = x₂ + η₂, and
//! y₁* = y₁ + Σ_{i≤d} η^{(i)} with y₁ = x₂ − x₁, the d-fold sum computed by exact convolution. Each of
//! the three laws is truncated where its pmf falls below 1e-20 of its mode; the enumerated mass is
//! reported (`mass`), so P(correct) lies in [value, value + 1 − mass].
//!
//! The sums run in f64 (screening precision, ~1e-13 relative). Every decision whose log-odds is within
//! 1e-8 of the boundary is re-decided exactly by the rational model ([`TwoLevel::decide_exact`] /
//! [`TwoLevel::decide_sampler`]): ties are detected in rational arithmetic, not by a float sign.

use crate::risk::hier::{Data, Prior2, Sampler, TwoLevel};
use crate::risk::single::Decision;
use crate::risk::{dg_pmf_f64, dg_sum_pmf_f64, logsumexp};

/// How the adversary turns D into P[X₁ = m+1 | D].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Procedure {
    /// the exact posterior of the model as written (default)
    Exact,
    /// the stationary law of a Gibbs sampler (`Sampler::Paper` reproduces the paper's figures)
    Gibbs(Sampler),
}

impl Procedure {
    pub fn as_str(&self) -> &'static str {
        match self {
            Procedure::Exact => "exact-posterior",
            Procedure::Gibbs(Sampler::Paper) => "paper-sampler",
            Procedure::Gibbs(Sampler::Correct) => "correct-sampler",
        }
    }
}

/// P(correct decision) and its decomposition.
#[derive(Clone, Debug, Default)]
pub struct CorrectProb {
    /// P[X̂₁ = x₁] with the tie rule (ties → m)
    pub p_correct: f64,
    /// the same without hierarchical information (KR 3.6)
    pub p_correct_no_hier: f64,
    /// mass where the hierarchy changes a wrong decision into a right one
    pub gain: f64,
    /// mass where it changes a right decision into a wrong one
    pub loss: f64,
    /// mass of exact ties (decided as m)
    pub tie_mass: f64,
    /// mass whose decision could not be certified (counted as ties; 0 in every case we met)
    pub unresolved_mass: f64,
    /// total enumerated probability of the data
    pub mass: f64,
}

struct F64 {
    lo: f64,
    r1: f64,
    r2: f64,
    rd: f64,
    m: i64,
}

fn k2_window(prior: &Prior2, k1: i64, c: f64, tau: f64) -> Option<(i64, i64)> {
    match prior {
        Prior2::Unbounded => {
            let r = (40.0 / tau).sqrt() + 2.0;
            let lo = k1.max((c - r).floor() as i64);
            let hi = ((c + r).ceil() as i64).max(lo + r.ceil() as i64);
            Some((lo, hi))
        }
        Prior2::UpTo(n) => (k1 <= *n).then_some((k1, *n)),
        Prior2::Point(k) => (k1 <= *k).then_some((*k, *k)),
    }
}

fn log_prior_w(prior: &Prior2, k1: i64) -> f64 {
    match prior {
        Prior2::UpTo(n) => -((n - k1 + 1) as f64).ln(),
        _ => 0.0,
    }
}

impl F64 {
    fn new(t: &TwoLevel) -> F64 {
        let p = t.p.to_f64();
        let r1 = t.rho1.to_f64();
        F64 { lo: (p / (1.0 - p)).ln(), r1, r2: t.rho2.to_f64(), rd: r1 / t.d as f64, m: t.m }
    }

    /// X₂-step log-weights for k₁ on its window: (k₂_lo, log weights) or None (empty support).
    fn x2_step(&self, prior: &Prior2, k1: i64, x2s: i64, y1s: i64) -> Option<(i64, Vec<f64>)> {
        let tau = self.r2 + self.rd;
        let c = (self.r2 * x2s as f64 + self.rd * (y1s + k1) as f64) / tau;
        let (a, b) = k2_window(prior, k1, c, tau)?;
        let lp = log_prior_w(prior, k1);
        let v = (a..=b).map(|k2| lp - self.r2 * ((x2s - k2) as f64).powi(2) - self.rd * ((y1s - k2 + k1) as f64).powi(2)).collect();
        Some((a, v))
    }

    /// G(x₂*, y₁*) = ln S_{m+1} − ln S_m of the exact posterior.
    fn g(&self, prior: &Prior2, x2s: i64, y1s: i64) -> f64 {
        let s = |k1: i64| self.x2_step(prior, k1, x2s, y1s).map(|(_, v)| logsumexp(&v)).unwrap_or(f64::NEG_INFINITY);
        s(self.m + 1) - s(self.m)
    }
}

/// The exact-posterior decision on x₁* given (x₂*, y₁*): the sign of the log posterior odds
/// l = lo + r₁(2(x₁* − m) − 1) + G(x₂*, y₁*), with near-ties (|l| < 1e-8) settled by `decide_exact`.
fn exact_decider<'a>(f: &'a F64, t: &'a TwoLevel, x2s: i64, y1s: i64) -> Box<dyn Fn(i64) -> (Decision, bool) + 'a> {
    let g = f.g(&t.prior, x2s, y1s);
    Box::new(move |x1s: i64| {
        let l = f.lo + f.r1 * (2 * (x1s - f.m) - 1) as f64 + g;
        if l.is_finite() && l.abs() < 1e-8 {
            t.decide_exact(&Data { x1s, x2s, y1s })
        } else if l > 0.0 {
            (Decision::Target, true)
        } else {
            (Decision::Other, true)
        }
    })
}

/// P(correct decision) for the truth (x₁, x₂), x₁ ∈ {m, m+1}, optionally restricted to a window of
/// (x₂*, y₁*) (the paper's −3 ≤ x₂* ≤ 5, −30 ≤ y₁* ≤ 30).
pub fn prob_correct(
    t: &TwoLevel,
    proc: Procedure,
    x1: i64,
    x2: i64,
    window: Option<((i64, i64), (i64, i64))>,
) -> Result<CorrectProb, String> {
    if x1 != t.m && x1 != t.m + 1 {
        return Err(format!("true x1 must be m or m+1 (m = {}), got {x1}", t.m));
    }
    if x2 < x1 {
        return Err(format!("true x2 = {x2} is below x1 = {x1}"));
    }
    let f = F64::new(t);
    let (k1r, p1) = dg_pmf_f64(f.r1);
    let (k2r, p2) = dg_pmf_f64(f.r2);
    let (yoff, py) = dg_sum_pmf_f64(f.r1, t.d);
    let y1 = x2 - x1;
    let target = x1 == t.m + 1;
    let mut out = CorrectProb::default();
    // no-hierarchy decision (never a tie for rational p, ρ₁: see single::SingleLevel::decide)
    let nohier = |x1s: i64| f.lo + f.r1 * (2 * (x1s - f.m) - 1) as f64 > 0.0;
    for (i2, w2) in p2.iter().enumerate() {
        let x2s = x2 + i2 as i64 - k2r;
        if let Some(((a, b), _)) = window {
            if x2s < a || x2s > b {
                continue;
            }
        }
        for (iy, wy) in py.iter().enumerate() {
            let y1s = y1 + iy as i64 + yoff;
            if let Some((_, (a, b))) = window {
                if y1s < a || y1s > b {
                    continue;
                }
            }
            let w = w2 * wy;
            if w == 0.0 {
                continue;
            }
            out.mass += w;
            // per x₁*: the decision
            let decide: Box<dyn Fn(i64) -> (Decision, bool)> = match proc {
                Procedure::Exact => exact_decider(&f, t, x2s, y1s),
                Procedure::Gibbs(sampler) => {
                    if sampler == Sampler::Correct {
                        // the correct sampler's stationary law is the posterior
                        exact_decider(&f, t, x2s, y1s)
                    } else {
                        // X₂-steps P₂(·|k₁) on their windows (entries below 1e-18 dropped) and, per k₂,
                        // e^{−B(k₂)} with B(k₂) = −(ρ₁/d)(2(y₁*−k₂+m)+1); then q(k₂) = 1/(1 + e^{−A}e^{−B(k₂)})
                        // with A = ln(p/(1−p)) + ρ₁(2(x₁*−m)−1): no exponential in the inner loop.
                        let steps: Vec<(Vec<f64>, Vec<f64>)> = (0..2)
                            .map(|i| {
                                f.x2_step(&t.prior, f.m + i, x2s, y1s)
                                    .map(|(a, v)| {
                                        let l = logsumexp(&v);
                                        let mut pw = Vec::new();
                                        let mut eb = Vec::new();
                                        for (j, x) in v.iter().enumerate() {
                                            let pj = (x - l).exp();
                                            if pj > 1e-18 {
                                                let k2 = a + j as i64;
                                                pw.push(pj);
                                                eb.push((f.rd * (2 * (y1s - k2 + f.m) + 1) as f64).exp());
                                            }
                                        }
                                        (pw, eb)
                                    })
                                    .ok_or_else(|| "the X2-step has no support".to_string())
                            })
                            .collect::<Result<_, _>>()?;
                        Box::new(move |x1s: i64| {
                            let ea = (-(f.lo + f.r1 * (2 * (x1s - f.m) - 1) as f64)).exp();
                            // q = 1/(1+u), 1 − q = u/(1+u) = 1/(1 + 1/u), u = e^{−A}e^{−B}
                            let a: f64 = steps[0].0.iter().zip(&steps[0].1).map(|(p, eb)| p / (1.0 + ea * eb)).sum();
                            let b: f64 = steps[1].0.iter().zip(&steps[1].1).map(|(p, eb)| p / (1.0 + 1.0 / (ea * eb))).sum();
                            if (a - b).abs() < 1e-10 * (a + b) {
                                t.decide_sampler(&Data { x1s, x2s, y1s }, sampler)
                            } else if a > b {
                                (Decision::Target, true)
                            } else {
                                (Decision::Other, true)
                            }
                        })
                    }
                }
            };
            for (i1, w1) in p1.iter().enumerate() {
                let x1s = x1 + i1 as i64 - k1r;
                let ww = w * w1;
                let (dec, ok) = decide(x1s);
                let hier_right = (dec == Decision::Target) == target;
                let nh_right = nohier(x1s) == target;
                if hier_right {
                    out.p_correct += ww;
                }
                if nh_right {
                    out.p_correct_no_hier += ww;
                }
                if hier_right && !nh_right {
                    out.gain += ww;
                }
                if !hier_right && nh_right {
                    out.loss += ww;
                }
                if dec == Decision::Tie {
                    out.tie_mass += ww;
                }
                if !ok {
                    out.unresolved_mass += ww;
                }
            }
        }
    }
    Ok(out)
}

/// One tile of a decision map (Figure 4).
#[derive(Clone, Debug)]
pub struct Tile {
    pub x1s: i64,
    pub x2s: i64,
    pub y1s: i64,
    /// P[X₁ = m+1 | D] in f64 under the procedure
    pub posterior: f64,
    pub decision: Decision,
    pub decision_no_hier: Decision,
}

/// Decision map over x₁* × x₂* × y₁* ranges (KR Figure 4: x₁* ∈ {−1, 0, 1, 2}, −3 ≤ x₂* ≤ 5, −30 ≤ y₁* ≤ 30).
pub fn decision_map(t: &TwoLevel, proc: Procedure, x1s: &[i64], x2r: (i64, i64), yr: (i64, i64)) -> Result<Vec<Tile>, String> {
    let f = F64::new(t);
    let mut out = Vec::new();
    for &a in x1s {
        for x2s in x2r.0..=x2r.1 {
            for y1s in yr.0..=yr.1 {
                let d = Data { x1s: a, x2s, y1s };
                let (post, dec) = match proc {
                    Procedure::Exact | Procedure::Gibbs(Sampler::Correct) => {
                        let l = f.lo + f.r1 * (2 * (a - f.m) - 1) as f64 + f.g(&t.prior, x2s, y1s);
                        (1.0 / (1.0 + (-l).exp()), t.decide_exact(&d).0)
                    }
                    Procedure::Gibbs(s) => {
                        let p = t.gibbs_stationary(&d, s, 0, 64)?.p_target.to_f64();
                        (p, t.decide_sampler(&d, s).0)
                    }
                };
                let nh = if f.lo + f.r1 * (2 * (a - f.m) - 1) as f64 > 0.0 { Decision::Target } else { Decision::Other };
                out.push(Tile { x1s: a, x2s, y1s, posterior: post, decision: dec, decision_no_hier: nh });
            }
        }
    }
    Ok(out)
}
