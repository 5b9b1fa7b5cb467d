#!/usr/bin/env bash
# Simulation speed side by side: MQSim and flashgc on MQSim's matched device of issue 15
# (1 channel x 1 chip x 1 die x 1 plane x 1024 blocks x 256 pages x 4 KiB, 75 / 750 / 3800 us,
# 333 MT/s, OP 7 % of physical, greedy GC, page mapping in DRAM, no write cache), 4 KiB
# uniform random writes, closed loop at QD 8; flashgc first come first served, and with
# read-first and the firmware CPU model on. One alternating loop over the simulators and
# three run lengths; the steady-state rate is the difference of two run lengths (MQSim
# starts from an empty device: its steady window is 2 M -> 3 M host requests; flashgc
# preconditions itself: 0.3 M -> 3 M). CPU time = user + sys of each run. BENCHMARKS.md
# ("MQSim side by side") has the figures and the caveats.
#
# MQSim: git clone https://github.com/CMU-SAFARI/MQSim && make -C MQSim -j2 (no patch
# needed at 7ec40e3). MQSim's own preconditioning is off: at 90-100 % occupancy it
# deadlocks on this device.
#
# Usage: bash scripts/bench-mqsim/run.sh MQSIM_BINARY [FLASHGC_BINARY] [ROUNDS]
# (defaults: target/release/flashgc, 4 rounds, about 12 minutes; NS="3000000 2000000 300000"
# sets the run lengths). Writes runs.csv and summary.md into $OUT (default: a new temporary
# directory, printed).
set -euo pipefail
MQSIM=$(realpath "${1:?usage: run.sh MQSIM_BINARY [FLASHGC_BINARY] [ROUNDS]}")
FG=$(realpath "${2:-target/release/flashgc}")
ROUNDS=${3:-4}
NS=${NS:-"3000000 2000000 300000"}
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d)}
W=$OUT/work
mkdir -p "$W"
echo "results in $OUT" >&2
for n in $NS; do sed "s/@N@/$n/" "$D/workload-template.xml" > "$W/wl-$n.xml"; done
export D W OUT MQSIM FG ROUNDS NS
python3 - <<'PY'
import os, re, json, subprocess, resource, csv
D, W, OUT, MQ, FG = (os.environ[k] for k in ('D', 'W', 'OUT', 'MQSIM', 'FG'))
R = int(os.environ['ROUNDS'])
NS = [int(x) for x in os.environ['NS'].split()]
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime
def mqsim(n):
    c0 = cpu()
    subprocess.run([MQ, '-i', f'{D}/ssdconfig-matched.xml', '-w', f'{W}/wl-{n}.xml'], cwd=W,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    c = cpu() - c0
    x = open(f'{W}/wl-{n}_scenario_1.xml').read()
    g = lambda pat: re.search(pat, x).group(1)
    return c, dict(req=int(g(r'<Request_Count>(\d+)<')),
                   programs=int(g(r'Issued_Flash_Program_CMD="(\d+)"')), erases=int(g(r'Issued_Flash_Erase_CMD="(\d+)"')),
                   lat_us=float(re.search(r'<Device_Response_Time>(\d+)<', x).group(1)))
def flashgc(n, cfg, extra):
    c0 = cpu()
    o = subprocess.run([FG, 'fio', '--preset', 'mqsim-default', '--config', f'{D}/{cfg}', '--rw', 'randwrite',
                        '--bs', '4k', '--iodepth', '8', '--data-gb', f'{n*4096/1e9:g}', '--json'] + extra,
                       stdout=subprocess.PIPE, check=True).stdout
    c = cpu() - c0
    r = json.loads(o)[0]; t = r['timing']
    return c, dict(req=t['requests'], programs=r['total']['flash_programs'], erases=r['total']['erases'],
                   lat_us=t['write_latency']['mean_us'])
SIMS = [('mqsim', lambda n: mqsim(n)),
        ('flashgc-fcfs', lambda n: flashgc(n, 'matched.toml', [])),
        ('flashgc-on', lambda n: flashgc(n, 'matched.toml', ['--scheduler', 'read-first', '--cpu-cost', 'on'])),
        ('flashgc-fcfs-gclow10', lambda n: flashgc(n, 'matched-gclow10.toml', []))]
with open(f'{OUT}/runs.csv', 'w', newline='') as f:
    w = csv.writer(f); w.writerow(['round', 'sim', 'requests', 'cpu_s', 'flash_programs', 'erases', 'mean_write_lat_us'])
    for rd in range(1, R + 1):
        for name, fn in SIMS:
            for n in NS:
                c, m = fn(n)
                assert m['req'] == n, (name, n, m)
                w.writerow([rd, name, n, f'{c:.4f}', m['programs'], m['erases'], f"{m['lat_us']:.1f}"]); f.flush()
                print(rd, name, n, f'{c:.3f}s', m, flush=True)
PY
python3 "$D/summarize.py" "$OUT/runs.csv" | tee "$OUT/summary.md"
