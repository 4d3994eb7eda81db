//! Certified discretisation of a privacy-loss law (`noise::loss::LossLaw`) onto the grid c + hℤ: a
//! *dominating* law (upper bound of δ(ε) for every ε, and of every composition) and a *dominated* one
//! (lower bound), each with a bracket error of second order in h.
//!
//! Both rest on post-processing [ZDW22]: if (A′, B′) can be turned into (A, B) by a (randomised) map of
//! outputs, (A′, B′) dominates (A, B) — its δ(ε) is at least as large for every ε — and domination survives
//! composition. Two constructions on the cells [ℓ_k, ℓ_{k+1}), ℓ_k = c + hk:
//!
//! * **Upper (connect the dots, [DGK22])**: every output with loss ℓ ∈ [ℓ_k, ℓ_{k+1}] is split into two
//!   outputs with losses ℓ_k and ℓ_{k+1}, its A-mass divided so that its B-mass is kept. Merging the two
//!   back recovers the original, so the split pair dominates. Summed over a cell with masses (α, β):
//!
//!     a_k = (β e^{ℓ_{k+1}} − α)/(e^h − 1),    a_{k+1} = (α − β e^{ℓ_k})/(1 − e^{−h}),      (1)
//!
//!   both in [0, α] since β/α ∈ [e^{−ℓ_{k+1}}, e^{−ℓ_k}]. The mean loss grows by O(h²) only.
//! * **Lower (balanced merging)**: outputs are merged (a post-processing, so the merged pair is
//!   dominated) into bins whose likelihood ratio A/B is *exactly* e^{t} for a grid point t: a sweep over
//!   small items (cells of width h/m, or whole cells where the mass is negligible) takes whole items while
//!   the bin's ratio is on one side of e^t and the fraction λ of the next item that brings it to e^t
//!   (splitting an item into two with the same ratio is a randomised relabelling: free). The sweep runs
//!   from the end where the mass piles up (the top if the support's top is a limit point, as for the `Add`
//!   pair of a subsampled mechanism; else the bottom — an atom at the top being aligned with the grid) to
//!   the light end, so that the only bin that is not balanced holds the light tail; its loss is rounded
//!   *down* to the grid (a pointwise decrease of the loss, which lowers δ). The merged bins lose only the
//!   within-bin spread, O(h²).
//!
//! Outside the window (the planning quantiles at ~2^-bits of mass) the upper law rounds losses up (mass
//! above the window to +∞, below it to the first grid point) and the lower law rounds them down (mass below
//! dropped, mass above placed at the last grid point): pointwise changes of L in the safe direction, which
//! keep each bound valid for every composition because δ of a composition is non-decreasing in every
//! component's loss ([SSW24, Lemma A.9]: (1 − e^{ε−Σℓ})₊ is non-decreasing in each ℓ).
//!
//! Only A-masses are stored: for the upper law (a true pair) B = e^{−L}A exactly; the lower law is used
//! only through E_A[(1 − e^{ε − L})₊], which needs A alone. Every mass is a certified interval; the lower
//! law's placements are certified to exceed the bins' true losses by at most `slack` (from the intervals'
//! widths, ~2^-prec), which the profile absorbs by evaluating at ε + n·slack.

use crate::error::Fallible;
use crate::noise::loss::{Direction, End, LossLaw, Split};
use crate::num::Interval;
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// A privacy-loss law on the grid c + hℤ: A-masses `masses[i]` at loss c + h(min + i), and A[L = +∞].
#[derive(Clone, Debug)]
pub struct LossGrid {
    pub h: Rational,
    pub c: Rational,
    pub min: i64,
    pub masses: Vec<Interval>,
    pub inf: Interval,
    /// every placed loss exceeds the true loss of its (merged) output by at most this (lower laws)
    pub slack: Rational,
    /// true: dominating (upper bounds); false: dominated (lower bounds)
    pub upper: bool,
}

impl LossGrid {
    pub fn len(&self) -> usize {
        self.masses.len()
    }

    pub fn is_empty(&self) -> bool {
        self.masses.is_empty()
    }

    pub fn max(&self) -> i64 {
        self.min + self.masses.len() as i64 - 1
    }

    /// Loss of grid index j (exact).
    pub fn loss(&self, j: i64) -> Rational {
        self.c.clone() + self.h.clone() * Rational::from(j)
    }

