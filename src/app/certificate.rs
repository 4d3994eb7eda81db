//! Privacy certificates of Census production allocations (issue: "What the 2020 Census really spent").
//!
//! For one product or several released sequentially: total ρ as an exact fraction and a decimal, the
//! zCDP-implied ε by Bun–Steinke (ρ + 2√(ρ log 1/δ)) and by Canonne–Kamath–Steinke (the conversion the
//! Bureau's certificate uses), per-level ρ, the "block within geolevel" ε (all levels from the block up to
//! that level), and the exact f-DP ε of the whole release — from the lattice privacy-loss distribution, or
//! where the budgets share no practical lattice from the certified smoothed Fourier inversion —
//! under the file's own neighbour relation (stated in every row).

use crate::budget::zcdp;
use crate::census::allocation::Allocation;
use crate::error::Fallible;
use crate::fallible;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::record::{row, Record};
use rug::{Float, Rational};
use serde::Serialize;

/// A row of the certificate: one quantity of the release.
#[derive(Serialize)]
struct CertificateRow<'a> {
    product: &'a str,
    neighbors: &'a str,
    quantity: &'a str,
    value: String,
    note: &'a str,
}

fn rec(product: &str, neighbors: &str, quantity: &str, value: String, note: &str) -> Record {
    row(&CertificateRow { product, neighbors, quantity, value, note }).expect("invariant: a flat row")
}

fn dec(q: &Rational, d: usize) -> String {
    fmt_nearest(&Float::with_val(256, q), d)
}

pub use crate::account::{epsilon_at as exact_eps, CERT_WIDTH as DEFAULT_WIDTH, FAST_WINDOW};

pub fn certificate(allocs: &[Allocation], delta: &Rational, prec: Option<u32>, exact: bool, width: f64) -> Fallible<Vec<Record>> {
    // the zCDP conversions at the common precision; the exact ε by the accountant's choice for its default
    // digits unless --prec forces an arithmetic
    let arith = prec.map(crate::num::Arith::from_legacy_prec);
    let prec = prec.unwrap_or(crate::num::DEFAULT_PREC);
    let mut rows = Vec::new();
    let nbs: Vec<&str> = allocs.iter().map(|a| a.neighbors.as_str()).collect();
    if nbs.windows(2).any(|w| w[0] != w[1]) {
        return fallible!(Input, "products with different neighbour relations cannot be composed in one certificate");
    }
    let nb = nbs[0];
    let name = allocs.iter().map(|a| a.name.clone()).collect::<Vec<_>>().join(" + ");
    let rho: Rational = allocs.iter().map(|a| a.total_rho()).fold(Rational::from(0), |x, y| x + y);
    rows.push(rec(&name, nb, "delta", dec(delta, 6), ""));
    rows.push(rec(&name, nb, "rho_total", rho.to_string(), "exact fraction"));
    rows.push(rec(&name, nb, "rho_total_decimal", dec(&rho, 20), ""));
    let bs = zcdp::eps_bs(&rho, delta, prec);
    rows.push(rec(&name, nb, "eps_zcdp_bun_steinke", fmt_up(bs.hi(), 12), "rho + 2 sqrt(rho log 1/delta)"));
    let (cks, alpha) = zcdp::eps_cks(&rho, delta, prec);
    rows.push(rec(
        &name,
        nb,
        "eps_zcdp_cks",
        fmt_up(cks.hi(), 14),
        &format!("Canonne-Kamath-Steinke, alpha* = {}", fmt_nearest(&alpha, 8)),
    ));
    for a in allocs {
        for l in &a.levels {
            rows.push(rec(&a.name, nb, &format!("rho_level[{}]", l.name), l.rho.to_string(), &dec(&l.rho, 12)));
        }
        // Block within geolevel: levels from the last (block) up to each level.
        let n = a.levels.len();
        for k in (0..n).rev() {
            let r: Rational = a.levels[k..].iter().map(|l| l.rho.clone()).fold(Rational::from(0), |x, y| x + y);
            let (c, _) = zcdp::eps_cks(&r, delta, prec);
            rows.push(rec(
                &a.name,
                nb,
                &format!("eps_block_within[{}]", a.levels[k].name),
                fmt_up(c.hi(), 12),
                &format!(
                    "CKS at rho = {} (levels {}..{}); Bun-Steinke {}",
                    dec(&r, 10),
                    a.levels[n - 1].name,
                    a.levels[k].name,
                    fmt_up(zcdp::eps_bs(&r, delta, prec).hi(), 10)
                ),
            ));
            if exact {
                // the exact f-DP ε of the same levels, next to the zCDP figure
                let qr: Vec<Rational> = a.levels[k..].iter().flat_map(|l| l.query_rho.iter().cloned()).collect();
                let comp = crate::census::allocation::queries_composition(&qr, a.neighbors)?;
                let e = exact_eps(&comp, delta, arith, width, Some(FAST_WINDOW))?;
                rows.push(rec(
                    &a.name,
                    nb,
                    &format!("eps_exact_block_within[{}]", a.levels[k].name),
                    fmt_up(e.hi(), 12),
                    &format!("certified [{}, {}]; {}", fmt_down(e.lo(), 14), fmt_up(e.hi(), 14), e.describe()),
                ));
            }
        }
    }
    if exact {
        let mut comp = allocs[0].composition()?;
        for a in &allocs[1..] {
            comp = comp.compose(&a.composition()?)?;
        }
        let e = exact_eps(&comp, delta, arith, width, None)?;
        rows.push(rec(&name, nb, "eps_exact_lo", fmt_down(e.lo(), 20), &e.describe()));
        rows.push(rec(&name, nb, "eps_exact_hi", fmt_up(e.hi(), 20), ""));
    }
    Ok(rows)
}
