//! `tightdp renyi`: Rényi divergences and the tight zCDP parameter on the command line — the columns, the
//! values against scripts/reference/renyi_divergences.txt (mpmath's defining sums), and the refusals.

use crate::common::{csv_rows, holds_rounded, ok, refused, rows};

/// One row per order, then the ρ row; both values hold the mpmath references.
#[test]
fn divergences_and_rho_rows_hold_the_references() {
    let out = ok(&["renyi", "--mech", "dlap:scale=4", "--alpha", "2,5", "--rho", "--format", "csv"]);
    let table = csv_rows(&out);
    assert_eq!(table[0].join(","), tightdp::renyi_columns().join(","));
    assert_eq!(table.len(), 4, "{out}");
    let r = rows(&out);
    assert_eq!(crate::common::get(&r[0], "measure"), "renyi_divergence");
    holds_rounded(&r[0], "value", "0.060931586236056381462004137555705");
    holds_rounded(&r[1], "value", "0.13106678475947591236632917378166");
    assert_eq!(crate::common::get(&r[2], "measure"), "tight_zcdp_rho");
    assert_eq!(crate::common::get(&r[2], "alpha"), "");
    holds_rounded(&r[2], "value", "0.031088250442899052013661818951473");
    assert_eq!(crate::common::get(&r[2], "method"), "renyi");
}

#[test]
fn mistakes_are_refused_in_one_line() {
    refused(&["renyi", "--mech", "dlap:scale=4"], &["--alpha", "--rho"]);
    refused(&["renyi", "--mech", "dlap:scale=4", "--alpha", "1"], &["greater than 1"]);
    refused(&["renyi", "--mech", "dlap:scale=4", "--alpha", "two"], &["alpha"]);
    refused(&["renyi", "--mech", "dp:epsilon=1,delta=1e-6", "--alpha", "2"], &["infinite"]);
    refused(&["renyi", "--mech", "dgauss:sigma2=4,q=0.1,n=10", "--rho"], &["does not give"]);
    refused(&["renyi", "--mech", "dlap:scale=4", "--alpha", "2", "--method", "lattice"], &["--method"]);
}
