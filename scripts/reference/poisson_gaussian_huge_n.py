#!/usr/bin/env python3
"""Reference delta(epsilon) of T = 10^12 Poisson-subsampled Gaussian releases (q = 256/60000, sigma = 1.1,
sensitivity 1) under add/remove neighbours at epsilon = 11629738, both directions and the larger, for the tilted
Fourier engine (src/account/engines/tilted.rs) at huge T; by mpmath, independently of tightdp's discretisation,
from the same inversion integral as poisson_gaussian_delta.py,

  delta(e) = (e^(-c e)/pi) int_0^inf Re[ M(c + it)^T e^(-it e) / ((c + it)(c + 1 + it)) ] dt     (any c > 0)

with M(s) = int phi(x) r(x)^(1+s) dx (remove) or int phi(x) r(x)^(-s) dx (add), r(x) = 1 - q + q exp(x/sigma -
1/(2 sigma^2)).  What T = 10^12 changes:
 * M^T amplifies the error of M by T, so M is never formed: D(s) = M(s) - 1 = int phi(x) expm1(kappa log r(x)) dx
   is computed at 65 digits, log M = log1p(D), and M(s)^T e^(-s e) = exp(T log M(s) - s e) (exponent about 1e4).
   The x-integral is a fixed Gauss-Legendre rule (48 nodes on each of [-40,-20,-14,-10,-7,-4,-2,0,2,4,7,10,14,20,
   40]; phi(x) and log r(x) at the nodes cached, so each M costs one complex exp per node); the rule is checked
   against mpmath's adaptive tanh-sinh quad(..., error=True) at 75 digits at sample points (printed: T times the
   largest difference, i.e. the error it puts into the exponent T log M, and quad's own error estimate).
 * The tilt c is the saddle point, T (log M)'(c) = e by Newton (c ~ 8.8e-4 remove, 4.7e-3 add), rounded to
   10 digits, so the integrand is not oscillatory; t = h tau with h = 1/sqrt(T (log M)''(c)) (~2.1e-4); the outer
   integral is Gauss-Legendre quad (error=True) at 50 digits, split at tau = 0, 1, 2, ..., N, N the first integer
   where |M(c + i N h)/M(c)|^T < 1e-50, plus 2 (N = 18 here).  |M(c+it)/M(c)|^T is also printed at t = 0.01 .. 10
   (adaptive quad) to show the truncated tail stays negligible.
 * Self-check: each delta is computed at two tilts, c1 = the saddle and c2 = 1.3 c1 (an off-saddle tilt: its
   integrand oscillates and cancels, by ~1e-10 for add, so the agreement also tests the working precision);
   the agreeing digits are printed and must be >= 30 (the data row carries 30 significant digits).  Sanity: the
   CLT (L normal with T times the per-step mean and variance of L), the leading saddle-point term, and, by two
   Newton steps with -delta'(e) (the same integral with 1/(c + 1 + it) in place of 1/((c + it)(c + 1 + it))), the
   epsilon where delta_remove = 1e-5.
Result: delta_remove(11629738) = 1.000411966966...e-5 (the larger; just above 1e-5: it crosses 1e-5 at
epsilon = 11629738.4448063, matching the engine's 11629738.44...), delta_add = 3.626660303909...e-111; the two
tilts agree to 52 (remove) and 44 (add) digits; CLT within 0.01 % (remove) and 0.9 % (add).  About 4.5 minutes
(one core).
Run: python3 scripts/reference/poisson_gaussian_huge_n.py > scripts/reference/poisson_gaussian_huge_n.txt"""
import math
import sys
import time
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, log1p, expm1, sqrt, pi, quad, fsum, ncdf, nstr

mp.dps = 65
INNER_DPS = 65  # digits for M (T log M needs ~30 + 12 absolute digits)
OUTER_DPS = 50  # convergence target of the outer quad (the integrand is normalised to 1 at t = 0)
CHECK_DPS = 75  # adaptive quad used to check the fixed inner rule
OUT_DIGITS = 30

Q = Fraction(256, 60000)
SIGMA = Fraction(11, 10)
T = 10 ** 12
EPS = 11629738
X_BREAKS = [-40, -20, -14, -10, -7, -4, -2, 0, 2, 4, 7, 10, 14, 20, 40]
GL_DEGREE = 5  # mpmath's Gauss-Legendre degree 5 = 3 * 2^4 = 48 nodes per piece


