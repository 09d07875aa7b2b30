"""Checks every registered game must pass, at every player count it supports.

Game-specific tests (rules, rule options, hidden information, invariants) live in tests/<game>/.
"""
import numpy as np
import pytest

import envs
from envs import ConfigError
from envs.core import testing

GAMES = envs.names()
CASES = [(game, n) for game in GAMES for n in envs.spec(game).player_counts]


@pytest.mark.parametrize("game, n", CASES)
def test_pettingzoo_api(game, n):
    testing.run_api_test(envs.make(game, num_players=n), num_cycles=600)


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_seed_test(game):
    counts = envs.spec(game).player_counts
    for n in {counts[0], counts[-1]}:
        testing.check_seed_test(lambda: envs.make(game, num_players=n))


@pytest.mark.parametrize("game, n", CASES)
def test_same_seed_same_game(game, n):
    steps = testing.check_determinism(lambda: envs.make(game, num_players=n), seed=11 + n)
    assert steps > 50


def _trajectory(env, seed=None, steps=200) -> list:
    """Every seat's observations along a fixed line of play (always the last legal action)."""
    env.reset(seed=seed)
    seen = []
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        seen.append(np.concatenate([env.observe(a)["observation"] for a in env.possible_agents]))
        env.step(env.legal_actions()[-1])
    return seen


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("game", GAMES)
def test_different_seeds_differ(game):
    assert not _same(_trajectory(envs.make(game), seed=1), _trajectory(envs.make(game), seed=2))


@pytest.mark.parametrize("game", GAMES)
def test_reset_without_seed_continues_the_stream(game):
    """reset() without a seed draws on from the generator; reset(seed) restarts it exactly."""
    env = envs.make(game)
    first = _trajectory(env, seed=5)
    assert not _same(_trajectory(env), first)
    assert _same(_trajectory(env, seed=5), first)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_and_out_of_range_actions_raise_and_change_nothing(game):
    counts = envs.spec(game).player_counts
    for n in {counts[0], counts[-1]}:
        checks = testing.check_illegal_actions_rejected(envs.make(game, num_players=n), seed=n, steps=60)
        assert checks > 500


@pytest.mark.parametrize("game", GAMES)
def test_unsupported_player_counts(game):
    counts = envs.spec(game).player_counts
    for bad in (counts[0] - 1, counts[-1] + 1, 0, str(counts[0]), float(counts[0]), True):
        with pytest.raises(ConfigError, match="num_players"):
            envs.make(game, num_players=bad)


@pytest.mark.parametrize("game", GAMES)
def test_unknown_config_key(game):
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['no_such_rule'\].*valid keys"):
        envs.make(game, no_such_rule=1)


@pytest.mark.parametrize("game", GAMES)
def test_engine_clone_is_independent(game):
    env = envs.make(game)
    env.reset(seed=4)
    twin = env.engine.clone()
    before = testing.state_bytes(twin)
    for _ in range(30):
        env.step(env.legal_actions()[-1])
    assert testing.state_bytes(env.engine) != before
    assert testing.state_bytes(twin) == before


@pytest.mark.parametrize("game", GAMES)
def test_a_clone_draws_what_the_original_draws_and_plays_on_alike(game):
    env = envs.make(game)
    env.reset(seed=5)
    twin = env.engine.clone()
    assert twin.rng is not env.engine.rng
    assert twin.rng.bit_generator.state == env.engine.rng.bit_generator.state
    for _ in range(30):
        if env.engine.is_over:
            break
        index = env.legal_actions()[0]
        env.codec.apply_legal(twin, index)
        env.step(index)
        assert testing.state_bytes(twin) == testing.state_bytes(env.engine)


@pytest.mark.parametrize("game", GAMES)
def test_ansi_render_is_text(game):
    env = envs.make(game, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 2
