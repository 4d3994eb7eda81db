//! A decay bound of |M(c + it)| for the Poisson-subsampled Gaussian (add/remove, and the replace-one pair:
//! [`replace_strips`]) and the mixtures of Gaussians from the shifted contour: the bound that lets a few
//! DP-SGD steps (2 to ~16) reach 20 digits, where the layer cake of `mgf.rs` (uniform components, |M| ≤
//! M(c) − the components' gain) stalls at the mass its pieces miss, a few parts in a thousand of M(c), which
//! n factors bring down only for large n.
//!
//! With r(x) = p₀ + Σᵢ pᵢ e^{μᵢx − ηᵢ}, uᵢ(x) = pᵢ e^{μᵢx − ηᵢ} and φ the standard normal density,
//! M(c + it) = F(κ), F(κ) = ∫ φ(x) r(x)^κ dx, κ = 1 + c + it (`Remove`) or −c − it (`Add`) (`mgf.rs`
//! module doc). The integrand is analytic in the strip |Im x| < π/(2μ_max), where every term of r turns by
//! an angle in [0, μᵢy] ⊂ [0, π/2] (y = Im x > 0; mirrored below), so Re r ≥ p₀ > 0 and Log r is analytic,
//! and it vanishes as |Re x| → ∞ (the normal density beats r's exponential growth). By Cauchy's theorem
//! the integral may run along Im x = y, taking y of the sign of Im κ. There, with s = Re κ:
//!
//! * |φ(x + iy)| = φ(x) e^{y²/2};
//! * |r^κ| = |r|^s e^{−Im κ · arg r}, with r(x + iy) = X + iY, X = p₀ + Σᵢ uᵢ cos(μᵢ|y|) ≥ p₀ and
//!   Y = Σᵢ uᵢ sin(μᵢ|y|) ≥ 0 (for y > 0; conjugated below), both increasing in x, so that
//!   |r| = √(X² + Y²) increases in x and |arg r| = atan(Y/X) =: A(x).
//!
//! Hence for every |t| ≥ t*, |M(c + it)| ≤ e^{y²/2} ∫ φ(x) |r(x + iy)|^s e^{−t* A(x)} dx: this decays like
//! the loss's own characteristic function, e^{−t*π/2} where the tilted law lives on the Gaussian-like right
//! of r, and like exp(−(ln t*)²/(2μ²)) from its far left. The integral is bounded above on pieces of width
//! 1/16 (at most 4,096 pieces, wider where the window is longer) of [−14, sμ_max + 14], each by its width
//! times the piece's supremum of φ|r|^s (|r| at the piece's right end for s ≥ 0, its left end for s < 0, the
//! smallest x² of the piece) times e^{−t*A}, A from Y at the piece's left end over X at its right end;
//! beyond, A ≥ 0 and the normal tails (Mills's ratio, ∫_b^∞ φ ≤ φ(b)/b) bound the rest: |r| ≥ X ≥ p₀ for
//! s < 0; for s ≥ 0, |r| ≤ r(−14) on the left and |r| ≤ r(x) ≤ (p₀ + Σᵢ pᵢ e^{−ηᵢ}) e^{μ_max x} for x ≥ 0 on
//! the right, whose Gaussian integral is e^{m²/2} ∫_{b−m}^∞ φ with m = sμ_max. The shift is tried at the
//! angles μ_max|y| = 0.999·(π/2)·2^{−j}, j = 0, …, 4 (the factor e^{y²/2} against the decay's rate), and the
//! smallest bound taken (`Decay::Min`).
//! Computed in 64-bit interval arithmetic (every end rounded outwards) for the certified rest, and in f64
//! with the same formulas for planning ([`plan_strips`]).

use crate::num::Interval;
use rug::Float;
use std::f64::consts::{FRAC_PI_2, PI};

/// Left end of the pieces (the normal tail beyond it is below 10⁻⁴³).
const LEFT: f64 = -14.0;
/// The pieces run to s·μ_max plus this (the tilted weight peaks near s·μ_max).
const RIGHT_MARGIN: f64 = 14.0;
/// Pieces per unit of x.
const PER_UNIT: f64 = 16.0;
/// The shifts' angles μ_max|y|, in units of 0.999·π/2.
const ANGLES: [f64; 5] = [1.0, 0.5, 0.25, 0.125, 0.0625];

