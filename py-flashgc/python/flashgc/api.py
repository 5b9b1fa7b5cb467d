"""Running simulations from Python: configurations, workloads, results.

The Rust core does the simulating; this module only resolves configurations (preset name,
TOML file or text, dict, keyword overrides), encodes workloads (synthetic specs, trace
paths, numpy arrays of requests) and wraps the core's JSON result in :class:`Result`,
whose tables are pandas DataFrames.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from itertools import product
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _flashgc
from ._config import Config, ConfigLike, _to_json, load_config, presets
from ._flashgc import FlashgcError
from ._workloads import _requests, _workload_spec

__all__ = [
    "Config",
    "Result",
    "run",
    "compare",
    "load_config",
    "presets",
    "placements",
    "victims",
    "paper_schemes",
    "parse_schemes",
    "model_waf",
    "summary_row",
]


def placements() -> dict:
    """Registered placement schemes: ``{name: description}``."""
    return dict(_flashgc.placements())


def victims() -> dict:
    """Registered victim policies: ``{name: description}``."""
    return dict(_flashgc.victims())


def paper_schemes() -> list:
    """Every registered placement paired with the victim policy its paper evaluates it
    with, as ``(placement, victim)`` tuples (what ``flashgc compare`` runs by default)."""
    return list(_flashgc.paper_schemes())


SchemeLike = Union[str, Sequence[str], Mapping[str, str]]


def parse_schemes(schemes: Union[str, Iterable[SchemeLike]]) -> list:
    """Normalizes placement/victim pairs to ``(placement, victim)`` tuples.

    Accepts the CLI's string form (``"midas/fifo,sepbit/cost-benefit:sqrt"``), or an
    iterable of ``(placement, victim)`` pairs, ``{"placement": ..., "victim": ...}`` dicts
    or ``"placement/victim"`` strings. Strings go through the core's parser (the same as
    ``compare --scheme``), which splits a pair at the last ``/`` followed by a victim policy
    name (placement parameters may contain ``/``) and rejects unknown names, listing the
    known ones.
    """
    if isinstance(schemes, str):
        return list(_flashgc.parse_schemes(schemes))
    if isinstance(schemes, Mapping) or not isinstance(schemes, Iterable):
        raise TypeError(
            "schemes must be a 'placement/victim,...' string or a list of pairs, "
            f"dicts or strings, not {type(schemes).__name__}"
        )
    out = []
    for s in schemes:
        if isinstance(s, str):
            out.extend(_flashgc.parse_schemes(s))
        elif isinstance(s, Mapping):
            if set(s) != {"placement", "victim"}:
                raise FlashgcError(f"scheme {dict(s)!r}: expected keys 'placement' and 'victim'")
            out.append((str(s["placement"]), str(s["victim"])))
        elif isinstance(s, (tuple, list)) and len(s) == 2 and all(isinstance(x, str) for x in s):
            out.append((s[0], s[1]))
        else:
            raise FlashgcError(
                f"scheme {s!r}: expected a (placement, victim) pair, a dict or a 'placement/victim' string"
            )
    if not out:
        raise FlashgcError("schemes: no placement/victim pair given")
    return out


def model_waf(
    victim: str,
    alpha: float,
    pages_per_segment: Optional[float] = None,
    hot: Optional[tuple] = None,
) -> float:
    """Desnoyers' analytic WAF (SYSTOR 2012) for uniform or hot/cold random writes.

    ``victim`` is ``fifo``, ``greedy`` (needs ``pages_per_segment``) or ``random``;
    ``alpha`` = physical / logical = 1 + op; ``hot=(r, f)``: a fraction ``f`` of the pages
    gets a fraction ``r`` of the writes (fifo and greedy only).
    """
    if not isinstance(victim, str):
        raise TypeError(f"model_waf: victim must be a policy name (fifo, greedy, random), not {type(victim).__name__}")
    alpha_f = _real("alpha", alpha)
    pps = None if pages_per_segment is None else _real("pages_per_segment", pages_per_segment)
    hot_rf = None
    if hot is not None:
        pair = () if isinstance(hot, (str, bytes, Mapping)) or not isinstance(hot, Iterable) else tuple(hot)
        if len(pair) != 2:
            raise TypeError(f"model_waf: hot must be a pair (r, f) of fractions, e.g. (0.8, 0.2), not {hot!r}")
        hot_rf = (_real("hot[0]", pair[0]), _real("hot[1]", pair[1]))
    return _flashgc.model_waf(victim, alpha_f, pps, hot_rf)


def _real(name: str, v: Any) -> float:
    """``v`` as a float, or a TypeError naming the argument (a string, bool or None is not
    taken as a number: ``model_waf("fifo", "1.07")`` is a mistake, not a value)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"model_waf: {name} must be a number, not {type(v).__name__} ({v!r})")
    try:
        return float(v)
    except OverflowError:
        raise FlashgcError(f"model_waf: {name} {v} is too large") from None


