#!/usr/bin/env python3
"""Randomized response composed with Gaussian releases, in mpmath (60 digits), for the tilted Fourier engine's
tests (src/account/engines/tilted_tests.rs, src/noise/mgf_tests.rs):

* "mgf" rows: M(c + it) = E_A[e^{(c+it)L}] of one k-ary report, from its definition: the own value with
  probability e^eps/Z (or the keep probability p), each other value with 1/Z (or (1 - p)/(k - 1)); the loss
  is +l1 on the own value, -l1 on the neighbour's, 0 on the k - 2 others (l1 = eps, or ln(p(k - 1)/(1 - p))).
* "eps" rows: epsilon(delta) of n reports composed with Gaussian releases whose composed loss is N(eta, 2 eta)
  (replace neighbours: rho = eta), by the hockey-stick divergence of independent parts,
      delta(e) = sum over the n-report atoms l of A[L_rr = l] * delta_G(e - l),
      delta_G(x) = Phi(-x/mu + mu/2) - e^x Phi(-x/mu - mu/2),  mu = sqrt(2 eta)   (any real x),
  the n-report atoms a multinomial sum over the counts of own and neighbour's reports; bisection to 45 digits.

Run (Python with mpmath): python3 scripts/reference/randomized_response_mixed.py > scripts/reference/randomized_response_mixed.txt
"""
from mpmath import mp, mpf, mpc, exp, log, sqrt, ncdf, binomial, fsum

mp.dps = 60


def report(param, value, k):
    """(l1, mass at +l1, mass at 0, mass at -l1) of one report."""
    k = mpf(k)
    if param == "epsilon":
        e = exp(mpf(value))
        z = e + k - 1
        own, other = e / z, 1 / z
    else:
        p = mpf(value)
        own, other = p, (1 - p) / (k - 1)
    return log(own / other), own, (k - 2) * other, other


def mgf(param, value, k, c, t):
    l1, a1, a0, am = report(param, value, k)
    s = mpc(c, t)
    return a1 * exp(s * l1) + a0 + am * exp(-s * l1)


def atoms(param, value, k, n):
    """(loss, mass) of n reports: j own reports and i neighbour's among n, the rest 0."""
    l1, a1, a0, am = report(param, value, k)
    out = {}
    for j in range(n + 1):
        for i in range(n - j + 1):
            if a0 == 0 and i + j != n:
                continue
            m = binomial(n, j) * binomial(n - j, i) * a1**j * am**i * a0 ** (n - j - i)
            out[j - i] = out.get(j - i, mpf(0)) + m
    return [(d * l1, m) for d, m in out.items()]


def delta(terms, eta, e):
    mu = sqrt(2 * eta)
    dg = lambda x: ncdf(-x / mu + mu / 2) - exp(x) * ncdf(-x / mu - mu / 2)
    return fsum(m * dg(e - l) for l, m in terms)


def epsilon(terms, eta, d):
    lo, hi = mpf(0), mpf(10)
    while delta(terms, eta, hi) > d:
        hi *= 2
    while hi - lo > hi * mpf(10) ** -45:
        mid = (lo + hi) / 2
        if delta(terms, eta, mid) > d:
            lo = mid
        else:
            hi = mid
    return hi


print("# mgf param value k c t re im   (M(c + it) of one report, 40 digits)")
for param, value, k in [("epsilon", "1", 2), ("epsilon", "1/2", 3), ("keep", "3/4", 2), ("keep", "1/2", 5)]:
    v = mpf(value.split("/")[0]) / mpf(value.split("/")[1]) if "/" in value else mpf(value)
    for c, t in [("2", "0"), ("1/4", "3"), ("3/2", "40")]:
        cc = mpf(c.split("/")[0]) / mpf(c.split("/")[1]) if "/" in c else mpf(c)
        z = mgf(param, v, k, cc, mpf(t))
        print("mgf", param, value, k, c, t, mp.nstr(z.real, 40), mp.nstr(z.imag, 40))
print("# eps param value k n gaussian eta delta epsilon   (n reports with the Gaussian releases `gaussian` (tightdp's")
print("# spec; sensitivity 2 under replace) of composed rho = eta, 40 digits)")
for param, value, k, n, gauss, eta, d in [("epsilon", "1", 2, 1000, "gauss:sigma=2,n=10", 5, "1e-5"),
                                          ("keep", "3/4", 2, 1000, "gauss:sigma=2,n=10", 5, "1e-5"),
                                          ("epsilon", "1/2", 3, 40, "gauss:sigma=2", "1/2", "1e-6")]:
    v = mpf(value.split("/")[0]) / mpf(value.split("/")[1]) if "/" in value else mpf(value)
    et = mpf(eta.split("/")[0]) / mpf(eta.split("/")[1]) if isinstance(eta, str) else mpf(eta)
    print("eps", param, value, k, n, gauss, eta, d, mp.nstr(epsilon(atoms(param, v, k, n), et, mpf(d)), 40))
