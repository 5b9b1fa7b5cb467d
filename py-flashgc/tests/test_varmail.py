"""The MiDAS paper's Varmail WAF (Fig. 15(b)) from Filebench's Varmail flowops
(scripts/varmail.py) recorded on ext4 on the simulated SSD (scripts/record-varmail.sh) and
replayed by `flashgc reproduce midas`.

The end-to-end test records a small run when the machine can (root, /dev/fuse, loop devices,
the packages of scripts/install-app-tools.sh) and says what it skipped otherwise."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from flashgc.reproduce.claims import CANNOT
from flashgc.reproduce.papers.common import APP_TRACES_ENV
from flashgc.reproduce.runner import find_binary

from .conftest import ROOT, quick_claims, why_no_simulated_block_device

VARMAIL = os.path.join(ROOT, "scripts", "varmail.py")
RECORD = os.path.join(ROOT, "scripts", "record-varmail.sh")


def _varmail(*args):
    p = subprocess.run([sys.executable, VARMAIL, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def test_varmail_runs_its_flowops_on_a_folder(tmp_path):
    rc, out, err = _varmail("create", str(tmp_path), "--files", "200", "--seed", "3")
    assert rc == 0, err
    made = json.loads(out)
    files = sorted(os.listdir(tmp_path / "bigfileset"))
    assert made["files"] == len(files) and 120 <= len(files) <= 190, made  # prealloc 80 % of 200
    assert made["bytes"] == sum(os.path.getsize(tmp_path / "bigfileset" / f) for f in files)
    rc, out, err = _varmail("run", str(tmp_path), "--files", "200", "--threads", "4", "--loops", "300")
    assert rc == 0, err
    s = json.loads(out)
    # Each loop deletes one file and creates one (the fileset keeps its size), and fsyncs twice.
    assert s["loops"] == 300 and s["deletes"] == 300 and s["creates"] == 300 and s["fsyncs"] == 600, s
    assert s["files_at_end"] == made["files"] == len(os.listdir(tmp_path / "bigfileset")), s
    # Appends are 1..16384 bytes: two per loop.
    assert 600 <= s["appended_bytes"] <= 600 * 16384 and s["read_bytes"] > 0, s


def test_varmail_refuses_bad_arguments(tmp_path):
    for args, words in (
        (["run", str(tmp_path)], "no fileset"),
        (["create", str(tmp_path), "--files", "0"], "must be at least 1"),
        (["create", str(tmp_path), "--prealloc", "120"], "--prealloc must be at most 100"),
        (["run", str(tmp_path), "--loops", "many"], "not a number"),
        (["delete", str(tmp_path)], "invalid choice"),
    ):
        rc, _, err = _varmail(*args)
        assert rc == 2 and words in err, (args, rc, err)


def test_record_varmail_refuses_bad_arguments():
    for args, words in (
        (["--files", "0"], "--files must be a whole number"),
        (["--loops", "ten"], "--loops must be a whole number"),
        (["--bogus"], "unknown argument `--bogus`"),
        (["-o"], "-o needs a directory"),
    ):
        p = subprocess.run(["bash", RECORD, *args], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)


def _claims(out, app_traces):
    return quick_claims("midas", out, ["F15b-varmail-waf"], app_traces=str(app_traces))


def test_varmail_claims_without_a_recording_say_how_to_make_one(tmp_path, monkeypatch):
    monkeypatch.setenv(APP_TRACES_ENV, str(tmp_path))
    res = _claims(tmp_path / "out", tmp_path)
    assert len(res["claims"]) == 4, res["claims"]
    for c in res["claims"]:
        assert c["verdict"] == CANNOT and "record-varmail.sh" in c["detail"], c


def test_a_recorded_varmail_run_is_replayed_for_fig_15b(tmp_path):
    why = why_no_simulated_block_device()
    if why:
        pytest.skip(f"cannot record Varmail on this machine: {why}")
    binary = find_binary()
    rec = tmp_path / "traces"
    p = subprocess.run(
        ["bash", RECORD, "-o", str(rec), "--files", "2000", "--threads", "4", "--loops", "3000", "--flashgc", binary],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    trace = rec / "varmail.fgt"
    meta = json.loads((rec / "varmail.json").read_text())
    assert meta["sha256"] == hashlib.sha256(trace.read_bytes()).hexdigest()
    assert meta["varmail_summary"]["loops"] == 3000 and meta["fileset"]["entries"] == 2000, meta
    assert not any("flashgc-varmail." in line for line in open("/proc/mounts")), "a mount was left behind"
    stats = subprocess.run([binary, "trace", "stats", str(trace)], capture_output=True, text=True, check=True).stdout
    flushes = int(stats.split("flushes", 1)[1].split()[0])
    # 6000 fsyncs, each a journal commit with a FLUSH (some coalesced by ext4).
    assert flushes > 1000, stats

    res = _claims(tmp_path / "out", rec)
    vals = {c["id"].split(":")[-1]: c for c in res["claims"]}
    assert set(vals) == {"pageftl", "mida", "sepbit", "midas"}, vals
    for c in vals.values():
        assert c["verdict"] != CANNOT, c
    # The reproduction's PageFTL value is what `flashgc run` gives for the documented command.
    run = subprocess.run(
        [
            binary,
            "run",
            "--preset",
            "midas-128g",
            "--page-size",
            "4096",
            "--segment-blocks",
            "1",
            "--op",
            "0.073",
            "--gc-low",
            "0.1%",
            "--seed",
            "1",
            "--pages-per-block",
            "128",
            "--capacity",
            "auto",
            "--workload",
            f"trace:{trace}",
            "--loop-until",
            "16",
            "--write-volume",
            "16",
            "--warmup",
            "8",
            "--placement",
            "single",
            "--victim",
            "greedy",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    waf = json.loads(run.stdout)["steady_state"]["waf"]
    assert vals["pageftl"]["value"] == pytest.approx(waf, rel=1e-12), (vals["pageftl"], waf)
    assert waf > 1.0


def test_sigterm_to_the_recorder_alone_stops_it_at_once(tmp_path):
    """A SIGTERM to the script (not its process group) used to wait for the workload's loops to
    end (bash runs a trap only after the foreground command): the workload now runs in the
    background and is stopped first, then everything is torn down and the partial recording
    kept."""
    why = why_no_simulated_block_device()
    if why:
        pytest.skip(f"cannot record Varmail on this machine: {why}")
    out = tmp_path / "traces"
    args = ["--files", "2000", "--threads", "4", "--loops", "5000000", "--flashgc", find_binary()]
    p = subprocess.Popen(
        ["bash", RECORD, "-o", str(out), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    for line in p.stdout:
        if line.startswith("== varmail:"):
            break
    time.sleep(2)
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=60)  # 5 M loops would take hours
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("the recorder did not stop on SIGTERM") from None
    assert rc == 143, rc
    with open("/proc/mounts", encoding="utf-8") as f:
        assert "flashgc-varmail." not in f.read(), "a mount was left behind"
    assert "fuse/nbd" not in subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
    assert not (out / "varmail.fgt").exists() and (out / "varmail.fgt.partial").stat().st_size > 0
