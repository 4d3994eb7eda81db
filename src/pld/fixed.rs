//! Fixed-precision lattice engines: the symmetric half-law convolution of `compose.rs` in plain f64
//! (`--prec 53`, ~12 digits) or in double-double (`--prec 106`, ~25 digits), each with a rigorous
//! relative-error bound, so their brackets are certified like the MPFR engine's at a fraction of its cost.
//!
//! A half-law holds v_y ≈ P[V = ±y] for y = 0..M and one relative bound e: the true mass lies in
//! [v_y(1 − e), v_y(1 + e)]. Convolving non-negative sequences keeps a relative bound:
//! (1 + e_a)(1 + e_b)/(1 − γ) − 1, where γ bounds the relative error of one computed output, a sum of K
//! non-negative products (`convolved_rel_error_gamma`).
//!
//! * f64: recursive summation of rounded products, γ = γ_K = Ku/(1 − Ku), u = 2^-53 (Higham, *Accuracy and
//!   Stability of Numerical Algorithms*, §3.1, the dot-product bound).
//! * double-double: for inputs a = a_h + a_l, b = b_h + b_l (|a_l| ≤ u a_h), each product is split into
//!   a_h b_h = p + e exactly (`two_prod`), the cross term t = fl(a_h b_l + fl(a_l b_h)) and the dropped a_l b_l;
//!   the p's are summed error-free into s by `two_sum` (errors q), and c accumulates q + (e + t) in f64.
//!   With P = Σ a_h b_h, the exact S ≥ P(1 − 2u − u²), and the computed s + c differs from S by at most
//!   u²P (dropped a_l b_l) + 2uγ₂P (cross terms) + γ_{K+2}·u·(K(1 + u) + 3 + 2γ₂)·P (the rounding of c,
//!   bounding Σ|q| ≤ Ku(1 + u)P, Σ|e| ≤ uP, Σ|t| ≤ 2u(1 + γ₂)P): relative to S, `dd_gamma(K)` below, about
//!   K²u² — 1e-24 for K = 1e4. This is the compensated dot product of Ogita, Rump and Oishi (*Accurate sum
//!   and dot product*, SISC 2005, Algorithm Dot2) applied to double-word inputs.
//!
//! Every entry is kept above `FLOOR` = 1e-140 (smaller ones join the outside mass), so no product, and
//! no error term of one, underflows: a_h b_h ≥ 1e-280 > 2^-969 and u·a_h b_h > 2^-1022. The truncation
//! depth can therefore not exceed about 460 bits in these engines.

use crate::num::dd::{fast_two_sum, two_prod, two_sum, ADD_REL, DD, U};
use crate::pld::lattice::{LatticeDist, Tails};
use crate::pld::symdist::{convolved_rel_error_gamma, SymDist};
use rayon::prelude::*;
use rug::float::Round;
use rug::Float;

/// Entries below this are moved to the outside mass (no underflow anywhere in the error bounds).
pub const FLOOR: f64 = 1e-140;

/// Precision of the bound bookkeeping (upward rounded).
const EPREC: u32 = 64;

/// A scalar type of a fixed-precision engine.
pub trait Scalar: Copy + Send + Sync + 'static {
    /// Nearest representation of an MPFR value.
    fn from_float(x: &Float) -> Self;
    /// Relative error bound of `from_float`.
    fn convert_rel() -> f64;
    /// Σ a_i·b_i of a non-negative window, accumulated as the module doc says (`conv_block` sums each output
    /// so; the tests check the bound `gamma` on this one).
    #[cfg(test)]
    fn dot(terms: impl Iterator<Item = (Self, Self)>) -> Self;
    /// Outputs o ∈ [v0, v1) of out(o) = Σ_t taps[t]·A[base + o − w·t] over the t whose index lies in A's
    /// full window (A as `prepare` laid it out): for each tap the contiguous slice of A is multiplied by
    /// taps[t] and added into per-output accumulators (blocked AXPY: each output still sums its terms one at
    /// a time in order of t, so `gamma` bounds it).
    fn conv_block(a: &Self::Prepared, taps: &[Self], base: i64, w: i64, v0: i64, v1: i64) -> Vec<Self>;
    /// A's full window in the layout `conv_block` reads (structure of arrays for double-doubles).
    type Prepared: Sync;
    fn prepare(a_full: Vec<Self>) -> Self::Prepared;
    /// Relative error bound of `dot` over K terms (rounded up).
    fn gamma(k: u64) -> Float;
    fn to_dd(self) -> DD;
    fn zero() -> Self;
}

