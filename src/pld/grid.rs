//! Certified grid rounding for compositions whose loss slopes share no practical lattice
//! (e.g. the 2021 redistricting budgets with denominators 4097, 4099, 241, …).
//!
//! Under the alternative Q the privacy loss of a group of n i.i.d. N_Z(0, σ²) queries with sensitivity
//! μ is L = (μ/σ²)·S + nμ²/(2σ²) (S the sum of the n noise terms), and the composition's loss is the sum
//! of the groups' independent losses. δ(ε) = E_Q[(1 − e^{ε−L})₊] (Lemma A.9 with P[·] = E_Q[e^{−L}·]) is
//! non-decreasing in every L_i pointwise, so rounding each group's loss *up* to the grid gℤ gives a
//! pointwise upper bound δ↑(ε) ≥ δ(ε), rounding *down* a lower bound δ↓(ε) ≤ δ(ε), for every ε; hence
//! ε(δ) ∈ [ε↓(δ), ε↑(δ)]. The bracket width is about (number of groups)·g: the user chooses g.
//! The rounded laws live on one integer lattice (grid indices) and are convolved with the certified
//! double-precision engine (relative error bound, truncation at 2^-160 of mass).

use crate::error::Fallible;
use crate::model::GaussGroup;
use crate::num::Interval;
use crate::pld::frame::TRUNC_BITS_F64;
use crate::pld::lattice::LatticeDist;
use crate::{err, fallible};
use rayon::prelude::*;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

/// Largest grid window (entries) allowed.
pub const MAX_GRID_WINDOW: u64 = 50_000_000;

/// A law on grid indices j (loss = g·j) with values v and one relative error bound e; `outside` bounds
/// the mass not represented.
#[derive(Clone, Debug)]
pub struct GridLaw {
    pub min: i64,
    pub v: Vec<f64>,
    pub e: Float,
    pub outside: Float,
}

const EP: u32 = 64;

fn rel_after(ea: &Float, eb: &Float, k: u64) -> Float {
    crate::pld::symdist::convolved_rel_error(ea, eb, k, crate::pld::frame::F64_PREC)
}

/// Largest residue-construction work (multiply-adds) the grid method accepts for one group.
const GRID_MAX_OPS: f64 = 1e10;

/// The rounded (up or down) Q-law of one group's loss on the grid gℤ.
pub fn group_law(g: &GaussGroup, grid: &Rational, up: bool) -> Fallible<GridLaw> {
    // the group's exact law comes from the MPFR residue construction, n²K multiply-adds: refused up
    // front beyond ~1e10 (1,000,000 queries ran without end)
    let k = crate::noise::gauss_terms::radius_for_bits(&g.sigma2, TRUNC_BITS_F64) as f64;
    let ops = g.count as f64 * g.count as f64 * k;
    if ops > GRID_MAX_OPS {
        return Err(err!(
            Declined,
            "the grid method would need about {ops:.1e} operations for {} queries of N_Z(0, {}) (limit {GRID_MAX_OPS:.0e}); use --method auto",
            g.count,
            g.sigma2
        )
        .over_limits());
    }
    let d = LatticeDist::iid_dgauss_sum_bits(&g.sigma2, g.count, 64, TRUNC_BITS_F64);
    let slope = Rational::from(g.mu) / g.sigma2.clone();
    let rho = Rational::from(g.count) * Rational::from(g.mu) * Rational::from(g.mu) / (Rational::from(2u32) * g.sigma2.clone());
    let too_fine = || err!(Declined, "grid too fine: one group alone needs more than {MAX_GRID_WINDOW} grid points; use a coarser --grid");
    let idx = |s: i64| -> Fallible<i64> {
        let x = ((&slope * Rational::from(s)) + &rho) / grid.clone();
        let r = if up { Integer::from(x.ceil_ref()) } else { Integer::from(x.floor_ref()) };
        // an index beyond i64 means far more grid points than the window allows
        r.to_i64().ok_or_else(too_fine)
    };
    let lo_i = idx(d.min)?;
    let hi_i = idx(d.max())?;
    let n = hi_i.checked_sub(lo_i).and_then(|w| w.checked_add(1)).ok_or_else(too_fine)? as u64;
    if n > MAX_GRID_WINDOW {
        return Err(err!(Declined, "grid too fine: one group alone needs {n} grid points (limit {MAX_GRID_WINDOW}); use a coarser --grid")
            .over_limits());
    }
    let mut v = vec![0.0f64; n as usize];
    let mut e = Float::with_val(EP, 0);
    for (k, (lo, hi)) in d.lo.iter().zip(&d.hi).enumerate() {
        let s = d.min + k as i64;
        let j = (idx(s)? - lo_i) as usize;
        // accumulate masses falling on the same grid point (a sum of ≤ a few positive terms)
        v[j] += lo.to_f64();
        let r = Float::with_val_round(EP, Float::with_val_round(64, hi / lo, Round::Up).0 - 1u32, Round::Up).0;
        if r > e {
            e = r;
        }
    }
    // conversion to f64 and the few additions per grid point: relative 4·2^-53 suffices (≤ 3 masses per point
    // would need slope/g < 1/3; bound generously by the per-point multiplicity, at most the law's window: a
    // grid far coarser than the slope puts the whole window on one point)
    let mult = ((Rational::from(grid / &slope)).ceil().to_f64() as u64).saturating_add(1).min(d.lo.len() as u64);
    let e = rel_after(&e, &Float::with_val(EP, 0), mult + 1);
    Ok(GridLaw { min: lo_i, v, e, outside: d.outside.clone() }.trimmed())
}

