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

use crate::error::Fallible;
use crate::risk::hier::{separated, Data, Factors, Prior2, Sampler, TwoLevel};
use crate::risk::single::Decision;
use crate::risk::{dg_pmf_f64, dg_sum_pmf_f64, logsumexp};
use crate::{err, fallible};
use std::rc::Rc;

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

impl CorrectProb {
    /// Add the probabilities w·p₁ of one data point with decisions `cell`, p₁[i] the probability of
    /// x₁* = x1s0 + i, `nohier[i]` its no-hierarchy decision (false below `nh_from`, true from there), for
    /// the truth x₁ = m+1 (`target`) or m. The same sums, in the same order, as adding x₁* one by one;
    /// the runs of x₁* with one decision and one no-hierarchy decision are added as runs.
    fn add_cell(&mut self, w: f64, p1: &[f64], x1s0: i64, cell: &Cell, nohier: &[bool], nh_from: usize, target: bool) {
        let n1 = p1.len();
        let at = |x1s: i64| (x1s - x1s0).clamp(0, n1 as i64) as usize;
        let (b1, b2) = (at(cell.first_not_other), at(cell.first_target));
        let mut cuts = [0, b1, b2, nh_from, n1];
        cuts.sort_unstable();
        for run in cuts.windows(2) {
            let (a, b) = (run[0], run[1]);
            if a >= b1 && b <= b2 {
                // the ties (and anything else evaluated between Other and Target), one by one
                for i1 in a..b {
                    let (dec, ok) = cell.get(x1s0 + i1 as i64);
                    self.add_run(w, &p1[i1..i1 + 1], dec, ok, target, nohier[i1]);
                }
            } else {
                let dec = if b <= b1 { Decision::Other } else { Decision::Target };
                self.add_run(w, &p1[a..b], dec, true, target, a >= nh_from);
            }
        }
    }

    /// Add the probabilities w·p₁ of a run of x₁* with one decision `dec` (certified: `ok`) and one
    /// no-hierarchy decision (`no_hier_target`: m+1 decided), for the truth x₁ = m+1 (`target`) or m,
    /// each in order of x₁*.
    fn add_run(&mut self, w: f64, p1: &[f64], dec: Decision, ok: bool, target: bool, no_hier_target: bool) {
        let hier_right = (dec == Decision::Target) == target;
        let nh_right = no_hier_target == target;
        for w1 in p1 {
            let ww = w * w1;
            if hier_right {
                self.p_correct += ww;
            }
            if nh_right {
                self.p_correct_no_hier += ww;
            }
            if hier_right && !nh_right {
                self.gain += ww;
            }
            if !hier_right && nh_right {
                self.loss += ww;
            }
            if dec == Decision::Tie {
                self.tie_mass += ww;
            }
            if !ok {
                self.unresolved_mass += ww;
            }
        }
    }
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
        self.step_key(prior, k1, x2s, y1s).map(|key| (key.a, self.log_weights(&key)))
    }

    /// What the X₂-step for k₁ at (x₂*, y₁*) depends on (None: empty support).
    fn step_key(&self, prior: &Prior2, k1: i64, x2s: i64, y1s: i64) -> Option<StepKey> {
        let tau = self.r2 + self.rd;
        let c = (self.r2 * x2s as f64 + self.rd * (y1s + k1) as f64) / tau;
        let (a, b) = k2_window(prior, k1, c, tau)?;
        Some(StepKey { a, b, lp: log_prior_w(prior, k1).to_bits(), x2s, s: y1s + k1 })
    }

    /// lp − ρ₂(x₂* − k₂)² − (ρ₁/d)(y₁* + k₁ − k₂)² on the window.
    fn log_weights(&self, key: &StepKey) -> Vec<f64> {
        let mut v = Vec::new();
        self.log_weights_into(key, &mut v);
        v
    }

    /// [`F64::log_weights`] into `v`.
    fn log_weights_into(&self, key: &StepKey, v: &mut Vec<f64>) {
        let lp = f64::from_bits(key.lp);
        v.clear();
        v.extend((key.a..=key.b).map(|k2| lp - self.r2 * ((key.x2s - k2) as f64).powi(2) - self.rd * ((key.s - k2) as f64).powi(2)));
    }

    /// G(x₂*, y₁*) = ln S_{m+1} − ln S_m of the exact posterior.
    fn g(&self, prior: &Prior2, x2s: i64, y1s: i64) -> f64 {
        let s = |k1: i64| self.x2_step(prior, k1, x2s, y1s).map(|(_, v)| logsumexp(&v)).unwrap_or(f64::NEG_INFINITY);
        s(self.m + 1) - s(self.m)
    }

    /// The exact posterior's log odds l = lo + r₁(2(x₁* − m) − 1) + G.
    fn log_odds(&self, x1s: i64, g: f64) -> f64 {
        self.lo + self.r1 * (2 * (x1s - self.m) - 1) as f64 + g
    }
}

