//! `tightdp describe`: what an allocation file says, query by query — each query's zCDP budget ρ, the
//! variance σ² of its discrete Gaussian noise, its sensitivity and the neighbour relation, with the level
//! totals and the total over all levels; every number as an exact fraction and as a decimal.

use crate::census::allocation::{Allocation, Level};
use crate::error::Fallible;
use crate::model::Neighbors;
use crate::num::format::fmt_nearest;
use crate::record::{columns, render_rows, row, Format};
use clap::Args;
use rug::{Float, Rational};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DescribeArgs {
    /// Allocation file (TOML), or the name of a built-in allocation (e.g. dhc-2022-08-25)
    #[arg(long, value_name = "FILE")]
    pub allocation: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

/// A row of `describe`: one query, or a total (which has no σ²); its fields are the columns, the same for
/// every row (an empty cell where a field does not apply).
#[derive(Serialize, Default)]
pub struct DescribeRow {
    pub level: String,
    pub query: String,
    pub queries: String,
    pub rho: String,
    pub rho_decimal: String,
    pub sigma2: Option<String>,
    pub sigma2_decimal: Option<String>,
    pub sensitivity: &'static str,
    pub neighbors: &'static str,
    pub shifts_per_query: &'static str,
}

/// Decimal digits of the `_decimal` columns (rounded to nearest; the exact value is beside it).
const DIGITS: usize = 17;

fn decimal(q: &Rational) -> String {
    fmt_nearest(&Float::with_val(256, q), DIGITS)
}

/// σ² of a query with zCDP budget ρ_q under the relation (src/census/allocation.rs): 1/(2ρ_q) for
/// add/remove, 1/ρ_q for replace.
fn sigma2(rho: &Rational, nb: Neighbors) -> Rational {
    match nb {
        Neighbors::AddRemove => Rational::from(rho.recip_ref()) / 2u32,
        Neighbors::Replace => Rational::from(rho.recip_ref()),
    }
}

fn shifts(nb: Neighbors) -> &'static str {
    match nb {
        Neighbors::AddRemove => "1",
        Neighbors::Replace => "2",
    }
}

fn total_row(level: &str, query: &str, n: usize, rho: &Rational, nb: Neighbors) -> DescribeRow {
    DescribeRow {
        level: level.into(),
        query: query.into(),
        queries: n.to_string(),
        rho: rho.to_string(),
        rho_decimal: decimal(rho),
        sigma2: None,
        sigma2_decimal: None,
        sensitivity: "1",
        neighbors: nb.as_str(),
        shifts_per_query: shifts(nb),
    }
}

fn level_rows(alloc: &Allocation, level: &Level, rows: &mut Vec<DescribeRow>) {
    let nb = alloc.neighbors;
    for (i, q) in level.query_rho.iter().enumerate() {
        let name = level.query_names.get(i).cloned().unwrap_or_else(|| (i + 1).to_string());
        let s2 = sigma2(q, nb);
        rows.push(DescribeRow {
            query: name,
            queries: "1".into(),
            sigma2: Some(s2.to_string()),
            sigma2_decimal: Some(decimal(&s2)),
            ..total_row(&level.name, "", 1, q, nb)
        });
    }
    rows.push(total_row(&level.name, "(level total)", level.query_rho.len(), &level.rho, nb));
}

/// One row per query, a total row per level and one for the whole allocation.
pub fn rows(alloc: &Allocation) -> Vec<DescribeRow> {
    let mut rows = Vec::new();
    for level in &alloc.levels {
        level_rows(alloc, level, &mut rows);
    }
    let n: usize = alloc.levels.iter().map(|l| l.query_rho.len()).sum();
    rows.push(total_row("(all levels)", "(total)", n, &alloc.total_rho(), alloc.neighbors));
    rows
}

pub fn run(a: DescribeArgs) -> Fallible<String> {
    let alloc = Allocation::from_path(&a.allocation)?;
    let cols = columns::<DescribeRow>();
    let rows = rows(&alloc).iter().map(|r| row(r)?.with_columns(&cols)).collect::<Result<Vec<_>, _>>()?;
    Ok(render_rows(&rows, a.format))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: ρ = 1, level A = 1/2 split 1/4, 3/4 → ρ_q = 1/8, 3/8, σ² = 4, 4/3; replace doubles σ².
    #[test]
    fn budgets_and_variances_by_hand() {
        let t = "rho = \"1\"\n[[level]]\nname = \"A\"\nshare = \"1/2\"\nquery_shares = [\"1/4\", \"3/4\"]\n";
        let a = Allocation::from_toml(t).unwrap();
        let r: Vec<_> = rows(&a).iter().map(|r| row(r).unwrap()).collect();
        assert_eq!(r.len(), 4);
        assert_eq!((r[0].get("rho"), r[0].get("sigma2")), (Some("1/8"), Some("4")));
        assert_eq!((r[1].get("rho"), r[1].get("sigma2")), (Some("3/8"), Some("4/3")));
        assert_eq!(r[1].get("sigma2_decimal"), Some("1.3333333333333333"));
        assert_eq!((r[2].get("query"), r[2].get("rho"), r[2].get("queries")), (Some("(level total)"), Some("1/2"), Some("2")));
        assert_eq!(r[3].get("rho"), Some("1/2"));
        let b = Allocation::from_toml(&format!("neighbors = \"replace\"\n{t}")).unwrap();
        let r: Vec<_> = rows(&b).iter().map(|r| row(r).unwrap()).collect();
        assert_eq!((r[0].get("sigma2"), r[0].get("shifts_per_query")), (Some("8"), Some("2")));
    }
}
