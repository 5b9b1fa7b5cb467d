# Summarise runs.csv: CPU per round, medians, windowed steady-state rates, WAF, latency.
import csv, sys, statistics as st
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
cpu = defaultdict(list); last = {}
for r in rows:
    k = (r['sim'], int(r['requests'])); cpu[k].append(float(r['cpu_s'])); last[k] = r
sims = list(dict.fromkeys(r['sim'] for r in rows)); rounds = sorted({int(r['round']) for r in rows})
NL, NM, NS = sorted({int(r['requests']) for r in rows}, reverse=True)
med = lambda s, n: st.median(cpu[(s, n)])
print('## CPU seconds (user+sys) per round\n')
print('| simulator | host requests | ' + ' | '.join(f'round {i}' for i in rounds) + ' | median |')
print('|---|---:|' + '---:|' * (len(rounds) + 1))
for s in sims:
    for n in (NL, NM, NS):
        print(f'| {s} | {n:,} | ' + ' | '.join(f'{c:.3f}' for c in cpu[(s, n)]) + f' | **{med(s, n):.3f}** |')
def win(s, a, b):
    d = med(s, b) - med(s, a); ra, rb = last[(s, a)], last[(s, b)]
    waf = (int(rb['flash_programs']) - int(ra['flash_programs'])) / (b - a)
    lat = (b * float(rb['mean_write_lat_us']) - a * float(ra['mean_write_lat_us'])) / (b - a)
    per_round = st.median((b - a) / (x - y) for x, y in zip(cpu[(s, b)], cpu[(s, a)]))
    return (b - a) / d, per_round, waf, lat
print(f'\n## Windowed rates (host requests per CPU-second)\n')
print(f'rate(a->b) = (b - a) / (median CPU(b) - median CPU(a)); "per-round" = median over rounds of the same ratio. '
      f'WAF and mean write latency are those of the window (from the cumulative counters / means of the two runs).\n')
print('| simulator | window | req/CPU-s | per-round median | window WAF | window mean write latency (ms) | whole-run req/CPU-s (longest run) |')
print('|---|---|---:|---:|---:|---:|---:|')
res = {}
for s in sims:
    for a, b in ((NM, NL), (NS, NL)):
        r, pr, waf, lat = win(s, a, b); res[(s, a)] = r
        print(f'| {s} | {a/1e6:g}M->{b/1e6:g}M | {r:,.0f} | {pr:,.0f} | {waf:.3f} | {lat/1e3:.2f} | {NL/med(s, NL):,.0f} |')
print(f'\n## Steady state: MQSim {NM/1e6:g}M->{NL/1e6:g}M (it starts empty; see BENCHMARKS.md, "MQSim side by side"), flashgc {NS/1e6:g}M->{NL/1e6:g}M (preconditioned)\n')
m = res[('mqsim', NM)]
print(f'* mqsim: {m:,.0f} req/CPU-s')
for s in sims:
    if s != 'mqsim':
        print(f'* {s}: {res[(s, NS)]:,.0f} req/CPU-s = **{res[(s, NS)]/m:.1f}x MQSim** '
              f'(with its own {NM/1e6:g}M->{NL/1e6:g}M window: {res[(s, NM)]/m:.1f}x)')
