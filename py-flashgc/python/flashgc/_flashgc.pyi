"""Type stubs of the Rust extension module ``flashgc._flashgc`` (the thin binding)."""

from typing import Optional

__version__: str

class FlashgcError(ValueError):
    """An error of the flashgc core, with its message naming the field, file or line."""

def resolve_config(
    preset: Optional[str] = None,
    toml_text: Optional[str] = None,
    origin: str = "config",
    overrides_json: Optional[str] = None,
    complete: bool = False,
) -> tuple[str, str]:
    """Resolves preset + TOML + JSON overrides; returns (toml, json) of the effective config."""

def layout(config_toml: str) -> str:
    """Validates a configuration and returns its derived layout as JSON."""

def validate(config_toml: str) -> str:
    """Validates a configuration as a run would before starting (layout, workload, policies,
    stream reserve); returns the layout as JSON."""

def mqsim_config(config_toml: str, path: str, scenario: Optional[int] = None) -> tuple[str, str]:
    """One IO scenario of an MQSim workload file as the configuration's [[flow]] sections
    and notes; returns (toml, json) of the effective config."""

def run(
    config_toml: str,
    workload: Optional[str] = None,
    ops: Optional[bytes] = None,
    lpns: Optional[bytes] = None,
    pages: Optional[bytes] = None,
    times_ns: Optional[bytes] = None,
    contents: Optional[bytes] = None,
    requests_name: str = "requests",
    trace_options_json: Optional[str] = None,
    timing_json: Optional[str] = None,
    fio_job: Optional[str] = None,
    fio_job_text: Optional[str] = None,
    memory_jobs: int = 1,
    memory_cap_gib: Optional[float] = None,
    progress: Optional[bool] = None,
) -> str:
    """Runs one simulation (GIL released) and returns the RunResult as JSON; ``progress``:
    a bar on stderr (None: only when stderr is a terminal)."""

def presets() -> list[str]: ...
def preset_text(name: str) -> str: ...
def placements() -> list[tuple[str, str]]: ...
def victims() -> list[tuple[str, str]]: ...
def parse_schemes(text: str) -> list[tuple[str, str]]: ...
def paper_schemes() -> list[tuple[str, str]]: ...
def model_waf(
    victim: str,
    alpha: float,
    pages_per_segment: Optional[float] = None,
    hot: Optional[tuple[float, float]] = None,
) -> float: ...
