"""Mechanisms beyond the lattice laws from Python (issue 36): the Gaussian mechanism (closed form),
the Poisson-subsampled Gaussian (pld grid), and dp_accounting's DpEvent vocabulary."""
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

import tightdp


def holds(bracket, reference):
    """The bracket meets the reference's rounding interval (half a unit of its last printed digit)."""
    places = len(reference.split(".")[1]) if "." in reference else 0
    half = Fraction(1, 2 * 10**places)
    return bracket.lo <= Fraction(reference) + half and bracket.hi >= Fraction(reference) - half


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
    # one release: the law's own distribution functions, no grid (every digit the enclosures carry)
    assert Fraction("0.03972710167217785343487236759602039688482") in d
    assert d.method == "closed-form" and d.digits >= 20 and d.detail.startswith("one release")
    # two releases (the same file): the tilted Fourier inversion, whose line the shifted contour's decay bound
    # ends (src/noise/mgf_strip.rs; the pld grid took them before, 7 digits in 10 s)
    d2 = tightdp.Gaussian(sigma2="0.5", sampling_prob="0.2", n=2).delta("0.5", digits=4)
    assert Fraction("0.075142370403145408461") in d2 and d2.method == "tilted-fourier" and d2.digits >= 4


def test_from_mechs_spelling_is_the_command_line_one():
    c = tightdp.from_mechs(["gauss:sigma2=4", "dgauss:sigma2=5,n=10"])
    # a lattice law beside a continuous one: the pld grid, not the exact lattice
    with pytest.raises(tightdp.InputError, match='method="lattice"'):
        c.epsilon("1e-5", method="lattice")
    with pytest.raises(tightdp.InputError, match="unknown noise"):
        tightdp.from_mechs("gaus:sigma2=1")
    # Poisson subsampling under replace: the continuous laws' own pairs (scripts/reference/poisson_replace_gaussian.txt
    # and poisson_replace_others.txt, mpmath quadrature, one release); the lattice laws under replace are
    # histogram queries without a subsampled pair, and other mechanisms have none (docs/neighbors.md)
    half = Fraction(1, 2 * 10**31)
    for c, eps, want in [
        (tightdp.Gaussian(sigma2="0.5", sampling_prob="0.2", neighbors="replace"), "0.5", "0.0584178208436279872835721032965"),
        (tightdp.Laplace(scale=1, sampling_prob="0.2", neighbors="replace"), "0.2", "0.0598433761815441535162601821873"),
    ]:
        d = c.delta(eps)
        assert Fraction(want) - half <= d.hi and d.lo <= Fraction(want) + half and d.digits >= 20, (c, d)
    for m in ["rr:epsilon=1,q=0.1", "dgauss:sigma2=2,q=0.2", "dlap:scale=1,q=0.3"]:
        with pytest.raises(tightdp.InputError, match="add-remove"):
            tightdp.from_mechs(m, "replace")
    with pytest.raises(tightdp.InputError):
        tightdp.Gaussian(sigma=1, sigma2=1)


def test_dp_event_is_accounted_consistently_with_dp_accounting():
    dp = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    event = dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(0.01, dp.GaussianDpEvent(1.0)), 1000)
    # the subsampled Gaussian's moment generating function, inverted: 20 digits
    e = tightdp.from_dp_event(event).epsilon("1e-5")
    assert e.method == "tilted-fourier" and e.digits >= 20
    # dp_accounting's PLD accountant (pessimistic by default: an upper bound of epsilon up to its
    # floating point) must not be below tightdp's certified lower end
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event)
    assert e.lo <= Fraction(acc.get_epsilon(1e-5)) + Fraction(1, 10**9)
    assert e.hi - e.lo < Fraction(1, 100)
    # a Gaussian event: the closed form
    g = tightdp.from_dp_event(dp.SelfComposedDpEvent(dp.GaussianDpEvent(2.0), 1))
    assert Fraction("3.099430330243196050640159411073962027492") in g.epsilon("1e-10")
    with pytest.raises(tightdp.InputError, match="SampledWithReplacementDpEvent is not supported: a record drawn with replacement"):
        tightdp.from_dp_event(dp.SampledWithReplacementDpEvent(100, 10, dp.GaussianDpEvent(1.0)))
    with pytest.raises(tightdp.InputError, match="UnsupportedDpEvent: dp_accounting's marker"):
        tightdp.from_dp_event(dp.UnsupportedDpEvent())


