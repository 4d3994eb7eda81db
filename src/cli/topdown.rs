//! `tightdp topdown …`: geographic spines, TopDown noisy measurements, certification, accuracy.

use crate::budget::zcdp;
use crate::census::allocation::Allocation;
use crate::cli::common::{check_prec, parse_delta};
use crate::model::Neighbors;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::parse_rational;
use crate::record::render_rows;
use crate::record::{Format, Record};
use crate::topdown::analysis::certify::certify;
use crate::topdown::estimation::estimate::{accuracy, TABLE1_BUREAU, TABLE1_REDUCED};
use crate::topdown::geography::spine::{Bypass, GeoSpec, Spine};
use crate::topdown::measurement::measure::{measure, read_manifest, MeasureOpts, Persons, Plan};
use crate::topdown::measurement::sampler::seeded;
use crate::topdown::measurement::schema::{read_persons, synth_block, write_persons, Schema};
use crate::topdown::write_streamed;
use clap::{Args, Subcommand};
use rug::{Float, Rational};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TopdownArgs {
    #[command(subcommand)]
    pub cmd: TopdownCmd,
}

#[derive(Subcommand, Debug)]
pub enum TopdownCmd {
    /// Generate a synthetic block-level geography (deterministic from the seed)
    GenGeography(GenGeoArgs),
    /// Generate a synthetic person file for a geography
    Persons(PersonsArgs),
    /// Summarise a spine: geolevels, fan-outs, bypasses, off-spine entity distances
    Spine(SpineArgs),
    /// Noisy measurements: measurements.csv and manifest.json in --out
    Measure(MeasureArgs),
    /// Exact ε(δ) of a measurement manifest (lattice accountant), next to the zCDP conversions
    Certify(CertifyArgs),
    /// MSE of tree-consistent WLS by geolevel and for off-spine entities: closed form and simulation
    Accuracy(AccuracyArgs),
    /// TopDown estimation: integer, non-negative, consistent histograms of every geounit from a run
    Postprocess(PostprocessArgs),
}

