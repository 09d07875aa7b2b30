"""``GameSpec.determinize``: a seat's hidden information sampled again, consistent with what it has seen.

For every game at two player counts, over a seeded random game: the seat's observation and view are unchanged, the
sample depends on the seat's information and the generator only (a state the seat cannot tell apart gives the same
sample), the original engine is untouched, and a sample plays on to the end."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import envs
from envs.core.changes import ChangeLog
from envs.core.engine import instance_state
from tests.test_seat_view import OPTIONS

# (game, player counts, decisions walked)
CASES = [("catan_card", (2, 4), 150), ("kingsburg", (2, 4), 150), ("medioevo_universale", (3, 4), 60),
         ("mythotopia", (2, 4), 100), ("seventh_stone", (2, 4), 150)]
# bookkeeping for observers (envs/core/changes.py), not game state: a sample stamps every domain as changed
_BOOKKEEPING = set(ChangeLog.SLOTS) | {"_legal"}


def canonical_dump(engine) -> bytes:
    """The engine's game state as bytes, its random generator's state included, the change log left out."""
    state = {name: value for name, value in instance_state(engine).items() if name not in _BOOKKEEPING}
    state["rng"] = engine.rng.bit_generator.state
    return pickle.dumps(sorted(state.items(), key=lambda item: item[0]))


def _walk(game, n, steps):
    """The states of a seeded random game, one per decision."""
    env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
    env.reset(seed=11)
    pick = np.random.default_rng(3)
    for _ in range(steps):
        if env.engine.is_over:
            break
        yield env
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))


@pytest.mark.parametrize("game, counts, steps", CASES, ids=[case[0] for case in CASES])
def test_determinize_keeps_the_view_and_reads_nothing_hidden(game, counts, steps):
    spec = envs.spec(game)
    for n in counts:
        checked = 0
        for step, env in enumerate(_walk(game, n, steps)):
            if step % 4:
                continue  # every fourth decision: the per-game hidden-information tests check every one
            engine = env.engine
            for seat in range(n):
                before = pickle.dumps(engine)
                sample = env.determinized(seat, np.random.default_rng(step))
                # another state the seat cannot tell apart gives the very same sample
                twin = spec.determinize(spec.determinize(engine, seat, np.random.default_rng(10_000 + step)),
                                        seat, np.random.default_rng(step))
                assert pickle.dumps(engine) == before, "determinize changed the real game"
                assert canonical_dump(twin) == canonical_dump(sample), \
                    f"{game} n={n} step {step}: seat {seat}'s sample depends on a hidden value"
                assert np.array_equal(env.encoder.encode(sample, seat), env.encoder.encode(engine, seat)), \
                    f"{game} n={n} step {step}: seat {seat}'s observation changed"
                assert spec.seat_view(sample, seat) == spec.seat_view(engine, seat)
                checked += 1
        assert checked >= 10 * n


@pytest.mark.parametrize("game, counts, steps", CASES, ids=[case[0] for case in CASES])
def test_a_determinized_game_plays_to_its_end(game, counts, steps):
    spec = envs.spec(game)
    for n in counts:
        env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
        codec = spec.new_codec(env.config, n, "flat")
        states = list(_walk(game, n, steps))
        engine = env.engine if not states else states[0].engine
        pick = np.random.default_rng(0)
        sample = spec.determinize(engine, engine.current_player, np.random.default_rng(7))
        moves = 0
        while not sample.is_over and moves < 20_000:
            legal = codec.legal_actions(sample)
            codec.apply(sample, int(legal[pick.integers(len(legal))]))
            moves += 1
        assert sample.is_over or moves == 20_000


def test_determinized_refuses_a_bad_seat_and_leaves_the_game_unchanged():
    env = envs.make("kingsburg")
    env.reset(seed=0)
    before = pickle.dumps(env.engine)
    with pytest.raises(envs.IllegalActionError, match="seats are 0..1"):
        env.determinized(2, np.random.default_rng(0))
    assert pickle.dumps(env.engine) == before
