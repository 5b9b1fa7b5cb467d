#!/usr/bin/env bash
# Memory benchmark (issue 10): the estimate flashgc makes before a run against the peak
# RSS measured after it, at three device sizes (16 GiB, 128 GiB, 1 TiB logical).
# Each run fills the device sequentially and writes 2 % of its capacity at random.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin flashgc >/dev/null
for gib in 16 128 1024; do
  line=$(./target/release/flashgc run --logical-gib "$gib" --op 0.07 --pages-per-block 256 \
           --workload uniform --write-volume 0.02 --warmup 0 | grep '^memory:')
  est=$(echo "$line" | sed -E 's/.*estimated ([0-9.]+) MiB.*/\1/')
  rss=$(echo "$line" | sed -E 's/.*peak RSS ([0-9.]+) MiB.*/\1/')
  python3 -c "e=$est/1024; r=$rss/1024; print(f'{$gib:>5} GiB logical: estimate {e:.3} GiB, peak RSS {r:.3} GiB, estimate/RSS {e/r:.3}')"
done
