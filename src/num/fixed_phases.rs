//! Phase sums in fixed point: S_k = Σ_n w_n e^{ikθ_n}, k = 0..=K, the inner loop of the certified
//! quadratures of moment generating functions on vertical lines (`noise::mgf_quad::chunked_sum`), where the
//! tilted engine's 20-digit lines ask more than double-double balls hold (they were tried, 3b49e17: a radius
//! of about 24u²·K·Σ|w|, some 10⁻²⁸ of the sum at K = 2,000, where the line asks 10⁻³¹).
//!
//! Every rounding is a truncation to an integer grid, at most one unit, so the bound of the whole sum is
//! known from the nodes before any phase is taken, and no radius is carried through the loop:
//!
//! * **the step** e^{iθ} is s̃, the midpoint of MPFR's enclosure of cos θ + i sin θ (every θ of the node's
//!   interval) rounded to multiples of 2^−[`PHASE_BITS`]; ε_s = the L1 distance from s̃ to the enclosure's
//!   farthest corner bounds |s̃ − e^{iθ}| for every θ of the interval, and |s̃| ≤ 1 + ε_s;
//! * **a node's values** z_k ≈ w e^{ikθ} are integers in units u_n = 2^{e_n − [`NODE_BITS`]}, 2^{e_n} ≥ |w|;
//!   z_0 is w's midpoint rounded (within r_w = the distance to w's farther end), z_k = z_{k−1}s̃ with each
//!   real product truncated toward zero (a complex product within 2√2 < 3 units). With e_k the error of z_k
//!   against w e^{ikθ}, e_k ≤ (1 + ε_s)e_{k−1} + |w|ε_s + 3u_n, so
//!   e_k ≤ (1 + ε_s)^k r_w + k(1 + ε_s)^k (|w|ε_s + 3u_n) ≤ e^{kε_s}(r_w + k(|w|ε_s + 3u_n));
//! * **the sum** is a 192-bit integer in units 2^{E − [`ACC_BITS`]}, E ≥ log₂ of the nodes' count plus the
//!   largest e_n, so it cannot overflow: each z_k enters by an exact left shift or a floor (within one unit
//!   per part, √2 < 2 per term), and the additions are exact.
//!
//! The radius of every S_k, k ≤ K, is Σ_n e^{Kε_s}(r_w + K(|w|ε_s + 3u_n)) + 2N units of the sum, taken in
//! f64 relative to the largest 2^{e_n} (a node's share at least 10⁻²⁹⁰, so none underflows) and raised by a
//! relative 10⁻⁷ for its own roundings (N < 10⁸ terms of a few operations each). The rectangle at the end
//! holds the disk.

use crate::num::cinterval::CInterval;
use crate::num::Interval;
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Integer};

/// Fraction bits of a step e^{iθ}: its parts lie in (−2, 2).
pub const PHASE_BITS: u32 = 126;
/// A node's values |z| ≤ 2^{e_n}(1 + ε) are held in units of 2^{e_n − NODE_BITS}: below 2^126.
pub const NODE_BITS: i32 = 125;
/// The sum is held in units of 2^{E − ACC_BITS}, |sum| ≤ 2^E, in 192 bits.
pub const ACC_BITS: i32 = 184;
/// Nodes per parallel chunk (the chunks' sums are exact, so the split does not change them).
const CHUNK: usize = 64;

/// trunc(a·b / 2^[`PHASE_BITS`]) toward zero, for |a·b| < 2^253 (the caller's ranges): within one unit.
#[inline(always)]
pub fn mul_phase(a: i128, b: i128) -> i128 {
    let neg = (a < 0) != (b < 0);
    let (x, y) = (a.unsigned_abs(), b.unsigned_abs());
    let (x1, x0) = ((x >> 64) as u64 as u128, x as u64 as u128);
    let (y1, y0) = ((y >> 64) as u64 as u128, y as u64 as u128);
    let (p00, p01, p10, p11) = (x0 * y0, x0 * y1, x1 * y0, x1 * y1);
    // x·y = p11·2^128 + (p01 + p10)·2^64 + p00
    let mid = (p00 >> 64) + (p01 as u64 as u128) + (p10 as u64 as u128);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    let q = ((hi << (128 - PHASE_BITS)) | ((mid as u64 as u128) >> (PHASE_BITS - 64))) as i128;
    if neg {
        -q
    } else {
        q
    }
}

