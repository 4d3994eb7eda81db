//! The L2 problem of one parent with the constraints of TopDown's production runs beyond the single
//! pass of `l2.rs`: rows on sums of a child's cells with bounds (the group-quarters bounds, the
//! answers of earlier passes within a tolerance) and invariant totals of groups of children (the
//! AIAN and non-AIAN parts of a state). Solved by the interior point alone (Clarabel, as in `l2.rs`,
//! the same lifted form and scale); the rows are inequalities, so no active-set polish.
//!
//! Production (uscensusbureau/DAS_2020_Redistricting_Production_Code, read for the ideas, no code
//! taken): `programs/optimization/l2_dataIndep_npass_optimizer.py` (`DataIndQueriesL2NPass`): pass k
//! minimises the weighted squares of its own queries under every constraint of the single pass and
//! |Q x − ŷ| ≤ tol for each query of an earlier pass, ŷ that pass's answer (`addMultiPassDPQueryConstraints`;
//! the tolerance there is the smallest feasible one plus `opt_tol_slack`, 0.1 in the redistricting
//! configuration — here `PASS_TOL` relative to the data scale); the group-quarters bounds come from
//! `programs/constraints/querybase_constraints.py` (`hhgq_total_lb`, `hhgq_total_ub`).

use crate::error::Fallible;
use crate::topdown::estimation::l2::{data_scale, Problem};
use crate::{err, fallible};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};

/// lo ≤ Σ_{k ∈ cells} x_{child,k} ≤ hi (cells: indices of the problem's n cells; hi may be ∞).
#[derive(Clone, Debug, PartialEq)]
pub struct CellSumRow {
    pub child: usize,
    pub cells: Vec<u32>,
    pub lo: f64,
    pub hi: f64,
}

/// Σ_{c ∈ children} 1ᵀx_c = total.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupRow {
    pub children: Vec<usize>,
    pub total: f64,
}

/// Tolerance of an earlier pass's answer in a later pass, relative to the data scale (the answers
/// come from an interior point with tolerances of 1e-11 in scaled units).
pub const PASS_TOL: f64 = 1e-8;

/// Solve `p` (its terms, parent and totals) with the extra `rows` and `groups`. Returns the children's
/// histograms, child-major, ≥ 0.
pub fn solve(p: &Problem, rows: &[CellSumRow], groups: &[GroupRow]) -> Fallible<Vec<f64>> {
    p.validate()?;
    let (n, m) = (p.n, p.children.len());
    let nx = n * m;
    if nx == 0 {
        return Ok(Vec::new());
    }
    check_rows(p, rows, groups)?;
    // the scale of the data (the bounds' upper ends, 99999 per facility, are far above it and left out)
    let scale = rows.iter().fold(data_scale(p), |s, r| s.max(r.lo.abs()));
    let scale = groups.iter().fold(scale, |s, g| s.max(g.total));
    let mut qp = Qp { pdiag: vec![0.0; nx], q: vec![0.0; nx], ..Qp::default() };
    qp.equalities(p, groups, scale);
    qp.inequalities(nx, n, rows, scale);
    let x = qp.solve()?;
    let x: Vec<f64> = x[..nx].iter().map(|&v| (v * scale).max(0.0)).collect();
    if x.iter().any(|v| !v.is_finite()) {
        return fallible!(Input, "L2: the solver returned a non-finite value");
    }
    Ok(x)
}

/// The extra rows and groups name children and cells of the problem, with ordered finite bounds.
fn check_rows(p: &Problem, rows: &[CellSumRow], groups: &[GroupRow]) -> Fallible<()> {
    let (n, m) = (p.n, p.children.len());
    for r in rows {
        if r.child >= m || r.cells.iter().any(|&k| k as usize >= n) || !(r.lo <= r.hi) || r.lo.is_nan() {
            return fallible!(Input, "L2: a constraint row does not match the problem");
        }
    }
    for g in groups {
        if g.children.iter().any(|&c| c >= m) || !(g.total >= 0.0 && g.total.is_finite()) {
            return fallible!(Input, "L2: a group invariant does not match the problem");
        }
    }
    Ok(())
}

