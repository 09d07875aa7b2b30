"""train.py / evaluate.py end to end: train a few thousand steps, save, load, resume exactly, evaluate;
config validation; checkpoint errors; tournament rules and outputs."""
from __future__ import annotations

import csv
import json
import os
import shutil
import time
import zipfile

import numpy as np
import pytest

import envs
import evaluate
import train as train_cli
from agents.ppo import CheckpointError, PPOAgent, read_checkpoint_metadata, write_checkpoint_metadata
from agents.training import tournament
from agents.training.checkpoints import OPTIMIZER_MEMBER
from agents.training.config import load_config
from agents.training.trainer import train
from envs.core.errors import ConfigError

GAME = "catan_card" if "catan_card" in envs.names() else envs.names()[0]
CONFIGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "configs")

TINY = {
    "game": GAME,
    "num_players": 2,
    "seed": 3,
    "n_envs": 4,
    "vec_env": "dummy",
    "progress_bar": False,
    "ppo": {"n_steps": 64, "batch_size": 128, "n_epochs": 2, "net_arch": [32, 32]},
    "pool": {"snapshot_every_updates": 2, "max_snapshots": 3},
    "checkpoint": {"every_updates": 3, "keep": 2},
    "eval": {"every_updates": 4, "games": 4},
}


def tiny(run_dir, total_steps, **extra):
    return load_config(None, {**TINY, "run_dir": str(run_dir), "total_steps": total_steps, **extra})


def policy_params(path):
    from stable_baselines3.common.save_util import load_from_zip_file

    return load_from_zip_file(path, device="cpu")[1]["policy"]