/// The arguments the log-weights of an X₂-step depend on: window [a, b] of k₂, log prior weight (bits),
/// x₂* and s = y₁* + k₁. Neighbouring data points share steps: for the unbounded prior, the step of
/// k₁ = m+1 at y₁* is the step of k₁ = m at y₁* + 1 whenever the window is not cut at k₁.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StepKey {
    a: i64,
    b: i64,
    lp: u64,
    x2s: i64,
    s: i64,
}

/// An X₂-step evaluated: ln S = logsumexp of its log-weights and, for the paper's sampler, the
/// normalised weights P₂(k₂|k₁) above 1e-18 with their k₂.
struct Step {
    lse: f64,
    probs: Option<Vec<(i64, f64)>>,
}

impl Step {
    /// `lse`, when known, is the logsumexp of these log-weights computed before (the same value);
    /// `v` is scratch space.
    fn new(f: &F64, key: &StepKey, lse: Option<f64>, with_probs: bool, v: &mut Vec<f64>) -> Step {
        f.log_weights_into(key, v);
        let lse = lse.unwrap_or_else(|| logsumexp(v));
        let probs = with_probs.then(|| {
            let mut probs = Vec::with_capacity(v.len());
            for (j, x) in v.iter().enumerate() {
                let pj = (x - lse).exp();
                if pj > 1e-18 {
                    probs.push((key.a + j as i64, pj));
                }
            }
            probs
        });
        Step { lse, probs }
    }
}

/// e^{(ρ₁/d)·z} for integers z, each computed once (the factors e^{−B(k₂)} of the paper's X₁-step
/// depend on the data only through z = 2(y₁* − k₂ + m) + 1).
struct ExpTable {
    rd: f64,
    z0: i64,
    vals: Vec<f64>,
}

impl ExpTable {
    /// Cover [zlo, zhi] (growing by at least the current length, so that a sweep extends it rarely).
    fn cover(&mut self, zlo: i64, zhi: i64) {
        let (z0, len) = (self.z0, self.vals.len() as i64);
        if len > 0 && zlo >= z0 && zhi < z0 + len {
            return;
        }
        let (lo, hi) = if len == 0 {
            (zlo, zhi)
        } else {
            (if zlo < z0 { zlo.min(z0 - len) } else { z0 }, if zhi >= z0 + len { zhi.max(z0 + 2 * len - 1) } else { z0 + len - 1 })
        };
        let old = std::mem::take(&mut self.vals);
        self.vals = (lo..=hi).map(|z| if z >= z0 && z < z0 + len { old[(z - z0) as usize] } else { (self.rd * z as f64).exp() }).collect();
        self.z0 = lo;
    }

    fn get(&self, z: i64) -> f64 {
        self.vals[(z - self.z0) as usize]
    }
}

