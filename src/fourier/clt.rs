//! Local-CLT path of Theorem A.11 ([SSW24, §A.4–A.5], App. C).
//!
//! S_n = (X_1 + … + X_n)/B_n with X_i ~ N_Z(0, σ²) i.i.d. and B_n = √n σ lives on ℤ/B_n. Theorem A.11
//! approximates its pmf by (1/B_n) ϕ(y), y ∈ ℤ/B_n, with residual
//!
//!   r_{n,σ}(y) = |P[S_n = y] − ϕ(y)/B_n|
//!              = (1/2πB_n) |∫_{-πB_n}^{πB_n} e^{-ity} f_{S_n}(t) dt − ∫_ℝ e^{-t²/2} e^{-ity} dt|,
//!   f_{S_n}(t) = e^{-t²/2} (θ₃(−iσπt/√n, q)/θ₃(0, q))ⁿ,  q = e^{-2σ²π²}                       (A.3)
//!
//! Three ways to get at it here:
//! * [`residual_sup`] — the paper's numerical bound of sup_y r_{n,σ}(y) (Fact C.1, App. C.1):
//!   Ω₁ (step bound on [0, ⌊πB_n⌋] using the monotonicity (C.4)), Ω₂ = Ω₄ + Ω₅ (the piece
//!   [⌊πB_n⌋, πB_n]) and Ω₃ (the Gaussian beyond πB_n, (C.5)). This reproduces Table 2.
//! * [`residual_fourier`] — r_{n,σ}(y) from the inversion formula itself: the t-integral of the periodic
//!   integrand e^{-ity} f_{S_n}(t) over one period by the trapezoidal rule (exact up to an aliasing term
//!   below 2^-prec), minus the Gaussian integral √(2π) e^{-y²/2} in closed form.
//! * [`residual_direct`] — P[S_n = y] from the exact lattice law (`pld::LatticeDist`, eq. A.5) minus
//!   ϕ(y)/B_n: the reference for both.

use crate::fourier::theta::pi_f;
use crate::num::Interval;
use crate::pld::lattice::LatticeDist;
use rug::ops::Pow;
use rug::{Float, Rational};

/// The paper's bound on sup_y r_{n,σ}(y) (Fact C.1) with its parts.
#[derive(Clone, Debug)]
pub struct ResidualBound {
    pub n: u32,
    pub sigma2: f64,
    /// Ω₁ = (1/πB_n) Σ_{j=1}^{⌊πB_n⌋} e^{-(j−1)²/2} |ratio(j)ⁿ − 1|
    pub omega1: f64,
    /// Ω₂ ≤ Ω₄ + Ω₅
    pub omega2: f64,
    /// Ω₃ ≤ e^{-(πB_n)²/2}/(πB_n)²
    pub omega3: f64,
    /// Ω₁ + Ω₂ + Ω₃
    pub total: f64,
    /// The same integral bound without the unit-step discretisation of Ω₁:
    /// (1/πB_n) ∫_0^{πB_n} |f_{S_n}(t) − e^{-t²/2}| dt + Ω₃ (quadrature, fine grid).
    pub integral: f64,
}

