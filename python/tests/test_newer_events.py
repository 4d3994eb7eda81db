"""dp_accounting's newer events (issue 54 item 5), added after 0.6.0: DiscreteGaussianDpEvent,
EpsilonDeltaDpEvent, ExponentialMechanismDpEvent, PermuteAndFlipDpEvent. 0.6.0 does not have them, so the
tests build stand-ins with the class names and attributes of dp_accounting's dp_event.py (the conversion is
duck-typed on the class name)."""
from fractions import Fraction

import pytest

import tightdp
from dp_accounting import dp_event


def stand_in(name, **attrs):
    """An object of a class called `name` with the given attributes."""
    obj = type(name, (), {})()
    for k, v in attrs.items():
        setattr(obj, k, v)
    return obj


def same(a, b):
    return a.lo == b.lo and a.hi == b.hi


def test_discrete_gaussian_one_coordinate_is_the_lattice_law():
    ev = dp_event.SelfComposedDpEvent(stand_in("DiscreteGaussianDpEvent", sigma=2.0, sensitivity=1.5, dimension=1), 10)
    got = tightdp.from_dp_event(ev).epsilon("1e-6")
    # an integer-valued query moves by at most floor(1.5) = 1
    assert same(got, tightdp.from_mechs(["dgauss:sigma2=4,mu=1,n=10"]).epsilon("1e-6"))
    assert got.trust == "certified"


def test_discrete_gaussian_of_unknown_dimension_is_its_zcdp_bound():
    ev = dp_event.SelfComposedDpEvent(stand_in("DiscreteGaussianDpEvent", sigma=2.0, sensitivity=1.0, dimension=None), 10)
    got = tightdp.from_dp_event(ev).epsilon("1e-6")
    assert same(got, tightdp.Zcdp(Fraction(1, 8), n=10).epsilon("1e-6")) and got.trust == "certified-bound"
    # the bound lies above the one-coordinate law's exact value
    exact = tightdp.from_mechs(["dgauss:sigma2=4,mu=1,n=10"]).epsilon("1e-6")
    assert got.lo > exact.hi


def test_stated_and_epsilon_dp_events_are_their_worst_case_pairs():
    for name in ("ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent"):
        ev = dp_event.SelfComposedDpEvent(stand_in(name, epsilon=0.5), 4)
        assert same(tightdp.from_dp_event(ev).delta(1), tightdp.ApproxDp("0.5", n=4).delta(1))
        assert tightdp.PLDAccountant().supports(ev)
        # epsilon 0: the output does not depend on the data
        assert tightdp.PLDAccountant().compose(stand_in(name, epsilon=0.0)).get_epsilon(1e-6) == 0
    ev = dp_event.SelfComposedDpEvent(stand_in("EpsilonDeltaDpEvent", epsilon=1.0, delta=1e-6), 3)
    got = tightdp.from_dp_event(ev).epsilon("1e-5")
    assert same(got, tightdp.ApproxDp(1, "1e-6", n=3).epsilon("1e-5")) and got.trust == "certified-bound"


def test_mistakes_are_refused():
    with pytest.raises(tightdp.InputError, match="epsilon must be >= 0"):
        tightdp.from_dp_event(stand_in("ExponentialMechanismDpEvent", epsilon=-1.0))
    with pytest.raises(tightdp.InputError, match="delta in"):
        tightdp.from_dp_event(stand_in("EpsilonDeltaDpEvent", epsilon=1.0, delta=1.5))
    assert not tightdp.PLDAccountant().supports(stand_in("DiscreteGaussianDpEvent", sigma=-1.0, sensitivity=1.0, dimension=1))
    # sensitivity 0, any dimension: nothing moves (dp_accounting: rho = 0)
    for dim in (None, 3):
        assert tightdp.PLDAccountant().compose(stand_in("DiscreteGaussianDpEvent", sigma=1.0, sensitivity=0.0, dimension=dim)).get_epsilon(1e-6) == 0
    # no noise: not private, as dp_accounting
    assert tightdp.PLDAccountant().compose(stand_in("DiscreteGaussianDpEvent", sigma=0.0, sensitivity=1.0, dimension=1)).get_epsilon(1e-6) == float("inf")
