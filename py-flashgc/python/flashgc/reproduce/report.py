"""The reproduction's HTML report: one section per paper with its claims table (verdicts
coloured, the paper's sentence on hover), its figures, and the sensitivity plots; every
figure also written as PNG and SVG."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from typing import Any, Optional

from ..report import _CSS, _SCRIPT, _mpl
from .figures import COLORS, STYLES, VERDICT_COLORS, Ctx, fig_bars, fig_cdf, fig_fio_series, fig_sensitivity

_EXTRA_CSS = """
td.v{font-weight:600;color:#fff;text-align:center}td.l{text-align:left}
.small{font-size:.85em;color:#555}details{margin:.6em 0}summary{cursor:pointer}
"""


class _Drawn:
    """The paper's figures as drawn, each checked against the cases it read: a figure that
    read a case the run left out (a `--claim` run) would be partial, so it is dropped and
    named in ``ctx.skipped`` with those cases."""

    def __init__(self, ctx: Ctx, plt):
        self.ctx, self.plt, self.figs = ctx, plt, []
        ctx.take_reads()

    def add(self, fid: str, f) -> None:
        lacking = sorted(self.ctx.take_reads() & self.ctx.left_out)
        if lacking:
            if f is not None:
                self.plt.close(f.fig)
            self.ctx.skipped.append({"figure": fid, "needs": lacking})
        elif f is not None:
            self.figs.append(f)


def _paper_figures(ctx: Ctx, plt) -> list:
    name = ctx.paper.name
    figs = _Drawn(ctx, plt)
    if name in ("sup-gc", "bf-gc"):
        order = {
            "sup-gc": ((1, "Fig. 14"), (25, "Fig. 15"), (50, "Fig. 16"), (75, "Fig. 17"), (99, "Fig. 18")),
            "bf-gc": ((1, "Fig. 5"), (25, "Fig. 6"), (50, "Fig. 7"), (75, "Fig. 8"), (99, "Fig. 9")),
        }[name]
        offset = 1000.0 if name == "bf-gc" else 0.0
        panels = (
            (
                ("read_iops", "IOPS read"),
                ("write_iops", "IOPS write"),
                ("bw", "BW (MB/s)"),
                ("erases", "erase count"),
                ("gc_moves", "GC pages"),
            )
            if name == "bf-gc"
            else None
        )
        for w, fig_name in order:
            if panels:
                f = _bf_series(ctx, f"w{w}", fig_name, plt, offset, panels)
            else:
                f = fig_fio_series(ctx, f"w{w}", fig_name, plt, offset_gb=offset)
            figs.add(f"{name}-w{w}", f)
        if name == "sup-gc":
            seq = [k for k in ctx.cases if k.startswith("seq/")]
            base = _metric(ctx, "seq/cosmos", "throughput")
            f = fig_bars(
                "sup-gc-fig13",
                "Fig. 13: normalized throughput, sequential writes without GC",
                "Bandwidth of each scheme over Cosmos+'s, sequential 4 KiB writes from an empty device.",
                ["throughput"],
                [k.split("/")[1] for k in seq],
                lambda g, s: _ratio(_metric(ctx, f"seq/{s}", "throughput"), base),
                plt,
                "normalized throughput",
                ref=1.0,
            )
            figs.add("sup-gc-fig13", f)
        curves = []
        for k in ctx.cases:
            if k.startswith("w75/"):
                raw = ctx.raw(k)
                if raw is not None:
                    r = raw[0] if isinstance(raw, list) else raw
                    t = r.get("timing") or {}
                    curves.append((k.split("/")[1], t.get("write_latency"), t.get("write_histogram")))
        f = fig_cdf(f"{name}-w75-cdf", "Write latency distribution, 75 % writes", curves, plt)
        figs.add(f"{name}-w75-cdf", f)
    elif name == "splitgc":
        wls = [w for w in ("home1", "home2", "home3", "webmail", "webresearch", "webusers", "fiu-mail")]
        schemes = ["greedy", "dagc", "cagc", "splitgc"]

        def norm(metric):
            def f(w, s):
                return _ratio(_metric(ctx, f"{w}/{s}", metric), _metric(ctx, f"{w}/greedy", metric))

            return f

        for fid, title, metric, yl in (
            ("fig6", "Fig. 6: average read latency", "read_mean", "normalized read latency"),
            ("fig7", "Fig. 7: average write latency", "write_mean", "normalized write latency"),
            ("fig14", "Fig. 14: P99 latency", "p99", "normalized P99"),
            ("fig15", "Fig. 15: valid pages migrated by GC", "migrated", "normalized migrated pages"),
        ):
            f = fig_bars(
                f"splitgc-{fid}",
                title,
                f"{metric} of each scheme over the Baseline's (greedy), per workload.",
                wls,
                schemes,
                norm(metric),
                plt,
                yl,
                ref=1.0,
            )
            figs.add(f"splitgc-{fid}", f)
        for w, fig_name in (("webmail", "Fig. 11"), ("home2", "Fig. 9"), ("fiu-mail", "Fig. 11, real FIU mail slice")):
            curves = []
            for s in schemes:
                raw = ctx.raw(f"{w}/{s}")
                if raw is not None:
                    r = raw[0] if isinstance(raw, list) else raw
                    if "result" in r:  # one-engine record: all requests from the whole histograms
                        from .papers.common import merged_histogram

                        t = r["result"].get("timing") or {}
                        h = merged_histogram(t.get("read_histogram"), t.get("write_histogram"))
                        curves.append((s, t.get("write_latency"), h))
                    else:
                        curves.append((s, r.get("all")))
            f = fig_cdf(f"splitgc-cdf-{w}", f"{fig_name}: CDF of response time in {w}", curves, plt)
            figs.add(f"splitgc-cdf-{w}", f)
    elif name == "noc":
        profiles = ["cassandra", "dbench", "mysql", "sqlite", "mongodb", "rocksdb"]
        paper4 = {
            "cassandra": 26.924,
            "dbench": 24.162,
            "mysql": 7.161,
            "sqlite": 4.692,
            "mongodb": 4.562,
            "rocksdb": 0.409,
        }
        paper5 = {
            "cassandra": 28.095,
            "dbench": 14.430,
            "mysql": 13.847,
            "sqlite": 11.520,
            "mongodb": 11.160,
            "rocksdb": 2.275,
        }
        for fid, title, metric, ref in (
            ("table4", "Table 4: average write latency improvement", "write_mean_change", paper4),
            ("table5", "Table 5: peak write latency improvement", "write_max_change", paper5),
        ):

            def val(g, s, metric=metric, ref=ref):
                if s == "paper":
                    return ref[g]
                v = _metric(ctx, g, metric)
                return -v if v is not None else None

            f = fig_bars(
                f"noc-{fid}",
                title,
                "Improvement of selective over conventional copy-back (%), the paper's and flashgc's, per workload.",
                profiles,
                ["paper", "flashgc"],
                val,
                plt,
                "improvement (%)",
            )
            figs.add(f"noc-{fid}", f)
        f = fig_bars(
            "noc-fig8",
            "Fig. 8: copy-backs",
            "Copy-backs (GC page relocations) per host-written page.",
            profiles,
            ["flashgc"],
            lambda g, s: _metric(ctx, g, "copybacks_per_page"),
            plt,
            "copy-backs / page",
        )
        figs.add("noc-fig8", f)
        for p in ("cassandra", "mysql"):
            f = _noc_series(ctx, p, plt)
            figs.add(f"noc-fig7-{p}", f)
    elif name == "midas":
        wls = [
            w
            for w in ("fio-h", "fio-m", "ycsb-a", "tpcc", "exchange", "alibaba")
            if any(k.startswith(w + "/") for k in ctx.cases)
        ]
        schemes = ["cat", "autostream", "mida", "sepbit", "midas", "oracle"]
        f = fig_bars(
            "midas-fig11",
            "Fig. 11: WAF of each technique",
            "Steady-state WAF; MiDAS with FIFO victims, the others with cost-benefit (ORA: the oracle).",
            wls,
            schemes,
            lambda g, s: _metric(ctx, f"{g}/{s}", "waf"),
            plt,
            "WAF",
        )
        figs.add("midas-fig11", f)
        vic = ["sepbit", "mida", "cat", "autostream", "oracle"]
        f = fig_bars(
            "midas-fig5",
            "Fig. 5: WAF by victim selection (YCSB-A stand-in)",
            "Each technique with FIFO, greedy and cost-benefit victims.",
            vic,
            ["fifo", "greedy", "cost-benefit"],
            lambda g, s: _metric(ctx, f"ycsb-a/{g}" + ("" if s == "cost-benefit" else f"-{s}"), "waf"),
            plt,
            "WAF",
        )
        figs.add("midas-fig5", f)
        f = _group1_sizes(ctx, plt)
        figs.add("midas-fig3b", f)
        f = _midas_groups(ctx, "fio-h/midas", plt)
        figs.add("midas-fig14", f)
        f = _waf_vs_op(ctx, plt)
        figs.add("midas-waf-vs-op", f)
    return figs.figs


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if (a is not None and b) else None


def _metric(ctx: Ctx, key: str, metric: str) -> Optional[float]:
    case = ctx.cases.get(key)
    raw = ctx.raw(key) if case is not None else None
    if raw is None:
        return None
    try:
        v = ctx.paper.metrics(case, raw).get(metric)
    except Exception:
        return None
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def _bf_series(ctx: Ctx, series: str, figure: str, plt, offset: float, panels: tuple):
    from .papers.common import fio_series

    schemes = [(k.split("/", 1)[1], k) for k in ctx.cases if k.startswith(series + "/")]
    data = [
        (n, fio_series(ctx.raw(k), offset, ctx.cases[k].labels.get("gb_bytes")))
        for n, k in schemes
        if ctx.raw(k) is not None
    ]
    data = [d for d in data if d[1]]
    if not data:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(3.0 * len(panels), 3.0))
    for i, (n, pts) in enumerate(data):
        xs = [p["gb"] for p in pts]
        for ax, (col, _label) in zip(axes, panels):
            if col in ("read_iops", "write_iops"):
                # fio_series keeps total IOPS; the write share comes from the metrics.
                m = ctx.paper.metrics(ctx.cases[f"{series}/{n}"], ctx.raw(f"{series}/{n}"))
                ys = [m.get(f"{col}@{int(round(x))}", float("nan")) for x in xs]
            else:
                ys = [p[col] for p in pts]
            ax.plot(xs, ys, marker="o", ms=3, color=COLORS[i % len(COLORS)], label=n, ls=STYLES[i % len(STYLES)])
    for ax, (_, label) in zip(axes, panels):
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("data volume after warm-up (GB)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    from ..report import Figure

    w = ctx.cases[schemes[0][1]].labels.get("writes")
    return Figure(
        f"{ctx.paper.name}-{series}",
        f"{figure}: fio randrw, {w} % writes, 300 GB after the warm-up",
        "Per 100 GB (paper-equivalent) after the 1000 GB warm-up: read and write IOPS and bandwidth in the "
        "window, erases and GC page moves counted from the end of the warm-up.",
        fig,
    )


def _noc_series(ctx: Ctx, profile: str, plt):
    from ..report import Figure

    raw = ctx.raw(profile)
    if raw is None:
        return None
    from .papers.noc import noc_paths

    raw = noc_paths(raw)
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.0), sharey=False)
    for ax, path in zip(axes, ("conventional", "selective")):
        s = raw[path].get("series") or []
        if not s:
            continue
        # A slice of 300 windows from the first with GC work, as the paper's Fig. 7 zooms in.
        first = next((i for i, p in enumerate(s) if p["gc_tasks"] > 0), 0)
        s = s[first : first + 300]
        t = [p["t_ms"] / 1000.0 for p in s]
        ax.plot(t, [p["host_requests"] for p in s], lw=0.6, label="host requests")
        ax.plot(t, [p["gc_tasks"] for p in s], lw=0.6, label="GC tasks")
        ax.plot(t, [p["pending_host"] for p in s], lw=0.6, label="pending host requests")
        ax.set_title(path, fontsize=9)
        ax.set_xlabel("time (s)")
        ax.set_yscale("symlog")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return Figure(
        f"noc-fig7-{profile}",
        f"Fig. 7: host requests, GC tasks and pending requests ({profile})",
        f"Per window of {raw['conventional'].get('window_ms', '?')} ms, 300 windows from the first with GC "
        "work; both copy-back paths on the same arrivals.",
        fig,
    )


def _waf_figure(fig, ax, xlabel: str, fid: str, title: str, caption: str):
    """A one-panel figure of steady-state WAF against `xlabel`, finished (legend, grid)."""
    from ..report import Figure

    ax.set_xlabel(xlabel)
    ax.set_ylabel("steady-state WAF")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return Figure(fid, title, caption, fig)


def _group1_sizes(ctx: Ctx, plt):
    """Fig. 3(b): WAF against the size Group 1 is held at, each scheme's free run at its mean size."""
    from .papers.midas import GROUP1_SIZES

    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    drawn = 0
    for i, sc in enumerate(("mida", "sepbit")):
        pts = [(n, _metric(ctx, f"ycsb-a-mysql/{sc}-g1-{n}", "waf")) for n in GROUP1_SIZES]
        pts = [p for p in pts if p[1] is not None]
        if not pts:
            continue
        c = COLORS[i]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=c, label=f"{sc}: Group 1 held")
        key = f"ycsb-a-mysql/{sc}"
        w = _metric(ctx, key, "waf")
        raw = ctx.raw(key) if key in ctx.cases else None
        g = ((raw or {}).get("placement_report") or {}).get("group1") or {}
        if w is not None and isinstance(g.get("mean_segments"), (int, float)):
            ax.plot([g["mean_segments"]], [w], "o", color="#d62728", ms=9, mfc="none", mew=2)
            ax.annotate(f"{sc} free", (g["mean_segments"], w), fontsize=7, xytext=(4, 4), textcoords="offset points")
        drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log")
    return _waf_figure(
        fig,
        ax,
        "Group 1 size (segments)",
        "midas-fig3b",
        "Fig. 3(b): WAF against the size of Group 1 (YCSB-A on MySQL, recorded)",
        "MiDA's G1 and SepBIT's class 1 held at a number of segments (`group1`); red circles: each scheme "
        "free, at the mean size its Group 1 had (the paper's red dots).",
    )


def _midas_groups(ctx: Ctx, key: str, plt):
    from ..report import Figure

    raw = ctx.raw(key)
    if raw is None:
        return None
    hist = (raw.get("placement_report") or {}).get("history") or []
    if not hist:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.2))
    xs = [h.get("capacity_written", 0) for h in hist]
    ng = max(len(h.get("sizes") or []) for h in hist)
    for g in range(ng):
        ys = [(h.get("sizes") or [None] * ng)[g] if g < len(h.get("sizes") or []) else float("nan") for h in hist]
        axes[0].step(xs, ys, where="post", label="HOT" if g == 0 else f"G{g}")
    axes[0].set_yscale("log")
    axes[0].set_xlabel("capacities written")
    axes[0].set_ylabel("segments")
    axes[0].legend(fontsize=6, ncol=3)
    axes[0].grid(alpha=0.3)
    axes[1].plot(xs, [h.get("predicted_waf") for h in hist], marker="o", label="MCAM prediction (config in force)")
    axes[1].plot(xs, [h.get("measured_waf") for h in hist], marker="s", label="measured in the epoch ending here")
    axes[1].set_xlabel("capacities written")
    axes[1].set_ylabel("WAF")
    axes[1].legend(fontsize=7)
    axes[1].grid(alpha=0.3)
    for h, x in zip(hist, xs):
        if h.get("event") not in ("keep",):
            axes[1].axvline(x, color="#999", lw=0.6, ls=":")
    fig.tight_layout()
    return Figure(
        "midas-fig14",
        "Fig. 14(b): MiDAS group sizes and WAF over time (FIO-H)",
        "Group sizes per (re)configuration (HOT, G1..GN) and MCAM's predicted WAF against the WAF measured "
        "in each epoch; dotted lines: configuration events.",
        fig,
    )


