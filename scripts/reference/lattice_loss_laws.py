#!/usr/bin/env python3
"""Reference values for the discrete Gaussian and discrete Laplace mechanisms as privacy-loss laws
(src/noise/dgauss_loss.rs, src/noise/dlaplace_loss.rs) and their compositions on the pld grid
(src/account/laws.rs), mpmath at 50 digits, by brute-force sums over the integer outputs — from the pmfs
and the definition L(x) = ln(A(x)/B(x)), not from tightdp's formulas:

  * split: A[L < l], A[L >= l], B[L < l], B[L >= l] for the remove pair (A = noise at 0, B = noise at mu)
    and the add pair (A = noise at mu, B = noise at 0);
  * Poisson-subsampled (probability q) discrete Gaussian / Laplace, n = 1 and 2 releases:
    delta(eps) = sum over outputs of (P - e^eps Q)_+ for the remove pair (P = (1-q) N(mu) + q N(0),
    Q = N(mu)... shifted: P = (1-q) B + q A, Q = B) and the add pair (P = B, Q = (1-q) B + q A), n-fold
    products summed over all output tuples; the larger of the two;
  * 10 x discrete Gaussian (sigma2 = 4) composed with 10 x Gaussian (sigma2 = 4): the sum S of the ten
    discrete noises by exact convolution of the pmfs, delta(eps) = sum_S P_A(S) delta_G(eps - L(S)) with
    the continuous Gaussians' delta_G(t) = Phi(m/2 - t/m) - e^t Phi(-m/2 - t/m), m = sqrt(2 eta)
    [BW18, Thm 8] (a closed form of mpmath's ncdf), eps(delta) by findroot.
Run: $VENV/bin/python scripts/reference/lattice_loss_laws.py > scripts/reference/lattice_loss_laws.txt"""
from mpmath import mp, mpf, exp, log, sqrt, ncdf, findroot, ceil, floor

mp.dps = 50
TOL = mpf(10) ** -40  # ties on the lattice: L is computed to ~50 digits


def dg_pmf(s2, center=0):
    s2 = mpf(s2)
    K = int(ceil(sqrt(2 * s2 * 60 * log(10)))) + 5
    w = {x: exp(-mpf(x - center) ** 2 / (2 * s2)) for x in range(center - K, center + K + 1)}
    z = sum(exp(-mpf(x) ** 2 / (2 * s2)) for x in range(-K - 50, K + 51))
    return {x: v / z for x, v in w.items()}


def dlap_pmf(b, center=0):
    b = mpf(b)
    r = exp(-1 / b)
    z = (1 + r) / (1 - r)
    K = int(ceil(b * 60 * log(10))) + 5
    return {x: exp(-abs(mpf(x - center)) / b) / z for x in range(center - K, center + K + 1)}


def split(A, B, l):
    l = mpf(l)
    xs = set(A) | set(B)
    out = [mpf(0)] * 4
    for x in xs:
        a, b = A.get(x, mpf(0)), B.get(x, mpf(0))
        if a == 0 or b == 0:
            continue
        L = log(a / b)
        # a tie l == L at a lattice point: the atom belongs to the upper side
        below = L < l - TOL
        out[0 if below else 1] += a
        out[2 if below else 3] += b
    return out


print("# split: law sigma2|scale mu direction l  A[L<l] A[L>=l] B[L<l] B[L>=l]")
for s2, mu, l in [("4", 1, "0"), ("4", 1, "1/8"), ("4", 1, "-3/4"), ("4", 1, "0.3"), ("0.5", 2, "1"), ("10", 3, "-2.2")]:
    for d in ("remove", "add"):
        A, B = (dg_pmf(s2, 0), dg_pmf(s2, mu)) if d == "remove" else (dg_pmf(s2, mu), dg_pmf(s2, 0))
        num, den = l.split("/") if "/" in l else (l, "1")
        v = split(A, B, mpf(num) / mpf(den))
        print("dgauss", s2, mu, d, l, " ".join(mp.nstr(x, 40) for x in v))