/// The decisions at one data point (x₂*, y₁*) for every x₁* of interest: Other below
/// `first_not_other`, Target from `first_target` on, the decisions in between (ties) as evaluated.
struct Cell {
    first_not_other: i64,
    first_target: i64,
    between: Vec<(Decision, bool)>,
}

impl Cell {
    fn get(&self, x1s: i64) -> (Decision, bool) {
        if x1s < self.first_not_other {
            (Decision::Other, true)
        } else if x1s >= self.first_target {
            (Decision::Target, true)
        } else {
            self.between[(x1s - self.first_not_other) as usize]
        }
    }
}

fn rank(d: Decision) -> u8 {
    match d {
        Decision::Other => 0,
        Decision::Tie => 1,
        Decision::Target => 2,
    }
}

/// The decisions at x₁* ∈ [lo, hi] of a decider monotone in x₁* (Other, then ties, then Target), from
/// a few evaluations: the first x₁* ranked at least Tie and the first ranked Target, each found by
/// galloping from `hint` and bisection. Every procedure's decision is monotone: the posterior (exact or
/// the sampler's stationary P[X₁ = m+1]) increases strictly with x₁*, and so do the f64 screening
/// values (the log odds is affine in x₁*; the sampler's a − b is a sum of terms monotone in
/// e^{−A}, A affine in x₁* with steps of 2ρ₁ far above libm's error), with near-ties certified.
/// `seen` is scratch space for the decisions evaluated.
fn monotone_cell(lo: i64, hi: i64, hint: i64, seen: &mut Vec<Option<(Decision, bool)>>, decide: impl Fn(i64) -> (Decision, bool)) -> Cell {
    seen.clear();
    seen.resize((hi - lo + 1) as usize, None);
    let mut at = |x: i64| -> (Decision, bool) { *seen[(x - lo) as usize].get_or_insert_with(|| decide(x)) };
    // smallest x in [from, hi] with rank ≥ r (hi + 1 if none); x = from − 1 counts as below r
    let mut first_at_least = |r: u8, from: i64, hint: i64| -> i64 {
        let h = hint.clamp(from, hi);
        let (mut bad, mut good);
        if rank(at(h).0) >= r {
            good = h;
            bad = from - 1;
            let mut step = 1;
            while good - step >= from {
                let x = good - step;
                if rank(at(x).0) >= r {
                    good = x;
                    step *= 2;
                } else {
                    bad = x;
                    break;
                }
            }
        } else {
            bad = h;
            good = hi + 1;
            let mut step = 1;
            while bad + step <= hi {
                let x = bad + step;
                if rank(at(x).0) >= r {
                    good = x;
                    break;
                }
                bad = x;
                step *= 2;
            }
        }
        while good - bad > 1 {
            let mid = bad + (good - bad) / 2;
            if rank(at(mid).0) >= r {
                good = mid;
            } else {
                bad = mid;
            }
        }
        good
    };
    let first_not_other = first_at_least(1, lo, hint);
    let first_target = if first_not_other > hi { first_not_other } else { first_at_least(2, first_not_other, first_not_other) };
    let between = (first_not_other..first_target).map(&mut at).collect();
    Cell { first_not_other, first_target, between }
}

/// P(correct decision) for the truth (x₁, x₂), x₁ ∈ {m, m+1}, optionally restricted to a window of
/// (x₂*, y₁*) (the paper's −3 ≤ x₂* ≤ 5, −30 ≤ y₁* ≤ 30).
pub fn prob_correct(t: &TwoLevel, proc: Procedure, x1: i64, x2: i64, window: Option<((i64, i64), (i64, i64))>) -> Fallible<CorrectProb> {
    Decisions::new(t, &[proc]).prob_correct(proc, x1, x2, window)
}

/// Which decisions: the exact posterior's (also the correct sampler's, whose stationary law is the
/// posterior) or the paper's sampler's.
fn kind(proc: Procedure) -> usize {
    match proc {
        Procedure::Exact | Procedure::Gibbs(Sampler::Correct) => 0,
        Procedure::Gibbs(Sampler::Paper) => 1,
    }
}

