#!/usr/bin/env bash
# Prints one checksum per GC-relocation configuration of the given flashgc binary (the
# sssl-ftlsim setting with single and five other placements, every placement on a small
# zipf device, timed flash, a mapping cache, a trace replay), so that a change meant to make
# GC relocation faster can be shown to change no result: run it with the binary before and
# after and diff the outputs. The JSON is compared without its memory and wall-clock fields.
# Usage: bash scripts/gc-identity.sh target/release/flashgc > after.txt
# About 2 CPU-minutes.
set -euo pipefail
F=${1:?usage: gc-identity.sh FLASHGC_BINARY}
TRACE=${TRACE:-/work/shared/traces/msr_cambridge/msr-cambridge1-sample.csv}
strip() { python3 "$(dirname "$0")/json-digest.py"; }
# BENCHMARKS.md's sssl-ftlsim setting (4 Mi logical pages).
B="run --logical-gib 16 --op 0.07 --pages-per-block 256 --workload uniform --victim greedy --write-volume 6 --warmup 5 --json"
Z="run --logical-gib 0.5 --workload zipf:1.0 --write-volume 4 --json"
i=0
while read -r args; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  out=$("$F" $args) || { echo "gc-identity: run $i failed: $args" >&2; exit 1; }
  printf '%2d %s  %s\n' "$i" "$(strip <<< "$out")" "$args"
done <<EOT
$B
$B --placement sepbit
$B --placement midas
$B --placement mida
$B --placement sup-gc
$B --placement bf-gc
$Z --placement single
$Z --placement sup-gc
$Z --placement mida --victim cost-benefit:sqrt
$Z --placement mida:hot=filter --victim cost-benefit:sqrt
$Z --placement midas --victim fifo
$Z --placement oracle --victim cost-benefit:sqrt
$Z --placement bf-gc
$Z --placement sepbit --victim cost-benefit:sqrt
$Z --placement mhf
$Z --placement mhf-opt
$Z --placement bf-opt
$Z --placement mbf
$Z --placement cat --victim cost-benefit:sqrt
$Z --placement autostream --victim cost-benefit:sqrt
$Z --placement dac --victim cost-benefit:sqrt
$Z --placement multilog --victim fifo
$Z --victim d-choices
$Z --gc-trigger garbage:0.15 --placement sepbit --victim cost-benefit:sqrt
$Z --mapping-cache 64k
$Z --mapping-cache 64k --placement sup-gc
run --timing --logical-gib 0.25 --workload zipf:0.8 --read-ratio 0.3 --write-volume 1 --json
run --timing --preset cosmos-openssd --logical-gib 1 --segment-blocks 8 --workload zipf:0.8 --write-volume 2 --gc-mode preemptible --placement sup-gc --op 0.2 --json
run --workload trace:$TRACE --capacity auto --remap compact --loop-until 4 --json
run --workload trace:$TRACE --capacity auto --remap compact --loop-until 4 --victim cost-benefit:sqrt --json
EOT
