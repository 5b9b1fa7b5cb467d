#!/usr/bin/env bash
# Installs the Debian packages that put a real database on the simulated SSD without the
# kernel's nbd module (scripts/record-sysbench-mysql.sh): mariadb-server (MySQL's Debian
# successor, InnoDB), sysbench (its OLTP benchmarks), libnbd-bin (nbdfuse: the NBD export as
# a file through FUSE), fuse3 (fusermount3) and e2fsprogs (mkfs.ext4). Needs root
# (apt-get); a no-op when everything is present.
#
#   scripts/install-app-tools.sh
set -euo pipefail
# shellcheck source=scripts/lib/apt.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

install_app_tools() {
    local missing=()
    command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
    command -v sysbench >/dev/null || missing+=(sysbench)
    command -v nbdfuse >/dev/null || missing+=(libnbd-bin)
    command -v fusermount3 >/dev/null || missing+=(fuse3)
    command -v mkfs.ext4 >/dev/null || [ -x /sbin/mkfs.ext4 ] || missing+=(e2fsprogs)
    if [ ${#missing[@]} -eq 0 ]; then
        echo "application tools already installed: $(sysbench --version), $(/usr/sbin/mariadbd --version | cut -d' ' -f1-4)"
        return 0
    fi
    apt_install "${missing[@]}"
    sysbench --version
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    install_app_tools
fi
