#!/usr/bin/env python3
"""Reference values of the SafeTab-P suppression analysis [HBC25, §5.3.2] (src/tabulation/suppression.rs,
test figures_1_2_match_mpmath), by mpmath at 50 digits, independently of tightdp: the discrete Gaussian
N_Z(0, s2), s2 = s/(2(1 - gamma) rho) with s = 9, gamma = 0.1, summed directly over |x| <= 40 sigma + 50;
T = the first t with P[X <= t] >= 0.9999 (eq. 12); for a true count n:
  P[suppressed] = P[X <= T - n];  bias = E[X 1{X >= m}] / P[X >= m], m = T - n + 1;
  eq. 13 = sigma phi(z) / (1 - Phi(z)), z = (T - n)/sigma, with the standard normal's phi and Phi.
Run: python3 scripts/reference/suppression_figures.py > scripts/reference/suppression_figures.txt"""
from fractions import Fraction

from mpmath import mp, mpf, exp, sqrt, npdf, ncdf, nstr

mp.dps = 50
ROWS = {"0.008": [0, 47, 93, 100, 186], "0.159": [0, 10, 21, 30, 42], "0.543": [0, 5, 11, 15, 22]}

print("# rho T n P[suppressed] bias_exact eq13")
for rho_text, ns in ROWS.items():
    rho = Fraction(rho_text)
    s2 = Fraction(9) / (2 * (1 - Fraction(1, 10)) * rho)
    sigma2 = mpf(s2.numerator) / s2.denominator
    sigma = sqrt(sigma2)
    lim = int(40 * sigma) + 50
    w = {x: exp(-mpf(x) ** 2 / (2 * sigma2)) for x in range(-lim, lim + 1)}
    z = sum(w.values())
    cdf, t = mpf(0), None
    for x in range(-lim, lim + 1):
        cdf += w[x] / z
        if cdf >= mpf("0.9999"):
            t = x
            break
    for n in ns:
        p_supp = sum(w[x] for x in range(-lim, t - n + 1)) / z
        m = t - n + 1
        tail = sum(w[x] for x in range(m, lim + 1))
        first = sum(x * w[x] for x in range(m, lim + 1))
        zz = (t - n) / sigma
        eq13 = sigma * npdf(zz) / (1 - ncdf(zz))
        print(rho_text, t, n, nstr(p_supp, 15), nstr(first / tail, 15), nstr(eq13, 15))
