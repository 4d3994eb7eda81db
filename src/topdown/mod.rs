//! TopDown noisy measurements on a geographic spine ([CAK24]), with certified
//! budgets and accuracy. Four parts, each a folder:
//!
//! * `geography`: the spine — block-level geography files → spine tree, fan-outs, bypass
//!   (Algorithm 3), path sums (Theorem 3), off-spine entity distance (eqs. 4.1–4.4), synthetic
//!   geographies (`spine`); Algorithm 2's redefined block and tract groups (`alg2`); the bypass
//!   statements of §5 checked on the WLS variance matrix (`bypass`);
//! * `measurement`: histogram schema, marginal query groups, synthetic persons (`schema`); the exact
//!   discrete Gaussian sampler (`sampler`); the noisy measurements (Theorems 1 and 3) streamed to CSV,
//!   and their manifest (`measure`); the run directory's other files and loading a run (`rundir`);
//! * `estimation`: TopDown's estimation — per parent, top down, weighted non-negative least squares
//!   under the parent and invariant constraints (`l2`, its direct dense route `l2_dense`), then
//!   L1-optimal integer rounding (`rounding`), driven by `postprocess`; tree-consistent WLS with exact
//!   variances on and off the spine and its simulation (`estimate`, with `bisect`, the bisection of
//!   its non-negativity step, bit for bit from far fewer evaluations);
//! * `analysis`: exact ε(δ) of a manifest through the lattice accountant (`certify`); the simulated
//!   accuracy of the final counts (`pp_accuracy`).
//!
//! The modules are also reachable under their old flat names (`topdown::spine`, …).
use crate::err;
use crate::error::Fallible;

pub mod analysis;
pub mod estimation;
pub mod geography;
pub mod measurement;

pub use analysis::{certify, pp_accuracy};
pub use estimation::{estimate, l2, postprocess, rounding};
pub use geography::{alg2 as spine_alg2, bypass, spine};
pub use measurement::{measure, rundir, sampler, schema};

use std::io::Write;
use std::path::Path;

/// Stream a file through a temporary sibling and rename it into place: a failure leaves nothing.
pub fn write_streamed<T>(path: &Path, f: impl FnOnce(&mut dyn Write) -> Fallible<T>) -> Fallible<T> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| err!(Io, "cannot create '{}': {e}", dir.display()))?;
        }
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let res = (|| {
        let mut file = std::fs::File::create(&tmp).map_err(|e| err!(Io, "cannot write '{}': {e}", tmp.display()))?;
        let v = f(&mut file)?;
        file.flush().map_err(|e| err!(Io, "cannot write '{}': {e}", tmp.display()))?;
        Ok(v)
    })();
    match res {
        Ok(v) => {
            std::fs::rename(&tmp, path).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                err!(Io, "cannot write '{}': {e}", path.display())
            })?;
            Ok(v)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