# --- results -------------------------------------------------------------------------


class Result:
    """The result of one run.

    ``raw`` is the core's ``RunResult`` as a dict (every figure it reports); the
    properties give the common tables as pandas DataFrames. Counts are in mapping units
    (LPN-sized pages, ``raw["units"]["page_bytes"]`` bytes each).
    """

    def __init__(self, raw: dict, config: Config):
        # The estimate comes beside the core's record, not in it: ``raw`` stays the CLI's JSON.
        self._estimate = raw.pop("memory_estimate", None)
        self.raw = raw
        self.config = config

    # Headline figures.
    @property
    def waf(self) -> float:
        """Steady-state WAF (after the warm-up)."""
        return float(self.raw["steady_state"]["waf"])

    @property
    def waf_total(self) -> float:
        """WAF over the whole measured phase (warm-up included)."""
        return float(self.raw["total"]["waf"])

    @property
    def erases(self) -> int:
        """Segment erases in the measured phase."""
        return int(self.raw["total"]["erases"])

    @property
    def model(self) -> Optional[dict]:
        """Analytic cross-check (model, alpha, waf, relative_error) when one applies."""
        return self.raw.get("model")

    @property
    def notes(self) -> list:
        """Remarks (approximations, assumptions) the reader must see."""
        return list(self.raw.get("notes", []))

    # Tables.
    @property
    def counts(self) -> pd.DataFrame:
        """Counters of the precondition, the whole measured phase and the steady state."""
        rows = {k: self.raw[k] for k in ("precondition", "total", "steady_state")}
        return pd.DataFrame.from_dict(rows, orient="index")

    @property
    def series(self) -> pd.DataFrame:
        """WAF and erases per window of user writes (``user_gib`` added for plotting)."""
        df = pd.DataFrame(
            self.raw.get("series", []),
            columns=["user_bytes", "capacity_written", "waf_window", "waf_cumulative", "erases"],
        )
        df["user_gib"] = df["user_bytes"] / float(1 << 30)
        return df

    @property
    def victim_valid_ratio(self) -> pd.DataFrame:
        """Histogram of victim valid ratios: ``[valid_ratio_lo, valid_ratio_hi)`` and count."""
        h = self.raw["victim_valid_ratio"]
        w = float(h["bin_width"])
        counts = np.asarray(h["counts"], dtype=np.int64)
        lo = np.arange(len(counts)) * w
        return pd.DataFrame({"valid_ratio_lo": lo, "valid_ratio_hi": lo + w, "count": counts})

    @property
    def memory(self) -> pd.DataFrame:
        """Metadata memory by structure (bytes, bytes per logical page)."""
        return pd.DataFrame(self.raw.get("memory", []), columns=["structure", "bytes", "bytes_per_lpn"])

    @property
    def memory_estimate(self) -> Optional[int]:
        """Bytes the run was estimated to need before it started (checked against
        ``run.max_memory_gib``; the CLI's memory line prints it); None for a result built
        from the CLI's JSON, which does not record it (a resumed run's estimate differs)."""
        e = self._estimate
        return None if e is None else int(e["bytes"])

    @property
    def memory_estimate_upper_bound(self) -> Optional[str]:
        """Why :attr:`memory_estimate` is an upper bound rather than a prediction (an
        unbounded content index, trace content), or None when it is a prediction."""
        e = self._estimate
        return None if e is None else e.get("upper_bound")

    @property
    def erase_counts(self) -> dict:
        """Per-block erase count summary (min, mean, max, stddev)."""
        return dict(self.raw["erase_counts"])

    @property
    def placement_report(self) -> Optional[Any]:
        """The placement scheme's own report (e.g. MiDAS's configuration history)."""
        return self.raw.get("placement_report")

    @property
    def midas_history(self) -> Optional[pd.DataFrame]:
        """MiDAS's configuration history, one row per epoch end and fallback (event, mode,
        group sizes, predicted and measured WAF, ``checks_from`` on an adoption, the failed
        transition as ``irregular_*`` on a fallback); None for other schemes."""
        rep = self.placement_report
        if not isinstance(rep, dict) or rep.get("scheme") != "midas":
            return None
        return pd.json_normalize(rep.get("history") or [], sep="_")

    @property
    def timing(self) -> Optional[dict]:
        """The timing layer's report (latency, IOPS, utilization), None for WAF-only runs."""
        return self.raw.get("timing")

    @property
    def latency(self) -> Optional[pd.DataFrame]:
        """Read and write latency summaries (microseconds) of a timed run, else None."""
        t = self.timing
        if not t:
            return None
        return pd.DataFrame.from_dict({"read": t["read_latency"], "write": t["write_latency"]}, orient="index")

    @property
    def timing_series(self) -> Optional[pd.DataFrame]:
        """IOPS, bandwidth and latency per checkpoint of host data volume (timed runs with
        ``checkpoint_bytes``), flattened (``read_p99_us``, ``write_p99_us``, ...)."""
        t = self.timing
        if not t:
            return None
        return pd.json_normalize(t.get("series", []), sep="_")

    @property
    def flows(self) -> pd.DataFrame:
        """Per-flow statistics of a run of several host flows (fio job sections, ``[[flow]]``
        sections, MQSim IO scenarios), one row per flow indexed by name: its counts, its
        rates over the run (``iops``, adding up to the run's) and over its own time
        (``active_iops``, fio's per-job figure), its flushes (``flushes``: fio's fsync,
        fdatasync, end_fsync), its latency summaries flattened (``read_p99_us``,
        ``write_mean_us``, ``flush_max_us``, ...), and with fio's steady-state detection
        (``ss``, ``ss_dur``) whether it was attained (``ss_attained``; the whole section is
        ``raw["flows"][i]["steadystate"]``). Empty for a run of one flow."""
        rows = []
        for f in self.raw.get("flows") or []:
            row = {k: v for k, v in f.items() if v is not None and not isinstance(v, (dict, list))}
            for d in ("read", "write", "flush"):
                row.update({f"{d}_{k}": v for k, v in (f.get(f"{d}_latency") or {}).items()})
            if f.get("steadystate"):
                row["ss_attained"] = f["steadystate"]["attained"]
            rows.append(row)
        return pd.DataFrame(rows).set_index("name") if rows else pd.DataFrame()

    @property
    def noc(self) -> Optional[dict]:
        """The NoC controller model's section (copy-backs, task queues), None on other devices."""
        return self.raw.get("noc")

    @property
    def noc_series(self) -> Optional[pd.DataFrame]:
        """The NoC model's time series (paper Figs. 7-8: host requests, GC tasks, copy-backs and
        pending work per window), None on other devices."""
        n = self.noc
        if not n:
            return None
        return pd.DataFrame(
            n.get("series", []),
            columns=["t_ms", "host_requests", "gc_tasks", "copybacks", "pending_host", "pending_gc"],
        )

    def summary(self) -> dict:
        """One flat row of the headline figures (what :func:`compare` and sweeps tabulate)."""
        return summary_row(self.raw)

    def to_json(self) -> str:
        """The raw result as JSON."""
        return json.dumps(self.raw, sort_keys=True)

    def __repr__(self) -> str:
        return (
            f"Result(placement={self.raw['placement']!r}, victim={self.raw['victim']!r}, "
            f"workload={self.raw['workload']!r}, waf={self.waf:.4f}, erases={self.erases})"
        )