def _waf_vs_op(ctx: Ctx, plt):
    from .. import model_waf

    ops = sorted({c.labels["op"] for k, c in ctx.cases.items() if k.startswith("uniform-op")})
    if not ops:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    drawn = 0
    for i, v in enumerate(("greedy", "fifo")):
        pts = [
            (op, _metric(ctx, f"uniform-op{op:g}/{v}", "waf"), _metric(ctx, f"uniform-op{op:g}/{v}", "model_waf"))
            for op in ops
        ]
        pts = [p for p in pts if p[1] is not None]
        if not pts:
            continue
        c = COLORS[i]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", color=c, label=f"flashgc, {v}")
        ax.plot(
            [p[0] for p in pts], [p[2] for p in pts], "x", color=c, ms=8, label=f"model at the effective alpha, {v}"
        )
        grid = [ops[0] + (ops[-1] - ops[0]) * j / 40 for j in range(41)]
        ys = [model_waf(v, 1 + op, pages_per_segment=32) if v == "greedy" else model_waf(v, 1 + op) for op in grid]
        ax.plot(grid, ys, "-", color=c, lw=0.8, label=f"Desnoyers, alpha = 1 + op, {v}")
        drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    return _waf_figure(
        fig,
        ax,
        "over-provisioning op",
        "midas-waf-vs-op",
        "WAF against over-provisioning with the analytic model (uniform random writes)",
        "Cross-check of the simulator under the papers' comparisons: one stream, greedy (32-page segments) "
        "and FIFO victims; lines: Desnoyers' Eq. 12 and Eq. 4 at alpha = 1 + op; crosses: the same models at "
        "the effective alpha the run measured (reserved free segments and open frontiers are not spare).",
    )


