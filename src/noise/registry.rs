//! The `--mech` vocabulary of the laws that enter the engines through their privacy-loss law
//! (`noise::loss::LossLaw`): `KIND:key=value,…`. Each law's file parses its own keys
//! (`from_params`); this table names them, and the keys every law shares are handled here:
//!
//! * `q=Q`: Poisson subsampling with probability Q (`noise::subsample`); `sampling=wor,m=M,pop=P`:
//!   a batch of exactly M of P records drawn without replacement (`noise::wor`), see [`Sampling`];
//! * `n=N` (the number of queries) is the composition's, read by `model::spec`.
//!
//! A new law is one file with its `from_params` and one line in [`LAWS`].

use crate::error::Fallible;
use crate::noise::loss::LossLaw;
use crate::{err, fallible};
use std::sync::Arc;

use crate::noise::params::Params;

type Parser = fn(&mut Params) -> Fallible<Arc<dyn LossLaw>>;

/// The laws of the `--mech` vocabulary beyond the lattice laws `dgauss` / `dlap` (which `model::spec`
/// reads for the exact lattice engines): kind, what it is, its own keys, its parser.
pub const LAWS: &[(&str, &str, &[&str], Parser)] = &[
    ("gauss", "the Gaussian mechanism: gauss:sigma2=S[,mu=M] (or sigma=)", &["sigma2", "sigma", "mu", "sensitivity"], |p| {
        Ok(Arc::new(crate::noise::gauss::Gaussian::from_params(p)?))
    }),
    ("laplace", "the Laplace mechanism: laplace:scale=B[,mu=M] or laplace:epsilon=E", &["scale", "epsilon", "mu", "sensitivity"], |p| {
        Ok(Arc::new(crate::noise::laplace::Laplace::from_params(p)?))
    }),
    ("rr", "k-ary randomized response (replace neighbours): rr:epsilon=E[,k=K] or rr:keep=P[,k=K]", &["epsilon", "keep", "k"], |p| {
        Ok(Arc::new(crate::noise::rr::RandomizedResponse::from_params(p)?))
    }),
    (
        "expmech",
        "the exponential mechanism at epsilon-DP, by its epsilon-bounded-range guarantee (a certified upper bound for any such mechanism, adaptively composed): expmech:epsilon=E",
        &["epsilon"],
        |p| Ok(Arc::new(crate::noise::bounded_range::BoundedRange::from_params(p)?)),
    ),
    ("dp", "a stated (epsilon, delta)-DP guarantee, bounded by its worst case: dp:epsilon=E[,delta=D]", &["epsilon", "delta"], |p| {
        Ok(Arc::new(crate::noise::blackbox::ApproxDp::from_params(p)?))
    }),
    (
        "mog",
        "the mixture-of-Gaussians mechanism (matrix mechanisms with amplification): mog:sigma=S,sens=C1:C2:...,probs=P1:P2:... (the rest of the probability at sensitivity 0)",
        &["sigma", "sigma2", "sens", "probs"],
        crate::noise::mog::MixtureOfGaussians::law_from_params,
    ),
    (
        "truncgauss",
        "the Gaussian mechanism on a truncated Poisson sample (dp_accounting's TruncatedSubsampledGaussianDpEvent): truncgauss:sigma=S,prob=Q,batch=B,records=N",
        &["sigma", "sigma2", "prob", "batch", "records"],
        crate::noise::truncated::TruncatedPoissonGaussian::law_from_params,
    ),
    (
        "alloc",
        "random allocation of the Gaussian mechanism, each record in k (default 1) of T steps per epoch, add/remove neighbours: with k = 1 a certified bracket of the exact epsilon and delta from its dominating and dominated pairs; with k > 1, and its trade-off function, a certified upper bound through Renyi divergences: alloc:sigma=S,steps=T[,k=K][,mu=M], n= epochs",
        &["sigma", "sigma2", "mu", "steps", "k"],
        crate::noise::allocation::RandomAllocation::law_from_params,
    ),
    ("zcdp", "a stated rho-zCDP guarantee, accounted through rho: zcdp:rho=R; approximate (xi, rho)-zCDP, D_alpha <= xi + rho alpha, accounted through Renyi divergences: zcdp:rho=R,xi=X", &["rho", "xi"], |p| {
        Ok(Arc::new(crate::noise::blackbox::Zcdp::from_params(p)?))
    }),
];

/// Keys every law takes (`n=` is the composition's count, read by `model::spec`; the sampling keys).
pub const SHARED_KEYS: [&str; 5] = ["n", "q", "sampling", "m", "pop"];

/// True if `kind` names a law of [`LAWS`].
pub fn is_law(kind: &str) -> bool {
    LAWS.iter().any(|(k, _, _, _)| *k == kind)
}

