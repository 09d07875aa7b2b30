"""Agents for every game: ``make_agent("random" | "heuristic" | "mcts[:N][:heuristic|:guided][:dD]" | "pretrained",
game, num_players, seed)``.

Learned agents (MaskablePPO checkpoints) are loaded by ``agents.ppo``; ``pretrained`` is the policy shipped in
``models/`` for the game and player count (``agents.pretrained``).
"""
from __future__ import annotations

import importlib
import pkgutil

from . import heuristics
from .base import Agent
from .random_agent import RandomAgent

# game name -> module under agents.heuristics holding ``HeuristicAgent`` (one module per game,
# named after the game, so adding a game's heuristic adds a file only)
_HEURISTICS = {info.name: f"{heuristics.__name__}.{info.name}"
               for info in pkgutil.iter_modules(heuristics.__path__) if not info.ispkg}


def heuristic_games() -> list[str]:
    return sorted(_HEURISTICS)


def parse_mcts(kind: str) -> dict | None:
    """The settings of an MCTS agent name, ``mcts[:N][:heuristic|:guided][:dD]`` (N iterations per decision, the
    default without; heuristic rollouts with ``:heuristic``, and the heuristic as the tree's prior too with
    ``:guided``; rollouts of D decisions with ``:dD``, to the end with ``:dend``, ``DEFAULT_ROLLOUT_DEPTH`` without),
    as ``MCTSAgent`` keywords;
    None for a name that does not start with ``mcts``; ValueError for a bad budget or suffix."""
    if kind != "mcts" and not kind.startswith("mcts:"):
        return None
    from .mcts import DEFAULT_ITERATIONS

    parts = kind.split(":")[1:]
    settings = {"iterations": DEFAULT_ITERATIONS, "rollout": "random"}
    if parts and parts[-1] == "dend":  # rollouts to the end of the game
        parts.pop()
        settings["rollout_depth"] = None
    elif parts and parts[-1][:1] == "d" and parts[-1][1:].isascii() and parts[-1][1:].isdigit():
        settings["rollout_depth"] = int(parts.pop()[1:])
    if parts and parts[-1] in ("heuristic", "guided"):
        settings["rollout"] = parts.pop()
    if len(parts) > 1:
        raise ValueError(f"agent {kind!r}: an MCTS agent is named mcts[:N][:heuristic|:guided][:dD], e.g. "
                         "mcts:100:guided:d5")
    if parts:
        budget = parts[0]
        if not (budget.isascii() and budget.isdigit()) or int(budget) < 1:
            raise ValueError(f"agent {kind!r}: the MCTS budget must be a positive number of iterations, "
                             "as in 'mcts:200'")
        settings["iterations"] = int(budget)
    return settings


def make_agent(kind: str, game: str, num_players: int, seed: int | None = None, **config) -> Agent:
    """Build a built-in agent by kind for one game and player count (``pretrained`` takes ``env_kwargs`` and
    ``deterministic``, as ``PPOAgent`` does)."""
    if kind == "random":
        return RandomAgent(seed=seed)
    if kind == "heuristic":
        if game not in _HEURISTICS:
            raise ValueError(f"no heuristic agent for game {game!r}; available: {heuristic_games()}")
        cls = importlib.import_module(_HEURISTICS[game]).HeuristicAgent
        return cls(num_players=num_players, seed=seed, **config)
    search = parse_mcts(kind)
    if search is not None:
        from .mcts import MCTSAgent

        return MCTSAgent(game, num_players, seed=seed, **search, **config)
    if kind == "pretrained":
        from . import pretrained

        return pretrained.load(game, num_players, seed=seed, **config)
    raise ValueError(f"unknown agent kind {kind!r}; use 'random', 'heuristic', 'mcts', 'mcts:N', 'pretrained' or a "
                     "checkpoint path")


__all__ = ["Agent", "RandomAgent", "heuristic_games", "make_agent", "parse_mcts"]
