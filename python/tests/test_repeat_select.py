"""Repeat-and-select from Python (issue 54 item 5): dp_accounting's RepeatAndSelectDpEvent through
from_dp_event and PLDAccountant, a certified bound through Renyi divergences, beside dp_accounting's own
RDP accountant in the same run."""
from fractions import Fraction

import pytest

import tightdp

dp_event = pytest.importorskip("dp_accounting.dp_event")
rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")


def dp_epsilon(event, delta):
    acc = rdp.RdpAccountant()
    acc.compose(event)
    return acc.get_epsilon(delta)


@pytest.mark.parametrize("shape", [0.0, 1.0, 2.5, float("inf")])
def test_the_bound_is_dp_accountings_rdp_bound(shape):
    # the same theorems on the same orders; dp_accounting's gamma is bisected to 1e-9 on the safe side
    ev = dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(2.0), 10.0, shape)
    e = tightdp.from_dp_event(ev).epsilon("1e-6")
    want = dp_epsilon(ev, 1e-6)
    assert e.trust == "certified-bound" and e.method == "renyi"
    assert -3e-9 <= (float(e.hi) - want) / want <= 1e-13


def test_pld_accountant_takes_the_event_composed_with_others():
    ev = dp_event.ComposedDpEvent([
        dp_event.RepeatAndSelectDpEvent(dp_event.LaplaceDpEvent(3.0), 4.0, 0.0),
        dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(5.0), 2),
    ])
    acc = tightdp.PLDAccountant()
    assert acc.supports(ev)
    acc.compose(ev)
    got = acc.get_epsilon(1e-5)
    want = dp_epsilon(ev, 1e-5)
    assert abs(got - want) <= 1e-9 * want
    assert acc.epsilon(1e-5).trust == "certified-bound"


def test_bad_and_empty_events():
    g = dp_event.GaussianDpEvent(1.0)
    with pytest.raises(tightdp.InputError, match="at least 1"):
        tightdp.from_dp_event(dp_event.RepeatAndSelectDpEvent(g, 0.5, 1.0))
    with pytest.raises(tightdp.InputError, match="shape must be >= 0"):
        tightdp.from_dp_event(dp_event.RepeatAndSelectDpEvent(g, 2.0, -1.0))
    assert not tightdp.PLDAccountant().supports(dp_event.RepeatAndSelectDpEvent(g, 0.5, 1.0))
    # the selected run of nothing releases nothing
    acc = tightdp.PLDAccountant()
    acc.compose(dp_event.RepeatAndSelectDpEvent(dp_event.NoOpDpEvent(), 3.0, 1.0))
    assert acc.get_epsilon(1e-5) == 0
    # randomized response inside: replace neighbours, as dp_accounting's accountants require
    rr = dp_event.RandomizedResponseDpEvent(Fraction(1, 2), 2)
    assert tightdp.from_dp_event(dp_event.RepeatAndSelectDpEvent(rr, 2.0, 1.0)).neighbors == "replace"
