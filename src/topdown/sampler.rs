//! Exact discrete Gaussian sampler N_Z(0, σ²) for rational σ² (Canonne, Kamath & Steinke 2020,
//! "The discrete Gaussian for differential privacy", Algorithms 1–3): Bernoulli(exp(−γ)) by the
//! alternating-series trick, discrete Laplace by geometric sampling, discrete Gaussian by rejection
//! from the discrete Laplace with t = ⌊σ⌋ + 1. Every comparison is an exact integer comparison;
//! no floating point is involved.
//!
//! Arithmetic runs in `u128` while every intermediate fits (always, for the σ² of the Census
//! allocations) and continues in `rug::Integer` otherwise; both paths draw the same random words
//! in the same order, so they produce identical samples from the same seed (tested).
//!
//! NOTE (de-duplication): the `mech` branch is expected to ship the project's exact samplers in
//! `src/mech/`; this small sampler exists because that branch was not available when TopDown was
//! written. When it lands, route `topdown` through it and delete this file.

use rand::RngCore;
use rug::{Integer, Rational};

/// Natural numbers with the few operations the sampler needs.
trait Nat: Clone + PartialOrd + Sized {
    fn is_zero(&self) -> bool;
    /// Some(self · k) unless it overflows the representation.
    fn mul_u64(&self, k: u64) -> Option<Self>;
    /// Uniform in [0, self) from whole 64-bit words (rejection of the excess above the bit length).
    fn uniform_below<R: RngCore>(&self, rng: &mut R) -> Self;
    fn to_big(&self) -> Integer;
}

impl Nat for u128 {
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn mul_u64(&self, k: u64) -> Option<Self> {
        self.checked_mul(k as u128)
    }
    fn uniform_below<R: RngCore>(&self, rng: &mut R) -> Self {
        let m = *self;
        debug_assert!(m > 0);
        if m == 1 {
            return 0;
        }
        let bits = 128 - (m - 1).leading_zeros();
        let words = bits.div_ceil(64);
        loop {
            let mut x: u128 = 0;
            for i in 0..words {
                x |= (rng.next_u64() as u128) << (64 * i);
            }
            if bits < 128 {
                x &= (1u128 << bits) - 1;
            }
            if x < m {
                return x;
            }
        }
    }
    fn to_big(&self) -> Integer {
        Integer::from(*self)
    }
}

impl Nat for Integer {
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn mul_u64(&self, k: u64) -> Option<Self> {
        Some(Integer::from(self * k))
    }
    fn uniform_below<R: RngCore>(&self, rng: &mut R) -> Self {
        debug_assert!(*self > 0);
        if *self == 1 {
            return Integer::new();
        }
        let m1 = Integer::from(self - 1u32);
        let bits = m1.significant_bits();
        let words = bits.div_ceil(64);
        loop {
            let mut x = Integer::new();
            for i in 0..words {
                x |= Integer::from(rng.next_u64()) << (64 * i);
            }
            x.keep_bits_mut(bits);
            if x < *self {
                return x;
            }
        }
    }
    fn to_big(&self) -> Integer {
        self.clone()
    }
}

/// Bernoulli(n/m), 0 ≤ n ≤ m; draws nothing when n = 0.
fn bern_frac<N: Nat, R: RngCore>(n: &N, m: &N, rng: &mut R) -> bool {
    if n.is_zero() {
        return false;
    }
    m.uniform_below(rng) < *n
}

/// Bernoulli(exp(−n/d)) with 0 ≤ n ≤ d (CKS Algorithm 1, first part). Falls back to big integers
/// if d·k would overflow.
fn bern_exp_le1<N: Nat, R: RngCore>(n: &N, d: &N, rng: &mut R) -> bool {
    let mut k: u64 = 1;
    loop {
        let Some(dk) = d.mul_u64(k) else {
            return bern_exp_le1_from(&n.to_big(), &d.to_big(), k, rng);
        };
        if !bern_frac(n, &dk, rng) {
            return k % 2 == 1;
        }
        k += 1;
    }
}

