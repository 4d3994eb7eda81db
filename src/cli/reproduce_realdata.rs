//! The `reproduce` step for Figures 6, 8 and 9 on the bundled SYNTHETIC extracts
//! (`data/synthetic-extracts/`, scripts/make_synthetic_extracts.py): the same code path as
//! `tightdp accuracy --nhgis` and `tightdp downstream --acs` on the user's real downloads, seeded and fast.
//! Output: `<out>/synthetic-extracts/`.

use crate::accuracy::{counts, regression, Allocation};
use crate::data::{acs, files_in, nhgis};
use crate::error::Fallible;
use crate::noise::sampler::NoiseSource;
use crate::num::parse_rational;
use crate::plots::realdata;
use crate::record::{render_csv, write_atomic};
use std::path::{Path, PathBuf};

pub const LABEL: &str = "SYNTHETIC extracts (data/synthetic-extracts), not census data";

/// Run both studies on the synthetic files; returns the files written.
pub fn synthetic(data: &Path, out: &Path) -> Fallible<Vec<PathBuf>> {
    let dir = data.join("synthetic-extracts");
    let dest = out.join("synthetic-extracts");
    let alloc = Allocation::from_path(&data.join("allocations/dhc-2022-08-25.toml"))?;
    let delta = parse_rational("1e-11")?;
    // Figures 6 and 8
    let levels = nhgis::read(&files_in(&dir.join("nhgis")), None, None)?;
    let src = NoiseSource::seeded(2010);
    let opts = counts::CountsOptions { trials: 200, exact_sampler: false, source: &src, delta: delta.clone(), map: vec![] };
    let studies = counts::study(&levels, &alloc, &opts)?;
    // Figure 9
    let acs_levels = acs::read(&files_in(&dir.join("acs")))?;
    let src9 = NoiseSource::seeded(2020);
    let opts9 = regression::RegressionOptions { trials: 2000, batch: 3, exact_sampler: false, source: &src9, delta, map: vec![] };
    let fits = regression::study(&acs_levels, &alloc, &opts9)?;
    // write
    let mut files = vec![dest.join("accuracy-nhgis.csv"), dest.join("downstream-acs.csv")];
    write_atomic(&files[0], render_csv(&crate::cli::accuracy_nhgis::records(&studies, false)).as_bytes())?;
    write_atomic(&files[1], render_csv(&crate::cli::downstream::records(&fits, false)).as_bytes())?;
    files.extend(realdata::fig06(&studies, LABEL, &dest.join("fig06-nhgis-accuracy"))?);
    if let Some(b) = realdata::block_level(&studies) {
        files.extend(realdata::fig08(b, LABEL, &dest.join("fig08-nhgis-block-race-mse"))?);
    }
    files.extend(realdata::fig09(&fits, LABEL, Some(crate::cli::downstream::PAPER_STATE_IMPROVEMENT), &dest.join("fig09-acs-slope-mae"))?);
    Ok(files)
}

/// The results/README.md section for these files.
pub fn readme_section(figs: bool) -> String {
    if !figs {
        return String::new();
    }
    "\n## Figures 6, 8, 9 on synthetic extracts (`synthetic-extracts/`)\n\n\
These run the real-data code path (`tightdp accuracy --nhgis`, `tightdp downstream --acs`) on the SYNTHETIC files of \
`data/synthetic-extracts/` (made-up counts in the NHGIS / ACS layouts): they show the pipeline, not the paper's numbers. \
With the real extracts (README, \"Real data\") the same commands give Figures 6, 8 and 9 of the paper.\n\n\
| file | content | source |\n|---|---|---|\n\
| synthetic-extracts/accuracy-nhgis.csv | per level and (block level) per race cell: MSE/MAE with and without max(0,·), Bureau vs Table 1 σ², exact and simulated (200 trials, ± s.e.), reductions | Figures 6, 8 |\n\
| synthetic-extracts/fig06-nhgis-accuracy | bars: exact MSE and MAE per level, without and with max(0,·); markers: simulation ± 2 s.e. | Figure 6 |\n\
| synthetic-extracts/fig08-nhgis-block-race-mse | block-level MSE after max(0,·) for P8's nine race cells, and its reduction | Figure 8 |\n\
| synthetic-extracts/downstream-acs.csv | per ACS level: true slope, MAE of the noisy slope (2000 trials, ± s.e.), first-order value, improvement, spread of 3-trial estimates | Figure 9, eq. 3.1 |\n\
| synthetic-extracts/fig09-acs-slope-mae | MAE of the slope per level (log scale) and the improvement, with the spread a K = 3 study has and the paper's 60.57% | Figure 9 |\n"
        .to_string()
}