    /// Total finite A-mass (enclosed) and the mass at +∞: together at most 1 (upper laws may exceed 1 by
    /// the intervals' widths only).
    pub fn finite_mass(&self) -> Interval {
        let p = self.inf.prec();
        self.masses.iter().fold(Interval::zero(p), |a, m| a.add(m))
    }
}

/// How finely the lower law is built: items of width h/`FINE` in unit cells whose A-mass exceeds
/// `FINE_FROM` (elsewhere one item per cell).
const FINE: i64 = 4;
const FINE_FROM: f64 = 1e-12;

/// Largest number of cells one discretisation may have (both walks together). A cell keeps a split of four
/// MPFR intervals (~0.5 kB at the grid's working precision) and, in the dominated law, up to `FINE` merge
/// items (~0.3 kB each): ~1.6 GB at this limit, for each of the two laws one grid step builds at once.
/// (4 million per walk let three subsampled Gaussian steps at σ = 1e-3 grow to 24 GB and be killed; the
/// largest discretisation of `tightdp reproduce`, the engine-choice table and the test suites has under
/// 20,000 cells.)
pub const MAX_CELLS: usize = 1_000_000;

/// Largest number of grid points of one dense discretised law (an interval each, ~0.13 kB: ~1 GB).
const MAX_DENSE: i64 = 8_000_000;

/// Widest cell (grid steps).
const MAX_WIDTH: i64 = 1 << 20;

/// A cell of width w (grid steps) and A-mass m is kept coarse while m·w² ≤ 2^-10: its contribution to
/// the bracket (second order in its width, weighted by its mass) is then below a thousandth of a unit
/// cell's.
fn coarse_ok(m: &Interval, w: i64) -> bool {
    w == 1 || m.hi().to_f64() * (w as f64) * (w as f64) <= 1.0 / 1024.0
}

/// The cells of a discretisation: grid indices of their edges (increasing) and the law's masses on both
/// sides of every edge.
#[derive(Clone, Debug)]
pub struct Cells {
    pub c: Rational,
    pub h: Rational,
    pub edges: Vec<i64>,
    pub splits: Vec<Split>,
}

/// The grid offset c: the top end of the support if it is an atom or a pile, else the bottom one, else
/// the law's lattice offset if its losses lie on a lattice (the discrete Gaussian's a + sℤ: a step that
/// divides s then holds every loss exactly), else 0. An end's certified lower bound (an exact binary
/// rational) is used, so an atom there is at or above its grid point by at most its enclosure's width,
/// which the merge's certification absorbs — lowered by h·2⁻⁶⁴ for an atom, so that the atom lies
/// strictly inside its cell: a law whose split is itself an enclosure (a subsampled law asks its base at
/// rationals around the preimage) cannot tell on which side of an edge *at* the atom its mass lies, and
/// gave the bracket [0, 1] (`laplace:scale=2,q=0.3,n=2` at h = 1/2000). The atom's loss is then placed
/// h·2⁻⁶⁴ low (lower law) or split 2⁻⁶⁴ : 1 (upper law): a change far below the bracket's width. Laws on an
/// exact lattice split exactly at their atoms and keep them on grid points.
fn offset(law: &dyn LossLaw, dir: Direction, h: &Rational) -> Rational {
    let range = law.range(dir);
    let margin = h.clone() / Rational::from(Integer::from(1) << 64u32);
    let exact = law.lattice().is_some();
    let anchor = |e: &End| -> Option<Rational> {
        match e {
            // a law on an exact lattice (randomized response, a stated (ε, δ) guarantee, the lattice laws)
            // splits exactly at its atoms: no margin, so its atoms stay on grid points (27 digits for
            // 10 × dp(1, 1e-6) at h = 1, where the margin left 19)
            End::Atom(i) => i.lo().to_rational().map(|x| if exact { x } else { x - margin.clone() }),
            End::Limit(i) => i.lo().to_rational(),
            End::Open => None,
        }
    };
    anchor(&range.hi)
        .or_else(|| anchor(&range.lo))
        .or_else(|| law.lattice().map(|_| law.lattice_offset()))
        .unwrap_or_else(|| Rational::from(0))
}

/// The cells of `law` on the grid of step h: unit cells where the mass is, widths doubling into the tails
/// while [`coarse_ok`] allows, walking out from the median until the mass beyond the last edge is below
/// 2^-bits (or the support ends).
pub fn cells(law: &dyn LossLaw, dir: Direction, h: &Rational, bits: u32, p: u32) -> Fallible<Cells> {
    cells_within(law, dir, h, bits, p, MAX_CELLS)
}