def same_params(a, b) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One uninterrupted run of 8 updates and one stopped after 5 and resumed to 8."""
    root = tmp_path_factory.mktemp("runs")
    full = train(tiny(root / "full", 2048))
    part = train(tiny(root / "part", 1280))
    cpu = time.process_time()
    resumed = train(tiny(root / "part", 2048), resume=True)
    resumed.session_cpu_seconds = time.process_time() - cpu
    resumed.first_session = part
    return root, full, resumed


def test_run_outputs_and_exact_resume(trained):
    root, full, resumed = trained
    run = root / "full"
    # the final model sits beside the config that made it
    assert full.final_model == str(run / "final_model.zip")
    assert load_config(run / "config.yaml") == tiny(run, 2048)
    assert full.num_timesteps == 2048 and resumed.num_timesteps == 2048 - 1280
    assert full.run_timesteps == resumed.run_timesteps == 2048  # the whole run's, which the encoding study plots
    metadata = read_checkpoint_metadata(full.final_model)
    assert metadata["game"] == GAME and metadata["num_players"] == 2 and metadata["num_timesteps"] == 2048
    # checkpoints every 3 updates (of 256 steps), plus one at the end; only the newest 2 kept
    assert sorted(os.listdir(run / "checkpoints")) == ["step_000000001536", "step_000000002048"]
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(run / "tb"))
    with open(run / "eval_history.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["step"]) for r in rows] == [1024]  # every 4 updates; the 8th ends training
    assert {"win_rate_vs_random"} <= set(rows[0])
    # the clock of the curve: CPU seconds of training so far, never more than the wall-clock's with one process
    assert 0 < float(rows[0]["cpu_seconds"]) <= float(rows[0]["seconds"]) + 0.5
    # snapshots: every 2 updates plus the initial policy, pruned to what the pool and checkpoints use
    snapshots = sorted(os.listdir(run / "snapshots"))
    assert "snapshot_000000002048.zip" not in snapshots  # the pool never sees the last update
    assert 1 <= len(snapshots) <= 3 + 2
    # a snapshot holds the policy only (checkpoints keep the optimizer for resuming) and plays as an agent
    snapshot = str(run / "snapshots" / snapshots[-1])
    with zipfile.ZipFile(snapshot) as archive:
        assert "policy.pth" in archive.namelist() and OPTIMIZER_MEMBER not in archive.namelist()
    with zipfile.ZipFile(run / "checkpoints" / "step_000000002048" / "model.zip") as archive:
        assert OPTIMIZER_MEMBER in archive.namelist()
    assert os.path.getsize(snapshot) < 0.6 * os.path.getsize(full.final_model)
    assert read_checkpoint_metadata(snapshot)["game"] == GAME
    player = PPOAgent(snapshot, game=GAME, num_players=2)
    env = envs.make(GAME, num_players=2)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][player.act(observation["observation"], observation["action_mask"])]
    # a resumed run's clocks go on from where its first session stopped (5 updates there, 3 here)
    first = resumed.first_session
    assert resumed.run_cpu_seconds > first.run_cpu_seconds > 0 and resumed.run_seconds > first.run_seconds > 0
    assert resumed.run_cpu_seconds - first.run_cpu_seconds <= resumed.session_cpu_seconds + 0.1
    # resuming gives bit-identical weights to the uninterrupted run
    assert same_params(policy_params(full.final_model), policy_params(resumed.final_model))


def test_resume_is_not_a_no_op(trained, tmp_path):
    """Control for the exactness check: another seed gives other weights."""
    root, full, _ = trained
    other = train(tiny(tmp_path / "other", 512, seed=4))
    shorter = policy_params(os.path.join(root, "full", "checkpoints", "step_000000001536", "model.zip"))
    assert not same_params(policy_params(full.final_model), policy_params(other.final_model))
    assert not same_params(policy_params(full.final_model), shorter)


def test_load_and_evaluate_trained_model(trained, tmp_path):
    root, full, _ = trained
    agent = PPOAgent(full.final_model, game=GAME, num_players=2)
    env = envs.make(GAME, num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    action = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][action] == 1
    # numpy inference matches the torch policy's argmax
    import torch

    from agents.ppo import _load_policy

    policy = _load_policy(full.final_model).policy
    with torch.no_grad():
        logits = policy.get_distribution(torch.as_tensor(obs["observation"][None])).distribution.logits[0].numpy()
    mine = agent.logits(obs["observation"])
    assert np.allclose(mine - mine.max(), logits - logits.max(), atol=1e-4)  # torch's are log-softmaxed

    out = tmp_path / "results"
    code = evaluate.main([
        "--game", GAME, "--agents", f"ppo={full.final_model}", "random", "heuristic",
        "--games", "4", "--out", str(out), "--name", "t",
    ])
    assert code == 0
    with open(out / "t.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 6  # 3 unordered pairs, each seen from both sides
    data = json.loads((out / "t.json").read_text())
    assert set(data["ratings"]) == {"ppo", "random", "heuristic"}
    assert len(data["games"]) == 3 * 4
    assert (out / "t.png").stat().st_size > 10_000


def test_subprocess_training(tmp_path):
    """Worker processes (vec_env: subproc) train and write the same outputs."""
    result = train(tiny(tmp_path, 512, vec_env="subproc", n_processes=2, eval={"every_updates": 0, "games": 1}))
    assert result.num_timesteps == 512 and os.path.isfile(result.final_model)


@pytest.mark.slow
def test_subprocess_training_resumes_exactly(tmp_path):
    """Worker processes (vec_env: subproc) and resume across a process restart."""
    common = {"vec_env": "subproc", "n_processes": 2, "eval": {"every_updates": 0, "games": 1}}
    full = train(tiny(tmp_path / "full", 1024, **common))
    train(tiny(tmp_path / "part", 512, **common))
    resumed = train(tiny(tmp_path / "part", 1024, **common), resume=True)
    assert same_params(policy_params(full.final_model), policy_params(resumed.final_model))


# -- errors -----------------------------------------------------------------------------------------
def test_config_errors_name_the_key():
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['total_step'\].*valid keys are \[.*'total_steps'"):
        load_config(None, {"total_step": 5})
    with pytest.raises(ConfigError, match=r"\['ppo.lr'\] in ppo; valid keys are \['learning_rate'"):
        load_config(None, {"ppo": {"lr": 1e-3}})
    with pytest.raises(ConfigError, match="'ppo.n_steps' expects an integer, got 'many'"):
        load_config(None, {"ppo": {"n_steps": "many"}})
    with pytest.raises(ConfigError, match="'total_steps' expects an integer, got 2.5"):
        load_config(None, {"total_steps": 2.5})
    with pytest.raises(ConfigError, match="unknown opponent category \\['self'\\] in 'pool.weights'"):
        load_config(None, {"pool": {"weights": {"self": 1.0}}})
    with pytest.raises(ConfigError, match="'vec_env' must be one of"):
        load_config(None, {"vec_env": "threads"})
    with pytest.raises(ConfigError, match="'ppo.gamma' must be in \\[0, 1\\]"):
        load_config(None, {"ppo": {"gamma": 1.5}})
    assert load_config(None, {"total_steps": "2e6"}).total_steps == 2_000_000


def test_a_run_that_cannot_fit_in_memory_is_refused_before_it_starts(tmp_path):
    """seventh_stone's composite encoding has 973,845 actions: MaskablePPO's float32 mask buffer alone would hold
    14.9 GiB, and such a run was killed by the system after minutes instead of refused."""
    from agents.training.trainer import check_memory, memory_needed

    run_dir = str(tmp_path / "run")
    config = load_config(None, {"game": "seventh_stone", "env": {"action_encoding": "composite"}, "run_dir": run_dir})
    with pytest.raises(ConfigError, match=r"composite.*973,845 floats.*pointer or factored"):
        train(config)
    assert not os.path.exists(run_dir)  # nothing started
    needed, parts = memory_needed(config, 2, 16)
    assert needed > 14.9 * 2**30 and any("14.9 GiB" in part for part in parts)
    flat = load_config(None, {"game": "kingsburg"})
    needed, _ = memory_needed(flat, 2, 16)
    check_memory(flat, 2, 16, available=2 * needed)
    with pytest.raises(ConfigError, match="more than three quarters"):
        check_memory(flat, 2, 16, available=needed)


def test_shipped_configs_are_valid():
    from agents.training.config import check_game

    for file in os.listdir(CONFIGS):
        check_game(load_config(os.path.join(CONFIGS, file)))


def test_train_cli_overrides_and_errors(tmp_path, capsys):
    args = train_cli.build_parser().parse_args([
        "--game", GAME, "--num-players", "3", "--total-steps", "2e6", "--set", "ppo.learning_rate=1e-4",
        "--set", "pool.weights={random: 1.0}", "--run-dir", str(tmp_path),
    ])
    config = train_cli.config_from_args(args)
    assert (config.num_players, config.total_steps, config.ppo.learning_rate) == (3, 2_000_000, 1e-4)
    assert config.pool.weights == {"random": 1.0} and config.run_dir == str(tmp_path)
    assert train_cli.main(["--game", "no_such_game", "--run-dir", str(tmp_path)]) == 2
    assert "unknown game 'no_such_game'; registered games are" in capsys.readouterr().err
    assert train_cli.main(["--game", GAME, "--set", "ppo.nsteps=3", "--run-dir", str(tmp_path)]) == 2
    assert "['ppo.nsteps']" in capsys.readouterr().err
    assert train_cli.main(["--game", GAME, "--num-players", "99", "--run-dir", str(tmp_path)]) == 2
    assert "does not support num_players=99" in capsys.readouterr().err
    assert train_cli.main(["--game", GAME, "--resume", "--run-dir", str(tmp_path / "empty")]) == 2
    assert "no checkpoint" in capsys.readouterr().err


def test_resume_refuses_a_different_config(trained):
    root, _, _ = trained
    with pytest.raises(ConfigError, match="ppo.*differs|differs.*ppo"):
        train(tiny(root / "part", 4096, ppo={**TINY["ppo"], "n_epochs": 3}), resume=True)
    with pytest.raises(ConfigError, match="already holds a run"):
        train(tiny(root / "part", 4096))


def test_resume_refuses_games_saved_by_another_engine_version(trained):
    """A checkpoint's games in progress are pickled engines: another engine state version is refused."""
    import pickle

    root, _, _ = trained
    run = root / "part"  # the saved config names this directory: edit in place, then restore
    states = sorted(run.rglob("state.pkl"))
    assert states
    originals = {path: path.read_bytes() for path in states}
    try:
        for path, blob in originals.items():
            state = pickle.loads(blob)
            assert state["engine_state_version"] == envs.spec(GAME).state_version
            state["engine_state_version"] += 1
            path.write_bytes(pickle.dumps(state))
        with pytest.raises(CheckpointError, match="engine state version"):
            train(tiny(run, 4096), resume=True)
    finally:
        for path, blob in originals.items():
            path.write_bytes(blob)


