"""Sweeps: 24 runs on a 2-worker LocalCluster, interrupted and resumed, equal to a local run."""

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

import flashgc
from flashgc.sweep import expand_grid, load_sweep_file, read_results, run_id

from .conftest import TINY

#: 2 placements x 2 op x 3 workloads x 2 seeds = 24 runs.
GRID = {
    "placement": ["single", "sup-gc"],
    "op": [0.07, 0.28],
    "workload": ["uniform", "hotcold:80/20", "zipf:1.0"],
    "seed": [1, 2],
}


def _files(d):
    return {
        f: (os.stat(os.path.join(d, f)).st_ino, os.stat(os.path.join(d, f)).st_mtime_ns)
        for f in os.listdir(d)
        if f.startswith("run-") and f.endswith(".parquet")
    }


@pytest.fixture(scope="module")
def local_results(tmp_path_factory):
    """The reference: the 24 runs in-process, no Dask."""
    out = tmp_path_factory.mktemp("local")
    df = flashgc.sweep(GRID, config=flashgc.load_config("default", **TINY), out=out, scheduler="local")
    assert len(df) == 24 and len(df.attrs["ran"]) == 24
    return df


def test_grid_expansion_and_stable_ids():
    pts = expand_grid(GRID)
    assert len(pts) == 24 and pts[0] == {"placement": "single", "op": 0.07, "workload": "uniform", "seed": 1}
    paired = expand_grid({"scheme": ["single/greedy", {"placement": "sup-gc", "victim": "fifo"}], "seed": [1, 2]})
    assert paired[2] == {"placement": "sup-gc", "victim": "fifo", "seed": 1}
    # Pairs split like `compare --scheme`: placement parameters may contain '/'.
    p2 = expand_grid({"scheme": ["bf-gc:thresholds=4/2/1/greedy", ("midas", "fifo")]})
    assert p2 == [{"placement": "bf-gc:thresholds=4/2/1", "victim": "greedy"}, {"placement": "midas", "victim": "fifo"}]
    a = flashgc.load_config("default", placement="sup-gc", seed=3)
    b = flashgc.load_config("default", seed=3, placement="sup-gc")
    assert run_id(a) == run_id(b) and len(run_id(a)) == 16
    assert run_id(a) != run_id(flashgc.load_config("default", placement="sup-gc", seed=4))


def test_dask_sweep_interrupted_by_budget_resumes_and_equals_local(tmp_path, local_results):
    base = flashgc.load_config("default", **TINY)
    out = tmp_path / "dask"
    first = flashgc.sweep(GRID, config=base, out=out, max_runs=10, n_workers=2)
    assert len(first.attrs["ran"]) == 10 and len(first.attrs["pending"]) == 14
    before = _files(out)
    assert len(before) == 10
    second = flashgc.sweep(GRID, config=base, out=out, n_workers=2)
    assert sorted(second.attrs["skipped"]) == sorted(first.attrs["ran"])
    assert len(second.attrs["ran"]) == 14 and not set(second.attrs["ran"]) & set(first.attrs["ran"])
    after = _files(out)
    assert len(after) == 24
    # Finished runs were not redone: their files are the very same (inode and mtime).
    assert {f: after[f] for f in before} == before
    # Identical rows from Dask workers and from the in-process run.
    pd.testing.assert_frame_equal(read_results(out), local_results, check_exact=True)
    # Nothing left to do.
    third = flashgc.sweep(GRID, config=base, out=out, scheduler="local")
    assert third.attrs["ran"] == [] and len(third.attrs["skipped"]) == 24


