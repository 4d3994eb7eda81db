"""Mechanisms beyond the lattice laws from Python (issue 36): the Gaussian mechanism (closed form),
the Poisson-subsampled Gaussian (pld grid), and dp_accounting's DpEvent vocabulary."""
from fractions import Fraction

import pytest

import tightdp


def test_gaussian_closed_form_matches_mpmath():
    # scripts/reference/gaussian_closed_forms.txt: epsilon(1e-10) of N(0, 4), sensitivity 1
    want = Fraction("3.099430330243196050640159411073962027492")
    e = tightdp.Gaussian(sigma2=4).epsilon("1e-10")
    assert want in e and e.method == "closed-form" and e.digits >= 20
    # sigma = 2 is the same mechanism; 40 releases of variance 160 compose to it
    assert want in tightdp.Gaussian(sigma=2).epsilon("1e-10")
    assert want in tightdp.Gaussian(sigma2=160, n=40).epsilon("1e-10")


def test_subsampled_gaussian_delta_matches_mpmath():
    # scripts/reference/subsampled_gaussian.txt: q = 0.2, sigma^2 = 0.5, delta(0.5), the remove pair
    # (the add pair's is 0)
    d = tightdp.Gaussian(sigma2="0.5", sampling_prob="0.2").delta("0.5", digits=4)
    assert Fraction("0.03972710167217785343487236759602039688482") in d
    assert d.method == "pld-grid" and d.digits >= 4


def test_from_mechs_spelling_is_the_command_line_one():
    c = tightdp.from_mechs(["gauss:sigma2=4", "dgauss:sigma2=5,n=10"])
    with pytest.raises(tightdp.InputError, match="cannot be composed"):
        c.epsilon("1e-5")
    with pytest.raises(tightdp.InputError, match="unknown noise"):
        tightdp.from_mechs("gaus:sigma2=1")
    with pytest.raises(tightdp.InputError, match="add-remove"):
        tightdp.Gaussian(sigma=1, sampling_prob="0.1", neighbors="replace")
    with pytest.raises(tightdp.InputError):
        tightdp.Gaussian(sigma=1, sigma2=1)


def test_dp_event_is_accounted_consistently_with_dp_accounting():
    dp = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    event = dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(0.01, dp.GaussianDpEvent(1.0)), 1000)
    e = tightdp.from_dp_event(event).epsilon("1e-5", digits=3)
    assert e.method == "pld-grid"
    # dp_accounting's PLD accountant (pessimistic by default: an upper bound of epsilon up to its
    # floating point) must not be below tightdp's certified lower end
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event)
    assert e.lo <= Fraction(acc.get_epsilon(1e-5)) + Fraction(1, 10**9)
    assert e.hi - e.lo < Fraction(1, 100)
    # a Gaussian event: the closed form
    g = tightdp.from_dp_event(dp.SelfComposedDpEvent(dp.GaussianDpEvent(2.0), 1))
    assert Fraction("3.099430330243196050640159411073962027492") in g.epsilon("1e-10")
    with pytest.raises(tightdp.InputError, match="not supported yet"):
        tightdp.from_dp_event(dp.LaplaceDpEvent(1.0))


def test_pld_accountant_follows_dp_accountings_usage_pattern():
    dp = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    event = dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(0.01, dp.GaussianDpEvent(1.0)), 1000)
    ours = tightdp.PLDAccountant()
    assert ours.supports(event) and not ours.supports(dp.LaplaceDpEvent(1.0))
    assert ours.get_epsilon(1e-5) == 0.0
    ours.compose(event)
    theirs = pld_privacy_accountant.PLDAccountant()
    theirs.compose(event)
    e, t = ours.get_epsilon(1e-5), theirs.get_epsilon(1e-5)
    # the certified upper end (4 digits) and dp_accounting's pessimistic estimate agree to 1e-3
    assert isinstance(e, float) and abs(e - t) <= 1e-3 * t, (e, t)
    assert e >= float(ours.epsilon(1e-5).lo)
    # epsilon_hi >= epsilon(1e-5), so delta(epsilon_hi) <= 1e-5: the certified lower end must say so
    d = ours.delta(e)
    assert 0 < d.lo <= Fraction(1, 10**5) and ours.get_delta(e) >= float(d.lo)
    with pytest.raises(tightdp.InputError, match="not supported yet"):
        ours.compose(dp.LaplaceDpEvent(1.0))
