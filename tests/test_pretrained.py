"""Pretrained opponents: ``pretrained`` wherever agents are named, scripts/export_model.py and its sidecar, and
scripts/baselines.py writing the table of docs/baselines.md. Every model here is a tiny run's, exported into a
temporary models directory (``TABLETOP_GYM_MODELS``), never into the repository's models/."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import zipfile

import pytest

import evaluate
import play
import train as train_cli
from agents import make_agent, pretrained
from agents.ppo import CRITIC_PREFIXES, CheckpointError, PPOAgent, rewrite_policy_state
from agents.training.checkpoints import OPTIMIZER_MEMBER, read_sessions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script(name: str):
    spec = importlib.util.spec_from_file_location(f"script_{name}", os.path.join(ROOT, "scripts", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


export_model = _script("export_model")
baselines = _script("baselines")

TINY_RUN = ["--game", "kingsburg", "--num-players", "2", "--n-envs", "2", "--vec-env", "dummy", "--no-progress",
            "--set", "ppo.n_steps=32", "--set", "ppo.batch_size=64", "--set", "ppo.n_epochs=1",
            "--set", "ppo.net_arch=[16]", "--set", "eval.every_updates=1000"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A kingsburg 2-player run trained in two train.py sessions (64 steps, resumed to 128), exported."""
    root = tmp_path_factory.mktemp("pretrained")
    run, models = root / "run", root / "models"
    assert train_cli.main([*TINY_RUN, "--total-steps", "64", "--run-dir", str(run)]) == 0
    assert train_cli.main([*TINY_RUN, "--total-steps", "128", "--run-dir", str(run), "--resume"]) == 0
    assert export_model.main([str(run), "--game", "kingsburg", "--players", "2", "--models", str(models)]) == 0
    return run, models


@pytest.fixture
def models_dir(exported, monkeypatch):
    monkeypatch.setenv(pretrained.MODELS_ENV, str(exported[1]))
    return exported[1]


def test_export_keeps_the_policy_without_the_optimizer_and_writes_the_sidecar(exported):
    run, models = exported
    source, target = run / "final_model.zip", models / "kingsburg_2p.zip"
    with zipfile.ZipFile(source) as full, zipfile.ZipFile(target) as policy:
        assert OPTIMIZER_MEMBER in full.namelist()
        assert set(policy.namelist()) == set(full.namelist()) - {OPTIMIZER_MEMBER}
        import torch

        kept = torch.load(io.BytesIO(policy.read("policy.pth")), weights_only=True)
        every = torch.load(io.BytesIO(full.read("policy.pth")), weights_only=True)
    critic = {name for name in every if name.startswith(CRITIC_PREFIXES)}
    assert critic and set(kept) == set(every) - critic  # the actor only
    assert all(torch.equal(kept[name], every[name]) for name in kept)
    assert os.path.getsize(target) < os.path.getsize(source) / 2
    info = json.loads((models / "kingsburg_2p.json").read_text())
    sessions = read_sessions(str(run))
    assert len(sessions) == 2 and sessions[1]["command"].endswith("--resume")
    assert info["training_command"] == sessions[1]["command"]
    assert info["training_command"].startswith("python train.py --game kingsburg")
    assert info["config_file"] == "configs/kingsburg.yaml"
    assert info["total_steps"] == 128 and info["sessions"] == 2 and info["seed"] == 0
    assert info["wall_seconds"] == pytest.approx(sessions[0]["seconds"] + sessions[1]["seconds"], abs=0.11)
    assert info["git_commit"] == sessions[1]["code_version"]
    assert info["evaluation"] is None  # the run had no train.py --evaluate
    assert info["size_bytes"] == os.path.getsize(target)
    assert (info["game"], info["num_players"], info["net_arch"]) == ("kingsburg", 2, [16])


