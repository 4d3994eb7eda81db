#!/usr/bin/env bash
# Benchmarks (not tests): tightdp's accountant, then the peers on the same inputs, side by side.
#   ./scripts/bench.sh              all benchmarks, peers included (installs dp-accounting and prv-accountant
#                                   in a scratch venv; the table re-measures both on every row: about an hour,
#                                   dp_accounting's 1e-6 production cases dominate)
#   ./scripts/bench.sh --quick      the side-by-side table only (tightdp measured now, dp_accounting and
#                                   prv_accountant from scripts/bench/peer_rows_results.csv), ~1-2 min
#   ./scripts/bench.sh --no-peers   tightdp only
#   ./scripts/bench.sh FILTER       only cases whose name contains FILTER
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
peers=1
args=()
for a in "$@"; do
  case "$a" in
    --no-peers) peers=0 ;;
    *) args+=("$a") ;;
  esac
done
if [ "${args[*]:-}" = "--quick" ] || [[ "${args[*]:-}" == *table* ]]; then
  # the side-by-side table only (the peers' recorded numbers; --peers in the full run re-measures them)
  cargo build --release --locked -q
  python3 scripts/bench/table.py
  exit 0
fi
cargo build --release --locked -q
V=target/pyvenv
# (the table and the per-call overhead are whole-run sections: a FILTER selects only the sections it names)
if [ -z "${args[*]:-}" ]; then
echo "== one side-by-side table (tightdp measured now; dp_accounting and prv_accountant measured by peers.sh --rows)"
if [ "$peers" = 1 ]; then python3 scripts/bench/table.py --peers || true; else python3 scripts/bench/table.py || true; fi
echo
echo "== Python package: per-call overhead (target <= 1 ms over the Rust computation)"
if [ -x "$V/bin/python" ] && "$V/bin/python" -c "import tightdp" 2>/dev/null; then
  "$V/bin/python" - <<'PY'
import time, tightdp
c = tightdp.DiscreteGaussian("50000/10001", n=10)
c.epsilon("1e-11")                      # builds and caches the law
n = 2000
t = time.perf_counter()
for _ in range(n):
    c.epsilon("1e-11")                  # cached law: the Rust work is a few microseconds
dt = (time.perf_counter() - t) / n
print(f"python call, cached law: {dt*1e6:.1f} us per call (overhead bound; target <= 1000 us: {'OK' if dt <= 1e-3 else 'MISSED'})")
PY
else
  echo "(run ./scripts/test.sh first: it builds the package into $V)"
