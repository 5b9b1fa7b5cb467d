"""What a new user tripped over in the Python package (issue 19): datasets the documented
reader cannot read, grids that start runs before failing, a cluster started by hand, the
dashboard, the `flashgc` command, reports that average different devices."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pandas as pd
import pytest

import flashgc
from flashgc import FlashgcError
from flashgc.report import _cases, fig_midas_groups, load_results, report

from . import browser
from .conftest import ROOT, TINY


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_zero_write_volume_ends_at_once(tiny):
    tiny["write_volume"] = 0.0
    t0 = time.time()
    r = flashgc.run("default", "uniform", **tiny)
    assert r.raw["total"]["user_writes"] == 0 and r.raw["ended_by"] == "write_volume"
    assert time.time() - t0 < 30


def test_pandas_reads_every_sweep_dataset(tmp_path):
    # single + greedy on uniform writes has an analytic model, sup-gc has none (a null
    # `model` in one file, a string in the other); one run is timed (latency columns).
    grid = {
        "scheme": ["single/greedy", "sup-gc/greedy"],
        "workload": ["uniform"],
        "timing": [None, {"queue_depth": 4}],
    }
    base = flashgc.load_config("default", **dict(TINY, write_volume=2.0))
    df = flashgc.sweep(grid, config=base, out=tmp_path, scheduler="local")
    assert len(df) == 4
    assert df["model"].isna().any() and df["model"].notna().any()
    # The documented reader, on the directory.
    whole = pd.read_parquet(tmp_path)
    assert len(whole) == 4
    assert set(whole["run_id"]) == set(df["run_id"])
    assert whole["iops"].notna().sum() == 2 and whole["iops"].isna().sum() == 2


@pytest.mark.parametrize("scheduler", ["local", None])
@pytest.mark.parametrize(
    "bad, field",
    [({"op": [0.07, 0.0]}, "ftl.op"), ({"placement": ["single", "nosuch"]}, "nosuch")],
)
def test_a_bad_grid_value_fails_before_any_run(tmp_path, bad, field, scheduler, capfd):
    grid = {"workload": ["uniform", "zipf:1.0"], **bad}
    t0 = time.time()
    with pytest.raises(FlashgcError) as e:
        flashgc.sweep(grid, config=flashgc.load_config("default", **TINY), out=tmp_path, scheduler=scheduler)
    assert field in str(e.value) and "sweep point" in str(e.value)
    # Nothing ran, no cluster started: no result files, no Dask traceback, at once.
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".parquet")]
    assert "Traceback" not in capfd.readouterr().err
    assert time.time() - t0 < 10


@pytest.mark.parametrize(
    "args, want",
    [
        (["--workers", "0"], "workers 0"),
        (["--workers", "-1"], "workers -1"),
        (["--scheduler", "bogus"], "scheduler `bogus`"),
    ],
)
def test_bad_reproduce_and_sweep_options_fail_before_any_work(tmp_path, args, want):
    # They went on to Dask, which failed with a traceback (or ran into a missing Dask).
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "flashgc", "reproduce", "noc", "-o", str(out), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2, p.stderr
    assert want in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not out.exists()
    workers = int(args[1]) if args[0] == "--workers" else 2
    scheduler = args[1] if args[0] == "--scheduler" else None
    with pytest.raises(ValueError, match=re.escape(want)):
        flashgc.sweep({"seed": [1]}, out=tmp_path / "s", scheduler=scheduler, n_workers=workers)
    assert not (tmp_path / "s").exists()


def test_too_many_streams_for_the_device_fail_before_any_run(tmp_path):
    grid = {"placement": ["single", "sepbit"]}
    base = flashgc.load_config("default", logical_gib=0.25, pages_per_block=64, segment_blocks=8)
    with pytest.raises(FlashgcError, match="`sepbit` needs 6 open streams"):
        flashgc.sweep(grid, config=base, out=tmp_path, scheduler="local")


def _dask_cli(*args):
    exe = os.path.join(os.path.dirname(sys.executable), "dask")
    cmd = [exe, *args] if os.path.exists(exe) else [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_sweep_on_a_separately_started_scheduler_and_worker(tmp_path):
    """As a cluster user runs it: `dask scheduler` and `dask worker` started by hand (here on
    127.0.0.1), the sweep given the scheduler's address; rows equal an in-process sweep's."""
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    sched = _dask_cli("scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard")
    worker = None
    try:
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert sched.poll() is None, sched.stderr.read()
                assert time.time() < deadline, "the scheduler did not start"
                time.sleep(0.2)
        worker = _dask_cli("worker", addr, "--nworkers", "1", "--nthreads", "1", "--no-dashboard")
        grid = {"placement": ["single", "sup-gc"], "workload": ["uniform", "zipf:1.0"]}
        base = flashgc.load_config("default", **TINY)
        remote = flashgc.sweep(grid, config=base, out=tmp_path / "remote", scheduler=addr)
        local = flashgc.sweep(grid, config=base, out=tmp_path / "local", scheduler="local")
        assert len(remote) == 4 and len(remote.attrs["ran"]) == 4
        pd.testing.assert_frame_equal(remote.reset_index(drop=True), local.reset_index(drop=True))
    finally:
        for p in (worker, sched):
            if p is not None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def test_an_existing_cluster_shares_memory_per_host_and_keeps_to_each_workers_limit(tmp_path):
    """On an existing cluster, a run's memory limit is decided on the worker it lands on:
    the machine's memory shared among the cluster's threads there, and at most the worker's
    own limit per thread (above it Dask's nanny kills the process, and Dask retries the run
    on the next worker until it gives up with KilledWorker). A 1 TiB device (about 2 GiB of
    tables) on 1 GiB workers is refused before allocating, naming the worker's limit."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB", host="127.0.0.1") as c:
        addr = c.scheduler_address
        small = flashgc.sweep(
            {"seed": [1, 2]}, config=flashgc.load_config("default", **TINY), out=tmp_path / "a", scheduler=addr
        )
        assert len(small.attrs["ran"]) == 2
        with pytest.raises(FlashgcError, match="max_memory_gib") as e:
            flashgc.sweep({"logical_gib": [1024]}, config="default", out=tmp_path / "b", scheduler=addr)
    msg = str(e.value)
    assert "Dask worker tcp://127.0.0.1:" in msg and "2 threads there" in msg, msg
    assert "its memory limit per thread (1.00 GiB / 1)" in msg, msg
    limit = float(re.search(r"the limit is ([0-9.]+) GiB", msg).group(1))
    need = float(re.search(r"needs about ([0-9.]+) GiB", msg).group(1))
    assert limit <= 1.0 < need, msg


