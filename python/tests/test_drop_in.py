"""tightdp's accountants as drop-ins for the peers' calibrators (#54 item 5): dp_accounting's
``calibrate_dp_mechanism`` takes ``tightdp.PLDAccountant`` (a registered ``PrivacyAccountant`` with its
``ledger``), riskcal's black-box calibrators take ``tightdp.OpacusAccountant``; each result is checked
against dp_accounting's own PLD accountants in the same run."""
import pytest
import tightdp

dp_accounting = pytest.importorskip("dp_accounting")
from dp_accounting import dp_event  # noqa: E402
from dp_accounting.pld import pld_privacy_accountant  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant  # noqa: E402


def dpsgd(sigma, steps=1000, q=0.01):
    return dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps)


def pld(sigma, pessimistic, steps=1000, q=0.01):
    """dp_accounting's PLD of the DP-SGD composition, pessimistic (its epsilon an upper bound of the true one,
    up to truncation) or optimistic (a lower bound), at a fine discretisation."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    one = pldlib.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=q, value_discretization_interval=1e-4,
                                         pessimistic_estimate=pessimistic, use_connect_dots=pessimistic)
    return one.self_compose(steps)


def test_the_pld_accountant_is_a_privacy_accountant_with_dp_accountings_ledger():
    acc = tightdp.PLDAccountant()
    assert isinstance(acc, dp_accounting.PrivacyAccountant)
    assert isinstance(acc.ledger, dp_event.NoOpDpEvent)
    assert acc.neighboring_relation == dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    # the same compositions on dp_accounting's RDP accountant give the same ledger (its DpEventBuilder)
    rdp = rdp_privacy_accountant.RdpAccountant()
    for event, count in [(dpsgd(1.0), 1), (dp_event.GaussianDpEvent(3.0), 2), (dp_event.LaplaceDpEvent(1.0), 1),
                         (dp_event.GaussianDpEvent(3.0), 1)]:
        assert acc.compose(event, count) is acc
        rdp.compose(event, count)
        assert acc.ledger == rdp.ledger
    replace = tightdp.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE)
    assert replace.neighboring_relation == dp_accounting.NeighboringRelation.REPLACE_ONE


def test_an_unsupported_event_is_dp_accountings_error_and_leaves_the_ledger():
    acc = tightdp.PLDAccountant().compose(dp_event.GaussianDpEvent(2.0))
    before = acc.ledger
    bad = dp_event.SampledWithReplacementDpEvent(1000, 10, dp_event.GaussianDpEvent(1.0))
    assert not acc.supports(bad)
    with pytest.raises(dp_accounting.UnsupportedEventError, match="SampledWithReplacement") as e:
        acc.compose(bad)
    assert isinstance(e.value, tightdp.InputError)
    assert acc.ledger == before and acc.get_epsilon(1e-5) == tightdp.PLDAccountant().compose(before).get_epsilon(1e-5)
    # a bad count stays a plain argument error
    with pytest.raises(tightdp.InputTypeError):
        acc.compose(dp_event.GaussianDpEvent(2.0), "3")


def test_dp_accountings_calibration_runs_on_the_pld_accountant():
    from dp_accounting import mechanism_calibration as mc

    target_eps, delta, tol = 2.0, 1e-5, 1e-4
    ours = mc.calibrate_dp_mechanism(tightdp.PLDAccountant, dpsgd, target_eps, delta, tol=tol)
    # the certified epsilon at the calibrated noise meets the target ...
    assert tightdp.PLDAccountant(digits=8).compose(dpsgd(ours)).epsilon(delta).hi <= target_eps
    # ... and the calibration stopped at it: 0.1% less noise misses it
    assert tightdp.PLDAccountant(digits=8).compose(dpsgd(ours * 0.999)).epsilon(delta).lo > target_eps
    # beside dp_accounting in the same run: its optimistic PLD (a lower bound of the true epsilon) meets the
    # target too, and its pessimistic PLD (an upper bound, close at this discretisation) puts the noise at it
    assert pld(ours, pessimistic=False).get_epsilon_for_delta(delta) <= target_eps
    assert abs(pld(ours, pessimistic=True).get_epsilon_for_delta(delta) - target_eps) <= 1e-3
    # dp_accounting's RDP calibration (a looser bound) asks for more noise
    rdp = mc.calibrate_dp_mechanism(rdp_privacy_accountant.RdpAccountant, dpsgd, target_eps, delta, tol=tol)
    assert ours < rdp, (ours, rdp)


def opacus_history(mu, steps=1000, q=0.01):
    acc = tightdp.OpacusAccountant(digits=8)
    for _ in range(steps):
        acc.step(noise_multiplier=mu, sample_rate=q)
    return acc


def test_riskcals_calibrator_runs_on_the_opacus_accountant():
    pytest.importorskip("riskcal")
    from riskcal.calibration import blackbox

    target_eps, delta, err = 2.0, 1e-5, 1e-3
    mu = blackbox.find_noise_multiplier_for_epsilon_delta(tightdp.OpacusAccountant, sample_rate=0.01, num_steps=1000,
                                                          epsilon=target_eps, delta=delta, eps_error=err)
    # riskcal's answer meets the target within its eps_error by tightdp's certified bracket and by
    # dp_accounting's optimistic PLD (a lower bound) in the same run; its pessimistic PLD (an upper bound)
    # puts riskcal's noise within 1% of the target (riskcal returns the upper end of its bracket)
    assert opacus_history(mu).epsilon(delta).hi <= target_eps + err, mu
    assert pld(mu, pessimistic=False).get_epsilon_for_delta(delta) <= target_eps + err
    assert pld(mu, pessimistic=True).get_epsilon_for_delta(delta) >= 0.99 * target_eps, mu


@pytest.mark.heavy
def test_riskcals_advantage_calibrator_runs_on_the_opacus_accountant():
    pytest.importorskip("riskcal")
    from riskcal.calibration import blackbox

    adv, err = 0.2, 1e-3
    mu = blackbox.find_noise_multiplier_for_advantage(tightdp.OpacusAccountant, advantage=adv, sample_rate=0.01,
                                                      num_steps=1000, eps_error=err)
    # the advantage is delta at epsilon 0 [KGK+24]: riskcal asks epsilon(adv) <= eps_error of the accountant,
    # certified here; beside dp_accounting in the same run, its optimistic PLD's delta at eps_error is below
    # the advantage and its pessimistic PLD's delta at 0 within 5% of it
    assert opacus_history(mu).epsilon(adv).hi <= err, mu
    assert pld(mu, pessimistic=False).get_delta_for_epsilon(err) <= adv
    assert pld(mu, pessimistic=True).get_delta_for_epsilon(0) >= 0.95 * adv, mu


def test_events_without_noise_are_non_private_as_dp_accountings_accountants_count_them():
    # (a calibration's search starts at noise 0: dp_accounting's accountants answer inf there, not an error)
    events = [dp_event.GaussianDpEvent(0), dp_event.LaplaceDpEvent(0), dp_event.DiscreteLaplaceDpEvent(0, 1),
              dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(0)), dpsgd(0),
              dp_event.MixtureOfGaussiansDpEvent(0, [0, 1], [0.5, 0.5])]
    for event in events:
        theirs = pld_privacy_accountant.PLDAccountant().compose(event)
        ours = tightdp.PLDAccountant().compose(event)
        assert ours.get_epsilon(1e-5) == theirs.get_epsilon(1e-5) == float("inf"), event
        assert ours.get_delta(1.0) == theirs.get_delta(1.0) == 1.0, event
        with pytest.raises(tightdp.InputError, match="without privacy"):
            tightdp.from_dp_event(event)
    # a rate-0 sample releases nothing; randomized response with one bucket neither (dp_accounting: a no-op)
    replace = dp_accounting.NeighboringRelation.REPLACE_ONE
    for event, relation in [(dp_event.PoissonSampledDpEvent(0, dp_event.GaussianDpEvent(0)), None),
                            (dp_event.RandomizedResponseDpEvent(0, 1), replace)]:
        theirs = pld_privacy_accountant.PLDAccountant(*([relation] if relation else [])).compose(event)
        ours = tightdp.PLDAccountant(relation).compose(event)
        assert ours.get_epsilon(1e-5) == theirs.get_epsilon(1e-5) == 0.0, event


def test_a_sequence_where_one_number_is_expected_is_refused_in_the_interfaces_words():
    # (dp_accounting's get_epsilon and get_delta take one value; a list once leaked an AttributeError)
    acc = tightdp.PLDAccountant().compose(dpsgd(1.1, steps=100))
    with pytest.raises(tightdp.InputError, match="get_epsilon takes one target_delta"):
        acc.get_epsilon([1e-5, 1e-6])
    with pytest.raises(tightdp.InputError, match="get_delta takes one target_epsilon"):
        acc.get_delta((1.0, 2.0))
    opacus = tightdp.OpacusAccountant()
    opacus.step(noise_multiplier=1.1, sample_rate=0.01)
    with pytest.raises(tightdp.InputError, match="get_epsilon takes one delta"):
        opacus.get_epsilon([1e-5])
    # one value, as a float, a numpy scalar or a 0-d array, is answered
    np = pytest.importorskip("numpy")
    assert acc.get_epsilon(np.float64(1e-5)) == acc.get_epsilon(1e-5) == acc.get_epsilon(np.array(1e-5))
    # a negative noise multiplier is refused; zero is dp_accounting's non-private event (above)
    with pytest.raises(tightdp.InputError, match="must not be negative"):
        tightdp.PLDAccountant().compose(dp_event.GaussianDpEvent(-1.0))
