#!/usr/bin/env python3
"""dp_accounting's PLD accountant on Poisson-subsampled Laplace compositions (add/remove neighbours): its
pessimistic estimate (an upper bound of epsilon up to its floating point) and its optimistic one (a lower
bound), at value_discretization_interval 1e-5 — the peer's bracket the tilted Fourier inversion's certified
value is checked against (tests/suite/poisson_laplace_cli.rs). Needs dp-accounting (target/pyvenv).
Run: target/pyvenv/bin/python scripts/reference/poisson_laplace_peers.py > scripts/reference/poisson_laplace_peers.txt"""
from dp_accounting.pld import privacy_loss_distribution as pldlib

CASES = [(1.0, 0.01, 1000, 1e-5), (1.0, 0.05, 300, 1e-6), (0.5, 0.002, 20000, 1e-5)]

print("# scale q n delta epsilon(pessimistic) epsilon(optimistic), dp_accounting PLD, discretisation 1e-5")
for b, q, n, delta in CASES:
    out = []
    for pessimistic in (True, False):
        pld = pldlib.from_laplace_mechanism(parameter=b, sampling_prob=q, value_discretization_interval=1e-5,
                                            pessimistic_estimate=pessimistic, use_connect_dots=pessimistic)
        out.append(pld.self_compose(n).get_epsilon_for_delta(delta))
    print(b, q, n, delta, repr(out[0]), repr(out[1]))
