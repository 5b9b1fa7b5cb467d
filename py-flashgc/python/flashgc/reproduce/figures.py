"""The figures of a reproduction, of the kinds the papers draw: IOPS / bandwidth / p99 /
erases / GC moves over data volume (sup-gc, bf-gc), latency CDFs, migrated pages and
normalized latencies (splitgc), improvement bars and request time series (noc), WAF bars,
group sizes over time and WAF against over-provisioning with the analytic model (midas),
and one small sensitivity plot per claim."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from ..report import Figure
from .claims import CANNOT, CONTRADICTS, DIRECTION, HOLDS
from .papers.common import fio_series, fmt_param

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"]
STYLES = ["-", "--", ":", "-."]  # distinct dashes so that identical curves stay visible
VERDICT_COLORS = {HOLDS: "#2ca02c", DIRECTION: "#ff7f0e", CONTRADICTS: "#d62728", CANNOT: "#9e9e9e"}
QUANTILES = (("p50_us", 0.5), ("p99_us", 0.99), ("p999_us", 0.999), ("p9999_us", 0.9999))


class Ctx:
    """What figure functions see: the paper, its base cases and their raw results.
    ``left_out``: base cases the run did not run although it could (a `--claim` run); the
    keys each figure reads are recorded so that a figure reading one of them is skipped
    (named in ``skipped``) rather than drawn without it."""

    def __init__(
        self,
        paper: Any,
        cases: dict,
        raw: Callable[[str], Optional[Any]],
        result: dict,
        left_out: Optional[set] = None,
    ):
        self.paper, self.cases, self._raw, self.result = paper, cases, raw, result
        self.left_out = set(left_out or ())
        self.skipped: list = []  # [{"figure": id, "needs": [case keys]}]
        self._reads: set = set()

    def raw(self, key: str) -> Optional[Any]:
        self._reads.add(key)
        return self._raw(key)

    def take_reads(self) -> set:
        """The keys read since the last call."""
        r, self._reads = self._reads, set()
        return r


def _scheme_color(i: int) -> str:
    return COLORS[i % len(COLORS)]


# --- latency CDFs ----------------------------------------------------------------------


def cdf_points(summary: Any, histogram: Optional[list] = None) -> Optional[tuple]:
    """(latencies, cumulative share) of a latency summary: from its whole histogram when the
    result carries one (``histogram``: [[upper_us, count], ...]), else from its percentiles
    (p50 .. p99.99, max); the second element says which."""
    h = histogram if histogram else (summary.get("histogram") if isinstance(summary, dict) else None)
    if not h and (not isinstance(summary, dict) or not summary.get("count")):
        return None
    if isinstance(h, list) and h:
        tot = float(sum(c for _, c in h)) or 1.0
        xs, ys, acc = [], [], 0.0
        for up, c in h:
            acc += c
            xs.append(float(up))
            ys.append(acc / tot)
        return xs, ys, "histogram"
    xs, ys = [], []
    for k, q in QUANTILES:
        v = summary.get(k)
        if isinstance(v, (int, float)) and v > 0:
            xs.append(float(v))
            ys.append(q)
    if isinstance(summary.get("max_us"), (int, float)) and summary["max_us"] > 0:
        xs.append(float(summary["max_us"]))
        ys.append(1.0)
    return (xs, ys, "percentiles") if len(xs) >= 2 else None


def fig_cdf(fid: str, title: str, curves: list, plt, xlabel: str = "response time (us)") -> Optional[Figure]:
    """Latency CDFs (y: cumulative share, log-scaled tail as 1 - F). ``curves``: [(label, summary)]
    or [(label, summary, histogram)] with the result's whole `[upper us, count]` histogram."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    kinds = set()
    drawn = 0
    for i, curve in enumerate(curves):
        label, summ = curve[0], curve[1]
        pts = cdf_points(summ, curve[2] if len(curve) > 2 else None)
        if pts is None:
            continue
        xs, ys, kind = pts
        kinds.add(kind)
        c = _scheme_color(i)
        axes[0].step(xs, ys, where="post", color=c, label=label, marker="o" if kind == "percentiles" else None, ms=3)
        tail = [max(1.0 - y, 1e-6) for y in ys]
        axes[1].step(xs, tail, where="post", color=c, label=label, marker="o" if kind == "percentiles" else None, ms=3)
        drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("CDF")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("share slower (1 - CDF)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    src = (
        "the whole latency histogram"
        if kinds == {"histogram"}
        else "the percentiles the result carries (p50, p99, p99.9, p99.99, max), joined as steps: the result has "
        "no whole histogram yet"
    )
    return Figure(fid, title, f"Cumulative distribution of response times from {src}.", fig)


# --- fio series (sup-gc, bf-gc) --------------------------------------------------------


