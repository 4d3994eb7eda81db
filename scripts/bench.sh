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
