#!/usr/bin/env python3
"""Reference values of the Kifer-Rogers figures' data (src/risk/figures.rs, tests kr_figure8_variance_matches_mpmath
and kr_figure9_pmfs_match_mpmath), by mpmath, independently of tightdp:
  Figure 8 (150 digits): the variance of the discrete Gaussian with scale s, var(s) = sum x^2 e^(-x^2/(2s)) /
  sum e^(-x^2/(2s)) over |x| <= 4000, and s - var(s);
  Figure 9 (60 digits): the pmf of the sum of n i.i.d. discrete Gaussians, pmf proportional to e^(-rho x^2) on
  |x| <= sqrt(60/rho) + 2, by n-fold convolution, beside the pmf proportional to e^(-rho x^2/n), at k.
Run: python3 scripts/reference/kr_figures.py > scripts/reference/kr_figures.txt"""
from mpmath import mp, mpf, exp, sqrt, nstr, floor


def variance(s):
    w = [(x, exp(-mpf(x) ** 2 / (2 * s))) for x in range(-4000, 4001)]
    z = sum(v for _, v in w)
    return sum(x * x * v for x, v in w) / z


def dg(rho, lim):
    w = {x: exp(-rho * mpf(x) ** 2) for x in range(-lim, lim + 1)}
    z = sum(w.values())
    return {x: v / z for x, v in w.items()}


def convolve(a, b):
    out = {}
    for x, u in a.items():
        for y, v in b.items():
            out[x + y] = out.get(x + y, 0) + u * v
    return out


print("# figure 8: s var(s) s - var(s)")
mp.dps = 150
for s in ["0.1", "1", "10"]:
    v = variance(mpf(s))
    print(s, nstr(v, 25), nstr(mpf(s) - v, 25))

print("# figure 9: rho n k pmf_sum pmf_approx")
mp.dps = 60
for rho_text, n, ks in [("1", 5, [0, 3]), ("0.099", 27, [0, 20])]:
    rho = mpf(rho_text)
    one = dg(rho, int(floor(sqrt(60 / rho))) + 2)
    total = one
    for _ in range(n - 1):
        total = convolve(total, one)
    approx = dg(rho / n, 4000)
    for k in ks:
        print(rho_text, n, k, nstr(total[k], 20), nstr(approx[k], 20))
