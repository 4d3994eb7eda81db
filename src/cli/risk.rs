//! `tightdp risk …`: Bayesian disclosure risk of noisy counts (Kazan–Reiter), see src/risk.

use crate::census::Allocation;
use crate::cli::common::check_prec;
use crate::error::Fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::{parse_rational, Interval, DEFAULT_PREC};
use crate::record::render_rows;
use crate::record::{Format, Record};
use crate::risk::decisions::{decision_map, prob_correct, Procedure};
use crate::risk::hier::{Data, Prior2, Sampler, TwoLevel};
use crate::risk::single::{marginal_multi_f64, posterior_multi, sequential, Decision, SingleLevel};
use crate::risk::{check_p, check_rho, paper, postproc};
use crate::{err, fallible};
use clap::{Args, Subcommand};
use rug::Rational;
use std::path::PathBuf;

const BLOCK: &str = "1666368/16793603";
const OBG: &str = "103534592/420045025";

#[derive(Args, Debug)]
pub struct RiskArgs {
    #[command(subcommand)]
    pub cmd: RiskCmd,
}

#[derive(Args, Debug, Clone)]
pub struct Out {
    /// Output format
    #[arg(long, value_enum, default_value = "table", global = true)]
    pub format: Format,
    /// Expert override of the MPFR working precision in bits of certified values
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_PREC, global = true)]
    pub prec: u32,
}

#[derive(Subcommand, Debug)]
pub enum RiskCmd {
    /// One level (KR §3.1): posterior (3.1), R′ (3.2) at --xstar; else M, R (3.3–3.4), decision threshold and P(correct) (3.6)
    Single(SingleArgs),
    /// KR Table 2 (per-level GVHR ρ at ρ = 2.56) and ε = 17.91 (Theorem 1)
    Table2(Out),
    /// KR Table 4 at ρ₁ (default: the exact Table 2 block value, which reproduces every printed digit)
    Table4(TableArgs),
    /// KR Table 5 and the §4.2 decision probabilities at ρ₁
    Table5(TableArgs),
    /// KR Tables 7 and 8: exact posterior, paper's sampler (exact stationary law), Monte Carlo runs
    Tables78(T78Args),
    /// Two-level posterior of (X₁, X₂) given D = (x₁*, x₂*, y₁*) (KR §3.2, S3, S4)
    Hierarchy(HierArgs),
    /// P(correct decision) with hierarchy by exact enumeration over the noisy data (Figures 4–6, S4)
    Decisions(DecArgs),
    /// Target known unique at several levels (KR §S1.3, eq. S1.1)
    Multilevel(MultiArgs),
    /// Sequential releases (KR S5.8): updated priors, conditional and cumulative risks
    Sequential(MultiArgs),
    /// Post-processing by block-level least squares (KR S6, Figure 12)
    Postproc(PpArgs),
    /// Write the CSV data of Figures 1–12 and draw them (PNG, SVG)
    Figures(FigArgs),
}

#[derive(Args, Debug)]
pub struct SingleArgs {
    /// Adversary's prior P[X₁ = m+1], in (0, 1)
    #[arg(long, allow_hyphen_values = true, value_name = "P")]
    pub p: String,
    /// KR's ρ (noise pmf ∝ e^{−ρ(x*−x)²}); default the Table 2 block GVHR value
    #[arg(long, value_name = "RHO", allow_hyphen_values = true, conflicts_with = "allocation")]
    pub rho: Option<String>,
    /// Take ρ from the last query (GVHR / "detailed") of a level of an allocation file
    #[arg(long, value_name = "FILE", requires = "level")]
    pub allocation: Option<PathBuf>,
    /// The allocation's level whose ρ is taken (with --allocation only)
    #[arg(long, value_name = "NAME", requires = "allocation")]
    pub level: Option<String>,
    /// Known count m = x_{1,−t} of the other records with the target's characteristics
    #[arg(long, value_name = "M", default_value_t = 0, allow_hyphen_values = true)]
    pub m: i64,
    /// Released noisy counts x₁* (comma-separated integers)
    #[arg(long, value_name = "X", value_delimiter = ',', allow_hyphen_values = true)]
    pub xstar: Vec<i64>,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug)]
pub struct TableArgs {
    /// ρ₁ (default the exact Table 2 block value 1666368/16793603)
    #[arg(long, value_name = "RHO", default_value = BLOCK, allow_hyphen_values = true)]
    pub rho: String,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug)]
