//! The L1 step of TopDown: controlled rounding of the L2 solution to non-negative integers that again
//! sum to the parent, keep the invariants, and are closest to the L2 solution in L1.
//!
//! Production design (uscensusbureau/DAS_2020_Redistricting_Production_Code, read for the ideas, no
//! code taken): `programs/optimization/simple_rounder.py` (`GeoRound`, the `CELLWISE_ROUNDER`) writes
//! every child cell as ⌊x̃⌋ + b with b binary and minimises Σ (1 − 2·frac(x̃))·b — which is Σ|x − x̃| up
//! to a constant — subject to the parent constraints and the invariants on the leftovers
//! (`optimizer.py`, `addConstraint` with `rounder=True`), over the cells non-zero in the parent. It
//! solves that as a binary program with Gurobi.
//!
//! Here the same problem is solved without restricting x to ⌊x̃⌋ or ⌈x̃⌉ (the L1-closest integer
//! point over all non-negative integers, as the tests check by exhaustive search): |x − x̃| is convex
//! and piecewise linear with integer breakpoints on the integers, so each cell is split into three
//! segments x = a + b + d with a ∈ [0, ⌊x̃⌋] at cost −1, b ∈ [0, 1] at cost 1 − 2·frac(x̃) (only when
//! x̃ is fractional) and d ≥ 0 at cost +1; the costs increase, so an optimum fills them in order and
//! Σ cost + Σ x̃ = Σ|x − x̃|. The constraints — Σ_c x_{c,k} = p_k per cell, 1ᵀx_c = T_c per invariant
//! — form the incidence matrix of a bipartite graph (a transportation problem), which is totally
//! unimodular; with integer bounds and right-hand sides every vertex of the LP is integral, so the
//! simplex optimum is the integer optimum. The LP is solved with microlp (a bounded-variable simplex),
//! its values are rounded to the nearest integers and the result is checked exactly in integer
//! arithmetic; should a value not come out integral, the same model is solved again with integer
//! variables (microlp's branch and bound).

use crate::error::Fallible;
use crate::{err, fallible};
use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp, Variable};

/// The rounding problem of one parent: `x` holds the m children's L2 histograms (child-major, n cells
/// each), `parent` the parent's fixed integer histogram (None at the root), `totals` the invariants.
pub struct RoundingProblem<'a> {
    pub n: usize,
    pub x: &'a [f64],
    pub parent: Option<&'a [i64]>,
    pub totals: &'a [Option<i64>],
}

/// Σ|y − x̃| (the tests' check of the rounding).
#[cfg(test)]
pub fn l1(x: &[f64], y: &[i64]) -> f64 {
    x.iter().zip(y).map(|(a, &b)| (a - b as f64).abs()).sum()
}

pub fn round(r: &RoundingProblem) -> Fallible<Vec<i64>> {
    let xt = validate(r)?;
    // no constraint at all (root without invariant): each cell to its nearest integer
    if r.parent.is_none() && r.totals.iter().all(|t| t.is_none()) {
        return Ok(xt.iter().map(|&v| v.round() as i64).collect());
    }
    if let Ok(y) = solve_lp(r, &xt, false) {
        return Ok(y);
    }
    solve_lp(r, &xt, true)
}

/// The input checks of `round`; returns x̃ = max(x, 0).
fn validate(r: &RoundingProblem) -> Fallible<Vec<f64>> {
    let n = r.n;
    let m = r.totals.len();
    if r.x.len() != n * m {
        return fallible!(Input, "rounding: {} values for {m} children of {n} cells", r.x.len());
    }
    if r.x.iter().any(|v| !v.is_finite()) {
        return fallible!(Input, "rounding: the L2 solution has a non-finite value");
    }
    if r.totals.iter().flatten().any(|&t| t < 0) {
        return fallible!(Input, "rounding: negative invariant total");
    }
    // the L2 solution is non-negative up to its tolerance
    let xt: Vec<f64> = r.x.iter().map(|&v| v.max(0.0)).collect();
    if let Some(p) = r.parent {
        if p.len() != n || p.iter().any(|&v| v < 0) {
            return fallible!(Input, "rounding: the parent histogram must have n non-negative cells");
        }
        let sp: i64 = p.iter().sum();
        let st: i64 = r.totals.iter().flatten().sum();
        let all = r.totals.iter().all(|t| t.is_some());
        if (all && st != sp) || st > sp {
            return fallible!(Input, "rounding: the invariant totals ({st}) do not fit the parent's total ({sp})");
        }
    }
    Ok(xt)
}