def _claims_html(r: dict) -> str:
    rows = [
        "<table><tr><th>claim</th><th>figure</th><th>metric</th><th>setting</th><th>paper</th><th>flashgc</th>"
        "<th>tolerance</th><th>verdict</th><th>deciding setting</th><th>why</th><th>ran</th></tr>"
    ]
    for c in r["claims"]:
        col = VERDICT_COLORS.get(c["verdict"], "#000")
        ran = "; ".join(f"{k}: {v}" for k, v in (c.get("ran") or {}).items())
        rows.append(
            f'<tr><td class="l" title="{html.escape(c["quote"])}">{html.escape(c["id"])}</td>'
            f'<td class="l">{html.escape(c["figure"])}</td><td class="l">{html.escape(c["metric"])}</td>'
            f'<td class="l small">{html.escape(c["setting"])}</td><td>{html.escape(str(c["paper"]))}</td>'
            f"<td>{html.escape(str(c['flashgc']))}</td><td>{html.escape(c['tolerance'])}</td>"
            f'<td class="v" style="background:{col}">{html.escape(c["verdict"])}</td>'
            f'<td class="l small">{html.escape(c.get("deciding", "not swept"))}</td>'
            f'<td class="l small">{html.escape(c["detail"])}</td>'
            f'<td class="l small">{html.escape(ran)}</td></tr>'
        )
    rows.append("</table>")
    return "\n".join(rows)


