//! The privacy profile of a composition of discretised privacy-loss laws (`pld::discretize`): δ(ε) and
//! ε(δ) read off the tails of the composed grid statistic, computed either by direct convolution
//! (`pld::gridpair`, small compositions) or by the certified lattice Fourier inversion (`fourier::lattice`
//! with `sparse` factors, any number of compositions).
//!
//! Factor i is a law on c_i + h(min_i + J_i), J_i ∈ {0, …, len_i − 1} with A-masses a_{i,j}, taken n_i
//! times. The composed loss is L = C + hV with V = Σ J (all copies) and C = Σ n_i (c_i + h min_i). For
//! ε ∈ [C + hk, C + h(k + 1)) (segment k) [SSW24, Lemma A.9]:
//!
//!   δ(ε) = a_∞ + A[V ≥ k + 1] − e^ε B[V ≥ k + 1],        B the law with masses a_{i,j} e^{−(c_i + h(min_i + j))},
//!
//! (B is the composition's second law for a dominating pair; for the dominated law it is the same
//! expression, E_A[e^{−L}·]) and a_∞ = 1 − Π(1 − a_{∞,i})^{n_i}. On a segment δ is e^ε-affine, so ε(δ) is
//! found by a certified search over knots and solved in closed form there.

use crate::error::Fallible;
use crate::fourier::lattice::factor::{Factor, Law};
use crate::fourier::lattice::sparse::SparseLaw;
use crate::fourier::lattice::FourierTails;
use crate::num::Interval;
use crate::pld::discretize::LossGrid;
use crate::pld::search;
use rug::{Float, Integer, Rational};
use std::sync::Arc;

/// Tails of the composed statistic V under A and under B.
pub trait GridTails: Send + Sync + std::fmt::Debug {
    /// A[V ≥ m] (finite losses only).
    fn a_ge(&self, m: i64) -> Fallible<Interval>;
    /// B[V ≥ m].
    fn b_ge(&self, m: i64) -> Fallible<Interval>;
    /// The range of V (beyond it the tails are 0 or the total).
    fn range(&self) -> (i64, i64);
    /// The loss of V = 0 (L = C + hV) and the step h.
    fn frame(&self) -> (&Rational, &Rational);
    /// A[L = +∞] of the composition.
    fn inf(&self) -> &Interval;
    /// Mean and variance of V under A (f64, for the search's starting point).
    fn moments(&self) -> (f64, f64);
    /// Atoms each node of an inversion evaluates (0: no inversion), for the work count of a query.
    fn atoms(&self) -> u64 {
        0
    }
    /// ln A[V ≥ m] and ln B[V ≥ m] in f64, where an uncertified inversion gives them at a fraction of a
    /// certified one's cost (for the search's starting point only, never a value); None otherwise.
    fn ln_tails_f64(&self, _m: i64) -> Option<(f64, f64)> {
        None
    }
}

/// Entries between two e^{−ℓ} computed from ℓ in [`DirectTails::new`] (the products between widen the
/// enclosure by about 2^-63 relative each).
const EXP_EVERY: usize = 64;

/// Tails from the composed law built entry by entry (prefix sums of interval masses).
#[derive(Debug)]
pub struct DirectTails {
    min: i64,
    a_up: Vec<Interval>,
    b_up: Vec<Interval>,
    c: Rational,
    h: Rational,
    inf: Interval,
}

impl DirectTails {
    /// From a composed grid law (`gridpair::compose`); V is counted from its first index.
    pub fn new(g: &LossGrid) -> DirectTails {
        let p = g.inf.prec();
        let n = g.masses.len();
        let mut a_up = vec![Interval::zero(p); n + 1];
        let mut b_up = vec![Interval::zero(p); n + 1];
        // e^{−ℓ_i}, ℓ_i = c + h(min + i): from ℓ_i itself every [`EXP_EVERY`] entries, and in between
        // e^{−ℓ_{i+1}}·e^h (an MPFR exp per entry was most of the time of a 200,000-point grid's tails)
        let e_h = Interval::from_rational(&g.h, p).exp();
        let mut w = Interval::zero(p);
        for i in (0..n).rev() {
            w = match (n - 1 - i) % EXP_EVERY {
                0 => Interval::from_rational(&g.loss(g.min + i as i64), p).neg().exp(),
                _ => w.mul(&e_h),
            };
            a_up[i] = a_up[i + 1].add(&g.masses[i]);
            b_up[i] = b_up[i + 1].add(&g.masses[i].mul(&w));
        }
        DirectTails { min: 0, a_up, b_up, c: g.loss(g.min), h: g.h.clone(), inf: g.inf.clone() }
    }

    fn at(v: &[Interval], i: i64) -> Interval {
        if i < 0 {
            v[0].clone()
        } else if i as usize >= v.len() {
            Interval::zero(v[0].prec())
        } else {
            v[i as usize].clone()
        }
    }
}