/// Cells that are variables: with a parent, the cells non-zero in the parent (the others are 0).
fn cell_live(r: &RoundingProblem, k: usize) -> bool {
    r.parent.is_none_or(|p| p[k] > 0)
}

fn solve_lp(r: &RoundingProblem, xt: &[f64], integer: bool) -> Fallible<Vec<i64>> {
    let n = r.n;
    let m = r.totals.len();
    let mut lp = Lp::new(OptimizationDirection::Minimize);
    // segments of each live cell: (variable, which cell)
    let mut segs: Vec<Vec<Variable>> = vec![Vec::new(); n * m];
    let add = |lp: &mut Lp, cost: f64, hi: f64| -> Variable {
        if integer {
            lp.add_integer_var(cost, (0, hi.min(i32::MAX as f64) as i32))
        } else {
            lp.add_var(cost, (0.0, hi))
        }
    };
    for c in 0..m {
        // a cell can hold at most the parent's cell, or the child's total
        let cap_total = r.totals[c].map(|t| t as f64);
        for k in 0..n {
            if !cell_live(r, k) {
                continue;
            }
            let cap = match (r.parent, cap_total) {
                (Some(p), Some(t)) => (p[k] as f64).min(t),
                (Some(p), None) => p[k] as f64,
                (None, Some(t)) => t,
                (None, None) => f64::INFINITY,
            };
            let v = xt[c * n + k];
            let fl = v.floor();
            let f = v - fl;
            let s = &mut segs[c * n + k];
            if fl >= 1.0 {
                s.push(add(&mut lp, -1.0, fl.min(cap)));
            }
            if f > 0.0 && fl < cap {
                s.push(add(&mut lp, 1.0 - 2.0 * f, 1.0));
            }
            let rest = cap - fl - if f > 0.0 { 1.0 } else { 0.0 };
            if rest > 0.0 {
                s.push(add(&mut lp, 1.0, rest));
            }
        }
    }
    if let Some(p) = r.parent {
        for k in 0..n {
            if p[k] == 0 {
                continue;
            }
            let e: Vec<(Variable, f64)> = (0..m).flat_map(|c| segs[c * n + k].iter().map(|&v| (v, 1.0))).collect();
            lp.add_constraint(&e[..], ComparisonOp::Eq, p[k] as f64);
        }
    }
    let with_total: Vec<usize> = (0..m).filter(|&c| r.totals[c].is_some()).collect();
    // every child's total and the parent given: one row is implied by the others
    let skip_last = r.parent.is_some() && with_total.len() == m;
    for (i, &c) in with_total.iter().enumerate() {
        if skip_last && i + 1 == with_total.len() {
            break;
        }
        let e: Vec<(Variable, f64)> = (0..n).flat_map(|k| segs[c * n + k].iter().map(|&v| (v, 1.0))).collect();
        lp.add_constraint(&e[..], ComparisonOp::Eq, r.totals[c].expect("invariant: a child with a total") as f64);
    }
    let y = integral_solution(lp, &segs)?;
    check(r, &y)?;
    Ok(y)
}

/// Solve the rounding LP and read each cell's value as the sum of its variables (`segs`, one list per
/// cell), every variable integral to 1e-6 (a totally unimodular LP's vertex); the solver's failures and
/// panics are errors.
pub(super) fn integral_solution(lp: Lp, segs: &[Vec<Variable>]) -> Fallible<Vec<i64>> {
    let sol = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| lp.solve()))
        .map_err(|_| err!(Input, "rounding: the LP solver failed"))?
        .map_err(|e| err!(Input, "rounding: {e}"))?
        .into_solution()
        .map_err(|_| err!(Input, "rounding: the LP solver stopped early"))?;
    let mut y = vec![0i64; segs.len()];
    for (i, s) in segs.iter().enumerate() {
        let mut t = 0i64;
        for &v in s {
            let val = sol.var_value(v);
            let ri = val.round();
            if (val - ri).abs() > 1e-6 {
                return fallible!(Input, "rounding: LP value {val} is not integral");
            }
            t += ri as i64;
        }
        y[i] = t;
    }
    Ok(y)
}

