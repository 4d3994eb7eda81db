//! The L2 step of TopDown: weighted non-negative least squares for the children of one parent,
//! consistent with the parent's already-fixed histogram and with the invariants.
//!
//! Abowd et al., "The 2020 Census Disclosure Avoidance System TopDown Algorithm" (HDSR 2022, §5 and
//! Appendix on post-processing; [CAK24, §1] summarises it): at each geolevel, for
//! each parent, minimise over the children's detailed histograms x_c ≥ 0
//!
//! ```text
//!   Σ_c Σ_q (1/σ²_{c,q}) ‖Q_q x_c − y_{c,q}‖²
//!   subject to  Σ_c x_c = p            (one equation per histogram cell; none at the root)
//!               1ᵀ x_c = T_c           (invariant totals, where published)
//! ```
//!
//! Read in the Bureau's production code (uscensusbureau/DAS_2020_Redistricting_Production_Code;
//! ideas taken, no code): `programs/optimization/geo_optimizers.py` (`L2GeoOpt`: weight 1/Var per
//! query cell; the detailed query as a direct term on the cell variables, every other query through an
//! auxiliary variable constrained to equal Q·x — "Gurobi would square the whole (A@x − b)" — which is
//! the lifted form used here; values below 1e-7 set to 0 after the solve), `optimizer.py`
//! (`buildAndAddParentConstraints`: Σ_children x = parent per cell; `findDesiredIndices`: only cells
//! non-zero in the parent are variables, the others are 0 in every child; no parent constraints at the
//! root), `programs/nodes/manipulate_nodes.py` (`geoimp_wrapper`: a single child copies its parent, an
//! empty parent gives empty children, the root is solved as "root to root" without parent), and
//! `sequential_optimizers.py` (`L2PlusRounderWithBackup`: L2, then the rounder, on the same
//! constraints). The production default runs the queries in several passes, each constraining the
//! previous passes' answers within a tolerance; this module is the single-pass problem
//! (`SINGLE_PASS_REGULAR` in the production code).
//!
//! Solver: Clarabel (Goulart & Chen 2024), an interior-point method for convex QPs with a sparse LDL
//! factorisation, in the form min ½ zᵀPz + qᵀz s.t. Az + s = b, s ∈ {0}ᵐ¹ × ℝ₊ᵐ². The data are
//! divided by a scale so that the unknowns are O(1), and the tolerances are tightened to 1e-10 (the
//! tests check the KKT conditions of the result to 1e-8 and compare with an active-set enumeration).

use crate::error::Fallible;
use crate::{err, fallible};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};

/// One measured query of one child: `map[k]` is the answer cell of histogram cell k (k < n), the
/// measured answers are `y` (length `rows`), with weight 1/σ².
#[derive(Clone, Debug)]
pub struct Term {
    pub map: Vec<u32>,
    pub rows: usize,
    pub weight: f64,
    pub y: Vec<f64>,
}

impl Term {
    fn is_identity(&self, n: usize) -> bool {
        self.rows == n && self.map.iter().enumerate().all(|(k, &j)| j as usize == k)
    }
}

#[derive(Clone, Debug, Default)]
pub struct Child {
    pub terms: Vec<Term>,
    /// Invariant total 1ᵀx_c, if any.
    pub total: Option<f64>,
}

/// The children of one parent: `n` histogram cells each (the variables), the parent's fixed
/// histogram (None at the root).
#[derive(Clone, Debug)]
pub struct Problem {
    pub n: usize,
    pub children: Vec<Child>,
    pub parent: Option<Vec<f64>>,
}