fi
fi
echo
echo "== tightdp (cargo bench, release) on $(nproc) cores"
cargo bench --locked --bench accountant -- "${args[@]}"
cargo build --release --locked -q
B=./target/release/tightdp
A=data/allocations
# timed NAME TARGET CMD...: wall time and peak memory of one command, next to its target.
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT
timed() {
  local name="$1" target="$2"; shift 2
  /usr/bin/time -f "%e %M" -o "$TIMES" "$@" >/dev/null 2>&1 || echo "   ($name exited non-zero)"
  local secs kb; read -r secs kb < <(tail -1 "$TIMES")
  printf "%-58s %8s s %9s MB   target %s\n" "$name" "$secs" "$(awk "BEGIN{printf \"%.1f\", $kb/1024}")" "$target"
}
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *whole* ]]; then
  echo
  echo "== whole commands (wall time, peak RSS)"
  timed "overall eps(1e-10), certified, both terms, prec 256"  "<= 10 s, <= 2 GB" $B epsilon --allocation $A/dhc-2022-08-25.toml --overall --delta 1e-10
  timed "overall eps(1e-10), certified f64 engine (--prec 53)"   "-"               $B epsilon --allocation $A/dhc-2022-08-25.toml --overall --delta 1e-10 --prec 53
  timed "calibrate: Table 1, all 8 levels"                      "<= 2 s"          $B calibrate --allocation $A/dhc-2022-08-25.toml --delta 1e-11
  timed "calibrate --uniform (overall, certified at prec 256)"  "-"               $B calibrate --allocation $A/dhc-2022-08-25.toml --delta 1e-10 --uniform
  timed "delta --method fourier (paper, Boole N=10^7+1)"        "<= 5 min"        $B delta --allocation $A/dhc-2022-08-25.toml --overall --epsilon 20.838545 --method fourier
  timed "delta --method fourier-fast (saddle point, MPFR)"      "-"               $B delta --allocation $A/dhc-2022-08-25.toml --overall --epsilon 20.838545 --method fourier-fast
  timed "certify DHC persons 2023 (exact, default 256 bits)"     "<= 30 s"         $B certify --allocation $A/dhc-persons-us-2023.toml --delta 1e-10
  timed "certify DHC units 2023 (exact, default 256 bits)"       "<= 30 s"         $B certify --allocation $A/dhc-units-us-2023.toml --delta 1e-10
  timed "certify redistricting 2021 (exact, smoothed, width 1e-9)" "<= 30 s"        $B certify --allocation $A/redistricting-persons-us-2021.toml --delta 1e-10
  timed "certify redistricting 2021 + DHC persons 2023"         "<= 30 s"         $B certify --allocation $A/redistricting-persons-us-2021.toml --allocation $A/dhc-persons-us-2023.toml --delta 1e-10
  timed "certify SafeTab-P allocation file (exact per level)"   "<= 30 s"         $B certify --allocation $A/safetab-p-2023.toml --delta 1e-10
  timed "redistricting 2021 eps: grid 1/20000 (old method)"     "-"               $B epsilon --allocation $A/redistricting-persons-us-2021.toml --overall --delta 1e-10 --grid 1/20000
  timed "redistricting 2021 eps: smoothed, width 2e-6"          "-"               $B epsilon --allocation $A/redistricting-persons-us-2021.toml --overall --delta 1e-10 --method smoothed --width 2e-6
  timed "redistricting 2021 eps: smoothed, width 1e-10"         "-"               $B epsilon --allocation $A/redistricting-persons-us-2021.toml --overall --delta 1e-10 --method smoothed --width 1e-10
  timed "overall DHC 2022 eps(1e-10): smoothed, width 1e-9"     "-"               $B epsilon --allocation $A/dhc-2022-08-25.toml --overall --delta 1e-10 --method smoothed
  timed "certify SafeTab-P production (exact, --prec 53)"       "-"               $B certify safetab-p-production --delta 1e-10 --prec 53
  timed "verify (122 published numbers)"                        "<= 60 s"         $B verify --no-write
  tmpr=$(mktemp -d)
  timed "reproduce (all tables, figures, verification)"         "<= 5 min"        $B reproduce --out "$tmpr"
  rm -rf "$tmpr"