#[derive(Args, Debug)]
pub struct GenGeoArgs {
    /// Geolevel names, top (root) first, blocks last
    #[arg(long, default_value = "US,State,County,Tract,Optimized Block Group,Block")]
    pub levels: String,
    /// Fan-out per geolevel above the blocks: N or MIN-MAX, comma-separated (a leading 1 for the single root is allowed)
    #[arg(long, default_value = "2,2-3,2-4,1-3,1-6")]
    pub fanout: String,
    /// Off-spine entity categories NAME:FRACTION (fraction of blocks inside some entity)
    #[arg(long, default_value = "place:0.3,aian:0.1")]
    pub ose: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct PersonsArgs {
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mean block population (uniform on 0..2·mean)
    #[arg(long, default_value_t = 30)]
    pub mean: u32,
    /// Histogram schema: pl94 (8·2·2·63), small (3·2·2·4), scalar, or hhgq=..,votingage=..,hispanic=..,cenrace=..
    #[arg(long, default_value = "small")]
    pub schema: String,
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

#[derive(Args, Debug)]
pub struct SpineArgs {
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    #[arg(long, value_enum, default_value = "zcdp")]
    pub bypass: Bypass,
    /// Apply Algorithm 2 of the spines paper first: optimized block groups and greedy tract groups;
    /// the table is then of the redefined spine, with the off-spine entity distances before and after
    #[arg(long)]
    pub alg2: bool,
    /// Algorithm 2: at most ⌊√n⌋ + CUTOFF blocks per optimized block group and tracts per tract group
    #[arg(long, value_name = "CUTOFF", default_value_t = 2, requires = "alg2")]
    pub fanout_cutoff: u32,
    /// Algorithm 2: the county geolevel (the tract geolevel must be directly below it)
    #[arg(long, default_value = "County", requires = "alg2")]
    pub county_level: String,
    #[arg(long, default_value = "Tract", requires = "alg2")]
    pub tract_level: String,
    /// Algorithm 2: write the redefined geography to this file
    #[arg(long, value_name = "FILE", requires = "alg2")]
    pub alg2_out: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct MeasureArgs {
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
    #[arg(long, default_value = "small")]
    pub schema: String,
    #[arg(long, value_enum, default_value = "zcdp")]
    pub bypass: Bypass,
    /// Noise seed (reproducible runs); default: from the operating system
    #[arg(long)]
    pub seed: Option<u64>,
    /// Geolevels whose exact totals go to invariants.csv (published without noise), top levels first,
    /// or `none`; default: US and State where the spine has them
    #[arg(long, value_name = "LEVELS")]
    pub invariants: Option<String>,
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
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct CertifyArgs {
    /// The run's manifest.json (as in `tightdp certify MANIFEST`)
    #[arg(value_name = "MANIFEST", required_unless_present = "manifest_flag", conflicts_with = "manifest_flag")]
    pub manifest: Option<PathBuf>,
    /// The old spelling `--manifest FILE`, still accepted
    #[arg(long = "manifest", value_name = "FILE", hide = true)]
    pub manifest_flag: Option<PathBuf>,
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: String,
    /// working precision in bits (expert override; default: the accountant chooses for 20 digits)
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct AccuracyArgs {
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Noise settings: bureau and/or reduced (Table 1 of the f-DP paper, 8 DHC geolevels)
    #[arg(long, default_value = "bureau,reduced")]
    pub noise: String,
    /// Custom σ² per geolevel (one query), comma-separated, instead of --noise
    #[arg(long, value_name = "LIST")]
    pub sigma2: Option<String>,
    #[arg(long, default_value_t = 400)]
    pub trials: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "zcdp")]
    pub bypass: Bypass,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Also write the table (CSV) to this file
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Simulate TopDown's final integer counts (post-processing) instead of the closed-form WLS: MAE/MSE
    /// per geolevel of the noisy measurements, max(0,·) and TopDown, for Bureau / Table 1 / uniform
    /// −12.28% noise (--noise bureau,reduced,uniform), ten DHC queries per geolevel
    #[arg(long)]
    pub postprocess: bool,
    /// With --postprocess: histogram schema
    #[arg(long, default_value = crate::topdown::analysis::pp_accuracy::BENCH_SCHEMA, requires = "postprocess")]
    pub schema: String,
}

#[derive(Args, Debug)]
pub struct PostprocessArgs {
    /// Run directory written by `topdown measure` (manifest.json, measurements.csv, geography.csv, invariants.csv)
    #[arg(long, value_name = "DIR")]
    pub run: PathBuf,
    /// Output CSV: level,geounit,parent,cell,count
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// δ of the certified ε reported for the run
    #[arg(long, value_name = "D", default_value = "1e-10", allow_hyphen_values = true)]
    pub delta: String,
    /// Precision of the certified ε in bits, an expert override (default: the accountant chooses for 20 digits)
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

pub fn run(a: TopdownArgs) -> Result<String, String> {
    match a.cmd {
        TopdownCmd::GenGeography(a) => gen_geography(a),
        TopdownCmd::Persons(a) => persons(a),
        TopdownCmd::Spine(a) => spine(a),
        TopdownCmd::Measure(a) => run_measure(a),
        TopdownCmd::Certify(a) => run_certify(a),
        TopdownCmd::Accuracy(a) => run_accuracy(a),
        TopdownCmd::Postprocess(a) => run_postprocess(a),
    }
}

fn gen_geography(a: GenGeoArgs) -> Result<String, String> {
    let spec = GeoSpec::parse(&a.levels, &a.fanout, a.seed, &a.ose)?;
    let n = write_streamed(&a.out, |w| spec.write(w))?;
    Ok(format!("wrote {} blocks to {}\n", n, a.out.display()))
}

fn persons(a: PersonsArgs) -> Result<String, String> {
    let schema = Schema::parse(&a.schema)?;
    let sp = Spine::from_path(&a.geography)?;
    if a.mean > 100_000 {
        return Err("--mean must be at most 100000".into());
    }
    let ids: Vec<String> = sp.blocks.iter().map(|&b| sp.ids[b as usize].clone()).collect();
    let n = write_streamed(&a.out, |w| write_persons(w, &ids, a.seed, a.mean, &schema))?;
    Ok(format!("wrote {} persons in {} blocks to {}\n", n, ids.len(), a.out.display()))
}

fn spine(a: SpineArgs) -> Result<String, String> {
    let mut sp = Spine::from_path(&a.geography)?;
    let mut alg2 = None;
    if a.alg2 {
        let r = crate::topdown::geography::alg2::redefine(&sp, &a.county_level, &a.tract_level, a.fanout_cutoff)?;
        if let Some(out) = &a.alg2_out {
            crate::record::write_atomic(out, r.csv.as_bytes())?;
        }
        sp = r.spine.clone();
        alg2 = Some(r);
    }
    let nby = sp.apply_bypass(a.bypass);
    let sigs = sp.path_signatures()?;
    let mut rows = Vec::new();
    for s in sp.level_stats() {
        let mut r = Record::new();
        r.push("kind", "geolevel");
        r.push("name", s.name.clone());
        r.push("units", s.units.to_string());
        r.push("measured", s.measured.to_string());
        r.push("fanout_min", s.fanout_min.to_string());
        r.push("fanout_mean", format!("{:.3}", s.fanout_mean));
        r.push("fanout_max", s.fanout_max.to_string());
        r.push("osed_mean", String::new());
        r.push("osed_max", String::new());
        rows.push(r);
    }
    for (k, cat) in sp.ose.iter().enumerate() {
        let d: Vec<u64> = (0..cat.entities.len() as u32).map(|e| sp.osed(&sp.ose_members(k, e))).collect();
        let mut r = Record::new();
        r.push("kind", "off-spine");
        r.push("name", cat.name.clone());
        r.push("units", cat.entities.len().to_string());
        r.push("measured", String::new());
        r.push("fanout_min", String::new());
        r.push("fanout_mean", String::new());
        r.push("fanout_max", String::new());
        r.push("osed_mean", if d.is_empty() { String::new() } else { format!("{:.3}", d.iter().sum::<u64>() as f64 / d.len() as f64) });
        r.push("osed_max", d.iter().max().map(|x| x.to_string()).unwrap_or_default());
        if let Some(al) = &alg2 {
            let b = &al.osed_before[k];
            r.push(
                "osed_mean_before",
                if b.is_empty() { String::new() } else { format!("{:.3}", b.iter().sum::<u64>() as f64 / b.len() as f64) },
            );
            r.push("osed_max_before", b.iter().max().map(|x| x.to_string()).unwrap_or_default());
        }
        rows.push(r);
    }
    if alg2.is_some() {
        for r in rows.iter_mut().filter(|r| r.get("kind") == Some("geolevel")) {
            r.push("osed_mean_before", String::new());
            r.push("osed_max_before", String::new());
        }
    }
    let mut out = render_rows(&rows, a.format);
    if let (Some(al), Format::Table) = (&alg2, a.format) {
        out += &format!(
            "Algorithm 2 (fanout_cutoff {}): {} optimized block groups, {} tract groups ({} greedy merges); off-spine entity distances after, and before (osed_*_before)\n",
            a.fanout_cutoff, al.block_groups, al.tract_groups, al.merges
        );
    }
    if a.format == Format::Table {
        out += &format!(
            "blocks {}; bypass {}: {} geounits bypassed; {} distinct budget paths, each summing to 1 (Theorem 3)\n",
            sp.blocks.len(),
            a.bypass.as_str(),
            nby,
            sigs.len()
        );
    }
    Ok(out)
}

fn run_measure(a: MeasureArgs) -> Result<String, String> {
    let schema = Schema::parse(&a.schema)?;
    let alloc = Allocation::from_path(&a.allocation)?;
    let nb = match a.neighbors.as_deref() {
        None => alloc.neighbors,
        Some("replace") => Neighbors::Replace,
        Some(_) => Neighbors::AddRemove,
    };
    let mut sp = Spine::from_path(&a.geography)?;
    sp.apply_bypass(a.bypass);
    let plan = Plan::new(&alloc, &sp, &schema, nb).map_err(|e| format!("allocation '{}': {e}", a.allocation.display()))?;
    let persons = match (&a.persons, a.synth_seed) {
        (Some(p), _) => {
            let f = std::fs::File::open(p).map_err(|e| format!("cannot read person file '{}': {e}", p.display()))?;
            let idx: std::collections::HashMap<&str, u32> =
                sp.blocks.iter().enumerate().map(|(i, &b)| (sp.ids[b as usize].as_str(), i as u32)).collect();
            Persons::Table(read_persons(std::io::BufReader::new(f), &idx, &schema).map_err(|e| format!("'{}': {e}", p.display()))?)
        }
        (None, Some(seed)) => Persons::Synthetic { seed, mean: a.mean },
        (None, None) => return Err("give --persons FILE or --synth-seed SEED".into()),
    };
    let invariant_levels = invariant_levels(&sp, a.invariants.as_deref())?;
    let t0 = std::time::Instant::now();
    // the run directory is released all or nothing (staged, swapped into place at the end)
    let run =
        crate::rundir::RunDir::begin_owned(&a.out_dir, "topdown measure", a.force, &crate::topdown::measurement::rundir::MEASURE_FILES)?;
    let m = measure(&plan, &sp, &persons, &MeasureOpts { out_dir: run.path(), seed: a.seed, no_noise: a.no_noise, invariant_levels })?;
    run.commit()?;
    let secs = t0.elapsed().as_secs_f64();
    let mut r = Record::new();
    r.push("allocation", m.allocation.clone());
    r.push("neighbors", m.neighbors.clone());
    r.push("bypass", format!("{} ({} geounits)", m.bypass, m.bypassed_units));
    r.push("blocks", m.blocks.to_string());
    r.push("noise_entries", m.noise.len().to_string());
    r.push("budget_paths", m.paths.len().to_string());
    r.push("rows", m.rows.to_string());
    r.push("measurements", a.out_dir.join("measurements.csv").display().to_string());
    r.push("invariants", a.out_dir.join(crate::topdown::measurement::rundir::INVARIANTS_FILE).display().to_string());
    if a.no_noise {
        r.push("noise", "NONE (--no-noise): exact counts, NOT PRIVATE, for testing only");
    }
    r.push("manifest", a.out_dir.join("manifest.json").display().to_string());
    r.push("seconds", format!("{secs:.2}"));
    Ok(r.render(a.format))
}

pub fn run_certify(a: CertifyArgs) -> Result<String, String> {
    let delta = parse_delta(&a.delta)?;
    let prec = a.prec.map(check_prec).transpose()?;
    let manifest = a
        .manifest
        .as_ref()
        .or(a.manifest_flag.as_ref())
        .ok_or("topdown certify needs the run's manifest: topdown certify MANIFEST --delta D")?;
    let m = read_manifest(manifest)?;
    // a manifest whose geolevels contradict its noise entries is refused outright (no zCDP fallback)
    crate::topdown::analysis::certify::check_levels(&m).map_err(|e| format!("'{}': {e}", manifest.display()))?;
    let c = certify(&m, &delta, prec).map_err(|e| {
        // still say what the zCDP accounting gives (when the manifest's ρ is a usable number)
        let rho = match parse_rational(&m.rho) {
            Ok(r) if r > 0 => r,
            _ => return format!("exact epsilon not available: {e}"),
        };
        let bs = zcdp::eps_bs(&rho, &delta, 128);
        let (cks, _) = zcdp::eps_cks(&rho, &delta, 128);
        format!(
            "exact epsilon not available: {e} (zCDP conversions of rho = {}: Bun-Steinke {}, Canonne-Kamath-Steinke {})",
            m.rho,
            fmt_up(&bs.hi, 12),
            fmt_up(&cks.hi, 12)
        )
    })?;
    let mut r = Record::new();
    r.push("allocation", m.allocation.clone());
    r.push("neighbors", m.neighbors.clone());
    r.push("bypass", m.bypass.clone());
    r.push("neighbour_patterns", c.patterns.to_string());
    r.push("worst_pattern", c.worst.clone());
    r.push("rho", format!("{} = {}", c.rho, fmt_nearest(&Float::with_val(256, &c.rho), 30)));
    r.push("delta", a.delta.trim());
    r.push("epsilon_lo", fmt_down(c.epsilon.lo(), 40));
    r.push("epsilon_hi", fmt_up(c.epsilon.hi(), 40));
    let bs = zcdp::eps_bs(&c.rho, &delta, 256);
    let (cks, _) = zcdp::eps_cks(&c.rho, &delta, 256);
    r.push("epsilon_zcdp_bs", fmt_up(&bs.hi, 20));
    r.push("epsilon_zcdp_cks", fmt_up(&cks.hi, 20));
    r.push("method", c.epsilon.engine().as_str());
    r.push("trust", c.epsilon.trust().as_str());
    r.push("detail", c.epsilon.describe());
    if let Some(n) = c.epsilon.note() {
        r.push("note", n);
    }
    Ok(r.render(a.format))
}

pub fn run_accuracy(a: AccuracyArgs) -> Result<String, String> {
    let mut sp = Spine::from_path(&a.geography)?;
    sp.apply_bypass(a.bypass);
    if a.trials < 2 || a.trials > 10_000_000 {
        return Err("--trials must be between 2 and 10000000".into());
    }
    if a.postprocess {
        return run_pp_accuracy(a, &sp);
    }
    let mut settings: Vec<(String, Vec<Rational>)> = Vec::new();
    let parse_list = |l: &[&str]| -> Result<Vec<Rational>, String> {
        l.iter()
            .map(|s| {
                let v = parse_rational(s.trim()).map_err(|e| format!("sigma2: {e}"))?;
                if v <= 0 {
                    return Err("sigma2 must be positive".to_string());
                }
                Ok(v)
            })
            .collect()
    };
    if let Some(s) = &a.sigma2 {
        settings.push(("custom".into(), parse_list(&s.split(',').collect::<Vec<_>>())?));
    } else {
        for n in a.noise.split(',') {
            match n.trim() {
                "bureau" => settings.push(("bureau".into(), parse_list(&TABLE1_BUREAU)?)),
                "reduced" => settings.push(("reduced".into(), parse_list(&TABLE1_REDUCED)?)),
                o => return Err(format!("unknown --noise '{o}' (bureau, reduced)")),
            }
        }
    }
    for (name, s) in &settings {
        if s.len() != sp.n_levels() {
            return Err(format!("noise '{name}' gives {} geolevel variances but the spine has {} geolevels", s.len(), sp.n_levels()));
        }
    }
    // true totals from synthetic persons (seed 1, mean 30), for the non-negative estimates
    let schema = Schema::parse("scalar")?;
    let mut truth = vec![0.0f64; sp.n_units()];
    let mut people = Vec::new();
    for &u in &sp.postorder() {
        let b = sp.block_no[u as usize];
        if b != crate::topdown::geography::spine::NONE {
            synth_block(1, b as u64, 30, &schema, &mut people);
            truth[u as usize] = people.len() as f64;
        }
        let p = sp.parent[u as usize];
        if p != crate::topdown::geography::spine::NONE {
            truth[p as usize] += truth[u as usize];
        }
    }
    let mut rows = Vec::new();
    let mut rng = seeded(a.seed);
    for (name, s2) in &settings {
        for row in accuracy(&sp, s2, &truth, a.trials, &mut rng)? {
            let mut r = Record::new();
            r.push("noise", name.clone());
            r.push("kind", row.group.clone());
            r.push("name", row.name.clone());
            r.push("count", row.count.to_string());
            r.push("osed_mean", format!("{:.3}", row.mean_osed));
            r.push("mse_closed_form", format!("{:.6}", row.mse_closed));
            r.push("mse_simulated", format!("{:.6}", row.mse_sim));
            r.push("mc_se", format!("{:.6}", row.mse_sim_se));
            r.push("z", format!("{:.2}", row.z()));
            r.push("mse_nonneg_simulated", format!("{:.6}", row.mse_nonneg_sim));
            rows.push(r);
        }
    }
    if let Some(out) = &a.out {
        let text = render_rows(&rows, Format::Csv);
        crate::record::write_atomic(out, text.as_bytes())?;
    }
    Ok(render_rows(&rows, a.format))
}

/// Geolevels with invariants: a list of names (a top part of the spine), `none`, or by default US and
/// State where present.
fn invariant_levels(sp: &Spine, arg: Option<&str>) -> Result<Vec<usize>, String> {
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
                    .ok_or_else(|| format!("--invariants: '{}' is not a geolevel of the spine ({})", n.trim(), sp.levels.join(", ")))?;
                out.push(l);
            }
        }
    }
    out.sort();
    out.dedup();
    if out.iter().enumerate().any(|(i, &l)| i != l) {
        return Err(format!(
            "--invariants: invariant geolevels must be the top ones of the spine ({}), without gaps",
            sp.levels.iter().take(out.len().max(1)).cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(out)
}

/// `--out` must not be one of the run's own files (measurements, manifest, geography, invariants,
/// completion marker): compared as files (device and inode), so a relative path, `..` or a link to
/// one of them is caught too.
fn refuse_overwriting_inputs(
    out: &std::path::Path,
    run: &std::path::Path,
    m: &crate::topdown::measurement::measure::Manifest,
) -> Result<(), String> {
    let Ok(o) = std::fs::metadata(out) else { return Ok(()) };
    let mut inputs: Vec<PathBuf> = crate::topdown::measurement::rundir::MEASURE_FILES.iter().map(|f| run.join(f)).collect();
    inputs.push(run.join(&m.measurements_file));
    inputs.push(run.join(crate::rundir::MARKER));
    let canon = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    for p in inputs {
        if let Ok(i) = std::fs::metadata(&p) {
            if same_file(&o, &i) || (canon(out).is_some() && canon(out) == canon(&p)) {
                return Err(format!(
                    "--out '{}' is the run's own {}: write the estimates to another file (e.g. {})",
                    out.display(),
                    p.display(),
                    run.join("estimates.csv").display()
                ));
            }
        }
    }
    if o.is_dir() {
        return Err(format!("--out '{}' is a directory: name the CSV file to write", out.display()));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    false
}

fn run_postprocess(a: PostprocessArgs) -> Result<String, String> {
    let delta = parse_delta(&a.delta)?;
    let prec = a.prec.map(check_prec).transpose()?;
    let t0 = std::time::Instant::now();
    let (run, m) = crate::topdown::measurement::rundir::load_run(&a.run)?;
    refuse_overwriting_inputs(&a.out, &a.run, &m)?;
    let t_load = t0.elapsed().as_secs_f64();
    let (est, stats) = crate::topdown::estimation::postprocess::postprocess(&run)?;
    let t_solve = t0.elapsed().as_secs_f64() - t_load;
    let rows = write_streamed(&a.out, |w| crate::topdown::estimation::postprocess::write_estimates(&run, &est, w))?;
    let secs = t0.elapsed().as_secs_f64();
    let n_inv = run.invariant.iter().filter(|&&t| t >= 0).count();
    let mut r = Record::new();
    r.push("allocation", m.allocation.clone());
    r.push("geounits", run.spine.n_units().to_string());
    r.push("blocks", run.spine.blocks.len().to_string());
    r.push("cells", run.schema.cells().to_string());
    r.push("parents_solved", stats.solved.to_string());
    r.push("parents_copied", stats.copied.to_string());
    r.push("invariants", n_inv.to_string());
    r.push("checked", "non-negative integers; every parent = sum of its children in every cell; invariants exact");
    r.push("rows", rows.to_string());
    r.push("out", a.out.display().to_string());
    r.push("seconds_read", format!("{t_load:.2}"));
    r.push("seconds_solve", format!("{t_solve:.2}"));
    r.push("seconds", format!("{secs:.2}"));
    // the guarantee: post-processing of the measurements does not change it
    match certify(&m, &delta, prec) {
        Ok(c) => {
            r.push("delta", a.delta.trim());
            r.push("epsilon_lo", fmt_down(c.epsilon.lo(), 20));
            r.push("epsilon_hi", fmt_up(c.epsilon.hi(), 20));
            r.push("epsilon_method", c.epsilon.describe());
            r.push(
                "privacy",
                "unchanged by post-processing: the output is a function of the noisy measurements (certified epsilon above), the public geography and the invariants; the invariants are published exactly, outside the guarantee",
            );
        }
        Err(e) => {
            r.push("privacy", format!("NOT CERTIFIED: {e}"));
        }
    }
    Ok(r.render(a.format))
}

fn run_pp_accuracy(a: AccuracyArgs, sp: &Spine) -> Result<String, String> {
    use crate::topdown::analysis::pp_accuracy::{dhc_settings, render, simulate};
    if a.trials > 100_000 {
        return Err("--trials (noise draws) with --postprocess must be at most 100000".into());
    }
    let schema = Schema::parse(&a.schema)?;
    let alloc = Allocation::from_toml(include_str!("../../data/allocations/dhc-2022-08-25.toml"))?;
    let all = dhc_settings(&alloc)?;
    let mut settings = Vec::new();
    if let Some(s) = &a.sigma2 {
        let v: Vec<Rational> =
            s.split(',').map(|x| parse_rational(x.trim()).map_err(|e| format!("sigma2: {e}"))).collect::<Result<_, _>>()?;
        if v.iter().any(|x| *x <= 0) {
            return Err("sigma2 must be positive".into());
        }
        settings.push(("custom".to_string(), v));
    } else {
        for n in a.noise.split(',') {
            let n = n.trim();
            let s = all.iter().find(|(k, _)| k == n).ok_or_else(|| format!("unknown --noise '{n}' (bureau, reduced, uniform)"))?;
            settings.push(s.clone());
        }
    }
    for (name, s) in &settings {
        if s.len() != sp.n_levels() {
            return Err(format!("noise '{name}' gives {} geolevel variances but the spine has {} geolevels", s.len(), sp.n_levels()));
        }
    }
    let rows = simulate(sp, &schema, &settings, a.trials as u64, a.seed)?;
    let csv = render(&rows);
    if let Some(out) = &a.out {
        crate::record::write_atomic(out, csv.as_bytes())?;
    }
    let recs: Vec<Record> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let mut r = Record::new();
            for (k, v) in csv.lines().next().unwrap().split(',').zip(l.split(',')) {
                r.push(k, v.to_string());
            }
            r
        })
        .collect();
    Ok(render_rows(&recs, a.format))
}
