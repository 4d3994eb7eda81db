#!/usr/bin/env python3
"""Peer values of epsilon(delta = 1e-6) for prv_accountant's README example: Poisson-subsampled Gaussian,
noise multiplier sigma = 0.8, q = 0.005, 1,000 steps, add/remove neighbours (github.com/microsoft/
prv_accountant, README "Getting Started"). Used by tests/pld_grid_edges_cli.rs as independent consistency
checks of tightdp's certified bracket: dp_accounting's pessimistic PLD estimate is an upper bound of the
true epsilon and its optimistic one a lower bound (up to their floating-point arithmetic); prv_accountant's
lower and upper ends bracket it likewise. The code is dpsgd_peers.py's, with these parameters.
Run (scratch venv with dp-accounting and prv-accountant):
  python3 scripts/reference/prv_readme_peers.py > scripts/reference/prv_readme_peers.txt"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dpsgd_peers import peers  # noqa: E402

peers(0.005, 0.8, 1000, 1e-6)
