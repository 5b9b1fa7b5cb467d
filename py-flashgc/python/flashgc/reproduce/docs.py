"""docs/reproduce.md's generated blocks: the claims tables and sensitivity findings, written
from reproduction results, and read back by the tests (the quick-scale verdicts the docs
state are the verdicts CI asserts).

    python -m flashgc.reproduce.docs docs/reproduce.md OUT_FULL OUT_QUICK

replaces every block ``<!-- reproduce:PAPER:KIND -->`` .. ``<!-- /reproduce:PAPER:KIND -->``
(KIND: full, quick, sensitivity, figures) with the tables of OUT_*/PAPER.json; the paper's
figures of the full run (OUT_FULL/figures/PAPER, not the per-claim sensitivity plots) are
copied at half resolution next to the page (docs/reproduce/PAPER/) and linked.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Optional

_BLOCK = re.compile(r"<!-- reproduce:([a-z0-9-]+):([a-z]+) -->\n(.*?)<!-- /reproduce:\1:\2 -->", re.S)


def _esc(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def full_table(r: dict) -> str:
    lines = [f"Platform: {r['platform']}", ""]
    lines += [f"- {n}" for n in r.get("notes") or []]
    lines += [
        "",
        f"`{r['command']}` ({r['runs']} simulations): {r['counts']['holds']} hold, "
        f"{r['counts']['direction only']} direction only, {r['counts']['contradicts']} contradict, "
        f"{r['counts']['cannot run']} cannot run.",
        "",
        "| claim | figure | metric | paper | flashgc | tolerance | verdict | why |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in r["claims"]:
        lines.append(
            f"| {_esc(c['id'])} | {_esc(c['figure'])} | {_esc(c['metric'])} | {_esc(c['paper'])} | "
            f"{_esc(c['flashgc'])} | {_esc(c['tolerance'])} | **{c['verdict']}** | {_esc(c['detail'])} |"
        )
    if r.get("no_gc"):
        lines += ["", "Cases that never garbage-collected: " + ", ".join(f"`{k}`" for k in r["no_gc"]) + "."]
    for f in r.get("failed") or []:
        lines += ["", f"flashgc failed on `{f['key']}`: {_esc(f['error'])}"]
    fs = r.get("failed_sensitivity") or []
    if fs:
        lines += [
            "",
            "flashgc failed at sensitivity points (those points say `cannot run`): "
            + "; ".join(f"`{k}` at {p} = {v} ({_esc(e)})" for p, v, k, e in fs[:8])
            + (" ..." if len(fs) > 8 else ""),
        ]
    return "\n".join(lines) + "\n"


def quick_table(r: dict) -> str:
    """The quick-scale table: flashgc's value, the setting that decides the verdict (the
    first swept value that changes it, per parameter; `none of ...`: no swept value does;
    `not swept`: the claim's cases are not in the quick sweeps) and the verdict (last: the
    tests read it)."""
    k = r["counts"]
    sweeps = "; ".join(f"`{d['param']}` {', '.join(str(v) for v in d['values'])}" for d in r.get("sensitivity") or [])
    lines = [
        f"`{r['command']}` ({r['runs']} simulations): {k['holds']} hold, {k['direction only']} direction only, "
        f"{k['contradicts']} contradict, {k['cannot run']} cannot run. "
        f"Swept (base value first): {sweeps or 'nothing'}.",
        "",
        "| claim | paper | flashgc | deciding setting | verdict |",
        "|---|---|---|---|---|",
    ]
    for c in r["claims"]:
        lines.append(
            f"| {_esc(c['id'])} | {_esc(c['paper'])} | {_esc(c['flashgc'])} | "
            f"{_esc(c.get('deciding', 'not swept'))} | {c['verdict']} |"
        )
    ran: dict = {}
    for case in r.get("cases") or []:
        scheme = (case.get("labels") or {}).get("scheme")
        if scheme and case.get("variant"):
            ran.setdefault(scheme, set()).add(case["variant"])
    if ran:
        per = [f"{k} = " + ", ".join(f"`{x}`" for x in sorted(v)) for k, v in ran.items()]
        lines += ["", "Schemes as run: " + "; ".join(per) + "."]
    lines += ["", "Cases without GC: " + (", ".join(f"`{k}`" for k in r.get("no_gc") or []) or "none") + "."]
    return "\n".join(lines) + "\n"


def sensitivity_list(r: dict) -> str:
    out = []
    sens = r.get("sensitivity") or []
    if sens:
        out.append("Swept one at a time around the base setting (base value first):")
        out.append("")
        for d in sens:
            vals = ", ".join(str(v) for v in d["values"])
            out.append(f"- `{d['param']}`: {_esc(d['label'])}: {vals}")
        out.append("")
    from .core import sentence

    for c in r["claims"]:
        if c["verdict"] == "cannot run":
            continue
        pts = [(d["param"], p["value"], p["verdict"]) for d in sens for p in d["claims"].get(c["id"], [])]
        bases = {d["param"]: d["base"] for d in sens}
        out.append(f"- {_esc(sentence(c['id'], c['verdict'], pts, bases))}")
    if not sens:
        return "(no sensitivity sweep in these results)\n"
    return "\n".join(out) + "\n"


def copy_figures(doc_path: str, out_dir: str, paper: str) -> list:
    """Copies the main figures of ``out_dir``/figures/``paper`` next to the doc at half
    resolution; returns their paths relative to the doc."""
    src = os.path.join(out_dir, "figures", paper)
    if not os.path.isdir(src):
        return []
    dst = os.path.join(os.path.dirname(os.path.abspath(doc_path)), "reproduce", paper)
    os.makedirs(dst, exist_ok=True)
    out = []
    from PIL import Image

    for name in sorted(os.listdir(src)):
        if not name.endswith(".png") or "-sens-" in name:
            continue
        im = Image.open(os.path.join(src, name))
        im = im.convert("RGB").resize((max(1, im.width // 2), max(1, im.height // 2)), Image.LANCZOS)
        # A 64-colour palette keeps line plots legible at a third of the bytes.
        im = im.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
        im.save(os.path.join(dst, name), optimize=True)
        out.append(os.path.join("reproduce", paper, name))
    return out


def update(doc_path: str, results: list, figures: Optional[dict] = None) -> int:
    """Rewrites the generated blocks of ``doc_path`` from ``results`` (paper result dicts);
    returns the number of blocks replaced."""
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    by = {}
    for r in results:
        by[(r["paper"], r["scale"])] = r
    n = 0

    def repl(m: re.Match) -> str:
        nonlocal n
        paper, kind = m.group(1), m.group(2)
        r = by.get((paper, "quick" if kind == "quick" else "full"))
        if r is None:
            return m.group(0)
        if kind == "figures":
            figs = (figures or {}).get(paper)
            if not figs:
                return m.group(0)
            body = "\n".join(f"![{os.path.basename(f)}]({f})" for f in figs) + "\n"
        else:
            body = {"full": full_table, "quick": quick_table, "sensitivity": sensitivity_list}[kind](r)
        n += 1
        return f"<!-- reproduce:{paper}:{kind} -->\n{body}<!-- /reproduce:{paper}:{kind} -->"

    text = _BLOCK.sub(repl, text)
    tmp = doc_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, doc_path)
    return n


def stated_no_gc(doc_path: str, paper: str) -> Optional[list]:
    """The cases the doc's quick block says never garbage-collect."""
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    for m in _BLOCK.finditer(text):
        if m.group(1) == paper and m.group(2) == "quick":
            g = re.search(r"Cases without GC: (.*)\.", m.group(3))
            if g is None:
                return None
            return [] if g.group(1) == "none" else re.findall(r"`([^`]+)`", g.group(1))
    return None


def stated_verdicts(doc_path: str, paper: str, scale: str = "quick") -> Optional[dict]:
    """{claim id: verdict} of the doc's block for ``paper`` at ``scale``, or None if absent."""
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    for m in _BLOCK.finditer(text):
        if m.group(1) == paper and m.group(2) == scale:
            out = {}
            for line in m.group(3).splitlines():
                if not line.startswith("|"):
                    continue
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
                if len(cells) < 3 or cells[0] in ("claim", "---") or set(cells[0]) <= {"-"}:
                    continue
                v = cells[-1] if scale == "quick" else cells[6]
                out[cells[0].replace("\\|", "|")] = v.strip("*")
            return out
    return None


def main(argv: Optional[list] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    doc, dirs = argv[0], argv[1:]
    results = []
    figures: dict = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    r = json.load(f)
                # A `--claim` run's result (OUT/claims/) is a part of a paper: never a block.
                if isinstance(r, dict) and "claims" in r and "scale" in r and "selected" not in r:
                    results.append(r)
                    if r["scale"] == "full":
                        figures[r["paper"]] = copy_figures(doc, d, r["paper"])
    n = update(doc, results, figures)
    print(f"{doc}: {n} blocks updated from {len(results)} results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
