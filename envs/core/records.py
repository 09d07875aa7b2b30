"""Game records: one game as JSON (its settings, seed and moves), replayed and checked on load.

A record is what ``env.record(agents)`` returns: a JSON object with

- ``format`` (``"tabletop-gym-record"``) and ``format_version`` (``FORMAT_VERSION``);
- ``package_version`` (tabletop-gym's version that played it), ``game``, ``env`` (the versioned env name,
  e.g. ``kingsburg_v0``) and ``state_version`` (the game's ``GameSpec.state_version``);
- ``num_players``, ``max_turns``, ``action_encoding`` and ``rule_options`` (every option of the game's config);
- ``seed``: the ``reset(seed=...)`` of the game, or null with ``rng_state`` (the numpy generator's state at the
  reset) when the game was reset without a seed and continued the env's stream;
- ``agents``: one label per seat (null when not given);
- ``moves``: every decision in order, ``{"index": i, "name": action name, "seat": s}`` (in a factored encoding
  the index is the list of the action's part values);
- ``result``: null while the game is unfinished; else ``outcome`` (``win``, ``shared_win``, ``truncated``),
  ``winners``, ``scores``, ``rewards``, ``turns``, and ``final_state_sha256``, a hash of every seat's final
  observation and action mask.

The engine draws every chance event from the generator seeded at reset, so the seed and the moves decide the
whole game. ``load_record`` / ``check_record`` replay a record through the env and refuse it with a
``RecordError`` naming the first difference: a move that is not legal or not the recorded seat's, a name that is
not the index's, moves after the end, or an end (scores, rewards, outcome, final state) other than the recorded
one. A record made by another version of the rules fails in one of these ways; the error names both versions.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os

from .errors import ConfigError, IllegalActionError, TabletopError

FORMAT = "tabletop-gym-record"
FORMAT_VERSION = 1


class RecordError(TabletopError, ValueError):
    """A record that cannot be read, or that does not replay to the game it records."""


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tabletop-gym")
    except PackageNotFoundError:
        return "unknown"


def state_digest(env) -> str:
    """sha256 of every seat's observation and action mask: the state as all agents see it."""
    digest = hashlib.sha256()
    for agent in env.possible_agents:
        obs = env.observe(agent)
        digest.update(obs["observation"].tobytes())
        digest.update(obs["action_mask"].tobytes())
    return digest.hexdigest()


def _result(env) -> dict | None:
    final = env._final
    if final is None:
        return None
    return {
        "outcome": final["outcome"],
        "winners": [int(seat) for seat in final["winners"]],
        "scores": [float(s) if isinstance(s, float) else int(s) for s in final["scores"]],
        "rewards": [float(r) for r in final["rewards"]],
        "turns": int(final["turns"]),
        "final_state_sha256": state_digest(env),
    }


def game_record(env, agents: list[str | None] | None = None) -> dict:
    """The record of the game ``env`` (a ``TabletopEnv``) is playing; see the module docstring."""
    n = env.num_players
    if agents is None:
        agents = [None] * n
    agents = list(agents)
    if len(agents) != n:
        raise ValueError(f"agents: one label per seat ({n}), got {len(agents)}")
    spec = env.spec
    record = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "package_version": package_version(),
        "game": spec.name,
        "env": spec.env_name,
        "state_version": spec.state_version,
        "num_players": n,
        "max_turns": env.max_turns,
        "action_encoding": env.action_encoding,
        "rule_options": _to_json(dataclasses.asdict(env.config)),
        "seed": env._start["seed"],
        "agents": [None if a is None else str(a) for a in agents],
        "moves": [{"index": list(index) if isinstance(index, tuple) else index, "name": env.action_name(index),
                   "seat": seat} for seat, index in env._moves],
        "result": _result(env),
    }
    if env._start["seed"] is None:
        record["rng_state"] = _to_json(env._start["rng_state"])
    return record


def _to_json(value):
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    return value


def _options_from_json(value):
    """Rule options hold tuples (configs are frozen); JSON gives lists back."""
    if isinstance(value, list):
        return tuple(_options_from_json(v) for v in value)
    return value


# -- files ------------------------------------------------------------------------------------------
def save_record(record: dict, path: str | os.PathLike) -> None:
    path = os.fspath(path)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(dumps_record(record))


