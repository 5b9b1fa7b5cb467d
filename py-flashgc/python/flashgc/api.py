"""Running simulations from Python: configurations, workloads, results.

The Rust core does the simulating; this module only resolves configurations (preset name,
TOML file or text, dict, keyword overrides), encodes workloads (synthetic specs, trace
paths, numpy arrays of requests) and wraps the core's JSON result in :class:`Result`,
whose tables are pandas DataFrames.
"""

from __future__ import annotations

import copy
import json
import math
import os
from concurrent.futures import ThreadPoolExecutor
from itertools import product
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _flashgc
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

ConfigLike = Union[None, str, "os.PathLike[str]", Mapping[str, Any], "Config"]


def presets() -> list:
    """Names of the embedded device presets (``default``, ``cosmos-openssd``, ...)."""
    return list(_flashgc.presets())


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
    return _flashgc.model_waf(victim, float(alpha), pages_per_segment, hot)


def _jsonable(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, (os.PathLike,)):
        return os.fspath(o)
    raise TypeError(f"{type(o).__name__} is not a configuration value")


_U64_MAX = 2**64 - 1


def _check_values(o: Any, path: str) -> None:
    """Raises :class:`FlashgcError` naming the field (``path``) of a value JSON cannot carry
    to the core as the number it is: NaN and infinities (not JSON) and integers beyond 64
    bits (the core would read them as floats and name no field)."""
    if isinstance(o, Mapping):
        for k, v in o.items():
            _check_values(v, f"{path}.{k}" if path else str(k))
    elif isinstance(o, (list, tuple)):
        for i, v in enumerate(o):
            _check_values(v, f"{path}[{i}]")
    elif isinstance(o, (float, np.floating)) and not math.isfinite(o):
        raise FlashgcError(f"`{path}`: {o} is not a finite number")
    elif (
        isinstance(o, (int, np.integer))
        and not isinstance(o, (bool, np.bool_))
        and not (-(2**63) <= int(o) <= _U64_MAX)
    ):
        raise FlashgcError(f"`{path}`: {o} is out of range for a 64-bit integer")


def _to_json(o: Any, what: str) -> str:
    """``o`` as JSON for the core, after :func:`_check_values` (``what`` names a mapping
    argument, checked to be one: ``timing``, ``trace_options``; empty for overrides)."""
    if what and not isinstance(o, Mapping):
        raise TypeError(f"{what} must be a mapping of parameter names to values, not {type(o).__name__}")
    _check_values(o, what)
    return json.dumps(dict(o), default=_jsonable)


def _deep_merge(base: dict, over: Mapping[str, Any]) -> dict:
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            _deep_merge(base[k], v)
        else:
            base[k] = copy.deepcopy(v) if isinstance(v, Mapping) else v
    return base


def _field_paths(cfg: Mapping[str, Any], prefix: tuple = ()) -> dict:
    """Maps every leaf field name to its section path(s) in a resolved configuration."""
    out: dict = {}
    for k, v in cfg.items():
        if isinstance(v, dict):
            for name, paths in _field_paths(v, prefix + (k,)).items():
                out.setdefault(name, []).extend(paths)
        else:
            out.setdefault(k, []).append(prefix + (k,))
    return out


class Config:
    """An effective, fully resolved flashgc configuration.

    Build one with :func:`load_config` (or pass any config-like value to :func:`run`).
    ``toml`` is the exact text handed to the core; ``data`` the same values as a dict.
    """

    __slots__ = ("toml", "data")

    def __init__(self, toml: str, data: dict):
        self.toml = toml
        self.data = data

    def to_dict(self) -> dict:
        """A deep copy of the values (sections ``device``, ``ftl``, ``run``, ...)."""
        return copy.deepcopy(self.data)

    def layout(self) -> dict:
        """Validates the configuration and returns the derived layout (segments, pages...)."""
        return json.loads(_flashgc.layout(self.toml))

    def replace(self, **overrides: Any) -> Config:
        """A copy with field overrides (flat names such as ``op=0.2`` or dotted paths)."""
        return load_config(self, **overrides)

    def __getitem__(self, section: str) -> Any:
        return self.data[section]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other.data == self.data

    def __hash__(self) -> int:
        return hash(json.dumps(self.data, sort_keys=True))

    def __repr__(self) -> str:
        r = self.data.get("run", {})
        return (
            f"Config(preset={self.data.get('preset')!r}, workload={r.get('workload')!r}, "
            f"placement={r.get('placement')!r}, victim={r.get('victim')!r}, seed={r.get('seed')!r})"
        )