/// The constraints, exactly: y ≥ 0, Σ_c y_c = parent, 1ᵀy_c = T_c.
pub fn check(r: &RoundingProblem, y: &[i64]) -> Fallible<()> {
    let n = r.n;
    let m = r.totals.len();
    if y.iter().any(|&v| v < 0) {
        return fallible!(Input, "rounding: negative count");
    }
    if let Some(p) = r.parent {
        for k in 0..n {
            if (0..m).map(|c| y[c * n + k]).sum::<i64>() != p[k] {
                return fallible!(Input, "rounding: cell {k} does not add up to the parent");
            }
        }
    }
    for c in 0..m {
        if let Some(t) = r.totals[c] {
            if y[c * n..(c + 1) * n].iter().sum::<i64>() != t {
                return fallible!(Input, "rounding: child {c} misses its invariant total {t}");
            }
        }
    }
    Ok(())
}

/// The L1-closest table by successive shortest paths, a cheaper route than the simplex for
/// `unique_optimum` to certify: every live cell starts at its nearest integer (each unit step then
/// costs ≥ 0, so no cycle of steps has a negative cost), and the parent cells and invariant totals
/// that do not yet add up are balanced one unit at a time along cheapest paths of unit steps (the
/// bipartite graph of `unique_optimum`), which keeps every cycle non-negative, so the end point is
/// optimal (min-cost flow with convex costs). None if some imbalance cannot be routed or a shortest
/// path search does not settle.
pub fn round_by_paths(r: &RoundingProblem) -> Option<Vec<i64>> {
    let (n, m) = (r.n, r.totals.len());
    let xt = validate(r).ok()?;
    let (mut y, mut excess) = nearest_start(r, &xt)?;
    let z = n + m;
    let nodes = z + 1;
    let (arcs, live_arcs) = step_arcs(r);
    let mut dist = vec![0.0f64; nodes];
    let mut pred: Vec<Option<(usize, bool)>> = vec![None; nodes];
    // cost of each arc's unit step forward (adding to its cell) and back (None at 0); free arcs 0
    let mut cost: Vec<(f64, Option<f64>)> = vec![(0.0, Some(0.0)); arcs.len()];
    while excess.iter().any(|&e| e > 0) {
        for (i, &(_, _, cell)) in arcs[..live_arcs].iter().enumerate() {
            cost[i] = steps(xt[cell], y[cell]);
        }
        if !bellman_ford(&arcs, &cost, &excess, &mut dist, &mut pred) {
            return None;
        }
        let sink = (0..nodes).filter(|&v| excess[v] < 0 && dist[v].is_finite()).min_by(|&a, &b| dist[a].total_cmp(&dist[b]))?;
        // walk back to the source, applying the unit steps
        let mut v = sink;
        let mut guard = 0;
        while let Some((i, forward)) = pred[v] {
            let (a, b, cell) = arcs[i];
            if i < live_arcs {
                y[cell] += if forward { 1 } else { -1 };
            }
            v = if forward { a } else { b };
            guard += 1;
            if guard > nodes {
                return None;
            }
        }
        excess[v] -= 1;
        excess[sink] += 1;
    }
    check(r, &y).ok()?;
    Some(y)
}

/// The nearest integers to the estimates (0 in dead cells), and the excess of each constrained node
/// (cells, children; the free node z = n + m last): the units it must still send along steps (a step
/// cell → child adds a unit to that cell, child → cell takes one away). None: the totals cannot balance
/// without a free node.
fn nearest_start(r: &RoundingProblem, xt: &[f64]) -> Option<(Vec<i64>, Vec<i64>)> {
    let (n, m) = (r.n, r.totals.len());
    let mut y: Vec<i64> = xt.iter().map(|&v| v.round() as i64).collect();
    for c in 0..m {
        for k in 0..n {
            if !cell_live(r, k) {
                y[c * n + k] = 0;
            }
        }
    }
    let z = n + m;
    let mut excess = vec![0i64; z + 1];
    if let Some(p) = r.parent {
        for k in 0..n {
            excess[k] = p[k] - (0..m).map(|c| y[c * n + k]).sum::<i64>();
        }
    }
    for c in 0..m {
        if let Some(t) = r.totals[c] {
            excess[n + c] = y[c * n..(c + 1) * n].iter().sum::<i64>() - t;
        }
    }
    excess[z] = -excess[..z].iter().sum::<i64>();
    let has_z = r.parent.is_none() || r.totals.iter().any(|t| t.is_none());
    if !has_z && excess[z] != 0 {
        return None;
    }
    Some((y, excess))
}

