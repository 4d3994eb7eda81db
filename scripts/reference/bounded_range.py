"""Reference values for src/noise/bounded_range.rs and the bounded-range rows of the exact Laplace sum
(src/account/engines/laplace_sum.rs), by mpmath, from the two-point pairs and the densities themselves.

An epsilon-bounded-range pair whose loss lies in [t - eps, t] is, up to post-processing, the two-point pair
with losses t (A-mass p_t = (e^eps - e^t)/(e^eps - 1), B-mass p_t e^-t) and t - eps (the rest).

1. "single eps e1 value": sup over t in [0, eps] of the two-point pairs' delta(e1), by golden-section search
   over t (not the closed form the law uses).
2. "renyi eps alpha value": sup over t in [0, eps] of the two-point pairs' Renyi divergence
   ln(p_t e^{b t} + (1 - p_t) e^{b (t - eps)})/b, b = alpha - 1, by golden-section search.
3. "composed eps n e1 value": delta(e1) of the n-fold product of the dominating pair, whose loss has the
   A-density K e^{l/2} and B-density K e^{-l/2} on (-eps, eps), K = e^{eps/2}/(2(e^eps - 1)): the n-fold
   density is K^n e^{s/2} g_n(s), g_n the n-fold convolution of the indicator of [-eps, eps] (the
   Irwin-Hall B-spline sum_k (-1)^k C(n, k) (s + n eps - 2k eps)_+^{n-1}/(n-1)!), and
   delta(e1) = int_{e1}^{n eps} K^n (e^{s/2} - e^{e1 - s/2}) g_n(s) ds by mpmath's quadrature between knots.
4. "epsilon eps n delta value": the e1 with composed(eps, n, e1) = delta, by mpmath's root finder.
5. "rdp_epsilon eps n delta value": the Renyi route, n times the class's divergence (2.) on dp_accounting's
   orders, converted at the best order by [CKS20, Prop. 12] (the conversion of zcdp_xi.py, imported).

30 significant digits.

Run: python3 scripts/reference/bounded_range.py > scripts/reference/bounded_range.txt
"""
import os
import sys
from mpmath import mp, mpf, exp, expm1, log, binomial, factorial, quad, findroot, nstr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zcdp_xi import orders  # noqa: E402  (dp_accounting's orders)

mp.dps = 50


def golden_max(f, lo, hi, steps=240):
    g = (mp.sqrt(5) - 1) / 2
    a, b = mpf(lo), mpf(hi)
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return max(fc, fd)


def p_t(eps, t):
    return (exp(eps) - exp(t)) / expm1(eps)


def single(eps, e1):
    def delta(t):
        # atoms (loss, A-mass, B-mass); delta = sum of (A - e^{e1} B)_+
        p = p_t(eps, t)
        atoms = [(t, p, p * exp(-t)), (t - eps, 1 - p, (1 - p) * exp(eps - t))]
        return sum(max(a - exp(e1) * b, 0) for _, a, b in atoms)

    return golden_max(delta, e1, eps)


def renyi(eps, alpha):
    b = alpha - 1

    def d(t):
        p = p_t(eps, t)
        return log(p * exp(b * t) + (1 - p) * exp(b * (t - eps))) / b

    return golden_max(d, 0, eps)


def composed(eps, n, e1):
    k_n = (exp(eps / 2) / (2 * expm1(eps))) ** n

    def g(s):
        return sum((-1) ** k * binomial(n, k) * max(s + n * eps - 2 * k * eps, 0) ** (n - 1) for k in range(n + 1)) / factorial(n - 1)

    knots = [mpf(e1)] + [(2 * k - n) * eps for k in range(n + 1) if (2 * k - n) * eps > e1]
    return k_n * quad(lambda s: (exp(s / 2) - exp(e1 - s / 2)) * g(s), knots)


def epsilon(eps, n, delta):
    return findroot(lambda e1: composed(eps, n, e1) - delta, (mpf(0.1) * n * eps, mpf(0.9) * n * eps), solver="anderson")


def rdp_epsilon(eps, n, delta):
    d = mpf(delta)
    return max(min(n * renyi(eps, a) + log(1 - 1 / a) - (log(d) + log(a)) / (a - 1) for a in orders()), 0)


def main():
    half, tenth = mpf(1) / 2, mpf(1) / 10
    for eps, e1 in [(half, mpf(0)), (half, mpf(1) / 8), (mpf(2), mpf(1))]:
        print("single", nstr(eps, 5), nstr(e1, 5), nstr(single(eps, e1), 30))
    for eps, alpha in [(half, mpf(2)), (half, mpf(5) / 2), (half, mpf(10)), (mpf(2), mpf(3)), (tenth, mpf(64))]:
        print("renyi", nstr(eps, 5), nstr(alpha, 5), nstr(renyi(eps, alpha), 30))
    for eps, n, e1 in [(half, 2, mpf(1) / 4), (half, 3, mpf(1) / 2), (mpf(2), 5, mpf(3)), (tenth, 4, mpf(1) / 20)]:
        print("composed", nstr(eps, 5), n, nstr(e1, 5), nstr(composed(eps, n, e1), 30))
    for eps, n in [(half, 2), (half, 3)]:
        print("epsilon", nstr(eps, 5), n, "1e-5", nstr(epsilon(eps, n, mpf("1e-5")), 30))
    for eps, n in [(half, 3), (half, 19), (half, 20), (half, 100)]:
        print("rdp_epsilon", nstr(eps, 5), n, "1e-5", nstr(rdp_epsilon(eps, n, "1e-5"), 30))


if __name__ == "__main__":
    main()
