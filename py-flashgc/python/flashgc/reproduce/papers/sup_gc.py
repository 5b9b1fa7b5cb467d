"""papers/sup-gc.txt: SUP-GC against Cosmos+, BF-Optimized and GCaR-Optimized on the Cosmos+
OpenSSD, fio randrw at 1-99 % writes over 700 GB (Figs. 13-20)."""

from __future__ import annotations

import os
from typing import Any

from ..runner import Case, Need
from .common import CONFIGS, Paper, app_trace, fio_metrics, recording_note, replay_metrics

RATIOS = (1, 25, 50, 75, 99)
DIES = 8 * 4  # the scaled device: 8 channels x 4 ways (configs/cosmos-real-blocks.toml)
COSMOS_BUFFER_MIB_PER_DIE = 0.25  # Cosmos+ GreedyFTL: 16 data-buffer entries of 16 KiB per die
RECORD_HOW = (
    "record sysbench + MariaDB on the simulated SSD with `sudo bash scripts/record-sysbench-mysql.sh` (root, "
    "/dev/fuse and loop devices; about 5 minutes; packages by scripts/install-app-tools.sh), or point "
    "`--app-traces DIR` at a recording"
)


def bf_optimized_name(caps: Any) -> tuple:
    """The BF-Optimized placement (issue 16) if this build registers one."""
    for n in ("bf-optimized", "bf-opt"):
        if n in caps.placements:
            return n, None
    return "bf-optimized", Need("placement:bf-optimized", "the BF-Optimized baseline (issue 16)")


def gcar_policy(caps: Any) -> tuple:
    """GCaR-Optimized's cache policy: the baselines issue's (with its search cost) if this
    build has it, else GCaR replacement without it (said in the case note)."""
    for n in ("gcar-opt", "gcar-optimized"):
        if caps.has(f"choice:fio:--cache-policy:{n}"):
            return n, ""
    return "gcar", (
        "GCaR-Optimized approximated by GCaR replacement without its cache-search cost "
        "(GCaR-Optimized of issue 16 is not in this build)"
    )