fi
# A section measured beside the peers: with --peers, `peers.sh --KEY` runs scripts/bench/KEY.py with
# dp_accounting and prv_accountant and records scripts/bench/KEY_results.csv; without, KEY.py measures
# tightdp alone. Runs when no section is named or KEY is.
peer_section() {
  local key=$1 title=$2
  if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *"$key"* ]]; then
    echo
    echo "== $title"
    if [ "$peers" = 1 ]; then
      ./scripts/bench/peers.sh --"$key" --out scripts/bench/"$key"_results.csv
    else
      python3 scripts/bench/"$key".py --no-peers
    fi
  fi
}
# The scaling table (issue 33): n x N_Z(0, sigma2) for n = 1..1e7, sigma2 = 0.01..1e8, delta = 1e-5, 1e-10, 1e-30;
# tightdp's time, memory, digits and engine beside dp_accounting (1e-4, 1e-5) and prv_accountant, same run,
# and the fitted growth exponent in n. With peers about an hour (they time out at 30 s per case).
peer_section scaling "scaling table: n x N_Z(0, sigma2), eps(delta), 20 digits asked"
# DP-SGD (issue 35): the Poisson-subsampled Gaussian, tightdp's certified bracket beside dp_accounting and
# prv_accountant in the same run (scripts/bench/dpsgd.py; a few minutes with peers).
peer_section dpsgd "DP-SGD: Poisson-subsampled Gaussian, eps(delta)"
# DP-SGD calibration (issue 53 item 5): sigma, the sampling rate, the steps and an attack target, tightdp's
# certified searches beside dp_accounting's calibrate_dp_mechanism in the same run (scripts/bench/calibration.py;
# ~2 min with the peer).
peer_section calibration "DP-SGD calibration: noise multiplier, sampling rate, steps, attack target"
# Laplace (issue 53): n releases, eps(1e-5), tightdp's tilted engine and exact sum beside dp_accounting's PLD in the same run
# (scripts/bench/laplace.py; ~2 min with the peer).
peer_section laplace "Laplace compositions, eps(delta)"
# The exponential mechanism (issue 54 item 5): n releases at epsilon-DP, eps(1e-5), tightdp's bounded-range bound beside
# dp_accounting's eps-DP pair and the eps^2/8-zCDP budget in the same run (scripts/bench/expmech.py; ~10 s with the peer).
peer_section expmech "the exponential mechanism, eps(delta)"
# Continuous and lattice laws mixed (issue 53): Gaussian + discrete Gaussian, Laplace + subsampled Gaussian,
# tightdp's tilted engine beside dp_accounting's PLD in the same run (scripts/bench/mixes.py; ~1 min with the peer).
peer_section mixes "continuous and lattice mixes, eps(delta)"
# Issue 53's timing criteria, tightdp alone (no peer computes f(alpha) or certifies these digits): eps(1e-5) at
# T = 1e3..1e6 releases with the fitted exponent of time in T, and delta(eps) and f(alpha) against eps(delta)'s time
# (scripts/bench/queries.py, in process from target/pyvenv; ~5 min).
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *queries* ]]; then
  echo
  echo "== time against the number of releases, and delta and f against eps (issue 53)"
  if [ -x target/pyvenv/bin/python ]; then
    target/pyvenv/bin/python scripts/bench/queries.py --out scripts/bench/queries_results.csv
  else
    echo "(tightdp's Python package runs in target/pyvenv: run ./scripts/test.sh first)"
  fi
fi
# The mixture-of-Gaussians mechanism (issue 54 item 4): n = 1, 10, 100, 1000 releases, eps(1e-5), tightdp's CLI beside
# dp_accounting's PLD at 1e-3 and 1e-4 in the same run (scripts/bench/mog.py; ~5 min, the peer in the package's venv).
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *mog* ]]; then
  echo
  echo "== mixture of Gaussians (matrix mechanisms), eps(delta)"
  if [ "$peers" = 1 ] && [ -x target/pyvenv/bin/python ] && target/pyvenv/bin/python -c "import dp_accounting" 2>/dev/null; then
    target/pyvenv/bin/python scripts/bench/mog.py
  else
    echo "(the peer runs in target/pyvenv: run ./scripts/test.sh first)"
  fi
fi
# The samplers of DP-SGD at MNIST size (issue 54): Poisson (beside dp_accounting's PLD at 1e-4), fixed-size batches,
# random allocation's certified upper bound, shuffled batches' certified lower bound, 1, 10 and 60 epochs, both relations (scripts/bench/samplers.py; ~5 min).
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *samplers* ]]; then
  echo
  echo "== samplers of DP-SGD at MNIST size, eps(1e-5)"
  if [ -x target/pyvenv/bin/python ]; then
    target/pyvenv/bin/python scripts/bench/samplers.py
  else
    echo "(the peer runs in target/pyvenv: run ./scripts/test.sh first)"
  fi