impl Problem {
    pub fn validate(&self) -> Fallible<()> {
        if let Some(p) = &self.parent {
            if p.len() != self.n {
                return fallible!(Input, "L2: parent has {} cells, expected {}", p.len(), self.n);
            }
            if p.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return fallible!(Input, "L2: the parent histogram must be finite and non-negative");
            }
        }
        if let Some(par) = &self.parent {
            // every child's total given: they must add up to the parent's total (the solver drops one
            // of these rows as implied)
            if !self.children.is_empty() && self.children.iter().all(|c| c.total.is_some()) {
                let (sp, st): (f64, f64) = (
                    par.iter().sum(),
                    self.children
                        .iter()
                        .map(|c| c.total.expect("invariant: checked by validate: every child total is known when the parent is"))
                        .sum(),
                );
                if (sp - st).abs() > 1e-9 * sp.abs().max(1.0) {
                    return fallible!(Input,
                        "L2: the constraints (parent histogram, invariants) cannot all hold: the invariant totals add up to {st}, the parent to {sp}"
                    );
                }
            }
        }
        for (c, ch) in self.children.iter().enumerate() {
            if let Some(t) = ch.total {
                if !t.is_finite() || t < 0.0 {
                    return fallible!(Input, "L2: child {c}: invariant total {t} must be finite and non-negative");
                }
            }
            for t in &ch.terms {
                if t.map.len() != self.n || t.y.len() != t.rows || t.map.iter().any(|&j| j as usize >= t.rows) {
                    return fallible!(Input, "L2: child {c}: a query term does not match the {} cells", self.n);
                }
                if !(t.weight > 0.0 && t.weight.is_finite()) {
                    return fallible!(Input, "L2: child {c}: query weight {} must be positive and finite", t.weight);
                }
                if t.y.iter().any(|v| !v.is_finite()) {
                    return fallible!(Input, "L2: child {c}: a measurement is not a finite number");
                }
            }
        }
        Ok(())
    }

    /// The objective Σ w ‖Q x_c − y‖² at x (child-major, m·n values; the tests' check of the solution).
    #[cfg(test)]
    pub fn objective(&self, x: &[f64]) -> f64 {
        let n = self.n;
        let mut f = 0.0;
        for (c, ch) in self.children.iter().enumerate() {
            for t in &ch.terms {
                let mut a = vec![0.0; t.rows];
                for k in 0..n {
                    a[t.map[k] as usize] += x[c * n + k];
                }
                f += t.weight * a.iter().zip(&t.y).map(|(u, v)| (u - v) * (u - v)).sum::<f64>();
            }
        }
        f
    }
}

/// The lifted QP in Clarabel's form. Columns: the x variables not held at 0, then one auxiliary
/// per answer cell of every non-identity term. Rows: equalities (parent cells, invariant totals,
/// auxiliary definitions), then x ≥ 0 for the x columns when `nonneg`.
struct Model {
    pdiag: Vec<f64>,
    q: Vec<f64>,
    /// Equality rows as triplets over all x variables (held ones included, for the reduced gradient).
    eq: Vec<(usize, Var, f64)>,
    b: Vec<f64>,
    /// Column of each x variable, or None when held at 0.
    col: Vec<Option<usize>>,
    ncols: usize,
}

#[derive(Clone, Copy)]
enum Var {
    X(usize),
    Col(usize),
}

