#!/usr/bin/env python3
"""Reference trade-off function f(alpha) of T Poisson-subsampled Gaussian releases under add/remove neighbours
(the smaller of the two directions), for the tilted Fourier engine (src/account/engines/tilted.rs), by mpmath at
30 digits, independently of tightdp: per direction f(alpha) = sup_e [1 - delta(e) - e^e alpha] [DRS22, Prop 2.12],
taken at the threshold e* where the alternative's mass above it, -delta'(e) e^(-e), equals alpha (findroot), with

  delta(e)  = (e^(-c e)/pi) int_0^inf Re[ M(c + it)^T e^(-it e) / ((c + it)(c + 1 + it)) ] dt
  delta'(e) = -(e^(-c e)/pi) int_0^inf Re[ M(c + it)^T e^(-it e) / (c + 1 + it) ] dt

(c = 1; M as in poisson_gaussian_delta.py, by mpmath's adaptive quadrature; M(c + it)^T is kept per t, so the
quadratures at every e share it). About 30 minutes on one core.
Run: python3 scripts/reference/poisson_gaussian_tradeoff.py > scripts/reference/poisson_gaussian_tradeoff.txt"""
import os
import sys
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, pi, quad, nstr, findroot, log

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from poisson_gaussian_delta import mgf  # noqa: E402

mp.dps = 30
PTS = [0, 0.5, 1, 2, 4, 8, 16, 32, 64]


def tradeoff(q, sigma, T, alphas, direction, c=mpf(1)):
    q = mpf(q.numerator) / q.denominator
    mu = 1 / (mpf(sigma.numerator) / sigma.denominator)
    kept = {}

    def mt(t):
        if t not in kept:
            kept[t] = mgf(q, mu, direction, mpc(c, t)) ** T
        return kept[t]

    def delta(e):
        return exp(-c * e) / pi * quad(lambda t: (mt(t) * exp(-mpc(0, t) * e) / (mpc(c, t) * mpc(c + 1, t))).real, PTS)

    def ddelta(e):
        return -exp(-c * e) / pi * quad(lambda t: (mt(t) * exp(-mpc(0, t) * e) / mpc(c + 1, t)).real, PTS)

    out = []
    for alpha in alphas:
        a = mpf(alpha.numerator) / alpha.denominator
        # log of the alternative's mass above e, minus log alpha: decreasing in e
        e = findroot(lambda e: log(-ddelta(e)) - e - log(a), (mpf(1), mpf(2)), solver="secant")
        out.append((e, 1 - delta(e) - exp(e) * a))
    return out


CASES = [
    (Fraction(1, 2), Fraction(2), 40, [Fraction(1, 100), Fraction(1, 10)]),
]

if __name__ == "__main__":
    print("# q sigma T alpha f_remove f_add f (the smaller) threshold_remove threshold_add")
    for q, sigma, T, alphas in CASES:
        r = tradeoff(q, sigma, T, alphas, "remove")
        a = tradeoff(q, sigma, T, alphas, "add")
        for al, (er, fr), (ea, fa) in zip(alphas, r, a):
            s = lambda x: nstr(x, 28, min_fixed=0, max_fixed=0)  # noqa: E731
            print(q, sigma, T, al, s(fr), s(fa), s(min(fr, fa)), nstr(er, 12), nstr(ea, 12))
            sys.stdout.flush()