/// A 192-bit two's-complement integer hi·2^64 + lo.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wide {
    hi: i128,
    lo: u64,
}

impl Wide {
    /// ⌊z·2^d⌋ for d < 64 (exact for d ≥ 0, within one unit below).
    #[inline(always)]
    pub fn shifted(z: i128, d: i32) -> Wide {
        if d >= 0 {
            Wide { hi: z >> (64 - d), lo: ((z as u128) << d) as u64 }
        } else if d > -128 {
            let y = z >> (-d);
            Wide { hi: y >> 64, lo: y as u64 }
        } else {
            let y = if z < 0 { -1i128 } else { 0 };
            Wide { hi: y, lo: y as u64 }
        }
    }

    /// self += b, exactly (no overflow in the callers' ranges).
    #[inline(always)]
    pub fn add(&mut self, b: Wide) {
        let (lo, carry) = self.lo.overflowing_add(b.lo);
        self.lo = lo;
        self.hi = self.hi + b.hi + i128::from(carry);
    }

    /// The value, exactly.
    pub fn to_integer(self) -> Integer {
        (Integer::from(self.hi) << 64u32) + self.lo
    }
}

/// A node's fixed-point data: z_0 = w̃ in units 2^{e_n − NODE_BITS}, the step s̃, the shift of its values
/// into the sum's units, and its share of the radius (relative to 2^{e_max}).
struct Node {
    w: i128,
    s: (i128, i128),
    e: i32,
    shift: i32,
    bound: f64,
}

/// A term's node at scale 2^{e_n} > `mag` ≥ |w| (its bound relative to 2^{e_n}), or None where its values
/// could leave their range: a bound above a quarter of the scale, or k_max·ε_s above 0.1.
fn node((w, theta): &(Interval, Interval), mag: &Float, e_n: i32, k: f64, big_e: i32) -> Option<Node> {
    let (w_int, w_back) = rounded(&w.mid(), NODE_BITS - e_n)?;
    let r_w = distance(w, &w_back, e_n);
    let w_abs = Float::with_val(mag.prec(), mag >> e_n).to_f64_round(Round::Up);
    let step = CInterval::exp_of(&Interval::zero(theta.prec()), theta);
    let (re, re_back) = rounded(&step.re().mid(), PHASE_BITS as i32)?;
    let (im, im_back) = rounded(&step.im().mid(), PHASE_BITS as i32)?;
    let eps = (distance(step.re(), &re_back, 0) + distance(step.im(), &im_back, 0)) * (1.0 + 1e-15);
    if !(k * eps <= 0.1) {
        return None;
    }
    let growth = (k * eps).exp() * (1.0 + 1e-12);
    let bound = growth * (r_w + k * (w_abs * eps + 3.0 * 2f64.powi(-NODE_BITS)));
    (bound <= 0.25).then_some(Node { w: w_int, s: (re, im), e: e_n, shift: e_n - NODE_BITS - (big_e - ACC_BITS), bound })
}

/// The integer nearest to x·2^shift, with x's distance to it (scaled back), or None beyond i128.
fn rounded(x: &Float, shift: i32) -> Option<(i128, Float)> {
    let scaled = Float::with_val(x.prec(), x << shift);
    let n = scaled.to_integer()?;
    let back = Float::with_val(n.significant_bits().max(1) + 1, &n) >> shift;
    Some((n.to_i128()?, back))
}

/// max(hi − v, v − lo) rounded up, as an f64 after scaling by 2^−e (0 for an empty distance).
fn distance(x: &Interval, v: &Float, e: i32) -> f64 {
    let p = x.prec().max(v.prec()) + 64;
    let a = Float::with_val_round(p, x.hi() - v, Round::Up).0;
    let b = Float::with_val_round(p, v - x.lo(), Round::Up).0;
    let m = if a > b { a } else { b };
    (m >> e).to_f64_round(Round::Up).max(0.0)
}

