"""train.py --backend rllib: a tiny RLlib run end to end (train, snapshots, checkpoints, resume, evaluate.py), the
numpy actor against RLlib's own masked module, and the one-line errors for bad input.

The tests that run Ray need the ``ray`` extra (``pip install -c constraints.txt -e '.[ray]'``); without it they
skip, saying so (``scripts/test_ray``, which CI runs, makes a venv with the extra and fails them instead). The
tests of the model files, the agent specs and the config need no Ray.
"""
from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

import envs
import evaluate
import train as train_cli
from agents.ppo import CheckpointError
from agents.rllib_agent import RLlibAgent, is_rllib_model, read_rllib_metadata, save_rllib_model
from agents.training import tournament
from agents.training.config import load_config
from envs.core.errors import ConfigError

GAME = "catan_card"
TINY = {
    "game": GAME,
    "backend": "rllib",
    "num_players": 2,
    "seed": 5,
    "n_envs": 2,
    "progress_bar": False,
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16, 16]},
    "pool": {"snapshot_every_updates": 1, "max_snapshots": 3},
    "checkpoint": {"every_updates": 1, "keep": 2},
    "eval": {"every_updates": 2, "games": 2},
}


def tiny(run_dir, total_steps, **extra):
    return load_config(None, {**TINY, "run_dir": str(run_dir), "total_steps": total_steps, **extra})


def needs_ray():
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError:
        reason = "Ray RLlib is not installed (the `ray` extra: pip install -c constraints.txt -e '.[ray]')"
        if os.environ.get("TABLETOP_GYM_NEED_RAY"):  # scripts/test_ray: the venv it made must have Ray
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def rllib_run(tmp_path_factory):
    """Two updates, then the same run resumed for a third."""
    needs_ray()
    from agents.training.rllib_backend import train_rllib

    root = tmp_path_factory.mktemp("rllib")
    first = train_rllib(tiny(root / "run", 100))
    resumed = train_rllib(tiny(root / "run", 200), resume=True)
    return root / "run", first, resumed


# -- without Ray ----------------------------------------------------------------------------------
def fitting_layers(rng, observation_size, num_actions, hidden=8):
    return [(rng.normal(size=(observation_size, hidden)).astype(np.float32), np.zeros(hidden, np.float32), "tanh"),
            (rng.normal(size=(hidden, num_actions)).astype(np.float32), np.zeros(num_actions, np.float32), "linear")]


def test_an_rllib_model_directory_plays_as_an_agent_and_is_checked_against_the_game(tmp_path):
    env = envs.make(GAME, num_players=2)
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    size, actions = obs["observation"].size, obs["action_mask"].size
    layers = fitting_layers(np.random.default_rng(0), size, actions)
    save_rllib_model(str(tmp_path / "model"), layers, {"backend": "rllib", "game": GAME, "num_players": 2,
                                                       "env_kwargs": {}})
    assert is_rllib_model(tmp_path / "model") and read_rllib_metadata(tmp_path / "model")["backend"] == "rllib"
    agent = RLlibAgent(tmp_path / "model", game=GAME, num_players=2)
    action = agent.act(obs["observation"], obs["action_mask"])
    legal = np.flatnonzero(obs["action_mask"])
    expected = legal[np.argmax((np.tanh(obs["observation"] @ layers[0][0]) @ layers[1][0])[legal])]
    assert action == expected
    assert pickle.loads(pickle.dumps(agent)).act(obs["observation"], obs["action_mask"]) == action
    with pytest.raises(CheckpointError, match="trained on game"):
        RLlibAgent(tmp_path / "model", game="kingsburg", num_players=2)
    spec = tournament.AgentSpec.parse(f"mine={tmp_path / 'model'}")
    assert (spec.kind, spec.label) == ("rllib", "mine")
    assert evaluate.trained_num_players([spec]) == 2


def test_a_run_directory_of_the_rllib_backend_is_an_agent_spec(tmp_path):
    save_rllib_model(str(tmp_path / "final_model"), fitting_layers(np.random.default_rng(1), 3, 2),
                     {"backend": "rllib", "game": GAME, "num_players": 3, "env_kwargs": {"max_turns": 50}})
    spec = tournament.AgentSpec.parse(str(tmp_path))
    assert spec.kind == "rllib" and spec.path == str(tmp_path / "final_model")
    assert evaluate.trained_env_settings([spec]) == {"max_turns": 50}
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="final_model/ \\(RLlib\\)"):
        tournament.AgentSpec.parse(str(tmp_path / "empty"))


def test_the_pool_plays_an_rllib_snapshot_directory(tmp_path):
    from agents.training.pool import OpponentPool

    save_rllib_model(str(tmp_path / "snapshot_0"), fitting_layers(np.random.default_rng(2), 119, 45),
                     {"backend": "rllib", "game": GAME, "num_players": 2, "env_kwargs": {}})
    pool = OpponentPool(GAME, 2, {"latest": 1.0}, snapshots=[str(tmp_path / "snapshot_0")])
    category, (opponent,) = pool.draw(np.random.default_rng(0), 1)
    assert category == "latest" and isinstance(opponent, RLlibAgent)


def test_backend_and_ray_address_flags_set_their_config_keys():
    args = train_cli.build_parser().parse_args(["--game", GAME, "--backend", "rllib", "--ray-address", "10.0.0.9:6379"])
    config = train_cli.config_from_args(args)
    assert (config.backend, config.rllib.ray_address) == ("rllib", "10.0.0.9:6379")


