#!/usr/bin/env bash
# Runs each fuzz target for a bounded time (not part of CI): needs a nightly toolchain and
# cargo-fuzz (`cargo install cargo-fuzz`). Seeds the corpora from the repository's own test
# inputs; crashes found are copied to fuzz/regressions/<target>/, which CI replays
# (crates/flashgc-trace/tests/fuzz_regressions.rs).
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-300}"
mkdir -p fuzz/corpus/config fuzz/corpus/trace_file
for f in crates/flashgc-core/presets/*.toml; do cp "$f" "fuzz/corpus/config/$(basename "$f")"; done
i=0
for f in crates/flashgc-trace/tests/data/*; do
  [ -f "$f" ] || continue
  # byte 0 = format index (15 = auto-detect), byte 1 = plain-text suffix
  { printf '\x0f\x00'; head -c 65536 "$f"; } > "fuzz/corpus/trace_file/seed$i"; i=$((i+1))
done
for t in config trace_file; do
  echo "== fuzzing $t for ${secs}s"
  (cd fuzz && cargo +nightly fuzz run "$t" -- -max_total_time="$secs" -rss_limit_mb=4096 -print_final_stats=1 2>&1 | tail -15) || true
  for c in fuzz/fuzz/artifacts/"$t"/* fuzz/artifacts/"$t"/*; do
    [ -f "$c" ] && cp "$c" "fuzz/regressions/$t/" && echo "new regression case: $c"
  done
done
