//! The command-line and library spelling of a mechanism group: `dgauss:sigma2=S,n=N[,mu=M][,q=Q]` or
//! `dlap:scale=B,n=N[,mu=M][,q=Q]` (each key at most once; with `q=`, Poisson subsampling, the group is
//! the law `PoissonSampled` of the mechanism's loss law, `noise::dgauss_loss` / `noise::dlaplace_loss`), the mechanisms of the law registry
//! (`noise::registry`: `gauss:sigma2=S,n=N[,mu=M][,q=Q]`, …), and the bounds on counts and sensitivities.

use crate::error::Fallible;
use crate::model::Group;
use crate::num::parse_positive_rational;
use crate::{err, fallible};
use rug::Rational;

/// Largest query count of one group (the lattice Fourier inversion's cost does not grow with it; the
/// model's own limit is `model::MAX_COUNT`, 2^40 shifts).
pub const MAX_N: u64 = 1_000_000_000_000;

pub fn parse_count(s: &str, what: &str) -> Fallible<u64> {
    let v: i64 = s.trim().parse().map_err(|_| err!(Input, "{what} must be a positive integer, got '{s}'"))?;
    if !(1..=MAX_N as i64).contains(&v) {
        return fallible!(Input, "{what} must be an integer between 1 and {MAX_N}, got '{s}'");
    }
    Ok(v as u64)
}

pub fn parse_sensitivity(s: &str) -> Fallible<u32> {
    let v: i64 = s.trim().parse().map_err(|_| err!(Input, "sensitivity must be a positive integer, got '{s}'"))?;
    if !(1..=1_000_000).contains(&v) {
        return fallible!(Input, "sensitivity must be an integer between 1 and 1000000, got '{s}'");
    }
    Ok(v as u32)
}

/// Parse `dgauss:sigma2=S,n=N[,mu=M][,q=Q]` or `dlap:scale=B,n=N[,mu=M][,q=Q]` (each key at most once).
pub fn parse_mech(spec: &str) -> Fallible<Group> {
    let (kind, body) = spec
        .split_once(':')
        .ok_or_else(|| err!(Input, "mechanism '{spec}': expected KIND:key=value,... ({}; see --help)", crate::noise::registry::kinds()))?;
    let param = match kind.trim() {
        "dgauss" => "sigma2",
        "dlap" => "scale",
        k if crate::noise::registry::is_law(k) => return parse_law(spec, k, body),
        "repsel" => return parse_repeat(spec, body),
        other => return fallible!(Input, "mechanism '{spec}': unknown noise '{other}' ({})", crate::noise::registry::kinds()),
    };
    let (mut x, mut n, mut mu) = (None, None, None);
    let mut sampling = crate::noise::registry::Sampling::default();
    for kv in body.split(',') {
        let (k, v) = kv.split_once('=').ok_or_else(|| err!(Input, "mechanism '{spec}': expected key=value, got '{kv}'"))?;
        let k = k.trim();
        let dup = |set: bool| if set { Err(err!(Input, "mechanism '{spec}': key '{k}' given twice")) } else { Ok(()) };
        match k {
            _ if k == param || (k == "sigma" && param == "sigma2") => {
                if x.is_some() {
                    return match param {
                        "sigma2" => fallible!(Input, "mechanism '{spec}': give one of sigma2 and sigma, once"),
                        _ => fallible!(Input, "mechanism '{spec}': key '{k}' given twice"),
                    };
                }
                let v = parse_positive_rational(v, k)?;
                // the discrete Gaussian by σ, as `gauss:` takes it: σ² = σ·σ, exactly
                x = Some(if k == "sigma" { Rational::from(&v * &v) } else { v });
            }
            "n" => {
                dup(n.is_some())?;
                n = Some(parse_count(v, "n")?);
            }
            "mu" | "sensitivity" => {
                dup(mu.is_some())?;
                mu = Some(parse_sensitivity(v)?);
            }
            _ if sampling.set(spec, k, v)? => {}
            other => {
                let own: &[&str] =
                    if param == "sigma2" { &["sigma2", "sigma", "mu", "sensitivity"] } else { &["scale", "mu", "sensitivity"] };
                let all: Vec<&str> = own.iter().chain(crate::noise::registry::SHARED_KEYS.iter()).copied().collect();
                return fallible!(Input, "mechanism '{spec}': unknown key '{other}' (keys: {})", all.join(", "));
            }
        }
    }
    let x = x.ok_or_else(|| {
        let what = if param == "sigma2" { "sigma2 (or sigma)" } else { param };
        err!(Input, "mechanism '{spec}': missing {what}")
    })?;
    let (n, mu) = (n.unwrap_or(1), mu.unwrap_or(1));
    if sampling.any() {
        // subsampling: the mechanism's loss law, subsampled, on the law engines
        let base: std::sync::Arc<dyn crate::noise::loss::LossLaw> = if param == "sigma2" {
            std::sync::Arc::new(crate::noise::dgauss_loss::DiscreteGaussianLoss::new(x, mu)?)
        } else {
            std::sync::Arc::new(crate::noise::dlaplace_loss::DiscreteLaplaceLoss::new(x, mu)?)
        };
        return Ok(Group::law(sampling.apply(spec, base)?, n));
    }
    Ok(if param == "sigma2" { Group::gaussian(x, n, mu) } else { Group::laplace(x, n, mu) })
}

