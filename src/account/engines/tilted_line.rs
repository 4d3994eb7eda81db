//! The tilted engine's line (`engines::tilted`, module doc): the sums of one planned line at any ε, δ's
//! certified bracket from them, and the iterations and brackets of ε(δ) and f(α) on it.

use crate::noise::loss::Direction;
use crate::num::cinterval::{CInterval, Phases};
use crate::num::Interval;
use rayon::prelude::*;
use rug::Float;
use std::sync::OnceLock;

/// Points of the line per parallel chunk of its sums (fixed, so the sums are the same on any number of
/// threads).
pub(super) const SUM_CHUNK: usize = 2048;

/// The composed law's sum at one tilt: G_k = M(c + ikh) H(kh), k = 0..=K, and the error terms' ingredients.
pub(super) struct Line {
    pub(super) dir: Direction,
    pub(super) c: Float,
    pub(super) h: Float,
    pub(super) g: Vec<CInterval>,
    /// λ > c and an upper bound of ln M(λ), for the aliased copies with m < 0
    pub(super) lambda: Float,
    pub(super) ln_m_lambda: Float,
    /// an upper bound of ln sup_{t ≥ hK} |M(c + it)| (with `near`: of ln sup_{t ≥ hF} |M(c + it)|)
    pub(super) ln_rest: Float,
    /// where the rest is bounded point by point (`tilted_rest`): an upper bound of
    /// ln[(h/π) Σ_{K < k ≤ F} |M(c + ikh)|/(kh)²], and F
    pub(super) near: Option<(Float, usize)>,
    /// the midpoints of the G_k in double precision, for the iterations' first steps ([`Line::newton64`])
    pub(super) g64: OnceLock<Scaled>,
}

/// The midpoints of a line's G_k in double precision, scaled by 2^−e (e: the binary exponent of G_0, the
/// largest |G_k|: |M(c + it)| ≤ M(c) and |H(t)| ≤ H(0)), so that none overflows.
pub(super) struct Scaled {
    e: i32,
    g: Vec<(f64, f64)>,
}

/// Points of the double-precision sums between restarts of their phase recurrence from MPFR's sine and
/// cosine (the recurrence's rounding, about 10^−16 per step, stays near 10^−13).
const RESTART64: usize = 512;

/// A tilt or step for the detail: four decimals, or four significant digits below 0.001 (10^12 Laplace
/// releases: c = 8.987e-6, not 0.0000).
fn four(x: f64) -> String {
    if x >= 1e-3 {
        format!("{x:.4}")
    } else {
        format!("{x:.3e}")
    }
}

impl Line {
    pub(super) fn describe(&self) -> String {
        let rest = self.near.as_ref().map_or(String::new(), |(_, far)| format!(" (the rest bounded point by point to {far})"));
        let (c, h) = (self.c.to_f64(), self.h.to_f64());
        format!("{}: c = {}, h = {}, {} points of the line{rest}", self.dir.as_str(), four(c), four(h), self.g.len())
    }

    /// U(ε) = (h/2π)[G_0 + 2 Σ_{k≥1} Re(G_k e^{−ikhε})] and U'(ε), enclosed: the points in chunks of
    /// [`SUM_CHUNK`] summed in parallel, each chunk's phases from MPFR's sine and cosine at its start, the
    /// chunks' sums added in their order (the same enclosure on any number of threads).
    /// Without `slope`, U' is not summed (it is 0).
    pub(super) fn sums(&self, eps: &Interval, slope: bool) -> (Interval, Interval) {
        let p = self.c.prec();
        let h = Interval::from_float(&self.h, p);
        let theta = h.mul(eps).neg();
        let parts: Vec<(Interval, Interval)> =
            self.g.par_chunks(SUM_CHUNK).enumerate().map(|(j, chunk)| self.chunk_sums(chunk, j * SUM_CHUNK, &theta, &h, slope)).collect();
        let mut u = self.g[0].re().clone();
        let mut du = Interval::zero(p);
        for (a, b) in &parts {
            u.add_assign(a);
            du.add_assign(b);
        }
        let scale = h.div(&Interval::pi(p).add(&Interval::pi(p)));
        (u.mul(&scale), du.mul(&scale))
    }