fi
# Discrete Gaussian + discrete Laplace mixtures (issue 33 item 3): 162 cells x eps, delta, f(alpha) through the CLI
# (scripts/bench/mixtures.py; ~10 min, ~45 min with --base OLD_BINARY beside it), then 16 cells of eps(1e-10)
# in-process beside dp_accounting (scripts/bench/mixtures_peer.py, same run, a few minutes).
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *mixtures* ]]; then
  echo
  echo "== discrete Gaussian + discrete Laplace mixtures"
  python3 scripts/bench/mixtures.py --timeout 60
  python3 scripts/bench/mixtures_summary.py
  if [ "$peers" = 1 ] && [ -x target/pyvenv/bin/python ] && target/pyvenv/bin/python -c "import tightdp, dp_accounting" 2>/dev/null; then
    target/pyvenv/bin/python scripts/bench/mixtures_peer.py
  fi
fi
# The per-level peer runs of earlier releases (all eight levels, both peers) stay callable for the record:
#   scripts/bench/peers.sh --out scripts/bench/dp_accounting_results.csv
#   scripts/bench/peers.sh --prv --out scripts/bench/prv_accountant_results.csv
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *risk* ]]; then
  echo
  echo "== disclosure risk (Kazan-Reiter)"
  cargo bench --locked --bench risk
fi
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *topdown* ]]; then
  echo
  echo "== TopDown measurements"
  ./scripts/bench-topdown.sh
fi

# Accuracy on real-data layouts (Figures 6, 8, 9 of census-2020-more-private-fdp.txt): a synthetic NHGIS
# block extract of Pennsylvania's size (421,545 blocks, P8's nine race cells), 1,000 trials of both the
# Bureau's and Table 1's noise (2 x 3.8e9 draws), exact expectations included; and the ACS regression.
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *accuracy* ]]; then
  echo
  echo "== accuracy --nhgis / downstream --acs on the real-data layouts (synthetic data)"
  cargo build --release --locked -q
  tmpa=$(mktemp -d)
  python3 scripts/make_synthetic_extracts.py "$tmpa" --blocks 421545 >/dev/null
  timed "accuracy --nhgis: 421,545 blocks x 9 counts x 1000 trials, 2 noises" "<= 60 s on 2 cores" \
    $B accuracy --nhgis "$tmpa/nhgis/nhgis0000_ds172_2010_block.csv" --trials 1000 --seed 1
  timed "accuracy --nhgis: all 5 levels of that extract, 1000 trials"        "-" \
    $B accuracy --nhgis "$tmpa"/nhgis/*.csv --trials 1000 --seed 1
  timed "downstream --acs: 7 synthetic ACS levels x 2000 trials, 2 noises"    "-" \
    $B downstream --acs data/synthetic-extracts/acs/* --trials 2000 --seed 1
  rm -rf "$tmpa"
fi

# Mechanisms (src/mech): exact sampler throughput and a SafeTab-P run on 10 million synthetic persons.
if [ -z "${args[*]:-}" ] || [[ "${args[*]}" == *mech* ]]; then
  echo
  echo "== exact samplers"
  cargo build --release --locked -q
  for s2 in 0.5 21.0871 456.62 5625; do
    echo "discrete Gaussian sigma2=$s2:"; ./target/release/tightdp sample --sigma2 "$s2" --n 200000 --seed 1 --bench
  done
  echo "discrete Laplace scale=2.34:"; ./target/release/tightdp sample --scale 2.34 --n 200000 --seed 1 --bench
  echo
  echo "== SafeTab-P, 10 million synthetic persons (budget: <= 3 min, <= 4 GB)"
  tmp=$(mktemp -d)
  ./target/release/tightdp synth --out "$tmp" --states 10 --counties 20 --tracts 10 --blocks 10 --persons 10000000 --seed 1
  /usr/bin/time -v ./target/release/tightdp safetab-p --persons "$tmp/persons.csv" --geography "$tmp/geography.txt" \
      --out "$tmp/out" --seed 1 2>&1 | grep -E "persons|groups|draws|seconds|Elapsed|Maximum resident"
  rm -rf "$tmp"
fi
