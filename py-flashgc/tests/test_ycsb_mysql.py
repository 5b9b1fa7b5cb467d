"""YCSB-A and -F on MySQL for the MiDAS paper's Fig. 11: YCSB's workloads as a sysbench script
(scripts/sysbench/ycsb.lua) on MariaDB over ext4 on the simulated SSD, recorded by
scripts/record-sysbench-mysql.sh --mode ycsb and replayed by `flashgc reproduce midas`.

The end-to-end test records a small run when the machine can (root, /dev/fuse, loop devices,
the packages of scripts/install-app-tools.sh) and says what it skipped otherwise."""

import hashlib
import json
import os
import shutil
import subprocess

import pytest

from flashgc.reproduce.claims import CANNOT
from flashgc.reproduce.core import plan
from flashgc.reproduce.papers import PAPERS
from flashgc.reproduce.papers.common import APP_TRACES_ENV
from flashgc.reproduce.runner import Capabilities, find_binary

from .conftest import ROOT, quick_claims, why_no_simulated_block_device

SCRIPT = os.path.join(ROOT, "scripts", "record-sysbench-mysql.sh")


def _claims(out, app_traces, ids=("F11-warm-mysql",)):
    return quick_claims("midas", out, list(ids), app_traces=str(app_traces))


def test_ycsb_claims_without_a_recording_say_how_to_make_one(tmp_path, monkeypatch):
    monkeypatch.setenv(APP_TRACES_ENV, str(tmp_path))
    res = _claims(tmp_path / "out", tmp_path)
    (c,) = res["claims"]
    assert c["verdict"] == CANNOT and "record-sysbench-mysql.sh --mode ycsb" in c["detail"], c
    assert any(n.startswith("YCSB-A: no recording in") for n in res["notes"]), res["notes"]


def test_a_recorded_ycsb_run_is_replayed_for_fig_11(tmp_path, monkeypatch):
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    why = why_no_simulated_block_device("sysbench", "mkfs.ext4", "mariadb-install-db", mariadbd)
    if why:
        pytest.skip(f"cannot record YCSB on MariaDB on this machine: {why}")
    binary = find_binary()
    traces = tmp_path / "traces"
    args = ["--records", "20000", "--threads", "4", "--time", "4", "--flashgc", binary]
    rec = subprocess.run(
        ["bash", SCRIPT, "-o", str(traces), "--mode", "ycsb", *args], capture_output=True, text=True, timeout=900
    )
    assert rec.returncode == 0, rec.stdout[-3000:] + rec.stderr[-3000:]
    for w in ("a", "f"):
        trace = traces / f"sysbench-mysql-ycsb-{w}.fgt"
        meta = json.loads((traces / f"sysbench-mysql-ycsb-{w}.json").read_text())
        assert meta["sha256"] == hashlib.sha256(trace.read_bytes()).hexdigest()
        assert meta["workload"].startswith(f"YCSB workload {w} ") and meta["table_size"] == 20000, meta
        assert meta["device_flags"] == ["--logical-gib", "1", "--page-size", "4096"], meta
        # sysbench counts every operation as a transaction: half reads, half (read-modify-)writes.
        summary = meta["sysbench_summary"]
        reads = int(summary.split("read:")[1].split()[0])
        writes = int(summary.split("write:")[1].split()[0])
        share = writes / (reads + writes)
        assert (0.4 < share < 0.6) if w == "a" else (0.25 < share < 0.42), (w, reads, writes)
    with open("/proc/mounts", encoding="utf-8") as f:
        assert "flashgc-sysbench" not in f.read()

    # F11-warm-mysql-sim: MiDAS as its authors' simulator runs it (gn_model=greedy, their CB).
    res = _claims(tmp_path / "out", traces, ("F11-warm-mysql", "F11-warm-mysql-sim"))
    claims = {c["id"]: c for c in res["claims"]}
    assert set(claims) == {"F11-warm-mysql", "F11-warm-mysql-sim"}, claims
    # Each value is the change between two replays run here on their own.
    monkeypatch.setenv(APP_TRACES_ENV, str(traces))
    base, _ = plan(PAPERS["midas"], "quick", Capabilities(binary))
    sim = base.cases["ycsb-a-mysql/midas-sim"].argv
    assert any("gn_model=greedy" in a for a in sim) and sim[sim.index("--victim") + 1] == "cost-benefit:sqrt", sim
    for cid, scheme in (("F11-warm-mysql", "midas"), ("F11-warm-mysql-sim", "midas-sim")):
        c = claims[cid]
        assert c["verdict"] != CANNOT, c
        for w in ("a", "f"):
            waf = {}
            for sc in (scheme, "sepbit"):
                case = base.cases[f"ycsb-{w}-mysql/{sc}"]
                p = subprocess.run([binary, *case.argv], capture_output=True, text=True, check=True)
                waf[sc] = json.loads(p.stdout)["steady_state"]["waf"]
            want = (waf[scheme] - waf["sepbit"]) / waf["sepbit"] * 100.0
            assert c["values"][f"ycsb-{w}-mysql"] == pytest.approx(want, rel=1e-9), (c, waf)
