//! The data files shipped with tightdp (data/), embedded in the binary: `verify` and `reproduce` read them
//! by default, from any working directory; `--data DIR` reads a directory instead.
//!
//! The commands read their data through paths (`data.join("allocations/…")`), so the embedded tree is
//! unpacked into a private temporary directory for the run ([`Unpacked`]), removed when the run ends.

use crate::error::Fallible;
use crate::{err, fallible};
use std::path::{Path, PathBuf};

/// Every file under data/, by its path relative to data/ (a test checks the list against the directory).
pub const FILES: &[(&str, &[u8])] = &[
    ("accuracy/README.md", include_bytes!("../../data/accuracy/README.md")),
    ("accuracy/example-block-counts.csv", include_bytes!("../../data/accuracy/example-block-counts.csv")),
    ("allocations/dhc-2022-08-25.toml", include_bytes!("../../data/allocations/dhc-2022-08-25.toml")),
    ("allocations/dhc-persons-us-2023.toml", include_bytes!("../../data/allocations/dhc-persons-us-2023.toml")),
    ("allocations/dhc-units-us-2023.toml", include_bytes!("../../data/allocations/dhc-units-us-2023.toml")),
    ("allocations/redistricting-2020.toml", include_bytes!("../../data/allocations/redistricting-2020.toml")),
    ("allocations/redistricting-persons-us-2021.toml", include_bytes!("../../data/allocations/redistricting-persons-us-2021.toml")),
    ("allocations/safetab-p-2023.toml", include_bytes!("../../data/allocations/safetab-p-2023.toml")),
    ("deployments/apple-ldp-emoji.toml", include_bytes!("../../data/deployments/apple-ldp-emoji.toml")),
    ("deployments/apple-ldp-health-types.toml", include_bytes!("../../data/deployments/apple-ldp-health-types.toml")),
    ("deployments/apple-ldp-lookup-hints.toml", include_bytes!("../../data/deployments/apple-ldp-lookup-hints.toml")),
    ("deployments/apple-ldp-quicktype.toml", include_bytes!("../../data/deployments/apple-ldp-quicktype.toml")),
    ("deployments/census-dhc-persons-2023.toml", include_bytes!("../../data/deployments/census-dhc-persons-2023.toml")),
    ("deployments/census-dhc-units-2023.toml", include_bytes!("../../data/deployments/census-dhc-units-2023.toml")),
    ("deployments/census-phsafe-sdhc.toml", include_bytes!("../../data/deployments/census-phsafe-sdhc.toml")),
    ("deployments/census-redistricting-2021.toml", include_bytes!("../../data/deployments/census-redistricting-2021.toml")),
    ("deployments/census-safetab-h-ddhcb.toml", include_bytes!("../../data/deployments/census-safetab-h-ddhcb.toml")),
    ("deployments/census-safetab-p-ddhca.toml", include_bytes!("../../data/deployments/census-safetab-p-ddhca.toml")),
    ("deployments/google-covid19-community-mobility.toml", include_bytes!("../../data/deployments/google-covid19-community-mobility.toml")),
    (
        "deployments/google-covid19-search-trends-symptoms.toml",
        include_bytes!("../../data/deployments/google-covid19-search-trends-symptoms.toml"),
    ),
    (
        "deployments/google-covid19-vaccination-search-insights.toml",
        include_bytes!("../../data/deployments/google-covid19-vaccination-search-insights.toml"),
    ),
    ("deployments/israel-live-births-2014.toml", include_bytes!("../../data/deployments/israel-live-births-2014.toml")),
    ("deployments/linkedin-audience-engagements-api.toml", include_bytes!("../../data/deployments/linkedin-audience-engagements-api.toml")),
    ("deployments/meta-facebook-urls-2020.toml", include_bytes!("../../data/deployments/meta-facebook-urls-2020.toml")),
    (
        "deployments/microsoft-assistive-ai-suggested-replies.toml",
        include_bytes!("../../data/deployments/microsoft-assistive-ai-suggested-replies.toml"),
    ),
    ("deployments/microsoft-broadband-usage.toml", include_bytes!("../../data/deployments/microsoft-broadband-usage.toml")),
    ("deployments/wikimedia-geoeditors-monthly.toml", include_bytes!("../../data/deployments/wikimedia-geoeditors-monthly.toml")),
    ("deployments/wikimedia-pageviews-country-2023.toml", include_bytes!("../../data/deployments/wikimedia-pageviews-country-2023.toml")),
    (
        "deployments/wikimedia-pageviews-country-2024-medium-risk.toml",
        include_bytes!("../../data/deployments/wikimedia-pageviews-country-2024-medium-risk.toml"),
    ),
    (
        "deployments/wikimedia-pageviews-country-2024-higher-risk.toml",
        include_bytes!("../../data/deployments/wikimedia-pageviews-country-2024-higher-risk.toml"),
    ),
    (
        "deployments/wikimedia-pageviews-country-historical-2017-2023.toml",
        include_bytes!("../../data/deployments/wikimedia-pageviews-country-historical-2017-2023.toml"),
    ),
    (
        "deployments/wikimedia-pageviews-country-historical-pre-2017.toml",
        include_bytes!("../../data/deployments/wikimedia-pageviews-country-historical-pre-2017.toml"),
    ),
    ("deployments/sources/phsafe/config-us.json", include_bytes!("../../data/deployments/sources/phsafe/config-us.json")),
    ("deployments/sources/safetab-h/config.json", include_bytes!("../../data/deployments/sources/safetab-h/config.json")),
    (
        "deployments/sources/safetab-h/ethnicity-characteristic-iterations.txt",
        include_bytes!("../../data/deployments/sources/safetab-h/ethnicity-characteristic-iterations.txt"),
    ),
    (
        "deployments/sources/safetab-h/race-and-ethnicity-code-to-iteration.txt",
        include_bytes!("../../data/deployments/sources/safetab-h/race-and-ethnicity-code-to-iteration.txt"),
    ),
    (
        "deployments/sources/safetab-h/race-characteristic-iterations.txt",
        include_bytes!("../../data/deployments/sources/safetab-h/race-characteristic-iterations.txt"),
    ),
    ("deployments/sources/safetab-p/config.json", include_bytes!("../../data/deployments/sources/safetab-p/config.json")),
    ("published.csv", include_bytes!("../../data/published.csv")),
    ("risk/kr-table3-1940-ed-28-21.csv", include_bytes!("../../data/risk/kr-table3-1940-ed-28-21.csv")),
    ("risk/kr-table6-1940-ed-39-14.csv", include_bytes!("../../data/risk/kr-table6-1940-ed-39-14.csv")),
    ("safetab/README.md", include_bytes!("../../data/safetab/README.md")),
    ("safetab/config.toml", include_bytes!("../../data/safetab/config.toml")),
    ("safetab/iterations-re.txt", include_bytes!("../../data/safetab/iterations-re.txt")),
    ("safetab/iterations.txt", include_bytes!("../../data/safetab/iterations.txt")),
    ("safetab/production/README.md", include_bytes!("../../data/safetab/production/README.md")),
    ("safetab/production/config.json", include_bytes!("../../data/safetab/production/config.json")),
    (
        "safetab/production/ethnicity-characteristic-iterations.txt",
        include_bytes!("../../data/safetab/production/ethnicity-characteristic-iterations.txt"),
    ),
    (
        "safetab/production/race-and-ethnicity-code-to-iteration.txt",
        include_bytes!("../../data/safetab/production/race-and-ethnicity-code-to-iteration.txt"),
    ),
    ("safetab/production/race-and-ethnicity-codes.txt", include_bytes!("../../data/safetab/production/race-and-ethnicity-codes.txt")),
    (
        "safetab/production/race-characteristic-iterations.txt",
        include_bytes!("../../data/safetab/production/race-characteristic-iterations.txt"),
    ),
    ("safetab/race-codes.txt", include_bytes!("../../data/safetab/race-codes.txt")),
    ("safetab/safetab-dgauss.toml", include_bytes!("../../data/safetab/safetab-dgauss.toml")),
    ("safetab/safetab-geometric.toml", include_bytes!("../../data/safetab/safetab-geometric.toml")),
    ("synthetic-extracts/README.md", include_bytes!("../../data/synthetic-extracts/README.md")),
    ("synthetic-extracts/acs/ACSST5Y2020.S1501-Data.csv", include_bytes!("../../data/synthetic-extracts/acs/ACSST5Y2020.S1501-Data.csv")),
    ("synthetic-extracts/acs/acs5-2020-s1501-county.json", include_bytes!("../../data/synthetic-extracts/acs/acs5-2020-s1501-county.json")),
    ("synthetic-extracts/acs/acs5-2020-s1501-cousub.json", include_bytes!("../../data/synthetic-extracts/acs/acs5-2020-s1501-cousub.json")),
    ("synthetic-extracts/acs/acs5-2020-s1501-metro.json", include_bytes!("../../data/synthetic-extracts/acs/acs5-2020-s1501-metro.json")),
    ("synthetic-extracts/acs/acs5-2020-s1501-place.json", include_bytes!("../../data/synthetic-extracts/acs/acs5-2020-s1501-place.json")),
    ("synthetic-extracts/acs/acs5-2020-s1501-tract.json", include_bytes!("../../data/synthetic-extracts/acs/acs5-2020-s1501-tract.json")),
    ("synthetic-extracts/acs/acs5-2020-s1501-zcta.json", include_bytes!("../../data/synthetic-extracts/acs/acs5-2020-s1501-zcta.json")),
    (
        "synthetic-extracts/nhgis/nhgis0000_ds172_2010_blck_grp.csv",
        include_bytes!("../../data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_blck_grp.csv"),
    ),
    (
        "synthetic-extracts/nhgis/nhgis0000_ds172_2010_block.csv",
        include_bytes!("../../data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_block.csv"),
    ),
    (
        "synthetic-extracts/nhgis/nhgis0000_ds172_2010_county.csv",
        include_bytes!("../../data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_county.csv"),
    ),
    (
        "synthetic-extracts/nhgis/nhgis0000_ds172_2010_state.csv",
        include_bytes!("../../data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_state.csv"),
    ),
    (
        "synthetic-extracts/nhgis/nhgis0000_ds172_2010_tract.csv",
        include_bytes!("../../data/synthetic-extracts/nhgis/nhgis0000_ds172_2010_tract.csv"),
    ),
    (
        "synthetic-extracts/other-layouts/acs5-2020-b15003-b20004-county.json",
        include_bytes!("../../data/synthetic-extracts/other-layouts/acs5-2020-b15003-b20004-county.json"),
    ),
    (
        "synthetic-extracts/other-layouts/nhgis_ppdd_synthetic_county.csv",
        include_bytes!("../../data/synthetic-extracts/other-layouts/nhgis_ppdd_synthetic_county.csv"),
    ),
    ("topdown/README.md", include_bytes!("../../data/topdown/README.md")),
    ("topdown/dhc-small.csv", include_bytes!("../../data/topdown/dhc-small.csv")),
    ("topdown/redistricting-small-persons.csv", include_bytes!("../../data/topdown/redistricting-small-persons.csv")),
    ("topdown/redistricting-small.csv", include_bytes!("../../data/topdown/redistricting-small.csv")),
];

