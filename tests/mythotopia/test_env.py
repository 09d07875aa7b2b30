"""mythotopia as a PettingZoo env: API, seeds, bad input, pickling, hidden information, rendering."""
import pickle
import random

import numpy as np
import pytest

import envs
from envs import ConfigError, IllegalActionError
from envs.core import testing
from envs.mythotopia import MythotopiaConfig, MythotopiaEngine, Phase
from envs.mythotopia.data import VARIABLE_VP_CARDS
from envs.mythotopia.determinize import determinize

PLAYER_COUNTS = (2, 3, 4)


@pytest.mark.parametrize("options", [
    {"num_players": 3, "optional_start_choice": True},
    {"num_players": 4, "optional_start_choice": True, "optional_discard_count": 1},
    {"num_players": 2, "variable_vp_cards": ("Citadel", "Here be Dragons", "Runestones", "Master of the Sea")},
    {"num_players": 3, "variable_vp_cards": ("Lord of the Isles", "Patronage", "Roadside Inns", "Guilded City")},
    {"num_players": 2, "variable_vp_cards": ("Spoils of War", "Defender of the Realm"), "castle_counter_value": 1,
     "fifth_starting_card": "Build", "spoils_of_war_counters": 4, "random_start_player": False},
])
def test_pettingzoo_api_with_rule_options(options):
    testing.run_api_test(envs.make("mythotopia", **options), num_cycles=300)


def test_illegal_action_error_names_the_action():
    env = envs.make("mythotopia", random_start_player=False)
    env.reset(seed=0)
    done = env.codec.index("DONE")
    with pytest.raises(IllegalActionError, match=r"action 267 \(DONE\) is illegal for seat 0.*legal: .*15 PASS"):
        env.step(done)
    with pytest.raises(IllegalActionError, match="out of range: valid indices are 0..267"):
        env.step(268)


@pytest.mark.parametrize("options, message", [
    ({"dragons": 3}, r"unknown config key\(s\) \['dragons'\].*castle_counter_value"),
    ({"castle_counter_value": 3}, "castle_counter_value must be 1 or 2"),
    ({"castle_counter_value": "2"}, "castle_counter_value"),
    ({"optional_discard_count": 0}, "optional_discard_count must be 1 or 2"),
    ({"fifth_starting_card": "Dragon"}, "fifth_starting_card must be one of"),
    ({"variable_vp_cards": ("Citadel", "Citadel")}, "variable_vp_cards must be a tuple of up to 4 distinct"),
    ({"variable_vp_cards": ("Gold Rush",)}, "variable_vp_cards"),
    ({"variable_vp_cards": ["Citadel"]}, "variable_vp_cards"),
    ({"spoils_of_war_counters": -1}, "spoils_of_war_counters must be 0..10"),
    ({"optional_start_choice": "yes"}, "optional_start_choice"),
    ({"max_turns": 0}, "max_turns"),
    ({"render_mode": "rgb"}, "render_mode"),
])
def test_bad_configs_are_refused_with_clear_errors(options, message):
    with pytest.raises(ConfigError, match=message):
        envs.make("mythotopia", **options)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces_and_names(n):
    env = envs.make("mythotopia", num_players=n)
    names = env.codec.action_names()
    assert env.action_space("player_0").n == len(names) == 268
    assert len(set(names)) == len(names)
    assert names[0] == "INVADE" and names[26] == "END_TURN" and names[27] == "PROVINCE(Ambsace)"
    assert names[150] == "CARD(Ambsace)" and names[190] == "CARD(Alchemist(I0))" and names[267] == "DONE"
    assert env.codec.index("PLAYER(+1)") == 258
    layout = env.observation_layout
    assert env.observation_space("player_0")["observation"].shape == (layout.size,)
    assert sum(f.size for f in layout.fields) == layout.size


def test_truncation_at_max_turns():
    env = envs.make("mythotopia", max_turns=3)
    result = testing.play_random_game(env, seed=3)
    assert result.truncated and not result.terminated
    assert all(r == 0 for r in result.returns.values())
    assert env.engine.turn == 3
    assert all(info["turns"] == 3 for info in result.infos.values())


def test_pickle_and_clone_in_a_payment_play_on_alike():
    """In PAY the engine holds the method that completes the action (pay_then): a pickled and a cloned
    engine finish the payment and play on exactly as the original."""
    pick = random.Random(5)
    for seed in range(20):
        engine = MythotopiaEngine(MythotopiaConfig(), 3, np.random.default_rng(seed))
        for _ in range(400):
            if engine.phase == Phase.PAY or engine.is_over:
                break
            moves = engine.legal_moves()
            engine.apply(moves[pick.randrange(len(moves))])
        if engine.phase == Phase.PAY:
            break
    assert engine.phase == Phase.PAY and engine.pay_then is not None
    copies = [pickle.loads(pickle.dumps(engine)), engine.clone()]
    for _ in range(300):
        if engine.is_over:
            break
        moves = engine.legal_moves()
        assert all(other.legal_moves() == moves for other in copies)
        move = moves[pick.randrange(len(moves))]
        for e in [engine] + copies:
            e.apply(move)
    for other in copies:
        assert testing.state_bytes(other) == testing.state_bytes(engine)


# what a seat must not know, sampled again: the game's determinization (envs/mythotopia/determinize.py)
_shuffle_hidden = determinize


@pytest.mark.parametrize("n, options", [(2, {}), (4, {"optional_start_choice": True,
                                                      "variable_vp_cards": ("Citadel",)})])
def test_hidden_information_never_leaks(n, options):
    """Other hands and draw piles (same sizes), all pile orders and secret setup picks are hidden."""
    env = envs.make("mythotopia", num_players=n, **options)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    pick = np.random.default_rng(1)
    checked = 0
    for _ in range(300):
        engine = env.engine
        if engine.is_over:
            break
        for seat in range(n):
            base = env.encoder.encode(engine, seat)
            other = _shuffle_hidden(engine, seat, rng)
            assert np.array_equal(base, env.encoder.encode(other, seat)), f"seat {seat} sees hidden data"
            checked += 1
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert checked >= 300 * n


def test_own_hand_is_visible_and_other_hands_are_not():
    env = envs.make("mythotopia", num_players=2, random_start_player=False)
    env.reset(seed=1)
    e = env.engine
    cards = env.observation_layout["cards"]
    obs0 = env.observe("player_0")["observation"][cards].reshape(89, -1)
    obs1 = env.observe("player_1")["observation"][cards].reshape(89, -1)
    for c in e.hand[0]:
        assert obs0[c, 0] == 1 and obs1[c, 0] == 0 and obs1[c, 9] == 1  # hand vs hand_or_draw


def test_render_modes(capsys):
    env = envs.make("mythotopia", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "VP cards: City:" in text and "seat 2: vp 24" in text
    human = envs.make("mythotopia", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "VP cards" in capsys.readouterr().out


def test_docs_show_the_layouts_in_code():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "mythotopia.md").read_text()
    env = envs.make("mythotopia", num_players=2)
    assert env.observation_layout.table() in doc
    for n in PLAYER_COUNTS:
        assert str(envs.make("mythotopia", num_players=n).encoder.size) in doc
    for name in VARIABLE_VP_CARDS:
        assert name in doc
