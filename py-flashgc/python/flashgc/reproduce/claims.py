"""Claims of the papers (data files in ``claims/``) and the verdict logic.

A claim is one quantitative statement of a paper, transcribed with its figure or table, the
setting it holds in, the sentence or table cell it comes from, and a tolerance. flashgc's
value is computed from the reproduction's cases and judged:

* ``holds``: same direction as the paper and within the claim's tolerance;
* ``direction only``: same direction, outside the tolerance;
* ``contradicts``: the other direction, or no effect (below the paper's noise level) where
  the paper reports one, or a value outside the tolerance for claims of equality and of
  absolute values;
* ``cannot run``: a case needs something flashgc does not have yet (a baseline, a feature,
  a workload that is not public), with the reason.

The rules are in :func:`judge`; docs/reproduce.md restates them.
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

HOLDS = "holds"
DIRECTION = "direction only"
CONTRADICTS = "contradicts"
CANNOT = "cannot run"
VERDICTS = (HOLDS, DIRECTION, CONTRADICTS, CANNOT)
KINDS = ("change", "value", "effect", "difference", "order")
AGGREGATES = ("all", "mean", "max", "min")

CLAIMS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "claims")


class Missing(Exception):
    """A metric that cannot be computed, with the reason (becomes ``cannot run``)."""


@dataclass
class Claim:
    """One expanded claim (a table-valued claim in the file becomes one per entry)."""

    id: str
    paper: str
    figure: str
    kind: str
    metric: str
    setting: str
    quote: str
    unit: str = "%"
    a: Optional[str] = None
    b: Optional[str] = None
    over: list = field(default_factory=lambda: [{}])
    aggregate: Optional[str] = None
    value: Optional[float] = None  # the paper's number
    sign: Optional[str] = None  # "+" / "-" when the paper gives only a direction
    range: Optional[tuple] = None
    keys: Optional[list] = None
    order: str = "ascending"
    tolerance: float = 0.0
    noise: float = 1.0
    needs: Optional[str] = None  # a reason this claim cannot run whatever flashgc does
    needs_feature: Optional[str] = None  # a capability the claim needs

    def paper_text(self) -> str:
        """The paper's value as printed in tables."""
        if self.kind == "order":
            return " > ".join(self.keys or [])
        if self.range is not None:
            return f"{_fmt(self.range[0])} .. {_fmt(self.range[1])}"
        if self.value is not None:
            return _fmt(self.value, signed=self.kind in ("change", "effect", "difference"))
        if self.sign is not None:
            return {"+": "higher", "-": "lower"}[self.sign]
        return "?"

    def tolerance_text(self) -> str:
        if self.kind == "order" or (self.value is None and self.range is None):
            return "sign"
        return f"±{_fmt(self.tolerance)}"

    def case_keys(self) -> list:
        """Every case key the claim reads."""
        if self.kind == "order":
            return list(self.keys or [])
        out = []
        for sub in self.over:
            for t in (self.a, self.b):
                if t:
                    out.append(t.format(**sub))
        return out


def _fmt(v: float, signed: bool = False) -> str:
    if v is None:
        return "—"
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    a = abs(v)
    s = f"{v:+.3g}" if signed else f"{v:.4g}"
    if a >= 1000:
        s = f"{v:+.0f}" if signed else f"{v:.0f}"
    return s


def _toml_load(path: str) -> dict:
    try:
        import tomllib  # Python >= 3.11
    except ImportError:  # pragma: no cover
        import tomli as tomllib  # type: ignore[no-redef]
    with open(path, "rb") as f:
        try:
            return tomllib.load(f)
        except Exception as e:
            raise ValueError(f"{path}: {e}") from None


_ALLOWED = {
    "id",
    "figure",
    "kind",
    "metric",
    "a",
    "b",
    "paper",
    "sign",
    "range",
    "over",
    "aggregate",
    "keys",
    "order",
    "tolerance",
    "tolerance_rel",
    "unit",
    "setting",
    "quote",
    "needs",
    "needs_feature",
    "noise",
}