/// The embedded data tree unpacked into a fresh directory under the system's temporary directory, removed
/// on drop.
pub struct Unpacked {
    dir: PathBuf,
}

impl Unpacked {
    pub fn new() -> Fallible<Unpacked> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let dir = base.join(format!("tightdp-data-{}-{nanos}", std::process::id()));
        let u = Unpacked { dir };
        std::fs::create_dir(&u.dir)
            .map_err(|e| err!(Io, "cannot unpack the built-in data into '{}': {e} (give --data DIR)", u.dir.display()))?;
        for (rel, bytes) in FILES {
            let p = u.dir.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| err!(Io, "cannot unpack the built-in data into '{}': {e} (give --data DIR)", parent.display()))?;
            }
            std::fs::write(&p, bytes)
                .map_err(|e| err!(Io, "cannot unpack the built-in data into '{}': {e} (give --data DIR)", p.display()))?;
        }
        Ok(u)
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The data directory of a run: `--data DIR` when given, else the embedded tree unpacked (kept alive by
/// the returned guard).
pub fn data_dir(flag: &Option<PathBuf>) -> Fallible<(PathBuf, Option<Unpacked>)> {
    match flag {
        Some(d) => {
            if !d.is_dir() {
                return fallible!(Input, "--data '{}' is not a directory", d.display());
            }
            Ok((d.clone(), None))
        }
        None => {
            let u = Unpacked::new()?;
            Ok((u.path().to_path_buf(), Some(u)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded list is exactly the files under data/, with their contents (a file added to data/
    /// without an entry here would be missing outside the repository).
    #[test]
    fn embedded_files_are_the_data_directory() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        let mut on_disk = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    // the user's own downloaded extracts (git-ignored) are not shipped
                    if p != root.join("extracts") {
                        stack.push(p);
                    }
                } else {
                    on_disk.push(p.strip_prefix(&root).unwrap().to_str().unwrap().replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        for (rel, bytes) in FILES {
            assert_eq!(std::fs::read(root.join(rel)).unwrap(), *bytes, "{rel}");
        }
        let u = Unpacked::new().unwrap();
        let p = u.path().to_path_buf();
        assert_eq!(std::fs::read(p.join("published.csv")).unwrap(), std::fs::read(root.join("published.csv")).unwrap());
        drop(u);
        assert!(!p.exists());
    }
}
