"""Command line of the Python package: ``python -m flashgc sweep|report|run|reproduce``.

The Rust CLI forwards ``flashgc sweep FILE``, ``flashgc report ...`` and ``flashgc reproduce ...``
here. ``pip install`` also installs a ``flashgc`` command (:func:`console_main`): ``sweep`` and
``report`` run here, every other command (``run``, ``compare``, ``reproduce`` ...) is handed to
the Rust command line, found through ``FLASHGC_BIN`` or ``PATH`` (``reproduce`` comes back
here with ``FLASHGC_BIN`` set).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
from typing import Optional, Sequence

from ._flashgc import FlashgcError


def _cmd_sweep(a: argparse.Namespace) -> int:
    from .sweep import sweep_from_file

    df = sweep_from_file(
        a.file,
        out=a.out,
        scheduler=a.scheduler,
        workers=a.workers,
        progress=False if a.quiet else None,
        max_runs=a.max_runs,
        dashboard=a.dashboard,
    )
    ran, skipped, pending = df.attrs["ran"], df.attrs["skipped"], df.attrs["pending"]
    # A grid larger than MAX_GRID_POINTS is examined only up to the --max-runs budget.
    unexamined = df.attrs.get("unexamined", 0)
    more = f" ({unexamined} more grid points not examined yet)" if unexamined else ""
    print(
        f"sweep: {len(ran)} runs done now, {len(skipped)} already present, {len(pending)} pending{more}; "
        f"{len(df)} rows in the dataset"
    )
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
        k, sep, v = kv.partition("=")
        if not sep or not k.strip():
            raise FlashgcError(f"--set {kv}: expected FIELD=VALUE (e.g. --set op=0.2)")
        k = k.strip()
        try:
            over[k] = json.loads(v)
        except json.JSONDecodeError:
            over[k] = v
    r = run(a.config, a.workload, progress=False if a.quiet else None, **over)
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
    s.add_argument(
        "--dashboard",
        nargs="?",
        const=":8787",
        default=None,
        metavar="ADDR",
        help="serve the embedded cluster's Dask dashboard (default address :8787)",
    )
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
    u.add_argument("-q", "--quiet", action="store_true", help="no progress bar (drawn only on a terminal anyway)")
    u.set_defaults(func=_cmd_run)

    from .reproduce.cli import add_parser as _add_reproduce

    _add_reproduce(sub)

    a = p.parse_args(argv)
    try:
        return a.func(a)
    except (FlashgcError, ValueError, OSError) as e:
        print(f"flashgc: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        # A missing optional dependency (Dask for sweeps): said plainly, and not bad input.
        print(f"flashgc: error: {e}", file=sys.stderr)
        return 1


# Commands the Python package runs itself under the `flashgc` name.
_PYTHON_COMMANDS = ("sweep", "report")


def rust_cli(exclude: Optional[str] = None) -> Optional[str]:
    """The Rust ``flashgc`` executable: ``FLASHGC_BIN``, else the first ``flashgc`` on
    ``PATH`` that is not ``exclude`` (this script)."""
    env = os.environ.get("FLASHGC_BIN")
    if env:
        return env
    me = os.path.realpath(exclude) if exclude else None
    for d in os.environ.get("PATH", "").split(os.pathsep):
        cand = shutil.which("flashgc", path=d) if d else None
        if cand and os.path.realpath(cand) != me:
            return cand
    return None


def console_main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``flashgc`` command that ``pip install`` provides: ``flashgc sweep FILE`` and
    ``flashgc report DIR`` run in Python; the rest goes to the Rust command line."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in _PYTHON_COMMANDS:
        return main(args)
    # Forwarded once at most: a `flashgc` on PATH that is another copy of this script
    # must not hand the command back and forth.
    exe = None if os.environ.get("FLASHGC_FORWARDED") else rust_cli(exclude=sys.argv[0])
    if exe is None and (not args or args[0] in ("-h", "--help", "help")):
        # A new user's first command: say what this `flashgc` runs, then its usage (it
        # answered `--help` with "needs the flashgc command line (Rust)" alone).
        out = sys.stdout if args else sys.stderr
        print(
            "flashgc (Python package): `flashgc sweep` and `flashgc report` run here; every other "
            "command (run, compare, trace, fio, ...) needs the flashgc command line (Rust), which is "
            "not installed: `cargo install --path crates/flashgc-cli` from a checkout (or set "
            "FLASHGC_BIN). The usage below is `python -m flashgc`'s, whose `run` needs no Rust binary.\n",
            file=out,
        )
        with contextlib.redirect_stdout(out):
            try:
                main(["--help"])
            except SystemExit:
                pass
        return 0 if args else 2
    if exe is None:
        what = f"`flashgc {args[0]}`" if args else "this command"
        print(
            f"flashgc: error: {what} needs the flashgc command line (Rust), which is not installed: "
            "build it from a checkout with `cargo install --path crates/flashgc-cli` (or set FLASHGC_BIN). "
            "The Python package runs `flashgc sweep` and `flashgc report` itself; for one run from "
            "Python use `python -m flashgc run` or flashgc.run().",
            file=sys.stderr,
        )
        return 2
    os.environ["FLASHGC_FORWARDED"] = "1"
    os.execv(exe, [exe, *args])
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
