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

use crate::topdown::estimation::l2::{Problem, Term};
use crate::topdown::estimation::rounding::{self, RoundingProblem};

/// Active-set rounds before giving up (the interior point then decides).
const MAX_ROUNDS: usize = 30;

/// The problem in dense form (see the module comment).
struct Dense {
    n: usize,
    m: usize,
    /// H_c, row-major, child after child.
    h: Vec<f64>,
    /// The first child with the same H (the same queries and weights, as siblings of one geolevel
    /// have): blocks with the same free cells share their inverse.
    same_h: Vec<usize>,
    g: Vec<f64>,
    parent_rows: bool,
    /// Row of child c's invariant total, if it is one of the equality rows.
    total_row: Vec<Option<usize>>,
    rhs: Vec<f64>,
}

impl Dense {
    /// `share`: siblings with the same queries take the first one's H and inverses (false: every
    /// block built and inverted on its own, the tests' reference).
    fn new(p: &Problem, scale: f64, share: bool) -> Dense {
        let (n, m) = (p.n, p.children.len());
        let mut h = vec![0.0; m * n * n];
        let mut g = vec![0.0; m * n];
        let mut same_h: Vec<usize> = (0..m).collect();
        let same_queries =
            |a: &[Term], b: &[Term]| a.len() == b.len() && a.iter().zip(b).all(|(s, t)| s.weight == t.weight && s.map == t.map);
        for (c, ch) in p.children.iter().enumerate() {
            for t in &ch.terms {
                for k in 0..n {
                    g[c * n + k] -= 2.0 * t.weight * t.y[t.map[k] as usize] / scale;
                }
            }
            if let Some(c0) = (0..c).find(|&c0| share && same_h[c0] == c0 && same_queries(&p.children[c0].terms, &ch.terms)) {
                same_h[c] = c0;
                h.copy_within(c0 * n * n..(c0 + 1) * n * n, c * n * n);
                continue;
            }
            let hc = &mut h[c * n * n..(c + 1) * n * n];
            for t in &ch.terms {
                for k in 0..n {
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
            rhs.push(p.children[c].total.expect("invariant: a child with a total") / scale);
        }
        Dense { n, m, h, same_h, g, parent_rows: p.parent.is_some(), total_row, rhs }
    }

    /// Minimise with the `held` cells at 0 subject to the equality rows: the cells (held ones 0) in
    /// `w.x` and the row multipliers ν (H x + g + Eᵀν = 0 on the free cells) in `w.nu`. None when a
    /// child's free block or the Schur complement is singular (rows made dependent or empty by the
    /// held cells). The parent rows of a child's block are its free cells themselves, its total row
    /// (if any) their sum.
    fn solve_held(&self, held: &[bool], w: &mut Work) -> Option<()> {
        let (n, m, r) = (self.n, self.m, self.rhs.len());
        w.s.clear();
        w.s.resize(r * r, 0.0);
        w.nu.clear();
        w.nu.resize(r, 0.0);
        w.free.resize(m * n, 0);
        w.nfree.resize(m, 0);
        w.inv_of.resize(m, 0);
        w.inv.resize(m * n * n, 0.0);
        w.u.resize(m * n, 0.0);
        // S = Σ_c E_c H_F⁻¹ E_cᵀ and −E H⁻¹g (into ν) over the children's free blocks
        for c in 0..m {
            let mut f = 0;
            for k in 0..n {
                if !held[c * n + k] {
                    w.free[c * n + f] = k;
                    f += 1;
                }
            }
            w.nfree[c] = f;
            let free = &w.free[c * n..c * n + f];
            // H_F⁻¹: an earlier sibling's with the same H and free cells, else factored here
            let shared =
                (0..c).find(|&c0| w.inv_of[c0] == c0 && self.same_h[c0] == self.same_h[c] && w.free[c0 * n..c0 * n + w.nfree[c0]] == *free);
            w.inv_of[c] = shared.unwrap_or(c);
            if shared.is_none() {
                let hc = &self.h[c * n * n..(c + 1) * n * n];
                w.hf.clear();
                w.hf.extend(free.iter().flat_map(|&k| free.iter().map(move |&l| hc[k * n + l])));
                cholesky(&mut w.hf, f, 0.0)?;
                chol_inverse(&w.hf, f, &mut w.inv[c * n * n..c * n * n + f * f], &mut w.col);
            }
            let i0 = w.inv_of[c] * n * n;
            let inv = &w.inv[i0..i0 + f * f];
            let u = &mut w.u[c * n..c * n + f];
            for a in 0..f {
                u[a] = (0..f).map(|b| inv[a * f + b] * self.g[c * n + free[b]]).sum();
            }
            if self.parent_rows {
                for a in 0..f {
                    w.nu[free[a]] -= u[a];
                    for b in 0..f {
                        w.s[free[a] * r + free[b]] += inv[a * f + b];
                    }
                }
            }
            if let Some(tr) = self.total_row[c] {
                // the lower triangle only (all `cholesky` reads: the total rows come after the parent
                // rows), each entry summed in the order of the plain double loop over (a, b)
                for a in 0..f {
                    w.nu[tr] -= u[a];
                    for b in 0..f {
                        if self.parent_rows {
                            w.s[tr * r + free[b]] += inv[a * f + b];
                        }
                        w.s[tr * r + tr] += inv[a * f + b];
                    }
                }
            }
        }
        // S ν = −E H⁻¹g − e
        for (v, e) in w.nu.iter_mut().zip(&self.rhs) {
            *v -= e;
        }
        if r > 0 {
            let dmax = (0..r).map(|i| w.s[i * r + i]).fold(0.0, f64::max);
            cholesky(&mut w.s, r, 1e-10 * dmax)?;
            chol_solve(&w.s, r, &mut w.nu);
        }
        // x_F = −H_F⁻¹ (g_F + E_Fᵀν)
        w.x.clear();
        w.x.resize(m * n, 0.0);
        for c in 0..m {
            let f = w.nfree[c];
            let free = &w.free[c * n..c * n + f];
            let i0 = w.inv_of[c] * n * n;
            let inv = &w.inv[i0..i0 + f * f];
            w.col.clear();
            w.col.extend(free.iter().map(|&k| self.row_multipliers(&w.nu, c, k)));
            for a in 0..f {
                w.x[c * n + free[a]] = -(w.u[c * n + a] + (0..f).map(|b| inv[a * f + b] * w.col[b]).sum::<f64>());
            }
        }
        Some(())
    }

    /// (Eᵀν) at cell (c, k): the multipliers of its parent row and its child's total row, summed as
    /// `Iterator::sum` does (from −0.0, so even a zero keeps its sign).
    fn row_multipliers(&self, nu: &[f64], c: usize, k: usize) -> f64 {
        let mut v = -0.0;
        if self.parent_rows {
            v += nu[k];
        }
        if let Some(tr) = self.total_row[c] {
            v += nu[tr];
        }
        v
    }

    /// Reduced gradient (H x + g + Eᵀν) of cell (c, k): the multiplier of x_{c,k} ≥ 0 when it is held.
    fn multiplier(&self, x: &[f64], nu: &[f64], c: usize, k: usize) -> f64 {
        let n = self.n;
        let hk = &self.h[(c * n + k) * n..(c * n + k + 1) * n];
        let hx: f64 = hk.iter().zip(&x[c * n..(c + 1) * n]).map(|(a, b)| a * b).sum();
        hx + self.g[c * n + k] + self.row_multipliers(nu, c, k)
    }
}

/// Scratch space of `Dense::solve_held`, reused across children and rounds.
#[derive(Default)]
struct Work {
    /// Free cells of each child (n slots per child, the first `nfree[c]` used).
    free: Vec<usize>,
    nfree: Vec<usize>,
    /// H_F, factored in place.
    hf: Vec<f64>,
    /// H_F⁻¹ of each child (n² slots per child; `inv_of[c]`: the child whose slot holds c's) and
    /// H_F⁻¹ g_F (n slots).
    inv: Vec<f64>,
    inv_of: Vec<usize>,
    u: Vec<f64>,
    col: Vec<f64>,
    /// The Schur complement, then its factor.
    s: Vec<f64>,
    nu: Vec<f64>,
    x: Vec<f64>,
}

/// The optimum's cells (child-major, scaled units): the primal–dual active-set iteration from no
/// cell held — hold the free cells that came out negative, release the held cells with a negative
/// multiplier — until nothing changes (then x ≥ 0 and the multipliers of the held cells are ≥ 0).
pub(crate) fn optimum(p: &Problem, scale: f64) -> Option<Vec<f64>> {
    let mut w = Work::default();
    Dense::new(p, scale, true).settle(&mut w)?;
    Some(w.x)
}

impl Dense {
    /// The iteration of `optimum`; the optimum is left in `w.x`.
    fn settle(&self, w: &mut Work) -> Option<()> {
        let nx = self.n * self.m;
        let (mut held, mut next) = (vec![false; nx], vec![false; nx]);
        for _ in 0..MAX_ROUNDS {
            self.solve_held(&held, w)?;
            for v in 0..nx {
                next[v] = if held[v] { self.multiplier(&w.x, &w.nu, v / self.n, v % self.n) > 0.0 } else { w.x[v] < 0.0 };
            }
            if next == held {
                return Some(());
            }
            std::mem::swap(&mut held, &mut next);
        }
        None
    }
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

/// (L Lᵀ)⁻¹ into `inv` (row-major, f × f), `e` a work column.
fn chol_inverse(l: &[f64], f: usize, inv: &mut [f64], e: &mut Vec<f64>) {
    for j in 0..f {
        e.clear();
        e.resize(f, 0.0);
        e[j] = 1.0;
        chol_solve(l, f, e);
        for i in 0..f {
            inv[i * f + j] = e[i];
        }
    }
}

/// Agreement assumed between `solve` and `solve_direct`, per cell, relative to the data scale. The
/// answer of `solve` is the polish — an equality-constrained QP, whose KKT solves Clarabel refines
/// iteratively (residual tolerances 1e-13 relative, 1e-12 absolute, in these scaled units) — so 1e-9
/// leaves orders of magnitude to spare; observed on the bundled dhc-small runs: at most 3e-15 (2e-11
/// counts at scale 6141).
pub const DIRECT_AGREEMENT: f64 = 1e-9;

/// The optimum of the L2 problem by direct dense linear algebra (`l2_dense`: Schur complement and a
/// primal–dual active-set iteration), in the form `solve` returns it, with the bound on its distance
/// from `solve`'s answer per cell (`DIRECT_AGREEMENT` × the data scale). None for an invalid problem
/// or when the direct method does not settle (a singular system, no convergence): `solve` is needed.
/// It agrees with `solve` to the interior point's accuracy, not bit for bit.
pub fn solve_direct(p: &Problem) -> Option<(Vec<f64>, f64)> {
    p.validate().ok()?;
    let scale = crate::topdown::estimation::l2::data_scale(p);
    let x = optimum(p, scale)?;
    Some((x.iter().map(|&v| (v * scale).max(0.0)).collect(), DIRECT_AGREEMENT * scale))
}

/// The integer histograms of `family` without the interior point, when they are certainly the same:
/// the L2 optimum by direct linear algebra (`solve_direct`), rounded, and accepted only if that
/// rounding is the unique L1-closest table by a margin that covers the distance between the direct
/// optimum and the interior point's (`rounding::unique_optimum`) — then rounding the interior point's
/// optimum gives the same table. Otherwise (a tie, or the direct method does not settle) None.
pub(crate) fn rounded_direct(prob: &Problem, parent: Option<&[i64]>, totals: &[Option<i64>]) -> Option<Vec<i64>> {
    let (x, agreement) = solve_direct(prob)?;
    let r = RoundingProblem { n: prob.n, x: &x, parent, totals };
    let y = rounding::round_by_paths(&r)?;
    // Σ|x̃′ − x̃| < margin / 2 with a factor 2 to spare
    let margin = 4.0 * agreement * x.len() as f64;
    rounding::unique_optimum(&r, &y, margin).then_some(y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::estimation::l2::Child;
    use rand::{Rng, SeedableRng};

    /// Children of one parent as a geolevel has them: the same queries (detailed, total, a two-way
    /// marginal) with the same weights, different noisy answers; some invariant totals.
    fn siblings(rng: &mut rand_chacha::ChaCha8Rng, n: usize, m: usize, root: bool) -> Problem {
        let weights: Vec<f64> = (0..3).map(|_| rng.gen_range(0.2..2.0)).collect();
        let maps: [Vec<u32>; 3] = [(0..n as u32).collect(), vec![0; n], (0..n as u32).map(|k| k % 2).collect()];
        let truth: Vec<Vec<f64>> = (0..m).map(|_| (0..n).map(|_| rng.gen_range(0..4) as f64).collect()).collect();
        let children = truth
            .iter()
            .map(|tr| {
                let terms = maps
                    .iter()
                    .zip(&weights)
                    .map(|(map, &weight)| {
                        let rows = *map.iter().max().unwrap() as usize + 1;
                        let mut y = vec![0.0; rows];
                        for k in 0..n {
                            y[map[k] as usize] += tr[k];
                        }
                        y.iter_mut().for_each(|v| *v += rng.gen_range(-3.0..3.0));
                        Term { map: map.clone(), rows, weight, y }
                    })
                    .collect();
                let total = (root || rng.gen_bool(0.5)).then(|| tr.iter().sum());
                Child { terms, total }
            })
            .collect();
        let parent = (!root).then(|| (0..n).map(|k| truth.iter().map(|t| t[k]).sum()).collect());
        Problem { n, children, parent }
    }

    #[test]
    fn shared_inverses_give_the_same_optimum_bit_for_bit() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(31);
        let (mut settled, mut shared_with_held) = (0, 0);
        for case in 0..400 {
            let root = case % 8 == 0;
            let (n, m) = if root { (rng.gen_range(2..=8), 1) } else { (rng.gen_range(2..=8), rng.gen_range(2..=8)) };
            let p = siblings(&mut rng, n, m, root);
            let scale = 4.0;
            let (shared, alone) = (Dense::new(&p, scale, true), Dense::new(&p, scale, false));
            assert!(shared.same_h.iter().all(|&c0| c0 == 0), "case {case}: the siblings are alike");
            assert_eq!(shared.h, alone.h, "case {case}");
            let (mut ws, mut wa) = (Work::default(), Work::default());
            let (rs, ra) = (shared.settle(&mut ws), alone.settle(&mut wa));
            assert_eq!(rs.is_some(), ra.is_some(), "case {case}");
            if rs.is_none() {
                continue;
            }
            settled += 1;
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ws.x), bits(&wa.x), "case {case}");
            assert!((0..m).all(|c| wa.inv_of[c] == c), "case {case}");
            // the last round: a child that shares an earlier sibling's inverse with held cells
            if (0..m).any(|c| ws.inv_of[c] != c && ws.nfree[c] < n) {
                shared_with_held += 1;
            }
        }
        assert!(settled > 350, "{settled}");
        assert!(shared_with_held > 20, "{shared_with_held}");
    }
}