def test_checkpoint_errors(trained, tmp_path):
    root, full, _ = trained
    missing = tmp_path / "missing.zip"
    with pytest.raises(CheckpointError, match="does not exist"):
        PPOAgent(missing)
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(CheckpointError, match="corrupt or not a MaskablePPO"):
        PPOAgent(garbage)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(open(full.final_model, "rb").read()[:3000])
    with pytest.raises(CheckpointError, match="corrupt"):
        PPOAgent(truncated)
    no_policy = tmp_path / "no_policy.zip"
    with zipfile.ZipFile(full.final_model) as src, zipfile.ZipFile(no_policy, "w") as dst:
        for item in src.infolist():
            if item.filename != "policy.pth":
                dst.writestr(item, src.read(item.filename))
    with pytest.raises(CheckpointError, match="corrupt"):
        PPOAgent(no_policy)
    # trained for another game
    other_game = tmp_path / "other_game.zip"
    shutil.copy(full.final_model, other_game)
    write_checkpoint_metadata(other_game, {**read_checkpoint_metadata(other_game), "game": "kingsburg"})
    with pytest.raises(CheckpointError, match="trained on game 'kingsburg', not '" + GAME):
        PPOAgent(other_game, game=GAME, num_players=2)
    # observation size of another player count
    counts = [n for n in envs.spec(GAME).player_counts if n != 2]
    if counts:
        with pytest.raises(CheckpointError, match="expects observations of size"):
            PPOAgent(full.final_model, game=GAME, num_players=counts[-1])
        assert evaluate.main(["--game", GAME, "--num-players", str(counts[-1]), "--agents", full.final_model,
                              "random", "--games", "1", "--out", str(tmp_path)]) == 2


