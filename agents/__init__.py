"""Agents for every game: ``make_agent("random" | "heuristic" | "mcts" | "mcts:N", game, num_players, seed)``.

Learned agents (MaskablePPO checkpoints) are loaded by ``agents.ppo``.
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


def mcts_iterations(kind: str) -> int | None:
    """The iterations of an ``mcts`` or ``mcts:N`` agent name (the default for ``mcts``), None for another name;
    ValueError for an ``mcts:`` name whose budget is not a positive integer."""
    if kind == "mcts":
        from .mcts import DEFAULT_ITERATIONS

        return DEFAULT_ITERATIONS
    if not kind.startswith("mcts:"):
        return None
    budget = kind[len("mcts:"):]
    if not (budget.isascii() and budget.isdigit()) or int(budget) < 1:
        raise ValueError(f"agent {kind!r}: the MCTS budget must be a positive number of iterations, as in 'mcts:200'")
    return int(budget)


def make_agent(kind: str, game: str, num_players: int, seed: int | None = None, **config) -> Agent:
    """Build a built-in agent by kind for one game and player count."""
    if kind == "random":
        return RandomAgent(seed=seed)
    if kind == "heuristic":
        if game not in _HEURISTICS:
            raise ValueError(f"no heuristic agent for game {game!r}; available: {heuristic_games()}")
        cls = importlib.import_module(_HEURISTICS[game]).HeuristicAgent
        return cls(num_players=num_players, seed=seed, **config)
    iterations = mcts_iterations(kind)
    if iterations is not None:
        from .mcts import MCTSAgent

        return MCTSAgent(game, num_players, iterations=iterations, seed=seed, **config)
    raise ValueError(f"unknown agent kind {kind!r}; use 'random', 'heuristic', 'mcts', 'mcts:N' or a checkpoint path")


__all__ = ["Agent", "RandomAgent", "heuristic_games", "make_agent", "mcts_iterations"]
