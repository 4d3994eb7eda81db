#!/usr/bin/env python3
"""epsilon(delta) of n reports of randomized response (binary, and one row of 3-ary; replace neighbours, parameter eps0), by direct
summation in mpmath: a report is true with probability p = e^eps0/(1 + e^eps0); k true reports of n give the
loss (2k - n) eps0 with A-mass C(n, k) p^k (1 - p)^(n - k), and
    delta(eps) = sum over losses l > eps of mass * (1 - exp(eps - l)),
decreasing in eps; epsilon(delta) by bisection on eps to 1e-45 relative (mp.dps = 60).
(the losses at or below 0 add nothing to delta at eps >= 0.)
Run (Python with mpmath): python3 scripts/reference/randomized_response_epsilon.py > scripts/reference/randomized_response_epsilon.txt
"""
from mpmath import mp, mpf, binomial, exp

mp.dps = 60


def atoms(n, e0):
    """(loss, A-mass) of every k with a positive loss: C(n, k) p^k (1 - p)^(n - k) at (2k - n) eps0."""
    p = exp(e0) / (1 + exp(e0))
    return [((2 * k - n) * e0, binomial(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n // 2, n + 1)]


def delta(terms, eps):
    s = mpf(0)
    for l, m in terms:
        if l > eps:
            s += m * (1 - exp(eps - l))
    return s


def solve(terms, top, d):
    """The least eps in [0, top] with delta(terms, eps) <= d, by bisection to 1e-45 relative."""
    lo, hi = mpf(0), top
    for _ in range(400):
        mid = (lo + hi) / 2
        if delta(terms, mid) > d:
            lo = mid
        else:
            hi = mid
        if hi - lo < hi * mpf(10) ** -45:
            break
    return hi


def kary_atoms(n, e0, k):
    """k-ary reports: j own values and i neighbour's among n (the rest among the k - 2 others, loss 0) give the
    loss (j - i) eps0 with A-mass n!/(j! i! (n-j-i)!) a^j b^i c^(n-j-i), a = e^eps0/Z, b = 1/Z, c = (k - 2)/Z,
    Z = e^eps0 + k - 1; aggregated by loss, the positive ones."""
    z = exp(e0) + k - 1
    a, b, c = exp(e0) / z, 1 / z, mpf(k - 2) / z
    out = {}
    for j in range(n + 1):
        for i in range(0, min(j, n - j + 1)):
            out[j - i] = out.get(j - i, mpf(0)) + binomial(n, j) * binomial(n - j, i) * a**j * b**i * c ** (n - j - i)
    return [(d * e0, m) for d, m in out.items()]


print("# n eps0 delta epsilon [k]  (randomized response, binary unless k is given, replace neighbours; mpmath direct")
print("# sum, 40 digits)")
for n, e0, d in [(50, 1, "1e-5"), (1000, 1, "1e-5"), (7, "0.5", "1e-3"), (10000, 1, "1e-5"), (100000, "0.1", "1e-6")]:
    print(n, e0, d, mp.nstr(solve(atoms(n, mpf(e0)), n * mpf(e0), mpf(d)), 40))

for n, e0, k, d in [(2000, "1/2", 3, "1e-6")]:
    print(n, e0, d, mp.nstr(solve(kary_atoms(n, mpf(1) / 2, k), n * mpf(1) / 2, mpf(d)), 40), k)
