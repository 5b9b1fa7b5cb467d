#!/usr/bin/env bash
# Installs the Debian NBD clients and server the `flashgc serve` tests and benchmark use:
# fio (built with libnbd: its `nbd` engine), qemu-utils (qemu-io), libnbd-bin (nbdcopy,
# nbdinfo) and nbdkit (the benchmark's reference server). Needs root (apt-get); a no-op
# when everything is present.
#
#   scripts/install-nbd-tools.sh
set -euo pipefail
# shellcheck source=scripts/lib/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

install_nbd_tools() {
    local missing=()
    command -v fio >/dev/null || missing+=(fio)
    command -v qemu-io >/dev/null || missing+=(qemu-utils)
    command -v nbdcopy >/dev/null || missing+=(libnbd-bin)
    command -v nbdkit >/dev/null || missing+=(nbdkit)
    if [ ${#missing[@]} -eq 0 ]; then
        echo "NBD tools already installed: $(fio --version), $(nbdkit --version)"
        return 0
    fi
    apt_install "${missing[@]}"
    fio --version
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    install_nbd_tools
fi
