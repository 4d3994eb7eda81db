//! The tilted engine's price: its estimated seconds for a query, from the plans of the lines it would compute
//! first (the planner compares it with the other engines' offers).

use super::*;

/// Estimated seconds, at 180 bits on this project's 2-core machine, of a point of a line: the composition's
/// powers, and each law's closed form (below); of a point in one evaluation of the sums (`tilted_line.rs`);
/// and of the planning. Measured 2026-11-30: 1,000 × Laplace(10), 54,785 points, 0.25 s for the Laplace
/// law's values, 0.25 s for the powers, 0.06 s per sum, 2–5 ms of planning; 10 bounded-range releases of
/// ε = 1/2, about 2,000 points, 0.05–0.08 s.
const SECONDS_PER_POWER_POINT: f64 = 4.5e-6;
const SECONDS_PER_SUM_POINT: f64 = 1.1e-6;
const PLANNING_SECONDS: f64 = 0.005;
/// Estimated seconds of a point of a rest bounded point by point (`tilted_rest`: its planning in f64 and its
/// certified sum in balls; measured 2026-12-01, 1,000 × Laplace(10), δ(17): 151,552 points, 0.07 s in all).
const SECONDS_PER_REST_POINT: f64 = 5e-7;

/// A law's closed form at one point (seconds, as above); None: a quadrature or a direct sum, whose cost per
/// node is not foreseen well by its count of nodes (10–40 times off).
fn seconds_per_point(m: &Mgf) -> Option<f64> {
    match m {
        Mgf::Gaussian { .. } => Some(2e-6),
        Mgf::Laplace { .. } => Some(4.5e-6),
        Mgf::BoundedRange { .. } => Some(30e-6),
        _ => None,
    }
}

/// The engine's estimated seconds for δ(ε), ε(δ) and f(α) at the digits asked, from its plans of the lines
/// it would compute first (the larger direction's): the planning, the line's points, and the points times the
/// sums it takes (one for δ, about six for ε: the check at 0, three steps of the iteration, the bracket's
/// two; about twelve for f), in proportion to the precision. Where no line is planned within the work cap,
/// those of the fewer digits it then answers at. Only where every law's line is a closed form
/// ([`seconds_per_point`]); None elsewhere. Planned from the query alone (the plans are kept in the state, a
/// function of their keys): the same estimate on a fresh state.
pub(super) fn estimate(lines: &Lines, mgfs: &[(Mgf, u64)], q: Query, digits: u32) -> Option<f64> {
    // (beyond the work cap at the digits asked, the engine answers at fewer: their cost, and the plannings
    // before it)
    let mut spent = 0.0;
    for d in std::iter::once(digits).chain(fewer_digits(digits)) {
        match estimate_at(lines, mgfs, q, d)? {
            Some(seconds) => return Some(spent + seconds),
            None => spent += PLANNING_SECONDS,
        }
    }
    None
}

/// [`estimate`] at `digits`: None where it is not estimated, Some(None) where no line is planned within the
/// work cap.
fn estimate_at(lines: &Lines, mgfs: &[(Mgf, u64)], q: Query, digits: u32) -> Option<Option<f64>> {
    let own: f64 = mgfs.iter().map(|(m, _)| seconds_per_point(m)).sum::<Option<f64>>()?;
    let n_total: u64 = mgfs.iter().map(|(_, n)| *n).sum();
    let prec = working_prec(digits, n_total);
    let grids = planning_grids(mgfs);
    let mut most: f64 = 0.0;
    for &dir in directions(mgfs) {
        let comp = Composition { laws: mgfs, grids: &grids, dir, prec, digits, lines };
        let chernoff = |x: f64| comp.tilt(x).1;
        let mut on = comp;
        let (at, sums) = match q {
            // (the planning point as `Composition::delta` takes it: ε enclosed at the working precision)
            Query::Delta(e) if *e >= 0 => {
                (comp.planned(Estimate::Chernoff, chernoff, chernoff(Interval::from_rational(e, prec).to_f64())).ok()??, 1.0)
            }
            Query::Epsilon(d) if *d > 0 && *d < 1 => (comp.planned(Estimate::Chernoff, chernoff, d.to_f64().ln()).ok()??, 6.0),
            // (the threshold's iteration, about six sums, the bracket's four and more; twice where the retry
            // on finer lines runs)
            Query::Tradeoff(a) if *a > 0 && *a < 1 => {
                // (the first line as the query plans it: f(α) with its threshold below 0 is found on the
                // swapped pair's line)
                let plan = comp.first_line(a).ok()?;
                if plan.below {
                    on = comp.swapped();
                }
                (plan.at?, 12.0)
            }
            _ => return None,
        };
        let Some(plan) = on.planned_line(at).ok()? else { return Some(None) };
        let points = (plan.k_max + 1) as f64;
        let per_point = own + mgfs.len() as f64 * SECONDS_PER_POWER_POINT + sums * SECONDS_PER_SUM_POINT;
        let rest = plan.far as f64 * SECONDS_PER_REST_POINT;
        let seconds = PLANNING_SECONDS + rest + points * per_point * f64::from(prec) / 180.0;
        most = most.max(seconds);
    }
    Some(Some(most))
}
