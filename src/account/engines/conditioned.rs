//! Conditioning on the coarse groups (docs/conditioned.md): a composition with a few discrete Gaussian
//! groups of small σ² (a coarse loss lattice whose characteristic function does not decay, so the smoothed
//! inversion cannot reach 20 digits) and a fine rest that shares a practical lattice of its own.
//!
//! Under the alternative Q the loss is L = L_C + L_F with L_C (the coarse groups) and L_F (the rest)
//! independent, and under the null P the law of L_C is Q_C(c)e^{−c} (a likelihood ratio). From
//! δ(ε) = P_Q[L > ε] − e^ε P_P[L > ε] ([SSW24, Lemma A.9]; `pld::profile`) it follows that
//!
//!   δ(ε) = Σ_c Q_C(c) δ_F(ε − c),   δ_F(x) = P_Q[L_F > x] − e^x P_P[L_F > x] = A_k − e^x B_k,
//!
//! the sum over the atoms c of L_C, with δ_F the exact lattice profile of the fine part on its segment k.
//! The atoms of L_C are the exact lattice laws of each coarse group ([SSW24, eq. A.5], `LatticeDist`),
//! multiplied out; the mass left out (outside each group's window, or atoms below a probability
//! threshold) adds at most itself to δ (δ_F ≤ 1). Between two consecutive knots of any atom every k is
//! fixed, so there δ(ε) = A − e^ε B with A = Σ_c Q_C(c) A_{k_c} and B = Σ_c Q_C(c) e^{−c} B_{k_c}: the
//! ε(δ) root on that segment is ln((A − δ)/B) in closed form, as on a single lattice.

use crate::account::vocabulary::{Query, F64_MAX_DEPTH};
use crate::account::{Accountant, Certified, Engine, Trust};
use crate::error::Fallible;
use crate::model::{Composition, GaussGroup, Group, Neighbors, Noise};
use crate::num::{Arith, Interval};
use crate::pld::estimate::estimated_window_shifts;
use crate::pld::frame::{LatticeOpts, MAX_WINDOW};
use crate::pld::profile::PrivacyProfile;
use crate::{err, fallible};
use rayon::prelude::*;
use rug::float::Round;
use rug::{Float, Integer, Rational};

#[path = "conditioned_tradeoff.rs"]
mod tradeoff;

/// At most this many groups are conditioned on.
const MAX_COARSE_GROUPS: usize = 3;
/// Largest estimated number of atoms of the coarse part (their product over the groups).
const MAX_ATOMS: f64 = 2.0e6;
/// Iterations of the ε search (bisection steps and closed-form steps together).
const MAX_STEPS: usize = 400;

/// A split of the composition's shifts: the coarse groups conditioned on, and the fine rest.
pub(in crate::account) struct Split {
    pub coarse: Vec<Group>,
    pub fine: Vec<Group>,
}

/// One atom of the coarse loss L_C: its value c (f64, for sorting only), c/h_F exact, Q_C(c) and
/// Q_C(c)e^{−c} = P_C(c) enclosed.
struct Atom {
    key: f64,
    r: Rational,
    q: Interval,
    pw: Interval,
}

/// The coarse law against the fine profile.
struct Conditioned {
    atoms: Vec<Atom>,
    /// upper bounds on Σ_{j ≤ i} Q_C(c_j) (atoms sorted by c)
    prefix: Vec<f64>,
    /// mass of L_C left out (outside the groups' windows, or pruned atoms)
    lost: Float,
    fine: std::sync::Arc<PrivacyProfile>,
    /// D = 2c_F/h_F of the fine profile
    d: i64,
    prec: u32,
}

/// The fine part's δ on one segment around a point: δ(ε) ∈ [A.lo − e^ε B.hi, A.hi + t − e^ε B.lo] for
/// every ε in [s_lo, s_hi]. Over the same atoms K (those summed, not bounded together), `c` encloses
/// Σ_K Q_C(c) P[V_F ≤ k_c] (= Σ_K Q_C(c) − A from the lower tail, without the cancellation of 1 − A) and
/// `q` encloses Σ_K Q_C(c) (the trade-off function's terms, conditioned_tradeoff.rs).
struct Segment {
    a: Interval,
    b: Interval,
    c: Interval,
    q: Interval,
    t: Float,
    s_lo: Rational,
    s_hi: Rational,
}

