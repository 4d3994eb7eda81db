"""Reference values for src/noise/allocation (random allocation's Renyi divergences), by mpmath.

In standard units (noise 1, sensitivity mu) one epoch's likelihood ratio under B = N(0, I) is
M = (1/t) sum_i X_i, X_i = exp(mu Z_i - mu^2/2) independent.

1. E[M^a] for small t by the multinomial sum over every composition k_1 + ... + k_t = a
   (E[prod X_i^{k_i}] = prod exp(mu^2 k_i (k_i - 1)/2)), enumerated directly (not as a series power);
   for t = 234, a = 2 by the closed form (w_2 + t - 1)/t.
2. E[M^{-b}] for t = 2 as a two-dimensional integral over (z_1, z_2) (tanh-sinh quadrature), and for
   t = 234 through m^{-b} = Gamma(b)^{-1} int_0^inf s^{b-1} e^{-s m} ds:
   E[M^{-b}] = Gamma(b)^{-1} int_0^inf s^{b-1} psi(s/t)^t ds, psi(theta) = E[exp(-theta X)], both
   integrals by mpmath's quadrature (psi on [-12, 12] in z; the integrand beyond is below 1e-30).

3. One step per epoch (t = 1) is the Gaussian mechanism, D_alpha = alpha mu^2/2 in both directions: E epochs
   converted at the best of dp_accounting's orders (1.1, 1.2, ..., 10.9, 11, ..., 63, 128, 256, 512, 1024) by
   [CKS20, Prop. 12], eps = tau + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha - 1), and
   delta = min(1, exp((alpha-1)(tau - eps + ln(1-1/alpha)))/alpha, sqrt(1 - exp(-tau))): lines
   "cks-epsilon mu2 epochs delta value" and "cks-delta mu2 epochs eps value". And the exact trade-off
   function of those E epochs of the Gaussian mechanism (mu-GDP with mu = sqrt(E mu2) [DRS22]),
   Phi(Phi^-1(1 - alpha) - mu): "gdp-tradeoff mu2 epochs alpha value" (every bound must lie below it).

Each line of 1 and 2: kind t mu2 order value (30 significant digits for 1; 12 for 2, the quadrature's own agreement
between two degrees being better than 1e-14 relative).

Run: python3 scripts/reference/allocation.py > scripts/reference/allocation.txt
"""
from itertools import product
from mpmath import mp, mpf, exp, quad, npdf, ncdf, gamma, factorial, log, nstr

mp.dps = 30


def w(mu2, k):
    return exp(mu2 * k * (k - 1) / 2)


def positive_moment(t, mu2, a):
    """E[M^a] by enumerating the compositions of a into t parts."""
    total = mpf(0)
    for ks in product(range(a + 1), repeat=t):
        if sum(ks) != a:
            continue
        coef = factorial(a)
        term = mpf(1)
        for k in ks:
            coef /= factorial(k)
            term *= w(mu2, k)
        total += coef * term
    return total / mpf(t) ** a


def negative_moment_t2(mu2, b):
    mu = mp.sqrt(mu2)
    f = lambda z1, z2: npdf(z1) * npdf(z2) * ((exp(mu * z1 - mu2 / 2) + exp(mu * z2 - mu2 / 2)) / 2) ** (-b)
    return quad(f, [-12, 0, 12], [-12, 0, 12])


def negative_moment(t, mu2, b):
    mu = mp.sqrt(mu2)

    def psi(theta):
        return quad(lambda z: npdf(z) * exp(-theta * exp(mu * z - mu2 / 2)), [-12, -4, 0, 4, 12])

    g = lambda s: s ** (b - 1) * psi(s / t) ** t
    top = 6 * b + 200
    return quad(g, [0, 1, b, 2 * b + 10, 4 * b + 40, top]) / gamma(b)


def orders():
    return [1 + mpf(x) / 10 for x in range(1, 100)] + [mpf(a) for a in range(11, 64)] + [mpf(a) for a in (128, 256, 512, 1024)]


def cks(mu2, epochs):
    mp.dps = 40
    for delta in (mpf("1e-5"),):
        e = min(epochs * a * mu2 / 2 + log(1 - 1 / a) - (log(delta) + log(a)) / (a - 1) for a in orders())
        print("cks-epsilon", nstr(mu2, 20), epochs, "1e-5", nstr(max(e, 0), 30))
    for eps in (mpf(1),):
        cands = [mpf(1)]
        for a in orders():
            tau = epochs * a * mu2 / 2
            cands.append(exp((a - 1) * (tau - eps + log(1 - 1 / a))) / a)
            cands.append(mp.sqrt(1 - exp(-tau)))
        print("cks-delta", nstr(mu2, 20), epochs, "1", nstr(min(cands), 30))


def gdp_tradeoff(mu2, epochs, alpha):
    mp.dps = 40
    mu = mp.sqrt(epochs * mu2)
    z = mp.sqrt(2) * mp.erfinv(1 - 2 * alpha)  # Phi^-1(1 - alpha)
    print("gdp-tradeoff", nstr(mu2, 20), epochs, nstr(alpha, 10), nstr(ncdf(z - mu), 30))


def main():
    cks(mpf(1) / 4, 10)
    gdp_tradeoff(mpf(1) / 4, 10, mpf("0.01"))
    mp.dps = 30
    for t, mu2, orders in [(3, mpf(1) / 2, range(2, 8)), (4, mpf(121) / 100, range(2, 7)), (2, mpf(9) / 4, range(2, 9))]:
        for a in orders:
            print("positive", t, nstr(mu2, 30), a, nstr(positive_moment(t, mu2, a), 30))
    mu2 = mpf(100) / 121
    print("positive", 234, nstr(mu2, 30), 2, nstr((w(mu2, 2) + 233) / 234, 30))
    mp.dps = 20
    for b in (1, 2, 3, 5):
        print("negative", 2, "0.5", b, nstr(negative_moment_t2(mpf(1) / 2, b), 14))
    for b in (1, 2, 4, 8, 15, 30):
        print("negative", 234, nstr(mu2, 20), b, nstr(negative_moment(234, mu2, b), 14))


if __name__ == "__main__":
    main()