fn build(p: &Problem, scale: f64, held: &[bool]) -> Model {
    let (n, m) = (p.n, p.children.len());
    let nx = n * m;
    let mut col = vec![None; nx];
    let mut ncols = 0;
    for v in 0..nx {
        if !held[v] {
            col[v] = Some(ncols);
            ncols += 1;
        }
    }
    let mut pdiag = vec![0.0; ncols];
    let mut q = vec![0.0; ncols];
    let mut eq: Vec<(usize, Var, f64)> = Vec::new();
    let mut b: Vec<f64> = Vec::new();
    let mut row = 0usize;
    if let Some(par) = &p.parent {
        for k in 0..n {
            for c in 0..m {
                eq.push((row, Var::X(c * n + k), 1.0));
            }
            b.push(par[k] / scale);
            row += 1;
        }
    }
    // invariant totals; with a parent and every child's total given, the last one is implied by the
    // others and the parent rows (Σ_k p_k = Σ_c T_c) and is left out to keep the rows independent
    let with_total: Vec<usize> = (0..m).filter(|&c| p.children[c].total.is_some()).collect();
    let skip_last = p.parent.is_some() && with_total.len() == m;
    for (i, &c) in with_total.iter().enumerate() {
        if skip_last && i + 1 == with_total.len() {
            break;
        }
        for k in 0..n {
            eq.push((row, Var::X(c * n + k), 1.0));
        }
        b.push(p.children[c].total.expect("invariant: a child with a total") / scale);
        row += 1;
    }
    // the x part of the objective (identity terms) goes to the x columns; held x contribute nothing
    let mut xdiag = vec![0.0; nx];
    let mut xq = vec![0.0; nx];
    for (c, ch) in p.children.iter().enumerate() {
        for t in &ch.terms {
            if t.is_identity(n) {
                for k in 0..n {
                    xdiag[c * n + k] += 2.0 * t.weight;
                    xq[c * n + k] -= 2.0 * t.weight * t.y[k] / scale;
                }
                continue;
            }
            // z_j − Σ_{k: map(k) = j} x_{c,k} = 0, objective w (z_j − y_j)²
            for j in 0..t.rows {
                pdiag.push(2.0 * t.weight);
                q.push(-2.0 * t.weight * t.y[j] / scale);
                eq.push((row + j, Var::Col(ncols), 1.0));
                b.push(0.0);
                ncols += 1;
            }
            for k in 0..n {
                eq.push((row + t.map[k] as usize, Var::X(c * n + k), -1.0));
            }
            row += t.rows;
        }
    }
    for v in 0..nx {
        if let Some(cv) = col[v] {
            pdiag[cv] = xdiag[v];
            q[cv] = xq[v];
        }
    }
    Model { pdiag, q, eq, b, col, ncols }
}

struct Solved {
    /// Column values.
    v: Vec<f64>,
    /// Duals of the equality rows (Clarabel's z: Pv + q + Aᵀz = 0).
    mu: Vec<f64>,
}

fn run(md: &Model, nonneg: bool, tight: bool) -> Fallible<Solved> {
    let n_eq = md.b.len();
    let (mut ri, mut rj, mut rv) = (Vec::new(), Vec::new(), Vec::new());
    for &(r, var, a) in &md.eq {
        let c = match var {
            Var::X(x) => md.col[x],
            Var::Col(c) => Some(c),
        };
        if let Some(c) = c {
            ri.push(r);
            rj.push(c);
            rv.push(a);
        }
    }
    let mut b = md.b.clone();
    let xcols: Vec<usize> = md.col.iter().flatten().copied().collect();
    if nonneg {
        for (i, &c) in xcols.iter().enumerate() {
            ri.push(n_eq + i);
            rj.push(c);
            rv.push(-1.0);
            b.push(0.0);
        }
    }
    let n_rows = b.len();
    let nc = md.ncols;
    let pmat = CscMatrix::new_from_triplets(nc, nc, (0..nc).collect(), (0..nc).collect(), md.pdiag.clone());
    let amat = CscMatrix::new_from_triplets(n_rows, nc, ri, rj, rv);
    let mut cones = Vec::new();
    if n_eq > 0 {
        cones.push(SupportedConeT::ZeroConeT(n_eq));
    }
    if nonneg && !xcols.is_empty() {
        cones.push(SupportedConeT::NonnegativeConeT(xcols.len()));
    }
    let tol = if tight { 1e-11 } else { 1e-9 };
    let settings = DefaultSettingsBuilder::default()
        .verbose(false)
        .max_iter(200)
        .tol_gap_abs(tol)
        .tol_gap_rel(tol)
        .tol_feas(tol)
        .tol_ktratio(1e-9)
        .max_threads(1)
        .build()
        .map_err(|e| err!(Internal, "L2: solver settings: {e:?}"))?;
    let mut solver =
        DefaultSolver::new(&pmat, &md.q, &amat, &b, &cones, settings).map_err(|e| err!(Internal, "L2: solver set-up failed: {e:?}"))?;
    solver.solve();
    match solver.solution.status {
        SolverStatus::Solved | SolverStatus::AlmostSolved => {}
        SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
            return fallible!(Input, "L2: the constraints (parent histogram, invariants) cannot all hold")
        }
        s => return fallible!(Input, "L2: the solver stopped without a solution ({s:?})"),
    }
    let v = solver.solution.x.clone();
    let mu = solver.solution.z[..n_eq].to_vec();
    if v.iter().chain(&mu).any(|x| !x.is_finite()) {
        return fallible!(Input, "L2: the solver returned a non-finite value");
    }
    Ok(Solved { v, mu })
}