impl GridTails for DirectTails {
    fn a_ge(&self, m: i64) -> Fallible<Interval> {
        Ok(Self::at(&self.a_up, m - self.min))
    }

    fn b_ge(&self, m: i64) -> Fallible<Interval> {
        Ok(Self::at(&self.b_up, m - self.min))
    }

    fn range(&self) -> (i64, i64) {
        (self.min, self.min + self.a_up.len() as i64 - 2)
    }

    fn frame(&self) -> (&Rational, &Rational) {
        (&self.c, &self.h)
    }

    fn inf(&self) -> &Interval {
        &self.inf
    }

    fn moments(&self) -> (f64, f64) {
        let n = self.a_up.len() - 1;
        let m: Vec<f64> = (0..n).map(|i| Float::with_val(53, &self.a_up[i].mid() - &self.a_up[i + 1].mid()).to_f64()).collect();
        let t: f64 = m.iter().sum();
        let mean = m.iter().enumerate().map(|(i, x)| i as f64 * x).sum::<f64>() / t;
        let var = m.iter().enumerate().map(|(i, x)| (i as f64 - mean).powi(2) * x).sum::<f64>() / t;
        (mean, var)
    }
}

/// Work units one node of an inversion costs per factor beside its atoms: the factor's complex logarithm and
/// the node's exponential in MPFR (about 20 µs at 128–170 bits, as much as four thousand atoms' products, the
/// pld grid's unit: `pld_grid::one_direction`). Counted as atoms alone, a node of 10^12 exponential-mechanism
/// releases (14 atoms) weighed 14 units for 40 µs of work, and the default budget stood for an hour and a half.
const NODE_FIXED: u64 = 4096;

/// Tails by the certified lattice Fourier inversion of the A- and B-laws (cost independent of n). The
/// inversion works on probability laws: each factor is normalised by its total mass, and the tails are
/// scaled back by Π total_i^{n_i}.
#[derive(Debug)]
pub struct FourierGridTails {
    /// the work of one node of an inversion: the atoms of every factor's law, and [`NODE_FIXED`] per factor
    atoms: u64,
    a: FourierTails,
    b: FourierTails,
    scale_a: Interval,
    scale_b: Interval,
    /// ln of the scales' midpoints (f64: the scales underflow it for many steps)
    ln_scales: (f64, f64),
    range: (i64, i64),
    c: Rational,
    h: Rational,
    inf: Interval,
    moments: (f64, f64),
}

impl FourierGridTails {
    /// `factors`: (law, n) on a common step; `bits`: the relative accuracy asked of each tail.
    pub fn new(factors: &[(LossGrid, u64)], bits: u32) -> Fallible<FourierGridTails> {
        let mut fa = Vec::new();
        let mut fb = Vec::new();
        let mut hi = 0i64;
        let p0 = factors.first().map(|f| f.0.inf.prec()).unwrap_or(128);
        let (mut scale_a, mut scale_b) = (Interval::one(p0), Interval::one(p0));
        let mut bases = Vec::new();
        let mut atoms = 0u64;
        for (g, n) in factors {
            let p = g.inf.prec();
            let Sublattice { masses, w, base } = sublattice(g);
            let bm: Vec<Interval> = masses
                .iter()
                .enumerate()
                .map(|(i, m)| m.mul(&Interval::from_rational(&g.loss(base + w * i as i64), p).neg().exp()))
                .collect();
            let (la, ta) = normalised(&masses)?;
            let (lb, tb) = normalised(&bm)?;
            scale_a = scale_a.mul(&ta.pow_u64(*n));
            scale_b = scale_b.mul(&tb.pow_u64(*n));
            atoms = atoms.saturating_add(la.len() as u64).saturating_add(NODE_FIXED);
            fa.push(Factor { law: Law::Sparse(Arc::new(SparseLaw::new(&la))), n: *n, w });
            fb.push(Factor { law: Law::Sparse(Arc::new(SparseLaw::new(&lb))), n: *n, w });
            hi = hi.saturating_add((masses.len() as i64 - 1).saturating_mul(w).saturating_mul(*n as i64));
            bases.push(base);
        }
        let (c, h, inf) = frame_of(factors, &bases)?;
        let a = FourierTails::new(fa, bits)?;
        let (mean, sd) = a.mean_sd();
        let ln_mid = |s: &Interval| s.mid().ln().to_f64();
        Ok(FourierGridTails {
            atoms,
            a,
            b: FourierTails::new(fb, bits)?,
            ln_scales: (ln_mid(&scale_a), ln_mid(&scale_b)),
            scale_a,
            scale_b,
            range: (0, hi),
            c,
            h,
            inf,
            moments: (mean, sd * sd),
        })
    }
}