/// The arcs (from, to, cell index or usize::MAX for a free arc): cell → child for every live cell (the
/// first `live_arcs`), then the free arcs to z of unconstrained cells and children.
fn step_arcs(r: &RoundingProblem) -> (Vec<(usize, usize, usize)>, usize) {
    let (n, m) = (r.n, r.totals.len());
    let z = n + m;
    let mut arcs: Vec<(usize, usize, usize)> = Vec::new();
    for c in 0..m {
        for k in 0..n {
            if cell_live(r, k) {
                arcs.push((k, n + c, c * n + k));
            }
        }
    }
    let live_arcs = arcs.len();
    if r.parent.is_none() {
        arcs.extend((0..n).map(|k| (k, z, usize::MAX)));
    }
    arcs.extend((0..m).filter(|&c| r.totals[c].is_none()).map(|c| (n + c, z, usize::MAX)));
    (arcs, live_arcs)
}

/// Bellman–Ford from every node with excess over the unit steps (forward at `cost.0`, back at `cost.1`
/// where a unit can be taken away): `dist` and `pred` of each node; false if it does not settle.
fn bellman_ford(
    arcs: &[(usize, usize, usize)],
    cost: &[(f64, Option<f64>)],
    excess: &[i64],
    dist: &mut [f64],
    pred: &mut [Option<(usize, bool)>],
) -> bool {
    let nodes = dist.len();
    for v in 0..nodes {
        dist[v] = if excess[v] > 0 { 0.0 } else { f64::INFINITY };
        pred[v] = None;
    }
    for _ in 0..=nodes {
        let mut changed = false;
        for (i, &(a, b, _)) in arcs.iter().enumerate() {
            let (up, down) = cost[i];
            if dist[a] + up < dist[b] - 1e-12 {
                dist[b] = dist[a] + up;
                pred[b] = Some((i, true));
                changed = true;
            }
            if let Some(d) = down {
                if dist[b] + d < dist[a] - 1e-12 {
                    dist[a] = dist[b] + d;
                    pred[a] = Some((i, false));
                    changed = true;
                }
            }
        }
        if !changed {
            return true;
        }
    }
    false
}

/// The change of |v − x̃| when a cell at v goes up by one, and down by one (None at 0).
fn steps(xt: f64, v: i64) -> (f64, Option<f64>) {
    let d = |t: i64| (t as f64 - xt).abs();
    (d(v + 1) - d(v), (v >= 1).then(|| d(v - 1) - d(v)))
}

