"""Cases of a reproduction and how they run: one `flashgc` command each, through the sweep
machinery (:mod:`flashgc.sweep`): Dask workers, one Parquet file per finished case written
atomically, and cases already in the dataset skipped, so an interrupted reproduction resumes
without redoing them.

A case runs the `flashgc` binary (``flashgc fio|noc|dedup|run ... --json``) rather than the
Python binding because the papers' commands (fio jobs, the NoC model, the dedup FTL) are
CLI commands; the result is the command's JSON, stored whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..sweep import _done_ids, _remove_stale_temps, _run_dask, _write_row

__all__ = ["Need", "Case", "Capabilities", "find_binary", "build_id", "run_cases"]


@dataclass(frozen=True)
class Need:
    """Something a case needs: ``placement:NAME``, ``victim:NAME``, ``flag:CMD:--FLAG``,
    ``choice:CMD:--FLAG:VALUE`` (a value the flag's help lists), ``mention:CMD:--FLAG:WORD``
    (a word the flag's help paragraph contains, e.g. an option a job file may give), ``file:PATH``,
    ``feature:NAME`` (see :meth:`Capabilities.feature`) or ``never`` (not public); and the
    reason printed when it is missing."""

    what: str
    reason: str


@dataclass
class Case:
    """One simulation of a reproduction: a `flashgc` command line and what it stands for."""

    key: str  # paper-local key the claims refer to, e.g. "w75/sup-gc"
    figure: str  # the paper's figure or table
    kind: str  # fio | noc | dedup | run: how to read its JSON
    argv: list  # arguments after `flashgc`, ending with --json
    labels: dict = field(default_factory=dict)  # scheme, workload, ... for figures
    needs: list = field(default_factory=list)  # [Need]
    note: str = ""  # what the case stands for (stand-ins say how they differ)
    # Files the command reads, by the name its argv gives them (e.g. a fio job file):
    # written into the directory the command runs in, so a case carries its whole input.
    files: dict = field(default_factory=dict)
    # Files outside the run directory the argv names and whose content decides the result (a
    # recorded trace that can be recorded again under the same name): their SHA-256 is part of
    # the run's identity, so a new recording is not answered from the old one's results.
    inputs: list = field(default_factory=list)

    def run_id(self, build: str) -> str:
        ident: dict = {"argv": list(self.argv), "build": build}
        if self.files:
            # A file's content is part of what ran (the argv only names it).
            ident["files"] = dict(self.files)
        if self.inputs:
            ident["inputs"] = {p: file_digest(p) for p in self.inputs}
        data = json.dumps(ident, sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]


_DIGESTS: dict = {}


def file_digest(path: str) -> str:
    """SHA-256 of a file's content (kept per path, size and modification time: a large
    trace is read once per process), or "missing"."""
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def find_binary() -> str:
    """The `flashgc` binary: $FLASHGC_BIN (set by `flashgc reproduce`), `flashgc` on the
    PATH, or target/release/flashgc of a checkout containing the working directory or this
    package."""
    env = os.environ.get("FLASHGC_BIN")
    if env:
        if not os.path.isfile(env):
            raise FileNotFoundError(f"FLASHGC_BIN={env}: no such file")
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for start in (os.getcwd(), here):
        d = start
        while True:
            p = os.path.join(d, "target", "release", "flashgc")
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    w = shutil.which("flashgc")
    if w:
        return w
    raise FileNotFoundError(
        "cannot find the flashgc binary: build it (cargo build --release -p flashgc-cli), put it on the "
        "PATH or set FLASHGC_BIN"
    )


def build_id(binary: str) -> str:
    """Hash of the binary: cases run by another build of flashgc are not reused."""
    h = hashlib.sha256()
    with open(binary, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


class Capabilities:
    """What this build of flashgc offers: registered policies and command flags (read from
    `flashgc policies` and `flashgc CMD --help`), so that cases needing a baseline or a
    feature still to land say `cannot run` and turn on when it lands."""

    def __init__(self, binary: str):
        self.binary = binary
        out = self._out(["policies"])
        self.placements: set = set()
        self.victims: set = set()
        # The victim policy each placement's paper uses, when the registry says (baselines issue).
        self.paper_victims: dict = {}
        section = None
        for line in out.splitlines():
            if line.startswith("placement"):
                section = self.placements
            elif line.startswith("victim"):
                section = self.victims
            elif line.startswith("  ") and section is not None and line.strip():
                name = line.split()[0]
                section.add(name)
                pv = re.search(r"\[paper victim: ([^\]]+)\]", line)
                if pv and section is self.placements:
                    self.paper_victims[name] = pv.group(1).strip()
        self._help: dict = {}
        self._logical: dict = {}

    def _out(self, args: list) -> str:
        p = subprocess.run([self.binary, *args], capture_output=True, text=True, timeout=120)
        return p.stdout + p.stderr

    def help(self, cmd: str) -> str:
        if cmd not in self._help:
            self._help[cmd] = self._out([*cmd.split(), "--help"])
        return self._help[cmd]

    def flag_help(self, cmd: str, flag: str) -> Optional[str]:
        """The help paragraph of ``flag`` in ``flashgc CMD --help``, or None."""
        lines = self.help(cmd).splitlines()
        for i, line in enumerate(lines):
            s = line.strip()
            if s.startswith(flag + " ") or s == flag or s.startswith(flag + "=") or f", {flag}" in s:
                para = [s]
                for nxt in lines[i + 1 :]:
                    t = nxt.strip()
                    if t.startswith("-"):
                        break
                    para.append(t)
                return " ".join(para)
        return None

    # Features the claims name; each maps to what the CLI must offer.
    FEATURES = {
        "cpu-cost": ("flag:fio:--cpu-cost", "firmware CPU time charged to requests (the controller issue, 15)"),
        "noc-priorities": (
            "choice:noc:--scheduler:noc-priority",
            "the NoC paper's task-queue priorities (`flashgc noc --scheduler noc-priority`, the controller issue, 15)",
        ),
        # bf-gc's warm-up is a job file's first group, the measured job a `stonewall` group after
        # it (docs/flows.md): fio job files with groups, each section a flow of its own.
        "fio-warmup": (
            "mention:fio:--job:stonewall",
            "a warm-up phase before the measured fio job (`flashgc fio --job` with `stonewall` groups)",
        ),
    }

    def has(self, what: str) -> bool:
        kind, _, rest = what.partition(":")
        if kind == "never":
            return False
        if kind == "placement":
            return rest.split(":")[0] in self.placements
        if kind == "victim":
            return rest.split(":")[0] in self.victims
        if kind == "flag":
            cmd, flag = rest.split(":", 1)
            return self.flag_help(cmd, flag) is not None
        if kind == "choice":
            cmd, flag, value = rest.split(":", 2)
            h = self.flag_help(cmd, flag)
            return h is not None and value in h.replace(",", " ").replace("|", " ").split()
        if kind == "mention":
            cmd, flag, word = rest.split(":", 2)
            h = self.flag_help(cmd, flag)
            return h is not None and word in h
        if kind == "file":
            return os.path.isfile(rest)
        if kind == "feature":
            need, _ = self.FEATURES[rest]
            return self.has(need)
        raise ValueError(f"unknown capability `{what}`")

    def feature(self, name: str) -> Optional[str]:
        """None when flashgc has the feature ``name``, else the reason it is missing."""
        need, reason = self.FEATURES[name]
        return None if self.has(need) else reason

    def logical_bytes(self, device_argv: list) -> int:
        """The logical capacity, bytes, of the device `flashgc fio DEVICE_ARGV` simulates: a
        one-request probe run without precondition (milliseconds), cached per device. Cases
        that size their volumes in bytes (a job file's io_size) need it; the layout's rounding
        stays in the CLI."""
        key = tuple(device_argv)
        if key not in self._logical:
            argv = [self.binary, "fio", *device_argv, "--fill", "0", "--requests", "1", "--rw", "randwrite", "--json"]
            p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                raise RuntimeError(f"flashgc {' '.join(argv[1:])}: exit {p.returncode}: {p.stderr.strip()}")
            dev = json.loads(p.stdout)[0]["device"]
            self._logical[key] = int(dev["logical_pages"]) * int(dev["lpn_size"])
        return self._logical[key]

    def missing(self, case: Case) -> list:
        """Reasons ``case`` cannot run (empty: it can)."""
        return [n.reason for n in case.needs if not self.has(n.what)]


def execute_case(task: dict) -> dict:
    """Runs one case (on a Dask worker or in-process); returns its row. A failing command
    gives a row with status ``error`` and the end of its stderr (the reproduction reports
    it and does not store it, so the next run tries again)."""
    argv = [task["binary"], *task["argv"]]
    ident = {"run_id": task["run_id"], "paper": task["paper"], "key": task["key"]}
    files = task.get("files") or {}
    try:
        # The case's files go into a directory of its own on the worker (a Dask worker may
        # not see the output directory), which the command runs in.
        with tempfile.TemporaryDirectory(prefix="flashgc-case-") as tmp:
            for name, text in files.items():
                with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                    f.write(text)
            cwd = tmp if files else task.get("cwd")
            p = subprocess.run(argv, capture_output=True, text=True, timeout=task.get("timeout", 7200), cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {**ident, "status": "error", "error": str(e)}
    if p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        # A panic prints a backtrace: keep its first line, which says what failed.
        first = next((ln for ln in err if "panicked" in ln), None)
        msg = first if first else " | ".join(err[-3:])
        return {**ident, "status": "error", "error": f"exit {p.returncode}: {msg}"}
    try:
        json.loads(p.stdout)
    except json.JSONDecodeError as e:
        return {**ident, "status": "error", "error": f"output is not JSON: {e}"}
    return {**ident, "status": "ok", "argv": json.dumps(task["argv"]), "result_json": p.stdout}


def run_cases(
    tasks: list,
    out_dir: str,
    scheduler: Optional[str] = None,
    n_workers: int = 2,
    progress: Optional[bool] = None,
    on_result: Optional[Callable[[dict], None]] = None,
) -> dict:
    """Runs ``tasks`` (dicts with run_id, binary, argv, paper, key) that are not yet in the
    dataset ``out_dir``; returns {run_id: row} for every task (finished now, earlier, or
    failed)."""
    os.makedirs(out_dir, exist_ok=True)
    _remove_stale_temps(out_dir)
    done = _done_ids(out_dir)
    todo, seen = [], set()
    for t in tasks:
        if t["run_id"] in done or t["run_id"] in seen:
            continue
        seen.add(t["run_id"])
        todo.append(t)
    rows: dict = {}
    bar = _Bar(len(todo), progress)

    def finish(row: dict) -> None:
        if row.get("status") == "ok":
            _write_row(out_dir, row)
        row = dict(row, _fresh=True)
        rows[row["run_id"]] = row
        bar.update(row)
        if on_result is not None:
            on_result(row)

    try:
        if not todo:
            pass
        elif scheduler == "local":
            for t in todo:
                finish(execute_case(t))
        else:
            _run_dask(todo, scheduler, n_workers, finish, execute=execute_case)
    finally:
        bar.close()
    want = {t["run_id"] for t in tasks}
    for rid in want - set(rows):
        path = os.path.join(out_dir, f"run-{rid}.parquet")
        if os.path.exists(path):
            import pandas as pd

            r = pd.read_parquet(path).iloc[0].to_dict()
            rows[rid] = r
    return rows


class _Bar:
    """A progress bar on a terminal (tqdm), a line per case otherwise when asked."""

    def __init__(self, total: int, enabled: Optional[bool]):
        self.bar = None
        self.lines = bool(enabled) and not sys.stderr.isatty()
        if total and (enabled if enabled is not None else sys.stderr.isatty()) and sys.stderr.isatty():
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc="flashgc reproduce", unit="case")
            except ImportError:  # pragma: no cover
                self.bar = None
        self.total, self.n = total, 0

    def update(self, row: dict) -> None:
        self.n += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.lines:
            st = row.get("status")
            print(
                f"  [{self.n}/{self.total}] {row.get('paper', '')} {row.get('key', '')} {st}"
                + (f": {row.get('error')}" if st != "ok" else ""),
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