for b, mu, l in [("2", 1, "0"), ("2", 1, "1/2"), ("2", 1, "-1/2"), ("7/3", 3, "0.4"), ("1/2", 2, "-1"), ("3", 4, "1.2")]:
    num, den = b.split("/") if "/" in b else (b, "1")
    bb = mpf(num) / mpf(den)
    for d in ("remove", "add"):
        A, B = (dlap_pmf(bb, 0), dlap_pmf(bb, mu)) if d == "remove" else (dlap_pmf(bb, mu), dlap_pmf(bb, 0))
        num, den = l.split("/") if "/" in l else (l, "1")
        v = split(A, B, mpf(num) / mpf(den))
        print("dlap", b, mu, d, l, " ".join(mp.nstr(x, 40) for x in v))


def delta_pair(P, Q, eps, n):
    """sum over n-tuples of (prod P - e^eps prod Q)_+, the laws as dicts."""
    e = exp(mpf(eps))
    xs = sorted(set(P) | set(Q))
    if n == 1:
        return sum(max(P.get(x, 0) - e * Q.get(x, 0), 0) for x in xs)
    total = mpf(0)
    for x1 in xs:
        p1, q1 = P.get(x1, 0), Q.get(x1, 0)
        for x2 in xs:
            d = p1 * P.get(x2, 0) - e * q1 * Q.get(x2, 0)
            if d > 0:
                total += d
    return total


def subsampled(A, B, q):
    q = mpf(q)
    xs = set(A) | set(B)
    mix = {x: (1 - q) * B.get(x, 0) + q * A.get(x, 0) for x in xs}
    return (mix, B), (B, mix)


mp.dps = 45
print("# subsampled: law sigma2|scale mu q n eps  delta_remove delta_add delta")
for law, par, mu, q, n, eps in [("dgauss", "2", 1, "0.2", 1, "0.1"), ("dgauss", "2", 1, "0.2", 1, "0.5"),
                                ("dgauss", "2", 1, "0.2", 2, "0.3"), ("dgauss", "2", 1, "0.2", 2, "0.6"),
                                ("dlap", "2", 1, "0.3", 1, "0.1"), ("dlap", "2", 1, "0.3", 2, "0.2")]:
    A, B = (dg_pmf(par, 0), dg_pmf(par, mu)) if law == "dgauss" else (dlap_pmf(par, 0), dlap_pmf(par, mu))
    # drop negligible outputs (below 1e-35) to keep the double sum short
    A = {x: v for x, v in A.items() if v > mpf(10) ** -35}
    B = {x: v for x, v in B.items() if v > mpf(10) ** -35}
    rem, add = subsampled(A, B, q)
    dr, da = delta_pair(*rem, eps, n), delta_pair(*add, eps, n)
    print("sub", law, par, mu, q, n, eps, mp.nstr(dr, 40), mp.nstr(da, 40), mp.nstr(max(dr, da), 40))

mp.dps = 40
print("# mixture: 10 x dgauss sigma2=4 + 10 x gauss sigma2=4 (sensitivity 1): delta(eps), eps(delta)")
s2, n = mpf(4), 10
base = dg_pmf(4, 0)
S = {0: mpf(1)}
for _ in range(n):
    T = {}
    for s, ps in S.items():
        for x, px in base.items():
            T[s + x] = T.get(s + x, 0) + ps * px
    S = {k: v for k, v in T.items() if v > mpf(10) ** -45}
eta1 = 1 / (2 * s2)
eta_g = n * eta1
m = sqrt(2 * eta_g)


def delta_g(t):
    return ncdf(m / 2 - t / m) - exp(t) * ncdf(-m / 2 - t / m)


def delta_mix(eps):
    # L_DG(S) = n eta - S/sigma2 under A (x_i ~ N_Z(0, 4), L = eta - x/sigma2 per release)
    return sum(p * delta_g(mpf(eps) - (n * eta1 - mpf(s) / s2)) for s, p in S.items())


for eps in ["1", "3"]:
    print("mix delta", eps, mp.nstr(delta_mix(eps), 30))
for d in ["1e-6"]:
    e = findroot(lambda x: delta_mix(x) - mpf(d), 4)
    print("mix epsilon", d, mp.nstr(e, 30))
