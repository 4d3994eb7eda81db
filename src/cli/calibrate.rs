//! `tightdp calibrate`: per-level (Table 1) or uniform variance reductions that keep a target ε.

use crate::app::attack_calibration::AttackTarget;
use crate::app::calibration::Conversion;
use crate::app::calibration::{calibrated_toml, level_brackets, rows_of_brackets, uniform_bracket, uniform_row_of};
use crate::census::Allocation;
use crate::cli::common::{check_prec, parse_delta};
use crate::error::Fallible;
use crate::num::{parse_rational, DEFAULT_PREC};
use crate::record::render_rows;
use crate::record::Format;
use crate::{err, fallible};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Allocation file (TOML), or the name of a built-in allocation (e.g. dhc-2022-08-25)
    #[arg(long, value_name = "FILE", required_unless_present = "mech", conflicts_with = "mech")]
    pub allocation: Option<PathBuf>,
    /// DP-SGD calibration: mechanism terms as in `epsilon --mech`, one of them with an unknown. A Gaussian's
    /// noise multiplier (gauss: or alloc:) written sigma=? (e.g. gauss:sigma=?,q=256/60000,n=14070): the smallest sigma on
    /// --resolution that meets --target-epsilon at --delta, certified, with the next smaller sigma certified
    /// to miss it. A number of steps written n=? in any term (e.g. gauss:sigma=1.1,q=256/60000,n=?): the
    /// largest n that meets it, with n + 1 certified to miss it. A sampling rate written q=? (e.g.
    /// gauss:sigma=1.1,q=?,n=14070): the largest q on --resolution that meets it, with the next q certified
    /// to miss it. A mechanism's epsilon written epsilon=? in an expmech:, dp:, rr: or laplace: term (e.g.
    /// dp:epsilon=?,q=1/100,n=1000): the largest on --resolution, likewise. Where the guarantee is known only by a certified upper bound (fixed-size batches,
    /// sampling=wor; random allocation, alloc:) the bound is calibrated: the trust column reads certified-bound, and the miss is the
    /// bound's. Instead of --target-epsilon, an attack target: --target-advantage, or --target-tpr with
    /// --at-fpr. Repeat for further (fixed) terms
    #[arg(long, value_name = "SPEC")]
    pub mech: Vec<String>,
    /// Neighbour relation of the --mech terms: add-remove (default) or replace
    #[arg(long, value_name = "REL", requires = "mech")]
    pub neighbors: Option<String>,
    /// Resolution of the calibrated noise multiplier or sampling rate (with --mech): the answer is a multiple
    /// of it (a fraction such as 1/60000 is exact)
    #[arg(long, allow_hyphen_values = true, value_name = "R", default_value = "0.001", requires = "mech")]
    pub resolution: String,
    /// Also write the calibrated allocation to FILE (TOML: the same levels, every query's budget as an exact
    /// `query_rho` fraction at the certified end of the factor bracket), loadable by every command; written
    /// atomically, never over the input file (ε targets only)
    #[arg(long, value_name = "FILE")]
    pub write: Option<PathBuf>,
    /// δ at which the exact ε is matched to the target (with an attack target: δ of the ε-based
    /// reduction printed beside it, default 1e-11 as in the paper's Table 1)
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub delta: Option<String>,
    /// Explicit target ε (default: the zCDP-implied ε of the published noise at the same δ)
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    pub target_epsilon: Option<String>,
    /// Calibrate to an attack target instead of ε: the largest noise reduction keeping the certified
    /// advantage sup(TPR − FPR) at or below A (with --mech: the smallest sigma, or the most steps, keeping it)
    #[arg(long, allow_hyphen_values = true, value_name = "A", conflicts_with_all = ["target_epsilon", "target_tpr"])]
    pub target_advantage: Option<String>,
    /// Calibrate to an attack target: TPR of the best membership test at FPR --at-fpr at or below T (with
    /// --allocation or --mech). The same number bounds reconstruction: --target-tpr R --at-fpr K keeps a
    /// reconstruction attack of baseline success K at or below R (`attack --reconstruction-prior`)
    #[arg(long, allow_hyphen_values = true, value_name = "T", requires = "at_fpr", conflicts_with = "target_epsilon")]
    pub target_tpr: Option<String>,
    /// The FPR of --target-tpr
    #[arg(long, allow_hyphen_values = true, value_name = "F", requires = "target_tpr")]
    pub at_fpr: Option<String>,
    /// Conversion that defines the default ε target (default zcdp-bs; not with an attack target)
    #[arg(long, value_enum)]
    pub conversion: Option<Conversion>,
    /// One common variance factor for all levels, matching the overall guarantee
    #[arg(long)]
    pub uniform: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Expert override of the MPFR working precision in bits (default 256; with an attack target the accountant's choice for 20 digits)
    #[arg(long, value_name = "BITS")]
    pub prec: Option<u32>,
}

