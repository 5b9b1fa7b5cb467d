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
cpu() { # prints "user+sys-seconds flash-programs" of one run (its JSON on stdout)
  local out progs
  out=$( { /usr/bin/time -f "%U %S" "$@" > /tmp/bench-mc.$$.json; } 2>&1 | tail -1 )
  progs=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['precondition']['flash_programs'] + r['total']['flash_programs'])" /tmp/bench-mc.$$.json)
  awk -v p="$progs" '{printf "%.3f %d\n", $1 + $2, p}' <<< "$out"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf "%-36s %9s %9s %8s %14s\n" "command" "off cpu-s" "on cpu-s" "on/off" "programs on/off"
for c in "${cmds[@]}"; do
  IFS='|' read -r name flags size <<< "$c"
  ta=(); tb=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    read -r t pa <<< "$(cpu "$bin" $flags --mapping-cache off)"; ta+=("$t")
    # shellcheck disable=SC2086
    read -r t pb <<< "$(cpu "$bin" $flags --mapping-cache "$size")"; tb+=("$t")
  done
  ma=$(printf "%s\n" "${ta[@]}" | median)
  mb=$(printf "%s\n" "${tb[@]}" | median)
  printf "%-36s %9.3f %9.3f %8.3f %14.3f\n" "$name" "$ma" "$mb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print b/a}')" \
    "$(awk -v a="$pa" -v b="$pb" 'BEGIN{print b/a}')"
done
# DFTL mode at 128 GiB, 1 % cache (1.28 MiB of a 128 MiB table), 4 KiB random writes, QD 32:
# host requests per CPU-second of the timed phase (two request counts; the difference
# cancels the untimed precondition fill).
n1=1000000; n2=11000000
for mc in off 1342k; do
  big="run --timing --logical-gib 128 --workload uniform --mapping-cache $mc --json"
  # shellcheck disable=SC2086
  read -r c1 _ <<< "$(cpu "$bin" $big --requests "$n1")"
  # shellcheck disable=SC2086
  read -r c2 p2 <<< "$(cpu "$bin" $big --requests "$n2")"
  printf "128 GiB, mapping cache %-6s %d host requests in %.2f CPU-s -> %.0f requests/CPU-s (%d flash programs in all)\n" \
    "$mc:" "$((n2 - n1))" "$(awk -v a="$c1" -v b="$c2" 'BEGIN{print b-a}')" \
    "$(awk -v a="$c1" -v b="$c2" -v n=$((n2 - n1)) 'BEGIN{print n/(b-a)}')" "$p2"
done
rm -f /tmp/bench-mc.$$.json