/// A grid law's masses on the sublattice base + wℤ of its grid (indices of `LossGrid::loss`).
struct Sublattice {
    masses: Vec<Interval>,
    w: i64,
    base: i64,
}

/// Least share of a dominated law's A-mass on one residue class mod w for the law to be moved onto it.
const SUBLATTICE_SHARE: f64 = 0.98;

/// The law of `g` on its grid (w = 1), or — a dominated law nearly all of whose mass sits on one residue
/// class mod w (the balanced merge of a decreasing density places its bins on every other grid point:
/// `pld::discretize::lower`) — on that class, the rest of its mass rounded *down* to the class's next point
/// below. Lowering losses lowers δ of every composition [SSW24, Lemma A.9], so the law stays dominated; the
/// moved share, at most 1 − [`SUBLATTICE_SHARE`], moves by less than wh. The composition then lives on a
/// lattice where its transform decays: on the grid, the transform of a law on a sublattice nearly returns to
/// 1 at the sublattice's frequency, and the inversion needs more than 100000 nodes (the subsampled Gaussian
/// with sigma 0.8, q = 0.005, 1000 steps, at h = 1/1000: declined; on every other point: answered).
fn sublattice(g: &LossGrid) -> Sublattice {
    let whole = || Sublattice { masses: g.masses.clone(), w: 1, base: g.min };
    if g.upper || g.masses.len() < 8 {
        return whole();
    }
    let f: Vec<f64> = g.masses.iter().map(|m| m.hi().to_f64()).collect();
    let total: f64 = f.iter().sum();
    if !(total > 0.0) {
        return whole();
    }
    // the coarsest w in 2, 4, 8 with a class holding the share
    let mut pick: Option<(i64, i64)> = None;
    for w in [2i64, 4, 8] {
        let mut per = vec![0.0; w as usize];
        for (i, x) in f.iter().enumerate() {
            per[(g.min + i as i64).rem_euclid(w) as usize] += x;
        }
        let (r, best) = per.iter().enumerate().fold((0, 0.0), |acc, (r, x)| if *x > acc.1 { (r, *x) } else { acc });
        if best >= SUBLATTICE_SHARE * total {
            pick = Some((w, r as i64));
        } else {
            break;
        }
    }
    let Some((w, r)) = pick else { return whole() };
    // index k (of the grid) to the class point at or below it: base + w·j
    let j_of = |k: i64| (k - r).div_euclid(w);
    let (j0, j1) = (j_of(g.min), j_of(g.min + g.masses.len() as i64 - 1));
    let p = g.inf.prec();
    let mut masses = vec![Interval::zero(p); (j1 - j0 + 1) as usize];
    for (i, m) in g.masses.iter().enumerate() {
        let j = (j_of(g.min + i as i64) - j0) as usize;
        masses[j] = masses[j].add(m);
    }
    Sublattice { masses, w, base: r + w * j0 }
}

/// Masses divided by their total (enclosed), and the total.
fn normalised(m: &[Interval]) -> Fallible<(Vec<Interval>, Interval)> {
    let p = m.first().map(|x| x.prec()).unwrap_or(128);
    let t = m.iter().fold(Interval::zero(p), |a, x| a.add(x));
    if !(*t.lo() > 0) {
        return crate::fallible!(Declined, "a discretised law without certified mass");
    }
    Ok((m.iter().map(|x| x.div(&t)).collect(), t))
}

impl GridTails for FourierGridTails {
    fn a_ge(&self, m: i64) -> Fallible<Interval> {
        Ok(self.a.ge(m)?.mul(&self.scale_a))
    }

    fn b_ge(&self, m: i64) -> Fallible<Interval> {
        Ok(self.b.ge(m)?.mul(&self.scale_b))
    }

    fn range(&self) -> (i64, i64) {
        self.range
    }

    fn frame(&self) -> (&Rational, &Rational) {
        (&self.c, &self.h)
    }

    fn inf(&self) -> &Interval {
        &self.inf
    }

    fn moments(&self) -> (f64, f64) {
        self.moments
    }

    fn atoms(&self) -> u64 {
        self.atoms
    }

    fn ln_tails_f64(&self, m: i64) -> Option<(f64, f64)> {
        let la = self.a.ln_tail_f64(m, true) + self.ln_scales.0;
        let lb = self.b.ln_tail_f64(m, true) + self.ln_scales.1;
        (!la.is_nan() && !lb.is_nan()).then_some((la, lb))
    }
}

