//! Tree-consistent weighted least squares on a spine, exact error variances of on-spine and
//! off-spine aggregates, non-negativity, and Monte Carlo checks.
//!
//! One scalar count per geounit (a query cell, e.g. the total) is measured with independent noise of
//! variance v_u (∞ where the geounit is bypassed). The WLS estimate under the constraints
//! "parent = Σ children" ([CAK24, eq. 3.3] restricted to one query cell;
//! Hay et al. 2010 for equal variances) has a closed form on a tree, two passes:
//! * up: z_u, V_u = the best estimate of x_u and its variance from the measurements in u's
//!   subtree: V_u = 1/(1/v_u + 1/S_u), z_u = V_u (y_u/v_u + Σ_c z_c / S_u), S_u = Σ_c V_c;
//! * down: x̂_root = z_root; x̂_c = z_c + (V_c/S_u)(x̂_u − Σ_{c'} z_{c'}).
//!
//! Error variances (exact, no simulation), with E_u = Var(x̂_u − x_u):
//! E_root = V_root, E_c = V_c − V_c²/S_u + (V_c/S_u)² E_u (law of total variance given x_u).
//! An off-spine entity K (a set of blocks) is estimated by Σ_{b∈K} x̂_b. Its variance comes from
//! one more upward pass: given x_u, the part f_u of K below u has conditional mean λ_u x_u + const
//! and conditional variance R_u, with λ_u = Σ_c λ_c V_c/S_u and
//! R_u = Σ_c R_c + Σ_c λ_c² V_c − (Σ_c λ_c V_c)²/S_u; then Var = R_root + λ_root² E_root.
//! The off-spine entity distance (eqs. 4.1–4.4, `Spine::osed`) counts the geounits such a sum needs.

use crate::error::Fallible;
use crate::fallible;
use crate::topdown::estimation::bisect;
use crate::topdown::geography::spine::{Spine, NONE};
use crate::topdown::measurement::sampler::{DiscreteGaussianSampler, NoiseRng};
use rug::Rational;

pub struct TreeWls<'a> {
    pub spine: &'a Spine,
    pub post: Vec<u32>,
    /// Measurement variance per unit (∞ when not measured).
    pub v: Vec<f64>,
    /// Upward variance V_u and children sums S_u.
    pub up_var: Vec<f64>,
    pub child_sum: Vec<f64>,
    /// Error variance E_u of the final estimate.
    pub err_var: Vec<f64>,
}

