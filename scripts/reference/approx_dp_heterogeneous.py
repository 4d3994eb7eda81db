"""Heterogeneous stated (eps, delta) guarantees composed exactly: an independent reference for the exact-atoms
engine's sparse path (`src/account/engines/atoms_sparse.rs`), whose losses sit far apart on a fine common lattice.

Each guarantee is the optimal pair [KOV15]: delta at +infinity under A, and binary randomized response by eps
otherwise (A-masses (1 - delta) e^eps/(1 + e^eps) at +eps and (1 - delta)/(1 + e^eps) at -eps). The composition's
delta(e) = 1 - prod(1 - delta_i) (1 - d(e)), with d(e) = sum over the loss l > e of A[l] (1 - e^{e - l}), summed
over every count k_i of +eps_i among the n_i copies (binomial masses), in mpmath at 60 digits. epsilon(delta) by
bisection to 1e-45. The pair is symmetric, so one direction. Run: python3 approx_dp_heterogeneous.py > approx_dp_heterogeneous.txt
"""
from fractions import Fraction as F
import mpmath as mp

mp.mp.dps = 60

CASES = [
    # (terms as (eps, delta, n), query, value)
    ([("1.757", "8.428e-09", 14), ("1.74", "5.599e-07", 6)], "epsilon", "0.0002212"),
    ([("1/2", "1e-6", 10), ("0.49", "0", 7)], "epsilon", "1e-5"),
    ([("1.757", "8.428e-09", 14), ("1.74", "5.599e-07", 6)], "delta", "30"),
]


def law(terms):
    atoms = {F(0): mp.mpf(1)}
    keep = mp.mpf(1)
    for e, d, n in terms:
        e, d = F(e), mp.mpf(F(d).numerator) / F(d).denominator
        ee = mp.e ** (mp.mpf(e.numerator) / e.denominator)
        p = ee / (1 + ee)
        keep *= (1 - d) ** n
        nxt = {}
        for k in range(n + 1):
            loss, mass = (2 * k - n) * e, mp.binomial(n, k) * p**k * (1 - p) ** (n - k)
            for l0, m0 in atoms.items():
                nxt[l0 + loss] = nxt.get(l0 + loss, 0) + m0 * mass
        atoms = nxt
    return atoms, keep


def delta(terms, e):
    atoms, keep = law(terms)
    d = sum(m * (1 - mp.e ** (e - mp.mpf(l.numerator) / l.denominator)) for l, m in atoms.items() if mp.mpf(l.numerator) / l.denominator > e)
    return 1 - keep * (1 - d)


def epsilon(terms, target):
    lo, hi = mp.mpf(0), mp.mpf(200)
    while hi - lo > mp.mpf("1e-45"):
        mid = (lo + hi) / 2
        if delta(terms, mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


for terms, q, x in CASES:
    spec = " ".join(f"dp:epsilon={e},delta={d},n={n}" for e, d, n in terms)
    v = mp.mpf(F(x).numerator) / F(x).denominator
    val = epsilon(terms, v) if q == "epsilon" else delta(terms, v)
    print(f"{spec} | {q} {x} | {mp.nstr(val, 40)}")
