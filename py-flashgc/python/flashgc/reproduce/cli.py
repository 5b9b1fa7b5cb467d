"""`python -m flashgc reproduce` (and `flashgc reproduce`, which forwards here): arguments and
the claims tables printed on the terminal."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import textwrap
from typing import Optional, Sequence

from .claims import load_claims
from .core import SCALES, reproduce
from .papers import PAPERS
from .selection import resolve, split_ids


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce a paper's evaluation: its claims beside flashgc's numbers, with verdicts",
        description="Runs each paper's evaluation figure by figure on its platform scaled to this machine, prints "
        "every quantitative claim of the paper beside flashgc's value with a verdict (holds, direction "
        "only, contradicts, cannot run), sweeps the settings the paper leaves open (a few at quick scale, all at full "
        "scale) and names the one that decides each verdict, and "
        "writes PAPER.json, report.html and figures to the output directory. Interrupted runs resume.",
    )
    p.add_argument("papers", nargs="+", metavar="PAPER", help=f"{', '.join(PAPERS)} or all")
    p.add_argument(
        "--scale",
        choices=SCALES,
        default="quick",
        help="quick: under 2 minutes per paper, a few sensitivity sweeps (CI); full: the larger devices and "
        "all the sweeps",
    )
    p.add_argument("-o", "--out", default="reproduce-out", help="output directory (default reproduce-out)")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    p.add_argument("--scheduler", help="tcp://host:port of a Dask scheduler, or `local` (no Dask)")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    p.add_argument("--no-report", action="store_true", help="do not write report.html and figures")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    p.add_argument(
        "--list",
        action="store_true",
        help="list each paper's claims (id, figure, the paper's value, setting) and run nothing",
    )
    p.add_argument(
        "--claim",
        action="append",
        metavar="ID",
        help="judge only this claim (an id as --list prints it, PAPER:ID, or a table-valued claim's stem for "
        "all its entries; repeatable or comma-separated): runs only the cases it reads and writes to "
        "OUT/claims/, leaving the whole papers' results in OUT as they are",
    )
    p.add_argument(
        "--app-traces",
        metavar="DIR",
        help="recorded application traces: sysbench + MariaDB for sup-gc Figs. 19-20 and YCSB-A/-F on MariaDB for "
        "MiDAS Fig. 11 (scripts/record-sysbench-mysql.sh), Varmail for MiDAS Fig. 15(b) (scripts/record-varmail.sh); "
        "default $FLASHGC_APP_TRACES, else ~/.cache/flashgc/app-traces",
    )
    p.set_defaults(func=run)


def run(a: argparse.Namespace) -> int:
    papers = a.papers
    for n in papers:
        if n != "all" and n not in PAPERS:
            raise ValueError(f"unknown paper `{n}`; known: {', '.join(PAPERS)}, all")
    if a.app_traces is not None and not os.path.isdir(a.app_traces):
        raise ValueError(f"--app-traces {a.app_traces}: no such directory")
    if a.list:
        names = list(PAPERS) if "all" in papers else list(dict.fromkeys(papers))
        only = None
        if a.claim is not None:
            only = resolve(split_ids(a.claim), {n: [c.id for c in load_claims(n)[1]] for n in names}, PAPERS)
            names = [n for n in names if n in only]
        print(claims_list(names, only=only))
        return 0
    res = reproduce(
        papers,
        scale=a.scale,
        out=a.out,
        scheduler=a.scheduler,
        workers=a.workers,
        progress=False if a.quiet else None,
        report=not a.no_report,
        claims=a.claim,
        app_traces=a.app_traces,
    )
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    for r in res.values():
        print(tables(r))
    dest = a.out if a.claim is None else os.path.join(a.out, "claims")
    print(f"results: {dest}/<paper>.json" + ("" if a.no_report else f", {dest}/report.html, {dest}/figures/"))
    return 0


def claims_list(papers: Sequence[str], width: Optional[int] = None, only: Optional[dict] = None) -> str:
    """Each paper's claims as `reproduce` judges them, without running anything (``only``:
    {paper: [claim ids]} to list just those)."""
    width = width or max(100, min(160, shutil.get_terminal_size((120, 20)).columns))
    out = []
    for name in papers:
        header, claims = load_claims(name)
        if only is not None:
            claims = [c for c in claims if c.id in only.get(name, ())]
        out.append(f"== {name}: {header.get('title', '')} ({header.get('source', '')}): {len(claims)} claims")
        for c in claims:
            line = f"  {c.id:<30} {c.figure:<12} paper {c.paper_text():<14} {c.setting}"
            out += textwrap.wrap(line, width, subsequent_indent=" " * 67)
    return "\n".join(out)


def _cell(s: str, w: int) -> str:
    s = str(s)
    return s if len(s) <= w else s[: w - 1] + "…"


def tables(r: dict, width: Optional[int] = None) -> str:
    """The claims table of one paper's result, for a terminal."""
    width = width or max(100, min(160, shutil.get_terminal_size((120, 20)).columns))
    out = [f"\n== {r['paper']}: {r['title']} ({r['scale']} scale: {r['command']})"]
    out += textwrap.wrap("platform: " + r["platform"], width)
    for n in r["notes"]:
        out += textwrap.wrap("note: " + n, width)
    cols = [
        ("claim", 26),
        ("figure", 10),
        ("metric", 14),
        ("paper", 12),
        ("flashgc", 16),
        ("tol", 7),
        ("verdict", 14),
        ("deciding setting", 30),
    ]
    rest = max(20, width - sum(w + 1 for _, w in cols))
    out.append(" ".join(f"{h:{w}}" for h, w in cols) + " why")
    for c in r["claims"]:
        row = [
            c["id"],
            c["figure"],
            c["metric"],
            c["paper"],
            c["flashgc"],
            c["tolerance"],
            c["verdict"],
            c.get("deciding", "not swept"),
        ]
        out.append(" ".join(f"{_cell(v, w):{w}}" for v, (_, w) in zip(row, cols)) + " " + _cell(c["detail"], rest))
    k = r["counts"]
    out.append(
        f"verdicts: {k['holds']} hold, {k['direction only']} direction only, {k['contradicts']} contradict, "
        f"{k['cannot run']} cannot run ({len(r['claims'])} claims, {r['runs']} simulations)"
    )
    ran: dict = {}
    for case in r["cases"]:
        scheme = (case.get("labels") or {}).get("scheme")
        if scheme and case.get("variant"):
            ran.setdefault(scheme, set()).add(case["variant"])
    if ran:
        txt = "; ".join(f"{k} = {' | '.join(sorted(v))}" for k, v in ran.items())
        out += textwrap.wrap("schemes as run: " + txt, width, subsequent_indent="  ")
    if r["no_gc"]:
        out.append("no GC: these cases never garbage-collected: " + ", ".join(r["no_gc"]))
    ub = r.get("upper_bounds") or []
    if ub:
        txt = ", ".join(f"{k} ({p}={v})" if p else k for p, v, k in ub)
        out += textwrap.wrap(
            "upper bounds: host writes of these runs waited for the one GC queue, so their latencies "
            "are upper bounds (docs/controller.md, approximations): " + txt,
            width,
            subsequent_indent="  ",
        )
    for f in r["failed"]:
        out.append(f"failed: {f['key']}: {f['error']}")
    skipped = r.get("figures_skipped") or []
    if skipped:
        txt = ", ".join(s["figure"] for s in skipped)
        out += textwrap.wrap(
            f"figures not drawn (they read cases of other claims, not run here): {txt}",
            width,
            subsequent_indent="  ",
        )
    sens = [c["sensitivity"] for c in r["claims"] if c.get("sensitivity")]
    if sens:
        out.append("sensitivity:")
        for s in sens:
            out += textwrap.wrap(s, width, initial_indent="  ", subsequent_indent="    ")
    return "\n".join(out)


def main(argv: Optional[Sequence[str]] = None) -> int:  # pragma: no cover - used through __main__
    p = argparse.ArgumentParser(prog="python -m flashgc")
    sub = p.add_subparsers(dest="cmd", required=True)
    add_parser(sub)
    a = p.parse_args(argv)
    try:
        return a.func(a)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