impl Scalar for f64 {
    fn from_float(x: &Float) -> f64 {
        x.to_f64()
    }
    fn convert_rel() -> f64 {
        U
    }
    #[cfg(test)]
    fn dot(terms: impl Iterator<Item = (f64, f64)>) -> f64 {
        let mut acc = 0.0;
        for (a, b) in terms {
            acc += a * b;
        }
        acc
    }
    type Prepared = Vec<f64>;
    fn prepare(a_full: Vec<f64>) -> Vec<f64> {
        a_full
    }
    #[inline(always)]
    fn conv_block(a_full: &Vec<f64>, b: &[f64], base: i64, w: i64, v0: i64, v1: i64) -> Vec<f64> {
        let mut acc = vec![0.0f64; (v1 - v0) as usize];
        let sl = slices(a_full.len(), b.len(), base, w, v0, v1);
        for chunk in sl.chunks(TAPS) {
            for (p, q, active) in pieces(chunk) {
                let xs = |t: usize| {
                    let (_, off, lo, _) = chunk[t];
                    &a_full[off + p - lo..off + q - lo]
                };
                if active == ALL_TAPS && chunk.len() == TAPS {
                    let bs = [0, 1, 2, 3].map(|t| b[chunk[t].0]);
                    axpy_f64_4(&mut acc[p..q], [xs(0), xs(1), xs(2), xs(3)], bs);
                } else {
                    for t in (0..chunk.len()).filter(|t| active & (1 << t) != 0) {
                        axpy_f64(&mut acc[p..q], xs(t), b[chunk[t].0]);
                    }
                }
            }
        }
        acc
    }
    fn gamma(k: u64) -> Float {
        let ku = Float::with_val_round(EPREC, Float::with_val(EPREC, k) * U, Round::Up).0;
        let den = Float::with_val_round(EPREC, 1 - Float::with_val(EPREC, &ku), Round::Down).0;
        Float::with_val_round(EPREC, &ku / &den, Round::Up).0
    }
    fn to_dd(self) -> DD {
        DD { hi: self, lo: 0.0 }
    }
    fn zero() -> f64 {
        0.0
    }
}

/// γ_k = ku/(1 − ku) in f64, inflated to cover its own rounding.
fn gamma_f64(k: f64) -> f64 {
    k * U / (1.0 - k * U) * (1.0 + 1e-12)
}

/// The double-double dot-product bound of the module doc, rounded up.
pub fn dd_gamma(k: u64) -> Float {
    let k = k as f64;
    let g2 = gamma_f64(2.0);
    let num = U * U + 2.0 * U * g2 + gamma_f64(k + 2.0) * U * (k * (1.0 + U) + 3.0 + 2.0 * g2);
    let r = num / (1.0 - 3.0 * U) * (1.0 + 1e-9);
    Float::with_val(EPREC, r)
}

