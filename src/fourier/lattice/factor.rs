//! One factor of the lattice statistic V = Σ_q w_q T_q of `super`: T_q the sum of n_q i.i.d. copies of an
//! integer variable Y_q, either a discrete Gaussian N_Z(0, σ²) or a law on {0, …, μ} with certified masses
//! (the discrete Laplace shift statistic of `pld::lattice::LatticeDist::dlap_shift_sum`).
//!
//! What the inversion needs of a factor, at u = a + ib (a the tilt, b the node, both already multiplied
//! by the weight w):
//!
//! * ln φ(u), φ(u) = E e^{uY}, certified in complex interval arithmetic ([`Factor::ln_mgf`]). Any branch
//!   of the logarithm serves: n·(ln φ + 2πik) gives the same e^{n ln φ} = φⁿ. For the discrete Gaussian
//!   with σ² ≥ 1/2 the Jacobi (Poisson) form [SSW24, eq. A.3]
//!   Σ_x e^{−x²/(2σ²) + ux} = √(2πσ²) e^{σ²u²/2} S(u), S(u) = Σ_k e^{−2π²σ²k²} e^{2πikσ²u},
//!   gives ln φ(u) = σ²u²/2 + ln S(u) − ln S(0), with |S − 1| small near b ≡ 0 (mod 2π); for smaller σ²
//!   the direct sum, which then has a handful of terms.
//! * the same in f64 (saddle point, node count, the search's first guess; not certified);
//! * a certified upper bound of ln |ψ(t)|, ψ the characteristic function of Y tilted by e^{aY}, in terms
//!   of d = dist(t, 2πℤ) only ([`Factor::ln_abs_bound`]): for any integer law with tilted masses q_x,
//!   |ψ(t)|² = 1 − Σ_{x≠y} q_x q_y (1 − cos t(x − y)) ≤ 1 − 4 q_x q_{x+1} sin²(d/2) (two adjacent atoms),
//!   so ln |ψ| ≤ −2 q_x q_{x+1} sin²(d/2); and for the discrete Gaussian with σ² ≥ 1, by Poisson summation
//!   |ψ(t)| ≤ (e^{−σ²d²/2} + 2Σ_{k≥1} e^{−σ²π²(2k−1)²/2}) / (1 − 2Σ_{k≥1} e^{−2π²σ²k²}), independent of a.
//!   Both decrease in d on [0, π].

use crate::num::cinterval::{cln, CInterval};
use crate::num::Interval;
use num_complex::Complex64;
use rug::float::Round;
use rug::{Float, Rational};
use std::f64::consts::PI;

/// Relative safety margin on every f64 bound (libm's exp/ln/sin are within a few ulps; this is 10⁴ times
/// more).
const SAFETY: f64 = 1e-12;

/// The law of one summand Y.
#[derive(Clone, Debug)]
pub enum Law {
    /// N_Z(0, σ²)
    Gauss { sigma2: Rational, s2: f64, ln_z: f64 },
    /// P[Y = j] ∈ masses[j], j = 0, …, len − 1
    Finite { masses: Vec<Interval>, mf: Vec<f64> },
    /// many atoms at sparse indices (a discretised privacy-loss law), evaluated in ball arithmetic
    Sparse(std::sync::Arc<super::sparse::SparseLaw>),
}

/// n i.i.d. copies of Y, weighted by w in V.
#[derive(Clone, Debug)]
pub struct Factor {
    pub law: Law,
    pub n: u64,
    pub w: i64,
}

/// Smallest σ² for which the Jacobi form is used.
const JACOBI_FROM: f64 = 0.5;

impl Law {
    pub fn gauss(sigma2: &Rational) -> Law {
        let s2 = sigma2.to_f64();
        // ln Σ_x e^{−x²/(2σ²)}: Jacobi's √(2πσ²) Σ_k e^{−2π²σ²k²} for σ² ≥ 1/2, the direct sum below
        let ln_z = if s2 >= JACOBI_FROM {
            0.5 * (2.0 * PI * s2).ln() + (1..=4).map(|k| 2.0 * (-2.0 * PI * PI * s2 * (k * k) as f64).exp()).sum::<f64>().ln_1p()
        } else {
            let r = (s2 * 1600.0).sqrt().ceil() as i64 + 2;
            (-r..=r).map(|x| (-((x * x) as f64) / (2.0 * s2)).exp()).sum::<f64>().ln()
        };
        Law::Gauss { sigma2: sigma2.clone(), s2, ln_z }
    }