def _nest_overrides(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict:
    """Turns flat (``op``) and dotted (``device.timing.read_us``) names into sections."""
    paths = _field_paths(base)
    nested: dict = {}
    for key, value in overrides.items():
        if isinstance(value, Mapping) and key in base and isinstance(base[key], dict):
            _deep_merge(nested.setdefault(key, {}), value)
            continue
        if "." in key:
            path = tuple(key.split("."))
        else:
            found = paths.get(key, [])
            if len(found) == 1:
                path = found[0]
            elif len(found) > 1:
                raise FlashgcError(
                    f"override `{key}` is ambiguous: use one of " + ", ".join(".".join(p) for p in found)
                )
            else:
                known = sorted(k for k in paths if k != "preset")
                raise FlashgcError(f"unknown configuration field `{key}`; known: {', '.join(known)}")
        d = nested
        for p in path[:-1]:
            d = d.setdefault(p, {})
        d[path[-1]] = value
    # `op` and `op_of_physical` are alternatives: giving one clears the other.
    ftl = nested.get("ftl", {})
    if "op_of_physical" in ftl and "op" not in ftl:
        ftl["op"] = None
    if "op" in ftl and "op_of_physical" not in ftl:
        ftl["op_of_physical"] = None
    return nested


def _looks_like_toml(s: str) -> bool:
    return "\n" in s or ("=" in s and "[" in s)


def load_config(config: ConfigLike = None, **overrides: Any) -> Config:
    """Resolves a configuration.

    ``config`` may be ``None`` (the ``default`` preset), a preset name
    (see :func:`presets`), a path to a TOML file, TOML text, a dict of sections
    (``{"preset": "cosmos-openssd", "ftl": {"op": 0.2}, "run": {...}}``) or a
    :class:`Config`. Keyword ``overrides`` use flat field names (``op=0.2``,
    ``placement="sup-gc"``, ``pages_per_block=64``) or dotted paths; ``None`` resets a
    field to its default. Unknown fields raise :class:`FlashgcError`.

    ``preset="NAME"`` selects the device preset the configuration is layered on, as the
    CLI's ``--preset``: it replaces a preset given as ``config`` (or a dict's ``preset``)
    and goes under a TOML file instead of the one the file names. A :class:`Config` is
    already resolved (every device field set), so it only takes its own preset: another
    raises :class:`FlashgcError`.
    """
    preset: Optional[str] = None
    text: Optional[str] = None
    origin = "config"
    layer: Optional[dict] = None
    complete = False
    preset_kw = overrides.pop("preset", None)
    if preset_kw is not None and not isinstance(preset_kw, str):
        raise TypeError(f"preset must be a preset name ({', '.join(presets())}), not {type(preset_kw).__name__}")
    if config is None:
        pass
    elif isinstance(config, Config):
        if preset_kw is not None and preset_kw != config.data.get("preset"):
            # Changing only the label would leave the other preset's device in place.
            raise FlashgcError(
                f"preset `{preset_kw}`: the configuration is already resolved on preset "
                f"`{config.data.get('preset')}` (every device field set); give the preset as the "
                f'configuration instead, e.g. load_config("{preset_kw}", ...), or a dict '
                f'{{"preset": "{preset_kw}", ...}}'
            )
        text, origin, complete = config.toml, "configuration", True
        preset_kw = None
    elif isinstance(config, Mapping):
        layer = dict(config)
        preset = layer.pop("preset", None)
    elif isinstance(config, (str, os.PathLike)):
        s = os.fspath(config)
        if isinstance(config, str) and s in _flashgc.presets():
            preset = s
        elif isinstance(config, str) and _looks_like_toml(s):
            text, origin = s, "TOML text"
        elif os.path.exists(s):
            with open(s, encoding="utf-8") as f:
                text, origin = f.read(), s
        else:
            raise FlashgcError(
                f"config `{s}` is neither a preset ({', '.join(_flashgc.presets())}) nor an existing file"
            )
    else:
        raise TypeError(f"config must be a preset name, path, TOML text, dict or Config, not {type(config)}")
    if preset_kw is not None:
        preset = preset_kw

    over_json = None
    if layer or overrides:
        _, base_json = _flashgc.resolve_config(preset, text, origin, None, complete)
        base = json.loads(base_json)
        nested: dict = {}
        if layer:
            _deep_merge(nested, _nest_overrides(base, layer))
        if overrides:
            _deep_merge(nested, _nest_overrides(base, overrides))
        over_json = _to_json(nested, "")
    toml_text, data = _flashgc.resolve_config(preset, text, origin, over_json, complete)
    return Config(toml_text, json.loads(data))


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


def summary_row(raw: Mapping[str, Any]) -> dict:
    """Flattens a ``RunResult`` dict into one row of scalar figures."""
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
    if scenario is not None and scenario < 1:
        raise FlashgcError(f"scenario {scenario}: IO scenarios are numbered from 1")
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
    seed_list = [seeds] if isinstance(seeds, (int, np.integer)) else list(seeds) if seeds is not None else [None]
    if schemes is not None:
        if placements is not None or victims is not None:
            raise FlashgcError("compare: give either schemes (pairs) or placements x victims, not both")
        pairs = paper_schemes() if isinstance(schemes, str) and schemes == "paper" else parse_schemes(schemes)
    else:
        pl = ["single"] if placements is None else [placements] if isinstance(placements, str) else placements
        vi = ["greedy"] if victims is None else [victims] if isinstance(victims, str) else victims
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
