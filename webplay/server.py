"""The Flask app of ``play.py --web``: one page for every game, and a JSON API that acts only for the seat whose
token is in the address.

    GET  /play/<token>                 the page
    GET  /api/<token>/state            the game as the token's seat may see it (``GameSession.state``)
    POST /api/<token>/move             {"index": i, "ply": moves played when the page was drawn}
    POST /api/<token>/new              a new game (every seat)
    GET  /api/<token>/record           the record, once the game is over
    POST /api/<token>/replay           {"record": {...}} to step through, or {} for the game just played
    GET  /api/<token>/replay?position=K&seat=S

A refused request gets its HTTP status and ``{"error": message}``, and changes nothing.
"""
from __future__ import annotations

import sys
import threading

from flask import Flask, abort, jsonify, render_template, request
from werkzeug.serving import WSGIRequestHandler, make_server

from .session import GameSession, Refused

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def create_app(session: GameSession) -> Flask:
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = 32 * 1024 * 1024  # an uploaded record

    @app.errorhandler(Refused)
    def refused(exc: Refused):
        return jsonify(error=str(exc)), exc.status

    def no_caching(response):
        response.headers["Cache-Control"] = "no-store"  # a seat's page holds its own hidden information
        response.headers["Referrer-Policy"] = "no-referrer"  # the token is in the address
        return response

    app.after_request(no_caching)

    def body() -> dict:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise Refused("the request needs a JSON object")
        return data

    @app.get("/play/<token>")
    def page(token):
        try:
            seat = session.seat_of(token)
        except Refused:
            abort(403, "unknown seat token: open the address play.py printed for your seat")
        return render_template("page.html", game=session.env.spec.name, seat=seat)

    @app.get("/api/<token>/state")
    def state(token):
        return jsonify(session.state(session.seat_of(token)))

    @app.post("/api/<token>/move")
    def move(token):
        seat = session.seat_of(token)
        data = body()
        if "index" not in data:
            raise Refused("the request names no move (index)")
        session.move(seat, data["index"], data.get("ply"))
        return jsonify(session.state(seat))

    @app.post("/api/<token>/new")
    def new_game(token):
        seat = session.seat_of(token)
        session.new_game()
        return jsonify(session.state(seat))

    @app.get("/api/<token>/record")
    def record(token):
        session.seat_of(token)
        response = jsonify(session.record())
        response.headers["Content-Disposition"] = f'attachment; filename="{session.env.spec.name}-record.json"'
        return response

    @app.post("/api/<token>/replay")
    def load_replay(token):
        seat = session.seat_of(token)
        return jsonify(session.load_replay(seat, body().get("record")))

    @app.get("/api/<token>/replay")
    def replay_position(token):
        seat = session.seat_of(token)
        try:
            position = int(request.args.get("position", "0"))
            view_seat = int(request.args.get("seat", str(seat)))
        except ValueError:
            raise Refused("position and seat are whole numbers") from None
        return jsonify(session.replay_position(seat, position, view_seat))

    return app


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code="-", size="-") -> None:
        """No line per request: the terminal keeps the seats' addresses in view (errors are still logged)."""


class Server:
    """The app served on ``host:port`` (0: a free port) in a background thread; ``urls`` per human seat."""

    def __init__(self, session: GameSession, host: str = "127.0.0.1", port: int = 0):
        self.session = session
        self._server = make_server(host, port, create_app(session), threaded=True,
                                   request_handler=_QuietHandler)
        self.host, self.port = host, self._server.server_port
        self._thread: threading.Thread | None = None

    def url(self, seat: int) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/play/{self.session.token_of(seat)}"

    def start(self) -> "Server":
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        self._server.shutdown()
        if self._thread is not None:
            self._thread.join()


def run_web(args) -> int:
    """``play.py --web``: serve the game until interrupted."""
    session = GameSession(args, args.seat)
    if args.host not in LOCAL_HOSTS:
        print(f"warning: serving on {args.host}: anyone who can reach it and has a seat's address plays that "
              "seat, over plain HTTP", file=sys.stderr)
    server = Server(session, args.host, args.port)
    print(f"{session.env.spec.name}, {session.env.num_players} players; open in the browser:")
    for seat in session.human_seats:
        print(f"  seat {seat}: {server.url(seat)}")
    print("Ctrl-C stops the server.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0
