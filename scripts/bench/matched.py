#!/usr/bin/env python3
"""Issue 53's criterion, measured in one run: on every cell of its benchmark, tightdp asked for the digits that
dp_accounting's PLD answer at discretisation 1e-4 gets right, against that answer's time (and tightdp's default
20 digits beside). Cells: the DP-SGD settings (dpsgd.py), the Laplace mechanism at T = 1, 10, 10^3 and 10^6
releases (scale 1 and 10), randomized response (eps0 = 1), and the Gaussian + discrete Gaussian mixes (mixes.py).

dp_accounting: pessimistic estimate (connect-the-dots), in process, the PLD built and composed inside the timing,
best of 3 after an untimed warm-up (10^6 Laplace releases: discretisation 0.05, the finest its memory allows, as in
laplace.py). Its correct digits: those its value shares with tightdp's certified 20-digit bracket,
floor(-log10(|v - x| / x)). tightdp asked for K = those digits (at least 1): in process, as dp_accounting (its
Python package from target/pyvenv, built by ./scripts/test.sh: a fresh process per run, the package imported and
the composition built outside the timing, the one query timed), best of 3; and its CLI beside (the process start,
~10 ms, included).

Usage: python3 scripts/bench/matched.py [--out CSV]   (scripts/bench/peers.sh --matched runs it in the peers' venv)
"""
import csv
import math
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dpsgd import SETTINGS, frac  # noqa: E402
from laplace import BIN, discretisations, write_csv  # noqa: E402
from mixes import CELLS as MIXES, spec as mix_spec  # noqa: E402


def cells():
    """(name, tightdp's epsilon arguments, delta, dp_accounting's PLD builder)."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    kw = lambda disc=1e-4: dict(value_discretization_interval=disc, pessimistic_estimate=True, use_connect_dots=True)
    for name, q, sigma, steps, delta in SETTINGS:
        build = lambda q=q, sigma=sigma, steps=steps: pldlib.from_gaussian_mechanism(
            standard_deviation=float(sigma), sampling_prob=frac(q), **kw()).self_compose(steps)
        yield (f"DP-SGD {name}", ["--mech", f"gauss:sigma={sigma},q={q},n={steps}"], delta, build)
    for b in (1, 10):
        for n in (1, 10, 1000, 1000000):
            disc = discretisations(n)[0]
            build = lambda b=b, n=n, disc=disc: pldlib.from_laplace_mechanism(
                parameter=float(b), sensitivity=1, **kw(disc)).self_compose(n)
            yield (f"Laplace({b}) x {n}" + ("" if disc == 1e-4 else f" (dp_accounting at {disc:g})"),
                   ["--mech", f"laplace:scale={b},n={n}"], "1e-5", build)
    for n in (50, 1000):
        build = lambda n=n: pldlib.from_randomized_response(
            noise_parameter=2 / (1 + math.e), num_buckets=2, value_discretization_interval=1e-4).self_compose(n)
        yield (f"randomized response eps0 = 1 x {n}", ["--mech", f"rr:epsilon=1,n={n}", "--neighbors", "replace"], "1e-5", build)
    for name, delta, terms in MIXES:
        def build(terms=terms):
            pld = None
            for t in terms:
                if t[0] == "gauss":
                    one = pldlib.from_gaussian_mechanism(standard_deviation=t[1], sampling_prob=t[2] or 1.0, **kw())
                elif t[0] == "dgauss":
                    one = pldlib.from_discrete_gaussian_mechanism(sigma=t[1] ** 0.5, **kw())
                else:
                    one = pldlib.from_laplace_mechanism(parameter=float(t[1]), sensitivity=1, **kw())
                one = one.self_compose(t[-1])
                pld = one if pld is None else pld.compose(one)
            return pld
        yield (name, [a for t in terms for a in ("--mech", mix_spec(t))], delta, build)


def best_of(f, times=3):
    f()
    best, out = math.inf, None
    for _ in range(times):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


PYVENV = BIN.parents[1] / "pyvenv" / "bin" / "python"

ONE_QUERY = """
import sys, time, tightdp
mechs, neighbors, delta, digits = sys.argv[1].split("|"), sys.argv[2], sys.argv[3], int(sys.argv[4])
c = tightdp.from_mechs(mechs, neighbors)
t = time.perf_counter()
r = c.epsilon(delta, digits=digits)
print(time.perf_counter() - t, r.digits, r.method)
"""


def tightdp_in_process(args, delta, digits):
    """Seconds of one query in a fresh process (its import and the composition outside the timing), best of 3."""
    mechs = [args[i + 1] for i, a in enumerate(args) if a == "--mech"]
    neighbors = args[args.index("--neighbors") + 1] if "--neighbors" in args else "add-remove"
    best = math.inf
    for _ in range(3):
        out = subprocess.run([str(PYVENV), "-c", ONE_QUERY, "|".join(mechs), neighbors, delta, str(digits)],
                             capture_output=True, text=True, check=True)
        best = min(best, float(out.stdout.split()[0]))
    return best


def tightdp(args, delta, digits):
    cmd = [str(BIN), "epsilon", *args, "--delta", delta, "--digits", str(digits), "--format", "csv"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return next(csv.DictReader(out.stdout.splitlines()))


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else None
    rows = []
    if not PYVENV.exists():
        sys.exit(f"no {PYVENV}: run ./scripts/test.sh first (it builds tightdp's Python package there)")
    print(f"{'cell':<62} {'dp_acc 1e-4':>16} {'its digits':>10} {'dp s':>7} {'tightdp s':>9} {'faster':>6} {'CLI s':>7} {'20-digit s':>10}")
    for name, args, delta, build in cells():
        dp_s, dp_e = best_of(lambda: build().get_epsilon_for_delta(float(delta)))
        t20, row20 = best_of(lambda: tightdp(args, delta, 20))
        x = (Fraction(row20["epsilon_lo"]) + Fraction(row20["epsilon_hi"])) / 2
        err = abs(Fraction(dp_e) - x) / x
        k = max(1, min(20, math.floor(-math.log10(err)) if err > 0 else 20))
        cli, rowk = best_of(lambda: tightdp(args, delta, k))
        tk = tightdp_in_process(args, delta, k)
        faster = tk < dp_s
        print(f"{name:<62} {dp_e:>16.10f} {k:>10} {dp_s:>7.3f} {tk:>9.3f} {'yes' if faster else 'NO':>6} {cli:>7.3f} {t20:>10.3f}")
        rows.append(dict(cell=name, delta=delta, dp_accounting=f"{dp_e:.12f}", dp_accounting_digits=k,
                         dp_accounting_seconds=f"{dp_s:.4f}", tightdp_lo=rowk["epsilon_lo"][:24], tightdp_hi=rowk["epsilon_hi"][:24],
                         tightdp_digits=rowk["digits"], tightdp_seconds=f"{tk:.4f}", tightdp_cli_seconds=f"{cli:.4f}", tightdp_method=rowk["method"],
                         faster="yes" if faster else "no", tightdp_20_digits_cli_seconds=f"{t20:.4f}", tightdp_20_digits=row20["digits"]))
    if out:
        write_csv(out, rows)


if __name__ == "__main__":
    main()
