"""The HTML report: one self-contained file with the figures the papers draw.

Figures are drawn with matplotlib (Agg backend, no display needed) and embedded in the
page as base64 PNG, so the page works offline and has no external resources. With
``figures_dir`` every figure is also written as PNG and SVG for papers.

Sections appear only when the results carry their data, and the page says when one is
left out: latency tails and IOPS / bandwidth / p99 over data volume need timed runs (the
``timing`` record of a result); MiDAS group sizes need a placement report with a
configuration history.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ._flashgc import FlashgcError
from .api import Result, summary_row

__all__ = ["report", "load_results", "Figure"]


def _mpl():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


class Figure:
    """One rendered figure: its id, title, caption and matplotlib figure."""

    def __init__(self, fid: str, title: str, caption: str, fig: Any):
        self.id = fid
        self.title = title
        self.caption = caption
        self.fig = fig

    def png(self) -> bytes:
        buf = io.BytesIO()
        # No bbox_inches="tight" here: every figure lays itself out, and a tight bbox
        # renders the figure twice.
        self.fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
        return buf.getvalue()

    def save(self, directory: str, formats: Sequence[str]) -> list:
        paths = []
        for fmt in formats:
            p = os.path.join(directory, f"{self.id}.{fmt}")
            meta = {"Software": None} if fmt == "png" else ({"Date": None} if fmt == "svg" else None)
            self.fig.savefig(p, format=fmt, dpi=200, bbox_inches="tight", metadata=meta)
            paths.append(p)
        return paths


# --- loading -------------------------------------------------------------------------


def load_results(results: Any) -> pd.DataFrame:
    """Results as a DataFrame with a ``result_json`` column: from a sweep dataset
    directory or Parquet file, a DataFrame, a :class:`Result`, or a list of Results /
    raw result dicts / JSON files."""
    if isinstance(results, pd.DataFrame):
        df = results.copy()
    elif isinstance(results, (str, os.PathLike)):
        p = os.fspath(results)
        if not os.path.exists(p):
            # A missing `x.parquet` said only "x.parquet" (the reader's bare error).
            raise ValueError(
                f"{p}: no such file or directory; give a sweep dataset directory (`flashgc sweep`'s "
                "`out`), a .parquet file or a .json result"
            )
        if os.path.isdir(p) or p.endswith(".parquet"):
            from .sweep import read_results

            df = read_results(p)
        elif p.endswith(".json"):
            df = _rows_of([_read_json(p)], [p])
        else:
            raise ValueError(f"{p}: expected a sweep dataset directory, a .parquet file or a .json result")
    elif isinstance(results, Result):
        df = _rows_of([results.raw])
    elif isinstance(results, Iterable):
        items = list(results)
        raws = []
        for r in items:
            if isinstance(r, Result):
                raws.append(r.raw)
            elif isinstance(r, dict):
                raws.append(r)
            elif isinstance(r, (str, os.PathLike)):
                raws.append(_read_json(os.fspath(r)))
            else:
                raise TypeError(f"cannot report on {type(r).__name__}")
        df = _rows_of(raws, [os.fspath(r) if isinstance(r, (str, os.PathLike)) else None for r in items])
    else:
        raise TypeError(f"cannot report on {type(results).__name__}")
    if "result_json" not in df.columns:
        where = f"{os.fspath(results)}: " if isinstance(results, (str, os.PathLike)) else ""
        what = "no results in it" if df.empty else "no `result_json` column"
        raise ValueError(f"{where}{what} (not a flashgc sweep dataset?)")
    return df.reset_index(drop=True)


def _read_json(path: str) -> Any:
    """A result file's JSON, or a ValueError naming the file (and the line of a syntax error)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: line {e.lineno}: not valid JSON: {e.msg}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text (a result is the JSON `flashgc run --json` writes)") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot be read: {e.strerror or e}") from None


def _rows_of(raws: list, names: Optional[list] = None) -> pd.DataFrame:
    rows = []
    for i, raw in enumerate(raws):
        try:
            row = summary_row(raw)
        except (FlashgcError, TypeError) as e:
            name = (names or [None] * len(raws))[i]
            raise FlashgcError(f"{name or f'result {i}'}: {e}") from None
        row["result_json"] = json.dumps(raw, sort_keys=True)
        rows.append(row)
    return pd.DataFrame(rows)


