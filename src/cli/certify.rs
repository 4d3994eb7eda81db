//! `tightdp certify MANIFEST --delta D`: exact ε of a mechanism run next to its zCDP / pure-DP totals.
//! `tightdp certify --allocation FILE [--allocation FILE2 …] --delta D`: the certificate of a TopDown
//! production allocation (or of several products released sequentially), as the Bureau prints it —
//! total ρ, Bun–Steinke and Canonne–Kamath–Steinke ε, per-level ρ, "block within geolevel" — next to the
//! exact f-DP ε from the lattice privacy-loss distribution.

use crate::cli::common::{check_prec, parse_delta};
use crate::error::Fallible;
use crate::fallible;
use crate::record::render_rows;
use crate::record::Format;
use crate::tabulation::manifest::{certify, safetab_p_production, Manifest};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CertifyArgs {
    /// Manifest JSON written by a mechanism run, or `safetab-p-production` / `safetab-p-production-bounded`
    #[arg(value_name = "MANIFEST", required_unless_present = "allocation")]
    pub manifest: Option<String>,
    /// Allocation file(s) to certify instead of a manifest; several compose sequentially
    #[arg(long, value_name = "FILE", conflicts_with = "manifest")]
    pub allocation: Vec<PathBuf>,
    /// Skip the exact (lattice) ε (zCDP figures only)
    #[arg(long)]
    pub no_exact: bool,
    /// δ in (0, 1)
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: String,
    /// Largest width of the certified ε bracket where the budgets share no practical lattice
    /// (smoothed Fourier inversion; lattice results are narrower anyway); --allocation only, default 1e-9
    #[arg(long, allow_hyphen_values = true, value_name = "W")]
    pub width: Option<String>,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Expert override of the MPFR working precision in bits (by default the accountant's choice for 20 digits; 53 runs the certified double-precision engine, ~12 digits)
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
}

/// True when the file is JSON whose `format` names a TopDown measurement manifest.
fn is_topdown_manifest(p: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(p) else { return false };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { return false };
    v.get("format").and_then(|f| f.as_str()).is_some_and(|f| f.starts_with("tightdp-topdown-manifest"))
}

pub fn run(a: CertifyArgs) -> Fallible<String> {
    // --width is validated before anything runs; a manifest's certificate has no smoothed bracket to set
    let width = crate::cli::common::parse_width(a.width.as_deref().unwrap_or("1e-9"))?;
    if a.width.is_some() && a.allocation.is_empty() {
        return fallible!(Input, "--width sets the bracket of an --allocation certificate; a MANIFEST's certificate does not use it");
    }
    let delta = parse_delta(&a.delta)?;
    if !a.allocation.is_empty() {
        let prec = a.prec.map(check_prec).transpose()?;
        let mut allocs = Vec::new();
        for p in &a.allocation {
            allocs.push(crate::census::Allocation::from_path(p)?);
        }
        let rows = crate::app::certificate::certificate(&allocs, &delta, prec, !a.no_exact, width)?;
        return Ok(render_rows(&rows, a.format));
    }
    let prec = a.prec.map(check_prec).transpose()?;
    // a TopDown run's manifest (format tightdp-topdown-manifest/…) is certified by `topdown certify`
    if let Some(p) = a.manifest.as_deref().filter(|p| is_topdown_manifest(Path::new(p))) {
        return crate::cli::topdown::run_certify(crate::cli::topdown::TopdownCertifyArgs {
            manifest: Some(PathBuf::from(p)),
            manifest_flag: None,
            delta: a.delta.clone(),
            prec: a.prec,
            format: a.format,
        });
    }
    let m = match a.manifest.as_deref().unwrap_or("") {
        "safetab-p-production" => safetab_p_production(false),
        "safetab-p-production-bounded" => safetab_p_production(true),
        p => Manifest::from_path(&PathBuf::from(p))?,
    };
    Ok(render_rows(&certify(&m, &delta, prec)?, a.format))
}