impl GridLaw {
    fn trimmed(mut self) -> GridLaw {
        let thresh = Float::with_val(EP, Float::with_val(EP, 2).pow(-(TRUNC_BITS_F64 as i32)));
        let fe = Float::with_val_round(EP, 1u32 + Float::with_val(EP, &self.e), Round::Up).0;
        let mut dropped = Float::with_val(EP, 0);
        let (mut a, mut b) = (0usize, self.v.len());
        loop {
            if b - a <= 1 {
                break;
            }
            let i = if self.v[a] <= self.v[b - 1] { a } else { b - 1 };
            let hi = Float::with_val_round(EP, Float::with_val_round(EP, self.v[i], Round::Up).0 * &fe, Round::Up).0;
            let next = Float::with_val_round(EP, &dropped + &hi, Round::Up).0;
            if next > thresh && self.v[i] >= 1e-140 {
                break;
            }
            dropped = next;
            if i == a {
                a += 1;
            } else {
                b -= 1;
            }
        }
        self.v = self.v[a..b].to_vec();
        self.min += a as i64;
        self.outside = Float::with_val_round(EP, &self.outside + &dropped, Round::Up).0;
        self
    }

    /// Law of the sum of two independent grid laws.
    pub fn convolve(&self, o: &GridLaw) -> Fallible<GridLaw> {
        let n = self.v.len() + o.v.len() - 1;
        if n as u64 > MAX_GRID_WINDOW {
            return Err(err!(
                Declined,
                "grid too fine: the composition needs {n} grid points (limit {MAX_GRID_WINDOW}); use a coarser --grid"
            )
            .over_limits());
        }
        let (a, b) = if self.v.len() >= o.v.len() { (&self.v, &o.v) } else { (&o.v, &self.v) };
        // The rounded group laws are sparse (stride ≈ slope/g): loop over the non-zero entries of b only.
        let nz: Vec<(usize, f64)> = b.iter().enumerate().filter(|(_, x)| **x != 0.0).map(|(j, x)| (j, *x)).collect();
        let alen = a.len();
        let out: Vec<f64> = (0..n)
            .into_par_iter()
            .with_min_len(512)
            .map(|k| {
                // j ∈ [k − (alen − 1), k]
                let jlo = k.saturating_sub(alen - 1);
                let start = nz.partition_point(|(j, _)| *j < jlo);
                let mut acc = 0.0;
                for &(j, x) in &nz[start..] {
                    if j > k {
                        break;
                    }
                    acc += a[k - j] * x;
                }
                acc
            })
            .collect();
        let e = rel_after(&self.e, &o.e, nz.len().max(1) as u64);
        let outside = Float::with_val_round(EP, &self.outside + &o.outside, Round::Up).0;
        Ok(GridLaw { min: self.min + o.min, v: out, e, outside }.trimmed())
    }
}

