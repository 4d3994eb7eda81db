#!/usr/bin/env python3
"""Reference values of the Laplace mechanism's loss moment generating function M(s) = E_A[e^{sL}] at complex
s = c + it, for `noise::mgf` (Mgf::Laplace), by mpmath at 40 digits, independently of tightdp's closed form:
from the data space, A = Lap(0, b), B = Lap(mu, b), L(x) = (|x - mu| - |x|)/b, the integral of
p_A(x) e^{s L(x)} over the three stretches x < 0, 0 < x < mu, x > mu by mpmath's quadrature.
Run: python3 scripts/reference/laplace_mgf.py > scripts/reference/laplace_mgf.txt"""
from fractions import Fraction

from mpmath import mp, mpf, mpc, exp, quad, inf, nstr, linspace

mp.dps = 40


def mgf(b, mu, s):
    dens = lambda x: exp(-abs(x) / b) / (2 * b)
    loss = lambda x: (abs(x - mu) - abs(x)) / b
    f = lambda x: dens(x) * exp(s * loss(x))
    # the middle stretch oscillates |t| 2mu/b radians: cut into pieces of at most one radian
    pieces = max(1, int(abs(s.imag) * 2 * mu / b) + 1)
    return quad(f, [-inf, 0]) + quad(f, linspace(0, mu, pieces + 1)) + quad(f, [mu, inf])


def main():
    print("# b mu c t Re(M) Im(M)")
    for b, mu in [("1", "1"), ("10", "1"), ("1/2", "3")]:
        bq = Fraction(b)
        bf = mpf(bq.numerator) / bq.denominator
        for c, t in [("0", "0"), ("0.75", "0"), ("0.75", "2.5"), ("2", "40"), ("0.125", "1000")]:
            m = mgf(bf, mpf(mu), mpc(mpf(c), mpf(t)))
            print(b, mu, c, t, nstr(m.real, 32), nstr(m.imag, 32))


if __name__ == "__main__":
    main()
