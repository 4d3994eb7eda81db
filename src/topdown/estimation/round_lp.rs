//! One pass of TopDown's multi-pass rounder: non-negative integer histograms of a parent's children
//! that keep the parent, the invariants, the group-quarters bounds and the integer answers of the
//! earlier passes exactly, and are L1-closest to the L2 solution on this pass's queries.
//!
//! Production (uscensusbureau/DAS_2020_Redistricting_Production_Code, read for the ideas, no code
//! taken): `programs/optimization/multipass_rounder.py` (`DataIndependentNpassRound`): pass k
//! minimises Σ_q |Q x − round(Q x̃)| over the pass's queries q, plus the cellwise |x − x̃| when the
//! detailed query is in the pass (`buildCellwiseObjFxn`), subject to Q x = its integer answer for
//! every query of the earlier passes (`addMultipassConstraints`, an equality). The rounder's query
//! ordering is a chain of nested marginals (total, hhgq, hhgq × hispanic, …, detailed), so that with
//! the parent rows the constraint matrix stays totally unimodular and the LP's vertices are
//! integral; the cellwise objective is the split |x − x̃| of `rounding.rs` (three segments per cell).
//! Here the LP is solved (microlp) and, should a value not come out integral (queries that are not
//! nested), solved again with integer variables; the answer is checked exactly (`check`).

use crate::error::Fallible;
use crate::fallible;
use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp, Variable};

/// lo ≤ Σ_{k ∈ cells} y_{child,k} ≤ hi, exactly (hi = i64::MAX: no upper bound). `query` groups the
/// rows of one query (for the implied-row rule of `fixed`).
#[derive(Clone, Debug, PartialEq)]
pub struct IRow {
    pub child: usize,
    pub query: usize,
    pub cells: Vec<u32>,
    pub lo: i64,
    pub hi: i64,
}

/// A pass's penalty: |Σ_{k ∈ cells} y_{child,k} − target|.
#[derive(Clone, Debug, PartialEq)]
pub struct Penalty {
    pub child: usize,
    pub cells: Vec<u32>,
    pub target: i64,
}

/// One rounding pass of one parent's children (m children of n cells, child-major).
pub struct RoundPass<'a> {
    pub n: usize,
    pub x: &'a [f64],
    pub parent: Option<&'a [i64]>,
    pub totals: &'a [Option<i64>],
    pub groups: &'a [(Vec<usize>, i64)],
    /// Group-quarters bounds.
    pub bounds: &'a [IRow],
    /// The earlier passes' integer answers (lo = hi).
    pub fixed: &'a [IRow],
    /// The cellwise |y − x̃| (the detailed query is in the pass).
    pub cellwise: bool,
    pub penalties: &'a [Penalty],
}

impl RoundPass<'_> {
    fn m(&self) -> usize {
        self.totals.len()
    }
}

pub fn round_pass(r: &RoundPass) -> Fallible<Vec<i64>> {
    let (n, m) = (r.n, r.m());
    if r.x.len() != n * m || r.x.iter().any(|v| !v.is_finite()) {
        return fallible!(Input, "rounding: the L2 solution does not match the problem");
    }
    if let Some(p) = r.parent {
        if p.len() != n || p.iter().any(|&v| v < 0) {
            return fallible!(Input, "rounding: the parent histogram must have n non-negative cells");
        }
    }
    let inside = |row: &IRow| row.child < m && row.cells.iter().all(|&k| (k as usize) < n) && row.lo <= row.hi;
    if !r.bounds.iter().chain(r.fixed).all(inside) || r.penalties.iter().any(|p| p.child >= m || p.cells.iter().any(|&k| k as usize >= n)) {
        return fallible!(Input, "rounding: a constraint row does not match the problem");
    }
    match solve(r, false) {
        Ok(y) => Ok(y),
        Err(_) => solve(r, true),
    }
}

fn solve(r: &RoundPass, integer: bool) -> Fallible<Vec<i64>> {
    let mut lp = Lp::new(OptimizationDirection::Minimize);
    let segs = segments(&mut lp, r, integer);
    constrain(&mut lp, r, &segs, integer);
    let y = super::rounding::integral_solution(lp, &segs)?;
    check(r, &y)?;
    Ok(y)
}

/// A variable of the LP in [0, hi] with its cost: integer (capped at i32::MAX) or continuous.
fn add_var(lp: &mut Lp, integer: bool, cost: f64, hi: f64) -> Variable {
    if integer {
        lp.add_integer_var(cost, (0, hi.min(i32::MAX as f64) as i32))
    } else {
        lp.add_var(cost, (0.0, hi))
    }
}