def test_tree_aggregation_is_the_gaussian_of_its_l2_sensitivity():
    dp = pytest.importorskip("dp_accounting")
    mpmath = pytest.importorskip("mpmath")
    from dp_accounting.rdp import rdp_privacy_accountant

    # one epoch of 1000 steps in one tree: each record in one leaf, under D = ceil(log2(1001)) = 10 nodes
    # [KMS+21, App. D]; a list of trees counts its largest
    tree = dp.SingleEpochTreeAggregationDpEvent(5.0, 1000)
    comp = tightdp.from_dp_event(tree)
    # [BW18, Thm 8], mpmath at 50 digits: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2),
    # mu = sqrt(D)/sigma
    mpmath.mp.dps = 50
    mu = mpmath.sqrt(10) / 5
    for eps in [0, 1, 3]:
        ref = mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)
        d = comp.delta(eps)
        assert d.lo <= Decimal(mpmath.nstr(ref, 45)) <= d.hi and d.digits >= 20, (eps, d.lo, d.hi, ref)
    e = comp.epsilon("1e-5")
    numpy = pytest.importorskip("numpy")
    for counts in [[3, 1000, 7], numpy.int64(1000), numpy.array([3, 1000])]:
        same = tightdp.from_dp_event(dp.SingleEpochTreeAggregationDpEvent(5.0, counts)).epsilon("1e-5")
        assert (same.lo, same.hi) == (e.lo, e.hi), counts
    # dp_accounting accounts it through RDP (REPLACE_SPECIAL only): an upper bound of the tight epsilon
    rdp = rdp_privacy_accountant.RdpAccountant(neighboring_relation=dp.NeighboringRelation.REPLACE_SPECIAL)
    rdp.compose(dp.SelfComposedDpEvent(tree, 3))
    e3 = tightdp.from_dp_event(dp.SelfComposedDpEvent(tree, 3)).epsilon("1e-5")
    assert e3.hi < Decimal(rdp.get_epsilon(1e-5))
    assert e3.digits >= 20 and e3.method == "closed-form", e3.method
    # the accountant takes it under add-remove, refuses it under replace-one; trees of no steps release nothing
    assert tightdp.PLDAccountant().supports(tree)
    assert not tightdp.PLDAccountant("REPLACE_ONE").supports(tree)
    # dp_accounting's relation for it, REPLACE_SPECIAL, is taken as it is: the same epsilon
    special = tightdp.PLDAccountant(dp.NeighboringRelation.REPLACE_SPECIAL, digits=20)
    got = special.compose(tree, 3).epsilon("1e-5")
    assert (got.lo, got.hi) == (e3.lo, e3.hi)
    assert not special.supports(dp.PoissonSampledDpEvent(0.1, dp.GaussianDpEvent(1.0)))
    with pytest.raises(tightdp.InputError, match="releases nothing"):
        tightdp.from_dp_event(dp.SingleEpochTreeAggregationDpEvent(5.0, 0))
    for bad in [dp.SingleEpochTreeAggregationDpEvent(5.0, -1), dp.SingleEpochTreeAggregationDpEvent(0.0, 10),
                dp.SingleEpochTreeAggregationDpEvent(5.0, [])]:
        with pytest.raises(tightdp.InputError, match="SingleEpochTreeAggregationDpEvent"):
            tightdp.from_dp_event(bad)


def test_pld_accountant_follows_dp_accountings_usage_pattern():
    # the heavy test's twin: a tenth of the steps, and 3 digits (the grid stops sooner; 1e-3 still holds)
    _pld_accountant_usage(steps=100, digits=3)


@pytest.mark.heavy
def test_pld_accountant_follows_dp_accountings_usage_pattern_for_a_thousand_steps():
    _pld_accountant_usage(steps=1000, digits=None)


def _pld_accountant_usage(steps, digits):
    dp = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    event = dp.SelfComposedDpEvent(dp.PoissonSampledDpEvent(0.01, dp.GaussianDpEvent(1.0)), steps)
    # the default grid budget, and the default digits unless told
    ours = tightdp.PLDAccountant() if digits is None else tightdp.PLDAccountant(digits=digits)
    unsupported = dp.SampledWithReplacementDpEvent(100, 10, dp.GaussianDpEvent(1.0))
    assert ours.supports(event) and ours.supports(dp.LaplaceDpEvent(1.0)) and not ours.supports(unsupported)
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
    with pytest.raises(tightdp.InputError, match="SampledWithReplacementDpEvent is not supported"):
        ours.compose(unsupported)


