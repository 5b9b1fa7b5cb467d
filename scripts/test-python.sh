#!/usr/bin/env bash
# Builds the flashgc Python package and runs its checks: ruff (lint and format), then pytest.
#
#   scripts/test-python.sh            # from anywhere in the repository
#
# Environment:
#   FLASHGC_VENV   virtualenv to create/use (default: .venv at the repository root). The
#                  same on a developer machine and in CI (CI=true): an isolated venv keeps
#                  the pinned versions of py-flashgc/requirements-dev.txt away from
#                  whatever the machine's python has installed.
#   PYTHON         interpreter that creates the venv (default: python3, >= 3.9).
#   CARGO_TARGET_DIR  defaults to target/ at the root, so the extension reuses the
#                  dependencies compiled by the Rust build (cargo build --release).
#   PYTEST_ARGS    extra pytest arguments (e.g. "-k sweep").
#
# The browser test of the report needs Debian's chromium (/usr/bin/chromium); without it
# that test is skipped with its reason. Install it with scripts/install-chromium.sh.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="${FLASHGC_VENV:-$root/.venv}"
python="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

if [ ! -x "$venv/bin/python" ]; then
    echo "== creating virtualenv $venv"
    "$python" -m venv "$venv"
fi
# shellcheck disable=SC1091
source "$venv/bin/activate"

echo "== installing pinned dev requirements"
python -m pip install --quiet --disable-pip-version-check -r py-flashgc/requirements-dev.txt

echo "== building and installing the extension (maturin develop --release)"
maturin develop --release --quiet -m py-flashgc/Cargo.toml

echo "== ruff"
ruff check py-flashgc examples
ruff format --check py-flashgc examples
# The Varmail recorder's Python (standard library only) under the package's settings.
ruff check --config py-flashgc/pyproject.toml scripts/varmail.py
ruff format --check --config py-flashgc/pyproject.toml scripts/varmail.py

echo "== pytest"
# shellcheck disable=SC2086
python -m pytest py-flashgc/tests -q -p no:cacheprovider ${PYTEST_ARGS:-}