def test_backend_is_a_checked_config_key():
    assert load_config(None, {}).backend == "sb3"
    with pytest.raises(ConfigError, match="'backend' must be one of \\['sb3', 'rllib'\\]"):
        load_config(None, {"backend": "tf"})
    with pytest.raises(ConfigError, match="rllib.num_env_runners"):
        load_config(None, {"rllib": {"num_env_runners": -1}})


def test_the_sb3_backend_refuses_to_resume_an_rllib_run(tmp_path, capsys):
    from agents.training.checkpoints import STATE_FILE
    from agents.training.config import save_config

    config = tiny(tmp_path, 100)
    save_config(config, tmp_path / "config.yaml")
    step = tmp_path / "checkpoints" / "step_000000000064"
    step.mkdir(parents=True)
    (step / STATE_FILE).write_bytes(pickle.dumps({"backend": "rllib", "num_timesteps": 64}))
    assert train_cli.main(["--game", GAME, "--run-dir", str(tmp_path), "--resume", "--set", "n_envs=2",
                           "--set", "seed=5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "trained with backend 'rllib', not 'sb3'; continue it with --backend rllib" in err


# -- with Ray ---------------------------------------------------------------------------------------
def test_a_tiny_rllib_run_keeps_the_run_layout_resumes_and_plays_in_evaluate(rllib_run, tmp_path):
    run_dir, first, resumed = rllib_run
    assert first.num_timesteps >= 100 and resumed.num_timesteps > 0
    assert sorted(os.listdir(run_dir)) == ["checkpoints", "config.yaml", "eval_history.csv", "final_model",
                                           "snapshots", "tb"]
    checkpoints = sorted(os.listdir(run_dir / "checkpoints"))
    assert len(checkpoints) == 2  # checkpoint.keep
    with open(run_dir / "checkpoints" / checkpoints[-1] / "state.pkl", "rb") as handle:
        state = pickle.load(handle)
    assert state["backend"] == "rllib" and state["num_timesteps"] == first.num_timesteps + resumed.num_timesteps
    # the initial policy, then one per update: the resumed run carries the pool on
    assert len(state["snapshots"]) == state["iteration"] + 1
    assert read_rllib_metadata(run_dir / "final_model")["num_timesteps"] == state["num_timesteps"]
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(run_dir / "tb"))
    out = tmp_path / "eval"
    assert evaluate.main(["--game", GAME, "--agents", f"rl={run_dir}", "random", "heuristic", "--games", "4",
                          "--out", str(out), "--no-plot"]) == 0
    assert (out / "catan_card_2p.csv").read_text().count("rl") >= 2


def test_the_numpy_actor_is_rllibs_masked_module(rllib_run):
    """The layers written to policy.npz give the logits of RLlib's own module, and the mask sends illegal
    actions to -inf there, so the agent's argmax is the module's."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    run_dir, _, _ = rllib_run
    latest = sorted((run_dir / "checkpoints").iterdir())[-1]
    module = RLModule.from_checkpoint(str(latest / "learner_group" / "learner" / "rl_module" / "default_policy"))
    agent = RLlibAgent(latest)
    env = envs.make(GAME, num_players=2)
    env.reset(seed=11)
    for _ in range(20):
        obs = env.observe(env.agent_selection)
        vector, mask = obs["observation"].astype(np.float32), obs["action_mask"].astype(np.float32)
        with torch.no_grad():
            out = module.forward_inference({Columns.OBS: {"observations": torch.from_numpy(vector[None]),
                                                          "action_mask": torch.from_numpy(mask[None])}})
        logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
        legal = np.flatnonzero(mask)
        np.testing.assert_allclose(logits[legal], agent.logits(vector)[legal], rtol=1e-4, atol=1e-4)
        assert logits[np.flatnonzero(mask == 0)].max(initial=-np.inf) < -1e30
        action = agent.act(vector, mask)
        assert action == int(np.argmax(logits))
        env.step(action)


def test_bad_input_gets_a_one_line_error(tmp_path, capsys):
    needs_ray()
    from agents.training.rllib_backend import train_rllib

    cases = [
        (["--ray-address", "127.0.0.1:1"], "no Ray cluster reachable there"),
        (["--ray-address", "nonsense"], "use 'auto', 'HOST:PORT' or 'ray://HOST:PORT'"),
        (["--set", "env.action_encoding=pointer"], "'pointer' is not one of them"),
        (["--set", "ppo.target_kl=0.02"], "ppo.target_kl"),
        (["--set", "env.action_encoding=composite"], "has 3,037,104 actions (at most 100,000)"),
    ]
    for flags, message in cases:
        code = train_cli.main(["--game", GAME, "--backend", "rllib", "--run-dir", str(tmp_path / "bad"),
                               "--total-steps", "10", *flags])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and err[-1].startswith("error:") and message in err[-1], (flags, err)
    # an SB3 run given to --resume of the rllib backend
    from agents.training.checkpoints import STATE_FILE
    from agents.training.config import save_config

    sb3 = tiny(tmp_path / "sb3", 100, backend="sb3")
    os.makedirs(tmp_path / "sb3" / "checkpoints" / "step_000000000064")
    save_config(sb3, tmp_path / "sb3" / "config.yaml")
    (tmp_path / "sb3" / "checkpoints" / "step_000000000064" / STATE_FILE).write_bytes(pickle.dumps({}))
    with pytest.raises(CheckpointError, match="trained with backend 'sb3', not 'rllib'; continue it with --backend sb3"):
        train_rllib(tiny(tmp_path / "sb3", 100), resume=True)
