#!/usr/bin/env python3
"""The samplers of DP-SGD at MNIST size (issue 54): 60,000 records, batches of 256 (T = 234 steps per epoch),
noise multiplier 1.1, E epochs, epsilon(1e-5), both neighbour relations, one run:

* Poisson subsampling at q = 1/T over T*E steps: tightdp's certified bracket (digits, wall time) beside
  dp_accounting's PLD accountant at value_discretization_interval 1e-4 (pessimistic estimate, wall time);
* fixed-size batches of 256 drawn without replacement (`sampling=wor`, mu = 2: a clipped gradient replaced,
  or displaced by an added one, moves the sum by up to 2). Under replace: tightdp's certified bound beside
  dp_accounting's RDP accountant, its only accountant for SampledWithoutReplacementDpEvent (noise multiplier
  1.1/2: its Gaussian event has replace sensitivity 1, so the same pair). Under add/remove (exact: the
  Poisson pair at q = 256/60000 and sensitivity 2, noise/wor.rs): beside dp_accounting's PLD accountant
  (1e-4, pessimistic) on that Poisson pair, noise multiplier 1.1/2 (it has no accountant for the event under
  add/remove);
* random allocation (each record in one of the T steps of an epoch, add/remove): tightdp's certified bracket
  of the exact value (`alloc:`, its dominating and dominated pairs), beside dp_accounting's random-allocation
  PLDs (dominating and dominated pairs, value_discretization_interval 1e-3) where the dp_accounting imported
  has them (not 0.6.0 on PyPI: put a newer source tree first on PYTHONPATH, with typing_extensions);
* shuffled batches (shuffle and iterate): tightdp's certified lower bound of one explicit attack
  (`tightdp shuffle`; under add/remove its input is also the random-allocation pair with one step per record,
  so the number is a lower bound for random allocation k = 1 too).

tightdp through the CLI (process start included). Run:
  target/pyvenv/bin/python scripts/bench/samplers.py [--bin target/release/tightdp] [--epochs 1,10,60]
      [--out scripts/bench/samplers_results.csv]"""
import argparse
import csv
import json
import subprocess
import time

N, B, SIGMA, DELTA = 60000, 256, "1.1", "1e-5"
T = N // B


def cli(binary, args):
    t = time.time()
    p = subprocess.run([binary, *args, "--format", "json"], capture_output=True, text=True)
    secs = time.time() - t
    if p.returncode != 0:
        return None, secs, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    r = json.loads(p.stdout)
    return (r[0] if isinstance(r, list) else r), secs, ""


def poisson(binary, epochs, nb):
    r, secs, err = cli(binary, ["epsilon", "--mech", f"gauss:sigma={SIGMA},q=1/{T},n={T * epochs}", "--delta", DELTA,
                                "--neighbors", nb])
    return ("", "", "", err, f"{secs:.2f}") if r is None else (r["epsilon_lo"], r["epsilon_hi"], r["digits"], r["method"], f"{secs:.2f}")


def fixed(binary, epochs, nb):
    r, secs, err = cli(binary, ["epsilon", "--mech", f"gauss:sigma={SIGMA},mu=2,sampling=wor,m={B},pop={N},n={T * epochs}",
                                "--delta", DELTA, "--neighbors", nb])
    return ("", "", "", err, f"{secs:.2f}") if r is None else (r["epsilon_lo"], r["epsilon_hi"], r["digits"], r["method"], f"{secs:.2f}")


def allocation(binary, epochs, nb):
    if nb != "add-remove":
        return "", "", "under add/remove only", "", "", ""
    r, secs, err = cli(binary, ["epsilon", "--mech", f"alloc:sigma={SIGMA},steps={T},n={epochs}", "--delta", DELTA])
    if r is None:
        return "", "", err, f"{secs:.2f}", "", ""
    return r["epsilon_hi"], r["trust"], r["method"], f"{secs:.2f}", r["epsilon_lo"], r["digits"]


def dp_allocation(epochs, nb):
    """dp_accounting's random-allocation PLDs at 1e-3 where it has them (not 0.6.0): the dominating pair's
    epsilon (an upper estimate) and the dominated one's (a lower estimate), and their total time."""
    try:
        from dp_accounting.pld import random_allocation as ra
    except ImportError:
        return "", "", ""
    if nb != "add-remove":
        return "", "", ""
    t = time.time()
    eps = []
    for bound in (ra.BoundType.DOMINATES, ra.BoundType.IS_DOMINATED):
        params = ra.PrivacyParams(sigma=float(SIGMA), num_steps=T, num_selected=1, num_epochs=epochs)
        pld = ra.gaussian_allocation_pld(params, ra.AllocationSchemeConfig(value_discretization_interval=1e-3), bound_type=bound)
        eps.append(repr(float(pld.get_epsilon_for_delta(float(DELTA)))))
    return eps[0], eps[1], f"{time.time() - t:.2f}"


