//! Compositions of Gaussian loss laws (L ~ N(η, 2η)): one Gaussian with η = Σ n_i η_i, whose δ(ε), ε(δ) and
//! trade-off function have closed forms [BW18, Thm 8], [DRS22, Cor. 2.13], evaluated with certified normal
//! tails (`noise::gauss`).

use super::{Job, LawEngine, Offer};
use crate::account::vocabulary::Query;
use crate::account::{Certified, Engine};
use crate::error::Fallible;
use rug::{Float, Rational};

/// The Gaussian closed forms.
pub(in crate::account) struct GaussianClosed;

/// η of the composition, if every law is a Gaussian loss law.
fn eta(job: &Job) -> Option<Rational> {
    job.laws.iter().try_fold(Rational::from(0), |a, (l, n)| l.gaussian_eta().map(|e| a + e * Rational::from(*n)))
}

impl LawEngine for GaussianClosed {
    fn name(&self) -> &'static str {
        "gaussian-closed"
    }

    fn offer(&self, job: &Job) -> Offer {
        match eta(job) {
            Some(_) => Offer::Takes { stands: true, expects: None, seconds: None },
            None => Offer::Declined("a law is not a Gaussian".into()),
        }
    }

    fn answer(&self, job: &Job) -> Fallible<Option<Certified>> {
        use crate::noise::gauss;
        let Some(eta) = eta(job) else { return Ok(None) };
        let p = job.prec;
        let detail =
            format!("Gaussian loss law, eta = {} (mu = sqrt(2 eta))", crate::num::format::fmt_nearest(&Float::with_val(64, &eta), 12));
        let iv = match job.q {
            Query::Epsilon(d) => crate::pld::search::gaussian_epsilon(&eta, d, job.digits + 1, p)?,
            Query::Delta(e) => gauss::delta(&eta, e, p),
            Query::Tradeoff(a) => gauss::tradeoff(&eta, a, p)?,
        };
        Certified::new(iv, Engine::Closed, job.trust, detail).map(Some)
    }
}
