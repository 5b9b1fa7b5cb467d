"""Sweep files (TOML): reading one, and naming the line of the key an error is about."""

from __future__ import annotations

import os
import re
from typing import Mapping, Optional, Union

from . import _flashgc
from ._files import read_text
from ._flashgc import FlashgcError


def _toml_loads(text: str) -> dict:
    try:
        import tomllib  # Python >= 3.11
    except ImportError:  # pragma: no cover
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-]+)\s*\]")
_KEY = re.compile(r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_.\-]+))\s*=""")


def key_lines(text: str) -> dict:
    """The line (from 1) of each key a sweep file sets, as ``(table, key)``: ``("", "out")``,
    ``("grid", "op")``, ``("base", "run.seed")`` (a dotted key as written)."""
    out: dict = {}
    table = ""
    for n, line in enumerate(text.splitlines(), 1):
        h = _HEADER.match(line)
        if h:
            table = h.group(1)
            continue
        k = _KEY.match(line)
        if k:
            out.setdefault((table, next(g for g in k.groups() if g)), n)
    return out


def locate(path: str, text: str, err: Exception, grid: Optional[Mapping] = None) -> FlashgcError:
    """``err`` (about a sweep of the file ``path``) prefixed with the file, and the line of
    the ``[grid]`` or ``[base]`` key the message is about: the one whose field it names in
    backticks (``op`` for `` `ftl.op` ``), else the grid key one of whose values it names
    (``placement`` for `` `nope` ``), when there is one."""
    msg = str(err)
    lines = key_lines(text)
    named = re.findall(r"`([^`]+)`", msg)
    for field in named:
        for (table, key), n in lines.items():
            if table in ("grid", "base") and (field == key or field.endswith("." + key) or key.endswith("." + field)):
                return FlashgcError(f"{path}: line {n}: `{table}.{key}`: {msg}")
    for key, values in (grid or {}).items():
        vals = values if isinstance(values, list) else [values]
        if any(str(v) in named for v in vals) and ("grid", key) in lines:
            return FlashgcError(f"{path}: line {lines['grid', key]}: `grid.{key}`: {msg}")
    return FlashgcError(f"{path}: {msg}")


def load_sweep_file(path: Union[str, os.PathLike[str]]) -> dict:
    """Reads a sweep file (TOML): ``config``, ``out``, ``scheduler``, ``workers``, ``[base]``
    (overrides applied to every run) and ``[grid]`` (the dimensions). Errors name the file
    and, for a key it sets, the line.

    Relative paths in ``config`` and ``out`` are relative to the sweep file. The result
    also holds the file's ``path`` and ``text`` (to name lines in later errors).
    """
    p = os.fspath(path)
    text = read_text(p, p, "a sweep file")
    try:
        doc = _toml_loads(text)
    except Exception as e:  # tomllib.TOMLDecodeError names the line and column
        raise FlashgcError(f"{p}: {e}") from None
    lines = key_lines(text)

    def at(key: str) -> str:
        n = lines.get(("", key))
        return f"{p}: line {n}" if n else p

    allowed = {"config", "out", "scheduler", "workers", "dashboard", "base", "grid"}
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise FlashgcError(
            f"{at(unknown[0])}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )
    if "grid" not in doc or not isinstance(doc["grid"], dict):
        raise FlashgcError(f'{p}: missing [grid] table (e.g. placement = ["single", "sup-gc"])')
    here = os.path.dirname(os.path.abspath(p))
    cfg = doc.get("config")
    if cfg is not None and not isinstance(cfg, str):
        raise FlashgcError(f"{at('config')}: `config` must be a preset name or a path, not {cfg!r}")
    if isinstance(cfg, str) and cfg not in _flashgc.presets() and not os.path.isabs(cfg):
        cfg = os.path.join(here, cfg)
    base = doc.get("base", {})
    if not isinstance(base, dict):
        raise FlashgcError(f"{at('base')}: `base` must be a table of configuration fields")
    out = doc.get("out", "results.parquet")
    if not isinstance(out, str) or not out:
        raise FlashgcError(f"{at('out')}: `out` must be a path (a non-empty string), not {out!r}")
    if not os.path.isabs(out):
        out = os.path.join(here, out)
    workers = doc.get("workers", 2)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise FlashgcError(f"{at('workers')}: `workers` must be a whole number >= 1, not {workers!r}")
    for key in ("scheduler", "dashboard"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise FlashgcError(f"{at(key)}: `{key}` must be a string, not {doc[key]!r}")
    return {
        "config": cfg,
        "base": base,
        "grid": doc["grid"],
        "out": out,
        "scheduler": doc.get("scheduler"),
        "workers": workers,
        "dashboard": doc.get("dashboard"),
        "path": p,
        "text": text,
    }