def _fig_html(f, png: Optional[bytes] = None) -> str:
    b64 = base64.b64encode(png if png is not None else f.png()).decode("ascii")
    return (
        f'<figure id="{html.escape(f.id)}"><img alt="{html.escape(f.title)}" src="data:image/png;base64,{b64}">'
        f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption></figure>"
    )


def write_report(
    results: dict, contexts: dict, out_html: str, figures_dir: Optional[str], formats: tuple = ("png", "svg")
) -> str:
    """Writes the report of ``results`` ({paper: result dict}) with figures drawn from
    ``contexts`` ({paper: Ctx}); returns the path."""
    plt = _mpl()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>flashgc reproduce</title><style>{_CSS}{_EXTRA_CSS}</style></head><body>",
        "<h1>flashgc reproduce</h1>",
        "<p>Each paper's quantitative claims beside flashgc's values, with a verdict: <b>holds</b> (same "
        "direction, within the claim's tolerance), <b>direction only</b>, <b>contradicts</b>, or <b>cannot "
        "run</b> (and why). Hover a claim for the paper's sentence. docs/reproduce.md explains the rules.</p>",
    ]
    parts.append(
        "<table><tr><th>paper</th><th>claims</th><th>holds</th><th>direction only</th><th>contradicts</th>"
        "<th>cannot run</th><th>simulations</th><th>scale</th></tr>"
    )
    for name, r in results.items():
        k = r["counts"]
        parts.append(
            f'<tr><td class="l"><a href="#{html.escape(name)}">{html.escape(name)}</a></td><td>{len(r["claims"])}</td>'
            f"<td>{k['holds']}</td><td>{k['direction only']}</td><td>{k['contradicts']}</td><td>{k['cannot run']}</td>"
            f"<td>{r['runs']}</td><td>{html.escape(r['scale'])}</td></tr>"
        )
    parts.append("</table>")
    for name, r in results.items():
        ctx = contexts.get(name)
        k = r["counts"]
        parts.append(f'<h2 id="{html.escape(name)}">{html.escape(r["title"])}</h2>')
        parts.append(
            f"<p><code>{html.escape(r['command'])}</code> &mdash; {k['holds']} hold, {k['direction only']} "
            f"direction only, {k['contradicts']} contradict, {k['cannot run']} cannot run "
            f"({len(r['claims'])} claims, {r['runs']} simulations).</p>"
        )
        parts.append(f'<p class="small">{html.escape(r["platform"])}</p>')
        for n in r["notes"]:
            parts.append(f'<p class="note">{html.escape(n)}</p>')
        if r["no_gc"]:
            parts.append(f'<p class="note">No GC in: {html.escape(", ".join(r["no_gc"]))}.</p>')
        ub = ", ".join(f"{k} ({p}={v})" if p else k for p, v, k in r.get("upper_bounds") or [])
        if ub:
            parts.append(
                '<p class="note">Latencies are upper bounds (host writes waited for the one GC queue, '
                f"docs/controller.md) in: {html.escape(ub)}.</p>"
            )
        for fl in r["failed"]:
            parts.append(f'<p class="note">flashgc failed on {html.escape(fl["key"])}: {html.escape(fl["error"])}</p>')
        parts.append(_claims_html(r))
        d = os.path.join(figures_dir, name) if figures_dir else None
        if d:
            os.makedirs(d, exist_ok=True)

        def emit(f, d=d, small=False):
            png = f.png()
            parts.append(_fig_html(f, png))
            if d and small:
                # The per-claim sensitivity plots: the page's PNG, written once (no SVG).
                with open(os.path.join(d, f"{f.id}.png"), "wb") as fh:
                    fh.write(png)
            elif d:
                f.save(d, formats)
            plt.close(f.fig)

        for f in _paper_figures(ctx, plt) if ctx is not None else []:
            emit(f)
        if ctx is not None and ctx.skipped:
            parts.append(
                '<p class="note">Not drawn in this run of selected claims (they read cases of other claims, '
                "which did not run; the whole paper's run draws them): "
                + html.escape("; ".join(f"{s['figure']} (needs {', '.join(s['needs'])})" for s in ctx.skipped))
                + ".</p>"
            )
        if r.get("sensitivity"):
            parts.append("<h3>Sensitivity</h3><ul>")
            for c in r["claims"]:
                if c.get("sensitivity"):
                    parts.append(f'<li class="small">{html.escape(c["sensitivity"])}</li>')
            parts.append("</ul><details><summary>One plot per claim</summary>")
            for c in r["claims"]:
                if c["verdict"] != "cannot run":
                    f = fig_sensitivity(name, c, r["sensitivity"], plt)
                    if f:
                        emit(f, small=True)
            parts.append("</details>")
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    tmp = out_html + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("\n".join(parts))
    os.replace(tmp, out_html)
    return out_html


def context_for(paper: Any, cases: dict, rows: dict, build: str, result: dict, left_out: Optional[set] = None) -> Ctx:
    memo: dict = {}

    def raw(key: str):
        if key in memo:
            return memo[key]
        c = cases.get(key)
        row = rows.get(c.run_id(build)) if (c is not None and c.argv) else None
        memo[key] = json.loads(row["result_json"]) if row and row.get("status") == "ok" else None
        return memo[key]

    return Ctx(paper, cases, raw, result, left_out)