    pub fn finite(masses: Vec<Interval>) -> Law {
        let mf = masses.iter().map(|m| m.mid().to_f64()).collect();
        Law::Finite { masses, mf }
    }

    /// Mean and variance of Y (f64, for sizes and starting points).
    pub fn mean_var(&self) -> (f64, f64) {
        match self {
            Law::Sparse(s) => s.mean_var(),
            // Var N_Z(0, σ²) = σ² − (a θ-series below 1e-17 σ² for σ² ≥ 4); by direct summation below
            Law::Gauss { s2, .. } if *s2 >= 4.0 => (0.0, *s2),
            Law::Gauss { s2, .. } => {
                let r = (s2 * 1600.0).sqrt().ceil() as i64 + 2;
                let w = |x: i64| (-((x * x) as f64) / (2.0 * s2)).exp();
                let z: f64 = (-r..=r).map(w).sum();
                (0.0, (-r..=r).map(|x| (x * x) as f64 * w(x)).sum::<f64>() / z)
            }
            Law::Finite { mf, .. } => {
                let m: f64 = mf.iter().enumerate().map(|(j, p)| j as f64 * p).sum();
                let v: f64 = mf.iter().enumerate().map(|(j, p)| (j as f64 - m).powi(2) * p).sum();
                (m, v)
            }
        }
    }

    /// Smallest and largest value of Y (None: unbounded).
    pub fn support(&self) -> Option<(i64, i64)> {
        match self {
            Law::Sparse(s) => Some(s.support()),
            Law::Gauss { .. } => None,
            Law::Finite { masses, .. } => Some((0, masses.len() as i64 - 1)),
        }
    }

    // ------------------------------------------------------------------ f64 (not certified)

