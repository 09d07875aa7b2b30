"""``env.seat_view(seat)``: the seat's own hidden information is shown, every other seat's never is.

Each game's hidden-information test scrambles what a seat must not know; the seat's view must not change."""
from __future__ import annotations

import numpy as np
import pytest

import envs
from tests.catan_card.test_env import _reshuffle_hidden as catan_card_hidden
from tests.kingsburg.test_env import _reshuffle_hidden as kingsburg_hidden
from tests.medioevo_universale.test_env import _scramble_hidden as medioevo_hidden
from tests.mythotopia.test_env import _shuffle_hidden as mythotopia_hidden
from tests.seventh_stone.test_env import _shuffle_hidden as seventh_stone_hidden


SCRAMBLE = {"catan_card": catan_card_hidden, "kingsburg": kingsburg_hidden, "medioevo_universale": medioevo_hidden,
            "mythotopia": mythotopia_hidden, "seventh_stone": seventh_stone_hidden}
OPTIONS = {"kingsburg": {"module_governors": True, "module_army_tokens": True},
           "mythotopia": {"optional_start_choice": True}}


@pytest.mark.parametrize("game", sorted(SCRAMBLE))
def test_seat_view_never_shows_another_seats_hidden_information(game):
    spec = envs.spec(game)
    n = 4 if game == "mythotopia" else spec.player_counts[0]
    env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
    env.reset(seed=5)
    rng, pick = np.random.default_rng(0), np.random.default_rng(1)
    views = 0
    for _ in range(120):
        if env.engine.is_over:
            break
        engine = env.engine
        for seat in range(n):
            view = spec.seat_view(engine, seat)
            scrambled = SCRAMBLE[game](engine, seat, rng)
            assert spec.seat_view(scrambled, seat) == view, f"seat {seat} sees another seat's hidden information"
            views += 1
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert views >= 100


def test_catan_card_view_shows_the_own_hand_only():
    env = envs.make("catan_card", num_players=2)
    env.reset(seed=3)
    env.engine.hands[0] = [2, 0, 1, 0, 0]
    env.engine.hands[1] = [0, 3, 0, 0, 0]
    view = env.seat_view(0)
    assert "your hand (seat 0): brick x2, ore x1" in view
    assert "lumber x3" not in view and "seat 1)" not in view
    assert "your hand (seat 1): lumber x3" in env.seat_view(1)


def test_medioevo_view_hides_money_that_render_shows():
    env = envs.make("medioevo_universale", num_players=3)
    env.reset(seed=2)
    e = env.engine
    e.money[1] = 4321
    assert "4321" in e.render_text()  # the public render is not a seat's view
    assert "4321" not in env.seat_view(0)
    assert "your money (seat 1): 4321 fl" in env.seat_view(1)
    shown = envs.make("medioevo_universale", num_players=3, reveal_money=True)
    shown.reset(seed=2)
    shown.engine.money[1] = 4321
    assert "4321" in shown.seat_view(0)  # reveal_money: every seat's money is public


def test_kingsburg_view_shows_own_governor_cards():
    env = envs.make("kingsburg", num_players=2, module_governors=True)
    env.reset(seed=1)
    e = env.engine
    seat = env.possible_agents.index(env.agent_selection)
    names = [e.tables.governors[g].name for g in e.governor_hand[seat]]
    assert names and all(name in env.seat_view(seat) for name in names)


def test_seat_view_refuses_a_bad_seat():
    env = envs.make("kingsburg")
    env.reset(seed=0)
    with pytest.raises(envs.IllegalActionError, match="seats are 0..1"):
        env.seat_view(2)
