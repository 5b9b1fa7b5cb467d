#!/usr/bin/env bash
# Cost of the firmware-CPU model (docs/cpu.md): each timed command runs ROUNDS times with
# --cpu-cost off and on, alternating (off on off on ...); prints the median CPU time
# (user + system) of each and the ratio on/off. For BENCHMARKS.md.
#
#   scripts/bench-cpu.sh [BINARY] [ROUNDS]
set -euo pipefail
bin="${1:-target/release/flashgc}"; rounds="${2:-5}"
cfg=$(mktemp /tmp/bench-cpu.XXXXXX.toml)
out=$(mktemp /tmp/bench-cpu.XXXXXX.json)
trap 'rm -f "$cfg" "$out"' EXIT
# docs/timing.md's cosmos-real-blocks.toml (scaled-down Cosmos+ with real 128-page blocks)
printf '[device]\nchips_per_channel = 4\nblocks_per_plane = 32\npages_per_block = 128\nsegment_blocks = 8\n' > "$cfg"
cmds=(
  "run 1 GiB zipf 0.8, 30 % reads, bf-gc|run --timing --logical-gib 1 --workload zipf:0.8 --read-ratio 0.3 --write-volume 4 --placement bf-gc --json"
  "run 1 GiB, mbf, GCaR cache, preemptible|run --timing --logical-gib 1 --workload zipf:0.8 --write-volume 4 --placement mbf --cache-mib 8 --cache-policy gcar --gc-mode preemptible --json"
  "fio sup-gc paper 75 % writes, 5 schemes|fio --preset cosmos-openssd --config $cfg --placement single,sup-gc,bf-gc,mhf,mbf --paper sup-gc --rwmixwrite 75 --distribution zipf:0.8 --json"
)
cpu() { # prints user+sys seconds of one run
  { /usr/bin/time -f "%U %S" "$@" > "$out"; } 2>&1 | tail -1 | awk '{printf "%.3f\n", $1 + $2}'
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
printf "%-44s %9s %9s %8s\n" "command" "off cpu-s" "on cpu-s" "on/off"
for c in "${cmds[@]}"; do
  IFS='|' read -r name flags <<< "$c"
  ta=(); tb=()
  for _ in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    ta+=("$(cpu "$bin" $flags --cpu-cost off)")
    # shellcheck disable=SC2086
    tb+=("$(cpu "$bin" $flags --cpu-cost on)")
  done
  ma=$(printf "%s\n" "${ta[@]}" | median)
  mb=$(printf "%s\n" "${tb[@]}" | median)
  printf "%-44s %9.3f %9.3f %8.3f\n" "$name" "$ma" "$mb" "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print b/a}')"
done