def shuffled(binary, epochs, nb):
    r, secs, err = cli(binary, ["shuffle", "--sigma", SIGMA, "--steps", str(T), "--epochs", str(epochs), "--delta", DELTA,
                                "--neighbors", nb, "--digits", "2"])
    return ("", err, f"{secs:.2f}") if r is None else (r["shuffled_at_least"], r["verdict"], f"{secs:.2f}")


def dp_poisson(epochs, nb):
    try:
        from dp_accounting import dp_event
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.privacy_accountant import NeighboringRelation
    except ImportError:
        return "", ""
    rel = NeighboringRelation.ADD_OR_REMOVE_ONE if nb == "add-remove" else NeighboringRelation.REPLACE_ONE
    t = time.time()
    acc = pld_privacy_accountant.PLDAccountant(rel, value_discretization_interval=1e-4)
    acc.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(1 / T, dp_event.GaussianDpEvent(float(SIGMA))), T * epochs))
    return repr(float(acc.get_epsilon(float(DELTA)))), f"{time.time() - t:.2f}"


def dp_fixed(epochs, nb):
    """dp_accounting on the fixed-size batches' pair, the noise multiplier halved (its GaussianDpEvent has
    sensitivity 1 and the sum moves by 2): under replace its RDP accountant on the event (REPLACE_ONE), under
    add/remove its PLD accountant (1e-4, pessimistic) on the Poisson pair at q = B/N."""
    try:
        from dp_accounting import dp_event
        from dp_accounting.pld import pld_privacy_accountant
        from dp_accounting.rdp import rdp_privacy_accountant
        from dp_accounting.privacy_accountant import NeighboringRelation
    except ImportError:
        return "", "", ""
    t = time.time()
    g = dp_event.GaussianDpEvent(float(SIGMA) / 2)
    if nb == "replace":
        acc = rdp_privacy_accountant.RdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
        ev, how = dp_event.SampledWithoutReplacementDpEvent(N, B, g), "RDP, the event"
    else:
        acc = pld_privacy_accountant.PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=1e-4)
        ev, how = dp_event.PoissonSampledDpEvent(B / N, g), "PLD 1e-4, the Poisson pair"
    acc.compose(dp_event.SelfComposedDpEvent(ev, T * epochs))
    return repr(float(acc.get_epsilon(float(DELTA)))), f"{time.time() - t:.2f}", how


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/tightdp")
    ap.add_argument("--epochs", default="1,10,60")
    ap.add_argument("--out", default="scripts/bench/samplers_results.csv")
    a = ap.parse_args()
    rows = []
    for e in [int(x) for x in a.epochs.split(",")]:
        for nb in ("add-remove", "replace"):
            p = poisson(a.bin, e, nb)
            d = dp_poisson(e, nb)
            s = shuffled(a.bin, e, nb)
            f = fixed(a.bin, e, nb)
            fr = dp_fixed(e, nb)
            ra = allocation(a.bin, e, nb)
            da = dp_allocation(e, nb)
            row = {"epochs": e, "neighbors": nb,
                   "poisson_lo": p[0], "poisson_hi": p[1], "poisson_digits": p[2], "poisson_method": p[3], "poisson_secs": p[4],
                   "dp_accounting_1e-4": d[0], "dp_accounting_secs": d[1],
                   "fixed_lo": f[0], "fixed_hi": f[1], "fixed_digits": f[2], "fixed_method": f[3], "fixed_secs": f[4],
                   "fixed_dp_accounting": fr[0], "fixed_dp_accounting_secs": fr[1], "fixed_dp_accounting_how": fr[2],
                   "allocation_lo": ra[4], "allocation_hi": ra[0], "allocation_digits": ra[5], "allocation_trust": ra[1], "allocation_method": ra[2], "allocation_secs": ra[3],
                   "allocation_dp_accounting_dominating_1e-3": da[0], "allocation_dp_accounting_dominated_1e-3": da[1],
                   "allocation_dp_accounting_secs": da[2],
                   "shuffled_at_least": s[0], "shuffled_secs": s[2], "verdict": s[1]}
            rows.append(row)
            print(f"E={e:3d} {nb:10s} Poisson [{p[0][:10]}, {p[1][:10]}] {p[2]} digits {p[4]} s (dp_accounting {d[0][:10]} {d[1]} s) | "
                  f"fixed [{f[0][:8]}, {f[1][:8]}] {f[2]} digits {f[4]} s {f[3] if not f[0] else ''} ({fr[2]} {fr[0][:8]} {fr[1]} s) | "
                  f"allocation [{ra[4][:10]}, {ra[0][:10]}] {ra[5]} digits {ra[3]} s (dp_accounting [{da[1][:8]}, {da[0][:8]}] {da[2]} s) | shuffled >= {s[0]} {s[2]} s",
                  flush=True)
    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
