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
