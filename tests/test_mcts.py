"""The IS-MCTS agent (agents/mcts.py): legal moves, nothing hidden read, its names, and its strength."""
from __future__ import annotations

import math

import numpy as np
import pytest

import agents
import envs
from agents.encoded import playing_in
from agents.mcts import MCTSAgent
from agents.training.tournament import AgentSpec, play_match
from tests.test_seat_view import OPTIONS

GAMES = ("catan_card", "kingsburg", "medioevo_universale", "mythotopia", "seventh_stone")


def _advance(env, decisions: int, seed: int = 4):
    pick = np.random.default_rng(seed)
    for _ in range(decisions):
        if env.engine.is_over:
            break
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))


@pytest.mark.parametrize("game", GAMES)
def test_mcts_chooses_legal_actions(game):
    n = envs.spec(game).player_counts[0]
    env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
    env.reset(seed=2)
    agent = playing_in(env, agents.make_agent("mcts:4", game, n, seed=0))
    for _ in range(12 if game in ("catan_card", "kingsburg") else 4):
        if env.engine.is_over:
            break
        obs = env.observe(env.agent_selection)
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
        _advance(env, 5)


# rollouts long enough to meet hidden information (seventh_stone's scores move rarely in its first years)
DEPTH = {"seventh_stone": None}


@pytest.mark.parametrize("game", GAMES)
def test_mcts_choice_does_not_change_when_another_seats_hidden_information_does(game):
    """The search sees the real game only through the seat's determinizations: a state the seat cannot tell
    apart from the real one (its hidden parts sampled again) gives the same choice, and the same tree, for the
    same seed."""
    spec = envs.spec(game)
    n = spec.player_counts[0]
    env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
    env.reset(seed=6)
    agent = playing_in(env, MCTSAgent(game, n, iterations=4 if game == "seventh_stone" else 12,
                                        rollout_depth=DEPTH.get(game, 10)))
    checked = 0
    for point in range(4):
        _advance(env, 15, seed=point)
        if env.engine.is_over:
            break
        while len(env.legal_actions()) < 2:
            _advance(env, 1)
        real = env.engine
        seat = real.current_player
        obs = env.observe(env.agent_selection)
        choices = []
        for scramble in (None, 1, 2):
            env.engine = real if scramble is None else spec.determinize(real, seat, np.random.default_rng(scramble))
            agent.reset(seed=point)
            choice = agent.act(obs["observation"], obs["action_mask"])
            choices.append((choice, sorted((a, c.visits, c.total) for a, c in agent.last_root.children.items())))
        env.engine = real
        assert choices[1:] == choices[:1] * 2, f"{game}: the search depends on hidden information"
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("game", ("catan_card", "kingsburg"))
def test_mcts_with_heuristic_rollouts_chooses_legal_actions(game):
    env = envs.make(game)
    env.reset(seed=3)
    agent = playing_in(env, MCTSAgent(game, 2, iterations=3, rollout_depth=8, rollout="heuristic", seed=1))
    for _ in range(4):
        _advance(env, 4)
        obs = env.observe(env.agent_selection)
        assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] == 1


@pytest.mark.parametrize("game", ("catan_card", "kingsburg"))
def test_guided_mcts_searches_the_heuristics_choice_first(game):
    """With one iteration the guided search expands only its prior's favourite, the heuristic's choice; with more
    it still picks legal actions, and the heuristic's choice is the most searched at most decisions."""
    env = envs.make(game)
    env.reset(seed=4)
    one = playing_in(env, MCTSAgent(game, 2, iterations=1, rollout_depth=0, rollout="guided", seed=0))
    more = playing_in(env, MCTSAgent(game, 2, iterations=12, rollout_depth=4, rollout="guided", seed=0))
    heuristic = agents.make_agent("heuristic", game, 2, seed=0)
    checked = kept = 0
    for _ in range(8):
        _advance(env, 3)
        if env.engine.is_over:
            break
        obs = env.observe(env.agent_selection)
        mask = obs["action_mask"]
        if mask.sum() < 2:
            continue
        choice = heuristic.act(obs["observation"], mask)
        assert one.act(obs["observation"], mask) == choice
        assert list(one.last_root.children) == [choice]
        action = more.act(obs["observation"], mask)
        assert mask[action] == 1
        visits = {a: c.visits for a, c in more.last_root.children.items()}
        kept += visits[choice] == max(visits.values())
        checked += 1
    assert checked >= 4 and kept >= checked // 2


def test_mcts_is_seeded():
    env = envs.make("kingsburg")
    env.reset(seed=1)
    _advance(env, 6)
    obs = env.observe(env.agent_selection)
    first, second = (playing_in(env, agents.make_agent("mcts:15", "kingsburg", 2, seed=3)) for _ in range(2))
    assert first.act(obs["observation"], obs["action_mask"]) == second.act(obs["observation"], obs["action_mask"])


