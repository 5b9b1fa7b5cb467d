#!/usr/bin/env bash
# Trace replay speed (issue 14): requests per CPU-second and per wall-second of `flashgc run`
# on a 7.8 M-write zipf 1.0 trace over an 8 GB device (2048 segments of 4 MiB, op 7.37 %,
# MiDAS's simulator's `test-fio-small` setting), text (MiDAS format) and .fgt, with `midas`
# + fifo and `single` + greedy, the text trace parsed on a second thread (default) and on
# the simulation's thread (--no-pipeline). Runs alternate; each figure is one run.
#
#   bash scripts/bench-trace-replay.sh [ROUNDS]          (default 2 rounds)
#   FLASHGC_OLD=/path/to/older/flashgc bash scripts/bench-trace-replay.sh   (adds a before column)
#   MIDAS_SIM=/path/to/ssdsimul bash scripts/bench-trace-replay.sh           (MiDAS's simulator, same trace)
#
# The trace comes from the `write_trace` example of flashgc-core (seeded, so every machine
# gets the same file); it is written once to $FLASHGC_BENCH_DIR (default /tmp/flashgc-trace-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
dir="${FLASHGC_BENCH_DIR:-/tmp/flashgc-trace-bench}"
mkdir -p "$dir"
cargo build --release --quiet --bin flashgc
new="$PWD/target/release/flashgc"
if [ ! -s "$dir/zipf.midas" ]; then
  cargo build --release --quiet -p flashgc-core --example write_trace
  # 1,953,125 logical pages = 8e9 bytes (MiDAS's "8 GB" logical size), 7.8 M page writes.
  ./target/release/examples/write_trace zipf:1.0 1953125 7800000 1 midas > "$dir/zipf.midas"
fi
[ -s "$dir/zipf.fgt" ] || "$new" trace convert "$dir/zipf.midas" -o "$dir/zipf.fgt" > /dev/null
cat > "$dir/midas8g.toml" <<'EOF'
# 2048 segments x 1024 pages of 4 KiB = 8 GiB physical; 1,953,125 logical pages (op 7.374 %)
[device]
channels = 1
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 0
pages_per_block = 1024
page_size = 4096
lpn_size = 4096
segment_blocks = 1

[ftl]
op = 0.0737418
logical_gib = 7.45058
EOF
requests=7800000
one() { # label binary trace placement victim [flags]
  local label="$1" bin="$2" trace="$3" pl="$4" vic="$5"; shift 5
  local t
  /usr/bin/time -o "$dir/time.txt" -f "%U %S %e" "$bin" run --config "$dir/midas8g.toml" \
    --workload "trace:$dir/$trace" --placement "$pl" --victim "$vic" "$@" > "$dir/out.txt" 2> /dev/null
  t=$(tail -1 "$dir/time.txt")
  local waf
  waf=$(grep -m1 "WAF whole run" "$dir/out.txt" | awk '{print $4}')
  echo "$t" | awk -v l="$label" -v w="$waf" -v n="$requests" \
    '{cpu=$1+$2; printf "%-44s WAF %-8s cpu %6.2f s  wall %6.2f s  %5.2f M req/CPU-s  %5.2f M req/wall-s\n", l, w, cpu, $3, n/cpu/1e6, n/$3/1e6}'
}
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  echo "== round $r"
  for pv in "midas fifo" "single greedy"; do
    set -- $pv
    one "$1+$2 .fgt" "$new" zipf.fgt "$1" "$2"
    one "$1+$2 text (pipelined)" "$new" zipf.midas "$1" "$2"
    one "$1+$2 text (--no-pipeline)" "$new" zipf.midas "$1" "$2" --no-pipeline
    if [ -n "${FLASHGC_OLD:-}" ]; then
      one "$1+$2 .fgt (FLASHGC_OLD)" "$FLASHGC_OLD" zipf.fgt "$1" "$2"
      one "$1+$2 text (FLASHGC_OLD)" "$FLASHGC_OLD" zipf.midas "$1" "$2"
    fi
  done
  if [ -n "${MIDAS_SIM:-}" ]; then
    (cd "$dir" && /usr/bin/time -o time.txt -f "%U %S %e" "$MIDAS_SIM" zipf.midas fifo 8 4 > midas_sim.log 2>&1)
    t=$(tail -1 "$dir/time.txt")
    echo "$t" | awk -v n="$requests" '{cpu=$1+$2; printf "%-44s cpu %6.2f s  wall %6.2f s  %5.2f M req/CPU-s\n", "MiDAS simulator (fifo 8 4)", cpu, $3, n/cpu/1e6}'
  fi
done