    /// One chunk's share of [`Line::sums`] before the factor h/2π: Σ 2 Re(G_k e^{ikθ}) and Σ 2kh Im(G_k e^{ikθ})
    /// over its points k = k0, k0 + 1, … (the point k = 0, G_0, is left to the caller).
    fn chunk_sums(&self, chunk: &[CInterval], k0: usize, theta: &Interval, h: &Interval, slope: bool) -> (Interval, Interval) {
        let p = self.c.prec();
        let mut z = Phases::from_k(&Interval::one(p), theta, k0 as i64);
        let two = Interval::from_i64(2, p);
        let (mut u, mut du) = (Interval::zero(p), Interval::zero(p));
        // (in place: the roundings of fresh values, without allocating per point)
        let mut scratch: [Interval; 4] = std::array::from_fn(|_| Interval::zero(p));
        let (mut w, mut a, mut b, mut k2) = (CInterval::one(p), Interval::zero(p), Interval::zero(p), Interval::zero(p));
        for (i, g) in chunk.iter().enumerate() {
            if i > 0 {
                z.advance();
            }
            let k = k0 + i;
            if k == 0 {
                continue;
            }
            g.mul_into(z.current(), &mut w, &mut scratch);
            w.re().mul_into(&two, &mut a);
            u.add_assign(&a);
            if !slope {
                continue;
            }
            // d/dε Re(G e^{−ikhε}) = Re(−ikh G e^{−ikhε}) = kh Im(G e^{−ikhε})
            w.im().mul_into(h, &mut a);
            k2.assign_i64(2 * k as i64);
            a.mul_into(&k2, &mut b);
            du.add_assign(&b);
        }
        (u, du)
    }

    /// δ(ε) in this direction for every ε of the enclosure `e`, certified: [S − A − R, S + R] ∩ [0, 1]
    /// (module doc).
    pub(super) fn delta(&self, e: &Interval) -> Interval {
        let p = self.c.prec();
        let c = Interval::from_float(&self.c, p);
        let h = Interval::from_float(&self.h, p);
        let one = Interval::one(p);
        let two_pi = Interval::pi(p).add(&Interval::pi(p));
        let tilt = c.mul(e).neg().exp();
        let s = self.sums(e, false).0.mul(&tilt);
        // aliased copies: m > 0, then m < 0 through λ
        let r1 = two_pi.mul(&c).div(&h).neg().exp();
        let a1 = r1.div(&one.sub(&r1));
        let lam = Interval::from_float(&self.lambda, p);
        let r2 = two_pi.mul(&lam.sub(&c)).div(&h).neg().exp();
        let a2 = Interval::from_float(&self.ln_m_lambda, p).sub(&lam.mul(e)).exp().mul(&r2).div(&one.sub(&r2));
        let alias = a1.add(&a2);
        // the rest of the sum beyond K: the sup bound's, or the point-by-point sum to F and the sup bound's beyond
        let sup_from = self.near.as_ref().map_or(self.g.len() - 1, |(_, far)| *far);
        let reach = h.mul(&Interval::from_i64(sup_from as i64, p));
        let mut rest = Interval::from_float(&self.ln_rest, p).exp().mul(&tilt).div(&Interval::pi(p).mul(&reach));
        if let Some((ln_near, _)) = &self.near {
            rest = rest.add(&Interval::from_float(ln_near, p).exp().mul(&tilt));
        }
        let lo = Interval::from_float(s.lo(), p).sub(&alias).sub(&rest);
        let hi = Interval::from_float(s.hi(), p).add(&rest);
        let lo = if *lo.lo() < 0 { Float::with_val(p, 0) } else { lo.lo().clone() };
        let hi = if *hi.hi() > 1 { Float::with_val(p, 1) } else { hi.hi().clone() };
        Interval::new(lo, hi)
    }

    /// The line's midpoints in double precision (computed once).
    fn scaled(&self) -> &Scaled {
        self.g64.get_or_init(|| {
            let e = self.g[0].re().hi().get_exp().unwrap_or(0);
            let at = |x: Float| Float::with_val(53, x >> e).to_f64();
            Scaled { e, g: self.g.iter().map(|g| (at(g.re().mid()), at(g.im().mid()))).collect() }
        })
    }

    /// [`Line::sums`] at the midpoints in double precision, before the factor h/2π and scaled by 2^−e
    /// ([`Scaled`]): the phases by a recurrence restarted every [`RESTART64`] points from MPFR's sine and
    /// cosine (at 128 bits: the same values on every machine).
    fn sums64(&self, eps: f64) -> (f64, f64) {
        let Scaled { g, .. } = self.scaled();
        let theta = -Float::with_val(128, &self.h * eps);
        let rotation = |k: usize| -> (f64, f64) {
            let (s, c) = Float::with_val(128, &theta * k as u64).sin_cos(Float::new(128));
            (c.to_f64(), s.to_f64())
        };
        let (sc, ss) = rotation(1);
        let h = self.h.to_f64();
        let (mut u, mut du) = (g[0].0, 0.0);
        let (mut zr, mut zi) = (1.0, 0.0);
        for (k, &(gr, gi)) in g.iter().enumerate().skip(1) {
            (zr, zi) = if k % RESTART64 == 0 { rotation(k) } else { (zr * sc - zi * ss, zr * ss + zi * sc) };
            u += 2.0 * (gr * zr - gi * zi);
            du += 2.0 * k as f64 * h * (gr * zi + gi * zr);
        }
        (u, du)
    }

