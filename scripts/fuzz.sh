#!/usr/bin/env bash
# Runs each fuzz target for a bounded time, one after the other, one job each (not part of
# CI): needs a nightly toolchain and cargo-fuzz (`rustup toolchain install nightly`,
# `cargo install cargo-fuzz`). Seeds the corpora from the repository's own inputs (presets,
# spec strings, the test traces and their .fgt conversions); crashes, timeouts and
# out-of-memory inputs found are moved to fuzz/regressions/<target>/, which CI replays
# (crates/flashgc-trace/tests/fuzz_regressions.rs).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 300 s; all targets)
#
# Build: release with debug assertions (overflow checks on), no sanitizer: the readers are
# safe Rust working on memory, so AddressSanitizer would only slow them down
# (FLASHGC_FUZZ_SANITIZER=address to use it anyway). The corpora in fuzz/corpus are kept
# between runs, so a second run starts from the coverage of the first.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-300}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config trace_text trace_fgt checkpoint)
san="${FLASHGC_FUZZ_SANITIZER:-none}"

mkdir -p fuzz/corpus/config fuzz/corpus/trace_text fuzz/corpus/trace_fgt fuzz/corpus/checkpoint
# Checkpoints: byte 0 = policy case, byte 1 = section, then 6-byte mutations (see
# crates/flashgc-core/src/checkpoint/fuzzing.rs); one seed per case and section.
for c in $(seq 0 17); do
  for s in 0 1 2 3 4 5 6 7; do
    printf "$(printf '\\x%02x\\x%02x' "$c" "$s")\x10\x00\x00\x00\x01\x00" > "fuzz/corpus/checkpoint/seed-$c-$s"
  done
done
for f in crates/flashgc-core/presets/*.toml; do cp "$f" "fuzz/corpus/config/$(basename "$f")"; done
# Spec strings: `!WORKLOAD\nPLACEMENT\nVICTIM` on a small device.
i=0
for s in 'uniform\nsingle\ngreedy' 'zipf:0.99\nsup-gc\nd-choices:d=8' \
  'hotcold:80/20\ndac\ncost-benefit:formula=sqrt' 'seq\nsingle\nfifo' \
  'zipf:1.2\nsingle\nwindowed-greedy:w=16' 'uniform\nsingle\nrandom' \
  'zipf:0.9\nsepbit:group1=4\ncost-benefit' 'uniform\nmida:group1=3\ngreedy'; do
  printf "!$s" > "fuzz/corpus/config/spec$i"; i=$((i+1))
done
i=0
for f in crates/flashgc-trace/tests/data/*; do
  [ -f "$f" ] || continue
  # byte 0 = format slot (0 = auto-detect), byte 1/2 = options (see fuzzing::trace)
  for opts in '\x00\x00' '\x02\x00' '\x04\x00' '\x48\x10' '\x30\x2c'; do
    { printf "\\x00$opts"; head -c 8192 "$f"; } > "fuzz/corpus/trace_text/seed$i"; i=$((i+1))
  done
done
# Column-map format taken from the first line (the last format slot, 17).
printf '\x11\x00\x00csv:ts=1,op=2,offset=3,size=4,volume=5,ts_unit=ms,write=W|w\n1,W,0,4096,a\n2,R,4096,8192,b\n' \
  > fuzz/corpus/trace_text/colmap
bin="${FLASHGC_BIN:-${CARGO_TARGET_DIR:-target}/release/flashgc}"
[ -x "$bin" ] || cargo build --release --locked -p flashgc-cli
i=0
tmp=$(mktemp -d)
for f in crates/flashgc-trace/tests/data/*; do
  if "$bin" trace convert "$f" -o "$tmp/t.fgt" > /dev/null 2>&1; then
    { printf '\x00'; cat "$tmp/t.fgt"; } > "fuzz/corpus/trace_fgt/seed$i"; i=$((i+1))
  fi
done
rm -rf "$tmp"

# The fuzz workspace builds into fuzz/target (its own flags), whatever CARGO_TARGET_DIR says.
unset CARGO_TARGET_DIR
(cd fuzz && cargo +nightly fuzz build -s "$san")
for t in "${targets[@]}"; do
  echo "== fuzzing $t for ${secs}s"
  mkdir -p fuzz/artifacts
  log="fuzz/artifacts/$t.log"
  (cd fuzz && cargo +nightly fuzz run -s "$san" "$t" -- -max_total_time="$secs" -rss_limit_mb=4096 \
    -max_len=16384 -timeout=10 -print_final_stats=1) > "$log" 2>&1 || true
  # The summary: coverage at start and end, final statistics, and any failure.
  grep -a -E 'INITED|DONE|stat::|panicked|SUMMARY|Test unit written|^  (left|right)' "$log" || true
  for c in fuzz/artifacts/"$t"/*; do
    [ -f "$c" ] || continue
    mkdir -p "fuzz/regressions/$t"
    mv "$c" "fuzz/regressions/$t/" && echo "new regression case: fuzz/regressions/$t/$(basename "$c") (rename it after what it found)"
  done
done