/// What is known at one data point (x₂*, y₁*): ln S of the two X₂-steps (k₁ = m, m+1; −∞ without
/// support) and the decisions of each kind.
#[derive(Default)]
struct Point {
    lse: Option<[f64; 2]>,
    cells: [Option<Cell>; 2],
}

/// The points (x₂*, y₁*) of one x₂*, by y₁* from `y0`.
#[derive(Default)]
struct Row {
    y0: i64,
    points: Vec<Point>,
}

impl Row {
    /// Make room for y₁* ∈ [lo, hi].
    fn cover(&mut self, lo: i64, hi: i64) {
        if self.points.is_empty() {
            self.y0 = lo;
        }
        if lo < self.y0 {
            let mut v: Vec<Point> = (lo..self.y0).map(|_| Point::default()).collect();
            v.append(&mut self.points);
            self.points = v;
            self.y0 = lo;
        }
        let n = (hi - self.y0 + 1) as usize;
        if self.points.len() < n {
            self.points.resize_with(n, Point::default);
        }
    }
}

/// The decisions of the procedures on one model, per data point (x₂*, y₁*), kept across the truths
/// and procedures asked: the data of neighbouring truths overlap (Figure 5 asks x₂ = 1..30, Figure 6
/// x₂ = 1, 10, 100), and both procedures need the same normalisers ln S.
pub struct Decisions<'a> {
    t: &'a TwoLevel,
    f: F64,
    /// certified factors of the near-tie decisions
    fac: Factors,
    eb: ExpTable,
    /// x₁* of interest: [m − K₁, m + 1 + K₁] (K₁ the radius of the noise pmf of x₁*)
    x1s_range: (i64, i64),
    /// the noise pmfs of x₁*, x₂* and y₁*: (K₁, pmf), (K₂, pmf), (offset, pmf)
    pmfs: [(i64, Vec<f64>); 3],
    /// the rows of x₂* from `x2_0` on
    x2_0: i64,
    rows: Vec<Row>,
    /// scratch space of the searches and of the paper's X₁-step
    seen: Vec<Option<(Decision, bool)>>,
    pw: [Vec<f64>; 2],
    ebs: [Vec<f64>; 2],
    log_w: Vec<f64>,
    /// the step of k₁ = m+1 of the last data point evaluated, for its neighbour along y₁*
    recent: Option<(StepKey, Rc<Step>)>,
    /// per kind, where the last point's decisions turned from Other: where to start the next search
    hint: [i64; 2],
    /// the kinds evaluated together at each point
    joint: [bool; 2],
}