    /// ln φ(u) in f64 (a branch continuous near the real axis; for sizes and guesses only).
    pub fn ln_mgf_f64(&self, u: Complex64) -> Complex64 {
        match self {
            Law::Sparse(s) => s.ln_mgf_f64(u),
            Law::Gauss { s2, .. } if *s2 >= JACOBI_FROM => {
                let b = u.im - 2.0 * PI * (u.im / (2.0 * PI)).round();
                let u = Complex64::new(u.re, b);
                let mut s = Complex64::new(0.0, 0.0);
                let mut s0 = 0.0;
                for k in -4i32..=4 {
                    let kf = k as f64;
                    let e = -2.0 * PI * PI * s2 * kf * kf;
                    s += (Complex64::new(e, 0.0) + Complex64::new(0.0, 2.0 * PI * kf * s2) * u).exp();
                    s0 += e.exp();
                }
                u * u * (s2 / 2.0) + s.ln() - s0.ln()
            }
            Law::Gauss { s2, ln_z, .. } => {
                // direct sum around the tilted centre, scaled by its largest term
                let c = u.re * s2;
                if !c.is_finite() || c.abs() > 1e15 {
                    return Complex64::new(f64::NAN, f64::NAN);
                }
                let x0 = c.round() as i64;
                let r = (2.0 * s2 * 800.0).sqrt().ceil() as i64 + 2;
                let ln_t = |x: i64| Complex64::new(-((x as f64).powi(2)) / (2.0 * s2), 0.0) + u * x as f64;
                let top = ln_t(x0).re;
                let num: Complex64 = (x0 - r..=x0 + r).map(|x| (ln_t(x) - top).exp()).sum();
                num.ln() + top - ln_z
            }
            Law::Finite { mf, .. } => {
                let top = mf.iter().enumerate().filter(|(_, p)| **p > 0.0).map(|(j, p)| p.ln() + u.re * j as f64).fold(f64::MIN, f64::max);
                let s: Complex64 = mf
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| **p > 0.0)
                    .map(|(j, p)| (Complex64::new(p.ln() - top, 0.0) + u * j as f64).exp())
                    .sum();
                s.ln() + top
            }
        }
    }

    /// d/da ln φ(a) for real a: the mean of the tilted law (f64).
    pub fn tilted_mean_f64(&self, a: f64) -> f64 {
        match self {
            Law::Sparse(s) => s.tilted_mean_f64(a),
            Law::Gauss { s2, .. } if *s2 >= JACOBI_FROM => {
                // d/du [σ²u²/2 + ln S(u)] = σ²u + S′(u)/S(u), S(u) = Σ_k e^{−2π²σ²k²} e^{2πikσ²u}: at real u,
                // S′/S = Σ_k 2πikσ² e^{…}(cos + i sin)/S, whose real part is −Σ_k 2πkσ² e^{−2π²σ²k²} sin(2πkσ²a)/S
                let (mut num, mut den) = (0.0, 0.0);
                for k in -4i32..=4 {
                    let kf = k as f64;
                    let g = (-2.0 * PI * PI * s2 * kf * kf).exp();
                    let ph = 2.0 * PI * kf * s2 * a;
                    den += g * ph.cos();
                    num -= 2.0 * PI * kf * s2 * g * ph.sin();
                }
                s2 * a + num / den
            }
            Law::Gauss { s2, .. } => {
                let c = a * s2;
                if !c.is_finite() || c.abs() > 1e15 {
                    return c;
                }
                let x0 = c.round() as i64;
                let r = (2.0 * s2 * 800.0).sqrt().ceil() as i64 + 2;
                let ln_t = |x: i64| -((x as f64).powi(2)) / (2.0 * s2) + a * x as f64;
                let top = ln_t(x0);
                let (mut num, mut den) = (0.0, 0.0);
                for x in x0 - r..=x0 + r {
                    let w = (ln_t(x) - top).exp();
                    num += (x - x0) as f64 * w;
                    den += w;
                }
                x0 as f64 + num / den
            }
            Law::Finite { mf, .. } => {
                let top = mf.iter().enumerate().filter(|(_, p)| **p > 0.0).map(|(j, p)| p.ln() + a * j as f64).fold(f64::MIN, f64::max);
                let (mut num, mut den) = (0.0, 0.0);
                for (j, p) in mf.iter().enumerate().filter(|(_, p)| **p > 0.0) {
                    let w = (p.ln() + a * j as f64 - top).exp();
                    num += j as f64 * w;
                    den += w;
                }
                num / den
            }
        }
    }

    /// A certified upper bound of ln |ψ(t)| (ψ: the characteristic function of Y tilted by e^{aY}) for
    /// every t at distance ≥ d from 2πℤ (0 ≤ d ≤ π); 0 when nothing better is known.
    pub fn ln_abs_bound(&self, a: f64, d: f64) -> f64 {
        if let Law::Sparse(sp) = self {
            return sp.ln_abs_bound(a, d);
        }
        let s = (d / 2.0).sin();
        let sin2 = (s * s) * (1.0 - SAFETY);
        let two_atom = -2.0 * self.adjacent_product_lo(a) * sin2;
        let poisson = match self {
            Law::Gauss { s2, .. } if *s2 >= 1.0 => {
                let mut eps = 0.0;
                let mut dmin = 1.0;
                for k in 1..=6 {
                    let kf = k as f64;
                    eps += 2.0 * (-s2 * PI * PI * (2.0 * kf - 1.0).powi(2) / 2.0).exp();
                    dmin -= 2.0 * (-2.0 * PI * PI * s2 * kf * kf).exp();
                }
                // the omitted k > 6 terms are below 1e-300 for σ² ≥ 1
                let num = ((-s2 * d * d / 2.0).exp() + eps) * (1.0 + SAFETY) + 1e-300;
                (num / (dmin * (1.0 - SAFETY))).ln() + SAFETY
            }
            _ => 0.0,
        };
        two_atom.min(poisson).min(0.0)
    }

    /// A lower bound of max_x q_x q_{x+1} over adjacent atoms of the tilted law (0 if unknown).
    fn adjacent_product_lo(&self, a: f64) -> f64 {
        // ln q_x = ln p_x + a x − ln φ(a); take x at the tilted mean
        let lnphi = self.ln_mgf_f64(Complex64::new(a, 0.0)).re;
        let best = |ln_pair: &dyn Fn(i64) -> f64, x0: i64| {
            let mut b = f64::MIN;
            for x in x0 - 2..=x0 + 1 {
                b = b.max(ln_pair(x));
            }
            b
        };
        let ln_pair = match self {
            Law::Gauss { s2, ln_z, .. } => {
                let x0 = (a * s2).floor() as i64;
                // ln q_x = −x²/(2σ²) + ax − ln Z − ln φ(a)
                let f = move |x: i64| {
                    let (x, y) = (x as f64, x as f64 + 1.0);
                    -(x * x + y * y) / (2.0 * s2) + a * (x + y) - 2.0 * (lnphi + ln_z)
                };
                best(&f, x0)
            }
            Law::Sparse(_) => return 0.0,
            Law::Finite { mf, .. } => {
                let mut b = f64::MIN;
                for j in 0..mf.len().saturating_sub(1) {
                    if mf[j] > 0.0 && mf[j + 1] > 0.0 {
                        b = b.max(mf[j].ln() + mf[j + 1].ln() + a * (2 * j + 1) as f64 - 2.0 * lnphi);
                    }
                }
                b
            }
        };
        if !ln_pair.is_finite() {
            return 0.0;
        }
        // the f64 masses of Finite are midpoints of certified enclosures of relative width ≪ 1e-9
        (ln_pair - 1e-9).exp() * (1.0 - SAFETY)
    }

    // ------------------------------------------------------------------ certified

    /// ln φ(a + ib), certified, for real intervals a (tilt) and b (node); None where the enclosure of φ
    /// may contain 0 (the caller then bounds the node instead of evaluating it).
    pub fn ln_mgf(&self, a: &Interval, b: &Interval, p: u32) -> Option<CInterval> {
        match self {
            Law::Gauss { sigma2, s2, .. } if *s2 >= JACOBI_FROM => gauss_jacobi(sigma2, a, b, p),
            Law::Gauss { sigma2, .. } => gauss_direct(sigma2, a, b, p),
            Law::Finite { masses, mf } => finite_direct(masses, mf, a, b, p),
            Law::Sparse(s) => s.ln_mgf(a, b, p),
        }
    }
}

