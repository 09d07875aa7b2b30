"""kingsburg as a PettingZoo env: API, seeds, bad input, hidden information, rendering, docs."""
import pickle
from pathlib import Path

import numpy as np
import pytest

import envs
from envs import ConfigError, IllegalActionError
from envs.core import testing
from envs.kingsburg import Decision, KingsburgConfig, KingsburgEngine
from envs.kingsburg.encoder import KingsburgEncoder
from envs.kingsburg.determinize import determinize

PLAYER_COUNTS = (2, 3, 4, 5)
MODULES = ("module_more_buildings", "module_governors", "module_army_tokens")
ALL_MODULES = {m: True for m in MODULES}


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize("n", (2, 5))
def test_pettingzoo_api_with_each_module(module, n):
    testing.run_api_test(envs.make("kingsburg", num_players=n, **{module: True}), num_cycles=1000)


def test_pettingzoo_api_with_all_modules():
    testing.run_api_test(envs.make("kingsburg", num_players=3, **ALL_MODULES), num_cycles=1000)


@pytest.mark.parametrize("options", [{}, ALL_MODULES])
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_same_seed_same_game(n, options):
    steps = testing.check_determinism(lambda: envs.make("kingsburg", num_players=n, **options), seed=11 + n)
    assert steps > 100


@pytest.mark.parametrize("options", [{}, ALL_MODULES])
@pytest.mark.parametrize("n", (2, 5))
def test_illegal_and_out_of_range_actions_raise_and_change_nothing(n, options):
    env = envs.make("kingsburg", num_players=n, **options)
    checks = testing.check_illegal_actions_rejected(env, seed=n, steps=40)
    assert checks > 40 * 100


def test_illegal_action_error_names_the_action():
    env = envs.make("kingsburg", num_players=2)
    env.reset(seed=0)
    assert env.engine.decision == Decision.PICK_GOOD  # year I: everybody picks a good
    build = env.codec.index("BUILD(row B)")
    with pytest.raises(IllegalActionError, match=r"action 7 \(BUILD\(row B\)\) is illegal for seat \d.*"
                                                 r"legal: 2 GOOD\(gold\), 3 GOOD\(wood\), 4 GOOD\(stone\)"):
        env.step(build)
    with pytest.raises(IllegalActionError, match="out of range: valid indices are 0..161"):
        env.step(162)


def test_engine_play_rejects_illegal_moves_unchanged():
    e = KingsburgEngine(KingsburgConfig(), 3, np.random.default_rng(0))
    before = testing.state_bytes(e)
    with pytest.raises(IllegalActionError, match=r"move \(4, 1\) is illegal in decision PICK_GOOD"):
        e.play((4, 1))
    assert testing.state_bytes(e) == before


def test_unknown_and_mistyped_config_keys():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['module_4'\].*module_army_tokens"):
        envs.make("kingsburg", module_4=True)
    with pytest.raises(ConfigError, match="module_governors"):
        envs.make("kingsburg", module_governors="yes")
    with pytest.raises(ConfigError, match="max_turns"):
        envs.make("kingsburg", max_turns=0)
    with pytest.raises(ConfigError, match="render_mode"):
        envs.make("kingsburg", render_mode="rgb")


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces_and_names(n):
    env = envs.make("kingsburg", num_players=n)
    names = env.codec.action_names()
    assert env.action_space("player_0").n == len(names) == 162
    assert len(set(names)) == len(names)
    assert names[:6] == ["PASS", "YES", "GOOD(gold)", "GOOD(wood)", "GOOD(stone)", "PAY_PLUS2"]
    assert names[50] == "DICE(P0)" and names[161] == "DICE(P0+P1+P2+B0+B1+B2+B3)"
    assert env.observation_space("player_0")["observation"].shape == (env.observation_layout.size,)
    assert env.observation_layout.size == {2: 391, 3: 530, 4: 671, 5: 814}[n]


def test_truncation_at_max_turns():
    env = envs.make("kingsburg", num_players=3, max_turns=7)
    result = testing.play_random_game(env, seed=3)
    assert result.truncated and not result.terminated
    assert all(r == 0 for r in result.returns.values())
    assert env.engine.turn == 7
    assert all(info["turns"] == 7 for info in result.infos.values())


@pytest.mark.parametrize("options", [{}, ALL_MODULES])
def test_pickled_env_with_warm_encoder_caches_continues_identically(options):
    """Self-play resume pickles the whole env, the encoder's caches included (they must survive it)."""
    env = envs.make("kingsburg", num_players=3, **options)
    env.reset(seed=11)
    pick = np.random.default_rng(11)
    for _ in range(60):
        legal = env.legal_actions()
        env.step(legal[pick.integers(len(legal))])
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(60):
        for agent in env.possible_agents:
            a, b = env.observe(agent), copy.observe(agent)
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
        legal = env.legal_actions()
        assert copy.legal_actions() == legal
        action = legal[pick.integers(len(legal))]
        env.step(action)
        copy.step(action)


@pytest.mark.parametrize("n", (2, 3, 5))
def test_game_ends_with_rank_rewards(n):
    env = envs.make("kingsburg", num_players=n)
    result = testing.play_random_game(env, seed=40 + n)
    assert result.terminated and not result.truncated
    e = env.engine
    assert e.year == 5 and e.phase == 8
    placement = e.placement_scores()
    best = max(placement)
    assert e.winners == [p for p in range(n) if placement[p] == best]
    assert sum(result.returns.values()) == pytest.approx(0.0)
    for p in e.winners:
        assert result.infos[f"player_{p}"]["scores"] == e.vp


