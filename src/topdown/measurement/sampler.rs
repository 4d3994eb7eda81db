//! Noise for TopDown: the project's exact discrete Gaussian sampler
//! ([`crate::noise::sampler::DiscreteGaussianSampler`], CKS 2020 Algorithms 1–3 in exact integer
//! arithmetic with a native-integer fast path) driven by a ChaCha20 stream.

use rand::RngCore;

pub use crate::noise::sampler::DiscreteGaussianSampler;

/// The project's one generator for noise (`crate::noise::sampler::NoiseSource`): ChaCha20, a
/// cryptographic stream; the seed makes runs reproducible, `os_seed` draws one from the operating system.
pub type NoiseRng = rand_chacha::ChaCha20Rng;

pub fn seeded(seed: u64) -> NoiseRng {
    crate::noise::sampler::NoiseSource::seeded(seed).rng
}

pub fn os_seed() -> u64 {
    use rand::rngs::OsRng;
    OsRng.next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::dgauss::DiscreteGaussian;
    use rug::{Integer, Rational};

    #[test]
    fn empirical_law_matches_the_pmf() {
        // chi-square-like check on the central cells for σ² = 2.
        let s2 = Rational::from(2);
        let s = DiscreteGaussianSampler::new(s2.clone()).unwrap();
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
        let s = DiscreteGaussianSampler::new(Rational::from((1, 1_000_000))).unwrap();
        let mut rng = seeded(3);
        for _ in 0..100 {
            assert_eq!(s.sample(&mut rng), 0);
        }
        let big = DiscreteGaussianSampler::new(Rational::from((Integer::from(Integer::u_pow_u(10, 30)), 7))).unwrap();
        let x = big.sample(&mut rng);
        assert!(x.unsigned_abs() < 10u64.pow(17));
    }
}
