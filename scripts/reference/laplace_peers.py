#!/usr/bin/env python3
"""Peer bounds of epsilon(delta) and delta(epsilon) for many-fold compositions of the Laplace mechanism
(sensitivity 1, add/remove neighbours), the references of the tilted Fourier engine's Laplace law at sizes
no exact sum reaches (src/account/engines/tilted_tests.rs): dp_accounting's PLD, pessimistic
(connect-the-dots) and optimistic estimates [DGK22], an upper and a lower bound of the true value up to its
floating-point arithmetic, at value_discretization_interval 1e-4 (coarser where the composed loss spreads over thousands).
Run (scratch venv with dp-accounting):
  python3 scripts/reference/laplace_peers.py > scripts/reference/laplace_peers.txt"""
from dp_accounting.pld import privacy_loss_distribution as pldlib

# (terms [(scale, count)], query, value, discretisation)
CASES = [
    ([(1, 1000000)], "epsilon", 1e-5, 0.05),
    ([(1, 10000)], "epsilon", 1e-5, 1e-3),
    ([(10, 1000)], "epsilon", 1e-5, 1e-4),
    ([(10, 1000)], "delta", 10.0, 1e-4),
    ([(2, 300), (3, 100)], "epsilon", 1e-6, 1e-4),
]


def composed(terms, disc, pess):
    out = None
    for scale, count in terms:
        p = pldlib.from_laplace_mechanism(parameter=scale, sensitivity=1, value_discretization_interval=disc,
                                          pessimistic_estimate=pess, use_connect_dots=pess).self_compose(count)
        out = p if out is None else out.compose(p)
    return out


def main():
    print("# terms(scale:count,...) query value disc pessimistic optimistic")
    for terms, query, value, disc in CASES:
        got = []
        for pess in [True, False]:
            p = composed(terms, disc, pess)
            got.append(float(p.get_epsilon_for_delta(value) if query == "epsilon" else p.get_delta_for_epsilon(value)))
        spec = ",".join(f"{s}:{n}" for s, n in terms)
        print(f"{spec} {query} {value} {disc} {got[0]!r} {got[1]!r}", flush=True)


if __name__ == "__main__":
    main()
