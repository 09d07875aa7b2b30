"""The imitation warm start (agents/training/imitation.py): recorded returns, cloning, the trainer's use, its checks."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces

from agents.training.config import load_config
from agents.training.imitation import agreement, balance_weights, clone_heuristic, record_heuristic_games
from agents.training.trainer import train
from envs.core.errors import ConfigError


def test_recorded_returns_are_each_seats_discounted_result_and_score_lead_changes():
    data = record_heuristic_games("kingsburg", 2, {}, 300, seed=1, gamma=1.0)
    assert len(data.actions) >= 300 and data.games >= 1
    assert data.masks[np.arange(len(data.actions)), data.actions].all()  # every action recorded was legal
    assert set(np.unique(data.returns)) <= {-1.0, 0.0, 1.0}  # undiscounted, unshaped: the seat's result
    assert (data.returns == 1.0).any() and (data.returns == -1.0).any()
    shaped = record_heuristic_games("kingsburg", 2, {}, 300, seed=1, gamma=1.0, score_reward=0.5)
    assert np.array_equal(shaped.actions, data.actions)  # the same seeded games
    assert not np.allclose(shaped.returns, data.returns)
    discounted = record_heuristic_games("kingsburg", 2, {}, 300, seed=1, gamma=0.9)
    assert (np.abs(discounted.returns) <= np.abs(data.returns)).all()
    assert (np.abs(discounted.returns) < np.abs(data.returns)).any()


def test_cloning_makes_the_policy_agree_with_the_heuristic_on_games_it_did_not_see():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(0)
    seen = record_heuristic_games("kingsburg", 2, {}, 2500, seed=0, gamma=0.999)
    unseen = record_heuristic_games("kingsburg", 2, {}, 800, seed=1, gamma=0.999)
    policy = MaskableActorCriticPolicy(spaces.Box(-np.inf, np.inf, (seen.observations.shape[1],), np.float32),
                                       spaces.Discrete(seen.masks.shape[1]), lambda _: 3e-4, net_arch=[64, 64])
    before = agreement(policy, unseen)
    log: list[str] = []
    summary = clone_heuristic(policy, seen, epochs=4, batch_size=128, learning_rate=1e-3, vf_coef=0.5, seed=0,
                              log=log.append)
    after = agreement(policy, unseen)
    assert after > before + 0.2 and after > 0.6, (before, after)
    assert len(log) == 4 and summary["agreement"] > 0.6


def test_balanced_cloning_weighs_rare_actions_more():
    """imitation.balance b: a decision weighs (decisions taking its action)^-b, mean 1; b = 0 changes nothing."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    actions = np.array([3, 3, 3, 7])
    assert np.allclose(balance_weights(actions, 0.0), 1.0)
    weights = balance_weights(actions, 1.0)  # 1/3, 1/3, 1/3, 1 scaled to mean 1
    assert np.allclose(weights, np.array([1, 1, 1, 3]) / 1.5) and np.isclose(weights.mean(), 1.0)
    data = record_heuristic_games("kingsburg", 2, {}, 600, seed=0, gamma=0.999)
    rare = np.unique(data.actions, return_counts=True)
    rare = set(rare[0][rare[1] <= 3].tolist())
    probabilities = {}
    for balance in (0.0, 1.0):
        torch.manual_seed(0)
        policy = MaskableActorCriticPolicy(spaces.Box(-np.inf, np.inf, (data.observations.shape[1],), np.float32),
                                           spaces.Discrete(data.masks.shape[1]), lambda _: 3e-4, net_arch=[32, 32])
        clone_heuristic(policy, data, epochs=2, batch_size=64, learning_rate=1e-3, vf_coef=0.5, seed=0,
                        log=lambda _: None, balance=balance)
        rows = np.array([i for i, a in enumerate(data.actions) if a in rare])
        with torch.no_grad():
            _, log_prob, _ = policy.evaluate_actions(torch.as_tensor(data.observations[rows].astype(np.float32)),
                                                     torch.as_tensor(data.actions[rows]),
                                                     action_masks=data.masks[rows])
        probabilities[balance] = float(log_prob.mean())
    assert rare and probabilities[1.0] > probabilities[0.0]  # the rare actions learnt better when weighted


def test_train_imitates_before_its_first_update(tmp_path):
    config = load_config(None, {
        "game": "kingsburg", "num_players": 2, "seed": 3, "n_envs": 2, "vec_env": "dummy", "progress_bar": False,
        "total_steps": 128, "run_dir": str(tmp_path), "ppo": {"n_steps": 64, "batch_size": 64, "net_arch": [32, 32]},
        "eval": {"every_updates": 0}, "imitation": {"decisions": 400, "epochs": 2},
    })
    log: list[str] = []
    train(config, log=log.append)
    assert any(line.startswith("imitation: ") and "decisions of the heuristic recorded" in line for line in log)
    assert sum("epoch" in line for line in log if line.startswith("imitation: ")) == 2


def test_a_learner_plays_one_seat_and_the_heuristic_names_every_recorded_action():
    """DAgger's recording: the learner's moves are played, the heuristic's choices for them are recorded."""
    played: list[int] = []

    def last_legal(vector, mask):
        played.append(int(np.flatnonzero(mask)[-1]))
        return played[-1]

    plain = record_heuristic_games("kingsburg", 2, {}, 300, seed=1, gamma=1.0)
    data = record_heuristic_games("kingsburg", 2, {}, 300, seed=1, gamma=1.0, learner=last_legal)
    assert data.masks[np.arange(len(data.actions)), data.actions].all()
    assert played and len(played) < len(data.actions)  # one seat of each game, every seat recorded
    last = np.array([np.flatnonzero(mask)[-1] for mask in data.masks])
    # the heuristic's labels, not the learner's moves: the learner always took the last legal action
    assert (data.actions != last).sum() > len(data.actions) // 10
    assert not np.array_equal(plain.observations[:len(played)], data.observations[:len(played)])


def test_imitation_rounds_clone_again_on_games_the_clone_played(tmp_path):
    config = load_config(None, {
        "game": "kingsburg", "num_players": 2, "seed": 3, "n_envs": 2, "vec_env": "dummy", "progress_bar": False,
        "total_steps": 128, "run_dir": str(tmp_path), "ppo": {"n_steps": 64, "batch_size": 64, "net_arch": [32, 32]},
        "eval": {"every_updates": 0}, "imitation": {"decisions": 300, "epochs": 2, "rounds": 2},
    })
    log: list[str] = []
    train(config, log=log.append)
    assert any("one seat played by the clone" in line and "round 2/2" in line for line in log)
    assert sum("epoch" in line for line in log if line.startswith("imitation: ")) == 4


@pytest.mark.parametrize("settings, message", [
    ({"env": {"action_encoding": "composite"}}, "flat encoding"),
    ({"backend": "rllib"}, "sb3 backend"),
    ({"imitation": {"decisions": -1}}, "imitation.decisions"),
    ({"imitation": {"decisions": 10, "epochs": 0}}, "imitation.epochs"),
    ({"imitation": {"decisions": 10, "rounds": 0}}, "imitation.rounds"),
    ({"imitation": {"decisions": 10, "balance": -0.5}}, "imitation.balance"),
])
def test_imitation_settings_that_cannot_work_are_refused(tmp_path, settings, message):
    from agents.training.config import check_game

    with pytest.raises(ConfigError, match=message):
        config = load_config(None, {"game": "kingsburg", "run_dir": str(tmp_path),
                                    "imitation": {"decisions": 10}, **settings})
        check_game(config)