/// The quadratic programme in Clarabel's form, in scaled units: min ½ xᵀ diag(pdiag) x + qᵀx subject to
/// A x + s = b with s in the zero cone (the first `n_eq` rows) and the non-negative cone (the rest); the
/// columns are the children's cells, then one auxiliary per answer cell of each non-identity term.
#[derive(Default)]
struct Qp {
    pdiag: Vec<f64>,
    q: Vec<f64>,
    ri: Vec<usize>,
    rj: Vec<usize>,
    rv: Vec<f64>,
    b: Vec<f64>,
    rows: usize,
    n_eq: usize,
}

impl Qp {
    /// One row of A: the (column, coefficient) pairs.
    fn row(&mut self, cols: impl Iterator<Item = (usize, f64)>) {
        for (c, a) in cols {
            self.ri.push(self.rows);
            self.rj.push(c);
            self.rv.push(a);
        }
        self.rows += 1;
    }

    /// The parent's histogram, the children's and groups' totals, and the terms: identity terms on the
    /// diagonal, the others through their auxiliary columns.
    fn equalities(&mut self, p: &Problem, groups: &[GroupRow], scale: f64) {
        let (n, m) = (p.n, p.children.len());
        if let Some(par) = &p.parent {
            for k in 0..n {
                self.row((0..m).map(|c| (c * n + k, 1.0)));
                self.b.push(par[k] / scale);
            }
        }
        // child totals and group totals; with a parent, when they cover every child, one is implied
        let covered = (0..m).all(|c| p.children[c].total.is_some() || groups.iter().any(|g| g.children.contains(&c)));
        let mut total_rows: Vec<(Vec<usize>, f64)> = (0..m)
            .filter_map(|c| p.children[c].total.map(|t| (vec![c], t)))
            .chain(groups.iter().map(|g| (g.children.clone(), g.total)))
            .collect();
        if p.parent.is_some() && covered {
            total_rows.pop();
        }
        for (cs, t) in &total_rows {
            self.row(cs.iter().flat_map(|&c| (0..n).map(move |k| (c * n + k, 1.0))));
            self.b.push(t / scale);
        }
        let mut ncols = n * m;
        for (c, ch) in p.children.iter().enumerate() {
            for t in &ch.terms {
                if t.rows == n && t.map.iter().enumerate().all(|(k, &j)| j as usize == k) {
                    for k in 0..n {
                        self.pdiag[c * n + k] += 2.0 * t.weight;
                        self.q[c * n + k] -= 2.0 * t.weight * t.y[k] / scale;
                    }
                    continue;
                }
                for j in 0..t.rows {
                    self.pdiag.push(2.0 * t.weight);
                    self.q.push(-2.0 * t.weight * t.y[j] / scale);
                    let aux = ncols + j;
                    let cells: Vec<usize> = (0..n).filter(|&k| t.map[k] as usize == j).collect();
                    self.row(std::iter::once((aux, 1.0)).chain(cells.into_iter().map(|k| (c * n + k, -1.0))));
                    self.b.push(0.0);
                }
                ncols += t.rows;
            }
        }
        self.n_eq = self.rows;
    }

    /// −x ≤ 0 for the `nx` cells, then −Σ ≤ −lo and Σ ≤ hi for the extra rows.
    fn inequalities(&mut self, nx: usize, n: usize, rows: &[CellSumRow], scale: f64) {
        for v in 0..nx {
            self.row(std::iter::once((v, -1.0)));
            self.b.push(0.0);
        }
        for r in rows {
            for (sign, bound) in [(-1.0, -r.lo), (1.0, r.hi)] {
                if !bound.is_finite() || (sign < 0.0 && r.lo <= 0.0) {
                    continue;
                }
                self.row(r.cells.iter().map(|&k| (r.child * n + k as usize, sign)));
                self.b.push(bound / scale);
            }
        }
    }