pub struct T78Args {
    /// Seed of the Monte Carlo rows
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Monte Carlo draws (the paper used 10⁴)
    #[arg(long, default_value_t = 10000)]
    pub draws: usize,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// Adversary's prior P[X₁ = m+1]
    #[arg(long, allow_hyphen_values = true, value_name = "P", default_value = "1/2")]
    pub p: String,
    /// Known count m = x_{1,−t}
    #[arg(long, value_name = "M", default_value_t = 0, allow_hyphen_values = true)]
    pub m: i64,
    /// Number d of sibling blocks
    #[arg(long, value_name = "D", default_value_t = 27, allow_hyphen_values = true)]
    pub d: i64,
    /// ρ₁ (block)
    #[arg(long, value_name = "RHO", default_value = BLOCK, allow_hyphen_values = true)]
    pub rho1: String,
    /// ρ₂ (block group)
    #[arg(long, value_name = "RHO", default_value = OBG, allow_hyphen_values = true)]
    pub rho2: String,
    /// Prior of X₂ | X₁ = k₁: unbounded | uniform:N | point:K (KR S4)
    #[arg(long, value_name = "PRIOR", default_value = "unbounded")]
    pub prior: String,
    /// Use the paper's Gibbs sampler (X₁-step (3.8) as printed, without 1[k₁ ≤ k₂]) instead of the exact posterior
    #[arg(long)]
    pub paper_sampler: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HierMethod {
    /// exact enumeration (certified); with --paper-sampler: the sampler's exact stationary law
    Exact,
    /// Monte Carlo Gibbs sampler (seeded), with batch-means standard errors
    Mc,
}

#[derive(Args, Debug)]
pub struct HierArgs {
    /// Released (noisy) block count x₁*
    #[arg(long = "x1star", value_name = "N", allow_hyphen_values = true)]
    pub x1s: i64,
    /// Released (noisy) block-group count x₂*
    #[arg(long = "x2star", value_name = "N", allow_hyphen_values = true)]
    pub x2s: i64,
    /// Released (noisy) count y₁* of the sibling blocks
    #[arg(long = "ystar", value_name = "N", allow_hyphen_values = true)]
    pub y1s: i64,
    #[command(flatten)]
    pub model: ModelArgs,
    /// How the posterior is computed: exact enumeration (certified) or a seeded Gibbs Monte Carlo
    #[arg(long, value_enum, default_value = "exact")]
    pub method: HierMethod,
    /// Monte Carlo draws kept (--method mc)
    #[arg(long, default_value_t = 10000)]
    pub draws: usize,
    /// Monte Carlo draws discarded before the kept ones (--method mc)
    #[arg(long, default_value_t = 1000)]
    pub burn_in: usize,
    /// Seed of the Monte Carlo sampler (--method mc): the same seed, the same draws
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of k₂ values of the X₂ posterior to print (from m)
    #[arg(long, default_value_t = 8)]
    pub k2_rows: usize,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug)]
pub struct DecArgs {
    /// True count x₁ (m or m+1)
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    pub x1: i64,
    /// True count x₂
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    pub x2: i64,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Restrict the data to a window "x2lo:x2hi,ylo:yhi" (the paper's is -3:5,-30:30)
    #[arg(long, value_name = "WINDOW", allow_hyphen_values = true)]
    pub window: Option<String>,
    /// Print the decision map (Figure 4: x₁* ∈ {−1,0,1,2}, −3 ≤ x₂* ≤ 5, −30 ≤ y₁* ≤ 30) instead
    #[arg(long)]
    pub map: bool,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug)]
pub struct MultiArgs {
    /// Adversary's prior P[X₁ = m+1], in (0, 1)
    #[arg(long, allow_hyphen_values = true, value_name = "P")]
    pub p: String,
    /// Known count m = x_{1,−t}
    #[arg(long, value_name = "M", default_value_t = 0, allow_hyphen_values = true)]
    pub m: i64,
    /// ρ of each level / release (comma-separated)
    #[arg(long, value_name = "RHOS", value_delimiter = ',', allow_hyphen_values = true)]
    pub rho: Vec<String>,
    /// Released counts, one per level / release (comma-separated)
    #[arg(long, value_name = "XS", value_delimiter = ',', allow_hyphen_values = true)]
    pub xstar: Vec<i64>,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug)]
