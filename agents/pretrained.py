"""Pretrained opponents: the policies shipped in ``models/``, loaded by name (``pretrained``).

``models/<game>_<N>p.zip`` is a MaskablePPO policy without its optimizer state (written by
``scripts/export_model.py``), ``models/<game>_<N>p.json`` its sidecar: how it was trained (command, config
file, steps, wall time, seed, git commit) and its evaluation when known. The agent named ``pretrained`` is the
model of the game and player count in play, a ``PPOAgent`` that takes its best action unless told to sample.

``TABLETOP_GYM_MODELS`` names another models directory (tests use one of their own, so that they never write
into the repository).
"""
from __future__ import annotations

import json
import os
from typing import Any

from .ppo import CheckpointError, PPOAgent

NAME = "pretrained"
MODELS_ENV = "TABLETOP_GYM_MODELS"
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def models_dir() -> str:
    """Where pretrained models live: ``$TABLETOP_GYM_MODELS`` if set, else the repository's ``models/``."""
    return os.environ.get(MODELS_ENV) or os.path.join(REPOSITORY, "models")


def model_name(game: str, num_players: int) -> str:
    return f"{game}_{int(num_players)}p"


def model_path(game: str, num_players: int, directory: str | None = None) -> str:
    return os.path.join(directory or models_dir(), model_name(game, num_players) + ".zip")


def sidecar_path(game: str, num_players: int, directory: str | None = None) -> str:
    return os.path.join(directory or models_dir(), model_name(game, num_players) + ".json")


def available(directory: str | None = None) -> list[str]:
    """The names (``<game>_<N>p``) of the models in the models directory, sorted."""
    directory = directory or models_dir()
    if not os.path.isdir(directory):
        return []
    return sorted(name[:-len(".zip")] for name in os.listdir(directory)
                  if name.endswith(".zip") and not name.startswith("."))  # a dot file: an export in progress


def _shown(path: str) -> str:
    """A path as the user should read it: relative to the repository when inside it."""
    relative = os.path.relpath(path, REPOSITORY)
    return path if relative.startswith(os.pardir) else relative


def find(game: str, num_players: int, directory: str | None = None) -> str:
    """The path of the model for ``game`` at ``num_players``; CheckpointError naming the file and the models that
    exist if there is none."""
    path = model_path(game, num_players, directory)
    if not os.path.isfile(path):
        names = available(directory)
        raise CheckpointError(f"no pretrained model for {game} at {num_players} players ({_shown(path)}); "
                              f"available: {', '.join(names) if names else 'none'}")
    return path


def read_sidecar(game: str, num_players: int, directory: str | None = None) -> dict[str, Any] | None:
    """The model's sidecar (how it was trained), None when the model has none."""
    path = sidecar_path(game, num_players, directory)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"pretrained model sidecar {_shown(path)} is unreadable: {exc}") from exc


def load(game: str, num_players: int, env_kwargs: dict | None = None, deterministic: bool = True,
         seed: int | None = None, directory: str | None = None) -> PPOAgent:
    """The pretrained agent of ``game`` at ``num_players``, checked to fit that env (the checkpoint fit check)."""
    agent = PPOAgent(find(game, num_players, directory), game=game, num_players=num_players, env_kwargs=env_kwargs,
                     deterministic=deterministic, seed=seed)
    agent.name = NAME
    return agent
