"""Two-atom laws on no common lattice, or on one too fine to lay out, composed exactly: an independent reference for
the exact-atoms engine's listed path (`src/account/engines/atoms_listed.rs`).

Each law has A-masses (1 - delta) p at the loss t and (1 - delta)(1 - p) at -t, and delta at +infinity:
- binary randomized response reporting the true bit with probability p (`rr:keep=p,k=2`, [KOV16, Sec. 2]):
  t = ln(p/(1 - p)), delta = 0 (under the replace neighbour);
- randomized response by eps (`rr:epsilon=eps,k=2`): t = eps, p = e^eps/(1 + e^eps), delta = 0;
- a stated guarantee (`dp:epsilon=eps,delta=d`), its optimal pair [KOV15]: t = eps, p = e^eps/(1 + e^eps).
Every vector of counts of the upper atoms gives the loss sum of (2k - n) t with binomial masses, in mpmath at 60
digits; delta(e) = A[+inf] + sum over losses l > e of A[l] (1 - e^{e - l}) [SSW24, Lemma A.9]; f(alpha) from the
Neyman-Pearson test itself [DRS22, Def. 2.1] (the B-mass it leaves, summed without cancellation); epsilon(delta) by
bisection to 1e-45. Run: python3 rr_keep_with_pairs.py > rr_keep_with_pairs.txt
"""
from fractions import Fraction as F
import mpmath as mp

mp.mp.dps = 60

CASES = [
    # (laws as (spec, n), queries as (kind, value))
    (
        [("rr:keep=0.8109,k=2", 318), ("dp:epsilon=1.666,delta=8.005e-06", 12)],
        [("tradeoff", "0.0003979"), ("delta", "300"), ("epsilon", "0.001")],
    ),
    # the common step 1/1000: each law spans more than 4,096 of its points
    (
        [("rr:epsilon=2.773,k=2", 325), ("rr:epsilon=2.481,k=2", 1)],
        [("tradeoff", "2.166e-05"), ("epsilon", "1e-6")],
    ),
]


def mpq(x):
    x = F(x)
    return mp.mpf(x.numerator) / x.denominator


def two_atoms(spec):
    kind, params = spec.split(":")
    kv = dict(p.split("=") for p in params.split(","))
    if "keep" in kv:
        p = mpq(kv["keep"])
        return mp.log(p / (1 - p)), p, mp.mpf(0)
    e = mpq(kv["epsilon"])
    return e, mp.e**e / (1 + mp.e**e), mpq(kv.get("delta", "0"))


def law(laws):
    atoms, keep = [(mp.mpf(0), mp.mpf(1))], mp.mpf(1)
    for spec, n in laws:
        t, p, d = two_atoms(spec)
        keep *= (1 - d) ** n
        own = [((2 * k - n) * t, mp.binomial(n, k) * p**k * (1 - p) ** (n - k) * (1 - d) ** n) for k in range(n + 1)]
        atoms = [(l0 + l1, m0 * m1) for l0, m0 in atoms for l1, m1 in own]
    atoms.sort(key=lambda a: a[0])
    return atoms, 1 - keep


def delta(atoms, inf, x):
    a, b = inf, mp.mpf(0)  # A[L > x] (with +inf) and the sum of A e^{-l} over l > x
    for l, m in atoms:
        if l > x:
            a += m
            b += m * mp.e ** (-l)
    return a - mp.e**x * b


def tradeoff(atoms, inf, alpha):
    # reject (decide B) first where dB/dA is largest (the smallest loss; the atom at -inf has A-mass 0) until
    # its A-mass is alpha; beta is the B-mass left, summed directly (1 - the B-mass taken would cancel)
    used = mp.mpf(0)
    for i, (l, m) in enumerate(atoms):
        if used + m <= alpha:
            used += m
            continue
        left = 1 - (alpha - used) / m
        return left * m * mp.e ** (-l) + sum(mm * mp.e ** (-ll) for ll, mm in atoms[i + 1 :])
    return mp.mpf(0)


def epsilon(atoms, inf, target):
    lo, hi = mp.mpf(0), mp.mpf(2000)
    while hi - lo > mp.mpf("1e-45"):
        mid = (lo + hi) / 2
        if delta(atoms, inf, mid) > target:
            lo = mid
        else:
            hi = mid
    return hi


for laws, queries in CASES:
    atoms, inf = law(laws)
    spec = " ".join(f"{s},n={n}" for s, n in laws)
    for q, x in queries:
        val = {"tradeoff": tradeoff, "delta": delta, "epsilon": epsilon}[q](atoms, inf, mpq(x))
        print(f"{spec} | {q} {x} | {mp.nstr(val, 40)}")
