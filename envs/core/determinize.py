"""Determinization: a copy of the game in which everything one seat must not know is sampled again.

Each game's ``determinize(engine, seat, rng) -> engine`` (``GameSpec.determinize``, ``envs/<game>/determinize.py``)
returns a clone whose hidden parts are drawn afresh, consistent with what ``seat`` has seen, and leaves the
original untouched. It is a function of the seat's information and ``rng`` only: each pool of unknown items is put
in a canonical order before it is shuffled, and no sampled value is derived from the true hidden value, so two
states that the seat cannot tell apart give the same sample for the same ``rng``. The engine's own random
generator (future dice, shuffles) is hidden too and is replaced by one drawn from ``rng``. Searching agents
(``agents/mcts.py``) play on such samples, never on the real engine.
"""
from __future__ import annotations

import numpy as np


def shuffled(items, rng: np.random.Generator) -> list:
    """The items in a random order that depends on which items there are (a multiset) and ``rng`` only."""
    pool = sorted(items)
    return [pool[i] for i in rng.permutation(len(pool))]


def fresh_generator(rng: np.random.Generator) -> np.random.Generator:
    """A new generator for the engine's future randomness, drawn from ``rng`` (the real one's state is hidden)."""
    return np.random.default_rng(int(rng.integers(1 << 62)))
