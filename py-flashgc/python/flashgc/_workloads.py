"""Workloads as the core takes them: request tables (DataFrames, dicts, numpy arrays)
encoded as little-endian byte buffers, and workload specs (synthetic names, trace paths)."""

from __future__ import annotations

import math
import os
from typing import Any, Mapping, Optional

import numpy as np
import pandas as pd

from ._flashgc import FlashgcError

_COLUMNS = ("op", "lpn", "pages", "time_ns", "content")
_OP_CODES = {"r": 0, "read": 0, "w": 1, "write": 1, "t": 2, "trim": 2, "d": 2, "discard": 2}


def _op_codes(ops: Any) -> np.ndarray:
    a = np.asarray(ops)
    if a.ndim != 1:
        raise FlashgcError(f"requests: column `op` has shape {a.shape}, expected one value per request (n,)")
    if a.size == 0:
        # An empty list is float64 to numpy: not a wrong op type, just no requests.
        return np.zeros(0, dtype=np.uint8)
    if a.dtype.kind in "iub":
        if a.size and (a.min() < 0 or a.max() > 2):
            bad = int(np.flatnonzero((a < 0) | (a > 2))[0])
            raise FlashgcError(
                f"requests: {_row(bad)}: op {a[bad]} is not allowed; allowed 0 (read), 1 (write), 2 (trim)"
            )
        return a.astype(np.uint8)
    if a.dtype.kind in "USO":
        out = np.empty(a.shape, dtype=np.uint8)
        for i, v in enumerate(a.tolist()):
            code = _OP_CODES.get(str(v).strip().lower())
            if code is None:
                raise FlashgcError(
                    f"requests: {_row(i)}: op {v!r} is not allowed; allowed read/write/trim (or R/W/T, 0/1/2)"
                )
            out[i] = code
        return out
    raise FlashgcError(f"requests: op column of dtype {a.dtype} is not allowed; use integers 0/1/2 or strings")


def _row(i: int) -> str:
    """A row of a request table as both numberings: pandas' (from 0) and the core's
    (``request N``, from 1, as its workload errors say)."""
    return f"row {i} (request {i + 1})"


_U64_LIMIT = 2**64


def _u64(name: str, v: Any, n: int) -> bytes:
    a = np.asarray(v)
    if a.ndim != 1 or len(a) != n:
        raise FlashgcError(f"requests: column `{name}` has shape {a.shape}, expected ({n},)")
    if a.dtype.kind == "O" and a.size:
        # Python objects (a pandas nullable column): numpy's own dtype for them when it finds
        # one (a C loop), else checked one by one below.
        try:
            inferred = np.array(a.tolist())
        except (ValueError, TypeError, OverflowError):
            inferred = a
        if inferred.dtype.kind in "iuf" and inferred.shape == a.shape:
            a = inferred
    if a.dtype.kind == "O":
        # Whole numbers only, each in range (a Python int may exceed 64 bits).
        out = np.empty(n, dtype="<u8")
        for i, x in enumerate(a.tolist()):
            if isinstance(x, float) and math.isfinite(x) and x == math.floor(x):
                x = int(x)
            if isinstance(x, bool) or not isinstance(x, int):
                raise FlashgcError(f"requests: column `{name}`: {_row(i)}: {x!r} is not a whole number")
            if not 0 <= x < _U64_LIMIT:
                raise FlashgcError(f"requests: column `{name}`: {_row(i)}: {x} is out of range 0..=2^64-1")
            out[i] = x
        return out.tobytes()
    if a.dtype.kind not in "iuf":
        raise FlashgcError(
            f"requests: column `{name}` of dtype {a.dtype} is not allowed; it must hold whole numbers (integers)"
        )
    if a.size and a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.floor(a)) | (a < 0) | (a >= float(_U64_LIMIT))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise FlashgcError(f"requests: column `{name}`: {_row(i)}: {a[i]} is not a whole number in 0..=2^64-1")
    if a.size and a.dtype.kind == "i" and a.min() < 0:
        i = int(np.flatnonzero(a < 0)[0])
        raise FlashgcError(f"requests: column `{name}`: {_row(i)}: {a[i]} is negative")
    return np.ascontiguousarray(a, dtype="<u8").tobytes()


def _requests(workload: Any) -> Optional[dict]:
    """Encodes array-like request tables; None when ``workload`` is not one."""
    cols: Optional[dict] = None
    if isinstance(workload, pd.DataFrame):
        cols = {c: workload[c].to_numpy() for c in workload.columns}
    elif isinstance(workload, np.ndarray) and workload.dtype.names:
        cols = {c: workload[c] for c in workload.dtype.names}
    elif isinstance(workload, np.ndarray):
        if workload.ndim != 2 or workload.shape[1] not in (3, 4):
            raise FlashgcError(
                f"requests: a plain array must have shape (n, 3) = (op, lpn, pages), got {workload.shape}"
            )
        cols = {"op": workload[:, 0], "lpn": workload[:, 1], "pages": workload[:, 2]}
        if workload.shape[1] == 4:
            cols["time_ns"] = workload[:, 3]
    elif isinstance(workload, Mapping):
        cols = dict(workload)
    elif isinstance(workload, tuple):
        if len(workload) not in (3, 4):
            raise FlashgcError(
                f"requests: a tuple of columns must be (op, lpn, pages) or (op, lpn, pages, time_ns), "
                f"got {len(workload)} items"
            )
        cols = dict(zip(("op", "lpn", "pages", "time_ns"), workload))
    if cols is None:
        return None
    missing = [c for c in ("op", "lpn", "pages") if c not in cols]
    if missing:
        raise FlashgcError(f"requests: missing column(s) {', '.join(missing)}; need op, lpn, pages")
    unknown = sorted(repr(c) if not isinstance(c, str) else c for c in cols if c not in _COLUMNS)
    if unknown:
        raise FlashgcError(
            f"requests: unknown column(s) {', '.join(unknown)}; allowed op, lpn, pages, time_ns, content"
        )
    ops = _op_codes(cols["op"])
    n = len(ops)
    enc = {
        "ops": ops.tobytes(),
        "lpns": _u64("lpn", cols["lpn"], n),
        "pages": _u64("pages", cols["pages"], n),
    }
    if "time_ns" in cols:
        enc["times_ns"] = _u64("time_ns", cols["time_ns"], n)
    if "content" in cols:
        enc["contents"] = _u64("content", cols["content"], n)
    writes = int(np.count_nonzero(ops == 1))
    enc["requests_name"] = f"requests ({n} requests, {writes} writes)"
    return enc


def _workload_spec(workload: Any) -> Optional[str]:
    if workload is None:
        return None
    if isinstance(workload, os.PathLike):
        return "trace:" + os.fspath(workload)
    if isinstance(workload, str):
        # A bare path to an existing file is a trace.
        if not workload.startswith("trace:") and os.path.isfile(workload):
            return "trace:" + workload
        return workload
    raise TypeError(
        "workload must be a spec string ('uniform', 'zipf:1.0', 'hotcold:80/20', 'seq', "
        f"'trace:PATH'), a path, or a request table, not {type(workload).__name__}"
    )
