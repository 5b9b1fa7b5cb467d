#!/usr/bin/env bash
# Installs Debian's Chromium for the report's headless-browser test
# (py-flashgc/tests/test_report.py). Needs root (apt-get); a no-op when already present.
#
#   scripts/install-chromium.sh
#
# The test starts it with --headless --no-sandbox --disable-gpu
# --disable-background-networking --disable-component-update --disable-sync
# --no-first-run and a fresh --user-data-dir (no network is needed or used).
set -euo pipefail
# shellcheck source=scripts/lib/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

install_chromium() {
    if [ -x /usr/bin/chromium ]; then
        echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
        return 0
    fi
    apt_install chromium
    /usr/bin/chromium --version 2>/dev/null || true
}

# Callable as a script, or sourced for the function (e.g. from .ci/run).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    install_chromium
fi