def load_claims(paper: str, path: Optional[str] = None) -> tuple:
    """Reads ``claims/<paper>.toml``; returns (header dict, list of expanded :class:`Claim`).

    Errors name the file, the claim id and the field."""
    path = path or os.path.join(CLAIMS_DIR, f"{paper}.toml")
    doc = _toml_load(path)
    d = doc.get("defaults", {})
    tol_abs = float(d.get("tolerance_abs", 5.0))
    tol_rel = float(d.get("tolerance_rel", 0.3))
    noise = float(d.get("noise", 1.0))
    out: list = []
    seen = set()
    for i, c in enumerate(doc.get("claim", [])):
        where = f"{path}: claim {i + 1} ({c.get('id', '?')})"
        unknown = set(c) - _ALLOWED
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        for req in ("id", "figure", "kind", "metric", "setting", "quote"):
            if req not in c:
                raise ValueError(f"{where}: missing `{req}`")
        if c["kind"] not in KINDS:
            raise ValueError(f"{where}: kind `{c['kind']}`; allowed {', '.join(KINDS)}")
        agg = c.get("aggregate")
        if agg is not None and agg not in AGGREGATES:
            raise ValueError(f"{where}: aggregate `{agg}`; allowed {', '.join(AGGREGATES)}")
        over = c.get("over") or {}
        if not isinstance(over, dict):
            raise ValueError(f"{where}: `over` must be a table of lists")
        subs = [dict(zip(over.keys(), combo)) for combo in itertools.product(*over.values())] if over else [{}]
        if len(subs) > 1 and agg is None:
            raise ValueError(f"{where}: `over` needs `aggregate`")
        pv, sv = c.get("paper"), c.get("sign")
        table = pv if isinstance(pv, dict) else (sv if isinstance(sv, dict) else None)
        entries = list(table.items()) if table is not None else [(None, pv if pv is not None else sv)]
        for key, v in entries:
            cid = c["id"] if key is None else f"{c['id']}:{key}"
            if cid in seen:
                raise ValueError(f"{where}: duplicate id {cid}")
            seen.add(cid)

            def fmt(s, key=key):
                return s.replace("{s}", key) if (s and key is not None) else s

            value = sign = None
            if table is pv and pv is not None:
                value = float(v)
            elif pv is not None and not isinstance(pv, dict):
                value = float(pv)
            if table is sv and sv is not None:
                sign = v
            elif sv is not None and not isinstance(sv, dict):
                sign = sv
            if sign is not None and sign not in ("+", "-"):
                raise ValueError(f"{where}: sign `{sign}`; allowed + or -")
            rng = tuple(float(x) for x in c["range"]) if "range" in c else None
            if c["kind"] != "order" and value is None and sign is None and rng is None:
                raise ValueError(f"{where}: needs `paper`, `sign` or `range`")
            if c["kind"] == "order" and not c.get("keys"):
                raise ValueError(f"{where}: an order claim needs `keys`")
            if "tolerance" in c:
                tol = float(c["tolerance"])
            elif c["kind"] == "value":
                tol = float(c.get("tolerance_rel", tol_rel)) * abs(value or 0.0)
            elif rng is not None:
                tol = tol_abs  # a range already states the spread
            else:
                tol = max(tol_abs, float(c.get("tolerance_rel", tol_rel)) * abs(value or 0.0))
            out.append(
                Claim(
                    id=cid,
                    paper=doc.get("paper", paper),
                    figure=c["figure"],
                    kind=c["kind"],
                    metric=c["metric"],
                    setting=c["setting"],
                    quote=c["quote"],
                    unit=c.get("unit", "%"),
                    a=fmt(c.get("a")),
                    b=fmt(c.get("b")),
                    over=subs,
                    aggregate=agg,
                    value=value,
                    sign=sign,
                    range=rng,
                    keys=list(c.get("keys") or []) or None,
                    order=c.get("order", "ascending"),
                    tolerance=tol,
                    noise=float(c.get("noise", noise)),
                    needs=c.get("needs"),
                    needs_feature=c.get("needs_feature"),
                )
            )
    header = {k: v for k, v in doc.items() if k not in ("claim", "defaults")}
    return header, out


