#!/usr/bin/env bash
# Run the whole test suite (unit tests beside the code, end-to-end CLI tests in tests/), then the Python
# package's: build it with maturin (pip fetches it), install it into a venv, run python/tests with pytest
# (dp_accounting, for the side-by-side test, when it installs). TIGHTDP_SKIP_PYTHON=1 skips that part.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --release --locked "$@"
if [ -z "${TIGHTDP_SKIP_PYTHON:-}" ]; then
  V=target/pyvenv
  [ -x "$V/bin/python" ] || python3 -m venv "$V"
  "$V/bin/pip" install -q pytest numpy
  "$V/bin/pip" install -q dp-accounting || echo "test.sh: dp_accounting not installable; its side-by-side test will be skipped" >&2
  # the package's cargo build shares target/ with the tests above (the crate and its dependencies are reused)
  CARGO_TARGET_DIR="$PWD/target" "$V/bin/pip" install -q ./python
  "$V/bin/python" -m pytest -q python/tests
fi