/// Whether `y` is the only L1-closest integer table to x̃ = max(x, 0), by more than `margin`: every
/// other non-negative integer table meeting the constraints is farther from x̃, in L1, by more than
/// `margin`. Then `y` is also the only optimum for any x̃′ with Σ|x̃′ − x̃| < `margin` / 2 (a cycle's
/// cost moves by at most twice that), so an exact solver of the rounding problem returns `y` there.
///
/// The certificate (no approximation in the logic; float costs): the difference of two feasible
/// tables is an integer circulation in the bipartite graph of cells and children (a cell without a
/// parent row, a child without an invariant total, joined to a free node z), and it splits into unit
/// simple cycles of the same signs, whose costs add up to at most the difference of the L1 distances
/// (Σ|· − x̃| is separable and convex). A unit cycle at `y` costs Σ (|y ± 1 − x̃| − |y − x̃|) over its
/// cells. With node potentials from Bellman–Ford every step has a reduced cost ≥ 0 (none: a negative
/// cycle, `y` is not optimal) and a cycle costs the sum of its reduced costs; so if no cycle consists
/// of steps with reduced cost ≤ `margin`, every cycle costs more than `margin`. Such cycles are
/// looked for by contracting the edges tight in both directions (a tight cycle if one closes a loop)
/// and searching the remaining tight steps for a directed cycle.
pub fn unique_optimum(r: &RoundingProblem, y: &[i64], margin: f64) -> bool {
    let n = r.n;
    let m = r.totals.len();
    if r.x.len() != n * m || y.len() != n * m {
        return false;
    }
    // nodes: cells 0..n, children n..n + m, z = n + m. An edge (a, b, up, down): the step a → b (cost
    // `up`) adds one to its cell, b → a (`down`, None at 0) takes one away; free edges cost 0.
    let z = n + m;
    let nodes = z + 1;
    let mut edges: Vec<(usize, usize, f64, Option<f64>)> = Vec::with_capacity(n * m + n + m);
    for c in 0..m {
        for k in 0..n {
            if !cell_live(r, k) {
                continue;
            }
            let (up, down) = steps(r.x[c * n + k].max(0.0), y[c * n + k]);
            edges.push((k, n + c, up, down));
        }
    }
    if r.parent.is_none() {
        edges.extend((0..n).map(|k| (k, z, 0.0, Some(0.0))));
    }
    edges.extend((0..m).filter(|&c| r.totals[c].is_none()).map(|c| (n + c, z, 0.0, Some(0.0))));
    // potentials: shortest distances from a virtual source joined to every node at cost 0
    let mut pi = vec![0.0f64; nodes];
    let mut settled = false;
    for _ in 0..=nodes {
        let mut changed = false;
        for &(a, b, up, down) in &edges {
            if pi[a] + up < pi[b] - 1e-12 {
                pi[b] = pi[a] + up;
                changed = true;
            }
            if let Some(dn) = down {
                if pi[b] + dn < pi[a] - 1e-12 {
                    pi[a] = pi[b] + dn;
                    changed = true;
                }
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        return false;
    }
    // contract the edges tight both ways; a tight loop if one joins an already joined pair
    let mut comp: Vec<usize> = (0..nodes).collect();
    fn find(comp: &mut [usize], mut a: usize) -> usize {
        while comp[a] != a {
            comp[a] = comp[comp[a]];
            a = comp[a];
        }
        a
    }
    let tight = |a: usize, b: usize, cost: f64| cost + pi[a] - pi[b] <= margin;
    let mut one_way: Vec<(usize, usize)> = Vec::new();
    for &(a, b, up, down) in &edges {
        let fwd = tight(a, b, up);
        let bwd = down.is_some_and(|dn| tight(b, a, dn));
        if fwd && bwd {
            let (ca, cb) = (find(&mut comp, a), find(&mut comp, b));
            if ca == cb {
                return false;
            }
            comp[ca] = cb;
        } else if fwd {
            one_way.push((a, b));
        } else if bwd {
            one_way.push((b, a));
        }
    }
    // the one-way tight steps between the contracted nodes must not form a cycle (Kahn's algorithm)
    let mut indeg = vec![0usize; nodes];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for &(a, b) in &one_way {
        let (ca, cb) = (find(&mut comp, a), find(&mut comp, b));
        if ca == cb {
            return false;
        }
        out[ca].push(cb);
        indeg[cb] += 1;
    }
    let mut stack: Vec<usize> = (0..nodes).filter(|&v| indeg[v] == 0).collect();
    let mut removed = 0;
    while let Some(v) = stack.pop() {
        removed += 1;
        for &w in &out[v] {
            indeg[w] -= 1;
            if indeg[w] == 0 {
                stack.push(w);
            }
        }
    }
    removed == nodes
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// All ways to write `total` as an ordered sum of `parts` non-negative integers.
    fn compositions(total: i64, parts: usize) -> Vec<Vec<i64>> {
        if parts == 1 {
            return vec![vec![total]];
        }
        let mut out = Vec::new();
        for first in 0..=total {
            for mut rest in compositions(total - first, parts - 1) {
                rest.insert(0, first);
                out.push(rest);
            }
        }
        out
    }

    /// Every non-negative integer m×n table meeting the constraints, by enumeration: with a parent,
    /// every split of each parent cell among the children; at the root (one child with a total), every
    /// split of the total among the cells.
    fn all_feasible(r: &RoundingProblem) -> Vec<Vec<i64>> {
        let (n, m) = (r.n, r.totals.len());
        let mut out = Vec::new();
        match r.parent {
            None => {
                for y in compositions(r.totals[0].unwrap(), n) {
                    out.push(y);
                }
            }
            Some(p) => {
                let per_cell: Vec<Vec<Vec<i64>>> = (0..n).map(|k| compositions(p[k], m)).collect();
                let mut idx = vec![0usize; n];
                loop {
                    let mut y = vec![0i64; n * m];
                    for k in 0..n {
                        for c in 0..m {
                            y[c * n + k] = per_cell[k][idx[k]][c];
                        }
                    }
                    if check(r, &y).is_ok() {
                        out.push(y);
                    }
                    let mut k = 0;
                    while k < n {
                        idx[k] += 1;
                        if idx[k] < per_cell[k].len() {
                            break;
                        }
                        idx[k] = 0;
                        k += 1;
                    }
                    if k == n {
                        break;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn optimal_against_exhaustive_search() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut strict = 0;
        for case in 0..300 {
            let root = case % 5 == 0;
            let (n, m) = if root { (rng.gen_range(2..=4), 1) } else { (rng.gen_range(1..=3), rng.gen_range(2..=3)) };
            // an integer table, then a random zero-margin perturbation: x̃ ≥ 0 with integer margins
            let base: Vec<i64> = (0..n * m).map(|_| rng.gen_range(0..=3)).collect();
            let mut x: Vec<f64> = base.iter().map(|&v| v as f64).collect();
            if m >= 2 && n >= 2 {
                for _ in 0..3 {
                    let (c1, c2) = (rng.gen_range(0..m), rng.gen_range(0..m));
                    let (k1, k2) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    if c1 == c2 || k1 == k2 {
                        continue;
                    }
                    let t = rng.gen_range(0.0..1.5);
                    let (a, b, c, d) = (c1 * n + k1, c2 * n + k2, c1 * n + k2, c2 * n + k1);
                    if x[c] >= t && x[d] >= t {
                        x[a] += t;
                        x[b] += t;
                        x[c] -= t;
                        x[d] -= t;
                    }
                }
            } else {
                // one child or one cell: fractional values, margins kept by the constraints chosen below
                for v in x.iter_mut() {
                    *v += rng.gen_range(0.0..1.0);
                }
            }
            let parent: Vec<i64> = (0..n).map(|k| (0..m).map(|c| base[c * n + k]).sum()).collect();
            let totals: Vec<Option<i64>> =
                (0..m).map(|c| if root || rng.gen_bool(0.6) { Some(base[c * n..(c + 1) * n].iter().sum()) } else { None }).collect();
            let r = RoundingProblem { n, x: &x, parent: if root { None } else { Some(&parent) }, totals: &totals };
            let y = round(&r).unwrap();
            check(&r, &y).unwrap();
            let feas = all_feasible(&r);
            let best = feas.iter().map(|z| l1(&x, z)).fold(f64::INFINITY, f64::min);
            assert!((l1(&x, &y) - best).abs() < 1e-9, "case {case}: {y:?} has L1 {} but the optimum is {best} (x̃ = {x:?})", l1(&x, &y));
            // the floor/ceiling restriction of the production rounder gives the same optimum here
            let boxed = feas
                .iter()
                .filter(|z| z.iter().zip(&x).all(|(&v, &t)| v as f64 >= t.floor() - 1e-12 && v as f64 <= t.ceil() + 1e-12))
                .map(|z| l1(&x, z))
                .fold(f64::INFINITY, f64::min);
            if (boxed - best).abs() < 1e-9 {
                strict += 1;
            }
        }
        assert_eq!(strict, 300, "floor/ceiling rounding reached the unrestricted optimum in every case");
    }

    #[test]
    fn shortest_paths_and_the_uniqueness_certificate_against_exhaustive_search() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
        let (mut unique, mut ties) = (0, 0);
        for case in 0..400 {
            let root = case % 5 == 0;
            let (n, m) = if root { (rng.gen_range(2..=4), 1) } else { (rng.gen_range(1..=3), rng.gen_range(2..=3)) };
            let base: Vec<i64> = (0..n * m).map(|_| rng.gen_range(0..=3)).collect();
            // zero-margin moves of a coarse size (ties happen) or any size, or fractional noise
            let mut x: Vec<f64> = base.iter().map(|&v| v as f64).collect();
            if m >= 2 && n >= 2 {
                for _ in 0..3 {
                    let (c1, c2) = (rng.gen_range(0..m), rng.gen_range(0..m));
                    let (k1, k2) = (rng.gen_range(0..n), rng.gen_range(0..n));
                    let t = if case % 2 == 0 { 0.5 } else { rng.gen_range(0.0..1.5) };
                    let (a, b, c, d) = (c1 * n + k1, c2 * n + k2, c1 * n + k2, c2 * n + k1);
                    if c1 != c2 && k1 != k2 && x[c] >= t && x[d] >= t {
                        x[a] += t;
                        x[b] += t;
                        x[c] -= t;
                        x[d] -= t;
                    }
                }
            } else {
                for v in x.iter_mut() {
                    *v += if case % 2 == 0 { 0.5 } else { rng.gen_range(0.0..1.0) };
                }
            }
            let parent: Vec<i64> = (0..n).map(|k| (0..m).map(|c| base[c * n + k]).sum()).collect();
            let totals: Vec<Option<i64>> =
                (0..m).map(|c| if root || rng.gen_bool(0.5) { Some(base[c * n..(c + 1) * n].iter().sum()) } else { None }).collect();
            let r = RoundingProblem { n, x: &x, parent: if root { None } else { Some(&parent) }, totals: &totals };
            let y = round_by_paths(&r).unwrap_or_else(|| panic!("case {case}: no table"));
            check(&r, &y).unwrap();
            let feas = all_feasible(&r);
            let best = feas.iter().map(|z| l1(&x, z)).fold(f64::INFINITY, f64::min);
            assert!((l1(&x, &y) - best).abs() < 1e-9, "case {case}: {y:?} is not L1-closest to {x:?}");
            let second = feas.iter().filter(|z| **z != y).map(|z| l1(&x, z)).fold(f64::INFINITY, f64::min);
            let margin = 1e-3;
            if unique_optimum(&r, &y, margin) {
                unique += 1;
                assert!(second > best + margin, "case {case}: certified unique but {second} vs {best}");
            } else {
                ties += 1;
                // only a cycle of steps each within the margin stops the certificate
                assert!(second <= best + margin * (n + m + 1) as f64 + 1e-9, "case {case}: {second} vs {best}");
            }
        }
        assert!(unique > 150 && ties > 20, "{unique} unique, {ties} ties");
    }

    #[test]
    fn integer_fallback_reaches_the_same_optimum() {
        // the branch-and-bound model (used only if a simplex value came out fractional)
        let x = [1.6, 0.7, 0.2, 0.4, 1.3, 0.8];
        let p = [2i64, 2, 1];
        let totals = [Some(2), None];
        let r = RoundingProblem { n: 3, x: &x, parent: Some(&p), totals: &totals };
        let a = round(&r).unwrap();
        let b = solve_lp(&r, &x, true).unwrap();
        check(&r, &b).unwrap();
        let best = all_feasible(&r).iter().map(|z| l1(&x, z)).fold(f64::INFINITY, f64::min);
        assert!((l1(&x, &a) - best).abs() < 1e-9 && (l1(&x, &b) - best).abs() < 1e-9, "{a:?} {b:?} {best}");
    }

    #[test]
    fn integral_input_is_kept_and_bad_input_is_an_error() {
        let x = [2.0, 0.0, 1.0, 3.0];
        let p = [3i64, 3];
        let y = round(&RoundingProblem { n: 2, x: &x, parent: Some(&p), totals: &[Some(2), Some(4)] }).unwrap();
        assert_eq!(y, vec![2, 0, 1, 3]);
        // invariant totals that do not add up to the parent
        assert!(round(&RoundingProblem { n: 2, x: &x, parent: Some(&p), totals: &[Some(2), Some(5)] }).is_err());
        assert!(round(&RoundingProblem { n: 2, x: &[f64::NAN, 0.0], parent: None, totals: &[None] }).is_err());
        // root without invariant: nearest integers
        assert_eq!(round(&RoundingProblem { n: 3, x: &[0.4, 2.6, 7.0], parent: None, totals: &[None] }).unwrap(), vec![0, 3, 7]);
        // root with invariant: one unit moved where it costs least
        assert_eq!(round(&RoundingProblem { n: 3, x: &[0.4, 2.6, 7.0], parent: None, totals: &[Some(11)] }).unwrap(), vec![1, 3, 7]);
    }
}
