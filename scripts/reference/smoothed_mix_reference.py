"""Independent reference for the smoothed inversion on a discrete Gaussian + discrete Laplace mixture
whose loss slopes share no practical lattice (docs/smoothed-fourier.md §8):

    3 x N_Z(0, 9973/7) + 2 x N_Z(0, 7919/3) + 2 x DLap(17/5), sensitivity 1, add-remove, delta = 1e-10 and 1e-6
    (slopes 7/9973, 3/7919, 10/17: common step 1/(9973*7919*17), ~1.3e9 lattice points per unit of loss).

Method (python-flint arb balls at 256 bits, nothing from tightdp):
* N_Z(0, s2) pmf e^{-x^2/(2 s2)}/Z on |x| <= K = 16 sigma (omitted mass < 1e-50, far below what is compared);
  the laws of S1 = X_1 + X_2 + X_3 and S2 = Y_1 + Y_2 by exact polynomial multiplication (arb_poly).
* DLap(b), shift 1: one query's loss is 1/b (x <= 0, prob 1/(1+r)) or -1/b (x >= 1, prob r/(1+r)), r = e^{-1/b}
  (two-sided geometric pmf r^|x|(1-r)/(1+r)); the two copies' loss is (2 - 2J)/b, J ~ Binomial-like on {0,1,2}.
* Loss under P: L = (3 - 2 S1)/(2 s1) + (2 - 2 S2)/(2 s2) + (2 - 2J)/b (mu = 1: L = (mu^2 - 2 mu X)/(2 s2) per query).
* delta(eps) = E[(1 - e^{eps - L})_+] = sum over (S1, J) of P(S1) P(J) [C2(m) - e^{eps - a} E2(m)], a = L1 + L3,
  C2(m) = P[S2 <= m], E2(m) = E[e^{-L2}; S2 <= m], m the largest S2 with L2 > eps - a (prefix sums).
* eps(delta) by bisection on the (decreasing) reference delta(eps) down to 1e-22.
Run: $VENV/bin/python scripts/reference/smoothed_mix_reference.py > scripts/reference/smoothed_mix_reference.txt
"""
from flint import arb, arb_poly, ctx
import math

ctx.prec = 256
S1, S2, B = arb(9973) / 7, arb(7919) / 3, arb(17) / 5
s1f, s2f = 9973 / 7, 7919 / 3


def dg_law(s2, s2f, n):
    k = int(16 * math.sqrt(s2f)) + 1
    w = [(-(arb(x) ** 2) / (2 * s2)).exp() for x in range(-k, k + 1)]
    z = sum(w, arb(0))
    p = arb_poly([x / z for x in w])
    q = p
    for _ in range(n - 1):
        q = q * p
    off = n * k  # index i <-> S = i - off
    return [q[i] for i in range(q.degree() + 1)], off


p1, off1 = dg_law(S1, s1f, 3)
p2, off2 = dg_law(S2, s2f, 2)
r = (-1 / B).exp()
pj1 = [1 / (1 + r), r / (1 + r)]
pj = [pj1[0] ** 2, 2 * pj1[0] * pj1[1], pj1[1] ** 2]

# prefix sums over S2 (increasing S2 = decreasing L2)
L2 = [(2 - 2 * arb(i - off2)) / (2 * S2) for i in range(len(p2))]
C2, E2 = [], []
c, e = arb(0), arb(0)
for i in range(len(p2)):
    c += p2[i]
    e += p2[i] * (-L2[i]).exp()
    C2.append(c)
    E2.append(e)
L1 = [(3 - 2 * arb(i - off1)) / (2 * S1) for i in range(len(p1))]
L3 = [(2 - 2 * arb(j)) / B for j in range(3)]


def delta(eps):
    eps = arb(eps)
    tot = arb(0)
    for i, pi in enumerate(p1):
        for j in range(3):
            a = L1[i] + L3[j]
            y = eps - a
            # L2 > y  <=>  (2 - 2 S2)/(2 s2) > y  <=>  S2 < 1 - s2*y ; the largest such integer
            bound = 1 - S2 * y
            m = math.ceil(float(bound.mid())) - 1 + off2
            # guard against ball ambiguity at the boundary (then that term contributes 0 either way)
            m = min(max(m, -1), len(p2) - 1)
            if m < 0:
                continue
            tot += pi * pj[j] * (C2[m] - (eps - a).exp() * E2[m])
    return tot


def epsilon(d, lo, hi):
    d = arb(d)
    for _ in range(90):
        mid = (lo + hi) / 2
        if float((delta(mid) - d).mid()) > 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


for d, lo, hi in [("1e-10", 0.8, 0.95), ("1e-6", 0.3, 0.8)]:
    a, b = epsilon(d, arb(lo), arb(hi))
    print(f"delta {d}: epsilon in [{a.mid().str(30, radius=False)}, {b.mid().str(30, radius=False)}]")
    print(f"  delta(eps_lo) = {delta(a).str(25)}, delta(eps_hi) = {delta(b).str(25)}")