/// [`cells`], with at most `max_cells` cells.
fn cells_within(law: &dyn LossLaw, dir: Direction, h: &Rational, bits: u32, p: u32, max_cells: usize) -> Fallible<Cells> {
    if *h <= 0 {
        return crate::fallible!(Input, "the grid step must be positive, got {h}");
    }
    // every size refusal names the step and the law, then why
    let too_fine =
        |why: &str| crate::err!(Resource, "the grid step {} is too fine for {}{why}", crate::num::format::fmt_rational(h), law.spec());
    let too_wide = || too_fine(&format!(": its discretised law would span more than {MAX_DENSE} grid points"));
    let c = offset(law, dir, h);
    let (hf, cf) = (h.to_f64(), c.to_f64());
    let index = |x: f64| -> Fallible<i64> {
        let k = ((x - cf) / hf).round();
        if !k.is_finite() || k.abs() > 4e18 {
            return Err(too_fine(""));
        }
        Ok(k as i64)
    };
    let (bottom, top, mut k0) = support_indices(law, dir, &index)?;
    // a law whose losses lie on a lattice aligned with this grid, of step k grid steps: cells of exactly one
    // lattice step from lattice point to lattice point, each holding one loss at its lower edge, which both
    // discretisations then place exactly (coarser cells would spread their atoms)
    let fixed = lattice_cells(law, &c, h);
    if let Some(k) = fixed {
        k0 -= k0.rem_euclid(k);
    }
    let at = |k: i64| -> Fallible<Split> { law.split(dir, &(c.clone() + h.clone() * Rational::from(k)), p) };
    let tiny = Float::with_val(p, Float::i_exp(1, -(bits as i32)));
    let s0 = at(k0)?;
    if spans_too_far(&at, k0, (bottom, top), &tiny)? {
        return Err(too_wide());
    }
    // walk one way: `sign` +1 upward (stop when A[L ≥ edge] is tiny or past the top), −1 downward
    // `cap`: cells this walk may add; `reach`: grid points it may span from the start (the dense law spans
    // both walks' reach)
    let walk = |sign: i64, s0: &Split, cap: usize, reach: i64| -> Fallible<Vec<(i64, Split)>> {
        let mut out: Vec<(i64, Split)> = Vec::new();
        let (mut k, mut s) = (k0, s0.clone());
        let mut w: i64 = 1;
        loop {
            let beyond = if sign > 0 { &s.a_above } else { &s.a_below };
            let past = if sign > 0 { top.is_some_and(|t| k >= t) } else { bottom.is_some_and(|b| k <= b) };
            if *beyond.hi() <= tiny || past {
                return Ok(out);
            }
            if (k - k0).abs() > reach {
                return Err(too_wide());
            }
            if out.len() >= cap {
                return Err(too_fine(&format!(": more than {max_cells} cells")));
            }
            crate::num::cancel::check().map_err(|e| crate::err!(Interrupted, "{e}"))?;
            if let Some(f) = fixed {
                w = f;
            }
            loop {
                let mut next = k + sign * w;
                if let Some(t) = top {
                    if sign > 0 && k < t - 1 && next > t - 1 {
                        next = t - 1;
                    }
                }
                if let Some(b) = bottom {
                    if sign < 0 && k > b + 1 && next < b + 1 {
                        next = b + 1;
                    }
                }
                let t = at(next)?;
                let (m, _) = if sign > 0 { cell(&s, &t, p) } else { cell(&t, &s, p) };
                let width = (next - k).abs();
                if fixed.is_some() || coarse_ok(&m, width) {
                    if coarse_ok(&m, 2 * width) && w < MAX_WIDTH {
                        w = 2 * width;
                    }
                    out.push((next, t.clone()));
                    k = next;
                    s = t;
                    break;
                }
                w = (width / 2).max(1);
            }
        }
    };
    let up = walk(1, &s0, max_cells, MAX_DENSE)?;
    let up_reach = up.last().map_or(0, |(k, _)| k - k0);
    let down = walk(-1, &s0, max_cells - up.len(), MAX_DENSE - up_reach)?;
    let (edges, splits) = in_order(down, (k0, s0), up);
    Ok(Cells { c, h: h.clone(), edges, splits })
}

