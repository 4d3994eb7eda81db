//! The command-line and library spelling of a mechanism group: `dgauss:sigma2=S,n=N[,mu=M][,q=Q]` or
//! `dlap:scale=B,n=N[,mu=M][,q=Q]` (each key at most once; with `q=`, Poisson subsampling, the group is
//! the law `PoissonSampled` of the mechanism's loss law, `noise::dgauss_loss` / `noise::dlaplace_loss`), the mechanisms of the law registry
//! (`noise::registry`: `gauss:sigma2=S,n=N[,mu=M][,q=Q]`, …), and the bounds on counts and sensitivities.

use crate::error::Fallible;
use crate::model::Group;
use crate::num::parse_positive_rational;
use crate::{err, fallible};

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
        .ok_or_else(|| err!(Input, "mechanism '{spec}': expected 'dgauss:sigma2=S,n=N[,mu=M]' or 'dlap:scale=B,n=N[,mu=M]'"))?;
    let param = match kind.trim() {
        "dgauss" => "sigma2",
        "dlap" => "scale",
        k if crate::noise::registry::is_law(k) => return parse_law(spec, k, body),
        other => return fallible!(Input, "mechanism '{spec}': unknown noise '{other}' ({})", crate::noise::registry::kinds()),
    };
    let (mut x, mut n, mut mu) = (None, None, None);
    let mut sampling = crate::noise::registry::Sampling::default();
    for kv in body.split(',') {
        let (k, v) = kv.split_once('=').ok_or_else(|| err!(Input, "mechanism '{spec}': expected key=value, got '{kv}'"))?;
        let k = k.trim();
        let dup = |set: bool| if set { Err(err!(Input, "mechanism '{spec}': key '{k}' given twice")) } else { Ok(()) };
        match k {
            _ if k == param => {
                dup(x.is_some())?;
                x = Some(parse_positive_rational(v, param)?);
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
            other => return fallible!(Input, "mechanism '{spec}': unknown key '{other}'"),
        }
    }
    let x = x.ok_or_else(|| err!(Input, "mechanism '{spec}': missing {param}"))?;
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
    let mut params = crate::noise::registry::Params::parse(spec, body)?;
    let n = match params.take("n") {
        Some(v) => parse_count(&v, "n").map_err(|e| e.context(format!("mechanism '{spec}'")))?,
        None => 1,
    };
    let law = crate::noise::registry::law(kind, &mut params)?;
    params.finish()?;
    Ok(Group::law(law, n))
}