impl Scalar for DD {
    fn from_float(x: &Float) -> DD {
        DD::from_float(x)
    }
    fn convert_rel() -> f64 {
        U * U * (1.0 + U) * (1.0 + 1e-9)
    }
    #[cfg(test)]
    fn dot(terms: impl Iterator<Item = (DD, DD)>) -> DD {
        let (mut s, mut c) = (0.0f64, 0.0f64);
        for (a, b) in terms {
            let (p, e) = two_prod(a.hi, b.hi);
            let t = a.hi.mul_add(b.lo, a.lo * b.hi);
            let (s2, q) = two_sum(s, p);
            s = s2;
            c += q + (e + t);
        }
        let (hi, lo) = fast_two_sum(s, c);
        DD { hi, lo }
    }
    type Prepared = (Vec<f64>, Vec<f64>);
    fn prepare(a_full: Vec<DD>) -> (Vec<f64>, Vec<f64>) {
        (a_full.iter().map(|x| x.hi).collect(), a_full.iter().map(|x| x.lo).collect())
    }
    #[inline(always)]
    fn conv_block(a: &(Vec<f64>, Vec<f64>), b: &[DD], base: i64, w: i64, v0: i64, v1: i64) -> Vec<DD> {
        let n = (v1 - v0) as usize;
        let (mut s, mut c) = (vec![0.0f64; n], vec![0.0f64; n]);
        let (ah, al) = a;
        let sl = slices(ah.len(), b.len(), base, w, v0, v1);
        for chunk in sl.chunks(TAPS) {
            for (p, q, active) in pieces(chunk) {
                let xs = |t: usize| {
                    let (_, off, lo, _) = chunk[t];
                    (&ah[off + p - lo..off + q - lo], &al[off + p - lo..off + q - lo])
                };
                if active == ALL_TAPS && chunk.len() == TAPS {
                    let bs = [0, 1, 2, 3].map(|t| b[chunk[t].0]);
                    axpy_dd_4(&mut s[p..q], &mut c[p..q], [xs(0), xs(1), xs(2), xs(3)], bs);
                } else {
                    for t in (0..chunk.len()).filter(|t| active & (1 << t) != 0) {
                        let (xh, xl) = xs(t);
                        axpy_dd(&mut s[p..q], &mut c[p..q], xh, xl, b[chunk[t].0]);
                    }
                }
            }
        }
        s.iter()
            .zip(&c)
            .map(|(&s, &c)| {
                let (hi, lo) = fast_two_sum(s, c);
                DD { hi, lo }
            })
            .collect()
    }
    fn gamma(k: u64) -> Float {
        dd_gamma(k)
    }
    fn to_dd(self) -> DD {
        self
    }
    fn zero() -> DD {
        DD::ZERO
    }
}

/// For each tap t with a non-empty overlap, the outputs o ∈ [v0, v1) whose index base + o − w·t lies in
/// A's window [0, a_len): (t, that index at the first such output, its offset from v0, count). A plain
/// loop in the caller keeps the arithmetic inside the caller's target features (a closure would be
/// compiled without them).
fn slices(a_len: usize, n_taps: usize, base: i64, w: i64, v0: i64, v1: i64) -> Vec<(usize, usize, usize, usize)> {
    let mut out = Vec::new();
    for t in 0..n_taps {
        let shift = w * t as i64 - base;
        let lo = v0.max(shift);
        let hi = (v1 - 1).min(shift + a_len as i64 - 1);
        if lo <= hi {
            out.push((t, (lo - shift) as usize, (lo - v0) as usize, (hi - lo + 1) as usize));
        }
    }
    out
}

/// Taps (consecutive j) whose products are added to a block of outputs in one pass: each output's
/// accumulator is loaded and stored once per TAPS terms instead of once per term. Every output still adds
/// its terms one at a time in increasing j, so the arithmetic — and the error bound — is the same as one
/// pass per tap (bit for bit).
const TAPS: usize = 4;
const ALL_TAPS: u32 = (1 << TAPS) - 1;

/// The output range of a chunk of taps cut where the set of contributing taps changes: (p, q, mask) with
/// outputs [p, q) (relative to the block) receiving exactly the taps whose bit is set in the mask. The
/// pieces are disjoint, so applying each piece's taps in order of j keeps every output's order of terms.
fn pieces(chunk: &[(usize, usize, usize, usize)]) -> Vec<(usize, usize, u32)> {
    let mut cuts: Vec<usize> = chunk.iter().flat_map(|&(_, _, lo, len)| [lo, lo + len]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2)
        .filter_map(|pq| {
            let (p, q) = (pq[0], pq[1]);
            let mask =
                chunk.iter().enumerate().filter(|(_, &(_, _, lo, len))| lo <= p && q <= lo + len).fold(0u32, |m, (t, _)| m | (1 << t));
            (mask != 0).then_some((p, q, mask))
        })
        .collect()
}