class SupGc(Paper):
    name = "sup-gc"
    title = "SUP-GC (ACM TOS 2025)"
    platform = (
        "Cosmos+ FPGA OpenSSD (Table 1): 8 channels x 8 ways, 8192 blocks of 128 x 16 KiB pages per die, "
        "1 TiB raw, page-mapped greedy FTL with an LRU data buffer of 16 entries per die. Scaled here to 8 "
        "channels x 4 ways with the real 128-page blocks in superblocks of 8 (blocks per die set by the "
        "device size), op 0.07 (not stated), volumes scaled from 1 TiB so that the series reads in the "
        "paper's GB; fio randrw 4 KiB, 10 jobs, iodepth 1 (fio's default; not stated), after a full "
        "sequential precondition; blocking GC."
    )
    params = {
        "dist": "fio offset distribution (not stated: fio's default is uniform)",
        "cache_per_die_mib": "write cache, MiB per die (Cosmos+: 0.25)",
        "blocks_per_plane": "blocks per die (device size: 32 -> 128 segments of 16 MiB)",
        "fill": "precondition fill (share of the logical space)",
        "op": "over-provisioning (reserve; not stated)",
        "iodepth": "fio iodepth per job (not stated; fio's default 1)",
        "gc_mode": "GC scheduling (the paper's firmware: in the write path)",
        "cpu_cost": "firmware CPU cost model (docs/cpu.md; the board's ARM cores run every scheme's work)",
        "cpu_scale": "firmware-core ns per calibrated host ns (not stated: the board's cores are not timed; default 4)",
        "app_iodepth": "requests outstanding in the MySQL traces' closed-loop replay (not stated; the recording's 8 "
        "sysbench threads)",
        "app_volume": "MySQL traces replayed until this many x the logical capacity is written",
    }

    def settings(self, scale: str) -> dict:
        return {
            "blocks_per_plane": 128 if scale == "full" else 32,
            "dist": "uniform",
            "cache_per_die_mib": COSMOS_BUFFER_MIB_PER_DIE,
            "fill": 1.0,
            "op": 0.07,
            "iodepth": 1,
            "gc_mode": "foreground",
            # Every case on the firmware CPU: the paper measures a board whose controller runs
            # BF-Optimized's hashing and GCaR-Optimized's cache search (Figs. 13-14).
            "cpu_cost": "on",
            "cpu_scale": 4.0,
            "app_iodepth": 8,
            "app_volume": 4.0,
            "seed": 1,
        }

    def sensitivity(self, scale: str) -> dict:
        if scale == "quick":
            # The settings behind the findings: the write cache (Cosmos+ has one; 0 and
            # 4x), skew, and the firmware CPU model (on/off, and how fast its cores are).
            return {
                "cache_per_die_mib": [0.0, 1.0],
                "dist": ["zipf:0.8"],
                "cpu_cost": ["off"],
                "cpu_scale": [100.0, 1000.0],
            }
        return {
            "cpu_cost": ["off"],
            "cpu_scale": [40.0, 400.0],
            "dist": ["zipf:0.6", "zipf:0.8", "zipf:1.0"],
            "cache_per_die_mib": [0.0, 1.0, 4.0],
            "blocks_per_plane": [32, 64, 256],
            "fill": [0.8, 0.9],
            "op": [0.15, 0.28],
            "iodepth": [4, 32],
            "gc_mode": ["per-die", "background"],
            "app_iodepth": [1, 32],
        }

    def sensitivity_filter(self, key: str, scale: str) -> bool:
        """Every case runs at every sweep point (a case whose command a parameter leaves unchanged
        is the base point's run, not run again)."""
        return True

    def device(self, s: dict) -> list:
        """The scaled Cosmos+ device, seed and GC scheduling: every case's."""
        return [
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
            "--gc-mode",
            s["gc_mode"],
        ]

    def cpu_flags(self, s: dict) -> list:
        """The firmware CPU model's flags of this setting (none when it is off)."""
        if s.get("cpu_cost", "off") != "on":
            return []
        scale = ["--cpu-scale", f"{s['cpu_scale']:g}"] if s.get("cpu_scale", 4.0) != 4.0 else []
        return ["--cpu-cost", "on", *scale]

    def cases(self, s: dict, caps: Any) -> list:
        base = ["fio", *self.device(s), "--paper", "sup-gc", "--iodepth", str(s["iodepth"]), *self.cpu_flags(s)]
        cpu_need = []
        if s.get("cpu_cost", "off") == "on":
            cpu_need = [Need("feature:cpu-cost", "the firmware CPU model (--cpu-cost, issue 15)")]
        cache_mib = s["cache_per_die_mib"] * DIES
        cache = ["--cache-mib", f"{cache_mib:g}"] if cache_mib > 0 else []
        bf, bf_need = bf_optimized_name(caps)
        gpol, gnote = gcar_policy(caps)
        schemes = {
            "cosmos": (
                ["--placement", "single", "--victim", "greedy", *cache],
                [],
                "Cosmos+: page-mapped, greedy, one stream",
            ),
            "sup-gc": (
                ["--placement", "sup-gc", "--victim", "greedy", *cache],
                [],
                "SUP-GC: user writes hot, GC writes cold",
            ),
            "bf-opt": (["--placement", bf, "--victim", "greedy", *cache], [bf_need] if bf_need else [], "BF-Optimized"),
            "gcar": (
                [
                    "--placement",
                    "single",
                    "--victim",
                    "greedy",
                    "--cache-mib",
                    f"{max(cache_mib, 0):g}",
                    "--cache-policy",
                    gpol,
                ],
                []
                if cache_mib > 0
                else [Need("never", "a write cache (GCaR-Optimized is a cache policy; this setting has none)")],
                "GCaR-Optimized" + (f" ({gnote})" if gnote else ""),
            ),
        }
        out = []
        for name, (args, needs, note) in schemes.items():
            needs = needs + cpu_need
            out.append(
                Case(
                    f"seq/{name}",
                    "Fig. 13",
                    "fio",
                    [*base, "--rw", "write", "--fill", "0", "--data-gb", "100", *args, "--json"],
                    {"scheme": name, "series": "seq"},
                    needs,
                    note + "; sequential writes from empty, no GC",
                )
            )
            for w in RATIOS:
                fig = {1: "Fig. 14", 25: "Fig. 15", 50: "Fig. 16", 75: "Fig. 17", 99: "Fig. 18"}[w]
                out.append(
                    Case(
                        f"w{w}/{name}",
                        fig,
                        "fio",
                        [
                            *base,
                            "--fill",
                            str(s["fill"]),
                            "--rwmixwrite",
                            str(w),
                            "--distribution",
                            s["dist"],
                            *args,
                            "--json",
                        ],
                        {"scheme": name, "series": f"w{w}", "writes": w},
                        needs,
                        note,
                    )
                )
            out += self.mysql_cases(s, name, args, needs, note)
        return out

    def mysql_cases(self, s: dict, name: str, args: list, needs: list, note: str) -> list:
        """Figs. 19-20: the recorded sysbench + MariaDB run (scripts/record-sysbench-mysql.sh)
        replayed closed-loop on the same device, until `app_volume` x its logical capacity is
        written; counts over the whole replay, as the paper's over its whole test."""
        out = []
        for series, fig, mode in (("mysql-w", "Fig. 19", "write-only"), ("mysql-rw", "Fig. 20", "read-write")):
            path, need = app_trace(f"sysbench-mysql-{mode}.fgt", RECORD_HOW)
            argv = [
                "run",
                "--timing",
                *self.device(s),
                "--fill",
                str(s["fill"]),
                "--workload",
                f"trace:{path}",
                "--host",
                "closed",
                "--numjobs",
                "1",
                "--iodepth",
                str(s["app_iodepth"]),
                "--loop-until",
                f"{s['app_volume']:g}",
                *self.cpu_flags(s),
                *args,
                "--json",
            ]
            out.append(
                Case(
                    f"{series}/{name}",
                    fig,
                    "run",
                    argv,
                    {"scheme": name, "series": series},
                    [*needs, need],
                    f"{note}; sysbench oltp_{mode.replace('-', '_')} on MariaDB over ext4, recorded through "
                    f"flashgc serve, replayed closed-loop at QD {s['app_iodepth']}",
                    inputs=[path],
                )
            )
        return out

    def mysql_notes(self, s: dict) -> list:
        """What the Figs. 19-20 cases replayed: each recording's settings from its metadata."""
        notes = [
            "Figs. 19-20: the paper's sysbench + MySQL run (100 tables x 9 M rows after a 1 TB preheat) is not "
            "public; flashgc records one on its own simulated SSD (scripts/record-sysbench-mysql.sh: sysbench "
            "oltp_write_only / oltp_read_write on MariaDB, InnoDB with O_DIRECT, over ext4) and replays the block "
            f"trace closed-loop at QD {s['app_iodepth']} until {s['app_volume']:g} x the logical capacity is "
            "written, after the full precondition (the paper's preheat). Transactions are read as the replay's "
            "IOPS and latency as the mean over reads, writes and flushes: the same stream for every scheme, so "
            "their ratios are the transaction rate's if the database is I/O-bound (it cannot run faster or "
            "slower than the device here)."
        ]

        def describe(m: dict) -> str:
            db = str(m.get("mariadb", "?"))
            db = db.split("Ver ", 1)[-1].split(" for ")[0].strip()  # `mariadbd --version`'s version
            return (
                f"{m['tables']} tables x {m['table_size']} rows, {m['threads']} threads for "
                f"{m['time_s']} s, buffer pool {m['buffer_pool_mib']} MiB, MariaDB {db}"
            )

        for mode in ("write-only", "read-write"):
            notes.append(recording_note(mode, f"sysbench-mysql-{mode}.fgt", RECORD_HOW, describe))
        return notes

    def metrics(self, case: Case, raw: Any) -> dict:
        if case.kind == "run":
            return replay_metrics(raw)
        return fio_metrics(raw)

    def notes(self, s: dict) -> list:
        return [
            f"Workload: fio randrw 4 KiB, 10 jobs x iodepth {s['iodepth']}, offsets {s['dist']} (the paper states "
            "neither the distribution nor the queue depth; it ran fio through ext4).",
            "p99 is that of the request class with more requests in the window (the series carries read and "
            "write percentiles, not the whole histogram).",
            *self.mysql_notes(s),
            f"Firmware CPU model {s.get('cpu_cost', 'off')} (--cpu-cost, docs/cpu.md): BF-Optimized's hashing per "
            "write and GCaR-Optimized's cache search per replacement take controller time, as on the board.",
        ]