def _scheme(row: pd.Series) -> str:
    return f"{row['placement']} / {row['victim']}"


# --- figures -------------------------------------------------------------------------

_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


# Configuration fields that name the scheme or the repetition, not the case.
_NOT_CASE = {
    "run.placement",
    "run.victim",
    "run.seed",
    "run.max_memory_gib",
    # shown through the realised device (op, logical capacity) instead:
    "ftl.op",
    "ftl.op_of_physical",
    "ftl.logical_gib",
}


def _flat(d: Any, prefix: str = "") -> dict:
    out: dict = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flat(v, f"{prefix}{k}."))
    else:
        out[prefix[:-1]] = d
    return out


def _case_props(row: pd.Series) -> dict:
    """What makes a run's case: its workload, the realised device (preset, capacity, op,
    segment size) and, for sweep rows, every other configuration field."""
    raw = json.loads(row["result_json"])
    dev = raw.get("device", {})
    props = {
        "workload": row["workload"],
        "op": f"{float(row['op']):.3g}",
        "preset": str(dev.get("preset")),
        "logical": f"{float(dev.get('logical_gib', 0.0)):.3g} GiB",
        "segment": f"{dev.get('pages_per_segment')} pages",
    }
    text = row.get("config_toml") if "config_toml" in row.index else None
    if isinstance(text, str) and text:
        try:
            from ._sweep_file import _toml_loads

            for k, v in _flat(_toml_loads(text)).items():
                if k not in _NOT_CASE and k != "preset" and not k.startswith("run.workload"):
                    props[k] = json.dumps(v, sort_keys=True) if isinstance(v, (list, dict)) else str(v)
        except Exception:  # a row without a readable configuration: the result's fields suffice
            pass
    return props


def _cases(df: pd.DataFrame) -> pd.Series:
    """One label per run naming its whole configuration apart from the scheme and seed:
    workload and op always, then every other property that differs between runs (device
    size, preset, write volume, ...), so runs of different devices are never averaged."""
    props = [_case_props(r) for _, r in df.iterrows()]
    keys = sorted({k for p in props for k in p})
    varying = [k for k in keys if k not in ("workload", "op") and len({p.get(k) for p in props}) > 1]
    labels = []
    for p in props:
        parts = [p["workload"], f"op {p['op']}"] + [f"{k.split('.')[-1]} {p.get(k, '-')}" for k in varying]
        labels.append(", ".join(parts))
    return pd.Series(labels, index=df.index)


