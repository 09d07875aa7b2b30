"""seventh_stone as a PettingZoo env: API, seeds, bad input, hidden information, rendering."""
import copy
import pickle
import re

import numpy as np
import pytest

import envs
from envs import ConfigError, IllegalActionError
from envs.core import testing
from envs.seventh_stone import Op, Phase
from envs.seventh_stone.data import NUM_CELLS
from envs.seventh_stone.determinize import determinize

PLAYER_COUNTS = (2, 3, 4)
OPTIONS = [
    (2, {"advanced_terrain": True}),
    (3, {"wall_bypass": True}),
    (3, {"no_time": True}),
    (4, {"double_move": True}),
    (4, {"four_islands": True}),
    (4, {"advanced_terrain": True, "wall_bypass": True, "four_islands": True, "double_move": True}),
    (2, {"destruction_roll": 6, "max_moves_over_capacity": 1}),
]


@pytest.mark.parametrize("n,options", OPTIONS)
def test_pettingzoo_api_with_rule_options(n, options):
    testing.run_api_test(envs.make("seventh_stone", num_players=n, **options), num_cycles=400)


def test_illegal_action_error_names_the_action():
    env = envs.make("seventh_stone", num_players=2)
    env.reset(seed=0)
    water = next(c for c in range(NUM_CELLS) if env.engine.board.terrain[c] == 1)
    name = env.codec.action_name(water)
    with pytest.raises(IllegalActionError, match=rf"action {water} \({re.escape(name)}\) is illegal for seat \d now; legal: "):
        env.step(water)
    with pytest.raises(IllegalActionError, match="out of range: valid indices are 0..284"):
        env.step(285)


def test_unknown_and_mistyped_config_keys():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['islands'\].*four_islands"):
        envs.make("seventh_stone", islands=True)
    with pytest.raises(ConfigError, match="advanced_terrain"):
        envs.make("seventh_stone", advanced_terrain="yes")
    with pytest.raises(ConfigError, match="destruction_roll must be 0..6"):
        envs.make("seventh_stone", destruction_roll=7)
    with pytest.raises(ConfigError, match="double_move is a 4-player variant"):
        envs.make("seventh_stone", num_players=3, double_move=True)
    with pytest.raises(ConfigError, match="four_islands uses all 35 tiles"):
        envs.make("seventh_stone", num_players=2, four_islands=True)
    with pytest.raises(ConfigError, match=r"max_moves_over_capacity must be an integer in 1\.\.10"):
        envs.make("seventh_stone", max_moves_over_capacity=0)
    with pytest.raises(ConfigError, match="max_turns"):
        envs.make("seventh_stone", max_turns=0)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces_and_names(n):
    env = envs.make("seventh_stone", num_players=n)
    names = env.codec.action_names()
    assert env.action_space("player_0").n == len(names) == 285
    assert len(set(names)) == len(names)
    assert names[0] == "CELL(r1c1)" and names[48] == "CELL(r7c7)" and names[283] == "DONE"
    layout = env.observation_layout
    assert env.observation_space("player_0")["observation"].shape == (layout.size,)
    assert sum(f.size for f in layout.fields) == layout.size == {2: 2685, 3: 3265, 4: 3847}[n]


def test_truncation_at_the_year_limit():
    env = envs.make("seventh_stone", num_players=2, max_turns=1)
    result = testing.play_random_game(env, seed=3)
    assert result.truncated and not result.terminated
    assert all(r == 0 for r in result.returns.values())
    assert env.engine.turn == 1 and env.engine.year == 2
    assert all(info["turns"] == 1 for info in result.infos.values())


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_game_ends_with_rank_rewards(n):
    env = envs.make("seventh_stone", num_players=n)
    result = testing.play_random_game(env, seed=40 + n)
    assert result.terminated and not result.truncated
    e = env.engine
    assert e.winners and all(e.ts(w) >= 7 for w in e.winners)
    if len(e.winners) == 1:
        assert result.returns[f"player_{e.winner}"] == 1.0
        for p in range(n):
            if p != e.winner:
                assert result.returns[f"player_{p}"] == pytest.approx(-1 / (n - 1))
    assert result.infos["player_0"]["scores"] == [e.ts(p) for p in range(n)]


# what a seat must not know, sampled again: the game's determinization (envs/seventh_stone/determinize.py)
_shuffle_hidden = determinize