/// The law `kind` with its own keys and the shared ones (`q=`), from `params` (every key must be taken).
pub fn law(kind: &str, params: &mut Params) -> Fallible<Arc<dyn LossLaw>> {
    let (keys, parser) = LAWS
        .iter()
        .find(|(k, _, _, _)| *k == kind)
        .map(|(_, _, keys, f)| (*keys, *f))
        .ok_or_else(|| err!(Input, "mechanism '{}': unknown noise '{kind}' ({})", params.spec(), kinds()))?;
    // unknown keys first (a typo is named as such, not reported as a missing key)
    if let Some(k) = params.keys().find(|k| !keys.contains(k) && !SHARED_KEYS.contains(k)) {
        let mut all: Vec<&str> = keys.to_vec();
        all.extend(SHARED_KEYS);
        return fallible!(Input, "mechanism '{}': unknown key '{k}' (keys: {})", params.spec(), all.join(", "));
    }
    let sampling = Sampling::take(params);
    let base = parser(params)?;
    sampling.apply(params.spec(), base)
}

/// The sampling keys every law shares: `q=Q` (Poisson subsampling, `noise::subsample`; also spelled
/// `sampling=poisson,q=Q`) or `sampling=wor,m=M,pop=P` (a batch of exactly M of P records drawn without
/// replacement, `noise::wor`).
#[derive(Debug, Default)]
pub struct Sampling {
    pub q: Option<String>,
    pub kind: Option<String>,
    pub m: Option<String>,
    pub pop: Option<String>,
}

impl Sampling {
    /// Take the sampling keys from `params`.
    pub fn take(params: &mut Params) -> Sampling {
        Sampling { q: params.take("q"), kind: params.take("sampling"), m: params.take("m"), pop: params.take("pop") }
    }

    /// Record `key=value` for a sampling key: Ok(false) if `key` is not one, an error if it was given before.
    pub fn set(&mut self, spec: &str, key: &str, value: &str) -> Fallible<bool> {
        let slot = match key {
            "q" => &mut self.q,
            "sampling" => &mut self.kind,
            "m" => &mut self.m,
            "pop" => &mut self.pop,
            _ => return Ok(false),
        };
        if slot.is_some() {
            return fallible!(Input, "mechanism '{spec}': key '{key}' given twice");
        }
        *slot = Some(value.trim().to_string());
        Ok(true)
    }

    /// True if any sampling key was given.
    pub fn any(&self) -> bool {
        self.q.is_some() || self.kind.is_some() || self.m.is_some() || self.pop.is_some()
    }

    /// The mechanism `base` under the sampling these keys say (itself if none).
    pub fn apply(self, spec: &str, base: Arc<dyn LossLaw>) -> Fallible<Arc<dyn LossLaw>> {
        let ctx = |e: crate::error::Error| e.context(format!("mechanism '{spec}'"));
        let count = |v: &str, key: &str| -> Fallible<u64> {
            v.trim().parse::<u64>().map_err(|_| err!(Input, "mechanism '{spec}': {key} must be a positive integer, got '{v}'"))
        };
        match self.kind.as_deref().map(str::trim) {
            None | Some("poisson") => {
                if self.m.is_some() || self.pop.is_some() {
                    return fallible!(Input, "mechanism '{spec}': m= and pop= are the batch and population of sampling=wor (sampling without replacement); Poisson subsampling takes q= only");
                }
                match self.q {
                    None if self.kind.is_some() => {
                        fallible!(Input, "mechanism '{spec}': sampling=poisson needs q=Q, the sampling probability")
                    }
                    None => Ok(base),
                    Some(_) if base.not_subsampled().is_some() => {
                        fallible!(Input, "mechanism '{spec}': q= is not defined for {}", base.not_subsampled().unwrap_or_default())
                    }
                    Some(q) => {
                        let q = crate::num::parse_rational(&q).map_err(|e| e.context(format!("mechanism '{spec}': q")))?;
                        if q == 1 {
                            // every record sampled: no subsampling, the mechanism itself under either relation
                            return Ok(base);
                        }
                        Ok(Arc::new(crate::noise::subsample::PoissonSampled::new(base, q).map_err(ctx)?))
                    }
                }
            }
            Some("wor") => {
                if self.q.is_some() {
                    return fallible!(
                        Input,
                        "mechanism '{spec}': give either q= (Poisson subsampling) or sampling=wor with m= and pop=, not both"
                    );
                }
                let m = self.m.ok_or_else(|| err!(Input, "mechanism '{spec}': sampling=wor needs m=M, the batch size"))?;
                let pop = self
                    .pop
                    .ok_or_else(|| err!(Input, "mechanism '{spec}': sampling=wor needs pop=P, the number of records sampled from"))?;
                let (m, pop) = (count(&m, "m")?, count(&pop, "pop")?);
                Ok(Arc::new(crate::noise::wor::SampledWithoutReplacement::new(base, m, pop).map_err(ctx)?))
            }
            Some(other) => {
                fallible!(Input, "mechanism '{spec}': sampling must be 'poisson' (with q=) or 'wor' (with m= and pop=), got '{other}'")
            }
        }
    }
}

