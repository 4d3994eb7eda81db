#!/usr/bin/env python3
"""Reference values for compositions of discrete Gaussian counts with discrete Laplace counts whose loss
steps are far apart (N_Z(0, 37.7) with DLap(4): lattice weights 20 and 377; N_Z(0, 1e4) with DLap(1): 1
and 20,000), add/remove neighbours, sensitivity 1. Checked by tests/mixed_far_steps_cli.rs against the
lattice Fourier inversion (src/fourier/lattice), which takes such weights since the accountant prices its
live nodes. No code of tightdp is used; the method is not the engine's (no Fourier inversion):

* Discrete Laplace: DLap(b) has pmf prop. to e^(-|x|/b); against its shift by 1 the loss is +1/b for x <= 0
  and -1/b for x >= 1, so under the null the count K of +1/b losses among n_L queries is
  Binomial(n_L, p), p = 1/(1 + e^(-1/b)), and the DLap part of the loss is (2K - n_L)/b.
* Discrete Gaussian: the loss of x under N_Z(0, s2) against N_Z(1, s2) is (1 - 2x)/(2 s2), so the group's
  loss is (n_G - 2S)/(2 s2) with S the sum of n_G draws, and its hockey-stick divergence is
      delta_G(e) = P[S < kappa] - e^e P[S < kappa - n_G],   kappa = (n_G - 2 s2 e)/2.
  The pmf of S is taken as the Gaussian density e^(-s^2/(2V))/sqrt(2 pi V) at the integers, V = n_G s2.
  Its relative error is below e^(-300) wherever it is used here: by Poisson summation the characteristic
  function of N_Z(0, s2) is e^(-s2 t^2/2) (1 + r(t)) / D with |r(t)| <= 3 e^(-s2 pi^2) for |t| <= pi/2 and
  D = 1 + 2 sum e^(-2 pi^2 s2 k^2); tilting S to any point m (its tilted law is the same construction with
  a shifted centre) turns the absolute error of the Fourier integral into a relative one at m, of order
  n_G e^(-s2 pi^2) (e^(-370) at s2 = 37.7, n_G = 1e5). The normalisation of the Gaussian masses (a theta
  function) is 1 + 2 sum e^(-2 pi^2 V k^2), 1 to all digits.
* The composition: delta(eps) = sum_k P[K = k] delta_G(eps - (2k - n_L)/b), every k from 0 to n_L, each
  P[S < kappa] a direct sum of the Gaussian masses (mpmath, 60 digits; `GaussSum`), the two terms at
  the same integer ceil(kappa) and ceil(kappa) - n_G (rounding kappa - n_G separately split the atom at
  L = eps between them at the lattice's own points, eps = 1687 among them: a jump of 2e-4 relative). epsilon(delta) by
  bisection on eps to 2^-120.
Run: python3 scripts/reference/mixed_far_steps.py > scripts/reference/mixed_far_steps.txt  (mpmath >= 1.3;
about a minute)."""
from mpmath import mp, mpf, exp, sqrt, pi, binomial, ceil, floor, log

mp.dps = 60


class GaussSum:
    """Tails P[S < k] (k an integer) of the Gaussian masses g(s) = e^(-s^2/(2V))/sqrt(2 pi V) at the
    integers, memoised. For k <= 0: from the nearest memoised k0 < k as P[S < k0] + g(k0) + ... + g(k - 1),
    or, with none below, a direct sum downward from s = k - 1, term to term by the ratio
    g(s-1)/g(s) = e^((2s-1)/(2V)) (multiplications only), until the terms fall below 1e-80 of the sum.
    For k > 0: 1 - P[S < 1 - k] by symmetry."""

    def __init__(self, V):
        self.V = V
        self.memo = {}
        self.keys = []  # sorted memoised k <= 0
        self.c = 1 / sqrt(2 * pi * V)
        self.q = exp(-1 / V)

    def g(self, s):
        return self.c * exp(-mpf(s) ** 2 / (2 * self.V))

    def below_int(self, k):
        if k in self.memo:
            return self.memo[k]
        if k > 0:
            return 1 - self.below_int(1 - k)
        from bisect import bisect_left, insort
        i = bisect_left(self.keys, k)
        if i > 0:
            k0 = self.keys[i - 1]
            v = self.memo[k0]
            t = self.g(k0)
            r = exp(-(2 * mpf(k0) + 1) / (2 * self.V))  # g(s+1)/g(s) at s = k0
            for _ in range(k0, k):
                v += t
                t *= r
                r *= self.q
        else:
            s = k - 1
            t = self.g(s)
            r = exp((2 * mpf(s) - 1) / (2 * self.V))
            v = mpf(0)
            eps = mpf(10) ** -80
            while True:
                v += t
                if t < eps * v:
                    break
                t *= r
                r *= self.q
        self.memo[k] = v
        insort(self.keys, k)
        return v


def composition(s2, n_g, b, n_l):
    s2, b = mpf(s2), mpf(b)
    p = 1 / (1 + exp(-1 / b))
    weights = [binomial(n_l, k) * p**k * (1 - p) ** (n_l - k) for k in range(n_l + 1)]
    gs = GaussSum(n_g * s2)

    def delta(e):
        tot = mpf(0)
        for k, wk in enumerate(weights):
            ee = e - (2 * k - n_l) / b
            kappa = (n_g - 2 * s2 * ee) / 2
            # one integer for both terms: the atom s at L(s) = ee (kappa an integer, up to rounding) is then
            # in both or in neither (its two terms cancel), where rounding kappa - n_G on its own could split it
            k1 = int(ceil(kappa))
            tot += wk * (gs.below_int(k1) - exp(ee) * gs.below_int(k1 - n_g))
        return tot

    return delta


def epsilon(delta_at, target, lo, hi):
    """The eps with delta(eps) = target, by bisection (delta decreasing) to 2^-120."""
    for _ in range(160):
        mid = (lo + hi) / 2
        if delta_at(mid) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < mpf(2) ** -120 * hi:
            break
    return lo, hi


CASES = [
    # (s2, n_G, b, n_L, delta, eps bracket for the search, eps for delta(eps))
    ("37.7", 1000, 4, 10, "1e-10", (45, 47), "46"),
    ("37.7", 10000, 4, 100, "1e-10", (238, 241), "240"),
    ("37.7", 100000, 4, 1000, "1e-10", (1686, 1689), "1687"),
    ("10000", 10, 1, 1000, "1e-10", (632, 634), "633"),
]

for s2, n_g, b, n_l, dl, (e0, e1), e_at in CASES:
    delta = composition(s2, n_g, b, n_l)
    lo, hi = epsilon(delta, mpf(dl), mpf(e0), mpf(e1))
    assert lo > e0 and hi < e1, (lo, hi)
    d = delta(mpf(e_at))
    tag = f"dgauss:sigma2={s2},n={n_g}+dlap:scale={b},n={n_l}"
    print(f"{tag},epsilon,delta={dl},{mp.nstr(lo, 40)},{mp.nstr(hi, 40)}")
    print(f"{tag},delta,epsilon={e_at},{mp.nstr(d, 40)}")