/// C = Σ n_i (c_i + h min_i), the step, and 1 − Π(1 − a_{∞,i})^{n_i} of a composition of grid laws.
fn frame_of(factors: &[(LossGrid, u64)], bases: &[i64]) -> Fallible<(Rational, Rational, Interval)> {
    let first = factors.first().ok_or_else(|| crate::err!(Internal, "an empty grid composition"))?;
    let h = first.0.h.clone();
    let p = first.0.inf.prec();
    let mut c = Rational::from(0);
    let one = Interval::one(p);
    let mut fin = one.clone();
    for ((g, n), base) in factors.iter().zip(bases) {
        if g.h != h {
            return crate::fallible!(Internal, "grid laws of different steps composed");
        }
        c += Rational::from(*n) * (g.c.clone() + h.clone() * Rational::from(*base));
        let keep = one.sub(&g.inf);
        let keep = if *keep.lo() < 0 { Interval::new(Float::with_val(p, 0), keep.hi().clone()) } else { keep };
        fin = fin.mul(&keep.pow_u64(*n));
    }
    Ok((c, h, one.sub(&fin)))
}

/// The profile of one composed grid law (upper or lower).
#[derive(Debug)]
pub struct GridProfile {
    tails: Box<dyn GridTails>,
    h: Rational,
    c: Rational,
    inf: Interval,
    prec: u32,
}

impl GridProfile {
    /// The profile of the composition whose tails `tails` gives.
    pub fn new(tails: Box<dyn GridTails>, prec: u32) -> GridProfile {
        let (c, h) = tails.frame();
        let (c, h) = (c.clone(), h.clone());
        let inf = tails.inf().clone();
        GridProfile { tails, h, c, inf, prec }
    }

    /// Atoms each inversion node evaluates (0 for a directly composed law).
    pub fn atoms(&self) -> u64 {
        self.tails.atoms()
    }

    /// Segment k containing ε: k = ⌊(ε − C)/h⌋.
    fn segment_of(&self, eps: &Rational) -> Fallible<i64> {
        Integer::from(((eps.clone() - self.c.clone()) / self.h.clone()).floor_ref())
            .to_i64()
            .ok_or_else(|| crate::err!(Declined, "a grid index is out of range"))
    }

    fn knot(&self, k: i64) -> Rational {
        self.c.clone() + self.h.clone() * Rational::from(k)
    }

    /// δ(ε) on segment k: a_∞ + A[V ≥ k + 1] − e^ε B[V ≥ k + 1].
    fn delta_on(&self, k: i64, eps: &Rational) -> Fallible<Interval> {
        let p = self.prec + 32;
        let a = self.tails.a_ge(k + 1)?;
        let b = self.tails.b_ge(k + 1)?;
        let e = Interval::from_rational(eps, p).exp();
        Ok(self.inf.add(&a).sub(&e.mul(&b)))
    }

    /// δ(ε), certified.
    pub fn delta(&self, eps: &Rational) -> Fallible<Interval> {
        let k = self.segment_of(eps)?;
        Ok(clip01(self.delta_on(k, eps)?))
    }

    /// ε(δ) = min{ε ≥ 0: δ(ε) ≤ δ}, certified (knot search, closed form on the segment).
    pub fn epsilon(&self, delta: &Rational) -> Fallible<Interval> {
        if *delta <= 0 || *delta >= 1 {
            return crate::fallible!(Input, "delta must be in (0, 1), got {delta}");
        }
        let p = self.prec + 32;
        let dl = Interval::from_rational(delta, p);
        let zero = Rational::from(0);
        let k0 = self.segment_of(&zero)?;
        let (_, vmax) = self.tails.range();
        let kmax = vmax.max(k0 + 1);
        // a knot whose tails decline is undecided (neither above nor below δ); so is one whose tails the work
        // limit refuses (each refused at once: the caller's `with_work_limit` reports it and ends the query)
        let knot_delta = |k: i64| self.delta_on(k, &self.knot(k));
        let above = |k: i64| knot_delta(k).map(|d| d.lo() > dl.hi()).unwrap_or(false);
        let below = |k: i64| knot_delta(k).map(|d| d.hi() < dl.lo()).unwrap_or(false);
        let found = search::knot_bracket_near(k0, kmax, self.hint(delta, k0, kmax), above, below);
        // ε = 0 when δ(0) ≤ δ; a knot a ≥ 0 certainly above δ already certifies δ(0) ≥ δ(ε_a) > δ, and spares
        // the tails at ε = 0 (the dearest of the query: in the bulk, at the floor of the tilt)
        let certainly_positive = matches!(found, Some((Some(a), _)) if self.knot(a) >= 0);
        if !certainly_positive && self.delta(&zero)?.hi() <= dl.lo() {
            return Ok(Interval::zero(self.prec));
        }
        let Some((a, b)) = found else {
            // no knot of the window certifies δ(ε) < δ (δ at or below the mass at +∞, where δ(ε) never
            // falls below it, or a window too short): the upper end is +∞, the lower end the largest
            // knot that certifies δ(ε) > δ
            let lo_end = if above(k0) {
                let (a, _) = crate::num::boundary::integer_boundary(k0, kmax + 1, |m| m > kmax || !above(m));
                Interval::from_rational(&self.knot(a).max(zero.clone()), p).into_parts().0
            } else {
                Float::with_val(p, 0)
            };
            return Ok(Interval::new(lo_end, Float::with_val(p, rug::float::Special::Infinity)));
        };
        if b <= k0 {
            return Ok(Interval::zero(self.prec));
        }
        let first = a.unwrap_or(k0);
        let last = b - 1;
        let lo_end = if a.is_none() {
            Float::with_val(p, 0)
        } else {
            match self.solve(first, &dl)? {
                Some(iv) => iv.into_parts().0,
                None => Interval::from_rational(&self.knot(first + 1).max(zero.clone()), p).into_parts().0,
            }
        };
        let hi_end = match self.solve(last, &dl)? {
            Some(iv) => iv.into_parts().1,
            None => Interval::from_rational(&self.knot(last + 1).max(zero.clone()), p).into_parts().1,
        };
        if lo_end > hi_end {
            return crate::fallible!(Internal, "the certified epsilon bracket on the grid is empty");
        }
        let lo_end = if lo_end < 0 { Float::with_val(p, 0) } else { lo_end };
        Ok(Interval::new(lo_end, hi_end))
    }