/// The grid indices bounding the law's support (an atom at an end gets a unit cell of its own; None where
/// it is open), and where the walks start: its median's index, inside them.
fn support_indices(law: &dyn LossLaw, dir: Direction, index: &dyn Fn(f64) -> Fallible<i64>) -> Fallible<(Option<i64>, Option<i64>, i64)> {
    let range = law.range(dir);
    let top = match &range.hi {
        End::Open => None,
        e => Some(index(e.to_f64(1.0))? + 1),
    };
    let bottom = match &range.lo {
        End::Open => None,
        e => Some(index(e.to_f64(-1.0))? - 1),
    };
    let median = law.quantile(dir, -std::f64::consts::LN_2, true);
    let mut k0 = index(if median.is_finite() { median } else { 0.0 })?;
    if let Some(t) = top {
        k0 = k0.min(t - 1);
    }
    if let Some(b) = bottom {
        k0 = k0.max(b + 1);
    }
    Ok((bottom, top, k0))
}

/// True if the walks from k0 must span more than `MAX_DENSE` grid points, known from a few splits before
/// any is walked: where more than `tiny` of the mass lies beyond the edge at k0 + d (below k0 − d), the
/// walk upward (downward) cannot stop before passing it, so the cells span more than d_up + d_down points.
/// (Three subsampled Gaussian steps at σ = 1e-3 walked 60,000 cells of ~1 ms MPFR splits, 95 s, before
/// their span was known to be beyond the limit: 51 million points.)
fn spans_too_far(at: &dyn Fn(i64) -> Fallible<Split>, k0: i64, ends: (Option<i64>, Option<i64>), tiny: &Float) -> Fallible<bool> {
    let (bottom, top) = ends;
    let (mut up, mut down) = (0i64, 0i64);
    for d in (0..5).map(|j| MAX_DENSE >> j) {
        if up == 0 && top.is_none_or(|t| k0 + d < t) && at(k0 + d)?.a_above.lo() > tiny {
            up = d;
        }
        if down == 0 && bottom.is_none_or(|b| k0 - d > b) && at(k0 - d)?.a_below.lo() > tiny {
            down = d;
        }
    }
    Ok(up + down >= MAX_DENSE)
}

/// The edges and splits of the two walks from the start, in increasing order: `down` (walked downward, so
/// reversed), the start, `up`.
fn in_order(down: Vec<(i64, Split)>, start: (i64, Split), up: Vec<(i64, Split)>) -> (Vec<i64>, Vec<Split>) {
    down.into_iter().rev().chain(std::iter::once(start)).chain(up).unzip()
}

/// k when the law's losses lie on a lattice of step s = kh (k ≥ 1 an integer) whose points are grid points
/// (up to 10⁻⁹ of a step: an end atom's grid offset is its enclosure's lower end).
fn lattice_cells(law: &dyn LossLaw, c: &Rational, h: &Rational) -> Option<i64> {
    let s = law.lattice()?;
    let k = Rational::from(&s / h);
    if !k.is_integer() {
        return None;
    }
    let k = k.numer().to_i64().filter(|k| (1..=1 << 20).contains(k))?;
    let j = Rational::from(&(c.clone() - law.lattice_offset()) / &s).to_f64();
    ((j - j.round()).abs() < 1e-9).then_some(k)
}

/// The mass of the cell between two splits, computed from the smaller side (no cancellation).
fn cell(a: &Split, b: &Split, p: u32) -> (Interval, Interval) {
    let half = Float::with_val(p, 0.5);
    let diff = |lo_below: &Interval, hi_below: &Interval, lo_above: &Interval, hi_above: &Interval| {
        let m = if *hi_below.hi() <= half { hi_below.sub(lo_below) } else { lo_above.sub(hi_above) };
        nonneg(m)
    };
    (diff(&a.a_below, &b.a_below, &a.a_above, &b.a_above), diff(&a.b_below, &b.b_below, &a.b_above, &b.b_above))
}

/// An enclosure of a non-negative quantity, clipped at 0.
fn nonneg(m: Interval) -> Interval {
    let p = m.prec();
    let z = Float::with_val(p, 0);
    if *m.hi() < z {
        return Interval::zero(p);
    }
    let lo = if *m.lo() < z { z } else { m.lo().clone() };
    Interval::new(lo, m.hi().clone())
}

/// Working precision for step h: `prec` plus the bits formula (1) cancels (log2 1/h) and guard bits.
fn work_prec(h: &Rational, prec: u32) -> u32 {
    let lh = (-h.to_f64().log2()).max(0.0).ceil() as u32;
    prec + lh + 32
}

