#!/usr/bin/env bash
# Cost of the mapping-cache model (docs/mapping-cache.md): each command runs ROUNDS times
# with the cache off and on (1 % of the mapping table), alternating (off on off on ...);
# prints the median CPU time (user + system) of each and the ratio on/off. Then the DFTL
# mode's host requests per CPU-second at 128 GiB with a 1 % cache (timed phase only: the
# difference of two request counts cancels the untimed precondition fill). For BENCHMARKS.md.
#
#   scripts/bench-mapping-cache.sh [BINARY] [ROUNDS]
set -euo pipefail
bin="${1:-target/release/flashgc}"; rounds="${2:-3}"
# name | flags | 1 % of the table (4 B per 4 KiB LPN: logical bytes / 1024 / 100)
cmds=(
  "waf-only 4 GiB uniform|run --logical-gib 4 --workload uniform --write-volume 8 --json|42k"
  "waf-only 4 GiB zipf 0.9, sup-gc|run --logical-gib 4 --workload zipf:0.9 --placement sup-gc --write-volume 8 --json|42k"
  "timed 1 GiB zipf 0.8, 30 % reads|run --timing --logical-gib 1 --workload zipf:0.8 --read-ratio 0.3 --write-volume 4 --json|11k"
)
cpu() { # prints user+sys seconds of one run
  local out
  out=$( { /usr/bin/time -f "%U %S" "$@" > /dev/null; } 2>&1 | tail -1 )
  awk '{printf "%.3f\n", $1 + $2}' <<< "$out"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf "%-36s %9s %9s %8s\n" "command" "off cpu-s" "on cpu-s" "on/off"
for c in "${cmds[@]}"; do
  IFS='|' read -r name flags size <<< "$c"
  ta=(); tb=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    ta+=("$(cpu "$bin" $flags --mapping-cache off)")
    # shellcheck disable=SC2086
    tb+=("$(cpu "$bin" $flags --mapping-cache "$size")")
  done
  ma=$(printf "%s\n" "${ta[@]}" | median)
  mb=$(printf "%s\n" "${tb[@]}" | median)
  printf "%-36s %9.3f %9.3f %8.3f\n" "$name" "$ma" "$mb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print b/a}')"
done
# DFTL mode at 128 GiB, 1 % cache (1.28 MiB of a 128 MiB table), 4 KiB random writes, QD 32.
big="run --timing --logical-gib 128 --workload uniform --mapping-cache 1342k --json"
n1=200000; n2=1200000
# shellcheck disable=SC2086
c1=$(cpu "$bin" $big --requests "$n1")
# shellcheck disable=SC2086
c2=$(cpu "$bin" $big --requests "$n2")
printf "DFTL 128 GiB, 1 %% cache: %d host requests in %.2f CPU-s beyond the first %d -> %.0f requests/CPU-s\n" \
  "$((n2 - n1))" "$(awk -v a="$c1" -v b="$c2" 'BEGIN{print b-a}')" "$n1" \
  "$(awk -v a="$c1" -v b="$c2" -v n=$((n2 - n1)) 'BEGIN{print n/(b-a)}')"
