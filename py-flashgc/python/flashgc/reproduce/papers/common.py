"""What every paper's reproduction has: settings per scale, the sensitivity sweeps, its
cases, the metrics the claims read, and its figures; plus helpers for fio-series results."""

from __future__ import annotations

import json
import math
import os
from typing import Any, Callable, Optional

from ..runner import Case, Need, file_digest

CONFIGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs")
TRACES_ENV = "FLASHGC_TRACES"


def traces_dir() -> str:
    """The shared traces folder: $FLASHGC_TRACES, else ../shared/traces from the working
    directory or from the checkout this package lives in (the project never copies them)."""
    env = os.environ.get(TRACES_ENV)
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for start in (os.getcwd(), here):
        d = start
        while True:
            for rel in (os.path.join("..", "shared", "traces"), os.path.join("shared", "traces")):
                p = os.path.normpath(os.path.join(d, rel))
                if os.path.isdir(p):
                    return p
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return os.path.normpath(os.path.join(os.getcwd(), "..", "shared", "traces"))


def trace(rel: str) -> tuple:
    """(absolute path, Need) of a file in the shared traces folder."""
    p = os.path.join(traces_dir(), rel)
    return p, Need(f"file:{p}", f"the trace {rel} (not found under {traces_dir()}; set {TRACES_ENV})")


APP_TRACES_ENV = "FLASHGC_APP_TRACES"


def app_traces_dir() -> str:
    """Where recorded application traces are looked for: $FLASHGC_APP_TRACES (set by
    `reproduce --app-traces DIR`), else ~/.cache/flashgc/app-traces, where
    scripts/record-sysbench-mysql.sh and scripts/record-varmail.sh write by default."""
    env = os.environ.get(APP_TRACES_ENV)
    if env:
        return os.path.abspath(env)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "flashgc", "app-traces")


def tilde(path: str) -> str:
    """``path`` with the home directory written as ~ (for messages and the docs)."""
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home not in ("", "/") and path.startswith(home + os.sep) else path


def app_trace(name: str, how: str) -> tuple:
    """(absolute path, Need) of a recorded application trace; ``how`` says how to record it."""
    p = os.path.join(app_traces_dir(), name)
    return p, Need(f"file:{p}", f"the recorded trace {name} (not in {tilde(app_traces_dir())}): {how}")


def recording_note(label: str, name: str, how: str, describe: Callable[[dict], str]) -> str:
    """One line on the recorded trace ``name``: its settings (``describe`` of the metadata JSON
    beside it) and its digest, or where it was looked for and ``how`` to record it."""
    path, _ = app_trace(name, how)
    if not os.path.isfile(path):
        return f"{label}: no recording in {tilde(os.path.dirname(path))} ({how})."
    meta = os.path.splitext(path)[0] + ".json"
    try:
        with open(meta) as f:
            m = json.load(f)
        return f"{label}: {describe(m)}; trace SHA-256 {file_digest(path)[:16]}"
    except (OSError, ValueError, KeyError) as e:
        return f"{label}: {path} (its metadata {meta} is unreadable: {e}); SHA-256 {file_digest(path)[:16]}"


class Paper:
    """A paper's reproduction. Subclasses set ``name``, ``title``, ``platform`` and implement
    :meth:`settings`, :meth:`cases`, :meth:`metrics`."""

    name = ""
    title = ""
    platform = ""  # one paragraph: the paper's platform and how it is scaled here
    params: dict = {}  # sensitivity parameter -> what it is (for labels and docs)

    def settings(self, scale: str) -> dict:
        raise NotImplementedError

    def sensitivity(self, scale: str) -> dict:
        """Parameter -> values swept one at a time around :meth:`settings` (full scale)."""
        return {}

    def cases(self, s: dict) -> list:
        raise NotImplementedError

    def metrics(self, case: Case, raw: Any) -> dict:
        raise NotImplementedError

    def notes(self, s: dict) -> list:
        """Statements about the setting the output must carry (stand-ins, choices)."""
        return []

    def figures(self, ctx: Any, plt: Any) -> list:
        return []