# --- verdicts --------------------------------------------------------------------------


@dataclass
class Verdict:
    """flashgc's value for a claim and the verdict."""

    verdict: str
    value: Any = None  # a number, or a text (order claims)
    detail: str = ""
    values: dict = field(default_factory=dict)  # per substitution, for `over` claims

    def value_text(self, claim: Optional[Claim] = None) -> str:
        if self.value is None:
            return "—"
        if isinstance(self.value, str):
            return self.value
        signed = claim is not None and claim.kind in ("change", "effect", "difference")
        return _fmt(float(self.value), signed=signed)

    def to_dict(self) -> dict:
        v = self.value
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            v = str(v)
        return {
            "verdict": self.verdict,
            "value": v,
            "detail": self.detail,
            "values": {
                k: (x if not isinstance(x, float) or math.isfinite(x) else str(x)) for k, x in self.values.items()
            },
        }


def _sgn(x: float) -> int:
    return (x > 0) - (x < 0)


def judge(claim: Claim, v: float) -> tuple:
    """Verdict and a short reason for one flashgc value ``v`` of a number/sign claim."""
    tol, noise = claim.tolerance, claim.noise
    if claim.kind == "value":
        p = claim.value if claim.value is not None else 0.0
        if abs(v - p) <= tol + 1e-12:
            return HOLDS, f"within ±{_fmt(tol)} of {_fmt(p)}"
        return CONTRADICTS, f"{_fmt(v)} is outside {_fmt(p)} ± {_fmt(tol)}"
    if claim.value is not None:
        p = claim.value
        if p == 0.0:
            if abs(v) <= tol:
                return HOLDS, f"within ±{_fmt(tol)} of no difference"
            return CONTRADICTS, f"a difference of {_fmt(v, True)} where the paper reports none (±{_fmt(tol)})"
        if abs(p) < noise:
            if abs(v - p) <= tol:
                return HOLDS, f"within ±{_fmt(tol)}"
            if _sgn(v) == _sgn(p):
                return DIRECTION, f"same direction, outside ±{_fmt(tol)}"
            return CONTRADICTS, "the other direction"
        if abs(v) < noise:
            return CONTRADICTS, f"no effect (|{_fmt(v, True)}| < {_fmt(noise)})"
        if _sgn(v) != _sgn(p):
            return CONTRADICTS, "the other direction"
        if abs(v - p) <= tol:
            return HOLDS, f"within ±{_fmt(tol)}"
        return DIRECTION, f"same direction, {_fmt(abs(v - p))} from the paper's value (tolerance ±{_fmt(tol)})"
    if claim.sign is not None:
        want = 1 if claim.sign == "+" else -1
        if abs(v) < noise:
            return CONTRADICTS, f"no effect (|{_fmt(v, True)}| < {_fmt(noise)})"
        if _sgn(v) == want:
            return HOLDS, "same direction"
        return CONTRADICTS, "the other direction"
    raise ValueError(f"claim {claim.id}: nothing to judge against")


_RANK = {HOLDS: 0, DIRECTION: 1, CONTRADICTS: 2}


def _judge_range(claim: Claim, vals: dict) -> tuple:
    lo, hi = claim.range
    tol, noise = claim.tolerance, claim.noise
    want = _sgn((lo + hi) / 2.0)
    worst = HOLDS
    bad = []
    for k, v in vals.items():
        if lo - tol <= v <= hi + tol and (abs(v) >= noise or want == 0):
            continue
        if want != 0 and _sgn(v) == want and abs(v) >= noise:
            worst = max(worst, DIRECTION, key=_RANK.get)
            bad.append(f"{k} {_fmt(v, True)}")
        else:
            worst = CONTRADICTS
            bad.append(f"{k} {_fmt(v, True)}")
    if worst == HOLDS:
        return HOLDS, f"all {len(vals)} within {_fmt(lo)} .. {_fmt(hi)} (±{_fmt(tol)})"
    return worst, "outside: " + ", ".join(bad[:6]) + (" ..." if len(bad) > 6 else "")