def test_the_sidecar_carries_the_runs_final_tournament(exported, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(exported[0], run)
    pairing = {"agent": "trained", "opponent": "random", "games": 4, "wins": 3, "draws": 0, "losses": 1,
               "win_rate": 0.75, "win_rate_ci_low": 0.3, "win_rate_ci_high": 0.95, "mean_score": 20.0}
    (run / "evaluation.json").write_text(json.dumps({"games_per_pairing": 4, "seed": 0, "pairings": [pairing]}))
    assert export_model.main([str(run), "--game", "kingsburg", "--players", "2", "--models", str(tmp_path)]) == 0
    evaluation = json.loads((tmp_path / "kingsburg_2p.json").read_text())["evaluation"]
    assert evaluation["games_per_pairing"] == 4
    assert evaluation["pairings"] == [{k: v for k, v in pairing.items() if k != "mean_score"}]


def test_export_refuses_a_policy_for_another_setup_and_writes_nothing(exported, tmp_path, capsys):
    run = exported[0]
    assert export_model.main([str(run), "--game", "kingsburg", "--players", "3", "--models", str(tmp_path)]) == 2
    assert "was trained for kingsburg at 2 players, not kingsburg at 3" in capsys.readouterr().err
    assert export_model.main([str(run), "--game", "catan_card", "--players", "2", "--models", str(tmp_path)]) == 2
    assert export_model.main([str(tmp_path), "--game", "kingsburg", "--players", "2", "--models",
                              str(tmp_path)]) == 2
    assert "holds no final_model.zip" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def test_pretrained_is_the_model_of_the_game_and_player_count(models_dir):
    agent = make_agent("pretrained", "kingsburg", 2, seed=1)
    assert isinstance(agent, PPOAgent) and agent.name == "pretrained" and agent.deterministic
    assert agent.path == str(models_dir / "kingsburg_2p.zip")
    assert pretrained.read_sidecar("kingsburg", 2)["total_steps"] == 128
    assert pretrained.read_sidecar("kingsburg", 3) is None


def test_evaluate_and_play_take_pretrained(models_dir, tmp_path):
    assert evaluate.main(["--game", "kingsburg", "--agents", "pretrained", "random", "--games", "2", "--out",
                          str(tmp_path), "--no-plot"]) == 0
    result = json.loads((tmp_path / "kingsburg_2p.json").read_text())
    assert result["agents"] == ["pretrained", "random"] and result["num_players"] == 2
    args = play.build_parser().parse_args(["--game", "kingsburg", "--opponents", "pretrained", "--seed", "3"])
    env, opponents, labels, _ = play.new_game(args, [0])
    assert labels == ["human", "pretrained"] and opponents[1].path == str(models_dir / "kingsburg_2p.zip")
    out = io.StringIO()
    assert play.main(["--game", "kingsburg", "--opponents", "pretrained", "--seed", "3"], stdin=io.StringIO("quit\n"),
                     stdout=out) == 0


def test_a_missing_model_is_named_with_the_models_there_are(models_dir, tmp_path, monkeypatch, capsys):
    path = models_dir / "kingsburg_3p.zip"
    expected = f"no pretrained model for kingsburg at 3 players ({path}); available: kingsburg_2p"
    with pytest.raises(CheckpointError) as error:
        make_agent("pretrained", "kingsburg", 3)
    assert str(error.value) == expected
    assert evaluate.main(["--game", "kingsburg", "--num-players", "3", "--agents", "pretrained", "random",
                          "--out", str(tmp_path), "--no-plot"]) == 2
    assert capsys.readouterr().err == f"error: {expected}\n"
    assert play.main(["--game", "kingsburg", "--num-players", "3", "--opponents", "pretrained"],
                     stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert capsys.readouterr().err == f"error: {expected}\n"
    monkeypatch.setenv(pretrained.MODELS_ENV, str(tmp_path / "empty"))
    with pytest.raises(CheckpointError, match=r"kingsburg_2p\.zip\); available: none$"):
        make_agent("pretrained", "kingsburg", 2)


def test_a_model_that_does_not_fit_fails_the_checkpoint_fit_check(models_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(pretrained.MODELS_ENV, str(tmp_path))
    shutil.copy(models_dir / "kingsburg_2p.zip", tmp_path / "kingsburg_3p.zip")
    with pytest.raises(CheckpointError, match="expects observations of size"):
        make_agent("pretrained", "kingsburg", 3)
    shutil.copy(models_dir / "kingsburg_2p.zip", tmp_path / "catan_card_2p.zip")
    with pytest.raises(CheckpointError, match="was trained on game 'kingsburg', not 'catan_card'"):
        make_agent("pretrained", "catan_card", 2)


# -- the baseline table -----------------------------------------------------------------------------
PROSE_BEFORE = "# Baselines\n\nHand-written prose, kept as it is.\n\n"
PROSE_AFTER = "\n\nMore prose after the table.\n"


def _doc(path) -> str:
    path.write_text(PROSE_BEFORE + baselines.BEGIN + "\nold table\n" + baselines.END + PROSE_AFTER)
    return str(path)


def _between(text: str) -> str:
    return text[text.index(baselines.BEGIN):text.index(baselines.END)]


TINY_TABLE = ["--games", "kingsburg", "--players", "2", "--agents", "random", "heuristic", "mcts:2", "pretrained",
              "--games-per-pairing", "2"]


def test_the_baseline_setups_are_the_smallest_count_and_4_medioevo_3_and_5():
    import envs

    found = baselines.setups()
    for game in envs.names():
        counts = [n for g, n in found if g == game]
        assert counts == ([3, 5] if game == "medioevo_universale" else [min(envs.spec(game).player_counts), 4])


def test_the_default_round_robin_plays_each_games_two_searches():
    """``mcts-budgets`` (a default agent) stands for the game's smaller and larger search, named in full."""
    import envs
    from agents import parse_mcts
    from agents.mcts import BASELINE_BUDGETS

    assert sorted(BASELINE_BUDGETS) == sorted(envs.names())
    for game, n in baselines.setups():
        setup = baselines.plan(game, n, list(baselines.DEFAULT_AGENTS), 10, 0)
        assert setup["agents"][:4] == ["random", "heuristic", *BASELINE_BUDGETS[game]]
        assert "mcts-budgets" not in setup["arguments"]
        for name in BASELINE_BUDGETS[game]:
            assert parse_mcts(name) is not None


def test_baselines_writes_the_table_between_the_markers_and_a_rerun_gives_the_same(models_dir, tmp_path,
                                                                                  monkeypatch):
    doc = _doc(tmp_path / "baselines.md")
    assert baselines.main([*TINY_TABLE, "--out", str(tmp_path / "first"), "--doc", doc]) == 0
    text = open(doc).read()
    assert text.startswith(PROSE_BEFORE + baselines.BEGIN) and text.endswith(baselines.END + PROSE_AFTER)
    table = _between(text)
    assert "old table" not in table and "### kingsburg, 2 players" in table
    assert ("`python evaluate.py --game kingsburg --num-players 2 --agents random heuristic mcts:2 pretrained "
            "--games 2 --seed 0 --no-plot`") in table
    assert "pretrained: `models/kingsburg_2p.zip`, trained 128 steps in" in table
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert len(rows) == 6 + 4  # each of the 6 pairings once (2 players: one series), then 4 ratings
    assert "| `random` | `heuristic` | 2 |" in table
    assert "Not played yet at these settings: catan_card at 2 players" in table
    # played afresh into another directory: the same table
    doc_again = _doc(tmp_path / "again.md")
    assert baselines.main([*TINY_TABLE, "--out", str(tmp_path / "second"), "--doc", doc_again]) == 0
    assert open(doc_again).read() == text
    # the same directory again: nothing is played, the table is written from the saved outcome

    def must_not_play(argv):
        raise AssertionError(f"played again: {argv}")

    monkeypatch.setattr(evaluate, "main", must_not_play)
    doc_third = _doc(tmp_path / "third.md")
    assert baselines.main([*TINY_TABLE, "--out", str(tmp_path / "first"), "--doc", doc_third]) == 0
    assert open(doc_third).read() == text


def test_baselines_without_a_model_leaves_pretrained_out_with_a_note(tmp_path, monkeypatch):
    monkeypatch.setenv(pretrained.MODELS_ENV, str(tmp_path / "no_models"))
    doc = _doc(tmp_path / "baselines.md")
    assert baselines.main([*TINY_TABLE, "--out", str(tmp_path / "out"), "--doc", doc]) == 0
    table = _between(open(doc).read())
    assert "No pretrained model (kingsburg_2p.zip in models/): not played." in table
    assert "--agents random heuristic mcts:2 --games 2" in table and "`pretrained`" not in table


def test_baselines_refuses_a_doc_without_markers_and_changes_nothing(tmp_path, capsys):
    doc = tmp_path / "plain.md"
    doc.write_text("no markers\n")
    assert baselines.main(["--games", "kingsburg", "--players", "2", "--agents", "random", "heuristic",
                           "--games-per-pairing", "1", "--out", str(tmp_path / "out"), "--doc", str(doc)]) == 2
    assert "no <!-- baselines:begin --> ... <!-- baselines:end --> section" in capsys.readouterr().err
    assert doc.read_text() == "no markers\n"


def test_training_evaluates_against_pretrained_and_refuses_a_missing_one(models_dir, tmp_path, monkeypatch):
    import csv

    from agents.training.config import load_config
    from agents.training.trainer import train
    from envs.core.errors import ConfigError

    config = load_config(None, {
        "game": "kingsburg", "num_players": 2, "n_envs": 2, "vec_env": "dummy", "progress_bar": False,
        "total_steps": 128, "run_dir": str(tmp_path / "run"),
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "eval": {"every_updates": 1, "games": 2, "opponents": ["pretrained"]},
    })
    train(config)
    with open(tmp_path / "run" / "eval_history.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and "win_rate_vs_pretrained" in rows[0]
    monkeypatch.setenv(pretrained.MODELS_ENV, str(tmp_path / "no_models"))
    config.run_dir = str(tmp_path / "other")
    with pytest.raises(ConfigError, match=r"^'eval.opponents': no pretrained model for kingsburg at 2 players"):
        train(config)
    assert not os.path.exists(tmp_path / "other" / "config.yaml")


def test_an_interrupted_baseline_run_goes_on_from_its_last_pairing(tmp_path, monkeypatch):
    from agents.training import tournament

    monkeypatch.setenv(pretrained.MODELS_ENV, str(tmp_path / "no_models"))
    table = ["--games", "kingsburg", "--players", "2", "--agents", "random", "heuristic", "mcts:2",
             "--games-per-pairing", "2", "--out", str(tmp_path / "out")]
    real, played = tournament.play_match, []

    def interrupted(*args, **kwargs):
        if len(played) == 1:
            raise KeyboardInterrupt
        played.append(args[2:4])
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament, "play_match", interrupted)
    doc = _doc(tmp_path / "baselines.md")
    with pytest.raises(KeyboardInterrupt):
        baselines.main([*table, "--doc", doc])
    assert "old table" in open(doc).read()  # nothing written before the setup ends

    def counted(*args, **kwargs):
        played.append(args[2:4])
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament, "play_match", counted)
    assert baselines.main([*table, "--doc", doc]) == 0
    assert len(played) == 3  # 3 pairings of 3 agents at 2 players, the first one played once
    assert _between(open(doc).read()) == _between(open(_fresh_table(tmp_path, table)).read())


def _fresh_table(tmp_path, table) -> str:
    """The table of the same settings played without interruption, into its own directory."""
    doc = _doc(tmp_path / "fresh.md")
    fresh = [*table[:-1], str(tmp_path / "fresh_out")]
    assert baselines.main([*fresh, "--doc", doc]) == 0
    return doc


def test_a_session_records_the_code_it_started_with(tmp_path, monkeypatch):
    # the tree may change while a long training runs; the code that trained is the one at the start
    from agents.training import checkpoints

    run = tmp_path / "run"
    monkeypatch.setattr(checkpoints, "code_version", lambda directory=None: "commit-at-end"
                        if (run / "final_model.zip").exists() else "commit-at-start")
    assert train_cli.main([*TINY_RUN, "--total-steps", "32", "--run-dir", str(run)]) == 0
    assert read_sessions(str(run))[0]["code_version"] == "commit-at-start"


def test_the_exported_actor_plays_as_the_trained_policy(exported):
    """Without its critic the exported policy picks the trained policy's actions: the actor is all acting reads."""
    import numpy as np

    import envs

    run, models = exported
    trained = PPOAgent(run / "final_model.zip", game="kingsburg", num_players=2)
    shipped = PPOAgent(models / "kingsburg_2p.zip", game="kingsburg", num_players=2)
    env = envs.make("kingsburg", num_players=2)
    env.reset(seed=5)
    compared = 0
    for _ in env.agent_iter(200):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        assert np.array_equal(trained.logits(obs["observation"]), shipped.logits(obs["observation"]))
        action = trained.act(obs["observation"], obs["action_mask"])
        assert shipped.act(obs["observation"], obs["action_mask"]) == action
        env.step(action)
        compared += 1
    assert compared > 20


def test_a_policy_missing_more_than_its_critic_is_refused(exported, tmp_path):
    broken = tmp_path / "broken.zip"
    shutil.copy(exported[1] / "kingsburg_2p.zip", broken)

    def without_an_actor_parameter(state):
        state.pop(next(name for name in state if name.startswith("action_net.")))
        return state

    rewrite_policy_state(broken, without_an_actor_parameter)
    with pytest.raises(CheckpointError, match="do not match"):
        PPOAgent(broken)