/// ratio(t) − 1 with ratio(t) = θ₃(−iσπt/√n, q)/θ₃(0, q) = (1 + 2Σ_k q^{k²} cosh(2kσπt/√n))/θ₃(0,q):
/// ratio − 1 = 2 Σ_k q^{k²} (cosh(2kw) − 1)/θ₃(0, q), w = σπt/√n (no cancellation).
fn ratio_m1(t: &Float, sigma: &Float, n: u32, p: u32) -> Float {
    let pi = pi_f(p);
    let two_pi2s2 = Float::with_val(p, Float::with_val(p, &pi * &pi) * Float::with_val(p, sigma * sigma)) * 2u32;
    let sqrt_n = Float::with_val(p, n).sqrt();
    let w = Float::with_val(p, Float::with_val(p, sigma * &pi) * t) / &sqrt_n;
    let tiny = Float::with_val(p, Float::i_exp(1, -(p as i32) - 30));
    let mut num = Float::with_val(p, 0);
    let mut th0 = Float::with_val(p, 1);
    for k in 1i64.. {
        let qk = Float::with_val(p, -Float::with_val(p, &two_pi2s2 * (k * k))).exp();
        let x = Float::with_val(p, &w * (2 * k));
        // cosh(x) − 1 = 2 sinh²(x/2)
        let sh = Float::with_val(p, Float::with_val(p, &x / 2u32).sinh());
        let c = Float::with_val(p, &sh * &sh) * 2u32;
        let term = Float::with_val(p, &qk * &c) * 2u32;
        th0 += Float::with_val(p, &qk * 2u32);
        let small = term <= Float::with_val(p, &tiny * &num) || term.is_zero();
        num += &term;
        // the terms decrease once 2π²σ²(2k+1) > 2w
        if small && Float::with_val(p, &two_pi2s2 * (2 * k + 1)) > Float::with_val(p, &w * 2u32) {
            break;
        }
        if k > 10_000 {
            break;
        }
    }
    num / th0
}

/// |ratio(t)ⁿ − 1| = expm1(n·ln1p(ratio − 1)) and ln f_{S_n}(t) = −t²/2 + n ln ratio.
fn ratio_pow_m1(t: &Float, sigma: &Float, n: u32, p: u32) -> (Float, Float) {
    let r = ratio_m1(t, sigma, n, p);
    let lr = Float::with_val(p, r.ln_1p_ref());
    let nl = Float::with_val(p, &lr * n);
    let pm1 = Float::with_val(p, nl.exp_m1_ref());
    let lnf = Float::with_val(p, -Float::with_val(p, t * t) / 2u32) + &nl;
    (pm1, lnf)
}

/// The paper's bound of sup_{y ∈ ℤ/B_n} r_{n,σ}(y), Fact C.1 / App. C.1 (reproduces Table 2), in MPFR at `prec`.
pub fn residual_sup(n: u32, sigma2: &Rational, prec: u32) -> ResidualBound {
    let p = prec.max(128);
    let pi = pi_f(p);
    let s2 = Float::with_val(p, sigma2);
    let sigma = Float::with_val(p, s2.sqrt_ref());
    let bn = Float::with_val(p, Float::with_val(p, &s2 * n).sqrt());
    let pib = Float::with_val(p, &pi * &bn);
    let jmax = Float::with_val(p, pib.floor_ref()).to_f64() as i64;
    // Ω₁ (App. C.1, "Upper bound on Ω₁"): step bound with e^{-(j−1)²/2} and ratio(j) (monotone by (C.4)).
    let mut o1 = Float::with_val(p, 0);
    for j in 1..=jmax {
        let t = Float::with_val(p, j);
        let (pm1, _) = ratio_pow_m1(&t, &sigma, n, p);
        let g = Float::with_val(p, -Float::with_val(p, ((j - 1) * (j - 1)) as f64) / 2u32).exp();
        o1 += Float::with_val(p, g * pm1.abs());
    }
    o1 /= &pib;
    // Ω₂ ≤ Ω₄ + Ω₅: f_{S_n} and e^{-t²/2} are decreasing on [⌊πB_n⌋, πB_n] (Prop. A.6).
    let frac = Float::with_val(p, Float::with_val(p, &pib - jmax) / &pib);
    let tj = Float::with_val(p, jmax);
    let (_, lnf) = ratio_pow_m1(&tj, &sigma, n, p);
    let o4 = Float::with_val(p, &frac * Float::with_val(p, lnf.exp_ref()));
    let o5 = Float::with_val(p, &frac * Float::with_val(p, -Float::with_val(p, &tj * &tj) / 2u32).exp());
    let o2 = Float::with_val(p, &o4 + &o5);
    // Ω₃ ≤ (1/πB_n) e^{-(πB_n)²/2}/(πB_n)   (C.5)
    let o3 = Float::with_val(p, -Float::with_val(p, &pib * &pib) / 2u32).exp() / Float::with_val(p, &pib * &pib);
    // The integral itself (no step discretisation): composite Simpson on a fine grid of [0, πB_n].
    let m = 800usize;
    let hstep = Float::with_val(p, &pib / m as u32);
    let mut acc = Float::with_val(p, 0);
    for i in 0..=m {
        let t = Float::with_val(p, &hstep * i as u32);
        let (pm1, _) = ratio_pow_m1(&t, &sigma, n, p);
        let g = Float::with_val(p, -Float::with_val(p, &t * &t) / 2u32).exp();
        let v = Float::with_val(p, g * pm1.abs());
        let w = if i == 0 || i == m {
            1
        } else if i % 2 == 1 {
            4
        } else {
            2
        };
        acc += Float::with_val(p, v * w as u32);
    }
    let integral = Float::with_val(p, Float::with_val(p, acc * &hstep) / 3u32) / &pib + &o3;
    let total = Float::with_val(p, &o1 + &o2) + &o3;
    ResidualBound {
        n,
        sigma2: sigma2.to_f64(),
        omega1: o1.to_f64(),
        omega2: o2.to_f64(),
        omega3: o3.to_f64(),
        total: total.to_f64(),
        integral: integral.to_f64(),
    }
}

