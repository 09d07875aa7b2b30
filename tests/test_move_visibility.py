"""``MoveVisibility``: a move is named to a seat unless the name tells it what only other seats know, in the real
game (a look-alike alternative) or in a state it cannot tell from the real one (a determinization)."""
from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.core.visibility import MoveVisibility
from tests.test_seat_view import OPTIONS


def _opponent_moves(game, n, moves, seed=5):
    """(env before the move, the move, its seat, the other seats) over a seeded random game."""
    env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
    env.reset(seed=seed)
    pick = np.random.default_rng(seed)
    for _ in range(moves):
        if env._final is not None:
            return
        legal = env.legal_actions()
        index = int(legal[pick.integers(len(legal))])
        mover = env.possible_agents.index(env.agent_selection)
        yield env, index, mover, [s for s in range(n) if s != mover]
        env.step(index)


def test_a_stone_from_a_hidden_hand_is_never_named():
    """seventh_stone: stone kinds in hand are never observable by other seats (docs/games/seventh_stone.md). An
    opponent whose hidden hand holds one kind of stone has one stone move, its only alternative DONE looks
    different, so the real game's alternatives alone would name it and tell the kind."""
    visibility, stone_moves, named_by_the_real_alternatives = None, 0, 0
    for env, index, _, viewers in _opponent_moves("seventh_stone", 2, 600):
        if not env.action_name(index).startswith("ITEM(stone:"):
            continue
        visibility = visibility or MoveVisibility(env)
        stone_moves += 1
        named_by_the_real_alternatives += not MoveVisibility(env, samples=0).hidden_from(env, index, viewers)
        assert visibility.hidden_from(env, index, viewers) == set(viewers), \
            f"move {len(env._moves)}: {env.action_name(index)} named"
    assert stone_moves >= 10 and named_by_the_real_alternatives >= 3


def test_a_sample_is_reproducible():
    for env, index, _, viewers in _opponent_moves("seventh_stone", 2, 100):
        assert MoveVisibility(env).hidden_from(env, index, viewers) == MoveVisibility(env).hidden_from(
            env, index, viewers)


# per game, the moves the samples may hide besides those the real game's alternatives hide: a stone from a hand
# of one kind, a DONE that was the only move left (it tells the sealed allocation spent the budget), and the
# parts of a diplomatic offer drafted in secret
NEWLY_HIDDEN = {"catan_card": (), "kingsburg": (), "mythotopia": (), "seventh_stone": ("ITEM(stone:", "DONE"),
                "medioevo_universale": ("CTRL(DEMAND", "CTRL(PAY")}
GAMES = [pytest.param("catan_card", 2, 150), pytest.param("kingsburg", 2, 150),
         pytest.param("seventh_stone", 2, 300),
         pytest.param("mythotopia", 2, 150, marks=pytest.mark.slow),
         pytest.param("medioevo_universale", 3, 120, marks=pytest.mark.slow)]


@pytest.mark.parametrize("game, n, moves", GAMES)
def test_samples_hide_only_what_depends_on_hidden_information(game, n, moves):
    """Over a seeded random game, the samples hide nothing the real game's alternatives name except the moves
    whose names depend on what the viewer cannot see: public moves (a build, a purchase) stay named."""
    real_only = sampled = None
    named_before = named_after = opponent_moves = 0
    builds = 0
    for env, index, _, viewers in _opponent_moves(game, n, moves):
        real_only = real_only or MoveVisibility(env, samples=0)
        sampled = sampled or MoveVisibility(env)
        before = real_only.hidden_from(env, index, viewers)
        after = sampled.hidden_from(env, index, viewers)
        name = env.action_name(index)
        assert before <= after
        if after - before:
            assert name.startswith(NEWLY_HIDDEN[game]), f"{game}: {name} newly hidden"
        if name.startswith("BUILD"):
            builds += 1
            assert not after, f"{game}: a build is public, {name} must stay named"
        opponent_moves += len(viewers)
        named_before += len(viewers) - len(before)
        named_after += len(viewers) - len(after)
    assert opponent_moves >= moves // 2
    assert builds or game not in ("catan_card", "kingsburg"), f"{game}: the walk built nothing"
    assert named_after >= named_before - 0.05 * opponent_moves