/// y += x_0·b_0, then x_1·b_1, … x_3·b_3, elementwise (as four `axpy_f64` passes, in one).
#[inline(always)]
fn axpy_f64_4(y: &mut [f64], x: [&[f64]; TAPS], b: [f64; TAPS]) {
    let n = y.len();
    let [x0, x1, x2, x3] = x.map(|xt| &xt[..n]);
    for i in 0..n {
        let mut yi = y[i];
        yi += x0[i] * b[0];
        yi += x1[i] * b[1];
        yi += x2[i] * b[2];
        yi += x3[i] * b[3];
        y[i] = yi;
    }
}

/// The double-double accumulation of four taps in one pass (as four `axpy_dd` passes, in one).
#[inline(always)]
fn axpy_dd_4(s: &mut [f64], c: &mut [f64], x: [(&[f64], &[f64]); TAPS], b: [DD; TAPS]) {
    let n = s.len();
    let c = &mut c[..n];
    let xh = x.map(|(h, _)| &h[..n]);
    let xl = x.map(|(_, l)| &l[..n]);
    // two independent halves per iteration: each output's chain of dependent sums is latency-bound, two
    // chains side by side keep the floating-point units busy (the outputs' arithmetic is unchanged)
    let h = n / 2;
    for i in 0..h {
        let (mut s0, mut c0, mut s1, mut c1) = (s[i], c[i], s[i + h], c[i + h]);
        dd_taps(&mut s0, &mut c0, &xh, &xl, &b, i);
        dd_taps(&mut s1, &mut c1, &xh, &xl, &b, i + h);
        s[i] = s0;
        c[i] = c0;
        s[i + h] = s1;
        c[i + h] = c1;
    }
    for i in 2 * h..n {
        let (mut si, mut ci) = (s[i], c[i]);
        dd_taps(&mut si, &mut ci, &xh, &xl, &b, i);
        s[i] = si;
        c[i] = ci;
    }
}

/// Output i's terms from the four taps, in order (a function, not a closure: closures are compiled
/// without the caller's target features, and `mul_add` would become a library call).
#[inline(always)]
fn dd_taps(si: &mut f64, ci: &mut f64, xh: &[&[f64]; TAPS], xl: &[&[f64]; TAPS], b: &[DD; TAPS], i: usize) {
    for t in 0..TAPS {
        let (p, e) = two_prod(xh[t][i], b[t].hi);
        let tt = xh[t][i].mul_add(b[t].lo, xl[t][i] * b[t].hi);
        let (s2, q) = two_sum(*si, p);
        *si = s2;
        *ci += q + (e + tt);
    }
}

/// y += x·b elementwise (the f64 engine's accumulation: one rounded product and one rounded sum per term).
#[inline(always)]
fn axpy_f64(y: &mut [f64], x: &[f64], b: f64) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += xi * b;
    }
}

/// The double-double accumulation of the module doc, elementwise: (s, c) += x·b.
#[inline(always)]
fn axpy_dd(s: &mut [f64], c: &mut [f64], xh: &[f64], xl: &[f64], b: DD) {
    for i in 0..s.len() {
        let (p, e) = two_prod(xh[i], b.hi);
        let t = xh[i].mul_add(b.lo, xl[i] * b.hi);
        let (s2, q) = two_sum(s[i], p);
        s[i] = s2;
        c[i] += q + (e + t);
    }
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

/// x with w·x ≡ 1 (mod m), for w, m coprime (0 when m = 1).
fn mod_inverse(w: i64, m: i64) -> i64 {
    // extended Euclid on (w mod m, m)
    let (mut r0, mut r1) = (w.rem_euclid(m), m);
    let (mut x0, mut x1) = (1i64, 0i64);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (x0, x1) = (x1, x0 - q * x1);
    }
    debug_assert!(m == 1 || r0 == 1, "not coprime");
    x0.rem_euclid(m)
}

