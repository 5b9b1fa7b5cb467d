"""`flashgc reproduce PAPER`: plan a paper's cases (its evaluation and the sensitivity sweeps),
run them through the sweep machinery, judge every claim, and write the results."""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from ..sweep import check_scheduler
from .claims import CANNOT, VERDICTS, Missing, evaluate, load_claims
from .papers import PAPERS
from .papers.common import APP_TRACES_ENV, fmt_param
from .runner import Capabilities, Case, build_id, find_binary, run_cases
from .selection import resolve, split_ids

SCALES = ("quick", "full")


@dataclass
class Point:
    """One setting of a paper: the base setting (``param`` None) or one swept value."""

    param: Optional[str]
    value: Any
    settings: dict
    cases: dict = field(default_factory=dict)  # key -> Case


def plan(paper: Any, scale: str, caps: Capabilities) -> tuple:
    """(base Point, [sensitivity Points]) of ``paper`` at ``scale``."""
    s = paper.settings(scale)
    base = Point(None, None, dict(s, _scale=scale), {c.key: c for c in paper.cases(s, caps)})
    sb = paper.sensitivity_base(scale) if hasattr(paper, "sensitivity_base") else s
    keep = getattr(paper, "sensitivity_filter", lambda k, scale: True)
    sens = []
    for param, values in paper.sensitivity(scale).items():
        around = [sb[param]] + [v for v in values if v != sb[param]]
        for v in around:
            sp = dict(sb)
            sp[param] = v
            cases = {c.key: c for c in paper.cases(sp, caps) if keep(c.key, scale)}
            sens.append(Point(param, v, sp, cases))
    return base, sens


class Evaluator:
    """Metric lookups for one point, with the reasons a metric is missing."""

    def __init__(self, paper: Any, point: Point, caps: Capabilities, rows: dict, build: str, cache: dict):
        self.paper, self.point, self.caps, self.rows, self.build, self.cache = paper, point, caps, rows, build, cache

    def raw(self, case: Case) -> Any:
        row = self.rows.get(case.run_id(self.build))
        if row is None:
            raise Missing(f"{case.key} was not run")
        if row.get("status") != "ok":
            raise Missing(f"flashgc failed on {case.key}: {row.get('error')}")
        return json.loads(row["result_json"])

    def metrics(self, key: str) -> dict:
        case = self.point.cases.get(key)
        if case is None:
            if self.point.param:
                raise Missing(f"{key} is not in the sensitivity sweep")
            if self.point.settings.get("_scale") == "quick":
                raise Missing(f"{key} runs at full scale only")
            raise Missing(f"no case {key}")
        miss = self.caps.missing(case)
        if miss:
            raise Missing("needs " + "; ".join(dict.fromkeys(miss)))
        rid = case.run_id(self.build)
        if rid not in self.cache:
            self.cache[rid] = self.paper.metrics(case, self.raw(case))
        return self.cache[rid]

    def __call__(self, key: str, metric: str) -> float:
        m = self.metrics(key)
        if metric not in m:
            raise Missing(f"{key} has no `{metric}`" + _why_no_metric(metric, m))
        v = m[metric]
        if v is None or (isinstance(v, float) and math.isnan(v)):
            raise Missing(f"{key}: `{metric}` is undefined")
        return float(v)


def upper_bounds(points: list, rows: dict, build: str) -> list:
    """The runs whose result has an ``approximate:`` note (host writes that waited for the one
    GC queue: their latencies are upper bounds, docs/controller.md), as [param, value, case
    key] (param and value empty at the base setting), sorted."""
    out = set()
    for pt in points:
        for c in pt.cases.values():
            row = rows.get(c.run_id(build)) or {}
            # Most results have no such note: only those that mention one are parsed.
            if row.get("status") != "ok" or '"approximate:' not in row.get("result_json", ""):
                continue
            notes = json.loads(row["result_json"]).get("notes") or []
            if any(n.startswith("approximate:") for n in notes):
                out.add((pt.param or "", "" if pt.param is None else str(pt.value), c.key))
    return [list(t) for t in sorted(out)]


