//! `tightdp reproduce`: the main job — every table, figure and the verification, into one directory.
//! Everything is computed first and written at the end (atomically per file): a failure writes nothing.

use crate::app::calibration::Conversion;
use crate::app::calibration::{level_brackets, rows_of_brackets};
use crate::app::tables;
use crate::census::Allocation;
use crate::cli::common::check_prec;
use crate::err;
use crate::error::Fallible;
use crate::num::{parse_rational, DEFAULT_PREC};
use crate::plots::figures;
use crate::record::{render_csv, write_atomic};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Output directory
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,
    /// Directory holding the data (allocations, published values, SafeTab and TopDown inputs); default: the
    /// copy built into tightdp
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Expert override of the MPFR working precision in bits of the per-level tables
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC)]
    pub prec: u32,
    /// Expert override of the working precision for the overall (80-query) compositions behind figures and curves (106: the
    /// double-double engine with its rigorous bound; any other value: MPFR at that many bits)
    #[arg(long, value_name = "BITS", default_value_t = crate::num::Arith::DD_BITS)]
    pub overall_prec: u32,
    /// Skip figures (tables only)
    #[arg(long)]
    pub no_figures: bool,
    /// Only the fast per-level tables (a smoke test of the pipeline; implies --no-figures)
    #[arg(long)]
    pub quick: bool,
    /// Replace a non-empty --out that does not hold an earlier run of the same `reproduce` command
    #[arg(long)]
    pub force: bool,
    /// Print each step's wall time to stderr (where the time goes)
    #[arg(long)]
    pub timings: bool,
}

pub fn run(a: ReproduceArgs) -> Fallible<String> {
    // All or nothing: everything is written into a staging directory beside --out and swapped into
    // place at the end with its completion marker; an interrupted or failed run leaves --out as it was.
    let command = if a.quick {
        "reproduce --quick"
    } else if a.no_figures {
        "reproduce --no-figures"
    } else {
        "reproduce"
    };
    // the data: --data DIR, or the copy built into tightdp (unpacked for the run, removed after); the user's
    // extracts (rows of verification.csv that need them) under <data>/extracts, or data/extracts without --data
    let (data, _unpacked) = crate::cli::builtin_data::data_dir(&a.data)?;
    let extracts = a.data.as_ref().map_or_else(|| PathBuf::from("data/extracts"), |d| d.join("extracts"));
    let run = crate::rundir::RunDir::begin(&a.out, command, a.force)?;
    let staged = format!("{}/", run.path().display());
    let log = build(&a, &data, &extracts, run.path())?;
    run.commit()?;
    // the log names the files where they now are
    Ok(log.replace(&staged, &format!("{}/", a.out.display())))
}

