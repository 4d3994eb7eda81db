#!/usr/bin/env python3
"""One side-by-side benchmark table: tightdp next to Google's dp_accounting and Microsoft's prv_accountant on
exactly the same compositions, one block of lines per workload, targets judged.

tightdp (measured now):
  * `cargo bench --bench table` (benches/table.rs): in-process time of `Accountant::new(..).epsilon(δ)` from a
    fresh accountant, for the default request (20 digits) and for cheaper certified configurations (the
    f64 lattice, the smoothed inversion at widths 1e-2 ... 1e-8), each with its certified bracket;
  * the command a user types (`tightdp epsilon ... --format json`, or `certify` for SafeTab-P): wall time
    including process start, and peak memory (/usr/bin/time).
Peers (recorded in scripts/bench/peer_rows_results.csv by
`cargo bench --bench table -- --groups | scripts/bench/peers.sh --rows --out ...`; --peers re-measures):
  * dp_accounting, PLD of the discrete Gaussian, discretization 1e-4 / 1e-5 (pessimistic and optimistic) /
    1e-6; error = |its ε − tightdp's certified ε|;
  * prv_accountant, continuous Gaussian of the same σ (it has no discrete Gaussian), eps_error 1e-2/1e-3/1e-4;
    its error against the discrete truth holds its own error and the model gap (shown apart).
Peer times are the in-process CPU seconds of construction + composition + query (one thread, so equal to
the wall time on an idle machine, and unaffected by load); a case past the time or memory cap is shown as
such and its ratio as a lower bound.

Per peer line: the fastest certified tightdp configuration whose bracket width is at most that peer's error
("at equal or better accuracy"), its time, and the ratio peer seconds / tightdp seconds.

Targets (issue "Twenty digits in under a second"), judged:
  <=1s     the default 20-digit request, as a command, in at most 1 s (production workloads);
  20d      the default bracket has >= 20 correct significant digits (relative width <= 1e-20);
  >=1000x  tightdp >= 1000x faster than dp_accounting at equal or better accuracy (per dp_accounting line);
  acc      some certified tightdp configuration is at least as accurate as the peer.
Exit status 1 if a target is missed (the table is printed in full either way).
"""
import argparse
import csv
import json
import math
import subprocess
import sys
import tempfile
import time
from decimal import Decimal, getcontext
from pathlib import Path

getcontext().prec = 60
ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "scripts" / "bench"
B = str(ROOT / "target" / "release" / "tightdp")
A = ROOT / "data" / "allocations"
RECORDED = BENCH / "peer_rows_results.csv"

# row name in benches/table.rs -> (label, the user's command, production workload?)
ROWS = {
    "state": ("State level, ε(1e-11), 10 queries",
              ["epsilon", "--allocation", str(A / "dhc-2022-08-25.toml"), "--level", "State", "--delta", "1e-11"], False),
    "dhc-2022-overall": ("DHC 2022-08-25 overall, ε(1e-10)",
                         ["epsilon", "--allocation", str(A / "dhc-2022-08-25.toml"), "--overall", "--delta", "1e-10"], True),
    "dhc-persons-2023": ("DHC persons 2023 overall, ε(1e-10)",
                         ["epsilon", "--allocation", str(A / "dhc-persons-us-2023.toml"), "--overall", "--delta", "1e-10"], True),
    "dhc-units-2023": ("DHC units 2023 overall, ε(1e-10)",
                       ["epsilon", "--allocation", str(A / "dhc-units-us-2023.toml"), "--overall", "--delta", "1e-10"], True),
    "redistricting-2021": ("redistricting 2021 overall, ε(1e-10)",
                           ["epsilon", "--allocation", str(A / "redistricting-persons-us-2021.toml"), "--overall", "--delta", "1e-10"], True),
    "safetab-p": ("SafeTab-P production, ε(1e-10)", ["certify", "safetab-p-production", "--delta", "1e-10"], True),
    "n1000": ("n = 1000, σ² = 37.7, ε(1e-10)", ["epsilon", "--sigma2", "37.7", "--n", "1000", "--delta", "1e-10"], False),
}