/// A mechanism of the law registry (`noise::registry`): its own keys, the shared `q=`, and the count `n=`.
fn parse_law(spec: &str, kind: &str, body: &str) -> Fallible<Group> {
    let mut params = crate::noise::params::Params::parse(spec, body)?;
    let n = match params.take("n") {
        Some(v) => parse_count(&v, "n").map_err(|e| e.context(format!("mechanism '{spec}'")))?,
        None => 1,
    };
    let law = crate::noise::registry::law(kind, &mut params)?;
    params.finish()?;
    Ok(Group::law(law, n))
}

/// `repsel:mean=M,shape=S[,n=N],of=TERM;TERM;…` (`noise::repeat`): the inner terms, each a `--mech` term
/// with its own `n=`, separated by `;`, after `of=` (which takes the rest of the term).
fn parse_repeat(spec: &str, body: &str) -> Fallible<Group> {
    use crate::noise::loss::LossLaw;
    use crate::noise::repeat::{RepeatSelect, Shape};
    use std::sync::Arc;
    let mut params = crate::noise::params::Params::parse(spec, body)?;
    if let Some(k) = params.keys().find(|k| !["mean", "shape", "n", "of"].contains(k)) {
        return fallible!(Input, "mechanism '{spec}': unknown key '{k}' (keys: mean, shape, n, of; of= comes last)");
    }
    let n = match params.take("n") {
        Some(v) => parse_count(&v, "n").map_err(|e| e.context(format!("mechanism '{spec}'")))?,
        None => 1,
    };
    let mean = params.positive("mean")?;
    let shape_text = params.take("shape").ok_or_else(|| {
        err!(Input, "mechanism '{spec}': missing shape (0 logarithmic, 1 geometric, other > 0 truncated negative binomial, inf Poisson)")
    })?;
    let shape = Shape::parse(&shape_text).map_err(|e| e.context(format!("mechanism '{spec}'")))?;
    let of = params
        .take("of")
        .ok_or_else(|| err!(Input, "mechanism '{spec}': missing of=TERM;TERM;… (the mechanisms repeated; of= comes last)"))?;
    params.finish()?;
    let mut inner: Vec<(Arc<dyn LossLaw>, u64)> = Vec::new();
    for term in of.split(';').map(str::trim).filter(|t| !t.is_empty()) {
        let g = parse_mech(term).map_err(|e| e.context(format!("mechanism '{spec}'")))?;
        let law: Arc<dyn LossLaw> = match g.noise {
            crate::model::Noise::Law(l) => l.0,
            crate::model::Noise::Gaussian { sigma2 } => Arc::new(crate::noise::dgauss_loss::DiscreteGaussianLoss::new(sigma2, g.mu)?),
            crate::model::Noise::Laplace { scale } => Arc::new(crate::noise::dlaplace_loss::DiscreteLaplaceLoss::new(scale, g.mu)?),
        };
        inner.push((law, g.count));
    }
    let terms: Vec<String> = inner.iter().map(|(l, k)| format!("{},n={k}", l.spec())).collect();
    let shape_text = match &shape {
        Shape::Poisson => "inf".to_string(),
        Shape::Tnb(eta) => crate::num::format::fmt_rational(eta),
    };
    let canonical = format!("repsel:mean={},shape={shape_text},of={}", crate::num::format::fmt_rational(&mean), terms.join(";"));
    let law = RepeatSelect::new(canonical, inner, mean, shape).map_err(|e| e.context(format!("mechanism '{spec}'")))?;
    Ok(Group::law(Arc::new(law), n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Noise;

    fn sigma2(spec: &str) -> Rational {
        match parse_mech(spec).unwrap().noise {
            Noise::Gaussian { sigma2 } => sigma2,
            _ => panic!("{spec}: not a discrete Gaussian"),
        }
    }

    fn refusal(spec: &str) -> String {
        parse_mech(spec).err().map(|e| e.to_string()).unwrap_or_else(|| panic!("{spec} accepted"))
    }

    /// `dgauss:` takes σ as `gauss:` does: σ² = σ·σ exactly (3/2 → 9/4; 0.1 → 1/100, no binary rounding).
    #[test]
    fn the_discrete_gaussian_takes_sigma_as_the_gaussian_does() {
        assert_eq!(sigma2("dgauss:sigma=3/2,n=4"), Rational::from((9, 4)));
        assert_eq!(sigma2("dgauss:sigma=0.1"), Rational::from((1, 100)));
        assert_eq!(parse_mech("dgauss:sigma=2,n=7,mu=3").unwrap().count, 7);
        assert!(refusal("dgauss:sigma=2,sigma2=4").contains("give one of sigma2 and sigma"));
        assert!(refusal("dgauss:sigma2=4,sigma=2").contains("give one of sigma2 and sigma"));
        assert!(refusal("dgauss:n=3").contains("missing sigma2 (or sigma)"));
        assert!(refusal("dgauss:sigma=-1").contains("sigma"));
        // σ is the Gaussian's key, not the Laplace's
        assert!(refusal("dlap:sigma=2").contains("unknown key 'sigma'"));
    }

    /// An unknown key is named with the keys that are known, as the registry's laws do.
    #[test]
    fn an_unknown_key_lists_the_valid_ones() {
        let e = refusal("dgauss:sigmaa=2");
        assert!(e.contains("unknown key 'sigmaa' (keys: sigma2, sigma, mu, sensitivity, n, q, sampling, m, pop)"), "{e}");
        let e = refusal("dlap:scal=2");
        assert!(e.contains("unknown key 'scal' (keys: scale, mu, sensitivity, n, q, sampling, m, pop)"), "{e}");
        assert!(refusal("dlap:scale=2,scale=3").contains("key 'scale' given twice"));
    }
}
