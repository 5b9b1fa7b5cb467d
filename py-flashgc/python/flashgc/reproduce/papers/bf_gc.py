"""papers/bf-gc.txt: BF-GC against Cosmos+ and MHF-Optimized on the Cosmos+ OpenSSD, fio
randrw at 1-99 % writes, 300 GB after a 1 TB warm-up (Figs. 5-9)."""

from __future__ import annotations

import os
from typing import Any

from ..runner import Case, Need
from .common import CONFIGS, Paper, fio_metrics
from .sup_gc import COSMOS_BUFFER_MIB_PER_DIE, DIES, RATIOS

WARMUP_GB = 1000.0  # "writing and erasing 1TB of data" (Sec. 4.3)


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
        "to reach a steady state, then measures 300 GB; here the warm-up is the same fio job for 1000 GB "
        "(paper-equivalent) after a full sequential precondition, and the series and counts start at its end."
    )
    params = {
        "dist": "fio offset distribution (not stated: fio's default is uniform)",
        "cache_per_die_mib": "write cache, MiB per die (Cosmos+: 0.25)",
        "blocks_per_plane": "blocks per die (device size: 32 -> 128 segments of 16 MiB)",
        "op": "over-provisioning (reserve; not stated)",
        "bf_reset": "BF-GC filter reset period, x logical capacity (the paper's 'time threshold' has no value)",
        "iodepth": "fio iodepth per job (not stated; fio's default 1)",
        "cpu_cost": "firmware CPU cost model (docs/cpu.md; the board's cores run the filters' hashing)",
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
        }

    def sensitivity_filter(self, key: str, scale: str) -> bool:
        """Every case runs at every sweep point."""
        return True

    def cases(self, s: dict, caps: Any) -> list:
        cache_mib = s["cache_per_die_mib"] * DIES
        cpu = s.get("cpu_cost", "off") == "on"
        cpu_need = [Need("feature:cpu-cost", "the firmware CPU model (--cpu-cost, issue 15)")] if cpu else []
        base = [
            "fio",
            "--preset",
            "cosmos-openssd",
            "--config",
            os.path.join(CONFIGS, "cosmos-real-blocks.toml"),
            "--blocks-per-plane",
            str(s["blocks_per_plane"]),
            "--op",
            str(s["op"]),
            "--seed",
            str(s["seed"]),
            "--paper",
            "bf-gc",
            "--data-gb",
            f"{WARMUP_GB + 300:g}",
            "--iodepth",
            str(s["iodepth"]),
            "--distribution",
            s["dist"],
            *(["--cache-mib", f"{cache_mib:g}"] if cache_mib > 0 else []),
            *(["--cpu-cost", "on"] if cpu else []),
        ]
        mhf, mhf_need = mhf_optimized_name(caps)
        bf = "bf-gc" if s["bf_reset"] == 1.0 else f"bf-gc:reset={s['bf_reset']:g}"
        schemes = {
            "cosmos": (["--placement", "single", "--victim", "greedy"], [], "Cosmos+: page-mapped, greedy, one stream"),
            "bf-gc": (["--placement", bf, "--victim", "greedy"], [], "BF-GC: 8-hash Bloom filter, 3 levels"),
            "mhf-opt": (["--placement", mhf, "--victim", "greedy"], [mhf_need] if mhf_need else [], "MHF-Optimized"),
        }
        out = []
        for name, (args, needs, note) in schemes.items():
            for w in RATIOS:
                fig = {1: "Fig. 5", 25: "Fig. 6", 50: "Fig. 7", 75: "Fig. 8", 99: "Fig. 9"}[w]
                out.append(
                    Case(
                        f"w{w}/{name}",
                        fig,
                        "fio",
                        [*base, "--rwmixwrite", str(w), *args, "--json"],
                        {"scheme": name, "series": f"w{w}", "writes": w},
                        needs + cpu_need,
                        note,
                    )
                )
        return out

    def metrics(self, case: Case, raw: Any) -> dict:
        return fio_metrics(raw, offset_gb=WARMUP_GB)

    def notes(self, s: dict) -> list:
        return [
            f"Workload: fio randrw 4 KiB, 10 jobs x iodepth {s['iodepth']}, offsets {s['dist']}; 1000 GB of the "
            "same job as warm-up, then 300 GB measured (volumes in paper-equivalent GB).",
            "The paper's MHF-Optimized keeps MHF's multiple hash functions and one Bloom filter and 'updated other "
            "outdated design concepts' without saying which.",
            f"Firmware CPU model {s.get('cpu_cost', 'off')} (--cpu-cost, docs/cpu.md): the filters' hashing per "
            "write takes controller time, as on the board.",
        ]
