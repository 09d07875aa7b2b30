"""Name -> game registry. Game modules are imported lazily so ``import envs`` stays cheap.

Games are discovered from the versioned modules in the ``envs`` package: a file
``envs/<game>_v<k>.py`` registers ``<game>`` (the highest ``k`` wins). Adding a game adds files only.
"""
from __future__ import annotations

import importlib
import pkgutil
import re

from .errors import ConfigError

# registry name -> versioned module under ``envs``
_MODULES: dict[str, str] = {}
_VERSIONED = re.compile(r"^(?P<game>[a-z0-9_]+?)_v(?P<version>\d+)$")


def register(name: str, module: str) -> None:
    _MODULES[name] = module


def discover(package_name: str, package_path) -> None:
    """Register every ``<game>_v<k>`` module found in a package, keeping the highest version."""
    found: dict[str, tuple[int, str]] = {}
    for info in pkgutil.iter_modules(package_path):
        match = _VERSIONED.match(info.name)
        if match and not info.ispkg:
            game, version = match["game"], int(match["version"])
            if game not in found or version > found[game][0]:
                found[game] = (version, f"{package_name}.{info.name}")
    for game, (_, module_name) in found.items():
        register(game, module_name)


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


def encodings(name: str) -> list[str]:
    """The action encodings of a registered game, the default (``flat``) first."""
    return spec(name).encodings


def make(name: str, **kwargs):
    """Build the AEC env of a registered game: ``make("catan_card", num_players=3)``.

    Keyword arguments are ``num_players``, ``max_turns``, ``render_mode``, ``action_encoding`` (one of
    ``encodings(name)``; ``flat`` by default) and the game's own rule options; an unknown key raises ConfigError naming the valid ones.
    """
    return module(name).env(**kwargs)