fn build(a: &ReproduceArgs, data: &Path, extracts: &Path, out: &Path) -> Fallible<String> {
    let prec = check_prec(a.prec)?;
    let oprec = check_prec(a.overall_prec)?;
    let alloc = Allocation::from_path(&data.join("allocations/dhc-2022-08-25.toml"))?;
    let progress = Progress::new(a.timings);
    let step = |m: &str| progress.step(m);
    let deltas = vec![
        parse_rational("1e-11").expect("invariant: a decimal constant"),
        parse_rational("1e-5").expect("invariant: a decimal constant"),
    ];
    // Tables first, all in memory.
    step("per-level epsilons");
    let geo = tables::geolevel_epsilons(&alloc, &deltas, prec)?;
    step("Table 1 calibration");
    let t1_brackets = level_brackets(&alloc, &deltas[0], Conversion::ZcdpBs, &None, prec)?;
    let t1 = rows_of_brackets(&alloc, &t1_brackets);
    // the attack table's per-level reduced noise is this calibration (at its precision): shared, not redone
    let t1_factors: Vec<_> = t1_brackets.into_iter().map(|(_, br)| br).collect();
    let t1_for_attack = (prec == crate::app::attack_table::TABLE1_PREC).then_some(t1_factors.as_slice());
    if a.quick {
        let files = [(out.join("geolevel-epsilons.csv"), render_csv(&geo)), (out.join("table1-calibration.csv"), render_csv(&t1))];
        let log = write_files(&files)?;
        progress.pb.finish_and_clear();
        return Ok(log);
    }
    step("exact accuracy of released counts");
    let acc = crate::app::production::accuracy_table(&alloc, &t1)?;
    step("overall composition, production certificates and calibration, attack risk, verification (in parallel)");
    let h = heavy_tables(&progress, &alloc, data, extracts, prec, oprec, t1_for_attack)?;
    // the Bureau's curves and the summary's arithmetic in MPFR, at least 128 bits whatever the engine
    let (ov, ovs) = crate::app::production::overall_tables(&alloc, &h.od, oprec.max(128))?;
    step("SafeTab-P suppression: Figures 1-2 data");
    let stp_curves = crate::tabulation::suppression::table6_curves(128)?;
    let files: Vec<(PathBuf, String)> = vec![
        (out.join("geolevel-epsilons.csv"), render_csv(&geo)),
        (out.join("table1-calibration.csv"), render_csv(&t1)),
        (out.join("accuracy-counts.csv"), acc),
        (out.join("overall-profile.csv"), ov),
        (out.join("overall-summary.csv"), ovs),
        (out.join("production-certificates.csv"), h.prod.clone()),
        (out.join("production-calibration.csv"), h.pcal.clone()),
        (out.join("verification.csv"), render_csv(&h.vrows)),
        (out.join("deployments.csv"), render_csv(&h.dep_rows)),
        (out.join("deployment-certificates.csv"), render_csv(&h.dep_certs)),
        (out.join("attack-risk.csv"), render_csv(&h.attack_rows)),
        (out.join("safetab-p-suppression.csv"), crate::tabulation::suppression::render_csv(&stp_curves)),
        (out.join("README.md"), results_readme(!a.no_figures) + &crate::cli::reproduce_realdata::readme_section(!a.no_figures)),
    ];
    let mut log = write_files(&files)?;
    // Figures, the disclosure-risk data and the TopDown simulations are independent: side by side.
    let figures_part = || -> Fallible<String> {
        if a.no_figures {
            return Ok(String::new());
        }
        let mut log = wrote(production_figures(out, &h, &stp_curves)?);
        log += &wrote(figures::write_all(&alloc, out, prec, &h.od, &step)?);
        Ok(log)
    };
    let risk_part = || -> Fallible<String> {
        if a.no_figures {
            return Ok(String::new());
        }
        step("disclosure-risk figure data (Kazan-Reiter)");
        let mut log = wrote(crate::risk::figures::figure_data(&out.join("risk"))?);
        log += &wrote(crate::plots::csvplot::risk_figures(&out.join("risk"))?);
        step("Figures 6, 8, 9 on the synthetic extracts");
        log += &wrote(crate::cli::reproduce_realdata::synthetic(data, out)?);
        Ok(log)
    };
    let topdown_part = || topdown_tables(data, out, !a.no_figures, &step);
    let (l1, (l2, l3)) = rayon::join(figures_part, || rayon::join(risk_part, topdown_part));
    log += &l1?;
    log += &l2?;
    log += &l3?;
    step("SafeTab (race & ethnicity), geometric noise, on synthetic persons");
    log += &wrote(safetab_example(data, out)?);
    step("done");
    progress.finish();
    log += &format!("verify: {}\n", h.vsummary);
    Ok(log)
}

/// The spinner of `reproduce` and, with `--timings`, each step's wall time on stderr (progress only: no
/// result depends on it).
struct Progress {
    pb: ProgressBar,
    timings: bool,
    started: std::time::Instant,
    /// when the current step began, and its name
    last: std::sync::Mutex<(std::time::Instant, String)>,
}

impl Progress {
    fn new(timings: bool) -> Progress {
        let pb = ProgressBar::new_spinner();
        pb.set_style(ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("invariant: a valid progress template"));
        pb.enable_steady_tick(std::time::Duration::from_millis(120));
        let now = std::time::Instant::now();
        Progress { pb, timings, started: now, last: std::sync::Mutex::new((now, String::from("start"))) }
    }

    fn step(&self, m: &str) {
        if self.timings {
            let mut l = self.last.lock().unwrap_or_else(|e| e.into_inner());
            self.pb.suspend(|| eprintln!("reproduce: {:7.2} s  {}", l.0.elapsed().as_secs_f64(), l.1));
            *l = (std::time::Instant::now(), m.to_string());
        }
        self.pb.set_message(m.to_string())
    }