# What every run result has (a JSON file of the CLI's or ``Result.raw``).
_RESULT_SECTIONS = ("steady_state", "total", "device", "erase_counts")
_RESULT_KEYS = _RESULT_SECTIONS + ("placement", "victim", "workload", "seed", "ended_by", "memory_bytes_per_lpn")


def summary_row(raw: Mapping[str, Any]) -> dict:
    """Flattens a ``RunResult`` dict into one row of scalar figures."""
    if not isinstance(raw, Mapping):
        raise TypeError(f"summary_row takes a run result dict (Result.raw, the CLI's JSON), not {type(raw).__name__}")
    missing = [k for k in _RESULT_KEYS if k not in raw or (k in _RESULT_SECTIONS and not isinstance(raw[k], Mapping))]
    if missing:
        raise FlashgcError(f"summary_row: not a flashgc run result: missing {', '.join(missing)}")
    ss, tot, dev = raw["steady_state"], raw["total"], raw["device"]
    model = raw.get("model") or {}
    er = raw["erase_counts"]
    row = {
        "placement": raw["placement"],
        "victim": raw["victim"],
        # The variant that ran: every parameter with its value, defaults included.
        "placement_spec": raw.get("placement_spec", raw["placement"]),
        "victim_spec": raw.get("victim_spec", raw["victim"]),
        "workload": raw["workload"],
        "seed": int(raw["seed"]),
        "preset": dev.get("preset"),
        "op": float(dev["op"]),
        "logical_pages": int(dev["logical_pages"]),
        "pages_per_segment": int(dev["pages_per_segment"]),
        "segments": int(dev["segments"]),
        "waf": float(ss["waf"]),
        "waf_total": float(tot["waf"]),
        "user_writes": int(tot["user_writes"]),
        "gc_writes": int(tot["gc_writes"]),
        "flash_programs": int(tot["flash_programs"]),
        "erases": int(tot["erases"]),
        "gc_victims": int(tot["gc_victims"]),
        "reads": int(tot["reads"]),
        "steady_user_writes": int(ss["user_writes"]),
        "steady_gc_writes": int(ss["gc_writes"]),
        "steady_erases": int(ss["erases"]),
        "effective_alpha": float("nan") if ss.get("effective_alpha") is None else float(ss["effective_alpha"]),
        "model": model.get("model"),
        "model_waf": float(model["waf"]) if model else float("nan"),
        "erase_min": int(er["min"]),
        "erase_mean": float(er["mean"]),
        "erase_max": int(er["max"]),
        "erase_stddev": float(er["stddev"]),
        "memory_bytes_per_lpn": float(raw["memory_bytes_per_lpn"]),
        "ended_by": raw["ended_by"],
    }
    t = raw.get("timing")
    if isinstance(t, Mapping):
        for kind in ("read", "write"):
            d = t.get(f"{kind}_latency") or {}
            for q in ("mean_us", "p50_us", "p99_us", "p999_us", "p9999_us", "max_us"):
                if isinstance(d.get(q), (int, float)):
                    row[f"{kind}_{q}"] = float(d[q])
        for k in ("iops", "bandwidth_mb_s", "gc_time_share"):
            if isinstance(t.get(k), (int, float)):
                row[k] = float(t[k])
        # Host writes that waited for GC's queued write of their flash page's earlier unit:
        # a row with any has write latencies that are an upper bound (the one GC FIFO,
        # docs/controller.md, approximations; the result's `approximate:` note).
        for k in ("gc_page_waits", "gc_page_wait_ops"):
            row[k] = int(t.get(k, 0))
        c = t.get("cache")
        if isinstance(c, Mapping):
            # GCaR's replacement work (entries examined), for a firmware-CPU model to price.
            row["cache_policy"] = c.get("policy")
            row["cache_scanned_entries"] = int(c.get("scanned_entries", 0))
    n = raw.get("noc")
    if isinstance(n, Mapping):
        row["noc_path"] = n.get("path")
        for k in ("copybacks", "error_pages"):
            row[k] = int(n[k])
        for k, v in (n.get("tasks") or {}).items():
            row[f"noc_tasks_{k}"] = int(v)
    return row