# -- tournaments ------------------------------------------------------------------------------------
def test_wilson_interval():
    assert tournament.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert tournament.wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert tournament.wilson_interval(500, 500)[0] == pytest.approx(0.99239, abs=1e-4)


def test_tournament_rotates_seats_fixes_seeds_and_rates():
    n = max(envs.spec(GAME).player_counts[:3])
    first = tournament.run_tournament(GAME, n, ["random", "heuristic"], games=n + 1, seed=5)
    again = tournament.run_tournament(GAME, n, ["random", "heuristic"], games=n + 1, seed=5)
    assert [r.rewards for m in first.matches for r in m.records] == [r.rewards for m in again.matches for r in m.records]
    # more than 2 players: both directions are played, each with the agent's seat rotating
    assert [(m.agent_name, m.opponent_name) for m in first.matches] == [("random", "heuristic"), ("heuristic", "random")]
    for match in first.matches:
        assert match.agent_seats == [g % n for g in range(n + 1)]
        for record, seat in zip(match.records, match.agent_seats):
            assert record.seats[seat] == match.agent_name
            assert record.seats.count(match.opponent_name) == n - 1
    # same seed per game index in every pairing
    assert [r.seed for r in first.matches[0].records] == [r.seed for r in first.matches[1].records]
    assert first.ratings["heuristic"].mu > first.ratings["random"].mu
    assert first.matches[1].wins + first.matches[1].draws + first.matches[1].losses == n + 1


def test_two_player_matrix_is_consistent():
    result = tournament.run_tournament(GAME, 2, ["random", "heuristic", "random"], games=6, seed=1)
    assert result.labels == ["random", "heuristic", "random#2"]
    matrix = result.win_matrix()
    for match in result.matches:
        i, j = result.labels.index(match.agent_name), result.labels.index(match.opponent_name)
        assert matrix[i, j] + matrix[j, i] + match.draws / match.games == pytest.approx(1.0)
    assert np.isnan(np.diag(matrix)).all()