def dumps_record(record: dict) -> str:
    """The record as JSON text, one move a line (a long game stays readable)."""
    marker = "\x00moves\x00"
    text = json.dumps({**record, "moves": marker}, indent=1)
    moves = ",\n  ".join(json.dumps(move) for move in record["moves"])
    return text.replace(json.dumps(marker), f"[\n  {moves}\n ]" if moves else "[]") + "\n"


def read_record(path: str | os.PathLike) -> dict:
    """The JSON of a record file, unchecked (``load_record`` checks it)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise RecordError(f"cannot read record {path!r}: {exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"record {path!r} is not JSON: {exc}") from exc


def load_record(path: str | os.PathLike) -> dict:
    """Read a record file and check that it replays to the game it records (``check_record``)."""
    record = read_record(path)
    try:
        check_record(record)
    except RecordError as exc:
        raise RecordError(f"record {os.fspath(path)!r}: {exc}") from None
    return record


# -- replay -----------------------------------------------------------------------------------------
_REQUIRED = {"game": str, "env": str, "num_players": int, "max_turns": int, "action_encoding": str,
             "rule_options": dict, "agents": list, "moves": list}


def _check_shape(record) -> None:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"not a game record (no \"format\": \"{FORMAT}\")")
    version = record.get("format_version")
    if version != FORMAT_VERSION:
        raise RecordError(f"record format version {version!r}; this tabletop-gym ({package_version()}) reads "
                          f"version {FORMAT_VERSION}")
    for key, kind in _REQUIRED.items():
        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool):
            raise RecordError(f"field {key!r} missing or not a {kind.__name__}")
    if "seed" not in record:
        raise RecordError("field 'seed' missing")
    if record["seed"] is None and not isinstance(record.get("rng_state"), dict):
        raise RecordError("field 'seed' is null and there is no 'rng_state'")
    if record["seed"] is not None and (isinstance(record["seed"], bool) or not isinstance(record["seed"], int)):
        raise RecordError(f"field 'seed' must be an integer or null, got {record['seed']!r}")
    for k, move in enumerate(record["moves"]):
        if (not isinstance(move, dict) or not _is_action(move.get("index"))
                or not isinstance(move.get("seat"), int) or not isinstance(move.get("name"), str)):
            raise RecordError(f"move {k + 1} must be {{\"index\": int (a list of ints in a factored encoding), "
                              f"\"name\": str, \"seat\": int}}, got {move!r}")


def _is_action(index) -> bool:
    """An index, or the list of part values of a factored encoding's action (docs/encodings.md)."""
    if isinstance(index, list):
        return bool(index) and all(_is_action(value) and not isinstance(value, list) for value in index)
    return isinstance(index, int) and not isinstance(index, bool)


def _versions(record) -> str:
    import envs

    spec = envs.spec(record["game"])
    return (f"recorded by tabletop-gym {record.get('package_version')} ({record['env']}, state_version "
            f"{record.get('state_version')}); this is {package_version()} ({spec.env_name}, state_version "
            f"{spec.state_version})")


def new_game(record: dict):
    """A ``TabletopEnv`` with the record's settings, reset as the recorded game was (no move played)."""
    import envs
    import numpy as np

    _check_shape(record)
    try:
        spec = envs.spec(record["game"])
    except ConfigError as exc:
        raise RecordError(str(exc)) from None
    if spec.env_name != record["env"]:
        raise RecordError(f"a record of {record['env']} cannot replay on {spec.env_name}: {_versions(record)}")
    options = {k: _options_from_json(v) for k, v in record["rule_options"].items()}
    try:
        env = envs.make(record["game"], num_players=record["num_players"], max_turns=record["max_turns"],
                        action_encoding=record["action_encoding"], **options)
    except ConfigError as exc:
        raise RecordError(f"its settings are not valid here: {exc}; {_versions(record)}") from None
    if record["seed"] is not None:
        env.reset(seed=record["seed"])
    else:
        generator = np.random.default_rng()
        try:
            generator.bit_generator.state = record["rng_state"]
        except (TypeError, ValueError, KeyError) as exc:
            raise RecordError(f"field 'rng_state' is not a numpy generator state: {exc}") from None
        env._rng = generator
        env.reset()
    if len(record["agents"]) != env.num_players:
        raise RecordError(f"{len(record['agents'])} agents for {env.num_players} seats")
    return env