def fmt_param(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


# --- latency histograms -------------------------------------------------------------------


def merged_histogram(*hists: Any) -> list:
    """Sum of `[upper edge us, count]` histograms (the result record's `read_histogram` /
    `write_histogram`: log bins, 20 per decade)."""
    acc: dict = {}
    for h in hists:
        for up, c in h or []:
            acc[float(up)] = acc.get(float(up), 0) + c
    return sorted([u, c] for u, c in acc.items())


def hist_percentile(hist: list, q: float, bins_per_decade: int = 20) -> float:
    """The ``q`` quantile (0..1) of a log-binned histogram, interpolated log-linearly inside
    its bin."""
    total = sum(c for _, c in hist)
    if not total:
        return float("nan")
    target = q * total
    acc = 0.0
    ratio = 10 ** (1.0 / bins_per_decade)
    for up, c in hist:
        if c and acc + c >= target:
            f = (target - acc) / c
            lo = up / ratio
            return lo * (up / lo) ** f
        acc += c
    return float(hist[-1][0])


def all_request_percentiles(timing: dict) -> Optional[dict]:
    """p50/p99/p99.9/p99.99 of all requests from the whole histograms, when the record has them."""
    rh, wh = timing.get("read_histogram"), timing.get("write_histogram")
    if not rh and not wh:
        return None
    h = merged_histogram(rh, wh)
    return {k: hist_percentile(h, q) for k, q in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999), ("p9999", 0.9999))}


# --- fio series (sup-gc, bf-gc) ---------------------------------------------------------


def fio_metrics(
    raw: Any, offset_gb: float = 0.0, gb_bytes: Optional[float] = None, phase: Optional[str] = None
) -> dict:
    """Metrics of a `flashgc fio --json` result (a one-element array): per series point at
    paper-equivalent GB (after ``offset_gb`` of warm-up, counts from its end): iops, bw,
    write_iops, read_iops, write_bw, erases, gc_moves, p99 (of the request class with more
    requests in the window; write_p99, read_p99 separately), mean latency; and onset_gb
    (first point with erases), throughput (MB/s of the whole run), gc_active.

    ``gb_bytes``: bytes of host data per paper-equivalent GB, for a job file run (its series
    counts plain GB); else the series' own ``equivalent_gb`` (`--paper`). ``phase``: the name
    of the job section measured after the warm-up (its flows are ``PHASE.N``): then the run's
    totals (iops, throughput, erases, gc_moves, waf, latencies) are the phase's too, and
    the warm-up's end must be a series point (a missing one is an error, not a zero)."""
    r = raw[0] if isinstance(raw, list) else raw
    t = r.get("timing") or {}
    m: dict = {}
    series = t.get("series") or []
    base = _phase_start(series, offset_gb, gb_bytes, required=phase is not None)
    base_er, base_mv = (base["erases"], base["gc_page_moves"]) if base else (0, 0)
    onset = math.inf
    for p in series:
        gb = _gb(p, gb_bytes) - offset_gb
        if gb < 0.5:
            continue
        g = int(round(gb))
        rc, wc = p["read"]["count"], p["write"]["count"]
        n = rc + wc
        ws = wc / n if n else 0.0
        m[f"iops@{g}"] = p["iops"]
        m[f"bw@{g}"] = p["bandwidth_mb_s"]
        m[f"write_iops@{g}"] = p["iops"] * ws
        m[f"read_iops@{g}"] = p["iops"] * (1 - ws)
        m[f"write_bw@{g}"] = p["bandwidth_mb_s"] * ws
        m[f"erases@{g}"] = p["erases"] - base_er
        m[f"gc_moves@{g}"] = p["gc_page_moves"] - base_mv
        m[f"write_p99@{g}"] = p["write"]["p99_us"]
        m[f"read_p99@{g}"] = p["read"]["p99_us"]
        m[f"p99@{g}"] = p["write"]["p99_us"] if wc >= rc else p["read"]["p99_us"]
        if p["erases"] - base_er > 0 and onset == math.inf:
            onset = float(g)
    m["onset_gb"] = onset
    m["iops"] = t.get("iops", float("nan"))
    m["throughput"] = t.get("bandwidth_mb_s", float("nan"))
    tot = r.get("total") or {}
    m["erases"] = tot.get("erases", 0)
    m["gc_moves"] = tot.get("gc_writes", 0)
    m["waf"] = tot.get("waf", float("nan"))
    last = _last(series, offset_gb, gb_bytes)
    measured = m.get(f"erases@{last}") if last is not None else tot.get("erases", 0)
    m["gc_active"] = 1.0 if (measured or 0) > 0 else 0.0
    pa = all_request_percentiles(t)
    if pa:
        m["p99_all"], m["p9999_all"] = pa["p99"], pa["p9999"]
    wl, rl = t.get("write_latency") or {}, t.get("read_latency") or {}
    n = (wl.get("count") or 0) + (rl.get("count") or 0)
    if n:
        m["mean_latency"] = (
            (wl.get("mean_us") or 0) * (wl.get("count") or 0) + (rl.get("mean_us") or 0) * (rl.get("count") or 0)
        ) / n
    if phase is not None:
        m.update(_phase_totals(r, series, base, phase))
    pr = r.get("placement_report") or {}
    if isinstance(pr, dict):
        fp = _find(pr, ("false_positive_rate", "measured_fp_rate", "fp_rate"))
        if fp is not None:
            m["bloom_fp_pct"] = 100.0 * fp if fp <= 1.0 else fp
    return m