def _kendall(expected: list, values: dict, ascending: bool) -> float:
    n, s = 0, 0
    for i in range(len(expected)):
        for j in range(i + 1, len(expected)):
            d = values[expected[j]] - values[expected[i]]
            if not ascending:
                d = -d
            s += _sgn(d)
            n += 1
    return s / n if n else 1.0


def evaluate(
    claim: Claim, metric: Callable[[str, str], float], feature: Callable[[str], Optional[str]] = lambda f: None
) -> Verdict:
    """Computes flashgc's value for ``claim`` and its verdict. ``metric(case_key, name)``
    returns a number or raises :class:`Missing`; ``feature(name)`` returns None when flashgc
    has the feature, else the reason."""
    if claim.needs:
        return Verdict(CANNOT, detail=f"needs {claim.needs}")
    if claim.needs_feature:
        why = feature(claim.needs_feature)
        if why:
            return Verdict(CANNOT, detail=f"needs {why}")
    try:
        if claim.kind == "order":
            vals = {k: metric(k, claim.metric) for k in claim.keys}
            tau = _kendall(claim.keys, vals, claim.order == "ascending")
            got = sorted(vals, key=lambda k: vals[k], reverse=claim.order != "ascending")
            text = " > ".join(got)
            detail = f"Kendall tau {tau:+.2f}"
            if tau >= 1.0 - 1e-12:
                return Verdict(HOLDS, text, detail, vals)
            return Verdict(DIRECTION if tau > 0 else CONTRADICTS, text, detail, vals)
        vals = {}
        for sub in claim.over:
            label = ",".join(str(x) for x in sub.values()) or "value"
            a = claim.a.format(**sub)
            va = metric(a, claim.metric.format(**sub))
            if claim.kind in ("value", "effect"):
                vals[label] = va
                continue
            vb = metric(claim.b.format(**sub), claim.metric.format(**sub))
            if claim.kind == "difference":
                vals[label] = va - vb
            elif vb == 0:
                # Against nothing, any amount is an unbounded increase (or no change).
                vals[label] = 0.0 if va == 0 else math.copysign(math.inf, va)
            else:
                vals[label] = (va - vb) / abs(vb) * 100.0
    except Missing as e:
        return Verdict(CANNOT, detail=str(e))
    agg = claim.aggregate
    if agg in (None,) or len(vals) == 1 and agg != "all":
        v = next(iter(vals.values()))
        verdict, why = judge(claim, v)
        return Verdict(verdict, v, why, vals if len(vals) > 1 else {})
    if agg == "all":
        if claim.range is not None:
            verdict, why = _judge_range(claim, vals)
        else:
            worst, whys = HOLDS, []
            for k, v in vals.items():
                vd, w = judge(claim, v)
                if _RANK[vd] > _RANK[worst]:
                    worst = vd
                if vd != HOLDS:
                    whys.append(f"{k}: {_fmt(v, True)} ({w})")
            verdict = worst
            why = f"all {len(vals)} hold" if not whys else "; ".join(whys[:4]) + (" ..." if len(whys) > 4 else "")
        lo, hi = min(vals.values()), max(vals.values())
        return Verdict(verdict, f"{_fmt(lo, True)} .. {_fmt(hi, True)}", why, vals)
    v = {"mean": lambda xs: sum(xs) / len(xs), "max": max, "min": min}[agg](list(vals.values()))
    verdict, why = judge(claim, v)
    return Verdict(verdict, v, f"{agg} of {len(vals)}: {why}", vals)
