#!/usr/bin/env python3
"""Reference delta(e) of two releases of the exponential mechanism on a Poisson subsample (add/remove
neighbours), by mpmath at 40 digits, independently of tightdp: the pair of the epsilon-bounded-range class
[DDR20, sec. 4] (densities P, Q on (-eps, eps) as in poisson_bounded_range_mgf.py), subsampled as
B = Q, A = (1 - q) Q + q P, composed twice:

  remove: delta(e) = int int (A(x) A(y) - e^e B(x) B(y))_+ dx dy,
  add:    delta(e) = int int (B(x) B(y) - e^e A(x) A(y))_+ dx dy.

A/B = 1 - q + q e^x rises with x, so for each x the positive part is y above (remove) or below (add) one
point y*(x); the inner integral is a closed form (the densities are exponentials), the outer one mpmath's
quadrature with breakpoints where y*(x) leaves (-eps, eps). The printed delta is the larger direction's.
Run: python3 scripts/reference/poisson_bounded_range_two.py > scripts/reference/poisson_bounded_range_two.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, log, quad, nstr, expm1

mp.dps = 40


def frac(x):
    return mpf(x.numerator) / x.denominator


def delta_two(q, e0, e):
    c = expm1(e0)
    P = lambda x: exp((e0 + x) / 2) / (2 * c)
    Q = lambda x: exp((e0 - x) / 2) / (2 * c)
    A = lambda x: (1 - q) * Q(x) + q * P(x)
    # integrals of P and Q over (y0, y1)
    IP = lambda y0, y1: (exp((e0 + y1) / 2) - exp((e0 + y0) / 2)) / c
    IQ = lambda y0, y1: (exp((e0 - y0) / 2) - exp((e0 - y1) / 2)) / c
    IA = lambda y0, y1: (1 - q) * IQ(y0, y1) + q * IP(y0, y1)
    rho = lambda x: 1 - q + q * exp(x)

    def ystar(v):
        # the y with rho(y) = v, clipped to [-e0, e0]
        if v <= rho(-e0):
            return -e0
        if v >= rho(e0):
            return e0
        return log((v - (1 - q)) / q)

    def cut(v):
        # the x with rho(x) = v, if inside (-e0, e0)
        if rho(-e0) < v < rho(e0):
            return [log((v - (1 - q)) / q)]
        return []

    def rem(x):
        y = ystar(exp(e) / rho(x))
        return A(x) * IA(y, e0) - exp(e) * Q(x) * IQ(y, e0)

    def add(x):
        y = ystar(exp(-e) / rho(x))
        return Q(x) * IQ(-e0, y) - exp(e) * A(x) * IA(-e0, y)

    edges = lambda vs: sorted(set([-e0, e0] + [x for v in vs for x in cut(v)]))
    d_rem = quad(rem, edges([exp(e) / rho(e0), exp(e) / rho(-e0)]))
    d_add = quad(add, edges([exp(-e) / rho(e0), exp(-e) / rho(-e0)]))
    return d_rem, d_add


CASES = [
    (Fraction(1, 4), Fraction(1), Fraction(1, 2)),
    (Fraction(1, 10), Fraction(2), Fraction(1, 4)),
    (Fraction(1, 2), Fraction(1, 2), Fraction(1, 10)),
]

print("# q epsilon e delta_remove delta_add delta")
for q, e0, e in CASES:
    r, a = delta_two(frac(q), frac(e0), frac(e))
    print(q, e0, e, nstr(r, 32), nstr(a, 32), nstr(max(r, a), 32))
