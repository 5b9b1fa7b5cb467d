#!/usr/bin/env bash
# IOPS served to fio's nbd engine (4 KiB random writes, iodepth 32, --pace none) by
# `flashgc serve` with --data none and --data memory, WAF-only and timed, beside nbdkit's
# memory plugin serving the same job, in one alternating run (ROUNDS rounds; medians).
#
#   bash scripts/bench-serve.sh [ROUNDS]      (default 5; needs scripts/install-nbd-tools.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
cargo build --release -q -p flashgc-cli
F="$PWD/target/release/flashgc"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
# 1 GiB logical device (the default preset's geometry), filled before serving, so GC runs
# during the job; fio writes 2 GiB (twice the capacity).
DEV=(--logical-gib 1)
"$F" serve "${DEV[@]}" --socket "$W/probe.sock" --exit-after-clients 1 --quiet >/dev/null 2>&1 &
p=$!
for _ in $(seq 200); do [ -S "$W/probe.sock" ] && break; sleep 0.05; done
BYTES=$(nbdinfo --size "nbd+unix:///?socket=$W/probe.sock")
wait "$p" || true
cat > "$W/job.fio" <<JOB
[global]
ioengine=nbd
uri=nbd+unix:///?socket=$W/s.sock
rw=randwrite
bs=4k
iodepth=32
size=$BYTES
io_size=2g
[w]
JOB
run_fio() {
    fio "$W/job.fio" --output-format=json --output="$W/fio.json" >/dev/null 2>"$W/fio.err" || { cat "$W/fio.err" >&2; echo 0; return; }
    python3 -c 'import json,sys; t=open(sys.argv[1]).read(); d=json.loads(t[t.index("{"):]); print(round(d["jobs"][0]["write"]["iops"]))' "$W/fio.json"
}
declare -A R
for i in $(seq 1 "$ROUNDS"); do
    for cfg in nbdkit none memory none-timed memory-timed; do
        rm -f "$W/s.sock"
        case $cfg in
            nbdkit) nbdkit -f -U "$W/s.sock" memory "$BYTES" & ;;
            none) "$F" serve "${DEV[@]}" --socket "$W/s.sock" --data none --quiet >/dev/null 2>"$W/err" & ;;
            memory) "$F" serve "${DEV[@]}" --socket "$W/s.sock" --data memory --quiet >/dev/null 2>"$W/err" & ;;
            none-timed) "$F" serve "${DEV[@]}" --socket "$W/s.sock" --data none --timing --quiet >/dev/null 2>"$W/err" & ;;
            memory-timed) "$F" serve "${DEV[@]}" --socket "$W/s.sock" --data memory --timing --quiet >/dev/null 2>"$W/err" & ;;
        esac
        pid=$!
        for _ in $(seq 100); do [ -S "$W/s.sock" ] && break; sleep 0.05; done
        iops=$(run_fio)
        kill -TERM "$pid"; wait "$pid" || true
        R[$cfg]="${R[$cfg]:-} $iops"
        echo "round $i $cfg: $iops IOPS"
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base=$(echo "${R[nbdkit]}" | median)
echo
echo "median write IOPS over $ROUNDS alternating rounds (fio nbd engine, 4 KiB randwrite, iodepth 32, $BYTES-byte export):"
for cfg in nbdkit none memory none-timed memory-timed; do
    m=$(echo "${R[$cfg]}" | median)
    echo "  $cfg: $m ($(python3 -c "print(f'{100*$m/$base:.0f}')") % of nbdkit)"
done
