#!/usr/bin/env bash
# Runs any command on the simulated SSD: a file system on it (or the raw block device), the
# command in it, and flashgc's result and recording of what the device saw. No kernel nbd
# module is needed (scripts/lib/simulated-ssd.sh: `flashgc serve`, nbdfuse, a loop device).
#
#   sudo bash scripts/run-on-simulated-ssd.sh [--fs ext4|xfs|btrfs|none] [--mkfs-options OPTS]
#        [--mount-options OPTS] [--record FILE.fgt] [-o RESULT.json] [--flashgc BIN]
#        [--serve "SERVE FLAGS"] -- COMMAND [ARGS...]
#
#   sudo bash scripts/run-on-simulated-ssd.sh --record build.fgt -o build.json \
#        --serve "--logical-gib 4 --placement sup-gc --timing" -- sh -c 'git clone ~/src/repo . && make -j2'
#
# The command runs in the mounted file system (with --fs none: where the script was started)
# with FLASHGC_MNT (the mount point; empty with --fs none) and FLASHGC_DEV (the block device)
# in its environment. `--serve` takes serve's device and scheme flags as one string (default
# `--logical-gib 1`; any flag of `flashgc serve` but its socket and data store: the data is
# kept in memory, `--data memory`). After the command the file system is unmounted (its dirty
# data reaches the device), the device detached and serve stopped, which writes `-o` (the
# result record, JSON) and `--record` (the served stream as a `.fgt` trace that `flashgc
# run|compare --workload trace:FILE` replays); serve's text result is printed. What the device
# sees is the block stream after the file system and the kernel's page cache: writes, reads,
# each fsync as FLUSH, discards as TRIM (mkfs discards the whole device first; `--fs none`
# keeps the precondition's data in place).
#
# Needs root (losetup, mkfs, mount), /dev/fuse, nbdfuse (libnbd-bin) and fuse3
# (scripts/install-app-tools.sh). Exit codes: the command's own (0 when it succeeded); 2 bad
# arguments or a missing prerequisite (said why); 1 a step of the setup failed (its log is
# printed); 130 / 143 interrupted (Ctrl-C / SIGTERM: everything is still torn down, the
# recording and result written).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SSD_WHO=run-on-simulated-ssd
SSD_BIN="${FLASHGC_BIN:-}"
# shellcheck source=scripts/lib/simulated-ssd.sh
. "$ROOT/scripts/lib/simulated-ssd.sh"

FS=ext4
MKFS_OPTS=""
MOUNT_OPTS=""
RECORD=""
RESULT=""
SERVE_FLAGS="--logical-gib 1"

while [ $# -gt 0 ]; do
    case "$1" in
        --fs) [ $# -ge 2 ] || ssd_die "--fs needs ext4, xfs, btrfs or none"; FS="$2"; shift 2 ;;
        --mkfs-options) [ $# -ge 2 ] || ssd_die "--mkfs-options needs a string"; MKFS_OPTS="$2"; shift 2 ;;
        --mount-options) [ $# -ge 2 ] || ssd_die "--mount-options needs a string"; MOUNT_OPTS="$2"; shift 2 ;;
        --record) [ $# -ge 2 ] || ssd_die "--record needs a file"; RECORD="$2"; shift 2 ;;
        -o | --output) [ $# -ge 2 ] || ssd_die "$1 needs a file"; RESULT="$2"; shift 2 ;;
        --flashgc) [ $# -ge 2 ] || ssd_die "--flashgc needs the binary's path"; SSD_BIN="$2"; shift 2 ;;
        --serve) [ $# -ge 2 ] || ssd_die "--serve needs serve's flags as one string"; SERVE_FLAGS="$2"; shift 2 ;;
        --) shift; break ;;
        -h | --help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) ssd_die "unknown argument \`$1\` (see --help; the command goes after --)" ;;
    esac
done
[ $# -gt 0 ] || ssd_die "no command: give it after -- (e.g. -- sh -c 'dd if=/dev/urandom of=f bs=1M count=64 conv=fsync')"
case "$FS" in
    ext4 | xfs | btrfs) MKFS="mkfs.$FS" ;;
    none) MKFS="" ;;
    *) ssd_die "--fs must be ext4, xfs, btrfs or none, not \`$FS\`" ;;
esac
read -r -a SSD_SERVE <<<"$SERVE_FLAGS"
for f in "${SSD_SERVE[@]}"; do
    case "$f" in
        --socket | --socket=* | --listen | --listen=* | --data | --data=* | --record | --record=* | -o | --output | --output=* | --json)
            ssd_die "--serve \`$f\`: this script sets serve's socket, data store, recording (--record) and result (-o) itself" ;;
    esac
done
for f in "$RECORD" "$RESULT"; do
    [ -z "$f" ] || [ -d "$(dirname "$f")" ] || ssd_die "$f: its folder $(dirname "$f") does not exist"
done
ssd_find_flashgc "$ROOT"
if [ -n "$MKFS" ]; then ssd_check_prerequisites "$MKFS" mount umount; else ssd_check_prerequisites; fi

SSD_WORK="$(mktemp -d "${TMPDIR:-/tmp}/flashgc-ssd.XXXXXX")"
SSD_WORK="$(cd "$SSD_WORK" && pwd -P)" # as /proc/mounts will name its mount points
MNT="$SSD_WORK/mnt"
mkdir -p "$MNT"
# shellcheck disable=SC2317 # run by the trap
cleanup() { ssd_detach "$MNT"; rm -rf "$SSD_WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

extra=()
[ -z "$RECORD" ] || extra+=(--record "$(cd "$(dirname "$RECORD")" && pwd)/$(basename "$RECORD")")
[ -z "$RESULT" ] || extra+=(-o "$(cd "$(dirname "$RESULT")" && pwd)/$(basename "$RESULT")")
ssd_attach memory "${extra[@]}"
if [ -n "$MKFS" ]; then
    # shellcheck disable=SC2086 # the options are words
    "$MKFS" -q $MKFS_OPTS "$SSD_LOOP" >"$SSD_WORK/mkfs.log" 2>&1 || ssd_fail "$MKFS" "$SSD_WORK/mkfs.log"
    # shellcheck disable=SC2086
    mount ${MOUNT_OPTS:+-o "$MOUNT_OPTS"} "$SSD_LOOP" "$MNT" 2>"$SSD_WORK/mount.log" || ssd_fail "mount" "$SSD_WORK/mount.log"
    chmod 777 "$MNT"
    echo "$SSD_WHO: $FS on $SSD_LOOP mounted at $MNT; running: $*" >&2
    status=0
    (cd "$MNT" && FLASHGC_MNT="$MNT" FLASHGC_DEV="$SSD_LOOP" "$@") || status=$?
else
    echo "$SSD_WHO: block device $SSD_LOOP; running: $*" >&2
    status=0
    FLASHGC_MNT="" FLASHGC_DEV="$SSD_LOOP" "$@" || status=$?
fi
ssd_detach "$MNT"
cat "$SSD_WORK/serve.out"
[ -z "$RECORD" ] || echo "$SSD_WHO: recorded to $RECORD" >&2
[ -z "$RESULT" ] || echo "$SSD_WHO: result in $RESULT" >&2
exit "$status"
