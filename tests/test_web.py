"""play.py --web over HTTP (Flask's test client): seat tokens, refused requests that change nothing, the record and
the replay, and hidden information: every response for a seat holds only what that seat may see."""
from __future__ import annotations

import json
import urllib.request

import numpy as np
import pytest

import play
from envs.core import records
from tests.test_seat_view import OPTIONS, SCRAMBLE
from webplay.server import Server, create_app
from webplay.session import GameSession


def new_session(game="kingsburg", seats=(0,), opponents=("random",), seed=4, options=None, players=None):
    argv = ["--game", game, "--seed", str(seed)] + (["--opponents", *opponents] if opponents else [])
    argv += ["--num-players", str(players)] if players else []
    for key, value in (options or {}).items():
        argv += ["--env", f"{key}={str(value).lower()}"]
    session = GameSession(play.build_parser().parse_args(argv), list(seats))
    return session, create_app(session).test_client()


def play_first_moves(client, token, decisions):
    """Click the first listed move ``decisions`` times (or until the end); the last state."""
    state = client.get(f"/api/{token}/state").get_json()
    for _ in range(decisions):
        if state["over"]:
            break
        response = client.post(f"/api/{token}/move", json={"index": state["moves"][0]["index"], "ply": state["ply"]})
        assert response.status_code == 200, response.get_json()
        state = response.get_json()
    return state


def finish(client, token):
    state = play_first_moves(client, token, 5000)
    assert state["over"]
    return state


def test_each_seat_has_its_own_secret_token():
    session, client = new_session(seats=(0, 1), opponents=())
    assert len(set(session.tokens)) == 2 and all(len(token) >= 32 for token in session.tokens)
    for seat in (0, 1):
        token = session.token_of(seat)
        assert client.get(f"/play/{token}").status_code == 200
        assert client.get(f"/api/{token}/state").get_json()["seat"] == seat
    assert client.get("/play/not-a-token").status_code == 403
    response = client.get("/api/not-a-token/state")
    assert response.status_code == 403 and "unknown seat token" in response.get_json()["error"]


def refused(session, client, path, payload, status, message):
    """``payload`` sent to ``path`` is refused with ``status`` and ``message``, and the game is unchanged."""
    before = [client.get(f"/api/{token}/state").get_json() for token in session.tokens]
    moves = list(session.env._moves)
    response = client.post(path, json=payload)
    assert response.status_code == status, response.get_json()
    assert message in response.get_json()["error"]
    assert session.env._moves == moves
    assert [client.get(f"/api/{token}/state").get_json() for token in session.tokens] == before


def test_bad_requests_are_refused_and_change_nothing():
    session, client = new_session(seats=(0, 1), opponents=())
    state = client.get(f"/api/{session.token_of(session._to_move())}/state").get_json()
    mover, waiting = session.token_of(state["seat"]), session.token_of(1 - state["seat"])
    legal = [move["index"] for move in state["moves"]]
    illegal = next(i for i in range(session.env.action_space("player_0").n) if i not in legal)
    ply = state["ply"]
    refused(session, client, "/api/not-a-token/move", {"index": legal[0], "ply": ply}, 403, "unknown seat token")
    refused(session, client, f"/api/{waiting}/move", {"index": legal[0], "ply": ply}, 409, "not your turn")
    refused(session, client, f"/api/{mover}/move", {"index": illegal, "ply": ply}, 400, "is not legal for seat")
    refused(session, client, f"/api/{mover}/move", {"index": "GOOD", "ply": ply}, 400, "no move 'GOOD'")
    refused(session, client, f"/api/{mover}/move", {"index": legal[0], "ply": ply - 1}, 409, "position has changed")
    refused(session, client, f"/api/{mover}/move", {"ply": ply}, 400, "names no move")
    refused(session, client, f"/api/{mover}/move", {"index": legal[0]}, 400, "needs ply")
    refused(session, client, f"/api/{mover}/move", [legal[0]], 400, "JSON object")
    refused(session, client, f"/api/{mover}/replay", {}, 409, "offered when the game is over")
    assert client.get(f"/api/{mover}/record").status_code == 409
    # and the move itself is played for the seat to act
    response = client.post(f"/api/{mover}/move", json={"index": legal[0], "ply": ply})
    assert response.status_code == 200 and response.get_json()["ply"] == ply + 1