    /// `f`, with its wall time on stderr under `--timings` (steps that run in parallel).
    fn timed<T>(&self, name: &str, f: impl FnOnce() -> T) -> T {
        let t = std::time::Instant::now();
        let r = f();
        if self.timings {
            self.pb.suspend(|| eprintln!("reproduce: {:7.2} s  ({name}, in parallel)", t.elapsed().as_secs_f64()));
        }
        r
    }

    fn finish(&self) {
        if self.timings {
            eprintln!("reproduce: {:7.2} s  in all", self.started.elapsed().as_secs_f64());
        }
        self.pb.finish_and_clear();
    }
}

/// SafeTab-P's suppression curves of one setting ([HBC25, Table 6]).
type SuppressionCurve = (crate::tabulation::suppression::Setting, Vec<crate::tabulation::suppression::SuppressionPoint>);

/// The independent heavy computations of `reproduce`, run side by side (rayon; each is deterministic, so
/// the files do not depend on the schedule).
struct HeavyTables {
    od: crate::app::figure_data::OverallData,
    prod: String,
    prod_plot: Vec<(String, [f64; 3])>,
    pcal: String,
    attack_rows: Vec<crate::record::Record>,
    vrows: Vec<crate::record::Record>,
    vsummary: String,
    dep_rows: Vec<crate::record::Record>,
    dep_certs: Vec<crate::record::Record>,
    dep_points: Vec<crate::app::deployments::DeploymentPoint>,
}

fn heavy_tables(
    p: &Progress,
    alloc: &Allocation,
    data: &Path,
    extracts: &Path,
    prec: u32,
    oprec: u32,
    t1_for_attack: Option<&[crate::calibrate::Calibration]>,
) -> Fallible<HeavyTables> {
    let ((od, (prod, pcal)), (attack_rows, (verified, deps))) = rayon::join(
        || {
            rayon::join(
                || p.timed("overall composition", || crate::app::figure_data::overall_data(alloc, oprec)),
                || {
                    rayon::join(
                        || p.timed("production certificates", || crate::app::production::production_certificates(data)),
                        || p.timed("production calibration", || crate::app::production::production_calibration(data)),
                    )
                },
            )
        },
        || {
            rayon::join(
                || p.timed("attack risk", || crate::app::attack_table::attack_risk_with(alloc, t1_for_attack)),
                || {
                    rayon::join(
                        || {
                            p.timed("verification", || {
                                crate::cli::verify::verify_rows_with(&data.join("published.csv"), data, extracts, prec)
                            })
                        },
                        || p.timed("deployments", || crate::cli::verify::deployment_rows(data)),
                    )
                },
            )
        },
    );
    let od = od?;
    let (prod, prod_plot) = prod?;
    let (vrows, vsummary, _) = verified?;
    let (dep_rows, dep_certs, dep_points) = deps?;
    Ok(HeavyTables { od, prod, prod_plot, pcal: pcal?, attack_rows: attack_rows?, vrows, vsummary, dep_rows, dep_certs, dep_points })
}