# -- every registered game, every player count ------------------------------------------------------
@pytest.mark.parametrize("game", envs.names())
def test_every_game_trains_and_evaluates_with_its_config(game, tmp_path):
    """configs/<game>.yaml, shrunk to a few hundred steps, trains; the model plays a tournament."""
    path = os.path.join(CONFIGS, f"{game}.yaml")
    assert os.path.isfile(path), f"every registered game needs {path}: copy configs/catan_card.yaml, set 'game'"
    shrink = {
        "total_steps": 256, "n_envs": 2, "vec_env": "dummy", "progress_bar": False, "run_dir": str(tmp_path),
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "eval": {"every_updates": 1, "games": 2},
    }
    config = load_config(path, shrink)
    assert config.game == game
    result = train(config)
    n = config.num_players or envs.spec(game).default_players
    outcome = tournament.run_tournament(game, n, [result.final_model, "random"], games=n, seed=0)
    assert sum(m.games for m in outcome.matches) == n * (1 if n == 2 else 2)


def test_largest_player_count_trains_and_evaluates(tmp_path):
    n = max(envs.spec(GAME).player_counts)
    result = train(tiny(tmp_path, 256, num_players=n, ppo={**TINY["ppo"], "n_steps": 32, "batch_size": 64}))
    outcome = tournament.run_tournament(GAME, n, [result.final_model, "random", "heuristic"], games=n, seed=2)
    # with more than 2 players each ordered pair is its own series: 3 agents -> 6 pairings
    assert len(outcome.matches) == 6 and all(m.games == n for m in outcome.matches)
    assert all(len(r.seats) == n for m in outcome.matches for r in m.records)
    assert set(outcome.ratings) == {outcome.labels[0], "random", "heuristic"}


def test_throughput_benchmark_smoke(tmp_path):
    from benchmarks import train_throughput

    config = tmp_path / "tiny.yaml"
    config.write_text(
        f"game: {GAME}\nn_envs: 2\nvec_env: dummy\nppo: {{n_steps: 64, batch_size: 64, n_epochs: 1, net_arch: [16]}}\n"
    )
    out = tmp_path / "bench.json"
    assert train_throughput.main(["--config", str(config), "--steps", "128", "--skip-single-env", "--json", str(out)]) == 0
    rates = json.loads(out.read_text())["median_steps_per_second"]
    assert rates["game"] > 0 and rates["recipe_same_envs"] > 0 and rates["recipe_one_env"] is None


@pytest.mark.slow
def test_short_training_beats_random(tmp_path):
    """The quickstart recipe, shortened: 100k steps already win >= 90% against random."""
    root = os.path.dirname(os.path.dirname(__file__))
    config = load_config(os.path.join(root, "configs", "quickstart.yaml"),
                         {"total_steps": 100_000, "run_dir": str(tmp_path), "progress_bar": False,
                          "eval": {"every_updates": 0}})
    result = train(config)
    match = tournament.play_match(GAME, 2, result.final_model, "random", games=200, seed=123)
    assert match.win_rate >= 0.9, match.summary()


def test_ctrl_c_saves_a_checkpoint_that_resumes(tmp_path, monkeypatch):
    """The first Ctrl-C (SIGINT) stops training after the env step in progress, mid-rollout here, and saves a
    checkpoint whose envs and last observation agree; ``--resume`` continues it to the end."""
    import signal

    from agents.training.callback import SelfPlayCallback

    on_step = SelfPlayCallback._on_step

    def interrupted_at_300(self):
        if self.model.num_timesteps == 300:  # inside the second rollout (256 steps each)
            os.kill(os.getpid(), signal.SIGINT)
        return on_step(self)

    monkeypatch.setattr(SelfPlayCallback, "_on_step", interrupted_at_300)
    stopped = train(tiny(tmp_path, 1024))
    assert stopped.interrupted and not os.path.exists(stopped.final_model)
    assert sorted(os.listdir(tmp_path / "checkpoints"))[-1] == "step_000000000300"  # where the signal came
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the trainer's handler is gone
    monkeypatch.setattr(SelfPlayCallback, "_on_step", on_step)
    resumed = train(tiny(tmp_path, 1024), resume=True)
    # whole rollouts of 256 steps from step 300 on: three reach the total
    assert not resumed.interrupted and resumed.num_timesteps == 3 * 256
    assert read_checkpoint_metadata(resumed.final_model)["num_timesteps"] == 300 + 3 * 256


