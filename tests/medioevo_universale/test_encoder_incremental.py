"""The incremental encoder (each seat's last observation patched where the domains stamped since its last look
changed, see changes.py) equals a fresh encoder's full encode, bit for bit, for the seat to move and for the other
seats, at every step of random games of every player count: with the engine's own stamps, and with the exact
stamps of the content oracle (``forced.exact_stamps``), the tightest case.

Observing mostly the seat to move, as training loops do, leaves the other seats' observations many moves behind;
the other seats are then observed after long gaps, in turn."""
from __future__ import annotations

import random

import numpy as np
import pytest

import envs
from envs.medioevo_universale import changes
from envs.medioevo_universale.observation import MedioevoEncoder

from .forced import exact_stamps

GAMES = [
    (3, 20, {"diplomacy_offers": 2}),
    (4, 21, {"reveal_money": True}),
    (4, 22, {"teams": "pairs", "terrain": True}),
    (5, 23, {"hidden_purchases": True, "blood_markers": True}),
    (6, 24, {"diplomacy_offers": 2, "empire_auction": True}),
]


def first_difference(layout, got: np.ndarray, want: np.ndarray) -> str:
    return next(f.name for f in layout.fields if not np.array_equal(got[layout.slices[f.name]],
                                                                   want[layout.slices[f.name]]))


@pytest.mark.parametrize("stamps", ["engine", "exact"])
@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_incremental_encoder_equals_a_fresh_one(num_players, seed, options, stamps):
    env = envs.make("medioevo_universale", num_players=num_players, num_rounds=8, **options)
    env.reset(seed=seed)
    e = env.engine
    if stamps == "exact":
        exact_stamps(e)
    pick = random.Random(seed)
    stamped = {"none": 0, "some": 0, "all": 0}  # moves by the domains they stamped
    for step in range(1200):
        if e.is_over:
            break
        seat = e.current_player
        seats = [seat]
        if step % 7 == 0:  # another seat, after a gap of several moves
            seats.append((seat + 1 + step // 7 % (num_players - 1)) % num_players)
        for s in seats:
            got = env.encoder.encode(e, s)
            want = MedioevoEncoder(env.config, num_players).encode(e, s)
            assert np.array_equal(got, want), (
                f"step {step} seat {s}: {first_difference(env.encoder.layout, got, want)} went stale")
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
        domains = e.stamps.count(e.moves)
        stamped["none" if not domains else "all" if domains == len(changes.DOMAINS) else "some"] += 1
    assert stamped["none"] > 100, stamped
    assert stamped["some"] > 100 and not stamped["all"], stamped  # the rules report what they change


def test_every_seat_after_a_move_of_units():
    """A move that changes units (exact stamps) changes the board and the mover's row in every seat's view, whoever
    observes next."""
    env = envs.make("medioevo_universale", num_players=4, num_rounds=8)
    env.reset(seed=25)
    e = env.engine
    exact_stamps(e)
    pick = random.Random(25)
    units_moved = 0
    for _ in range(3000):
        if e.is_over or units_moved >= 5:
            break
        for s in range(4):
            env.encoder.encode(e, s)
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
        if e.changed_since(e.moves - 1) & changes.UNITS:
            units_moved += 1
            for s in range(4):
                assert np.array_equal(env.encoder.encode(e, s), MedioevoEncoder(env.config, 4).encode(e, s)), s
    assert units_moved == 5
