"""papers/bf-gc.txt: BF-GC against Cosmos+ and MHF-Optimized on the Cosmos+ OpenSSD, fio
randrw at 1-99 % writes, 300 GB after a 1 TB warm-up (Figs. 5-9).

Each case is a fio job file of two groups: the warm-up (random writes, or the measured job
itself) and, after a `stonewall`, the measured randrw job; the metrics count from the
series point at the warm-up's end, which falls exactly on its last request."""

from __future__ import annotations

import hashlib
import os
from typing import Any

from ..claims import Missing
from ..runner import Case, Need
from .common import CONFIGS, Paper, fio_metrics
from .sup_gc import COSMOS_BUFFER_MIB_PER_DIE, DIES, RATIOS

WARMUP_GB = 1000.0  # "writing and erasing 1TB of data" (Sec. 4.3)
MEASURED_GB = 300.0  # "performance testing continues with 300 GB of data"
POINT_GB = 100.0  # the figures' points: 100, 200, 300 GB
JOBS = 10  # "10 concurrent jobs" (Sec. 4.2), the warm-up's too
BS = 4096  # "4KB block size"
# The paper's device, as `flashgc fio --paper` scales it (workload/fio.rs `PaperSeries`):
# Cosmos+ 8 ch x 8 ways x 8192 blocks x 128 pages x 16 KiB = 1 TiB raw, op 0.07.
PAPER_LOGICAL_BYTES = int(float(8 * 8 * 8192 * 128 * 16384) / 1.07)
MEASURED = "measured"  # the measured job's section: its flows are measured.0 ...
WARMUPS = ("randwrite", "same-job")


def point_bytes(logical_bytes: int) -> int:
    """Host bytes between two series points (the paper's 100 GB scaled to this device),
    rounded to whole requests of every job (10 jobs x 4 KiB), so that the warm-up (10
    points) and the measured phase (3) are whole requests per job and the warm-up's last
    request is the one that reaches its series point."""
    unit = JOBS * BS
    return max(1, round(POINT_GB * 1e9 * logical_bytes / PAPER_LOGICAL_BYTES / unit)) * unit


def job_file(s: dict, writes: int, point: int) -> str:
    """The fio job file of one write ratio: warm-up, then (stonewall) the measured job."""
    if s["warmup"] not in WARMUPS:
        raise ValueError(f"warmup `{s['warmup']}`: allowed {', '.join(WARMUPS)}")
    dist = "random" if s["dist"] == "uniform" else s["dist"]
    warm = ["rw=randwrite"] if s["warmup"] == "randwrite" else ["rw=randrw", f"rwmixwrite={writes}"]

    def per_job(gb: float) -> int:
        return int(gb / POINT_GB) * point // JOBS

    lines = [
        f"; flashgc reproduce bf-gc: {writes} % writes (papers/bf-gc.txt Sec. 4.3). Volumes in bytes",
        f"; of this device: {point} bytes per {POINT_GB:g} paper-equivalent GB.",
        "[global]",
        "ioengine=libaio",
        f"bs={BS}",
        f"iodepth={s['iodepth']}",
        f"numjobs={JOBS}",
        f"random_distribution={dist}",
        # Drawn with replacement as `flashgc fio --paper` draws (fio's random map would visit
        # each block once per pass).
        "norandommap",
        "",
        f"; warm-up: {WARMUP_GB:g} GB-equivalent ({s['warmup']})",
        "[warmup]",
        *warm,
        f"io_size={per_job(WARMUP_GB)}",
        "",
        f"; measured: {MEASURED_GB:g} GB-equivalent, after every warm-up request has completed",
        f"[{MEASURED}]",
        "stonewall",
        "rw=randrw",
        f"rwmixwrite={writes}",
        f"io_size={per_job(MEASURED_GB)}",
        "",
    ]
    return "\n".join(lines)


def mhf_optimized_name(caps: Any) -> tuple:
    for n in ("mhf-optimized", "mhf-opt"):
        if n in caps.placements:
            return n, None
    return "mhf-optimized", Need(
        "placement:mhf-optimized", "the MHF-Optimized baseline (issue 16; `mhf` is the 2006 original)"
    )


