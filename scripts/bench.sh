#!/usr/bin/env bash
# Benchmarks (not tests): tightdp's accountant, then the peers on the same inputs, side by side.
#   ./scripts/bench.sh              all benchmarks, peers included (installs dp-accounting in a scratch venv)
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
echo "== tightdp (cargo bench, release) on $(nproc) cores"
cargo bench --locked --bench accountant -- "${args[@]}"
if [ "$peers" = 1 ] && [ -x scripts/bench/peers.sh ]; then
  echo
  echo "== Google dp_accounting (PLD), same inputs"
  scripts/bench/peers.sh --quick
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