/// Solve the L2 problem. Returns the children's histograms, child-major (m·n values), ≥ 0.
///
/// An interior-point solve gives the optimum to about 1e-6 where it is degenerate (a zero cell whose
/// multiplier is also zero, as when the measurements are exact); it is then polished by a
/// primal–dual active-set iteration (Hintermüller, Ito & Kunisch 2002): hold the cells the interior
/// point found at zero, solve the equality-constrained QP on the others, release any held cell whose
/// multiplier λᵢ = ∂f/∂xᵢ + (Eᵀμ)ᵢ is negative and hold any free cell that went negative, until the
/// KKT conditions hold. If that does not settle within a few rounds, the interior-point solution stands.
pub fn solve(p: &Problem) -> Fallible<Vec<f64>> {
    p.validate()?;
    let (n, m) = (p.n, p.children.len());
    let nx = n * m;
    if nx == 0 {
        return Ok(Vec::new());
    }
    let scale = data_scale(p);
    let none = vec![false; nx];
    let full = build(p, scale, &none);
    let ipm = run(&full, true, true)?;
    let x_ipm: Vec<f64> = ipm.v[..nx].iter().map(|&v| v.max(0.0)).collect();
    let mut held: Vec<bool> = x_ipm.iter().map(|&v| v < 1e-6).collect();
    let mut best: Option<Vec<f64>> = None;
    for _round in 0..8 {
        let md = build(p, scale, &held);
        let Ok(sol) = run(&md, false, true) else { break };
        // reduced gradient of every x: ∂f/∂x + (Eᵀμ) (zero for free x at a solution)
        let mut x = vec![0.0; nx];
        for v in 0..nx {
            if let Some(c) = md.col[v] {
                x[v] = sol.v[c];
            }
        }
        let mut lam = vec![0.0; nx];
        for v in 0..nx {
            // the identity terms' gradient; held variables are at 0
            lam[v] = full.pdiag[v] * x[v] + full.q[v];
        }
        for &(r, var, a) in &md.eq {
            if let Var::X(v) = var {
                lam[v] += a * sol.mu[r];
            }
        }
        let tol = 1e-9;
        let mut changed = false;
        for v in 0..nx {
            if held[v] && lam[v] < -tol {
                held[v] = false;
                changed = true;
            } else if !held[v] && x[v] < -tol {
                held[v] = true;
                changed = true;
            }
        }
        if !changed {
            best = Some(x);
            break;
        }
    }
    let mut x = best.unwrap_or(x_ipm);
    for v in x.iter_mut() {
        *v = (*v * scale).max(0.0);
    }
    Ok(x)
}