/// The columns of `calibrate` with an attack target, per level or uniform (an empty cell where a field
/// does not apply).
pub const ATTACK_COLUMNS: &[&str] = &[
    "level",
    "measure",
    "target",
    "measure_published_lo",
    "measure_published_hi",
    "sigma2_published",
    "sigma2_calibrated_lo",
    "sigma2_calibrated_hi",
    "factor_lo",
    "factor_hi",
    "reduction_percent_lo",
    "reduction_percent_hi",
    "epsilon_rule_reduction_percent_lo",
    "epsilon_rule_reduction_percent_hi",
];

/// Rows in the output format, every row with exactly the command's columns.
fn render(rows: &[crate::record::Record], cols: &[&str], format: Format) -> Fallible<String> {
    let rows = rows.iter().map(|r| r.with_columns(cols)).collect::<Result<Vec<_>, _>>()?;
    Ok(render_rows(&rows, format))
}

/// `tightdp calibrate`: the mechanisms' noise for a target (without an allocation), or the allocation's
/// reduced noise per level or uniform, to an epsilon or an attack target; `--write` the calibrated file.
pub fn run(a: CalibrateArgs) -> Fallible<String> {
    let prec = a.prec.map(check_prec).transpose()?;
    let Some(allocation) = a.allocation.clone() else {
        refuse_allocation_flags(&a)?;
        return crate::cli::calibrate_sigma::run(&crate::cli::calibrate_sigma::SigmaArgs {
            mech: &a.mech,
            neighbors: a.neighbors.as_deref(),
            delta: a.delta.as_deref(),
            target_epsilon: a.target_epsilon.as_deref(),
            target_advantage: a.target_advantage.as_deref(),
            target_tpr: a.target_tpr.as_deref(),
            at_fpr: a.at_fpr.as_deref(),
            resolution: &a.resolution,
            format: a.format,
        });
    };
    let num = |s: &str, what: &str| parse_rational(s).map_err(|e| e.context(what));
    let attack = match (&a.target_advantage, &a.target_tpr, &a.at_fpr) {
        (Some(v), _, _) => Some(AttackTarget::Advantage(num(v, "target-advantage")?)),
        (None, Some(t), Some(f)) => Some(AttackTarget::Tpr { tpr: num(t, "target-tpr")?, fpr: num(f, "at-fpr")? }),
        _ => None,
    };
    if let Some(t) = attack {
        return attack_calibration(&a, &allocation, t, prec);
    }
    let prec = prec.unwrap_or(DEFAULT_PREC);
    let delta = parse_delta(
        a.delta.as_deref().ok_or_else(|| err!(Input, "calibrate needs --delta (or an attack target: --target-advantage, --target-tpr)"))?,
    )?;
    let explicit = match &a.target_epsilon {
        Some(s) => {
            let e = parse_rational(s).map_err(|e| e.context("target-epsilon"))?;
            if e <= 0 {
                return fallible!(Input, "target-epsilon must be positive, got '{s}'");
            }
            Some(e)
        }
        None => None,
    };
    if explicit.is_some() && a.conversion.is_some() {
        return fallible!(Input, "--conversion defines the default target; --target-epsilon gives it explicitly: give one of them");
    }
    let conversion = a.conversion.unwrap_or(Conversion::ZcdpBs);
    if let Some(w) = &a.write {
        check_write_target(w, &allocation)?;
    }
    let alloc = Allocation::from_path(&allocation)?;
    let (rows, factors) = if a.uniform {
        let (target, br) = uniform_bracket(&alloc, &delta, conversion, &explicit, prec)?;
        let mut rows = vec![uniform_row_of(&target, &br)];
        rows.extend(crate::app::calibration::uniform_level_rows(&alloc, &target, &br));
        (rows, vec![br.hi.clone(); alloc.levels.len()])
    } else {
        let brackets = level_brackets(&alloc, &delta, conversion, &explicit, prec)?;
        (rows_of_brackets(&alloc, &brackets), brackets.iter().map(|(_, br)| br.hi.clone()).collect())
    };
    let out = render(&rows, crate::app::calibration::COLUMNS, a.format)?;
    if let Some(w) = &a.write {
        write_calibrated(&a, w, &allocation, &alloc, &factors, conversion)?;
    }
    Ok(out)
}