/// What the 2020 Census production releases spent (zCDP-implied ε against exact, δ = 1e-10), the
/// deployments, the attack risk per level and SafeTab-P's suppression figures.
fn production_figures(out: &Path, h: &HeavyTables, stp_curves: &[SuppressionCurve]) -> Fallible<Vec<PathBuf>> {
    let cats: Vec<String> = h
        .prod_plot
        .iter()
        .map(|(n, _)| {
            n.replace("Redistricting persons 2021", "Redistricting 2021")
                .replace("Redistricting 2021 + DHC persons 2023", "Redistr. + DHC persons")
        })
        .collect();
    let groups: Vec<(String, plotters::style::RGBColor, Vec<f64>)> = [
        ("zCDP, Bun–Steinke", crate::plots::plot::BUREAU),
        ("zCDP, Canonne–Kamath–Steinke", plotters::style::RGBColor(245, 150, 150)),
        ("exact f-DP (certified)", crate::plots::plot::EXACT),
    ]
    .iter()
    .enumerate()
    .map(|(i, (n, c))| (n.to_string(), *c, h.prod_plot.iter().map(|(_, v)| v[i]).collect()))
    .collect();
    let mut files = crate::plots::plot::bar_figure_opts(
        "What the 2020 Census production releases spent: ε at δ = 1e-10",
        "privacy loss ε at δ = 1e-10",
        &cats,
        &groups,
        &out.join("production-epsilons"),
        &crate::plots::plot::BarOpts { x_label: "2020 Census production release".into(), percent_log: false },
    )?;
    files.extend(crate::plots::deployments::figure(&h.dep_points, &out.join("deployments-epsilon"))?);
    files.extend(crate::plots::attack::figure(&h.attack_rows, &out.join("attack-risk-levels"))?);
    files.extend(crate::plots::safetab_p::fig1(stp_curves, &out.join("safetab-p-fig1-suppression"))?);
    files.extend(crate::plots::safetab_p::fig2(stp_curves, &out.join("safetab-p-fig2-bias"))?);
    Ok(files)
}

/// TopDown's post-processing accuracy (simulated, dhc-small; its figure unless `figures` is false) and
/// the closed form against the simulation.
fn topdown_tables(data: &Path, out: &Path, figures: bool, step: &(dyn Fn(&str) + Sync)) -> Fallible<String> {
    step("TopDown post-processing accuracy (simulated, dhc-small)");
    let rows = crate::topdown::pp_accuracy::bundled_results(data, 50)?;
    let path = out.join("topdown-postprocess-accuracy.csv");
    write_atomic(&path, crate::topdown::pp_accuracy::render(&rows).as_bytes())?;
    let mut files = vec![path];
    if figures {
        files.extend(crate::plots::topdown::mae_figure(&rows, 50, &out.join("topdown-postprocess-mae"))?);
    }
    step("TopDown accuracy, closed form vs simulation (dhc-small)");
    // the README's `tightdp topdown accuracy --geography data/topdown/dhc-small.csv --trials 4000`
    #[derive(clap::Parser)]
    struct W {
        #[command(flatten)]
        a: crate::cli::topdown::TopdownAccuracyArgs,
    }
    let geo = data.join("topdown/dhc-small.csv");
    let w = <W as clap::Parser>::try_parse_from([
        "accuracy",
        "--geography",
        geo.to_str().ok_or_else(|| err!(Input, "non-UTF-8 data path"))?,
        "--trials",
        "4000",
        "--format",
        "csv",
    ])
    .map_err(|e| err!(Internal, "{e}"))?;
    let path = out.join("topdown-accuracy-dhc-small.csv");
    write_atomic(&path, crate::cli::topdown::run_accuracy(w.a)?.as_bytes())?;
    files.push(path);
    Ok(wrote(files))
}

/// Write each (path, body) atomically; the log's "wrote …" lines.
fn write_files(files: &[(PathBuf, String)]) -> Fallible<String> {
    let mut log = String::new();
    for (path, body) in files {
        write_atomic(path, body.as_bytes())?;
        log += &format!("wrote {}\n", path.display());
    }
    Ok(log)
}

/// The log's "wrote …" lines for files already written.
fn wrote(files: impl IntoIterator<Item = PathBuf>) -> String {
    files.into_iter().map(|f| format!("wrote {}\n", f.display())).collect()
}