fn up(x: f64) -> f64 {
    // one rounding of an f64 sum or product is below 2^-53 relative: this factor covers it
    x * (1.0 + 2f64.powi(-50))
}

impl Conditioned {
    fn build(split: &Split, fine: std::sync::Arc<PrivacyProfile>, prec: u32, bits: u32, prune: &Float) -> Fallible<Conditioned> {
        let h_f = fine.step().clone();
        let dq = Rational::from(2u32) * fine.offset().clone() / h_f.clone();
        let d = dq.numer().to_i64().filter(|_| *dq.denom() == 1).ok_or_else(|| err!(Internal, "2c/h of the fine lattice"))?;
        // each group: atoms (loss value, Q-mass, Q-mass × e^{-loss})
        let mut lost = Float::with_val(prec, 0);
        let mut atoms: Vec<(Rational, Interval, Interval)> = vec![(Rational::new(), Interval::one(prec), Interval::one(prec))];
        for g in &split.coarse {
            let Noise::Gaussian { sigma2 } = &g.noise else { return fallible!(Internal, "a coarse group is not Gaussian") };
            let n = u32::try_from(g.count).map_err(|_| err!(Declined, "too many queries in a coarse group"))?;
            // the law of the group's noise sum (μ plays no part in it): the residue construction, or binary
            // powering where that is cheaper (as the MPFR lattice does)
            let dist =
                crate::pld::symdist::group_law_mpfr(&GaussGroup { sigma2: sigma2.clone(), count: n, mu: 1 }, prec, bits).to_lattice();
            lost = Float::with_val_round(prec, &lost + &dist.outside, Round::Up).0;
            let h = Rational::from(g.mu) / sigma2.clone();
            let c0 = Rational::from(g.count) * Rational::from(g.mu) * Rational::from(g.mu) / (Rational::from(2) * sigma2.clone());
            let mine: Vec<(Rational, Interval, Interval)> = (0..dist.lo.len())
                .map(|i| {
                    let s = dist.min + i as i64;
                    let l = &h * Rational::from(s) + &c0;
                    let q = Interval::new(dist.lo[i].clone(), dist.hi[i].clone());
                    let e = Interval::from_rational(&-l.clone(), prec).exp();
                    let pw = q.mul(&e);
                    (l, q, pw)
                })
                .collect();
            let mut next = Vec::with_capacity(atoms.len() * mine.len());
            for (c, q, pw) in &atoms {
                for (l, q2, pw2) in &mine {
                    let qq = q.mul(q2);
                    if *qq.hi() < *prune {
                        lost = Float::with_val_round(prec, &lost + qq.hi(), Round::Up).0;
                        continue;
                    }
                    next.push((Rational::from(c + l), qq, pw.mul(pw2)));
                }
            }
            atoms = next;
            if atoms.len() as f64 > MAX_ATOMS {
                return fallible!(Declined, "the coarse part has more than {MAX_ATOMS:e} atoms");
            }
        }
        let mut atoms: Vec<Atom> =
            atoms.into_par_iter().map(|(c, q, pw)| Atom { key: c.to_f64(), r: Rational::from(&c / &h_f), q, pw }).collect();
        atoms.sort_by(|a, b| a.key.total_cmp(&b.key));
        let mut prefix = Vec::with_capacity(atoms.len());
        let mut s = 0.0f64;
        for a in &atoms {
            s = up(s + a.q.hi().to_f64_round(Round::Up));
            prefix.push(s);
        }
        Ok(Conditioned { atoms, prefix, lost, fine, d, prec })
    }

    /// δ_F(x), enclosed.
    fn delta_f(&self, x: &Rational) -> Interval {
        self.fine.delta(x).delta
    }