/// The local-CLT approximation of P[X_1 + … + X_n = x]: (1/B_n) ϕ(x/B_n) (Theorem A.11), in MPFR.
pub fn clt_pmf(n: u32, sigma2: &Rational, x: i64, prec: u32) -> Float {
    let p = prec;
    let b2 = Float::with_val(p, sigma2 * Rational::from(n));
    let two_pi = Float::with_val(p, pi_f(p) * 2u32);
    let e = Float::with_val(p, -Float::with_val(p, (x as f64) * (x as f64)) / Float::with_val(p, &b2 * 2u32)).exp();
    e / Float::with_val(p, two_pi * &b2).sqrt()
}

/// The exact pmf P[X_1 + … + X_n = x] (certified) from the lattice accountant (eq. A.5).
pub fn exact_pmf(n: u32, sigma2: &Rational, x: i64, prec: u32) -> Interval {
    LatticeDist::iid_dgauss_sum(sigma2, n, prec).pmf(x)
}

/// r_{n,σ}(x/B_n) = P[S = x] − ϕ(x/B_n)/B_n for x = 0..=x_max, from the exact law (signed, f64 of the midpoint).
/// Returns (x, residual) pairs and the sup of |residual| with its argmax.
pub fn residual_direct(n: u32, sigma2: &Rational, x_max: i64, prec: u32) -> (Vec<(i64, f64)>, f64, i64) {
    let dist = LatticeDist::iid_dgauss_sum(sigma2, n, prec);
    let mut out = Vec::new();
    let (mut sup, mut arg) = (0.0f64, 0i64);
    for x in 0..=x_max {
        let ex = dist.pmf(x).mid();
        let r = Float::with_val(prec, ex - clt_pmf(n, sigma2, x, prec)).to_f64();
        if r.abs() > sup {
            sup = r.abs();
            arg = x;
        }
        out.push((x, r));
    }
    (out, sup, arg)
}

