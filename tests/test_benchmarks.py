"""The throughput benchmark runs and reports a ratio for every registered game and player count."""
import json
import re
from pathlib import Path

import pytest

import envs
from benchmarks import throughput

ROOT = Path(__file__).resolve().parents[1]


def test_throughput_benchmark_smoke(tmp_path, capsys):
    out = tmp_path / "tp.json"
    assert throughput.main(["--seconds", "0.05", "--rounds", "1", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    expected = {f"{g}/{n}" for g in envs.names() for n in envs.spec(g).player_counts}
    assert set(results) == expected
    for row in results.values():
        assert row["steps_per_s"] > 0 and row["ratio"] > 0
    assert "connect_four" not in capsys.readouterr().err


def test_ab_benchmark_smoke(capsys):
    """benchmarks/ab.py runs both trees on the same seeded games (here one tree twice: equal step counts)."""
    from pathlib import Path

    from benchmarks import ab

    root = Path(__file__).resolve().parents[1]
    assert ab.main([str(root), str(root), "--game", "catan_card", "--players", "2", "--games", "1", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "B / A = " in out and out.count(" steps, compiled build: ") == 2


def test_fingerprint_refuses_a_config_no_player_count_accepts(capsys):
    """A config that every player count rejects would be left out of the hash without a word: it is an error."""
    import pytest

    from benchmarks import fingerprint

    assert fingerprint.main(["catan_card", "--games", "1"]) == 0
    with pytest.raises(SystemExit):
        fingerprint.main(["catan_card", "--games", "1", "--config", json.dumps({"no_such_option": 1})])
    assert "not valid at any player count" in capsys.readouterr().err


def test_mcts_speed_benchmark_smoke(tmp_path):
    """benchmarks/mcts_speed.py times the MCTS agent per game and budget in connect_four_v3 steps."""
    from benchmarks import mcts_speed

    out = tmp_path / "mcts.json"
    assert mcts_speed.main(["--budgets", "2,4,2:guided:d3", "--moves", "1", "--seconds", "0.05", "--games",
                            "catan_card", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert set(results) == {"catan_card/2p/mcts:2", "catan_card/2p/mcts:4", "catan_card/2p/mcts:2:guided:d3"}
    assert all(row["connect_four_v3_steps_per_move"] > 0 for row in results.values())


def test_mcts_speed_times_each_games_baseline_searches_at_its_smallest_count(tmp_path, monkeypatch):
    from agents import mcts
    from benchmarks import mcts_speed

    monkeypatch.setitem(mcts.BASELINE_BUDGETS, "seventh_stone", ("mcts:2:guided:d2", "mcts:3"))
    out = tmp_path / "mcts.json"
    assert mcts_speed.main(["--budgets", "baseline", "--players", "smallest", "--moves", "1", "--seconds", "0.05",
                            "--games", "seventh_stone", "--json", str(out)]) == 0
    assert set(json.loads(out.read_text())) == {"seventh_stone/2p/mcts:2:guided:d2", "seventh_stone/2p/mcts:3"}


def test_random_play_benchmark_resumes_and_reports_a_failing_game(tmp_path, monkeypatch, capsys):
    from benchmarks import random_play
    out = tmp_path / "games.jsonl"
    args = ["--games", "kingsburg", "--encodings", "flat,pointer", "--count", "2", "--out", str(out)]
    assert random_play.main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((row["encoding"], row["seed"]) for row in rows) == [("flat", 0), ("flat", 1), ("pointer", 0),
                                                                      ("pointer", 1)]
    assert all(row["outcome"] == "ended" and row["decisions"] > 50 for row in rows)
    assert "| kingsburg | pointer | 2 | 2 | 0 | 0 |" in capsys.readouterr().out

    # a resumed run plays only the missing games; one whose env breaks is reported and fails the run
    def broken_make(*_args, **_kwargs):
        raise RuntimeError("dead end")
    monkeypatch.setattr(random_play.envs, "make", broken_make)
    assert random_play.main([*args[:-4], "--count", "3", "--out", str(out)]) == 1
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 6 and all(row["outcome"].startswith("error at decision 0: RuntimeError: dead end")
                                  for row in rows[4:])
    assert "Failures:" in capsys.readouterr().out


def test_random_play_benchmark_sees_an_empty_part_of_a_multidiscrete_mask():
    from benchmarks import random_play
    env = envs.make("kingsburg", action_encoding="factored")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"].view(bool).copy()
    assert not random_play.empty_part(env, mask)
    mask[env.action_space(env.agent_selection).nvec[0]:] = False  # the second part left with no legal value
    assert random_play.empty_part(env, mask)


def test_instruction_counts_read_callgrinds_summary_and_need_valgrind(monkeypatch, capsys):
    from benchmarks import instructions

    assert instructions.summary_instructions("events: Ir\nsummary: 1154266010\n") == 1154266010
    assert instructions.summary_instructions("events: Ir\ntotals: 42\n") == 42
    with pytest.raises(ValueError):
        instructions.summary_instructions("events: Ir\n")
    monkeypatch.setattr(instructions.shutil, "which", lambda tool: None)
    assert instructions.main([str(ROOT)]) == 2
    assert "valgrind and setarch not found" in capsys.readouterr().err


@pytest.mark.slow
def test_instruction_counts_repeat_and_compare_trees(capsys):
    import shutil

    from benchmarks import instructions

    if shutil.which("valgrind") is None or shutil.which("setarch") is None:
        pytest.skip("valgrind not installed")
    args = [str(ROOT), str(ROOT), "--game", "kingsburg", "--games", "1", "--warm-up", "0", "--pure"]
    assert instructions.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    ratios = [float(re.search(r"\(([\d.]+) x the first tree\)", line).group(1)) for line in lines]
    assert len(ratios) == 2 and abs(ratios[1] - 1) <= 0.005  # the same tree twice: the count repeats
