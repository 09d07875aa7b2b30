"""Game records (envs.core.records): export, JSON, replay to the same end; tampered records refused."""
from __future__ import annotations

import copy
import json
import random

import pytest

import envs
from envs.core import records
from envs.core.records import RecordError

# short games: a whole Kingsburg game is about 100 decisions; the others are cut by max_turns
SETTINGS = {"catan_card": {"max_turns": 40}, "kingsburg": {}, "medioevo_universale": {"max_turns": 30},
            "mythotopia": {"max_turns": 40}, "seventh_stone": {"max_turns": 40, "num_players": 3}}


def play(game: str, seed: int | None = 7, stop_after: int | None = None, **kwargs):
    """A random game; the agent loop of the README (the seats stepped out at the end)."""
    env = envs.make(game, **{**SETTINGS[game], **kwargs})
    env.reset(seed=seed)
    pick = random.Random(1)
    for step, agent in enumerate(env.agent_iter()):
        if stop_after is not None and step == stop_after:
            break
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else pick.choice(env.legal_actions()))
    return env


def test_every_game_is_covered():
    assert sorted(SETTINGS) == envs.names()


@pytest.mark.parametrize("game", sorted(SETTINGS))
def test_a_record_round_trips_through_json_to_the_same_end(game):
    env = play(game)
    record = env.record(agents=["random"] * env.num_players)
    assert record["result"] is not None and record["moves"]
    loaded = json.loads(records.dumps_record(record))
    replayed = records.check_record(loaded)
    assert records.state_digest(replayed) == records.state_digest(env)
    assert replayed.engine.scores() == env.engine.scores()
    assert replayed.record(loaded["agents"]) == record


def test_a_whole_game_ends_as_recorded(tmp_path):
    env = play("kingsburg", num_players=3)
    assert env._final["outcome"] != "truncated"
    path = tmp_path / "game.json"
    records.save_record(env.record(["a", "b", "c"]), path)
    record = records.load_record(path)
    assert record["result"]["scores"] == env.engine.scores() and record["agents"] == ["a", "b", "c"]
    assert record["rule_options"] == {"module_more_buildings": False, "module_governors": False,
                                      "module_army_tokens": False}


def test_a_game_reset_without_a_seed_keeps_the_generator_state():
    env = envs.make("catan_card", max_turns=30)
    env.reset(seed=3)
    env.reset()  # continues the stream: the second game has no seed of its own
    pick = random.Random(2)
    while env._final is None:
        env.step(pick.choice(env.legal_actions()))
    record = json.loads(json.dumps(env.record()))
    assert record["seed"] is None and record["rng_state"]["bit_generator"] == "PCG64"
    assert records.state_digest(records.check_record(record)) == records.state_digest(env)


def test_an_unfinished_game_replays_to_the_same_position():
    env = play("mythotopia", stop_after=25)
    record = env.record()
    assert record["result"] is None and len(record["moves"]) == 25
    assert records.state_digest(records.check_record(record)) == records.state_digest(env)


def test_rule_options_with_tuples_round_trip():
    env = play("mythotopia", num_players=3, variable_vp_cards=("Citadel",), stop_after=10)
    record = json.loads(json.dumps(env.record()))
    assert record["rule_options"]["variable_vp_cards"] == ["Citadel"]
    assert records.check_record(record).config.variable_vp_cards == ("Citadel",)


@pytest.fixture(scope="module")
def finished():
    return play("kingsburg").record(["x", "y"])


def _tampered(record, change):
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def _other_legal_move(record, number):
    """The record with move ``number`` replaced by another move legal there, same seat."""
    env = records.new_game(record)
    for k in range(1, number):
        records.play_move(env, record, k)
    move = record["moves"][number - 1]
    other = next(i for i in env.legal_actions() if i != move["index"])
    return other, env.action_name(other)


@pytest.mark.parametrize("change, message", [
    (lambda r: r["result"]["scores"].__setitem__(0, r["result"]["scores"][0] + 5), "ends with scores"),
    (lambda r: r["result"].__setitem__("winners", [9]), "ends with winners"),
    (lambda r: r["result"].__setitem__("final_state_sha256", "0" * 64), "final_state_sha256"),
    (lambda r: r["moves"][3].__setitem__("name", "BUILD(row Z)"), "move 4: index .* is named"),
    (lambda r: r["moves"][2].__setitem__("index", 161), "move 3 .* does not replay"),
    (lambda r: r["moves"][2].__setitem__("seat", 1 - r["moves"][2]["seat"]), "move 3: recorded for seat"),
    (lambda r: r["moves"].pop(), "leave it unfinished"),
    (lambda r: r["moves"].append(dict(r["moves"][-1])), "after the game's end"),
    (lambda r: r.__setitem__("seed", r["seed"] + 1), r"move \d+|ends with"),
    (lambda r: r.__setitem__("env", "kingsburg_v1"), "a record of kingsburg_v1 cannot replay on kingsburg_v0"),
    (lambda r: r.__setitem__("format_version", 99), "format version 99"),
    (lambda r: r["rule_options"].__setitem__("module_dragons", True), "settings are not valid"),
    (lambda r: r["moves"].__setitem__(0, {"index": "2"}), "move 1 must be"),
    (lambda r: r.pop("seed"), "field 'seed' missing"),
    (lambda r: r.__setitem__("result", [1]), "field 'result' must be an object"),
])
def test_a_tampered_record_is_refused(finished, change, message):
    with pytest.raises(RecordError, match=message):
        records.check_record(_tampered(finished, change))


