//! Compositions of discretised privacy-loss laws (`pld::discretize`) by direct certified convolution,
//! and the privacy profile read off the two composed laws: the dominating one gives upper bounds of
//! δ(ε) (hence of ε(δ)), the dominated one lower bounds.
//!
//! For a law on c + hℤ with A-masses a_j and A-mass a_∞ at +∞ [SSW24, Lemma A.9; ZDW22]:
//!
//!   δ(ε) = a_∞ + Σ_{j: c + hj > ε} a_j (1 − e^{ε − c − hj}).
//!
//! Composition adds losses: the finite parts convolve (offsets add), and the composition's mass at +∞
//! is 1 − Π(1 − a_∞,i). This engine builds the composed law entry by entry (binary powering of each
//! factor, interval arithmetic, truncation of masses below 2^-bits of the total moved to +∞ for the
//! upper law and dropped — to −∞ — for the lower one); its cost grows with the composed support, so it
//! serves small compositions and cross-checks the Fourier engine.

use crate::error::Fallible;
use crate::num::Interval;
use crate::pld::discretize::LossGrid;
use rug::Float;
#[cfg(test)]
use rug::Rational;

/// Largest composed support (entries) this engine builds.
pub const MAX_DIRECT: usize = 200_000;

/// The composition of `n` copies of each grid (all on the same step h and of the same kind), and its
/// work: the interval products of every convolution (a count, a function of the grids and counts only).
#[cfg(test)]
pub fn compose(factors: &[(LossGrid, u64)], bits: u32) -> Fallible<(LossGrid, u64)> {
    compose_within(factors, bits, u64::MAX)
}

/// [`compose`], refused (a resource error that starts with [`OVER_LIMIT`]) before a convolution that would
/// take its products past `limit`.
pub fn compose_within(factors: &[(LossGrid, u64)], bits: u32, limit: u64) -> Fallible<(LossGrid, u64)> {
    let first = factors.first().ok_or_else(|| crate::err!(Internal, "an empty composition of grids"))?;
    let h = first.0.h.clone();
    let upper = first.0.upper;
    let p = first.0.inf.prec();
    let mut acc: Option<LossGrid> = None;
    let mut ops = 0u64;
    for (g, n) in factors {
        if g.h != h || g.upper != upper {
            return crate::fallible!(Internal, "grids of different steps or kinds composed");
        }
        if *n == 0 {
            continue;
        }
        let pw = power(g, *n, bits, &mut ops, limit)?;
        acc = Some(match acc {
            None => pw,
            Some(a) => counted(&a, &pw, bits, &mut ops, limit)?,
        });
    }
    acc.ok_or_else(|| crate::err!(Internal, "an empty composition of grids")).map(|mut g| {
        g.inf = round_prec(&g.inf, p);
        (g, ops)
    })
}

/// [`convolve`], its products (the pairs of nonzero masses, [`products`]) added to `ops`.
fn counted(x: &LossGrid, y: &LossGrid, bits: u32, ops: &mut u64, limit: u64) -> Fallible<LossGrid> {
    *ops = ops.saturating_add(products(x, y));
    if *ops > limit {
        return crate::fallible!(Resource, "{OVER_LIMIT} ({} interval products, limit {limit})", *ops);
    }
    convolve(x, y, bits)
}

/// An a-priori bound of what [`compose_within`] builds, before any truncation: the composed support's
/// points and the products of its convolutions, walked in the order it convolves (binary powering of each
/// factor, then the powers in turn). A convolution's nonzero masses are at most its points, at most the
/// product of its factors' nonzero masses, and, for k copies of m masses, at most the multisets of k among
/// them (a stated guarantee's two masses give three in two copies). A function of the grids and counts only.
pub fn direct_size(factors: &[(LossGrid, u64)]) -> (u64, u64) {
    // (points, nonzero masses) of a grid and of a composition
    type Size = (u64, u64);
    let mut products = 0u64;
    let mut conv = |x: Size, y: Size, nonzero: u64| -> Size {
        products = products.saturating_add(x.1.saturating_mul(y.1));
        let len = (x.0 + y.0).saturating_sub(1);
        (len, len.min(nonzero))
    };
    let mut acc: Option<Size> = None;
    for (g, n) in factors {
        let (points, m) = (g.len() as u64, nonzero(g));
        // k copies of m nonzero masses: at most C(k + m − 1, m − 1) sums (multisets) of them
        let power = |k: u64| -> Size {
            let len = k.saturating_mul(points.max(1) - 1).saturating_add(1);
            (len, len.min(multisets(k, m)))
        };
        let (mut n, mut k, mut done) = (*n, 1u64, 0u64);
        let mut out: Option<Size> = None;
        while n > 0 {
            if n & 1 == 1 {
                out = Some(match out {
                    None => power(k),
                    Some(o) => conv(o, power(k), multisets(done + k, m)),
                });
                done += k;
            }
            n >>= 1;
            if n > 0 {
                conv(power(k), power(k), multisets(2 * k, m));
                k *= 2;
            }
        }
        if let Some(pw) = out {
            acc = Some(match acc {
                None => pw,
                Some(a) => conv(a, pw, a.1.saturating_mul(pw.1)),
            });
        }
    }
    (acc.map_or(0, |a| a.0), products)
}

