//! `tightdp sample`: draw from the exact samplers (discrete Gaussian by σ², discrete Laplace by scale,
//! k-ary randomized response by ε or keep probability). The continuous Gaussian and Laplace laws have no
//! sampler here: their floating-point samplers leak through the low bits of the draws [Mir12]; release
//! with the discrete ones, which tightdp accounts exactly.

use crate::error::Fallible;
use crate::fallible;
use crate::noise::dlaplace::DiscreteLaplace;
use crate::noise::sampler::{DiscreteGaussianSampler, NoiseSource, RandomizedResponseSampler};
use crate::num::parse_positive_rational;
use clap::Args;

#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Discrete Gaussian N_Z(0, σ²), σ² exact (decimal or fraction)
    #[arg(long, value_name = "S", conflicts_with = "scale", allow_hyphen_values = true)]
    pub sigma2: Option<String>,
    /// Discrete Laplace with P[y] ∝ exp(−|y|/b), b exact
    #[arg(long, value_name = "B", allow_hyphen_values = true)]
    pub scale: Option<String>,
    /// k-ary randomized response by ε (exact): the true value with probability e^ε/(e^ε + k − 1)
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    pub rr_epsilon: Option<String>,
    /// k-ary randomized response by the probability P of reporting the true value (exact, 1/k ≤ P ≤ 1)
    #[arg(long, value_name = "P", conflicts_with = "rr_epsilon", allow_hyphen_values = true)]
    pub rr_keep: Option<String>,
    /// Randomized response: the number of values k (reports are 0 … k − 1)
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub k: u64,
    /// Randomized response: the true value reported on (0 … k − 1)
    #[arg(long, value_name = "V", default_value_t = 0)]
    pub value: u64,
    /// Number of draws
    #[arg(long, default_value_t = 10)]
    pub n: u64,
    /// Reproducible stream (NOT FOR RELEASE); default: keyed from the OS CSPRNG
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print only the throughput, not the draws
    #[arg(long)]
    pub bench: bool,
}

pub fn run(a: SampleArgs) -> Fallible<String> {
    let mut src = match a.seed {
        Some(s) => NoiseSource::seeded(s),
        None => NoiseSource::os()?,
    };
    let rr = a.rr_epsilon.is_some() || a.rr_keep.is_some();
    if rr && (a.sigma2.is_some() || a.scale.is_some()) {
        return fallible!(Input, "give one sampler: --sigma2, --scale, or --rr-epsilon / --rr-keep");
    }
    if !rr && (a.k != 2 || a.value != 0) {
        return fallible!(Input, "--k and --value belong to randomized response (--rr-epsilon or --rr-keep)");
    }
    let draw: Box<dyn Fn(&mut NoiseSource) -> i64> = match (&a.sigma2, &a.scale) {
        _ if rr => {
            if a.value >= a.k {
                return fallible!(Input, "--value must be one of the k = {} values 0 … {}, got {}", a.k, a.k.saturating_sub(1), a.value);
            }
            let s = match (&a.rr_epsilon, &a.rr_keep) {
                (Some(e), _) => {
                    RandomizedResponseSampler::with_epsilon(crate::num::parse_rational(e).map_err(|m| m.context("rr-epsilon"))?, a.k)?
                }
                (_, Some(p)) => {
                    RandomizedResponseSampler::with_keep(crate::num::parse_rational(p).map_err(|m| m.context("rr-keep"))?, a.k)?
                }
                _ => unreachable!("rr is set"),
            };
            let v = a.value;
            Box::new(move |r| s.sample(&mut r.rng, v) as i64)
        }
        (Some(s), None) => {
            let s2 = parse_positive_rational(s, "sigma2")?;
            // draws are i64: beyond σ ≈ 1e17 a draw of 40σ (probability e^-800) could still exceed it
            if s2 > 1e34 {
                return fallible!(Input, "sigma2 = {} is too large: draws would not fit in 64-bit integers (limit 1e34)", s.trim());
            }
            let d = DiscreteGaussianSampler::new(s2)?;
            Box::new(move |r| d.sample(&mut r.rng))
        }
        (None, Some(b)) => {
            let sc = parse_positive_rational(b, "scale")?;
            // a draw exceeds 1e3·scale with probability e^-1000: keep 1e3·scale within i64
            if sc > 1e15 {
                return fallible!(Input, "scale = {} is too large: draws would not fit in 64-bit integers (limit 1e15)", b.trim());
            }
            let d = DiscreteLaplace::new(sc)?;
            Box::new(move |r| d.sample(&mut r.rng))
        }
        _ => return fallible!(Input, "give exactly one of --sigma2, --scale, --rr-epsilon or --rr-keep"),
    };
    let t0 = std::time::Instant::now();
    let mut out = String::new();
    if a.seed.is_some() && !a.bench {
        out += "# seeded: NOT FOR RELEASE\n";
    }
    let mut acc = 0i64;
    for _ in 0..a.n {
        let x = draw(&mut src);
        if a.bench {
            acc = acc.wrapping_add(x);
        } else {
            out += &format!("{x}\n");
        }
    }
    if a.bench {
        let s = t0.elapsed().as_secs_f64();
        out += &format!("draws {}\nseconds {:.3}\ndraws_per_second {:.0}\nchecksum {acc}\n", a.n, s, a.n as f64 / s);
    }
    Ok(out)
}