def test_an_interrupted_tournament_goes_on_where_it_stopped(tmp_path, monkeypatch, capsys):
    """evaluate.py saves each pairing as it ends; run again after an interruption, it plays only the pairings
    still missing and writes what an uninterrupted run writes."""
    args = ["--game", GAME, "--agents", "random", "heuristic", "r2=random", "--games", "3", "--no-plot"]
    assert evaluate.main(args + ["--out", str(tmp_path / "whole"), "--name", "t"]) == 0
    assert not (tmp_path / "whole" / "t.pairings.jsonl").exists()  # complete: the outputs hold it all
    play_match, played = tournament.play_match, []

    def interrupted_at_second(*a, **k):
        if len(played) == 1:
            raise KeyboardInterrupt
        played.append(k["agent_label"])
        return play_match(*a, **k)

    monkeypatch.setattr(tournament, "play_match", interrupted_at_second)
    with pytest.raises(KeyboardInterrupt):
        evaluate.main(args + ["--out", str(tmp_path / "cut"), "--name", "t"])
    assert len((tmp_path / "cut" / "t.pairings.jsonl").read_text().splitlines()) == 1
    played.clear()
    monkeypatch.setattr(tournament, "play_match",
                        lambda *a, **k: played.append(k["agent_label"]) or play_match(*a, **k))
    assert evaluate.main(args + ["--out", str(tmp_path / "cut"), "--name", "t"]) == 0
    assert len(played) == 2  # of the three pairings
    assert "1 pairing(s) already played" in capsys.readouterr().err
    whole, cut = (json.loads((tmp_path / d / "t.json").read_text()) for d in ("whole", "cut"))
    assert whole == cut


def test_an_interrupted_pairing_goes_on_from_its_last_game(tmp_path, monkeypatch, capsys):
    """evaluate.py saves each game as it ends: run again after an interruption inside a pairing, it plays only the
    games still missing and writes what an uninterrupted run writes (a search agent's pairing can take hours)."""
    args = ["--game", GAME, "--agents", "random", "heuristic", "--games", "5", "--no-plot", "--name", "t"]
    assert evaluate.main(args + ["--out", str(tmp_path / "whole")]) == 0
    play_game, seeds = tournament.play_game, []

    def interrupted_at_fourth(env, agents, labels, seed):
        if len(seeds) == 3:
            raise KeyboardInterrupt
        seeds.append(seed)
        return play_game(env, agents, labels, seed)

    monkeypatch.setattr(tournament, "play_game", interrupted_at_fourth)
    with pytest.raises(KeyboardInterrupt):
        evaluate.main(args + ["--out", str(tmp_path / "cut")])
    assert len((tmp_path / "cut" / "t.games.jsonl").read_text().splitlines()) == 3
    first = list(seeds)
    seeds.clear()
    monkeypatch.setattr(tournament, "play_game", lambda env, agents, labels, seed: seeds.append(seed) or play_game(
        env, agents, labels, seed))
    assert evaluate.main(args + ["--out", str(tmp_path / "cut")]) == 0
    assert len(seeds) == 2 and not set(seeds) & set(first)  # the last two games only
    assert "3 game(s) already played" in capsys.readouterr().err
    assert not (tmp_path / "cut" / "t.games.jsonl").exists()
    whole, cut = (json.loads((tmp_path / d / "t.json").read_text()) for d in ("whole", "cut"))
    assert whole == cut


def test_evaluate_uses_the_env_settings_a_checkpoint_was_trained_with(trained, tmp_path, capsys):
    root, full, _ = trained
    path = str(tmp_path / "short_games.zip")
    shutil.copy(full.final_model, path)
    metadata = read_checkpoint_metadata(path)
    write_checkpoint_metadata(path, {**metadata, "env_kwargs": {"max_turns": 7}})
    assert evaluate.main(["--game", GAME, "--agents", path, "random", "--games", "2", "--no-plot",
                          "--out", str(tmp_path), "--name", "t"]) == 0
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["env_kwargs"] == {"max_turns": 7} and all(g["truncated"] for g in data["games"])
    assert evaluate.main(["--game", GAME, "--agents", path, "random", "--games", "2", "--no-plot", "--env",
                          "max_turns=500", "--out", str(tmp_path), "--name", "u"]) == 0
    assert json.loads((tmp_path / "u.json").read_text())["env_kwargs"] == {"max_turns": 500}