def _why_no_metric(metric: str, m: dict) -> str:
    if metric.startswith("read"):
        return " (the workload has no reads)"
    if "@" in metric:
        pts = sorted({k.split("@")[1] for k in m if "@" in k}, key=lambda x: float(x))
        return f" (series points: {', '.join(pts)})"
    return ""


def _tasks(paper: Any, points: list, caps: Capabilities, binary: str, build: str, keys: Optional[set] = None) -> list:
    """The runnable cases of ``points`` (only those with a key in ``keys`` when given), each
    command once."""
    tasks, seen = [], set()
    for pt in points:
        for c in pt.cases.values():
            if not c.argv or caps.missing(c) or (keys is not None and c.key not in keys):
                continue
            rid = c.run_id(build)
            if rid in seen:
                continue
            seen.add(rid)
            task = {"run_id": rid, "binary": binary, "argv": list(c.argv), "paper": paper.name, "key": c.key}
            if c.files:
                task["files"] = dict(c.files)
            tasks.append(task)
    return tasks


def _jsonable(o: Any) -> Any:
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    return o


def judge_point(
    paper: Any, claims: list, point: Point, caps: Capabilities, rows: dict, build: str, cache: dict
) -> dict:
    ev = Evaluator(paper, point, caps, rows, build, cache)
    return {c.id: evaluate(c, ev, caps.feature) for c in claims}


def sentence(claim_id: str, base_verdict: str, sweeps: list, bases: Optional[dict] = None) -> str:
    """One sentence: the base verdict and where it changes. ``sweeps``: [(param, value,
    verdict)]; ``bases``: {param: the sweep's base value}. A sweep run around another base
    than the claims' (e.g. a smaller device) is compared with its own base point."""
    if base_verdict == CANNOT:
        return f"{claim_id}: cannot run at the base setting."
    bases = bases or {}
    ref = {p: v for p, x, v in sweeps if p in bases and x == bases[p]}
    flips: dict = {}
    ran = set()
    for param, value, v in sweeps:
        if v == CANNOT or (param in bases and value == bases[param]):
            continue
        ran.add(param)
        if v != ref.get(param, base_verdict):
            flips.setdefault(param, []).append((value, v))
    if not ran:
        return f"{claim_id}: {base_verdict}; not swept."
    refs = {v for v in ref.values() if v != CANNOT}
    lead = f"{claim_id}: {base_verdict}"
    if refs and refs != {base_verdict}:
        lead += f" ({', '.join(sorted(refs))} at the sweeps' base point)"
    if not flips:
        return f"{lead} at every swept value ({', '.join(sorted(ran))})."
    parts = []
    for param, lst in flips.items():
        parts.append(f"{param} = " + ", ".join(f"{fmt_param(x)} ({v})" for x, v in lst))
    return f"{lead}; changes with " + "; ".join(parts) + "."


def deciding(base_verdict: str, sweeps: list, bases: Optional[dict] = None) -> str:
    """The claim's deciding settings in a few words, for the column beside the verdict: each
    swept parameter whose value changes the verdict, with the first value that does
    (``param=value: verdict``); ``none of P, Q`` when no swept value changes it; ``not swept``."""
    if base_verdict == CANNOT:
        return "—"
    bases = bases or {}
    ref = {p: v for p, x, v in sweeps if p in bases and x == bases[p]}
    ran: list = []
    flips: dict = {}
    for param, value, v in sweeps:
        if v == CANNOT or (param in bases and value == bases[param]):
            continue
        if param not in ran:
            ran.append(param)
        if v != ref.get(param, base_verdict) and param not in flips:
            flips[param] = f"{param}={fmt_param(value)}: {v}"
    if not ran:
        return "not swept"
    if not flips:
        return "none of " + ", ".join(ran)
    return "; ".join(flips.values())


