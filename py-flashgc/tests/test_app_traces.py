"""Figs. 19-20 of the sup-gc paper from a real application: sysbench + MariaDB recorded on the
simulated SSD (scripts/record-sysbench-mysql.sh) and replayed by `flashgc reproduce`.

The end-to-end test records a small run when the machine can (root, /dev/fuse, loop devices,
the packages of scripts/install-app-tools.sh, which scripts/test.sh installs) and says what it
skipped otherwise."""

import json
import os
import shutil
import subprocess

import pytest

from flashgc.reproduce import reproduce
from flashgc.reproduce.claims import CANNOT
from flashgc.reproduce.core import plan
from flashgc.reproduce.papers import PAPERS
from flashgc.reproduce.papers.common import APP_TRACES_ENV, replay_metrics
from flashgc.reproduce.runner import Capabilities, Case, find_binary

from .conftest import ROOT, quick_claims, why_no_simulated_block_device

SCRIPT = os.path.join(ROOT, "scripts", "record-sysbench-mysql.sh")
MYSQL_CLAIMS = ["F19-erases", "F19-transactions", "F20-gc-moves"]


@pytest.fixture(scope="module")
def binary():
    return find_binary()


def _quick(out, claims, **kw):
    """The sup-gc result of a quick reproduction of ``claims`` into ``out``."""
    return quick_claims("sup-gc", out, claims, **kw)


def test_run_id_follows_the_content_of_input_files(tmp_path):
    """A trace recorded again under the same name is a new run, not the old one's result."""
    p = tmp_path / "t.fgt"
    p.write_bytes(b"first recording")
    case = Case("k", "Fig. 1", "run", ["run", "--workload", f"trace:{p}", "--json"], inputs=[str(p)])
    first = case.run_id("build")
    assert case.run_id("build") == first
    p.write_bytes(b"second recording, longer")
    assert case.run_id("build") != first
    p.write_bytes(b"first recording")
    os.utime(p, ns=(1, 1))  # same content, another time: the same run
    assert case.run_id("build") == first
    p.unlink()
    assert case.run_id("build") != first


def test_mysql_claims_without_a_recording_say_how_to_make_one(tmp_path, monkeypatch):
    monkeypatch.setenv(APP_TRACES_ENV, str(tmp_path))
    res = _quick(tmp_path / "out", MYSQL_CLAIMS)
    assert res["claims"], res
    for c in res["claims"]:
        assert c["verdict"] == CANNOT, c
        assert "record-sysbench-mysql.sh" in c["detail"] and str(tmp_path) in c["detail"], c["detail"]
    assert any("no recording in" in n for n in res["notes"]), res["notes"]


def test_app_traces_must_be_a_directory(tmp_path, binary, python_exe):
    p = subprocess.run(
        [
            python_exe,
            "-m",
            "flashgc",
            "reproduce",
            "sup-gc",
            "--app-traces",
            str(tmp_path / "nope"),
            "-o",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ, FLASHGC_BIN=binary),
    )
    assert p.returncode == 2 and "--app-traces" in p.stderr and "no such directory" in p.stderr, p.stderr
    with pytest.raises(ValueError, match="no such directory"):
        reproduce("sup-gc", out=str(tmp_path), app_traces=str(tmp_path / "nope"))


def test_record_script_refuses_bad_arguments():
    for args, words in (
        (["--mode", "write"], "--mode must be write-only, read-write, both, ycsb-a, ycsb-f or ycsb"),
        (["--records", "0"], "--records must be a whole number"),
        (["--tables", "0"], "--tables must be a whole number"),
        (["--time", "ten"], "--time must be a whole number"),
        (["--buffer-pool-mib", "4"], "--buffer-pool-mib must be at least 8"),
        (["--bogus"], "unknown argument `--bogus`"),
        (["-o"], "-o needs a directory"),
    ):
        p = subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)


def test_a_recorded_sysbench_run_is_replayed_for_figs_19_20(tmp_path, binary, monkeypatch):
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    why = why_no_simulated_block_device("sysbench", "mkfs.ext4", "mariadb-install-db", mariadbd)
    if why:
        pytest.skip(f"cannot record sysbench + MariaDB on this machine: {why}")
    traces = tmp_path / "traces"
    rec = subprocess.run(
        [
            "bash",
            SCRIPT,
            "-o",
            str(traces),
            "--mode",
            "write-only",
            "--tables",
            "2",
            "--table-size",
            "20000",
            "--threads",
            "4",
            "--time",
            "4",
            "--flashgc",
            binary,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rec.returncode == 0, rec.stdout[-3000:] + rec.stderr[-3000:]
    trace = traces / "sysbench-mysql-write-only.fgt"
    with open(traces / "sysbench-mysql-write-only.json", encoding="utf-8") as f:
        meta = json.load(f)
    import hashlib

    assert meta["sha256"] == hashlib.sha256(trace.read_bytes()).hexdigest()
    assert meta["tables"] == 2 and meta["table_size"] == 20000 and meta["threads"] == 4
    # The database's block stream: writes and reads, and the commits' fsyncs as flushes.
    stats = subprocess.run([binary, "trace", "stats", str(trace)], capture_output=True, text=True, check=True).stdout
    line = next(x for x in stats.splitlines() if x.startswith("requests"))
    writes = int(line.split("writes ")[1].split(",")[0])
    flushes = int(next(x for x in stats.splitlines() if x.startswith("flushes")).split()[1])
    assert writes > 1000 and flushes > 10, stats
    # Nothing is left behind: no loop device over a FUSE file, no mount of the work folder.
    assert "flashgc-sysbench" not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    with open("/proc/mounts", encoding="utf-8") as f:
        assert "flashgc-sysbench" not in f.read()

    # The argument wins over the environment, which it leaves as it was.
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(APP_TRACES_ENV, str(empty))
    res = _quick(tmp_path / "out", ["F19-erases", "F19-transactions"], app_traces=str(traces))
    assert os.environ[APP_TRACES_ENV] == str(empty)
    by_id = {c["id"]: c for c in res["claims"]}
    assert set(by_id) == {f"F19-{m}:{s}" for m in ("erases", "transactions") for s in ("cosmos", "bf-opt", "gcar")}
    assert all(c["verdict"] != CANNOT for c in by_id.values()), by_id
    assert any("SHA-256 " + meta["sha256"][:16] in n for n in res["notes"]), res["notes"]

    # The value is the change between two replays of the trace run here on their own.
    monkeypatch.setenv(APP_TRACES_ENV, str(traces))
    base, _ = plan(PAPERS["sup-gc"], "quick", Capabilities(binary))
    m = {}
    for k in ("mysql-w/sup-gc", "mysql-w/cosmos"):
        case = base.cases[k]
        assert f"trace:{trace}" in case.argv
        p = subprocess.run([binary, *case.argv], capture_output=True, text=True, check=True)
        m[k] = replay_metrics(json.loads(p.stdout))
    assert m["mysql-w/cosmos"]["erases"] > 0, "the replay must garbage-collect"
    for metric, cid in (("erases", "F19-erases:cosmos"), ("iops", "F19-transactions:cosmos")):
        a, b = m["mysql-w/sup-gc"][metric], m["mysql-w/cosmos"][metric]
        assert by_id[cid]["value"] == pytest.approx((a - b) / abs(b) * 100.0, rel=1e-9), (cid, by_id[cid])
