#!/usr/bin/env bash
# Installs the Debian NBD clients and server the `flashgc serve` tests and benchmark use:
# fio (built with libnbd: its `nbd` engine), qemu-utils (qemu-io), libnbd-bin (nbdcopy,
# nbdinfo) and nbdkit (the benchmark's reference server). Needs root (apt-get); a no-op
# when everything is present.
#
#   scripts/install-nbd-tools.sh
set -euo pipefail

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
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fio --version
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    install_nbd_tools
fi
