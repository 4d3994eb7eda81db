#!/usr/bin/env python3
"""Peers' bounds for the exact Laplace sum past 300 releases (`account/engines/laplace_sum.rs`, heavy test
`epsilon_past_three_hundred_releases_lies_between_the_peers_bounds`): dp_accounting's PLD of the Laplace
mechanism (scale b, sensitivity 1), value discretisation 1e-4, composed n times, eps(delta) from its
pessimistic (connect-the-dots) and optimistic (privacy buckets) estimates. The truth lies between them.
Run (dp_accounting installed): python3 scripts/reference/laplace_sum_peers.py > scripts/reference/laplace_sum_peers.txt"""
import logging

from dp_accounting.pld import privacy_loss_distribution as pld

logging.disable(logging.WARNING)
CASES = [(10, 500, 1e-5)]

if __name__ == "__main__":
    print("# b n delta pessimistic optimistic  (dp_accounting PLD, value_discretization_interval 1e-4)")
    for b, n, delta in CASES:
        eps = []
        for pess in (True, False):
            p = pld.from_laplace_mechanism(float(b), sensitivity=1.0, value_discretization_interval=1e-4, pessimistic_estimate=pess)
            eps.append(p.self_compose(n).get_epsilon_for_delta(delta))
        print(b, n, delta, repr(eps[0]), repr(eps[1]))