pub struct PpArgs {
    /// Adversary's prior P[X₁ = m+1], in (0, 1)
    #[arg(long, allow_hyphen_values = true, value_name = "P", default_value = "1/2")]
    pub p: String,
    /// ρ₁ (block)
    #[arg(long, value_name = "RHO", default_value = BLOCK, allow_hyphen_values = true)]
    pub rho1: String,
    /// Number d of sibling blocks
    #[arg(long, default_value_t = 27, allow_hyphen_values = true)]
    pub d: i64,
    /// True (and known) x₂
    #[arg(long, default_value_t = 1, allow_hyphen_values = true)]
    pub x2: i64,
    /// Post-processed parent count x̃₂ (comma-separated list allowed)
    #[arg(long = "x2tilde", value_name = "N", value_delimiter = ',', allow_hyphen_values = true, default_value = "1")]
    pub x2t: Vec<i64>,
    #[command(flatten)]
    pub out: Out,
}

#[derive(Args, Debug)]
pub struct FigArgs {
    /// Directory the figures' CSV data, PNG and SVG files are written to
    #[arg(long, value_name = "DIR", default_value = "results/risk")]
    pub out: PathBuf,
}

fn num(s: &str, what: &str) -> Fallible<Rational> {
    parse_rational(s).map_err(|e| e.context(what))
}

fn prob(s: &str) -> Fallible<Rational> {
    let p = num(s, "p")?;
    check_p(&p)?;
    Ok(p)
}

fn rho(s: &str, what: &str) -> Fallible<Rational> {
    let r = num(s, what)?;
    check_rho(&r, what)?;
    Ok(r)
}

fn d_of(d: i64) -> Fallible<u32> {
    if !(1..=100_000).contains(&d) {
        return fallible!(Input, "d (number of sibling blocks) must be an integer in [1, 100000], got {d}");
    }
    Ok(d as u32)
}

fn iv(x: &Interval) -> String {
    fmt_nearest(&x.mid(), 20)
}

fn push_iv(r: &mut Record, k: &str, x: &Interval) {
    r.push(k, iv(x));
    r.push(&format!("{k}_lo"), fmt_down(x.lo(), 25));
    r.push(&format!("{k}_hi"), fmt_up(x.hi(), 25));
}

fn dec(d: Decision, m: i64) -> String {
    match d {
        Decision::Target => (m + 1).to_string(),
        Decision::Other => m.to_string(),
        Decision::Tie => format!("{m} (tie)"),
    }
}

impl ModelArgs {
    fn build(&self) -> Fallible<(TwoLevel, Procedure)> {
        let t = TwoLevel::new(
            prob(&self.p)?,
            self.m,
            rho(&self.rho1, "rho1")?,
            rho(&self.rho2, "rho2")?,
            d_of(self.d)?,
            Prior2::parse(&self.prior)?,
        )?;
        let proc = if self.paper_sampler { Procedure::Gibbs(Sampler::Paper) } else { Procedure::Exact };
        Ok((t, proc))
    }
}

pub fn run(a: RiskArgs) -> Fallible<String> {
    match a.cmd {
        RiskCmd::Single(s) => single(s),
        RiskCmd::Table2(o) => {
            let prec = check_prec(o.prec)?;
            let mut s = render_rows(&paper::table2(prec), o.format);
            if o.format == Format::Table {
                s += "\n";
                s += &paper::epsilon_record(prec).render(o.format);
            }
            Ok(s)
        }
        RiskCmd::Table4(t) => Ok(render_rows(&paper::table4(&rho(&t.rho, "rho")?, check_prec(t.out.prec)?)?, t.out.format)),
        RiskCmd::Table5(t) => Ok(render_rows(&paper::table5(&rho(&t.rho, "rho")?, check_prec(t.out.prec)?)?, t.out.format)),
        RiskCmd::Tables78(t) => {
            if t.draws < 50 || t.draws > 100_000_000 {
                return fallible!(Input, "draws must be between 50 and 100000000");
            }
            Ok(render_rows(&paper::tables78(check_prec(t.out.prec)?, t.seed, t.draws)?, t.out.format))
        }
        RiskCmd::Hierarchy(h) => hierarchy(h),
        RiskCmd::Decisions(d) => decisions(d),
        RiskCmd::Multilevel(m) => multilevel(m),
        RiskCmd::Sequential(m) => seq(m),
        RiskCmd::Postproc(p) => pp(p),
        RiskCmd::Figures(f) => figures(&f.out),
    }
}

