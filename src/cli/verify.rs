//! `tightdp verify`: recompute every published number in data/published.csv and give a verdict.

use crate::app::recompute::{known, Ctx};
use crate::app::verify::{judge, load, show};
use crate::cli::common::check_prec;
use crate::error::Fallible;
use crate::num::DEFAULT_PREC;
use crate::record::{render_csv, render_rows};
use crate::record::{Format, Record};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Published-values file (default: <data>/published.csv)
    #[arg(long, value_name = "FILE")]
    pub published: Option<PathBuf>,
    /// Directory holding the data (allocations, published values); default: the copy built into tightdp
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Directory of the user's downloaded extracts (NHGIS, ACS) for the rows that need data
    /// (default: <data>/extracts, or data/extracts when present without --data)
    #[arg(long, value_name = "DIR")]
    pub extracts: Option<PathBuf>,
    /// Also write verification.csv into this directory (by default verify writes nothing)
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write nothing (the default; kept for scripts)
    #[arg(long, hide = true, conflicts_with = "out")]
    pub no_write: bool,
    /// Output format of the printed table
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Expert override of the MPFR working precision in bits
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC)]
    pub prec: u32,
    /// Print each row's wall time to stderr (where the time goes; rows run side by side)
    #[arg(long)]
    pub timings: bool,
    /// Verify the registry of public deployments (<data>/deployments/*.toml) instead: stated vs exact
    /// epsilon, verdicts, attack risk; with --out also deployments.csv and deployment-certificates.csv
    #[arg(long, conflicts_with = "published")]
    pub deployments: bool,
}

/// `verify --deployments`: every deployment of the registry, evaluated (rows: Census products first);
/// returns (deployment rows, certificate rows, figure points).
pub fn deployment_rows(data: &Path) -> Fallible<(Vec<Record>, Vec<Record>, Vec<crate::app::deployments::DeploymentPoint>)> {
    let deps = crate::app::deployment_registry::load_dir(&data.join("deployments"))?;
    let done = crate::app::deployments::evaluate_all(&deps, data)?;
    let mut rows = Vec::new();
    let mut certs = Vec::new();
    let mut points = Vec::new();
    for e in done {
        rows.push(e.row);
        certs.extend(e.certificates);
        points.push(e.point);
    }
    Ok((rows, certs, points))
}

fn run_deployments(a: &VerifyArgs, data: &Path) -> Fallible<Verified> {
    let (rows, certs, _) = deployment_rows(data)?;
    if let Some(out) = &a.out {
        // both files or neither (and no folder this run created)
        let (d, c) = (render_csv(&rows), render_csv(&certs));
        crate::record::write_all_atomic(out, &[("deployments.csv", d.as_bytes()), ("deployment-certificates.csv", c.as_bytes())])?;
    }
    let shown: Vec<Record> = if a.format == Format::Table {
        rows.iter()
            .map(|r| {
                let mut x = Record::new();
                for k in ["id", "stated_epsilon", "delta", "eps_exact_hi", "digits", "verdict"] {
                    x.push(k, r.get(k).unwrap_or("").to_string());
                }
                x
            })
            .collect()
    } else {
        rows.clone()
    };
    let n_opt = rows.iter().filter(|r| r.get("verdict") == Some("stated guarantee too optimistic")).count();
    let n_cannot = rows.iter().filter(|r| r.get("verdict").is_some_and(|v| v.starts_with("stated, not recomputable"))).count();
    let summary = format!("{} deployments: {} too optimistic, {} stated, not recomputable", rows.len(), n_opt, n_cannot);
    Ok(Verified::of(render_rows(&shown, a.format), a.format, summary, 0))
}