/// Dense masses over the grid indices [lo, hi].
fn dense(lo: i64, hi: i64, p: u32) -> Fallible<Vec<Interval>> {
    let n = hi - lo + 1;
    if !(1..=MAX_DENSE).contains(&n) {
        return crate::fallible!(Resource, "a discretised law would span {n} grid points, more than {MAX_DENSE}");
    }
    Ok(vec![Interval::zero(p); n as usize])
}

/// The dominating law (module doc, construction 1) of `law` in direction `dir` on the grid of step h,
/// all but ~2^-bits of the mass inside its cells.
pub fn upper(law: &dyn LossLaw, dir: Direction, h: &Rational, bits: u32, prec: u32) -> Fallible<LossGrid> {
    let p = work_prec(h, prec);
    let cs = cells(law, dir, h, bits, p)?;
    let (lo, hi) = (cs.edges[0], *cs.edges.last().expect("invariant: at least one edge"));
    let mut masses = dense(lo, hi, p)?;
    let one = Interval::one(p);
    // below the first edge: rounded up to it
    masses[0] = masses[0].add(&cs.splits[0].a_below);
    for i in 0..cs.edges.len() - 1 {
        let (ka, kb) = (cs.edges[i], cs.edges[i + 1]);
        let (alpha, beta) = cell(&cs.splits[i], &cs.splits[i + 1], p);
        if *alpha.hi() == 0 {
            continue;
        }
        let la = Interval::from_rational(&(cs.c.clone() + cs.h.clone() * Rational::from(ka)), p);
        let width = Interval::from_rational(&(cs.h.clone() * Rational::from(kb - ka)), p);
        let ew = width.exp();
        let e_lo = la.exp();
        let e_hi = e_lo.mul(&ew);
        // (1) on the cell [ℓ_a, ℓ_b], each part clipped to [0, α]
        let part_a = clip(beta.mul(&e_hi).sub(&alpha).div(&ew.sub(&one)), &alpha);
        let part_b = clip(alpha.sub(&beta.mul(&e_lo)).div(&one.sub(&one.div(&ew))), &alpha);
        let (ia, ib) = ((ka - lo) as usize, (kb - lo) as usize);
        masses[ia] = masses[ia].add(&part_a);
        masses[ib] = masses[ib].add(&part_b);
    }
    // above the last edge: to +∞, with the law's own infinite mass
    let (inf, _) = law.infinite(dir, p)?;
    let inf = inf.add(&cs.splits.last().expect("invariant: at least one split").a_above);
    Ok(trim(LossGrid { h: h.clone(), c: cs.c, min: lo, masses, inf, slack: Rational::from(0), upper: true }))
}

/// A dominated law by rounding every finite loss *down* to the grid: each cell's A-mass placed at its
/// lower edge, the mass above the window at the last grid point, the mass below the window dropped, A[L =
/// +∞] kept. Every change lowers the loss pointwise (or removes A-mass), which lowers δ of every composition
/// ([SSW24, Lemma A.9]: δ(ε) = E_A[(1 − e^{ε − ΣL})₊] is non-decreasing in each loss). First order in h in
/// general, but exact for losses on the grid — the atoms of randomized response, the ±μ/b atoms of the
/// Laplace mechanism (the offset puts the top one on the grid) — where the balanced merge of [`lower`] is
/// weakest.
pub fn lower_rounded(law: &dyn LossLaw, dir: Direction, h: &Rational, bits: u32, prec: u32) -> Fallible<LossGrid> {
    let p = work_prec(h, prec);
    let cs = cells(law, dir, h, bits, p)?;
    let (lo, hi) = (cs.edges[0], *cs.edges.last().expect("invariant: at least one edge"));
    let mut masses = dense(lo, hi, p)?;
    for i in 0..cs.edges.len() - 1 {
        let (alpha, _) = cell(&cs.splits[i], &cs.splits[i + 1], p);
        let j = (cs.edges[i] - lo) as usize;
        masses[j] = masses[j].add(&alpha);
    }
    let last = masses.len() - 1;
    masses[last] = masses[last].add(&nonneg(cs.splits.last().expect("invariant: at least one split").a_above.clone()));
    let (inf, _) = law.infinite(dir, p)?;
    Ok(trim(LossGrid { h: h.clone(), c: cs.c, min: lo, masses, inf, slack: Rational::from(0), upper: false }))
}