# --- running -------------------------------------------------------------------------


def _with_mqsim(cfg: Config, workload: Any, path: Any, scenario: Optional[int]) -> Config:
    """``cfg`` with the MQSim workload file's scenario as its ``[[flow]]`` sections (``cfg``
    itself without ``path``)."""
    if path is None:
        if scenario is not None:
            raise FlashgcError("scenario: selects an IO scenario of mqsim_workload, which is not given")
        return cfg
    if workload is not None:
        raise FlashgcError("mqsim_workload: the flows are the workload; give it or workload, not both")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"mqsim_workload must be a path, not {type(path).__name__}")
    if scenario is not None and (isinstance(scenario, bool) or not isinstance(scenario, (int, np.integer))):
        raise TypeError(f"scenario must be an integer (from 1), not {type(scenario).__name__}")
    if scenario is not None and not 1 <= scenario <= 2**32:
        raise FlashgcError(f"scenario {scenario}: IO scenarios are numbered from 1 (at most the file's count)")
    toml_text, data = _flashgc.mqsim_config(cfg.toml, os.fspath(path), None if scenario is None else int(scenario))
    return Config(toml_text, json.loads(data))


def run(
    config: ConfigLike = None,
    workload: Any = None,
    trace_options: Optional[Mapping[str, Any]] = None,
    timing: Optional[Mapping[str, Any]] = None,
    mqsim_workload: Union[None, str, os.PathLike[str]] = None,
    scenario: Optional[int] = None,
    fio_job: Union[None, str, os.PathLike[str]] = None,
    progress: Optional[bool] = None,
    **overrides: Any,
) -> Result:
    """Runs one simulation and returns its :class:`Result`.

    ``config``: see :func:`load_config`. ``workload``: a synthetic spec (``"uniform"``,
    ``"zipf:1.0"``, ``"hotcold:80/20"``, ``"seq"``), a trace (``"trace:PATH"`` or a
    ``pathlib.Path``), or a request table: a DataFrame / dict / structured array with
    columns ``op`` (0/1/2 or read/write/trim), ``lpn``, ``pages`` (and optional
    ``time_ns``, ``content``), or an ``(n, 3)`` integer array. ``None`` uses the
    configuration's ``run.workload``. ``overrides`` are configuration fields
    (``op=0.2``, ``placement="sup-gc"``, ``seed=3``, ...).

    ``trace_options`` (traces only) are the trace reader's options, as the CLI's flags:
    ``format``, ``volume``, ``remap`` (``none``/``compact``/``modulo``), ``ops``,
    ``loop_times``, ``loop_until`` (multiples of the logical capacity), ``time_scale``,
    ``time_window`` (``"10..60"``), ``blkparse_events``, ``skip_bad_lines``, ``flushes``
    (``replay``/``ignore`` the trace's flushes and FUA writes; default ``replay``),
    ``pipeline`` (parse text traces on a second thread; default true, same results).

    ``timing`` turns on the timing layer (latency, IOPS, bandwidth; the device's
    latencies come from the configuration): a dict of its parameters, ``{}`` for the
    defaults; e.g. ``{"queue_depth": 32, "gc_mode": "preemptible", "checkpoint_bytes":
    2**28}`` (see docs/python.md). The result's ``timing`` record is then filled.

    ``mqsim_workload`` (a path to an MQSim ``workload.xml``) runs one of its IO scenarios
    (``scenario``, numbered from 1 as MQSim does; default the file's only one) as the run's
    host flows, as the CLI's ``--mqsim-workload FILE --scenario N`` does; use it with
    ``timing`` and without ``workload``. The result's ``raw["flows"]`` holds each flow's
    statistics, ``raw["notes"]`` what the import approximates (docs/flows.md).

    ``fio_job`` (a path to a fio job file) is the workload instead, run as ``flashgc fio
    --job FILE`` runs it (the same plan, so the same numbers): jobs that differ only in
    ``numjobs`` and volume merged, others one host flow per job section and clone, with
    per-job statistics in ``raw["flows"]`` (docs/serve.md, "fio job files"). It is always
    timed; ``timing`` then gives the device's options only (the job file sets the queue
    depths and volumes, so ``queue_depth``, ``data_volume_bytes``, ``rate_iops`` and
    ``open_loop_time_scale`` are refused). Errors name the file, line and option.

    A request table is replayed to its end (``run.write_volume`` applies to synthetic
    workloads only). The GIL is released while the core simulates, so runs in threads
    proceed in parallel. Errors of the core raise :class:`FlashgcError`.

    As in the CLI, ``run.max_memory_gib`` defaults to the memory the machine has
    available: a device too large for it raises :class:`FlashgcError` before allocating.

    ``progress``: a progress bar on stderr (pages written of the target, rate, ETA, WAF so
    far), as the CLI draws; ``None`` (the default) draws it only when stderr is a terminal,
    so notebooks and pipes stay quiet. :func:`compare` and sweeps draw their own.
    """
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be True, False or None (a bar only on a terminal), not {progress!r}")
    return _run(
        config, workload, trace_options, timing, mqsim_workload, scenario, fio_job, 1, overrides, progress=progress
    )


