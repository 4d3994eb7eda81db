#!/usr/bin/env python3
"""Reference values for the Poisson-subsampled Gaussian under replace-one neighbours (src/noise/poisson_replace.rs):
the pair A = q N(-s, 1) + (1 - q) N(0, 1), B = q N(s, 1) + (1 - q) N(0, 1), s = Delta/sigma (dp_accounting's
REPLACE adjacency with sub-sampling, privacy_loss_mechanism.py).

One release: delta(eps) = integral of (A(z) - e^eps B(z))_+ dz by mpmath quadrature, split at the root of
A(z) = e^eps B(z) found by bisection on the densities (no closed form of the code is used).
Two releases: delta_2(eps) = E_{z ~ A}[delta_1(eps - L(z))], delta_1(t) = A[L >= t] - e^t B[L >= t] with the
set {L >= t} = {z <= root} found by bisection, by quadrature over z.
Also dp_accounting's PLD (REPLACE_ONE) pessimistic / optimistic at discretisation 1e-5 for 100 releases.
Run: python3 scripts/reference/poisson_replace_gaussian.py > scripts/reference/poisson_replace_gaussian.txt"""
from mpmath import mp, mpf, exp, log, npdf, ncdf, quad, inf, sqrt

mp.dps = 40


def pair(q, s):
    A = lambda z: q * npdf(z, -s, 1) + (1 - q) * npdf(z)
    B = lambda z: q * npdf(z, s, 1) + (1 - q) * npdf(z)
    return A, B


def root(q, s, t):
    """z with ln A(z)/B(z) = t (the loss decreases in z)."""
    A, B = pair(q, s)
    f = lambda z: log(A(z)) - log(B(z)) - t
    lo, hi = mpf(-60), mpf(60)
    # bisection to 2^-(steps) of the bracket, below the working precision (a root beyond +-60 sits at the
    # end: the mass beyond is below e^-1700)
    for _ in range(mp.prec + 10):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def delta1_quad(q, s, eps):
    A, B = pair(q, s)
    r = root(q, s, eps)
    return quad(lambda z: A(z) - exp(eps) * B(z), [-inf, r - 5, r])


def delta1_tail(q, s, t):
    r = root(q, s, t)
    a = q * ncdf(r + s) + (1 - q) * ncdf(r)
    b = q * ncdf(r - s) + (1 - q) * ncdf(r)
    return a - exp(t) * b


def delta2(q, s, eps):
    A, B = pair(q, s)
    L = lambda z: log(A(z)) - log(B(z))
    return quad(lambda z: A(z) * max(delta1_tail(q, s, eps - L(z)), 0), [-inf, -10, -3, 0, 3, 10, inf])


print("# q sigma2 mu eps delta(one release), by quadrature of (A - e^eps B)_+")
for q, s2, mu, eps in [("0.2", "0.5", "1", "0.5"), ("0.01", "1", "1", "0.01"), ("1", "4", "1", "0.5"), ("0.3", "2", "1", "0")]:
    s = sqrt(mpf(mu) ** 2 / mpf(s2))
    print(f"one {q} {s2} {mu} {eps} {mp.nstr(delta1_quad(mpf(q), s, mpf(eps)), 30)}")
mp.dps = 30
print("# q sigma2 mu eps delta(two releases), E_A[delta_1(eps - L)]")
for q, s2, mu, eps in [("0.2", "0.5", "1", "0.5"), ("0.3", "2", "1", "0.3")]:
    s = sqrt(mpf(mu) ** 2 / mpf(s2))
    print(f"two {q} {s2} {mu} {eps} {mp.nstr(delta2(mpf(q), s, mpf(eps)), 20)}")

try:
    from dp_accounting.pld import privacy_loss_distribution as pldlib
    from dp_accounting import NeighboringRelation

    print("# dp_accounting PLD, REPLACE_ONE, discretisation 1e-5: q sigma n delta epsilon(pessimistic) epsilon(optimistic)")
    for q, sigma, n, d in [(0.01, 1.0, 100, 1e-6)]:
        eps = []
        for pess in (True, False):
            pld = pldlib.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=q, value_discretization_interval=1e-5,
                                                 pessimistic_estimate=pess, use_connect_dots=pess,
                                                 neighboring_relation=NeighboringRelation.REPLACE_ONE)
            eps.append(pld.self_compose(n).get_epsilon_for_delta(d))
        print(f"peer {q} {sigma} {n} {d} {eps[0]:.8f} {eps[1]:.8f}")
except ImportError:
    pass