    /// The trade-off function f(α) = sup_ε (1 − δ(ε) − e^ε α) [DRS22, Prop. 2.12], certified. On segment k
    /// the bracket is 1 − a_∞ − A[V ≥ k + 1] + e^ε (B[V ≥ k + 1] − α), monotone in ε, and δ is continuous,
    /// so the supremum is the largest of the knot values
    ///
    ///   w_k = 1 − a_∞ − A[V ≥ k + 1] − e^{ε_k} (α − B[V ≥ k + 1]),   ε_k = C + hk,
    ///
    /// and in t = e^ε the expression is concave (δ is convex in t), so w_k is unimodal in k with its peak
    /// where B[V ≥ k] ≥ α ≥ B[V ≥ k + 1]. Those k are located from the certified B tails (bisection), and
    /// the peak's bracket is the hull over every k the enclosures leave possible.
    pub fn tradeoff(&self, alpha: &Rational) -> Fallible<Interval> {
        if *alpha < 0 || *alpha > 1 {
            return crate::fallible!(Input, "alpha must be in [0, 1], got {alpha}");
        }
        let p = self.prec + 32;
        // the ends exactly: f(0) = 1 − a_∞ (the limit ε → ∞; only the losses +∞ are rejected for free),
        // f(1) = 0 (always reject)
        if *alpha == 0 {
            return Ok(clip01(Interval::one(p).sub(&self.inf)));
        }
        if *alpha == 1 {
            return Ok(Interval::zero(self.prec));
        }
        let al = Interval::from_rational(alpha, p);
        let (vmin, vmax) = self.tails.range();
        // kl: the largest k with B[V ≥ k] certainly above α (the peak is at or after it); ku: the smallest
        // k with B[V ≥ k + 1] certainly below α (the peak is at or before it)
        let above = |k: i64| self.tails.b_ge(k).map(|b| b.lo() > al.hi());
        let below = |k: i64| self.tails.b_ge(k + 1).map(|b| b.hi() < al.lo());
        let (mut lo, mut hi) = (vmin - 1, vmax + 1);
        // above(vmin - 1)... is B[V ≥ vmin − 1] = B[finite] > α; if not, the peak is the first knot
        let kl = if above(vmin)? {
            let mut a = vmin;
            while hi - a > 1 {
                let mid = a + (hi - a) / 2;
                if above(mid)? {
                    a = mid;
                } else {
                    hi = mid;
                }
            }
            a
        } else {
            vmin - 1
        };
        let ku = if below(vmin - 1)? {
            vmin - 1
        } else {
            let mut b = vmax;
            while b - lo > 1 {
                let mid = lo + (b - lo) / 2;
                if below(mid)? {
                    b = mid;
                } else {
                    lo = mid;
                }
            }
            b
        };
        let (kl, ku) = (kl.min(ku), ku.max(kl));
        if ku - kl > 64 {
            return crate::fallible!(Declined, "the grid tails do not locate the trade-off's knot (a window of {} knots)", ku - kl + 1);
        }
        let one = Interval::one(p);
        let mut out: Option<Interval> = None;
        for k in kl..=ku {
            let a = self.tails.a_ge(k + 1)?;
            let b = self.tails.b_ge(k + 1)?;
            let e = Interval::from_rational(&self.knot(k), p).exp();
            let w = one.sub(&self.inf).sub(&a).sub(&e.mul(&al.sub(&b)));
            out = Some(match out {
                None => w,
                Some(o) => {
                    let (lo, hi) = o.into_parts();
                    Interval::new(lo.max(w.lo()), hi.max(w.hi()))
                }
            });
        }
        let f = out.ok_or_else(|| crate::err!(Internal, "no knot for the trade-off"))?;
        Ok(clip01(f))
    }