/// The scale the data are divided by, so that the unknowns and data are of order one: the largest
/// parent cell, invariant total or |measurement| (at least 1).
pub(crate) fn data_scale(p: &Problem) -> f64 {
    let mut scale: f64 = 1.0;
    if let Some(par) = &p.parent {
        scale = par.iter().fold(scale, |a, &v| a.max(v));
    }
    for ch in &p.children {
        if let Some(t) = ch.total {
            scale = scale.max(t);
        }
        for t in &ch.terms {
            scale = t.y.iter().fold(scale, |a, &v| a.max(v.abs()));
        }
    }
    scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::estimation::l2_dense::solve_direct;
    use rand::{Rng, SeedableRng};

    /// Dense Gaussian elimination with partial pivoting; None when (numerically) singular.
    fn lin_solve(mut a: Vec<Vec<f64>>, mut r: Vec<f64>) -> Option<Vec<f64>> {
        let n = r.len();
        for col in 0..n {
            let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
            if a[piv][col].abs() < 1e-10 {
                return None;
            }
            a.swap(col, piv);
            r.swap(col, piv);
            for i in col + 1..n {
                let f = a[i][col] / a[col][col];
                if f != 0.0 {
                    for j in col..n {
                        a[i][j] -= f * a[col][j];
                    }
                    r[i] -= f * r[col];
                }
            }
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| a[i][j] * x[j]).sum();
            x[i] = (r[i] - s) / a[i][i];
        }
        Some(x)
    }

    /// The problem written out independently of the solver's lifting: f(x) = ½xᵀHx + hᵀx + const with
    /// H = 2 Σ w QᵀQ, h = −2 Σ w Qᵀy; equality rows E x = e (parent cells, every invariant total).
    fn dense(p: &Problem) -> (Vec<Vec<f64>>, Vec<f64>, Vec<Vec<f64>>, Vec<f64>) {
        let (n, m) = (p.n, p.children.len());
        let nx = n * m;
        let mut h = vec![vec![0.0; nx]; nx];
        let mut g = vec![0.0; nx];
        for (c, ch) in p.children.iter().enumerate() {
            for t in &ch.terms {
                for k in 0..n {
                    g[c * n + k] -= 2.0 * t.weight * t.y[t.map[k] as usize];
                    for l in 0..n {
                        if t.map[k] == t.map[l] {
                            h[c * n + k][c * n + l] += 2.0 * t.weight;
                        }
                    }
                }
            }
        }
        let (mut e, mut rhs) = (Vec::new(), Vec::new());
        if let Some(par) = &p.parent {
            for k in 0..n {
                let mut r = vec![0.0; nx];
                for c in 0..m {
                    r[c * n + k] = 1.0;
                }
                e.push(r);
                rhs.push(par[k]);
            }
        }
        for (c, ch) in p.children.iter().enumerate() {
            if let Some(t) = ch.total {
                let mut r = vec![0.0; nx];
                for k in 0..n {
                    r[c * n + k] = 1.0;
                }
                e.push(r);
                rhs.push(t);
            }
        }
        (h, g, e, rhs)
    }

    /// Brute force: for every set S of variables held at 0, minimise on {Ex = e, x_S = 0} through the
    /// KKT system; keep the best candidate with x ≥ 0.
    fn brute_force(p: &Problem) -> (Vec<f64>, f64) {
        let (h, g, e, rhs) = dense(p);
        let nx = g.len();
        let mut best: Option<(Vec<f64>, f64)> = None;
        for mask in 0u32..(1 << nx) {
            let free: Vec<usize> = (0..nx).filter(|&i| mask & (1 << i) == 0).collect();
            // independent equality rows restricted to the free variables (drop dependent ones)
            let mut rows: Vec<(Vec<f64>, f64)> = Vec::new();
            for (r, &v) in e.iter().zip(&rhs) {
                let rr: Vec<f64> = free.iter().map(|&i| r[i]).collect();
                let mut test = rows.clone();
                test.push((rr.clone(), v));
                let k = test.len();
                let gram: Vec<Vec<f64>> =
                    (0..k).map(|a| (0..k).map(|b| test[a].0.iter().zip(&test[b].0).map(|(x, y)| x * y).sum()).collect()).collect();
                if lin_solve(gram, vec![0.0; k]).is_some() {
                    rows = test;
                } else if rr.iter().all(|x| *x == 0.0) && v.abs() > 1e-12 {
                    rows.push((rr, v)); // inconsistent: keep it so the system fails
                }
            }
            let (nf, ne) = (free.len(), rows.len());
            let mut kkt = vec![vec![0.0; nf + ne]; nf + ne];
            let mut r = vec![0.0; nf + ne];
            for (a, &i) in free.iter().enumerate() {
                for (b2, &j) in free.iter().enumerate() {
                    kkt[a][b2] = h[i][j];
                }
                r[a] = -g[i];
            }
            for (k, (er, v)) in rows.iter().enumerate() {
                for a in 0..nf {
                    kkt[nf + k][a] = er[a];
                    kkt[a][nf + k] = er[a];
                }
                r[nf + k] = *v;
            }
            let Some(sol) = lin_solve(kkt, r) else { continue };
            let mut x = vec![0.0; nx];
            for (a, &i) in free.iter().enumerate() {
                x[i] = sol[a];
            }
            let feasible = x.iter().all(|&v| v >= -1e-9)
                && e.iter().zip(&rhs).all(|(er, v)| (er.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>() - v).abs() < 1e-7);
            if !feasible {
                continue;
            }
            let f = p.objective(&x);
            if best.as_ref().is_none_or(|(_, bf)| f < *bf - 1e-12) {
                best = Some((x, f));
            }
        }
        best.expect("a feasible instance")
    }

    /// KKT conditions at x, with multipliers found independently of the solver: the smallest t such
    /// that some ν has |∂f/∂xᵢ − (Eᵀν)ᵢ| ≤ t where xᵢ > 0 and ∂f/∂xᵢ − (Eᵀν)ᵢ ≥ −t where xᵢ = 0 (an LP,
    /// solved with microlp). Returns the largest of t, the equality residual and the negativity of x.
    fn kkt_violation(p: &Problem, x: &[f64]) -> f64 {
        use microlp::{ComparisonOp, OptimizationDirection, Problem as Lp};
        let (h, g, e, rhs) = dense(p);
        let nx = x.len();
        let grad: Vec<f64> = (0..nx).map(|i| g[i] + (0..nx).map(|j| h[i][j] * x[j]).sum::<f64>()).collect();
        let mut lp = Lp::new(OptimizationDirection::Minimize);
        let t = lp.add_var(1.0, (0.0, f64::INFINITY));
        let nu: Vec<_> = e.iter().map(|_| lp.add_var(0.0, (f64::NEG_INFINITY, f64::INFINITY))).collect();
        for i in 0..nx {
            // grad_i − Σ_r E_ri ν_r + t ≥ 0 (and ≤ 0 with −t where x_i > 0)
            let mut lo: Vec<(microlp::Variable, f64)> = nu.iter().zip(&e).map(|(&v, r)| (v, -r[i])).collect();
            lo.push((t, 1.0));
            lp.add_constraint(&lo[..], ComparisonOp::Ge, -grad[i]);
            if x[i] > 1e-9 {
                let mut hi: Vec<(microlp::Variable, f64)> = nu.iter().zip(&e).map(|(&v, r)| (v, -r[i])).collect();
                hi.push((t, -1.0));
                lp.add_constraint(&hi[..], ComparisonOp::Le, -grad[i]);
            }
        }
        let sol = lp.solve().unwrap().into_solution().unwrap();
        let mut v: f64 = sol.var_value(t);
        for (er, val) in e.iter().zip(&rhs) {
            v = v.max((er.iter().zip(x).map(|(a, b)| a * b).sum::<f64>() - val).abs());
        }
        for &xi in x {
            v = v.max((-xi).max(0.0));
        }
        v
    }

    fn random_problem(rng: &mut rand_chacha::ChaCha8Rng, n: usize, m: usize, root: bool) -> Problem {
        // queries on n cells: detailed, total, and a two-way marginal
        let mut children = Vec::new();
        let truth: Vec<Vec<f64>> = (0..m).map(|_| (0..n).map(|_| rng.gen_range(0..4) as f64).collect()).collect();
        for c in 0..m {
            let mut terms = Vec::new();
            let noisy = |rng: &mut rand_chacha::ChaCha8Rng, v: f64| v + rng.gen_range(-3.0..3.0);
            terms.push(Term {
                map: (0..n as u32).collect(),
                rows: n,
                weight: rng.gen_range(0.2..2.0),
                y: truth[c].iter().map(|&v| noisy(rng, v)).collect(),
            });
            let tot: f64 = truth[c].iter().sum();
            terms.push(Term { map: vec![0; n], rows: 1, weight: rng.gen_range(0.2..2.0), y: vec![noisy(rng, tot)] });
            let map: Vec<u32> = (0..n as u32).map(|k| k % 2).collect();
            let mut a = [0.0; 2];
            for k in 0..n {
                a[map[k] as usize] += truth[c][k];
            }
            terms.push(Term { map, rows: 2, weight: rng.gen_range(0.2..2.0), y: a.iter().map(|&v| noisy(rng, v)).collect() });
            let total = if rng.gen_bool(0.5) || root { Some(tot) } else { None };
            children.push(Child { terms, total });
        }
        let parent = if root { None } else { Some((0..n).map(|k| (0..m).map(|c| truth[c][k]).sum()).collect()) };
        Problem { n, children, parent }
    }

    #[test]
    fn kkt_and_brute_force_on_small_instances() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        let mut active = 0;
        for case in 0..60 {
            let root = case % 6 == 0;
            let (n, m) = if root { (rng.gen_range(2..=6), 1) } else { (rng.gen_range(2..=4), rng.gen_range(2..=3)) };
            let p = random_problem(&mut rng, n, m, root);
            let x = solve(&p).unwrap();
            let v = kkt_violation(&p, &x);
            assert!(v < 1e-8, "case {case}: KKT violated by {v:e}: {x:?}");
            let (xb, fb) = brute_force(&p);
            let f = p.objective(&x);
            assert!((f - fb).abs() <= 1e-9 * fb.max(1.0), "case {case}: objective {f} vs brute force {fb}");
            for (a, b) in x.iter().zip(&xb) {
                assert!((a - b).abs() < 1e-6, "case {case}: {x:?} vs {xb:?}");
            }
            active += x.iter().filter(|&&v| v == 0.0).count();
        }
        assert!(active > 20, "the instances must exercise the non-negativity constraints ({active} zeros)");
    }

    #[test]
    fn the_direct_optimum_agrees_with_the_interior_point() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let mut direct = 0;
        for case in 0..200 {
            let root = case % 6 == 0;
            let (n, m) = if root { (rng.gen_range(2..=8), 1) } else { (rng.gen_range(2..=8), rng.gen_range(2..=6)) };
            let p = random_problem(&mut rng, n, m, root);
            let x = solve(&p).unwrap();
            if let Some((xd, agreement)) = solve_direct(&p) {
                direct += 1;
                for (a, b) in x.iter().zip(&xd) {
                    assert!((a - b).abs() <= agreement, "case {case}: {x:?} vs {xd:?}");
                }
                assert!(kkt_violation(&p, &xd) < 1e-9, "case {case}");
            }
        }
        assert!(direct > 180, "{direct}");
    }

    #[test]
    fn exact_measurements_are_recovered() {
        // noiseless measurements consistent with the constraints: the minimum is 0 at the truth
        let truth = [[3.0, 0.0, 5.0], [1.0, 2.0, 0.0]];
        let children = truth
            .iter()
            .map(|t| Child {
                terms: vec![
                    Term { map: vec![0, 1, 2], rows: 3, weight: 0.1, y: t.to_vec() },
                    Term { map: vec![0, 0, 0], rows: 1, weight: 0.5, y: vec![t.iter().sum()] },
                ],
                total: Some(t.iter().sum()),
            })
            .collect();
        let p = Problem { n: 3, children, parent: Some(vec![4.0, 2.0, 5.0]) };
        let x = solve(&p).unwrap();
        for (a, b) in x.iter().zip(truth.iter().flatten()) {
            assert!((a - b).abs() < 1e-8, "{x:?}");
        }
    }

    #[test]
    fn infeasible_and_bad_input_are_errors() {
        let t = Term { map: vec![0, 1], rows: 2, weight: 1.0, y: vec![1.0, 1.0] };
        let p = Problem { n: 2, children: vec![Child { terms: vec![t.clone()], total: Some(5.0) }], parent: Some(vec![1.0, 1.0]) };
        assert!(solve(&p).unwrap_err().to_string().contains("cannot all hold"));
        let mut bad = t.clone();
        bad.y[0] = f64::NAN;
        let p = Problem { n: 2, children: vec![Child { terms: vec![bad], total: None }], parent: None };
        assert!(solve(&p).unwrap_err().to_string().contains("finite"));
        let p = Problem { n: 2, children: vec![Child { terms: vec![t], total: None }], parent: Some(vec![-1.0, 0.0]) };
        assert!(solve(&p).is_err());
    }
}
