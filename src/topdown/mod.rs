//! TopDown noisy measurements on a geographic spine ([CAK24]), with certified
//! budgets and accuracy.
//!
//! * `spine`: block-level geography files → spine tree, fan-outs, bypass (Algorithm 3, zCDP rule),
//!   path sums (Theorem 3), off-spine entity distance (eqs. 4.1–4.4), synthetic geographies;
//! * `schema`: histogram schema, marginal query groups, synthetic person records;
//! * `sampler`: exact discrete Gaussian sampler (Canonne–Kamath–Steinke);
//! * `measure`: the noisy measurements (Theorems 1 and 3) streamed to CSV, and their manifest;
//! * `certify`: exact ε(δ) of a manifest through the lattice accountant;
//! * `estimate`: tree-consistent WLS, exact variances on and off the spine, simulation (`bisect`: the
//!   bisection of its non-negativity step, bit for bit from far fewer evaluations);
//! * `bypass`: the bypass statements of §5 checked on the WLS variance matrix;
//! * `postprocess`, `l2`, `rounding`, `rundir`: TopDown's estimation — per parent, top down, weighted
//!   non-negative least squares under the parent and invariant constraints, then L1-optimal integer
//!   rounding — on a run directory written by `measure`.
mod bisect;
pub mod bypass;
pub mod certify;
pub mod estimate;
pub mod l2;
mod l2_dense;
pub mod measure;
pub mod postprocess;
pub mod pp_accuracy;
pub mod rounding;
pub mod rundir;
pub mod sampler;
pub mod schema;
pub mod spine;
pub mod spine_alg2;

use std::io::Write;
use std::path::Path;

/// Stream a file through a temporary sibling and rename it into place: a failure leaves nothing.
pub fn write_streamed<T>(path: &Path, f: impl FnOnce(&mut dyn Write) -> Result<T, String>) -> Result<T, String> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        }
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let res = (|| {
        let mut file = std::fs::File::create(&tmp).map_err(|e| format!("cannot write '{}': {e}", tmp.display()))?;
        let v = f(&mut file)?;
        file.flush().map_err(|e| format!("cannot write '{}': {e}", tmp.display()))?;
        Ok(v)
    })();
    match res {
        Ok(v) => {
            std::fs::rename(&tmp, path).map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("cannot write '{}': {e}", path.display())
            })?;
            Ok(v)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
