"""fio job files from Python: ``flashgc.run(fio_job=...)``, ``compare`` and ``sweep`` run
them through the same plan as ``flashgc fio --job`` (docs/serve.md, "fio job files")."""

import json
import os
import subprocess

import pandas as pd
import pytest

import flashgc
from flashgc import FlashgcError

from .conftest import ROOT

DEV = {"logical_gib": 0.0625, "pages_per_block": 32, "op": 0.15}
CLI_DEV = ["--logical-gib", "0.0625", "--pages-per-block", "32", "--op", "0.15"]

#: Two jobs that differ in pattern and depth (host flows, one per section and clone),
#: the writer's two clones spread by offset_increment.
JOBS = (
    "[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=16m\n"
    "[reader]\nrw=randread\niodepth=4\nnumber_ios=600\n"
    "[writer]\nrw=randwrite\niodepth=2\nnumjobs=2\noffset_increment=24m\nio_size=2m\n"
)


def _rust_cli():
    exe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "flashgc")
    if not os.path.exists(exe):
        pytest.skip(f"{exe} not built")
    return exe


def test_a_job_file_runs_as_the_cli_runs_it(tmp_path):
    job = tmp_path / "two.fio"
    job.write_text(JOBS)
    r = flashgc.run(None, fio_job=job, **DEV)
    flows = r.raw["flows"]
    assert [f["name"] for f in flows] == ["reader", "writer.0", "writer.1"]
    assert [f["offset_bytes"] for f in flows] == [0, 0, 24 << 20]
    assert flows[0]["requests"] == 600 and flows[0]["write_requests"] == 0
    assert [f["requests"] for f in flows[1:]] == [512, 512]
    # Uniform random jobs of one block size keep fio's random map: nothing to note.
    assert not any("random map" in n for n in r.notes), r.notes
    assert "random_distribution=random" in flows[0]["pattern"]
    # The same plan as the command line: the same result, figure for figure.
    p = subprocess.run(
        [_rust_cli(), "fio", "--job", str(job), "--json", *CLI_DEV], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)[0] == r.raw
    # Device timing options apply; the job file's host options are its own.
    rf = flashgc.run(None, fio_job=job, timing={"scheduler": "read-first", "suspend": "on"}, **DEV)
    assert rf.raw["flows"][0]["read_latency"]["p99_us"] != flows[0]["read_latency"]["p99_us"]
    with pytest.raises(FlashgcError, match="timing.queue_depth"):
        flashgc.run(None, fio_job=job, timing={"queue_depth": 8}, **DEV)

    # A job file the merged model runs (identical random clones): the CLI's result too.
    merged = tmp_path / "merged.fio"
    merged.write_text("[w]\nioengine=libaio\nrw=randwrite\nbs=8k\niodepth=4\nnumjobs=2\nsize=8m\n")
    m = flashgc.run(None, fio_job=merged, **DEV)
    assert [f["name"] for f in m.raw["flows"]] == ["job.0", "job.1"]
    p = subprocess.run(
        [_rust_cli(), "fio", "--job", str(merged), "--json", *CLI_DEV], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)[0] == m.raw


def test_compare_and_sweep_run_a_job_file_per_point(tmp_path):
    job = tmp_path / "two.fio"
    job.write_text(JOBS)
    df = flashgc.compare(None, fio_job=str(job), placements=["single", "sup-gc"], **DEV)
    assert list(df["placement"]) == ["single", "sup-gc"]
    one = flashgc.run(None, fio_job=job, placement="sup-gc", **DEV)
    pd.testing.assert_frame_equal(df.iloc[[1]].reset_index(drop=True), pd.DataFrame([one.summary()]), check_dtype=False)
    # A sweep carries the file's text to its workers; its run id follows the text.
    grid = {"placement": ["single", "sup-gc"], "fio_job": job, **DEV}
    sw = flashgc.sweep(grid, out=tmp_path / "out", scheduler="local")
    assert list(sw["waf"]) == list(df["waf"])
    ids = set(sw["run_id"])
    job.write_text(JOBS.replace("io_size=2m", "io_size=3m"))
    sw2 = flashgc.sweep(grid, out=tmp_path / "out2", scheduler="local")
    assert not ids & set(sw2["run_id"])


def test_bad_job_files_name_their_line(tmp_path):
    bad = tmp_path / "bad.fio"
    bad.write_text("[a]\nrw=randwrite\nverify=crc32c\n")
    with pytest.raises(FlashgcError, match="bad.fio:3: option `verify`"):
        flashgc.run(None, fio_job=bad, **DEV)
    past = tmp_path / "past.fio"
    past.write_text("[a]\nrw=write\nsize=32m\nnumjobs=3\noffset_increment=24m\n")
    with pytest.raises(FlashgcError, match="past.fio:3: option `size`.*clone 2"):
        flashgc.run(None, fio_job=past, **DEV)
    with pytest.raises(FlashgcError, match="cannot read the job file"):
        flashgc.run(None, fio_job=tmp_path / "missing.fio", **DEV)
    with pytest.raises(FlashgcError, match="fio_job"):
        flashgc.run(None, "uniform", fio_job=bad, **DEV)
    with pytest.raises(FlashgcError, match="cannot read the job file"):
        flashgc.sweep({"fio_job": tmp_path / "missing.fio", **DEV}, out=tmp_path / "o", scheduler="local")


