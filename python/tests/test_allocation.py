"""Random allocation from Python (issue 54 item 1): tightdp.RandomAllocation and dp_accounting's
RandomAllocationDpEvent (duck-typed on the class name: dp_accounting 0.6.0 has no such class; its attributes
are those of dp_accounting's dp_event.py at the commit that added it), a certified upper bound through
Renyi divergences, beside the shuffled batches' certified lower bound of the same pair."""
from decimal import Decimal
from fractions import Fraction

import pytest

import tightdp
from dp_accounting import dp_event


class RandomAllocationDpEvent:
    """dp_accounting's RandomAllocationDpEvent(event, num_selected, num_steps)."""

    def __init__(self, event, num_selected, num_steps):
        self.event, self.num_selected, self.num_steps = event, num_selected, num_steps


def test_one_step_is_the_gaussian_mechanism():
    # ten epochs of one step at sigma = 2 are mu-GDP, mu = sqrt(10)/2: mpmath's epsilon(1e-5) of the closed form
    # delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) [DRS22, Cor. 2.13] (40 digits; the Renyi
    # conversion gave 8.0794): a bracket of the exact value, from the random allocation's pairs
    c = tightdp.RandomAllocation(2, 1, epochs=10)
    e = c.epsilon("1e-5")
    ref = Decimal("7.511275900744782244112191997444187220423")
    assert e.lo <= ref <= e.hi and e.hi - e.lo < Decimal("1e-3") and e.trust == "certified"


def test_the_event_is_the_constructor_and_lies_above_the_attack():
    ev = dp_event.SelfComposedDpEvent(RandomAllocationDpEvent(dp_event.GaussianDpEvent(1.1), 1, 234), 60)
    up = tightdp.from_dp_event(ev).epsilon("1e-5")
    same = tightdp.RandomAllocation("1.1", 234, epochs=60).epsilon("1e-5")
    assert up.lo == same.lo and up.hi == same.hi
    low = tightdp.shuffle("1.1", 234, epochs=60, delta="1e-5", neighbors="add-remove")
    assert low.at_least < up.lo
    acc = tightdp.PLDAccountant()
    assert acc.supports(ev)
    assert abs(acc.compose(ev).get_epsilon(1e-5) - float(up.hi)) < 1e-12


def test_mistakes_are_refused():
    g = dp_event.GaussianDpEvent(1.0)
    with pytest.raises(tightdp.InputError, match=r"num_selected \(11\) must be at most num_steps \(10\)"):
        tightdp.from_dp_event(RandomAllocationDpEvent(g, 11, 10))
    with pytest.raises(tightdp.InputError, match="selected must be"):
        tightdp.RandomAllocation(1, 10, selected=0)
    with pytest.raises(tightdp.InputError, match="from 1 to steps"):
        tightdp.RandomAllocation(1, 10, selected=11)
    with pytest.raises(tightdp.InputError, match="only a GaussianDpEvent"):
        tightdp.from_dp_event(RandomAllocationDpEvent(dp_event.LaplaceDpEvent(1.0), 1, 10))
    assert not tightdp.PLDAccountant().supports(RandomAllocationDpEvent(g, 1, 0))
    with pytest.raises(tightdp.InputError, match="add/remove"):
        tightdp.PLDAccountant(neighboring_relation="replace").compose(RandomAllocationDpEvent(g, 1, 10)).get_epsilon(1e-5)
    # the record in no step: nothing released
    assert tightdp.PLDAccountant().compose(RandomAllocationDpEvent(g, 0, 10)).get_epsilon(1e-5) == 0


def test_noise_multiplier_calibrates_the_bound():
    nm = tightdp.noise_multiplier(8, "1e-5", steps=234 * 60, allocation_steps=234)
    assert nm.epsilon.trust == "certified-bound" and nm.epsilon <= 8 < nm.epsilon_below
    assert nm.sigma - nm.sigma_below == Fraction(1, 1000)
    # the same question as the constructor's epsilon at the returned noise multiplier
    assert tightdp.RandomAllocation(nm.sigma, 234, epochs=60).epsilon("1e-5").hi <= 8
    with pytest.raises(tightdp.InputError, match="whole number of epochs"):
        tightdp.noise_multiplier(8, "1e-5", steps=1000, allocation_steps=234)
    with pytest.raises(tightdp.InputError, match="not both"):
        tightdp.noise_multiplier(8, "1e-5", steps=234, allocation_steps=234, sample_rate="0.01")


def test_k_of_t_steps_is_the_composition_of_its_groups():
    # scripts/reference/allocation_k.txt (mpmath): sigma^2 = 2, k = 3 of t = 7 steps, D_3 of the composition of
    # two one-of-two and one one-of-three allocations
    d = tightdp.from_mechs(["alloc:sigma2=2,steps=7,k=3"], "add-remove").renyi(3)
    ref = Decimal("1.15660959610559021932606690038")
    assert abs(d.lo - ref) < Decimal("1e-19") and abs(d.hi - ref) < Decimal("1e-19") and d.trust == "certified-bound"
    ev = RandomAllocationDpEvent(dp_event.GaussianDpEvent(1.1), 2, 234)
    up = tightdp.from_dp_event(dp_event.SelfComposedDpEvent(ev, 60)).epsilon("1e-5")
    same = tightdp.RandomAllocation("1.1", 234, epochs=60, selected=2).epsilon("1e-5")
    # two steps of 234 per record: two one-of-117 allocations per epoch, as 120 epochs of 117 steps
    half = tightdp.RandomAllocation("1.1", 117, epochs=120).epsilon("1e-5")
    assert up.lo == same.lo == half.lo and up.hi == same.hi == half.hi and up.trust == "certified-bound"
    assert tightdp.RandomAllocation("1.1", 234, epochs=60).epsilon("1e-5").hi < up.lo
    assert tightdp.PLDAccountant().supports(ev)
    nm = tightdp.noise_multiplier(8, "1e-5", steps=234 * 60, allocation_steps=234, allocation_selected=2)
    assert tightdp.RandomAllocation(nm.sigma, 234, epochs=60, selected=2).epsilon("1e-5").hi <= 8 < nm.epsilon_below
    with pytest.raises(tightdp.InputError, match="needs allocation_steps"):
        tightdp.noise_multiplier(8, "1e-5", steps=100, allocation_selected=2)
