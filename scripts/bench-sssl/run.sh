#!/usr/bin/env bash
# Simulation speed and WAF side by side: sssl-ftlsim (Peter Desnoyers' C simulator,
# github pjd-nu/sssl-ftlsim) and flashgc's WAF-only core, on BRIEF.md's setting: uniform
# random single-page writes, greedy, one write frontier shared by user and GC writes,
# 256 pages per segment, op 0.07 (16 GiB logical = 4 Mi LPNs; LOGICAL_GIB=128 for 32 Mi).
#
# The peer's source is never committed: give the directory of a checkout
# (git clone https://github.com/pjd-nu/sssl-ftlsim). Its C core is SWIG-wrapped for
# Python; driver.c here makes the calls its greedy-high.py makes, from C (see driver.c),
# and Python.h here stands in for the Python API the core names (no callback is set).
# Peer build: gcc $PEER_CFLAGS (default -O3 -fwrapv -DNDEBUG, the optimisation its README's
# `CFLAGS=-O3 python setup.py build` gives; no -fPIC, so the peer may inline more than in
# its Python module, which can only favour it; no -march=native, as setup.py and flashgc's
# release profile).
#
# Same device in both: flashgc `run --logical-gib G --op 0.07` fixes the logical pages L
# and S segments with GC below gc_low = 2 free; the peer gets the same L (its uniform
# generator's range) and T = S - gc_low + MINFREE segments with MINFREE reserved
# (greedy-high.py's minfree = Np by default), so both keep the same written pages at each
# victim choice: the same effective alpha, which both report (driver.c samples it the way
# flashgc does). Both fill (flashgc: the logical pages in order; the peer: greedy-high.py's
# fill), then WARMUP x L uniform writes, then WINDOW x L measured.
#
# Speed: one alternating loop (the order flips each round) over both simulators and two
# run lengths, fill + WARMUP (short) and fill + WARMUP + WINDOW (long); CPU = user + sys of
# each process (wait4); rate = flash programs of the window (long - short, both runs
# deterministic with the same seed) / (median CPU long - median CPU short), so the fill,
# the warm-up and set-up cancel. WAF: the window's, of each, beside Desnoyers' Eq. 12 at
# each one's effective alpha (computed by summarize.py, not by flashgc).
#
# Usage: bash scripts/bench-sssl/run.sh SSSL_SRC_DIR [FLASHGC_BINARY] [ROUNDS]
# (defaults: target/release/flashgc, 3 rounds; a round takes about 2 CPU-minutes at 16 GiB,
# 17 at 128 GiB with WINDOW=5; the peer needs 85 MiB and 665 MiB, flashgc 42 and 282 MiB).
# Environment: LOGICAL_GIB (16), WARMUP (10), WINDOW (10), SEED (1), MINFREE (256),
# PEER_CFLAGS, PEER_HUGEPAGES (0; 1 runs the peer with GLIBC_TUNABLES=glibc.malloc.hugetlb=1,
# glibc >= 2.35: its large callocs get transparent huge pages, as flashgc's tables do with
# madvise), OUT (default: a new temporary directory). Writes runs.csv, env.txt and
# summary.md into $OUT. Exit 2: a missing or incomplete peer directory or binary.
set -euo pipefail
usage="usage: run.sh SSSL_SRC_DIR [FLASHGC_BINARY] [ROUNDS]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
[ -d "$1" ] || { echo "run.sh: $1: not a directory (SSSL_SRC_DIR, a checkout of pjd-nu/sssl-ftlsim)" >&2; exit 2; }
SSSL=$(realpath "$1")
for f in ftlsim.c ftlsim.h getaddr.c getaddr.h; do
  [ -f "$SSSL/$f" ] || { echo "run.sh: $SSSL lacks $f: not an sssl-ftlsim source directory" >&2; exit 2; }
done
FG=${2:-target/release/flashgc}
[ -x "$FG" ] || { echo "run.sh: $FG: no such executable (FLASHGC_BINARY)" >&2; exit 2; }
FG=$(realpath "$FG")
ROUNDS=${3:-3}
case $ROUNDS in '' | *[!0-9]* | 0) echo "run.sh: ROUNDS must be a positive integer, got '$ROUNDS'" >&2; exit 2 ;; esac
PEER_HUGEPAGES=${PEER_HUGEPAGES:-0}
case $PEER_HUGEPAGES in 0 | 1) ;; *) echo "run.sh: PEER_HUGEPAGES must be 0 or 1, got '$PEER_HUGEPAGES'" >&2; exit 2 ;; esac
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d)}
W=$OUT/work
mkdir -p "$W"
echo "results in $OUT" >&2

# Build the peer with the driver (the peer's own warnings are in code the driver never calls:
# do_ftl_write's pointer casts, the null pool's error stubs; they go to build.log).
PEER_CFLAGS=${PEER_CFLAGS:-"-O3 -fwrapv -DNDEBUG"}
read -r -a cflags <<< "$PEER_CFLAGS"
gcc "${cflags[@]}" -I"$D" -I"$SSSL" -o "$W/sssl-driver" \
  "$D/driver.c" "$SSSL/ftlsim.c" "$SSSL/getaddr.c" 2> "$W/build.log" ||
  { cat "$W/build.log" >&2; echo "run.sh: building the peer with driver.c failed" >&2; exit 1; }

