"""Input the Python API used to mishandle (audit of the Python package): a device too large
for the machine, a `preset` keyword, seeds beyond TOML's integers, numpy and mixed-type
sweep grids, analytic models outside their domain, and `compare`'s arguments."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

import flashgc
from flashgc import FlashgcError
from flashgc.sweep import expand_grid

from .conftest import ROOT, TINY

# --- the memory limit ------------------------------------------------------------------


def _needs_gib(**fields) -> float:
    """The memory a run is estimated to need (the core refuses it under a tiny limit)."""
    with pytest.raises(FlashgcError, match="max_memory_gib") as e:
        flashgc.run("default", "uniform", max_memory_gib=1e-9, **fields)
    per_page = float(str(e.value).split("(")[1].split(" B per logical page")[0])
    return per_page * flashgc.load_config("default", **fields).layout()["logical_pages"] / 2**30


def _available_gib() -> float:
    with open("/proc/meminfo") as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith("MemAvailable:"))
    return kib / 2**20


def test_device_too_large_for_the_machine_raises_before_allocating():
    # Near the largest device (2^32 flash pages): about 30 GiB of tables.
    big = {"logical_gib": 14000, "write_volume": 0.001}
    need = _needs_gib(**big)
    if _available_gib() > need * 0.8:  # the run could start: not what this test is about
        pytest.skip(f"this machine has memory for a {need:.0f} GiB run")
    # In a child process: without the limit the allocation aborts the whole interpreter.
    code = (
        "import flashgc\n"
        "try:\n"
        f"    flashgc.run('default', 'uniform', **{big!r})\n"
        "except flashgc.FlashgcError as e:\n"
        "    print('ERROR', e)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert "ERROR" in p.stdout and "run.max_memory_gib" in p.stdout and "this run needs about" in p.stdout, p.stdout


def test_compare_shares_the_memory_limit_among_parallel_jobs():
    base = dict(TINY, write_volume=0.5)
    limit = _needs_gib(**base) * 1.5
    # One run at a time fits the limit; two at once get half of it each, as in the CLI.
    df = flashgc.compare("default", "uniform", seeds=[1, 2], jobs=1, max_memory_gib=limit, **base)
    assert len(df) == 2
    with pytest.raises(FlashgcError, match="max_memory_gib"):
        flashgc.compare("default", "uniform", seeds=[1, 2], jobs=2, max_memory_gib=limit, **base)
    # More jobs than runs: only as many run at once as there are runs.
    assert len(flashgc.compare("default", "uniform", seeds=[1], jobs=8, max_memory_gib=limit, **base)) == 1


def test_a_trace_replays_own_memory_counts_against_the_limit(tmp_path):
    # `remap: compact` on a 1 GiB device counts a remap table of one entry per logical page
    # (about 12 MiB) beside the device's few MiB of tables: a limit between the two refused
    # nothing before (the core checks its own tables alone); the CLI always counted it.
    trace = tmp_path / "t.csv"
    trace.write_text("".join(f"{128166372003061629 + 100 * i},hm,0,Write,{4096 * i},4096,100\n" for i in range(64)))
    dev = dict(logical_gib=1, write_volume=0.001)
    limit = _needs_gib(**dev) + 2 / 1024
    with pytest.raises(FlashgcError, match="trace remap table") as e:
        flashgc.run("default", f"trace:{trace}", trace_options={"remap": "compact"}, max_memory_gib=limit, **dev)
    assert "max_memory_gib" in str(e.value) and "this run needs about" in str(e.value)
    r = flashgc.run("default", f"trace:{trace}", trace_options={"remap": "compact"}, max_memory_gib=limit + 0.05, **dev)
    assert any("remap table" in m for m in r.memory["structure"])


def test_loop_times_and_loop_until_together_are_refused(tmp_path):
    # loop_until replaced loop_times without a word (as --loop-until did --loop-times).
    trace = tmp_path / "t.csv"
    trace.write_text("128166372003061629,hm,0,Write,0,4096,100\n")
    with pytest.raises(FlashgcError, match="loop_times and loop_until both given"):
        flashgc.run("default", f"trace:{trace}", trace_options={"loop_times": 3, "loop_until": 2}, **TINY)


def test_the_estimate_a_run_reports_is_the_one_it_was_admitted_with(tmp_path):
    base = dict(TINY, write_volume=0.5)
    r = flashgc.run("default", "uniform", **base)
    est = r.memory_estimate
    assert est is not None and est > 0 and r.memory_estimate_upper_bound is None
    # The limit is checked against exactly this figure: just below it is refused.
    with pytest.raises(FlashgcError, match="max_memory_gib"):
        flashgc.run("default", "uniform", max_memory_gib=est * (1 - 1e-6) / 2**30, **base)
    assert flashgc.run("default", "uniform", max_memory_gib=est * (1 + 1e-6) / 2**30, **base).raw == r.raw
    # A timed run adds the device model, its queues and the driver.
    timed = flashgc.run("default", "uniform", timing={"queue_depth": 8}, **base)
    assert timed.memory_estimate > est
    # CAGC's unbounded index grows with the run: its estimate is a bound, and says why.
    full = flashgc.run("default", "uniform", gc_action="cagc:index=full", dup_ratio=0.3, **base)
    assert full.memory_estimate > est and "upper bound" not in (full.memory_estimate_upper_bound or "x")
    assert full.memory_estimate_upper_bound
    # A fio job file's run reports its estimate too.
    job = tmp_path / "j.fio"
    job.write_text("[w]\nrw=randwrite\nbs=4k\nsize=1m\n")
    assert flashgc.run(None, fio_job=str(job), logical_gib=0.0625, pages_per_block=64).memory_estimate > 0


# --- preset as a keyword ---------------------------------------------------------------


def test_preset_keyword_loads_the_preset():
    cosmos = flashgc.load_config("cosmos-openssd")
    assert cosmos["device"]["page_size"] == 16384
    assert flashgc.load_config(preset="cosmos-openssd") == cosmos
    # The keyword wins over the positional preset, as keyword overrides do.
    assert flashgc.load_config("default", preset="cosmos-openssd") == cosmos
    c = flashgc.load_config({"preset": "default", "op": 0.2}, preset="cosmos-openssd")
    assert c["device"]["page_size"] == 16384 and c["ftl"]["op"] == 0.2
    # A resolved Config holds every device field: another preset cannot be layered under it.
    with pytest.raises(FlashgcError, match="preset"):
        flashgc.load_config(flashgc.load_config("default"), preset="cosmos-openssd")
    # Its own preset again is no change.
    assert flashgc.load_config(cosmos, preset="cosmos-openssd") == cosmos
    with pytest.raises(FlashgcError, match="unknown preset"):
        flashgc.load_config(preset="no-such-device")


def test_preset_keyword_under_a_toml_file(tmp_path):
    f = tmp_path / "dev.toml"
    f.write_text("[ftl]\nop = 0.2\n")
    c = flashgc.load_config(f, preset="cosmos-openssd")
    assert c["device"]["page_size"] == 16384 and c["ftl"]["op"] == 0.2 and c["preset"] == "cosmos-openssd"


def test_sweep_over_presets_changes_the_device(tmp_path):
    grid = dict(TINY, write_volume=0.5, preset=["default", "cosmos-openssd"])
    df = flashgc.sweep(grid, out=tmp_path / "a", scheduler="local")
    assert sorted(df["preset"]) == ["cosmos-openssd", "default"]
    pages = {r.preset: r.config_toml for r in df.itertuples()}
    assert "page_size = 16384" in pages["cosmos-openssd"] and "page_size = 4096" in pages["default"]
    assert df.set_index("preset").loc["cosmos-openssd", "waf"] != df.set_index("preset").loc["default", "waf"]
    # Over a resolved Config the dimension would only relabel the runs: refused up front.
    with pytest.raises(FlashgcError, match="preset"):
        flashgc.sweep(
            {"preset": ["default", "cosmos-openssd"]},
            config=flashgc.load_config("default", **TINY),
            out=tmp_path / "b",
            scheduler="local",
        )


def test_sweep_file_over_presets_with_a_base(tmp_path):
    f = tmp_path / "sweep.toml"
    base = "\n".join(f"{k} = {v}" for k, v in dict(TINY, write_volume=0.5).items())
    f.write_text(
        f'config = "default"\nout = "res"\n\n[base]\n{base}\n\n[grid]\npreset = ["default", "cosmos-openssd"]\n'
    )
    df = flashgc.sweep_from_file(f, scheduler="local")
    assert sorted(df["preset"]) == ["cosmos-openssd", "default"]
    # Not one device relabelled: the cosmos run has its 16 KiB flash pages.
    pages = {r.preset: r.config_toml for r in df.itertuples()}
    assert "page_size = 16384" in pages["cosmos-openssd"] and "page_size = 4096" in pages["default"]


# --- integers beyond TOML --------------------------------------------------------------


def test_seed_beyond_toml_integers_is_named():
    with pytest.raises(FlashgcError, match=r"run\.seed.*9223372036854775807"):
        flashgc.load_config("default", seed=2**63)
    with pytest.raises(FlashgcError, match=r"run\.seed"):
        flashgc.run("default", "uniform", seed=2**63, **TINY)
    c = flashgc.load_config("default", seed=2**63 - 1)
    assert "seed = 9223372036854775807" in c.toml


# --- sweep grids -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [np.arange(1, 3), list(np.arange(1, 3)), range(1, 3), pd.Series([1, 2]), (np.int64(1), np.int32(2))],
)
def test_grid_dimensions_of_any_sequence_and_numpy_scalars(values):
    pts = expand_grid({"seed": values, "op": np.float64(0.2)})
    assert pts == [{"seed": 1, "op": 0.2}, {"seed": 2, "op": 0.2}]
    assert all(type(p["seed"]) is int and type(p["op"]) is float for p in pts)


def test_grid_rejects_unordered_and_multidimensional_values():
    with pytest.raises(TypeError, match="seed"):
        expand_grid({"seed": {1, 2}})
    with pytest.raises(FlashgcError, match="seed"):
        expand_grid({"seed": np.ones((2, 2))})


def test_sweep_with_numpy_seeds_writes_its_rows(tmp_path):
    grid = dict(TINY, write_volume=0.5, seed=list(np.arange(1, 3)))
    df = flashgc.sweep(grid, out=tmp_path, scheduler="local")
    assert sorted(df["param_seed"]) == [1, 2]


def test_mixed_int_and_float_dimension_reads_as_one_dataset(tmp_path):
    grid = dict(TINY, write_volume=0.5, op=[0.1, 1])
    flashgc.sweep(grid, out=tmp_path, scheduler="local")
    df = pd.read_parquet(tmp_path)
    assert len(df) == 2 and df["param_op"].dtype == np.float64
    assert sorted(df["param_op"]) == [0.1, 1.0]


# --- analytic models -------------------------------------------------------------------


@pytest.mark.parametrize(
    "hot", [(float("nan"), 0.2), (2, 0.5), (0.8, 0), (0.8, 1), (0, 0.2), (0.8, float("inf")), (-0.1, 0.5)]
)
def test_model_waf_refuses_hot_shares_outside_the_open_unit_interval(hot):
    with pytest.raises(FlashgcError, match="hot"):
        flashgc.model_waf("fifo", 1.28, hot=hot)


@pytest.mark.parametrize("alpha", [float("nan"), float("inf"), 1.0, 0.5])
def test_model_waf_refuses_bad_alpha(alpha):
    with pytest.raises(FlashgcError, match="alpha"):
        flashgc.model_waf("fifo", alpha)


@pytest.mark.parametrize("np_", [float("inf"), float("nan"), 0.5, 0])
def test_model_waf_refuses_bad_pages_per_segment(np_):
    with pytest.raises(FlashgcError, match="pages_per_segment"):
        flashgc.model_waf("greedy", 1.28, np_)


def test_model_waf_is_never_below_one():
    assert flashgc.model_waf("greedy", 1e6, 256) >= 1.0
    assert flashgc.model_waf("greedy", 1e6, 256, hot=(0.8, 0.2)) >= 1.0
    for a in (1.01, 1.1, 1.5, 2, 5, 10, 20, 100):
        for np_ in (1, 2, 8, 64, 256):
            assert flashgc.model_waf("greedy", a, np_) >= 1.0, (a, np_)


# --- compare's arguments ---------------------------------------------------------------


def test_compare_takes_a_string_as_one_placement():
    df = flashgc.compare("default", "uniform", placements="single", victims="greedy", **dict(TINY, write_volume=0.5))
    assert list(df["placement"]) == ["single"] and list(df["victim"]) == ["greedy"]


@pytest.mark.parametrize("jobs", [0, -1, 1.5, "2", True])
def test_compare_refuses_bad_jobs(jobs):
    with pytest.raises((TypeError, ValueError), match="jobs"):
        flashgc.compare("default", "uniform", jobs=jobs, **TINY)


@pytest.mark.parametrize("kw", ["placement", "victim", "run.placement"])
def test_compare_refuses_a_singular_scheme_keyword(kw):
    with pytest.raises(TypeError, match="placements|victims"):
        flashgc.compare("default", "uniform", **{kw: "sup-gc"}, **TINY)


def test_compare_refuses_a_seed_keyword_beside_seeds():
    with pytest.raises(TypeError, match="seeds"):
        flashgc.compare("default", "uniform", seeds=[1, 2], seed=3, **TINY)


def test_timing_error_names_the_key():
    with pytest.raises(FlashgcError, match=r"timing\.queue_depth"):
        flashgc.run("default", "uniform", timing={"queue_depth": -1}, **TINY)
    with pytest.raises(FlashgcError, match=r"timing\.gc_mode"):
        flashgc.run("default", "uniform", timing={"gc_mode": 3}, **TINY)


# --- the oracle's pre-pass and Ctrl-C --------------------------------------------------

MSR = os.path.join(ROOT, "..", "shared", "traces", "msr_cambridge", "msr-cambridge1-sample.csv")


def test_the_oracle_runs_on_request_tables_and_traces():
    # Its pre-pass reads a second, identical instance of the workload: a request table
    # (the config's synthetic workload was read instead, and the run failed) ...
    cfg = flashgc.load_config("default", **TINY)
    n = cfg.layout()["logical_pages"]
    rng = np.random.default_rng(5)
    table = pd.DataFrame({"op": "W", "lpn": rng.integers(0, n, 3 * n, dtype=np.uint64), "pages": 1})
    oracle = flashgc.run(cfg, table, placement="oracle")
    single = flashgc.run(cfg, table)
    assert oracle.raw["placement"] == "oracle"
    assert oracle.raw["total"]["user_writes"] == single.raw["total"]["user_writes"] == 3 * n
    # The future-knowledge bound: no more GC writes than one stream.
    assert oracle.raw["total"]["gc_writes"] <= single.raw["total"]["gc_writes"]


@pytest.mark.skipif(not os.path.exists(MSR), reason=f"{MSR} not present (shared traces)")
def test_the_oracle_on_a_trace_equals_the_cli(tmp_path):
    # ... and a trace (the run said to call Simulation::prepare_future).
    args = ["--logical-gib", "0.0625", "--pages-per-block", "64", "--placement", "oracle"]
    opts = {"remap": "compact", "loop_times": 20}
    r = flashgc.run("default", "trace:" + MSR, trace_options=opts, placement="oracle", **TINY)
    assert r.raw["placement"] == "oracle" and r.raw["total"]["gc_writes"] >= 0
    exe = os.environ.get("FLASHGC_BIN") or os.path.join(ROOT, "target", "release", "flashgc")
    if not os.path.exists(exe):
        pytest.skip("no flashgc binary to compare with")
    cli = subprocess.run(
        [exe, "run", *args, "--write-volume", "3", "--workload", "trace:" + MSR, "--remap", "compact"]
        + ["--loop-times", "20", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(cli.stdout)["total"] == r.raw["total"]


def test_ctrl_c_interrupts_a_run():
    # The run polls for Python's signals at its progress reports: SIGINT ends it with
    # KeyboardInterrupt long before the minutes it would take.
    code = (
        "import flashgc, sys\n"
        "print('started', flush=True)\n"
        "flashgc.run('default', 'uniform', logical_gib=0.25, write_volume=100000)\n"
    )
    # SIGINT's default disposition in the child, as in a terminal: a test run launched in
    # the background (`pytest &` in a script) ignores SIGINT, its children inherit that,
    # and Python then installs no KeyboardInterrupt handler at all.
    p = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert p.stdout.readline().strip() == "started"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("the run did not stop on SIGINT")
    assert p.returncode != 0
    assert "KeyboardInterrupt" in err, err


@pytest.mark.skipif(not os.path.exists(MSR), reason=f"{MSR} not present (shared traces)")
def test_a_timed_trace_replays_open_loop_as_the_cli_does():
    # A trace's host defaults to an open-loop replay at its timestamps (the CLI's
    # default); Python ran it as a closed loop of 32, hundreds of times the IOPS.
    opts = {"remap": "compact"}
    r = flashgc.run("default", "trace:" + MSR, trace_options=opts, timing={}, **TINY)
    assert r.raw["timing"]["host"] == {"kind": "open-loop", "time_scale": 1.0}
    closed = flashgc.run("default", "trace:" + MSR, trace_options=opts, timing={"queue_depth": 32}, **TINY)
    assert closed.raw["timing"]["host"]["kind"] == "closed-loop"
    exe = os.environ.get("FLASHGC_BIN") or os.path.join(ROOT, "target", "release", "flashgc")
    if not os.path.exists(exe):
        pytest.skip("no flashgc binary to compare with")
    cli = subprocess.run(
        [exe, "run", "--timing", "--logical-gib", "0.0625", "--pages-per-block", "64", "--write-volume", "3"]
        + ["--workload", "trace:" + MSR, "--remap", "compact", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    d = json.loads(cli.stdout)
    assert d["timing"]["host"] == r.raw["timing"]["host"]
    assert d["timing"]["iops"] == r.raw["timing"]["iops"] and d["total"] == r.raw["total"]
