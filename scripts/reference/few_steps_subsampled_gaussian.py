#!/usr/bin/env python3
"""Reference delta(epsilon) of T = 2 and 3 Poisson-subsampled Gaussian releases (add/remove neighbours, each
direction), for the tilted Fourier engine's few-step lines (src/account/engines/tilted_tests.rs), by mpmath
at 32 digits in the data space -- no characteristic function, no Fourier inversion, no grid.

With r(x) = 1 - q + q exp(mu x - mu^2/2) (mu = 1/sigma), l(x) = ln r(x) >= ln(1 - q) the loss of one release
and phi the standard normal density, the remove pair is P = phi r, Q = phi and its loss is l(x) under P; the
add pair swaps them, loss -l(x) under Q. One release's delta is a closed form at any real argument e (l is
increasing, x*(e) = (ln((e^e - (1 - q))/q) + mu^2/2)/mu solves l(x*) = e):

  remove: delta_1(e) = P[x > x*(e)] - e^e Q[x > x*(e)]   for e > ln(1 - q);  1 - e^e otherwise
  add:    delta_1(e) = Q[x < x*(-e)] - e^e P[x < x*(-e)]  for -e > ln(1 - q); 0 otherwise

with P[x > a] = (1 - q) Phi(-a) + q Phi(mu - a) and Q[x > a] = Phi(-a). Composition conditions on the first
release: delta_T(e) = E[delta_{T-1}(e - L_1)] (L_1 the first release's loss under the direction's measure), one
mpmath tanh-sinh quadrature per level, split where the inner argument crosses k ln(1 - q), k < T (where delta_k is
smooth but not analytic). T = 3 nests two quadratures (about 20 minutes a direction; the add direction is 0 where e >= -T ln(1 - q)).
Run: python3 scripts/reference/few_steps_subsampled_gaussian.py > scripts/reference/few_steps_subsampled_gaussian.txt
(or one case, `... .py K`, the header omitted: the rows in parallel)"""
from fractions import Fraction

from mpmath import mp, mpf, exp, log, sqrt, pi, quad, ncdf, nstr, inf

mp.dps = 32


def law(q, sigma):
    mu = 1 / sigma
    lo = log(1 - q)

    def ell(x):
        return log(1 - q + q * exp(mu * x - mu * mu / 2))

    def xstar(e):
        return (log((exp(e) - (1 - q)) / q) + mu * mu / 2) / mu

    def p_above(a):
        return (1 - q) * ncdf(-a) + q * ncdf(mu - a)

    def d1(direction, e):
        # (e^e - (1 - q) <= 0 taken as e <= ln(1 - q): the quadrature's nodes crowd its split points)
        if direction == "remove":
            if e <= lo or exp(e) - (1 - q) <= 0:
                return 1 - exp(e)
            a = xstar(e)
            return p_above(a) - exp(e) * ncdf(-a)
        if -e <= lo or exp(-e) - (1 - q) <= 0:
            return mpf(0)
        a = xstar(-e)
        return ncdf(a) - exp(e) * (1 - p_above(a))

    return mu, lo, ell, xstar, d1


def delta(q, sigma, T, e, direction):
    mu, lo, ell, xstar, d1 = law(q, sigma)
    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi)
    weight = (lambda x: phi(x) * exp(ell(x))) if direction == "remove" else phi
    sign = 1 if direction == "remove" else -1

    def level(t, arg):
        if t == 1:
            return d1(direction, arg)
        # split where the next argument arg - sign*l(x) crosses k ln(1 - q) (remove) or -k ln(1 - q) (add),
        # k < t: delta_k is smooth but not analytic there (its releases' losses all at their least)
        pts = [-inf, -6, 0, 6, inf]
        for k in range(1, t):
            edge = arg - k * lo if direction == "remove" else -k * lo - arg
            if edge > lo:
                pts.append(xstar(edge))
        pts = sorted(set(pts), key=lambda v: float(v))
        return quad(lambda x: weight(x) * level(t - 1, arg - sign * ell(x)), pts)

    if direction == "add" and e >= -T * lo:
        return mpf(0)  # each release's loss is at most -ln(1 - q)
    return level(T, e)


CASES = [
    (Fraction(1, 10), Fraction(2), 3, Fraction(51, 100)),
    (Fraction(1, 2), Fraction(1), 2, Fraction(1, 2)),
    (Fraction(1, 5), Fraction(1), 3, Fraction(1, 2)),
]

if __name__ == "__main__":
    import sys

    picked = [CASES[int(i)] for i in sys.argv[1:]] or CASES
    if len(sys.argv) == 1:
        print("# q sigma T epsilon delta_remove delta_add (mpmath, 32 digits, data-space quadrature)")
    for q, sigma, T, e in picked:
        qq, ss, ee = (mpf(v.numerator) / v.denominator for v in (q, sigma, e))
        r = delta(qq, ss, T, ee, "remove")
        a = delta(qq, ss, T, ee, "add")
        print(q, sigma, T, e, nstr(r, 26, min_fixed=0, max_fixed=0), nstr(a, 26, min_fixed=0, max_fixed=0), flush=True)