def _run(
    config: ConfigLike,
    workload: Any,
    trace_options: Optional[Mapping[str, Any]],
    timing: Optional[Mapping[str, Any]],
    mqsim_workload: Union[None, str, os.PathLike[str]],
    scenario: Optional[int],
    fio_job: Union[None, str, os.PathLike[str]],
    memory_jobs: int,
    overrides: Mapping[str, Any],
    memory_cap_gib: Optional[float] = None,
    progress: Optional[bool] = False,
) -> Result:
    """:func:`run`, one of ``memory_jobs`` simulations running at once (they share the
    memory limit, as the CLI's ``compare --jobs`` does); ``memory_cap_gib`` bounds this
    run's share (a Dask worker's own limit); ``progress`` as :func:`run`'s (off for the
    runs of a comparison or a sweep)."""
    cfg = _with_mqsim(load_config(config, **overrides), workload, mqsim_workload, scenario)
    _synthetic_fields_only(overrides, cfg, workload, fio_job)
    topts = None if trace_options is None else _to_json(trace_options, "trace_options")
    tjson = None if timing is None else _to_json(timing, "timing")
    if fio_job is not None:
        if not isinstance(fio_job, (str, os.PathLike)):
            raise TypeError(f"fio_job must be a path, not {type(fio_job).__name__}")
        if workload is not None or mqsim_workload is not None:
            raise FlashgcError("fio_job: the job file is the workload; give it, workload or mqsim_workload, not two")
        out = _flashgc.run(
            cfg.toml,
            None,
            trace_options_json=topts,
            timing_json=tjson,
            fio_job=os.fspath(fio_job),
            memory_jobs=memory_jobs,
            memory_cap_gib=memory_cap_gib,
        )
        return Result(json.loads(out), cfg)
    reqs = _requests(workload)
    if reqs is not None:
        out = _flashgc.run(
            cfg.toml,
            None,
            trace_options_json=topts,
            timing_json=tjson,
            memory_jobs=memory_jobs,
            memory_cap_gib=memory_cap_gib,
            progress=progress,
            **reqs,
        )
    else:
        spec = _workload_spec(workload)
        out = _flashgc.run(
            cfg.toml,
            spec,
            trace_options_json=topts,
            timing_json=tjson,
            memory_jobs=memory_jobs,
            memory_cap_gib=memory_cap_gib,
            progress=progress,
        )
    return Result(json.loads(out), cfg)