def fig_fio_series(
    ctx: Ctx,
    series: str,
    figure: str,
    plt,
    offset_gb: float = 0.0,
    panels: tuple = (
        ("iops", "IOPS"),
        ("bw", "BW (MB/s)"),
        ("erases", "block erases"),
        ("gc_moves", "GC page moves"),
        ("p99", "p99 latency (us)"),
    ),
) -> Optional[Figure]:
    schemes = [(k.split("/", 1)[1], k) for k in ctx.cases if k.startswith(series + "/")]
    data = []
    for name, key in schemes:
        raw = ctx.raw(key)
        if raw is not None:
            data.append((name, fio_series(raw, offset_gb)))
    data = [d for d in data if d[1]]
    if not data:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(3.0 * len(panels), 3.0))
    for i, (name, pts) in enumerate(data):
        xs = [p["gb"] for p in pts]
        for ax, (col, _label) in zip(axes, panels):
            if col == "p99":
                ys = [p["write_p99"] if p["write_p99"] > 0 else p["read_p99"] for p in pts]
            else:
                ys = [p[col] for p in pts]
            ax.plot(xs, ys, marker="o", ms=3, color=_scheme_color(i), label=name, ls=STYLES[i % len(STYLES)])
    for ax, (_, label) in zip(axes, panels):
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("data volume (GB)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if label.startswith("p99"):
            ax.set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    w = ctx.cases[schemes[0][1]].labels.get("writes")
    return Figure(
        f"{ctx.paper.name}-{series}",
        f"{figure}: fio randrw, {w} % writes",
        "Per 100 GB (paper-equivalent) of host data: IOPS and bandwidth in the window, cumulative erases and "
        "GC page moves, write p99 (read p99 where the window has no writes).",
        fig,
    )


# --- bars -------------------------------------------------------------------------------


def fig_bars(
    fid: str,
    title: str,
    caption: str,
    groups: list,
    series: list,
    values: Callable,
    plt,
    ylabel: str,
    log: bool = False,
    ref: Optional[float] = None,
) -> Optional[Figure]:
    """Grouped bars: ``values(group, series)`` -> number or None."""
    import numpy as np

    mat = [[values(g, s) for s in series] for g in groups]
    if all(v is None for row in mat for v in row):
        return None
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(1, len(series)) / 2), 3.4))
    x = np.arange(len(groups))
    w = 0.8 / max(1, len(series))
    for j, s in enumerate(series):
        ys = [row[j] if row[j] is not None and math.isfinite(row[j]) else 0.0 for row in mat]
        ax.bar(x + (j - (len(series) - 1) / 2) * w, ys, w, label=s, color=_scheme_color(j))
    if ref is not None:
        ax.axhline(ref, color="#444", lw=0.8, ls="--")
    ax.set_xticks(x)
    ax.set_xticklabels(groups, fontsize=8, rotation=20 if len(groups) > 6 else 0)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7, ncol=min(6, len(series)))
    fig.tight_layout()
    return Figure(fid, title, caption, fig)


# --- sensitivity -----------------------------------------------------------------------


def fig_sensitivity(paper: str, claim: dict, sens: list, plt) -> Optional[Figure]:
    """One small plot per claim: flashgc's value at each swept setting, one panel per
    parameter, markers coloured by verdict, the paper's value and tolerance as a band."""
    panels = []
    for d in sens:
        pts = d["claims"].get(claim["id"]) or []
        if any(p["verdict"] != CANNOT and p["flashgc"] is not None for p in pts):
            panels.append((d, pts))
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(2.1 * len(panels) + 0.6, 2.1), squeeze=False)
    pv, tol = claim.get("paper_value"), claim.get("tolerance_value")
    for ax, (d, pts) in zip(axes[0], panels):
        xs = list(range(len(pts)))
        ys = [p["flashgc"] if p["flashgc"] is not None else float("nan") for p in pts]
        ax.plot(xs, ys, color="#555", lw=0.8)
        for x, y, p in zip(xs, ys, pts):
            ax.scatter(
                [x],
                [y],
                color=VERDICT_COLORS.get(p["verdict"], "#000"),
                s=22,
                zorder=3,
                edgecolors="k" if p["value"] == d["base"] else "none",
            )
        if isinstance(pv, (int, float)):
            ax.axhline(pv, color="#1f77b4", lw=0.8, ls="--")
            if isinstance(tol, (int, float)) and tol > 0:
                ax.axhspan(pv - tol, pv + tol, color="#1f77b4", alpha=0.08)
        elif claim.get("kind") in ("change", "effect", "difference"):
            ax.axhline(0.0, color="#444", lw=0.6)
        ax.set_xticks(xs)
        ax.set_xticklabels([fmt_param(p["value"]) for p in pts], fontsize=6, rotation=30)
        ax.set_title(d["param"], fontsize=7)
        ax.tick_params(axis="y", labelsize=6)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"{claim['metric']} ({claim['unit']})"[:40], fontsize=6)
    fig.suptitle(f"{claim['id']} ({claim['figure']}): paper {claim['paper']}", fontsize=7)
    fig.tight_layout()
    safe = claim["id"].replace(":", "_").replace("/", "_")
    return Figure(
        f"{paper}-sens-{safe}",
        f"Sensitivity of {claim['id']}",
        "flashgc's value at each swept setting (one panel per parameter, the base setting outlined); "
        "green holds, orange direction only, red contradicts; dashed: the paper's value, band: tolerance.",
        fig,
    )