def run_command(args, repeats=3):
    """(median wall seconds incl. process start, largest peak MB) of a tightdp command run `repeats` times
    (one run alone is at the mercy of the machine's other load)."""
    runs = []
    for _ in range(repeats):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
            t0 = time.perf_counter()
            out = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name, B, *args, "--format", "json"],
                                 capture_output=True, text=True)
            secs = time.perf_counter() - t0
            kb = open(t.name).read().split()[-1]
        if out.returncode != 0:
            return secs, int(kb) / 1024, out.stderr.strip()
        runs.append((secs, int(kb) / 1024))
    return sorted(r[0] for r in runs)[len(runs) // 2], max(r[1] for r in runs), None


def bench_lines(filter_=None):
    """The JSON lines of benches/table.rs, measured now."""
    cmd = ["cargo", "bench", "--locked", "-q", "--bench", "table", "--"] + ([filter_] if filter_ else [])
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]


def read_peers(path):
    rows = {}
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(lines):
        rows.setdefault(r["row"], []).append(r)
    with open(path) as f:
        first = f.readline().strip()
    return rows, first[1:].strip() if first.startswith("#") else ""


def digits(lo, hi):
    mid = (lo + hi) / 2
    w = hi - lo
    return 99 if w == 0 else int(math.floor(-math.log10(float(w / abs(mid)))))


