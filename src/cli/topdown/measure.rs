//! `tightdp topdown measure | certify`: the noisy measurements and their certificate.

use crate::budget::zcdp;
use crate::census::allocation::Allocation;
use crate::cli::common::{check_prec, parse_delta};
use crate::error::Fallible;
use crate::model::Neighbors;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::parse_rational;
use crate::record::{row, Format};
use crate::topdown::analysis::certify::certify;
use crate::topdown::measurement::measure::{measure, read_manifest, MeasureOpts, Persons, Plan};
use crate::topdown::measurement::schema::{read_persons, Schema};
use crate::topdown::spine::{Bypass, Spine};
use crate::{err, fallible};
use clap::Args;
use rug::Float;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MeasureArgs {
    /// Geography file written by `tightdp topdown gen-geography`
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Allocation file (levels by `share` + `queries` or `query_shares`; geolevels as in the spine)
    #[arg(long, value_name = "FILE")]
    pub allocation: PathBuf,
    /// Person file (block, hhgq, votingage, hispanic, cenrace[, count])
    #[arg(long, value_name = "FILE", conflicts_with = "synth_seed")]
    pub persons: Option<PathBuf>,
    /// Instead of a person file, generate the persons per block from this seed (as `topdown persons`)
    #[arg(long, value_name = "SEED")]
    pub synth_seed: Option<u64>,
    /// Mean block population with --synth-seed
    #[arg(long, default_value_t = 30)]
    pub mean: u32,
    /// Neighbour relation (default: the allocation file's): replace → σ² = 1/(ργα), add-remove → 1/(2ργα)
    #[arg(long, value_parser = ["replace", "add-remove"])]
    pub neighbors: Option<String>,
    /// Histogram schema: pl94 (8·2·2·63), small (3·2·2·4), scalar, or hhgq=..,votingage=..,hispanic=..,cenrace=..
    #[arg(long, default_value = "small")]
    pub schema: String,
    /// Algorithm 3: none, zcdp (single children) or pure-dp (also Theorem 2's multi-child bypasses by
    /// the allocation's geolevel shares, at the county geolevel and below; the run's geography.csv
    /// then holds the restructured tree)
    #[arg(long, value_enum, default_value = "zcdp")]
    pub bypass: Bypass,
    /// Algorithm 3, pure-dp: a geounit is not bypassed when its parent would then have more children
    #[arg(long, value_name = "N", default_value_t = 150)]
    pub bypass_cutoff: usize,
    /// Noise seed (reproducible runs); default: from the operating system
    #[arg(long)]
    pub seed: Option<u64>,
    /// Geolevels whose exact totals go to invariants.csv (published without noise), top levels first,
    /// or `none`; default: US and State where the spine has them
    #[arg(long, value_name = "LEVELS")]
    pub invariants: Option<String>,
    /// Structural zeros of the schema, recorded in the manifest for post-processing: none, nurse-nva
    /// (the production nurse_nva_0: hhgq 3 × votingage 0, no minors in nursing facilities) or
    /// ATTR=V&ATTR=V;… — synthetic persons in such a cell are left out, a person file with one refused
    #[arg(long, value_name = "SPEC", default_value = "none")]
    pub structural_zeros: String,
    /// Write units.csv: the facilities of each hhgq type per block (the group-quarters invariant;
    /// synthetic, from the persons: a housing unit per 3 household persons, a facility per 50 group
    /// quarters persons); post-processing then keeps every geounit within its group-quarters bounds
    #[arg(long)]
    pub gq_units: bool,
    /// TESTING ONLY, NOT PRIVATE: write the exact counts without noise (the manifest says so and
    /// `certify` refuses the run)
    #[arg(long)]
    pub no_noise: bool,
    /// Output directory (written all or nothing; `--out-dir` is the old spelling, still accepted)
    #[arg(long = "out", alias = "out-dir", value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Replace a non-empty --out that does not hold an earlier `topdown measure` run, or one that
    /// also holds files measure does not write (e.g. the estimates.csv of `topdown postprocess`)
    #[arg(long)]
    pub force: bool,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct TopdownCertifyArgs {
    /// The run's manifest.json (as in `tightdp certify MANIFEST`)
    #[arg(value_name = "MANIFEST", required_unless_present = "manifest_flag", conflicts_with = "manifest_flag")]
    pub manifest: Option<PathBuf>,
    /// The old spelling `--manifest FILE`, still accepted
    #[arg(long = "manifest", value_name = "FILE", hide = true)]
    pub manifest_flag: Option<PathBuf>,
    /// δ of the certified ε reported
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: String,
    /// Expert override of the MPFR working precision in bits (default: the accountant's choice for 20 digits)
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

pub(super) fn run_measure(a: MeasureArgs) -> Fallible<String> {
    let schema = Schema::parse(&a.schema)?;
    let alloc = Allocation::from_path(&a.allocation)?;
    let nb = match a.neighbors.as_deref() {
        None => alloc.neighbors,
        Some("replace") => Neighbors::Replace,
        Some(_) => Neighbors::AddRemove,
    };
    let mut sp = Spine::from_path(&a.geography)?;
    let plan = Plan::new(&alloc, &sp, &schema, nb).map_err(|e| e.context(format!("allocation '{}'", a.allocation.display())))?;
    if a.bypass == Bypass::PureDp {
        use crate::topdown::geography::alg3;
        sp = alg3::pareto_frontier(&sp, &plan.beta, a.bypass_cutoff, alg3::default_top(&sp))?.0;
    } else {
        sp.apply_bypass(a.bypass);
    }
    let persons = match (&a.persons, a.synth_seed) {
        (Some(p), _) => {
            let f = std::fs::File::open(p).map_err(|e| err!(Io, "cannot read person file '{}': {e}", p.display()))?;
            let idx: std::collections::HashMap<&str, u32> =
                sp.blocks.iter().enumerate().map(|(i, &b)| (sp.ids[b as usize].as_str(), i as u32)).collect();
            Persons::Table(read_persons(std::io::BufReader::new(f), &idx, &schema).map_err(|e| e.context(format!("'{}'", p.display())))?)
        }
        (None, Some(seed)) => Persons::Synthetic { seed, mean: a.mean },
        (None, None) => return fallible!(Input, "give --persons FILE or --synth-seed SEED"),
    };
    let invariant_levels = invariant_levels(&sp, a.invariants.as_deref())?;
    let t0 = std::time::Instant::now();
    // the run directory is released all or nothing (staged, swapped into place at the end)
    let run =
        crate::rundir::RunDir::begin_owned(&a.out_dir, "topdown measure", a.force, &crate::topdown::measurement::rundir::MEASURE_FILES)?;
    let zeros = crate::topdown::estimation::constraints::parse_structural_zeros(&a.structural_zeros, &schema)?;
    let mut opts = MeasureOpts::plain(run.path(), a.seed, a.no_noise, invariant_levels);
    if !zeros.is_empty() {
        opts.structural_zeros = a.structural_zeros.trim().to_string();
        opts.structural_zero = zeros;
    }
    opts.gq_units = a.gq_units;
    let m = measure(&plan, &sp, &persons, &opts)?;
    run.commit()?;
    let secs = t0.elapsed().as_secs_f64();
    let r = MeasureRow {
        allocation: m.allocation.clone(),
        neighbors: m.neighbors.clone(),
        bypass: format!("{} ({} geounits)", m.bypass, m.bypassed_units),
        blocks: m.blocks.to_string(),
        noise_entries: m.noise.len().to_string(),
        budget_paths: m.paths.len().to_string(),
        rows: m.rows.to_string(),
        measurements: a.out_dir.join("measurements.csv").display().to_string(),
        invariants: a.out_dir.join(crate::topdown::measurement::rundir::INVARIANTS_FILE).display().to_string(),
        noise: a.no_noise.then(|| "NONE (--no-noise): exact counts, NOT PRIVATE, for testing only".into()),
        manifest: a.out_dir.join("manifest.json").display().to_string(),
        seconds: format!("{secs:.2}"),
    };
    Ok(row(&r)?.render(a.format))
}

/// The summary of `topdown measure` (`None`: a field left out).
#[derive(Serialize)]
struct MeasureRow {
    allocation: String,
    neighbors: String,
    bypass: String,
    blocks: String,
    noise_entries: String,
    budget_paths: String,
    rows: String,
    measurements: String,
    invariants: String,
    noise: Option<String>,
    manifest: String,
    seconds: String,
}

/// The row of `topdown certify` (`None`: a field left out).
#[derive(Serialize)]
struct CertifyRow {
    allocation: String,
    neighbors: String,
    bypass: String,
    neighbour_patterns: String,
    worst_pattern: String,
    rho: String,
    delta: String,
    epsilon_lo: String,
    epsilon_hi: String,
    epsilon_zcdp_bs: String,
    epsilon_zcdp_cks: String,
    method: String,
    trust: String,
    detail: String,
    note: Option<String>,
}

pub fn run_certify(a: TopdownCertifyArgs) -> Fallible<String> {
    let delta = parse_delta(&a.delta)?;
    let prec = a.prec.map(check_prec).transpose()?;
    let manifest = a
        .manifest
        .as_ref()
        .or(a.manifest_flag.as_ref())
        .ok_or_else(|| err!(Input, "topdown certify needs the run's manifest: topdown certify MANIFEST --delta D"))?;
    let m = read_manifest(manifest)?;
    // a manifest whose geolevels contradict its noise entries is refused outright (no zCDP fallback)
    crate::topdown::analysis::certify::check_levels(&m).map_err(|e| e.context(format!("'{}'", manifest.display())))?;
    let c = certify(&m, &delta, prec).map_err(|e| {
        // still say what the zCDP accounting gives (when the manifest's ρ is a usable number)
        let rho = match parse_rational(&m.rho) {
            Ok(r) if r > 0 => r,
            _ => return e.context("exact epsilon not available"),
        };
        let bs = zcdp::eps_bs(&rho, &delta, 128);
        let (cks, _) = zcdp::eps_cks(&rho, &delta, 128);
        crate::error::Error::new(
            e.kind(),
            format!(
                "exact epsilon not available: {} (zCDP conversions of rho = {}: Bun-Steinke {}, Canonne-Kamath-Steinke {})",
                e.message(),
                m.rho,
                fmt_up(bs.hi(), 12),
                fmt_up(cks.hi(), 12)
            ),
        )
    })?;
    let bs = zcdp::eps_bs(&c.rho, &delta, 256);
    let (cks, _) = zcdp::eps_cks(&c.rho, &delta, 256);
    let r = CertifyRow {
        allocation: m.allocation.clone(),
        neighbors: m.neighbors.clone(),
        bypass: m.bypass.clone(),
        neighbour_patterns: c.patterns.to_string(),
        worst_pattern: c.worst.clone(),
        rho: format!("{} = {}", c.rho, fmt_nearest(&Float::with_val(256, &c.rho), 30)),
        delta: a.delta.trim().into(),
        epsilon_lo: fmt_down(c.epsilon.lo(), 40),
        epsilon_hi: fmt_up(c.epsilon.hi(), 40),
        epsilon_zcdp_bs: fmt_up(bs.hi(), 20),
        epsilon_zcdp_cks: fmt_up(cks.hi(), 20),
        method: c.epsilon.engine().as_str().into(),
        trust: c.epsilon.trust().as_str().into(),
        detail: c.epsilon.describe(),
        note: c.epsilon.note().map(|n| n.to_string()),
    };
    Ok(row(&r)?.render(a.format))
}

pub(super) fn invariant_levels(sp: &Spine, arg: Option<&str>) -> Fallible<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    match arg.map(str::trim) {
        Some("none") | Some("") => return Ok(out),
        None => {
            for n in ["US", "State"] {
                if let Some(l) = sp.level_index(n) {
                    out.push(l);
                }
            }
        }
        Some(list) => {
            for n in list.split(',') {
                let l = sp
                    .level_index(n.trim())
                    .ok_or_else(|| err!(Input, "--invariants: '{}' is not a geolevel of the spine ({})", n.trim(), sp.levels.join(", ")))?;
                out.push(l);
            }
        }
    }
    out.sort();
    out.dedup();
    if out.iter().enumerate().any(|(i, &l)| i != l) {
        return fallible!(
            Input,
            "--invariants: invariant geolevels must be the top ones of the spine ({}), without gaps",
            sp.levels.iter().take(out.len().max(1)).cloned().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(out)
}