fn single(a: SingleArgs) -> Fallible<String> {
    let prec = check_prec(a.out.prec)?;
    let p = prob(&a.p)?;
    let (r, src) = if let Some(path) = &a.allocation {
        let alloc = Allocation::from_path(path)?;
        let lv = alloc.level(a.level.as_deref().unwrap_or(""))?;
        let q = lv.query_rho.last().cloned().ok_or_else(|| err!(Input, "level has no queries"))?;
        (q, format!("{} / {} / last query (KR convention)", alloc.name, lv.name))
    } else {
        let s = a.rho.clone().unwrap_or_else(|| BLOCK.to_string());
        (rho(&s, "rho")?, "--rho".to_string())
    };
    let s = SingleLevel::new(p, a.m, r)?;
    for x in &a.xstar {
        crate::risk::check_count(*x, "xstar", false)?;
    }
    if !a.xstar.is_empty() {
        let rows: Vec<Record> = a
            .xstar
            .iter()
            .map(|x| {
                let mut r = Record::new();
                r.push("xstar", x.to_string());
                r.push("p_xstar_given_target", iv(&s.likelihood(*x, s.m + 1, prec)));
                push_iv(&mut r, "posterior", &s.posterior(*x, prec));
                r.push("risk_prime", iv(&s.risk_prime(*x, prec)));
                r.push("decision", dec(s.decide(*x), s.m));
                r
            })
            .collect();
        return Ok(render_rows(&rows, a.out.format));
    }
    let mut r = Record::new();
    r.push("p", s.p.to_string()).push("m", s.m.to_string()).push("rho", s.rho.to_string()).push("rho_source", src);
    push_iv(&mut r, "marginal_posterior", &s.marginal(prec));
    push_iv(&mut r, "risk", &s.risk(prec));
    r.push("threshold_xstar", s.threshold().to_string());
    push_iv(&mut r, "p_correct", &s.prob_correct(prec));
    r.push("tie_rule", "decide m+1 iff posterior > 1/2 (ties impossible for rational p, rho)");
    Ok(r.render(a.out.format))
}

fn hierarchy(h: HierArgs) -> Fallible<String> {
    let prec = check_prec(h.out.prec)?;
    let (t, proc) = h.model.build()?;
    let d = Data { x1s: h.x1s, x2s: h.x2s, y1s: h.y1s };
    t.check_data(&d, prec + 32)?;
    if h.k2_rows > 1_000_000 {
        return fallible!(Input, "--k2-rows {} is too many rows to print (at most 1000000)", h.k2_rows);
    }
    let mut r = Record::new();
    r.push("prior_x2", t.prior.describe());
    match h.method {
        HierMethod::Exact => {
            let post = match proc {
                Procedure::Exact => {
                    r.push("method", "exact posterior (enumeration, certified)");
                    t.posterior(&d, h.k2_rows, prec)
                }
                Procedure::Gibbs(s) => {
                    r.push("method", "paper sampler: exact stationary law (certified)");
                    t.gibbs_stationary(&d, s, h.k2_rows, prec)?
                }
            };
            push_iv(&mut r, "p_x1_target", &post.p_target);
            let (dd, _) = match proc {
                Procedure::Exact => t.decide_exact(&d),
                Procedure::Gibbs(s) => t.decide_sampler(&d, s),
            };
            r.push("decision", dec(dd, t.m));
            for (k, v) in post.x2 {
                r.push(&format!("p_x2_eq_{k}"), iv(&v));
            }
        }
        HierMethod::Mc => {
            if h.draws < 50 || h.draws > 100_000_000 {
                return fallible!(Input, "draws must be between 50 and 100000000");
            }
            if h.burn_in > 100_000_000 {
                return fallible!(Input, "--burn-in {} is beyond the supported 100000000 iterations", h.burn_in);
            }
            let s = if h.model.paper_sampler { Sampler::Paper } else { Sampler::Correct };
            let mc = t.gibbs_mc(&d, s, h.draws, h.burn_in, h.seed, h.k2_rows)?;
            r.push(
                "method",
                format!("Gibbs Monte Carlo, {} sampler, {} draws after {} burn-in, seed {}", s.as_str(), mc.draws, mc.burn_in, mc.seed),
            );
            r.push("p_x1_target", format!("{:.6}", mc.p_target));
            r.push("p_x1_target_se", format!("{:.6}", mc.p_target_se));
            for (k, v, se) in mc.x2 {
                r.push(&format!("p_x2_eq_{k}"), format!("{v:.6}"));
                r.push(&format!("p_x2_eq_{k}_se"), format!("{se:.6}"));
            }
        }
    }
    Ok(r.render(h.out.format))
}