def fmt_s(x):
    return f"{x:.4f}" if x < 10 else f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers", action="store_true", help="re-measure the peers now (tens of minutes)")
    ap.add_argument("--peer-csv", default=str(RECORDED), help="recorded peer rows (default %(default)s)")
    ap.add_argument("--tightdp-json", help="use these benches/table.rs lines instead of measuring")
    ap.add_argument("filter", nargs="?", help="only rows whose name contains this")
    args = ap.parse_args()

    if args.tightdp_json:
        tl = [json.loads(l) for l in open(args.tightdp_json) if l.startswith("{")]
    else:
        tl = bench_lines(args.filter)
    peer_csv = Path(args.peer_csv)
    if args.peers:
        peer_csv = Path(tempfile.mkdtemp()) / "peer_rows.csv"
        groups = subprocess.run(["cargo", "bench", "--locked", "-q", "--bench", "table", "--", "--groups"]
                                + ([args.filter] if args.filter else []),
                                cwd=ROOT, capture_output=True, text=True, check=True).stdout
        subprocess.run([str(BENCH / "peers.sh"), "--rows", "--out", str(peer_csv)], input=groups, text=True,
                       check=True)
    peers, peer_note = read_peers(peer_csv)
    source = "measured now" if args.peers else f"recorded in {peer_csv.relative_to(ROOT) if peer_csv.is_relative_to(ROOT) else peer_csv}"
    print(f"peers {source} ({peer_note})")
    print()

    configs = {}
    for l in tl:
        configs.setdefault(l["row"], []).append(l)
    hdr = (f"{'workload':38} {'config':>14} {'s in-proc':>9} {'s cmd':>7} {'MB':>5} {'width':>8} {'dig':>3} |"
           f" {'peer, setting':>26} {'s (cpu)':>8} {'MB':>6} {'error':>8} | {'tightdp at ≤ that error':>20} {'s':>8}"
           f" {'ratio':>8} | targets")
    print(hdr)
    print("-" * len(hdr))
    missed = []
    for row, (label, cmd, production) in ROWS.items():
        if row not in configs:
            continue
        ok = [c for c in configs[row] if "lo" in c]
        for c in ok:
            c["lo_d"], c["hi_d"] = Decimal(c["lo"]), Decimal(c["hi"])
            c["width"] = c["hi_d"] - c["lo_d"]
        default = next((c for c in configs[row] if c["config"] == "default"), None)
        if default is None or "lo" not in default:
            print(f"{label:38} default request failed: {default.get('error') if default else 'missing'}")
            missed.append(f"{row}: default failed")
            continue
        truth = (default["lo_d"] + default["hi_d"]) / 2
        secs, mb, err = run_command(cmd)
        d = digits(default["lo_d"], default["hi_d"])
        judged = []
        if production:
            judged.append(f"<=1s {'✓' if secs <= 1.0 and err is None else '✗'}")
            judged.append(f"20d {'✓' if d >= 20 else '✗'}")
            if secs > 1.0 or err is not None:
                missed.append(f"{row}: {secs:.2f} s > 1 s")
            if d < 20:
                missed.append(f"{row}: {d} digits < 20")
        head = (f"{label:38} {default['method']:>14} {fmt_s(default['seconds']):>9} {fmt_s(secs):>7} {mb:5.0f}"
                f" {float(default['width']):8.1e} {d:3d} |")
        lines = []
        for p in peers.get(row, []):
            name = "dp_accounting" if p["peer"] == "dp_accounting" else "prv_accountant"
            setting = (f"{float(p['setting']):.0e} {p['estimate'][:4]}" if name == "dp_accounting"
                       else f"eps_error {float(p['setting']):.0e}")
            pid = f"{name} {setting}"
            if p["status"] != "ok":
                cap = p["status"]
                cpu = float(p["cpu_seconds"] or p["seconds"])
                mem = f"{float(p['peak_mb']):6.0f}" if p["peak_mb"] else f"{'-':>6}"
                # no value: compare with tightdp's default (the most accurate configuration)
                best_s = default["seconds"]
                ratio = cpu / best_s
                t = []
                if name == "dp_accounting" and cap == "timeout":
                    t.append(f">=1000x {'✓' if ratio >= 1000 else '✗'} (lower bound)")
                    if ratio < 1000:
                        missed.append(f"{row}: {pid} timeout ratio >= {ratio:.0f}")
                elif name == "dp_accounting":
                    t.append(f"({cap}: no value)")
                lines.append(f" {pid:>26} {'>' + fmt_s(cpu) if cap == 'timeout' else fmt_s(cpu):>8} {mem}"
                             f" {cap[:8]:>8} | {'default':>20} {fmt_s(best_s):>8} {'>' + format(ratio, '.0f') if cap == 'timeout' else '-':>8} | "
                             + " ".join(t))
                continue
            eps = Decimal(p["epsilon"])
            error = abs(eps - truth)
            cpu = float(p["cpu_seconds"] or p["seconds"])
            cands = [c for c in ok if c["width"] <= error]
            t = []
            if cands:
                best = min(cands, key=lambda c: c["seconds"])
                ratio = cpu / best["seconds"]
                best_txt = f"{best['config']:>20} {fmt_s(best['seconds']):>8} {ratio:8.0f}"
                t.append("acc ✓")
                if name == "dp_accounting":
                    t.append(f">=1000x {'✓' if ratio >= 1000 else '✗'}")
                    if ratio < 1000:
                        missed.append(f"{row}: {pid} ratio {ratio:.0f}")
            else:
                best_txt = f"{'none':>20} {'-':>8} {'-':>8}"
                t.append("acc ✗")
                missed.append(f"{row}: {pid} no tightdp configuration as accurate")
            if name == "prv_accountant" and p.get("epsilon_continuous_exact"):
                own = abs(eps - Decimal(p["epsilon_continuous_exact"]))
                t.append(f"(own error {float(own):.1e}, model gap {float(Decimal(p['epsilon_continuous_exact']) - truth):+.1e})")
            lines.append(f" {pid:>26} {fmt_s(cpu):>8} {float(p['peak_mb']):6.0f} {float(error):8.1e} | {best_txt} | "
                         + " ".join(t))
        if not lines:
            lines = [f" {'(no peer rows recorded)':>26} {'':>8} {'':>6} {'':>8} | {'':>20} {'':>8} {'':>8} | "]
        lines[0] = lines[0] + (" " + " ".join(judged) if judged else "")
        print(head + lines[0])
        for l in lines[1:]:
            print(" " * (len(head) - 1) + "|" + l)
        others = ", ".join(f"{c['config']} {fmt_s(c['seconds'])} s ({float(c['width']):.0e})" for c in ok
                           if c["config"] != "default")
        fails = ", ".join(f"{c['config']} refused" for c in configs[row] if "lo" not in c)
        print(f"{'':38}   other certified configurations: {others}{'; ' + fails if fails else ''}")
        print()
    print("s in-proc: median in-process seconds of the default request (benches/table.rs); s cmd: the command as a user")
    print("  types it (process start included, median of 3 runs); MB: its peak memory; width: certified bracket width; dig: correct digits.")
    print("error: |peer's ε − tightdp's certified ε| (prv: against the discrete truth, own error and model gap shown).")
    print("tightdp at ≤ that error: the fastest certified configuration whose bracket width is at most that error.")
    print("ratio: peer CPU seconds / that configuration's in-process seconds.")
    if missed:
        print(f"targets missed ({len(missed)}): " + "; ".join(missed))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