def play_move(env, record: dict, number: int) -> None:
    """Play move ``number`` (1-based) of the record on ``env``, which holds the game after the moves before it;
    RecordError when it does not fit."""
    move = record["moves"][number - 1]
    index, seat = move["index"], move["seat"]
    agent = env.agent_selection
    if env._final is not None:
        raise RecordError(f"move {number} of {len(record['moves'])} comes after the game's end; {_versions(record)}")
    to_move = env.possible_agents.index(agent)
    if seat != to_move:
        raise RecordError(f"move {number}: recorded for seat {seat}, but seat {to_move} is to move; "
                          f"{_versions(record)}")
    try:
        name = env.action_name(index)
        env.step(index)
    except IllegalActionError as exc:
        raise RecordError(f"move {number} ({move['name']}, index {index}) does not replay: {exc}; "
                          f"{_versions(record)}") from None
    if name != move["name"]:
        raise RecordError(f"move {number}: index {index} is named {name!r} here, the record says "
                          f"{move['name']!r}; {_versions(record)}")


def check_end(env, record: dict) -> None:
    """RecordError unless ``env``, after every move of the record, ends as the record says."""
    replayed = _result(env)
    recorded = record.get("result")
    if recorded is None:
        if replayed is not None:
            raise RecordError(f"the game ends after its {len(record['moves'])} moves, but the record says it is "
                              f"unfinished; {_versions(record)}")
        return
    if not isinstance(recorded, dict):
        raise RecordError(f"field 'result' must be an object or null, got {recorded!r}")
    if replayed is None:
        raise RecordError(f"the record ends the game ({recorded.get('outcome')}) but its "
                          f"{len(record['moves'])} moves leave it unfinished; {_versions(record)}")
    for key in ("outcome", "winners", "scores", "rewards", "turns", "final_state_sha256"):
        if recorded.get(key) != replayed[key]:
            raise RecordError(f"the replay ends with {key} {replayed[key]!r}, the record says "
                              f"{recorded.get(key)!r}; {_versions(record)}")


def check_record(record: dict):
    """Replay ``record`` from its seed, checking every move and the end; returns the env at the end."""
    env = new_game(record)
    for number in range(1, len(record["moves"]) + 1):
        play_move(env, record, number)
    check_end(env, record)
    return env


class Replay:
    """A checked record to step through: ``position`` moves played (0 .. ``len(moves)``), ``env`` the game there.

    Going back replays from the nearest kept snapshot (one every ``SNAPSHOT_EVERY`` moves)."""

    SNAPSHOT_EVERY = 100

    def __init__(self, record: dict):
        import copy

        self._copy = copy.deepcopy
        self.record = record
        self.moves = record["moves"]
        self.env = new_game(record)
        self._snapshots = {0: self._copy(self.env)}
        for number in range(1, len(self.moves) + 1):  # checks the whole record before any navigation
            play_move(self.env, record, number)
            if number % self.SNAPSHOT_EVERY == 0:
                self._snapshots[number] = self._copy(self.env)
        check_end(self.env, record)
        self.position = len(self.moves)

    def __len__(self) -> int:
        return len(self.moves)

    def goto(self, position: int) -> None:
        """Show the game after ``position`` moves; ValueError (state unchanged) outside 0..len."""
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position <= len(self.moves):
            raise ValueError(f"no position {position!r}: positions are 0..{len(self.moves)}")
        if position < self.position:
            start = max(k for k in self._snapshots if k <= position)
            self.env = self._copy(self._snapshots[start])
            self.position = start
        while self.position < position:
            self.position += 1
            play_move(self.env, self.record, self.position)

    def last_move(self) -> dict | None:
        """The move that led to the current position (None at the start)."""
        return self.moves[self.position - 1] if self.position else None


__all__ = ["FORMAT", "FORMAT_VERSION", "RecordError", "Replay", "check_record", "game_record", "load_record",
           "dumps_record", "new_game", "read_record", "save_record", "state_digest"]
