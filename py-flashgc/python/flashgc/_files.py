"""Reading the package's input files (configurations, sweep files) as UTF-8 text, with
errors that name the file, and the line of a byte that is not UTF-8."""

from __future__ import annotations

import os

from ._flashgc import FlashgcError


def read_text(path: str, prefix: str, kind: str) -> str:
    """The text of ``path``, or a :class:`FlashgcError` starting with ``prefix`` (how the
    file is named, e.g. ``config `x.toml```) that says why it cannot be read as ``kind``
    (``a TOML file``): a directory, an I/O error, bytes that are not UTF-8."""
    if os.path.isdir(path):
        raise FlashgcError(f"{prefix} is a directory, not {kind}")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FlashgcError(f"{prefix}: cannot be read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise FlashgcError(
            f"{prefix}: line {line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}); "
            f"{kind} is UTF-8 text"
        ) from None