impl<'a> Decisions<'a> {
    /// The decisions of `procs` (the procedures that will be asked; others are evaluated when asked).
    pub fn new(t: &'a TwoLevel, procs: &[Procedure]) -> Decisions<'a> {
        let f = F64::new(t);
        let pmfs = [dg_pmf_f64(f.r1), dg_pmf_f64(f.r2), dg_sum_pmf_f64(f.r1, t.d)];
        let k1r = pmfs[0].0;
        let eb = ExpTable { rd: f.rd, z0: 0, vals: Vec::new() };
        Decisions {
            t,
            f,
            fac: Factors::cached(),
            eb,
            x1s_range: (t.m - k1r, t.m + 1 + k1r),
            pmfs,
            x2_0: 0,
            rows: Vec::new(),
            seen: Vec::new(),
            pw: [Vec::new(), Vec::new()],
            ebs: [Vec::new(), Vec::new()],
            log_w: Vec::new(),
            recent: None,
            hint: [t.m; 2],
            joint: [0, 1].map(|k| procs.iter().any(|p| kind(*p) == k)),
        }
    }

    /// P(correct decision) of `proc` for the truth (x₁, x₂), as [`prob_correct`].
    pub fn prob_correct(&mut self, proc: Procedure, x1: i64, x2: i64, window: Option<((i64, i64), (i64, i64))>) -> Fallible<CorrectProb> {
        let t = self.t;
        if x1 != t.m && x1 != t.m + 1 {
            return fallible!(Input, "true x1 must be m or m+1 (m = {}), got {x1}", t.m);
        }
        if x2 < x1 {
            return fallible!(Input, "true x2 = {x2} is below x1 = {x1}");
        }
        let kind = kind(proc);
        let [(k1r, p1), (k2r, p2), (yoff, py)] = std::mem::take(&mut self.pmfs);
        let out = self.sum_over_data(kind, x1, x2, window, (k1r, &p1), (k2r, &p2), (yoff, &py));
        self.pmfs = [(k1r, p1), (k2r, p2), (yoff, py)];
        out
    }

    /// The sums of [`Decisions::prob_correct`] over the data, in the order of the pmfs.
    fn sum_over_data(
        &mut self,
        kind: usize,
        x1: i64,
        x2: i64,
        window: Option<((i64, i64), (i64, i64))>,
        (k1r, p1): (i64, &[f64]),
        (k2r, p2): (i64, &[f64]),
        (yoff, py): (i64, &[f64]),
    ) -> Fallible<CorrectProb> {
        let t = self.t;
        let y1 = x2 - x1;
        let target = x1 == t.m + 1;
        let mut out = CorrectProb::default();
        // no-hierarchy decision (never a tie for rational p, ρ₁: see single::SingleLevel::decide)
        let f = &self.f;
        let nohier: Vec<bool> = (0..p1.len()).map(|i1| f.log_odds(x1 + i1 as i64 - k1r, 0.0) > 0.0).collect();
        // (the log odds increase with x₁*, each operation rounded monotonically: false, then true)
        let nh_from = nohier.partition_point(|nh| !nh);
        if !nohier[nh_from..].iter().all(|nh| *nh) {
            return fallible!(Internal, "the no-hierarchy decisions are not monotone in x1*");
        }
        let (ylo, yhi) = (y1 + yoff, y1 + yoff + py.len() as i64 - 1);
        for (i2, w2) in p2.iter().enumerate() {
            let x2s = x2 + i2 as i64 - k2r;
            if let Some(((a, b), _)) = window {
                if x2s < a || x2s > b {
                    continue;
                }
            }
            let row = self.row(x2s, ylo, yhi);
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
                // per x₁*: the decision, constant on runs of x₁* (Other, ties, Target; the
                // no-hierarchy decision turns at `nh_from`)
                let cell = self.cell(kind, row, x2s, y1s)?;
                out.add_cell(w, p1, x1 - k1r, cell, &nohier, nh_from, target);
            }
        }
        Ok(out)
    }

    /// The index of the row of x₂*, covering y₁* ∈ [ylo, yhi].
    fn row(&mut self, x2s: i64, ylo: i64, yhi: i64) -> usize {
        if self.rows.is_empty() {
            self.x2_0 = x2s;
        }
        if x2s < self.x2_0 {
            let mut v: Vec<Row> = (x2s..self.x2_0).map(|_| Row::default()).collect();
            v.append(&mut self.rows);
            self.rows = v;
            self.x2_0 = x2s;
        }
        let i = (x2s - self.x2_0) as usize;
        if self.rows.len() <= i {
            self.rows.resize_with(i + 1, Row::default);
        }
        self.rows[i].cover(ylo, yhi);
        i
    }