/// `tightdp safetab` with the shipped geometric configuration (RE Table 4 budgets) on 5 000 synthetic
/// persons (`tightdp synth --states 2 --counties 3 --tracts 6 --blocks 2 --seed 4`, seeded noise 7),
/// and `tightdp certify` of its manifest at δ = 1e-10 (about 1.3 s in all). The synthetic inputs are
/// written inside the staging directory and removed before the commit.
fn safetab_example(data: &std::path::Path, out: &std::path::Path) -> Fallible<Vec<PathBuf>> {
    use crate::tabulation::safetab_spec::{Geography, Iterations};
    let input = out.join(".safetab-input");
    let p = crate::tabulation::synth::SynthParams {
        states: 2,
        counties_per_state: 3,
        tracts_per_county: 6,
        blocks_per_tract: 2,
        persons: 5000,
        seed: 4,
        codes: None,
        state_codes: None,
        puerto_rico: false,
    };
    crate::tabulation::synth::synth(&p, &input, false)?;
    let cfg = crate::tabulation::safetab::ReConfig::from_path(&data.join("safetab/safetab-geometric.toml"))?;
    let its = Iterations::load(&data.join("safetab/iterations-re.txt"), &data.join("safetab/race-codes.txt"))?;
    let geo = Geography::load(&input.join("geography.txt"))?;
    let dir = out.join("safetab-geometric");
    std::fs::create_dir_all(&dir).map_err(|e| err!(Io, "cannot create '{}': {e}", dir.display()))?;
    let (_, m) = crate::tabulation::safetab::run(&cfg, &its, &geo, &input.join("persons.csv"), &dir, Some(7), false)?;
    std::fs::remove_dir_all(&input).map_err(|e| err!(Io, "cannot remove '{}': {e}", input.display()))?;
    let cert = crate::tabulation::manifest::certify(&m, &parse_rational("1e-10")?, None)?;
    let cpath = out.join("safetab-geometric-certificate.csv");
    write_atomic(&cpath, render_csv(&cert).as_bytes())?;
    Ok(["t1.txt", "t2.txt", "moe.csv", "manifest.json"].iter().map(|f| dir.join(f)).chain([cpath]).collect())
}