fn range(s: &str) -> Fallible<(i64, i64)> {
    let (a, b) = s.split_once(':').ok_or_else(|| err!(Input, "window range '{s}': expected LO:HI"))?;
    let p = |x: &str| x.trim().parse::<i64>().map_err(|_| err!(Input, "window range '{s}': bounds must be integers"));
    let (a, b) = (p(a)?, p(b)?);
    if a > b {
        return fallible!(Input, "window range '{s}': LO > HI");
    }
    Ok((a, b))
}

fn decisions(a: DecArgs) -> Fallible<String> {
    let (t, proc) = a.model.build()?;
    if a.map {
        let tiles = decision_map(&t, proc, &[t.m - 1, t.m, t.m + 1, t.m + 2], (-3, 5), (-30, 30))?;
        let rows: Vec<Record> = tiles
            .iter()
            .map(|x| {
                let mut r = Record::new();
                r.push("x1star", x.x1s.to_string()).push("x2star", x.x2s.to_string()).push("y1star", x.y1s.to_string());
                r.push("posterior", format!("{:.10}", x.posterior));
                r.push("decision", dec(x.decision, t.m)).push("decision_no_hier", dec(x.decision_no_hier, t.m));
                r
            })
            .collect();
        return Ok(render_rows(&rows, a.out.format));
    }
    let window = match &a.window {
        None => None,
        Some(w) => {
            let (x, y) = w.split_once(',').ok_or_else(|| err!(Input, "window '{w}': expected x2lo:x2hi,ylo:yhi"))?;
            Some((range(x)?, range(y)?))
        }
    };
    let c = prob_correct(&t, proc, a.x1, a.x2, window)?;
    let mut r = Record::new();
    r.push("procedure", proc.as_str()).push("prior_x2", t.prior.describe());
    r.push("truth", format!("x1 = {}, x2 = {}", a.x1, a.x2));
    r.push("p_correct", format!("{:.10}", c.p_correct));
    r.push("p_correct_no_hier", format!("{:.10}", c.p_correct_no_hier));
    r.push("gain", format!("{:.10}", c.gain)).push("loss", format!("{:.10}", c.loss));
    r.push("net", format!("{:+.10}", c.gain - c.loss));
    r.push("tie_mass", format!("{:.3e}", c.tie_mass)).push("unresolved_mass", format!("{:.3e}", c.unresolved_mass));
    r.push("data_mass_enumerated", format!("{:.15}", c.mass));
    r.push("tie_rule", "ties (posterior exactly 1/2, detected in rational arithmetic) -> m");
    Ok(r.render(a.out.format))
}

fn rhos(v: &[String]) -> Fallible<Vec<Rational>> {
    if v.is_empty() {
        return fallible!(Input, "give --rho with one value per level");
    }
    v.iter().map(|s| rho(s, "rho")).collect()
}

fn multilevel(a: MultiArgs) -> Fallible<String> {
    let prec = check_prec(a.out.prec)?;
    let p = prob(&a.p)?;
    let rs = rhos(&a.rho)?;
    let mut r = Record::new();
    r.push("levels", rs.len().to_string());
    if !a.xstar.is_empty() {
        let post = posterior_multi(&p, a.m, &rs, &a.xstar, prec)?;
        push_iv(&mut r, "posterior", &post);
        r.push("risk_prime", iv(&post.div(&Interval::from_rational(&p, prec))));
    }
    let rf: Vec<f64> = rs.iter().map(|x| x.to_f64()).collect();
    let (lo, hi) = marginal_multi_f64(p.to_f64(), &rf);
    r.push("marginal_posterior_lo", format!("{lo:.12}")).push("marginal_posterior_hi", format!("{hi:.12}"));
    r.push("risk_lo", format!("{:.12}", lo / p.to_f64())).push("risk_hi", format!("{:.12}", hi / p.to_f64()));
    Ok(r.render(a.out.format))
}