def mpq(f):
    return mpf(f.numerator) / f.denominator


q = mpq(Q)
mu = 1 / mpq(SIGMA)


def log_r(x):
    """log r(x) = log(1 - q + q exp(mu x - mu^2/2)), written to keep its small values exact."""
    return log1p(q * expm1(mu * x - mu * mu / 2))


class Direction:
    def __init__(self, name):
        self.name = name
        self.sign = 1 if name == "remove" else -1  # r^kappa = r^(1+s) (remove) or r^(-s) (add)
        self.nodes = []
        for i in range(len(X_BREAKS) - 1):
            for x, w in mp._gauss_legendre.get_nodes(mpf(X_BREAKS[i]), mpf(X_BREAKS[i + 1]), GL_DEGREE, mp.prec):
                self.nodes.append((w * exp(-x * x / 2) / sqrt(2 * pi), log_r(x)))

    def kappa(self, s):
        return 1 + s if self.sign == 1 else -s

    def D(self, s):
        """M(s) - 1 by the fixed rule (exactly 0 at s = 0 (remove: E_phi r = 1) and s = 0 (add))."""
        k = self.kappa(s)
        return fsum(w * expm1(k * u) for w, u in self.nodes)

    def D_quad(self, s):
        """M(s) - 1 by mpmath's adaptive quad, with its error estimate (the check)."""
        with mp.workdps(CHECK_DPS):
            k = self.kappa(s)
            v, err = quad(lambda x: exp(-x * x / 2) * expm1(k * log_r(x)), [-40, -10, -4, 0, 4, 10, 40], error=True)
            return v / sqrt(2 * pi), err / sqrt(2 * pi)

    def logM(self, s):
        return log1p(self.D(s))

    def cumulants(self, c):
        """log M(c), (log M)'(c), (log M)''(c) at real c: the per-step cumulant generating function of L."""
        k = self.kappa(c)
        m0 = 1 + fsum(w * expm1(k * u) for w, u in self.nodes)
        m1 = fsum(w * exp(k * u) * self.sign * u for w, u in self.nodes)
        m2 = fsum(w * exp(k * u) * u * u for w, u in self.nodes)
        k1 = m1 / m0
        return log(m0), k1, m2 / m0 - k1 * k1

    def saddle(self, e):
        _, k1, k2 = self.cumulants(mpf(0))
        c = (e / T - k1) / k2
        for _ in range(50):
            _, k1, k2 = self.cumulants(c)
            step = (T * k1 - e) / (T * k2)
            c -= step
            if abs(step) < abs(c) * mpf(10) ** -40:
                break
        return c


def delta(d, c, e, report, slope=False):
    """delta(e) for direction d at tilt c, or with slope=True its derivative -delta'(e) = (e^(-c e)/pi) int_0^inf
    Re[M(c + it)^T e^(-it e) / (c + 1 + it)] dt; returns (value, (log M(c), (log M)''(c), h, N))."""
    K0, _, K2 = d.cumulants(c)
    h = 1 / sqrt(T * K2)
    h = mpf(nstr(h, 6))  # only a length scale for the breakpoints
    lead = T * K0 - c * e  # log of M(c)^T e^(-c e)

    def ratio_log(t):  # log |M(c + it) / M(c)|^T
        return T * (d.logM(mpc(c, t)).real - K0)

    N = 1
    while ratio_log(N * h) > math.log(1e-50):
        N += 1
    N += 2
    tail = ratio_log(N * h)

    def G(tau):
        with mp.workdps(INNER_DPS):
            t = mpf(tau) * h
            s = mpc(c, t)
            v = exp(T * (d.logM(s) - K0) - mpc(0, t) * e) * ((c + 1) / (s + 1) if slope else (c * (c + 1)) / (s * (s + 1)))
            return v.real

    t0 = time.time()
    with mp.workdps(OUTER_DPS):
        I, err = quad(G, list(range(N + 1)), method="gauss-legendre", error=True)
    report("# %s%s c=%s: h=%s, N=%d (t_max=%s, |M(c+it_max)/M(c)|^T=%s), outer quad error estimate %s (relative), %.0f s"
        % (d.name, " -delta'(%s)" % nstr(e, 12) if slope else "", nstr(c, 12), nstr(h, 6), N, nstr(N * h, 4), nstr(exp(tail), 3), nstr(abs(err / I), 3),
           time.time() - t0))
    return exp(lead) / ((c + 1) if slope else (c * (c + 1))) * h / pi * I, (K0, K2, h, N)


