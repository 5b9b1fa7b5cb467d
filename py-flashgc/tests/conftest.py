"""Shared fixtures: a tiny device so that every run takes tens of milliseconds."""

import os
import sys

import pytest

#: 64 MiB logical, 64-page blocks: 16 Ki logical pages, ~270 segments.
TINY = {"logical_gib": 0.0625, "pages_per_block": 64, "write_volume": 3.0}

#: The repository root (for examples/ and the sweep CLI).
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def tiny():
    return dict(TINY)


@pytest.fixture
def python_exe():
    return sys.executable


def why_no_simulated_block_device(*tools):
    """Why this machine cannot put the simulated SSD in the kernel's reach (scripts/lib/
    simulated-ssd.sh: serve, nbdfuse, a loop device), or None: root, /dev/fuse, a free loop
    device and the tools (those of scripts/install-app-tools.sh, which scripts/test.sh installs)."""
    import shutil
    import subprocess

    if os.geteuid() != 0:
        return "not root (losetup and mount need it)"
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    for tool in ("nbdfuse", "fusermount3", "losetup", "setsid", *tools):
        if shutil.which(tool) is None and not os.path.exists(tool):
            return f"`{tool}` is missing (scripts/install-app-tools.sh installs it)"
    p = subprocess.run(["losetup", "--find"], capture_output=True, text=True)
    if p.returncode != 0:
        return f"no free loop device: {p.stderr.strip()}"
    return None


def quick_claims(paper, out, claims, **kw):
    """``paper``'s result of a quick, local, report-free reproduction of ``claims`` into ``out``
    (``kw``: e.g. ``app_traces``)."""
    from flashgc.reproduce import reproduce

    return reproduce(
        paper, scale="quick", out=str(out), progress=False, report=False, claims=claims, scheduler="local", **kw
    )[paper]
