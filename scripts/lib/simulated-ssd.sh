# shellcheck shell=bash
# The simulated SSD as a block device without the kernel's nbd module, for the scripts that
# run applications on it (scripts/run-on-simulated-ssd.sh, scripts/record-sysbench-mysql.sh):
# `flashgc serve` exports it over NBD, nbdfuse (libnbd-bin) shows the export as a file
# through FUSE, and a loop device with direct I/O turns that file into a block device.
#
# Sourced, not run. The caller sets SSD_WHO (its name, for messages), SSD_BIN (the flashgc
# binary; ssd_find_flashgc finds one), SSD_WORK (a private folder) and the array SSD_SERVE
# (serve's device and scheme flags), then calls ssd_attach / ssd_detach; SSD_LOOP is the
# block device while attached.

SSD_SERVE_PID=""
SSD_FUSE_PID=""
SSD_LOOP=""
SSD_CHILD=""

ssd_die() { echo "$SSD_WHO: error: $*" >&2; exit 2; }

# Whether $1 is a mount point, read from /proc/mounts: `mountpoint` cannot stat a FUSE mount
# whose server is gone ("Transport endpoint is not connected") and would call it unmounted.
ssd_mounted() { awk -v m="$1" '$2 == m { f = 1 } END { exit !f }' /proc/mounts; }

# A failed step: its log's end, exit 1.
ssd_fail() {
    echo "$SSD_WHO: $1 failed; its log:" >&2
    [ -f "$2" ] && tail -n 40 "$2" >&2
    exit 1
}

# SSD_BIN: as given, else target/release/flashgc of the checkout ($1), else flashgc on PATH.
ssd_find_flashgc() {
    if [ -z "$SSD_BIN" ]; then
        if [ -x "$1/target/release/flashgc" ]; then SSD_BIN="$1/target/release/flashgc"
        elif command -v flashgc >/dev/null; then SSD_BIN="$(command -v flashgc)"
        else ssd_die "no flashgc binary: build it (cargo build --release -p flashgc-cli) or give --flashgc BIN"; fi
    fi
    [ -x "$SSD_BIN" ] || ssd_die "--flashgc $SSD_BIN is not an executable file"
}

# Root, /dev/fuse and the tools; then any extra tools named as arguments.
ssd_check_prerequisites() {
    [ "$(id -u)" -eq 0 ] || ssd_die "needs root: losetup and mount put the simulated SSD in the kernel's reach (run it with sudo)"
    [ -c /dev/fuse ] || ssd_die "no /dev/fuse: nbdfuse shows the NBD export as a file through FUSE (a container needs --device /dev/fuse)"
    local tool
    for tool in nbdfuse fusermount3 losetup setsid "$@"; do
        command -v "$tool" >/dev/null || [ -x "$tool" ] \
            || ssd_die "\`$tool\` is missing: install the tools with scripts/install-app-tools.sh"
    done
}

# Starts `flashgc serve` with the data store $1 (memory or file:PATH) and any further serve
# flags (a recording, a result file), then nbdfuse and the loop device: SSD_LOOP.
ssd_attach() {
    local data="$1"
    shift
    mkdir -p "$SSD_WORK/fuse"
    rm -f "$SSD_WORK/serve.sock"
    # serve and nbdfuse get sessions of their own: a Ctrl-C or SIGTERM to the terminal's
    # process group reaches the script and its command only, and the device stays up until
    # ssd_detach has unmounted the file system (whose dirty data goes to it) in order.
    setsid "$SSD_BIN" serve "${SSD_SERVE[@]}" --socket "$SSD_WORK/serve.sock" --data "$data" --quiet "$@" \
        >"$SSD_WORK/serve.out" 2>"$SSD_WORK/serve.log" &
    SSD_SERVE_PID=$!
    local _
    for _ in $(seq 1 3000); do
        [ -S "$SSD_WORK/serve.sock" ] && break
        kill -0 "$SSD_SERVE_PID" 2>/dev/null || break
        sleep 0.1
    done
    [ -S "$SSD_WORK/serve.sock" ] || { SSD_SERVE_PID=""; ssd_fail "flashgc serve" "$SSD_WORK/serve.log"; }
    setsid nbdfuse "$SSD_WORK/fuse" "nbd+unix:///?socket=$SSD_WORK/serve.sock" >"$SSD_WORK/fuse.log" 2>&1 &
    SSD_FUSE_PID=$!
    for _ in $(seq 1 100); do [ -e "$SSD_WORK/fuse/nbd" ] && break; sleep 0.1; done
    [ -e "$SSD_WORK/fuse/nbd" ] || ssd_fail "nbdfuse" "$SSD_WORK/fuse.log"
    # Direct I/O keeps a second page cache (the FUSE file's) out of the stream.
    SSD_LOOP="$(losetup --find --show --direct-io=on "$SSD_WORK/fuse/nbd" 2>"$SSD_WORK/losetup.log" || true)"
    [ -n "$SSD_LOOP" ] || SSD_LOOP="$(losetup --find --show "$SSD_WORK/fuse/nbd" 2>>"$SSD_WORK/losetup.log" || true)"
    [ -n "$SSD_LOOP" ] || ssd_fail "losetup (a loop device over the export)" "$SSD_WORK/losetup.log"
}

# Runs a workload (no input; output to the log $1) in the background and waits for it, so that
# a SIGTERM or SIGINT sent to the calling script alone runs its trap at once (bash runs a trap
# only after the foreground command ends: a recording of thousands of loops would go on);
# ssd_detach stops the workload first. Returns the workload's exit status.
ssd_run() {
    local log="$1" rc=0
    shift
    "$@" </dev/null >"$log" 2>&1 &
    SSD_CHILD=$!
    wait "$SSD_CHILD" || rc=$?
    SSD_CHILD=""
    return "$rc"
}

# Unmounts $1 (when mounted), detaches the loop device and FUSE, and stops serve with SIGINT,
# which writes its recording and result; safe to call twice and from a trap. A workload still
# running (ssd_run, interrupted) is stopped first.
ssd_detach() {
    if [ -n "$SSD_CHILD" ]; then
        kill "$SSD_CHILD" 2>/dev/null || true
        wait "$SSD_CHILD" 2>/dev/null || true
        SSD_CHILD=""
    fi
    if [ -n "${1:-}" ] && ssd_mounted "$1"; then
        umount "$1" 2>/dev/null || umount -l "$1" || true
    fi
    if [ -n "$SSD_LOOP" ]; then losetup -d "$SSD_LOOP" 2>/dev/null || true; SSD_LOOP=""; fi
    if ssd_mounted "$SSD_WORK/fuse"; then
        fusermount3 -u "$SSD_WORK/fuse" 2>/dev/null || umount -l "$SSD_WORK/fuse" || true
    fi
    if [ -n "$SSD_FUSE_PID" ]; then wait "$SSD_FUSE_PID" 2>/dev/null || true; SSD_FUSE_PID=""; fi
    if [ -n "$SSD_SERVE_PID" ]; then
        kill -INT "$SSD_SERVE_PID" 2>/dev/null || true
        wait "$SSD_SERVE_PID" 2>/dev/null || true
        SSD_SERVE_PID=""
    fi
}
