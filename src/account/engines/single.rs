//! One release of one mechanism, from its own certified distribution functions, no grid
//! (`account::single`, which the lattice engines' one-release path shares).

use super::{Job, LawEngine, Offer};
use crate::account::Certified;
use crate::error::Fallible;

/// One release of one law.
pub(in crate::account) struct SingleRelease;

impl LawEngine for SingleRelease {
    fn name(&self) -> &'static str {
        "single-release"
    }

    fn offer(&self, job: &Job) -> Offer {
        match job.laws {
            [(_, 1)] => Offer::Takes { stands: true, expects: None, seconds: None },
            _ => Offer::Declined("more than one release".into()),
        }
    }

    fn answer(&self, job: &Job) -> Fallible<Option<Certified>> {
        let [(law, 1)] = job.laws else { return Ok(None) };
        crate::account::single::query(law.as_ref(), job.q, job.digits, job.prec + 32, job.trust)
    }
}