def test_a_checkpoint_sets_the_player_count_unless_told(trained, tmp_path, monkeypatch):
    import dataclasses
    import shutil

    import play
    from agents.training.tournament import AgentSpec

    _, full, _ = trained
    game_spec = envs.spec
    # a default other than the checkpoint's 2 players, so that the count seen below is the checkpoint's
    monkeypatch.setattr(envs, "spec", lambda name: dataclasses.replace(game_spec(name), default_players=4))
    assert evaluate.trained_num_players([AgentSpec.parse(full.final_model), AgentSpec.parse("random")]) == 2
    env = play.new_game(play.build_parser().parse_args(["--game", GAME, "--opponents", full.final_model]), [0])[0]
    assert env.num_players == 2
    other = tmp_path / "other.zip"
    shutil.copy(full.final_model, other)
    write_checkpoint_metadata(other, {**read_checkpoint_metadata(full.final_model), "num_players": 3})
    with pytest.raises(ValueError, match="different player counts"):
        evaluate.trained_num_players([AgentSpec.parse(full.final_model), AgentSpec.parse(str(other))])


def test_training_evaluation_is_evaluate_py_on_the_checkpoint_of_that_step(tmp_path):
    """The periodic evaluation and evaluate.py measure the same thing: the row of ``eval_history.csv`` at a step
    is what evaluate.py gives for the checkpoint saved at that step, with ``eval.games`` games and the seed
    ``seed + 7919`` (docs/training.md). A difference between the two is a different policy or sample, not a
    different measure."""
    run = tmp_path / "run"
    config = tiny(run, 1024, checkpoint={"every_updates": 2, "keep": 4}, eval={"every_updates": 2, "games": 6})
    train(config)
    with open(run / "eval_history.csv") as handle:
        rows = {int(row["step"]): row for row in csv.DictReader(handle)}
    assert 512 in rows
    checkpoint = run / "checkpoints" / "step_000000000512" / "model.zip"
    assert evaluate.main(["--game", GAME, "--agents", str(checkpoint), "random", "--games", "6", "--seed",
                          str(config.seed + 7919), "--no-plot", "--out", str(tmp_path), "--name", "t"]) == 0
    data = json.loads((tmp_path / "t.json").read_text())
    [pairing] = [p for p in data["pairings"] if p["opponent"] == "random"]
    assert pairing["games"] == 6
    assert pairing["win_rate"] == pytest.approx(float(rows[512]["win_rate_vs_random"]), abs=1e-4)
    # and the moves: the same games, not merely the same count of wins
    assert pairing["mean_moves"] == pytest.approx(float(rows[512]["mean_moves_vs_random"]), abs=1e-3)


@pytest.mark.parametrize("script", ["train.py", "evaluate.py", "benchmarks/encoding_study.py"])
def test_the_scripts_keep_numpy_to_one_blas_thread(script):
    """numpy's OpenBLAS would keep a second thread spinning between the policies' small matrix products."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    probe = (
        "import importlib.util, os, sys\n"
        f"spec = importlib.util.spec_from_file_location('script', {os.path.join(root, script)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "import numpy as np\n"
        "a = np.ones((400, 400))\n"
        "for _ in range(5): a @ a\n"
        "print(len(os.listdir('/proc/self/task')))\n"
    )
    environment = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    threads = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                             env=environment).stdout.split()[-1]
    assert threads == "1"


def test_the_resume_command_after_ctrl_c_is_quoted_for_the_shell():
    """An argument with spaces (a --set of a mapping) is printed so that pasting the command runs it again."""
    import shlex

    argv = ["--config", "configs/mythotopia.yaml", "--set", "pool.weights={latest: 0.5, heuristic: 0.5}",
            "--overwrite"]
    command = train_cli.resume_command(argv)
    assert shlex.split(command) == ["python", "train.py", *argv[:-1], "--resume"]