/// Σ_n w_n e^{ikθ_n} for k = 0..=`k_max` over the `terms` (w_n, θ_n), each a rectangle at `prec` holding the
/// exact sum for every w and θ of the terms' intervals (module doc); None where the radius would exceed
/// `cap` (absolute), a term is not finite, or a step's error over k_max steps is not small.
pub fn phase_sums_fixed(terms: &[(Interval, Interval)], k_max: usize, prec: u32, cap: f64) -> Option<Vec<CInterval>> {
    if terms.is_empty() || terms.len() >= 100_000_000 {
        return None;
    }
    if terms.iter().any(|(w, t)| !w.lo().is_finite() || !w.hi().is_finite() || !t.lo().is_finite() || !t.hi().is_finite()) {
        return None;
    }
    // the scale: every |w| < 2^{e_n} (None: a zero weight, no node), the sum ≤ N·2^{e_max} ≤ 2^{E − 1}
    let mags: Vec<(Float, Option<i32>)> = terms
        .iter()
        .map(|(w, _)| {
            let a = Float::with_val(w.prec(), w.lo().abs_ref()).max(&Float::with_val(w.prec(), w.hi().abs_ref()));
            let e = a.get_exp();
            (a, e)
        })
        .collect();
    let e_max = mags.iter().filter_map(|(_, e)| *e).max()?;
    let big_e = e_max + (usize::BITS - terms.len().leading_zeros()) as i32 + 1;
    let k = k_max as f64;
    let nodes: Vec<Option<Option<Node>>> =
        terms.par_iter().zip(&mags).map(|(t, (mag, e))| e.map(|e_n| node(t, mag, e_n, k, big_e))).collect();
    // (a node that cannot be held refuses the whole sum)
    let nodes: Vec<Node> = nodes.into_iter().flatten().collect::<Option<Vec<Node>>>()?;
    // each node's bound relative to 2^{e_n}, scaled to 2^{e_max}: a scale below 2^−1000 taken as 2^−1000, and
    // a share below 1e-290 (or one that underflows) as 1e-290
    let scaled: f64 = nodes.iter().map(|n| (n.bound * 2f64.powi((n.e - e_max).max(-1000))).max(1e-290)).sum();
    let units = 2.0 * terms.len() as f64 * 2f64.powi(big_e - ACC_BITS - e_max);
    let radius = Float::with_val(64, (scaled + units) * (1.0 + 1e-7)) << e_max;
    if !(radius.to_f64_round(Round::Up) <= cap) {
        return None;
    }
    let sums = sum_nodes(&nodes, k_max);
    let unit_exp = big_e - ACC_BITS;
    Some(
        sums.iter()
            .map(|(re, im)| {
                let part = |v: &Wide| {
                    let x = Float::with_val(200, v.to_integer()) << unit_exp;
                    let lo = Float::with_val_round(prec, &x - &radius, Round::Down).0;
                    let hi = Float::with_val_round(prec, &x + &radius, Round::Up).0;
                    Interval::new(lo, hi)
                };
                CInterval::new(part(re), part(im))
            })
            .collect(),
    )
}

