"""The one agent interface: ``act(observation, action_mask) -> int``."""
from __future__ import annotations

import abc

import numpy as np


class Agent(abc.ABC):
    name: str = "agent"
    #: the action encoding whose actions ``act`` returns (docs/encodings.md); a flat agent plays in any other
    #: encoding through ``agents.encoded.FlatAgentInMoves``
    encoding: str = "flat"
    #: True for an agent that searches copies of the game (agents/mcts.py): whoever seats it attaches a sampler of
    #: the states its seat cannot tell from the real one (``attach``; ``agents.encoded.playing_in`` does)
    searches: bool = False

    @abc.abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Pick a legal index (``action_mask[i] == 1``) given one seat's observation vector."""

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of each game; agents with memory or randomness reseed here."""


def policy_observation(obs: dict) -> np.ndarray:
    """The vector a policy sees: the seat's observation, then the action encoding's own entries (the pointer
    encoding's ``moves`` table, the factored encoding's ``substep``; docs/encodings.md) in name order, flattened."""
    extras = sorted(name for name in obs if name not in ("observation", "action_mask"))
    if not extras:
        return np.asarray(obs["observation"], dtype=np.float32).reshape(-1)
    return np.concatenate([np.asarray(obs[name], dtype=np.float32).reshape(-1) for name in ("observation", *extras)])

