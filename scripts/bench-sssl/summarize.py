# Summarise scripts/bench-sssl/run.sh's runs.csv: CPU per round, windowed flash programs
# per CPU-second, flashgc / sssl-ftlsim, and the window's WAF of both beside Desnoyers'
# Eq. 12 at each one's effective alpha (computed here, independently of flashgc's model).
# Usage: python3 summarize.py runs.csv [env.txt]
import csv
import math
import statistics as st
import sys
from collections import defaultdict

with open(sys.argv[1]) as f:
    rows = list(csv.DictReader(f))
if len(sys.argv) > 2:
    with open(sys.argv[2]) as f:
        print("```text\n" + f.read().rstrip() + "\n```\n")
sims = list(dict.fromkeys(r["sim"] for r in rows))
rounds = sorted({int(r["round"]) for r in rows})
cpu, rss, runs = defaultdict(list), defaultdict(list), {}
for r in rows:
    k = (r["sim"], r["length"])
    cpu[k].append(float(r["cpu_s"]))
    rss[k].append(int(r["max_rss_kib"]))
    prev = runs.setdefault(k, r)
    # Same seed, same configuration: every round must simulate the same writes.
    for c in ("user_writes", "flash_programs", "window_flash_programs"):
        if prev[c] != r[c]:
            sys.exit(
                f"summarize: {k} differs between rounds in {c}: {prev[c]} vs {r[c]}"
            )
np_ = 256


def waf_fifo(alpha):
    """Desnoyers Eq. 4: 1 / (1 - x) with x = exp(-alpha (1 - x)), the root below 1 (bisection)."""
    lo, hi = 0.0, 1.0 - 1e-9
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid - math.exp(-alpha * (1 - mid)) < 0:
            lo = mid
        else:
            hi = mid
    return 1 / (1 - lo)


def waf_greedy(alpha, n):
    """Desnoyers Eq. 12: WAF_FIFO(k alpha) / k, k = 1 + 1 / (2 Np)."""
    k = 1 + 1 / (2 * n)
    return waf_fifo(k * alpha) / k


# BRIEF.md's table, op 0.07: FIFO 7.817, greedy Np=256 7.595.
assert abs(waf_fifo(1.07) - 7.817) < 5e-4 and abs(waf_greedy(1.07, 256) - 7.595) < 5e-4

print("## CPU seconds (user + sys) per run\n")
print(
    "| simulator | run | write volume (x logical, after the fill) | "
    + " | ".join(f"round {i}" for i in rounds)
    + " | median | peak RSS |"
)
print("|---|---|---:|" + "---:|" * (len(rounds) + 2))
for s in sims:
    for ln in ("short", "long"):
        k = (s, ln)
        print(
            f"| {s} | {ln} | {runs[k]['write_volume']} | "
            + " | ".join(f"{c:.2f}" for c in cpu[k])
            + f" | **{st.median(cpu[k]):.2f}** | {max(rss[k]) / 1024:.0f} MiB |"
        )

rate, per_round, waf, alpha = {}, {}, {}, {}
for s in sims:
    short, long_ = runs[(s, "short")], runs[(s, "long")]
    d_programs = int(long_["flash_programs"]) - int(short["flash_programs"])
    if d_programs != int(long_["window_flash_programs"]):
        sys.exit(f"summarize: {s}: the short run is not a prefix of the long one")
    rate[s] = d_programs / (st.median(cpu[(s, "long")]) - st.median(cpu[(s, "short")]))
    per_round[s] = [
        d_programs / (b - a) for a, b in zip(cpu[(s, "short")], cpu[(s, "long")])
    ]
    waf[s] = int(long_["window_flash_programs"]) / int(long_["window_user_writes"])
    alpha[s] = float(long_["effective_alpha"])

print("\n## Flash programs per CPU-second of the measured window\n")
print(
    "rate = window programs / (median CPU long - median CPU short); per round: the same from one round's "
    "two runs. Whole long run: all programs after the fill / median CPU of the long run (fill and set-up "
    "included).\n"
)
print(
    "| simulator | window programs | rate (M/CPU-s) | per round (M/CPU-s) | whole long run (M/CPU-s) |"
)
print("|---|---:|---:|---|---:|")
for s in sims:
    long_ = runs[(s, "long")]
    print(
        f"| {s} | {int(long_['window_flash_programs']):,} | **{rate[s] / 1e6:.2f}** | "
        + ", ".join(f"{x / 1e6:.2f}" for x in per_round[s])
        + f" | {int(long_['flash_programs']) / st.median(cpu[(s, 'long')]) / 1e6:.2f} |"
    )
if set(sims) == {"sssl-ftlsim", "flashgc"}:
    pr = [f / p for f, p in zip(per_round["flashgc"], per_round["sssl-ftlsim"])]
    print(
        f"\n**flashgc / sssl-ftlsim: {rate['flashgc'] / rate['sssl-ftlsim']:.2f}x** by medians "
        f"(per round: {', '.join(f'{x:.2f}' for x in pr)}; BRIEF.md's goal: >= 5x)."
    )

print("\n## WAF of the measured window\n")
print(
    "Eq. 12 at each simulator's own effective alpha (pages written at each victim choice / logical pages).\n"
)
print(
    "| simulator | logical pages | segments | effective alpha | WAF | Eq. 12 | vs Eq. 12 |"
)
print("|---|---:|---:|---:|---:|---:|---:|")
for s in sims:
    m = waf_greedy(alpha[s], np_)
    long_ = runs[(s, "long")]
    print(
        f"| {s} | {int(long_['logical_pages']):,} | {long_['segments']} | {alpha[s]:.6f} | {waf[s]:.4f} | "
        f"{m:.4f} | {(waf[s] - m) / m * 100:+.3f} % |"
    )
if set(sims) == {"sssl-ftlsim", "flashgc"}:
    d = (waf["flashgc"] - waf["sssl-ftlsim"]) / waf["sssl-ftlsim"] * 100
    print(f"\nflashgc vs sssl-ftlsim WAF: {d:+.3f} %.")