def _synthetic_fields_only(overrides: Mapping[str, Any], cfg: Config, workload: Any, fio_job: Any) -> None:
    """Refuses fields given as overrides that the run would drop without a word, as the CLI
    refuses its flags: the content mode's (``dup_ratio``, ``pool``, ``theta``) under the
    ``move`` GC action, and the synthetic generator's where no synthetic workload runs (a
    trace, a request table, host flows or a fio job set their own reads and sizes)."""
    content = [k for k in overrides if k in ("dup_ratio", "pool", "theta") or str(k).startswith("content.")]
    action = str(cfg.data.get("run", {}).get("gc_action", "move")).split(":")[0].strip()
    if content and action in ("", "move"):
        # With the `move` GC action no content is tracked: the field would change nothing.
        raise FlashgcError(
            f"{', '.join(content)}: options of the content mode, which the GC action `move` does not use "
            "(no content is tracked): give gc_action splitgc, cagc or dagc"
        )
    given = [k for k in overrides if k in ("read_ratio", "request_pages", "run.read_ratio", "run.request_pages")]
    if not given:
        return
    if fio_job is not None:
        what = "the fio job file's jobs"
    elif cfg.data.get("flow"):
        what = "host flows ([[flow]] sections or an MQSim scenario), each with its own rw and bs"
    elif isinstance(workload, (pd.DataFrame, np.ndarray, Mapping, tuple)):
        what = "a request table"
    else:
        spec = _workload_spec(workload) or str(cfg.data.get("run", {}).get("workload", ""))
        if not spec.startswith("trace:"):
            return
        what = f"the trace {spec[len('trace:') :]}, whose requests set their own reads and sizes"
    raise FlashgcError(f"{', '.join(given)}: synthetic workloads only; the workload is {what}")


