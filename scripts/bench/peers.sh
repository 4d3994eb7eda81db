#!/usr/bin/env bash
# Peer benchmark: Google's dp_accounting (PLD accountant) on the same discrete-Gaussian cases that
# tightdp certifies. Creates a scratch venv OUTSIDE the repo (default
# ${TIGHTDP_VENV:-$HOME/.cache/tightdp/venv-peers}), installs dp-accounting from PyPI once, then runs
# dp_accounting_bench.py with all arguments passed through, e.g.
#   scripts/bench/peers.sh --quick
#   scripts/bench/peers.sh --out scripts/bench/dp_accounting_results.csv
# Set DP_ACCOUNTING_VERSION to pin another version (default: the one the recorded results used).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${TIGHTDP_VENV:-$HOME/.cache/tightdp/venv-peers}"
version="${DP_ACCOUNTING_VERSION:-0.6.0}"
py="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  echo "peers: creating venv at $venv" >&2
  mkdir -p "$(dirname "$venv")"
  "$py" -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import dp_accounting, sys; from importlib.metadata import version; sys.exit(0 if version('dp-accounting') == '$version' else 1)" >/dev/null 2>&1; then
  echo "peers: installing dp-accounting==$version into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "dp-accounting==$version" >&2
fi
exec "$venv/bin/python" "$here/dp_accounting_bench.py" "$@"
