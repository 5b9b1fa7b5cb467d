#!/usr/bin/env bash
# Engine speed before/after (issue 14): builds the pre-engine commit (default f514c17, the
# last commit before the one-engine refactor) in a temporary git worktree under /tmp with its
# own target directory, builds the current tree, then runs the same commands with both
# binaries, alternating (old-new, then new-old, ...), ROUNDS times each. For every pair it
# prints the CPU time (user + sys) of each binary, host requests per CPU-second and the
# ratio new/old of requests per CPU-second (> 1: the current tree is faster); then the
# median ratio per command. The results must be identical (WAF, GC writes, erases of every
# pair are compared); a difference is printed as MISMATCH and the script exits 1.
#
#   bash scripts/bench-engine.sh [ROUNDS]            (default 5)
#   OLD_REV=<commit> bash scripts/bench-engine.sh    (another "before")
#   FLASHGC_BENCH_DIR=/tmp/x                         (worktree, target dir, trace; default
#                                                     /tmp/flashgc-bench-engine)
#
# The device is given by --blocks-per-plane where --logical-gib would size superblock
# devices differently in the two builds (issue 19 changed that sizing, not the engine).
#
# Commands (valid for both binaries): WAF-only `run` on a built-in workload, a timed run
# (`--timing`, flash device model), a NoC run (`flashgc noc`, the NoC controller preset) and
# a trace replay (MSR Cambridge writes from the shared traces folder). CPU time, not
# wall time: the machine is shared; alternation spreads the load over both binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
rounds="${1:-5}"
old_rev="${OLD_REV:-f514c17}"
dir="${FLASHGC_BENCH_DIR:-/tmp/flashgc-bench-engine}"
mkdir -p "$dir"

old_tree="$dir/old-$old_rev"
if [ ! -d "$old_tree" ]; then
  git worktree add --detach "$old_tree" "$old_rev" > /dev/null
  # The worktree goes when the script ends (its target directory stays, for a faster
  # rebuild next time); FLASHGC_BENCH_KEEP=1 keeps it.
  if [ -z "${FLASHGC_BENCH_KEEP:-}" ]; then
    trap 'git worktree remove --force "$old_tree"' EXIT
  fi
fi
echo "== building $old_rev (release, target $dir/target-old)"
(cd "$old_tree" && CARGO_TARGET_DIR="$dir/target-old" cargo build --release --locked --quiet --bin flashgc)
old="$dir/target-old/release/flashgc"
echo "== building the current tree (release)"
cargo build --release --locked --quiet --bin flashgc
new="$root/target/release/flashgc"

cmds=(
  "run --logical-gib 4 --workload zipf:1.0 --placement sepbit --write-volume 8 --json"
  "run --timing --preset cosmos-openssd --blocks-per-plane 16 --segment-blocks 8 --workload zipf:0.8 --write-volume 10 --json"
  "noc --profile mysql --requests 1500000 --path selective --json"
)
# The real MSR Cambridge write trace (MQSim format, read in place from the shared traces
# folder), remapped onto a device of its own size and replayed 32 times.
traces="${FLASHGC_TRACES:-$root/../shared/traces}"
trace="$traces/converted_mqsim/MSR_trace-only-write.mqsim.trace"
if [ -s "$trace" ]; then
  cmds+=("run --workload trace:$trace --format mqsim --remap compact --capacity auto --loop-times 32 --pages-per-block 32 --placement sepbit --json")
else
  echo "note: $trace not found (set FLASHGC_TRACES): no trace replay"
fi

# "cpu_seconds waf gc_writes erases requests" of one run.
one() {
  local bin="$1"; shift
  /usr/bin/time -o "$dir/time.txt" -f "%U %S" "$bin" "$@" > "$dir/out.json" 2> "$dir/err.txt" || {
    echo "failed: $bin $*" >&2; cat "$dir/err.txt" >&2; exit 1; }
  python3 - "$dir/out.json" "$dir/time.txt" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
if isinstance(r, list):
    r = r[0]
u, s = map(float, open(sys.argv[2]).read().split()[-2:])
# Current result record: total.{waf,gc_writes,erases}, timing.requests; the pre-engine
# `noc` report: waf, gc_page_moves/copybacks, erases at the top level.
t = r.get("total", r)
waf = t.get("waf", r.get("waf"))
gcw = t.get("gc_writes", r.get("gc_page_moves", r.get("copybacks")))
er = t.get("erases", r.get("erases"))
req = (r.get("timing") or {}).get("requests") or r.get("requests") or t.get("user_writes")
print(f"{u + s:.3f} {waf} {gcw} {er} {req}")
EOF
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "old: $old_rev ($old)   new: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo '+changes') ($new)"
status=0
summary=()
for c in "${cmds[@]}"; do
  echo "== $c"
  ratios=()
  for r in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    if [ $((r % 2)) -eq 1 ]; then
      o=$(one "$old" $c); n=$(one "$new" $c)
    else
      n=$(one "$new" $c); o=$(one "$old" $c)
    fi
    read -r oc ow og oe oq <<< "$o"
    read -r nc nw ng ne nq <<< "$n"
    same="same results"
    if [ "$ow $og $oe" != "$nw $ng $ne" ]; then
      same="MISMATCH: old WAF $ow gc $og erases $oe, new WAF $nw gc $ng erases $ne"
      status=1
    fi
    q="$nq"
    ratio=$(awk -v a="$oc" -v b="$nc" 'BEGIN{printf "%.3f", a / b}')
    ratios+=("$ratio")
    awk -v r="$r" -v oc="$oc" -v nc="$nc" -v q="$q" -v x="$ratio" -v w="$nw" -v s="$same" 'BEGIN{
      printf "  round %d: old %6.2f cpu-s %6.3f M req/cpu-s | new %6.2f cpu-s %6.3f M req/cpu-s | new/old %s | WAF %s, %s\n",
        r, oc, q / oc / 1e6, nc, q / nc / 1e6, x, w, s }'
  done
  med=$(printf "%s\n" "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
  echo "  median new/old (requests per CPU-second): $med"
  summary+=("$(printf '%-7s %s' "$med" "$c")")
done
echo "== median ratio new/old per command"
printf "%s\n" "${summary[@]}"
[ "$status" -eq 0 ] || echo "RESULTS DIFFER between the two builds (see MISMATCH above)"
exit "$status"
