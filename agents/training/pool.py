"""The opponent pool: snapshots of the learner, the random agent and the game's heuristic agent.

Its sampling rule draws the opponents of each self-play game; the rule is described in
``OpponentPool`` and docs/training.md.
"""
from __future__ import annotations

import os

import numpy as np

import agents as agents_pkg
from agents.base import Agent
from envs.core.errors import ConfigError

from .config import POOL_CATEGORIES


class OpponentPool:
    """Who plays the seats the learner does not hold.

    Sampling rule, once per game: pick a category with probability proportional to its weight
    among the categories that currently have a member (the others' weight is spread over them):
      * ``latest``    - the newest snapshot of the learner;
      * ``past``      - each opponent seat independently a uniformly chosen older snapshot;
      * ``random``    - the uniform random agent;
      * ``heuristic`` - the game's heuristic agent (only if the game has one);
      * ``mcts``      - the search agent named by ``mcts`` (agents/mcts.py; flat encoding only).
    Every opponent seat of that game is filled from the chosen category. Opponents are reseeded at
    the start of each game from the environment's generator.
    """

    def __init__(
        self,
        game: str,
        num_players: int,
        weights: dict[str, float],
        max_snapshots: int = 20,
        snapshot_deterministic: bool = False,
        snapshots: list[str] | None = None,
        mcts: str = "mcts:50",
    ):
        unknown = sorted(set(weights) - set(POOL_CATEGORIES))
        if unknown:
            raise ConfigError(f"unknown opponent categories {unknown}; valid are {list(POOL_CATEGORIES)}")
        if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ConfigError(f"opponent weights must be >= 0 with a positive sum, got {weights}")
        self.game = game
        self.num_players = num_players
        self.weights = {c: float(weights.get(c, 0.0)) for c in POOL_CATEGORIES}
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.mcts = mcts
        self.has_heuristic = game in agents_pkg.heuristic_games()
        self.snapshots: list[str] = []
        # one agent object per (member, seat slot), built on first use
        self._agents: dict[tuple[str, int], Agent] = {}
        self.set_snapshots(snapshots or [])

    # snapshots are added by the trainer (in each worker process, through VecEnv.env_method)
    def add_snapshot(self, path: str) -> None:
        self.set_snapshots(self.snapshots + [os.fspath(path)])

    def set_snapshots(self, paths: list[str]) -> None:
        self.snapshots = [os.fspath(p) for p in paths][-self.max_snapshots:]
        live = set(self.snapshots)
        for key in [k for k in self._agents if k[0] not in ("random", "heuristic", "mcts") and k[0] not in live]:
            del self._agents[key]

    def category_weights(self) -> dict[str, float]:
        """Normalised weights of the categories that can be drawn now."""
        available = {
            "latest": len(self.snapshots) >= 1,
            "past": len(self.snapshots) >= 2,
            "random": True,
            "heuristic": self.has_heuristic,
            "mcts": True,
        }
        raw = {c: w for c, w in self.weights.items() if w > 0 and available[c]}
        total = sum(raw.values())
        if total <= 0:
            raise ConfigError(
                f"no opponent can be drawn: positive weights {[c for c, w in self.weights.items() if w > 0]} "
                f"but the pool has {len(self.snapshots)} snapshot(s)"
                + ("" if self.has_heuristic else f" and {self.game!r} has no heuristic agent")
            )
        return {c: w / total for c, w in raw.items()}

    def draw(self, rng: np.random.Generator, num_seats: int) -> tuple[str, list[Agent]]:
        """(category, one agent per opponent seat), each agent reseeded for the new game."""
        weights = self.category_weights()
        categories = list(weights)
        category = categories[int(rng.choice(len(categories), p=list(weights.values())))]
        members = []
        for slot in range(num_seats):
            if category == "latest":
                member = self.snapshots[-1]
            elif category == "past":
                member = self.snapshots[int(rng.integers(len(self.snapshots) - 1))]
            else:
                member = category
            agent = self._agent(member, slot)
            agent.reset(int(rng.integers(2**63 - 1)))
            members.append(agent)
        return category, members

    def _agent(self, member: str, slot: int) -> Agent:
        key = (member, slot)
        agent = self._agents.get(key)
        if agent is None:
            if member in ("random", "heuristic"):
                agent = agents_pkg.make_agent(member, self.game, self.num_players)
            elif member == "mcts":
                agent = agents_pkg.make_agent(self.mcts, self.game, self.num_players)
            elif member.endswith(".zip"):
                from agents.ppo import PPOAgent

                agent = PPOAgent(member, deterministic=self.snapshot_deterministic)
            else:  # a snapshot of the RLlib backend: a directory (agents/rllib_agent.py)
                from agents.rllib_agent import RLlibAgent

                agent = RLlibAgent(member, deterministic=self.snapshot_deterministic)
            self._agents[key] = agent
        return agent
