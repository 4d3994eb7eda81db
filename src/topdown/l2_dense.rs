//! The L2 problem of one parent (`l2.rs`) in dense form, solved by direct linear algebra: the route
//! `postprocess` takes when the rounded answer is certainly the same as through the interior point.
//!
//! The objective of child c is ½ x_cᵀH_c x_c + g_cᵀx_c with H_c = 2 Σ_q w_q Q_qᵀQ_q (n × n, positive
//! definite: the detailed query is the identity) and g_c = −2 Σ_q w_q Q_qᵀy_q, in the scaled units of
//! `l2::solve`; the equality rows are those of `l2::build` (parent cells, invariant totals less the
//! implied one). For a set of cells held at 0 the equality-constrained problem is solved through the
//! Schur complement of the block-diagonal H (the children couple only through the rows), and the
//! primal–dual active-set iteration of `l2::solve` (Hintermüller, Ito & Kunisch 2002), started from no
//! cell held, finds the held set of the optimum. A singular system (rows made dependent or empty by
//! the held cells, a child without measurements) or an iteration that does not settle gives None:
//! the interior point is needed there.

use crate::topdown::l2::Problem;

/// Active-set rounds before giving up (the interior point then decides).
const MAX_ROUNDS: usize = 30;

/// The problem in dense form (see the module comment).
pub(crate) struct Dense {
    n: usize,
    m: usize,
    /// H_c, row-major, child after child.
    h: Vec<f64>,
    g: Vec<f64>,
    parent_rows: bool,
    /// Row of child c's invariant total, if it is one of the equality rows.
    total_row: Vec<Option<usize>>,
    rhs: Vec<f64>,
}

impl Dense {
    pub(crate) fn new(p: &Problem, scale: f64) -> Dense {
        let (n, m) = (p.n, p.children.len());
        let mut h = vec![0.0; m * n * n];
        let mut g = vec![0.0; m * n];
        for (c, ch) in p.children.iter().enumerate() {
            let hc = &mut h[c * n * n..(c + 1) * n * n];
            for t in &ch.terms {
                for k in 0..n {
                    g[c * n + k] -= 2.0 * t.weight * t.y[t.map[k] as usize] / scale;
                    for l in 0..n {
                        if t.map[k] == t.map[l] {
                            hc[k * n + l] += 2.0 * t.weight;
                        }
                    }
                }
            }
        }
        let mut rhs = Vec::new();
        if let Some(par) = &p.parent {
            rhs.extend(par.iter().map(|v| v / scale));
        }
        // as in `l2::build`: with a parent and every child's total, the last total is implied
        let with_total: Vec<usize> = (0..m).filter(|&c| p.children[c].total.is_some()).collect();
        let skip_last = p.parent.is_some() && with_total.len() == m;
        let mut total_row = vec![None; m];
        for (i, &c) in with_total.iter().enumerate() {
            if skip_last && i + 1 == with_total.len() {
                break;
            }
            total_row[c] = Some(rhs.len());
            rhs.push(p.children[c].total.unwrap() / scale);
        }
        Dense { n, m, h, g, parent_rows: p.parent.is_some(), total_row, rhs }
    }

    /// The equality rows variable (c, k) appears in.
    fn rows(&self, c: usize, k: usize) -> impl Iterator<Item = usize> {
        (self.parent_rows.then_some(k)).into_iter().chain(self.total_row[c])
    }

