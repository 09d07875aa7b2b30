"""The shared core: rewards, config validation, registry."""
from dataclasses import dataclass

import pytest

import envs
from envs.core import ConfigError, rank_rewards, team_rank_rewards
from envs.core.config import build_config


@pytest.mark.parametrize(
    "placement, expected",
    [
        ([1, 0], [1.0, -1.0]),
        ([0, 1], [-1.0, 1.0]),
        ([1, 1], [0.0, 0.0]),
        ([1, 0, 0], [1.0, -0.5, -0.5]),
        ([0, 0, 1, 0], [-1 / 3, -1 / 3, 1.0, -1 / 3]),
        ([3, 2, 1, 0], [1.0, 1 / 3, -1 / 3, -1.0]),
        ([5, 5, 0], [0.5, 0.5, -1.0]),
    ],
)
def test_rank_rewards(placement, expected):
    got = rank_rewards(placement)
    assert got == pytest.approx(expected)
    assert sum(got) == pytest.approx(0.0)


@pytest.mark.parametrize(
    "placement, team_of, expected",
    [
        ([9, 9, 4, 4], [0, 0, 1, 1], [1.0, 1.0, -1.0, -1.0]),  # two teams: +1 and -1, not +-2/3
        ([4, 9, 4, 9], [0, 1, 0, 1], [-1.0, 1.0, -1.0, 1.0]),
        ([5, 5, 5, 5], [0, 0, 1, 1], [0.0, 0.0, 0.0, 0.0]),
        ([3, 3, 2, 2, 1, 1], [0, 0, 1, 1, 2, 2], [1.0, 1.0, 0.0, 0.0, -1.0, -1.0]),
    ],
)
def test_team_rank_rewards(placement, team_of, expected):
    assert team_rank_rewards(placement, team_of) == pytest.approx(expected)


@dataclass(frozen=True)
class _Options:
    flag: bool = False
    count: int = 3
    rate: float = 0.5


def test_build_config_accepts_known_keys():
    assert build_config(_Options, {"flag": True, "rate": 1}) == _Options(flag=True, rate=1)


def test_build_config_rejects_unknown_key_and_names_valid_ones():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['colour'\].*valid keys are \['count', 'flag', 'rate'\]"):
        build_config(_Options, {"colour": "red"})


@pytest.mark.parametrize("key, value", [("flag", 1), ("count", "3"), ("count", True), ("rate", "x")])
def test_build_config_rejects_wrong_types(key, value):
    with pytest.raises(ConfigError, match=key):
        build_config(_Options, {key: value})


def test_registry_names_and_make():
    assert "catan_card" in envs.names()
    env = envs.make("catan_card", num_players=3)
    assert env.num_players == 3 and str(env) == "catan_card_v0"


def test_registry_unknown_game():
    with pytest.raises(ConfigError, match="unknown game 'monopoly'.*catan_card"):
        envs.make("monopoly")


@pytest.mark.parametrize("game", envs.names())
def test_the_adapter_instance_dict_stays_within_shared_keys(game):
    """CPython 3.11 shares the names of at most 29 instance attributes per class; past that an instance's
    attributes, which the adapter reads at every step, move to a plain dict that is slower to read. PettingZoo's
    bookkeeping (the dead steps at a game's end add one) stays in the dict, the adapter's own attributes are
    slots."""
    env = envs.make(game)
    for seed in (0, 1):  # a whole game and the reset after it
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            env.step(None if terminated or truncated else int(obs["action_mask"].nonzero()[0][-1]))
    assert len(vars(env)) <= 29, sorted(vars(env))