/// The lattice laws `model::spec` reads for the exact lattice engines: kind and what it is.
pub const LATTICE_LAWS: [(&str, &str); 2] = [
    ("dgauss", "the discrete Gaussian: dgauss:sigma2=S[,mu=M] (or sigma=)"),
    ("dlap", "the discrete Laplace (two-sided geometric, pmf ∝ e^{−|x|/B}): dlap:scale=B[,mu=M]"),
];

/// The terms `model::spec` reads around inner terms: kind and what it is.
pub const WRAPPERS: [(&str, &str); 1] = [(
    "repsel",
    "repeat-and-select (the best of a random number of runs of the inner terms, K Poisson with shape=inf, logarithmic 0, geometric 1, else truncated negative binomial, of= last, inner terms separated by semicolons): repsel:mean=M,shape=S,of=TERM;TERM",
)];

/// Every kind of the vocabulary, for messages.
pub fn kinds() -> String {
    let mut v: Vec<&str> = LATTICE_LAWS.iter().map(|(k, _)| *k).collect();
    v.extend(LAWS.iter().map(|(k, _, _, _)| *k));
    v.extend(WRAPPERS.iter().map(|(k, _)| *k));
    v.join(", ")
}

/// The help of `--mech`, generated from [`LATTICE_LAWS`] and [`LAWS`] so that it names every law the
/// parser knows (a new law's line in [`LAWS`] is its help).
pub fn mech_help() -> String {
    let laws: Vec<String> = LATTICE_LAWS
        .iter()
        .copied()
        .chain(LAWS.iter().map(|(k, what, _, _)| (*k, *what)))
        .chain(WRAPPERS.iter().copied())
        .map(|(k, what)| {
            // "the Gaussian mechanism: gauss:sigma2=S (or sigma=)" → "`gauss:sigma2=S` (or sigma=), the Gaussian mechanism"
            let (name, form) = what.rsplit_once(": ").unwrap_or((what, k));
            let quoted = |f: &str| match f.split_once(" (") {
                Some((code, rest)) => format!("`{code}` ({rest}"),
                None => format!("`{f}`"),
            };
            let forms: Vec<String> = form.split(" or ").map(quoted).collect();
            format!("{}, {name}", forms.join(" or "))
        })
        .collect();
    format!(
        "A mechanism term KIND:key=value,…: {}. Each takes `n=N` queries. `q=Q` adds Poisson subsampling \
         with probability Q (e.g. DP-SGD: gauss:sigma=1.1,q=256/60000,n=14070), `sampling=wor,m=M,pop=P` \
         batches of exactly M of P records (replace only; mu = the sensitivity when one record is replaced). \
         An unknown key is refused with the valid ones. Repeat to compose several",
        laws.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated `--mech` help quotes every law's forms and names what it is.
    #[test]
    fn mech_help_quotes_every_law_of_the_registry() {
        let help = mech_help();
        for (k, what) in LATTICE_LAWS.iter().copied().chain(LAWS.iter().map(|(k, w, _, _)| (*k, *w))).chain(WRAPPERS) {
            let (name, _) = what.rsplit_once(": ").unwrap();
            assert!(help.contains(&format!("`{k}:")), "{k}: {help}");
            assert!(help.contains(name), "{name}: {help}");
        }
        assert!(help.contains("`laplace:scale=B[,mu=M]` or `laplace:epsilon=E`, the Laplace mechanism"), "{help}");
        assert_eq!(kinds().split(", ").count(), LATTICE_LAWS.len() + LAWS.len() + WRAPPERS.len());
    }

    /// A law that cannot be subsampled says why itself, and both samplers quote it: a zCDP guarantee,
    /// exact or approximate (ξ > 0 is Rényi-only, yet still zCDP's reason), random allocation (its own
    /// batches); a law that can (the Gaussian) has no reason.
    #[test]
    fn subsampling_refusals_are_the_laws_own_reasons() {
        let base = |kind: &str, body: &str| law(kind, &mut Params::parse(kind, body).unwrap()).unwrap();
        let refusal = |kind: &str, body: &str, sampling: &str| {
            let mut p = Params::parse(kind, &format!("{body},{sampling}")).unwrap();
            let s = Sampling::take(&mut p);
            s.apply(kind, base(kind, body)).unwrap_err().to_string()
        };
        for (kind, body, why) in [
            ("zcdp", "rho=1", "no general amplification by subsampling"),
            ("zcdp", "rho=1,xi=1/10", "no general amplification by subsampling"),
            ("alloc", "sigma=1,steps=10", "which samples its own batches"),
            ("alloc", "sigma=1,steps=10,k=2", "which samples its own batches"),
        ] {
            assert!(base(kind, body).not_subsampled().unwrap().contains(why), "{kind}:{body}");
            let poisson = refusal(kind, body, "q=1/2");
            assert!(poisson.contains("q= is not defined for") && poisson.contains(why), "{poisson}");
            let wor = refusal(kind, body, "sampling=wor,m=2,pop=10");
            assert!(wor.contains("sampling without replacement is not defined for") && wor.contains(why), "{wor}");
        }
        assert_eq!(base("gauss", "sigma=1").not_subsampled(), None);
    }
}
