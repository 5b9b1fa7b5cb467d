"""Command line of the Python package: ``python -m flashgc sweep|report|run|reproduce``.

The Rust CLI forwards ``flashgc sweep FILE``, ``flashgc report ...`` and ``flashgc reproduce ...``
here.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from ._flashgc import FlashgcError


def _cmd_sweep(a: argparse.Namespace) -> int:
    from .sweep import sweep_from_file

    df = sweep_from_file(
        a.file, out=a.out, scheduler=a.scheduler, workers=a.workers,
        progress=False if a.quiet else None, max_runs=a.max_runs,
    )
    ran, skipped, pending = df.attrs["ran"], df.attrs["skipped"], df.attrs["pending"]
    print(f"sweep: {len(ran)} runs done now, {len(skipped)} already present, {len(pending)} pending; "
          f"{len(df)} rows in the dataset")
    if len(df) and not a.quiet:
        cols = ["placement", "victim", "workload", "op", "seed", "waf", "erases"]
        print(df[cols].sort_values(cols[:5]).to_string(index=False))
    return 0


def _cmd_report(a: argparse.Namespace) -> int:
    from .report import report

    formats = tuple(f for f in a.formats.split(",") if f)
    p = report(a.results, a.output, figures_dir=a.figures, formats=formats, title=a.title)
    print(f"report: wrote {p}" + (f" and figures in {a.figures}" if a.figures else ""))
    return 0


def _cmd_run(a: argparse.Namespace) -> int:
    from .api import run

    over = {}
    for kv in a.set or []:
        if "=" not in kv:
            raise FlashgcError(f"--set {kv}: expected FIELD=VALUE")
        k, v = kv.split("=", 1)
        try:
            over[k] = json.loads(v)
        except json.JSONDecodeError:
            over[k] = v
    r = run(a.config, a.workload, **over)
    if a.json:
        print(r.to_json())
    else:
        print(r)
        for n in r.notes:
            print("note:", n)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m flashgc", description="flashgc from Python: sweeps and reports")
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("sweep", help="run a parameter sweep described by a TOML file (resumable)")
    s.add_argument("file", help="sweep file: config, out, scheduler, workers, [base], [grid]")
    s.add_argument("--out", help="results dataset directory (default: the file's `out`)")
    s.add_argument("--scheduler", help="tcp://host:port of a Dask scheduler, or `local` (no Dask)")
    s.add_argument("--workers", type=int, help="LocalCluster workers (default 2)")
    s.add_argument("--max-runs", type=int, help="stop after this many new runs")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no table")
    s.set_defaults(func=_cmd_sweep)

    r = sub.add_parser("report", help="write a self-contained HTML report of results")
    r.add_argument("results", help="sweep dataset directory, .parquet file or .json result")
    r.add_argument("-o", "--output", default="report.html", help="HTML file to write (default report.html)")
    r.add_argument("--figures", help="also save every figure in this directory (PNG and SVG)")
    r.add_argument("--formats", default="png,svg", help="figure formats for --figures (default png,svg)")
    r.add_argument("--title", default="flashgc report")
    r.set_defaults(func=_cmd_report)

    u = sub.add_parser("run", help="run one simulation and print its result")
    u.add_argument("config", nargs="?", default=None, help="preset name or TOML file (default: default)")
    u.add_argument("-w", "--workload", help="workload spec, e.g. zipf:1.0")
    u.add_argument("--set", action="append", metavar="FIELD=VALUE", help="configuration override (repeatable)")
    u.add_argument("--json", action="store_true", help="print the whole result as JSON")
    u.set_defaults(func=_cmd_run)

    from .reproduce.cli import add_parser as _add_reproduce

    _add_reproduce(sub)

    a = p.parse_args(argv)
    try:
        return a.func(a)
    except (FlashgcError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
