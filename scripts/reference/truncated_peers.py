#!/usr/bin/env python3
"""dp_accounting's PLD estimate of truncated Poisson sampling (TruncatedSubsampledGaussianDpEvent) at MNIST
size, for tests/suite/truncated_cli.rs: epsilon(1e-5) of n steps of 60,000 records, sampling probability
256/60000, batches cut at 300, noise multiplier 1.1, at value_discretization_interval 1e-5 (pessimistic,
dp_accounting's default estimate: an upper bound up to its floating-point error). dp_accounting 0.6.0.
Run: target/pyvenv/bin/python scripts/reference/truncated_peers.py > scripts/reference/truncated_peers.txt"""
from dp_accounting import dp_event
from dp_accounting.pld import pld_privacy_accountant

print("# steps records prob batch sigma delta dp_accounting_pld_1e-5_pessimistic")
for n in (2340,):
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-5)
    acc.compose(dp_event.SelfComposedDpEvent(dp_event.TruncatedSubsampledGaussianDpEvent(60000, 256 / 60000, 300, 1.1), n))
    print(n, 60000, "256/60000", 300, "1.1", "1e-5", repr(acc.get_epsilon(1e-5)))
