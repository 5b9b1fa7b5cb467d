#!/usr/bin/env bash
# Issue 15's speed goal in CPU seconds by device size: the features-on mode
# (`--scheduler read-first --cpu-cost on`) against the fcfs timed mode on
# `run --timing --workload zipf:0.8 --read-ratio 0.3 --write-volume 2` at each logical
# size, the two alternating (the order flips each round), with the precondition fill (the
# same command at a tiny write volume, the same in both modes) subtracted. CPU = user + sys
# of the process. Prints one line per size and round. Takes about 10 CPU-minutes with the
# default sizes and rounds (128 GiB alone: about 2.5 minutes a round). Where
# bench-controller-ratio.sh counts instructions (deterministic), this measures what a user
# waits for, at the sizes where the mapping table no longer fits in the caches.
#
#   scripts/bench-controller-sizes.sh [BINARY]
# Environment: SIZES (logical GiB, default "1 16 64 128"), ROUNDS (default 3).
set -euo pipefail
bin="${1:-target/release/flashgc}"
sizes="${SIZES:-1 16 64 128}"
rounds="${ROUNDS:-3}"
# CPU seconds (user + sys) of one run.
cpu() {
  /usr/bin/time -f "%U %S" "$bin" "$@" 2>&1 > /dev/null | tail -1 | awk '{print $1 + $2}'
}
on=(--scheduler read-first --cpu-cost on)
printf "%8s %5s %8s %8s %8s %12s\n" "GiB" "round" "fill s" "fcfs s" "on s" "on/off"
for g in $sizes; do
  base=(run --timing --logical-gib "$g" --workload zipf:0.8 --read-ratio 0.3 --json)
  for r in $(seq "$rounds"); do
    if [ $((r % 2)) = 1 ]; then
      off=$(cpu "${base[@]}" --write-volume 2)
      with=$(cpu "${base[@]}" --write-volume 2 "${on[@]}")
    else
      with=$(cpu "${base[@]}" --write-volume 2 "${on[@]}")
      off=$(cpu "${base[@]}" --write-volume 2)
    fi
    fill=$(cpu "${base[@]}" --write-volume 0.001)
    awk -v g="$g" -v r="$r" -v f="$fill" -v a="$off" -v b="$with" \
      'BEGIN {printf "%8s %5s %8.2f %8.2f %8.2f %11.3fx\n", g, r, f, a, b, (b - f) / (a - f)}'
  done
done
