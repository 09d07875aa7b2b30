from __future__ import annotations

import random

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self._random = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._random.seed(seed)

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self._random.randrange(legal.size)])
