#!/usr/bin/env python3
"""DP-SGD benchmark (issue 35, item 5): the Poisson-subsampled Gaussian, tightdp's certified bracket beside
dp_accounting's PLD (pessimistic and optimistic, discretisation 1e-4 and 1e-5) and prv_accountant's
[eps_low, eps_up], measured in one run on the same machine.

Settings (delta 1e-5 unless said):
  mnist     q = 256/60000, noise multiplier 1.1, 14,070 steps (60 epochs) - the MNIST setting of the
            Opacus / TF-Privacy tutorials
  abadi     q = 600/60000, noise multiplier 4, 10,000 steps (100 epochs) - the "medium noise" MNIST
            setting of [ACG16, Sec. 5.2]
  prv       q = 5e-3, noise multiplier 0.8, 1,000 steps, delta 1e-6 - prv_accountant's README example
  large     q = 4096/1,281,167 (ImageNet), noise multiplier 2, 10^5 and 10^6 steps
  small     q = 0.1, noise multiplier 0.6, 100 steps (small noise)
  few-5     q = 0.1, noise multiplier 1, 5 steps, and mnist-10, the MNIST setting's first 10 steps: a few
            releases, whose lines end by the shifted contour's decay bound (src/noise/mgf_strip.rs)
  mnist-wor the mnist setting with batches of 256 drawn without replacement (replace-one neighbours),
            beside dp_accounting's RDP accountant, its only one for SampledWithoutReplacementDpEvent

Usage: scripts/bench/peers.sh --dpsgd [--no-peers] [--out CSV]   (or python3 scripts/bench/dpsgd.py --no-peers)
"""
import csv
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "release" / "tightdp"
SETTINGS = [
    ("mnist", "256/60000", "1.1", 14070, "1e-5"),
    ("abadi", "600/60000", "4", 10000, "1e-5"),
    ("prv", "5/1000", "0.8", 1000, "1e-6"),
    ("large-1e5", "4096/1281167", "2", 100000, "1e-5"),
    ("large-1e6", "4096/1281167", "2", 1000000, "1e-5"),
    ("small", "1/10", "0.6", 100, "1e-5"),
    ("few-5", "1/10", "1", 5, "1e-5"),
    ("mnist-10", "256/60000", "1.1", 10, "1e-5"),
]


def frac(s):
    a, _, b = s.partition("/")
    return float(a) / float(b or 1)


def tightdp(q, sigma, steps, delta, extra):
    cmd = [str(BIN), "epsilon", "--mech", f"gauss:sigma={sigma},q={q},n={steps}", "--delta", delta, "--format", "csv", *extra]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if out.returncode != 0:
        return dict(lo="", hi="", digits="", seconds=f"{dt:.2f}", note=out.stderr.strip())
    row = next(csv.DictReader(out.stdout.splitlines()))
    return dict(lo=row["epsilon_lo"][:24], hi=row["epsilon_hi"][:24], digits=row["digits"], seconds=f"{dt:.2f}", note=row["detail"])


def dp_accounting_rows(q, sigma, steps, delta):
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    for disc in (1e-4, 1e-5):
        if disc < 1e-4 and steps > 20000:
            continue  # minutes per run at 10^5 steps and beyond
        for pess in (True, False):
            t = time.perf_counter()
            pld = pldlib.from_gaussian_mechanism(standard_deviation=float(sigma), sampling_prob=frac(q),
                                                 value_discretization_interval=disc, pessimistic_estimate=pess,
                                                 use_connect_dots=pess)
            e = pld.self_compose(steps).get_epsilon_for_delta(float(delta))
            kind = "pessimistic" if pess else "optimistic"
            yield (f"dp_accounting {disc:g} {kind}", f"{e:.8f}", "", f"{time.perf_counter() - t:.2f}")


