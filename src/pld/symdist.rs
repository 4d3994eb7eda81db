//! A symmetric lattice law in one arithmetic with one relative error bound (`SymDist`): the MPFR engine's
//! half-laws of discrete Gaussian sums, their convolution and binary powering, and the relative-error
//! bookkeeping of convolutions of non-negative laws that the fixed-precision engines (`fixed.rs`) share.

use crate::model::GaussGroup;
use crate::pld::frame::use_power;
use crate::pld::lattice::{div_ceil, LatticeDist};
use rayon::prelude::*;
use rug::float::Round;
use rug::ops::Pow;
use rug::Float;

/// The law of a group's sum S = X_1 + … + X_n as a symmetric half-law: the residue construction for small
/// n, else binary powering of the one-query law (cost ~ n·K² instead of n²·K for a window of K per query;
/// each squaring is a convolution with the same relative-error bound, truncated at 2^-depth).
pub fn group_law_mpfr(g: &GaussGroup, prec: u32, depth: u32) -> SymDist {
    if !use_power(&g.sigma2, g.count, depth) {
        return SymDist::from_lattice(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, g.count, prec, depth));
    }
    let one = SymDist::from_lattice(&LatticeDist::iid_dgauss_sum_bits(&g.sigma2, 1, prec, depth));
    one.power(g.count, depth)
}

/// A law on ℤ symmetric about 0, stored as its non-negative half v[0..=M] of values computed with
/// round-to-nearest, and one relative error bound e: the true P[V = ±y] lies in [v_y(1−e), v_y(1+e)];
/// plus a bound on the total mass outside [−M, M].
///
/// Convolving non-negative sequences in floating point has a rigorous relative error bound: a sum of K
/// non-negative products, each accumulated with one rounding (fused multiply-add), is within γ_K =
/// K·u/(1 − K·u) of the exact sum relative to itself (Higham, *Accuracy and Stability of Numerical
/// Algorithms*, §3.1), u = 2^-prec. With inputs known to relative e_a, e_b the output is known to
/// (1+e_a)(1+e_b)/(1−γ_K) − 1. This halves the work of interval end points and symmetry halves it again.
#[derive(Clone, Debug)]
pub struct SymDist {
    pub v: Vec<Float>,
    pub e: Float,
    pub outside: Float,
    pub prec: u32,
}

/// Precision of the error-bound bookkeeping (upward rounded).
const EPREC: u32 = 64;

/// Relative error bound after convolving non-negative laws known to relative e_a and e_b, when each
/// output is a sum of at most K products rounded to nearest with unit roundoff u = 2^-unit_bits:
/// (1+e_a)(1+e_b)/(1−γ_K) − 1 = (e_a + e_b + e_a·e_b + γ)/(1 − γ), γ = Ku/(1 − Ku) (Higham §3.1),
/// evaluated on the small quantities themselves (rounded up) so EPREC bits are relative to them.
pub(crate) fn convolved_rel_error(ea: &Float, eb: &Float, k: u64, unit_bits: u32) -> Float {
    let u = Float::with_val(EPREC, Float::with_val(EPREC, 2).pow(-(unit_bits as i32)));
    let ku = Float::with_val_round(EPREC, Float::with_val(EPREC, k) * &u, Round::Up).0;
    let one = Float::with_val(EPREC, 1);
    let gamma = Float::with_val_round(EPREC, &ku / Float::with_val_round(EPREC, &one - &ku, Round::Down).0, Round::Up).0;
    convolved_rel_error_gamma(ea, eb, &gamma)
}

/// (1 + e_a)(1 + e_b)/(1 − γ) − 1 for a computed sum of non-negative products with relative error ≤ γ.
pub(crate) fn convolved_rel_error_gamma(ea: &Float, eb: &Float, gamma: &Float) -> Float {
    let one = Float::with_val(EPREC, 1);
    let eab = Float::with_val_round(EPREC, ea * eb, Round::Up).0;
    let mut num = Float::with_val_round(EPREC, ea + eb, Round::Up).0;
    num = Float::with_val_round(EPREC, &num + &eab, Round::Up).0;
    num = Float::with_val_round(EPREC, &num + gamma, Round::Up).0;
    Float::with_val_round(EPREC, &num / Float::with_val_round(EPREC, &one - gamma, Round::Down).0, Round::Up).0
}

impl SymDist {
    /// From a symmetric lattice law with window [−M, M] (lo/hi bounds).
    pub fn from_lattice(d: &LatticeDist) -> SymDist {
        assert_eq!(d.min, -d.max(), "SymDist needs a symmetric window");
        let c = d.max() as usize;
        let p = d.prec;
        // entries whose lower mass underflowed MPFR's exponent range (σ² ≪ 1: e^{−x²/(2σ²)} below
        // 2^-(2^30)) are not resolvable as relative bounds: they leave the window, their upper masses
        // joining the certified outside mass
        let m = (1..=c).find(|&y| !(d.lo[c + y] > 0 && d.lo[c - y] > 0)).map_or(c, |y| y - 1);
        let mut outside = d.outside.clone();
        for y in m + 1..=c {
            for i in [c + y, c - y] {
                outside = Float::with_val_round(outside.prec().max(p), &outside + &d.hi[i], Round::Up).0;
            }
        }
        let mut e = Float::with_val(EPREC, 0);
        let mut v = Vec::with_capacity(m + 1);
        for y in 0..=m {
            for i in [c + y, c - y] {
                // hi ≤ lo(1 + e)  ⇔  e ≥ hi/lo − 1
                let r = Float::with_val_round(EPREC, Float::with_val_round(p, &d.hi[i] / &d.lo[c + y], Round::Up).0 - 1u32, Round::Up).0;
                let r2 = Float::with_val_round(EPREC, 1u32 - Float::with_val_round(p, &d.lo[i] / &d.lo[c + y], Round::Down).0, Round::Up).0;
                for x in [r, r2] {
                    if x > e {
                        e = x;
                    }
                }
            }
            v.push(d.lo[c + y].clone());
        }
        SymDist { v, e, outside, prec: p }
    }