def test_the_embedded_cluster_serves_a_dashboard_on_request(tmp_path, capfd):
    pytest.importorskip("bokeh", reason="the Dask dashboard needs bokeh (the [sweep] extra installs it)")
    seen = []

    def probe(_row):
        if seen:
            return
        err = capfd.readouterr().err
        link = next(w for w in err.split() if w.startswith("http://"))
        with urllib.request.urlopen(link, timeout=30) as resp:
            seen.append((link, resp.status))

    grid = {"placement": ["single", "sup-gc"]}
    flashgc.sweep(
        grid,
        config=flashgc.load_config("default", **TINY),
        out=tmp_path,
        n_workers=1,
        dashboard="127.0.0.1:0",
        on_result=probe,
    )
    assert seen and seen[0][1] == 200, seen


def _script():
    exe = os.path.join(os.path.dirname(sys.executable), "flashgc")
    if not os.path.exists(exe):
        pytest.skip("the package's `flashgc` script is not installed in this environment")
    return exe


def test_pip_gives_a_flashgc_command_that_forwards_to_the_rust_cli(tmp_path):
    exe = _script()
    rust = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "flashgc")
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin")
    env.pop("FLASHGC_BIN", None)
    env.pop("FLASHGC_FORWARDED", None)
    # Without the Rust command line: a clear message, exit code 2, never a loop.
    p = subprocess.run([exe, "presets"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "cargo install" in p.stderr, p.stderr
    # `sweep` and `report` run in Python all the same.
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        'out = "res"\n[base]\nlogical_gib = 0.0625\npages_per_block = 64\nwrite_volume = 2\n'
        '[grid]\nplacement = ["single"]\n'
    )
    p = subprocess.run(
        [exe, "sweep", str(sweep), "--scheduler", "local", "-q"], env=env, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    # With it (FLASHGC_BIN, or on PATH): every other command is the Rust one.
    if not os.path.exists(rust):
        pytest.skip(f"{rust} not built")
    p = subprocess.run([exe, "presets"], env=dict(env, FLASHGC_BIN=rust), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "cosmos-openssd" in p.stdout, p.stderr
    p = subprocess.run(
        [exe, "presets"],
        env=dict(env, PATH=os.path.dirname(rust) + os.pathsep + env["PATH"]),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0 and "midas-128g" in p.stdout, p.stderr


def test_the_python_flashgc_command_answers_help_without_the_rust_cli(monkeypatch, capsys, tmp_path):
    # `flashgc --help` after `pip install`, before the Rust command line is installed: what
    # this command runs and its usage (it answered with an error alone, exit code 2).
    from flashgc.__main__ import console_main

    monkeypatch.delenv("FLASHGC_BIN", raising=False)
    monkeypatch.delenv("FLASHGC_FORWARDED", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    for args, code in ((["--help"], 0), (["help"], 0), ([], 2)):
        assert console_main(args) == code, args
        c = capsys.readouterr()
        text = c.out if code == 0 else c.err
        assert "`flashgc sweep` and `flashgc report` run here" in text, (args, c)
        assert "cargo install --path crates/flashgc-cli" in text and "sweep" in text and "report" in text, c
    # Any other command still says what is missing, with exit code 2.
    assert console_main(["run"]) == 2
    assert "needs the flashgc command line (Rust)" in capsys.readouterr().err


# --- the report ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_devices(tmp_path_factory):
    """The same schemes and workload on two device sizes: never one curve."""
    out = tmp_path_factory.mktemp("two")
    grid = {"placement": ["single", "sup-gc"], "logical_gib": [0.0625, 0.125], "seed": [1, 2]}
    flashgc.sweep(
        grid, config=flashgc.load_config("default", **dict(TINY, write_volume=2.0)), out=out, scheduler="local"
    )
    return out


def test_report_keeps_device_configurations_apart(two_devices, tmp_path):
    df = load_results(two_devices)
    cases = _cases(df)
    assert cases.nunique() == 2, cases.unique()
    assert all("logical" in c for c in cases)
    html = open(report(two_devices, tmp_path / "r.html"), encoding="utf-8").read()
    # The summary has a row per scheme and device, each averaging only its own 2 seeds.
    section = html.split("Summary per scheme and case")[1].split("All runs")[0]
    header = [re.sub("<.*?>", "", h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", section, re.S)]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r, re.S) for r in re.findall(r"<tr>(.*?)</tr>", section, re.S)]
    rows = [r for r in rows if r]
    assert {"preset", "logical_gib", "runs"} <= set(header), header
    runs = [r[header.index("runs")].strip() for r in rows]
    assert len(rows) == 4 and set(runs) == {"2"}, rows


def test_midas_legend_is_outside_the_plot(tmp_path):
    from flashgc.report import _mpl

    r = flashgc.run(
        "default",
        "hotcold:90/10",
        logical_gib=0.0625,
        pages_per_block=32,
        op=0.15,
        write_volume=4.0,
        placement="midas:epoch=0.5,check=0.25",
        victim="fifo",
    )
    df = load_results([r])
    df["scheme"] = "midas / fifo"
    df["case"] = _cases(df)
    plt = _mpl()
    f = fig_midas_groups(df, plt)
    assert f is not None
    fig = f.fig
    fig.canvas.draw()
    r_ = fig.canvas.get_renderer()
    for ax in fig.axes:
        leg = ax.get_legend()
        assert leg is not None
        a, b = ax.get_window_extent(r_), leg.get_window_extent(r_)
        assert not a.overlaps(b), (a, b)
    plt.close(fig)


@pytest.mark.skipif(not browser.available(), reason=f"{browser.CHROMIUM} not found")
def test_report_tables_fit_a_1400_px_window(two_devices, tmp_path):
    html = report(two_devices, tmp_path / "r.html")
    loaded = browser.load(html, width=1400, height=1000)
    m = re.search(r'data-page-width="(\d+)"', loaded["dom"])
    assert m, "the page did not measure itself"
    width = int(m.group(1))
    assert width <= 1400, width


@pytest.mark.parametrize(
    "kw, pattern",
    [
        # Not JSON: the core used to say "not valid JSON ... column 25".
        (dict(logical_gib=float("nan")), r"`ftl\.logical_gib`: nan is not a finite number"),
        (dict(write_volume=float("inf")), r"`run\.write_volume`: inf is not a finite number"),
        (dict(timing={"queue_depth": float("nan")}), r"`timing\.queue_depth`: nan"),
        # Beyond 64 bits: the core read it as a float and named no field.
        (dict(seed=2**70), r"`run\.seed`: \d+ is out of range for a 64-bit integer"),
        # The wrong type for a field: serde alone names no field.
        (dict(seed=-1), r"`run\.seed`: invalid value: integer `-1`"),
        (dict(op="x"), r"`ftl\.op`: invalid type: string"),
        (dict(config={"run": {"seed": "a"}}), r"`run\.seed`: invalid type: string"),
    ],
)
def test_bad_override_values_name_their_field(tiny, kw, pattern):
    args = {**tiny, **kw} if "config" not in kw else kw
    with pytest.raises(FlashgcError, match=pattern):
        flashgc.run(**args)


@pytest.mark.parametrize("arg", ["timing", "trace_options"])
def test_a_mapping_argument_that_is_not_one_is_a_type_error(tiny, arg):
    with pytest.raises(TypeError, match=f"{arg} must be a mapping"):
        flashgc.run(**tiny, **{arg: 5})


@pytest.mark.parametrize("timing", [None, {}])
def test_an_empty_request_table_replays_nothing(tiny, timing):
    # `[]` is float64 to numpy; it used to be refused as "op column of dtype float64".
    del tiny["write_volume"]
    r = flashgc.run(workload={"op": [], "lpn": [], "pages": []}, timing=timing, **tiny)
    assert r.raw["total"]["user_writes"] == 0 and r.raw["ended_by"] == "workload_end"