/// One shift's bound, certified: ln of e^{y²/2}/√(2π), each piece's ln(width · sup e^{−x²/2} R^s) and
/// lower end of A, and ln of the tails beyond the pieces (module doc).
#[derive(Clone, Debug)]
pub struct Strip {
    ln_pre: Float,
    terms: Vec<(Float, Float)>,
    ln_tail: Float,
}

impl Strip {
    /// ln of the bound of sup_{t ≥ t*} |M(c + it)|, rounded up.
    pub fn ln_upper(&self, t_star: f64) -> Float {
        let p = 64;
        let t = Interval::from_float(&Float::with_val(p, t_star.max(0.0)), p);
        let mut sum = Interval::from_float(&self.ln_tail, p).exp();
        for (ln_w, a) in &self.terms {
            let e = Interval::from_float(ln_w, p).sub(&t.mul(&Interval::from_float(a, p)));
            sum = sum.add(&e.exp());
        }
        let hi = sum.hi().clone();
        if !hi.is_finite() {
            return Float::with_val(p, f64::INFINITY);
        }
        if hi <= 0 {
            return Float::with_val(p, f64::NEG_INFINITY);
        }
        Interval::from_float(&self.ln_pre, p).add(&Interval::new(hi.clone(), hi).ln()).hi().clone()
    }
}

/// The pieces' grid for exponent s: (a, b) for each piece, [`PER_UNIT`] to a unit, or [`MAX_PIECES`] wider
/// ones where the window is longer (a tiny noise multiplier: μ_max in the hundreds).
fn pieces(s: f64, mu_max: f64) -> Vec<(f64, f64)> {
    let right = s.max(0.0) * mu_max + RIGHT_MARGIN;
    let n = (((right - LEFT) * PER_UNIT).ceil() as usize).clamp(1, MAX_PIECES);
    let at = |j: usize| if j == n { right } else { LEFT + (right - LEFT) * j as f64 / n as f64 };
    (0..n).map(|j| (at(j), at(j + 1))).collect()
}

/// Most pieces taken (each bound is valid on pieces of any width; wider ones are looser).
const MAX_PIECES: usize = 4096;

/// The smallest x² on [a, b], planning.
fn min_square(a: f64, b: f64) -> f64 {
    if a <= 0.0 && b >= 0.0 {
        0.0
    } else {
        (a * a).min(b * b)
    }
}

/// The smallest x² on [a, b], enclosed (its lower end is a lower bound).
fn min_square_iv(a: f64, b: f64, p: u32) -> Interval {
    if a <= 0.0 && b >= 0.0 {
        return Interval::zero(p);
    }
    let x = Interval::from_float(&Float::with_val(p, if a.abs() < b.abs() { a } else { b }), p);
    x.mul(&x)
}

/// The certified bounds, one per shift whose angle is certainly at most π/2, of the mixture r(x) = p₀ +
/// Σᵢ pᵢ e^{μᵢx − ηᵢ} (`q`, `eta`, `mu` enclosures, `mu_max_f` μ_max in f64 for the layout) at exponent
/// s = `kr` (module doc).
pub fn strips(q: &[Interval], eta: &[Interval], mu: &[Interval], p0: &Interval, mu_max_f: f64, kr: f64) -> Vec<Strip> {
    let p = 64;
    let fl = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
    let s = fl(kr);
    let half_pi = Interval::pi(p).mul_pow2(-1);
    let mut out = Vec::new();
    for frac in ANGLES {
        let y = fl(frac * 0.999 * FRAC_PI_2 / mu_max_f);
        let angles: Vec<Interval> = mu.iter().map(|m| m.mul(&y)).collect();
        if angles.iter().any(|a| a.hi() > half_pi.lo()) {
            continue;
        }
        let (sines, cosines): (Vec<Interval>, Vec<Interval>) = angles.iter().map(|a| (a.sin(), a.cos())).unzip();
        let u = |x: f64| -> Vec<Interval> { q.iter().zip(mu).zip(eta).map(|((q, m), e)| q.mul(&m.mul(&fl(x)).sub(e).exp())).collect() };
        // (X, Y) of r(x + iy) from the terms at x
        let xy = |u: &[Interval]| {
            let re = u.iter().zip(&cosines).fold(p0.clone(), |acc, (u, c)| acc.add(&u.mul(c)));
            let im = u.iter().zip(&sines).fold(Interval::zero(p), |acc, (u, s)| acc.add(&u.mul(s)));
            (re, im)
        };
        let piece = |a: f64, b: f64| {
            let (left, right) = (xy(&u(a)), xy(&u(b)));
            // s ln|r| at the piece's worse end; A from Y at its left end over X at its right end
            let s_ln_r = s.mul(&ln_modulus(if kr >= 0.0 { &right } else { &left }));
            (s_ln_r, angle_lo(&left.1, &right.0))
        };
        out.push(assemble(&y, &pieces(kr, mu_max_f), piece, tails(q, eta, mu, p0, kr, mu_max_f)));
    }
    out
}