/// 2π enclosed.
fn two_pi(p: u32) -> Interval {
    Interval::pi(p).mul(&Interval::from_i64(2, p))
}

/// b − 2πj with j = round(b/2π) (φ is 2πi-periodic on integer laws): keeps the Jacobi sum's k = 0 term
/// dominant and the direct sum's phases small.
fn reduce_im(b: &Interval, p: u32) -> Interval {
    let j = (b.mid().to_f64() / (2.0 * PI)).round();
    if j == 0.0 || !j.is_finite() {
        return b.clone();
    }
    b.sub(&two_pi(p).mul(&Interval::from_float(&Float::with_val(64, j), p)))
}

/// e^{z} for a complex rectangle z.
pub fn cexp(z: &CInterval) -> CInterval {
    CInterval::exp_of(z.re(), z.im())
}

/// The complex product z·w for a complex rectangle and a real interval.
fn cscale(z: &CInterval, x: &Interval) -> CInterval {
    z.scale(x)
}

/// ln φ(u) = σ²u²/2 + ln S(u) − ln S(0) (module doc), u = a + ib.
fn gauss_jacobi(sigma2: &Rational, a: &Interval, b: &Interval, p: u32) -> Option<CInterval> {
    let b = reduce_im(b, p);
    let s2 = Interval::from_rational(sigma2, p);
    let s2f = sigma2.to_f64();
    let pi = Interval::pi(p);
    // terms k with 2π²σ²|k|(|k| − 1) ≤ (p + 16) ln 2 + 8 (|b| ≤ π + tiny): beyond them the terms are below
    // e^{−2π²σ²k(k−1)}, summed by the geometric bound below
    let mut kmax = 1i64;
    while 2.0 * PI * PI * s2f * (kmax as f64) * ((kmax - 1) as f64) < (p as f64 + 16.0) * std::f64::consts::LN_2 + 8.0 {
        kmax += 1;
    }
    let two_pi2_s2 = pi.mul(&pi).mul(&s2).mul(&Interval::from_i64(2, p));
    let two_pi_s2 = pi.mul(&s2).mul(&Interval::from_i64(2, p));
    let mut s = CInterval::real(Interval::zero(p));
    let mut s0 = Interval::zero(p);
    for k in -kmax..=kmax {
        let kk = Interval::from_i64(k, p);
        let g = two_pi2_s2.mul(&Interval::from_i64(k * k, p)).neg();
        // e^{−2π²σ²k²} e^{2πikσ²(a + ib)} = e^{−2π²σ²k² − 2πkσ²b} e^{i 2πkσ²a}
        let re = g.sub(&two_pi_s2.mul(&kk).mul(&b));
        let im = two_pi_s2.mul(&kk).mul(a);
        s = s.add(&CInterval::exp_of(&re, &im));
        s0 = s0.add(&g.exp());
    }
    // the omitted |k| > kmax: |term| ≤ e^{−2π²σ²|k|(|k| − |b|/π)} ≤ e^{−2π²σ²(|k|² − |k|·1.01)}; their sum
    // is below twice the first, e^{−2π²σ²·(k+1)(k − 0.01)} with k = kmax, for σ² ≥ 1/2
    let kf = (kmax + 1) as f64;
    let tail = Float::with_val_round(p, -2.0 * PI * PI * s2f * kf * (kf - 1.01) * (1.0 - SAFETY), Round::Up).0;
    let mut tail = tail.exp();
    tail *= 2.0;
    // |b| must be within π·1.01 for the bound
    if b.lo().to_f64().abs() > 1.01 * PI || b.hi().to_f64().abs() > 1.01 * PI {
        return None;
    }
    let s = s.widen(&tail);
    let s0 = s0.widen(&tail);
    let ln_s = cln(&s)?;
    // σ²u²/2 = σ²(a² − b² + 2iab)/2
    let half = Rational::from((1, 2));
    let quad = CInterval::new(a.mul(a).sub(&b.mul(&b)).mul(&s2).mul_rational(&half), a.mul(&b).mul(&s2));
    let ln_s0 = s0.ln();
    Some(quad.add(&ln_s).add(&CInterval::real(ln_s0.neg())))
}