def replay_metrics(raw: Any) -> dict:
    """Metrics of a timed `flashgc run --json` trace replay, over the whole replay (the
    precondition fill excluded): iops, throughput (MB/s), mean_latency (us: reads, writes and
    flushes weighted by their counts), read_latency, write_latency, p99_all, erases, gc_moves, waf,
    gc_active and, when the trace has flushes, flush_latency."""
    r = raw[0] if isinstance(raw, list) else raw
    t = r.get("timing") or {}
    tot = r.get("total") or {}
    m: dict = {
        "iops": t.get("iops", float("nan")),
        "throughput": t.get("bandwidth_mb_s", float("nan")),
        "erases": tot.get("erases", 0),
        "gc_moves": tot.get("gc_writes", 0),
        "waf": tot.get("waf", float("nan")),
        "gc_active": 1.0 if tot.get("erases", 0) else 0.0,
    }
    wl, rl, fl = t.get("write_latency") or {}, t.get("read_latency") or {}, t.get("flush_latency") or {}
    parts = [(x.get("mean_us") or 0.0, x.get("count") or 0) for x in (wl, rl, fl)]
    n = sum(c for _, c in parts)
    if n:
        # A flush holds its queue slot like a request (docs/traces.md), and a database commit
        # waits for its fsync: the flushes' latency is part of what the application waits for.
        m["mean_latency"] = sum(v * c for v, c in parts) / n
    if wl.get("count"):
        m["write_latency"] = wl.get("mean_us", float("nan"))
    if rl.get("count"):
        m["read_latency"] = rl.get("mean_us", float("nan"))
    pa = all_request_percentiles(t)
    if pa:
        m["p99_all"] = pa["p99"]
    if fl.get("count"):
        m["flush_latency"] = fl.get("mean_us", float("nan"))
    return m


def _gb(p: dict, gb_bytes: Optional[float]) -> float:
    """A series point's host data in paper-equivalent GB."""
    return p["data_bytes"] / gb_bytes if gb_bytes else p["equivalent_gb"]


def _phase_start(series: list, offset_gb: float, gb_bytes: Optional[float], required: bool) -> Optional[dict]:
    """The series point at the warm-up's end (``offset_gb``), or None without a warm-up."""
    if offset_gb <= 0:
        return None
    for p in series:
        if abs(_gb(p, gb_bytes) - offset_gb) < 0.5:
            return p
    if required:
        raise ValueError(f"the result has no series point at the warm-up's end ({offset_gb:g} GB)")
    return None