/// r_{n,σ}(x/B_n) from the Fourier inversion formula of Theorem A.11 (signed):
/// P[S = x] = (1/2π) ∫_{-π}^{π} e^{-iτx} ψ(τ)ⁿ dτ (τ = t/B_n) by the M-point trapezoidal rule (the
/// integrand is 2π-periodic and entire; its error is Σ_{j≠0} P[S = x + jM], below 2^-prec for the M
/// chosen), minus (1/2πB_n)∫_ℝ e^{-t²/2} e^{-itx/B_n} dt = ϕ(x/B_n)/B_n in closed form.
pub fn residual_fourier(n: u32, sigma2: &Rational, x: i64, prec: u32) -> f64 {
    let p = prec + 32;
    let dg = crate::noise::dgauss::DiscreteGaussian::new(sigma2.clone()).expect("invariant: a positive variance");
    let b = (sigma2.to_f64() * n as f64).sqrt();
    let half = (x.unsigned_abs() as f64 + b * (2.0 * (p as f64) * std::f64::consts::LN_2).sqrt() + 8.0).ceil() as i64;
    let m = (2 * half) as u32; // even
    let pi = pi_f(p);
    let mut acc = Float::with_val(p, 0);
    for l in 0..=(m / 2) {
        let tau = Float::with_val(p, Float::with_val(p, &pi * (2 * l)) / m);
        let psi = dg.charfn(&tau, p).mid();
        let pw = psi.pow(n);
        let c = Float::with_val(p, Float::with_val(p, &tau * x).cos_ref());
        let w = if l == 0 || l == m / 2 { 1u32 } else { 2u32 };
        acc += Float::with_val(p, pw * c) * w;
    }
    let prob = acc / m;
    Float::with_val(p, prob - clt_pmf(n, sigma2, x, p)).to_f64()
}

/// Table 2 of the paper: sup_y r_{n,σ}(y) for these (n, σ²).
pub const TABLE2_N: [u32; 8] = [5, 9, 10, 18, 20, 27, 50, 100];
pub const TABLE2_SIGMA2: [u32; 3] = [1, 5, 10];
/// The printed values (rows n, columns σ² = 1, 5, 10).
pub const TABLE2_PRINTED: [[f64; 3]; 8] = [
    [5e-6, 3e-32, 2e-65],
    [5e-7, 1e-36, 4e-74],
    [4e-7, 3e-37, 3e-75],
    [2e-7, 2e-39, 2e-79],
    [9e-8, 8e-40, 4e-80],
    [7e-8, 2e-40, 2e-81],
    [4e-8, 2e-41, 3e-83],
    [2e-8, 6e-42, 3e-84],
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_rational;

    /// Fact C.1: n = 10, σ² = 5 gives Ω₁ < 2.57e-37 and a total below 2.6e-37 (Table 2: 3e-37).
    #[test]
    fn fourier_fact_c1() {
        let r = residual_sup(10, &parse_rational("5").unwrap(), 256);
        eprintln!("{:?}", r);
        assert!(r.omega1 > 1e-38 && r.omega1 < 2.6e-37, "Ω₁ = {:e}", r.omega1);
        assert!(r.omega2 < 1e-100 && r.omega3 < 1e-100);
        assert!(r.total < 2.6e-37);
    }

    /// Table 2 reproduced to the order of magnitude (within a factor 10 of every printed entry).
    #[test]
    fn fourier_table2_orders() {
        for (i, &n) in TABLE2_N.iter().enumerate() {
            for (j, &s2) in TABLE2_SIGMA2.iter().enumerate() {
                let r = residual_sup(n, &Rational::from(s2), 256);
                let printed = TABLE2_PRINTED[i][j];
                let ratio = r.total / printed;
                assert!(ratio > 0.1 && ratio < 10.0, "n={n} σ²={s2}: ours {:e}, printed {:e}", r.total, printed);
            }
        }
    }

    /// The Fourier-integral residual equals the direct residual (exact pmf − ϕ/B_n), and both lie below
    /// the paper's bound.
    #[test]
    fn fourier_residual_direct_vs_inversion() {
        let s2 = parse_rational("5").unwrap();
        let n = 10;
        let prec = 256;
        let (rows, sup, _arg) = residual_direct(n, &s2, 40, prec);
        let bound = residual_sup(n, &s2, prec);
        assert!(sup < bound.total, "direct sup {sup:e} vs bound {:e}", bound.total);
        assert!(sup > 1e-45, "residual suspiciously small: {sup:e}");
        for &(x, r) in rows.iter().step_by(7) {
            let rf = residual_fourier(n, &s2, x, prec);
            assert!((rf - r).abs() <= 1e-6 * r.abs() + 1e-60, "x={x}: fourier {rf:e} direct {r:e}");
        }
    }
}
