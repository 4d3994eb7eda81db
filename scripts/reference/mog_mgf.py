#!/usr/bin/env python3
"""Reference values of the moment generating function of the mixture-of-Gaussians mechanism's privacy loss
on vertical lines, M(c + it) (src/noise/mgf.rs, `Mgf::Mixture`), by mpmath's adaptive tanh-sinh quadrature at
40 digits, independently of tightdp: with phi the standard normal density, the mixture
N(0, sigma^2) against sum_i p_i N(c_i, sigma^2) (the rest p0 at 0) in standard units mu_i = c_i/sigma,
r(x) = p0 + sum_i p_i exp(mu_i x - mu_i^2/2),

  Remove: M(s) = int phi(x) r(x)^(1 + s) dx,    Add: M(s) = int phi(x) r(x)^(-s) dx;

and the Renyi divergence of one release's remove pair at an integer order a, D_a = ln E[r^a]/(a - 1), by the
multinomial expansion of r^a (E[exp(k X)] = exp(k^2/2)), exact up to mpmath's 40 digits.
Run: python3 scripts/reference/mog_mgf.py > scripts/reference/mog_mgf.txt"""
from fractions import Fraction
from itertools import product
from math import factorial

from mpmath import mp, mpf, mpc, exp, log, sqrt, pi, quad, nstr

mp.dps = 40

# (name, sigma, [(c, p)]): the two mixtures of mog.py
MIXTURES = {
    "a": (Fraction(1), [(Fraction(1), Fraction(18, 100)), (Fraction(2), Fraction(1, 100))]),
    "b": (Fraction(3, 2), [(Fraction(1, 2), Fraction(1, 4)), (Fraction(1), Fraction(1, 4))]),
}


def m(x):
    return mpf(x.numerator) / x.denominator


def r_of(sigma, parts):
    p0 = 1 - sum(m(p) for _, p in parts)
    comps = [(m(p), m(c) / m(sigma)) for c, p in parts]
    return lambda x: p0 + sum(p * exp(mu * x - mu * mu / 2) for p, mu in comps), max(mu for _, mu in comps)


def mgf(name, direction, c, t):
    sigma, parts = MIXTURES[name]
    r, mu = r_of(sigma, parts)
    s = mpc(c, t)
    kappa = 1 + s if direction == "remove" else -s

    def f(x):
        return exp(-x * x / 2) / sqrt(2 * pi) * exp(kappa * log(r(x)))

    pts = [-40, -20, -10, -5, -2, 0, 2, 5, 10, 20, 40 + 3 * abs(kappa.real) * mu]
    return quad(f, pts, error=True, maxdegree=10)


def renyi_remove(name, a):
    """ln E[r(X)^a]/(a - 1) by the multinomial expansion over (p0, p_1, ...)."""
    sigma, parts = MIXTURES[name]
    p0 = 1 - sum(p for _, p in parts)
    weights = [p0] + [p for _, p in parts]
    mus = [mpf(0)] + [m(c) / m(sigma) for c, _ in parts]
    total = mpf(0)
    for ks in product(range(a + 1), repeat=len(weights)):
        if sum(ks) != a:
            continue
        coef = factorial(a)
        for k in ks:
            coef //= factorial(k)
        w = mpf(coef)
        for k, p in zip(ks, weights):
            w *= m(p) ** k
        k_mu = sum(k * mu for k, mu in zip(ks, mus))
        w *= exp(-sum(k * mu * mu / 2 for k, mu in zip(ks, mus)) + k_mu * k_mu / 2)
        total += w
    return log(total) / (a - 1)


CASES = [("a", "remove", Fraction(3, 2), 0), ("a", "remove", Fraction(3, 2), 3), ("a", "add", Fraction(3, 2), 3),
         ("a", "remove", Fraction(1, 2), 20), ("a", "add", Fraction(1, 2), 20), ("b", "remove", Fraction(7, 10), 5),
         ("b", "add", Fraction(7, 10), 5), ("b", "add", Fraction(2), 0)]

print("# mgf <mixture> <direction> <c> <t> <re> <im> <quad_error>")
for name, d, c, t in CASES:
    v, err = mgf(name, d, m(c), t)
    print("mgf", name, d, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
print("# renyi <mixture> <alpha> <D_alpha of one release's remove pair>")
for name in MIXTURES:
    for a in [2, 5]:
        print("renyi", name, a, nstr(renyi_remove(name, a), 32, min_fixed=0, max_fixed=0))
