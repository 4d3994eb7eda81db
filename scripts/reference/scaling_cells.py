#!/usr/bin/env python3
"""Reference eps(delta) for cells of the scaling table (issue 33) at large n, independent of tightdp.

n x N_Z(0, sigma2), add/remove, sensitivity 1. For sigma2 >= 5 the n-fold sum S has, by Poisson summation
of the theta function, P(S = s) = exp(-s^2/(2v)) / sqrt(2 pi v), v = n sigma2, up to a relative error
below n * 2 exp(-2 pi^2 sigma2) (< 1e-37 for the cells below) plus exp(-2 pi^2 v) aliasing.
The loss of S = s is L(s) = (n - 2 s)/(2 sigma2) (decreasing in s), so for eps between the knots L(t+1)
and L(t), delta(eps) = A - e^eps B with A = sum_{s<=t} P(s), B = sum_{s<=t} P(s) e^{-L(s)}
([SSW24, Lemma A.9] in one variable): t is found by bisection on the knots' delta(L(t)) and
eps = ln((A - delta)/B) in closed form. Sums run from t downward by the exact term ratio
P(s-1)/P(s) = exp((2s-1)/(2v)) until a term is below 1e-45 of the sum; mpmath at 50 digits.
This is the method of scripts/reference/calibrate_large_n.py, with the knot search in place of the
epsilon bisection.

Run: python3 scripts/reference/scaling_cells.py (mpmath 1.3; ~5 min) -> scaling_cells.txt
"""
import mpmath as mp

mp.mp.dps = 50


def sums(t, s2, n):
    """(A, B) = (sum_{s<=t} P(s), sum_{s<=t} P(s) e^{-L(s)})."""
    v = mp.mpf(n) * s2
    p = mp.exp(-mp.mpf(t) ** 2 / (2 * v)) / mp.sqrt(2 * mp.pi * v)
    el = mp.exp(-(n - 2 * mp.mpf(t)) / (2 * s2))  # e^{-L(t)}
    down = mp.exp(-1 / s2)  # e^{-L(s-1)} / e^{-L(s)}
    a = b = mp.mpf(0)
    s = t
    while True:
        a += p
        b += p * el
        if p < a * mp.mpf("1e-45") and p * el < b * mp.mpf("1e-45"):
            return a, b
        p *= mp.exp((2 * mp.mpf(s) - 1) / (2 * v))
        el *= down
        s -= 1


def eps_of_delta(s2, n, delta):
    s2, delta = mp.mpf(s2), mp.mpf(delta)

    def knot_delta(t):  # delta at eps = L(t): the terms s < t
        a, b = sums(t - 1, s2, n)
        return a - mp.exp((n - 2 * mp.mpf(t)) / (2 * s2)) * b

    # knot_delta increases with t; bracket t with knot_delta(lo) <= delta < knot_delta(hi)
    sd = mp.sqrt(n * s2)
    hi = int(mp.floor(n / 2.0))  # L = 0 here: delta(0) is large
    lo = hi - int(40 * sd) - 10
    while knot_delta(lo) > delta:
        lo -= int(40 * sd)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if knot_delta(mid) <= delta:
            lo = mid
        else:
            hi = mid
    # eps in [L(lo+1), L(lo)] hmm: delta(L(lo)) <= delta < delta(L(lo+1)) -> the set {s <= lo} carries eps
    a, b = sums(lo, s2, n)
    return mp.log((a - delta) / b)


CELLS = [("37.7", n, d) for n in (10**4, 10**5, 10**6) for d in ("1e-5", "1e-10", "1e-30")]
CELLS += [("1e4", n, d) for n in (10**3, 10**4) for d in ("1e-5", "1e-10", "1e-30")]
CELLS += [("1e8", 1, d) for d in ("1e-5", "1e-10", "1e-30")]
CELLS += [("5", 10**5, "1e-10")]

if __name__ == "__main__":
    with open(__file__.replace(".py", ".txt"), "w") as out:
        out.write("sigma2,n,delta,epsilon\n")
        for s2, n, d in CELLS:
            e = eps_of_delta(s2, n, d)
            line = f"{s2},{n},{d},{mp.nstr(e, 30)}"
            print(line, flush=True)
            out.write(line + "\n")
