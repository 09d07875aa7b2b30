"""The public API under misuse and at its edges, for every game: use before reset and after the end, the
outcome in ``infos``, copies of the legal actions, action names out of range, option ranges, numpy integers."""
import dataclasses
import warnings

import numpy as np
import pytest

import envs
from envs import ConfigError, IllegalActionError, ResetNeededError
from envs.core.aec import SHARED_WIN, TRUNCATED, WIN, outcome

GAMES = envs.names()


def _smallest(game):
    return envs.spec(game).player_counts[0]


def _play_to_end(env, seed, max_steps=200_000):
    env.reset(seed=seed)
    pick = np.random.default_rng(seed)
    for _ in range(max_steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(pick.choice(env.legal_actions())))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", GAMES)
def test_use_before_reset_says_to_reset(game):
    env = envs.make(game)
    for call in (lambda: env.step(0), lambda: env.last(), lambda: env.observe("player_0"),
                 lambda: env.agent_iter(), lambda: env.legal_actions()):
        with pytest.raises(ResetNeededError, match=r"reset\(\)"):
            call()


@pytest.mark.parametrize("game", GAMES)
def test_after_every_agent_is_done_step_warns_and_last_says_to_reset(game):
    env = envs.make(game, num_players=_smallest(game), max_turns=3)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.agents == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.step(None)  # PettingZoo's convention: a warning, and nothing happens
    assert any("reset()" in str(w.message) for w in caught)
    with pytest.raises(ResetNeededError, match=r"reset\(\)"):
        env.last()
    env.reset(seed=1)  # and the env plays again
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("game", GAMES)
def test_the_outcome_tells_a_truncation_from_a_shared_win(game, monkeypatch):
    n = _smallest(game)
    env = envs.make(game, num_players=n, max_turns=2)
    _play_to_end(env, seed=3)
    info = env.infos["player_0"]
    assert env.truncations["player_0"] and info["outcome"] == TRUNCATED and info["winners"] == []
    assert all(env.rewards[a] == 0 for a in env.agents)

    env = envs.make(game, num_players=n)
    _play_to_end(env, seed=3)
    info = env.infos["player_0"]
    rewards = [env.rewards[a] for a in env.possible_agents]
    assert env.terminations["player_0"]
    assert info["outcome"] in (WIN, SHARED_WIN)
    assert info["winners"] == [s for s, r in enumerate(rewards) if r == max(rewards)]

    # every seat placed equally: each gets 0, as in a truncation, but the outcome says it was a shared win
    monkeypatch.setattr(type(env.engine), "placement_scores", lambda self: [7.0] * self.num_players)
    _play_to_end(env, seed=3)
    info = env.infos["player_0"]
    assert all(env.rewards[a] == 0 for a in env.agents) and env.terminations["player_0"]
    assert info["outcome"] == SHARED_WIN and info["winners"] == list(range(n))


def test_outcome_of_rank_rewards():
    assert outcome([1.0, -1.0]) == (WIN, [0])
    assert outcome([0.0, 0.0]) == (SHARED_WIN, [0, 1])
    assert outcome([0.5, 0.5, -1.0]) == (SHARED_WIN, [0, 1])
    assert outcome([1.0, 1.0, -1.0, -1.0], team_of=[0, 0, 1, 1]) == (WIN, [0, 1])  # one team placed first
    assert outcome([0.0, 0.0, 0.0, 0.0], team_of=[0, 1, 0, 1]) == (SHARED_WIN, [0, 1, 2, 3])


def test_the_legal_actions_handed_out_are_a_copy():
    env = envs.make("catan_card", num_players=2)
    env.reset(seed=5)
    legal = env.legal_actions()
    assert 4 not in legal  # GUILD_STEAL needs the Guild
    legal.append(4)
    assert 4 not in env.legal_actions()
    with pytest.raises(IllegalActionError, match="illegal"):
        env.step(4)


@pytest.mark.parametrize("game", GAMES)
def test_action_names_out_of_range_raise(game):
    env = envs.make(game)
    n = env.action_space("player_0").n
    assert env.action_name(n - 1) and env.action_name(np.int64(0)) == env.action_name(0)
    for bad in (-1, n, n + 7, True, 1.0, "0"):
        with pytest.raises(IllegalActionError, match=rf"0\.\.{n - 1}"):
            env.action_name(bad)


@pytest.mark.parametrize("teams", [[[0, 9]], [[0], [0]], [[0, 1], [1, 2]], "pairs"])
def test_medioevo_teams_that_do_not_split_the_seats_are_refused_by_make(teams):
    with pytest.raises(ConfigError, match="teams"):
        envs.make("medioevo_universale", num_players=3, teams=teams)


def test_medioevo_teams_that_split_the_seats_are_accepted():
    env = envs.make("medioevo_universale", num_players=4, teams=[[0, 2], [1, 3]])
    env.reset(seed=0)
    assert env.engine.team_of == [0, 1, 0, 1]


def _integer_options(game):
    return [f.name for f in dataclasses.fields(envs.spec(game).config_cls)
            if type(f.default) is int]


@pytest.mark.parametrize("game", GAMES)
def test_every_integer_option_has_a_range(game):
    for name in _integer_options(game):
        for bad in (10**9, -(10**9)):
            with pytest.raises(ConfigError, match=name):
                envs.make(game, **{name: bad})


@pytest.mark.parametrize("game", GAMES)
def test_numpy_integers_are_accepted_like_ints(game):
    n = _smallest(game)
    env = envs.make(game, num_players=np.int64(n), max_turns=np.int64(50))
    assert env.max_turns == 50 and type(env.max_turns) is int
    for f in dataclasses.fields(envs.spec(game).config_cls):
        if type(f.default) is int:
            made = envs.make(game, num_players=n, **{f.name: np.int32(f.default)})
            assert getattr(made.config, f.name) == f.default and type(getattr(made.config, f.name)) is int
        elif type(f.default) is bool:
            made = envs.make(game, num_players=n, **{f.name: np.bool_(f.default)})
            assert getattr(made.config, f.name) is f.default