/// `conv_block` compiled with AVX2 and FMA (the loops vectorise; `two_prod` is exact either way, but
/// without FMA `mul_add` is a slow library call).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn conv_block_fast<S: Scalar>(a: &S::Prepared, taps: &[S], base: i64, w: i64, v0: i64, v1: i64) -> Vec<S> {
    S::conv_block(a, taps, base, w, v0, v1)
}

/// Rows of outputs computed together (their accumulators stay in cache).
const BLOCK: i64 = 2048;

fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A symmetric half-law in a fixed-precision scalar with a relative error bound and the outside mass.
#[derive(Clone)]
pub struct SymHalf<S: Scalar> {
    /// v[i] ≈ P[V = ±i·step]; V is 0 off the multiples of `step`
    pub v: Vec<S>,
    pub e: Float,
    pub outside: Float,
    /// the law lives on step·ℤ (a sum of groups whose strides share a factor); only those points are stored
    pub step: i64,
}

impl<S: Scalar> SymHalf<S> {
    /// From a symmetric MPFR lattice law; tiny entries (below FLOOR) join the outside mass.
    pub fn from_lattice(d: &LatticeDist) -> SymHalf<S> {
        let s = SymDist::from_lattice(d);
        let mut out = Float::with_val(EPREC, &s.outside);
        let fe = Float::with_val_round(EPREC, 1u32 + Float::with_val(EPREC, &s.e), Round::Up).0;
        let mut keep = s.v.len();
        while keep > 1 && s.v[keep - 1].to_f64() < FLOOR {
            let hi = Float::with_val_round(EPREC, &s.v[keep - 1] * &fe, Round::Up).0;
            out = Float::with_val_round(EPREC, &out + Float::with_val_round(EPREC, &hi * 2u32, Round::Up).0, Round::Up).0;
            keep -= 1;
        }
        let v = s.v[..keep].iter().map(S::from_float).collect();
        // (1 + e)(1 + c) − 1 with c the conversion error
        let c = Float::with_val(EPREC, S::convert_rel());
        let e = Float::with_val_round(EPREC, &s.e + &c, Round::Up).0;
        let e = Float::with_val_round(EPREC, &e + Float::with_val_round(EPREC, &s.e * &c, Round::Up).0, Round::Up).0;
        SymHalf { v, e, outside: out, step: 1 }
    }

    fn copy(&self) -> SymHalf<S> {
        SymHalf { v: self.v.clone(), e: self.e.clone(), outside: self.outside.clone(), step: self.step }
    }

    /// Law of w·X (stride w): the same entries on a w times coarser lattice.
    pub fn scaled(&self, w: i64) -> SymHalf<S> {
        SymHalf { step: self.step * w, ..self.copy() }
    }

    /// The same law with every point of ℤ stored (zeros off the multiples of `step`).
    fn unit(&self) -> SymHalf<S> {
        if self.step == 1 {
            return self.copy();
        }
        let m = self.v.len() - 1;
        let mut v = vec![S::zero(); m * self.step as usize + 1];
        for (y, x) in self.v.iter().enumerate() {
            v[y * self.step as usize] = *x;
        }
        SymHalf { v, e: self.e.clone(), outside: self.outside.clone(), step: 1 }
    }

