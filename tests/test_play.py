"""play.py driven by scripted input: a whole game, bad input, the record, and replay navigation."""
from __future__ import annotations

import io
import re

import pytest

import envs
import play
from envs.core import records


def run(argv, lines):
    out = io.StringIO()
    code = play.main(argv + ["--width", "120"], stdin=io.StringIO("".join(f"{line}\n" for line in lines)),
                     stdout=out)
    return code, out.getvalue()


def test_match_move_by_number_name_and_refusal():
    legal, names = [2, 3, 4], ["GOOD(gold)", "GOOD(wood)", "GOOD(stone)"]
    assert play.match_move("2", legal, names) == (3, "")
    assert play.match_move("Stone", legal, names) == (4, "")
    assert play.match_move("good(gold)", legal, names) == (2, "")
    index, message = play.match_move("good", legal, names)
    assert index is None and "matches 3 moves" in message
    index, message = play.match_move("4", legal, names)
    assert index is None and "numbered 1..3" in message
    index, message = play.match_move("ore", legal, names)
    assert index is None and "no legal move matches 'ore'" in message


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory):
    path = tmp_path_factory.mktemp("play") / "game.json"
    # bad input first (each answered, nothing played), then a move by name, then the first move every time
    lines = ["help", "good", "xyz", "99", "", "wood"] + ["1"] * 400
    code, text = run(["--game", "kingsburg", "--num-players", "2", "--opponents", "random", "--seed", "4",
                      "--record", str(path)], lines)
    return code, text, path


def test_a_whole_game_is_played_and_recorded(whole_game):
    code, text, path = whole_game
    assert code == 0
    assert "game over: seat" in text and "scores: seat 0 (human)" in text
    assert "'good' matches 3 moves" in text and "no legal move matches 'xyz'" in text
    assert "no move 99" in text and "commands" in text
    assert re.search(r"seat 1 \(random\): \S+", text)  # the opponent's moves are announced
    record = records.load_record(path)
    assert record["agents"] == ["human", "random"] and record["result"] is not None
    first_human = next(m for m in record["moves"] if m["seat"] == 0)
    assert first_human["name"] == "GOOD(wood)"  # the bad input before it played nothing
    assert text.count("seat 0 (you):") == sum(m["seat"] == 0 for m in record["moves"])


def test_the_screen_is_the_seats_view(whole_game):
    _, text, path = whole_game
    env = records.check_record(records.read_record(path))
    assert env.seat_view(0).split("\n")[0] in text


def test_quitting_saves_an_unfinished_record(tmp_path):
    path = tmp_path / "q.json"
    code, text = run(["--game", "catan_card", "--opponents", "heuristic", "--seed", "1", "--record", str(path)],
                     ["1", "quit"])
    assert code == 0 and "game stopped" in text
    assert "your hand (seat 0):" in text
    record = records.load_record(path)
    assert record["result"] is None and record["agents"] == ["human", "heuristic"]


def test_bad_arguments_are_refused(capsys):
    assert play.main(["--game", "kingsburg", "--num-players", "3", "--opponents", "random", "random", "random"],
                     stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert "one per seat" in capsys.readouterr().err
    assert play.main(["--game", "kingsburg", "--seat", "2", "--opponents", "random"],
                     stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    assert "--seat must be in 0..1" in capsys.readouterr().err


def test_replay_navigation(whole_game):
    _, _, path = whole_game
    total = len(records.read_record(path)["moves"])
    code, text = run(["--replay", str(path), "--seat", "1"],
                     ["n", "n", "back", "go 5", "end", str(total + 1), "jump", "start", "q"])
    assert code == 0
    headers = re.findall(r"^move (\d+)/(\d+)", text, re.M)
    assert [int(k) for k, _ in headers] == [0, 1, 2, 1, 5, total, 0]
    assert {int(n) for _, n in headers} == {total}
    assert f"no position {total + 1}" in text and "unknown command 'jump'" in text
    assert "seat 1's view" in text and "game over" in text


def test_replay_refuses_a_tampered_record(tmp_path, whole_game, capsys):
    _, _, path = whole_game
    record = records.read_record(path)
    record["result"]["scores"][1] += 3
    bad = tmp_path / "bad.json"
    records.save_record(record, bad)
    assert play.main(["--replay", str(bad)], stdin=io.StringIO(""), stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "the replay ends with scores" in err


def test_an_opponents_hidden_choice_is_not_named(tmp_path):
    # kingsburg module 3: army tokens are committed face down and shown when both seats have committed
    path = tmp_path / "tokens.json"
    code, text = run(["--game", "kingsburg", "--opponents", "random", "--seed", "2", "--env", "module_army_tokens=true",
                      "--record", str(path)], ["1"] * 400)
    assert code == 0
    moves = [m for m in records.load_record(path)["moves"]]
    told = re.findall(r"^seat 1 \(random\): (.*)$", text, re.MULTILINE)
    theirs = [i for i, m in enumerate(moves) if m["seat"] == 1]
    assert len(told) == len(theirs)
    tokens = [i for i, m in enumerate(moves) if m["name"].startswith("ARMY_TOKEN")]
    first = {i for i, j in zip(tokens, tokens[1:]) if moves[i]["seat"] == 1 and moves[j]["seat"] == 0}
    assert first
    for i, line in zip(theirs, told):
        assert line == (play.HIDDEN_CHOICE if i in first else moves[i]["name"]), moves[i]


def test_the_seed_is_told_only_with_the_result(whole_game):
    """The seed decides every hidden card: a player who knew it could replay the deal."""
    _, text, _ = whole_game
    end = text.index("game over: seat")
    assert "seed 4" not in text[:end] and "(seed 4)" in text[end:]


@pytest.mark.parametrize("opponent, encoding", [("heuristic", "factored")] + [
    pytest.param(*case, marks=pytest.mark.slow)  # whole games: one in the default run
    for case in (("random", "factored"), ("random", "pointer"), ("heuristic", "pointer"))])
def test_flat_opponents_play_in_a_move_encoding(opponent, encoding):
    code, text = run(["--game", "kingsburg", "--opponents", opponent, "--seed", "3",
                      "--env", f"action_encoding={encoding}"], ["1"] * 300)
    assert code == 0 and "game over: seat" in text