/// True if an end of the law's support is an atom (where [`lower_rounded`] helps).
pub fn has_atoms(law: &dyn LossLaw, dir: Direction) -> bool {
    let r = law.range(dir);
    matches!(r.lo, End::Atom(_)) || matches!(r.hi, End::Atom(_))
}

/// x clipped to [0, cap.hi] (an enclosure of a quantity known to lie in [0, cap]).
fn clip(x: Interval, cap: &Interval) -> Interval {
    let x = nonneg(x);
    if x.lo() > cap.hi() {
        return cap.clone();
    }
    let hi = if x.hi() > cap.hi() { cap.hi().clone() } else { x.hi().clone() };
    Interval::new(x.lo().clone(), hi)
}

/// Leading and trailing zero masses removed.
fn trim(mut g: LossGrid) -> LossGrid {
    let first = g.masses.iter().position(|m| *m.hi() > 0).unwrap_or(g.masses.len());
    let last = g.masses.iter().rposition(|m| *m.hi() > 0).map(|i| i + 1).unwrap_or(first);
    if first >= last {
        g.masses = vec![Interval::zero(g.inf.prec())];
        return g;
    }
    g.masses = g.masses[first..last].to_vec();
    g.min += first as i64;
    g
}

/// One item of the merge: an output class with certified masses, its loss within [left, right].
#[derive(Clone, Debug)]
struct Item {
    a: Interval,
    b: Interval,
    af: f64,
    bf: f64,
}

/// The dominated law (module doc, construction 2).
pub fn lower(law: &dyn LossLaw, dir: Direction, h: &Rational, bits: u32, prec: u32) -> Fallible<LossGrid> {
    let p = work_prec(h, prec);
    let cs = cells(law, dir, h, bits, p)?;
    let (c, h) = (cs.c.clone(), cs.h.clone());
    let grid = |k: i64| c.clone() + h.clone() * Rational::from(k);
    // items: the cells, unit cells with mass subdivided into FINE parts
    let mut items: Vec<Item> = Vec::new();
    let sub = Rational::from((1, FINE));
    for i in 0..cs.edges.len() - 1 {
        crate::num::cancel::check().map_err(|e| crate::err!(Interrupted, "{e}"))?;
        let (ka, kb) = (cs.edges[i], cs.edges[i + 1]);
        let (sa, sb) = (&cs.splits[i], &cs.splits[i + 1]);
        let (alpha, _) = cell(sa, sb, p);
        if kb - ka == 1 && alpha.hi().to_f64() > FINE_FROM {
            let mut s = sa.clone();
            for j in 1..=FINE {
                let t = if j == FINE { sb.clone() } else { law.split(dir, &(grid(ka) + h.clone() * sub.clone() * Rational::from(j)), p)? };
                push_item(&mut items, &s, &t, p);
                s = t;
            }
        } else {
            push_item(&mut items, sa, sb, p);
        }
    }
    let k_top = *cs.edges.last().expect("invariant: at least one edge");
    let above = cs.splits.last().expect("invariant: at least one split").a_above.clone();
    let (inf, _) = law.infinite(dir, p)?;
    let mut bins: Vec<(i64, Interval)> = Vec::new();
    let mut slack = Float::with_val(64, 0);
    if !items.is_empty() {
        // one sweep, from the end where the mass piles up (a limit at the top: downward; otherwise upward, an
        // atom at the top being aligned with the grid) to the light end, where the unbalanced rest is left
        let down = matches!(law.range(dir).hi, End::Limit(_));
        let order: Vec<Item> = if down { items.iter().rev().cloned().collect() } else { items.clone() };
        let (swept, rest) = sweep(&order, &c, &h, !down, p, &mut slack)?;
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            let mass: f64 = swept.iter().map(|x| x.1.to_f64()).sum();
            eprintln!("merge {}: {} items, {} bins ({mass:.6e}), rest {:.3e}", law.spec(), items.len(), swept.len(), rest.0.to_f64());
        }
        bins.extend(swept);
        // the rest: merged and rounded down to the grid
        let (ma, mb) = rest;
        if *ma.hi() > 0 {
            if *mb.lo() > 0 && *ma.lo() > 0 {
                // the rest's items all have losses at or above the first edge, so their merged loss does too:
                // the better of the two lower bounds (an enclosure of the ratio too wide to say more put it at
                // index −18532058 for q = 1e-300 at h = 1/100, a dense law of 18.5 million cells)
                let l = ma.div(&mb).ln();
                bins.push((floor_index(l.lo(), &c, &h)?.max(cs.edges[0]), ma));
            } else {
                // no certified ratio: placed at the first edge (a lower bound of every loss in the window)
                bins.push((cs.edges[0], ma));
            }
        }
    }
    // above the last edge: placed there (rounded down); below the first edge: dropped (loss −∞)
    bins.push((k_top, above));
    let kmin = bins.iter().map(|b| b.0).min().unwrap_or(k_top);
    let kmax = bins.iter().map(|b| b.0).max().unwrap_or(k_top);
    let mut masses = dense(kmin, kmax, p)?;
    for (k, m) in bins {
        let i = (k - kmin) as usize;
        masses[i] = masses[i].add(&m);
    }
    // every placement is at most `slack` above its bin's true loss: the offset is lowered by it, so the
    // placed losses are certified lower bounds of the true ones
    let slack_q = Rational::from_f64(slack.to_f64() * 2.0 + f64::MIN_POSITIVE).unwrap_or_else(|| Rational::from(1));
    Ok(trim(LossGrid { h: h.clone(), c: c - slack_q, min: kmin, masses, inf, slack: Rational::from(0), upper: false }))
}