/// ln φ(u) by the direct sum Σ_x e^{−x²/(2σ²) + ux} / Σ_x e^{−x²/(2σ²)} (σ² < 1/2), factored as
/// e^{u x0} × (sum scaled by e^{−u x0}), x0 the nearest integer to the tilted centre aσ².
fn gauss_direct(sigma2: &Rational, a: &Interval, b: &Interval, p: u32) -> Option<CInterval> {
    let b = reduce_im(b, p);
    let s2f = sigma2.to_f64();
    let inv2s2 = Interval::from_rational(&(Rational::from(1) / (Rational::from(2) * sigma2.clone())), p);
    let af = a.mid().to_f64();
    let centre = af * s2f;
    if !centre.is_finite() || centre.abs() > 1e15 {
        return None;
    }
    let x0 = centre.round() as i64;
    // |x − aσ²| ≤ r keeps all but e^{−r²/(2σ²)} (relative to the top term, up to e^{1/(8σ²)})
    let r = ((2.0 * s2f * ((p as f64 + 24.0) * std::f64::consts::LN_2 + 1.0 / (8.0 * s2f))).sqrt()).ceil() as i64 + 2;
    // scaled terms e^{−x²/(2σ²) + a(x − x0)} e^{ib(x − x0)}, and e^{−x0²/(2σ²)} factored out of both sums
    let mut num = CInterval::real(Interval::zero(p));
    for x in x0 - r..=x0 + r {
        let dx = Interval::from_i64(x - x0, p);
        let e = inv2s2.mul(&Interval::from_i64(x, p).mul(&Interval::from_i64(x, p))).neg();
        let e = e.add(&inv2s2.mul(&Interval::from_i64(x0, p).mul(&Interval::from_i64(x0, p))));
        num = num.add(&CInterval::exp_of(&e.add(&a.mul(&dx)), &b.mul(&dx)));
    }
    // omitted terms: Σ_{|x − c| > r} e^{−(x − c)²/(2σ²)} e^{a²σ²/2 − a x0 + x0²/(2σ²)} with c = aσ²; bounded
    // by 2 e^{−r²/(2σ²)}/(1 − e^{−r/σ²}) times that factor
    let c_over = {
        let ln_f = af * af * s2f / 2.0 - af * x0 as f64 + (x0 as f64).powi(2) / (2.0 * s2f);
        let rr = (r - 1) as f64;
        let ln_tail = -rr * rr / (2.0 * s2f) + (2.0f64).ln() - (1.0 - (-rr / s2f).exp()).ln() + ln_f;
        Float::with_val_round(p, ln_tail + 1e-6 * (1.0 + ln_tail.abs()), Round::Up).0.exp()
    };
    let num = num.widen(&c_over);
    let ln_num = cln(&num)?;
    // normaliser Σ_x e^{−x²/(2σ²)} (x0 = 0 frame) and the factored e^{−x0²/(2σ²)}
    let mut z = Interval::zero(p);
    let r0 = ((2.0 * s2f * ((p as f64 + 24.0) * std::f64::consts::LN_2)).sqrt()).ceil() as i64 + 2;
    for x in -r0..=r0 {
        z = z.add(&inv2s2.mul(&Interval::from_i64(x * x, p)).neg().exp());
    }
    let r0f = (r0 + 1) as f64;
    let ztail = Float::with_val_round(p, -r0f * r0f / (2.0 * s2f) + 2.0f64.ln() + 1e-6, Round::Up).0.exp();
    let z = z.widen(&ztail);
    let x0i = Interval::from_i64(x0, p);
    let lead = CInterval::new(a.mul(&x0i).sub(&inv2s2.mul(&x0i.mul(&x0i))), b.mul(&x0i));
    Some(lead.add(&ln_num).add(&CInterval::real(z.ln().neg())))
}