    /// The first steps of [`Line::solve`] in double precision ([`Line::sums64`]), from `guess`, until a step is
    /// below 10^−10 relative: a start for the MPFR iteration, which then takes two or three steps, not eight.
    /// The guess itself where the midpoint sum is not positive (far in the tail, where rounding dominates it).
    fn newton64(&self, d: &Float, guess: f64) -> f64 {
        let Scaled { e: scale, .. } = self.scaled();
        let ln_d = Float::with_val(64, d.ln_ref()).to_f64();
        let (c, h) = (self.c.to_f64(), self.h.to_f64());
        let offset = f64::from(*scale) * std::f64::consts::LN_2 + (h / (2.0 * std::f64::consts::PI)).ln();
        let (mut e, mut lo, mut hi) = (guess, 0.0, guess.max(1.0) * 4.0);
        for _ in 0..40 {
            let (u, du) = self.sums64(e);
            if !(u > 0.0 && u.is_finite() && du.is_finite()) {
                return guess;
            }
            let ln_s = u.ln() + offset - c * e;
            if ln_s > ln_d {
                lo = e;
            } else {
                hi = e;
            }
            let mut next = e - (ln_s - ln_d) / (du / u - c);
            if !(next > lo && next < hi) {
                next = (lo + hi) / 2.0;
            }
            let step = (next - e).abs();
            e = next;
            if step <= 1e-10 * e.abs().max(1.0) {
                break;
            }
        }
        e
    }

    /// A safeguarded Newton iteration on the logarithm of the midpoint of S(ε) = δ, from `guess`, until a
    /// step is below 10^−`decades` relative (the bracket around it starts `digits` + 2 decades wide: the
    /// midpoints' own rounding, far below, never holds the iteration up).
    pub(super) fn solve(&self, d: &Float, guess: f64, decades: u32) -> Float {
        let p = self.c.prec();
        let c = self.c.clone();
        let guess = self.newton64(d, guess);
        let mut e = Float::with_val(p, guess);
        let (mut lo, mut hi) = (Float::with_val(p, 0), Float::with_val(p, guess.max(1.0) * 4.0));
        for _ in 0..100 {
            let (u, du) = self.sums(&Interval::from_float(&e, p), true);
            let tilt = (-Float::with_val(p, &c * &e)).exp();
            let s = Float::with_val(p, u.mid() * &tilt);
            let ds = Float::with_val(p, (du.mid() - Float::with_val(p, &c * u.mid())) * &tilt);
            if s > *d {
                lo = e.clone();
            } else {
                hi = e.clone();
            }
            // Newton on ln S (δ falls about exponentially: on S itself, a start far on the small side jumps
            // out of the line's window)
            let ln_ratio = Float::with_val(p, Float::with_val(p, s.ln_ref()) - Float::with_val(p, d.ln_ref()));
            let mut next = Float::with_val(p, &e - Float::with_val(p, ln_ratio * &s / ds));
            if !(next > lo && next < hi) || next.is_nan() {
                next = Float::with_val(p, &lo + &hi) / 2u32;
            }
            let step = Float::with_val(p, &next - &e).abs();
            e = next;
            if step <= tolerance(&e, decades, p) {
                break;
            }
        }
        e
    }