/// A rounded privacy profile: δ(ε) = Σ_{j > ε/g} q_j (1 − e^{ε − g j}), from suffix sums of q and q·e^{−gj}.
pub struct GridLawProfile {
    pub g: Rational,
    pub min: i64,
    /// suffix sums Σ_{i ≥ j} q_i, as intervals
    a: Vec<Interval>,
    /// suffix sums Σ_{i ≥ j} q_i e^{−g i}
    b: Vec<Interval>,
    outside: Float,
    prec: u32,
}

impl GridLawProfile {
    pub fn new(law: &GridLaw, g: &Rational) -> GridLawProfile {
        let prec = 96;
        let one = Float::with_val(prec, 1);
        let flo = Float::with_val_round(prec, &one - Float::with_val(prec, &law.e), Round::Down).0;
        let fhi = Float::with_val_round(prec, &one + Float::with_val(prec, &law.e), Round::Up).0;
        let n = law.v.len();
        let mut a = vec![Interval::zero(prec); n];
        let mut b = vec![Interval::zero(prec); n];
        let mut sa = Interval::zero(prec);
        let mut sb = Interval::zero(prec);
        // e^{−g j} by recurrence from the top: e^{−g(j−1)} = e^{−gj}·e^{g}
        let eg = Interval::from_rational(g, prec).exp();
        let top = law.min + n as i64 - 1;
        let mut w = Interval::from_rational(&(Rational::from(-top) * g.clone()), prec).exp();
        for k in (0..n).rev() {
            let x = Float::with_val(prec, law.v[k]);
            let q =
                Interval::new(Float::with_val_round(prec, &x * &flo, Round::Down).0, Float::with_val_round(prec, &x * &fhi, Round::Up).0);
            sa = sa.add(&q);
            sb = sb.add(&q.mul(&w));
            a[k] = sa.clone();
            b[k] = sb.clone();
            w = w.mul(&eg);
        }
        GridLawProfile { g: g.clone(), min: law.min, a, b, outside: Float::with_val(prec, &law.outside), prec }
    }

    /// (A, B) at the first index j ≥ m: P[J ≥ m] and E[e^{−gJ}; J ≥ m], with the outside mass added to
    /// the upper ends (its loss is unknown: worst case for δ↑ is +∞, i.e. it counts fully in A).
    fn ab(&self, m: i64) -> (Interval, Interval) {
        let p = self.prec;
        let n = self.a.len() as i64;
        let (mut a, b) = if m.saturating_sub(self.min) >= n {
            (Interval::zero(p), Interval::zero(p))
        } else {
            let k = (m - self.min).max(0) as usize;
            (self.a[k].clone(), self.b[k].clone())
        };
        a = Interval::new(a.lo().clone(), Float::with_val_round(p, a.hi() + &self.outside, Round::Up).0);
        // outside mass at J ≥ m ≥ 0 contributes at most its mass to E[e^{−gJ}; J ≥ m]
        let mut b = b;
        if m >= 0 {
            b = Interval::new(b.lo().clone(), Float::with_val_round(p, b.hi() + &self.outside, Round::Up).0);
        }
        (a, b)
    }

    /// δ(ε) of this rounded profile (certified for the rounded law).
    pub fn delta(&self, eps: &Rational) -> Interval {
        // J > ε/g ⇔ J ≥ ⌊ε/g⌋ + 1
        // (an ε/g beyond i64 lies past every loss of the window: the same as the largest index)
        let m = Integer::from(Rational::from(eps / &self.g).floor_ref()).to_i64().unwrap_or(i64::MAX).saturating_add(1);
        let (a, b) = self.ab(m);
        let d = a.sub(&Interval::from_rational(eps, self.prec).exp().mul(&b));
        if *d.lo() < 0 {
            Interval::new(Float::with_val(self.prec, 0), d.into_parts().1.max(&Float::with_val(self.prec, 0)))
        } else {
            d
        }
    }