/// Each cell's variables (child-major): one up to its cap, or, cell-wise, the segments of |y − x| around
/// the estimate x (down to ⌊x⌋ at cost −1, the fractional step at 1 − 2f, the rest at cost 1).
fn segments(lp: &mut Lp, r: &RoundPass, integer: bool) -> Vec<Vec<Variable>> {
    let (n, m) = (r.n, r.m());
    let xt: Vec<f64> = r.x.iter().map(|&v| v.max(0.0)).collect();
    let live = |k: usize| r.parent.is_none_or(|p| p[k] > 0);
    let mut segs: Vec<Vec<Variable>> = vec![Vec::new(); n * m];
    for c in 0..m {
        let cap_total = r.totals[c].map(|t| t as f64);
        for k in (0..n).filter(|&k| live(k)) {
            let cap = match (r.parent, cap_total) {
                (Some(p), Some(t)) => (p[k] as f64).min(t),
                (Some(p), None) => p[k] as f64,
                (None, Some(t)) => t,
                (None, None) => 1e12,
            };
            let s = &mut segs[c * n + k];
            if !r.cellwise {
                s.push(add_var(lp, integer, 0.0, cap));
                continue;
            }
            let v = xt[c * n + k];
            let (fl, f) = (v.floor(), v - v.floor());
            if fl >= 1.0 {
                s.push(add_var(lp, integer, -1.0, fl.min(cap)));
            }
            if f > 0.0 && fl < cap {
                s.push(add_var(lp, integer, 1.0 - 2.0 * f, 1.0));
            }
            let rest = cap - fl - if f > 0.0 { 1.0 } else { 0.0 };
            if rest > 0.0 {
                s.push(add_var(lp, integer, 1.0, rest));
            }
        }
    }
    segs
}

/// The pass's constraints on the cells' sums: the parent, the totals and groups (those not implied by
/// fixed answers), the earlier passes' fixed answers, the bounds, and the penalised targets.
fn constrain(lp: &mut Lp, r: &RoundPass, segs: &[Vec<Variable>], integer: bool) {
    let (n, m) = (r.n, r.m());
    let sum_of = |cells: &mut dyn Iterator<Item = usize>| -> Vec<(Variable, f64)> {
        cells.flat_map(|i| segs[i].iter().map(|&v| (v, 1.0))).collect()
    };
    if let Some(p) = r.parent {
        for k in (0..n).filter(|&k| p[k] > 0) {
            lp.add_constraint(&sum_of(&mut (0..m).map(|c| c * n + k))[..], ComparisonOp::Eq, p[k] as f64);
        }
    }
    // a child whose earlier answers are fixed has its total fixed through them; with a parent, the
    // last child's answers of each fixed query are implied by the others'
    let has_fixed: Vec<bool> = (0..m).map(|c| r.fixed.iter().any(|f| f.child == c)).collect();
    for c in (0..m).filter(|&c| !has_fixed[c]) {
        if let Some(t) = r.totals[c] {
            lp.add_constraint(&sum_of(&mut (0..n).map(|k| c * n + k))[..], ComparisonOp::Eq, t as f64);
        }
    }
    for (cs, t) in r.groups {
        if cs.iter().all(|&c| has_fixed[c]) {
            continue;
        }
        lp.add_constraint(&sum_of(&mut cs.iter().flat_map(|&c| (0..n).map(move |k| c * n + k)))[..], ComparisonOp::Eq, *t as f64);
    }
    for f in r.fixed {
        let last = (0..m).rev().find(|&c| r.fixed.iter().any(|g| g.query == f.query && g.child == c));
        if r.parent.is_some() && last == Some(f.child) {
            continue;
        }
        lp.add_constraint(&sum_of(&mut f.cells.iter().map(|&k| f.child * n + k as usize))[..], ComparisonOp::Eq, f.lo as f64);
    }
    for b in r.bounds {
        let e = sum_of(&mut b.cells.iter().map(|&k| b.child * n + k as usize));
        if b.lo > 0 {
            lp.add_constraint(&e[..], ComparisonOp::Ge, b.lo as f64);
        }
        if b.hi < i64::MAX {
            lp.add_constraint(&e[..], ComparisonOp::Le, b.hi as f64);
        }
    }
    for p in r.penalties {
        let mut e = sum_of(&mut p.cells.iter().map(|&k| p.child * n + k as usize));
        let up = add_var(lp, integer, 1.0, 1e12);
        let down = add_var(lp, integer, 1.0, 1e12);
        e.push((up, -1.0));
        e.push((down, 1.0));
        lp.add_constraint(&e[..], ComparisonOp::Eq, p.target as f64);
    }
}