@pytest.mark.parametrize("n", (2, 4))
def test_hidden_information_never_leaks(n):
    env = envs.make("seventh_stone", num_players=n)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    pick = np.random.default_rng(1)
    checked = 0
    bids_seen = 0
    games = 0
    for _ in range(700):
        engine = env.engine
        if engine.is_over:
            games += 1
            env.reset(seed=9 + games)
            engine = env.engine
        for seat in range(n):
            base = env.encoder.encode(engine, seat)
            twin = _shuffle_hidden(engine, seat, rng)
            assert np.array_equal(base, env.encoder.encode(twin, seat)), f"seat {seat} sees hidden data"
            checked += 1
        if engine.phase == Phase.ALLOC and any(engine.alloc[p] != [0] * 8 for p in range(n)):
            bids_seen += 1
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert checked > 1000 and bids_seen > 20


def test_own_hand_and_stones_are_visible_to_their_owner_only():
    env = envs.make("seventh_stone", num_players=2)
    env.reset(seed=3)
    e = env.engine
    e.hands[0][5] = 1
    e.stamp_everything()
    hand = env.observation_layout["my_hand"]
    assert env.observe("player_0")["observation"][hand][5] > 0
    assert env.observe("player_1")["observation"][hand].sum() == 0


@pytest.mark.parametrize("copy_env", (lambda env: pickle.loads(pickle.dumps(env)), copy.deepcopy),
                         ids=("pickle", "deepcopy"))
def test_copied_env_observes_as_the_original(copy_env):
    """The encoder builds every observation in one buffer of its own: a copied env gets a new one, and an
    observation handed out is a fresh array that later observations leave as it was."""
    env = envs.make("seventh_stone", num_players=3)
    env.reset(seed=4)
    pick = np.random.default_rng(0)
    for _ in range(120):
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    twin = copy_env(env)
    kept = env.observe(env.agent_selection)["observation"]
    seen = kept.copy()
    for _ in range(60):
        legal = env.legal_actions()
        action = int(legal[pick.integers(len(legal))])
        env.step(action)
        twin.step(action)
        for agent in env.possible_agents:
            assert np.array_equal(env.observe(agent)["observation"], twin.observe(agent)["observation"])
    assert np.array_equal(kept, seen)


def test_render_modes(capsys):
    env = envs.make("seventh_stone", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "year 0" in text and "seat 0: TS 0" in text
    human = envs.make("seventh_stone", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "phase SETUP_CAPITAL" in capsys.readouterr().out


def test_docs_show_the_layouts_in_code():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "seventh_stone.md").read_text()
    env = envs.make("seventh_stone", num_players=2)
    assert env.observation_layout.table() in doc
    for i, name in enumerate(env.codec.action_names()):
        assert f"| {i} | `{name}` |" in doc
    for n in PLAYER_COUNTS:
        assert str(envs.make("seventh_stone", num_players=n).encoder.size) in doc


def _play(env, players, seed):
    env.reset(seed=seed)
    for p in players:
        p.reset(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        action = players[seat].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1, f"illegal {env.action_name(action)}"
        env.step(action)
    return env.engine.winners


def test_heuristic_beats_random_in_two_player_games():
    import agents

    env = envs.make("seventh_stone", num_players=2)
    games, wins = 60, 0
    for g in range(games):
        seat = g % 2
        players = [agents.make_agent("heuristic" if s == seat else "random", "seventh_stone", 2, seed=g + s)
                   for s in range(2)]
        wins += _play(env, players, seed=g) == [seat]
    assert wins / games >= 0.8, f"heuristic won {wins}/{games}"


@pytest.mark.parametrize("n,options", [(4, {"advanced_terrain": True, "four_islands": True}), (3, {"no_time": True})])
def test_heuristic_with_rule_options_finishes_games(n, options):
    import agents

    env = envs.make("seventh_stone", num_players=n, **options)
    players = [agents.make_agent("heuristic", "seventh_stone", n, seed=s, **options) for s in range(n)]
    assert _play(env, players, seed=1)


def test_heuristic_aims_all_dice_at_the_strongest_opponent():
    import agents

    from .test_rules import FIELD, MELEE, _three_party_fight

    e = _three_party_fight([(0, MELEE, 3, 0), (1, MELEE, 2, 0), (2, MELEE, 4, 0)])
    e.play((Op.CELL, FIELD))
    assert e.phase == Phase.DICE_ALLOC and e.actor == 0  # asked first for seat 1, then seat 2 takes the rest
    env = envs.make("seventh_stone", num_players=3)
    mask = np.zeros(env.codec.num_actions, dtype=np.int8)
    mask[[env.codec.encode(e, m) for m in e.legal_moves()]] = 1
    heuristic = agents.make_agent("heuristic", "seventh_stone", 3, seed=0)
    assert env.action_name(heuristic.act(env.encoder.encode(e, 0), mask)) == "AMOUNT(0)"