    pub fn half_len(&self) -> i64 {
        self.v.len() as i64 - 1
    }

    /// The law of the sum of n independent copies, by binary powering (square and multiply), truncated at
    /// 2^-depth after every convolution.
    pub fn power(&self, n: u32, depth: u32) -> SymDist {
        let mut acc: Option<SymDist> = None;
        let mut base = self.clone();
        let mut k = n;
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    None => base.clone(),
                    Some(a) => a.convolve(&base, 1).truncated(depth),
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.convolve(&base, 1).truncated(depth);
        }
        acc.expect("invariant: n >= 1")
    }

    /// Law of w·X (stride w).
    pub fn scaled(&self, w: i64) -> SymDist {
        if w == 1 {
            return self.clone();
        }
        let m = self.half_len() as usize;
        let mut v = vec![Float::with_val(self.prec, 0); m * w as usize + 1];
        for (y, x) in self.v.iter().enumerate() {
            v[y * w as usize] = x.clone();
        }
        SymDist { v, e: self.e.clone(), outside: self.outside.clone(), prec: self.prec }
    }

    /// Law of A + w·B (A = self), exact up to the tracked relative error; parallel over outputs.
    pub fn convolve(&self, b: &SymDist, w: i64) -> SymDist {
        let p = self.prec.max(b.prec);
        let am = self.half_len();
        let bm = b.half_len();
        let om = am + w * bm;
        let out: Vec<Float> = (0..(om + 1) as usize)
            .into_par_iter()
            .with_min_len(64)
            .map(|v| {
                let v = v as i64;
                let mut acc = Float::with_val(p, 0);
                // |v − w·bv| ≤ am  ⇔  bv ∈ [⌈(v − am)/w⌉, ⌊(v + am)/w⌋]
                let lo = div_ceil(v - am, w).max(-bm);
                let hi = (v + am).div_euclid(w).min(bm);
                if crate::num::cancel::requested() {
                    return acc;
                } // discarded: see num::cancel
                let mut bv = lo;
                while bv <= hi {
                    let ai = (v - w * bv).unsigned_abs() as usize;
                    let bi = bv.unsigned_abs() as usize;
                    acc += &self.v[ai] * &b.v[bi];
                    bv += 1;
                }
                acc
            })
            .collect();
        // γ_K with K = 2·bm + 1 terms at most, u = 2^-p.
        let e = convolved_rel_error(&self.e, &b.e, (2 * bm + 1) as u64, p);
        // If both summands lie in their windows the sum lies in this window.
        let outside = Float::with_val_round(p, &self.outside + &b.outside, Round::Up).0;
        SymDist { v: out, e, outside, prec: p }
    }

    /// Drop symmetric ends whose *total* certified mass (both sides) is below 2^-bits, adding it to
    /// `outside`.
    pub fn truncated(mut self, bits: u32) -> SymDist {
        let p = self.prec;
        let thresh = Float::with_val(p, Float::with_val(p, 2).pow(-(bits as i32)));
        let fe = Float::with_val_round(p, 1u32 + Float::with_val(p, &self.e), Round::Up).0;
        let mut keep = self.v.len();
        let mut dropped = Float::with_val(p, 0);
        while keep > 1 {
            let hi = Float::with_val_round(p, &self.v[keep - 1] * &fe, Round::Up).0;
            let next = Float::with_val_round(p, &dropped + Float::with_val_round(p, &hi * 2u32, Round::Up).0, Round::Up).0;
            if next > thresh {
                break;
            }
            dropped = next;
            keep -= 1;
        }
        if keep == self.v.len() {
            return self;
        }
        self.v.truncate(keep);
        self.outside = Float::with_val_round(p, &self.outside + &dropped, Round::Up).0;
        self
    }

    /// Expand to a full window with interval end points v(1 ∓ e).
    pub fn to_lattice(&self) -> LatticeDist {
        let p = self.prec;
        let m = self.half_len();
        let one = Float::with_val(p, 1);
        let flo = Float::with_val_round(p, &one - Float::with_val(p, &self.e), Round::Down).0;
        let fhi = Float::with_val_round(p, &one + Float::with_val(p, &self.e), Round::Up).0;
        let mut lo = Vec::with_capacity(2 * m as usize + 1);
        let mut hi = Vec::with_capacity(2 * m as usize + 1);
        for y in -m..=m {
            let x = &self.v[y.unsigned_abs() as usize];
            lo.push(Float::with_val_round(p, x * &flo, Round::Down).0);
            hi.push(Float::with_val_round(p, x * &fhi, Round::Up).0);
        }
        LatticeDist { min: -m, lo, hi, outside: self.outside.clone(), prec: p }
    }
}
