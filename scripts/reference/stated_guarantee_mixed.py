#!/usr/bin/env python3
"""Stated (eps0, delta0)-DP guarantees composed with Gaussian releases (add/remove neighbours), in mpmath (60 digits),
for the tilted Fourier engine's test (src/account/engines/tilted_tests.rs). A stated guarantee is its dominating
pair [KOV15]: under A the loss is +inf with mass delta0, +eps0 with (1 - delta0) e^eps0/(1 + e^eps0) and -eps0 with
(1 - delta0)/(1 + e^eps0). n of them are enumerated by their counts (i infinite, j at +eps0, the rest at -eps0),
and with Gaussian releases whose composed loss is N(eta, 2 eta),
    delta(e) = sum over the counts of mass * (1 if i > 0 else delta_G(e - (2j - (n - i)) eps0)),
    delta_G(x) = Phi(-x/mu + mu/2) - e^x Phi(-x/mu - mu/2),  mu = sqrt(2 eta)   (any real x),
the hockey-stick divergence E_A[(1 - e^(e - L))_+] summed over the outputs; epsilon(delta) by bisection to 45 digits.

Run (Python with mpmath): python3 scripts/reference/stated_guarantee_mixed.py > scripts/reference/stated_guarantee_mixed.txt
"""
from mpmath import mp, mpf, exp, sqrt, ncdf, binomial, fsum

mp.dps = 60


def terms(eps0, d0, n):
    """(loss or None for +inf, A-mass) over the counts."""
    big = (1 - d0) * exp(eps0) / (1 + exp(eps0))
    small = (1 - d0) / (1 + exp(eps0))
    out = []
    for i in range(n + 1):
        for j in range(n - i + 1):
            m = n - i - j
            mass = binomial(n, i) * binomial(n - i, j) * d0**i * big**j * small**m
            out.append((None if i > 0 else (j - m) * eps0, mass))
    return out


def delta(ts, eta, e):
    mu = sqrt(2 * eta)
    dg = lambda x: ncdf(-x / mu + mu / 2) - exp(x) * ncdf(-x / mu - mu / 2)
    return fsum(m * (1 if l is None else dg(e - l)) for l, m in ts)


def epsilon(ts, eta, d):
    lo, hi = mpf(0), mpf(10)
    while delta(ts, eta, hi) > d:
        hi *= 2
    while hi - lo > hi * mpf(10) ** -45:
        mid = (lo + hi) / 2
        if delta(ts, eta, mid) > d:
            lo = mid
        else:
            hi = mid
    return hi


def frac(s):
    a, _, b = s.partition("/")
    return mpf(a) / mpf(b or 1)


print("# query eps0 delta0 n gaussian eta at value   (n stated guarantees with the Gaussian releases `gaussian`")
print("# (tightdp's spec, add/remove, composed rho = eta): epsilon at delta = `at`, or delta at epsilon = `at`; 40 digits)")
for eps0, d0, n, gauss, eta in [("1", "1/1000", 10, "gauss:sigma=2,n=10", "5/4"), ("1/2", "1/100000", 20, "gauss:sigma=1,n=4", "2")]:
    ts = terms(frac(eps0), frac(d0), n)
    for at in ("1/20", "1/10"):
        print("epsilon", eps0, d0, n, gauss, eta, at, mp.nstr(epsilon(ts, frac(eta), frac(at)), 40))
    for at in ("1", "5"):
        print("delta", eps0, d0, n, gauss, eta, at, mp.nstr(delta(ts, frac(eta), frac(at)), 40))