    /// The threshold ε ≥ 0 where a decreasing mass meets `target` (midpoints, a bracketed secant on its
    /// logarithm with the Illinois safeguard), from `guess`; None if it is below 0. The mass is the
    /// alternative's above ε, −S'(ε) e^{−ε} = (cU − U') e^{−(c+1)ε}, or, `swapped`, the swapped pair's
    /// (S − S')(ε) = ((1 + c)U − U') e^{−cε} (`Composition::tradeoff_below_zero`).
    /// Stops where the bracket is below 10^−`decades` relative (the trade-off's bracket around it starts
    /// `digits`/2 + 3 decades wide: the supremum is flat there).
    pub(super) fn threshold(&self, target: &Float, guess: f64, swapped: bool, decades: u32) -> Option<Float> {
        let p = self.c.prec();
        let ln_a = Float::with_val(p, target.ln_ref());
        let (cu, ce) = if swapped {
            (Float::with_val(p, &self.c + 1u32), self.c.clone())
        } else {
            (self.c.clone(), Float::with_val(p, &self.c + 1u32))
        };
        // ln of the mass minus ln target (None: the midpoint is not positive there, far in the tail: below it)
        let f = |e: &Float| -> Option<Float> {
            let (u, du) = self.sums(&Interval::from_float(e, p), true);
            let m = Float::with_val(p, Float::with_val(p, &cu * u.mid()) - du.mid());
            if m <= 0 {
                return None;
            }
            let ce = Float::with_val(p, &ce * e);
            Some(Float::with_val(p, m.ln() - ce - &ln_a))
        };
        let (mut lo, mut hi) = (Float::with_val(p, 0), Float::with_val(p, guess.max(1e-3)));
        let mut f_lo = f(&lo).filter(|v| *v > 0)?;
        let mut f_hi = f(&hi);
        let mut grow = 0;
        while let Some(v) = f_hi.clone().filter(|v| *v > 0) {
            (lo, f_lo) = (hi.clone(), v);
            hi = Float::with_val(p, &hi * 2u32) + 1u32;
            f_hi = f(&hi);
            grow += 1;
            if grow > 60 {
                return None;
            }
        }
        // Illinois: the end kept twice in a row has its value halved
        let mut side = 0i8;
        for _ in 0..400 {
            let width = Float::with_val(p, &hi - &lo);
            if width <= tolerance(&hi, decades, p) {
                break;
            }
            let mid = Float::with_val(p, &lo + &hi) / 2u32;
            let x = match &f_hi {
                Some(fh) => {
                    let x = Float::with_val(p, &hi - Float::with_val(p, fh * &width) / Float::with_val(p, fh - &f_lo));
                    if x > lo && x < hi {
                        x
                    } else {
                        mid
                    }
                }
                None => mid,
            };
            match f(&x) {
                Some(v) if v > 0 => {
                    (lo, f_lo) = (x, v);
                    if side == -1 {
                        f_hi = f_hi.map(|v| v / 2u32);
                    }
                    side = -1;
                }
                v => {
                    (hi, f_hi) = (x, v);
                    if side == 1 {
                        f_lo /= 2u32;
                    }
                    side = 1;
                }
            }
        }
        Some(Float::with_val(p, &lo + &hi) / 2u32)
    }

    /// Whether `found` is near enough the line's planned point `at` that a line planned at `found` would
    /// do no better: the sum's error, relative to δ at the point, grows like e^{c|ε − at|} away from it, and
    /// here by at most e (a bracket short of the digits asked is short of them for another reason: f is a
    /// difference smaller than the δ the line certifies, and only more digits help).
    pub(super) fn near(&self, at: f64, found: f64) -> bool {
        self.c.to_f64() * (found - at).abs() <= 1.0
    }

    /// A certified bracket of f(α) = sup_{u > 0} g(u), g(u) = 1 − δ(ln u) − uα, from four points u₁ < u₂ <
    /// u₃ < u₄ around û = e^ε. g is concave (δ(ln u) = E[(1 − u e^{−L})_+] is convex in u); where δ's brackets
    /// show it rising from u₁ to u₂ and falling from u₃ to u₄, its maximiser u* lies in [u₁, u₄], and
    /// extended chords bound g(u*) in each piece: on [u₂, u₃] the chord through u₁, u₂ (or through u₃, u₄)
    /// carried to the far end; on [u₁, u₂] the chord through u₂, u₃ carried back to u₁ (slope at most
    /// max(0, (g₂ − g₃)/(u₃ − u₂)) going left), on [u₃, u₄] likewise. The supremum is at most the largest of
    /// the three and at least every g_i. The excess is second order in the spacing, which starts near the
    /// square root of the digits asked and grows until the brackets decide the rises (None if they never do).
    /// `swapped`: this is the swapped pair's line, ε is ε' = −ε* and g(u) = u (1 − α − δ'(ln(1/u)))
    /// (`Composition::tradeoff_below_zero`).
    pub(super) fn tradeoff_bracket(&self, e: &Float, al: &Interval, digits: u32, swapped: bool) -> Option<Interval> {
        let p = self.c.prec();
        let u0 = if swapped { Float::with_val(p, (-e.clone()).exp_ref()) } else { Float::with_val(p, e.exp_ref()) };
        let mut w = Float::with_val(p, &u0 * Float::with_val(p, 10f64.powi(-(digits as i32) / 2 - 3)));
        let one = Interval::one(p);
        let g = |u: &Float| -> Interval {
            let ui = Interval::from_float(u, p);
            if swapped {
                ui.mul(&one.sub(al).sub(&self.delta(&ui.ln().neg())))
            } else {
                one.sub(&self.delta(&ui.ln())).sub(&ui.mul(al))
            }
        };
        for _ in 0..16 {
            let us: Vec<Float> = [-2i32, -1, 1, 2].iter().map(|j| Float::with_val(p, &u0 + Float::with_val(p, &w * *j))).collect();
            if us[0] <= 0 {
                return None;
            }
            let gs: Vec<Interval> = us.iter().map(&g).collect();
            if gs[1].lo() >= gs[0].hi() && gs[2].lo() >= gs[3].hi() {
                let hi = chords(&us, &gs, p);
                let lo = gs
                    .iter()
                    .map(|g| g.lo())
                    .max_by(|x, y| x.total_cmp(y))
                    .expect("invariant: at least one bracket to take the maximum of")
                    .clone();
                let lo = if lo < 0 { Float::with_val(p, 0) } else { lo };
                let hi = if hi > 1 { Float::with_val(p, 1) } else { hi };
                return Some(Interval::new(lo, hi));
            }
            w *= 8u32;
        }
        None
    }

