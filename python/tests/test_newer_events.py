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
    ev = dp_event.SelfComposedDpEvent(stand_in("PermuteAndFlipDpEvent", epsilon=0.5), 4)
    assert same(tightdp.from_dp_event(ev).delta(1), tightdp.ApproxDp("0.5", n=4).delta(1))
    for name in ("ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent"):
        assert tightdp.PLDAccountant().supports(dp_event.SelfComposedDpEvent(stand_in(name, epsilon=0.5), 4))
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


def test_the_exponential_mechanism_is_bounded_range():
    """ExponentialMechanismDpEvent(epsilon) is the epsilon-bounded-range class (src/noise/bounded_range.rs),
    below dp_accounting's epsilon-DP pair and below the epsilon^2/8-zCDP budget its users take; references
    from scripts/reference/bounded_range.txt (mpmath, 30 digits, from the two-point pairs and the densities)."""
    em = lambda eps, k: tightdp.from_dp_event(dp_event.SelfComposedDpEvent(stand_in("ExponentialMechanismDpEvent", epsilon=eps), k))
    # two releases: the dominating pair's exact sum; mpmath's root 0.966443923364365661232505551359
    got = em(0.5, 2).epsilon("1e-5")
    assert got.lo <= Fraction("0.96644392336436566123250555136") <= got.hi and got.trust == "certified-bound"
    assert got.method == "laplace-sum"
    # three: the class's Renyi divergences give the smaller bound, mpmath's 1.38666240903489116397980710922
    # (the pair's own composition is 1.39462959298960615705406623016)
    got = em(0.5, 3).epsilon("1e-5")
    assert got.method == "renyi" and abs(Fraction(got.lo) - Fraction("1.38666240903489116397980710922")) < Fraction(1, 10**28)
    assert same(got, tightdp.ExponentialMechanism("0.5", n=3).epsilon("1e-5"))
    # a hundred: below the epsilon-DP pair's composition and below epsilon^2/8-zCDP (rho = 25/8)
    got = em(0.5, 100).epsilon("1e-5")
    assert got.hi < tightdp.ApproxDp("0.5", n=100).epsilon("1e-5").lo
    assert got.hi < tightdp.Zcdp(Fraction(25, 8)).epsilon("1e-5").lo
    with pytest.raises(tightdp.InputError, match="epsilon must be >= 0"):
        tightdp.from_dp_event(stand_in("ExponentialMechanismDpEvent", epsilon=-1.0))


def test_the_exponential_mechanism_on_a_subsample_is_inverted():
    """PoissonSampledDpEvent(q, ExponentialMechanismDpEvent(epsilon)): the class's pair, subsampled, on the
    tilted Fourier inversion (src/noise/mgf_laplace_sub.rs), 20 digits, the same as
    ``ExponentialMechanism(..., sampling_prob=...)`` (the CLI's tests put it inside the pld grid's bracket); two
    releases hold mpmath's double integral of the pair's densities (scripts/reference/poisson_bounded_range_two.txt)."""
    ev = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.1, stand_in("ExponentialMechanismDpEvent", epsilon=1.0)), 100)
    got = tightdp.from_dp_event(ev).epsilon("1e-5")
    assert got.method == "tilted-fourier" and got.trust == "certified-bound" and got.digits >= 20
    assert same(got, tightdp.ExponentialMechanism(1, n=100, sampling_prob="0.1").epsilon("1e-5"))
    two = tightdp.ExponentialMechanism(2, n=2, sampling_prob="0.1").delta("1/4", digits=4)
    assert two.lo <= Fraction("0.017546838765570974599558801935932") <= two.hi


