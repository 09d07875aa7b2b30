"""The entity policy (agents/entity_policy.py): actions that name a thing are scored from the thing's row of the
observation, which the game's encoder declares (ObservationEncoder.action_entities)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import envs
from agents.training.config import load_config


def test_a_things_encoding_reads_its_own_row_only():
    from agents.entity_policy import EntityGroup

    group = EntityGroup(first_action=2, features=[[0, 1], [2, 3], [4, 5]], width=8, activation=torch.nn.Tanh)
    x = torch.rand(1, 9)
    changed = x.clone()
    changed[0, 2:4] += 1.0  # thing 1's row
    with torch.no_grad():
        before, after = group.rows(x), group.rows(changed)
    assert torch.equal(before[0, 0], after[0, 0]) and torch.equal(before[0, 2], after[0, 2])
    assert not torch.allclose(before[0, 1], after[0, 1])


def test_the_entity_scores_go_to_the_actions_that_name_the_things():
    """The logits of the actions outside a group are the state's alone; a thing's score moves its own action."""
    from agents.entity_policy import EntityNetwork

    network = EntityNetwork(observation_size=9, num_actions=7, entities=[(2, [[0, 1], [2, 3], [4, 5]])],
                            net_arch=[8], activation=torch.nn.Tanh)
    x = torch.rand(1, 9)
    with torch.no_grad():
        state = network.embed(torch.cat((x, *[part for rows in [network.groups[0].rows(x)]
                                               for part in (rows.max(dim=1).values, rows.mean(dim=1))]), dim=1))
        plain = network.logits(state)
        logits = network.forward_actor(x)
        scores = network.groups[0].scores(state, network.groups[0].rows(x))
    assert torch.allclose(logits[0, [0, 1, 5, 6]], plain[0, [0, 1, 5, 6]])
    assert torch.allclose(logits[0, 2:5], plain[0, 2:5] + scores[0], atol=1e-6)


def test_mythotopias_province_rows_describe_their_province():
    """Each province action's row starts with that province's controller, one-hot from the observer's seat."""
    env = envs.make("mythotopia", num_players=2)
    env.reset(seed=4)
    pick = np.random.default_rng(4)
    for _ in range(400):
        env.step(int(pick.choice(env.legal_actions())))
    (group,) = env.encoder.action_entities()
    from envs.mythotopia import layout

    assert group.first_action == layout.PROVINCE and len(group.features) == 40
    controllers = set()
    for seat in range(2):
        observation = env.encoder.unscale(env.encoder.encode(env.engine, seat))
        for province, row in enumerate(group.features):
            owner = env.engine.controller[province]
            expected = 0 if owner < 0 else 1 + (owner - seat) % 2
            assert np.flatnonzero(observation[list(row[:3])]).tolist() == [expected]
            controllers.add(owner)
    assert len(controllers) > 1  # the check met provinces of different controllers


def _config(tmp_path, **overrides):
    settings = {
        "game": "mythotopia", "num_players": 2, "total_steps": 128, "n_envs": 2, "vec_env": "dummy",
        "progress_bar": False, "run_dir": str(tmp_path), "env": {"max_turns": 20},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16], "policy": "entities"},
        "pool": {"snapshot_every_updates": 1, "weights": {"latest": 0.5, "random": 0.5}},
        "eval": {"every_updates": 0}, "imitation": {"decisions": 200, "epochs": 1},
    }
    for key, value in overrides.items():
        settings[key] = {**settings.get(key, {}), **value} if isinstance(value, dict) else value
    return load_config(None, settings)


def test_training_with_the_entity_policy_gives_a_model_that_plays(tmp_path):
    from agents.entity_policy import EntityPolicy
    from agents.ppo import PPOAgent
    from agents.training import tournament
    from agents.training.trainer import train

    result = train(_config(tmp_path))
    agent = PPOAgent(result.final_model, game="mythotopia", num_players=2, env_kwargs={"max_turns": 20})
    assert isinstance(agent._loaded.policy, EntityPolicy)
    outcome = tournament.run_tournament("mythotopia", 2, [result.final_model, "random"], games=2, seed=0,
                                        env_kwargs={"max_turns": 20})
    assert sum(m.games for m in outcome.matches) == 2


@pytest.mark.parametrize("overrides, message", [
    ({"game": "kingsburg", "env": {}}, "kingsburg's observation declares no actions that name things"),
    ({"env": {"action_encoding": "pointer"}}, "the entity policy scores flat actions"),
])
def test_the_entity_policy_is_refused_where_it_cannot_score(tmp_path, overrides, message):
    from agents.training.trainer import train

    with pytest.raises(envs.ConfigError, match=message):
        train(_config(tmp_path, **overrides))