def _variant(argv: list) -> str:
    """What a case ran, from its command line: the scheme (placement/victim, --scheme, GC
    action, cache policy) and the options that change a scheme's cost (--cpu-cost)."""
    a = list(argv or [])
    if not a:
        return ""

    def opt(flag: str) -> Optional[str]:
        return a[a.index(flag) + 1] if flag in a and a.index(flag) + 1 < len(a) else None

    parts = []
    if opt("--scheme"):
        sch = str(opt("--scheme"))
        # `flashgc dedup`'s plain cagc/dagc are the authors' bounded versions (the upper bounds
        # are spelled cagc:index=full, dagc:cache=unbounded).
        parts.append(sch + (" (faithful: bounded)" if a[0] == "dedup" and sch in ("cagc", "dagc") else ""))
    elif opt("--placement") or opt("--victim"):
        parts.append(f"{opt('--placement') or 'single'}/{opt('--victim') or 'greedy'}")
    for flag in ("--gc-action", "--cache-policy", "--gc-trigger", "--cpu-cost"):
        if opt(flag):
            parts.append(f"{flag}={opt(flag)}")
    if a[0] == "noc":
        parts.append(f"noc --path {opt('--path') or 'both'}")
    return " ".join(parts)


def reproduce_paper(
    paper: Any,
    scale: str,
    out: str,
    caps: Capabilities,
    binary: str,
    build: str,
    scheduler: Optional[str],
    workers: int,
    progress: Optional[bool],
    claims_path: Optional[str] = None,
    only: Optional[list] = None,
) -> dict:
    """One paper: plans and runs its cases (finished ones are reused from ``out``/runs) and
    judges its claims (``claims_path``: another claims file than the paper's own, e.g. a
    researcher's). ``only``: judge just these claim ids and run just the cases they read, at
    the base setting and at every sensitivity point (their rows equal those of the whole
    paper: a claim's value and verdicts read no other case). Returns (result, report context)."""
    header, claims = load_claims(paper.name, claims_path)
    keys = None
    if only is not None:
        unknown = set(only) - {c.id for c in claims}
        if unknown:
            raise ValueError(f"{paper.name}: no claim {', '.join(sorted(unknown))}")
        claims = [c for c in claims if c.id in set(only)]
        keys = {k for c in claims for k in c.case_keys()}
    base, sens = plan(paper, scale, caps)
    t0 = time.time()
    tasks = _tasks(paper, [base, *sens], caps, binary, build, keys)
    _write_case_files(tasks, os.path.join(out, "jobs"))
    rows = run_cases(tasks, os.path.join(out, "runs"), scheduler=scheduler, n_workers=workers, progress=progress)
    wall = time.time() - t0
    cache: dict = {}
    verdicts = judge_point(paper, claims, base, caps, rows, build, cache)
    ev = Evaluator(paper, base, caps, rows, build, cache)
    cases_out, no_gc, failed = [], [], []
    for c in base.cases.values():
        if keys is not None and c.key not in keys:
            continue
        miss = caps.missing(c)
        entry = {
            "key": c.key,
            "figure": c.figure,
            "note": c.note,
            "labels": c.labels,
            "command": ("flashgc " + " ".join(c.argv)) if c.argv else None,
            # The files the command names (run it from OUT/jobs, where they are written).
            **({"files": sorted(c.files)} if c.files else {}),
            "variant": _variant(c.argv),
            "missing": miss,
        }
        if not miss and c.argv:
            row = rows.get(c.run_id(build))
            entry["status"] = (row or {}).get("status", "not run")
            if entry["status"] == "ok":
                try:
                    m = ev.metrics(c.key)
                except Missing as e:
                    # The run finished but its result lacks what the metrics read.
                    entry["status"], row = "error", {"error": str(e)}
            if entry["status"] == "ok":
                entry["metrics"] = m
                entry["gc_active"] = bool(m.get("gc_active", 1.0))
                if not entry["gc_active"]:
                    no_gc.append(c.key)
            else:
                failed.append({"key": c.key, "error": (row or {}).get("error", "not run")})
        else:
            entry["status"] = "cannot run"
        cases_out.append(entry)
    # Sensitivity: verdict and value of every claim at every swept point.
    labels = dict(paper.params)
    sens_out: dict = {}
    per_claim: dict = {c.id: [] for c in claims}
    for pt in sens:
        vs = judge_point(paper, claims, pt, caps, rows, build, cache)
        d = sens_out.setdefault(
            pt.param,
            {"param": pt.param, "label": labels.get(pt.param, pt.param), "base": None, "values": [], "claims": {}},
        )
        if d["base"] is None:
            d["base"] = pt.value
        d["values"].append(pt.value)
        for cid, v in vs.items():
            d["claims"].setdefault(cid, []).append(
                {
                    "value": pt.value,
                    "verdict": v.verdict,
                    "flashgc": v.value if not isinstance(v.value, str) else None,
                    "text": v.value_text(),
                }
            )
            per_claim[cid].append((pt.param, pt.value, v.verdict))
    bases = {d["param"]: d["base"] for d in sens_out.values()}
    claims_out = []
    for c in claims:
        v = verdicts[c.id]
        claims_out.append(
            {
                "id": c.id,
                "figure": c.figure,
                "kind": c.kind,
                "metric": c.metric,
                "setting": c.setting,
                "quote": c.quote,
                "unit": c.unit,
                "paper": c.paper_text(),
                "paper_value": c.value,
                "sign": c.sign,
                "range": list(c.range) if c.range else None,
                "tolerance": c.tolerance_text(),
                "tolerance_value": c.tolerance,
                "cases": c.case_keys(),
                **v.to_dict(),
                "flashgc": v.value_text(c),
                "sensitivity": sentence(c.id, v.verdict, per_claim[c.id], bases) if sens else None,
                "deciding": deciding(v.verdict, per_claim[c.id], bases) if sens else "not swept",
                # Which variant of each scheme the claim's cases ran (e.g. faithful CAGC, bf-opt with
                # --cpu-cost on).
                "ran": {
                    k: _variant(base.cases[k].argv) for k in c.case_keys() if k in base.cases and base.cases[k].argv
                },
            }
        )
    counts = {k: sum(1 for c in claims_out if c["verdict"] == k) for k in VERDICTS}
    res = {
        "paper": paper.name,
        "title": header.get("title", paper.title),
        "source": header.get("source"),
        "scale": scale,
        "command": f"flashgc reproduce {paper.name} --scale {scale}"
        + (f" --claim {','.join(c.id for c in claims)}" if only is not None else ""),
        # The claims a `--claim` run judged (absent: the whole paper).
        **({"selected": [c.id for c in claims]} if only is not None else {}),
        "platform": paper.platform,
        "settings": {k: v for k, v in base.settings.items() if not k.startswith("_")},
        "notes": paper.notes(base.settings),
        "counts": counts,
        "claims": claims_out,
        "cases": cases_out,
        "no_gc": no_gc,
        # Runs whose latencies are upper bounds (the one GC queue), base and sensitivity points.
        "upper_bounds": upper_bounds([base, *sens], rows, build),
        "failed": failed,
        # Failures at sensitivity points (the claims there say `cannot run` with the error).
        "failed_sensitivity": sorted(
            {
                (pt.param, str(pt.value), c.key, rows[c.run_id(build)].get("error", ""))
                for pt in sens
                for c in pt.cases.values()
                if c.run_id(build) in rows and rows[c.run_id(build)].get("status") != "ok"
            }
        ),
        "sensitivity": list(sens_out.values()),
        "runs": len(tasks),
        "build": build,
        # Machine-dependent: kept apart from the results.
        "machine": {"wall_s": round(wall, 1), "ran_now": sum(1 for r in rows.values() if r.get("_fresh"))},
    }
    from .report import context_for

    # Base cases another claim reads and this run left out: figures reading them are skipped.
    left_out = {
        c.key for c in base.cases.values() if keys is not None and c.key not in keys and c.argv and not caps.missing(c)
    }
    return _jsonable(res), context_for(paper, base.cases, rows, build, res, left_out)