fn seq(a: MultiArgs) -> Fallible<String> {
    let prec = check_prec(a.out.prec)?;
    let p = prob(&a.p)?;
    let rs = rhos(&a.rho)?;
    if rs.len() != a.xstar.len() {
        return fallible!(Input, "give one --xstar per --rho");
    }
    let rel: Vec<(Rational, i64)> = rs.into_iter().zip(a.xstar.iter().cloned()).collect();
    let steps = sequential(&p, a.m, &rel, prec)?;
    let rows: Vec<Record> = steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut r = Record::new();
            r.push("release", (i + 1).to_string()).push("rho", s.rho.to_string()).push("xstar", s.xstar.to_string());
            r.push("prior", iv(&s.prior)).push("posterior", iv(&s.posterior));
            r.push("conditional_risk", iv(&s.conditional_risk)).push("cumulative_risk", iv(&s.cumulative_risk));
            r
        })
        .collect();
    Ok(render_rows(&rows, a.out.format))
}

fn pp(a: PpArgs) -> Fallible<String> {
    let p = prob(&a.p)?.to_f64();
    let r1 = rho(&a.rho1, "rho1")?.to_f64();
    let d = d_of(a.d)?;
    let mut rows = Vec::new();
    for x2t in &a.x2t {
        let r = postproc::postproc_risk(p, r1, d, a.x2, *x2t)?;
        let mut rec = Record::new();
        rec.push("x2tilde", x2t.to_string());
        rec.push("marginal_posterior_postprocessed", format!("{:.10}", r.marginal_pp));
        rec.push("risk_postprocessed", format!("{:.10}", r.risk_pp()));
        rec.push("risk_without_postprocessing", format!("{:.10}", r.risk_raw()));
        rec.push("risk_x1star_only", format!("{:.10}", r.risk_single()));
        rows.push(rec);
    }
    Ok(render_rows(&rows, a.out.format))
}

/// Prefix of the staging directory `risk figures` writes into, inside `--out` (same file system).
const FIG_STAGE: &str = ".tightdp-risk-figures.tmp-";

/// `risk figures --out DIR`: all or nothing. Every CSV, PNG and SVG is written into a staging
/// directory inside DIR first; only when all are written, and no destination is in the way (a
/// directory of the same name), are they renamed into DIR. A failure leaves DIR as it was; a killed
/// run's staging directory is removed by the next run.
fn figures(out: &std::path::Path) -> Fallible<String> {
    std::fs::create_dir_all(out).map_err(|e| err!(Io, "cannot create '{}': {e}", out.display()))?;
    if let Ok(rd) = std::fs::read_dir(out) {
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(FIG_STAGE) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    // a destination in the way is refused before the figures are computed (and checked again at the commit)
    let names = crate::risk::figures::CSV_NAMES.iter().map(|n| n.to_string()).chain(crate::plots::csvplot::risk_figure_files());
    if let Some(d) = names.map(|n| out.join(n)).find(|d| d.is_dir()) {
        return fallible!(Input, "cannot write '{}': a directory of that name is in the way (nothing was written)", d.display());
    }
    let stage = out.join(format!("{FIG_STAGE}{}", std::process::id()));
    std::fs::create_dir(&stage).map_err(|e| err!(Io, "cannot create '{}': {e}", stage.display()))?;
    let res = (|| -> Fallible<Vec<std::path::PathBuf>> {
        let mut files = crate::risk::figures::figure_data(&stage)?;
        files.extend(crate::plots::csvplot::risk_figures(&stage)?);
        if std::env::var(crate::rundir::FAULT_ENV).is_ok_and(|v| v == "before-commit") {
            return fallible!(Io, "injected fault before commit (TIGHTDP_INJECT_FAULT)");
        }
        let dest: Vec<std::path::PathBuf> = files.iter().map(|p| out.join(p.file_name().unwrap_or_default())).collect();
        if let Some(d) = dest.iter().find(|d| d.is_dir()) {
            return fallible!(Input, "cannot write '{}': a directory of that name is in the way (nothing was written)", d.display());
        }
        for (f, d) in files.iter().zip(&dest) {
            std::fs::rename(f, d).map_err(|e| err!(Io, "cannot write '{}': {e}", d.display()))?;
        }
        Ok(dest)
    })();
    let _ = std::fs::remove_dir_all(&stage);
    Ok(res?.iter().map(|p| format!("wrote {}\n", p.display())).collect())
}
