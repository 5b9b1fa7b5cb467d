#!/bin/bash
# Alternating CPU-time comparison of two flashgc binaries on the dedup schemes (BENCHMARKS.md,
# "Dedup-aware GC on the core FTL"). Usage: scripts/bench-dedup.sh OLD_BIN NEW_BIN [ROUNDS] [full]
# OLD_BIN is a build of f514c17 (the retired dedup FTL); both run the same work (device-wide
# GC; the new binary's cagc:index=full and dagc:cache=unbounded are the retired models).
set -euo pipefail
OLD=$1
NEW=$2
ROUNDS=${3:-3}
if [ "${4:-}" = full ]; then
  COMMON="dedup --workload uniform --read-ratio 0.3 --dup-ratio 0.3 --gc-scope device --write-volume 0.4 --warmup 0.2 --json"
else
  COMMON="dedup --small --workload uniform --read-ratio 0.3 --dup-ratio 0.3 --gc-scope device --json"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu() { /usr/bin/time -f "%U %S %M" "$@" > "$tmp/out.json" 2> "$tmp/time" || { cat "$tmp/time"; exit 1; }; tail -1 "$tmp/time"; }
# Steady-state migrated pages (the retired JSON has migrated_pages; the new one a result record).
migrated() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[0]; print(r.get('migrated_pages', r.get('result', {}).get('steady_state', {}).get('gc_writes')))" "$tmp/out.json"; }
for round in $(seq 1 "$ROUNDS"); do
  for pair in "greedy greedy" "cagc cagc:index=full" "dagc dagc:cache=unbounded" "splitgc splitgc"; do
    set -- $pair
    o=$(cpu "$OLD" $COMMON --scheme "$1"); mo=$(migrated)
    n=$(cpu "$NEW" $COMMON --scheme "$2"); mn=$(migrated)
    echo "round $round $1: old $(echo "$o" | awk '{print $1+$2}') s (RSS $(echo "$o" | awk '{print $3}') KiB), new $(echo "$n" | awk '{print $1+$2}') s (RSS $(echo "$n" | awk '{print $3}') KiB); migrated $mo / $mn"
  done
done