    /// The decisions of `kind` at (x₂*, y₁*) (`row` its row, covering y₁*), evaluated on first use,
    /// together with those of the other procedures asked for that are not known there yet.
    fn cell(&mut self, kind: usize, row: usize, x2s: i64, y1s: i64) -> Fallible<&Cell> {
        let i = (y1s - self.rows[row].y0) as usize;
        let pt = &self.rows[row].points[i];
        if pt.cells[kind].is_none() {
            let want = [0, 1].map(|k| pt.cells[k].is_none() && (k == kind || self.joint[k]));
            let (lse, cells) = self.evaluate(want, x2s, y1s, pt.lse);
            let pt = &mut self.rows[row].points[i];
            pt.lse = Some(lse);
            for (k, c) in cells.into_iter().enumerate() {
                match c {
                    Some(Ok(c)) => pt.cells[k] = Some(c),
                    // the error belongs to the procedure asked; another one's waits until it is asked
                    Some(Err(e)) if k == kind => return Err(e),
                    _ => {}
                }
            }
        }
        Ok(self.rows[row].points[i].cells[kind].as_ref().expect("invariant: evaluated"))
    }

    /// The X₂-step for k₁ at (x₂*, y₁*) (None: no support), reusing the step of the data point
    /// evaluated just before, or its logsumexp computed earlier.
    fn step(&mut self, k1: i64, x2s: i64, y1s: i64, lse: Option<f64>, with_probs: bool) -> Option<(StepKey, Rc<Step>)> {
        let key = self.f.step_key(&self.t.prior, k1, x2s, y1s)?;
        if let Some((k, s)) = &self.recent {
            if *k == key && (s.probs.is_some() || !with_probs) {
                return Some((key, s.clone()));
            }
        }
        Some((key, Rc::new(Step::new(&self.f, &key, lse, with_probs, &mut self.log_w))))
    }

    /// The decisions of the kinds in `want` at (x₂*, y₁*) (`lse`: its ln S if known), from the same
    /// X₂-steps; and the ln S.
    fn evaluate(&mut self, want: [bool; 2], x2s: i64, y1s: i64, lse: Option<[f64; 2]>) -> ([f64; 2], [Option<Fallible<Cell>>; 2]) {
        let m = self.f.m;
        let s0 = self.step(m, x2s, y1s, lse.map(|l| l[0]), want[1]).map(|(_, s)| s);
        let s1 = self.step(m + 1, x2s, y1s, lse.map(|l| l[1]), want[1]);
        // the next point along y₁* may use this step of k₁ = m+1 as its step of k₁ = m
        self.recent = s1.clone();
        let s1 = s1.map(|(_, s)| s);
        let ln_s = |s: &Option<Rc<Step>>| s.as_ref().map(|s| s.lse).unwrap_or(f64::NEG_INFINITY);
        let lse = [ln_s(&s0), ln_s(&s1)];
        let exact = want[0].then(|| Ok(self.exact_cell(x2s, y1s, lse)));
        let paper = want[1].then(|| self.paper_cell(x2s, y1s, [&s0, &s1]));
        (lse, [exact, paper])
    }

    /// The exact posterior's decisions: the sign of the log posterior odds l = lo + r₁(2(x₁* − m) − 1)
    /// + G, G = ln S_{m+1} − ln S_m, near-ties (|l| < 1e-8) settled by `decide_exact`.
    fn exact_cell(&mut self, x2s: i64, y1s: i64, lse: [f64; 2]) -> Cell {
        let (lo, hi) = self.x1s_range;
        let (t, f, fac) = (self.t, &self.f, &self.fac);
        let g = lse[1] - lse[0];
        let cell = monotone_cell(lo, hi, self.hint[0], &mut self.seen, |x1s| {
            let l = f.log_odds(x1s, g);
            if l.is_finite() && l.abs() < 1e-8 {
                t.decide_exact_with(&Data { x1s, x2s, y1s }, fac)
            } else if l > 0.0 {
                (Decision::Target, true)
            } else {
                (Decision::Other, true)
            }
        });
        self.hint[0] = cell.first_not_other;
        cell
    }