fn bern_exp_le1_from<R: RngCore>(n: &Integer, d: &Integer, mut k: u64, rng: &mut R) -> bool {
    loop {
        let dk = Integer::from(d * k);
        if !bern_frac(n, &dk, rng) {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(exp(−1)).
fn bern_exp1<R: RngCore>(rng: &mut R) -> bool {
    bern_exp_le1(&1u128, &1u128, rng)
}

/// Bernoulli(exp(−γ)) for γ = n/d ≥ 0 (CKS Algorithm 1): ⌊γ⌋ independent Bernoulli(e^{-1})
/// trials, then Bernoulli(exp(−(γ − ⌊γ⌋))).
fn bern_exp_big<R: RngCore>(n: &Integer, d: &Integer, rng: &mut R) -> bool {
    let (q, r) = n.clone().div_rem_floor(d.clone());
    let mut i = Integer::new();
    while i < q {
        if !bern_exp1(rng) {
            return false;
        }
        i += 1;
    }
    bern_exp_le1(&r, d, rng)
}

fn bern_exp_u128<R: RngCore>(n: u128, d: u128, rng: &mut R) -> bool {
    let q = n / d;
    let r = n % d;
    for _ in 0..q {
        if !bern_exp1(rng) {
            return false;
        }
    }
    bern_exp_le1(&r, &d, rng)
}

/// Exact sampler for N_Z(0, σ²), σ² = p/q > 0.
#[derive(Clone, Debug)]
pub struct DgSampler {
    sigma2: Rational,
    p: Integer,
    q: Integer,
    /// t = ⌊σ⌋ + 1, the discrete Laplace scale of the proposal.
    t: u64,
    /// (p, q) as u128 when the fast path applies to the acceptance exponent.
    small: Option<(u128, u128)>,
}

impl DgSampler {
    pub fn new(sigma2: &Rational) -> Result<DgSampler, String> {
        if *sigma2 <= 0 {
            return Err("sigma2 must be positive".into());
        }
        let p = sigma2.numer().clone();
        let q = sigma2.denom().clone();
        let fl = p.clone().div_rem_floor(q.clone()).0;
        let t = Integer::from(fl.sqrt_ref()) + 1u32;
        let t = t.to_u64().ok_or("sigma2 too large for the sampler")?;
        // Fast path when 2·p·q·t² and (q·t·|Y|)² fit comfortably (|Y| < 2^20·t checked per draw).
        let small = match (p.to_u128(), q.to_u128()) {
            (Some(pp), Some(qq)) if pp < (1u128 << 40) && qq < (1u128 << 40) && t < (1u64 << 20) => Some((pp, qq)),
            _ => None,
        };
        Ok(DgSampler { sigma2: sigma2.clone(), p, q, t, small })
    }

    pub fn sigma2(&self) -> &Rational {
        &self.sigma2
    }

    /// Discrete Laplace with scale t: P(y) ∝ exp(−|y|/t) (CKS Algorithm 2 with s = 1).
    fn dlap<R: RngCore>(&self, rng: &mut R) -> i64 {
        let t = self.t as u128;
        loop {
            let u = t.uniform_below(rng);
            if !bern_exp_u128(u, t, rng) {
                continue;
            }
            let mut v: u128 = 0;
            while bern_exp1(rng) {
                v += 1;
            }
            let x = u + t * v;
            let neg = 2u128.uniform_below(rng) == 1;
            if neg && x == 0 {
                continue;
            }
            let x = x as i64;
            return if neg { -x } else { x };
        }
    }

    /// One exact draw from N_Z(0, σ²) (CKS Algorithm 3): Y ~ DLap(t), accepted with probability
    /// exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−(q t |Y| − p)² / (2 p q t²)).
    pub fn sample<R: RngCore>(&self, rng: &mut R) -> i64 {
        loop {
            let y = self.dlap(rng);
            let ay = y.unsigned_abs();
            let accept = match self.small {
                Some((p, q)) if ay < (1u64 << 40) => {
                    let t = self.t as u128;
                    let a = q * t * ay as u128; // < 2^40·2^20·2^40 = 2^100
                    let diff = a.abs_diff(p);
                    match (diff.checked_mul(diff), (2 * p * q).checked_mul(t * t)) {
                        (Some(num), Some(den)) => bern_exp_u128(num, den, rng),
                        _ => self.accept_big(ay, rng),
                    }
                }
                _ => self.accept_big(ay, rng),
            };
            if accept {
                return y;
            }
        }
    }

    fn accept_big<R: RngCore>(&self, ay: u64, rng: &mut R) -> bool {
        let t = Integer::from(self.t);
        let a = Integer::from(&self.q * &t) * ay;
        let diff = Integer::from(a - &self.p).abs();
        let num = Integer::from(diff.square_ref());
        let den = Integer::from(&self.p * &self.q) * 2u32 * Integer::from(t.square_ref());
        bern_exp_big(&num, &den, rng)
    }

    /// The same draw with big-integer arithmetic throughout (reference for the fast path).
    pub fn sample_big<R: RngCore>(&self, rng: &mut R) -> i64 {
        loop {
            let y = self.dlap(rng);
            if self.accept_big(y.unsigned_abs(), rng) {
                return y;
            }
        }
    }
}

/// The project's seeded generator for noise: ChaCha20 (a cryptographic stream; the seed makes runs
/// reproducible, `os_seed` draws one from the operating system).
pub type NoiseRng = rand_chacha::ChaCha20Rng;

pub fn seeded(seed: u64) -> NoiseRng {
    use rand::SeedableRng;
    NoiseRng::seed_from_u64(seed)
}

pub fn os_seed() -> u64 {
    use rand::rngs::OsRng;
    OsRng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::dgauss::DiscreteGaussian;

    #[test]
    fn fast_and_big_paths_agree_draw_for_draw() {
        for s2 in ["1/3", "5000/73", "45662/100", "1", "293764/114921"] {
            let s = DgSampler::new(&crate::num::parse_rational(s2).unwrap()).unwrap();
            let mut a = seeded(7);
            let mut b = seeded(7);
            for _ in 0..2000 {
                assert_eq!(s.sample(&mut a), s.sample_big(&mut b), "sigma2 = {s2}");
            }
        }
    }

    #[test]
    fn empirical_law_matches_the_pmf() {
        // chi-square-like check on the central cells for σ² = 2.
        let s2 = Rational::from(2);
        let s = DgSampler::new(&s2).unwrap();
        let dg = DiscreteGaussian::new(s2).unwrap();
        let mut rng = seeded(1);
        let n = 200_000;
        let mut counts = std::collections::BTreeMap::new();
        let mut sum = 0i64;
        let mut sumsq = 0f64;
        for _ in 0..n {
            let x = s.sample(&mut rng);
            *counts.entry(x).or_insert(0u64) += 1;
            sum += x;
            sumsq += (x * x) as f64;
        }
        for x in -4..=4 {
            let p = dg.pmf(x, 64).to_f64();
            let obs = *counts.get(&x).unwrap_or(&0) as f64 / n as f64;
            let se = (p * (1.0 - p) / n as f64).sqrt();
            assert!((obs - p).abs() < 5.0 * se, "x={x} obs={obs} p={p}");
        }
        let mean = sum as f64 / n as f64;
        assert!(mean.abs() < 5.0 * (2.0 / n as f64).sqrt());
        let var = sumsq / n as f64;
        let v = dg.variance_direct(64).to_f64();
        assert!((var - v).abs() < 5.0 * v * (2.0 / n as f64).sqrt(), "var {var} vs {v}");
    }

    #[test]
    fn huge_and_tiny_variances() {
        let s = DgSampler::new(&Rational::from((1, 1_000_000))).unwrap();
        let mut rng = seeded(3);
        for _ in 0..100 {
            assert_eq!(s.sample(&mut rng), 0);
        }
        let big = DgSampler::new(&Rational::from((Integer::from(Integer::u_pow_u(10, 30)), 7))).unwrap();
        let x = big.sample(&mut rng);
        assert!(x.unsigned_abs() < 10u64.pow(17));
    }
}