def test_a_whole_game_with_its_record_and_replay():
    session, client = new_session(seed=4)
    token = session.token_of(0)
    state = finish(client, token)
    assert state["result"].startswith("game over: seat") and "(seed 4)" in state["result"]
    assert len(state["scores"]) == 2 and state["moves"] == []
    assert any(line.startswith("seat 1 (random): ") for line in state["log"])  # the opponent's moves, by name
    response = client.get(f"/api/{token}/record")
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    record = response.get_json()
    assert record["agents"] == ["human", "random"] and record["result"] is not None
    records.check_record(record)  # the probes of hidden moves did not touch the game's random stream
    first = client.post(f"/api/{token}/replay", json={}).get_json()
    assert first["position"] == 0 and first["length"] == len(record["moves"]) and first["move"] == "the start"
    last = client.get(f"/api/{token}/replay?position={first['length']}&seat=1").get_json()
    assert last["result"].startswith("game over") and last["view_seat"] == 1
    assert last["move"].endswith(record["moves"][-1]["name"])
    back = client.get(f"/api/{token}/replay?position=3").get_json()
    assert back["position"] == 3 and back["move"].endswith(record["moves"][2]["name"])
    assert client.get(f"/api/{token}/replay?position=99999").status_code == 400
    uploaded = client.post(f"/api/{token}/replay", json={"record": record}).get_json()
    assert uploaded["length"] == len(record["moves"])
    broken = dict(record, moves=record["moves"][:-1] + [dict(record["moves"][-1], name="NOT_A_MOVE")])
    response = client.post(f"/api/{token}/replay", json={"record": broken})
    assert response.status_code == 400 and "cannot be replayed" in response.get_json()["error"]
    assert client.get(f"/api/{token}/replay?position=1").get_json()["length"] == len(record["moves"])  # kept
    new = client.post(f"/api/{token}/new", json={}).get_json()
    assert not new["over"] and "seed" not in json.dumps(new)


@pytest.mark.parametrize("encoding", ["flat", "composite"])
def test_another_seats_hidden_choices_are_not_named(encoding):
    # module 3: each seat commits an army token face down, shown when both have; the log must not name a token
    # committed before the human's own (moves of another encoding than flat are probed on copies of the whole env)
    session, client = new_session(options={"module_army_tokens": True, "action_encoding": encoding}, seed=2)
    state = finish(client, session.token_of(0))
    moves = session.env.record()["moves"]
    assert len(state["log"]) == len(moves)
    tokens = [i for i, m in enumerate(moves) if m["name"].startswith("ARMY_TOKEN")]
    committed_first = [i for i, j in zip(tokens, tokens[1:]) if moves[i]["seat"] == 1 and moves[j]["seat"] == 0]
    assert committed_first
    for i in committed_first:
        assert state["log"][i] == "seat 1 (random): a hidden choice"
    assert all(state["log"][i] == f"seat 0 (you): {moves[i]['name']}" for i in tokens if moves[i]["seat"] == 0)
    assert state["log"].count("seat 1 (random): a hidden choice") < sum(m["seat"] == 1 for m in moves) / 2


GAMES = sorted(SCRAMBLE)


@pytest.mark.parametrize("game", GAMES)
def test_responses_hold_no_other_seats_hidden_information(game):
    """At each decision of the human seat, the state it is sent is the same when everything it must not know is
    drawn again (tests/test_seat_view.py's scramblers); and the page itself holds no state."""
    players = 4 if game == "mythotopia" else None
    session, client = new_session(game, opponents=("random",), seed=5, options=OPTIONS.get(game), players=players)
    token, env = session.token_of(0), session.env
    assert env.seat_view(0).splitlines()[-1] not in client.get(f"/play/{token}").get_data(as_text=True)
    rng = np.random.default_rng(0)
    checked = 0
    for decision in range(15):
        state = client.get(f"/api/{token}/state").get_json()
        if state["over"]:
            break
        engine, legal = env.engine, env._legal
        for _ in range(2):
            env.engine, env._legal = SCRAMBLE[game](engine, 0, rng), None
            assert client.get(f"/api/{token}/state").get_json() == state, f"decision {decision}"
            checked += 1
        env.engine, env._legal = engine, legal
        moves = state["moves"]
        client.post(f"/api/{token}/move", json={"index": moves[decision % len(moves)]["index"], "ply": state["ply"]})
    assert checked >= 20


def test_the_server_serves_on_a_free_local_port():
    session, _ = new_session()
    server = Server(session, "127.0.0.1", 0).start()
    try:
        assert server.port > 0 and server.url(0).startswith(f"http://127.0.0.1:{server.port}/play/")
        with urllib.request.urlopen(server.url(0)) as response:
            assert b"play.js" in response.read()
        with urllib.request.urlopen(server.url(0).replace("/play/", "/api/") + "/state") as response:
            assert json.load(response)["seat"] == 0
    finally:
        server.stop()


def test_web_arguments_are_checked(capsys):
    assert play.main(["--web", "--game", "kingsburg", "--seat", "0", "0"]) == 2
    assert "each seat once" in capsys.readouterr().err
    assert play.main(["--web", "--game", "kingsburg", "--seat", "2"]) == 2
    assert "--seat must be in 0..1" in capsys.readouterr().err