    /// The paper's sampler's decisions: X₂-steps P₂(·|k₁) on their windows (entries below 1e-18
    /// dropped) and, per k₂, e^{−B(k₂)} with B(k₂) = −(ρ₁/d)(2(y₁*−k₂+m)+1); then
    /// q(k₂) = 1/(1 + e^{−A}e^{−B(k₂)}) with A = ln(p/(1−p)) + ρ₁(2(x₁*−m)−1): no exponential in the
    /// inner loop.
    fn paper_cell(&mut self, x2s: i64, y1s: i64, steps: [&Option<Rc<Step>>; 2]) -> Fallible<Cell> {
        let m = self.f.m;
        for (i, s) in steps.into_iter().enumerate() {
            let s = s.as_ref().ok_or_else(|| err!(Input, "the X2-step has no support"))?;
            let probs = s.probs.as_ref().expect("invariant: steps of the paper's sampler carry their weights");
            let z = |k2: i64| 2 * (y1s - k2 + m) + 1;
            if let (Some(first), Some(last)) = (probs.first(), probs.last()) {
                self.eb.cover(z(last.0), z(first.0));
            }
            self.pw[i].clear();
            self.pw[i].extend(probs.iter().map(|(_, p)| *p));
            self.ebs[i].clear();
            self.ebs[i].extend(probs.iter().map(|(k2, _)| self.eb.get(z(*k2))));
        }
        let (lo, hi) = self.x1s_range;
        let (t, f, fac) = (self.t, &self.f, &self.fac);
        let sampler = Sampler::Paper;
        let (pw, ebs) = (&self.pw, &self.ebs);
        let cell = monotone_cell(lo, hi, self.hint[1], &mut self.seen, |x1s| {
            let ea = (-(f.lo + f.r1 * (2 * (x1s - f.m) - 1) as f64)).exp();
            // q = 1/(1+u), 1 − q = u/(1+u) = 1/(1 + 1/u), u = e^{−A}e^{−B}
            let a: f64 = pw[0].iter().zip(&ebs[0]).map(|(p, eb)| p / (1.0 + ea * eb)).sum();
            let b: f64 = pw[1].iter().zip(&ebs[1]).map(|(p, eb)| p / (1.0 + 1.0 / (ea * eb))).sum();
            if (a - b).abs() < 1e-10 * (a + b) {
                t.decide_sampler_with(&Data { x1s, x2s, y1s }, sampler, fac)
            } else if a > b {
                (Decision::Target, true)
            } else {
                (Decision::Other, true)
            }
        });
        self.hint[1] = cell.first_not_other;
        Ok(cell)
    }
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
pub fn decision_map(t: &TwoLevel, proc: Procedure, x1s: &[i64], x2r: (i64, i64), yr: (i64, i64)) -> Fallible<Vec<Tile>> {
    let f = F64::new(t);
    // the tiles share their certified likelihood factors: each computed once
    let fac = Factors::cached();
    let mut out = Vec::new();
    for &a in x1s {
        for x2s in x2r.0..=x2r.1 {
            for y1s in yr.0..=yr.1 {
                let d = Data { x1s: a, x2s, y1s };
                let (post, dec) = match proc {
                    Procedure::Exact | Procedure::Gibbs(Sampler::Correct) => {
                        let l = f.lo + f.r1 * (2 * (a - f.m) - 1) as f64 + f.g(&t.prior, x2s, y1s);
                        (1.0 / (1.0 + (-l).exp()), t.decide_exact_with(&d, &fac).0)
                    }
                    Procedure::Gibbs(s) => {
                        // the certified enclosure behind the plotted value decides when it excludes 1/2
                        // (a higher precision then certifies the same decision)
                        let p = t.gibbs_stationary_with(&d, s, 0, 64, &fac)?.p_target;
                        (p.to_f64(), separated(&p).unwrap_or_else(|| t.decide_sampler_with(&d, s, &fac).0))
                    }
                };
                let nh = if f.lo + f.r1 * (2 * (a - f.m) - 1) as f64 > 0.0 { Decision::Target } else { Decision::Other };
                out.push(Tile { x1s: a, x2s, y1s, posterior: post, decision: dec, decision_no_hier: nh });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(c: &CorrectProb) -> [u64; 7] {
        [c.p_correct, c.p_correct_no_hier, c.gain, c.loss, c.tie_mass, c.unresolved_mass, c.mass].map(f64::to_bits)
    }

    /// `add_cell` (runs of x₁*) gives the sums of adding x₁* one by one, bit for bit, wherever the
    /// cell's boundaries and the no-hierarchy turn fall (inside, at the ends, outside the x₁* range).
    #[test]
    fn runs_add_as_one_by_one() {
        let p1 = [0.013, 0.1171, 0.2293, 0.3007, 0.1913, 0.1011, 0.0477];
        let (n1, x1s0, w) = (p1.len(), 10i64, 0.3711);
        let kinds = [(Decision::Tie, true), (Decision::Tie, false), (Decision::Other, true), (Decision::Target, false)];
        for fno in x1s0 - 2..=x1s0 + n1 as i64 + 2 {
            for ft in fno..=x1s0 + n1 as i64 + 2 {
                let between: Vec<(Decision, bool)> = (fno..ft).map(|x| kinds[(x * 7 + fno) as usize % 4]).collect();
                let cell = Cell { first_not_other: fno, first_target: ft, between };
                for nh_from in 0..=n1 {
                    let nohier: Vec<bool> = (0..n1).map(|i| i >= nh_from).collect();
                    for target in [false, true] {
                        let mut got = CorrectProb::default();
                        got.add_cell(w, &p1, x1s0, &cell, &nohier, nh_from, target);
                        // one by one, as the sum over x₁* reads
                        let mut want = CorrectProb::default();
                        for (i1, w1) in p1.iter().enumerate() {
                            let (dec, ok) = cell.get(x1s0 + i1 as i64);
                            let ww = w * w1;
                            let hier_right = (dec == Decision::Target) == target;
                            let nh_right = nohier[i1] == target;
                            if hier_right {
                                want.p_correct += ww;
                            }
                            if nh_right {
                                want.p_correct_no_hier += ww;
                            }
                            if hier_right && !nh_right {
                                want.gain += ww;
                            }
                            if !hier_right && nh_right {
                                want.loss += ww;
                            }
                            if dec == Decision::Tie {
                                want.tie_mass += ww;
                            }
                            if !ok {
                                want.unresolved_mass += ww;
                            }
                        }
                        assert_eq!(bits(&got), bits(&want), "cell [{fno}, {ft}), no-hierarchy from {nh_from}, target {target}");
                    }
                }
            }
        }
    }

    /// The decisions of both procedures evaluated together at each data point (as the figures ask) give
    /// each procedure's P(correct) bit for bit as a fresh evaluation of that procedure alone, in either
    /// order of asking.
    #[test]
    fn joint_decisions_match_one_procedure_alone() {
        let t = crate::risk::paper::table6_model(Prior2::Unbounded);
        let procs = [Procedure::Exact, Procedure::Gibbs(Sampler::Paper)];
        let cases = [(1, 1), (1, 3), (0, 2), (1, 10)];
        let alone: Vec<Vec<[u64; 7]>> =
            procs.iter().map(|p| cases.iter().map(|&(x1, x2)| bits(&prob_correct(&t, *p, x1, x2, None).unwrap())).collect()).collect();
        for order in [[0, 1], [1, 0]] {
            let mut d = Decisions::new(&t, &procs);
            for (c, &(x1, x2)) in cases.iter().enumerate() {
                for k in order {
                    assert_eq!(bits(&d.prob_correct(procs[k], x1, x2, None).unwrap()), alone[k][c], "{:?} at ({x1}, {x2})", procs[k]);
                }
            }
        }
    }
}
