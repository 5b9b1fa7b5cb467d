#!/usr/bin/env bash
# Prints one checksum per deferred-commit configuration (priority schedulers, suspend,
# CPU cost, mapping and write caches, GC modes, copyback, fio jobs, NoC, round-robin with
# channel back-fill) of the given flashgc binary, so that a change meant to make deferred
# commit faster can be shown to change no result: run it with the binary before and after
# and diff the outputs. The JSON is compared without its memory and wall-clock fields.
# Usage: bash scripts/deferred-identity.sh target/release/flashgc > before.txt
set -euo pipefail
F=${1:?usage: deferred-identity.sh FLASHGC_BINARY}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# MQSim's matched device of issue 15 (docs/controller.md).
M=$dir/matched.toml
printf '[device]\nchannels = 1\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = 1\nblocks_per_plane = 1024\npages_per_block = 256\npage_size = 4096\nlpn_size = 4096\nsegment_blocks = 1\n[device.timing]\nread_us = 75.0\nprogram_us = 750.0\nerase_us = 3800.0\nchannel_mb_s = 333.0\n[ftl]\nop_of_physical = 0.07\n' > "$M"
strip() { python3 "$(dirname "$0")/json-digest.py"; }
R="run --timing --logical-gib 0.25 --workload zipf:0.8 --read-ratio 0.3 --write-volume 0.5 --json"
C="run --timing --preset mqsim-default --blocks-per-plane 16 --workload uniform --write-volume 0.3 --json"
# Segments striped over 16 planes: many resources with waiting host operations at once.
S="run --timing --preset mqsim-default --blocks-per-plane 32 --segment-blocks 16 --workload zipf:0.9 --read-ratio 0.4 --write-volume 0.08 --json"
FIO="fio --preset mqsim-default --config $M --bs 4k --json"
i=0
while read -r args; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  printf '%2d %s  %s\n' "$i" "$("$F" $args | strip)" "${args//$dir\//}"
done <<EOT
$R --scheduler read-first
$R --scheduler read-first --suspend on
$R --scheduler host-first --suspend on --cpu-cost on
$R --scheduler noc-priority
$R --scheduler read-first --suspend on --mapping-cache 64k
$R --scheduler read-first --gc-mode preemptible
$R --scheduler read-first --suspend on --gc-mode background
$R --scheduler read-first --cache-mib 16
$R --scheduler host-first:urgency=8 --gc-mode preemptible --suspend on
$C --scheduler read-first --suspend on
$C --scheduler read-first --suspend on --cpu-cost on --copyback on
$FIO --rw randrw --rwmixwrite 30 --iodepth 8 --data-gb 0.5 --scheduler read-first
$FIO --rw randwrite --iodepth 8 --data-gb 0.5 --scheduler read-first --suspend on
$FIO --rw randrw --rwmixwrite 30 --iodepth 4 --numjobs 3 --data-gb 0.3 --scheduler read-first --suspend on
noc --profile cassandra --path both --requests 20000 --scheduler noc-priority --json
$R --scheduler read-first --suspend on --alloc round-robin --channel backfill
$S --scheduler read-first --suspend on
$S --scheduler host-first:urgency=8 --cpu-cost on --alloc first-idle
EOT
