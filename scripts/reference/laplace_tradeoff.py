#!/usr/bin/env python3
"""Reference trade-off functions f(alpha) of n = 1 and 2 releases of the Laplace mechanism, for
`account/engines/laplace_sum.rs` (its `tradeoff`), by mpmath at 40 digits, from the Laplace densities in the
data space and not from tightdp's loss law.

A = Lap(0, b), B = Lap(mu, b) per release, the loss of one release l(x) = ln A(x)/B(x) = (|x - mu| - |x|)/b,
non-increasing in x: mu/b on x <= 0, (mu - 2x)/b on (0, mu), -mu/b on x >= mu. So P[l(X) >= s] is P[X <= 0]
at s = mu/b, P[X <= (mu - b s)/2] for -mu/b < s < mu/b, 1 at or below -mu/b, 0 above mu/b, with X's own
Laplace distribution function; and for two releases P[l(X1) + l(X2) >= t] = E[P[l(X2) >= t - l(X1)]], one
quadrature over x1 (split at 0, mu and where the inner argument crosses +-mu/b).

f(alpha) = sup_eps [1 - delta(eps) - e^eps alpha] [DRS22, Prop 2.12] is attained at the Neyman-Pearson
threshold tau = sup{t : B[L >= t] >= alpha} (B[L >= t] non-increasing), where
f = A[L < tau] + e^tau (B[L >= tau] - alpha) (at an atom of L the test randomises; off the atoms the second
term is 0). tau by bisection to 120 bits; an atom (the knots k mu/b) within 1e-30 is taken exactly.
Rows: n b alpha f(alpha) where("atom" or "continuous").
Run: python3 scripts/reference/laplace_tradeoff.py > scripts/reference/laplace_tradeoff.txt"""
from mpmath import mp, mpf, quad, exp, inf, nstr

mp.dps = 40


def cdf(x, m, b):
    """P[X <= x], X ~ Lap(m, b)."""
    z = (x - m) / b
    return exp(z) / 2 if z < 0 else 1 - exp(-z) / 2


def loss(x, mu, b):
    return (abs(x - mu) - abs(x)) / b


def tail1(s, m, mu, b, strict):
    """P[l(X) >= s] (or > s when strict), X ~ Lap(m, b)."""
    a = mu / b
    if s > a or (strict and s == a):
        return mpf(0)
    if s == a:
        return cdf(mpf(0), m, b)
    if s < -a or (not strict and s == -a):
        return mpf(1)
    if s == -a:  # strict: everything but the atom at -a (x >= mu)
        return cdf(mu, m, b)
    return cdf((mu - b * s) / 2, m, b)


def tail(n, t, m, mu, b, strict=False):
    """P[L >= t] (> t when strict) of n = 1 or 2 releases under Lap(m, b)."""
    if n == 1:
        return tail1(t, m, mu, b, strict)
    dens = lambda x: exp(-abs(x - m) / b) / (2 * b)
    a = mu / b
    pts = [mpf(0), mu]
    for s in (t - a, t + a):  # l(x1) = s: the inner argument t - l(x1) meets -+a
        if -a < s < a:
            pts.append((mu - b * s) / 2)
    pts = sorted(set(pts))
    f = lambda x: dens(x) * tail1(t - loss(x, mu, b), m, mu, b, strict)
    # the atoms of l(x1) (x1 <= 0 and x1 >= mu) carry no inner kink: quad over the pieces
    return quad(f, [-inf] + pts + [inf])


def tradeoff(n, b, alpha):
    b, mu, alpha = mpf(b), mpf(1), mpf(alpha)
    a = mu / b
    lo, hi = -n * a - 1, n * a + 1  # B[L >= lo] = 1 >= alpha, B[L >= hi] = 0 < alpha
    for _ in range(130):
        mid = (lo + hi) / 2
        if tail(n, mid, mu, mu, b) >= alpha:
            lo = mid
        else:
            hi = mid
    tau, where = lo, "continuous"
    for k in range(-n, n + 1):
        if abs(tau - k * a) < mpf(10) ** -30:
            tau, where = k * a, "atom"
    a_below = 1 - tail(n, tau, 0, mu, b)
    f = a_below + exp(tau) * (tail(n, tau, mu, mu, b) - alpha)
    return f, where


if __name__ == "__main__":
    print("# n b alpha f(alpha) where  (Laplace, sensitivity 1; A = Lap(0, b), B = Lap(1, b); mpmath 40 digits)")
    for n, b in ((1, "1"), (2, "1"), (2, "2")):
        for alpha in ("0.01", "0.1", "0.2", "0.3", "0.5", "0.9"):
            f, where = tradeoff(n, b, alpha)
            print(n, b, alpha, nstr(f, 32), where)
