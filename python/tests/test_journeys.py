"""Issue 32: the data scientist's journey end to end — someone who knows dp_accounting, in Python, with a
release of their own: the allocation from a dict, its exact guarantee at several deltas, an attacker's
power, the noise that keeps the guarantee, and the same events dp_accounting would account, side by side.
Every step uses only what the previous one returned; references are named where numbers are checked."""
from fractions import Fraction

import pytest

import tightdp

OWN = {"name": "own release", "rho": "1", "level": [
    {"name": "A", "share": "0.5", "query_shares": ["1/4", "3/4"]},
    {"name": "B", "query_rho": ["1/10", "1/5"]},
    {"name": "C", "share": "0.2", "queries": 3},
]}


def test_a_data_scientist_accounts_their_own_release_from_python():
    a = tightdp.Allocation.from_dict(OWN)
    assert a.levels == ["A", "B", "C"]
    whole = a.overall()
    assert whole.rho == 1
    # the exact guarantee at two deltas (vectorised), the scalar call agreeing with the vector one
    lo, hi = whole.epsilon(["1e-10", "1e-5"])
    e10 = whole.epsilon("1e-10")
    assert e10.digits >= 20 and e10.trust == "certified"
    assert lo[0] <= float(e10.lo) and float(e10.hi) <= hi[0] and hi[1] < lo[0]
    # the same composition built from the variances the file implies (sigma2 = 1/(2 rho) per query):
    # 4, 4/3, 5, 5/2 and three of 15/2 — an independent spelling of the same release
    by_hand = tightdp.from_mechs(["dgauss:sigma2=4", "dgauss:sigma2=4/3", "dgauss:sigma2=5", "dgauss:sigma2=5/2",
                                  "dgauss:sigma2=15/2,n=3"])
    h = by_hand.epsilon("1e-10")
    assert (h.lo, h.hi) == (e10.lo, e10.hi)
    # the zCDP conversion the release would have quoted is looser than the exact value
    assert tightdp.zcdp_bs(whole.rho, "1e-10") > e10.hi
    # an attacker at FPR 1e-3: certified, below the zCDP figure
    r = whole.attack(fpr=["1e-3"], prior=["0.5"])
    assert Fraction(1, 1000) < r.tpr["1e-3"] < 1 and r.advantage < 1
    # the noise factor that keeps epsilon(1e-10) at 12: its ends bracket the target
    c = tightdp.calibrate(whole, "1e-10", 12)
    assert 0 < c.lo <= c.hi < 1


# the default tier's grid budget answers 3 digits in a tenth of a second; the heavy tier's, 4 in seven
@pytest.mark.parametrize("budget", [10**8, pytest.param(10**10, marks=pytest.mark.heavy)])
def test_a_dp_accounting_user_switches_accountants_in_one_line(budget):
    dp = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.pld import pld_privacy_accountant

    events = [dp.SelfComposedDpEvent(dp.GaussianDpEvent(2.0), 3), dp.LaplaceDpEvent(4.0),
              dp.SelfComposedDpEvent(dp.DiscreteLaplaceDpEvent(0.25, 1), 2)]
    theirs = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    ours = tightdp.PLDAccountant(grid_budget=budget)
    for e in events[:2]:  # the continuous laws (the discrete Laplace is composed alone below)
        assert ours.supports(e) and theirs.supports(e)
        ours.compose(e)
        theirs.compose(e)
    e_ours, e_theirs = ours.get_epsilon(1e-6), theirs.get_epsilon(1e-6)
    # dp_accounting's pessimistic estimate is an upper bound up to its floating point: not below our
    # certified lower end; and the two agree to its discretisation
    assert float(ours.epsilon(1e-6).lo) <= e_theirs + 1e-9 and abs(e_ours - e_theirs) < 1e-2 * e_theirs
    # the discrete Laplace events: tightdp's exact lattice, dp_accounting's pessimistic value above it
    dl = tightdp.PLDAccountant()
    dl.compose(events[2])
    t = pld_privacy_accountant.PLDAccountant()
    t.compose(events[2])
    ex = dl.epsilon(1e-6)
    assert ex.digits >= 20 and float(ex.lo) <= t.get_epsilon(1e-6) + 1e-9