def test_mcts_names():
    assert agents.make_agent("mcts", "kingsburg", 2).iterations == agents.mcts.DEFAULT_ITERATIONS
    assert agents.make_agent("mcts:7", "catan_card", 2).iterations == 7
    assert AgentSpec.parse("mcts:50") == AgentSpec("mcts:50", "mcts:50")
    assert AgentSpec.parse("search=mcts").label == "search"
    assert AgentSpec.parse("mcts:3").build("kingsburg", 2).iterations == 3
    for bad in ("mcts:0", "mcts:abc", "mcts:-5", "mcts:", "mcts:2.5"):
        with pytest.raises(ValueError, match="positive number of iterations"):
            AgentSpec.parse(bad)
        with pytest.raises(ValueError, match="positive number of iterations"):
            agents.make_agent(bad, "kingsburg", 2)
    heuristic = agents.make_agent("mcts:9:heuristic", "kingsburg", 2)
    assert (heuristic.iterations, heuristic.rollout, heuristic.name) == (9, "heuristic", "mcts:9:heuristic")
    assert agents.make_agent("mcts:heuristic", "kingsburg", 2).rollout == "heuristic"
    guided = agents.make_agent("mcts:30:guided", "kingsburg", 2)
    assert (guided.iterations, guided.rollout, guided.name) == (30, "guided", "mcts:30:guided")
    shallow = agents.make_agent("mcts:20:guided:d5", "kingsburg", 2)
    assert (shallow.iterations, shallow.rollout, shallow.rollout_depth, shallow.name) == (20, "guided", 5,
                                                                                         "mcts:20:guided:d5")
    assert agents.make_agent("mcts:7:d3", "kingsburg", 2).rollout_depth == 3
    assert agents.make_agent("mcts:heuristic:dend", "kingsburg", 2).rollout_depth is None
    assert agents.make_agent("mcts:heuristic:dend", "kingsburg", 2).name == "mcts:100:heuristic:dend"
    assert AgentSpec.parse("mcts:20:guided:d5").label == "mcts:20:guided:d5"
    for bad in ("mcts:5:fast", "mcts:5:6", "mcts:5:d2:guided", "mcts:5:dx"):
        with pytest.raises(ValueError, match=r"named mcts\[:N\]\[:heuristic\|:guided\]\[:dD\]"):
            AgentSpec.parse(bad)
    with pytest.raises(ValueError, match="iterations must be a positive integer"):
        MCTSAgent("kingsburg", 2, iterations=0)
    with pytest.raises(ValueError, match="rollout must be one of"):
        MCTSAgent("kingsburg", 2, rollout="greedy")


def test_mcts_refuses_to_act_without_a_sampler_and_in_a_move_encoding():
    agent = agents.make_agent("mcts:5", "kingsburg", 2)
    with pytest.raises(RuntimeError, match="no state sampler attached"):
        agent.act(None, np.array([1, 1, 0], dtype=np.int8))
    assert agent.act(None, np.array([0, 1, 0], dtype=np.int8)) == 1  # a single legal action needs no search
    encoding = next(name for name in envs.encodings("kingsburg") if name != "flat")
    env = envs.make("kingsburg", action_encoding=encoding)
    with pytest.raises(envs.ConfigError, match="flat encoding only"):
        playing_in(env, agent)


def _binomial_tail(wins: int, games: int, p: float = 0.5) -> float:
    """P(at least ``wins`` of ``games``) for an agent that wins each game with probability p."""
    return sum(math.comb(games, k) * p ** k * (1 - p) ** (games - k) for k in range(wins, games + 1))


@pytest.mark.slow
def test_mcts_beats_random_at_kingsburg():
    """20 two-player games at a small budget (the games of ``evaluate.py --game kingsburg --agents mcts:20 random
    --games 20``): 15 sole wins or more happen with probability 0.021 for an agent no better than random (its
    sole-win rate against random is at most 0.5)."""
    result = play_match("kingsburg", 2, "mcts:20", "random", games=20, seed=0)
    assert _binomial_tail(15, 20) < 0.025
    assert result.wins >= 15, result.summary()


def test_agent_names_with_emoji_codes_are_printed_as_they_are(capsys):
    """rich reads ":100:" as an emoji: the tournament table showed mcts:100:heuristic as "mcts💯heuristic"."""
    from agents.training.tournament import print_table, run_tournament

    result = run_tournament("catan_card", 2, ["mcts:100:heuristic=random", "heuristic"], games=2)
    print_table(result)
    text = capsys.readouterr().out
    assert text.count("mcts:100:heuristic") == 3 and "\N{HUNDRED POINTS SYMBOL}" not in text  # 2 rows, 1 rating


def test_play_names_an_mcts_opponent_as_it_is():
    import io

    import play

    out = io.StringIO()
    code = play.main(["--game", "kingsburg", "--opponents", "mcts:100:heuristic", "--seed", "1", "--width", "120"],
                     stdin=io.StringIO("1\n" * 3 + "quit\n"), stdout=out)
    text = out.getvalue()
    assert code == 0 and "seat 1 (mcts:100:heuristic): " in text and "\N{HUNDRED POINTS SYMBOL}" not in text
