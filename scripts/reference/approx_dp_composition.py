#!/usr/bin/env python3
"""Independent reference for `dp:epsilon=E,delta=D` compositions (noise/blackbox.rs): the optimal
composition of k (eps0, delta0)-DP guarantees [KOV15, Thm 3.3], computed directly from the four-point
pair in mpmath (60 digits), not by tightdp.

k-fold product of A = (d, (1-d)p, (1-d)(1-p), 0), B = (0, (1-d)(1-p), (1-d)p, d), p = e^e0/(1+e^e0):
the loss is +inf unless no copy takes A's first atom; otherwise j copies at +e0 and k-j at -e0, with
A-mass (1-d)^k C(k,j) p^j (1-p)^(k-j) and B-mass (1-d)^k C(k,j) (1-p)^j p^(k-j). So
  delta(eps) = 1 - (1-d)^k + sum_j (A_j - e^eps B_j)_+ ,
and eps(delta) is its inverse (bisection to 45 digits). Run with the reference venv
($VENV/bin/python scripts/reference/approx_dp_composition.py > scripts/reference/approx_dp_composition.txt).
"""
from mpmath import mp, mpf, binomial, exp

mp.dps = 60


def delta_of(e0, d0, k, eps):
    p = exp(e0) / (1 + exp(e0))
    keep = (1 - d0) ** k
    s = 1 - keep
    for j in range(k + 1):
        a = keep * binomial(k, j) * p**j * (1 - p) ** (k - j)
        b = keep * binomial(k, j) * (1 - p) ** j * p ** (k - j)
        s += max(a - exp(eps) * b, 0)
    return s


def eps_of(e0, d0, k, delta):
    lo, hi = mpf(0), mpf(k) * e0
    if delta_of(e0, d0, k, lo) <= delta:
        return mpf(0)
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta_of(e0, d0, k, mid) > delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


CASES = [
    # (e0, d0, k, query, value)
    ("1", "1e-6", 10, "epsilon", "1e-5"),
    ("1/10", "0", 100, "epsilon", "1e-6"),
    ("1/2", "1e-8", 30, "delta", "3"),
    ("1", "0", 5, "delta", "1"),
]

def frac(s):
    """An exact decimal or fraction string as an mpf (no float in between)."""
    n, _, d = s.partition("/")
    return mpf(n) / mpf(d or "1")


if __name__ == "__main__":
    for e0, d0, k, what, v in CASES:
        E0, D0, V = frac(e0), frac(d0), frac(v)
        r = eps_of(E0, D0, k, V) if what == "epsilon" else delta_of(E0, D0, k, V)
        print(f"dp:epsilon={e0},delta={d0},n={k} {what}({v}) = {mp.nstr(r, 40)}")

    # zcdp:rho=R compositions are accounted through rho by the optimal conversion [CKS20, Prop. 12]:
    #   delta(eps) = inf_{a>1} exp((a-1)(a rho - eps)) / a * (1 - 1/a)^(a-1),
    # minimised over a by mpmath's findroot on the log-derivative; eps(delta) by bisection.
    from mpmath import log, diff, findroot

    def cks_delta(rho, eps):
        f = lambda a: (a - 1) * (a * rho - eps) - log(a) + (a - 1) * log(1 - 1 / a)
        a0 = (eps + rho) / (2 * rho)
        a = findroot(lambda a: diff(f, a), max(a0, mpf("1.5")))
        return exp(f(a))

    def cks_eps(rho, delta):
        lo, hi = mpf(0), mpf(1000)
        for _ in range(200):
            mid = (lo + hi) / 2
            if cks_delta(rho, mid) > delta:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    # zcdp:rho=0.5 + gauss:sigma2=4,n=3 (rho = 1/2 + 3/8 = 7/8)
    print(f"zcdp:rho=7/8 epsilon(1e-6) = {mp.nstr(cks_eps(mpf(7) / 8, mpf('1e-6')), 40)}")
    print(f"zcdp:rho=1/2 delta(2) = {mp.nstr(cks_delta(mpf(1) / 2, mpf(2)), 40)}")