def test_killed_cli_sweep_resumes_without_redoing_runs(tmp_path, local_results):
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(
        'config = "default"\nout = "res"\nworkers = 2\n'
        "[base]\nlogical_gib = 0.0625\npages_per_block = 64\nwrite_volume = 3.0\n"
        "[grid]\n"
        'placement = ["single", "sup-gc"]\nop = [0.07, 0.28]\n'
        'workload = ["uniform", "hotcold:80/20", "zipf:1.0"]\nseed = [1, 2]\n'
    )
    out = tmp_path / "res"
    proc = subprocess.Popen(
        [sys.executable, "-m", "flashgc", "sweep", str(sweep_file), "-q"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.is_dir() and len(_files(out)) >= 4:
                break
            time.sleep(0.005)
    finally:
        # Kill the sweep and its Dask workers (its own process group) abruptly.
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    time.sleep(0.5)  # let killed workers go away
    before = _files(out)
    assert 0 < len(before) < 24, f"the sweep should have been interrupted midway ({len(before)} runs done)"
    resumed = flashgc.sweep(GRID, config=flashgc.load_config("default", **TINY), out=out, scheduler="local")
    assert len(resumed.attrs["ran"]) == 24 - len(before)
    assert len(resumed.attrs["skipped"]) == len(before)
    after = _files(out)
    assert {f: after[f] for f in before} == before
    assert not [f for f in os.listdir(out) if f.endswith(".tmp")]
    pd.testing.assert_frame_equal(read_results(out), local_results, check_exact=True)


def test_rows_carry_parameters_figures_and_raw_result(local_results):
    df = local_results
    assert {
        "run_id",
        "param_placement",
        "param_op",
        "param_workload",
        "param_seed",
        "waf",
        "erases",
        "result_json",
        "config_toml",
    } <= set(df.columns)
    assert df["run_id"].is_unique
    row = df[
        (df.param_placement == "sup-gc")
        & (df.param_workload == "zipf:1.0")
        & (df.param_seed == 2)
        & (df.param_op == 0.28)
    ].iloc[0]
    one = flashgc.run("default", "zipf:1.0", placement="sup-gc", op=0.28, seed=2, **TINY)
    assert row["waf"] == one.waf and row["result_json"] == one.to_json()


def test_sweep_file_errors(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("[grid]\nseed = [1]\nbogus = 1\n[extra]\n")
    with pytest.raises(flashgc.FlashgcError, match="unknown key"):
        load_sweep_file(f)
    f.write_text("[grid\n")
    with pytest.raises(flashgc.FlashgcError, match=r"s\.toml"):
        load_sweep_file(f)
    f.write_text('out = "r"\n[base]\nlogical_gib = 0.0625\n[grid]\nplacement = ["single", "nope"]\n')
    # A bad scheme is found when the grid is validated, before any run (issue 19).
    with pytest.raises(flashgc.FlashgcError, match=r"sweep point 1 \{'placement': 'nope'\}: unknown placement"):
        flashgc.sweep_from_file(f, scheduler="local")
    assert not (tmp_path / "r").exists() or not os.listdir(tmp_path / "r")
    with pytest.raises(flashgc.FlashgcError, match=r"sweep point 0 .*unknown configuration field `opp`"):
        flashgc.sweep({"opp": [0.1]}, out=tmp_path / "x", scheduler="local")
    # Keys of the wrong type name the key instead of failing in Python or in Dask.
    for text, key in [
        ("out = 5\n", "`out`"),
        ('workers = "two"\n', "`workers`"),
        ("workers = 0\n", "`workers`"),
        ("dashboard = 8787\n", "`dashboard`"),
    ]:
        f.write_text(text + "[grid]\nseed = [1]\n")
        with pytest.raises(flashgc.FlashgcError, match=key):
            load_sweep_file(f)
    # A dashboard address Dask could not serve on is refused before the cluster starts.
    with pytest.raises(ValueError, match="dashboard `garbage:::`"):
        flashgc.sweep({"seed": [1]}, out=tmp_path / "d", dashboard="garbage:::")


def test_worker_errors_reach_the_client(tmp_path):
    # A failing run on a Dask worker raises the core's message on the client (pickled).
    # (A bad configuration is refused before any run: test_robust.py; an unreadable trace
    # passes that check and fails in the run.)
    bad = tmp_path / "bad.trace"
    bad.write_text("hello world\n")
    with pytest.raises(flashgc.FlashgcError, match="sweep run .*cannot detect the trace format"):
        flashgc.sweep(
            {"workload": [f"trace:{bad}"]},
            config=flashgc.load_config("default", **TINY),
            out=tmp_path / "e",
            n_workers=1,
        )


def test_huge_grid_is_bounded_by_max_runs(tmp_path):
    """A grid of 10**6 points: its size is checked without building it; with a budget only
    the points that run are resolved and validated (this finishes in about a second, where
    a full walk took minutes); without one it is refused, naming the size and the limit."""
    from flashgc.sweep import MAX_GRID_POINTS, grid_size, iter_grid

    ops = [round(0.07 + i * 0.0002, 4) for i in range(1000)]
    grid = {"placement": "single", "op": ops, "seed": list(range(1, 1001))}
    assert grid_size(grid) == 10**6 > MAX_GRID_POINTS
    assert next(iter(iter_grid(grid))) == {"placement": "single", "op": 0.07, "seed": 1}
    sweep_file = tmp_path / "huge.toml"
    sweep_file.write_text(
        'config = "default"\nout = "res"\n'
        "[base]\nlogical_gib = 0.0625\npages_per_block = 64\nwrite_volume = 3.0\n"
        f'[grid]\nplacement = "single"\nop = {ops}\nseed = {grid["seed"]}\n'
    )
    cmd = [sys.executable, "-m", "flashgc", "sweep", str(sweep_file), "-q", "--scheduler", "local"]
    p = subprocess.run([*cmd, "--max-runs", "2"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "sweep: 2 runs done now, 0 already present, 0 pending (999998 more grid points not examined yet)" in p.stdout
    df = read_results(tmp_path / "res")
    assert sorted(zip(df.param_op, df.param_seed)) == [(0.07, 1), (0.07, 2)]
    # Again: the two are skipped on the way to the next two.
    p = subprocess.run([*cmd, "--max-runs", "2"], capture_output=True, text=True, timeout=600)
    assert "sweep: 2 runs done now, 2 already present, 0 pending (999996 more" in p.stdout, p.stderr
    # Without a budget: refused before any run.
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode == 2
    assert f"sweep grid: 1000000 points (op 1000 x seed 1000) exceed the limit of {MAX_GRID_POINTS}" in p.stderr, (
        p.stderr
    )
    assert "--max-runs" in p.stderr
    # A bad value in a point that would run is still named, with its key and value.
    with pytest.raises(flashgc.FlashgcError, match=r"sweep point 0 \{'op': 0.0, 'seed': 1\}: .*`ftl.op`: 0 is out"):
        flashgc.sweep(
            {"op": [0, *ops[1:]], "seed": range(1, 1001)}, out=tmp_path / "bad", max_runs=2, scheduler="local"
        )


def test_a_script_without_the_main_guard_is_told_why(tmp_path):
    # Dask's workers import the script again: the sweep at its top level must not start a
    # cluster in each of them, and the error must say what to do (Dask's does not).
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import flashgc\n"
        'flashgc.sweep({"seed": [1, 2]}, config=flashgc.load_config("default", '
        'logical_gib=0.0625, pages_per_block=64, write_volume=1.0), out="res", n_workers=1)\n'
    )
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode != 0
    assert 'run the sweep under `if __name__ == "__main__":`' in p.stderr, p.stderr[-2000:]
    assert "bootstrapping phase" not in p.stderr