def agree(a, b):
    if a == b:
        return mp.dps
    return int(math.floor(-float(log(abs(a - b) / abs(a), 10))))


def main():
    start = time.time()
    e = mpf(EPS)
    out = []

    def log_line(s):
        out.append(s)
        print(s, file=sys.stderr, flush=True)

    results = {}
    checks = []
    for name in ("remove", "add"):
        d = Direction(name)
        c1 = mpf(nstr(d.saddle(e), 10))
        assert c1 > 0  # the formula needs c > 0 (for c < 0 it gives delta - 1: the pole at s = 0)
        c2 = mpf(13) / 10 * c1
        d1, (K0, K2, h, N) = delta(d, c1, e, log_line)
        d2, _ = delta(d, c2, e, log_line)
        results[name] = d1
        checks.append((name, c1, c2, d1, d2, agree(d1, d2)))

        # inner rule against adaptive quad, at t = 0, h, 4h, N h for both tilts
        worst, worst_est = mpf(0), mpf(0)
        for c in (c1, c2):
            for t in (0, h, 4 * h, N * h):
                s = mpc(c, t)
                v, est = d.D_quad(s)
                worst = max(worst, abs(d.D(s) - v))
                worst_est = max(worst_est, est)
        log_line("# %s inner rule: T * max|D_rule - D_quad| = %s (the error in the exponent T log M); quad error "
                 "estimate <= %s" % (name, nstr(T * worst, 3), nstr(worst_est, 3)))
        far = []
        for t in ("0.01", "0.1", "1", "10"):
            v, _ = d.D_quad(mpc(c1, mpf(t)))
            far.append("%s: %s" % (t, nstr(T * (log1p(v).real - K0), 6)))
        log_line("# %s tail: log |M(c1+it)/M(c1)|^T at t = %s" % (name, ", ".join(far)))

        # sanity: CLT and leading saddle-point term
        _, m, v = d.cumulants(mpf(0))
        mean, sd = T * m, sqrt(T * v)
        z = (mean - e) / sd
        clt = ncdf(z) - exp(e - mean + sd * sd / 2) * ncdf(z - sd)
        sp = exp(T * K0 - c1 * e) / (c1 * (c1 + 1)) * h / sqrt(2 * pi)
        log_line("# %s sanity: per-step mean %s var %s; (e - T mean)/sqrt(T var) = %s; CLT delta %s (ratio %s); "
                 "leading saddle-point term %s (ratio %s)"
                 % (name, nstr(m, 12), nstr(v, 12), nstr(-z, 8), nstr(clt, 6), nstr(clt / d1, 5), nstr(sp, 6),
                    nstr(sp / d1, 5)))
        if name == "remove":
            # sanity: where delta_remove crosses 1e-5 (the engine's epsilon(1e-5) = 11629738.44...), two Newton steps
            target, x, dx = mpf(10) ** -5, e, d1
            for _ in range(2):
                x = x + (dx - target) / delta(d, c1, x, log_line, slope=True)[0]
                dx = delta(d, c1, x, log_line)[0]
            log_line("# remove sanity: delta_remove(e) = 1e-5 at e = %s (two Newton steps; delta there - 1e-5 = %s)"
                     % (nstr(x, 16), nstr(dx - target, 3)))

    for name, c1, c2, d1, d2, n in checks:
        log_line("# self-check %s: tilt c1 = %s: %s; tilt c2 = 1.3 c1 = %s: %s; agreeing digits %d%s"
                 % (name, nstr(c1, 10), nstr(d1, 45, min_fixed=0, max_fixed=0), nstr(c2, 11),
                    nstr(d2, 45, min_fixed=0, max_fixed=0), n,
                    "" if n >= OUT_DIGITS else "  (FEWER THAN %d: printed digits not all certain)" % OUT_DIGITS))
    r, a = results["remove"], results["add"]

    def fmt(x):
        return nstr(x, OUT_DIGITS, min_fixed=0, max_fixed=0)

    print("# q sigma T epsilon delta_remove delta_add delta (the larger)")
    print(Q, SIGMA, T, EPS, fmt(r), fmt(a), fmt(max(r, a)))
    for s in out:
        print(s)
    print("# run time %.0f s" % (time.time() - start))


if __name__ == "__main__":
    main()
