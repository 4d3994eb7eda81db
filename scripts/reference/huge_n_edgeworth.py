#!/usr/bin/env python3
"""Reference epsilon(delta = 1e-5) of 10^12 releases, by the Edgeworth expansion of the composed loss, independent
of tightdp's engines (for the tilted Fourier engine's reach: src/account/engines/tilted_tests.rs).

At n = 10^12 the composed loss S = L_1 + ... + L_n (under the remove pair's first law A) is a sum of i.i.d. terms
whose standardised density is the Edgeworth series phi(w) [1 + g1/6 He3(w) + g2/24 He4(w) + g1^2/72 He6(w) + ...],
g1 = k3/(k2^1.5 sqrt n), g2 = k4/(k2^2 n), the per-step cumulants k2, k3, k4 by mpmath's quadrature of the one-step
loss. delta(e) = E_A[(1 - e^(e - S))_+] exactly; it is integrated against the series truncated after order 0 (the
central limit), 1 and 2, and solved for delta(e) = 1e-5 (findroot). The orders' differences show the series'
error: each order changes epsilon by a factor ~1/sqrt(n) = 1e-6 less than the one before, so the order-2 value is
good to about 1e-3 of its last correction (or to the 1e-18 relative these 50 digits are printed to).

Laws (add/remove, sensitivity 1, the remove direction: the larger epsilon for both):
  gauss:sigma=1.1,q=256/60000 (MNIST's DP-SGD step): A = (1-q) N(0, s^2) + q N(1, s^2), L = ln(A/N(0, s^2));
  laplace:scale=1: A = Lap(0, 1), L = |x - 1| - |x|.
Run: python3 scripts/reference/huge_n_edgeworth.py > scripts/reference/huge_n_edgeworth.txt  (mpmath 1.4; ~20 s)"""
import mpmath as mp

mp.mp.dps = 50
DELTA = mp.mpf("1e-5")
N = mp.mpf(10) ** 12


def epsilons(A, L, pts, n=N, delta=DELTA):
    m1 = mp.quad(lambda x: A(x) * L(x), pts)
    k2 = mp.quad(lambda x: A(x) * (L(x) - m1) ** 2, pts)
    k3 = mp.quad(lambda x: A(x) * (L(x) - m1) ** 3, pts)
    k4 = mp.quad(lambda x: A(x) * (L(x) - m1) ** 4, pts) - 3 * k2**2
    mu, sd = n * m1, mp.sqrt(n * k2)
    g1, g2 = k3 / (k2 ** mp.mpf(1.5) * mp.sqrt(n)), k4 / (k2**2 * n)

    def delta_of(e, order):
        we = (e - mu) / sd

        def dens(w):
            c = 1
            if order >= 1:
                c += g1 / 6 * (w**3 - 3 * w)
            if order >= 2:
                c += g2 / 24 * (w**4 - 6 * w**2 + 3) + g1**2 / 72 * (w**6 - 15 * w**4 + 45 * w**2 - 15)
            return mp.npdf(w) * c

        f = lambda w: (1 - mp.exp(-(w - we) * sd)) * dens(w)
        return mp.quad(f, [we, we + 1 / sd, we + 10 / sd, we + 1, we + 40])

    return [mp.findroot(lambda e: delta_of(e, order) - delta, mu + 4.2 * sd) for order in (0, 1, 2)]


if __name__ == "__main__":
    s, q = mp.mpf("1.1"), mp.mpf(256) / 60000
    phi = lambda x, m: mp.exp(-((x - m) ** 2) / (2 * s * s)) / (s * mp.sqrt(2 * mp.pi))
    mix = lambda x: (1 - q) * phi(x, 0) + q * phi(x, 1)
    cases = [
        ("gauss:sigma=1.1,q=256/60000,n=1000000000000", mix, lambda x: mp.log(mix(x) / phi(x, 0)), [-mp.inf, -5, 0, 1, 5, mp.inf]),
        ("laplace:scale=1,n=1000000000000", lambda x: mp.exp(-abs(x)) / 2, lambda x: abs(x - 1) - abs(x), [-mp.inf, 0, 1, mp.inf]),
    ]
    print("# mech delta epsilon_order0 epsilon_order1 epsilon_order2")
    for spec, A, L, pts in cases:
        e = epsilons(A, L, pts)
        print(spec, mp.nstr(DELTA, 3), " ".join(mp.nstr(x, 30, min_fixed=0, max_fixed=0) for x in e))