# what a seat must not know, sampled again: the game's determinization (envs/kingsburg/determinize.py)
_reshuffle_hidden = determinize


@pytest.mark.parametrize("options", [{}, ALL_MODULES])
@pytest.mark.parametrize("n", (2, 4))
def test_hidden_information_never_leaks(n, options):
    """Future enemy cards, this year's card before the reveal (unless peeked), committed army
    tokens and governor hands of others, and the dice still to be rolled are hidden."""
    env = envs.make("kingsburg", num_players=n, **options)
    rng = np.random.default_rng(0)
    pick = np.random.default_rng(1)
    checked = 0
    for game in range(3 if n == 2 else 1):  # 2 players: complete games (every phase, reveals, peeks)
        env.reset(seed=9 + game)
        steps = 0
        while not env.engine.is_over and steps < (10_000 if n == 2 else 200):
            steps += 1
            e = env.engine
            for seat in range(n):
                base = KingsburgEncoder(env.config, n).encode(e, seat)
                other = _reshuffle_hidden(e, seat, rng)
                assert np.array_equal(base, KingsburgEncoder(env.config, n).encode(other, seat)), \
                    f"seat {seat} sees hidden data (decision {e.decision}, year {e.year})"
                checked += 1
            legal = env.legal_actions()
            env.step(int(legal[pick.integers(len(legal))]))
    assert checked > 500


def test_peeked_card_is_seen_only_by_the_peeker():
    env = envs.make("kingsburg", num_players=3)
    env.reset(seed=2)
    e = env.engine
    e.peeked[1] = True
    known = env.observation_layout["enemy_known"]
    strength = env.observation_layout["enemy_strength"]
    card = e.enemy_card()
    o1 = env.encoder.encode(e, 1)
    assert o1[known][0] == 1 and o1[strength][0] == pytest.approx(card.strength / env.encoder.max_enemy)
    for seat in (0, 2):
        o = env.encoder.encode(e, seat)
        assert o[known][0] == 0 and o[strength][0] == 0
        assert o[env.observation_layout["peeked"]].sum() == 1  # the fact of peeking is public


def test_vp_and_counts_are_clipped_to_their_fields():
    """VP read (VP + 20) / 120 clipped to [0, 1], goods / +2 tokens / soldiers min(count, 30) / 30, also far
    outside what a game reaches (the encoder reads them through tables that already clip)."""
    env = envs.make("kingsburg", num_players=2)
    env.reset(seed=0)
    e, layout = env.engine, env.observation_layout
    for vp, count in ((-21, 31), (-20, 30), (0, 0), (100, 29), (101, 1000), (-512, 1023), (511, 7)):
        e.vp = [vp, 0]
        e.goods = [[count, 0, count], [0, 0, 0]]
        e.plus2 = [count, 0]
        e.soldiers = [count, 0]
        e.stamp_everything()  # edited from outside the rules
        o = env.encoder.encode(e, 0)
        assert o[layout["seat0_vp"]][0] == np.float32(min(max(vp + 20, 0), 120)) * np.float32(1 / 120)
        capped = np.float32(min(count, 30)) * np.float32(1 / 30)
        assert list(o[layout["seat0_goods"]]) == [capped, 0, capped]
        assert o[layout["seat0_plus2"]][0] == capped and o[layout["seat0_soldiers"]][0] == capped


def test_render_modes(capsys):
    env = envs.make("kingsburg", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "year 1" in text and "turn order:" in text and "seat 0: VP" in text
    human = envs.make("kingsburg", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "turn order:" in capsys.readouterr().out


def test_docs_show_the_layouts_in_code():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "kingsburg.md").read_text()
    env = envs.make("kingsburg", num_players=2)
    assert env.observation_layout.table() in doc
    for i, name in enumerate(env.codec.action_names()):
        assert f"| {i} | `{name}` |" in doc
    for n in PLAYER_COUNTS:
        assert str(envs.make("kingsburg", num_players=n).encoder.size) in doc


def test_heuristic_beats_random_in_two_player_games():
    import agents

    env = envs.make("kingsburg", num_players=2)
    games, wins = 200, 0
    for g in range(games):
        seat = g % 2
        players = [agents.make_agent("heuristic" if s == seat else "random", "kingsburg", 2, seed=g + s)
                   for s in range(2)]
        env.reset(seed=g)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            p = int(agent.split("_")[1])
            env.step(players[p].act(obs["observation"], obs["action_mask"]))
        wins += env.engine.winners == [seat]
    assert wins / games >= 0.8, f"heuristic won {wins}/{games}"


@pytest.mark.parametrize("rows, market", [((0, 0, 2, 0, 0, 0, 0), True), ((0, 2, 0, 0, 0, 0, 0), False)])
def test_heuristic_sees_the_market_in_row_c(rows, market):
    """The heuristic counts on the Market's +1 / -1 (spec 2.4 C-II) exactly when C-II is built, not B-II."""
    from agents.heuristics.kingsburg import HeuristicAgent

    env = envs.make("kingsburg", num_players=2)
    env.reset(seed=1)
    e = env.unwrapped.engine
    e.rows[0] = list(rows)
    e.season_flags[0] = 0
    e.stamp_everything()
    agent = HeuristicAgent(2)
    observation = env.observe("player_0")["observation"]
    assert agent._market_usable(agent.encoder.unscale(observation)) is market


def test_a_clone_shares_the_read_only_tables():
    env = envs.make("kingsburg")
    env.reset(seed=0)
    twin = env.engine.clone()
    assert twin.tables is env.engine.tables and twin.rows is not env.engine.rows
