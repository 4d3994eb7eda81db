#!/usr/bin/env python3
"""Peer values of epsilon(delta = 1e-5) for DP-SGD on MNIST (Abadi et al. 2016 setting as in Opacus' and
dp_accounting's examples): Poisson-subsampled Gaussian, q = 256/60000, noise multiplier sigma = 1.1,
14,070 steps (60 epochs), add/remove neighbours. Used by tests/laws_cli.rs as independent consistency
checks of tightdp's certified bracket: dp_accounting's pessimistic PLD estimate is an upper bound of the
true epsilon (up to its floating-point arithmetic), prv_accountant's lower end a lower bound.
Run (scratch venv with dp-accounting and prv-accountant):
  python3 scripts/reference/dpsgd_peers.py > scripts/reference/dpsgd_peers.txt"""
import time
from dp_accounting.pld import privacy_loss_distribution as pldlib
from prv_accountant import Accountant as PRV


def peers(q, sigma, steps, delta):
    """Print dp_accounting's and prv_accountant's epsilon(delta) for the setting."""
    for disc in [1e-4, 1e-5]:
        for pess in [True, False]:
            t = time.time()
            pld = pldlib.from_gaussian_mechanism(standard_deviation=sigma, sampling_prob=q, value_discretization_interval=disc,
                                                 pessimistic_estimate=pess, use_connect_dots=pess)
            eps = pld.self_compose(steps).get_epsilon_for_delta(delta)
            kind = "pessimistic (connect-the-dots)" if pess else "optimistic"
            print(f"dp_accounting disc={disc} {kind} epsilon={eps:.8f} seconds={time.time() - t:.2f}")
    for err in [1e-2, 1e-3]:
        t = time.time()
        a = PRV(noise_multiplier=sigma, sampling_probability=q, delta=delta, eps_error=err, max_compositions=steps)
        lo, est, hi = a.compute_epsilon(num_compositions=steps)
        print(f"prv_accountant eps_error={err} lower={lo:.8f} estimate={est:.8f} upper={hi:.8f} seconds={time.time() - t:.2f}")


if __name__ == "__main__":
    peers(256 / 60000, 1.1, 14070, 1e-5)
