#!/usr/bin/env bash
# Peer benchmarks on the same cases that tightdp certifies:
#   * Google's dp_accounting (PLD accountant, discrete Gaussian)           -> dp_accounting_bench.py
#   * Microsoft's prv_accountant (PRV accountant, continuous Gaussian with
#     the same sigma, beside the exact continuous eps from mpmath)         -> prv_accountant_bench.py (--prv)
# Creates a scratch venv OUTSIDE the repo (default ${TIGHTDP_VENV:-$HOME/.cache/tightdp/venv-peers}),
# installs the pinned peers from PyPI once, then runs one bench with the remaining arguments, e.g.
#   scripts/bench/peers.sh --quick
#   scripts/bench/peers.sh --out scripts/bench/dp_accounting_results.csv
#   scripts/bench/peers.sh --prv --quick
#   scripts/bench/peers.sh --prv --out scripts/bench/prv_accountant_results.csv
#   cargo bench --bench table -- --groups | scripts/bench/peers.sh --rows --out scripts/bench/peer_rows_results.csv
#   scripts/bench/peers.sh --scaling --out scripts/bench/scaling_results.csv   (the scaling table, ~1 h)
#   scripts/bench/peers.sh --laplace --out scripts/bench/laplace_results.csv   (Laplace compositions, ~2 min)
#   scripts/bench/peers.sh --mixes --out scripts/bench/mixes_results.csv       (continuous + lattice mixes, ~1 min)
#   scripts/bench/peers.sh --expmech --out scripts/bench/expmech_results.csv   (the exponential mechanism, ~10 s)
#   scripts/bench/peers.sh --matched --out scripts/bench/matched_results.csv   (tightdp at dp_accounting's accuracy, ~5 min)
# --scaling also times tightdp in-process, so it installs tightdp's Python package (./python, built with the
# repo's target/ as CARGO_TARGET_DIR) into the venv when `import tightdp` fails there, or always when
# --reinstall-tightdp is given (pass it after a rebuild: an installed package is not checked against the
# source); the install writes the commit it was built from to $venv/tightdp-source.txt.
# Without --prv it runs dp_accounting_bench.py exactly as before.
# Set DP_ACCOUNTING_VERSION / PRV_ACCOUNTANT_VERSION / MPMATH_VERSION to pin other versions (defaults:
# the ones the recorded results used).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${TIGHTDP_VENV:-$HOME/.cache/tightdp/venv-peers}"
version="${DP_ACCOUNTING_VERSION:-0.6.0}"
prv_version="${PRV_ACCOUNTANT_VERSION:-0.2.0}"
mpmath_version="${MPMATH_VERSION:-1.4.1}"
py="${PYTHON:-python3}"

bench="$here/dp_accounting_bench.py"
if [ "${1:-}" = "--prv" ]; then
  shift
  bench="$here/prv_accountant_bench.py"
elif [ "${1:-}" = "--scaling" ]; then
  # the scaling table of issue 33: tightdp's CLI and both peers on n x N_Z(0, sigma2) (scaling.py)
  shift
  bench="$here/scaling.py"
elif [ "${1:-}" = "--dpsgd" ]; then
  # the DP-SGD table of issue 35: tightdp's CLI beside both peers on the subsampled Gaussian (dpsgd.py)
  shift
  bench="$here/dpsgd.py"
elif [ "${1:-}" = "--calibration" ]; then
  # DP-SGD calibration: tightdp's certified searches beside dp_accounting's calibrate_dp_mechanism (calibration.py)
  shift
  bench="$here/calibration.py"
elif [ "${1:-}" = "--laplace" ]; then
  # n releases of the Laplace mechanism, tightdp's exact sum beside dp_accounting's PLD (laplace.py)
  shift
  bench="$here/laplace.py"
elif [ "${1:-}" = "--expmech" ]; then
  # the exponential mechanism: tightdp's bounded-range bound beside dp_accounting's eps-DP pair (expmech.py)
  shift
  bench="$here/expmech.py"
elif [ "${1:-}" = "--mixes" ]; then
  # continuous and lattice laws mixed (Gaussian + discrete Gaussian, Laplace + subsampled Gaussian; mixes.py)
  shift
  bench="$here/mixes.py"
elif [ "${1:-}" = "--matched" ]; then
  # issue 53's criterion: tightdp at the digits dp_accounting's 1e-4 answer gets right, beside its time (matched.py)
  shift
  bench="$here/matched.py"
elif [ "${1:-}" = "--rows" ]; then
  # both peers on every row of the side-by-side table (inputs: `cargo bench --bench table -- --groups`)
  shift
  bench="$here/peer_rows.py"
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "peers: creating venv at $venv" >&2
  mkdir -p "$(dirname "$venv")"
  "$py" -m venv "$venv"
fi
# has PKG VERSION: is exactly that version installed in the venv?
has() {
  "$venv/bin/python" -c "import sys; from importlib.metadata import version; sys.exit(0 if version('$1') == '$2' else 1)" >/dev/null 2>&1
}
want=()
has dp-accounting "$version" || want+=("dp-accounting==$version")
has prv-accountant "$prv_version" || want+=("prv-accountant==$prv_version")
has mpmath "$mpmath_version" || want+=("mpmath==$mpmath_version")
if [ ${#want[@]} -gt 0 ]; then
  echo "peers: installing ${want[*]} into $venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${want[@]}" >&2
fi
if [ "$bench" = "$here/scaling.py" ]; then
  reinstall=0
  rest=()
  for a in "$@"; do
    if [ "$a" = "--reinstall-tightdp" ]; then reinstall=1; else rest+=("$a"); fi
  done
  set -- ${rest[@]+"${rest[@]}"}
  repo="$(cd "$here/../.." && pwd)"
  if [ "$reinstall" = 1 ] || ! "$venv/bin/python" -c "import tightdp" >/dev/null 2>&1; then
    echo "peers: installing tightdp's Python package from $repo/python into $venv" >&2
    CARGO_TARGET_DIR="$repo/target" "$venv/bin/python" -m pip install -q --disable-pip-version-check \
      --force-reinstall --no-deps "$repo/python" >&2
    dirty=""
    [ -z "$(git -C "$repo" status --porcelain -- python src Cargo.toml Cargo.lock)" ] || dirty=" (with uncommitted changes)"
    echo "built from $repo at commit $(git -C "$repo" rev-parse HEAD)$dirty on $(date -u +%Y-%m-%dT%H:%MZ)" \
      > "$venv/tightdp-source.txt"
  fi
fi
exec "$venv/bin/python" "$bench" "$@"
