"""Name -> game registry. Game modules are imported lazily so ``import envs`` stays cheap."""
from __future__ import annotations

import importlib

from .errors import ConfigError

# registry name -> versioned module under ``envs``
_MODULES: dict[str, str] = {}


def register(name: str, module: str) -> None:
    _MODULES[name] = module


def names() -> list[str]:
    """Registered game names, sorted."""
    return sorted(_MODULES)


def module(name: str):
    """The versioned module (e.g. ``envs.catan_card_v0``) of a registered game."""
    if name not in _MODULES:
        raise ConfigError(f"unknown game {name!r}; registered games are {names()}")
    return importlib.import_module(_MODULES[name])


def spec(name: str):
    return module(name).SPEC


def make(name: str, **kwargs):
    """Build the AEC env of a registered game: ``make("catan_card", num_players=3)``.

    Keyword arguments are ``num_players``, ``max_turns``, ``render_mode`` and the game's own
    rule options; an unknown key raises ConfigError naming the valid ones.
    """
    return module(name).env(**kwargs)