fn push_item(items: &mut Vec<Item>, s: &Split, t: &Split, p: u32) {
    let (a, b) = cell(s, t, p);
    // an item whose masses may both be 0 (an empty cell of a discrete law: the difference of two equal
    // enclosures) is dropped: its ratio is noise that would misplace the merge, and dropping A-mass lowers
    // δ of every composition (the lower law only bounds δ from below)
    if *a.lo() <= 0 && *b.lo() <= 0 {
        return;
    }
    let (af, bf) = (a.mid().to_f64(), b.mid().to_f64());
    items.push(Item { a, b, af, bf });
}

/// The grid index k with c + hk ≤ x < c + h(k + 1).
fn floor_index(x: &Float, c: &Rational, h: &Rational) -> Fallible<i64> {
    let xq = x.to_rational().ok_or_else(|| crate::err!(Internal, "a merged loss is not finite"))?;
    let k = Integer::from(((xq - c.clone()) / h.clone()).floor_ref());
    k.to_i64().ok_or_else(|| crate::err!(Internal, "a grid index is out of range"))
}

/// One sweep of the balanced merge over `items` (in increasing loss order when `up`, decreasing
/// otherwise): the balanced bins (grid index, A-mass) and the unbalanced rest (A, B).
fn sweep(
    items: &[Item],
    c: &Rational,
    h: &Rational,
    up: bool,
    p: u32,
    slack: &mut Float,
) -> Fallible<(Vec<(i64, Interval)>, (Interval, Interval))> {
    let mut bins = Vec::new();
    let mut bin = Bin::new(p);
    let hf = h.to_f64();
    let cf = c.to_f64();
    let step: i64 = if up { 1 } else { -1 };
    for it in items {
        // the fraction of this item not yet placed
        let mut rest = Rational::from(1);
        while rest > 0 {
            let r = rest.to_f64();
            let (rfa, rfb) = (it.af * r, it.bf * r);
            if bin.target.is_none() {
                if !(rfa > 0.0 && rfb > 0.0) {
                    // a part without A- or B-mass cannot set a target: it joins the bin
                    bin.take(it, &rest);
                    break;
                }
                let kf = (((rfa / rfb).ln()) - cf) / hf;
                if !kf.is_finite() || kf.abs() > 4e18 {
                    return crate::fallible!(Internal, "a merge target is out of range");
                }
                let kr = kf.round();
                if (kf - kr).abs() < 1e-9 {
                    // on a grid point (an aligned atom): the part balances alone if certified so
                    let mut alone = Bin::new(p);
                    alone.take(it, &rest);
                    if let Some(m) = alone.certify(kr as i64, c, h, p, slack) {
                        bins.push((kr as i64, m));
                        break;
                    }
                    bin.target = Some(kr as i64 + step);
                } else {
                    bin.target = Some(if up { kf.ceil() } else { kf.floor() } as i64);
                }
            }
            let k = bin.target.expect("invariant: a bin with a target");
            let et = (cf + hf * k as f64).exp();
            let (na, nb) = (bin.fa + rfa, bin.fb + rfb);
            let crosses = if up { na >= et * nb } else { na <= et * nb };
            if !crosses {
                bin.take(it, &rest);
                break;
            }
            // λ of the rest with (A + λa)/(B + λb) = e^t, from the midpoints in MPFR
            let tq = c.clone() + h.clone() * Rational::from(k);
            let etm = Interval::from_rational(&tq, p).exp().mid();
            let num = Float::with_val(p, &etm * &bin.b.mid()) - bin.a.mid();
            let den = Float::with_val(p, &it.a.mid() - Float::with_val(p, &etm * &it.b.mid()));
            let lam = if den == 0 { Float::with_val(p, 0) } else { num / den };
            let lam_q = lam.to_rational().unwrap_or_else(|| Rational::from(0)).clamp(&Rational::from(0), &rest);
            let mut trial = bin.clone();
            trial.take(it, &lam_q);
            match trial.certify(k, c, h, p, slack) {
                Some(m) => {
                    bins.push((k, m));
                    rest -= lam_q;
                    bin = Bin::new(p);
                }
                None => {
                    // not certified balanced (enclosures too wide, or λ rounded away): aim at the next grid
                    // point, where this bin can still balance
                    bin.target = Some(k + step);
                }
            }
        }
    }
    Ok((bins, (bin.a, bin.b)))
}

