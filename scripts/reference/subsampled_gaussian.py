#!/usr/bin/env python3
"""Reference privacy profiles of the Poisson-subsampled Gaussian mechanism (src/noise/subsample.rs and
src/pld tests), mpmath at 50 digits, from the densities and not from tightdp's loss laws:

  remove: A = (1-q) N(0, s2) + q N(mu, s2), B = N(0, s2);  add: A = N(0, s2), B = (1-q) N(0, s2) + q N(mu, s2)
  delta(eps) = integral over x of (A(x) - e^eps B(x))_+   (one mechanism),
  and for two compositions the same over (x1, x2) in two dimensions.
Run: python3 scripts/reference/subsampled_gaussian.py > scripts/reference/subsampled_gaussian.txt"""
from mpmath import mp, mpf, quad, exp, sqrt, pi, inf, findroot, log

mp.dps = 50

def dens(x, m, s2):
    return exp(-(x - m) ** 2 / (2 * s2)) / sqrt(2 * pi * s2)

def pair(q, s2, mu, direction):
    q, s2, mu = mpf(q), mpf(s2), mpf(mu)
    mix = lambda x: (1 - q) * dens(x, 0, s2) + q * dens(x, mu, s2)
    base = lambda x: dens(x, 0, s2)
    return (mix, base) if direction == "remove" else (base, mix)

def delta1(q, s2, mu, eps, direction):
    A, B = pair(q, s2, mu, direction)
    eps = mpf(eps)
    # A(x) > e^eps B(x) on one side of a single crossing point (the ratio is monotone in x)
    r = lambda x: A(x) - exp(eps) * B(x)
    s = sqrt(mpf(s2))
    q, mu = mpf(q), mpf(mu)
    # the crossing x*: the loss ln(A/B) is increasing in x (remove) or decreasing (add); r > 0 beyond x*
    # on the increasing side. Solve ln(1 - q + q e^{(2 mu x - mu^2)/(2 s2)}) = +-eps in closed form.
    sign = 1 if direction == "remove" else -1
    inner = (exp(sign * eps) - 1 + q) / q
    if inner <= 0:
        # no crossing: r has one sign everywhere
        whole = quad(r, [-inf, -10 * s, 0, mu, mu + 10 * s, inf])
        return max(whole, 0)
    x0 = (2 * mpf(s2) * log(inner) + mu * mu) / (2 * mu)
    if direction == "remove":
        return quad(r, [x0, x0 + s, x0 + 10 * s, x0 + 60 * s, inf])
    return quad(r, [-inf, x0 - 60 * s, x0 - 10 * s, x0 - s, x0])

print("# one mechanism: q sigma2 mu direction eps delta")
for q, s2, mu, d, e in [("0.01", "1", "1", "remove", "0.01"), ("0.01", "1", "1", "add", "0.01"),
                        ("0.2", "0.5", "1", "remove", "0.5"), ("0.2", "0.5", "1", "add", "0.5"),
                        ("0.2", "0.5", "1", "remove", "-0.1")]:
    print("one", q, s2, mu, d, e, mp.nstr(delta1(q, s2, mu, e, d), 40))

def delta2(q, s2, mu, eps, direction):
    # two compositions: delta_2(eps) = E_{x1 ~ A}[delta_1(eps - L(x1))] (tower property of
    # E_{A x A}[(1 - e^{eps - L1 - L2})_+]); the outer integrand is smooth but for one kink
    A, B = pair(q, s2, mu, direction)
    L = lambda x: log(A(x) / B(x))
    s = sqrt(mpf(s2))
    f = lambda x: A(x) * delta1(q, s2, mu, mpf(eps) - L(x), direction)
    m = mpf(mu)
    pts = [-8 * s, -2 * s, mpf(0), m, m + 2 * s, m + 8 * s]
    # delta_1 switches its branch (no crossing) where its argument is ln(1 - q) (remove) or -ln(1 - q) (add):
    # the outer integrand has a kink at the x where eps - L(x) is that value; the rule is split there (unsplit,
    # two removes at eps = 0.5 came out 0.0751423683 where the split value is 0.0751423704)
    qq, sign = mpf(q), (1 if direction == "remove" else -1)
    inner = (exp(sign * (mpf(eps) - sign * log(1 - qq))) - 1 + qq) / qq
    if inner > 0:
        pts.append((2 * mpf(s2) * log(inner) + m * m) / (2 * m))
    return quad(f, [-inf] + sorted(set(pts)) + [inf])

mp.dps = 25
print("# two mechanisms: q sigma2 mu direction eps delta")
for q, s2, mu, d, e in [("0.2", "0.5", "1", "remove", "0.5"), ("0.2", "0.5", "1", "add", "0.3"), ("0.2", "0.5", "1", "add", "0.5")]:
    print("two", q, s2, mu, d, e, mp.nstr(delta2(q, s2, mu, e, d), 20))
