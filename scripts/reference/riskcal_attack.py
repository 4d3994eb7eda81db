"""Reference values for `tightdp attack` from riskcal (Kulynych et al. 2024, 2025) over Google's
dp_accounting PLD — an independent implementation of the same operational measures.

Run in a scratch venv outside the repository:
    python3 -m venv $VENV && $VENV/bin/pip install riskcal==1.5.1 dp-accounting==0.6.0
    $VENV/bin/python scripts/reference/riskcal_attack.py > scripts/reference/riskcal_attack_values.csv

For each composition of discrete Gaussians (k queries of N_Z(0, sigma2), sensitivity 1), it prints:
  - the exact measures from riskcal on a *pessimistic* dp_accounting PLD at two discretisations
    (value_discretization_interval 1e-4 and 1e-5): TPR at FPR (1 - get_beta_from_pld), the advantage
    (get_advantage_from_pld = delta(0)) and the Bayes error (get_bayes_risk_from_pld; tightdp's Bayes
    success is 1 minus it). A pessimistic PLD over-states the attacker: its TPR and advantage are upper
    bounds that approach the truth as the interval shrinks;
  - what zCDP with the composition's rho allows, by riskcal's optimal RDP conversion
    (get_beta_from_zcdp, get_advantage_from_zcdp): a valid bound on the attacker, tighter than the
    Bureau's Bun-Steinke (epsilon, delta) envelope that tightdp reports as `*_bureau`.
"""
import math
import sys

import numpy as np
from dp_accounting.pld import privacy_loss_distribution as pldm
from importlib.metadata import version
from riskcal.analysis import conversions as rc

CASES = [(5, 9), (1, 1), (37.7, 17)]  # (sigma2, queries)
FPRS = [1e-3, 1e-2]
PRIORS = [0.5, 1e-3]


def pld_for(sigma2, k, interval):
    one = pldm.from_discrete_gaussian_mechanism(
        math.sqrt(sigma2), sensitivity=1, pessimistic_estimate=True, value_discretization_interval=interval
    )
    return one.self_compose(k) if k > 1 else one


def main():
    w = sys.stdout.write
    w(f"# riskcal {version('riskcal')}, dp-accounting {version('dp-accounting')}, numpy {np.__version__}\n")
    w("sigma2,queries,measure,at,riskcal_pld_1e-4,riskcal_pld_1e-5,riskcal_zcdp\n")
    for sigma2, k in CASES:
        rho = k / (2 * sigma2)
        plds = [pld_for(sigma2, k, h) for h in (1e-4, 1e-5)]
        for a in FPRS:
            vals = [1 - float(rc.get_beta_from_pld(p, alpha=a)) for p in plds]
            z = 1 - float(rc.get_beta_from_zcdp(rho, a))
            w(f"{sigma2},{k},tpr,{a},{vals[0]:.10g},{vals[1]:.10g},{z:.10g}\n")
        vals = [float(rc.get_advantage_from_pld(p)) for p in plds]
        z = float(rc.get_advantage_from_zcdp(rho))
        w(f"{sigma2},{k},advantage,,{vals[0]:.10g},{vals[1]:.10g},{z:.10g}\n")
        for pr in PRIORS:
            vals = [1 - float(rc.get_bayes_risk_from_pld(p, pr)) for p in plds]
            w(f"{sigma2},{k},bayes_success,{pr},{vals[0]:.12g},{vals[1]:.12g},\n")


if __name__ == "__main__":
    main()