class BfGc(Paper):
    name = "bf-gc"
    title = "BF-GC (2025)"
    platform = (
        "Cosmos+ FPGA OpenSSD as in sup-gc (same group, same board), scaled the same way. The paper writes 1 TB "
        "to reach a steady state, then measures 300 GB; here, after a full sequential precondition, a fio job "
        "file runs the warm-up as its own phase (random 4 KiB writes, 10 jobs, 1000 GB paper-equivalent; "
        "`warmup = same-job`: the measured job itself) and then, after a stonewall, the measured randrw job "
        "for 300 GB; every metric counts from the warm-up's end."
    )
    params = {
        "dist": "fio offset distribution (not stated: fio's default is uniform)",
        "cache_per_die_mib": "write cache, MiB per die (Cosmos+: 0.25)",
        "blocks_per_plane": "blocks per die (device size: 32 -> 128 segments of 16 MiB)",
        "op": "over-provisioning (reserve; not stated)",
        "bf_reset": "BF-GC filter reset period, x logical capacity (the paper's 'time threshold' has no value)",
        "iodepth": "fio iodepth per job (not stated; fio's default 1)",
        "cpu_cost": "firmware CPU cost model (docs/cpu.md; the board's cores run the filters' hashing)",
        "warmup": "the 1 TB warm-up's job: randwrite (the paper's 'writing and erasing') or same-job (the randrw)",
    }

    def settings(self, scale: str) -> dict:
        return {
            "blocks_per_plane": 128 if scale == "full" else 32,
            "dist": "uniform",
            "cache_per_die_mib": COSMOS_BUFFER_MIB_PER_DIE,
            "op": 0.07,
            "bf_reset": 1.0,
            "iodepth": 1,
            "cpu_cost": "on",
            "warmup": "randwrite",
            "seed": 1,
        }

    def sensitivity(self, scale: str) -> dict:
        if scale == "quick":
            # The device size (128 -> 512 segments: BF-GC's sign against Cosmos+ flipped with it
            # in issue 17's first look) and the write cache.
            return {"blocks_per_plane": [128], "cache_per_die_mib": [0.0]}
        return {
            "cpu_cost": ["off"],
            "dist": ["zipf:0.6", "zipf:0.8", "zipf:1.0"],
            "cache_per_die_mib": [0.0, 1.0],
            "blocks_per_plane": [32, 64, 256],
            "op": [0.15, 0.28],
            "bf_reset": [0.25, 4.0],
            "iodepth": [4],
            "warmup": ["same-job"],
        }

    def sensitivity_filter(self, key: str, scale: str) -> bool:
        """Every case runs at every sweep point."""
        return True

    def cases(self, s: dict, caps: Any) -> list:
        cache_mib = s["cache_per_die_mib"] * DIES
        cpu = s.get("cpu_cost", "off") == "on"
        cpu_need = [Need("feature:cpu-cost", "the firmware CPU model (--cpu-cost, issue 15)")] if cpu else []
        device = [
            "--preset",
            "cosmos-openssd",
            "--config",
            os.path.join(CONFIGS, "cosmos-real-blocks.toml"),
            "--blocks-per-plane",
            str(s["blocks_per_plane"]),
            "--op",
            str(s["op"]),
        ]
        point = point_bytes(caps.logical_bytes(device))
        base = [
            "fio",
            *device,
            "--seed",
            str(s["seed"]),
            # Exact decimal GB: the points fall on whole requests (point_bytes).
            "--checkpoint-gb",
            f"{point // 10**9}.{point % 10**9:09d}",
            *(["--cache-mib", f"{cache_mib:g}"] if cache_mib > 0 else []),
            *(["--cpu-cost", "on"] if cpu else []),
        ]
        warm_need = Need("feature:fio-warmup", caps.FEATURES["fio-warmup"][1])
        mhf, mhf_need = mhf_optimized_name(caps)
        bf = "bf-gc" if s["bf_reset"] == 1.0 else f"bf-gc:reset={s['bf_reset']:g}"
        schemes = {
            "cosmos": (["--placement", "single", "--victim", "greedy"], [], "Cosmos+: page-mapped, greedy, one stream"),
            "bf-gc": (["--placement", bf, "--victim", "greedy"], [], "BF-GC: 8-hash Bloom filter, 3 levels"),
            "mhf-opt": (["--placement", mhf, "--victim", "greedy"], [mhf_need] if mhf_need else [], "MHF-Optimized"),
        }
        jobs = {}
        for w in RATIOS:
            text = job_file(s, w, point)
            jobs[w] = (f"bf-gc-w{w}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.fio", text)
        out = []
        for scheme, (args, needs, note) in schemes.items():
            for w in RATIOS:
                fig = {1: "Fig. 5", 25: "Fig. 6", 50: "Fig. 7", 75: "Fig. 8", 99: "Fig. 9"}[w]
                name, text = jobs[w]
                out.append(
                    Case(
                        f"w{w}/{scheme}",
                        fig,
                        "fio",
                        [*base, "--job", name, *args, "--json"],
                        {"scheme": scheme, "series": f"w{w}", "writes": w, "gb_bytes": point / POINT_GB},
                        [warm_need, *needs, *cpu_need],
                        note,
                        {name: text},
                    )
                )
        return out

    def metrics(self, case: Case, raw: Any) -> dict:
        try:
            return fio_metrics(raw, offset_gb=WARMUP_GB, gb_bytes=case.labels["gb_bytes"], phase=MEASURED)
        except ValueError as e:
            raise Missing(f"{case.key}: {e}") from e

    def notes(self, s: dict) -> list:
        return [
            f"Workload: a fio job file, 4 KiB, 10 jobs x iodepth {s['iodepth']}, offsets {s['dist']} drawn with "
            f"replacement (norandommap, as `flashgc fio --paper`); warm-up ({s['warmup']}): 1000 GB, then after a "
            "stonewall the measured randrw job: 300 GB (volumes in paper-equivalent GB, within 0.1 %). The paper "
            "gives the warm-up's volume only: random writes (its 'writing and erasing' to reach GC's steady "
            "state) of the measured job's block size and jobs are flashgc's choice; `same-job` is the sweep.",
            "Every metric (IOPS, bandwidth, latencies, erases, GC page moves, series) is of the measured "
            "phase: from the series point at the warm-up's last request, and from the measured job's flows.",
            "The paper's MHF-Optimized keeps MHF's multiple hash functions and one Bloom filter and 'updated other "
            "outdated design concepts' without saying which.",
            f"Firmware CPU model {s.get('cpu_cost', 'off')} (--cpu-cost, docs/cpu.md): the filters' hashing per "
            "write takes controller time, as on the board.",
        ]
