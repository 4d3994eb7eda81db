#!/usr/bin/env python3
"""Reference values of the moment generating function of the Poisson-subsampled exponential mechanism's
privacy loss (add/remove neighbours), M(c + it) on vertical lines (src/noise/mgf_laplace_sub.rs,
`LaplaceSub::bounded_range`), by mpmath's adaptive quadrature at 40 digits over the data, independently of
tightdp.

The mechanism is accounted by the dominating pair of the epsilon-bounded-range class [DDR20, sec. 4]
(src/noise/bounded_range.rs; scripts/reference/bounded_range.py checks that pair against the two-point
pairs): on the output x in (-eps, eps)

  P(x) = e^{(eps + x)/2} / (2 (e^eps - 1)),    Q(x) = e^{(eps - x)/2} / (2 (e^eps - 1)).

This script checks that P and Q are probability densities and that one release's hockey-stick divergence is
the class's closed form (e^{eps/2} - e^{e'/2})^2/(e^eps - 1), then takes the subsampled pair
B = Q, A = (1 - q) Q + q P:

  remove: M(s) = int A(x) (A(x)/B(x))^s dx,    add: M(s) = int B(x) (B(x)/A(x))^s dx.

The interval is cut into 64 pieces (the phase turns up to ~200 times at the largest t); mpmath's own error
estimate is printed beside each value (the tests take the value to 25 significant digits).
Run: python3 scripts/reference/poisson_bounded_range_mgf.py > scripts/reference/poisson_bounded_range_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, log, quad, nstr, expm1

mp.dps = 40


def frac(x):
    return mpf(x.numerator) / x.denominator


def pair(eps):
    c = 2 * expm1(eps)
    return (lambda x: exp((eps + x) / 2) / c), (lambda x: exp((eps - x) / 2) / c)


def pieces(eps):
    return [-eps + 2 * eps * j / 64 for j in range(65)]


def check_pair(eps):
    p, q = pair(eps)
    for dens in (p, q):
        assert abs(quad(dens, pieces(eps)) - 1) < mpf(10) ** -35
    for e1 in (mpf(0), eps / 3, eps / 2):
        # one release: delta(e1) = int (P - e^{e1} Q)_+, P > e^{e1} Q where x > e1
        hs = quad(lambda x: p(x) - exp(e1) * q(x), [e1, eps])
        closed = (exp(eps / 2) - exp(e1 / 2)) ** 2 / expm1(eps)
        assert abs(hs - closed) < mpf(10) ** -35, (eps, e1, hs, closed)


def mgf(q, eps, direction, c, t):
    q, eps = frac(q), frac(eps)
    check_pair(eps)
    p_, q_ = pair(eps)
    s = mpc(c, t)

    def f(x):
        b = q_(x)
        a = (1 - q) * b + q * p_(x)
        if direction == "remove":
            return a * exp(s * (log(a) - log(b)))
        return b * exp(s * (log(b) - log(a)))

    return quad(f, pieces(eps), error=True, maxdegree=10)


CASES = [
    (Fraction(1, 10), Fraction(1), "remove", Fraction(3, 2), 0),
    (Fraction(1, 10), Fraction(1), "add", Fraction(3, 2), 0),
    (Fraction(1, 10), Fraction(1), "remove", Fraction(3, 2), 7),
    (Fraction(1, 10), Fraction(1), "add", Fraction(3, 2), 7),
    (Fraction(1, 100), Fraction(1, 2), "remove", Fraction(2), 30),
    (Fraction(1, 100), Fraction(1, 2), "add", Fraction(2), 30),
    (Fraction(1, 4), Fraction(3), "remove", Fraction(1, 4), 100),
    (Fraction(1, 4), Fraction(3), "add", Fraction(1, 4), 100),
    (Fraction(1, 2), Fraction(1, 5), "add", Fraction(7, 10), 3),
]

print("# q epsilon direction c t re im quad_error")
for q, e, d, c, t in CASES:
    v, err = mgf(q, e, d, frac(c), t)
    print(q, e, d, c, t, nstr(v.real, 32, min_fixed=0, max_fixed=0), nstr(v.imag, 32, min_fixed=0, max_fixed=0), nstr(err, 3))