def test_laplace_and_randomized_response_match_mpmath():
    # scripts/reference/laplace_composition.txt: two releases of Laplace(b = 2), sensitivity 1, delta(0.3)
    # (20 digits: the exact Laplace sum's bracket is narrower than their last one)
    d = tightdp.Laplace(scale=2, n=2).delta("0.3", digits=6)
    assert holds(d, "0.17199149458051171463") and d.method == "laplace-sum" and d.digits >= 6
    # the same mechanism by its pure epsilon (sensitivity / scale = 1/2)
    assert holds(tightdp.Laplace(epsilon="1/2", n=2).delta("0.3", digits=6), "0.17199149458051171463")
    # scripts/reference/laplace_many.txt (an exact convolution in Python fractions and mpmath): thirty
    # releases of Laplace(b = 1), epsilon(1e-5), to 20 digits
    e = tightdp.Laplace(scale=1, n=30).epsilon("1e-5")
    assert holds(e, "26.52003577900203949918431") and e.digits >= 20
    # scripts/reference/randomized_response.txt: eps 1/2, k = 3, 10 reports, delta(1.3)
    r = tightdp.RandomizedResponse("1/2", k=3, n=10).delta("1.3")
    assert Fraction("0.1988558227294445145401650223586028545682") in r
    with pytest.raises(tightdp.InputError):
        tightdp.Laplace(scale=1, epsilon=1)


def test_stated_guarantees_are_certified_bounds():
    # scripts/reference/approx_dp_composition.txt (mpmath, from the four-point pair [KOV15] and the
    # conversion formula [CKS20, Prop. 12] directly)
    e = tightdp.ApproxDp(1, "1e-6", n=10).epsilon("1e-5")
    assert Fraction("9.999999998967966198591428751869375212773") in e and e.trust == "certified-bound"
    z = tightdp.Zcdp("0.5").compose(tightdp.Gaussian(sigma2=4, n=3)).epsilon("1e-6")
    assert Fraction("7.188480362156053370229996916975955475957") in z and z.method == "zcdp-cks"
    with pytest.raises(tightdp.InputError, match="no rho"):
        tightdp.Zcdp(1).compose(tightdp.ApproxDp(1, "1e-9")).epsilon("1e-6")


