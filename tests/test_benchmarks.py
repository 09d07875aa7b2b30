"""The throughput benchmark runs and reports a ratio for every registered game and player count."""
import json

import envs
from benchmarks import throughput


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
    assert mcts_speed.main(["--budgets", "2,4", "--moves", "1", "--seconds", "0.05", "--games", "catan_card",
                            "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert set(results) == {"catan_card/mcts:2", "catan_card/mcts:4"}
    assert all(row["connect_four_v3_steps_per_move"] > 0 for row in results.values())