/// ln φ(u) = ln Σ_j m_j e^{uj}, factored at the largest tilted mass j0.
fn finite_direct(masses: &[Interval], mf: &[f64], a: &Interval, b: &Interval, p: u32) -> Option<CInterval> {
    let af = a.mid().to_f64();
    let j0 = mf.iter().enumerate().filter(|(_, m)| **m > 0.0).max_by(|x, y| {
        let lx = x.1.ln() + af * x.0 as f64;
        let ly = y.1.ln() + af * y.0 as f64;
        lx.partial_cmp(&ly).unwrap_or(std::cmp::Ordering::Equal)
    })?;
    let j0 = j0.0 as i64;
    let mut s = CInterval::real(Interval::zero(p));
    for (j, m) in masses.iter().enumerate() {
        if *m.hi() == 0 {
            continue;
        }
        let dj = Interval::from_i64(j as i64 - j0, p);
        let m = Interval::new(Float::with_val(p, m.lo()), Float::with_val(p, m.hi()));
        s = s.add(&cscale(&CInterval::exp_of(&a.mul(&dj), &b.mul(&dj)), &m));
    }
    let j0i = Interval::from_i64(j0, p);
    let ln_s = cln(&s)?;
    Some(CInterval::new(a.mul(&j0i), b.mul(&j0i)).add(&ln_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    fn iv(x: f64, p: u32) -> Interval {
        Interval::from_float(&Float::with_val(64, x), p)
    }

    /// φ(u) against a direct sum in 300-bit MPFR complex arithmetic (rug's Complex), for both forms of
    /// the discrete Gaussian and for a finite law, at tilts and nodes on both sides.
    #[test]
    fn ln_mgf_encloses_the_direct_sum() {
        let p = 160;
        // Σ_x w(x) e^{(a+ib)x} in 700-bit MPFR (re, im)
        let direct = |w: &dyn Fn(i64) -> Float, lo: i64, hi: i64, a: f64, b: f64| {
            let mut re = Float::with_val(700, 0);
            let mut im = Float::with_val(700, 0);
            for x in lo..=hi {
                let m = Float::with_val(700, Float::with_val(700, a) * x).exp() * w(x);
                let ph = Float::with_val(700, b) * x;
                re += Float::with_val(700, &m * Float::with_val(700, ph.cos_ref()));
                im += Float::with_val(700, &m * Float::with_val(700, ph.sin_ref()));
            }
            (re, im)
        };
        for s2 in ["0.01", "0.3", "0.5", "1", "37.7", "1e4"] {
            let sg = q(s2);
            let s2f = sg.to_f64();
            let law = Law::gauss(&sg);
            let w = |x: i64| Float::with_val(700, -(Float::with_val(700, x * x)) / (Float::with_val(700, &sg) * 2u32)).exp();
            let r = (s2f.sqrt() * 40.0) as i64 + 40;
            let (z, _) = direct(&w, -r, r, 0.0, 0.0);
            for (a, b) in [(0.0, 0.0), (0.3 / s2f.sqrt(), 0.1 / s2f.sqrt()), (2.0, -0.5), (0.01, 3.0), (-1.5, 7.0)] {
                // the direct sum cancels down by e^{−σ²b²/2}: skip what 700 bits cannot resolve
                if s2f * b * b / 2.0 > 150.0 {
                    continue;
                }
                let rr = r + (a * s2f).abs() as i64 * 2;
                let (dre, dim) = direct(&w, -rr, rr, a, b);
                let (dre, dim) = (dre / &z, dim / &z);
                let lg = law.ln_mgf(&iv(a, p), &iv(b, p), p).unwrap();
                let e = cexp(&lg);
                let tol = Float::with_val(700, dre.clone().abs() + dim.clone().abs()) * 1e-40f64;
                assert!(e.re().widen(&Float::with_val(p, &tol)).contains(&dre), "σ²={s2} a={a} b={b}: re {} vs {dre}", e.re());
                assert!(e.im().widen(&Float::with_val(p, &tol)).contains(&dim), "σ²={s2} a={a} b={b}: im {} vs {dim}", e.im());
                let wid = Float::with_val(p, e.re().width() + e.im().width()).to_f64();
                assert!(wid < 1e-35 * (dre.to_f64().abs() + dim.to_f64().abs()) + 1e-700, "σ²={s2} a={a} b={b}: width {wid}");
                // the f64 path agrees to ~1e-12
                let lf = law.ln_mgf_f64(Complex64::new(a, b)).exp();
                assert!((lf.re - dre.to_f64()).abs() + (lf.im - dim.to_f64()).abs() < 1e-10 * (1.0 + lf.norm()), "σ²={s2} f64");
            }
        }
        let m: Vec<Interval> = ["0.2", "0.5", "0.3"].iter().map(|s| Interval::from_rational(&q(s), p)).collect();
        let law = Law::finite(m);
        let wf = |x: i64| Float::with_val(700, [q("0.2"), q("0.5"), q("0.3")][x as usize].clone());
        for (a, b) in [(0.0, 0.0), (1.0, 2.0), (-3.0, 0.5)] {
            let (dre, dim) = direct(&wf, 0, 2, a, b);
            let e = cexp(&law.ln_mgf(&iv(a, p), &iv(b, p), p).unwrap());
            let tol = Float::with_val(p, 1e-40);
            assert!(e.re().widen(&tol).contains(&dre) && e.im().widen(&tol).contains(&dim), "finite a={a} b={b}");
        }
    }

    /// The modulus bound holds at random points: |ψ(t)| computed from the f64 ln φ never exceeds it.
    #[test]
    fn modulus_bound_holds() {
        let mut rng = crate::num::xorshift::XorShift(7);
        for s2 in ["0.01", "0.2", "1", "5", "37.7", "1e4"] {
            let law = Law::gauss(&q(s2));
            for _ in 0..200 {
                let a = (rng.next_f64() - 0.5) * 4.0 / q(s2).to_f64().sqrt();
                let t = rng.next_f64() * PI;
                let psi = (law.ln_mgf_f64(Complex64::new(a, t)) - law.ln_mgf_f64(Complex64::new(a, 0.0))).re;
                let bound = law.ln_abs_bound(a, t);
                assert!(psi <= bound + 1e-9, "σ²={s2} a={a} t={t}: ln|ψ| = {psi} > bound {bound}");
            }
        }
    }
}
