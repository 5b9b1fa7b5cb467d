#!/usr/bin/env bash
# Records Filebench's Varmail personality on ext4 on the simulated SSD, as the block trace
# `flashgc reproduce midas` replays for the paper's Varmail WAF (papers/midas.txt, Fig.
# 15(b): "the WAF values of 4.26, 2.12, 1.91, and 1.52 for PageFTL, MiDA, SepBIT, and
# MiDAS"). Filebench is not a Debian package: scripts/varmail.py runs varmail.f's flowops.
#
#   sudo bash scripts/record-varmail.sh [-o DIR] [--files N] [--threads N] [--loops N]
#        [--seed N] [--mount-options OPTS] [--flashgc BIN] [-- SERVE_DEVICE_FLAGS...]
#
# No kernel nbd module is needed (scripts/lib/simulated-ssd.sh: `flashgc serve`, nbdfuse, a
# loop device). A first serve session holds mkfs.ext4 and the fileset's creation (varmail.f's
# prealloc=80; not recorded); a second one, on the same data, records the mount, the
# flowops' --loops loops (all threads together) and the unmount. What the device sees is the
# block stream after ext4 and the page cache: writes, reads, each fsync's FLUSH (and TRIMs
# only with `--mount-options discard`; ext4's default, as here, sends none).
#
# The flowops' settings are varmail.f's (files of 16 KiB mean, 16 threads, 16 KiB mean
# appends), on a 1 GiB device: the MiDAS reproduction's full-scale device, which the replay
# fills before it loops the trace, as the paper fills its SSD before the workload. The
# fileset is not varmail.f's 1000 entries but 40000 (about half the file system; --files):
# the paper does not give its size, and 1000 files (1.3 % of the file system) would leave GC
# nearly idle, where the paper's PageFTL measured WAF 4.26. 100000 loops write about 6.7 GiB
# in about 2 minutes.
# Writes DIR/varmail.fgt and DIR/varmail.json (settings, varmail.py's summary, the
# trace's SHA-256). DIR defaults to $FLASHGC_APP_TRACES, else ~/.cache/flashgc/app-traces:
# where `flashgc reproduce` looks. Needs root, /dev/fuse and scripts/install-app-tools.sh's
# packages. Exit codes: 0 recorded, 2 bad arguments or a missing prerequisite (said why), 1 a
# step failed (its log is printed).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${FLASHGC_APP_TRACES:-${XDG_CACHE_HOME:-$HOME/.cache}/flashgc/app-traces}"
FILES=40000
THREADS=16
LOOPS=100000
SEED=1
MOUNT_OPTS=""
SSD_WHO=record-varmail
SSD_BIN="${FLASHGC_BIN:-}"
SSD_SERVE=(--logical-gib 1 --page-size 4096)
# shellcheck source=scripts/lib/simulated-ssd.sh
. "$ROOT/scripts/lib/simulated-ssd.sh"

die() { ssd_die "$@"; }
posint() { [[ "$2" =~ ^[1-9][0-9]{0,8}$ ]] || die "$1 must be a whole number from 1 to 999999999, not \`$2\`"; }