    /// Law of A + w·B (A = self on step_A·ℤ, B a law on ℤ), truncated at 2^-depth; parallel over outputs.
    ///
    /// With d = gcd(step_A, w) the sum lives on d·ℤ; in units of d, A lives on s·ℤ and B on w′·ℤ with s, w′
    /// coprime. An output y receives A(y − w′j)·B(j) only from the j with w′j ≡ y (mod s): one residue class
    /// j ≡ j_r per residue r of y, so the outputs y = r + s·m of class r are an ordinary strided convolution
    /// of A's stored entries with the taps B(j_r + s·k), stride w′. Only products of stored entries are
    /// formed: the products with the zeros between them, which added exactly nothing, are skipped (s·d times
    /// fewer operations on a sparse accumulator: SafeTab-P's first strides are 8 and 72).
    pub fn convolve(&self, b: &SymHalf<S>, w: i64, depth: u32) -> SymHalf<S> {
        assert_eq!(b.step, 1, "the added group's law lives on ℤ");
        let d = gcd(self.step, w);
        let (sa, ws) = (self.step / d, w / d);
        let am = self.v.len() as i64 - 1;
        let bm = b.v.len() as i64 - 1;
        let om = sa * am + ws * bm;
        // the full symmetric window of A (index am + i for the point i·sa), and B's taps per residue class
        let a_full = S::prepare((-am..=am).map(|y| self.v[y.unsigned_abs() as usize]).collect());
        let inv = mod_inverse(ws, sa);
        let classes: Vec<(Vec<S>, i64)> = (0..sa.min(om + 1))
            .map(|r| {
                let jr = (r * inv).rem_euclid(sa);
                let jmin = -bm + (jr + bm).rem_euclid(sa);
                let taps: Vec<S> = (jmin..=bm).step_by(sa as usize).map(|j| b.v[j.unsigned_abs() as usize]).collect();
                // A's index of output m, tap t (j = jmin + s·t): am + (r + s·m − w′j)/s = base + m − w′t
                (taps, am + (r - ws * jmin) / sa)
            })
            .collect();
        let fast = has_fma();
        let block = |r: i64, m0: i64, m1: i64| -> Vec<S> {
            if crate::num::cancel::requested() {
                return vec![S::zero(); (m1 - m0) as usize];
            } // discarded: see num::cancel
            let (taps, base) = &classes[r as usize];
            #[cfg(target_arch = "x86_64")]
            if fast {
                // SAFETY: the CPU has AVX2 and FMA (checked at run time by has_fma)
                return unsafe { conv_block_fast(&a_full, taps, *base, ws, m0, m1) };
            }
            let _ = fast;
            S::conv_block(&a_full, taps, *base, ws, m0, m1)
        };
        let mut out = vec![S::zero(); om as usize + 1];
        if sa == 1 {
            // one class: blocks of the output written in place (no second copy of the largest window)
            out.par_chunks_mut(BLOCK as usize).enumerate().for_each(|(k, chunk)| {
                let m0 = k as i64 * BLOCK;
                chunk.copy_from_slice(&block(0, m0, m0 + chunk.len() as i64));
            });
        } else {
            // blocks of each residue class r, outputs r + s·m for m in [m0, m1)
            let items: Vec<(i64, i64, i64)> = (0..sa.min(om + 1))
                .flat_map(|r| {
                    let m_end = (om - r) / sa + 1;
                    (0..m_end).step_by(BLOCK as usize).map(move |m0| (r, m0, (m0 + BLOCK).min(m_end)))
                })
                .collect();
            let parts: Vec<Vec<S>> = items.par_iter().map(|&(r, m0, m1)| block(r, m0, m1)).collect();
            for (&(r, m0, _), part) in items.iter().zip(parts) {
                for (i, x) in part.into_iter().enumerate() {
                    out[(r + sa * (m0 + i as i64)) as usize] = x;
                }
            }
        }
        let e = convolved_rel_error_gamma(&self.e, &b.e, &S::gamma((2 * bm + 1) as u64));
        let outside = Float::with_val_round(EPREC, &self.outside + &b.outside, Round::Up).0;
        SymHalf { v: out, e, outside, step: d }.truncated(depth)
    }