/// C(k + m − 1, m − 1), the multisets of k among m, saturating at u64::MAX.
fn multisets(k: u64, m: u64) -> u64 {
    if m == 0 {
        return 0;
    }
    let r = (m - 1).min(k);
    let mut c: u128 = 1;
    for i in 0..r {
        // c · (k + m − 1 − i) / (i + 1) stays an integer (a binomial coefficient at every step)
        c = c.saturating_mul((k + m - 1 - i) as u128) / (i as u128 + 1);
        if c > u64::MAX as u128 {
            return u64::MAX;
        }
    }
    c as u64
}

/// How the refusal of [`compose_within`] starts.
pub const OVER_LIMIT: &str = "the direct convolution's products would pass their limit";

/// The interval products the convolution of `x` and `y` computes: one per pair of masses that are not
/// exactly 0 (a stated guarantee's grid has two, its powers one per binomial term: 13 such guarantees
/// beside a subsampled Gaussian at h = 1/5000 are 27 masses among 188,761 points).
pub fn products(x: &LossGrid, y: &LossGrid) -> u64 {
    nonzero(x).saturating_mul(nonzero(y))
}

/// The masses of a grid that are not exactly 0 (their upper ends: an enclosure of 0 is [0, 0]).
fn nonzero(g: &LossGrid) -> u64 {
    g.masses.iter().filter(|m| *m.hi() != 0).count() as u64
}

fn round_prec(x: &Interval, p: u32) -> Interval {
    Interval::new(Float::with_val_round(p, x.lo(), rug::float::Round::Down).0, Float::with_val_round(p, x.hi(), rug::float::Round::Up).0)
}

/// g composed with itself n times (binary powering).
fn power(g: &LossGrid, mut n: u64, bits: u32, ops: &mut u64, limit: u64) -> Fallible<LossGrid> {
    let mut base = g.clone();
    let mut out: Option<LossGrid> = None;
    while n > 0 {
        if n & 1 == 1 {
            out = Some(match out {
                None => base.clone(),
                Some(o) => counted(&o, &base, bits, ops, limit)?,
            });
        }
        n >>= 1;
        if n > 0 {
            base = counted(&base, &base, bits, ops, limit)?;
        }
    }
    out.ok_or_else(|| crate::err!(Internal, "power of a grid with n = 0"))
}

/// The law of the sum of two independent losses, truncated at 2^-bits.
pub fn convolve(x: &LossGrid, y: &LossGrid, bits: u32) -> Fallible<LossGrid> {
    let p = x.inf.prec().max(y.inf.prec());
    let len = x.len() + y.len() - 1;
    if len > MAX_DIRECT {
        return crate::fallible!(Declined, "the direct convolution would hold {len} grid points (limit {MAX_DIRECT})");
    }
    // (in MPFR intervals where the products are few, a fraction of a second; else in f64, enclosed with the
    // rounding's bound, `num::convolve_f64`: about 1e-13 relative, and ten times faster; in MPFR again where
    // a mass leaves f64's range)
    let m = match products(x, y) <= MPFR_PRODUCTS {
        true => convolve_mpfr(x, y, len, p)?,
        false => match crate::num::convolve_f64::convolve_nonneg(&x.masses, &y.masses)? {
            Some(m) => m,
            None => convolve_mpfr(x, y, len, p)?,
        },
    };
    // +∞: 1 − (1 − x∞)(1 − y∞)
    let one = Interval::one(p);
    let inf = one.sub(&one.sub(&x.inf).mul(&one.sub(&y.inf)));
    let mut g = LossGrid {
        h: x.h.clone(),
        c: x.c.clone() + y.c.clone(),
        min: x.min + y.min,
        masses: m,
        inf,
        slack: x.slack.clone() + y.slack.clone(),
        upper: x.upper,
    };
    truncate(&mut g, bits);
    Ok(g)
}

