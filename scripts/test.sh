#!/usr/bin/env bash
# Runs every test of flashgc: formatting, lints, the Rust test suites (release mode: the
# simulator is slow in debug builds), and the Python package's tests.
# Usage: bash scripts/test.sh        (FLASHGC_SKIP_PYTHON=1 to run the Rust part only)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# The suites write scratch files (traces, checkpoints, sockets) under the system temp dir:
# give this run its own, removed when every test passed and kept, its path printed, when
# one failed.
FLASHGC_TEST_TMP="$(mktemp -d "${TMPDIR:-/tmp}/flashgc-test.XXXXXX")"
chmod 1777 "$FLASHGC_TEST_TMP" # as /tmp: the recording tests' mariadbd runs as `mysql` and writes here
export TMPDIR="$FLASHGC_TEST_TMP"
trap 'rc=$?; if [ "$rc" -eq 0 ]; then rm -rf "$FLASHGC_TEST_TMP"; else echo "scratch files kept in $FLASHGC_TEST_TMP" >&2; fi' EXIT

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy -D warnings (whole workspace, the Python binding included)"
cargo clippy --locked --release --workspace --all-targets -- -D warnings

echo "== NBD clients for the flashgc serve tests (Debian: fio with libnbd, qemu-utils, libnbd-bin, nbdkit)"
bash scripts/install-nbd-tools.sh || echo "warning: the NBD tools could not be installed; the serve tests will say what they skipped"

echo "== cargo test (release)"
cargo test --locked --release

echo "== fuzz regressions in a debug build (overflow checks on, as under the fuzzer)"
cargo test --locked -p flashgc-trace --test fuzz_regressions
cargo test --locked -p flashgc-core --test checkpoint_damage

if [ -z "${FLASHGC_SKIP_PYTHON:-}" ]; then
  echo "== Chromium for the report's browser test (Debian package)"
  bash scripts/install-chromium.sh || echo "warning: chromium could not be installed; the browser test will say it skipped"
  echo "== MariaDB, sysbench and nbdfuse for the recorded-application test (Debian packages)"
  bash scripts/install-app-tools.sh || echo "warning: the application tools could not be installed; the recording test will say it skipped"
  echo "== Python package"
  bash scripts/test-python.sh
fi
echo "== all tests passed"