/// Every constraint of the pass, exactly: y ≥ 0, the parent, totals, groups, bounds, fixed answers.
pub fn check(r: &RoundPass, y: &[i64]) -> Fallible<()> {
    let (n, m) = (r.n, r.m());
    if y.len() != n * m || y.iter().any(|&v| v < 0) {
        return fallible!(Input, "rounding: negative count");
    }
    let sum = |c: usize, cells: &mut dyn Iterator<Item = usize>| -> i64 { cells.map(|k| y[c * n + k]).sum() };
    if let Some(p) = r.parent {
        if let Some(k) = (0..n).find(|&k| (0..m).map(|c| y[c * n + k]).sum::<i64>() != p[k]) {
            return fallible!(Input, "rounding: cell {k} does not add up to the parent");
        }
    }
    for c in 0..m {
        if let Some(t) = r.totals[c] {
            if sum(c, &mut (0..n)) != t {
                return fallible!(Input, "rounding: child {c} misses its invariant total {t}");
            }
        }
    }
    for (cs, t) in r.groups {
        if cs.iter().map(|&c| sum(c, &mut (0..n))).sum::<i64>() != *t {
            return fallible!(Input, "rounding: a group of children misses its invariant total {t}");
        }
    }
    for b in r.bounds.iter().chain(r.fixed) {
        let s = sum(b.child, &mut b.cells.iter().map(|&k| k as usize));
        if s < b.lo || s > b.hi {
            return fallible!(Input, "rounding: child {}: a sum of cells is {s}, outside [{}, {}]", b.child, b.lo, b.hi);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cellwise_pass_with_fixed_totals_and_bounds() {
        // two children of two cells, parent (3, 3); x̃ = (1.6, 1.6 | 1.4, 1.4)
        let x = [1.6, 1.6, 1.4, 1.4];
        let parent = [3, 3];
        let totals = [None, None];
        let base = RoundPass {
            n: 2,
            x: &x,
            parent: Some(&parent),
            totals: &totals,
            groups: &[],
            bounds: &[],
            fixed: &[],
            cellwise: true,
            penalties: &[],
        };
        // unconstrained: the nearest integers (2, 2 | 1, 1)
        assert_eq!(round_pass(&base).unwrap(), vec![2, 2, 1, 1]);
        // an earlier pass fixed child 0's total at 3: (2, 1 | 1, 2) or (1, 2 | 2, 1), both L1 = 1.2 + …
        let fixed =
            [IRow { child: 0, query: 0, cells: vec![0, 1], lo: 3, hi: 3 }, IRow { child: 1, query: 0, cells: vec![0, 1], lo: 3, hi: 3 }];
        let y = round_pass(&RoundPass { fixed: &fixed, ..base }).unwrap();
        assert_eq!((y[0] + y[1], y[2] + y[3]), (3, 3));
        // a bound: child 1's cell 1 at least 2 (a group quarters type with two facilities)
        let bounds = [IRow { child: 1, query: 9, cells: vec![1], lo: 2, hi: i64::MAX }];
        assert_eq!(round_pass(&RoundPass { fixed: &fixed, bounds: &bounds, ..base }).unwrap(), vec![2, 1, 1, 2]);
    }

    #[test]
    fn penalty_pass_rounds_the_totals() {
        // pass 1 of the production ordering: the children's totals only, L2 totals 2.7 and 3.3 of 6
        let x = [1.5, 1.2, 1.5, 1.8];
        let parent = [3, 3];
        let totals = [None, None];
        let pen = [Penalty { child: 0, cells: vec![0, 1], target: 3 }, Penalty { child: 1, cells: vec![0, 1], target: 3 }];
        let r = RoundPass {
            n: 2,
            x: &x,
            parent: Some(&parent),
            totals: &totals,
            groups: &[],
            bounds: &[],
            fixed: &[],
            cellwise: false,
            penalties: &pen,
        };
        let y = round_pass(&r).unwrap();
        assert_eq!((y[0] + y[1], y[2] + y[3]), (3, 3));
        // a group of both children must hold the parent's total; a wrong one is infeasible
        let groups = [(vec![0, 1], 7)];
        assert!(round_pass(&RoundPass { groups: &groups, ..r }).is_err());
    }
}