fn results_readme(figs: bool) -> String {
    let mut s = String::from(
        "# results/\n\nRegenerated by `tightdp reproduce` (`./scripts/reproduce.sh`). Do not edit by hand.\n\
Allocation: `data/allocations/dhc-2022-08-25.toml` (census-2020-more-private-fdp.txt Tables 1 and 3), add/remove neighbours.\n\n\
## Tables\n\n| file | content | source |\n|---|---|---|\n\
| geolevel-epsilons.csv | per level, δ ∈ {1e-11, 1e-5}: σ², Bureau ε, certified exact ε, reduction % | §3.1, Figure 3 |\n\
| table1-calibration.csv | per level: reduced σ² bracket so that exact ε(1e-11) = Bureau ε | Table 1 |\n\
| accuracy-counts.csv | exact MSE/MAE of a released count, with/without max(0,·), Bureau vs reduced σ² | Figures 6, 8 |\n\
| overall-profile.csv | overall δ(ε) (80 queries): Bureau, exact (certified, both terms), uniform reductions | Figure 7, §3.3 |\n\
| overall-summary.csv | overall ε at δ = 1e-10, both terms, exact uniform variance reduction vs the paper's 8.59% | §3.3, App. A.6 |\n\
| production-certificates.csv | exact ε at δ = 1e-10 of the 2020 Census production releases next to the zCDP figures | data/allocations/ (the Bureau's production configurations and certificates, cited in each file's header), SafeTab-P Table 7 |\n\
| production-epsilons | bar chart of production-certificates.csv: Bun–Steinke, CKS and exact ε per release | data/allocations/ (the Bureau's production configurations and certificates, cited in each file's header) |\n\
| production-calibration.csv | one variance factor per production release keeping its zCDP-implied ε (CKS, Bun–Steinke) exactly: the noise it did not need | data/allocations/ (the Bureau's production configurations and certificates, cited in each file's header) |\n\
| verification.csv | every published number of the five papers, recomputed, with a verdict | data/published.csv |\n\
| deployments.csv | every deployment of the registry: stated guarantee, exact certified ε at the stated δ, zCDP conversions, difference, verdict, TPR at FPR 1e-3, assumptions, sources (`tightdp verify --deployments`) | data/deployments/, docs/deployments.md |\n\
| deployment-certificates.csv | per Census product and level (and all levels): ρ, Bun–Steinke and CKS ε, exact certified ε at δ = 1e-10 | data/deployments/ |\n\
| deployments-epsilon | bar chart of deployments.csv: stated vs exact ε per deployment recomputed (the stated-only ones are in the CSV), Census products first | data/deployments/ |\n\
| attack-risk.csv | per level and overall: certified TPR of the best membership test at FPR 1e-4, 1e-3, 1e-2, the advantage max(TPR − FPR), the Bayes success at priors 0.5 and 1e-3, next to what the Bureau's zCDP accounting allows, and (columns `*_reduced_hi`) the same attacker against Table 1's reduced noise per level (overall: the §3.3 uniform factor keeping the overall Bureau ε at 1e-11) | Dong–Roth–Su 2022; Kulynych et al. 2024 (src/attack) |\n\
| attack-risk-levels | bar chart of attack-risk.csv: TPR at FPR 1/1000 and advantage per level, exact vs the Bureau's accounting vs Table 1's reduced noise | src/attack |\n\
| topdown-accuracy-dhc-small.csv | TopDown estimates on data/topdown/dhc-small.csv: MSE per geolevel and off-spine aggregate, closed form vs 4000 simulated runs (z-score), Bureau and Table 1 noise | geographic-spines-topdown.txt (`tightdp topdown accuracy --trials 4000`) |\n\
| safetab-p-suppression.csv | per ρ of Table 6 (0.008, 0.159, 0.543; γ = 0.1, s = 9, p = 0.9999) and true count n = 0…2T: σ², T (eq. 12), certified P[suppressed] = P[n + X ≤ T], certified exact bias E[X \\| n + X > T] (also / T), and eq. 13 as printed (continuous-Gaussian formula, not an enclosure) | safetab-p-detailed-dhc-a.txt §5.3.2, eqs. 12–13, Figures 1–2 (src/tabulation/suppression.rs) |\n\
| topdown-postprocess-accuracy.csv | TopDown final counts (L2 + rounding) vs noisy measurements and max(0,·): MAE/MSE per geolevel, cells and totals, Bureau / Table 1 / uniform −12.28% noise, 50 noise draws on data/topdown/dhc-small.csv | geographic-spines-topdown.txt; Abowd et al. 2022 |
| safetab-geometric/ | `tightdp safetab` (RE Alg. 1–4, geometric noise, `data/safetab/safetab-geometric.toml` = RE Table 4 budgets) on 5 000 synthetic persons, seeded (not for release): t1.txt (totals), t2.txt (Sex × Age cells), moe.csv (paper vs exact 95 % MOE per level and count), manifest.json | safetab-detailed-dhc-race-ethnicity.txt |
| safetab-geometric-certificate.csv | `tightdp certify` of that manifest at δ = 1e-10: pure ε 15.29 and the exact ε (worst structure: TotalOnly groups at every level) | RE Theorem 1, Table 2 |
| risk/kr-decisions-pcorrect.csv | P(correct decision) with/without the hierarchy, gain, loss, per prior of Figures 4, 10, 11 and procedure (model as written, paper's sampler), exact sums over the data | kazan-reiter-disclosure-risk.txt §4.3, S4 |\n",
    );
    if figs {
        s.push_str(
            "\n## Figures (PNG, SVG, and the plotted data as CSV)\n\n| stem | figure | source |\n|---|---|---|\n\
| fig02-eps-delta-levels | (ε, δ) curves per level, exact vs Bureau | Figure 2 |\n\
| fig03-eps-bars | ε at δ = 1e-11 and 1e-5 per level | Figure 3 |\n\
| fig04-tradeoff-levels | trade-off functions per level: Bureau, exact, exact with Table 1 noise | Figure 4 |\n\
| fig05-reduced-noise-levels | (ε, δ) curves with Table 1 noise vs the Bureau's (cross at δ = 1e-11) | Figure 5 |\n\
| fig06-accuracy-reduction | exact MSE/MAE reductions per level with Table 1 noise, without and with max(0, ·) (true count 1) | Figure 6 (the paper's are Monte Carlo on PA 2010 counts) |\n\
| fig07-overall-eps-delta | overall (ε, δ) curves: Bureau, exact, 8.59% and exact uniform reductions | Figure 7 |\n\
| fig08-block-mse | exact block-level MSE of max(0, y + X) against the true count y, Bureau vs Table 1 noise | Figure 8 (the paper's are by race group on PA 2010 blocks) |\n\
| fig10-local-clt | pmf of Sₙ vs the local-CLT approximation, and the residual, σ² = 5, 25 | Figure 10 |\n\
| fig11-acs-1890 | (ε, δ) curves of the 1890-fold ACS compositions, σ² = 25 and 100 per query (the paper states no σ²; the values are those of the authors' notebook, github.com/BuxinSu/Census_2020_Privacy) | Figure 11 |\n\
| fig12-overall-tradeoff | overall trade-off functions | Figure 12 |\n\
| fig13-county-tradeoff-zoom | County trade-off functions near α = 0 (log α): Bureau, exact at the published noise, σ² reduced 8.59% (the caption), σ² reduced by Table 1 | Figure 13 (Appendix E) |\n\
| fig14-improvement-eps | per level, δ (y, log) against the improvement ε_Bureau − ε_exact (x), the caption's axes | Figure 14 |\n\
| fig15-improvement-percent | improvement in percent against δ per level | Figure 15 |\n\
| risk/kr-figure1 | posterior P[X₁ = 1 \\| x₁*] and risk R′ against x₁*, five priors | Kazan–Reiter Figure 1 |\n\
| risk/kr-figure2 | marginal posterior and risk R against ρ₁ (log), dashed ρ₁ = 0.099 | Kazan–Reiter Figure 2 |\n\
| risk/kr-figure3 | P(correct decision) under 0-1 loss against ρ₁ (log), dashed ρ₁ = 0.099 | Kazan–Reiter Figure 3 |\n\
| risk/kr-figure4 | decision tiles (y₁* × x₂*, one panel per x₁*), colour = the paper's sampler, × = the exact posterior decides otherwise | Kazan–Reiter Figure 4 |\n\
| risk/kr-figure5 | P(correct) against the true x₂: paper's sampler and exact posterior, dashed: no hierarchy, mean over x₂ ≥ 4 | Kazan–Reiter Figure 5 |\n\
| risk/kr-figure6 | P(correct) against ρ₂ (log) for x₂ ∈ {1, 10, 100}, dashed: no hierarchy, ρ₂ = 0.247 | Kazan–Reiter Figure 6 |\n\
| risk/kr-figure7 | marginal posterior and risk, target unique at ℓ = 1..6 levels | Kazan–Reiter Figure 7 (§S1.3) |\n\
| risk/kr-figure8 | certified variance σ² of DG(0, s) against s (log–log), dashed σ² = s, ρ = 1/(2s) on the upper axis; s − σ² | Kazan–Reiter Figure 8 (S2) |\n\
| risk/kr-figure9 | pmf of the sum of n DG(0, 1/(2ρ)) (exact convolution) beside DG(0, n/(2ρ)), ρ ∈ {0.099, 1}, n ∈ {27, 5} | Kazan–Reiter Figure 9 (S2) |\n\
| risk/kr-figure10 | decision tiles, prior Unif{k₁, …} (top, = Figure 4) and Unif{k₁, …, 10} (bottom) | Kazan–Reiter Figure 10 (S4) |\n\
| risk/kr-figure11 | decision tiles, prior mass at X₂ = 1 (top) and X₂ = 25 (bottom) | Kazan–Reiter Figure 11 (S4) |\n\
| risk/kr-figure12-left, -right | risk after block-level post-processing against x̃₂ and against ρ₁ (dashed ρ₁ = 0.099) | Kazan–Reiter Figure 12 (S6) |\n\
| topdown-postprocess-mae | MAE per detailed cell of TopDown's final counts per geolevel: Bureau, Table 1 and uniform noise, next to the noisy measurement | issue 18 |\n",
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SafeTab step of `reproduce`: its files, the synthetic input removed, and the certificate of
    /// the shipped geometric configuration (exact ε 14.01495403355173435 by mpmath,
    /// docs/research/safetab_run_numbers.py).
    #[test]
    fn safetab_example_writes_release_and_certificate() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        let out = std::env::temp_dir().join(format!("tightdp-reproduce-safetab-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        let files = safetab_example(&data, &out).unwrap();
        assert_eq!(files.len(), 5);
        assert!(files.iter().all(|f| f.exists()));
        assert!(!out.join(".safetab-input").exists());
        let cert = std::fs::read_to_string(out.join("safetab-geometric-certificate.csv")).unwrap();
        assert!(cert.contains(",15.290000000000,14.0149540335517343"), "{cert}");
        std::fs::remove_dir_all(&out).unwrap();
    }
}