def test_more_dp_events():
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    # LaplaceDpEvent(noise_multiplier 2) twice is Laplace(b = 2) twice (reference above)
    two = dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(2.0), 2)
    assert holds(tightdp.from_dp_event(two).delta("0.3", digits=6), "0.17199149458051171463")
    # DiscreteLaplaceDpEvent(a, C): pmf proportional to exp(-a|x|), i.e. scale 1/a, shift C
    dl = tightdp.from_dp_event(dp_event.SelfComposedDpEvent(dp_event.DiscreteLaplaceDpEvent(0.25, 1), 5))
    a, b = dl.epsilon("1e-6"), tightdp.DiscreteLaplace(4, n=5).epsilon("1e-6")
    assert (a.lo, a.hi) == (b.lo, b.hi)
    # ZCDpEvent composes through rho with the Gaussian's rho (1/8 for noise multiplier 2)
    zc = tightdp.from_dp_event(dp_event.ComposedDpEvent([dp_event.ZCDpEvent(0.5), dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(2.0), 3)]))
    assert Fraction("7.188480362156053370229996916975955475957") in zc.epsilon("1e-6")
    # RandomizedResponseDpEvent(l = 1/2, 4 buckets) keeps the own value with 1 - l 3/4 = 5/8; ten reports:
    # exact sums of scripts/reference/randomized_response_keep.txt (dp_accounting 0.6.0's own PLDAccountant
    # composes the event once whatever its count: 0.2852 there)
    rr = tightdp.from_dp_event(dp_event.SelfComposedDpEvent(dp_event.RandomizedResponseDpEvent(0.5, 4), 10))
    assert rr.neighbors == "replace"
    assert Fraction("0.9398144317700942047645122257497916070447") in rr.delta(1, digits=3)
    assert tightdp.from_dp_event(dp_event.ComposedDpEvent([dp_event.RandomizedResponseDpEvent(1.0, 4), dp_event.LaplaceDpEvent(2.0)])).neighbors == "add-remove"
    # noise_parameter 0 answers truthfully: non-private, as dp_accounting's accountants count it
    with pytest.raises(tightdp.InputError, match="without privacy"):
        tightdp.from_dp_event(dp_event.RandomizedResponseDpEvent(0.0, 4))
    with pytest.raises(tightdp.InputError, match="not supported"):
        tightdp.from_dp_event(dp_event.SampledWithReplacementDpEvent(100, 10, dp_event.GaussianDpEvent(1.0)))
    with pytest.raises(tightdp.InputError, match="amplification"):
        tightdp.from_dp_event(dp_event.PoissonSampledDpEvent(0.1, dp_event.ZCDpEvent(0.5)))
    # approximate (xi, rho)-zCDP with exact inputs, as scripts/reference/zcdp_xi.txt (mpmath) has them;
    # dp_accounting's own RDP accountant gives 9.079406222420491 for the same event (double precision)
    ev = dp_event.SelfComposedDpEvent(dp_event.ZCDpEvent(Fraction(1, 8), Fraction(1, 10)), 10)
    e = tightdp.from_dp_event(ev).epsilon("1e-5")
    assert e.trust == "certified-bound" and holds(e, "9.07940622242049231582392419857")
    assert abs(float(e.hi) - 9.079406222420491) < 1e-12
    assert tightdp.PLDAccountant().supports(ev)
    # a stated rho-zCDP guarantee bounds the trade-off function from below, under the exact one of the
    # Gaussian with that rho (sqrt(5/2)-GDP: Phi(Phi^-1(0.99) - sqrt(5/2)) = 0.77192732..., mpmath)
    f = tightdp.Zcdp(Fraction(5, 4)).tradeoff("0.01")
    assert f.trust == "certified-bound" and Fraction("0.62") < f.lo <= f.hi < Fraction("0.7719273218")
    with pytest.raises(tightdp.InputError, match="xi must be >= 0"):
        tightdp.from_dp_event(dp_event.ZCDpEvent(0.5, -0.1))


def test_poisson_sampled_gaussian_under_replace_one_matches_dp_accounting():
    # 2 digits: the pld grid's coarser steps (1.4 s; the heavy twin asks the default digits, 5.8 s)
    _poisson_replace_one(digits=2)


@pytest.mark.heavy
def test_poisson_sampled_gaussian_under_replace_one_matches_dp_accounting_at_the_default_digits():
    _poisson_replace_one(digits=None)


def _poisson_replace_one(digits):
    dp = pytest.importorskip("dp_accounting")
    kw = {} if digits is None else {"digits": digits}
    acc = tightdp.PLDAccountant(neighboring_relation=dp.NeighboringRelation.REPLACE_ONE, **kw)
    gauss = dp.PoissonSampledDpEvent(0.01, dp.GaussianDpEvent(1.0))
    assert acc.supports(gauss) and acc.supports(dp.PoissonSampledDpEvent(0.01, dp.LaplaceDpEvent(1.0)))
    assert not acc.supports(dp.PoissonSampledDpEvent(0.01, dp.RandomizedResponseDpEvent(0.5, 2)))
    acc.compose(gauss, 100)
    e = acc.epsilon("1e-6")
    # scripts/reference/poisson_replace_gaussian.txt: dp_accounting's PLD (REPLACE_ONE, discretisation 1e-5)
    # pessimistic 1.11042842 (an upper bound of epsilon), optimistic 1.10992842 (a lower bound)
    # the tilted Fourier inversion of the pair's moment generating function (noise/mgf_replace.rs), to the
    # digits asked (the accountant's default 4), its bracket meeting the estimates' interval; at 20 digits it
    # lies inside it (the pessimistic estimate is 1e-8 above the certified epsilon)
    assert e.method == "tilted-fourier" and e.digits >= (4 if digits is None else digits)
    assert e.lo <= Fraction("1.11042842") and e.hi >= Fraction("1.10992842") and e.hi - e.lo < Fraction(1, 100)
    if digits is None:
        acc20 = tightdp.PLDAccountant(neighboring_relation=dp.NeighboringRelation.REPLACE_ONE, digits=20)
        acc20.compose(gauss, 100)
        e20 = acc20.epsilon("1e-6")
        assert e20.digits >= 20 and e20.lo >= Fraction("1.10992842") and e20.hi <= Fraction("1.11042842")