/// ln |X + iY| of an enclosure of (X, Y).
fn ln_modulus((re, im): &(Interval, Interval)) -> Interval {
    re.mul(re).add(&im.mul(im)).ln().mul_pow2(-1)
}

/// A lower bound of atan(Y/X) from a lower bound of Y ≥ 0 and an upper bound of X > 0.
fn angle_lo(im: &Interval, re: &Interval) -> Interval {
    let (im, re) = (im.lo().clone(), re.hi().clone());
    let a = Interval::new(im.clone(), im).div(&Interval::new(re.clone(), re)).atan();
    let lo = a.lo().clone().max(&Float::with_val(a.prec(), 0));
    Interval::new(lo.clone(), lo)
}

/// One shift's bound from its pieces: `piece(a, b)` encloses, on [a, b], an upper bound of ln of the
/// integrand's modulus over φ(x)e^{y²/2} e^{−tA} and a lower bound of A; `ln_tail` the tails' ln without
/// 1/√(2π) (module doc).
fn assemble(y: &Interval, pieces: &[(f64, f64)], piece: impl Fn(f64, f64) -> (Interval, Interval), ln_tail: Interval) -> Strip {
    let p = 64;
    let fl = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
    let ln_sqrt_2pi = Interval::pi(p).mul_pow2(1).ln().mul_pow2(-1);
    let terms = pieces
        .iter()
        .map(|&(a, b)| {
            let (ln_mod, angle) = piece(a, b);
            let ln_w = fl(b).sub(&fl(a)).ln().add(&ln_mod).sub(&min_square_iv(a, b, p).mul_pow2(-1));
            (ln_w.hi().clone(), angle.lo().clone())
        })
        .collect();
    let ln_pre = y.mul(y).mul_pow2(-1).sub(&ln_sqrt_2pi).hi().clone();
    Strip { ln_pre, terms, ln_tail: ln_tail.hi().clone() }
}

