//! The kernels of the two integrals of docs/smoothed-fourier.md §4 on the line s = c + it:
//! K_S(t) = e^{w²s²/2}/(s(s+1)) for F_S (the Gaussian-smoothed hockey stick, whose Laplace transform is
//! 1/(s(s+1))) and K_B(t) = e^{γ²s²/2} for F_B (the bump), multiplied into the table's R(t_n) once
//! ([`Kernels::new`]), and the trapezoid sums Σ_n ω_n Re[R(t_n) K(t_n) e^{−i t_n x}] at any abscissa x
//! ([`Kernels::sums`]), the dead nodes added as a radius through [`kernel_max`].

use super::nodes::Table;
use crate::num::ball::{up, Ball, CBall};
use rayon::prelude::*;

/// x-independent node factors for F_S and F_B.
pub(super) struct Kernels {
    /// the smoothing w
    pub(super) w: f64,
    /// the bump's width γ = λw
    gamma: f64,
    /// (t_n, R(t_n) K_S(t_n), R(t_n) K_B(t_n)) at the live nodes, in the table's order
    ks: Vec<(Ball, CBall, CBall)>,
    /// e^{−i t_n x} is formed from the previous node's for up to this many consecutive nodes (0: always
    /// by libm), see [`Kernels::sums`]
    restart: usize,
}

impl Kernels {
    pub(super) fn new(tab: &Table, w: f64, gamma: f64, restart: usize) -> Kernels {
        let c = tab.c;
        let cb = Ball::exact(c);
        let c2 = cb.mul(cb);
        let w2 = Ball::exact(w).mul(Ball::exact(w));
        let g2 = Ball::exact(gamma).mul(Ball::exact(gamma));
        let half = Ball::exact(0.5);
        let node = |&(n, r): &(usize, CBall)| {
            let tb = tab.step.t(n);
            let t = tb.m;
            let t2 = tb.mul(tb);
            // e^{w²(c+it)²/2} = e^{w²(c²−t²)/2} · e^{i w² c t}
            let es = CBall::exp_of(w2.mul(c2.sub(t2)).mul(half), w2.mul(cb).mul(tb));
            let eb = CBall::exp_of(g2.mul(c2.sub(t2)).mul(half), g2.mul(cb).mul(tb));
            // 1/((c+it)(c+1+it)) with (c+it)(c+1+it) = c(c+1) − t² + i t(2c+1)
            let den = if tb.r == 0.0 {
                let den = CBall::new(c * (c + 1.0) - t * t, t * (2.0 * c + 1.0), 0.0);
                CBall { r: up(crate::num::ball::U * 2.0 * (den.re.abs() + den.im.abs() + t * t)), ..den }
            } else {
                let re = cb.mul(cb.add(Ball::exact(1.0))).sub(t2);
                let im = tb.mul(cb.mul(Ball::exact(2.0)).add(Ball::exact(1.0)));
                CBall::new(re.m, im.m, up(re.r + im.r))
            };
            let ps = r.mul(es).mul(den.inv());
            let pb = r.mul(eb);
            (tb, ps, pb)
        };
        let ks = if tab.live.len() <= SERIAL_NODES { tab.live.iter().map(node).collect() } else { tab.live.par_iter().map(node).collect() };
        Kernels { w, gamma, ks, restart }
    }

    /// Σ_n ω_n Re[K(t_n) e^{−i t_n x}] for the kernel of F_S and, when `with_b`, of F_B, as balls
    /// (negligible nodes bounded). The phases e^{−i t_n x}: at consecutive nodes (t_n = n·h exactly) the
    /// next is the previous times e^{−ihx}, for up to `restart` steps, then again libm's sine and cosine
    /// (which otherwise cost more than the rest of the sum).
    pub(super) fn sums(&self, tab: &Table, x: f64, with_b: bool) -> (Ball, Ball) {
        let (mut ss, mut sb) = (Ball::exact(0.0), Ball::exact(0.0));
        let step = CBall::cis(tab.step.h.mul(Ball::exact(x)).neg());
        let (mut e, mut prev, mut run) = (CBall::ONE, usize::MAX, 0usize);
        for (&(t, ps, pb), &(n, _)) in self.ks.iter().zip(&tab.live) {
            if run < self.restart && prev != usize::MAX && n == prev + 1 {
                e = e.mul(step);
                run += 1;
            } else {
                e = CBall::cis(t.mul(Ball::exact(x)).neg());
                run = 0;
            }
            prev = n;
            let wgt = if n == 0 { 1.0 } else { 2.0 };
            let zs = ps.mul(e);
            ss = ss.add(Ball { m: wgt * zs.re, r: wgt * zs.r });
            if with_b {
                let zb = pb.mul(e);
                sb = sb.add(Ball { m: wgt * zb.re, r: wgt * zb.r });
            }
        }
        let (ks_max, kb_max) = kernel_max(tab.c, self.w, self.gamma);
        ss.r = up(ss.r + tab.dead * ks_max);
        sb.r = up(sb.r + tab.dead * kb_max);
        (ss, sb)
    }
}

/// Upper bounds of |K_S(t)| ≤ e^{w²c²/2}/(c(c+1)) and |K_B(t)| ≤ e^{γ²c²/2} over all t (the factors of
/// a negligible node's bound).
pub(super) fn kernel_max(c: f64, w: f64, gamma: f64) -> (f64, f64) {
    ((w * w * c * c / 2.0).exp() / (c * (c + 1.0)) * 1.001, (gamma * gamma * c * c / 2.0).exp() * 1.001)
}

/// Kernels of at most this many live nodes are formed in the calling thread.
const SERIAL_NODES: usize = 2048;
