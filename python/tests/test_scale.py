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


def test_calibration_at_a_million_queries_uses_the_flat_cost_engine():
    # 10^6 queries of N_Z(0, 10^4): the exact lattice is too large to evaluate ~30 times, the lattice
    # Fourier inversion's cost does not grow with n. Cross-check with another engine (the smoothed
    # inversion, 9 digits here): a factor 1e-6 above the certified bracket gives epsilon below the target,
    # 1e-6 below it gives epsilon above (epsilon moves ~5e-5 there, the smoothed bracket is ~1e-7 wide)
    c = tightdp.calibrate(tightdp.DiscreteGaussian("10000", n=1000000), "1e-10", 100)
    lo, hi = Fraction(c.lo), Fraction(c.hi)
    assert hi - lo < Fraction(1, 10**9) * hi
    step = Fraction(1, 10**6)
    above = tightdp.DiscreteGaussian(10000 * hi * (1 + step), n=1000000).epsilon("1e-10", method="smoothed", digits=9)
    below = tightdp.DiscreteGaussian(10000 * lo * (1 - step), n=1000000).epsilon("1e-10", method="smoothed", digits=9)
    assert above.hi < 100 < below.lo
