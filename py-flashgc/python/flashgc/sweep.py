"""Parameter sweeps: the product of schemes x over-provisioning x workloads x seeds, on Dask.

Every run of a sweep is identified by a stable hash of its resolved configuration and
workload (:func:`run_id`). Results go to a Parquet *dataset directory*, one file per run
(``run-<id>.parquet``), written as each run finishes through a temporary file and an
atomic rename; a sweep started again on the same directory skips every run whose file
exists, so an interrupted sweep resumes without redoing finished runs.

Dask runs the simulations: an embedded ``LocalCluster`` by default, an existing cluster
with ``scheduler="tcp://host:8786"`` (e.g. one started by dask-jobqueue on SLURM/PBS), or
no Dask at all with ``scheduler="local"`` (in-process, one run after another). The client
writes every file, so workers need no shared filesystem.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import uuid
from typing import Any, Callable, Iterable, Mapping, Optional, Union

import numpy as np
import pandas as pd

from . import _flashgc
from ._flashgc import FlashgcError
from ._sweep_file import load_sweep_file, locate
from .api import (
    Config,
    ConfigLike,
    Result,
    _run,
    _synthetic_fields_only,
    _to_json,
    _with_mqsim,
    load_config,
    summary_row,
)

__all__ = [
    "sweep",
    "expand_grid",
    "iter_grid",
    "grid_size",
    "MAX_GRID_POINTS",
    "run_id",
    "read_results",
    "load_sweep_file",
    "sweep_from_file",
]

#: The largest grid a sweep walks in full (every point resolved and validated before any
#: run, its pending runs listed). A larger grid needs ``max_runs``: its points are then
#: resolved and validated lazily, in grid order, only until the budget is filled, so a
#: grid of 10**6 or 10**12 points costs what its first runs cost (resolving and validating
#: a point takes about a millisecond, so a full walk of this many takes a minute or two).
MAX_GRID_POINTS = 100_000


def _dimensions(grid: Mapping[str, Any]) -> list:
    if not isinstance(grid, Mapping):
        raise TypeError(
            f"grid must be a mapping of field names to lists of values (e.g. {{'op': [0.1, 0.2]}}), "
            f"not {type(grid).__name__}"
        )
    return [(k, _dimension(k, v)) for k, v in grid.items()]


def grid_size(grid: Mapping[str, Any]) -> int:
    """The number of points of ``grid``: the product of its dimensions' lengths, computed
    without building any point (the dimensions are checked as :func:`expand_grid` does)."""
    n = 1
    for _, vals in _dimensions(grid):
        n *= len(vals)
    return n


def _describe_size(grid: Mapping[str, Any]) -> str:
    """``a 2 x b 1000 x ...``: the dimensions that multiply the grid (constants left out)."""
    dims = [f"{k} {len(v)}" for k, v in _dimensions(grid) if len(v) > 1]
    return " x ".join(dims) if dims else "constants only"


def expand_grid(grid: Mapping[str, Any]) -> list:
    """The product of a grid: every list-valued key is a dimension, scalars are constants.

    Keys are configuration fields as :func:`flashgc.run` takes them (``placement``,
    ``victim``, ``op``, ``workload``, ``seed``, ``write_volume``, dotted paths...), and
    ``trace_options``, ``timing``, ``mqsim_workload``, ``scenario`` and ``fio_job`` as
    :func:`flashgc.run` takes them (an MQSim IO scenario's flows are copied into the point's
    configuration, and a fio job file's text into its task, so the workers need not see the
    files; the run id hashes the job file's text). A
    ``scheme`` dimension may list ``{"placement": ..., "victim": ...}`` dicts (or
    ``"placement/victim"`` strings) to pair policies instead of crossing them. Order is
    deterministic: the product follows the grid's key order.

    A dimension is any 1-D sequence (list, tuple, ``range``, numpy array, pandas Series);
    numpy scalars become Python numbers. A dimension mixing integers and floats holds
    floats, so that its ``param_*`` column has one type in every run file.
    """
    return list(iter_grid(grid))


def iter_grid(grid: Mapping[str, Any]) -> Iterable[dict]:
    """The points of :func:`expand_grid`, one at a time, in the same order, without holding
    them all (a bad ``scheme`` value is reported when its point is reached)."""
    dims = _dimensions(grid)
    for combo in itertools.product(*(vals for _, vals in dims)):
        p: dict = {}
        for (k, _), v in zip(dims, combo):
            if k == "scheme":
                if isinstance(v, Mapping):
                    p.update(v)
                elif isinstance(v, str) and "/" in v:
                    # The core's parser: placement parameters may contain '/' too.
                    ((pl, vi),) = _flashgc.parse_schemes(v)
                    p.update(placement=pl, victim=vi)
                elif isinstance(v, (tuple, list)) and len(v) == 2:
                    p.update(placement=str(v[0]), victim=str(v[1]))
                else:
                    raise FlashgcError(
                        f"sweep grid: scheme {v!r}: expected 'placement/victim', a (placement, victim) pair or a dict"
                    )
            else:
                p[k] = v
        yield p


def _plain(v: Any) -> Any:
    """``v`` with numpy scalars as Python numbers (``.item()``), inside mappings and lists
    too: the values go into JSON (run ids, ``param_*`` columns) and Arrow schemas."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, Mapping):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return (tuple if isinstance(v, tuple) else list)(_plain(x) for x in v)
    return v


def _dimension(key: str, v: Any) -> list:
    """The values of grid entry ``key``: a sequence's items, else ``[v]`` (a constant)."""
    if isinstance(v, (set, frozenset)):
        raise TypeError(f"sweep grid: `{key}` is a set, which has no order; give a list")
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return [v.item()]
    if isinstance(v, (np.ndarray, pd.Series, pd.Index)):
        if v.ndim != 1:
            raise FlashgcError(f"sweep grid: `{key}` is an array of shape {v.shape}; give a 1-D sequence")
        vals = [_plain(x) for x in v.tolist()]
    elif isinstance(v, (list, tuple, range)):
        vals = [_plain(x) for x in v]
    else:
        return [_plain(v)]
    if not vals:
        raise FlashgcError(f"sweep grid: `{key}` is an empty list")
    numbers = [x for x in vals if isinstance(x, (int, float)) and not isinstance(x, bool)]
    if len(numbers) == len(vals) and any(isinstance(x, float) for x in vals):
        vals = [float(x) for x in vals]
    return vals


def _canonical(o: Any) -> str:
    return json.dumps(o, sort_keys=True, separators=(",", ":"), allow_nan=True)


def run_id(
    config: Config,
    trace_options: Optional[Mapping[str, Any]] = None,
    timing: Optional[Mapping[str, Any]] = None,
    fio_job_text: Optional[str] = None,
) -> str:
    """Stable 16-hex-digit identity of a run: a hash of its effective configuration (which
    includes the workload, the policies and the seed), its trace options, its timing
    parameters and its fio job file's text, if any."""
    data = config.to_dict()
    if trace_options:
        data["trace_options"] = dict(trace_options)
    if timing is not None:
        data["timing_params"] = dict(timing)
    if fio_job_text is not None:
        data["fio_job"] = fio_job_text
    return hashlib.sha256(_canonical(data).encode()).hexdigest()[:16]


def _validate(cfg: Config, checked: dict) -> None:
    """Checks a point as its run would before starting (layout, workload, policies, stream
    reserve), once per distinct configuration apart from the seed."""
    d = cfg.to_dict()
    d.get("run", {}).pop("seed", None)
    key = _canonical(d)
    if key in checked:
        return
    _flashgc.validate(cfg.toml)
    w = str(cfg["run"].get("workload", ""))
    if w.startswith("trace:") and not os.path.exists(w[len("trace:") :]):
        raise FlashgcError(f"`run.workload`: trace file {w[len('trace:') :]} does not exist")
    checked[key] = True


def _prepare(base: ConfigLike, points: Iterable[dict], base_overrides: Optional[Mapping[str, Any]] = None) -> list:
    """Resolves and validates every point's configuration (``base`` with
    ``base_overrides``, then the point's values): a bad value anywhere in the grid fails
    here, naming the point, before any run starts."""
    return [t for _, t in _prepare_iter(base, points, base_overrides) if t is not None]


def _prepare_iter(base: ConfigLike, points: Iterable[dict], base_overrides: Optional[Mapping[str, Any]] = None):
    """:func:`_prepare` one point at a time: yields ``(i, task)`` for point ``i``, with
    ``task`` None for a point that repeats an earlier one's run. A bad point raises when it
    is reached, so a walk stopped early validates only the points it reached."""
    seen = {}
    checked: dict = {}
    for i, p in enumerate(points):
        over = dict(p)
        topts = over.pop("trace_options", None)
        timing = over.pop("timing", None)
        mqsim = over.pop("mqsim_workload", None)
        scenario = over.pop("scenario", None)
        fio = over.pop("fio_job", None)
        fio_text = None
        try:
            cfg = _with_mqsim(
                load_config(base, **{**(base_overrides or {}), **over}), over.get("workload"), mqsim, scenario
            )
            _synthetic_fields_only({**(base_overrides or {}), **over}, cfg, over.get("workload"), fio)
            _validate(cfg, checked)
            if fio is not None:
                fio = os.fspath(fio)
                try:
                    with open(fio, encoding="utf-8") as fh:
                        fio_text = fh.read()
                except (OSError, UnicodeDecodeError) as e:
                    raise FlashgcError(f"fio_job {fio}: cannot read the job file: {e}") from None
        except FlashgcError as e:
            raise FlashgcError(f"sweep point {i} {p}: {e}") from None
        rid = run_id(cfg, topts, timing, fio_text)
        if rid in seen:
            yield i, None  # the same run listed twice (e.g. a constant spelled two ways)
            continue
        seen[rid] = i
        params = {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in p.items()}
        task = {"run_id": rid, "config_toml": cfg.toml, "params": params, "trace_options": topts, "timing": timing}
        if fio is not None:
            task["fio_job"] = {"name": fio, "text": fio_text}
        yield i, task


def _execute(task: dict) -> dict:
    """Runs one sweep task (on a Dask worker or in-process) and returns its row."""
    jobs, cap, where = task.get("memory_jobs", 1), None, ""
    if jobs is None:
        # An existing cluster: the share is decided where the run lands (see _worker_share).
        jobs, cap, where = _worker_share(task.get("host_slots") or {})
    try:
        cfg = Config(task["config_toml"], {})
        fio = task.get("fio_job")
        if fio is not None:
            tj = task.get("timing")
            out = _flashgc.run(
                cfg.toml,
                None,
                timing_json=None if tj is None else _to_json(tj, "timing"),
                fio_job=fio["name"],
                fio_job_text=fio["text"],
                memory_jobs=jobs,
                memory_cap_gib=cap,
            )
            res = Result(json.loads(out), cfg)
        else:
            topts, timing = task.get("trace_options"), task.get("timing")
            res = _run(cfg, None, topts, timing, None, None, None, jobs, {}, memory_cap_gib=cap)
    except FlashgcError as e:
        extra = f" ({where})" if where and "max_memory_gib" in str(e) else ""
        raise FlashgcError(f"sweep run {task['params']}: {e}{extra}") from None
    return make_row(task, res.raw)


def _host_slots(workers: Mapping[str, Any]) -> dict:
    """Simulations an existing cluster runs at once on each machine: the threads of its
    workers there, from the scheduler's worker list (``scheduler_info()["workers"]``)."""
    slots: dict = {}
    for addr, w in workers.items():
        host = w.get("host") or _address_host(addr)
        slots[host] = slots.get(host, 0) + max(1, int(w.get("nthreads") or 1))
    return slots


def _address_host(addr: str) -> str:
    """The host of a Dask address such as ``tcp://10.0.0.5:40123``."""
    from distributed.comm import get_address_host

    return get_address_host(addr)


def _worker_share(host_slots: Mapping[str, int]) -> tuple:
    """On a worker of an existing Dask cluster: how many simulations share this machine's
    memory (the cluster's threads on this host when the sweep started; the worker's own
    threads for a worker that joined later), this worker's memory limit per thread in GiB
    (``dask worker --memory-limit``: its nanny kills a process above it; None when
    unlimited), and a phrase that says so for a refusal. Outside a worker: ``(1, None, "")``."""
    try:
        from distributed import get_worker

        w = get_worker()
    except (ImportError, ValueError):
        return 1, None, ""
    threads = max(1, int(w.state.nthreads))
    host = _address_host(w.address)
    jobs = max(1, int(host_slots.get(host) or threads))
    limit = w.memory_manager.memory_limit
    cap = limit / threads / 2**30 if limit else None
    where = (
        f"Dask worker {w.address}: the machine's memory (run.max_memory_gib, else what {host} has "
        f"available) shared among the cluster's {jobs} threads there"
    )
    if cap is not None:
        where += f", at most its memory limit per thread ({limit / 2**30:.2f} GiB / {threads})"
    return jobs, cap, where


def make_row(task: dict, raw: dict) -> dict:
    """One Parquet row: run id, the grid parameters (``param_*``), the headline figures,
    and the whole result as JSON (``result_json``) for reports. No wall-clock fields: the
    same run gives the same row on any machine and scheduler."""
    row: dict = {"run_id": task["run_id"]}
    for k, v in task["params"].items():
        row["param_" + k.replace(".", "_")] = v if isinstance(v, (int, float, str, bool)) else json.dumps(v)
    row.update(summary_row(raw))
    # The same columns in every run file, timed or not (a dataset mixing them reads whole).
    for k in TIMING_COLUMNS:
        row.setdefault(k, float("nan"))
    row["config_toml"] = task["config_toml"]
    row["result_json"] = json.dumps(raw, sort_keys=True)
    return row


# Latency and throughput columns of timed runs (NaN in WAF-only runs).
_LATENCIES = ("mean_us", "p50_us", "p99_us", "p999_us", "p9999_us", "max_us")
TIMING_COLUMNS = tuple(
    [f"{kind}_{q}" for kind in ("read", "write") for q in _LATENCIES] + ["iops", "bandwidth_mb_s", "gc_time_share"]
)


def _schema(row: dict):
    """The Arrow schema of a row, by Python type; a missing value (None: no model applies,
    no preset) is a null *string*, not Arrow's `null` type, so that every run file of a
    dataset has the same schema and `pandas.read_parquet(directory)` reads them together."""
    import pyarrow as pa

    def typ(v: Any):
        if isinstance(v, bool):
            return pa.bool_()
        if isinstance(v, int):
            return pa.int64()
        if isinstance(v, float):
            return pa.float64()
        return pa.string()

    return pa.schema([(k, typ(v)) for k, v in row.items()])


def _write_row(out_dir: str, row: dict) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(out_dir, f"run-{row['run_id']}.parquet")
    # Hidden temp name: pyarrow's dataset reader ignores files starting with '.'.
    tmp = os.path.join(out_dir, f".run-{row['run_id']}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    pq.write_table(pa.Table.from_pylist([row], schema=_schema(row)), tmp)
    os.replace(tmp, path)
    return path


def _remove_stale_temps(out_dir: str) -> None:
    """Removes temp files left by a sweep process that died mid-write (its pid is gone)."""
    for name in os.listdir(out_dir):
        if not (name.startswith(".run-") and name.endswith(".tmp")):
            continue
        parts = name.split(".")
        try:
            pid = int(parts[2])
        except (IndexError, ValueError):
            continue
        alive = True
        if pid != os.getpid():
            try:
                os.kill(pid, 0)  # signal 0: only asks whether the process exists
            except ProcessLookupError:
                alive = False
            except PermissionError:
                alive = True
        if not alive:
            try:
                os.remove(os.path.join(out_dir, name))
            except FileNotFoundError:
                pass


def _done_ids(out_dir: str) -> set:
    done = set()
    for name in os.listdir(out_dir):
        if name.startswith("run-") and name.endswith(".parquet"):
            done.add(name[len("run-") : -len(".parquet")])
    return done


def read_results(path: Union[str, os.PathLike[str]]) -> pd.DataFrame:
    """Reads a sweep's Parquet dataset (directory) or a single Parquet file, sorted by run id."""
    p = os.fspath(path)
    if os.path.isdir(p):
        files = sorted(os.path.join(p, f) for f in os.listdir(p) if f.startswith("run-") and f.endswith(".parquet"))
        if not files:
            return pd.DataFrame()
        df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    else:
        df = pd.read_parquet(p)
    return df.sort_values("run_id", kind="stable").reset_index(drop=True) if len(df) else df


class _Progress:
    def __init__(self, total: int, enabled: Optional[bool]):
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        if enabled:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc="flashgc sweep", unit="run")
            except ImportError:  # pragma: no cover - tqdm is a declared dependency of [sweep]
                self.bar = None

    def update(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(
    grid: Mapping[str, Any],
    config: ConfigLike = None,
    out: Union[str, os.PathLike[str]] = "results.parquet",
    scheduler: Optional[str] = None,
    n_workers: int = 2,
    progress: Optional[bool] = None,
    max_runs: Optional[int] = None,
    on_result: Optional[Callable[[dict], None]] = None,
    dashboard: Optional[str] = None,
    base: Optional[Mapping[str, Any]] = None,
) -> pd.DataFrame:
    """Runs the product of ``grid`` on Dask and appends each result to the dataset ``out``.

    ``grid``: see :func:`expand_grid`, e.g. ``{"placement": ["single", "sup-gc"],
    "op": [0.07, 0.28], "workload": ["uniform", "zipf:1.0"], "seed": [1, 2, 3]}``.
    ``config``: the base configuration every point overrides (see
    :func:`flashgc.load_config`). ``out``: the dataset directory (created if missing).
    ``scheduler``: ``None`` for an embedded LocalCluster of ``n_workers`` single-threaded
    worker processes, ``"tcp://host:port"`` for an existing cluster, ``"local"`` to run
    in-process without Dask. ``progress``: a progress bar (default: only on a terminal).
    ``max_runs``: stop after this many new runs (a budget; the rest run next time).
    ``dashboard``: serve the embedded cluster's Dask dashboard at this address (e.g.
    ``":8787"``, or ``"127.0.0.1:0"`` for any free port; the link is printed); off by
    default. An existing cluster has its own dashboard. ``base``: configuration fields
    (as :func:`flashgc.run` takes them) every point sets before its own values (a sweep
    file's ``[base]``); unlike a :class:`flashgc.Config` built from them, it leaves a
    ``preset`` dimension free to change the device.

    As in :func:`flashgc.run`, ``run.max_memory_gib`` defaults to the memory available on
    the machine running the simulation, shared among the embedded cluster's workers. On an
    existing cluster (``scheduler`` an address) each run's share is decided on the worker
    it lands on: shared among the cluster's threads on that machine (as listed when the
    sweep starts), and at most the worker's own memory limit per thread
    (``dask worker --memory-limit``), above which Dask would kill the worker.

    Every point of the grid is validated (configuration, workload, policies) before any
    run starts: a bad value fails at once with a :class:`FlashgcError` naming the point.
    A grid of more than :data:`MAX_GRID_POINTS` points (the product of its dimensions,
    computed without building them) is refused unless ``max_runs`` is given; with it, the
    points are resolved and validated in grid order only until ``max_runs`` new runs are
    found (points already in ``out`` are skipped on the way), so only the points that run
    now (and those skipped) are validated and listed.

    Returns the dataset's rows for the points examined (finished earlier or now), sorted by
    run id; ``df.attrs`` holds ``ran`` (run ids executed now), ``skipped`` (already
    present), ``pending`` (examined, not run) and ``unexamined`` (grid points beyond the
    ``max_runs`` budget of a grid larger than :data:`MAX_GRID_POINTS`, else 0).
    """
    check_scheduler(scheduler, n_workers)
    check_dashboard(dashboard)
    out_dir = os.fspath(out)
    os.makedirs(out_dir, exist_ok=True)
    _remove_stale_temps(out_dir)
    if base:
        try:
            load_config(config, **base)
        except FlashgcError as e:
            raise FlashgcError(f"sweep base: {e}") from None
    total = grid_size(grid)
    budget = None if max_runs is None else max(0, int(max_runs))
    # A grid too large to walk in full is walked lazily up to the budget instead.
    lazy = total > MAX_GRID_POINTS
    if lazy and budget is None:
        raise FlashgcError(
            f"sweep grid: {total} points ({_describe_size(grid)}) exceed the limit of {MAX_GRID_POINTS} "
            "(flashgc.sweep.MAX_GRID_POINTS) a sweep validates in full before it starts; pass max_runs "
            "(--max-runs K) to run the next K of them in grid order, or split the grid"
        )
    done = _done_ids(out_dir)
    tasks: list = []
    new_tasks = 0
    walked = 0
    walk = _prepare_iter(config, iter_grid(grid), base)
    while not (lazy and budget is not None and new_tasks >= budget):
        nxt = next(walk, None)
        if nxt is None:
            break
        walked = nxt[0] + 1
        t = nxt[1]
        if t is not None:
            tasks.append(t)
            new_tasks += t["run_id"] not in done
    # The embedded cluster's workers run on this machine at once: they share its memory.
    # On an existing cluster each worker decides its share where the run lands (None).
    for t in tasks:
        if scheduler is None:
            t["memory_jobs"] = min(n_workers, len(tasks))
        else:
            t["memory_jobs"] = 1 if scheduler == "local" else None
    todo = [t for t in tasks if t["run_id"] not in done]
    skipped = [t["run_id"] for t in tasks if t["run_id"] in done]
    if budget is not None:
        todo = todo[:budget]
    ran: list = []
    bar = _Progress(len(todo), progress)

    def finish(row: dict) -> None:
        _write_row(out_dir, row)
        ran.append(row["run_id"])
        bar.update()
        if on_result is not None:
            on_result(row)

    try:
        if not todo:
            pass
        elif scheduler == "local":
            for t in todo:
                finish(_execute(t))
        else:
            _run_dask(todo, scheduler, n_workers, finish, dashboard)
    finally:
        bar.close()
    df = read_results(out_dir)
    ids = {t["run_id"] for t in tasks}
    if len(df):
        df = df[df["run_id"].isin(ids)].reset_index(drop=True)
    df.attrs["ran"] = ran
    df.attrs["skipped"] = skipped
    df.attrs["pending"] = [t["run_id"] for t in tasks if t["run_id"] not in set(ran) | set(skipped)]
    df.attrs["unexamined"] = total - walked
    return df


def check_scheduler(scheduler: Optional[str], n_workers: int) -> None:
    """Refuses, before any run, a ``scheduler`` that is neither ``None``, ``"local"`` nor a
    Dask address (``tcp://host:port``), and fewer than one worker for the embedded cluster:
    both would otherwise surface as a Dask traceback after the work was prepared."""
    if scheduler is not None and scheduler != "local" and "://" not in str(scheduler):
        raise ValueError(
            f"scheduler `{scheduler}`: expected the address of a Dask scheduler (tcp://HOST:PORT) or `local` (no Dask)"
        )
    if scheduler is None and (not isinstance(n_workers, int) or n_workers < 1):
        raise ValueError(f"workers {n_workers}: must be a whole number >= 1")


def check_dashboard(dashboard: Optional[str]) -> None:
    """Refuses, before any run, a dashboard address Dask could not serve on (``HOST:PORT``
    or ``:PORT``): it would otherwise fail as a traceback from inside the cluster's start."""
    if dashboard is None:
        return
    host, sep, port = str(dashboard).rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535 or ":" in host or " " in host:
        raise ValueError(f"dashboard `{dashboard}`: expected HOST:PORT or :PORT (e.g. :8787)")


def _run_dask(
    todo: list,
    scheduler: Optional[str],
    n_workers: int,
    finish: Callable[[dict], None],
    dashboard: Optional[str] = None,
    execute: Callable[[dict], dict] = _execute,
) -> None:
    """Runs ``execute(task)`` for every task on Dask (an embedded LocalCluster when
    ``scheduler`` is None) and hands each row to ``finish`` as it completes."""
    import logging

    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as e:
        # An optional dependency ([sweep]); without it only the in-process runner works.
        raise ImportError(
            f"Dask is not installed ({e}): pip install 'flashgc[sweep]', or pass the scheduler "
            "`local` (--scheduler local) to run the cases one after another without Dask"
        ) from e

    cluster = None
    if scheduler is None:
        import multiprocessing

        if "__mp_main__" in sys.modules and multiprocessing.current_process().name != "MainProcess":
            # A worker process of the embedded cluster imports the user's script again
            # (multiprocessing's spawn): a sweep at the script's top level would start a
            # cluster inside each worker, and Dask's message does not say why.
            raise FlashgcError(
                "sweep: called while a new worker process imports the script; in a script, run the "
                'sweep under `if __name__ == "__main__":` (the embedded Dask cluster starts its '
                "workers as new Python processes, which import the script again)"
            )
        cluster = LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=dashboard,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
        if dashboard is not None:
            print(f"flashgc sweep: Dask dashboard at {client.dashboard_link}", file=sys.stderr)
    else:
        if dashboard is not None:
            raise FlashgcError("sweep: `dashboard` applies to the embedded cluster; an existing cluster has its own")
        client = Client(scheduler)
        try:
            info = client.scheduler_info(n_workers=-1)  # every worker (recent Dask lists 5 by default)
        except TypeError:  # Dask before the argument: it lists them all
            info = client.scheduler_info()
        slots = _host_slots(info["workers"])
        todo = [{**t, "host_slots": slots} for t in todo]
    try:
        # pure=False: the run id already names the work; each task runs exactly once.
        futures = [client.submit(execute, t, key=f"flashgc-run-{t['run_id']}", pure=False) for t in todo]
        for fut in as_completed(futures):
            row = fut.result()
            finish(row)
            fut.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def iter_results(df: pd.DataFrame) -> Iterable[dict]:
    """The raw result dicts of a results DataFrame, in row order."""
    for s in df["result_json"]:
        yield json.loads(s)


def sweep_from_file(
    path: Union[str, os.PathLike[str]],
    out: Optional[str] = None,
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    progress: Optional[bool] = None,
    max_runs: Optional[int] = None,
    dashboard: Optional[str] = None,
) -> pd.DataFrame:
    """Runs the sweep a file describes (arguments given here win over the file's). Errors
    name the file, and the line of the ``[grid]`` or ``[base]`` key they are about."""
    s = load_sweep_file(path)
    try:
        return sweep(
            s["grid"],
            config=s["config"],
            base=s["base"],
            out=out or s["out"],
            scheduler=scheduler if scheduler is not None else s["scheduler"],
            n_workers=workers if workers is not None else s["workers"],
            progress=progress,
            max_runs=max_runs,
            dashboard=dashboard if dashboard is not None else s["dashboard"],
        )
    except FlashgcError as e:
        raise locate(s["path"], s["text"], e, s["grid"]) from None