    /// Minimise with the `held` cells at 0 subject to the equality rows: the cells (held ones 0) and
    /// the row multipliers ν (H x + g + Eᵀν = 0 on the free cells). None when a child's free block or
    /// the Schur complement is singular (rows made dependent or empty by the held cells).
    pub(crate) fn solve_held(&self, held: &[bool]) -> Option<(Vec<f64>, Vec<f64>)> {
        let (n, r) = (self.n, self.rhs.len());
        let mut s = vec![0.0; r * r];
        let mut t = vec![0.0; r];
        // per child: free cells, H_F⁻¹ and H_F⁻¹ g_F
        let mut blocks = Vec::with_capacity(self.m);
        for c in 0..self.m {
            let free: Vec<usize> = (0..n).filter(|&k| !held[c * n + k]).collect();
            let f = free.len();
            let hc = &self.h[c * n * n..(c + 1) * n * n];
            let mut hf: Vec<f64> = free.iter().flat_map(|&k| free.iter().map(move |&l| hc[k * n + l])).collect();
            cholesky(&mut hf, f, 0.0)?;
            let inv = chol_inverse(&hf, f);
            let gf: Vec<f64> = free.iter().map(|&k| self.g[c * n + k]).collect();
            let u: Vec<f64> = (0..f).map(|a| (0..f).map(|b| inv[a * f + b] * gf[b]).sum()).collect();
            for a in 0..f {
                for ra in self.rows(c, free[a]) {
                    t[ra] += u[a];
                    for b in 0..f {
                        for rb in self.rows(c, free[b]) {
                            s[ra * r + rb] += inv[a * f + b];
                        }
                    }
                }
            }
            blocks.push((free, inv, u));
        }
        // S ν = −E H⁻¹g − e
        let mut nu: Vec<f64> = (0..r).map(|i| -t[i] - self.rhs[i]).collect();
        if r > 0 {
            let dmax = (0..r).map(|i| s[i * r + i]).fold(0.0, f64::max);
            cholesky(&mut s, r, 1e-10 * dmax)?;
            chol_solve(&s, r, &mut nu);
        }
        let mut x = vec![0.0; self.m * n];
        for (c, (free, inv, u)) in blocks.iter().enumerate() {
            let f = free.len();
            let etnu: Vec<f64> = free.iter().map(|&k| self.rows(c, k).map(|ri| nu[ri]).sum()).collect();
            for a in 0..f {
                x[c * n + free[a]] = -(u[a] + (0..f).map(|b| inv[a * f + b] * etnu[b]).sum::<f64>());
            }
        }
        Some((x, nu))
    }

    /// Reduced gradient (H x + g + Eᵀν) of cell (c, k): the multiplier of x_{c,k} ≥ 0 when it is held.
    pub(crate) fn multiplier(&self, x: &[f64], nu: &[f64], c: usize, k: usize) -> f64 {
        let n = self.n;
        let hk = &self.h[(c * n + k) * n..(c * n + k + 1) * n];
        let hx: f64 = hk.iter().zip(&x[c * n..(c + 1) * n]).map(|(a, b)| a * b).sum();
        hx + self.g[c * n + k] + self.rows(c, k).map(|ri| nu[ri]).sum::<f64>()
    }
}

/// The optimum's cells (child-major, scaled units): the primal–dual active-set iteration from no
/// cell held — hold the free cells that came out negative, release the held cells with a negative
/// multiplier — until nothing changes (then x ≥ 0 and the multipliers of the held cells are ≥ 0).
pub(crate) fn optimum(p: &Problem, scale: f64) -> Option<Vec<f64>> {
    let d = Dense::new(p, scale);
    let nx = d.n * d.m;
    let mut held = vec![false; nx];
    for _ in 0..MAX_ROUNDS {
        let (x, nu) = d.solve_held(&held)?;
        let next: Vec<bool> = (0..nx).map(|v| if held[v] { d.multiplier(&x, &nu, v / d.n, v % d.n) > 0.0 } else { x[v] < 0.0 }).collect();
        if next == held {
            return Some(x);
        }
        held = next;
    }
    None
}

/// In-place Cholesky factor (lower, row-major) of a symmetric f × f matrix; None when a pivot is not
/// above `tol`.
fn cholesky(a: &mut [f64], f: usize, tol: f64) -> Option<()> {
    for j in 0..f {
        let mut d = a[j * f + j];
        for k in 0..j {
            d -= a[j * f + k] * a[j * f + k];
        }
        if !(d > tol) {
            return None;
        }
        let d = d.sqrt();
        a[j * f + j] = d;
        for i in j + 1..f {
            let mut v = a[i * f + j];
            for k in 0..j {
                v -= a[i * f + k] * a[j * f + k];
            }
            a[i * f + j] = v / d;
        }
    }
    Some(())
}

/// Solve L Lᵀ z = b in place.
fn chol_solve(l: &[f64], f: usize, b: &mut [f64]) {
    for i in 0..f {
        let mut v = b[i];
        for k in 0..i {
            v -= l[i * f + k] * b[k];
        }
        b[i] = v / l[i * f + i];
    }
    for i in (0..f).rev() {
        let mut v = b[i];
        for k in i + 1..f {
            v -= l[k * f + i] * b[k];
        }
        b[i] = v / l[i * f + i];
    }
}

/// (L Lᵀ)⁻¹, row-major.
fn chol_inverse(l: &[f64], f: usize) -> Vec<f64> {
    let mut inv = vec![0.0; f * f];
    let mut e = vec![0.0; f];
    for j in 0..f {
        e.iter_mut().for_each(|v| *v = 0.0);
        e[j] = 1.0;
        chol_solve(l, f, &mut e);
        for i in 0..f {
            inv[i * f + j] = e[i];
        }
    }
    inv
}