def test_pld_accountant_keeps_its_answers_until_the_next_compose():
    dp = pytest.importorskip("dp_accounting")
    acc = tightdp.PLDAccountant(digits=20)
    acc.compose(dp.GaussianDpEvent(2.0))
    # (the decimal string: the float 1e-10 is another δ, whose ε differs in the 17th digit)
    first = acc.epsilon("1e-10")
    # the same query again is the same bracket (kept, not recomputed: dp_accounting's usage asks twice)
    again = acc.epsilon("1e-10")
    assert (again.lo, again.hi, again.method) == (first.lo, first.hi, first.method)
    assert acc.get_epsilon("1e-10") >= float(first.lo)
    # scripts/reference/gaussian_closed_forms.txt (mpmath): one Gaussian of noise multiplier 2 (σ² = 4)
    assert Fraction("3.099430330243196050640159411073962027492") in first
    # a further event changes the composition: the kept answer is dropped, the new one is larger
    acc.compose(dp.GaussianDpEvent(2.0))
    second = acc.epsilon("1e-10")
    assert second.lo > first.hi
    # two Gaussians of multiplier 2 are one of σ² = 2 (the same reference file)
    assert Fraction("4.492218247553694611730567824178815764438") in second and second.digits >= 20


def test_renyi_divergences_and_tight_rho_match_mpmath():
    # scripts/reference/renyi_divergences.txt: the defining sums and integrals in mpmath, 32 digits
    c = tightdp.DiscreteLaplace(4)
    d = c.renyi("1.5")
    assert holds(d, "0.046275128602526237330322446845706") and holds(c.renyi(100), "0.2441824301022339034120445608558")
    assert d.method == "renyi" and d.digits >= 20
    assert holds(tightdp.Laplace(scale=4).renyi(10), "0.17954472010795957879407035866136")
    assert holds(tightdp.Gaussian(sigma=1, sampling_prob="0.01").renyi(8), "0.00089364390760603184734514048071342")
    # the tight zCDP parameter: the KL limit at alpha -> 1, below the pure-DP conversion eps^2/2 = 1/32
    r = tightdp.DiscreteLaplace(4).tight_rho()
    assert holds(r, "0.031088250442899052013661818951473") and r.hi < Fraction(1, 32) and r.digits >= 20
    assert tightdp.DiscreteGaussian(2).tight_rho().hi == Fraction(1, 4)


def test_renyi_refuses_orders_at_or_below_one_and_infinite_divergences():
    with pytest.raises(tightdp.InputError, match="greater than 1"):
        tightdp.DiscreteLaplace(4).renyi(1)
    with pytest.raises(tightdp.InputError, match="infinite"):
        tightdp.ApproxDp(1, "1e-6").renyi(2)
    with pytest.raises(tightdp.InputError, match="does not give"):
        tightdp.Laplace(scale=1, sampling_prob="0.1", n=10).compose(tightdp.Gaussian(sigma=1, sampling_prob="0.01")).tight_rho()


def test_subsampling_does_not_lower_the_tight_rho():
    # D_alpha <= alpha eta (quasi-convexity) and D_alpha/alpha -> eta = 1/(2 sigma^2) as alpha -> oo
    r = tightdp.Gaussian(sigma=1, sampling_prob="0.01", n=10).tight_rho()
    assert r.lo == r.hi == Fraction(5) and r.method == "renyi"


