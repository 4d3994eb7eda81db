#!/usr/bin/env bash
# Run the test suite: the Rust tests (unit tests beside the code, the CLI tests in tests/), then the Python
# package's (built with maturin, installed into target/pyvenv, run with pytest; dp_accounting, for the
# side-by-side tests, when it installs). TIGHTDP_SKIP_PYTHON=1 skips the Python part.
#
#   ./scripts/test.sh            the default tier: every check, heavy ones at a reduced size (a few minutes)
#   ./scripts/test.sh --heavy    the heavy tier: the `#[ignore = "heavy: …"]` Rust tests, the random-input
#                                tests (scripts/random-input-tests.txt) at TIGHTDP_TEST_MULTIPLIER=10 (unless
#                                set), and the Python tests marked `heavy`; with further arguments, every Rust
#                                test they select, ignored ones included
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
V=target/pyvenv
pyenv=""
if [ -z "${TIGHTDP_SKIP_PYTHON:-}" ]; then
  # The Python test environment is made, and the package built into it, while cargo builds and runs the Rust
  # tests: pip is mostly waiting on files, and the wheel's compile (the bindings only: the package's cargo
  # build shares target/ and the feature set with the tests, Cargo.toml's syn entry) is mostly one core's
  # work. cargo's lock on target/ makes that build wait for the tests' build; the tests are run below
  # without cargo, so it does not wait for them.
  mkdir -p target
  (
    [ -x "$V/bin/python" ] || python3 -m venv "$V"
    # one resolver run, no byte-compiling of scipy's thousands of modules (imports compile what they use);
    # one package at a time where one of them does not install
    "$V/bin/pip" install -q --no-compile pytest numpy maturin pytest-xdist dp-accounting riskcal || {
      "$V/bin/pip" install -q pytest numpy maturin
      "$V/bin/pip" install -q pytest-xdist || echo "test.sh: pytest-xdist not installable; the Python tests run one at a time" >&2
      "$V/bin/pip" install -q dp-accounting || echo "test.sh: dp_accounting not installable; its side-by-side tests will be skipped" >&2
      "$V/bin/pip" install -q riskcal || echo "test.sh: riskcal not installable; its calibrators' tests will be skipped" >&2
    }
    # (maturin's Python entry point runs the `maturin` program it finds on PATH: the venv's)
    PATH="$PWD/$V/bin:$PATH" CARGO_TARGET_DIR="$PWD/target" "$V/bin/pip" install -q --no-build-isolation ./python
  ) >target/pyvenv-setup.log 2>&1 &
  pyenv=$!
  trap '[ -n "$pyenv" ] && kill "$pyenv" 2>/dev/null || true' EXIT
fi
[ -n "$heavy" ] && export TIGHTDP_TEST_MULTIPLIER="${TIGHTDP_TEST_MULTIPLIER:-10}"
if [ -n "$pyenv" ] && [ $# -eq 0 ]; then
  # The whole suite: cargo builds the test binaries and this script runs them (unit tests, the binary's, the
  # tests/ crate, in cargo's order, from the package root as cargo does). `cargo test` would hold target/'s
  # lock until its last test ends, and the wheel's build above would wait for it instead of running beside
  # the tests.
  cargo test --release --locked --no-run --message-format=json-render-diagnostics >target/test-build.json
  mapfile -t bins < <(python3 - target/test-build.json <<'PY'
import json, sys
order = {"lib": 0, "bin": 1, "test": 2}
found = []
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test") and m.get("executable"):
        found.append((order.get(m["target"]["kind"][0], 3), m["target"]["name"], m["executable"]))
for _, _, exe in sorted(found):
    print(exe)
PY
)
  [ ${#bins[@]} -ge 3 ] || { echo "test.sh: the test build named ${#bins[@]} test binaries, expected 3" >&2; exit 1; }
  mapfile -t random_input < <(grep -v '^#' scripts/random-input-tests.txt | grep .)
  for b in "${bins[@]}"; do
    echo "     Running ${b#"$PWD"/}"
    if [ -n "$heavy" ]; then
      # the heavy tests, then the random-input ones at the multiplier (the rest ran in the default tier)
      "$b" --ignored
      "$b" "${random_input[@]}"
    else
      "$b"
    fi
  done
elif [ -n "$heavy" ]; then
  # `--include-ignored` goes after any `--` the caller gave (cargo passes one list to the test binaries)
  if printf '%s\n' "$@" | grep -qx -- '--'; then
    cargo test --release --locked "$@" --include-ignored
  else
    cargo test --release --locked "$@" -- --include-ignored
  fi
else
  cargo test --release --locked "$@"
fi
if [ -n "$pyenv" ]; then
  if ! wait "$pyenv"; then
    cat target/pyvenv-setup.log >&2
    echo "test.sh: could not make the Python test environment in $V or build the package into it" >&2
    exit 1
  fi
  pyenv=""
  grep -h "^test.sh:" target/pyvenv-setup.log >&2 || true
  args=(-q)
  [ -n "$heavy" ] && args+=(-m heavy)
  # both cores (pytest-xdist) where it installed
  "$V/bin/python" -c "import xdist" 2>/dev/null && args+=(-n 2)
  "$V/bin/python" -m pytest "${args[@]}" python/tests
fi
