"""One game served to the browser: human seats, each behind a secret token, and agents in the other seats.

Everything a seat's page gets comes from ``GameSession.state(seat)`` and ``replay_position``: that seat's view
and picture, its legal moves when it is to act, and the log as that seat may read it (``MoveVisibility``). The
record (seed and every seat's moves) is offered only once the game is over: during the game it would tell the
other seats' hidden cards. A request for a seat that is not to act, or with a move that is not legal, raises
``Refused`` and changes nothing.
"""
from __future__ import annotations

import random
import secrets
import threading

import play
from envs.core import records
from envs.core.errors import TabletopError

from envs.core.visibility import MoveVisibility


class Refused(Exception):
    """A request the game cannot carry out; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _action(value):
    """A move as JSON gives it back: an index, or a list of part values in a factored encoding."""
    if isinstance(value, bool):
        raise Refused(f"no move {value!r}: a move is the index shown with its button")
    if isinstance(value, int):
        return value
    if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    raise Refused(f"no move {value!r}: a move is the index shown with its button")


def _json_action(index):
    return list(index) if isinstance(index, tuple) else int(index)


class GameSession:
    """The game of ``args`` (play.py's options) with people at ``human_seats``; thread-safe."""

    def __init__(self, args, human_seats: list[int]):
        self.env, self.opponents, self.labels, seed = play.new_game(args, human_seats)
        self.human_seats = list(human_seats)
        self.tokens = {secrets.token_urlsafe(24): seat for seat in self.human_seats}
        self._visibility = MoveVisibility(self.env)
        self._lock = threading.Lock()
        self._replays: dict[int, records.Replay] = {}
        self._start(seed)

    # -- seats -----------------------------------------------------------------------------------
    def seat_of(self, token: str) -> int:
        for known, seat in self.tokens.items():
            if secrets.compare_digest(known, token):
                return seat
        raise Refused("unknown seat token: open the address play.py printed for your seat", 403)

    def token_of(self, seat: int) -> str:
        return next(token for token, s in self.tokens.items() if s == seat)

    # -- playing ---------------------------------------------------------------------------------
    def _start(self, seed: int) -> None:
        self.seed = seed
        play.start_game(self.env, self.opponents, seed)
        self._log: list[tuple[int, str, set[int]]] = []  # (seat, move name, human seats it is hidden from)
        self._play_opponents()

    def new_game(self) -> None:
        with self._lock:
            self._start(random.SystemRandom().randrange(2**31))

    def _to_move(self) -> int | None:
        return None if self.env._final is not None else self.env.possible_agents.index(self.env.agent_selection)

    def _step(self, index) -> None:
        env = self.env
        seat = self._to_move()
        hidden = self._visibility.hidden_from(env, index, self.human_seats)
        env.step(index)
        self._log.append((seat, env.action_name(index), hidden))

    def _play_opponents(self) -> None:
        while (seat := self._to_move()) is not None and seat not in self.human_seats:
            self._step(play.opponent_move(self.env, self.opponents[seat]))

    def move(self, seat: int, value, ply) -> None:
        """Play ``value`` (a move index) for ``seat`` in the position after ``ply`` moves, then the opponents'
        moves up to the next human decision."""
        with self._lock:
            if self.env._final is not None:
                raise Refused("the game is over: start a new game", 409)
            if isinstance(ply, bool) or not isinstance(ply, int):
                raise Refused("the request needs ply: the number of moves played when the page was drawn")
            if ply != len(self.env._moves):
                raise Refused("the position has changed since this page was drawn; it is drawn again", 409)
            to_move = self._to_move()
            if to_move != seat:
                raise Refused(f"not your turn: seat {to_move} ({self.labels[to_move]}) is to act", 409)
            index = _action(value)
            legal = self.env.legal_actions()
            if index not in legal:
                raise Refused(f"move {value!r} is not legal for seat {seat} now; choose one of the buttons")
            self._step(index)
            self._play_opponents()

    # -- what a seat is shown --------------------------------------------------------------------
    def _log_line(self, viewer: int, seat: int, name: str, hidden: set[int]) -> str:
        who = f"seat {seat} (you)" if seat == viewer else f"seat {seat} ({self.labels[seat]})"
        return f"{who}: {play.HIDDEN_CHOICE if viewer in hidden else name}"

    def state(self, seat: int) -> dict:
        with self._lock:
            env = self.env
            over = env._final is not None
            to_move = self._to_move()
            mine = to_move == seat
            return {
                "game": env.spec.name,
                "num_players": env.num_players,
                "seat": seat,
                "labels": self.labels,
                "ply": len(env._moves),
                "to_move": to_move,
                "your_turn": mine,
                "over": over,
                "picture": env.seat_picture(seat),
                "view": env.seat_view(seat),
                "moves": [{"index": _json_action(i), "name": env.action_name(i)} for i in env.legal_actions()]
                if mine else [],
                "log": [self._log_line(seat, s, name, hidden) for s, name, hidden in self._log],
                # the seed decides every hidden card: told with the result
                "result": f"{play.result_text(env, self.labels)} (seed {self.seed})" if over else None,
                "scores": [float(s) for s in env._final["scores"]] if over else None,
            }

    def record(self) -> dict:
        with self._lock:
            if self.env._final is None:
                raise Refused("the record is offered when the game is over: it holds the seed and every seat's "
                              "moves, which would show the other seats' hidden cards", 409)
            return self.env.record(self.labels)

    # -- replaying -------------------------------------------------------------------------------
    def load_replay(self, seat: int, record: dict | None) -> dict:
        """Step through ``record`` (None: the game just played, once it is over) on ``seat``'s page."""
        if record is None:
            record = self.record()
        try:
            replay = records.Replay(record)
        except (TabletopError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise Refused(f"this record cannot be replayed: {exc}") from None
        with self._lock:
            self._replays[seat] = replay
        return self.replay_position(seat, 0, seat)

    def replay_position(self, seat: int, position, view_seat) -> dict:
        with self._lock:
            replay = self._replays.get(seat)
            if replay is None:
                raise Refused("no record loaded for replay", 409)
            n = replay.env.num_players
            if isinstance(view_seat, bool) or not isinstance(view_seat, int) or not 0 <= view_seat < n:
                raise Refused(f"no seat {view_seat!r}: seats are 0..{n - 1}")
            try:
                replay.goto(position)
            except ValueError as exc:
                raise Refused(str(exc)) from None
            record, env = replay.record, replay.env
            labels = [label or f"seat {s}" for s, label in enumerate(record["agents"])]
            move = replay.last_move()
            at_end = replay.position == len(replay)
            return {
                "game": record["game"],
                "num_players": n,
                "labels": labels,
                "position": replay.position,
                "length": len(replay),
                "view_seat": view_seat,
                "move": (f"seat {move['seat']} ({labels[move['seat']]}) played {move['name']}" if move
                         else "the start"),
                "picture": env.seat_picture(view_seat),
                "view": env.seat_view(view_seat),
                "result": play.result_text(env, labels) if at_end else None,
            }