impl<'a> TreeWls<'a> {
    pub fn new(spine: &'a Spine, v: Vec<f64>) -> Fallible<TreeWls<'a>> {
        let n = spine.n_units();
        let post = spine.postorder();
        let mut up_var = vec![0.0; n];
        let mut child_sum = vec![0.0; n];
        for &u in &post {
            let ui = u as usize;
            let ch = spine.children(u);
            if ch.is_empty() {
                up_var[ui] = v[ui];
                continue;
            }
            let s: f64 = ch.iter().map(|&c| up_var[c as usize]).sum();
            if ch.len() > 1 && s.is_infinite() {
                return fallible!(Input, "geounit '{}' has a child without any measurement below it", spine.ids[ui]);
            }
            child_sum[ui] = s;
            up_var[ui] = if v[ui].is_infinite() {
                s
            } else if s.is_infinite() {
                v[ui]
            } else {
                1.0 / (1.0 / v[ui] + 1.0 / s)
            };
        }
        if up_var[spine.root as usize].is_infinite() {
            return fallible!(Input, "the root has no measurement below it");
        }
        let mut err_var = vec![0.0; n];
        err_var[spine.root as usize] = up_var[spine.root as usize];
        for &u in post.iter().rev() {
            let ui = u as usize;
            let ch = spine.children(u);
            if ch.len() == 1 {
                err_var[ch[0] as usize] = err_var[ui];
                continue;
            }
            let s = child_sum[ui];
            for &c in ch {
                let vc = up_var[c as usize];
                let w = vc / s;
                err_var[c as usize] = vc - vc * w + w * w * err_var[ui];
            }
        }
        Ok(TreeWls { spine, post, v, up_var, child_sum, err_var })
    }

    /// WLS estimates from measurements y (ignored where v = ∞).
    pub fn estimate(&self, y: &[f64], z: &mut Vec<f64>, xhat: &mut Vec<f64>) {
        let n = self.spine.n_units();
        z.clear();
        z.resize(n, 0.0);
        xhat.clear();
        xhat.resize(n, 0.0);
        for &u in &self.post {
            let ui = u as usize;
            let ch = self.spine.children(u);
            if ch.is_empty() {
                z[ui] = if self.v[ui].is_finite() { y[ui] } else { 0.0 };
                continue;
            }
            let s: f64 = ch.iter().map(|&c| z[c as usize]).sum();
            let sv = self.child_sum[ui];
            z[ui] = if self.v[ui].is_infinite() {
                s
            } else if sv.is_infinite() {
                y[ui]
            } else {
                self.up_var[ui] * (y[ui] / self.v[ui] + s / sv)
            };
        }
        let r = self.spine.root as usize;
        xhat[r] = z[r];
        for &u in self.post.iter().rev() {
            let ui = u as usize;
            let ch = self.spine.children(u);
            if ch.len() == 1 {
                xhat[ch[0] as usize] = xhat[ui];
                continue;
            }
            if ch.is_empty() {
                continue;
            }
            let s: f64 = ch.iter().map(|&c| z[c as usize]).sum();
            let resid = xhat[ui] - s;
            let sv = self.child_sum[ui];
            for &c in ch {
                xhat[c as usize] = z[c as usize] + self.up_var[c as usize] / sv * resid;
            }
        }
    }

    /// Exact variance of Σ_{b ∈ K} x̂_b for a set K of blocks (by block number).
    pub fn aggregate_variance(&self, member: &[bool]) -> f64 {
        let n = self.spine.n_units();
        let mut lam = vec![0.0f64; n];
        let mut r = vec![0.0f64; n];
        for &u in &self.post {
            let ui = u as usize;
            let b = self.spine.block_no[ui];
            let ch = self.spine.children(u);
            if b != NONE && ch.is_empty() {
                lam[ui] = if member[b as usize] { 1.0 } else { 0.0 };
                continue;
            }
            if ch.len() == 1 {
                lam[ui] = lam[ch[0] as usize];
                r[ui] = r[ch[0] as usize];
                continue;
            }
            let s = self.child_sum[ui];
            let (mut l, mut rr, mut q, mut lv) = (0.0, 0.0, 0.0, 0.0);
            for &c in ch {
                let (lc, vc) = (lam[c as usize], self.up_var[c as usize]);
                l += lc * vc / s;
                rr += r[c as usize];
                q += lc * lc * vc;
                lv += lc * vc;
            }
            lam[ui] = l;
            r[ui] = rr + q - lv * lv / s;
        }
        let root = self.spine.root as usize;
        r[root] + lam[root] * lam[root] * self.err_var[root]
    }
}

/// Top-down non-negativity: clamp the root at 0, then for each parent project its children's
/// estimates onto {c ≥ 0, Σ c = parent} in the 1/V_c-weighted norm: c = max(0, x̂_c + V_c μ).
pub fn nonnegative(w: &TreeWls, xhat: &[f64], out: &mut Vec<f64>) {
    let sp = w.spine;
    out.clear();
    out.resize(sp.n_units(), 0.0);
    let r = sp.root as usize;
    out[r] = xhat[r].max(0.0);
    let mut terms: Vec<(f64, f64)> = Vec::new();
    for &u in w.post.iter().rev() {
        let ch = sp.children(u);
        if ch.is_empty() {
            continue;
        }
        let target = out[u as usize];
        if ch.len() == 1 {
            out[ch[0] as usize] = target;
            continue;
        }
        // (x̂_c, V_c) of the children, side by side
        terms.clear();
        terms.extend(ch.iter().map(|&c| (xhat[c as usize], w.up_var[c as usize])));
        let mu = projection_mu(&terms, target);
        let vals: Vec<f64> = terms.iter().map(|&(x, v)| (x + v * mu).max(0.0)).collect();
        let s: f64 = vals.iter().sum();
        for (&c, v) in ch.iter().zip(vals) {
            out[c as usize] = if s > 0.0 { v * target / s } else { target / ch.len() as f64 };
        }
    }
}

/// The μ of `nonnegative` for children (x̂_c, V_c): 200 bisection steps on f(μ) < target over
/// ±span/vmin with f(μ) = Σ max(0, x̂_c + V_c μ) — computed by `bisect`, the same result from far
/// fewer evaluations of f (the predicate is monotone: f in floating point is non-decreasing in μ, as
/// every rounding in it is).
fn projection_mu(terms: &[(f64, f64)], target: f64) -> f64 {
    let f = |mu: f64| -> f64 { terms.iter().map(|&(x, v)| (x + v * mu).max(0.0)).sum() };
    let vmin = terms.iter().map(|&(_, v)| v).fold(f64::INFINITY, f64::min);
    let span = terms.iter().map(|&(x, _)| x.abs()).sum::<f64>() + target.abs() + 1.0;
    let guess = turning_guess(terms, target, &f);
    bisect::bisection(-span / vmin, span / vmin, 200, |mu| f(mu) < target, guess)
}

/// Where f(μ) = Σ max(0, a_c + v_c μ), evaluated in floating point as `nonnegative` does, first
/// reaches `target`: a starting point for `bisect::bisection`, exact in the common case that
/// `near_zero_turn` handles, else the root in real arithmetic.
fn turning_guess(terms: &[(f64, f64)], target: f64, f: &impl Fn(f64) -> f64) -> f64 {
    let root = projection_root(terms, target);
    near_zero_turn(terms, target, f, root).unwrap_or(root)
}

/// The turning point when no child is near its clamp at 0, so that the children's x̂ already add up
/// to the target but for rounding and the root μ is within rounding distance of 0. There f is a step
/// function of μ that changes only where a single term a_c + v_c·μ (a_c > 0) rounds to the next
/// float (`first_reaching`); walking those steps outward from 0 in order, the first one at which
/// f(μ) < target changes is the turning point. None outside that case or if the walk is long (the
/// caller's search then starts from the real root; either way `bisection` checks what it is given).
fn near_zero_turn(terms: &[(f64, f64)], target: f64, f: &impl Fn(f64) -> f64, root: f64) -> Option<f64> {
    let sv: f64 = terms.iter().map(|&(_, v)| v).sum();
    let reach = root.abs() + 4.0 * (target.next_up() - target) / sv;
    // every term far from 0 over the walk: a_c > 0 only steps by rounding, a_c < 0 stays clamped
    if !(reach.is_finite() && terms.iter().all(|&(a, v)| a.abs() > 2f64.powi(30) * v * reach)) {
        return None;
    }
    let up = f(0.0) < target;
    // per term with a_c > 0: the value its next step reaches and where (the step below 0 at which
    // it regains a_c, a value lower each further step down)
    let mut steps: Vec<(usize, f64, f64)> = Vec::with_capacity(terms.len());
    for (c, &(a, v)) in terms.iter().enumerate() {
        if a > 0.0 {
            let y = if up { a.next_up() } else { a };
            steps.push((c, y, first_reaching(a, v, y)?));
        }
    }
    for _ in 0..64 {
        // the step nearest to 0 in the walk's direction
        let i = (0..steps.len()).min_by(|&i, &j| {
            let (x, y) = (steps[i].2, steps[j].2);
            if up {
                x.total_cmp(&y)
            } else {
                y.total_cmp(&x)
            }
        })?;
        let (c, y, mu) = steps[i];
        if up && !(f(mu) < target) || !up && f(mu.next_down()) < target {
            return Some(mu);
        }
        let (a, v) = terms[c];
        let y = if up { y.next_up() } else { y.next_down() };
        steps[i] = (c, y, first_reaching(a, v, y)?);
    }
    None
}

/// The smallest float μ with a + v·μ ≥ y in floating point (v > 0): from the rounding boundary in
/// real arithmetic, a few floats either way.
fn first_reaching(a: f64, v: f64, y: f64) -> Option<f64> {
    let reaches = |mu: f64| a + v * mu >= y;
    let mut mu = ((y - a) - 0.5 * (y - y.next_down())) / v;
    for _ in 0..64 {
        match (reaches(mu), reaches(mu.next_down())) {
            (true, false) => return Some(mu),
            (true, true) => mu = mu.next_down(),
            (false, _) => mu = mu.next_up(),
        }
    }
    None
}

/// The root of Σ max(0, a_c + v_c μ) = target (v_c > 0) in real arithmetic, by Newton's method from
/// the right (the function is convex, increasing and piecewise linear: finitely many steps); −∞ when
/// the function never goes below the target (target ≤ 0).
fn projection_root(terms: &[(f64, f64)], target: f64) -> f64 {
    if !(target > 0.0) {
        return f64::NEG_INFINITY;
    }
    // Σ a_c and Σ v_c over the terms positive at μ (all of them to start with)
    let sums = |mu: Option<f64>| {
        terms.iter().filter(|&&(a, v)| mu.is_none_or(|mu| a + v * mu > 0.0)).fold((0.0, 0.0), |(sa, sv), &(a, v)| (sa + a, sv + v))
    };
    let (sa, sv) = sums(None);
    let mut mu = (target - sa) / sv;
    for _ in 0..64 {
        let (sa, sv) = sums(Some(mu));
        let next = (target - sa) / sv;
        if !next.is_finite() || next == mu {
            break;
        }
        mu = next;
    }
    if mu.is_nan() {
        0.0
    } else {
        mu
    }
}

/// Per-unit noise for a scalar query: σ² per geolevel (one query, a level's share); a unit with
/// budget span k carries the precisions of its k geolevels (γ adds, precision ∝ γ under zCDP).
pub fn unit_sigma2(spine: &Spine, level_sigma2: &[Rational]) -> Vec<Option<Rational>> {
    (0..spine.n_units())
        .map(|u| {
            let k = spine.span[u] as usize;
            if k == 0 {
                return None;
            }
            let l = spine.level[u] as usize;
            let prec = level_sigma2[l..l + k].iter().fold(Rational::new(), |a, s| a + Rational::from(s.recip_ref()));
            Some(prec.recip())
        })
        .collect()
}

/// Accuracy of one noise setting: closed forms and simulation.
#[derive(Clone, Debug)]
pub struct AccuracyRow {
    pub group: String,
    pub name: String,
    pub count: usize,
    pub mean_osed: f64,
    pub mse_closed: f64,
    pub mse_sim: f64,
    pub mse_sim_se: f64,
    pub mse_nonneg_sim: f64,
}

impl AccuracyRow {
    pub fn z(&self) -> f64 {
        if self.mse_sim_se > 0.0 {
            (self.mse_sim - self.mse_closed) / self.mse_sim_se
        } else {
            0.0
        }
    }
}

/// Closed-form and simulated MSE by geolevel and by off-spine entity category.
/// `truth` is the true count per unit (for the non-negative estimates; WLS errors do not depend on it).
pub fn accuracy(spine: &Spine, level_sigma2: &[Rational], truth: &[f64], trials: usize, rng: &mut NoiseRng) -> Fallible<Vec<AccuracyRow>> {
    let (cache, which) = unit_noise(spine, level_sigma2)?;
    let v: Vec<f64> = which.iter().map(|&k| if k == usize::MAX { f64::INFINITY } else { cache[k].1 }).collect();
    let w = TreeWls::new(spine, v)?;
    let nl = spine.n_levels();
    // groups: levels, then OSE categories (entities grouped per category)
    let mut level_units: Vec<Vec<u32>> = vec![Vec::new(); nl];
    for u in 0..spine.n_units() {
        level_units[spine.level[u] as usize].push(u as u32);
    }
    let mut ents: Vec<Ent> = Vec::new();
    for (k, cat) in spine.ose.iter().enumerate() {
        for e in 0..cat.entities.len() as u32 {
            let m = spine.ose_members(k, e);
            let blocks: Vec<u32> = m.iter().enumerate().filter(|(_, &x)| x).map(|(i, _)| i as u32).collect();
            ents.push(Ent { cat: k, var: w.aggregate_variance(&m), osed: spine.osed(&m), blocks });
        }
    }
    let ng = nl + spine.ose.len();
    let mut sums = Sums { sum: vec![0.0f64; ng], sumsq: vec![0.0f64; ng], sum_nn: vec![0.0f64; ng] };
    let (mut y, mut z, mut xh, mut nn) = (vec![0.0; spine.n_units()], Vec::new(), Vec::new(), Vec::new());
    for _ in 0..trials {
        for u in 0..spine.n_units() {
            y[u] = if which[u] == usize::MAX { 0.0 } else { truth[u] + cache[which[u]].2.sample(rng) as f64 };
        }
        w.estimate(&y, &mut z, &mut xh);
        nonnegative(&w, &xh, &mut nn);
        sums.add_trial(spine, &level_units, &ents, truth, &xh, &nn);
    }
    let Sums { sum, sumsq, sum_nn } = sums;
    let t = trials as f64;
    let mut rows = Vec::new();
    for g in 0..ng {
        let mean = sum[g] / t;
        let var = (sumsq[g] / t - mean * mean).max(0.0) * t / (t - 1.0).max(1.0);
        let se = (var / t).sqrt();
        let (group, name, count, osed, closed) = if g < nl {
            let us = &level_units[g];
            let c = us.iter().map(|&u| w.err_var[u as usize]).sum::<f64>() / us.len() as f64;
            ("geolevel".to_string(), spine.levels[g].clone(), us.len(), 1.0, c)
        } else {
            let k = g - nl;
            let es: Vec<&Ent> = ents.iter().filter(|e| e.cat == k).collect();
            if es.is_empty() {
                continue;
            }
            let c = es.iter().map(|e| e.var).sum::<f64>() / es.len() as f64;
            let o = es.iter().map(|e| e.osed as f64).sum::<f64>() / es.len() as f64;
            ("off-spine".to_string(), spine.ose[k].name.clone(), es.len(), o, c)
        };
        rows.push(AccuracyRow {
            group,
            name,
            count,
            mean_osed: osed,
            mse_closed: closed,
            mse_sim: mean,
            mse_sim_se: se,
            mse_nonneg_sim: sum_nn[g] / t,
        });
    }
    Ok(rows)
}

/// An off-spine entity: its category, blocks, closed-form error variance and number of spine units.
struct Ent {
    cat: usize,
    blocks: Vec<u32>,
    var: f64,
    osed: u64,
}

/// Per group (the geolevels, then the off-spine categories): the sums over trials of the mean squared
/// error, of its square, and of the non-negative estimates' mean squared error.
struct Sums {
    sum: Vec<f64>,
    sumsq: Vec<f64>,
    sum_nn: Vec<f64>,
}

impl Sums {
    /// One trial's errors: `xh` the WLS estimates, `nn` the non-negative ones, against `truth`.
    fn add_trial(&mut self, spine: &Spine, level_units: &[Vec<u32>], ents: &[Ent], truth: &[f64], xh: &[f64], nn: &[f64]) {
        let nl = level_units.len();
        for l in 0..nl {
            let (mut a, mut b) = (0.0, 0.0);
            for &u in &level_units[l] {
                let e = xh[u as usize] - truth[u as usize];
                a += e * e;
                let e2 = nn[u as usize] - truth[u as usize];
                b += e2 * e2;
            }
            let a = a / level_units[l].len() as f64;
            self.sum[l] += a;
            self.sumsq[l] += a * a;
            self.sum_nn[l] += b / level_units[l].len() as f64;
        }
        let mut acc = vec![(0.0f64, 0.0f64, 0usize); spine.ose.len()];
        for e in ents {
            let (mut s, mut t, mut s_nn) = (0.0, 0.0, 0.0);
            for &b in &e.blocks {
                let u = spine.blocks[b as usize] as usize;
                s += xh[u];
                t += truth[u];
                s_nn += nn[u];
            }
            acc[e.cat].0 += (s - t) * (s - t);
            acc[e.cat].1 += (s_nn - t) * (s_nn - t);
            acc[e.cat].2 += 1;
        }
        for (k, (a, b, n)) in acc.into_iter().enumerate() {
            if n > 0 {
                let a = a / n as f64;
                self.sum[nl + k] += a;
                self.sumsq[nl + k] += a * a;
                self.sum_nn[nl + k] += b / n as f64;
            }
        }
    }
}

/// A distinct σ², its discrete Gaussian's variance and its sampler.
type Noise = (Rational, f64, DiscreteGaussianSampler);

/// The noise of each unit: the distinct σ² with their exact discrete Gaussian variance (certified, then
/// rounded to f64) and sampler, and each unit's index into them (usize::MAX: not measured).
fn unit_noise(spine: &Spine, level_sigma2: &[Rational]) -> Fallible<(Vec<Noise>, Vec<usize>)> {
    let s2 = unit_sigma2(spine, level_sigma2);
    let mut cache: Vec<Noise> = Vec::new();
    let mut which = vec![usize::MAX; spine.n_units()];
    for (u, s) in s2.iter().enumerate() {
        if let Some(s) = s {
            let k = match cache.iter().position(|(r, _, _)| r == s) {
                Some(k) => k,
                None => {
                    let var = crate::noise::dgauss::DiscreteGaussian::new(s.clone())?.variance(128).to_f64();
                    cache.push((s.clone(), var, DiscreteGaussianSampler::new(s.clone())?));
                    cache.len() - 1
                }
            };
            which[u] = k;
        }
    }
    Ok((cache, which))
}

/// σ² per DHC geolevel for one query, Table 1 of [SSW24] (US, State,
/// County, PEPG, Tract Subset Group, Tract Subset, Optimized Block Group, Block).
pub const TABLE1_BUREAU: [&str; 8] = ["68.49", "5.00", "16.12", "10.46", "10.46", "5.76", "11.61", "456.62"];
pub const TABLE1_REDUCED: [&str; 8] = ["54.19", "4.25", "13.28", "8.72", "8.72", "4.87", "9.65", "343.27"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topdown::geography::spine::{Bypass, GeoSpec};
    use crate::topdown::measurement::sampler::seeded;

    fn spine(seed: u64) -> Spine {
        let spec = GeoSpec::parse("US,State,County,Tract,Block", "3,1-3,1-4,1-5", seed, "place:0.4,aian:0.2").unwrap();
        let mut buf = Vec::new();
        spec.write(&mut buf).unwrap();
        Spine::from_reader(&buf[..]).unwrap()
    }

    /// Dense WLS: x̂ = (AᵀDA)⁻¹AᵀDy over blocks; returns diag of A(AᵀDA)⁻¹Aᵀ for every unit.
    fn dense_diag(sp: &Spine, prec: &[f64]) -> Vec<f64> {
        let nb = sp.blocks.len();
        let n = sp.n_units();
        // A: unit × block indicator
        let mut a = vec![vec![0.0; nb]; n];
        for (b, &u) in sp.blocks.iter().enumerate() {
            for p in sp.path(u) {
                a[p as usize][b] = 1.0;
            }
        }
        let mut m = vec![vec![0.0; nb]; nb];
        for u in 0..n {
            for i in 0..nb {
                if a[u][i] == 0.0 {
                    continue;
                }
                for j in 0..nb {
                    m[i][j] += prec[u] * a[u][i] * a[u][j];
                }
            }
        }
        let inv = crate::topdown::geography::bypass::invert(&m).unwrap();
        (0..n)
            .map(|u| {
                let mut s = 0.0;
                for i in 0..nb {
                    for j in 0..nb {
                        s += a[u][i] * inv[i][j] * a[u][j];
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn closed_form_variances_match_dense_wls() {
        for bypass in [Bypass::None, Bypass::Zcdp] {
            let mut sp = spine(4);
            sp.apply_bypass(bypass);
            let s2: Vec<Rational> = ["3", "1/2", "2", "5", "7"].iter().map(|s| crate::num::parse_rational(s).unwrap()).collect();
            let us = unit_sigma2(&sp, &s2);
            let v: Vec<f64> = us.iter().map(|s| s.as_ref().map_or(f64::INFINITY, |s| s.to_f64())).collect();
            let prec: Vec<f64> = v.iter().map(|&x| 1.0 / x).collect();
            let w = TreeWls::new(&sp, v).unwrap();
            let d = dense_diag(&sp, &prec);
            for u in 0..sp.n_units() {
                assert!((w.err_var[u] - d[u]).abs() < 1e-9 * d[u].max(1.0), "unit {u}: {} vs {}", w.err_var[u], d[u]);
            }
            // an aggregate equal to a geounit has that geounit's variance; and an OSE against dense
            for u in 0..sp.n_units() as u32 {
                let mut m = vec![false; sp.blocks.len()];
                for (b, &bu) in sp.blocks.iter().enumerate() {
                    if sp.path(bu).contains(&u) {
                        m[b] = true;
                    }
                }
                let av = w.aggregate_variance(&m);
                assert!((av - w.err_var[u as usize]).abs() < 1e-9 * av.max(1.0));
            }
            // estimates: WLS of pure noise equals dense solution
            let mut rng = seeded(9);
            let y: Vec<f64> = (0..sp.n_units()).map(|_| rand::Rng::gen_range(&mut rng, -5.0..5.0)).collect();
            let (mut z, mut xh) = (Vec::new(), Vec::new());
            w.estimate(&y, &mut z, &mut xh);
            // consistency: parent = Σ children
            for u in 0..sp.n_units() as u32 {
                let ch = sp.children(u);
                if !ch.is_empty() {
                    let s: f64 = ch.iter().map(|&c| xh[c as usize]).sum();
                    assert!((s - xh[u as usize]).abs() < 1e-9);
                }
            }
        }
    }

    #[test]
    fn projection_mu_is_the_plain_bisection() {
        // the 200-step loop `nonnegative` was written with, on children with and without clamping,
        // targets at their sum (rounding distance from μ = 0) and away from it
        let plain = |terms: &[(f64, f64)], target: f64| {
            let f = |mu: f64| -> f64 { terms.iter().map(|&(x, v)| (x + v * mu).max(0.0)).sum() };
            let vmin = terms.iter().map(|&(_, v)| v).fold(f64::INFINITY, f64::min);
            let span = terms.iter().map(|&(x, _)| x.abs()).sum::<f64>() + target.abs() + 1.0;
            crate::topdown::estimation::bisect::naive(-span / vmin, span / vmin, 200, |mu| f(mu) < target)
        };
        let mut rng = seeded(17);
        use rand::Rng;
        for case in 0..crate::num::test_cases(2_000) as usize {
            let k = rng.gen_range(2..7);
            let terms: Vec<(f64, f64)> = (0..k)
                .map(|_| {
                    let a = if case % 3 == 0 { rng.gen_range(-20.0..60.0) } else { rng.gen_range(0.5..3000.0) };
                    (a, rng.gen_range(0.5..500.0))
                })
                .collect();
            let sum: f64 = terms.iter().map(|&(a, _)| a.max(0.0)).sum();
            let target = match case % 5 {
                0 => sum,
                1 => sum.next_up(),
                2 => sum * (1.0 + rng.gen_range(-1e-15..1e-15)),
                3 => rng.gen_range(0.0..=2.0 * sum),
                _ => [0.0, sum.round()][case % 2],
            };
            assert_eq!(projection_mu(&terms, target).to_bits(), plain(&terms, target).to_bits(), "{terms:?} {target}");
        }
    }

    #[test]
    fn simulated_and_closed_form_mse_agree() {
        let mut sp = spine(21);
        sp.apply_bypass(Bypass::Zcdp);
        let s2: Vec<Rational> =
            ["6849/100", "5", "1612/100", "1046/100", "45662/100"].iter().map(|s| crate::num::parse_rational(s).unwrap()).collect();
        let truth = vec![0.0; sp.n_units()];
        let mut rng = seeded(5);
        let rows = accuracy(&sp, &s2, &truth, 600, &mut rng).unwrap();
        assert!(rows.len() >= 6);
        for r in &rows {
            assert!(r.z().abs() < 4.0, "{r:?} z = {}", r.z());
            assert!(r.mse_closed > 0.0);
        }
    }
}
