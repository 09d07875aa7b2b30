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
