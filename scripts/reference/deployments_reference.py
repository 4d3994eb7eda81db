"""Independent reference values for the deployments registry (issue 36), by python-flint ball arithmetic.

Not tightdp's code: the privacy-loss law of n i.i.d. discrete Gaussian unit shifts is built directly. With
X_i ~ N_Z(0, s2) under P and N_Z(1, s2) under Q, the loss of the composition is L = (n - 2S)/(2 s2) with
S = X_1 + ... + X_n, so delta(eps) = sum_s P[S = s] * max(0, 1 - exp(eps - L(s))) (hockey-stick divergence
of P from Q; the pair is symmetric under x -> 1 - x). P[S = s] is the n-fold convolution of the truncated
N_Z(0, s2) pmf (tail beyond |x| > T dropped, T chosen so the dropped mass is below 1e-60, which bounds the
error of delta by 1e-59), computed with arb polynomials. eps(delta) is found by bisection on delta(eps)
to 1e-30 (delta is decreasing in eps).

Cases (the deployments the Rust tests recompute):
  wikimedia-2023      10 shifts, s2 = 1000/3, delta = 1e-7   (Wikimedia pageviews, rho = 0.015)
  wikimedia-2024-medium  10 shifts, s2 = 25000000/3083 = 10/(2 * 0.0006166), delta = 1e-7 (medium-risk tier)
  wikimedia-2024-higher  10 shifts, s2 = 25000000/773 = 10/(2 * 0.0001546), delta = 1e-7 (higher-risk tier)
  safetab-h-aiannh    18 shifts, s2 = 4500000/142869, delta = 1e-10 (SafeTab-H, AIANNH level)
Usage: python deployments_reference.py > deployments_reference.txt
"""
import math
from flint import arb, arb_poly, ctx

ctx.prec = 300


def pmf_poly(s2, T):
    w = [arb(-(x * x)) / (2 * s2) for x in range(-T, T + 1)]
    w = [v.exp() for v in w]
    z = sum(w, arb(0))
    return arb_poly([v / z for v in w])


def delta_of(eps, n, s2, dist, off):
    tot = arb(0)
    e = arb(eps)
    for k in range(dist.length()):
        s = k - off
        L = arb(n - 2 * s) / (2 * s2)
        if L > e:
            tot += dist[k] * (1 - (e - L).exp())
        elif not (L <= e):
            tot += dist[k] * max(arb(0), 1 - (e - L).exp())  # straddle: not reached for these cases
    return tot


def epsilon_of(delta, n, s2):
    sd = math.sqrt(float(s2))
    T = int(math.ceil(math.sqrt(2 * float(s2) * 140))) + 2
    p = pmf_poly(s2, T)
    dist = arb_poly([1])
    for _ in range(n):
        dist = dist * p
    off = n * T
    lo, hi = arb(0), arb(60)
    d = arb(delta)
    for _ in range(110):
        mid = (lo + hi) / 2
        mid = arb(mid.mid())
        if delta_of(mid, n, s2, dist, off) > d:
            lo = mid
        else:
            hi = mid
    return lo, hi


if __name__ == "__main__":
    from fractions import Fraction
    cases = [
        ("wikimedia-2023", 10, Fraction(1000, 3), "1e-7"),
        ("wikimedia-2024-medium", 10, Fraction(25000000, 3083), "1e-7"),
        ("wikimedia-2024-higher", 10, Fraction(25000000, 773), "1e-7"),
        ("safetab-h-aiannh", 18, Fraction(4500000, 142869), "1e-10"),
    ]
    print("case,n,sigma2,delta,epsilon_lo,epsilon_hi")
    for name, n, s2, delta in cases:
        s2a = arb(s2.numerator) / s2.denominator
        lo, hi = epsilon_of(arb(delta), n, s2a)
        print(f"{name},{n},{s2},{delta},{lo.mid().str(35, radius=False)},{hi.mid().str(35, radius=False)}")