def test_mixture_of_gaussians_with_one_sensitivity_is_the_subsampled_gaussian():
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.pld import pld_privacy_accountant
    mog = dp_event.SelfComposedDpEvent(dp_event.MixtureOfGaussiansDpEvent(2.0, [0, 2], [0.99, 0.01]), 100)
    poisson = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), 100)
    # the same composition: 100 x gauss:sigma2=1,q=1/100
    assert repr(tightdp.from_dp_event(mog)) == repr(tightdp.from_dp_event(poisson))
    a = tightdp.from_dp_event(mog).epsilon("1e-5")
    assert a.digits >= 20 and a.method == "tilted-fourier"
    # dp_accounting's PLD accountant on the same mixture, same run (discretisation 1e-3, 0.9 s; 1e-4 takes
    # 7.6 s and gives 0.71803671, 1.05e-6 above the bracket): its pessimistic estimate lies above the
    # bracket, within its discretisation
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(mog)
    assert Fraction(a.hi) <= Fraction(acc.get_epsilon(1e-5)) < Fraction(a.hi) + Fraction(1, 1000)
    # every sensitivity 0: nothing about the record is released
    with pytest.raises(tightdp.InputError, match="releases nothing"):
        tightdp.from_dp_event(dp_event.MixtureOfGaussiansDpEvent(1.0, [0], [1.0]))
    with pytest.raises(tightdp.InputError, match="every sensitivity 0"):
        tightdp.from_dp_event(dp_event.PoissonSampledDpEvent(0.1, dp_event.MixtureOfGaussiansDpEvent(1.0, [0], [1.0])))
    # several nonzero sensitivities: the mixture law mog: (tests below)
    assert "mog:sigma2=1,sens=1:2,probs=1/4:1/4" in repr(tightdp.from_dp_event(dp_event.MixtureOfGaussiansDpEvent(1.0, [0, 1, 2], [0.5, 0.25, 0.25])))
    with pytest.raises(tightdp.InputError, match="sum to 1"):
        tightdp.from_dp_event(dp_event.MixtureOfGaussiansDpEvent(1.0, [0, 1], [0.5, 0.25]))
    # dp_accounting refuses it under REPLACE_ONE, and so does the drop-in
    assert not tightdp.PLDAccountant("replace").supports(mog)


def _mog_reference(kind, spec, direction, arg):
    """A row of scripts/reference/mog.txt (mpmath quadrature of the mixture's densities)."""
    path = Path(__file__).resolve().parents[2] / "scripts" / "reference" / "mog.txt"
    for line in path.read_text().splitlines():
        f = line.split()
        if f[:4] == [kind, spec, direction, arg]:
            return f[4]
    raise KeyError((kind, spec, direction, arg))


def test_mixture_of_gaussians_with_several_sensitivities():
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    spec = "mog:sigma=1,sens=1:2,probs=0.18:0.01"
    # one release, exact decimals: the remove pair's delta(1) (the add pair's is 0), to the reference's 35 digits
    d = tightdp.from_mechs([spec + ",n=1"]).delta("1")
    ref = Fraction(_mog_reference("delta1", spec, "remove", "1"))
    assert d.digits >= 30 and abs(Fraction(d.lo) - ref) < ref * Fraction(1, 10**33) and Fraction(d.hi) >= ref - ref * Fraction(1, 10**33)
    # dp_accounting's event (its floats taken exactly, 1e-17 from the decimals; p0 the rest)
    ev = dp_event.MixtureOfGaussiansDpEvent(1.0, [0, 1, 2], [0.81, 0.18, 0.01])
    e = tightdp.from_dp_event(ev).delta("1")
    assert abs(Fraction(e.lo) - ref) < ref * Fraction(1, 10**15)
    # 100 releases: the tilted engine (certified quadrature of the moment generating function), 20 digits;
    # dp_accounting's pessimistic estimate (discretisation 1e-2, same run) lies above, within its discretisation
    from dp_accounting.pld import pld_privacy_accountant
    many = dp_event.SelfComposedDpEvent(ev, 100)
    a = tightdp.from_dp_event(many).epsilon("1e-5")
    assert a.digits >= 20 and a.method == "tilted-fourier"
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-2)
    acc.compose(many)
    assert Fraction(a.hi) <= Fraction(acc.get_epsilon(1e-5)) < Fraction(a.hi) + Fraction(1, 100)
    # on a Poisson sample: every probability times q (dp_accounting's PLD accountant refuses this event)
    sampled = dp_event.PoissonSampledDpEvent(0.5, dp_event.MixtureOfGaussiansDpEvent(1.0, [0, 1, 2], [0.5, 0.25, 0.25]))
    assert "mog:sigma2=1,sens=1:2,probs=1/8:1/8" in repr(tightdp.from_dp_event(sampled))
    # refused under replace-one, as dp_accounting refuses it under REPLACE_ONE
    assert not tightdp.PLDAccountant("replace").supports(ev)
    assert tightdp.PLDAccountant().supports(dp_event.SelfComposedDpEvent(ev, 10))


