"""Two-atom laws on no common lattice, or on one too fine to lay out, composed exactly: an independent reference for
the exact-atoms engine's listed path (`src/account/engines/atoms_listed.rs`).

Each law has A-masses (1 - delta) p at the loss t, (1 - delta) p0 at 0 and (1 - delta) p1 at -t, and delta at
+infinity:
- k-ary randomized response reporting the true value with probability p (`rr:keep=p,k=K`, [KOV16, Sec. 2]),
  under the replace neighbour: the neighbour's value has probability (1 - p)/(K - 1), so t = ln(p (K - 1)/(1 - p)),
  p1 = (1 - p)/(K - 1), p0 = (K - 2)(1 - p)/(K - 1), delta = 0;
- randomized response by eps (`rr:epsilon=eps,k=K`): t = eps, p = e^eps/Z, p1 = 1/Z, p0 = (K - 2)/Z,
  Z = e^eps + K - 1, delta = 0;
- a stated guarantee (`dp:epsilon=eps,delta=d`), its optimal pair [KOV15]: t = eps, p = e^eps/(1 + e^eps), p0 = 0.
Every count of the three atoms gives the loss (k_top - k_bottom) t with multinomial masses (the atoms of one loss
added), in mpmath at 60 digits; delta(e) = A[+inf] + sum over losses l > e of A[l] (1 - e^{e - l}) [SSW24, Lemma A.9]; f(alpha) from the
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
    # three atoms each: many count vectors share a loss
    (
        [("rr:epsilon=2.526,k=3", 1), ("rr:keep=0.8981,k=3", 347)],
        [("tradeoff", "7.005e-05"), ("epsilon", "1e-6")],
    ),
    # two reports of each: the sums +-ln r of the two four-ary reports tie
    (
        [("rr:keep=5/8,k=4", 2), ("rr:epsilon=1,k=2", 2)],
        [("delta", "1")],
    ),
]


def mpq(x):
    x = F(x)
    return mp.mpf(x.numerator) / x.denominator


def three_atoms(spec):
    """(t, p, p0, p1, delta) of the law: A-masses (1 - delta) p at t, (1 - delta) p0 at 0, (1 - delta) p1 at -t."""
    kind, params = spec.split(":")
    kv = dict(p.split("=") for p in params.split(","))
    k = int(kv.get("k", "2"))
    if "keep" in kv:
        p = mpq(kv["keep"])
        p1 = (1 - p) / (k - 1)
        return mp.log(p / p1), p, (k - 2) * p1, p1, mp.mpf(0)
    e = mpq(kv["epsilon"])
    z = mp.e**e + k - 1
    return e, mp.e**e / z, (k - 2) / z, 1 / z, mpq(kv.get("delta", "0"))


def law(laws):
    atoms, keep = [(mp.mpf(0), mp.mpf(1))], mp.mpf(1)
    for spec, n in laws:
        t, p, p0, p1, d = three_atoms(spec)
        keep *= (1 - d) ** n
        by_diff = {}
        for a in range(n + 1):
            for b in range(n + 1 - a):
                m = mp.factorial(n) / (mp.factorial(a) * mp.factorial(b) * mp.factorial(n - a - b))
                m *= p**a * p1**b * (p0 ** (n - a - b) if n - a - b else 1) * (1 - d) ** n
                by_diff[a - b] = by_diff.get(a - b, 0) + m
        own = [(j * t, m) for j, m in by_diff.items()]
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
