"""catan_card as a PettingZoo env: API, seeds, bad input, hidden information, rendering."""
import numpy as np
import pytest

import envs
from envs import ConfigError, IllegalActionError
from envs.catan_card import CatanCardEngine
from envs.core import testing
from envs.catan_card.determinize import determinize

PLAYER_COUNTS = (2, 3, 4, 5, 6)


def test_illegal_action_error_names_the_action():
    env = envs.make("catan_card")
    env.reset(seed=0)
    road = env.codec.index("BUILD(road)")
    with pytest.raises(IllegalActionError, match=r"action \d+ \(BUILD\(road\)\) is illegal for seat 0.*legal: 0 PASS"):
        env.step(road)
    with pytest.raises(IllegalActionError, match="out of range: valid indices are 0..44"):
        env.step(45)


def test_unknown_and_mistyped_config_keys():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['robber_limit'\].*optional_knight_draws"):
        envs.make("catan_card", robber_limit=9)
    with pytest.raises(ConfigError, match="optional_knight_draws"):
        envs.make("catan_card", optional_knight_draws="yes")
    with pytest.raises(ConfigError, match="max_turns"):
        envs.make("catan_card", max_turns=0)
    with pytest.raises(ConfigError, match="render_mode"):
        envs.make("catan_card", render_mode="rgb")


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces_and_names(n):
    env = envs.make("catan_card", num_players=n)
    names = env.codec.action_names()
    assert env.action_space("player_0").n == len(names) == 43 + 2 * (n - 1)
    assert len(set(names)) == len(names)
    assert env.observation_space("player_0")["observation"].shape == (env.observation_layout.size,)
    layout = env.observation_layout
    assert sum(f.size for f in layout.fields) == layout.size


def test_truncation_at_max_turns():
    env = envs.make("catan_card", max_turns=3)
    result = testing.play_random_game(env, seed=3)
    assert result.truncated and not result.terminated
    assert all(r == 0 for r in result.returns.values())
    assert env.engine.turn == 3
    assert all(info["turns"] == 3 for info in result.infos.values())


@pytest.mark.parametrize("n", (2, 3, 5))
def test_game_ends_with_rank_rewards(n):
    env = envs.make("catan_card", num_players=n)
    result = testing.play_random_game(env, seed=40 + n)
    assert result.terminated and not result.truncated
    winner = env.engine.winner
    assert result.returns[f"player_{winner}"] == 1.0
    for p in range(n):
        if p != winner:
            assert result.returns[f"player_{p}"] == pytest.approx(-1 / (n - 1))
    assert result.infos[f"player_{winner}"]["scores"][winner] >= 10


# what a seat must not know, sampled again: the game's determinization (envs/catan_card/determinize.py)
_reshuffle_hidden = determinize


def _observation(engine, encoder, seat):
    return encoder.encode(engine, seat)


@pytest.mark.parametrize("n", (2, 4))
def test_hidden_information_never_leaks(n):
    """Other hands (same sizes), the draw pile order and every settlement's city side are hidden."""
    env = envs.make("catan_card", num_players=n)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    pick = np.random.default_rng(1)
    checked = 0
    for _ in range(400):
        engine = env.engine
        if engine.is_over:
            break
        for seat in range(n):
            base = _observation(engine, env.encoder, seat)
            other = _reshuffle_hidden(engine, seat, rng)
            assert np.array_equal(base, _observation(other, env.encoder, seat)), f"seat {seat} sees hidden data"
            checked += 1
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert checked > 300


def test_library_view_only_for_the_library_owner():
    env = envs.make("catan_card", num_players=3)
    env.reset(seed=2)
    e: CatanCardEngine = env.engine
    e.owned[0] = (True, False, False, False, False, False)
    e.hands[1] = [2, 0, 1, 0, 0]
    env.step(env.codec.index("TRADE_OPP(+1)"))
    env.step(env.codec.index("USE_LIBRARY"))
    view = env.observation_layout["library_view"]
    assert env.observe("player_0")["observation"][view].sum() > 0
    assert env.observe("player_1")["observation"][view].sum() == 0
    assert env.observe("player_2")["observation"][view].sum() == 0


def test_render_modes(capsys):
    env = envs.make("catan_card", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 0*" in text and "market [" in text and "fate card: clockwise" in text
    human = envs.make("catan_card", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "market [" in capsys.readouterr().out


def test_docs_show_the_layouts_in_code():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "catan_card.md").read_text()
    env = envs.make("catan_card", num_players=2)
    assert env.observation_layout.table() in doc
    for i, name in enumerate(env.codec.action_names()):
        assert f"| {i} | `{name}` |" in doc
    for n in PLAYER_COUNTS:
        assert str(envs.make("catan_card", num_players=n).encoder.size) in doc