    /// A certified bracket of ε(δ) around `e`: ε₋ with δ(ε₋) > δ and ε₊ with δ(ε₊) ≤ δ, as narrow as the
    /// digits asked need (None if δ's brackets are too wide to decide).
    pub(super) fn bracket(&self, e: &Float, d: &Interval, digits: u32) -> Option<Interval> {
        let p = self.c.prec();
        let scale = Float::with_val(p, e.clone().abs().max(&Float::with_val(p, 1e-3)));
        let mut w = Float::with_val(p, &scale * Float::with_val(p, 10f64.powi(-(digits as i32) - 2)));
        for _ in 0..12 {
            let lo = Float::with_val(p, e - &w);
            let hi = Float::with_val(p, e + &w);
            let lo = if lo < 0 { Float::with_val(p, 0) } else { lo };
            let at = |x: &Float| self.delta(&Interval::from_float(x, p));
            if *at(&lo).lo() > *d.hi() && *at(&hi).hi() <= *d.lo() {
                return Some(Interval::new(lo, hi));
            }
            w *= 16u32;
        }
        None
    }
}

/// 10^−decades × max(|x|, 1): the iterations' stopping width (a planning choice; the brackets around their
/// results are certified whatever it is).
fn tolerance(x: &Float, decades: u32, p: u32) -> Float {
    Float::with_val(p, 10f64.powi(-(decades as i32))) * Float::with_val(p, x.clone().abs().max(&Float::with_val(p, 1)))
}

/// The upper bound of `Line::tradeoff_bracket`: the largest of the extended chords over [u₁, u₂], [u₂, u₃]
/// and [u₃, u₄], from the points `us` and the enclosures `gs` of g there (upper ends where g enters with a
/// plus sign, lower ends where with a minus), rounded outward.
fn chords(us: &[Float], gs: &[Interval], p: u32) -> Float {
    let u = |i: usize| Interval::from_float(&us[i], p);
    let hi = |i: usize| Interval::from_float(gs[i].hi(), p);
    let lo = |i: usize| Interval::from_float(gs[i].lo(), p);
    let zero = Interval::zero(p);
    let (d12, d23, d34) = (u(1).sub(&u(0)), u(2).sub(&u(1)), u(3).sub(&u(2)));
    // [u₂, u₃]: the rising chord carried forward, the falling one carried back; the smaller holds
    let a = hi(1).add(&hi(1).sub(&lo(0)).mul(&d23.div(&d12)));
    let b = hi(2).add(&hi(2).sub(&lo(3)).mul(&d23.div(&d34)));
    let middle = if a.hi() <= b.hi() { a.hi().clone() } else { b.hi().clone() };
    // [u₁, u₂]: going left from u₂, g rises at most by max(0, (g₂ − g₃)/(u₃ − u₂)) per unit; [u₃, u₄] alike
    let left = hi(1).add(&hi(1).sub(&lo(2)).max(&zero).mul(&d12.div(&d23)));
    let right = hi(2).add(&hi(2).sub(&lo(1)).max(&zero).mul(&d34.div(&d23)));
    [middle, left.hi().clone(), right.hi().clone()].into_iter().max_by(|x, y| x.total_cmp(y)).expect("invariant: three candidates")
}
