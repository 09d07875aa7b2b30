"""The incremental encoder (each seat's last observation patched after the moves made since, as the engine counts
them: minor, seat and unit moves, see ``MedioevoEngine.apply``) equals a fresh encoder's full encode, bit for bit,
for the seat to move and for the other seats, at every step of random games of every player count.

Observing mostly the seat to move, as training loops do, leaves the other seats' observations many moves behind;
the other seats are then observed after long gaps, in turn."""
from __future__ import annotations

import random

import numpy as np
import pytest

import envs
from envs.medioevo_universale.encoder import MedioevoEncoder

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


@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_incremental_encoder_equals_a_fresh_one(num_players, seed, options):
    env = envs.make("medioevo_universale", num_players=num_players, num_rounds=8, **options)
    env.reset(seed=seed)
    e = env.engine
    pick = random.Random(seed)
    counted = {"minor": 0, "seat": 0, "unit": 0}
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
        before = (e.minor_moves, e.seat_moves, e.unit_moves)
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
        for name, then, now in zip(counted, before, (e.minor_moves, e.seat_moves, e.unit_moves)):
            counted[name] += now - then
    assert counted["minor"] > 100 and counted["seat"] > 5, counted
    assert counted["unit"] > 5 or options.get("hidden_purchases"), counted


def test_every_seat_after_a_unit_move():
    """A unit move changes the board and the buyer's row in every seat's view, whoever observes next."""
    env = envs.make("medioevo_universale", num_players=4, num_rounds=8)
    env.reset(seed=25)
    e = env.engine
    pick = random.Random(25)
    unit_moves_seen = 0
    for _ in range(3000):
        if e.is_over or unit_moves_seen >= 5:
            break
        for s in range(4):
            env.encoder.encode(e, s)
        unit_moves = e.unit_moves
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
        if e.unit_moves != unit_moves:
            unit_moves_seen += 1
            for s in range(4):
                assert np.array_equal(env.encoder.encode(e, s), MedioevoEncoder(env.config, 4).encode(e, s)), s
    assert unit_moves_seen == 5