while [ $# -gt 0 ]; do
    case "$1" in
        -o | --out) [ $# -ge 2 ] || die "$1 needs a directory"; OUT="$2"; shift 2 ;;
        --files) [ $# -ge 2 ] || die "--files needs a number"; posint --files "$2"; FILES="$2"; shift 2 ;;
        --threads) [ $# -ge 2 ] || die "--threads needs a number"; posint --threads "$2"; THREADS="$2"; shift 2 ;;
        --loops) [ $# -ge 2 ] || die "--loops needs a number"; posint --loops "$2"; LOOPS="$2"; shift 2 ;;
        --seed) [ $# -ge 2 ] || die "--seed needs a number"; posint --seed "$2"; SEED="$2"; shift 2 ;;
        --mount-options) [ $# -ge 2 ] || die "--mount-options needs a string"; MOUNT_OPTS="$2"; shift 2 ;;
        --flashgc) [ $# -ge 2 ] || die "--flashgc needs the binary's path"; SSD_BIN="$2"; shift 2 ;;
        --) shift; SSD_SERVE=("$@"); break ;;
        -h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument \`$1\` (see --help)" ;;
    esac
done

ssd_find_flashgc "$ROOT"
ssd_check_prerequisites mkfs.ext4 mount umount python3
mkdir -p "$OUT" || die "cannot create the output directory $OUT"
OUT="$(cd "$OUT" && pwd)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/flashgc-varmail.XXXXXX")"
WORK="$(cd "$WORK" && pwd -P)" # as /proc/mounts will name its mount points
SSD_WORK="$WORK"
cleanup() { ssd_detach "$WORK/mnt"; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_fs() {
    mount ${MOUNT_OPTS:+-o "$MOUNT_OPTS"} "$SSD_LOOP" "$WORK/mnt" 2>"$WORK/mount.log" || ssd_fail "mount" "$WORK/mount.log"
}
VARMAIL=(python3 "$ROOT/scripts/varmail.py")
SHAPE=(--files "$FILES" --threads "$THREADS" --seed "$SEED")
trace="$OUT/varmail.fgt"

echo "== mkfs.ext4 and varmail's fileset ($FILES entries, 80 % created; not recorded)"
rm -f "$WORK/disk.img"
mkdir -p "$WORK/mnt"
ssd_attach "file:$WORK/disk.img"
mkfs.ext4 -q "$SSD_LOOP" >"$WORK/mkfs.log" 2>&1 || ssd_fail "mkfs.ext4" "$WORK/mkfs.log"
mount_fs
ssd_run "$WORK/create.log" "${VARMAIL[@]}" create "$WORK/mnt" "${SHAPE[@]}" || ssd_fail "varmail create" "$WORK/create.log"
ssd_detach "$WORK/mnt"

echo "== varmail: $THREADS threads, $LOOPS loops of its 13 flowops, recorded to $trace"
ssd_attach "file:$WORK/disk.img" --record "$trace.partial" -o "$WORK/serve.json"
mount_fs
ssd_run "$WORK/run.log" "${VARMAIL[@]}" run "$WORK/mnt" "${SHAPE[@]}" --loops "$LOOPS" || ssd_fail "varmail run" "$WORK/run.log"
ssd_detach "$WORK/mnt"
[ -s "$trace.partial" ] || ssd_fail "the recording (flashgc serve --record)" "$WORK/serve.log"
mv -f "$trace.partial" "$trace"
sha="$(sha256sum "$trace" | cut -d' ' -f1)"
python3 - "$trace.json.partial" "$sha" "$WORK/create.log" "$WORK/run.log" "$FILES" "$THREADS" "$LOOPS" "$SEED" \
    "$MOUNT_OPTS" "$(uname -r)" "$(mkfs.ext4 -V 2>&1 | head -n 1)" "${SSD_SERVE[@]}" <<'EOF'
import json, sys
out, sha, create, run, files, threads, loops, seed, mount, kernel, e2fs = sys.argv[1:12]
meta = {
    "workload": "Filebench's Varmail personality (scripts/varmail.py) on ext4",
    "files": int(files),
    "threads": int(threads),
    "loops": int(loops),
    "seed": int(seed),
    "mount_options": mount or "defaults",
    "device_flags": sys.argv[12:],
    "sha256": sha,
    "fileset": json.loads(open(create).read().strip().splitlines()[-1]),
    "varmail_summary": json.loads(open(run).read().strip().splitlines()[-1]),
    "kernel": kernel,
    "mkfs": e2fs,
}
with open(out, "w") as f:
    json.dump(meta, f, indent=2)
EOF
mv -f "$trace.json.partial" "${trace%.fgt}.json"
echo "   $("$SSD_BIN" trace stats "$trace" | sed -n 's/^requests *//p')"
echo "recorded in $OUT"