/// The certified bounds of the Poisson-subsampled Gaussian's replace-one pair (`noise::mgf_replace`), whose
/// M(c + it) = ∫ φ r^{1+s} r̃^{−s}, r̃(x) = r(−x) = 1 − q + ũ, ũ = q e^{−μx − η}. On Im x = y > 0, r̃ turns the
/// other way (X̃ = 1 − q + ũ cos μy, Ỹ = −ũ sin μy), so both factors damp: |r^{1+s} r̃^{−s}| =
/// |r|^{1+c} |r̃|^{−c} e^{−t(atan(Y/X) + atan(|Ỹ|/X̃))}, |r| increasing and |r̃| decreasing in x (so on a
/// piece |r| at its right end and |r̃| at its right end, ũ at the right end over X̃ at the left). Beyond the
/// pieces |r̃|^{−c} ≤ (1 − q)^{−c} (X̃ ≥ 1 − q), and r as in the module doc with s = 1 + c.
pub fn replace_strips(q: &Interval, eta: &Interval, mu_f: f64, c: f64) -> Vec<Strip> {
    let p = 64;
    let fl = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
    let mu = eta.add(eta).sqrt();
    let p0 = Interval::one(p).sub(q);
    let (s, sc) = (fl(1.0 + c), fl(c));
    let half_pi = Interval::pi(p).mul_pow2(-1);
    let mut out = Vec::new();
    for frac in ANGLES {
        let y = fl(frac * 0.999 * FRAC_PI_2 / mu_f);
        let theta = mu.mul(&y);
        if theta.hi() > half_pi.lo() {
            continue;
        }
        let (sin, cos) = (theta.sin(), theta.cos());
        let u = |x: f64, sign: f64| q.mul(&mu.mul(&fl(sign * x)).sub(eta).exp());
        let xy = |u: &Interval| (p0.add(&u.mul(&cos)), u.mul(&sin));
        let piece = |a: f64, b: f64| {
            let (r_a, r_b) = (xy(&u(a, 1.0)), xy(&u(b, 1.0)));
            let (m_a, m_b) = (xy(&u(a, -1.0)), xy(&u(b, -1.0)));
            let ln_mod = s.mul(&ln_modulus(&r_b)).sub(&sc.mul(&ln_modulus(&m_b)));
            (ln_mod, angle_lo(&r_a.1, &r_b.0).add(&angle_lo(&m_b.1, &m_a.0)))
        };
        let layout = pieces(1.0 + c, mu_f);
        let right = layout.last().map_or(LEFT, |&(_, b)| b);
        let ln_mills = |b: &Interval| b.mul(b).mul_pow2(-1).neg().sub(&b.ln());
        let r_left = p0.add(&u(LEFT, 1.0));
        let guard = sc.mul(&p0.ln()).neg();
        let left = s.mul(&r_left.ln()).add(&guard).add(&ln_mills(&fl(-LEFT)));
        let m = s.mul(&mu);
        let m_hi = Interval::new(m.hi().clone(), m.hi().clone());
        let c_right = p0.add(&q.mul(&eta.neg().exp()));
        let right_tail = s.mul(&c_right.ln()).add(&guard).add(&m_hi.mul(&m_hi).mul_pow2(-1)).add(&ln_mills(&fl(right).sub(&m_hi)));
        let ln_tail = left.exp().add(&right_tail.exp()).ln();
        out.push(assemble(&y, &layout, piece, ln_tail));
    }
    out
}

/// ln of the tails beyond the pieces, without the factor 1/√(2π) (module doc), enclosed.
fn tails(q: &[Interval], eta: &[Interval], mu: &[Interval], p0: &Interval, kr: f64, mu_max_f: f64) -> Interval {
    let p = 64;
    let fl = |x: f64| Interval::from_float(&Float::with_val(p, x), p);
    let s = fl(kr);
    let right = pieces(kr, mu_max_f).last().map_or(LEFT, |&(_, b)| b);
    let mu_max = mu[1..].iter().fold(mu[0].clone(), |a, b| a.max(b));
    // ∫_{−∞}^{LEFT} e^{−x²/2} dx ≤ e^{−LEFT²/2}/|LEFT|; |r| ∈ [p₀, r(LEFT)] there
    let r_left = q.iter().zip(mu).zip(eta).fold(p0.clone(), |a, ((q, m), e)| a.add(&q.mul(&m.mul(&fl(LEFT)).sub(e).exp())));
    let s_ln_r_left = if kr >= 0.0 { s.mul(&r_left.ln()) } else { s.mul(&p0.ln()) };
    let ln_mills = |b: &Interval| b.mul(b).mul_pow2(-1).neg().sub(&b.ln());
    let left = s_ln_r_left.add(&ln_mills(&fl(-LEFT)));
    let right_tail = if kr >= 0.0 {
        // r ≤ C e^{μ_max x} (x ≥ 0), C = p₀ + Σ pᵢ e^{−ηᵢ}: e^{m²/2} ∫_{b−m}^∞ e^{−z²/2} dz with m = sμ_max
        let c = q.iter().zip(eta).fold(p0.clone(), |a, (q, e)| a.add(&q.mul(&e.neg().exp())));
        let m = s.mul(&mu_max);
        let m_hi = Interval::new(m.hi().clone(), m.hi().clone());
        s.mul(&c.ln()).add(&m_hi.mul(&m_hi).mul_pow2(-1)).add(&ln_mills(&fl(right).sub(&m_hi)))
    } else {
        s.mul(&p0.ln()).add(&ln_mills(&fl(right)))
    };
    let (l, r) = (left.exp(), right_tail.exp());
    l.add(&r).ln()
}