def compare(
    config: ConfigLike = None,
    workload: Any = None,
    placements: Union[None, str, Sequence[str]] = None,
    victims: Union[None, str, Sequence[str]] = None,
    seeds: Union[None, int, Iterable[int]] = None,
    jobs: int = 1,
    trace_options: Optional[Mapping[str, Any]] = None,
    timing: Optional[Mapping[str, Any]] = None,
    schemes: Union[None, str, Iterable[SchemeLike]] = None,
    mqsim_workload: Union[None, str, os.PathLike[str]] = None,
    scenario: Optional[int] = None,
    fio_job: Union[None, str, os.PathLike[str]] = None,
    **overrides: Any,
) -> pd.DataFrame:
    """Runs placement/victim combinations (x seeds) on the same configuration and workload.

    Either ``schemes``, explicit pairs (``[("midas", "fifo"), ("sepbit",
    "cost-benefit:sqrt")]``, ``"midas/fifo,sepbit/cost-benefit"``, or ``"paper"`` for every
    registered placement with its paper's victim policy, as ``flashgc compare`` runs by
    default), or the cross product of ``placements`` x ``victims`` (defaults ``["single"]``
    and ``["greedy"]``; a string is one name); not both. Returns one :func:`summary_row` per
    run as a DataFrame, in order. ``jobs`` > 1 runs that many simulations at once in threads
    (the core releases the GIL), sharing the memory limit (``run.max_memory_gib``, default
    the memory available) as the CLI's ``compare --jobs`` does; results do not depend on
    ``jobs``. ``mqsim_workload`` and ``scenario``, or ``fio_job``: as for :func:`run`, every
    combination runs the scenario's flows or the job file.
    """
    if isinstance(jobs, (bool, np.bool_)) or not isinstance(jobs, (int, np.integer)):
        raise TypeError(f"jobs must be a whole number >= 1, not {type(jobs).__name__}")
    if jobs < 1:
        raise ValueError(f"jobs {jobs}: must be a whole number >= 1")
    # compare sets these per run: the keyword would be silently replaced.
    for key, instead in (
        ("placement", "placements=[...] or schemes"),
        ("victim", "victims=[...] or schemes"),
        ("seed", "seeds=[...]"),
    ):
        given = [k for k in (key, f"run.{key}") if k in overrides]
        if given and (key != "seed" or seeds is not None):
            raise TypeError(f"compare: `{given[0]}` is set per run; give {instead} instead")
    seed_list = _seed_list(seeds)
    if schemes is not None:
        if placements is not None or victims is not None:
            raise FlashgcError("compare: give either schemes (pairs) or placements x victims, not both")
        pairs = paper_schemes() if isinstance(schemes, str) and schemes == "paper" else parse_schemes(schemes)
    else:
        pl = _names("placements", placements, "single")
        vi = _names("victims", victims, "greedy")
        pairs = list(product(pl, vi))
    points = [(p, v, s) for (p, v) in pairs for s in seed_list]
    if not points:
        raise FlashgcError("compare: nothing to run (empty placements, victims or seeds)")
    workers = min(int(jobs), len(points))

    def one(p: tuple) -> dict:
        placement, victim, seed = p
        kw = dict(overrides, placement=placement, victim=victim)
        if seed is not None:
            kw["seed"] = seed
        return _run(config, workload, trace_options, timing, mqsim_workload, scenario, fio_job, workers, kw).summary()

    if workers > 1:
        with ThreadPoolExecutor(max_workers=workers) as ex:
            rows = list(ex.map(one, points))
    else:
        rows = [one(p) for p in points]
    return pd.DataFrame(rows)


def _seed_list(seeds: Any) -> list:
    """``compare``'s seeds as a list (``[None]``: the configuration's own seed)."""
    if seeds is None:
        return [None]
    if isinstance(seeds, (int, np.integer)) and not isinstance(seeds, (bool, np.bool_)):
        return [seeds]
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds must be an integer or a list of integers, not {type(seeds).__name__} ({seeds!r})")
    out = list(seeds)
    for s in out:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"seeds: {s!r} is not an integer")
    return out


def _names(what: str, given: Any, default: str) -> list:
    """``compare``'s placements or victims as a list of scheme names (a string is one name:
    scheme parameters may hold commas, as in ``cost-benefit:sqrt,min_garbage=0.1``)."""
    if given is None:
        return [default]
    if isinstance(given, str):
        if "," in given and ":" not in given.split(",")[0]:
            # A comma before any colon separates names, not a scheme's parameters.
            raise FlashgcError(
                f"{what}: `{given}` is one string; for several schemes give a list, e.g. {given.split(',')!r}"
            )
        return [given]
    if isinstance(given, Mapping) or not isinstance(given, Iterable):
        raise TypeError(f"{what} must be a scheme name or a list of them, not {type(given).__name__}")
    out = list(given)
    for n in out:
        if not isinstance(n, str):
            raise TypeError(f"{what}: {n!r} is not a scheme name (a string such as 'single' or 'greedy')")
    return out
