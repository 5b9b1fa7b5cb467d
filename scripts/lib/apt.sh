# shellcheck shell=bash
# Installs Debian packages for the scripts/install-*.sh helpers: root or sudo, a quiet
# `apt-get update` and a non-interactive install. Sourced, not run.

# apt_install PACKAGE...: installs them (nothing when none is given).
apt_install() {
    [ $# -gt 0 ] || return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