peer_commit=$(git -C "$SSSL" rev-parse HEAD 2> /dev/null || echo "${SSSL_COMMIT:-unknown (not a git checkout; set SSSL_COMMIT)}")
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "uptime at start: $(uptime)"
  echo "sssl-ftlsim: $SSSL, commit $peer_commit"
  echo "sssl-ftlsim sources (sha256): $(cd "$SSSL" && sha256sum ftlsim.c ftlsim.h getaddr.c getaddr.h | awk '{printf "%s %s  ", substr($1, 1, 12), $2}')"
  echo "peer build: gcc $PEER_CFLAGS ($(gcc --version | head -1)); peer huge pages: $PEER_HUGEPAGES"
  echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2> /dev/null || echo '?')"
  echo "flashgc: $FG ($("$FG" --version 2> /dev/null || echo '?'); git $(git -C "$D" rev-parse --short HEAD 2> /dev/null || echo '?'))"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
} > "$OUT/env.txt"

export W OUT FG ROUNDS PEER_HUGEPAGES
export LOGICAL_GIB=${LOGICAL_GIB:-16} WARMUP=${WARMUP:-10} WINDOW=${WINDOW:-10}
export SEED=${SEED:-1} MINFREE=${MINFREE:-256} NP=256 OP=0.07
python3 - << 'PY'
import csv, json, os, subprocess
E = os.environ
W, OUT, FG = E['W'], E['OUT'], E['FG']
R, NP, MINFREE, SEED = int(E['ROUNDS']), int(E['NP']), int(E['MINFREE']), int(E['SEED'])
WARMUP, WINDOW = float(E['WARMUP']), float(E['WINDOW'])
FG_ARGS = [FG, 'run', '--logical-gib', E['LOGICAL_GIB'], '--op', E['OP'], '--pages-per-block', str(NP),
           '--segment-blocks', '1', '--workload', 'uniform', '--placement', 'single', '--victim', 'greedy',
           '--seed', str(SEED), '--json']

PEER_ENV = dict(os.environ, GLIBC_TUNABLES='glibc.malloc.hugetlb=1') if E['PEER_HUGEPAGES'] == '1' else None

def measure(argv, env=None):
    """Runs argv; returns its stdout, CPU seconds (user + sys) and peak RSS (KiB) of that process alone."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f'run.sh: {argv[0]} exited with {p.returncode}: {" ".join(argv)}')
    return out, ru.ru_utime + ru.ru_stime, ru.ru_maxrss

# The device flashgc builds for these flags (a short run, not timed).
probe = json.loads(measure(FG_ARGS + ['--write-volume', '0.001', '--warmup', '0'])[0])['device']
if probe['gc_high'] != probe['gc_low']:
    raise SystemExit(f"run.sh: flashgc's gc_high {probe['gc_high']} != gc_low {probe['gc_low']}: the peer cleans to one watermark")
L, S = probe['logical_pages'], probe['segments']
T = S - probe['gc_low'] + MINFREE
with open(f'{OUT}/env.txt', 'a') as f:
    f.write(f"device: {L} logical pages, {NP} pages/segment; flashgc {S} segments, gc_low {probe['gc_low']}; "
            f"sssl-ftlsim T = {T} segments, minfree = maxfree = {MINFREE}\n"
            f"phases: fill, warm-up {WARMUP:g} x logical, window {WINDOW:g} x logical; seed {SEED}\n")

def flashgc(volume):
    out, cpu, rss = measure(FG_ARGS + ['--write-volume', f'{volume:g}', '--warmup', f'{WARMUP:g}'])
    r = json.loads(out); s = r['steady_state']
    assert r['device']['logical_pages'] == L and r['device']['segments'] == S
    return cpu, rss, dict(user=r['total']['user_writes'], programs=r['total']['flash_programs'],
                          window_user=s['user_writes'], window_programs=s['flash_programs'],
                          alpha=s['effective_alpha'])

def sssl(volume):
    out, cpu, rss = measure([f'{W}/sssl-driver', str(L), str(NP), str(T), str(MINFREE), f'{WARMUP:g}',
                             f'{volume - WARMUP:g}', str(SEED)], PEER_ENV)
    r = json.loads(out)
    return cpu, rss, dict(user=r['warmup_user_writes'] + r['measured_user_writes'],
                          programs=r['warmup_programs'] + r['measured_programs'],
                          window_user=r['measured_user_writes'], window_programs=r['measured_programs'],
                          alpha=r['effective_alpha'])

SIMS = [('sssl-ftlsim', sssl), ('flashgc', flashgc)]
LENGTHS = [('short', WARMUP), ('long', WARMUP + WINDOW)]
with open(f'{OUT}/runs.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['round', 'sim', 'length', 'write_volume', 'cpu_s', 'max_rss_kib', 'user_writes', 'flash_programs',
                'window_user_writes', 'window_flash_programs', 'effective_alpha', 'logical_pages', 'segments'])
    for rd in range(1, R + 1):
        for name, fn in (SIMS if rd % 2 else SIMS[::-1]):
            for length, volume in LENGTHS:
                cpu, rss, m = fn(volume)
                w.writerow([rd, name, length, f'{volume:g}', f'{cpu:.3f}', rss, m['user'], m['programs'],
                            m['window_user'], m['window_programs'],
                            '' if m['alpha'] is None else f"{m['alpha']:.9f}", L, T if name == 'sssl-ftlsim' else S])
                f.flush()
                print(f'round {rd} {name} {length}: {cpu:.2f} CPU-s, {rss / 1024:.0f} MiB, {m}', flush=True)
PY
echo "uptime at end: $(uptime)" >> "$OUT/env.txt"
python3 "$D/summarize.py" "$OUT/runs.csv" "$OUT/env.txt" | tee "$OUT/summary.md"
