"""Configurations: a preset, TOML text or file, a dict of sections and keyword overrides,
resolved by the core into one :class:`Config`, with errors naming the field."""

from __future__ import annotations

import copy
import json
import math
import os
from typing import Any, Mapping, Optional, Union

import numpy as np

from . import _flashgc
from ._files import read_text
from ._flashgc import FlashgcError

ConfigLike = Union[None, str, "os.PathLike[str]", Mapping[str, Any], "Config"]


def presets() -> list:
    """Names of the embedded device presets (``default``, ``cosmos-openssd``, ...)."""
    return list(_flashgc.presets())


def _jsonable(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    if isinstance(o, (os.PathLike,)):
        return os.fspath(o)
    raise TypeError(f"{type(o).__name__} is not a configuration value")


_U64_MAX = 2**64 - 1


def _check_values(o: Any, path: str) -> None:
    """Raises :class:`FlashgcError` naming the field (``path``) of a value JSON cannot carry
    to the core as the number it is: NaN and infinities (not JSON) and integers beyond 64
    bits (the core would read them as floats and name no field)."""
    if isinstance(o, Mapping):
        for k, v in o.items():
            _check_values(v, f"{path}.{k}" if path else str(k))
    elif isinstance(o, (list, tuple)):
        for i, v in enumerate(o):
            _check_values(v, f"{path}[{i}]")
    elif isinstance(o, (bytes, bytearray)):
        raise TypeError(f"`{path}`: bytes are not a configuration value; give a str")
    elif isinstance(o, (float, np.floating)) and not math.isfinite(o):
        raise FlashgcError(f"`{path}`: {o} is not a finite number")
    elif (
        isinstance(o, (int, np.integer))
        and not isinstance(o, (bool, np.bool_))
        and not (-(2**63) <= int(o) <= _U64_MAX)
    ):
        raise FlashgcError(f"`{path}`: {o} is out of range for a 64-bit integer")


def _to_json(o: Any, what: str) -> str:
    """``o`` as JSON for the core, after :func:`_check_values` (``what`` names a mapping
    argument, checked to be one: ``timing``, ``trace_options``; empty for overrides)."""
    if what and not isinstance(o, Mapping):
        raise TypeError(f"{what} must be a mapping of parameter names to values, not {type(o).__name__}")
    _check_values(o, what)
    return json.dumps(dict(o), default=_jsonable)


def _deep_merge(base: dict, over: Mapping[str, Any]) -> dict:
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            _deep_merge(base[k], v)
        else:
            base[k] = copy.deepcopy(v) if isinstance(v, Mapping) else v
    return base


def _field_paths(cfg: Mapping[str, Any], prefix: tuple = ()) -> dict:
    """Maps every leaf field name to its section path(s) in a resolved configuration."""
    out: dict = {}
    for k, v in cfg.items():
        if isinstance(v, dict):
            for name, paths in _field_paths(v, prefix + (k,)).items():
                out.setdefault(name, []).extend(paths)
        else:
            out.setdefault(k, []).append(prefix + (k,))
    return out


class Config:
    """An effective, fully resolved flashgc configuration.

    Build one with :func:`load_config` (or pass any config-like value to :func:`run`).
    ``toml`` is the exact text handed to the core; ``data`` the same values as a dict.
    """

    __slots__ = ("toml", "data")

    def __init__(self, toml: str, data: dict):
        self.toml = toml
        self.data = data

    def to_dict(self) -> dict:
        """A deep copy of the values (sections ``device``, ``ftl``, ``run``, ...)."""
        return copy.deepcopy(self.data)

    def layout(self) -> dict:
        """Validates the configuration and returns the derived layout (segments, pages...)."""
        return json.loads(_flashgc.layout(self.toml))

    def replace(self, **overrides: Any) -> Config:
        """A copy with field overrides (flat names such as ``op=0.2`` or dotted paths)."""
        return load_config(self, **overrides)

    def __getitem__(self, section: str) -> Any:
        try:
            return self.data[section]
        except (KeyError, TypeError):
            raise KeyError(
                f"{section!r} is not a section of the configuration; sections: {', '.join(map(str, self.data))}"
            ) from None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other.data == self.data

    def __hash__(self) -> int:
        return hash(json.dumps(self.data, sort_keys=True))

    def __repr__(self) -> str:
        r = self.data.get("run", {})
        return (
            f"Config(preset={self.data.get('preset')!r}, workload={r.get('workload')!r}, "
            f"placement={r.get('placement')!r}, victim={r.get('victim')!r}, seed={r.get('seed')!r})"
        )


def _nest_overrides(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict:
    """Turns flat (``op``) and dotted (``device.timing.read_us``) names into sections."""
    paths = _field_paths(base)
    nested: dict = {}
    for key, value in overrides.items():
        if isinstance(value, Mapping) and key in base and isinstance(base[key], dict):
            _deep_merge(nested.setdefault(key, {}), value)
            continue
        if not isinstance(key, str):
            raise TypeError(f"override names must be strings, not {type(key).__name__} ({key!r})")
        if key in base and isinstance(base[key], dict):
            # A whole section given a value that is not a mapping of its fields.
            raise FlashgcError(
                f"`{key}` is a section of the configuration: give a dict of its fields "
                f"(e.g. {key}={{...}}) or the fields themselves"
            )
        if "." in key:
            path = tuple(key.split("."))
            _check_dotted(base, key, path)
        else:
            found = paths.get(key, [])
            if len(found) == 1:
                path = found[0]
            elif len(found) > 1:
                raise FlashgcError(
                    f"override `{key}` is ambiguous: use one of " + ", ".join(".".join(p) for p in found)
                )
            else:
                known = sorted(k for k in paths if k != "preset")
                raise FlashgcError(f"unknown configuration field `{key}`; known: {', '.join(known)}")
        d = nested
        for i, p in enumerate(path[:-1]):
            d = d.setdefault(p, {})
            if not isinstance(d, dict):
                # A flat override (`op=0.1`) and a dotted one below it (`ftl.op.x`).
                raise FlashgcError(
                    f"override `{key}`: `{'.'.join(path[: i + 1])}` is a field given its own value, not a section"
                )
        if isinstance(d.get(path[-1]), dict):
            raise FlashgcError(f"override `{key}`: a value for a section that other overrides fill")
        d[path[-1]] = value
    # `op` and `op_of_physical` are alternatives: giving one clears the other.
    ftl = nested.get("ftl", {})
    if "op_of_physical" in ftl and "op" not in ftl:
        ftl["op"] = None
    if "op" in ftl and "op_of_physical" not in ftl:
        ftl["op_of_physical"] = None
    return nested


def _check_dotted(base: Mapping[str, Any], key: str, path: tuple) -> None:
    """Refuses a dotted override that goes below a field (``ftl.op.x``) or has an empty
    part (``a..b``); unknown names are left to the core, which lists the known ones."""
    if any(not p for p in path):
        raise FlashgcError(f"override `{key}`: an empty name between dots")
    node: Any = base
    for i, p in enumerate(path[:-1]):
        if not isinstance(node, Mapping) or p not in node:
            return
        node = node[p]
        if node is not None and not isinstance(node, (Mapping, list)):
            raise FlashgcError(f"override `{key}`: `{'.'.join(path[: i + 1])}` is a field, not a section")


def _looks_like_toml(s: str) -> bool:
    return "\n" in s or ("=" in s and "[" in s)


def load_config(config: ConfigLike = None, **overrides: Any) -> Config:
    """Resolves a configuration.

    ``config`` may be ``None`` (the ``default`` preset), a preset name
    (see :func:`presets`), a path to a TOML file, TOML text, a dict of sections
    (``{"preset": "cosmos-openssd", "ftl": {"op": 0.2}, "run": {...}}``) or a
    :class:`Config`. Keyword ``overrides`` use flat field names (``op=0.2``,
    ``placement="sup-gc"``, ``pages_per_block=64``) or dotted paths; ``None`` resets a
    field to its default. Unknown fields raise :class:`FlashgcError`.

    ``preset="NAME"`` selects the device preset the configuration is layered on, as the
    CLI's ``--preset``: it replaces a preset given as ``config`` (or a dict's ``preset``)
    and goes under a TOML file instead of the one the file names. A :class:`Config` is
    already resolved (every device field set), so it only takes its own preset: another
    raises :class:`FlashgcError`.
    """
    preset: Optional[str] = None
    text: Optional[str] = None
    origin = "config"
    layer: Optional[dict] = None
    complete = False
    preset_kw = overrides.pop("preset", None)
    if preset_kw is not None and not isinstance(preset_kw, str):
        raise TypeError(f"preset must be a preset name ({', '.join(presets())}), not {type(preset_kw).__name__}")
    if config is None:
        pass
    elif isinstance(config, Config):
        if preset_kw is not None and preset_kw != config.data.get("preset"):
            # Changing only the label would leave the other preset's device in place.
            raise FlashgcError(
                f"preset `{preset_kw}`: the configuration is already resolved on preset "
                f"`{config.data.get('preset')}` (every device field set); give the preset as the "
                f'configuration instead, e.g. load_config("{preset_kw}", ...), or a dict '
                f'{{"preset": "{preset_kw}", ...}}'
            )
        text, origin, complete = config.toml, "configuration", True
        preset_kw = None
    elif isinstance(config, Mapping):
        layer = dict(config)
        preset = layer.pop("preset", None)
        if preset is not None and not isinstance(preset, str):
            raise TypeError(
                f"config's `preset` must be a preset name ({', '.join(presets())}), not {type(preset).__name__}"
            )
    elif isinstance(config, (str, os.PathLike)):
        s = os.fspath(config)
        if isinstance(config, str) and s in _flashgc.presets():
            preset = s
        elif isinstance(config, str) and _looks_like_toml(s):
            text, origin = s, "TOML text"
        elif os.path.exists(s):
            text, origin = read_text(s, f"config `{s}`", "a TOML file"), s
        else:
            raise FlashgcError(
                f"config `{s}` is neither a preset ({', '.join(_flashgc.presets())}) nor an existing file"
            )
    else:
        raise TypeError(f"config must be a preset name, path, TOML text, dict or Config, not {type(config)}")
    if preset_kw is not None:
        preset = preset_kw

    over_json = None
    if layer or overrides:
        _, base_json = _flashgc.resolve_config(preset, text, origin, None, complete)
        base = json.loads(base_json)
        nested: dict = {}
        if layer:
            _deep_merge(nested, _nest_overrides(base, layer))
        if overrides:
            _deep_merge(nested, _nest_overrides(base, overrides))
        over_json = _to_json(nested, "")
    toml_text, data = _flashgc.resolve_config(preset, text, origin, over_json, complete)
    return Config(toml_text, json.loads(data))
