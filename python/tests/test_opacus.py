"""tightdp.OpacusAccountant: Opacus's accountant interface (step, get_epsilon, history, state_dict, the
optimizer hook) over DP-SGD histories whose noise multiplier and sample rate change between steps (#54)."""
from fractions import Fraction
from types import SimpleNamespace
import math

import pytest
import tightdp


def test_a_per_step_loop_with_changing_noise_is_certified_between_dp_accountings_bounds():
    acc = tightdp.OpacusAccountant(digits=20)
    for _ in range(100):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    for _ in range(50):
        acc.step(noise_multiplier=2.0, sample_rate=0.02)
    # Opacus's history: consecutive steps of one pair merged
    assert acc.history == [(1.0, 0.01, 100), (2.0, 0.02, 50)] and len(acc) == 150
    got = acc.epsilon(1e-5)
    assert got.method == "tilted-fourier" and got.digits >= 20, got
    # the same composition spelled out (the floats taken exactly, as everywhere in the package), and
    # get_epsilon the certified upper end rounded up
    same = tightdp.Gaussian(1.0, n=100, sampling_prob=0.01).compose(tightdp.Gaussian(2.0, n=50, sampling_prob=0.02)).epsilon(1e-5)
    assert (same.lo, same.hi) == (got.lo, got.hi)
    assert Fraction(acc.get_epsilon(1e-5)) >= Fraction(got.hi) and acc.get_epsilon(1e-5, eps_error=0.01) == acc.get_epsilon(1e-5)
    # independent: dp_accounting's optimistic and pessimistic PLD of the same history bound the truth
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    bounds = []
    for pess in (True, False):
        parts = [
            pldlib.from_gaussian_mechanism(standard_deviation=s, sampling_prob=q, value_discretization_interval=1e-4,
                                           pessimistic_estimate=pess, use_connect_dots=pess).self_compose(n)
            for s, q, n in acc.history
        ]
        bounds.append(parts[0].compose(parts[1]).get_epsilon_for_delta(1e-5))
    assert bounds[1] - 1e-9 <= float(got.lo) and float(got.hi) <= bounds[0] + 1e-9, (got, bounds)


def test_the_accountant_answers_as_opacus_does_at_the_edges():
    acc = tightdp.OpacusAccountant()
    assert acc.get_epsilon(1e-5) == 0.0 and len(acc) == 0 and acc.mechanism() == "tightdp"
    # steps at rate 0 release nothing; a step without noise makes epsilon infinite
    acc.step(noise_multiplier=1.0, sample_rate=0)
    assert acc.get_epsilon(1e-5) == 0.0
    acc.step(noise_multiplier=0, sample_rate=0.5)
    assert acc.get_epsilon(1e-5) == math.inf
    with pytest.raises(tightdp.InputError, match="infinite"):
        acc.epsilon(1e-5)
    for bad in [dict(noise_multiplier=-1, sample_rate=0.1), dict(noise_multiplier=1, sample_rate=1.5),
                dict(noise_multiplier=float("nan"), sample_rate=0.1)]:
        with pytest.raises(tightdp.InputError):
            acc.step(**bad)
    with pytest.raises(tightdp.InputTypeError):
        acc.step(noise_multiplier="1", sample_rate=0.1)
    with pytest.raises(TypeError):
        acc.step(1.0, 0.1)  # keyword-only, as Opacus's


def test_numpy_scalars_step_as_floats_do():
    np = pytest.importorskip("numpy")
    a, b = tightdp.OpacusAccountant(), tightdp.OpacusAccountant()
    for _ in range(5):
        a.step(noise_multiplier=np.float64(1.5), sample_rate=np.float32(0.25))
        b.step(noise_multiplier=1.5, sample_rate=float(np.float32(0.25)))
    assert len(a.history) == 1 and a.get_epsilon(1e-5) == b.get_epsilon(1e-5)


def test_state_dict_and_the_optimizer_hook():
    acc = tightdp.OpacusAccountant()
    hook = acc.get_optimizer_hook_fn(sample_rate=0.01)
    # Opacus calls the hook after each optimizer step, with the optimizer (gradient accumulation: the rate
    # times the accumulated iterations)
    for _ in range(3):
        hook(SimpleNamespace(noise_multiplier=1.5, accumulated_iterations=2))
    assert acc.history == [(1.5, 0.02, 3)]
    state = acc.state_dict()
    assert state == {"history": [(1.5, 0.02, 3)], "mechanism": "tightdp"}
    other = tightdp.OpacusAccountant()
    other.load_state_dict(state)
    assert other.history == acc.history and other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    with pytest.raises(tightdp.InputError, match="cannot be loaded"):
        other.load_state_dict({"history": [], "mechanism": "rdp"})
    with pytest.raises(tightdp.InputError):
        other.load_state_dict({})