    /// A guess of the first knot in [k0, kmax] where δ(ε) falls below δ: the Gaussian guess
    /// ([`Self::gaussian_hint`]), moved to the crossing of the tails' f64 inversion where they have one (not
    /// certified: it only starts the certified search, whose every knot costs two certified inversions —
    /// from the Gaussian guess alone the search gallops and bisects over thousands of knots, a hundred
    /// inversions at 10¹² steps).
    fn hint(&self, delta: &Rational, k0: i64, kmax: i64) -> i64 {
        let k = self.gaussian_hint(delta).clamp(k0, kmax);
        self.f64_crossing(k, delta.to_f64(), k0, kmax).unwrap_or(k)
    }

    /// The first knot k in [k0, kmax] with δ(ε_k) < δ by the f64 tails, searched from `k`: a gallop (from a
    /// tenth of a standard deviation of V, doubling) brackets the crossing, then regula falsi on
    /// ln δ(ε_k) − ln δ, every third step a bisection, narrows it to one knot. None where the tails have no
    /// f64 inversion or it does not give a bracket within 200 evaluations.
    fn f64_crossing(&self, k: i64, d: f64, k0: i64, kmax: i64) -> Option<i64> {
        let inf = self.inf.mid().to_f64();
        let (hf, cf) = (self.h.to_f64(), self.c.to_f64());
        // ln δ(ε_k) − ln δ on segment k's left knot: δ = a_∞ + A[V ≥ k + 1] − e^{ε_k} B[V ≥ k + 1]
        let g = |k: i64| -> Option<f64> {
            let (la, lb) = self.tails.ln_tails_f64(k.checked_add(1)?)?;
            let v = inf + la.exp() - (cf + hf * k as f64 + lb).exp();
            Some(if v > 0.0 { v.ln() - d.ln() } else { f64::NEG_INFINITY })
        };
        let mut evals = 0u32;
        let mut at = |k: i64| -> Option<f64> {
            evals += 1;
            if evals > 200 {
                return None;
            }
            g(k).filter(|v| !v.is_nan())
        };
        let step0 = ((0.1 * self.tails.moments().1.sqrt()) as i64).max(1);
        // (lo, flo) above δ, (hi, fhi) below it
        let fk = at(k)?;
        let ((mut lo, mut flo), (mut hi, mut fhi)) = if fk >= 0.0 {
            let (mut lo, mut flo, mut step) = (k, fk, step0);
            loop {
                if lo >= kmax {
                    return None;
                }
                let next = lo.saturating_add(step).min(kmax);
                let f = at(next)?;
                if f < 0.0 {
                    break ((lo, flo), (next, f));
                }
                (lo, flo, step) = (next, f, step.saturating_mul(2));
            }
        } else {
            let (mut hi, mut fhi, mut step) = (k, fk, step0);
            loop {
                if hi <= k0 {
                    return Some(k0);
                }
                let next = hi.saturating_sub(step).max(k0);
                let f = at(next)?;
                if f >= 0.0 {
                    break ((next, f), (hi, fhi));
                }
                (hi, fhi, step) = (next, f, step.saturating_mul(2));
            }
        };
        let mut round = 0u32;
        while hi - lo > 1 {
            round += 1;
            let span = (hi - lo) as f64;
            let x = if !round.is_multiple_of(3) && fhi.is_finite() { lo as f64 + span * flo / (flo - fhi) } else { lo as f64 + 0.5 * span };
            let m = (x.round() as i64).clamp(lo + 1, hi - 1);
            let f = at(m)?;
            if f >= 0.0 {
                (lo, flo) = (m, f);
            } else {
                (hi, fhi) = (m, f);
            }
        }
        Some(hi)
    }