/// The allocation calibrated to an attack target `t` (advantage, or TPR at an FPR), with the ε rule's
/// reduction at --delta beside it.
fn attack_calibration(a: &CalibrateArgs, allocation: &Path, t: AttackTarget, prec: Option<u32>) -> Fallible<String> {
    let flag = if a.target_advantage.is_some() { "--target-advantage" } else { "--target-tpr" };
    if a.write.is_some() {
        return fallible!(
            Input,
            "--write writes an allocation calibrated to an epsilon target; {flag} is an attack target: drop one of them"
        );
    }
    if a.conversion.is_some() {
        return fallible!(
            Input,
            "--conversion defines the default epsilon target; {flag} calibrates to an attack target instead: give one of them"
        );
    }
    t.check()?;
    let alloc = Allocation::from_path(allocation)?;
    // the ε-rule reduction printed beside the attack calibration, at --delta (1e-11, Table 1's, by default)
    let d = parse_delta(a.delta.as_deref().unwrap_or("1e-11"))?;
    let rows = if a.uniform {
        crate::app::attack_calibration::uniform_rows(&alloc, &t, &d, prec)?
    } else {
        crate::app::attack_calibration::level_rows(&alloc, &t, &d, prec)?
    };
    render(&rows, ATTACK_COLUMNS, a.format)
}

/// `--write`: the allocation with every level's variance multiplied by its factor, its provenance in the
/// header; it must load again as the same levels before it is written.
fn write_calibrated(
    a: &CalibrateArgs,
    w: &Path,
    allocation: &Path,
    alloc: &Allocation,
    factors: &[rug::Rational],
    conversion: Conversion,
) -> Fallible<()> {
    let target = match (&a.target_epsilon, a.uniform) {
        (Some(e), _) => format!("epsilon {}", e.trim()),
        (None, true) => format!("the overall {} epsilon", conversion_name(conversion)),
        (None, false) => format!("each level's {} epsilon", conversion_name(conversion)),
    };
    let provenance = vec![
        format!("Calibrated by tightdp calibrate from '{}'", allocation.display()),
        format!(
            "target: {target} at delta {}; {}: every variance multiplied by the upper end of the certified factor bracket",
            a.delta.as_deref().unwrap_or("").trim(),
            if a.uniform { "one common factor" } else { "one factor per level" }
        ),
    ];
    let text = calibrated_toml(alloc, factors, &provenance);
    // the written file must load again as the same levels (a check of this writer, before it is published)
    let back = Allocation::from_toml(&text).map_err(|e| err!(Internal, "the calibrated allocation does not load: {e}"))?;
    if back.levels.len() != alloc.levels.len() {
        return fallible!(Internal, "the calibrated allocation lost levels");
    }
    crate::record::write_atomic(w, text.as_bytes())
}

/// Flags of the allocation calibration that mean nothing here are refused, not ignored.
fn refuse_allocation_flags(a: &CalibrateArgs) -> Fallible<()> {
    let given =
        [("--write", a.write.is_some()), ("--uniform", a.uniform), ("--conversion", a.conversion.is_some()), ("--prec", a.prec.is_some())];
    if let Some((flag, _)) = given.iter().find(|(_, g)| *g) {
        return fallible!(
            Input,
            "{flag} applies to allocation calibration; calibrate --mech takes --delta with --target-epsilon, or --target-advantage, or --target-tpr with --at-fpr, and --resolution"
        );
    }
    Ok(())
}

fn conversion_name(c: Conversion) -> &'static str {
    match c {
        Conversion::ZcdpBs => "zCDP (Bun-Steinke)",
        Conversion::ZcdpCks => "zCDP (Canonne-Kamath-Steinke)",
    }
}

/// `--write FILE` must not replace the allocation it calibrates, nor be a directory.
fn check_write_target(w: &Path, input: &Path) -> Fallible<()> {
    if w.is_dir() {
        return fallible!(Input, "--write '{}' is a directory; give a file name", w.display());
    }
    let same = match (std::fs::canonicalize(w), std::fs::canonicalize(input)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if same {
        return fallible!(
            Input,
            "--write '{}' is the input --allocation file: write the calibrated allocation to another file",
            w.display()
        );
    }
    Ok(())
}
