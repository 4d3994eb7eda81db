#!/usr/bin/env bash
# Run the test suite: the Rust tests (unit tests beside the code, the CLI tests in tests/), then the Python
# package's (built with maturin, installed into target/pyvenv, run with pytest; dp_accounting, for the
# side-by-side tests, when it installs). TIGHTDP_SKIP_PYTHON=1 skips the Python part.
#
#   ./scripts/test.sh            the default tier: every check, heavy ones at a reduced size (a few minutes)
#   ./scripts/test.sh --heavy    the heavy tier: every Rust test including the `#[ignore = "heavy: …"]` ones,
#                                random-input tests at TIGHTDP_TEST_MULTIPLIER=10 (unless set), and the
#                                Python tests marked `heavy`
#
# Further arguments go to `cargo test` (a test name filter, `--lib`, `-- --nocapture`, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
heavy=""
if [ "${1:-}" = "--heavy" ]; then
  heavy=1
  shift
fi
./scripts/setup.sh
if [ -n "$heavy" ]; then
  export TIGHTDP_TEST_MULTIPLIER="${TIGHTDP_TEST_MULTIPLIER:-10}"
  # `--include-ignored` goes after any `--` the caller gave (cargo passes one list to the test binaries)
  if printf '%s\n' "$@" | grep -qx -- '--'; then
    cargo test --release --locked "$@" --include-ignored
  else
    cargo test --release --locked "$@" -- --include-ignored
  fi
else
  cargo test --release --locked "$@"
fi
if [ -z "${TIGHTDP_SKIP_PYTHON:-}" ]; then
  V=target/pyvenv
  [ -x "$V/bin/python" ] || python3 -m venv "$V"
  "$V/bin/pip" install -q pytest numpy
  "$V/bin/pip" install -q dp-accounting || echo "test.sh: dp_accounting not installable; its side-by-side test will be skipped" >&2
  # the package's cargo build shares target/ and the feature set with the tests above (Cargo.toml's syn
  # entry), so it compiles only the bindings
  CARGO_TARGET_DIR="$PWD/target" "$V/bin/pip" install -q ./python
  if [ -n "$heavy" ]; then
    "$V/bin/python" -m pytest -q -m heavy python/tests
  else
    "$V/bin/python" -m pytest -q python/tests
  fi
fi