    /// The sum of n independent copies by binary powering.
    pub fn power(&self, n: u32, depth: u32) -> SymHalf<S> {
        let mut acc: Option<SymHalf<S>> = None;
        let mut base = self.copy();
        let mut k = n;
        loop {
            if k & 1 == 1 {
                acc = Some(match acc {
                    None => base.copy(),
                    Some(a) => a.convolve(&base, 1, depth),
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.convolve(&base, 1, depth);
        }
        acc.expect("invariant: n >= 1")
    }

    /// Cumulative truncation at 2^-depth (both ends), and the underflow floor. The dropped mass is summed
    /// in f64 rounded upward by hand: every product and sum is multiplied by (1 + 4u), which covers its
    /// round-to-nearest error (≤ u relative) — an upper bound without an MPFR operation per entry.
    fn truncated(mut self, depth: u32) -> SymHalf<S> {
        let up = 1.0 + 4.0 * U;
        let thresh = 2f64.powi(-(depth.min(1000) as i32));
        let fe = (1.0 + self.e.to_f64_round(Round::Up)) * up;
        let mut keep = self.v.len();
        let mut dropped = 0.0f64;
        while keep > 1 {
            let x = self.v[keep - 1].to_dd();
            // hi + lo ≤ (hi + |lo|)(1 + u), and |lo| ≤ u·hi
            let xv = (x.hi + x.lo.abs()) * up;
            let next = (dropped + 2.0 * xv * fe * up) * up;
            if next > thresh && x.hi >= FLOOR {
                break;
            }
            dropped = next;
            keep -= 1;
        }
        self.v.truncate(keep);
        self.outside = Float::with_val_round(EPREC, &self.outside + dropped, Round::Up).0;
        self
    }

    /// The full window as an MPFR lattice law with interval end points (for the discrete Laplace
    /// convolutions, which work on MPFR laws).
    pub fn to_lattice(&self, prec: u32) -> LatticeDist {
        if self.step != 1 {
            return self.unit().to_lattice(prec);
        }
        let p = prec.max(128);
        let v = self.v.iter().map(|x| Float::with_val(p, x.to_dd().to_float())).collect();
        SymDist { v, e: self.e.clone(), outside: Float::with_val(p, &self.outside), prec: p }.to_lattice()
    }

    /// Both tails of the symmetric law, P[V ≥ m] accumulated from the top in double-double with the
    /// accurate addition (each partial sum of k terms within γ_k(ADD_REL) of its value, on top of e),
    /// kept in double-double: no MPFR copy of the window.
    #[cfg(test)]
    pub fn tails(&self) -> Tails {
        self.copy().into_tails()
    }

    /// `tails`, consuming the law: the window of tails is built in the half-law's own buffer (grown in
    /// place), so the peak memory is the tails alone, not the tails and the half-law.
    pub fn into_tails(self) -> Tails {
        let this = if self.step != 1 { self.unit() } else { self };
        let m = this.v.len() - 1;
        let n = 2 * m + 1;
        let mut up: Vec<DD> = this.v.into_iter().map(S::to_dd).collect();
        up.resize(n, DD::ZERO);
        // the masses v_0..v_m move to window indices m..=2m (P[V = y] at m + y for y ≥ 0)
        up.copy_within(0..=m, m);
        // accumulate from the top, P[V ≥ y] at m + y, in the order of one pass over the window from its
        // top: first the total of the upper half (y ≥ 0), then the lower half from the raw masses, then
        // the upper half in place
        let mut acc = DD::ZERO;
        for y in (0..=m).rev() {
            acc = acc.add(up[m + y]);
        }
        for k in 1..=m {
            acc = acc.add(up[m + k]);
            up[m - k] = acc;
        }
        let mut acc = DD::ZERO;
        for i in (m..n).rev() {
            acc = acc.add(up[i]);
            up[i] = acc;
        }
        let kr = n as f64 * ADD_REL;
        let g = Float::with_val(EPREC, kr / (1.0 - kr) * (1.0 + 1e-9));
        let rel = Float::with_val_round(EPREC, &this.e + &g, Round::Up).0;
        let rel = Float::with_val_round(EPREC, &rel + Float::with_val_round(EPREC, &this.e * &g, Round::Up).0, Round::Up).0;
        Tails::from_dd(-(m as i64), up, rel, this.outside)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    /// The double-double dot product against MPFR on long positive windows: within dd_gamma(K).
    #[test]
    fn dd_dot_meets_its_bound() {
        let mut rng = crate::num::xorshift::XorShift(0x2545f4914f6cdd1d);
        let mut next = || rng.next_f64();
        for k in [10usize, 1000, 20000] {
            let a: Vec<DD> = (0..k).map(|_| DD::from_float(&Float::with_val(200, next() + 1e-3).exp())).collect();
            let b: Vec<DD> = (0..k).map(|_| DD::from_float(&(Float::with_val(200, next()) / 7u32))).collect();
            let got = DD::dot(a.iter().copied().zip(b.iter().copied())).to_float();
            let mut exact = Float::with_val(600, 0);
            for (x, y) in a.iter().zip(&b) {
                exact += Float::with_val(600, x.to_float() * y.to_float());
            }
            let rel = Float::with_val(600, got - &exact).abs() / &exact;
            assert!(rel <= dd_gamma(k as u64), "K = {k}: {} > {}", rel.to_f64(), dd_gamma(k as u64).to_f64());
        }
    }

    /// Sums of groups whose strides share factors (6, then 4: the sum lives on 2ℤ, three residue classes
    /// of taps; then 9: dense) against the MPFR engine's dense convolution: the double-double tails contain
    /// the MPFR enclosures at every point of the window, within 1e-23 relative where the tail exceeds 1e-20.
    #[test]
    fn sparse_strides_match_dense_mpfr() {
        let laws: Vec<LatticeDist> =
            ["3/2", "29/7", "11"].iter().map(|s2| LatticeDist::iid_dgauss_sum_bits(&parse_rational(s2).unwrap(), 3, 160, 160)).collect();
        let strides = [6i64, 4, 9];
        let mut dd = SymHalf::<DD>::from_lattice(&laws[0]).scaled(strides[0]);
        let mut exact = SymDist::from_lattice(&laws[0]).scaled(strides[0]);
        for (law, &w) in laws.iter().zip(&strides).skip(1) {
            dd = dd.convolve(&SymHalf::<DD>::from_lattice(law), w, 160);
            exact = exact.convolve(&SymDist::from_lattice(law), w).truncated(160);
            if w == 4 {
                assert_eq!(dd.step, 2, "6ℤ + 4ℤ lives on 2ℤ");
            }
        }
        assert_eq!(dd.step, 1);
        let (td, tm) = (dd.tails(), exact.to_lattice().tails());
        let m = dd.v.len() as i64 - 1;
        for y in (-m..=m).step_by(7) {
            let x = tm.ge(y);
            let got = td.ge(y);
            assert!(got.contains_interval(&x), "at {y}: dd {got} vs mpfr {x}");
            if x.mid() > 1e-20 {
                let rel = Float::with_val(128, got.width() / x.mid());
                assert!(rel < 1e-23, "at {y}: relative width {}", rel.to_f64());
            }
        }
    }

    /// The three engines on one law: the f64 and double-double brackets contain the MPFR one, and the
    /// double-double relative error is below 1e-24.
    #[test]
    fn fixed_engines_bracket_mpfr() {
        let s2 = parse_rational("37.7").unwrap();
        let one = LatticeDist::iid_dgauss_sum_bits(&s2, 1, 160, 160);
        let exact = SymDist::from_lattice(&one).power(200, 160).to_lattice();
        let dd = SymHalf::<DD>::from_lattice(&one).power(200, 160);
        let f = SymHalf::<f64>::from_lattice(&one).power(200, 160);
        assert!(dd.e.to_f64() < 1e-24 && f.e.to_f64() < 1e-10, "dd e = {}, f64 e = {}", dd.e, f.e);
        let (td, tf, tm) = (dd.tails(), f.tails(), exact.tails());
        for m in [-300i64, -40, 0, 1, 57, 300, 600] {
            let x = tm.ge(m);
            assert!(td.ge(m).contains_interval(&x), "dd at {m}: {} vs {x}", td.ge(m));
            assert!(tf.ge(m).contains_interval(&x), "f64 at {m}");
        }
    }
}
