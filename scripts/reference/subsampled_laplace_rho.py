#!/usr/bin/env python3
"""Reference tight zCDP parameters rho = sup_{alpha > 1} D_alpha/alpha of compositions of the Poisson-subsampled
Laplace mechanism (add/remove neighbours), for the search of src/account/renyi.rs, by mpmath at 40 digits from
the defining integrals -- no closed form of tightdp's, no moment generating function of its.

With P = Lap(0, b), P1 = Lap(1, b) (densities e^{-|x - m|/b}/(2b)) and A = (1 - q) P + q P1, the remove pair is
(A || P) and the add pair (P || A); D_alpha = ln(int p^alpha r^(1 - alpha) dx)/(alpha - 1), by tanh-sinh on the
pieces split at the kinks 0 and 1. n releases add: D = n D_1. Unlike the pure Laplace mechanism's, D_alpha/alpha
of the subsampled one rises above its limit at alpha -> 1 (the KL divergence) and falls again, so its supremum is
inside: a golden-section search on [1 + 1e-6, 64] in each direction brackets the order to 1e-14, where D_alpha/alpha
is flat to second order (the value moves by ~1e-28), and the larger direction's value is rho.
Run: python3 scripts/reference/subsampled_laplace_rho.py > scripts/reference/subsampled_laplace_rho.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, log, quad, inf, nstr, sqrt

mp.dps = 40


def lap(b, m):
    return lambda x: exp(-abs(x - m) / b) / (2 * b)


def divergence(q, b, alpha, direction):
    p0, p1 = lap(b, 0), lap(b, 1)
    a = lambda x: (1 - q) * p0(x) + q * p1(x)
    num, den = (a, p0) if direction == "remove" else (p0, a)
    s = quad(lambda x: num(x) ** alpha * den(x) ** (1 - alpha), [-inf, 0, 1, inf])
    return log(s) / (alpha - 1)


def sup_ratio(q, b, direction):
    f = lambda al: divergence(q, b, al, direction) / al
    lo, hi = mpf(1) + mpf(10) ** -6, mpf(64)
    g = (sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    while hi - lo > mpf(10) ** -14:
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = f(x2)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = f(x1)
    best = (x1, f1) if f1 > f2 else (x2, f2)
    return best


CASES = [
    # q, scale b, releases n
    (Fraction(1, 10), Fraction(1), 10),
    (Fraction(1, 5), Fraction(2), 1),
]

if __name__ == "__main__":
    print("# spec rho alpha* direction (mpmath, 40 digits, defining integrals, golden section over alpha)")
    for q, b, n in CASES:
        qq, bb = mpf(q.numerator) / q.denominator, mpf(b.numerator) / b.denominator
        rows = [(sup_ratio(qq, bb, d), d) for d in ("remove", "add")]
        (alpha, value), d = max(rows, key=lambda r: r[0][1])
        print(f"laplace:scale={b},q={q},n={n}", nstr(n * value, 30, min_fixed=0, max_fixed=0), nstr(alpha, 16), d, flush=True)