def fig_waf_bars(df: pd.DataFrame, plt) -> Figure:
    schemes = sorted(df["scheme"].unique())
    cases = sorted(df["case"].unique())
    g = df.groupby(["case", "scheme"])["waf"].agg(["mean", "std", "count"])
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(cases) * max(1, len(schemes)) / 2 + 2), 4.2))
    width = 0.8 / max(1, len(schemes))
    x = np.arange(len(cases))
    for i, s in enumerate(schemes):
        means = [g.loc[(c, s), "mean"] if (c, s) in g.index else np.nan for c in cases]
        stds = [g.loc[(c, s), "std"] if (c, s) in g.index else np.nan for c in cases]
        stds = [0.0 if not np.isfinite(v) else v for v in stds]
        ax.bar(
            x + (i - (len(schemes) - 1) / 2) * width,
            means,
            width,
            yerr=stds,
            capsize=3,
            label=s,
            color=_COLORS[i % len(_COLORS)],
        )
    ax.set_xticks(x)
    ax.set_xticklabels(cases, rotation=20, ha="right")
    ax.set_ylabel("steady-state WAF")
    ax.axhline(1.0, color="black", lw=0.6)
    ax.legend(title="placement / victim", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    nseeds = int(g["count"].max()) if len(g) else 0
    cap = (
        f"Steady-state WAF (flash programs / user writes after the warm-up) per scheme; bars are the "
        f"mean over seeds (up to {nseeds}), error bars one standard deviation."
    )
    return Figure("waf_per_scheme", "WAF per scheme", cap, fig)


def _series_frame(df: pd.DataFrame) -> pd.DataFrame:
    parts = []
    for _, row in df.iterrows():
        raw = json.loads(row["result_json"])
        s = pd.DataFrame(raw.get("series", []))
        if s.empty:
            continue
        s["scheme"] = row["scheme"]
        s["case"] = row["case"]
        s["seed"] = row["seed"]
        parts.append(s)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def fig_over_volume(series: pd.DataFrame, plt, column: str, ylabel: str, fid: str, title: str, cap: str) -> Figure:
    cases = sorted(series["case"].unique())
    n = len(cases)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.2 * rows), squeeze=False)
    schemes = sorted(series["scheme"].unique())
    for k, case in enumerate(cases):
        ax = axes[k // cols][k % cols]
        sub = series[series["case"] == case]
        for i, s in enumerate(schemes):
            d = sub[sub["scheme"] == s]
            if d.empty:
                continue
            # Mean over seeds at each window (windows are aligned: same volume per window).
            m = d.groupby("capacity_written")[column].mean()
            ax.plot(m.index, m.values, label=s, color=_COLORS[i % len(_COLORS)], lw=1.5)
        ax.set_title(case, fontsize=9)
        ax.set_xlabel("user data written (x logical capacity)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][0].legend(fontsize=7, title="placement / victim", title_fontsize=7)
    fig.tight_layout()
    return Figure(fid, title, cap, fig)


def fig_victim_hist(df: pd.DataFrame, plt) -> Figure:
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for i, (s, d) in enumerate(df.groupby("scheme", sort=True)):
        total = None
        width = 0.01
        for rj in d["result_json"]:
            h = json.loads(rj)["victim_valid_ratio"]
            c = np.asarray(h["counts"], dtype=float)
            width = float(h["bin_width"])
            total = c if total is None else total + c
        if total is None or total.sum() == 0:
            continue
        x = np.arange(len(total)) * width
        ax.step(x, total / total.sum(), where="post", label=s, color=_COLORS[i % len(_COLORS)])
    ax.set_xlabel("valid ratio of the victim segment")
    ax.set_ylabel("share of victims")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    cap = "Distribution of victim valid ratios (all runs of a scheme pooled): lower means cheaper GC."
    return Figure("victim_valid_ratio", "Victim valid ratios", cap, fig)


def fig_erase_counts(df: pd.DataFrame, plt) -> Figure:
    g = df.groupby("scheme", sort=True).agg(
        mean=("erase_mean", "mean"), sd=("erase_stddev", "mean"), lo=("erase_min", "min"), hi=("erase_max", "max")
    )
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    x = np.arange(len(g))
    ax.bar(
        x,
        g["mean"],
        yerr=g["sd"],
        capsize=4,
        color=[_COLORS[i % len(_COLORS)] for i in range(len(g))],
        label="mean ± std per block",
    )
    ax.scatter(x, g["lo"], marker="v", color="black", zorder=3, label="min")
    ax.scatter(x, g["hi"], marker="^", color="black", zorder=3, label="max")
    ax.set_xticks(x)
    ax.set_xticklabels(g.index, rotation=15, ha="right")
    ax.set_ylabel("erases per block")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    cap = (
        "Per-block erase counts (wear): mean with one standard deviation, and the fewest and most "
        "erases of any block, over all runs of a scheme. The core reports a summary per run, not the "
        "full per-block histogram."
    )
    return Figure("erase_counts", "Erase counts per block", cap, fig)


# Latency figures: drawn only for results with a `timing` record (timed runs).
_QUANTILES = [("p50_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999), ("p9999_us", 0.9999)]


def _timing_records(df: pd.DataFrame) -> list:
    out = []
    for _, row in df.iterrows():
        t = json.loads(row["result_json"]).get("timing")
        if isinstance(t, dict) and t:
            out.append((f"{row['scheme']} ({row['case']}, seed {row['seed']})", t))
    return out


def _tail_points(summary: Any) -> Optional[tuple]:
    """(latency_us, share of requests slower) from a latency summary's percentiles."""
    if not isinstance(summary, dict) or not summary.get("count"):
        return None
    xs, ys = [], []
    for k, q in _QUANTILES:
        if isinstance(summary.get(k), (int, float)) and summary[k] > 0:
            xs.append(float(summary[k]))
            ys.append(1.0 - q)
    return (np.asarray(xs), np.asarray(ys)) if len(xs) >= 2 else None


def fig_latency_tail(recs: list, plt) -> Optional[Figure]:
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    drawn = 0
    for ax, kind in zip(axes, ("read", "write")):
        here = 0
        for i, (label, t) in enumerate(recs[:8]):
            pts = _tail_points(t.get(f"{kind}_latency"))
            if pts is None:
                continue
            ax.plot(pts[0], pts[1], marker="o", label=label, color=_COLORS[i % len(_COLORS)])
            here += 1
        drawn += here
        if not here:
            ax.text(0.5, 0.5, f"no {kind}s in these runs", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"{kind}s", fontsize=9)
            continue
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"{kind} latency (us)")
        ax.set_ylabel("share of requests slower")
        ax.set_title(f"{kind}s", fontsize=9)
        ax.grid(alpha=0.3, which="both")
    if not drawn:
        plt.close(fig)
        return None
    for ax in axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
            break
    fig.tight_layout()
    cap = (
        "Latency tails (complementary CDF, splitgc style) at the p50, p99, p99.9 and p99.99 percentiles the "
        "timing layer reports (HDR histogram, 3 significant digits); not the full distribution."
    )
    return Figure("latency_tail", "Latency distribution tails", cap, fig)


def fig_timing_over_volume(recs: list, plt) -> Optional[Figure]:
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    drawn = 0
    for i, (label, t) in enumerate(recs[:8]):
        series = t.get("series")
        if not isinstance(series, list) or not series:
            continue
        s = pd.json_normalize(series, sep="_")
        x = s["equivalent_gb"]
        c = _COLORS[i % len(_COLORS)]
        axes[0].plot(x, s["iops"], color=c, label=label)
        axes[1].plot(x, s["bandwidth_mb_s"], color=c, label=label)
        if "write_p99_us" in s and (s["write_count"] > 0).any():
            axes[2].plot(x, s["write_p99_us"], color=c, label=f"{label} write")
        if "read_p99_us" in s and (s["read_count"] > 0).any():
            axes[2].plot(x, s["read_p99_us"], color=c, ls="--", label=f"{label} read")
        drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    for ax, yl in zip(axes, ("IOPS", "bandwidth (MB/s)", "p99 latency (us)")):
        ax.set_xlabel("host data volume (GB, paper-equivalent)")
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    axes[2].legend(fontsize=6)
    fig.tight_layout()
    cap = (
        "IOPS, bandwidth and p99 latency per checkpoint of host data volume (sup-gc style); the volume is "
        "scaled by the timing layer's volume_scale to the paper's device."
    )
    return Figure("timing_over_volume", "IOPS / bandwidth / p99 over data volume", cap, fig)


def _midas_history(raw: dict) -> Optional[pd.DataFrame]:
    """Group sizes over time from a placement report with a configuration history: a list
    of entries with a time (``user_pages``/``time``/``t``/``user_writes``) and group
    ``sizes`` (list of segments per group)."""
    rep = raw.get("placement_report")
    if not isinstance(rep, dict):
        return None
    hist = rep.get("history")
    if not isinstance(hist, list) or not hist:
        return None
    rows = []
    for h in hist:
        if not isinstance(h, dict):
            continue
        t = next((h[k] for k in ("user_pages", "user_writes", "time", "t") if isinstance(h.get(k), (int, float))), None)
        sizes = h.get("sizes") or h.get("group_sizes")
        if t is None or not isinstance(sizes, list):
            continue
        rows.append({"t": float(t), **{f"G{i}": float(v) for i, v in enumerate(sizes)}})
    if not rows:
        return None
    # The last configuration holds until the run's end (user writes incl. the precondition,
    # as MiDAS's epochs count them).
    end = float(raw.get("precondition", {}).get("user_writes", 0) + raw.get("total", {}).get("user_writes", 0))
    if end > rows[-1]["t"]:
        rows.append({**rows[-1], "t": end})
    return pd.DataFrame(rows).fillna(0.0)


def fig_midas_groups(df: pd.DataFrame, plt) -> Optional[Figure]:
    items = []
    for _, row in df.iterrows():
        h = _midas_history(json.loads(row["result_json"]))
        if h is not None and len(h):
            items.append((f"{row['scheme']} ({row['case']}, seed {row['seed']})", h))
    if not items:
        return None
    items = items[:6]
    fig, axes = plt.subplots(len(items), 1, figsize=(8, 2.6 * len(items)), squeeze=False)
    for ax, (label, h) in zip(axes[:, 0], items):
        groups = [c for c in h.columns if c != "t"]
        # Steps with markers: a history of one entry (one configuration) still shows.
        for j, g in enumerate(groups):
            ax.step(h["t"], h[g], where="post", marker="o", ms=3, label=g, color=_COLORS[j % len(_COLORS)])
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("user writes (pages)")
        ax.set_ylabel("segments")
        # Outside the axes: inside, it covered the largest group's line.
        ax.legend(
            fontsize=7,
            ncol=1 + (len(groups) - 1) // 12,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            title="group",
            title_fontsize=7,
        )
    fig.tight_layout()
    cap = (
        "MiDAS group sizes (segments per group) over user writes, from the placement's configuration "
        "history: one marker per (re)configuration, held until the next."
    )
    return Figure("midas_groups", "MiDAS group sizes over time", cap, fig)


# --- page ----------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1150px;
color:#222;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
figure{margin:1em 0;padding:.5em;border:1px solid #eee;border-radius:4px}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#555;margin-top:.4em}
.wide{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;font-size:.78em}td,th{border:1px solid #ddd;padding:3px 6px;text-align:right}
th{background:#f5f5f5}td:first-child,th:first-child{text-align:left}
.note{background:#fff8e1;border-left:4px solid #f0c36d;padding:.5em .8em;margin:.8em 0}
.broken{outline:3px solid #d62728}
"""

# Marks figures that failed to load, so a broken page is visible to readers (and tests).
_SCRIPT = """
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('figure img'), ok = 0;
  for (var i = 0; i < imgs.length; i++) {
    var im = imgs[i], r = im.getBoundingClientRect();
    var good = im.complete && im.naturalWidth > 0 && im.naturalHeight > 0;
    if (good) { ok++; } else { im.className += ' broken'; }
    im.setAttribute('data-rendered', good ? 'yes' : 'no');
    im.setAttribute('data-box', [Math.round(r.left + window.scrollX), Math.round(r.top + window.scrollY),
      Math.round(r.width), Math.round(r.height)].join(','));
  }
  document.body.setAttribute('data-figures', ok + '/' + imgs.length);
  document.body.setAttribute('data-page-width', document.documentElement.scrollWidth);
  document.body.setAttribute('data-height', Math.ceil(document.documentElement.scrollHeight));
});
"""


def _table_html(df: pd.DataFrame) -> str:
    # In a scrolling box: a table wider than the window scrolls instead of being cut off.
    t = df.to_html(index=False, border=0, float_format=lambda v: f"{v:.4g}", na_rep="—", escape=True)
    return f'<div class="wide">{t}</div>'


def report(
    results: Any,
    out: Union[str, os.PathLike[str]] = "report.html",
    figures_dir: Optional[Union[str, os.PathLike[str]]] = None,
    formats: Sequence[str] = ("png", "svg"),
    title: str = "flashgc report",
) -> str:
    """Writes the self-contained HTML report of ``results`` to ``out`` and returns its path.

    ``results``: a sweep dataset directory or Parquet file, a DataFrame of sweep rows, or
    Results / raw result dicts. ``figures_dir``: also save each figure there in
    ``formats`` (PNG and SVG by default) for papers.
    """
    plt = _mpl()
    df = load_results(results)
    if df.empty:
        raise ValueError("no results to report on")
    df["scheme"] = df.apply(_scheme, axis=1)
    df["case"] = _cases(df)
    raws = [json.loads(s) for s in df["result_json"]]
    df["preset"] = [str(r.get("device", {}).get("preset")) for r in raws]
    df["logical_gib"] = [float(r.get("device", {}).get("logical_gib", float("nan"))) for r in raws]
    sections: list = []  # (heading, [Figure], [notes])
    figs: list = []

    f = fig_waf_bars(df, plt)
    figs.append(f)
    sections.append(("Write amplification per scheme", [f], []))

    series = _series_frame(df)
    if not series.empty:
        fw = fig_over_volume(
            series,
            plt,
            "waf_cumulative",
            "cumulative WAF",
            "waf_over_volume",
            "WAF over data written",
            "Cumulative WAF of the measured phase over user data written (mean over seeds).",
        )
        fe = fig_over_volume(
            series,
            plt,
            "erases",
            "segment erases",
            "erases_over_volume",
            "Erases over data written",
            "Segment erases since the start of the measured phase over user data written.",
        )
        figs += [fw, fe]
        sections.append(("WAF and erases over data written", [fw, fe], []))
    else:
        sections.append(("WAF and erases over data written", [], ["The results carry no WAF time series."]))

    recs = _timing_records(df)
    lat_figs = [x for x in (fig_latency_tail(recs, plt), fig_timing_over_volume(recs, plt)) if x]
    figs += lat_figs
    lat_note = []
    if not recs:
        lat_note = [
            "No latency data: these runs are WAF-only (timing layer off), so the latency distributions "
            "and the IOPS / bandwidth / p99 curves over data volume are left out."
        ]
    elif len(recs) < len(df):
        lat_note = [f"{len(recs)} of {len(df)} runs are timed; the latency figures show those."]
    if recs and not any(isinstance(t.get("series"), list) and t["series"] for _, t in recs):
        lat_note.append(
            "The timed runs have no checkpoint series (timing checkpoint_bytes = 0), so the curves "
            "over data volume are left out."
        )
    sections.append(("Latency and throughput", lat_figs, lat_note))

    fm = fig_midas_groups(df, plt)
    if fm is not None:
        figs.append(fm)
        sections.append(("MiDAS group sizes over time", [fm], []))
    else:
        sections.append(
            (
                "MiDAS group sizes over time",
                [],
                [
                    "No run carries a MiDAS configuration history (placement report with a `history`), "
                    "so this figure is left out."
                ],
            )
        )

    fv = fig_victim_hist(df, plt)
    fc = fig_erase_counts(df, plt)
    figs += [fv, fc]
    sections.append(("GC victims and wear", [fv, fc], []))

    # Tables.
    cols = [
        "scheme",
        "case",
        "preset",
        "logical_gib",
        "seed",
        "waf",
        "waf_total",
        "erases",
        "gc_writes",
        "effective_alpha",
        "model_waf",
        "erase_max",
        "memory_bytes_per_lpn",
        "iops",
        "write_p99_us",
        "read_p99_us",
    ]
    cols = [
        c for c in cols if c in df.columns and not (c in ("iops", "write_p99_us", "read_p99_us") and df[c].isna().all())
    ]
    summary = (
        df.groupby(["scheme", "case", "preset", "logical_gib"], sort=True)
        .agg(
            runs=("waf", "size"),
            waf_mean=("waf", "mean"),
            waf_std=("waf", "std"),
            waf_min=("waf", "min"),
            waf_max=("waf", "max"),
            erases_mean=("erases", "mean"),
        )
        .reset_index()
    )
    runs_tbl = (
        df[cols]
        .sort_values(["scheme", "case", "seed"])
        .reset_index(drop=True)
        .rename(columns={"memory_bytes_per_lpn": "B/LPN", "effective_alpha": "alpha_eff"})
    )
    notes = sorted({n for rj in df["result_json"] for n in json.loads(rj).get("notes", [])})
    first = json.loads(df["result_json"].iloc[0])
    units = first.get("units", {})

    if figures_dir is not None:
        fd = os.fspath(figures_dir)
        os.makedirs(fd, exist_ok=True)
        for f in figs:
            f.save(fd, formats)

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{len(df)} runs, {df['scheme'].nunique()} schemes, {df['case'].nunique()} cases (configurations "
        f"apart from the scheme and seed: runs are averaged within a case only); "
        f"flashgc {html.escape(str(first.get('flashgc_version', '?')))}. Counts are in "
        f"{html.escape(str(units.get('page_bytes', '?')))}-byte mapping units; over-provisioning is "
        f"{html.escape(str(units.get('op_definition', 'op')))}.</p>",
    ]
    for heading, fl, nl in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        for n in nl:
            parts.append(f'<p class="note">{html.escape(n)}</p>')
        for f in fl:
            b64 = base64.b64encode(f.png()).decode("ascii")
            parts.append(
                f'<figure id="{f.id}"><img alt="{html.escape(f.title)}" src="data:image/png;base64,{b64}">'
                f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption></figure>"
            )
    parts.append("<h2>Summary per scheme and case</h2>")
    parts.append(_table_html(summary))
    parts.append("<h2>All runs</h2>")
    parts.append(_table_html(runs_tbl))
    if notes:
        parts.append("<h2>Notes from the simulator</h2><ul>")
        parts += [f"<li>{html.escape(n)}</li>" for n in notes]
        parts.append("</ul>")
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    for f in figs:
        plt.close(f.fig)
    out_path = os.fspath(out)
    d = os.path.dirname(os.path.abspath(out_path))
    os.makedirs(d, exist_ok=True)
    tmp = out_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
    os.replace(tmp, out_path)
    return out_path
