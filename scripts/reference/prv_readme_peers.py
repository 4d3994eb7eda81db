#!/usr/bin/env python3
"""Peer values of epsilon(delta = 1e-6) for prv_accountant's README example: Poisson-subsampled Gaussian,
noise multiplier sigma = 0.8, q = 0.005, 1,000 steps, add/remove neighbours (github.com/microsoft/
prv_accountant, README "Getting Started"). Used by tests/pld_grid_edges_cli.rs as independent consistency
checks of tightdp's certified bracket: dp_accounting's pessimistic PLD estimate is an upper bound of the
true epsilon and its optimistic one a lower bound (up to their floating-point arithmetic); prv_accountant's
lower and upper ends bracket it likewise. Same code as dpsgd_peers.py, other parameters.
Run (scratch venv with dp-accounting and prv-accountant):
  python3 scripts/reference/prv_readme_peers.py > scripts/reference/prv_readme_peers.txt"""
import time
from dp_accounting.pld import privacy_loss_distribution as pldlib
from prv_accountant import Accountant as PRV

q, sigma, steps, delta = 0.005, 0.8, 1000, 1e-6
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
