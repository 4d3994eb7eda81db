#!/usr/bin/env python3
"""Reference delta(e) and epsilon(delta) of T stated (epsilon, delta)-DP guarantees, each run on a batch of m
of pop records drawn without replacement (replace neighbours), by mpmath at 50 digits, independently of
tightdp.

The guarantee of such runs is the tensor power C_g(f)^T of the subsampled trade-off function, g = m/pop
[DRS22, Thm 9 and Thm 4], with f = f_{e,d}(a) = max(0, 1 - d - e^e a, e^-e (1 - d - a)) and
C_g(f) = min{f_g, f_g^-1}**, f_g = g f + (1 - g) Id. Worked out by hand from these definitions: f_g falls
from 1 - g d at a = 0 with slope -e^e', e' = ln(1 - g + g e^e), to the kink a1 = (1 - d)/(1 + e^e), and is
flatter than -1 after it; so C_g(f) is f_g up to a1, a segment of slope -1 to the mirror point
(f_g(a1), a1), then the mirror of the first piece down to (1 - g d, 0), then 0. A piecewise-linear
trade-off function is the pair whose outcomes are its segments (A-mass the segment's drop, B-mass its
width, loss ln of minus its slope):
  +inf: (g d, 0);  e': (e^e' a1, a1);  0: (m0, m0), m0 = f_g(a1) - a1;  -e': (a1, e^e' a1);  -inf: (0, g d).
(Not f_{e', g d}: the slope -1 segment cuts its corner, so C_g(f_{e,d}) lies above it and the
optimal composition of (e', g d)-DP guarantees [KOV15] is only an upper bound of these numbers.)
T runs: the finite outcomes' masses raised to the T-th power as a polynomial in z (loss j e' for z^j),
delta(x) = 1 - (1 - g d)^T + sum_j A_j (1 - e^{x - j e'})_+; epsilon(delta) by bisection.
Run: python3 scripts/reference/wor_approx_dp.py > scripts/reference/wor_approx_dp.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, log, nstr

mp.dps = 50


def frac(x):
    return mpf(x.numerator) / x.denominator


def law(e0, d0, g):
    e, d, g = exp(frac(e0)), frac(d0), frac(g)
    ep = log(1 - g + g * e)
    a1 = (1 - d) / (1 + e)
    fg = 1 - g * d - exp(ep) * a1
    m0 = fg - a1
    return ep, g * d, [a1, m0, exp(ep) * a1]  # A-masses of -e', 0, +e'


def composed(e0, d0, g, T):
    ep, inf, (lo, mid, hi) = law(e0, d0, g)
    poly = [mpf(1)]
    for _ in range(T):
        nxt = [mpf(0)] * (len(poly) + 2)
        for i, c in enumerate(poly):
            nxt[i] += c * lo
            nxt[i + 1] += c * mid
            nxt[i + 2] += c * hi
        poly = nxt
    # z^i has loss (i - T) e'
    return ep, 1 - (1 - inf) ** T, poly


def delta(c, T, x):
    ep, inf, poly = c
    return inf + sum((a * (1 - exp(x - (i - T) * ep)) for i, a in enumerate(poly) if (i - T) * ep > x), mpf(0))


def epsilon(c, T, target):
    lo, hi = mpf(0), mpf(200)
    if delta(c, T, lo) <= target:
        return lo
    for _ in range(150):
        mid = (lo + hi) / 2
        if delta(c, T, mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# (epsilon, delta, m, pop, T, query, argument)
CASES = [
    (Fraction(1), Fraction(0), 100, 1000, 10, "epsilon", Fraction(1, 10**5)),
    (Fraction(1), Fraction(0), 100, 1000, 1000, "epsilon", Fraction(1, 10**5)),
    (Fraction(1, 2), Fraction(1, 10**6), 256, 60000, 300, "epsilon", Fraction(1, 10**5)),
    (Fraction(2), Fraction(1, 10**7), 1, 10, 50, "delta", Fraction(3)),
]

if __name__ == "__main__":
    print("# query argument value(mpmath, 50 digits; 35 printed) spec(the tightdp --mech argument, --neighbors replace)")
    for e0, d0, m, pop, T, query, arg in CASES:
        g = Fraction(m, pop)
        c = composed(e0, d0, g, T)
        v = epsilon(c, T, frac(arg)) if query == "epsilon" else delta(c, T, frac(arg))
        print(f"{query} {arg} {nstr(v, 35)} dp:epsilon={e0},delta={d0},sampling=wor,m={m},pop={pop},n={T}")
