//! `tightdp safetab-tables`: SafeTab-P Tables 6/7 and SafeTab (race & ethnicity) Tables 2/4, recomputed.

use crate::cli::common::{check_prec, parse_delta};
use crate::error::Fallible;
use crate::num::parse_rational;
use crate::record::Format;
use crate::record::{render_rows, Record};
use crate::tabulation::{calib, safetab_re};
use clap::Args;

#[derive(Args, Debug)]
pub struct SafetabTablesArgs {
    /// δ for Table 2 (the paper uses 1e-10)
    #[arg(long, value_name = "D", default_value = "1e-10", allow_hyphen_values = true)]
    pub delta: String,
    /// Also compute the exact (lattice) profile of the discrete Gaussian variant (slow)
    #[arg(long)]
    pub exact_dg: bool,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Expert override of the MPFR working precision in bits (the printed tables are the same at 128 bits)
    #[arg(long, value_name = "BITS", default_value_t = crate::num::DEFAULT_PREC)]
    pub prec: u32,
}

pub fn run(a: SafetabTablesArgs) -> Fallible<String> {
    let delta = parse_delta(&a.delta)?;
    let prec = check_prec(a.prec)?;
    let g = safetab_re::gamma();
    let mut out = String::new();
    // SafeTab-P Table 7
    let mut t7 = Vec::new();
    for (levels, moe) in
        [("Nation/State Detailed", 3u32), ("County/Tract/Place/AIANNH Detailed", 11), ("Nation/State/County/Tract/Place Regional", 50)]
    {
        let r = calib::dg_budget_row(moe, 9, &g);
        let mut x = Record::new();
        x.push("table", "P-T7")
            .push("levels", levels)
            .push("moe", moe.to_string())
            .push("step2_unbounded", calib::dec(&r.step2_u, 3))
            .push("total_unbounded", calib::dec(&r.total_u, 3))
            .push("step2_bounded", calib::dec(&r.step2_b, 3))
            .push("total_bounded", calib::dec(&r.total_b, 3))
            .push("total_exact", calib::dec(&r.total_exact, 12))
            .push("implied_moe", calib::implied_moe(&r.total_u, 9, &g).to_string());
        t7.push(x);
    }
    out += &render_rows(&t7, a.format);
    out += "\n";
    let mut t6 = Vec::new();
    for rho in ["0.008", "0.159", "0.543"] {
        let t = calib::suppression_threshold(&parse_rational(rho)?, 9, &g, &parse_rational("0.9999")?)?;
        let mut x = Record::new();
        x.push("table", "P-T6").push("rho", rho).push("threshold", t.to_string());
        t6.push(x);
    }
    out += &render_rows(&t6, a.format);
    out += "\n";
    out += &render_rows(&safetab_re::table4()?, a.format);
    out += "\n";
    out += &render_rows(&safetab_re::table2(&delta, prec, a.exact_dg)?, a.format);
    Ok(out)
}
