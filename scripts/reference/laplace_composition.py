#!/usr/bin/env python3
"""Reference privacy profiles of the (continuous) Laplace mechanism (src/noise/laplace.rs and the pld grid
tests), mpmath at 40 digits, from the Laplace densities and not from tightdp's loss law.

One release, A = Lap(0, b), B = Lap(mu, b): delta_1(t) = integral of (A(x) - e^t B(x))_+ dx over the real
line, computed by quadrature of the densities (split at 0, mu and the crossing point).
Two releases, by the tower property: delta_2(eps) = E_{x ~ A}[delta_1(eps - L(x))], L(x) = ln A(x)/B(x),
one more quadrature over x (split at 0 and mu, where L has its kinks, and where delta_1's argument crosses
+-mu/b, where it has its own).
Run: python3 scripts/reference/laplace_composition.py > scripts/reference/laplace_composition.txt"""
from mpmath import mp, mpf, quad, exp, log, inf, fabs

mp.dps = 40


def dens(x, m, b):
    return exp(-fabs(x - m) / b) / (2 * b)


def delta1(b, mu, t):
    b, mu, t = mpf(b), mpf(mu), mpf(t)
    r = lambda x: max(dens(x, 0, b) - exp(t) * dens(x, mu, b), 0)
    # A/B is e^{mu/b} on x <= 0, decreasing on (0, mu), e^{-mu/b} beyond: one crossing at most
    e0 = mu / b
    pts = [-inf, 0, mu, inf]
    if -e0 < t < e0:
        pts = [-inf, 0, (mu - b * t) / 2, mu, inf]
    return quad(r, pts)


def delta2(b, mu, eps):
    b, mu, eps = mpf(b), mpf(mu), mpf(eps)
    L = lambda x: (fabs(x - mu) - fabs(x)) / b
    f = lambda x: dens(x, 0, b) * delta1(b, mu, eps - L(x))
    # delta_1(t) has kinks at t = +-mu/b: split where eps - L(x) = +-mu/b, i.e. x = (mu - b (eps -+ mu/b))/2
    e0 = mu / b
    kinks = [(mu - b * (eps - s * e0)) / 2 for s in (1, -1)]
    pts = sorted(set([-10 * b, mpf(0), mu / 2, mu, mu + 10 * b] + [k for k in kinks if 0 < k < mu]))
    return quad(f, [-inf] + pts + [inf])


print("# one release: b mu eps delta")
for b, mu, e in [("2", "1", "0.1"), ("2", "1", "0"), ("1/2", "1", "1.5")]:
    bb = mpf(b.split("/")[0]) / mpf(b.split("/")[1]) if "/" in b else b
    print("one", b, mu, e, mp.nstr(delta1(bb, mu, e), 30))
mp.dps = 25
print("# two releases: b mu eps delta")
for b, mu, e in [("2", "1", "0.3"), ("2", "1", "0.7"), ("1", "1", "0.5")]:
    print("two", b, mu, e, mp.nstr(delta2(b, mu, e), 20))