/// The nodes' sums at k = 0..=k_max, in parallel chunks whose exact sums are added in any order.
fn sum_nodes(nodes: &[Node], k_max: usize) -> Vec<(Wide, Wide)> {
    let chunks: Vec<Vec<(Wide, Wide)>> = nodes
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut acc = vec![(Wide::default(), Wide::default()); k_max + 1];
            for node in chunk {
                let (sr, si) = node.s;
                let (mut re, mut im) = (node.w, 0i128);
                for (kk, a) in acc.iter_mut().enumerate() {
                    if kk > 0 {
                        let r = mul_phase(re, sr) - mul_phase(im, si);
                        im = mul_phase(re, si) + mul_phase(im, sr);
                        re = r;
                    }
                    a.0.add(Wide::shifted(re, node.shift));
                    a.1.add(Wide::shifted(im, node.shift));
                }
            }
            acc
        })
        .collect();
    let mut sum = vec![(Wide::default(), Wide::default()); k_max + 1];
    for part in chunks {
        for (s, v) in sum.iter_mut().zip(part) {
            s.0.add(v.0);
            s.1.add(v.1);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::xorshift::gen::case;
    use crate::num::xorshift::XorShift;

    /// A random i128 below 2^bits in magnitude, of either sign.
    fn random_i128(g: &mut XorShift, bits: u32) -> i128 {
        let v = ((u128::from(g.next_u64()) << 64) | u128::from(g.next_u64())) >> (128 - bits);
        if g.chance(1, 2) {
            -(v as i128)
        } else {
            v as i128
        }
    }

    /// mul_phase against rug's integers: exactly a·b/2^126 truncated toward zero.
    #[test]
    fn mul_phase_is_the_truncated_product() {
        for i in 0..crate::num::test_cases(20_000) {
            let mut g = case(0xf1, i);
            let (ba, bb) = (1 + g.below(126) as u32, 1 + g.below(127) as u32);
            let (a, b) = (random_i128(&mut g, ba), random_i128(&mut g, bb));
            let exact = (Integer::from(a) * b).div_rem(Integer::from(1) << PHASE_BITS).0;
            assert_eq!(Integer::from(mul_phase(a, b)), exact, "case {i}: {a} · {b}");
        }
    }

    /// Wide::shifted is ⌊z·2^d⌋ and Wide::add adds exactly, against rug's integers.
    #[test]
    fn wide_shifts_and_adds_exactly() {
        let mut sum = Wide::default();
        let mut exact = Integer::new();
        for i in 0..crate::num::test_cases(20_000) {
            let mut g = case(0xf2, i);
            let bits = 1 + g.below(126) as u32;
            let z = random_i128(&mut g, bits);
            let d = g.below(250) as i32 - 186;
            let want = if d >= 0 { Integer::from(z) << d as u32 } else { Integer::from(z) >> (-d) as u32 };
            let w = Wide::shifted(z, d);
            assert_eq!(w.to_integer(), want, "case {i}: ⌊{z}·2^{d}⌋");
            sum.add(w);
            exact += want;
            assert_eq!(sum.to_integer(), exact, "case {i}: the running sum");
        }
    }

    /// Random phase sums, weights of both signs from 2^−3000 to 2^3000 (beyond f64), against MPFR at 400 bits
    /// (each term w e^{ikθ} from MPFR's own sine and cosine of kθ, independent of the recurrence): the
    /// rectangles hold the sums, and their widths are within (N + K)·2^−118 of Σ|w| (k up to 3000).
    #[test]
    fn phase_sums_hold_the_exact_sums_and_stay_narrow() {
        let prec = 180;
        for i in 0..crate::num::test_cases(12) {
            let mut g = case(0xf3, i);
            let nodes = 1 + g.below(40) as usize;
            let k_max = 1 + g.below(3000) as usize;
            let scale = if g.chance(1, 3) { g.below(6000) as i32 - 3000 } else { 0 };
            let mut terms = Vec::new();
            let mut exact_re = vec![Float::with_val(400, 0); k_max + 1];
            let mut exact_im = exact_re.clone();
            let mut total_w = Float::with_val(64, 0);
            for _ in 0..nodes {
                let sign = if g.chance(1, 4) { -1.0 } else { 1.0 };
                let w = Float::with_val(prec, sign * g.next_f64() * 10f64.powi(g.below(40) as i32 - 20)) << scale;
                let w = Interval::from_float(&w, prec);
                let theta = Interval::from_float(&Float::with_val(prec, (g.next_f64() - 0.5) * 20.0), prec);
                total_w += Float::with_val(64, w.hi().abs_ref());
                for k in 0..=k_max {
                    let a = Float::with_val(400, theta.lo() * k as u32);
                    exact_re[k] += Float::with_val(400, a.cos_ref()) * w.lo();
                    exact_im[k] += Float::with_val(400, a.sin_ref()) * w.lo();
                }
                terms.push((w, theta));
            }
            let sums = phase_sums_fixed(&terms, k_max, prec, f64::INFINITY).expect("the sums are held");
            let allowed = Float::with_val(64, &total_w * ((nodes + k_max) as f64 * 2f64.powi(-118)));
            for k in 0..=k_max {
                let z = &sums[k];
                let held = z.re().lo() <= &exact_re[k]
                    && &exact_re[k] <= z.re().hi()
                    && z.im().lo() <= &exact_im[k]
                    && &exact_im[k] <= z.im().hi();
                assert!(held, "case {i}, k = {k}: the rectangle misses the sum");
                assert!(z.re().width() <= allowed && z.im().width() <= allowed, "case {i}, k = {k}: width above {allowed}");
            }
        }
    }

    /// A phase's own width is kept: θ = [0.731, 0.731 + 10⁻²⁰] and K = 1,000, the sums at both ends (MPFR at
    /// 400 bits, k·10⁻²⁰ apart, far above the rounding) lie in every rectangle.
    #[test]
    fn a_phases_width_is_kept() {
        let prec = 160;
        let lo = Float::with_val(prec, 0.731);
        let hi = Float::with_val(prec, &lo + Float::with_val(prec, 1e-20));
        let (w, theta) = (Interval::one(prec), Interval::new(lo.clone(), hi.clone()));
        let k_max = 1000;
        let sums = phase_sums_fixed(&[(w, theta)], k_max, prec, 1.0).expect("held");
        for (k, z) in sums.iter().enumerate() {
            for end in [&lo, &hi] {
                let a = Float::with_val(400, end * k as u32);
                let (c, s) = (Float::with_val(400, a.cos_ref()), Float::with_val(400, a.sin_ref()));
                assert!(z.re().lo() <= &c && &c <= z.re().hi() && z.im().lo() <= &s && &s <= z.im().hi(), "k = {k}: misses e^(ik{end})");
            }
        }
    }

    /// The sum's own floors are bounded: 1 and a thousand terms −2^−300 at θ = 0 and k_max = 0, where nothing
    /// else rounds (exact weights, the step exactly 1), so the radius is the floors' two units per term alone
    /// and must hold 1 − 1000·2^−300 (each tiny term floors to −1 unit of the sum).
    #[test]
    fn the_sums_floors_are_bounded() {
        // (at 400 bits, so the rectangle's own rounding does not cover the floors)
        let prec = 400;
        let zero = Interval::zero(prec);
        let tiny = Interval::from_float(&(Float::with_val(prec, -1) >> 300), prec);
        let mut terms = vec![(Interval::one(prec), zero.clone())];
        terms.extend(std::iter::repeat_n((tiny, zero), 1000));
        let z = &phase_sums_fixed(&terms, 0, prec, 1.0).expect("held")[0];
        let exact = Float::with_val(400, 1) - (Float::with_val(400, 1000) >> 300);
        assert!(z.re().lo() <= &exact && &exact <= z.re().hi(), "{z:?} misses 1 − 1000·2^−300");
    }

    /// A weight's own width is kept (w = [1, 1 + 2^-80]: widths of at least 2^-80), a cap below the bound
    /// refuses, and a wide phase (k_max·ε_s above 0.1) refuses.
    #[test]
    fn widths_are_kept_and_caps_refuse() {
        let prec = 160;
        let w = Interval::new(Float::with_val(prec, 1), Float::with_val(prec, 1) + (Float::with_val(prec, 1) >> 80));
        let theta = Interval::from_float(&Float::with_val(prec, 0.731), prec);
        let sums = phase_sums_fixed(&[(w.clone(), theta.clone())], 500, prec, 1.0).expect("held");
        assert!(sums.iter().all(|z| z.re().width() >= Float::with_val(64, 1) >> 80));
        assert!(phase_sums_fixed(&[(w.clone(), theta.clone())], 500, prec, 1e-30).is_none());
        let wide = Interval::new(Float::with_val(prec, 0.7), Float::with_val(prec, 0.7001));
        assert!(phase_sums_fixed(&[(Interval::one(prec), wide)], 5000, prec, 1.0).is_none());
    }
}