def test_truncated_poisson_sampling_is_dp_accountings_pair_certified():
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.pld import pld_privacy_accountant
    # one release, exact decimals, against mpmath (scripts/reference/truncated.txt: the binomial tails by the
    # incomplete beta function, each branch's hockey-stick integral); the mechanism's delta is the remove pair's
    spec = "truncgauss:sigma=1,prob=1/20,batch=60,records=1000"
    path = Path(__file__).resolve().parents[2] / "scripts" / "reference" / "truncated.txt"
    ref = next(Fraction(line.split()[4]) for line in path.read_text().splitlines()
               if line.split()[:4] == ["delta1", spec, "remove", "1/2"])
    d = tightdp.from_mechs([spec + ",n=1"]).delta("1/2")
    assert d.trust == "certified-bound" and d.digits >= 30
    assert Fraction(d.lo) - ref * Fraction(1, 10**33) <= ref <= Fraction(d.hi) + ref * Fraction(1, 10**33)
    # dp_accounting's event (floats taken exactly): three releases on the pld grid, its pessimistic estimate at
    # 1e-3 inside the certified bracket of the same pair (same run)
    ev = dp_event.SelfComposedDpEvent(dp_event.TruncatedSubsampledGaussianDpEvent(1000, 0.05, 60, 1.0), 3)
    a = tightdp.from_dp_event(ev).epsilon("1e-5")
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-3)
    acc.compose(ev)
    assert Fraction(a.lo) <= Fraction(acc.get_epsilon(1e-5)) <= Fraction(a.hi) + Fraction(1, 1000)
    # nothing sampled: nothing released; no noise: not private
    assert tightdp.PLDAccountant().supports(dp_event.TruncatedSubsampledGaussianDpEvent(1000, 0.0, 60, 1.0))
    with pytest.raises(tightdp.InputError, match="infinite"):
        tightdp.from_dp_event(dp_event.TruncatedSubsampledGaussianDpEvent(1000, 0.05, 60, 0.0))


def test_a_non_private_event_makes_epsilon_infinite_as_in_dp_accounting():
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    acc = tightdp.PLDAccountant()
    ev = dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), dp_event.NonPrivateDpEvent()])
    assert acc.supports(ev)
    acc.compose(ev)
    assert acc.get_epsilon(1e-5) == float("inf") and acc.get_delta(1.0) == 1.0
    with pytest.raises(tightdp.InputError, match="infinite"):
        acc.epsilon("1e-5")
    with pytest.raises(tightdp.InputError, match="infinite"):
        tightdp.from_dp_event(ev)


def test_many_laplace_events_are_certified_between_dp_accountings_bounds():
    # 10,000 Laplace(1) releases, and 1,000 each of Laplace(4) and Gaussian(2) steps, from dp_accounting's
    # events: tightdp's tilted Fourier engine (closed-form moment generating functions) gives 20 digits, inside
    # dp_accounting's optimistic and pessimistic PLD at 1e-3 (bounds of the true value up to its floating point)
    dp = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    def peer(kind, x, pess):
        if kind == "laplace":
            return pldlib.from_laplace_mechanism(parameter=x, sensitivity=1, value_discretization_interval=1e-3,
                                                 pessimistic_estimate=pess, use_connect_dots=pess)
        return pldlib.from_gaussian_mechanism(standard_deviation=x, value_discretization_interval=1e-3,
                                              pessimistic_estimate=pess, use_connect_dots=pess)

    event = {"laplace": dp.LaplaceDpEvent, "gauss": dp.GaussianDpEvent}
    for terms in ([("laplace", 1.0, 10000)], [("laplace", 4.0, 1000), ("gauss", 2.0, 1000)]):
        bounds = []
        for pess in (True, False):
            pld = None
            for kind, x, n in terms:
                one = peer(kind, x, pess).self_compose(n)
                pld = one if pld is None else pld.compose(one)
            bounds.append(pld.get_epsilon_for_delta(1e-5))
        ours = tightdp.PLDAccountant(digits=20)
        for kind, x, n in terms:
            ours.compose(event[kind](x), n)
        got = ours.epsilon(1e-5)
        assert got.method == "tilted-fourier" and got.digits >= 20, got
        assert bounds[1] - 1e-9 <= float(got.lo) and float(got.hi) <= bounds[0] + 1e-9, (got, bounds)
