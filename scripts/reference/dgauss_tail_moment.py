#!/usr/bin/env python3
"""Reference values of E[X 1{X >= m}] for the discrete Gaussian N_Z(0, s2) (src/noise/dgauss.rs, test
tail_first_moment_matches_mpmath), by mpmath at 40 digits, independently of tightdp: direct summation of the
pmf proportional to exp(-x^2/(2 s2)) over |x| <= 2000.
Run: python3 scripts/reference/dgauss_tail_moment.py > scripts/reference/dgauss_tail_moment.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, nstr

mp.dps = 40
CASES = [("625", 94), ("625", 0), ("625", 1), ("625", -5), ("0.5", 1), ("0.5", -3)]

print("# sigma2 m E[X 1{X >= m}]")
for s2_text, m in CASES:
    s2 = Fraction(s2_text)
    s2 = mpf(s2.numerator) / s2.denominator
    w = {x: exp(-mpf(x) ** 2 / (2 * s2)) for x in range(-2000, 2001)}
    z = sum(w.values())
    print(s2_text, m, nstr(sum(x * w[x] for x in range(m, 2001)) / z, 20))
