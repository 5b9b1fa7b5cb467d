#!/usr/bin/env bash
# Issue 15's speed goal, measured: the instructions of the features-on mode
# (`--scheduler read-first --cpu-cost on`) against the fcfs timed mode on the same
# commands, and their ratio (docs/controller-speed.md, "What at most 1.25x needs"). Instruction
# counts (valgrind's cachegrind) are deterministic, where CPU seconds on a shared 2-core
# machine vary by up to 70 % between identical runs. The synthetic workloads have their
# precondition fill (the same in both modes) subtracted, measured by the same command at a
# tiny write volume; the trace replays do not. The MSR trace sample is replayed twice:
# from its text (the parsing, the same in both modes, dilutes the ratio) and from the
# binary .fgt form `flashgc trace convert` makes (close to a replay from memory).
# Takes about 15 minutes.
#
#   scripts/bench-controller-ratio.sh [BINARY]
set -euo pipefail
bin="${1:-target/release/flashgc}"
if ! command -v valgrind > /dev/null; then
  echo "bench-controller-ratio.sh needs valgrind (apt-get install valgrind)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
traces="${FLASHGC_TRACES:-$here/../../shared/traces}"
csv="$traces/msr_cambridge/msr-cambridge1-sample.csv"
if [ ! -f "$csv" ]; then
  echo "bench-controller-ratio.sh: no $csv (set FLASHGC_TRACES to the traces folder)" >&2
  exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" trace convert "$csv" -o "$dir/msr1.fgt" > /dev/null
M="$here/bench-mqsim/matched.toml"
# Millions of instructions of one run.
ir() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" "$@" 2>&1 > /dev/null |
    awk '/I *refs/ {gsub(",", "", $4); printf "%.1f", $4 / 1e6}'
}
ON=(--scheduler read-first --cpu-cost on)
A="run --timing --logical-gib 0.25 --workload zipf:0.8 --read-ratio 0.3 --json"
B="fio --preset mqsim-default --config $M --rw randwrite --bs 4k --iodepth 8 --json"
C="run --timing --preset mqsim-default --blocks-per-plane 16 --workload uniform --json"
TR="run --timing --no-pipeline --capacity auto --remap compact --loop-until 20 --json"
printf "%-52s %9s %9s %9s %7s\n" "workload" "fill M" "fcfs M" "on M" "on/off"
row() { # name, fill (or 0), fcfs, on
  awk -v n="$1" -v f="$2" -v a="$3" -v b="$4" \
    'BEGIN {printf "%-52s %9.1f %9.1f %9.1f %6.3fx\n", n, f, a, b, (b - f) / (a - f)}'
}
# shellcheck disable=SC2086
{
  row "A: 8 planes, zipf 0.8, 30 % reads" "$(ir $A --write-volume 0.001)" \
    "$(ir $A --write-volume 0.5)" "$(ir $A --write-volume 0.5 "${ON[@]}")"
  row "B: MQSim's matched device, randwrite QD 8" "$(ir $B --data-gb 0.001)" \
    "$(ir $B --data-gb 0.5)" "$(ir $B --data-gb 0.5 "${ON[@]}")"
  row "C: mqsim-default, 128 planes, uniform" "$(ir $C --write-volume 0.001)" \
    "$(ir $C --write-volume 0.25)" "$(ir $C --write-volume 0.25 "${ON[@]}")"
  for h in open closed; do
    row "MSR sample from text, $h loop" 0 "$(ir $TR --workload "trace:$csv" --host $h)" \
      "$(ir $TR --workload "trace:$csv" --host $h "${ON[@]}")"
    row "MSR sample from .fgt, $h loop" 0 "$(ir $TR --workload "trace:$dir/msr1.fgt" --host $h)" \
      "$(ir $TR --workload "trace:$dir/msr1.fgt" --host $h "${ON[@]}")"
  done
}