/// Most products a convolution computes in MPFR intervals (about 0.02 s; their 64 bits keep an exact grid's
/// 14 digits, where f64's rounding bound leaves 13).
const MPFR_PRODUCTS: u64 = 1_000_000;

/// The masses' convolution in MPFR intervals.
fn convolve_mpfr(x: &LossGrid, y: &LossGrid, len: usize, p: u32) -> Fallible<Vec<Interval>> {
    let mut m = vec![Interval::zero(p); len];
    // (a mass that is exactly 0 adds exact zeros: only the nonzero pairs are multiplied)
    let ys: Vec<(usize, &Interval)> = y.masses.iter().enumerate().filter(|(_, b)| *b.hi() != 0).collect();
    for (i, a) in x.masses.iter().enumerate() {
        if *a.hi() == 0 {
            continue;
        }
        crate::num::cancel::check()?;
        for &(j, b) in &ys {
            m[i + j] = m[i + j].add(&a.mul(b));
        }
    }
    Ok(m)
}

/// Entries whose upper mass is below 2^-bits at either end removed: to +∞ (upper laws) or dropped.
fn truncate(g: &mut LossGrid, bits: u32) {
    let p = g.inf.prec();
    let tiny = Float::with_val(p, Float::i_exp(1, -(bits as i32)));
    let lo = g.masses.iter().position(|m| *m.hi() > tiny).unwrap_or(0);
    let hi = g.masses.iter().rposition(|m| *m.hi() > tiny).map(|i| i + 1).unwrap_or(g.masses.len());
    if g.upper {
        let cut = g.masses[..lo].iter().chain(&g.masses[hi..]).fold(Interval::zero(p), |a, m| a.add(m));
        // moving mass from the low end to +∞ only raises losses: still an upper law
        g.inf = g.inf.add(&cut);
    }
    g.masses = g.masses[lo..hi].to_vec();
    g.min += lo as i64;
}

/// δ(ε) of a grid law, enclosed: the upper law's value for `upper`, the lower law's (at ε + slack) for
/// the lower.
#[cfg(test)]
pub fn delta(g: &LossGrid, eps: &Rational) -> Interval {
    let p = g.inf.prec();
    let e = eps.clone() + g.slack.clone();
    let mut s = g.inf.clone();
    for (i, m) in g.masses.iter().enumerate() {
        let l = g.loss(g.min + i as i64);
        if l > e {
            let w = Interval::one(p).sub(&Interval::from_rational(&(e.clone() - l), p).exp());
            s = s.add(&m.mul(&w));
        }
    }
    s
}

/// The bracket [δ_lower(ε).lo, δ_upper(ε).hi] of the true δ(ε).
#[cfg(test)]
pub fn delta_bracket(upper: &LossGrid, lower: &LossGrid, eps: &Rational) -> Interval {
    let u = delta(upper, eps);
    let l = delta(lower, eps);
    let lo = if *l.lo() < 0 { Float::with_val(l.prec(), 0) } else { l.lo().clone() };
    let hi = u.hi().clone();
    Interval::new(lo.clone().min(&hi), hi)
}

