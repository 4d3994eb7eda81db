"""Large compositions from Python (issue 33): the accountant's lattice Fourier engine answers
epsilon, delta and calibrate at n = 1e5 with the digits asked, against independent references."""
from fractions import Fraction

import tightdp


def test_epsilon_at_n_1e5_is_certified_to_20_digits():
    # reference: issue 33 / tests/limits_cli.rs (mpmath, Poisson summation): 1652.94282011111...
    r = tightdp.DiscreteGaussian("37.7", n=100000).epsilon("1e-10")
    assert r.method == "lattice-fourier"
    assert r.digits >= 20
    assert Fraction("1652.94282011111") - Fraction(1, 10**11) <= r.hi
    assert r.lo <= Fraction("1652.94282011111") + Fraction(1, 10**11)


def test_calibrate_at_n_1e5_contains_the_mpmath_factor():
    # reference factors: scripts/reference/calibrate_large_n.py (mpmath, 50 digits, direct Gaussian
    # lattice sums; output in calibrate_large_n.txt)
    for s2, target, ref in [("37.7", 1000, "1.75917369046466596493"), ("5", 5000, "2.27068729536545499518")]:
        c = tightdp.calibrate(tightdp.DiscreteGaussian(s2, n=100000), "1e-10", target)
        assert c.lo <= Fraction(ref) <= c.hi, (s2, c)
        assert c.hi - c.lo < Fraction(1, 10**9)
