#!/usr/bin/env bash
# Records sysbench's OLTP benchmark on MariaDB (MySQL's Debian successor) running on the
# simulated SSD, as the block traces `flashgc reproduce sup-gc` replays for the paper's
# Figs. 19-20 (papers/sup-gc.txt, Sec. 5.3.3: "Sysbench combined with MySQL"), and YCSB's
# workloads A and F on it (scripts/sysbench/ycsb.lua: one usertable of --records 1 KB
# records, zipfian 0.99), as `flashgc reproduce midas` replays for the MiDAS paper's "YCSB-A
# that runs on MySQL" and YCSB-F (papers/midas.txt, Fig. 11).
#
#   sudo bash scripts/record-sysbench-mysql.sh [-o DIR]
#        [--mode write-only|read-write|both|ycsb-a|ycsb-f|ycsb] [--tables N] [--table-size ROWS]
#        [--records N] [--threads N] [--time SECONDS]
#        [--buffer-pool-mib MIB] [--flashgc BIN] [-- SERVE_DEVICE_FLAGS...]
#
# No kernel nbd module is needed: `flashgc serve` exports the device over NBD, nbdfuse
# (libnbd-bin) shows the export as a file through FUSE, a loop device makes it a block
# device, ext4 goes on it and MariaDB keeps its data there (InnoDB, O_DIRECT). Per mode, a
# first serve session holds mkfs and `sysbench prepare` (not recorded); a second one, on
# the same data (`--data file:`), records MariaDB's start, `sysbench run` and its shutdown
# (`--record`). What the device sees is the block stream after ext4 and the kernel's page
# cache: every write, read, FLUSH and TRIM, with each written page's content hash.
#
# Writes DIR/sysbench-mysql-MODE.fgt and DIR/sysbench-mysql-MODE.json (the settings, the
# tools' versions, sysbench's own summary and the trace's SHA-256). DIR defaults to
# $FLASHGC_APP_TRACES, else ~/.cache/flashgc/app-traces: where `flashgc reproduce` looks.
# The device defaults to the sup-gc reproduction's quick-scale Cosmos+ device, so the
# trace's addresses fit every scale of it; for the YCSB modes to a 1 GiB device (the MiDAS
# reproduction's), which the 400000 records of --records fill about half. Needs root
# (losetup, mount), /dev/fuse and the packages of scripts/install-app-tools.sh. Exit codes:
# 0 recorded, 2 bad arguments or a missing prerequisite (said why), 1 a step failed (its
# log is printed).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${FLASHGC_APP_TRACES:-${XDG_CACHE_HOME:-$HOME/.cache}/flashgc/app-traces}"
MODE=both
RECORDS=400000
TABLES=8
TABLE_SIZE=200000
THREADS=8
TIME=60
POOL_MIB=64
SSD_WHO=record-sysbench-mysql
SSD_BIN="${FLASHGC_BIN:-}"
SSD_SERVE=(--preset cosmos-openssd
    --config "$ROOT/py-flashgc/python/flashgc/reproduce/configs/cosmos-real-blocks.toml"
    --blocks-per-plane 32 --op 0.07)
# shellcheck source=scripts/lib/simulated-ssd.sh
. "$ROOT/scripts/lib/simulated-ssd.sh"

die() { ssd_die "$@"; }
posint() { [[ "$2" =~ ^[1-9][0-9]{0,8}$ ]] || die "$1 must be a whole number from 1 to 999999999, not \`$2\`"; }