/// ε(δ) bracket: [ε of the lower law, ε of the upper law], each end certified by bisection.
#[cfg(test)]
pub fn epsilon_bracket(upper: &LossGrid, lower: &LossGrid, target: &Rational, rel_tol: f64) -> Fallible<Interval> {
    let p = upper.inf.prec();
    let guess = Rational::from(1);
    let fu = |e: &Rational| delta(upper, e);
    let fl = |e: &Rational| delta(lower, e);
    let eu = crate::pld::search::bisect_epsilon(&fu, target, &guess, rel_tol, p).map_err(|e| crate::err!(Declined, "{e}"))?;
    let el = crate::pld::search::bisect_epsilon(&fl, target, &guess, rel_tol, p).map_err(|e| crate::err!(Declined, "{e}"))?;
    let lo = el.lo().clone().min(eu.hi());
    Ok(Interval::new(lo, eu.hi().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::gauss::{self, Gaussian};
    use crate::noise::loss::Direction;
    use crate::pld::discretize::{lower, upper};

    fn q(s: &str) -> Rational {
        crate::num::parse_rational(s).unwrap()
    }

    /// n-fold Gaussian mechanisms through the grid, against the closed form (eq. 1 of `noise::gauss`,
    /// itself checked against mpmath integrals): the bracket holds the closed form, and shrinks like h².
    /// (The default tier at h = 1/10, 1/20, 1/40; the heavy tier at 1/20, 1/40, 1/80, whose finest step is
    /// most of the cost: the composition is quadratic in 1/h.)
    #[test]
    fn gaussian_grid_brackets_hold_the_closed_form_and_shrink_quadratically() {
        gaussian_grid_brackets(["1/10", "1/20", "1/40"]);
    }

    #[test]
    #[ignore = "heavy: the Gaussian grid brackets at h = 1/20, 1/40, 1/80 (~4 s); the default tier's twin one step coarser"]
    fn gaussian_grid_brackets_hold_the_closed_form_and_shrink_quadratically_at_finer_steps() {
        gaussian_grid_brackets(["1/20", "1/40", "1/80"]);
    }

    fn gaussian_grid_brackets(steps: [&str; 3]) {
        let p = 128;
        let g = Gaussian::new(q("4"), q("1")).unwrap();
        let n = 8u64;
        let eta = g.eta() * Rational::from(n);
        let mut widths = Vec::new();
        for h in steps {
            let hq = q(h);
            let u = upper(&g, Direction::Remove, &hq, 90, p).unwrap();
            let l = lower(&g, Direction::Remove, &hq, 90, p).unwrap();
            let cu = compose(&[(u, n)], 100).unwrap().0;
            let cl = compose(&[(l, n)], 100).unwrap().0;
            for e in ["0", "0.5", "2"] {
                let truth = gauss::delta(&eta, &q(e), p);
                let b = delta_bracket(&cu, &cl, &q(e));
                assert!(b.lo() <= truth.hi() && truth.lo() <= b.hi(), "h={h} ε={e}: bracket {b} misses {truth}");
            }
            let d = q("1e-6");
            let eb = epsilon_bracket(&cu, &cl, &d, 1e-12).unwrap();
            let et = crate::pld::search::gaussian_epsilon(&eta, &d, 20, p).unwrap();
            assert!(eb.lo() <= et.hi() && et.lo() <= eb.hi(), "h={h}: ε bracket {eb} misses {et}");
            widths.push(eb.width().to_f64());
        }
        // halving h shrinks the bracket about fourfold (second order); allow 2.5×
        assert!(widths[1] < widths[0] / 2.5 && widths[2] < widths[1] / 2.5, "widths {widths:?}");
    }

    /// The Poisson-subsampled Gaussian through the grid: one and two compositions, both directions,
    /// against scripts/reference/subsampled_gaussian.py (mpmath integrals of (A − e^ε B)₊ over the
    /// mixture densities, and for two steps the tower property over the first step's noise).
    /// (Two steps at h = 1/512 take ~9 s: the heavy tier; the default tier runs the one-step cases at
    /// h = 1/256 and the two-step cases at h = 1/128, whose second-order gaps are 4 and 16 times wider.)
    #[test]
    fn subsampled_gaussian_brackets_hold_mpmath_integrals() {
        subsampled_gaussian_brackets(false);
    }

    #[test]
    #[ignore = "heavy: two subsampled-Gaussian steps convolved at h = 1/512 (~9 s)"]
    fn subsampled_gaussian_brackets_hold_mpmath_integrals_at_the_fine_grid() {
        subsampled_gaussian_brackets(true);
    }

    fn subsampled_gaussian_brackets(heavy: bool) {
        use crate::noise::subsample::PoissonSampled;
        use std::sync::Arc;
        let p = 128;
        let law = |qs: &str, s2: &str| PoissonSampled::new(Arc::new(Gaussian::new(q(s2), q("1")).unwrap()), q(qs)).unwrap();
        let cases = [
            ("0.01", "1", Direction::Remove, 1u64, "0.01", "0.001900273705301571214133384373093777846429"),
            ("0.01", "1", Direction::Add, 1, "0.01", "0.000000000006441417005395865671116036937055754105081"),
            ("0.2", "0.5", Direction::Remove, 1, "0.5", "0.03972710167217785343487236759602039688482"),
            ("0.2", "0.5", Direction::Remove, 1, "-0.1", "0.1334956639527721116450428564279354913419"),
            ("0.2", "0.5", Direction::Remove, 2, "0.5", "0.075142370403145408461"),
            ("0.2", "0.5", Direction::Add, 2, "0.3", "0.018052036764443319208"),
        ];
        // relative widths measured at h = 1/512: 2.4e-3 (q = 0.01 remove), 2e-6 … 7e-4 (q = 0.2); the add
        // direction at ε = 0.01 sits at the top of its support (−ln(1 − q) = 0.01005), where δ ~ 6e-12 and
        // the grid's first cell decides: containment only there
        let max_rel = [1e-2, f64::INFINITY, 1e-4, 1e-4, 1e-4, 3e-3];
        for (i, (qs, s2, dir, n, e, want)) in cases.into_iter().enumerate() {
            let m = law(qs, s2);
            // the default tier: one step at h = 1/256, two at 1/128 (second order: 4 and 16 times wider)
            let (h, widen) = if heavy {
                ("1/512", 1.0)
            } else if n > 1 {
                ("1/128", 16.0)
            } else {
                ("1/256", 4.0)
            };
            let hq = q(h);
            let u = upper(&m, dir, &hq, 80, p).unwrap();
            let l = lower(&m, dir, &hq, 80, p).unwrap();
            let (cu, cl) = (compose(&[(u, n)], 90).unwrap().0, compose(&[(l, n)], 90).unwrap().0);
            let b = delta_bracket(&cu, &cl, &q(e));
            let w = Float::with_val(p, Float::parse(want).unwrap());
            assert!(*b.lo() <= w && w <= *b.hi(), "q={qs} σ²={s2} {dir:?} n={n} ε={e}: bracket {b} misses {want}");
            // the bracket is narrow: second order in h (relative ~1e-5 or better at 1/512)
            let rel = Float::with_val(p, b.width() / &w).to_f64();
            let max_rel = widen * max_rel[i];
            assert!(rel < max_rel, "q={qs} {dir:?} n={n} ε={e}: relative width {rel:.3e}");
        }
    }

    /// The f64 convolution (`num::convolve_f64`) against the MPFR one it replaced, on the grids of a
    /// subsampled Gaussian and of a stated guarantee: every entry of the two meets (both enclose the same
    /// exact sums), the zeros are the same, and the f64 enclosure is narrower than 1e-11 relative.
    #[test]
    fn f64_convolution_encloses_what_the_mpfr_one_encloses() {
        use crate::noise::subsample::PoissonSampled;
        use std::sync::Arc;
        let h = q("1/400");
        let sg = PoissonSampled::new(Arc::new(Gaussian::new(q("1"), q("1")).unwrap()), q("0.05")).unwrap();
        let dp = crate::noise::blackbox::ApproxDp::new(q("0.7"), q("1e-6")).unwrap();
        for (x, y) in [
            (upper(&sg, Direction::Remove, &h, 90, 64).unwrap(), lower(&sg, Direction::Add, &h, 90, 64).unwrap()),
            (upper(&sg, Direction::Remove, &h, 90, 64).unwrap(), upper(&dp, Direction::Remove, &h, 90, 64).unwrap()),
        ] {
            let len = x.len() + y.len() - 1;
            let fast = crate::num::convolve_f64::convolve_nonneg(&x.masses, &y.masses).unwrap().unwrap();
            let slow = convolve_mpfr(&x, &y, len, 64).unwrap();
            assert_eq!(fast.len(), slow.len());
            for (k, (f, s)) in fast.iter().zip(&slow).enumerate() {
                assert_eq!(*f.hi() == 0, *s.hi() == 0, "entry {k}: {f} against {s}");
                assert!(f.lo() <= s.hi() && s.lo() <= f.hi(), "entry {k}: {f} and {s} are disjoint");
                if *s.lo() > 1e-200 {
                    let rel = (f.hi().to_f64() - f.lo().to_f64()) / s.lo().to_f64();
                    assert!(rel < 1e-11, "entry {k}: relative width {rel:e}");
                }
            }
        }
    }

    /// The products counted are the pairs of nonzero masses, the ones computed: a stated guarantee (two
    /// atoms 2·ε/h apart) to the power 13 has at most 27 masses among 18,877 points at h = 1/500, and beside
    /// a Gaussian's grid the count is those times its masses, not the dense 18,877 times them (the pld grid's first step of 13
    /// guarantees beside a subsampled Gaussian counted 8e11 units for 68 s of work, now 1.5e6 for 6 s);
    /// [`compose_within`] refuses before a convolution past its limit, and the answer within it is
    /// unchanged.
    #[test]
    fn sparse_grids_count_their_nonzero_products_and_the_limit_holds() {
        let (d, n) = guarantee_and_gaussian("1/500");
        // (the atoms ±ε, and upper enclosures of 0 at most 1e-39 at the losses 0 and 2ε of the grid's frame)
        assert!(nonzero(&d) <= 4);
        let (d13, ops) = compose(&[(d.clone(), 13)], 90).unwrap();
        // the masses only at multiples of ε (726 steps) from −13ε to 13ε
        assert!(nonzero(&d13) <= 27 && d13.len() > 18_000, "{} {}", nonzero(&d13), d13.len());
        assert_eq!(products(&n, &d13), nonzero(&n) * nonzero(&d13));
        let (both, all) = compose(&[(d.clone(), 13), (n.clone(), 1)], 90).unwrap();
        assert_eq!(all, ops + products(&d13, &n));
        assert!(all < 10_000_000, "{all}");
        let refused = compose_within(&[(d.clone(), 13), (n.clone(), 1)], 90, all - 1).unwrap_err();
        assert!(refused.message().starts_with(OVER_LIMIT), "{refused}");
        let (within, _) = compose_within(&[(d, 13), (n, 1)], 90, all).unwrap();
        assert_eq!(within.masses.len(), both.masses.len());
        assert!(within.masses.iter().zip(&both.masses).all(|(x, y)| x.lo() == y.lo() && x.hi() == y.hi()));
    }

    /// The dominating grids at step `h` of a stated guarantee (ε = 1.452, δ = 4.529e-6) and of a Gaussian
    /// mechanism, masses kept to 2^-90, 128 bits.
    fn guarantee_and_gaussian(h: &str) -> (LossGrid, LossGrid) {
        let dp = crate::noise::blackbox::ApproxDp::new(q("1.452"), q("4.529e-6")).unwrap();
        let g = Gaussian::new(q("4"), q("1")).unwrap();
        (upper(&dp, Direction::Remove, &q(h), 90, 128).unwrap(), upper(&g, Direction::Remove, &q(h), 90, 128).unwrap())
    }

    /// [`direct_size`] bounds what [`compose_within`] builds: the products it counts and the points it holds,
    /// for a dense grid (a Gaussian's: the points equal and the products within 3x where the truncation cuts
    /// nothing) and a sparse one (a stated guarantee's powers: the bound within a few times the count, not the
    /// dense points squared).
    #[test]
    fn direct_size_bounds_the_composition_before_it_is_built() {
        let (d, n) = guarantee_and_gaussian("1/50");
        for factors in [vec![(n.clone(), 5)], vec![(d.clone(), 13)], vec![(d.clone(), 13), (n.clone(), 3)], vec![(n.clone(), 1)]] {
            let (points, products) = direct_size(&factors);
            let (composed, ops) = compose(&factors, 90).unwrap();
            assert!(products >= ops && points >= composed.len() as u64, "{products} {ops} {points} {}", composed.len());
        }
        // untruncated (2^-4000 of the mass cut: nothing): the points are the count
        let (composed, ops) = compose(&[(n.clone(), 5)], 4000).unwrap();
        let (points, products) = direct_size(&[(n.clone(), 5)]);
        assert_eq!(points, composed.len() as u64);
        assert!(products >= ops && products < 3 * ops, "{products} {ops}");
        // 13 stated guarantees at h = 1/500: at most 4 masses each (as above), so far below their points
        // squared and within a few times the count
        let (d, _) = guarantee_and_gaussian("1/500");
        let (points, products) = direct_size(&[(d.clone(), 13)]);
        let (composed, ops) = compose(&[(d, 13)], 90).unwrap();
        assert!(products >= ops && points >= composed.len() as u64);
        assert!(products < 20_000 && products * 1000 < points * points, "{products} {points}");
        assert_eq!((multisets(13, 4), multisets(0, 4), multisets(5, 1), multisets(3, 0)), (560, 1, 1, 0));
    }
}