def _phase_totals(r: dict, series: list, base: Optional[dict], phase: str) -> dict:
    """The measured phase's totals: from the series points after its start (counts and
    times) and from its flows (latencies), so that nothing of the warm-up is in them."""
    if base is None:
        raise ValueError("a measured phase needs its start point")
    after = [p for p in series if p["data_bytes"] > base["data_bytes"]]
    flows = [f for f in r.get("flows") or [] if f.get("name", "").rsplit(".", 1)[0] == phase]
    if not after or not flows:
        raise ValueError(f"the result has no series point or no flow of the measured phase `{phase}`")
    last = after[-1]
    dt = last["time_s"] - base["time_s"]
    reqs = sum(p["read"]["count"] + p["write"]["count"] for p in after)
    writes = sum(p["write"]["count"] for p in after)
    nbytes = last["data_bytes"] - base["data_bytes"]
    moves = last["gc_page_moves"] - base["gc_page_moves"]
    lpn = (r.get("device") or {}).get("lpn_size") or 4096
    # Each request of the job is whole LPNs: its bytes over the requests give the pages.
    pages_per_request = nbytes / reqs / lpn if reqs else 1.0
    m = {
        "iops": reqs / dt if dt > 0 else float("nan"),
        "throughput": nbytes / 1e6 / dt if dt > 0 else float("nan"),
        "erases": last["erases"] - base["erases"],
        "gc_moves": moves,
        "waf": 1.0 + moves / (writes * pages_per_request) if writes else float("nan"),
    }
    h = merged_histogram(*(f.get("read_histogram") for f in flows), *(f.get("write_histogram") for f in flows))
    if h:
        m["p99_all"], m["p9999_all"] = hist_percentile(h, 0.99), hist_percentile(h, 0.9999)
    lat = [f.get(k) or {} for f in flows for k in ("read_latency", "write_latency")]
    n = sum(x.get("count") or 0 for x in lat)
    if n:
        m["mean_latency"] = sum((x.get("mean_us") or 0) * (x.get("count") or 0) for x in lat) / n
    return m


def _last(series: list, offset_gb: float, gb_bytes: Optional[float] = None) -> Optional[int]:
    if not series:
        return None
    return int(round(_gb(series[-1], gb_bytes) - offset_gb))


def _find(d: Any, names: tuple) -> Optional[float]:
    """First numeric field with one of ``names`` anywhere in a nested dict."""
    if isinstance(d, dict):
        for k, v in d.items():
            if k in names and isinstance(v, (int, float)):
                return float(v)
        for v in d.values():
            x = _find(v, names)
            if x is not None:
                return x
    elif isinstance(d, list):
        for v in d:
            x = _find(v, names)
            if x is not None:
                return x
    return None


def fio_series(raw: Any, offset_gb: float = 0.0, gb_bytes: Optional[float] = None) -> list:
    """The series points of a fio result as dicts (gb, iops, bw, write_p99, read_p99, erases,
    gc_moves), for figures (``gb_bytes`` as in :func:`fio_metrics`)."""
    r = raw[0] if isinstance(raw, list) else raw
    out = []
    series = (r.get("timing") or {}).get("series") or []
    base = _phase_start(series, offset_gb, gb_bytes, required=False)
    base_er, base_mv = (base["erases"], base["gc_page_moves"]) if base else (0, 0)
    for p in series:
        gb = _gb(p, gb_bytes) - offset_gb
        if gb < 0.5:
            continue
        out.append(
            {
                "gb": gb,
                "iops": p["iops"],
                "bw": p["bandwidth_mb_s"],
                "write_p99": p["write"]["p99_us"],
                "read_p99": p["read"]["p99_us"],
                "erases": p["erases"] - base_er,
                "gc_moves": p["gc_page_moves"] - base_mv,
            }
        )
    return out