def rdp_rows(q, sigma, steps, delta):
    """The Renyi-DP accountant of Opacus and TF-Privacy [Mironov et al. 2019, the sampled Gaussian's RDP],
    as dp_accounting implements it (Opacus itself needs torch, not installed here)."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    t = time.perf_counter()
    acc = rdp.RdpAccountant()
    acc.compose(dp_accounting.PoissonSampledDpEvent(frac(q), dp_accounting.GaussianDpEvent(float(sigma))), steps)
    e = acc.get_epsilon(float(delta))
    yield ("RDP (Opacus-style, dp_accounting)", f"{e:.8f}", "", f"{time.perf_counter() - t:.2f}")


def prv_rows(q, sigma, steps, delta):
    from prv_accountant import Accountant

    for err in (1e-2, 1e-3):
        if err < 1e-2 and steps > 5000:
            continue  # a minute or more per run; measured once in scripts/reference/dpsgd_peers.txt
        t = time.perf_counter()
        a = Accountant(noise_multiplier=float(sigma), sampling_probability=frac(q), delta=float(delta), eps_error=err,
                       max_compositions=steps)
        lo, est, hi = a.compute_epsilon(num_compositions=steps)
        yield (f"prv_accountant eps_error {err:g}", f"{lo:.8f}", f"{hi:.8f}", f"{time.perf_counter() - t:.2f}")


def wor_rows(rows, peers):
    """The MNIST setting with batches drawn without replacement (m = 256 of 60,000, replace-one neighbours,
    sensitivity 1 under replacement): tightdp's certified bound [DRS22, Thm 9] beside dp_accounting's only
    accountant for SampledWithoutReplacementDpEvent, RDP."""
    q, sigma, steps, delta = "256/60000", "1.1", 14070, "1e-5"
    print(f"\nmnist-wor: batches of 256 of 60000 without replacement, noise multiplier {sigma}, {steps} steps, "
          f"delta {delta}, replace-one neighbours")
    cmd = [str(BIN), "epsilon", "--mech", f"gauss:sigma={sigma},sampling=wor,m=256,pop=60000,n={steps}",
           "--neighbors", "replace", "--delta", delta, "--format", "csv"]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if out.returncode == 0:
        row = next(csv.DictReader(out.stdout.splitlines()))
        lo, hi = row["epsilon_lo"][:12], row["epsilon_hi"][:12]
    else:
        lo = hi = ""
    print(f"  {'tightdp (default, certified bound)':38} {lo:>12} {hi:>12} {dt:8.2f}")
    rows.append(["mnist-wor", "tightdp (default, certified bound)", lo, hi, f"{dt:.2f}"])
    if not peers:
        return
    try:
        import dp_accounting
        from dp_accounting.rdp import rdp_privacy_accountant as rdp
    except ImportError as e:
        print(f"  (peer not installed: {e})")
        return
    t = time.perf_counter()
    acc = rdp.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
    event = dp_accounting.SampledWithoutReplacementDpEvent(60000, 256, dp_accounting.GaussianDpEvent(float(sigma)))
    acc.compose(event, steps)
    e = acc.get_epsilon(float(delta))
    dt = time.perf_counter() - t
    print(f"  {'dp_accounting RDP':38} {e:12.8f} {'':>12} {dt:8.2f}")
    rows.append(["mnist-wor", "dp_accounting RDP", f"{e:.8f}", "", f"{dt:.2f}"])


def main():
    peers = "--no-peers" not in sys.argv
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = []
    for name, q, sigma, steps, delta in SETTINGS:
        print(f"\n{name}: q = {q}, noise multiplier {sigma}, {steps} steps, delta {delta}")
        print(f"  {'who':38} {'eps low':>12} {'eps high':>12} {'seconds':>8}")
        # the default: the tilted Fourier inversion (account/engines/tilted.rs), 20 digits; --digits 5: about
        # dp_accounting's 1e-4 accuracy; the pld grid (--method grid) is the independent cross-check
        runs = [("tightdp (default, 20 digits)", []), ("tightdp --digits 5", ["--digits", "5"])]
        if steps <= 20000:
            runs.append(("tightdp pld grid h = 1/2000", ["--method", "grid", "--grid", "1/2000"]))
        for label, extra in runs:
            r = tightdp(q, sigma, steps, delta, extra)
            print(f"  {label:38} {r['lo']:>12} {r['hi']:>12} {r['seconds']:>8}  ({r['digits']} digits certified)")
            rows.append([name, label, r["lo"], r["hi"], r["seconds"]])
        if peers:
            for gen in (dp_accounting_rows, prv_rows, rdp_rows):
                try:
                    for label, lo, hi, s in gen(q, sigma, steps, delta):
                        print(f"  {label:38} {lo:>12} {hi:>12} {s:>8}")
                        rows.append([name, label, lo, hi, s])
                except ImportError as e:
                    print(f"  (peer not installed: {e})")
                except Exception as e:  # a peer's own refusal (prv_accountant at small noise), recorded as such
                    print(f"  ({gen.__name__[:-5]} failed: {type(e).__name__}: {e})")
                    rows.append([name, f"{gen.__name__[:-5]} failed: {e}", "", "", ""])
    wor_rows(rows, peers)
    if out:
        with open(out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["setting", "who", "epsilon_low", "epsilon_high", "seconds"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
