"""Game options as frozen dataclasses, built from keyword overrides with strict validation."""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, TypeVar

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
        ok = isinstance(value, expected) or (expected is float and isinstance(value, int))
        if expected in (int, float) and isinstance(value, bool):
            ok = False
        if not ok:
            raise ConfigError(
                f"config key {name!r} of {config_cls.__name__} expects "
                f"{expected.__name__}, got {value!r}"
            )
    return config_cls(**overrides)


def config_keys(config_cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(config_cls)]