    /// The segment around m, with the atoms whose total contribution is certainly below `budget` on it
    /// (the lowest c: δ_F(ε − c) is non-increasing in ε − c) bounded together instead of summed.
    fn segment(&self, m: &Rational, budget: f64) -> Segment {
        let p = self.prec;
        let h = self.fine.step();
        // the cut: atoms 0..cut are bounded by δ_F(m − h − c_cut − 1e-9) × (their total mass), valid for
        // every ε ≥ m − h (the segment found below starts there or later); the atoms are sorted by their f64
        // keys, which may misorder values closer than a few ulps: 1e-9 + |c|·2⁻⁴⁰ below c covers them
        let bound_at = |i: usize| -> f64 {
            let c = Rational::from(&self.atoms[i].r * h);
            let slack = Rational::from((1, 1_000_000_000)) + Rational::from(c.abs_ref()) / Rational::from(1u64 << 40);
            let x = Rational::from(m - h) - c - slack;
            up(self.delta_f(&x).hi().to_f64_round(Round::Up) * self.prefix[i])
        };
        let (mut lo, mut hi) = (0usize, self.atoms.len());
        // largest cut with a bound ≤ budget: bound_at is non-decreasing in i
        while lo < hi {
            let mid = (lo + hi) / 2;
            if bound_at(mid) <= budget {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let cut = lo;
        let t_cut = if cut == 0 { 0.0 } else { bound_at(cut - 1) };
        let y = Rational::from(m - self.fine.offset()) / h;
        let tails = self.fine.tails();
        let zero = || (Float::with_val(p, 0), Float::with_val(p, 0), Float::with_val(p, 0), Float::with_val(p, 0));
        let zero8 = || (zero(), zero());
        let one = Rational::from(1);
        let parts: Vec<_> = self.atoms[cut..]
            .par_chunks(4096)
            .map(|chunk| {
                let ((mut alo, mut ahi, mut blo, mut bhi), (mut clo, mut chi, mut qlo, mut qhi)) = zero8();
                let (mut fmin, mut gmin) = (one.clone(), one.clone());
                for at in chunk {
                    let diff = Rational::from(&y - &at.r);
                    let k = Integer::from(diff.floor_ref());
                    let frac = diff - &k;
                    let k = k.to_i64().unwrap_or(if frac < 0 { i64::MIN / 4 } else { i64::MAX / 4 }).clamp(i64::MIN / 4, i64::MAX / 4);
                    let g = Rational::from(&one - &frac);
                    if frac < fmin {
                        fmin = frac;
                    }
                    if g < gmin {
                        gmin = g;
                    }
                    let a = tails.ge(k + 1);
                    let b = tails.le(-self.d - k - 1);
                    alo += Float::with_val_round(p, at.q.lo() * a.lo(), Round::Down).0;
                    ahi += Float::with_val_round(p, at.q.hi() * a.hi(), Round::Up).0;
                    blo += Float::with_val_round(p, at.pw.lo() * b.lo(), Round::Down).0;
                    bhi += Float::with_val_round(p, at.pw.hi() * b.hi(), Round::Up).0;
                    let cl = tails.le(k);
                    clo += Float::with_val_round(p, at.q.lo() * cl.lo(), Round::Down).0;
                    chi += Float::with_val_round(p, at.q.hi() * cl.hi(), Round::Up).0;
                    qlo += at.q.lo();
                    qhi += at.q.hi();
                }
                ((alo, ahi, blo, bhi), (clo, chi, qlo, qhi), fmin, gmin)
            })
            .collect();
        // the sums above round to nearest at each addition: redo them with directed rounding
        let ((mut alo, mut ahi, mut blo, mut bhi), (mut clo, mut chi, mut qlo, mut qhi)) = zero8();
        let (mut fmin, mut gmin) = (one.clone(), one.clone());
        for ((a0, a1, b0, b1), (c0, c1, q0, q1), f, g) in parts {
            alo = Float::with_val_round(p, &alo + &a0, Round::Down).0;
            ahi = Float::with_val_round(p, &ahi + &a1, Round::Up).0;
            blo = Float::with_val_round(p, &blo + &b0, Round::Down).0;
            bhi = Float::with_val_round(p, &bhi + &b1, Round::Up).0;
            clo = Float::with_val_round(p, &clo + &c0, Round::Down).0;
            chi = Float::with_val_round(p, &chi + &c1, Round::Up).0;
            qlo = Float::with_val_round(p, &qlo + &q0, Round::Down).0;
            qhi = Float::with_val_round(p, &qhi + &q1, Round::Up).0;
            fmin = fmin.min(f);
            gmin = gmin.min(g);
        }
        let n = (self.atoms.len() - cut) as f64;
        // each chunk's nearest-rounded sums: at most n roundings of half an ulp each, relative to the sum
        let rel = Float::with_val(p, Float::i_exp(1, -(p as i32) + 1)) * Float::with_val(p, n + 2.0);
        let one_minus = Float::with_val_round(p, 1 - &rel, Round::Down).0;
        let one_plus = Float::with_val_round(p, 1 + &rel, Round::Up).0;
        let widen_lo = |x: Float| Float::with_val_round(p, &x * &one_minus, Round::Down).0;
        let widen_hi = |x: Float| Float::with_val_round(p, &x * &one_plus, Round::Up).0;
        let a = Interval::new(widen_lo(alo), widen_hi(ahi));
        let b = Interval::new(widen_lo(blo), widen_hi(bhi));
        let c = Interval::new(widen_lo(clo), widen_hi(chi));
        let q = Interval::new(widen_lo(qlo), widen_hi(qhi));
        let t = Float::with_val_round(p, &self.lost + Float::with_val_round(p, t_cut, Round::Up).0, Round::Up).0;
        let s_lo = m - Rational::from(h * &fmin);
        let s_hi = m + Rational::from(h * &gmin);
        Segment { a, b, c, q, t, s_lo, s_hi }
    }
}

impl Segment {
    /// δ(ε) at an ε of the segment.
    fn delta_at(&self, eps: &Rational) -> Interval {
        let p = self.a.prec();
        let e = Interval::from_rational(eps, p).exp();
        let up = Interval::new(self.a.lo().clone(), Float::with_val_round(p, self.a.hi() + &self.t, Round::Up).0);
        clip0(up.sub(&e.mul(&self.b)))
    }

    /// The root of δ(ε) = δ on the segment, enclosed, when it certainly lies inside it.
    fn root(&self, dl: &Interval) -> Option<Interval> {
        let p = self.a.prec();
        let num = Interval::new(self.a.lo().clone(), Float::with_val_round(p, self.a.hi() + &self.t, Round::Up).0).sub(dl);
        if *num.lo() <= 0 || *self.b.lo() <= 0 {
            return None;
        }
        let r = num.div(&self.b).ln();
        let inside =
            *r.lo() >= Float::with_val_round(p, &self.s_lo, Round::Up).0 && *r.hi() <= Float::with_val_round(p, &self.s_hi, Round::Down).0;
        inside.then_some(r)
    }

    /// A guess at the root from the closed form (its midpoint), when A > δ.
    fn guess(&self, dl: &Interval) -> Option<Float> {
        let p = self.a.prec();
        let num = Float::with_val(p, self.a.hi() - dl.lo());
        if num <= 0 || *self.b.hi() <= 0 {
            return None;
        }
        let g = Float::with_val(p, &num / self.b.hi()).ln();
        g.is_finite().then_some(g)
    }
}

impl Accountant {
    /// The split the conditioned engine uses for a query, if one is practical: the 1–3 coarsest discrete
    /// Gaussian groups (largest slope μ/σ²) conditioned on, the rest on a lattice within the size and
    /// time limits.
    pub(in crate::account) fn conditioned_split(&self, q: Query) -> Option<Split> {
        if self.comp.has_law() || self.shifts.len() < 2 {
            return None;
        }
        let slope = |g: &Group| match &g.noise {
            Noise::Gaussian { sigma2 } => Some(Rational::from(g.mu) / sigma2.clone()),
            _ => None,
        };
        let mut order: Vec<usize> = (0..self.shifts.len()).collect();
        order.sort_by(|&i, &j| slope(&self.shifts[j]).unwrap_or_default().cmp(&slope(&self.shifts[i]).unwrap_or_default()));
        let depth = self.depth_for(q);
        let bits = self.coarse_bits(q);
        let mut atoms = 1.0f64;
        for m in 1..=MAX_COARSE_GROUPS.min(self.shifts.len() - 1) {
            let g = &self.shifts[order[m - 1]];
            let Noise::Gaussian { sigma2 } = &g.noise else { return None };
            let sd = (sigma2.to_f64() * g.count as f64).sqrt();
            atoms *= 2.0 * sd * (2.0 * bits as f64 * std::f64::consts::LN_2).sqrt() + 3.0;
            if atoms > MAX_ATOMS || g.count > u32::MAX as u64 {
                return None;
            }
            let coarse: Vec<Group> = order[..m].iter().map(|&i| self.shifts[i].clone()).collect();
            let fine: Vec<Group> = order[m..].iter().map(|&i| self.shifts[i].clone()).collect();
            if estimated_window_shifts(&fine, depth) > MAX_WINDOW {
                continue;
            }
            let sub = self.fine_accountant(&fine).ok()?;
            // the coarse groups' exact laws are built like an MPFR lattice of their own (residue recursion or
            // binary powering): 100,000 × N_Z(0, 5) has only ~18,000 atoms but its law costs n²K, which
            // ran for minutes unannounced
            if self.coarse_seconds(q, &coarse) > self.opts.time_budget {
                return None;
            }
            if sub.estimated_seconds(&self.fine_opts(q, &fine)) <= self.opts.time_budget {
                return Some(Split { coarse, fine });
            }
        }
        None
    }

    /// Estimated seconds of the conditioned engine on a query, where it has a split: the coarse groups' exact
    /// laws and the fine lattice.
    pub(in crate::account) fn conditioned_seconds(&self, q: Query) -> Option<f64> {
        let split = self.conditioned_split(q)?;
        let sub = self.fine_accountant(&split.fine).ok()?;
        Some(self.coarse_seconds(q, &split.coarse) + sub.estimated_seconds(&self.fine_opts(q, &split.fine)))
    }

    /// Estimated seconds of the coarse groups' exact laws, each built like an MPFR lattice of its own (their
    /// atoms are multiplied out, not convolved on a common lattice).
    fn coarse_seconds(&self, q: Query, coarse: &[Group]) -> f64 {
        let o = LatticeOpts { arith: Arith::Mpfr(self.work_prec() + 64), depth: self.coarse_bits(q) };
        coarse.iter().map(|g| self.fine_accountant(std::slice::from_ref(g)).map_or(f64::INFINITY, |a| a.estimated_seconds(&o))).sum()
    }

    /// Bits of mass the coarse law keeps: what is left out adds to δ itself, so log2(1/δ) + the digits
    /// and a margin (ε queries; δ queries from the zCDP bound on δ).
    fn coarse_bits(&self, q: Query) -> u32 {
        let digit_bits = self.opts.digits as f64 * std::f64::consts::LOG2_10;
        let ld = match q {
            Query::Epsilon(d) => -crate::num::log2_of(d),
            Query::Delta(e) => {
                let (d, _) = crate::budget::zcdp::delta_cks(&self.rho().unwrap_or_default(), e, 64);
                -d.hi().to_f64().max(1e-300).log2()
            }
            Query::Tradeoff(_) => 64.0,
        };
        (ld + digit_bits + 24.0).ceil().clamp(64.0, 4096.0) as u32
    }

    fn fine_accountant(&self, fine: &[Group]) -> Fallible<Accountant> {
        // the shifts are the fine part's queries as they stand (replace already counted twice)
        Accountant::new(Composition::new(fine.to_vec(), Neighbors::AddRemove)?, self.opts.clone())
    }

    /// The fine lattice's options: the full query's truncation depth (the mass outside the fine window
    /// enters δ multiplied by Σ_c Q_C(c) e^{ε−c} = e^ε, as for one lattice), double-double where it
    /// serves, else MPFR.
    fn fine_opts(&self, q: Query, fine: &[Group]) -> LatticeOpts {
        let depth = self.depth_for(q);
        match self.opts.arith {
            Some(arith) => LatticeOpts { arith, depth: if arith.is_fixed() { depth.min(F64_MAX_DEPTH) } else { depth } },
            None if depth <= F64_MAX_DEPTH => LatticeOpts { arith: Arith::DoubleDouble, depth },
            None => {
                let w = estimated_window_shifts(fine, depth).max(2) as f64;
                LatticeOpts { arith: Arith::Mpfr(self.work_prec() + w.log2().ceil() as u32 + 8), depth }
            }
        }
    }

    fn conditioned(&self, q: Query, split: &Split) -> Fallible<(Conditioned, String)> {
        let sub = self.fine_accountant(&split.fine)?;
        let o = self.fine_opts(q, &split.fine);
        let secs = self.coarse_seconds(q, &split.coarse) + sub.estimated_seconds(&o);
        let _progress = crate::num::progress::begin("conditioned engine", secs);
        let fine = sub.profile(&o)?;
        let prec = self.work_prec().max(fine.prec()) + 32;
        let bits = self.coarse_bits(q);
        let prune = Float::with_val(prec, Float::i_exp(1, -(bits as i32) - 24));
        let c = Conditioned::build(split, fine, prec, bits, &prune)?;
        let coarse: Vec<String> = split.coarse.iter().map(|g| format!("{} x {}", g.count, g.noise.describe())).collect();
        let detail = format!(
            "conditioned on {} ({} atoms of the exact law, mass left out < 2^-{}), the rest on the {}",
            coarse.join(" + "),
            c.atoms.len(),
            bits.min(-c.lost.clone().log2().to_f64().floor().min(1e9) as u32),
            sub.detail(&o)
        );
        Ok((c, detail))
    }

    /// δ(ε) by conditioning on the coarse groups.
    pub(in crate::account) fn delta_conditioned(&self, eps: &Rational, split: &Split) -> Fallible<Certified> {
        let (c, detail) = self.conditioned(Query::Delta(eps), split)?;
        let seg = c.segment(eps, 0.0);
        let d = seg.delta_at(eps);
        self.with_digits_note(Certified::new(d, Engine::Conditioned, Trust::Exact, detail)?)
    }

    /// ε(δ) by conditioning on the coarse groups: a certified bracket [a, b] (δ(a) > δ > δ(b), each
    /// certified) narrowed by bisection and closed-form steps until the root's segment is found, where
    /// ln((A − δ)/B) encloses it.
    pub(in crate::account) fn epsilon_conditioned(&self, delta: &Rational, split: &Split) -> Fallible<Certified> {
        let (c, detail) = self.conditioned(Query::Epsilon(delta), split)?;
        let p = c.prec;
        let dl = Interval::from_rational(delta, p);
        let budget = delta.to_f64() * 10f64.powi(-(self.opts.digits.min(300) as i32) - 3);
        let zero = Rational::new();
        let s0 = c.segment(&zero, budget);
        let d0 = s0.delta_at(&zero);
        if *d0.hi() <= *dl.lo() {
            return Certified::new(Interval::zero(p), Engine::Conditioned, Trust::Exact, detail);
        }
        if let Some(r) = s0.root(&dl) {
            return self.with_digits_note(Certified::new(clip0(r), Engine::Conditioned, Trust::Exact, detail)?);
        }
        // the upper end: Bun–Steinke's ε ≥ the exact one, raised until δ there is certainly below
        let mut b = match self.rho() {
            Some(rho) => crate::budget::zcdp::eps_bs(&rho, delta, 64).hi().to_rational().unwrap_or_default() + Rational::from(1),
            None => Rational::from(64),
        };
        let mut a = if *d0.lo() > *dl.hi() { Some(zero.clone()) } else { None };
        let mut tries = 0;
        loop {
            let s = c.segment(&b, budget);
            if *s.delta_at(&b).hi() < *dl.lo() {
                break;
            }
            tries += 1;
            if tries > 8 {
                return fallible!(Declined, "the conditioned engine finds no certified upper end for epsilon");
            }
            b *= Rational::from(2);
        }
        let mut guess: Option<Float> = None;
        for step in 0..MAX_STEPS {
            crate::num::cancel::check().map_err(|e| err!(Interrupted, "{e}"))?;
            let lo = a.clone().unwrap_or_default();
            let mid = Rational::from(&lo + &b) / Rational::from(2);
            // a closed-form guess strictly inside the bracket, every other step (bisection in between
            // guarantees progress)
            let m = match guess.take().and_then(|g| g.to_rational()) {
                Some(g) if step % 2 == 0 && g > lo && g < b => g,
                _ => mid,
            };
            let s = c.segment(&m, budget);
            if let Some(r) = s.root(&dl) {
                let (rlo, rhi) = r.into_parts();
                let alo = Float::with_val_round(p, &lo, Round::Down).0;
                let bhi = Float::with_val_round(p, &b, Round::Up).0;
                let r = Interval::try_new(rlo.max(&alo), rhi.min(&bhi))?;
                return self.with_digits_note(Certified::new(clip0(r), Engine::Conditioned, Trust::Exact, detail)?);
            }
            let dm = s.delta_at(&m);
            let moved = if *dm.lo() > *dl.hi() {
                a = Some(m.clone());
                true
            } else if *dm.hi() < *dl.lo() {
                b = m.clone();
                true
            } else {
                false
            };
            guess = s.guess(&dl);
            if !moved {
                break;
            }
        }
        // no segment isolated: the certified bracket [a, b] stands
        let lo = Interval::from_rational(&a.unwrap_or_default(), p).into_parts().0;
        let hi = Interval::from_rational(&b, p).into_parts().1;
        let c = Certified::new(clip0(Interval::new(lo, hi)), Engine::Conditioned, Trust::Exact, detail)?;
        self.with_digits_note(c)
    }

    fn with_digits_note(&self, c: Certified) -> Fallible<Certified> {
        Ok(if c.meets(self.opts.digits) {
            c
        } else {
            c.with_note("the enclosures of the fine lattice and of the coarse law resolve no more".into())
        })
    }

    /// `--method conditioned`: the engine forced (an error when no split is practical).
    pub(in crate::account) fn conditioned_query(&self, q: Query) -> Fallible<Certified> {
        let split = self.conditioned_split(q).ok_or_else(|| {
            err!(
                Resource,
                "no practical split for the conditioned engine: the rest of the composition after its {MAX_COARSE_GROUPS} coarsest \
                 discrete Gaussian groups shares no lattice within the limits, or the coarse law would exceed {MAX_ATOMS:e} atoms"
            )
        })?;
        match q {
            Query::Epsilon(d) => self.epsilon_conditioned(d, &split),
            Query::Delta(e) => self.delta_conditioned(e, &split),
            Query::Tradeoff(a) => self.tradeoff_conditioned(a, &split),
        }
    }

    /// The conditioned engine where the accountant's choice is the smoothed inversion and a split exists
    /// (None: no split, or a smoothed width was asked for); a refusal gives None too, so that the
    /// smoothed inversion answers.
    pub(in crate::account) fn try_conditioned(&self, q: Query) -> Option<Fallible<Certified>> {
        if self.opts.width.is_some() || self.opts.lattice_max.is_some() {
            return None;
        }
        let split = self.conditioned_split(q)?;
        if std::env::var_os("TIGHTDP_TRACE").is_some() {
            let c: Vec<String> = split.coarse.iter().map(|g| format!("{} x {}", g.count, g.noise.describe())).collect();
            eprintln!("conditioned: on {}, the other {} groups on a lattice", c.join(" + "), split.fine.len());
        }
        let r = match q {
            Query::Epsilon(d) => self.epsilon_conditioned(d, &split),
            Query::Delta(e) => self.delta_conditioned(e, &split),
            Query::Tradeoff(a) => self.tradeoff_conditioned(a, &split),
        };
        match r {
            Err(e) if e.is_declined() => {
                if std::env::var_os("TIGHTDP_TRACE").is_some() {
                    eprintln!("conditioned: declined ({})", e.message());
                }
                None
            }
            r => Some(r),
        }
    }
}

fn clip0(r: Interval) -> Interval {
    let p = r.prec();
    let z = Float::with_val(p, 0);
    let (lo, hi) = r.into_parts();
    Interval::new(lo.max(&z), hi.max(&z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::account::{Method, Options};

    pub(in crate::account) fn comp(groups: &[(&str, u64)]) -> Composition {
        let gs = groups.iter().map(|(s, n)| Group::gaussian(crate::num::parse_rational(s).unwrap(), *n, 1)).collect();
        Composition::new(gs, Neighbors::AddRemove).unwrap()
    }

    pub(in crate::account) fn acc(c: &Composition, method: Method) -> Accountant {
        Accountant::new(c.clone(), Options { method, ..Options::default() }).unwrap()
    }

    pub(in crate::account) fn split(c: &Composition, coarse: usize) -> Split {
        // the composition's groups in the order given: the first `coarse` conditioned on
        let s = c.shifts();
        Split { coarse: s[..coarse].to_vec(), fine: s[coarse..].to_vec() }
    }

    /// Commensurate compositions, where the exact lattice answers too: conditioning on one, two and
    /// three groups gives brackets that intersect the lattice engine's, at ≥ 20 digits; δ(ε) likewise.
    #[test]
    fn conditioned_brackets_meet_the_exact_lattice() {
        let c = comp(&[("2", 3), ("3", 2), ("5/2", 1), ("40", 5)]);
        let delta = Rational::from((1, 1_000_000));
        let eps = Rational::from((7, 2));
        let lat = acc(&c, Method::Lattice);
        let le = lat.epsilon(&delta).unwrap();
        let ld = lat.delta(&eps).unwrap().delta;
        assert!(le.meets(20) && ld.meets(20));
        let a = acc(&c, Method::Conditioned);
        for k in 1..=3 {
            let s = split(&c, k);
            let e = a.epsilon_conditioned(&delta, &s).unwrap();
            assert!(e.meets(20), "{k} groups: {}", e.describe());
            assert!(e.lo() <= le.hi() && le.lo() <= e.hi(), "{k}: [{}, {}] vs lattice [{}, {}]", e.lo(), e.hi(), le.lo(), le.hi());
            let d = a.delta_conditioned(&eps, &s).unwrap();
            assert!(d.meets(20), "{k} groups: {}", d.describe());
            assert!(d.lo() <= ld.hi() && ld.lo() <= d.hi(), "{k}: [{}, {}] vs lattice [{}, {}]", d.lo(), d.hi(), ld.lo(), ld.hi());
        }
    }

    /// The SafeTab-H-like reduced composition of scripts/reference/conditioned_coarse.txt conditioned on
    /// its two coarse groups (the split SafeTab-H itself takes), against the direct mpmath sum.
    #[test]
    fn two_coarse_groups_hold_the_direct_sum() {
        let c = comp(&[("5625/2401", 2), ("1500000/47623", 3), ("300000/461", 2)]);
        let a = acc(&c, Method::Conditioned);
        let e = a.epsilon_conditioned(&Rational::from((1, 10_000_000_000u64)), &split(&c, 2)).unwrap();
        let r = Float::with_val(256, Float::parse("6.373732889044711556674835333847728111075").unwrap());
        assert!(e.meets(20) && *e.lo() <= r && r <= *e.hi(), "{r} outside {}", e.describe());
    }

    /// Auto takes the conditioned engine only where it would otherwise take the smoothed inversion: a
    /// composition with a practical common lattice keeps its lattice engine.
    #[test]
    fn auto_keeps_the_lattice_where_it_is_practical() {
        let c = comp(&[("2", 3), ("40", 5)]);
        let e = acc(&c, Method::Auto).epsilon(&Rational::from((1, 1_000_000))).unwrap();
        assert_ne!(e.engine(), Engine::Conditioned);
    }
}