/// A bin of the merge being filled: certified and f64 masses, and its target grid index.
#[derive(Clone, Debug)]
struct Bin {
    a: Interval,
    b: Interval,
    fa: f64,
    fb: f64,
    target: Option<i64>,
}

impl Bin {
    fn new(p: u32) -> Bin {
        Bin { a: Interval::zero(p), b: Interval::zero(p), fa: 0.0, fb: 0.0, target: None }
    }

    /// Take the fraction `f` of item `it`.
    fn take(&mut self, it: &Item, f: &Rational) {
        self.a = self.a.add(&it.a.mul_rational(f));
        self.b = self.b.add(&it.b.mul_rational(f));
        let ff = f.to_f64();
        self.fa += it.af * ff;
        self.fb += it.bf * ff;
    }

    /// The bin's A-mass if its true loss ln(A/B) is certified to be at least t − 1e-20 (t = c + hk),
    /// recording the excess of t over the certified lower end in `slack`.
    fn certify(&self, k: i64, c: &Rational, h: &Rational, p: u32, slack: &mut Float) -> Option<Interval> {
        if !(*self.a.lo() > 0 && *self.b.lo() > 0) {
            return None;
        }
        let t = Interval::from_rational(&(c.clone() + h.clone() * Rational::from(k)), p);
        let l = self.a.div(&self.b).ln();
        let gap = Float::with_val_round(64, t.hi() - l.lo(), Round::Up).0;
        if gap > 1e-20 {
            return None;
        }
        if gap > *slack {
            *slack = gap;
        }
        Some(self.a.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::noise::laplace::Laplace;

    fn laplace() -> Laplace {
        Laplace::new(Rational::from(1), Rational::from(1)).expect("a valid Laplace law")
    }

    /// A step so fine that the Laplace law's support spans 2e9 grid points is refused from a few splits,
    /// before any cell is walked (three subsampled Gaussian steps at σ = 1e-3 once walked 4 million cells
    /// per law, 24 GB, and then, bounded, 95 s of cells before their span was known).
    #[test]
    fn a_grid_spanning_beyond_the_dense_limit_is_refused_before_it_is_walked() {
        let h = Rational::from((1, 1_000_000_000));
        let e = cells(&laplace(), Direction::Remove, &h, 40, 96).expect_err("2e9 grid points are beyond the limit");
        assert_eq!(e.kind(), ErrorKind::Resource, "{e}");
        assert!(e.message().contains(&format!("would span more than {MAX_DENSE} grid points")), "{e}");
    }

    /// A walk that needs more cells than its limit stops at the limit with a resource refusal (its memory
    /// bounded): the Laplace law at h = 1e-5 needs more than 1,000 cells, and has them under the real limit.
    #[test]
    fn a_walk_beyond_its_cell_limit_is_refused_at_the_limit() {
        let h = Rational::from((1, 100_000));
        let e = cells_within(&laplace(), Direction::Remove, &h, 40, 96, 1000).expect_err("more than 1000 cells");
        assert_eq!(e.kind(), ErrorKind::Resource, "{e}");
        assert!(e.message().contains("more than 1000 cells"), "{e}");
        let cs = cells(&laplace(), Direction::Remove, &h, 40, 96).expect("within the limit");
        assert!(cs.edges.len() > 1000 && cs.edges.len() <= MAX_CELLS, "{} cells", cs.edges.len());
    }
}