/// One shift's bound in f64, for planning: [`Strip`]'s quantities.
#[derive(Clone, Debug)]
pub struct PlanStrip {
    ln_pre: f64,
    terms: Vec<(f64, f64)>,
    ln_tail: f64,
}

impl PlanStrip {
    /// [`Strip`]'s quantities in f64, once.
    pub fn of(s: &Strip) -> PlanStrip {
        PlanStrip {
            ln_pre: s.ln_pre.to_f64(),
            terms: s.terms.iter().map(|(w, a)| (w.to_f64(), a.to_f64())).collect(),
            ln_tail: s.ln_tail.to_f64(),
        }
    }

    /// [`Strip::ln_upper`] in f64.
    pub fn ln_upper(&self, t_star: f64) -> f64 {
        let t = t_star.max(0.0);
        let top = self.terms.iter().map(|(w, a)| w - t * a).fold(self.ln_tail, f64::max);
        if !top.is_finite() {
            return top;
        }
        let sum: f64 = self.terms.iter().map(|(w, a)| (w - t * a - top).exp()).sum::<f64>() + (self.ln_tail - top).exp();
        self.ln_pre + top + sum.ln()
    }
}

/// [`strips`] in f64 for planning, from the components (pᵢ, ηᵢ).
pub fn plan_strips(parts: &[(f64, f64)], kr: f64) -> Vec<PlanStrip> {
    let comps: Vec<(f64, f64, f64)> = parts.iter().map(|&(q, eta)| (q, (2.0 * eta).sqrt(), eta)).collect();
    let p0 = 1.0 - parts.iter().map(|(q, _)| q).sum::<f64>();
    let mu_max = comps.iter().map(|c| c.1).fold(0.0, f64::max);
    let ln_sqrt_2pi = 0.5 * (2.0 * PI).ln();
    let u = |x: f64| -> Vec<f64> { comps.iter().map(|(q, m, e)| q * (m * x - e).exp()).collect() };
    let r_of = |u: &[f64]| p0 + u.iter().sum::<f64>();
    let right = pieces(kr, mu_max).last().map_or(LEFT, |&(_, b)| b);
    let ln_mills = |b: f64| -b * b / 2.0 - b.ln();
    let c_right = p0 + comps.iter().map(|(q, _, e)| q * (-e).exp()).sum::<f64>();
    ANGLES
        .iter()
        .map(|frac| {
            let y = frac * 0.999 * FRAC_PI_2 / mu_max;
            let sc: Vec<(f64, f64)> = comps.iter().map(|(_, m, _)| ((m * y).sin(), (m * y).cos())).collect();
            let xy = |u: &[f64]| -> (f64, f64) {
                (p0 + u.iter().zip(&sc).map(|(u, (_, c))| u * c).sum::<f64>(), u.iter().zip(&sc).map(|(u, (s, _))| u * s).sum())
            };
            let mut left = xy(&u(LEFT));
            let terms = pieces(kr, mu_max)
                .into_iter()
                .map(|(a, b)| {
                    let right = xy(&u(b));
                    let (re, im) = if kr >= 0.0 { right } else { left };
                    let ln_w = (b - a).ln() + kr * (re * re + im * im).ln() / 2.0 - min_square(a, b) / 2.0;
                    let angle = (left.1 / right.0).atan();
                    left = right;
                    (ln_w, angle)
                })
                .collect();
            let left = if kr >= 0.0 { kr * r_of(&u(LEFT)).ln() } else { kr * p0.ln() } + ln_mills(-LEFT);
            let right_tail = if kr >= 0.0 {
                let m = kr * mu_max;
                kr * c_right.ln() + m * m / 2.0 + ln_mills(right - m)
            } else {
                kr * p0.ln() + ln_mills(right)
            };
            let top = left.max(right_tail);
            let ln_tail = top + ((left - top).exp() + (right_tail - top).exp()).ln();
            PlanStrip { ln_pre: y * y / 2.0 - ln_sqrt_2pi, terms, ln_tail }
        })
        .collect()
}