while [ $# -gt 0 ]; do
    case "$1" in
        -o | --out) [ $# -ge 2 ] || die "$1 needs a directory"; OUT="$2"; shift 2 ;;
        --mode) [ $# -ge 2 ] || die "--mode needs write-only, read-write, both, ycsb-a, ycsb-f or ycsb"; MODE="$2"; shift 2 ;;
        --records) [ $# -ge 2 ] || die "--records needs a number"; posint --records "$2"; RECORDS="$2"; shift 2 ;;
        --tables) [ $# -ge 2 ] || die "--tables needs a number"; posint --tables "$2"; TABLES="$2"; shift 2 ;;
        --table-size) [ $# -ge 2 ] || die "--table-size needs a number"; posint --table-size "$2"; TABLE_SIZE="$2"; shift 2 ;;
        --threads) [ $# -ge 2 ] || die "--threads needs a number"; posint --threads "$2"; THREADS="$2"; shift 2 ;;
        --time) [ $# -ge 2 ] || die "--time needs seconds"; posint --time "$2"; TIME="$2"; shift 2 ;;
        --buffer-pool-mib) [ $# -ge 2 ] || die "--buffer-pool-mib needs a number"; posint --buffer-pool-mib "$2"; POOL_MIB="$2"; shift 2 ;;
        --flashgc) [ $# -ge 2 ] || die "--flashgc needs the binary's path"; SSD_BIN="$2"; shift 2 ;;
        --) shift; SSD_SERVE=("$@"); SERVE_GIVEN=1; break ;;
        -h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument \`$1\` (see --help)" ;;
    esac
done
case "$MODE" in
    write-only) MODES=(write-only) ;;
    read-write) MODES=(read-write) ;;
    both) MODES=(write-only read-write) ;;
    ycsb-a) MODES=(ycsb-a) ;;
    ycsb-f) MODES=(ycsb-f) ;;
    ycsb) MODES=(ycsb-a ycsb-f) ;;
    *) die "--mode must be write-only, read-write, both, ycsb-a, ycsb-f or ycsb, not \`$MODE\`" ;;
esac
[ "$POOL_MIB" -ge 8 ] || die "--buffer-pool-mib must be at least 8 (InnoDB's smallest pool is 5 MiB), not $POOL_MIB"

# YCSB goes on the MiDAS reproduction's full-scale device (1 GiB: its ~2200 segments of 128
# pages), where the default 400000 records (about half the file system) keep much of the
# device in play, as the paper's YCSB-A kept its SSD busy (WAF 4+ for the baselines).
if [ -z "${SERVE_GIVEN:-}" ] && [[ "$MODE" == ycsb* ]]; then SSD_SERVE=(--logical-gib 1 --page-size 4096); fi

ssd_find_flashgc "$ROOT"
MARIADBD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
ssd_check_prerequisites sysbench mkfs.ext4 mariadb-install-db mariadb-admin "$MARIADBD"
id mysql >/dev/null 2>&1 || die "no \`mysql\` user: install mariadb-server (scripts/install-app-tools.sh)"
mkdir -p "$OUT" || die "cannot create the output directory $OUT"
OUT="$(cd "$OUT" && pwd)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/flashgc-sysbench.XXXXXX")"
WORK="$(cd "$WORK" && pwd -P)" # as /proc/mounts will name its mount points
chmod 755 "$WORK" # mariadbd runs as `mysql` and must reach its socket and data in here
SSD_WORK="$WORK"
DB_UP=""

# Tears down whatever is up, innermost first; safe to call twice (the trap calls it too).
teardown() {
    if [ -n "$DB_UP" ]; then
        mariadb-admin --socket="$WORK/run/mysqld.sock" -uroot shutdown >/dev/null 2>&1 || true
        for _ in $(seq 1 120); do [ -e "$WORK/run/mysqld.pid" ] || break; sleep 0.5; done
        DB_UP=""
    fi
    ssd_detach "$WORK/mnt"
}
cleanup() { teardown; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { ssd_fail "$@"; }

# The block device on the simulated SSD (extra flags: serve's recording and result).
attach() {
    mkdir -p "$WORK/mnt"
    ssd_attach "file:$WORK/disk.img" "$@"
    LOOP="$SSD_LOOP"
}

start_db() {
    mkdir -p "$WORK/run"
    chown mysql "$WORK/run"
    "$MARIADBD" --no-defaults --user=mysql --datadir="$WORK/mnt/db" --socket="$WORK/run/mysqld.sock" \
        --pid-file="$WORK/run/mysqld.pid" --skip-networking --innodb-buffer-pool-size="${POOL_MIB}M" \
        --innodb-log-file-size=48M --innodb-flush-method=O_DIRECT --log-error="$WORK/mysqld.log" \
        >>"$WORK/mysqld.out" 2>&1 &
    DB_UP=1
    for _ in $(seq 1 600); do
        mariadb-admin --socket="$WORK/run/mysqld.sock" -uroot ping >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    fail "mariadbd" "$WORK/mysqld.log"
}

# sysbench in place of the (background, by ssd_run) subshell this runs in, so that stopping
# the workload stops sysbench itself.
sysbench_do() {
    local test="$1" action="$2"
    shift 2
    exec sysbench "$test" --db-driver=mysql --mysql-socket="$WORK/run/mysqld.sock" --mysql-user=root \
        --mysql-db=sbtest --tables="$M_TABLES" --table-size="$M_SIZE" "${M_ARGS[@]}" "$@" "$action"
}

for mode in "${MODES[@]}"; do
    case "$mode" in
        ycsb-*)
            test="$ROOT/scripts/sysbench/ycsb.lua"
            M_TABLES=1 M_SIZE="$RECORDS" M_ARGS=(--workload="${mode#ycsb-}")
            workload="YCSB workload ${mode#ycsb-} (scripts/sysbench/ycsb.lua)"
            ;;
        *)
            test="oltp_${mode//-/_}"
            M_TABLES="$TABLES" M_SIZE="$TABLE_SIZE" M_ARGS=()
            workload="sysbench oltp_${mode//-/_}"
            ;;
    esac
    trace="$OUT/sysbench-mysql-$mode.fgt"
    echo "== $mode: mkfs.ext4, MariaDB and sysbench prepare ($M_TABLES tables x $M_SIZE rows; not recorded)"
    rm -f "$WORK/disk.img"
    attach
    mkfs.ext4 -q "$LOOP" >"$WORK/mkfs.log" 2>&1 || fail "mkfs.ext4" "$WORK/mkfs.log"
    mount "$LOOP" "$WORK/mnt" 2>"$WORK/mount.log" || fail "mount" "$WORK/mount.log"
    mkdir -p "$WORK/mnt/db"
    chown mysql:mysql "$WORK/mnt/db"
    mariadb-install-db --no-defaults --user=mysql --datadir="$WORK/mnt/db" \
        --auth-root-authentication-method=normal >"$WORK/install.log" 2>&1 || fail "mariadb-install-db" "$WORK/install.log"
    start_db
    mariadb --socket="$WORK/run/mysqld.sock" -uroot -e "CREATE DATABASE sbtest" >"$WORK/create.log" 2>&1 \
        || fail "CREATE DATABASE" "$WORK/create.log"
    ssd_run "$WORK/prepare.log" sysbench_do "$test" prepare --threads="$THREADS" || fail "sysbench prepare" "$WORK/prepare.log"
    teardown

    echo "== $mode: sysbench run, $THREADS threads for $TIME s, recorded to $trace"
    attach --record "$trace.partial" -o "$WORK/serve.json"
    mount "$LOOP" "$WORK/mnt" 2>"$WORK/mount.log" || fail "mount" "$WORK/mount.log"
    start_db
    ssd_run "$WORK/run.log" sysbench_do "$test" run --threads="$THREADS" --time="$TIME" --report-interval=0 \
        || fail "sysbench run" "$WORK/run.log"
    teardown
    [ -s "$trace.partial" ] || fail "the recording (flashgc serve --record)" "$WORK/serve.log"
    mv -f "$trace.partial" "$trace"
    sha="$(sha256sum "$trace" | cut -d' ' -f1)"
    tps="$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$WORK/run.log")"
    python3 - "$trace.json.partial" "$mode" "$sha" "$tps" "$WORK/run.log" "$M_TABLES" "$M_SIZE" "$THREADS" \
        "$TIME" "$POOL_MIB" "$(sysbench --version)" "$("$MARIADBD" --version)" "$(uname -r)" "$workload" "${SSD_SERVE[@]}" <<'EOF'
import json, sys
out, mode, sha, tps, log, tables, size, threads, time_s, pool, sb, db, kernel = sys.argv[1:14]
meta = {
    "workload": f"{sys.argv[14]} on MariaDB (InnoDB, O_DIRECT) over ext4",
    "mode": mode,
    "tables": int(tables),
    "table_size": int(size),
    "threads": int(threads),
    "time_s": int(time_s),
    "buffer_pool_mib": int(pool),
    "device_flags": sys.argv[15:],
    "sha256": sha,
    "sysbench_tps_on_this_machine": float(tps) if tps else None,
    "sysbench": sb,
    "mariadb": db,
    "kernel": kernel,
    "sysbench_summary": open(log).read()[-2500:],
}
with open(out, "w") as f:
    json.dump(meta, f, indent=2)
EOF
    mv -f "$trace.json.partial" "${trace%.fgt}.json"
    echo "   $("$SSD_BIN" trace stats "$trace" | sed -n 's/^requests *//p')"
    echo "   sysbench on this machine: ${tps:-?} transactions/s (untimed device; the replay times it)"
done
echo "recorded in $OUT"