/// What `verify` prints: the rows on stdout, its summary line below a table or (CSV, JSON) on stderr,
/// and the exit status (1 when a row differs unexplained).
pub struct Verified {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Verified {
    fn of(mut stdout: String, format: Format, summary: String, code: i32) -> Verified {
        let mut stderr = String::new();
        if format == Format::Table {
            stdout.push_str(&format!("\n{summary}\n"));
        } else {
            stderr = format!("{summary}\n");
        }
        Verified { stdout, stderr, code }
    }
}

/// Run verification; returns (rows, summary line, has_unexplained). With the user's extracts (NHGIS, ACS)
/// in `extracts`: rows of quantities that need
/// them are recomputed when they are there, and judged `needs-data` otherwise.
pub fn verify_rows_with(published: &Path, data: &Path, extracts: &Path, prec: u32) -> Fallible<(Vec<Record>, String, bool)> {
    verify_rows_timed(published, data, extracts, prec, false)
}

/// As `verify_rows_with`; the rows are recomputed side by side (rayon; each row's value does not depend on
/// the schedule, the table keeps the file's order), and with `timings` each row's wall time goes to stderr.
pub fn verify_rows_timed(
    published: &Path,
    data: &Path,
    extracts: &Path,
    prec: u32,
    timings: bool,
) -> Fallible<(Vec<Record>, String, bool)> {
    use rayon::prelude::*;
    let rows = load(published, &known)?;
    let ctx = Ctx::new(data, prec, crate::num::Arith::DD_BITS);
    let user_data = crate::accuracy::published::Evaluator::new(data, extracts);
    let pb = ProgressBar::new(rows.len() as u64);
    pb.set_style(ProgressStyle::with_template("verify [{bar:30}] {pos}/{len}").expect("invariant: a valid progress template"));
    let done: Vec<Fallible<(Record, String, f64)>> = rows
        .par_iter()
        .with_max_len(1)
        .map(|r| {
            let t = std::time::Instant::now();
            let v = verify_row(r, &ctx, &user_data, published, prec);
            pb.inc(1);
            v.map(|(rec, verdict)| (rec, verdict, t.elapsed().as_secs_f64()))
        })
        .collect();
    pb.finish_and_clear();
    let mut out = Vec::new();
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for (r, d) in rows.iter().zip(done) {
        // the first failing row in the file's order names the error
        let (rec, verdict, secs) = d?;
        if timings {
            eprintln!("verify: {secs:7.3} s  {}", r.id);
        }
        *counts.entry(verdict).or_default() += 1;
        out.push(rec);
    }
    let unexplained = counts.get("differs-unexplained").copied().unwrap_or(0) > 0;
    let summary = format!(
        "{} rows: {} exact, {} rounded-differently, {} differs (explained), {} differs: caption, {} finding, {} differs-unexplained, {} pending, {} needs-data{}",
        out.len(),
        counts.get("exact").unwrap_or(&0),
        counts.get("rounded-differently").unwrap_or(&0),
        counts.get("differs").unwrap_or(&0),
        counts.get("differs: caption").unwrap_or(&0),
        counts.get("finding").unwrap_or(&0),
        counts.get("differs-unexplained").unwrap_or(&0),
        counts.get("pending").unwrap_or(&0),
        counts.get("needs-data").unwrap_or(&0),
        if counts.contains_key("needs-data") {
            format!(" (the paper's own data: put the NHGIS/ACS extracts in {})", extracts.display())
        } else {
            String::new()
        }
    );
    Ok((out, summary, unexplained))
}

/// One published row: recompute it (and its alternative reading), judge it; the record and its verdict.
fn verify_row(
    r: &crate::app::verify::PublishedRow,
    ctx: &Ctx,
    user_data: &crate::accuracy::published::Evaluator,
    published: &Path,
    prec: u32,
) -> Fallible<(Record, String)> {
    let mut rec = Record::new();
    rec.push("id", r.id.clone());
    rec.push("paper", r.paper.clone());
    rec.push("location", r.location.clone());
    rec.push("printed", r.printed.clone());
    let computed = if crate::accuracy::published::handles(&r.quantity) {
        use crate::accuracy::published::Eval;
        match user_data.evaluate(&r.quantity, &r.inputs) {
            Ok(Eval::Value(v)) => Ok(Some(rug::Float::with_val(prec, v))),
            Ok(Eval::NeedsData(why)) => Err(Ok(why)),
            Err(e) => Err(Err(e)),
        }
    } else {
        ctx.compute(&r.quantity, &r.inputs).map_err(Err)
    };
    let (recomputed, mut verdict, mut rule) = match computed {
        Err(Ok(why)) => (String::new(), "needs-data".to_string(), format!("{why} (README: real data)")),
        Err(Err(e)) => return Err(e.context(format!("{} line {}: {}", published.display(), r.line, r.id))),
        Ok(None) => (String::new(), "pending".to_string(), "capability not built yet".to_string()),
        Ok(Some(v)) => {
            let (verdict, rule) = judge(&r.printed, r.rounding, &v);
            (show(&v, r.rounding, &r.printed), verdict, rule)
        }
    };
    let mut alt = String::new();
    if verdict == "differs" {
        if r.explanation.is_empty() {
            verdict = "differs-unexplained".into();
        } else {
            rule = r.explanation.clone();
            // a row that recomputes the printed number under a reading the paper did not print, to record
            // what the exact computation gives instead: a finding, not a failed reproduction
            if r.explanation.starts_with("finding:") {
                verdict = "finding".into();
            }
        }
        if !r.alt_inputs.is_empty() {
            let mut m = r.inputs.clone();
            for (k, v) in &r.alt_inputs {
                m.insert(k.clone(), v.clone());
            }
            match ctx.compute(&r.quantity, &m) {
                Ok(Some(v)) => {
                    let (v2, _) = judge(&r.printed, r.rounding, &v);
                    let reproduces = v2 == "exact" || v2 == "rounded-differently";
                    let tag = if reproduces { "reproduces" } else { "does not reproduce" };
                    alt = format!("{} with {} ({tag})", show(&v, r.rounding, &r.printed), fmt_kv(&r.alt_inputs));
                    // a printed number that reproduces only under another reading than the paper's
                    // caption states is a finding of its own
                    if reproduces && verdict == "differs" && r.explanation.starts_with("caption:") {
                        verdict = "differs: caption".into();
                    }
                }
                Ok(None) => {}
                Err(e) => return Err(e.context(format!("{} line {}: {}: alt_inputs", published.display(), r.line, r.id))),
            }
        }
    } else if verdict == "rounded-differently" && !r.explanation.is_empty() {
        rule = format!("{rule}; {}", r.explanation);
    }
    rec.push("recomputed", recomputed);
    rec.push("verdict", verdict.clone());
    rec.push("reason", rule);
    rec.push("alternative", alt);
    Ok((rec, verdict))
}

fn fmt_kv(m: &std::collections::BTreeMap<String, String>) -> String {
    m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

pub fn run(a: VerifyArgs) -> Fallible<Verified> {
    let prec = check_prec(a.prec)?;
    let (data, _unpacked) = crate::cli::builtin_data::data_dir(&a.data)?;
    let extracts = match (&a.extracts, &a.data) {
        (Some(e), _) => e.clone(),
        (None, Some(d)) => d.join("extracts"),
        // without --data, the user's extracts where the repository keeps them (read only)
        (None, None) => PathBuf::from("data/extracts"),
    };
    if a.deployments {
        return run_deployments(&a, &data);
    }
    let published = a.published.clone().unwrap_or_else(|| data.join("published.csv"));
    let (rows, summary, unexplained) = verify_rows_timed(&published, &data, &extracts, prec, a.timings)?;
    if let Some(out) = &a.out {
        crate::record::write_all_atomic(out, &[("verification.csv", render_csv(&rows).as_bytes())])?;
    }
    let shown: Vec<Record> = if a.format == Format::Table {
        rows.iter()
            .map(|r| {
                let mut x = Record::new();
                for k in ["id", "printed", "recomputed", "verdict"] {
                    x.push(k, r.get(k).unwrap_or("").to_string());
                }
                x
            })
            .collect()
    } else {
        rows.clone()
    };
    Ok(Verified::of(render_rows(&shown, a.format), a.format, summary, if unexplained { 1 } else { 0 }))
}
