#!/usr/bin/env python3
"""Reference delta(e), epsilon(delta) and f(alpha) of stated (epsilon, delta)-DP guarantees on a Poisson
subsample, composed n times, by mpmath at 50 digits, independently of tightdp.

Each guarantee is its four-outcome worst-case pair [KOV15, Thm 3.3]:
  P = (d, (1-d) e^e/(1+e^e), (1-d)/(1+e^e), 0),   Q = (0, (1-d)/(1+e^e), (1-d) e^e/(1+e^e), d),
subsampled with probability q under add/remove neighbours [ZDW22]:
  remove: (A, B) = ((1-q) Q + q P, Q),     add: (A, B) = (Q, (1-q) Q + q P).
n independent releases are exchangeable: every output sequence with the same counts of the four outcomes
has the same A- and B-probabilities, so the hockey-stick divergence is a sum over count vectors,
  delta(e) = sum_k multinomial(n; k) (A^k - e^e B^k)_+,
taken directly from the outcome probabilities (no privacy-loss law, no lattice); a mix of guarantees
takes the product of their count vectors. delta is the larger of the two directions'; epsilon(delta) is
found by bisection on that (continuous, decreasing) delta; f(alpha) = max(0, max_e 1 - delta(e) - e^e alpha)
over e at the composed log-likelihood ratios [DRS22, Prop. 2.12], the smaller direction's.
Run: python3 scripts/reference/poisson_approx_dp.py > scripts/reference/poisson_approx_dp.txt"""
from fractions import Fraction
from itertools import product

from mpmath import mp, mpf, exp, log, nstr, binomial

mp.dps = 50


def frac(x):
    return mpf(x.numerator) / x.denominator


def pair(e0, d0, q, direction):
    e = exp(frac(e0))
    d = frac(d0)
    q = frac(q)
    P = [d, (1 - d) * e / (1 + e), (1 - d) / (1 + e), mpf(0)]
    Q = [mpf(0), (1 - d) / (1 + e), (1 - d) * e / (1 + e), d]
    S = [(1 - q) * b + q * a for a, b in zip(P, Q)]
    A, B = (S, Q) if direction == "remove" else (Q, S)
    return [(a, b) for a, b in zip(A, B) if a > 0 or b > 0]


def counts(m, n):
    if m == 1:
        yield (n,)
        return
    for k in range(n + 1):
        for rest in counts(m - 1, n - k):
            yield (k,) + rest


def types(law, n):
    """(A-probability, B-probability) summed over the sequences of each count vector of n releases."""
    out = []
    for k in counts(len(law), n):
        c = mpf(1)
        r = n
        for kj in k:
            c *= binomial(r, kj)
            r -= kj
        a, b = c, c
        for (pa, pb), kj in zip(law, k):
            a *= pa ** kj
            b *= pb ** kj
        out.append((a, b))
    return out


def composed(mix, direction):
    """The types of a mix [(e0, d0, q, n), ...]: products over the guarantees."""
    parts = [types(pair(e0, d0, q, direction), n) for (e0, d0, q, n) in mix]
    out = []
    for combo in product(*parts):
        a, b = mpf(1), mpf(1)
        for x, y in combo:
            a *= x
            b *= y
        out.append((a, b))
    return out


def delta_of(ts, e):
    ee = exp(e)
    return sum((max(a - ee * b, 0) for a, b in ts), mpf(0))


def delta(mix, e):
    return max(delta_of(composed(mix, d), e) for d in ("remove", "add"))


def epsilon(mix, target):
    both = [composed(mix, d) for d in ("remove", "add")]
    f = lambda e: max(delta_of(ts, e) for ts in both)
    lo, hi = mpf(0), mpf(60)
    if f(lo) <= target:
        return lo
    for _ in range(140):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def tradeoff(mix, alpha):
    al = frac(alpha)
    worst = None
    for d in ("remove", "add"):
        ts = composed(mix, d)
        knots = sorted({log(a / b) for a, b in ts if a > 0 and b > 0})
        best = max([mpf(0)] + [1 - delta_of(ts, x) - exp(x) * al for x in knots])
        worst = best if worst is None else min(worst, best)
    return worst


CASES = [
    # (tightdp --mech specs, the mix, query, argument)
    (["dp:epsilon=1,q=1/10,n=100"], [(Fraction(1), Fraction(0), Fraction(1, 10), 100)], "epsilon", Fraction(1, 10**5)),
    (["dp:epsilon=1,q=1/10,n=100"], [(Fraction(1), Fraction(0), Fraction(1, 10), 100)], "delta", Fraction(2)),
    (["dp:epsilon=1,delta=1e-7,q=1/10,n=30"], [(Fraction(1), Fraction(1, 10**7), Fraction(1, 10), 30)], "epsilon", Fraction(1, 10**5)),
    (["dp:epsilon=1,delta=1e-7,q=1/10,n=30"], [(Fraction(1), Fraction(1, 10**7), Fraction(1, 10), 30)], "delta", Fraction(1)),
    (["dp:epsilon=1/2,q=1/4,n=20"], [(Fraction(1, 2), Fraction(0), Fraction(1, 4), 20)], "tradeoff", Fraction(1, 10)),
    (
        ["dp:epsilon=1,q=1/10,n=10", "dp:epsilon=2,delta=1e-6,q=1/20,n=5"],
        [(Fraction(1), Fraction(0), Fraction(1, 10), 10), (Fraction(2), Fraction(1, 10**6), Fraction(1, 20), 5)],
        "epsilon",
        Fraction(1, 10**6),
    ),
]

if __name__ == "__main__":
    print("# query argument value(mpmath, 50 digits; 35 printed) specs(the tightdp --mech arguments)")
    for specs, mix, query, arg in CASES:
        f = {"epsilon": epsilon, "delta": delta, "tradeoff": tradeoff}[query]
        v = f(mix, frac(arg) if query != "tradeoff" else arg)
        print(f"{query} {arg} {nstr(v, 35)} {' '.join(specs)}")
