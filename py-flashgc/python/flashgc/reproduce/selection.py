"""`flashgc reproduce PAPER --claim ID`: which claims of which papers a run judges.

An id is written as `--list` prints it (``F15-home2``, ``T4-write-mean:sqlite``), qualified
by its paper (``noc:T4-write-mean:sqlite``), or as the stem of a table-valued claim
(``T4-write-mean``: every entry of the table). Each id is looked up in the papers asked for;
an id no paper has, or one several papers have, is a user error (exit 2) naming the valid ids
or asking for ``PAPER:ID``.
"""

from __future__ import annotations

import difflib
from typing import Iterable, Optional, Sequence


def split_ids(values: Optional[Iterable[str]]) -> list:
    """The ids of repeated and comma-separated ``--claim`` values, in order, each once."""
    out: list = []
    for v in values or []:
        for t in str(v).split(","):
            t = t.strip()
            if t and t not in out:
                out.append(t)
    return out


def _lookup(token: str, ids: Sequence[str]) -> list:
    """The ids ``token`` names in one paper: itself, or every entry of a table-valued claim
    whose stem it is; empty if none."""
    if token in ids:
        return [token]
    return [i for i in ids if i.startswith(token + ":")]


def _unknown(token: str, catalog: dict) -> str:
    names = list(catalog)
    every = [i for ids in catalog.values() for i in ids]
    close = difflib.get_close_matches(token, every, n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    if len(names) == 1:
        where, valid = names[0], ", ".join(catalog[names[0]])
    else:
        where, valid = ", ".join(names), "; ".join(f"{p}: {', '.join(ids)}" for p, ids in catalog.items())
    return (
        f"unknown claim `{token}` in {where}{hint}; valid ids (as `flashgc reproduce {' '.join(names)} --list` "
        f"prints them): {valid}"
    )


def resolve(tokens: Sequence[str], catalog: dict, known: Sequence[str] = ()) -> dict:
    """{paper: [claim id]} for ``tokens`` (ids, ``PAPER:ID`` or stems) against ``catalog``
    ({paper: [claim ids in file order]} of the papers asked for); ``known``: every paper
    name (a ``PAPER:`` prefix naming a paper not asked for is refused rather than read as
    part of an id). Papers without a selected claim are left out; ids keep the file's order.
    Raises ValueError naming the valid ids, or asking for ``PAPER:ID`` when an id is in
    several papers."""
    if not tokens:
        raise ValueError("--claim: no claim id given")
    known = set(known) | set(catalog)
    chosen: dict = {p: set() for p in catalog}
    for token in tokens:
        paper, sep, rest = token.partition(":")
        if sep and paper in known:
            if paper not in catalog:
                raise ValueError(
                    f"claim `{token}`: {paper} is not among the papers asked for ({', '.join(catalog)}); "
                    f"run `flashgc reproduce {paper} --claim {rest}`"
                )
            hit = _lookup(rest, catalog[paper])
            if not hit:
                raise ValueError(_unknown(rest, {paper: catalog[paper]}))
            chosen[paper].update(hit)
            continue
        hits = {p: _lookup(token, ids) for p, ids in catalog.items()}
        hits = {p: h for p, h in hits.items() if h}
        if not hits:
            raise ValueError(_unknown(token, catalog))
        if len(hits) > 1:
            raise ValueError(
                f"claim `{token}` is in several papers ({', '.join(hits)}): write PAPER:ID, e.g. "
                + " or ".join(f"{p}:{token}" for p in hits)
            )
        p, h = next(iter(hits.items()))
        chosen[p].update(h)
    return {p: [i for i in catalog[p] if i in sel] for p, sel in chosen.items() if sel}
