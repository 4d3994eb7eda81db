//! `tightdp topdown postprocess | accuracy`: TopDown's estimation and its accuracy.

use crate::census::allocation::Allocation;
use crate::cli::common::{check_prec, parse_delta};
use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_up};
use crate::num::parse_rational;
use crate::record::render_rows;
use crate::record::write_streamed;
use crate::record::{Format, Record};
use crate::topdown::analysis::certify::certify;
use crate::topdown::estimation::estimate::{accuracy, TABLE1_BUREAU, TABLE1_REDUCED};
use crate::topdown::measurement::sampler::seeded;
use crate::topdown::measurement::schema::{synth_block, Schema};
use crate::topdown::spine::{Bypass, Spine};
use crate::{err, fallible};
use clap::Args;
use rug::Rational;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TopdownAccuracyArgs {
    /// Geography file written by `tightdp topdown gen-geography`
    #[arg(long, value_name = "FILE")]
    pub geography: PathBuf,
    /// Noise settings: bureau and/or reduced (Table 1 of the f-DP paper, 8 DHC geolevels)
    #[arg(long, default_value = "bureau,reduced")]
    pub noise: String,
    /// Custom σ² per geolevel (one query), comma-separated, instead of --noise
    #[arg(long, value_name = "LIST")]
    pub sigma2: Option<String>,
    /// Noisy runs of the measurements whose errors are summarised
    #[arg(long, default_value_t = 400)]
    pub trials: usize,
    /// Seed of the random draws: the same seed, the same output
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Bypass rule of the spine (Algorithm 3): zcdp or pure-dp
    #[arg(long, value_enum, default_value = "zcdp")]
    pub bypass: Bypass,
    /// Output format: table (for reading), csv or json
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
    /// Expert override of the MPFR working precision in bits of the certified ε (default: the accountant's choice for 20 digits)
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
    /// Query passes of the L2 step (the production multipass): passes separated by |, queries by
    /// commas, a star for the queries no other pass names, e.g. "total | *"; each pass is constrained
    /// to the answers of the passes before it. A star alone (default): the single pass; production:
    /// the Bureau's redistricting ordering (root and blocks in one pass, every geolevel between the
    /// total first, then the rest)
    #[arg(long, value_name = "SPEC", default_value = "*")]
    pub passes: String,
    /// Passes of the rounding (detailed: the cellwise rounding, any other query: an L1 penalty on its
    /// answers; each pass keeps the integer answers of the passes before it exactly); default: follow
    /// --passes (every pass but the last rounds its queries' answers, the last rounds cell by cell)
    #[arg(long, value_name = "SPEC")]
    pub rounder_passes: Option<String>,
    /// Structural zeros to enforce (none, nurse-nva, ATTR=V&ATTR=V;…); default: the run's manifest's
    #[arg(long, value_name = "SPEC")]
    pub structural_zeros: Option<String>,
    /// Solve the US and the states first, then each state's subtree on its own, reading only its
    /// measurements (bounded memory, the same estimates byte for byte); auto: for runs of 100,000
    /// blocks or more
    #[arg(long, value_enum, default_value = "auto")]
    pub by_state: ByState,
    /// Output format: table (for reading), csv or json
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ByState {
    Auto,
    Always,
    Never,
}

pub fn run_accuracy(a: TopdownAccuracyArgs) -> Fallible<String> {
    let mut sp = Spine::from_path(&a.geography)?;
    if a.bypass == Bypass::PureDp {
        return fallible!(
            Input,
            "topdown accuracy takes --bypass none or zcdp (pure-dp needs the geolevel shares: topdown spine --shares, topdown measure)"
        );
    }
    sp.apply_bypass(a.bypass);
    if a.trials < 2 || a.trials > 10_000_000 {
        return fallible!(Input, "--trials must be between 2 and 10000000");
    }
    if a.postprocess {
        return run_pp_accuracy(a, &sp);
    }
    let mut settings: Vec<(String, Vec<Rational>)> = Vec::new();
    let parse_list = |l: &[&str]| -> Fallible<Vec<Rational>> {
        l.iter()
            .map(|s| {
                let v = parse_rational(s.trim()).map_err(|e| e.context("sigma2"))?;
                if v <= 0 {
                    return fallible!(Input, "sigma2 must be positive");
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
                o => return fallible!(Input, "unknown --noise '{o}' (bureau, reduced)"),
            }
        }
    }
    for (name, s) in &settings {
        if s.len() != sp.n_levels() {
            return fallible!(Input, "noise '{name}' gives {} geolevel variances but the spine has {} geolevels", s.len(), sp.n_levels());
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
            rows.push(crate::record::row(&AccuracyRow {
                noise: name.clone(),
                kind: row.group.clone(),
                name: row.name.clone(),
                count: row.count.to_string(),
                osed_mean: format!("{:.3}", row.mean_osed),
                mse_closed_form: format!("{:.6}", row.mse_closed),
                mse_simulated: format!("{:.6}", row.mse_sim),
                mc_se: format!("{:.6}", row.mse_sim_se),
                z: format!("{:.2}", row.z()),
                mse_nonneg_simulated: format!("{:.6}", row.mse_nonneg_sim),
            })?);
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
/// `--out` must not be one of the run's own files (measurements, manifest, geography, invariants,
/// completion marker): compared as files (device and inode), so a relative path, `..` or a link to
/// one of them is caught too.
fn refuse_overwriting_inputs(
    out: &std::path::Path,
    run: &std::path::Path,
    m: &crate::topdown::measurement::measure::TopdownManifest,
) -> Fallible<()> {
    let Ok(o) = std::fs::metadata(out) else { return Ok(()) };
    let mut inputs: Vec<PathBuf> = crate::topdown::measurement::rundir::MEASURE_FILES.iter().map(|f| run.join(f)).collect();
    inputs.push(run.join(&m.measurements_file));
    inputs.push(run.join(crate::rundir::MARKER));
    let canon = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    for p in inputs {
        if let Ok(i) = std::fs::metadata(&p) {
            if same_file(&o, &i) || (canon(out).is_some() && canon(out) == canon(&p)) {
                return fallible!(
                    Input,
                    "--out '{}' is the run's own {}: write the estimates to another file (e.g. {})",
                    out.display(),
                    p.display(),
                    run.join("estimates.csv").display()
                );
            }
        }
    }
    if o.is_dir() {
        return fallible!(Input, "--out '{}' is a directory: name the CSV file to write", out.display());
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

pub(super) fn run_postprocess(a: PostprocessArgs) -> Fallible<String> {
    let delta = parse_delta(&a.delta)?;
    let prec = a.prec.map(check_prec).transpose()?;
    let t0 = std::time::Instant::now();
    use crate::topdown::estimation::passes::{resolve, PassSpec};
    let l2_spec = PassSpec::parse(&a.passes).map_err(|e| e.context("--passes"))?;
    let round_spec = a.rounder_passes.as_deref().map(PassSpec::parse).transpose().map_err(|e| e.context("--rounder-passes"))?;
    use crate::topdown::estimation::by_state;
    use crate::topdown::estimation::load::{load_head, read_run_measurements};
    let (mut run, m, entry_at) = load_head(&a.run, false)?;
    refuse_overwriting_inputs(&a.out, &a.run, &m)?;
    if let Some(z) = &a.structural_zeros {
        run.cons.structural_zero = crate::topdown::estimation::constraints::parse_structural_zeros(z, &run.schema)?;
    }
    let passes = resolve(&run, &l2_spec, round_spec.as_ref())?;
    let split = match a.by_state {
        ByState::Always if !by_state::splittable(&run.spine) => {
            return fallible!(Input, "--by-state always needs a geolevel below the states (the root's children)");
        }
        ByState::Always => true,
        ByState::Never => false,
        ByState::Auto => by_state::splittable(&run.spine) && run.spine.blocks.len() >= 100_000,
    };
    let (stats, rows, t_load, t_solve) = if split {
        let t_load = t0.elapsed().as_secs_f64();
        let (stats, rows) = by_state::postprocess_by_state(&a.run, &run, &m, &entry_at, &passes, &a.out)?;
        (stats, rows, t_load, t0.elapsed().as_secs_f64() - t_load)
    } else {
        read_run_measurements(&a.run, &m, &entry_at, &mut run)?;
        let t_load = t0.elapsed().as_secs_f64();
        let (est, stats) = crate::topdown::estimation::postprocess::postprocess_with(&run, Some(&passes))?;
        let t_solve = t0.elapsed().as_secs_f64() - t_load;
        let rows = write_streamed(&a.out, |w| crate::topdown::estimation::postprocess::write_estimates(&run, &est, w))?;
        (stats, rows, t_load, t_solve)
    };
    let secs = t0.elapsed().as_secs_f64();
    let n_inv = run.invariant.iter().filter(|&&t| t >= 0).count();
    let zeros = run.cons.structural_zero.iter().filter(|&&z| z).count();
    let mut r = EstimateRow {
        allocation: m.allocation.clone(),
        geounits: run.spine.n_units().to_string(),
        blocks: run.spine.blocks.len().to_string(),
        cells: run.schema.cells().to_string(),
        parents_solved: stats.solved.to_string(),
        parents_copied: stats.copied.to_string(),
        by_state: if split { "yes: the US and states first, then each state's subtree on its own" } else { "no" }.into(),
        invariants: n_inv.to_string(),
        group_invariants: (!run.cons.groups.is_empty()).then(|| run.cons.groups.len().to_string()),
        passes: describe_passes(&run, &passes),
        structural_zero_cells: zeros.to_string(),
        gq_bounds: if run.cons.units.is_empty() { "none" } else { "every geounit (units.csv)" }.into(),
        checked: "non-negative integers; every parent = sum of its children in every cell; invariants exact; structural zeros, group-quarters bounds and group invariants held".into(),
        rows: rows.to_string(),
        out: a.out.display().to_string(),
        seconds_read: format!("{t_load:.2}"),
        seconds_solve: format!("{t_solve:.2}"),
        seconds: format!("{secs:.2}"),
        ..EstimateRow::default()
    };
    // the guarantee: post-processing of the measurements does not change it
    match certify(&m, &delta, prec) {
        Ok(c) => {
            r.delta = Some(a.delta.trim().into());
            r.epsilon_lo = Some(fmt_down(c.epsilon.lo(), 20));
            r.epsilon_hi = Some(fmt_up(c.epsilon.hi(), 20));
            r.epsilon_method = Some(c.epsilon.describe());
            r.privacy = "unchanged by post-processing: the output is a function of the noisy measurements (certified epsilon above), the public geography and the invariants; the invariants are published exactly, outside the guarantee".into();
        }
        Err(e) => r.privacy = format!("NOT CERTIFIED: {e}"),
    }
    Ok(crate::record::row(&r)?.render(a.format))
}

/// The summary of `topdown estimate` (`None`: a field that does not apply is left out).
#[derive(Serialize, Default)]
struct EstimateRow {
    allocation: String,
    geounits: String,
    blocks: String,
    cells: String,
    parents_solved: String,
    parents_copied: String,
    by_state: String,
    invariants: String,
    group_invariants: Option<String>,
    passes: String,
    structural_zero_cells: String,
    gq_bounds: String,
    checked: String,
    rows: String,
    out: String,
    seconds_read: String,
    seconds_solve: String,
    seconds: String,
    delta: Option<String>,
    epsilon_lo: Option<String>,
    epsilon_hi: Option<String>,
    epsilon_method: Option<String>,
    privacy: String,
}

/// One row of `topdown accuracy`: a geographic level's or group's mean squared errors, closed form and simulated.
#[derive(Serialize)]
struct AccuracyRow {
    noise: String,
    kind: String,
    name: String,
    count: String,
    osed_mean: String,
    mse_closed_form: String,
    mse_simulated: String,
    mc_se: String,
    z: String,
    mse_nonneg_simulated: String,
}

fn run_pp_accuracy(a: TopdownAccuracyArgs, sp: &Spine) -> Fallible<String> {
    use crate::topdown::analysis::pp_accuracy::{dhc_settings, render, simulate};
    if a.trials > 100_000 {
        return fallible!(Input, "--trials (noise draws) with --postprocess must be at most 100000");
    }
    let schema = Schema::parse(&a.schema)?;
    let alloc = Allocation::from_toml(include_str!("../../../data/allocations/dhc-2022-08-25.toml"))?;
    let all = dhc_settings(&alloc)?;
    let mut settings = Vec::new();
    if let Some(s) = &a.sigma2 {
        let v: Vec<Rational> = s.split(',').map(|x| parse_rational(x.trim()).map_err(|e| e.context("sigma2"))).collect::<Result<_, _>>()?;
        if v.iter().any(|x| *x <= 0) {
            return fallible!(Input, "sigma2 must be positive");
        }
        settings.push(("custom".to_string(), v));
    } else {
        for n in a.noise.split(',') {
            let n = n.trim();
            let s = all.iter().find(|(k, _)| k == n).ok_or_else(|| err!(Input, "unknown --noise '{n}' (bureau, reduced, uniform)"))?;
            settings.push(s.clone());
        }
    }
    for (name, s) in &settings {
        if s.len() != sp.n_levels() {
            return fallible!(Input, "noise '{name}' gives {} geolevel variances but the spine has {} geolevels", s.len(), sp.n_levels());
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
            for (k, v) in csv.lines().next().expect("invariant: the CSV has a header line").split(',').zip(l.split(',')) {
                r.push(k, v.to_string());
            }
            r
        })
        .collect();
    Ok(render_rows(&recs, a.format))
}

/// The passes per geolevel, e.g. `US: 1; State..Tract: total | rest (rounding: total | cells); Block: 1`.
fn describe_passes(run: &crate::topdown::estimation::run::RunData, passes: &[crate::topdown::estimation::passes::LevelPasses]) -> String {
    let one = |l: usize| -> String {
        let lp = &passes[l];
        if lp.is_single() {
            return "1 pass".into();
        }
        let l2: Vec<String> = lp.l2.iter().map(|p| p.iter().map(|&q| run.queries[q].name.clone()).collect::<Vec<_>>().join(", ")).collect();
        let rd: Vec<String> = lp
            .rounding
            .iter()
            .map(|p| {
                let mut v: Vec<String> = p.penalties.iter().map(|q| q.name.clone()).collect();
                if p.cellwise {
                    v.push("cells".into());
                }
                v.join(", ")
            })
            .collect();
        format!("{} (rounding: {})", l2.join(" | "), rd.join(" | "))
    };
    let mut out: Vec<String> = Vec::new();
    let mut l = 0;
    let nl = passes.len();
    while l < nl {
        let d = one(l);
        let mut e = l;
        while e + 1 < nl && one(e + 1) == d {
            e += 1;
        }
        let name = if e == l { run.spine.levels[l].clone() } else { format!("{}..{}", run.spine.levels[l], run.spine.levels[e]) };
        out.push(format!("{name}: {d}"));
        l = e + 1;
    }
    out.join("; ")
}