def test_a_stated_guarantee_on_a_sample_is_composed_exactly():
    """PoissonSampledDpEvent(q, EpsilonDeltaDpEvent(epsilon, delta)), which dp_accounting's PLD accountant
    refuses: the four-point pair subsampled, whose losses share no lattice, composed as its exact multinomial
    sum (src/account/engines/atoms_listed.rs), against scripts/reference/poisson_approx_dp.txt (mpmath's
    hockey-stick sum over the outcomes' count vectors); PermuteAndFlipDpEvent is the pure case."""
    ev = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.1, stand_in("EpsilonDeltaDpEvent", epsilon=1.0, delta=0.0)), 100)
    got = tightdp.from_dp_event(ev).epsilon("1e-5", digits=30)
    assert got.method == "exact-atoms" and got.trust == "certified-bound" and got.digits >= 30
    assert got.lo <= Fraction("4.73235464450878418173976774654218125") and Fraction("4.73235464450878418173976774654218115") <= got.hi
    pf = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.1, stand_in("PermuteAndFlipDpEvent", epsilon=1.0)), 100)
    assert same(tightdp.from_dp_event(pf).epsilon("1e-5", digits=30), got)
    assert same(tightdp.ApproxDp(1, n=100, sampling_prob="0.1").epsilon("1e-5", digits=30), got)
    two = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.1, stand_in("EpsilonDeltaDpEvent", epsilon=1.0, delta=1e-7)), 30)
    d = tightdp.from_dp_event(two).delta(1)
    assert d.lo <= Fraction("0.015950746433414927434934376380883660") and Fraction("0.015950746433414927434934376380883650") <= d.hi
    # on batches drawn without replacement (replace neighbours): the law -a, 0, a on its own step a, exact
    # (scripts/reference/wor_approx_dp.txt: C_g(f)'s tensor power worked out in mpmath)
    wor = dp_event.SelfComposedDpEvent(dp_event.SampledWithoutReplacementDpEvent(1000, 100, stand_in("EpsilonDeltaDpEvent", epsilon=1.0, delta=0.0)), 10)
    w = tightdp.from_dp_event(wor).epsilon("1e-5", digits=30)
    assert w.method == "exact-atoms" and w.trust == "certified-bound"
    assert w.lo <= Fraction("1.36179909030900791197449130468453045") and Fraction("1.36179909030900791197449130468453035") <= w.hi


def test_the_exponential_mechanisms_epsilon_is_calibrated():
    """The largest epsilon of three exponential mechanisms within the Renyi route's value at 1/2 (mpmath,
    scripts/reference/bounded_range.txt: 1.38666240903489116397980710922) is 1/2 on the resolution 1/100."""
    m = tightdp.max_exponential_mechanism_epsilon("1.3866624090348911639798071093", "1e-5", releases=3, resolution="1/100")
    assert (m.mech_epsilon, m.mech_epsilon_above) == (Fraction(1, 2), Fraction(51, 100))
    assert m.measure.hi <= Fraction("1.3866624090348911639798071093") < m.measure_above.lo
    assert m.measure.trust == "certified-bound"
    adv = tightdp.max_exponential_mechanism_epsilon(releases=10, target_advantage="0.5")
    assert adv.measure.hi <= Fraction("0.5") < adv.measure_above.lo
    with pytest.raises(tightdp.InputError, match="missed even at epsilon"):
        tightdp.max_exponential_mechanism_epsilon("0.01", "1e-5", releases=1000, resolution="0.1")


def test_other_mechanisms_epsilon_is_calibrated():
    """The largest per-release epsilon of a stated guarantee on a Poisson sample, of randomized response and of
    the Laplace mechanism, against mpmath references at eps0 (independent of the code; the search decides at
    up to 6 digits, so each target sits a few millionths above its reference): 100 x (1, 0)-DP at q = 1/10,
    4.73235464450878418173976774654218 (scripts/reference/poisson_approx_dp.txt); 50 binary reports at 1,
    45.676142751655838404328901406403 (randomized_response_epsilon.txt); 100 Laplace releases at 1/10,
    4.220347325080359582009961 (laplace_many.txt)."""
    cases = [
        ("approx_dp", "4.73237", "4.73235464450878418173976774654218", 1, {"releases": 100, "sampling_prob": "1/10"}),
        ("randomized_response", "45.6763", "45.676142751655838404328901406403", 1, {"releases": 50}),
        ("laplace", "4.22036", "4.220347325080359582009961", Fraction(1, 10), {"releases": 100}),
    ]
    for mechanism, target, reference, eps0, kw in cases:
        m = tightdp.max_mechanism_epsilon(mechanism, target, "1e-5", resolution="1/100", **kw)
        assert (m.mech_epsilon, m.mech_epsilon_above) == (eps0, eps0 + Fraction(1, 100)), mechanism
        assert m.measure.lo <= Fraction(reference) <= m.measure.hi <= Fraction(target) < m.measure_above.lo, mechanism
    with pytest.raises(tightdp.InputError, match="mechanism must be one of"):
        tightdp.max_mechanism_epsilon("gaussian", 1, "1e-5")
    with pytest.raises(tightdp.InputError, match="delta= is the stated guarantee's"):
        tightdp.max_mechanism_epsilon("laplace", 1, "1e-5", delta="1e-6")
    with pytest.raises(tightdp.InputError, match="not calibrated on a Poisson sample under replace"):
        tightdp.max_mechanism_epsilon("laplace", 1, "1e-5", sampling_prob="0.1", neighbors="replace")
