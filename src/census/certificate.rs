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
use crate::fourier::smooth::{epsilon_smooth, SmoothParams};
use crate::model::GaussGroup;
use crate::num::format::{fmt_down, fmt_nearest, fmt_up};
use crate::num::Interval;
use crate::pld::compose::{estimated_window, MAX_WINDOW};
use crate::pld::compose_groups;
use crate::report::Record;
use rug::{Float, Rational};

fn rec(product: &str, nb: &str, quantity: &str, value: String, note: &str) -> Record {
    let mut r = Record::new();
    r.push("product", product);
    r.push("neighbors", nb);
    r.push("quantity", quantity);
    r.push("value", value);
    r.push("note", note);
    r
}

fn dec(q: &Rational, d: usize) -> String {
    fmt_nearest(&Float::with_val(256, q), d)
}

/// Loss grid (1/GRID_DEN) of the grid-rounding cross-check (`tightdp epsilon --grid`).
pub const GRID_DEN: u32 = 20000;

/// Default width of the certified ε bracket when the budgets share no practical lattice.
pub const DEFAULT_WIDTH: f64 = 1e-9;

/// Certified ε(δ) of a set of groups: the lattice privacy-loss distribution when the loss slopes share
/// a practical lattice, otherwise the smoothed Fourier inversion (src/fourier/smooth.rs) with a bracket
/// at most `width` wide. Returns the enclosure and a note saying which.
pub fn exact_eps(groups: &[GaussGroup], delta: &Rational, prec: u32, width: f64) -> Result<(Interval, String), String> {
    exact_eps_with(groups, delta, prec, width, MAX_WINDOW)
}

/// Lattice entries above which the block-within-geolevel rows use the (faster) smoothed inversion.
pub const FAST_WINDOW: u64 = 100_000;

/// As [`exact_eps`], but the smoothed inversion is tried first whenever the lattice would exceed
/// `lattice_max` entries (falling back to the lattice when the smoothed method declines).
pub fn exact_eps_with(
    groups: &[GaussGroup],
    delta: &Rational,
    prec: u32,
    width: f64,
    lattice_max: u64,
) -> Result<(Interval, String), String> {
    let est = estimated_window(groups, prec)?;
    if est > lattice_max.min(MAX_WINDOW) {
        match epsilon_smooth(groups, delta, &SmoothParams { width, ..Default::default() }) {
            Ok(e) => {
                let why = if est > MAX_WINDOW { format!(" (no practical common lattice: ~{est:.3e} entries)") } else { String::new() };
                let note = format!("certified smoothed Fourier inversion{why}, smoothing w = {:.2e}, width {:.1e}", e.w, e.width());
                return Ok((e.interval(), note));
            }
            // no lattice to fall back to
            Err(err) if est > MAX_WINDOW => return Err(err),
            Err(_) => {}
        }
    }
    let prof = compose_groups(groups, prec)?;
    let e = prof.epsilon(delta)?;
    let note = format!("lattice PLD, certified, prec {prec}, width {}", fmt_up(&e.width(), 2));
    Ok((e, note))
}

pub fn certificate(allocs: &[Allocation], delta: &Rational, prec: u32, exact: bool, width: f64) -> Result<Vec<Record>, String> {
    let mut rows = Vec::new();
    let nbs: Vec<&str> = allocs.iter().map(|a| a.neighbors.as_str()).collect();
    if nbs.windows(2).any(|w| w[0] != w[1]) {
        return Err("products with different neighbour relations cannot be composed in one certificate".into());
    }
    let nb = nbs[0];
    let name = allocs.iter().map(|a| a.name.clone()).collect::<Vec<_>>().join(" + ");
    let rho: Rational = allocs.iter().map(|a| a.total_rho()).fold(Rational::from(0), |x, y| x + y);
    rows.push(rec(&name, nb, "delta", dec(delta, 6), ""));
    rows.push(rec(&name, nb, "rho_total", rho.to_string(), "exact fraction"));
    rows.push(rec(&name, nb, "rho_total_decimal", dec(&rho, 20), ""));
    let bs = zcdp::eps_bs(&rho, delta, prec);
    rows.push(rec(&name, nb, "eps_zcdp_bun_steinke", fmt_up(&bs.hi, 12), "rho + 2 sqrt(rho log 1/delta)"));
    let (cks, alpha) = zcdp::eps_cks(&rho, delta, prec);
    rows.push(rec(&name, nb, "eps_zcdp_cks", fmt_up(&cks.hi, 14), &format!("Canonne-Kamath-Steinke, alpha* = {}", fmt_nearest(&alpha, 8))));
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
                fmt_up(&c.hi, 12),
                &format!(
                    "CKS at rho = {} (levels {}..{}); Bun-Steinke {}",
                    dec(&r, 10),
                    a.levels[n - 1].name,
                    a.levels[k].name,
                    fmt_up(&zcdp::eps_bs(&r, delta, prec).hi, 10)
                ),
            ));
            if exact {
                // the exact f-DP ε of the same levels, next to the zCDP figure
                let qr: Vec<Rational> = a.levels[k..].iter().flat_map(|l| l.query_rho.iter().cloned()).collect();
                let groups = crate::census::allocation::group_mechanisms(&qr, a.neighbors);
                let (e, note) = exact_eps_with(&groups, delta, prec, width, FAST_WINDOW)?;
                rows.push(rec(
                    &a.name,
                    nb,
                    &format!("eps_exact_block_within[{}]", a.levels[k].name),
                    fmt_up(&e.hi, 12),
                    &format!("certified [{}, {}]; {note}", fmt_down(&e.lo, 14), fmt_up(&e.hi, 14)),
                ));
            }
        }
    }
    if exact {
        let mut groups: Vec<GaussGroup> = Vec::new();
        for a in allocs {
            for g in a.all_mechanisms() {
                if let Some(x) = groups.iter_mut().find(|x| x.sigma2 == g.sigma2 && x.mu == g.mu) {
                    x.count += g.count;
                } else {
                    groups.push(g);
                }
            }
        }
        let (e, note) = exact_eps(&groups, delta, prec, width)?;
        rows.push(rec(&name, nb, "eps_exact_lo", fmt_down(&e.lo, 20), &note));
        rows.push(rec(&name, nb, "eps_exact_hi", fmt_up(&e.hi, 20), ""));
    }
    Ok(rows)
}
