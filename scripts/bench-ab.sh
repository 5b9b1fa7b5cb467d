#!/usr/bin/env bash
# Alternating A/B speed comparison of two flashgc binaries on the same commands: each
# command runs ROUNDS times per binary, alternating (A B A B ...), and the median CPU time
# (user + system) of each is printed with the ratio B/A. Used for BENCHMARKS.md.
#
#   scripts/bench-ab.sh OLD_BINARY NEW_BINARY [ROUNDS]
#
# Outputs are discarded; the commands are the ones listed below (WAF-only, timed flash,
# NoC), sized to take a few CPU seconds each.
set -euo pipefail
a="$1"; b="$2"; rounds="${3:-5}"
cmds=(
  "run --logical-gib 4 --workload uniform --write-volume 16 --json"
  "run --logical-gib 4 --workload zipf:1.0 --placement sup-gc --write-volume 16 --json"
  "run --timing --preset cosmos-openssd --logical-gib 1 --segment-blocks 8 --workload zipf:0.8 --write-volume 6 --json"
  "run --timing --preset cosmos-openssd --logical-gib 1 --segment-blocks 8 --workload zipf:0.8 --write-volume 6 --gc-mode preemptible --cache-mib 64 --json"
  "noc --profile mysql --requests 300000 --json"
  "noc --profile cassandra --requests 200000 --json"
)
cpu() { # prints user+sys seconds of one run
  local out
  out=$( { /usr/bin/time -f "%U %S" "$@" > /dev/null; } 2>&1 | tail -1 )
  awk '{printf "%.3f\n", $1 + $2}' <<< "$out"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf "%-110s %8s %8s %7s\n" "command" "A cpu-s" "B cpu-s" "B/A"
for c in "${cmds[@]}"; do
  ta=(); tb=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    ta+=("$(cpu "$a" $c)")
    # shellcheck disable=SC2086
    tb+=("$(cpu "$b" $c)")
  done
  ma=$(printf "%s\n" "${ta[@]}" | median)
  mb=$(printf "%s\n" "${tb[@]}" | median)
  printf "%-110s %8.3f %8.3f %7.3f\n" "$c" "$ma" "$mb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print b/a}')"
done