def reproduce(
    papers: Any = "all",
    scale: str = "quick",
    out: str = "reproduce-out",
    scheduler: Optional[str] = None,
    workers: int = 2,
    progress: Optional[bool] = None,
    binary: Optional[str] = None,
    report: bool = True,
    claims: Optional[list] = None,
    app_traces: Optional[str] = None,
) -> dict:
    """Reproduces the papers' evaluations (``papers``: a name, a list, or "all") at ``scale``
    ("quick" or "full"); writes ``out``/PAPER.json, ``out``/report.html and its figures, and
    returns {paper: result}. An interrupted run resumes: finished cases are in ``out``/runs.

    ``claims``: claim ids (as ``--list`` prints them, ``PAPER:ID``, or a table-valued claim's
    stem; see :mod:`.selection`): only the papers with one of them run, only the cases those
    claims read, and the results go to ``out``/claims/ (PAPER.json, report.html, figures), so
    that the whole papers' results in ``out`` stay as they were; ``out``/runs is shared (a
    case's file is named by its command and build, so both runs reuse each other's cases).

    ``app_traces``: the folder of recorded application traces (sup-gc Figs. 19-20 and MiDAS
    Fig. 11's YCSB on MySQL, by scripts/record-sysbench-mysql.sh; MiDAS Fig. 15(b)'s Varmail, by
    scripts/record-varmail.sh); default $FLASHGC_APP_TRACES, else ~/.cache/flashgc/app-traces."""
    if app_traces is not None:
        if not os.path.isdir(app_traces):
            raise ValueError(f"app_traces {app_traces}: no such directory")
        saved = os.environ.get(APP_TRACES_ENV)
        # Read where the cases are built (papers/common.py: app_traces_dir).
        os.environ[APP_TRACES_ENV] = os.path.abspath(app_traces)
        try:
            return reproduce(papers, scale, out, scheduler, workers, progress, binary, report, claims)
        finally:
            if saved is None:
                os.environ.pop(APP_TRACES_ENV, None)
            else:
                os.environ[APP_TRACES_ENV] = saved
    if scale not in SCALES:
        raise ValueError(f"scale `{scale}`: allowed {', '.join(SCALES)}")
    names = list(PAPERS) if papers in ("all", None) else ([papers] if isinstance(papers, str) else list(papers))
    if "all" in names:
        names = list(PAPERS)
    for n in names:
        if n not in PAPERS:
            raise ValueError(f"unknown paper `{n}`; known: {', '.join(PAPERS)}, all")
    names = list(dict.fromkeys(names))
    selected = None
    if claims is not None:
        ids = split_ids([claims] if isinstance(claims, str) else claims)
        selected = resolve(ids, {n: [c.id for c in load_claims(n)[1]] for n in names}, PAPERS)
        names = [n for n in names if n in selected]
    check_scheduler(scheduler, workers)
    binary = binary or find_binary()
    build = build_id(binary)
    caps = Capabilities(binary)
    os.makedirs(out, exist_ok=True)
    dest = out if selected is None else os.path.join(out, "claims")
    os.makedirs(dest, exist_ok=True)
    results, contexts = {}, {}
    for n in names:
        only = selected[n] if selected is not None else None
        r, ctx = reproduce_paper(PAPERS[n], scale, out, caps, binary, build, scheduler, workers, progress, only=only)
        results[n], contexts[n] = r, ctx
        _write_json(os.path.join(dest, f"{n}.json"), r)
    if report:
        from .report import write_report

        if selected is not None:
            # Another selection's figures would otherwise stay beside this one's.
            for n in names:
                d = os.path.join(dest, "figures", n)
                for f in os.listdir(d) if os.path.isdir(d) else []:
                    if f.endswith((".png", ".svg")):
                        os.remove(os.path.join(d, f))
        write_report(results, contexts, os.path.join(dest, "report.html"), os.path.join(dest, "figures"))
        for n, ctx in contexts.items():
            if ctx.skipped:
                results[n]["figures_skipped"] = ctx.skipped
                _write_json(os.path.join(dest, f"{n}.json"), results[n])
    return results


def _write_case_files(tasks: list, dest: str) -> None:
    """Writes the files the cases read (fio job files) to ``dest`` for the reader, so that a
    case's command can be run again from there; each case also carries them to its worker."""
    for t in tasks:
        for name, text in (t.get("files") or {}).items():
            os.makedirs(dest, exist_ok=True)
            path = os.path.join(dest, name)
            if not os.path.exists(path):
                tmp = path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)


def _write_json(path: str, obj: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
    os.replace(tmp, path)
