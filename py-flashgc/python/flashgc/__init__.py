"""flashgc: a fast, faithful laboratory for SSD garbage collection.

Run GC schemes from the papers side by side on synthetic workloads, traces or request
arrays, and get write amplification, erases, GC page moves and (with the timing layer)
latency::

    import flashgc
    r = flashgc.run("default", "zipf:1.0", placement="sup-gc", op=0.07, logical_gib=0.25)
    r.waf, r.series           # steady-state WAF; WAF over data written (DataFrame)
    flashgc.compare("default", "hotcold:80/20", placements=["single", "sup-gc"])
    flashgc.compare("default", "zipf:1.0", schemes=[("midas", "fifo"), ("sepbit", "cost-benefit:sqrt")])
    flashgc.sweep({"placement": ["single", "sup-gc"], "seed": [1, 2, 3]}, out="res.parquet")
    flashgc.report("res.parquet", "report.html")

The simulator is the Rust core (``flashgc._flashgc``); the same configuration and seed
give the same numbers bit for bit, from Python, the CLI or a Dask worker.
"""

from ._flashgc import FlashgcError
from ._flashgc import __version__ as __version__
from .api import (
    Config,
    Result,
    compare,
    load_config,
    model_waf,
    paper_schemes,
    parse_schemes,
    placements,
    presets,
    run,
    summary_row,
    victims,
)

# Imported eagerly so that `flashgc.sweep` and `flashgc.report` stay the functions even
# after `import flashgc.sweep` (Dask and matplotlib themselves are imported lazily).
from .report import report
from .sweep import read_results, sweep, sweep_from_file

# The extension names its exception `_flashgc.FlashgcError`; give it its public home so
# that it pickles (errors raised on Dask workers reach the client intact).
FlashgcError.__module__ = "flashgc"

__all__ = [
    "FlashgcError",
    "Config",
    "Result",
    "run",
    "compare",
    "load_config",
    "model_waf",
    "placements",
    "paper_schemes",
    "parse_schemes",
    "presets",
    "victims",
    "summary_row",
    "sweep",
    "report",
    "read_results",
    "sweep_from_file",
    "__version__",
]