def test_flows_table_gives_each_job_its_own_rate(tmp_path):
    # Two stonewalled jobs: run-span IOPS add up to the run's, each job's own rate is
    # its requests over its own time (fio's per-job figure), higher than its run-span one.
    job = tmp_path / "two.fio"
    job.write_text(
        "[global]\nioengine=libaio\nbs=4k\nsize=8m\n[r]\nrw=randread\niodepth=4\n[w]\nstonewall\nrw=randwrite\n"
    )
    r = flashgc.run(None, fio_job=job, **DEV)
    df = r.flows
    assert list(df.index) == ["r", "w"]
    assert df["iops"].sum() == pytest.approx(r.timing["iops"], rel=1e-9)
    own = df["requests"] / (df["active_ns"] / 1e9)
    assert (df["active_iops"] - own).abs().max() < 1e-6 * own.max()
    assert (df["active_iops"] > df["iops"]).all()
    assert df.loc["r", "read_count"] == df.loc["r", "requests"]
    assert df.loc["w", "write_p99_us"] > 0
    assert flashgc.run(None, fio_job=_one(tmp_path), **DEV).flows.empty


def test_flushes_are_in_the_flows_table_under_fcfs_and_read_first(tmp_path):
    # fsync=16 on a writer beside a reader, the writes cached: each flush programs them.
    # 320 writes: 19 flushes (the one due after the last write is not issued: fio's job
    # ends first).
    job = tmp_path / "fsync.fio"
    job.write_text(
        "[global]\nioengine=libaio\nbs=4k\nsize=8m\n"
        "[w]\nrw=randwrite\niodepth=4\nnumber_ios=320\nfsync=16\n"
        "[r]\nrw=randread\niodepth=2\nnumber_ios=200\n"
    )
    for timing in ({"cache_pages": 256}, {"cache_pages": 256, "scheduler": "read-first"}):
        df = flashgc.run(None, fio_job=job, timing=timing, **DEV).flows
        assert df.loc["w", "flushes"] == 19, timing
        assert df.loc["w", "flush_count"] == 19, timing
        assert df.loc["w", "flush_max_us"] > 0, timing
        assert df["flushes"].fillna(0).loc["r"] == 0, timing  # (left out of the record when 0)


def test_steady_state_attained_is_in_the_flows_table(tmp_path):
    # A reader capped at 100 IOPS completes 100 reads each simulated second: steady at the
    # second sample (2 s, 200 requests); the other job's criterion cannot hold (a
    # deviation below 0), so it runs its 3 s (stonewall: a group of its own).
    job = tmp_path / "ss.fio"
    job.write_text(
        "[global]\nrw=randread\nbs=4k\nrate_iops=100\nruntime=3s\ntime_based\nss_dur=2\n"
        "[a]\nss=iops:1\n[b]\nstonewall\nss=iops:0\n"
    )
    r = flashgc.run(None, fio_job=job, timing={}, **DEV)
    df = r.flows
    assert bool(df.loc["a", "ss_attained"]) and not bool(df.loc["b", "ss_attained"])
    assert df.loc["a", "requests"] == 200 and df.loc["b", "requests"] == 300
    assert r.raw["flows"][0]["steadystate"]["iops"] == [100, 100]


def _one(tmp_path):
    p = tmp_path / "one.fio"
    p.write_text("[w]\nrw=randwrite\nbs=4k\nsize=4m\n")
    return p


def test_sequential_picks_and_engines_reach_python_as_the_cli_runs_them(tmp_path):
    # percentage_random=0 rewrites its region in order: GC finds only invalid pages. fio's
    # default engine caps iodepth at 1, and a job fio would end early says so; the CLI
    # gives the same result.
    job = tmp_path / "seq.fio"
    job.write_text("[w]\nrw=randwrite\nbs=4k\nsize=8m\nio_size=48m\niodepth=8\npercentage_random=0\n")
    r = flashgc.run(None, fio_job=job, **DEV)
    assert r.raw["total"]["gc_writes"] == 0
    assert r.raw["flows"][0]["requests"] == 48 * 256
    assert any("capped at 1" in n for n in r.raw["notes"])
    short = tmp_path / "short.fio"
    short.write_text("[w]\nrw=randwrite:100000\nbs=4k\nsize=8m\n")
    s = flashgc.run(None, fio_job=short, **DEV)
    assert s.raw["flows"][0]["requests"] < 2048
    assert any("of the 2048 requests of its volume" in n for n in s.raw["notes"])
    p = subprocess.run(
        [_rust_cli(), "fio", "--job", str(short), "--json", *CLI_DEV], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)[0] == s.raw