    /// Smallest ε ≥ 0 with δ(ε) ≤ δ for this rounded profile, enclosed: certified bisection on the grid
    /// points (`search::knot_bracket`), then the closed form ε = ln((A − δ)/B) on the end segments.
    pub fn epsilon(&self, delta: &Rational) -> Fallible<Interval> {
        let p = self.prec;
        let dl = Interval::from_rational(delta, p);
        let d_at = |j: i64| self.delta(&(Rational::from(j) * self.g.clone()));
        if d_at(0).hi() <= dl.lo() {
            return Ok(Interval::zero(p));
        }
        let kmax = self.min + self.a.len() as i64;
        let (a, b) = crate::pld::search::knot_bracket(0, kmax, |j| d_at(j).lo() > dl.hi(), |j| d_at(j).hi() < dl.lo())
            .ok_or_else(|| err!(Declined, "delta below the resolution of the grid window"))?;
        if b == 0 {
            return Ok(Interval::zero(p));
        }
        let knot = |k: i64| Interval::from_rational(&(Rational::from(k) * self.g.clone()), p);
        let lo = match a {
            None => Float::with_val(p, 0),
            Some(a) => self.solve_segment(a, &dl).map(|iv| iv.into_parts().0).unwrap_or_else(|| knot(a + 1).into_parts().0),
        };
        let hi = self.solve_segment(b - 1, &dl).map(|iv| iv.into_parts().1).unwrap_or_else(|| knot(b - 1).into_parts().1);
        if lo > hi {
            return fallible!(Internal, "the certified grid epsilon bracket is empty");
        }
        Ok(Interval::new(lo, hi))
    }

    /// Solutions of δ(ε) = δ in the segment ε ∈ [g k, g(k+1)), where δ = A − e^ε B with (A, B) at index
    /// k + 1; None if certainly none.
    fn solve_segment(&self, k: i64, dl: &Interval) -> Option<Interval> {
        let p = self.prec;
        let (a, b) = self.ab(k + 1);
        let s = Interval::from_rational(&(Rational::from(k) * self.g.clone()), p);
        let e = Interval::from_rational(&(Rational::from(k + 1) * self.g.clone()), p);
        let num = a.sub(dl);
        if *num.hi() <= 0 {
            return None;
        }
        let l = if *num.lo() <= 0 || *b.hi() <= 0 {
            s.lo().clone()
        } else {
            num.div(&Interval::new(b.hi().clone(), b.hi().clone())).ln().into_parts().0.max(s.lo())
        };
        let h = if *b.lo() <= 0 {
            e.hi().clone()
        } else {
            Interval::new(num.hi().clone(), num.hi().clone())
                .div(&Interval::new(b.lo().clone(), b.lo().clone()))
                .ln()
                .into_parts()
                .1
                .min(e.hi())
        };
        (l <= h).then(|| Interval::new(l, h))
    }
}

/// Certified ε(δ) bracket of a composition by grid rounding: [ε of the rounded-down law (lo end),
/// ε of the rounded-up law (hi end)].
pub fn epsilon_by_grid(groups: &[GaussGroup], grid: &Rational, delta: &Rational) -> Fallible<Interval> {
    let mut ends = Vec::new();
    for up in [false, true] {
        let mut laws: Vec<GridLaw> = groups.iter().map(|g| group_law(g, grid, up)).collect::<Result<_, _>>()?;
        laws.sort_by_key(|l| l.v.len());
        let mut acc = laws.remove(0);
        for l in &laws {
            acc = acc.convolve(l)?;
        }
        ends.push(GridLawProfile::new(&acc, grid).epsilon(delta)?);
    }
    Ok(Interval::new(ends[0].lo().clone(), ends[1].hi().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;
    use crate::pld::compose::compose_groups;

    /// On a commensurate composition the grid bracket must contain the exact lattice value and shrink
    /// with the grid.
    #[test]
    fn grid_bracket_contains_exact_lattice_value() {
        let q = |s: &str| parse_rational(s).unwrap();
        let g = vec![GaussGroup { sigma2: q("5000/73"), count: 10, mu: 1 }, GaussGroup { sigma2: q("50000/10001"), count: 10, mu: 1 }];
        let exact = compose_groups(&g, 128).unwrap().epsilon(&q("1e-10")).unwrap();
        let mut last = f64::INFINITY;
        for grid in ["1/100", "1/1000"] {
            let br = epsilon_by_grid(&g, &q(grid), &q("1e-10")).unwrap();
            assert!(br.lo() <= exact.lo() && exact.hi() <= br.hi(), "grid {grid}: {br} vs {exact}");
            let w = br.width().to_f64();
            assert!(w < last && w < 2.0 * 2.0 * q(grid).to_f64() + 1e-9, "grid {grid}: width {w}");
            last = w;
        }
    }
}