    /// The Gaussian guess of the segment where δ(ε) crosses δ: the approximation L ~ N(m, s²) of the composed
    /// loss, whose δ(ε) = Φ̄((ε − m)/s) − e^ε Φ̄((ε − m + s²)/s), solved by bisection (f64, not certified:
    /// it only starts the certified search).
    fn gaussian_hint(&self, delta: &Rational) -> i64 {
        use crate::num::special::normal_sf_f64;
        let (mv, vv) = self.tails.moments();
        let (hf, cf) = (self.h.to_f64(), self.c.to_f64());
        let (m, s) = (cf + hf * mv, hf * vv.sqrt());
        let d = delta.to_f64();
        let f = |e: f64| normal_sf_f64((e - m) / s) - (e + normal_sf_f64((e - m + s * s) / s).ln()).exp();
        let (mut lo, mut hi) = (m.min(0.0) - 1.0, m.abs() + 40.0 * s + 1.0);
        if !(s > 0.0) || !lo.is_finite() || !hi.is_finite() {
            return 0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if f(mid) > d {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let k = ((0.5 * (lo + hi) - cf) / hf).floor();
        if k.is_finite() {
            k.clamp(-4e18, 4e18) as i64
        } else {
            0
        }
    }

    /// The solution of δ(ε) = δ on segment k, ε = ln((a_∞ + A − δ)/B), intersected with the segment; None if
    /// the enclosure does not pin it inside.
    fn solve(&self, k: i64, dl: &Interval) -> Fallible<Option<Interval>> {
        let p = self.prec + 32;
        let a = self.tails.a_ge(k + 1)?;
        let b = self.tails.b_ge(k + 1)?;
        let num = self.inf.add(&a).sub(dl);
        if !(*num.lo() > 0 && *b.lo() > 0) {
            return Ok(None);
        }
        let e = num.div(&b).ln();
        let (l, r) = (Interval::from_rational(&self.knot(k), p), Interval::from_rational(&self.knot(k + 1), p));
        let lo = e.lo().clone().max(l.lo());
        let hi = e.hi().clone().min(r.hi());
        if lo > hi {
            return Ok(None);
        }
        Ok(Some(Interval::new(lo, hi)))
    }
}

fn clip01(v: Interval) -> Interval {
    let p = v.prec();
    v.clamp_to(&Float::with_val(p, 0), &Float::with_val(p, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::gauss::Gaussian;
    use crate::noise::loss::Direction;
    use crate::pld::discretize::{lower, upper};
    use crate::pld::gridpair::compose;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// The two tails engines agree (their ε brackets overlap) and both hold the Gaussian closed form;
    /// at n = 10,000 (beyond the direct engine) the Fourier one still holds it, with the bracket's width
    /// second order in h.
    #[test]
    fn fourier_and_direct_tails_agree_and_hold_the_closed_form() {
        let p = 128;
        let g = Gaussian::new(q("4"), q("1")).unwrap();
        let h = q("1/40");
        let (u, l) = (upper(&g, Direction::Remove, &h, 90, p).unwrap(), lower(&g, Direction::Remove, &h, 90, p).unwrap());
        let d = q("1e-6");
        for n in [8u64, 10_000] {
            let eta = g.eta() * Rational::from(n);
            let truth = crate::pld::search::gaussian_epsilon(&eta, &d, 20, p).unwrap();
            let fu = GridProfile::new(Box::new(FourierGridTails::new(&[(u.clone(), n)], 60).unwrap()), p);
            let fl = GridProfile::new(Box::new(FourierGridTails::new(&[(l.clone(), n)], 60).unwrap()), p);
            let (eu, el) = (fu.epsilon(&d).unwrap(), fl.epsilon(&d).unwrap());
            assert!(el.lo() <= truth.hi() && truth.lo() <= eu.hi(), "n={n}: [{}, {}] misses {truth}", el.lo(), eu.hi());
            let width = Float::with_val(64, eu.hi() - el.lo()).to_f64() / truth.to_f64();
            assert!(width < 1e-2, "n={n}: relative width {width}");
            if n == 8 {
                let (cu, cl) = (compose(&[(u.clone(), n)], 100).unwrap().0, compose(&[(l.clone(), n)], 100).unwrap().0);
                let du = GridProfile::new(Box::new(DirectTails::new(&cu)), p);
                let dl = GridProfile::new(Box::new(DirectTails::new(&cl)), p);
                let (xu, xl) = (du.epsilon(&d).unwrap(), dl.epsilon(&d).unwrap());
                assert!(xu.overlaps(&eu), "upper: direct {xu} vs Fourier {eu}");
                assert!(xl.overlaps(&el), "lower: direct {xl} vs Fourier {el}");
                for e in ["0", "1", "3"] {
                    assert!(du.delta(&q(e)).unwrap().overlaps(&fu.delta(&q(e)).unwrap()), "δ({e})");
                }
            }
        }
    }

    /// The f64 inversion's crossing is the certified search's knot: δ at it is certainly below δ, at the
    /// knot before certainly above (10,000 Gaussian steps on the grid, where the Gaussian guess is off by
    /// dozens of knots).
    #[test]
    fn the_f64_crossing_is_the_certified_knot() {
        let p = 128;
        let g = Gaussian::new(q("4"), q("1")).unwrap();
        let h = q("1/40");
        let u = upper(&g, Direction::Remove, &h, 90, p).unwrap();
        let fu = GridProfile::new(Box::new(FourierGridTails::new(&[(u, 10_000)], 60).unwrap()), p);
        for d in ["1e-6", "1e-3"] {
            let d = q(d);
            let dl = Interval::from_rational(&d, p + 32);
            let k0 = fu.segment_of(&Rational::from(0)).unwrap();
            let (_, kmax) = fu.tails.range();
            let k = fu.f64_crossing(fu.gaussian_hint(&d).clamp(k0, kmax), d.to_f64(), k0, kmax).unwrap();
            // (the Gaussian guess is 37 and 38 knots beyond it)
            assert_ne!(fu.gaussian_hint(&d), k, "δ = {d}: the Gaussian guess is already the knot");
            let at = |k: i64| fu.delta_on(k, &fu.knot(k)).unwrap();
            assert!(at(k).hi() < dl.lo(), "δ = {d}: δ at knot {k} is {}", at(k));
            assert!(at(k - 1).lo() > dl.hi(), "δ = {d}: δ at knot {} is {}", k - 1, at(k - 1));
        }
    }

    /// f(α) of the dominating grid law is at most the Gaussian closed form [DRS22, Cor. 2.13] (noise::gauss,
    /// certified erfc; an independent formula), that of the dominated law at least, and the two are
    /// within O(h²) — direct and Fourier tails, α across the range and at its ends.
    #[test]
    fn tradeoff_brackets_hold_the_gaussian_closed_form() {
        let p = 128;
        let g = Gaussian::new(q("4"), q("1")).unwrap();
        let h = q("1/40");
        let (u, l) = (upper(&g, Direction::Remove, &h, 90, p).unwrap(), lower(&g, Direction::Remove, &h, 90, p).unwrap());
        for n in [8u64, 1000] {
            let eta = g.eta() * Rational::from(n);
            let (pu, pl): (GridProfile, GridProfile) = if n == 8 {
                let (cu, cl) = (compose(&[(u.clone(), n)], 100).unwrap().0, compose(&[(l.clone(), n)], 100).unwrap().0);
                (GridProfile::new(Box::new(DirectTails::new(&cu)), p), GridProfile::new(Box::new(DirectTails::new(&cl)), p))
            } else {
                (
                    GridProfile::new(Box::new(FourierGridTails::new(&[(u.clone(), n)], 60).unwrap()), p),
                    GridProfile::new(Box::new(FourierGridTails::new(&[(l.clone(), n)], 60).unwrap()), p),
                )
            };
            for a in ["0", "1e-9", "1e-3", "1/10", "1/2", "9/10", "1"] {
                let truth = crate::noise::gauss::tradeoff(&eta, &q(a), p).unwrap();
                let (fu, fl) = (
                    pu.tradeoff(&q(a)).unwrap_or_else(|e| panic!("n={n} alpha={a} upper: {e}")),
                    pl.tradeoff(&q(a)).unwrap_or_else(|e| panic!("n={n} alpha={a} lower: {e}")),
                );
                assert!(fu.lo() <= truth.hi() && truth.lo() <= fl.hi(), "n={n} alpha={a}: [{}, {}] misses {truth}", fu.lo(), fl.hi());
                let width = Float::with_val(64, fl.hi() - fu.lo()).to_f64();
                assert!(width < 2e-3, "n={n} alpha={a}: width {width}");
            }
        }
    }

    /// A dominated law with its mass on every other grid point but 0.5% (the balanced merge's pattern)
    /// goes onto that class, the stray mass rounded down to the class point below, the total kept; a
    /// dominating law, or one with a tenth of its mass off the class, stays on the grid.
    #[test]
    fn a_dominated_law_on_every_other_point_moves_onto_them() {
        let p = 64;
        let iv = |x: f64| Interval::from_rational(&Rational::from_f64(x).unwrap(), p);
        // indices 3, 5, …, 21 (odd), and 6 with 0.5% of the mass
        let mut masses = vec![Interval::zero(p); 19];
        let odd = 0.995 / 10.0;
        for i in (0..19).step_by(2) {
            masses[i] = iv(odd);
        }
        masses[3] = iv(0.005);
        let grid = |masses: Vec<Interval>, upper: bool| LossGrid {
            h: q("1/100"),
            c: q("0"),
            min: 3,
            masses,
            inf: Interval::zero(p),
            slack: q("0"),
            upper,
        };
        let s = sublattice(&grid(masses.clone(), false));
        assert_eq!((s.w, s.base, s.masses.len()), (2, 3, 10));
        // index 6 (the 4th entry) joins index 5 (the 2nd point of the class)
        assert!(s.masses[1].lo().to_f64() > odd + 0.004 && s.masses[1].hi().to_f64() < odd + 0.006, "{:?}", s.masses[1]);
        let total = s.masses.iter().fold(Interval::zero(p), |a, x| a.add(x));
        assert!(total.lo().to_f64() > 1.0 - 1e-12 && total.hi().to_f64() < 1.0 + 1e-12);
        assert_eq!(sublattice(&grid(masses.clone(), true)).w, 1);
        let mut spread = masses;
        spread[3] = iv(0.1);
        assert_eq!(sublattice(&grid(spread, false)).w, 1);
    }
}