    /// Clarabel's interior point (tolerances 1e-11 in scaled units, one thread): the solution vector.
    fn solve(self) -> Fallible<Vec<f64>> {
        let ncols = self.pdiag.len();
        let n_ineq = self.rows - self.n_eq;
        let pmat = CscMatrix::new_from_triplets(ncols, ncols, (0..ncols).collect(), (0..ncols).collect(), self.pdiag);
        let amat = CscMatrix::new_from_triplets(self.rows, ncols, self.ri, self.rj, self.rv);
        let mut cones = Vec::new();
        if self.n_eq > 0 {
            cones.push(SupportedConeT::ZeroConeT(self.n_eq));
        }
        cones.push(SupportedConeT::NonnegativeConeT(n_ineq));
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .max_iter(200)
            .tol_gap_abs(1e-11)
            .tol_gap_rel(1e-11)
            .tol_feas(1e-11)
            .tol_ktratio(1e-9)
            .max_threads(1)
            .build()
            .map_err(|e| err!(Internal, "L2: solver settings: {e:?}"))?;
        let mut solver = DefaultSolver::new(&pmat, &self.q, &amat, &self.b, &cones, settings)
            .map_err(|e| err!(Internal, "L2: solver set-up failed: {e:?}"))?;
        solver.solve();
        match solver.solution.status {
            SolverStatus::Solved | SolverStatus::AlmostSolved => {}
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                return fallible!(
                    Input,
                    "L2: the constraints (parent histogram, invariants, group quarters, earlier passes) cannot all hold"
                )
            }
            s => return fallible!(Input, "L2: the solver stopped without a solution ({s:?})"),
        }
        Ok(solver.solution.x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::estimation::l2::{Child, Term};

    fn identity(n: usize, y: &[f64], w: f64) -> Term {
        Term { map: (0..n as u32).collect(), rows: n, weight: w, y: y.to_vec() }
    }

    #[test]
    fn without_rows_it_is_the_single_pass_optimum() {
        let p = Problem {
            n: 2,
            children: vec![
                Child {
                    terms: vec![identity(2, &[3.2, 1.1], 1.0), Term { map: vec![0, 0], rows: 1, weight: 2.0, y: vec![5.0] }],
                    total: None,
                },
                Child { terms: vec![identity(2, &[-0.4, 2.6], 0.5)], total: None },
            ],
            parent: Some(vec![4.0, 4.0]),
        };
        let a = solve(&p, &[], &[]).unwrap();
        let b = crate::topdown::estimation::l2::solve(&p).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-6, "{a:?} {b:?}");
        }
    }

    #[test]
    fn bounds_and_groups_hold() {
        // one cell per child, parent 10, measurements 1, 2, 9 (weight 1): unconstrained projection
        // onto Σ = 10 gives 0 + 1 + 8 shifted: x = y − (12 − 10)/3 = (1/3, 4/3, 25/3)
        let ch = |y: f64| Child { terms: vec![identity(1, &[y], 1.0)], total: None };
        let p = Problem { n: 1, children: vec![ch(1.0), ch(2.0), ch(9.0)], parent: Some(vec![10.0]) };
        let x = solve(&p, &[], &[]).unwrap();
        assert!((x[0] - 1.0 / 3.0).abs() < 1e-7 && (x[2] - 25.0 / 3.0).abs() < 1e-7, "{x:?}");
        // a lower bound of 2 on child 0: it sits at 2; minimise (x1 − 2)² + (x2 − 9)² with x1 + x2 = 8:
        // x1 = 0.5, x2 = 7.5
        let lb = CellSumRow { child: 0, cells: vec![0], lo: 2.0, hi: f64::INFINITY };
        let x = solve(&p, &[lb], &[]).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-7 && (x[1] - 0.5).abs() < 1e-7 && (x[2] - 7.5).abs() < 1e-7, "{x:?}");
        // children 0 and 1 together 6: x0 + x1 = 6 (each moved by (6 − 3)/2), x2 = 4
        let g = GroupRow { children: vec![0, 1], total: 6.0 };
        let x = solve(&p, &[], &[g]).unwrap();
        assert!((x[0] - 2.5).abs() < 1e-7 && (x[1] - 3.5).abs() < 1e-7 && (x[2] - 4.0).abs() < 1e-7, "{x:?}");
    }
}
