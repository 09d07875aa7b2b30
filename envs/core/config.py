"""Game options as frozen dataclasses, built from keyword overrides with strict validation."""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, TypeVar

import numpy as np

from .errors import ConfigError

C = TypeVar("C")


def build_config(config_cls: type[C], overrides: Mapping[str, Any] | None = None) -> C:
    """Return ``config_cls(**overrides)``, refusing unknown keys and values of the wrong type."""
    overrides = dict(overrides or {})
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown config key(s) {unknown} for {config_cls.__name__}; "
            f"valid keys are {sorted(fields)}"
        )
    for name, value in overrides.items():
        default = fields[name].default
        if default is dataclasses.MISSING or default is None:
            continue
        expected = type(default)
        # numpy scalars (an option read from an array, say) count as the Python value they hold
        if expected is bool and isinstance(value, np.bool_):
            value = overrides[name] = bool(value)
        elif expected in (int, float) and isinstance(value, np.integer):
            value = overrides[name] = int(value)
        elif expected is float and isinstance(value, np.floating):
            value = overrides[name] = float(value)
        ok = isinstance(value, expected) or (expected is float and isinstance(value, int))
        if expected in (int, float) and isinstance(value, bool):
            ok = False
        if not ok:
            raise ConfigError(
                f"config key {name!r} of {config_cls.__name__} expects "
                f"{expected.__name__}, got {value!r}"
            )
    return config_cls(**overrides)


def check_range(name: str, value: int, low: int, high: int) -> None:
    """Raise ConfigError unless ``low <= value <= high`` (every integer option documents its range)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{name} must be an integer in {low}..{high}, got {value!r}")