def test_a_different_but_legal_move_is_caught_by_the_end(finished):
    index, name = _other_legal_move(finished, 5)
    bad = _tampered(finished, lambda r: r["moves"].__setitem__(4, {**r["moves"][4], "index": index, "name": name}))
    with pytest.raises(RecordError, match=r"recorded by tabletop-gym .* \(kingsburg_v0, state_version 7\)"):
        records.check_record(bad)


def test_load_record_names_the_file(tmp_path, finished):
    path = tmp_path / "bad.json"
    records.save_record(_tampered(finished, lambda r: r["result"]["scores"].__setitem__(0, -50)), path)
    with pytest.raises(RecordError, match="bad.json"):
        records.load_record(path)
    path.write_text("{not json")
    with pytest.raises(RecordError, match="is not JSON"):
        records.load_record(path)


def test_replay_goes_backwards_and_forwards(finished):
    replay = records.Replay(finished)
    replay.SNAPSHOT_EVERY = 10
    fresh = records.Replay(finished)
    digests = {}
    for position in (0, 1, 7, len(replay)):
        fresh.goto(position)
        digests[position] = records.state_digest(fresh.env)
    for position in (len(replay), 7, 1, 0, 7, len(replay), 1):
        replay.goto(position)
        assert records.state_digest(replay.env) == digests[position]
    assert replay.last_move() == finished["moves"][0]
    with pytest.raises(ValueError, match="positions are 0.."):
        replay.goto(len(replay) + 1)
    assert replay.position == 1


def test_evaluate_records_the_first_games_of_each_pairing(tmp_path):
    import evaluate

    out = tmp_path / "out"
    code = evaluate.main(["--game", "kingsburg", "--agents", "random", "heuristic", "--games", "3", "--record",
                          str(tmp_path / "records"), "--record-games", "2", "--out", str(out), "--no-plot"])
    assert code == 0
    files = sorted(p.name for p in (tmp_path / "records").iterdir())
    assert files == ["random-vs-heuristic-g0000.json", "random-vs-heuristic-g0001.json"]
    first = records.load_record(tmp_path / "records" / files[0])
    second = records.load_record(tmp_path / "records" / files[1])
    assert first["agents"] == ["random", "heuristic"] and second["agents"] == ["heuristic", "random"]
    assert evaluate.main(["--game", "kingsburg", "--agents", "random", "heuristic", "--record-games", "2",
                          "--out", str(out)]) == 2


@pytest.mark.parametrize("game", sorted(SETTINGS))
def test_evaluate_records_of_every_game_replay_to_its_scores_and_tampering_is_refused(game, tmp_path):
    import evaluate

    settings = dict(SETTINGS[game])
    argv = ["--game", game, "--agents", "random", "heuristic", "--games", "2", "--record", str(tmp_path / "records"),
            "--out", str(tmp_path / "out"), "--no-plot"]
    argv += ["--num-players", str(settings.pop("num_players"))] if "num_players" in settings else []
    for key, value in settings.items():
        argv += ["--env", f"{key}={value}"]
    assert evaluate.main(argv) == 0
    games = json.loads(next((tmp_path / "out").glob("*.json")).read_text())["games"]
    paths = sorted((tmp_path / "records").iterdir())
    assert len(paths) == len(games) > 0
    scores = {(game["seed"], tuple(game["seats"])): game["scores"] for game in games}
    for path in paths:
        record = records.load_record(path)  # replayed from its seed, the end checked
        assert record["result"]["scores"] == scores[record["seed"], tuple(record["agents"])]
    record = records.read_record(paths[0])
    bad = tmp_path / "tampered.json"
    records.save_record(_tampered(record, lambda r: r["result"]["scores"].__setitem__(0, -99)), bad)
    with pytest.raises(RecordError, match=r"tampered\.json'.* ends with scores"):
        records.load_record(bad)
    with pytest.raises(RecordError, match="move 2: index .* is named"):
        records.check_record(_tampered(record, lambda r: r["moves"][1].__setitem__("name", "NOT_A_MOVE")))
