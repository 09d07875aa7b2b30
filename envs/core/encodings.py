"""The action encodings every game gets from its flat codec and its grain of complete moves (envs/core/moves.py).

``move_encodings(flat_codec, grain)`` returns the codec classes a game registers after ``flat``:

* ``composite`` — ``Discrete(prod(part sizes))``: one index per complete move, its parts as the digits of the
  index (``numpy.ravel_multi_index``); the legal indices are the legal moves, exactly.
* ``factored`` — ``MultiDiscrete(part sizes)`` with an exact conditional mask: a move is chosen part by part over
  as many steps, each step's mask allowing only the values of its part that some legal move has after the parts
  already chosen (those are shown in the observation entry ``substep``; the other parts' masks allow one value,
  which is ignored). A part with one possible value is filled in without a step; a move that is the only legal
  one still takes one step.
* ``factored_independent`` — ``MultiDiscrete(part sizes)``, one step per move, each part's mask allowing every
  value some legal move has. A combination of allowed values that is no legal move plays the legal move that
  agrees with it on the longest run of leading parts (the first such move in parts order): the rule a policy
  meets when per-part masks cannot exclude every illegal combination.
* ``pointer`` — ``Discrete(K)``, K = the grain's ``pointer_rows``: the observation entry ``moves`` lists up to K
  legal moves, in parts order, one row each holding the move's part values plus one (0 in the rows without a
  move), and the action picks a row. When more than K moves are legal, only the first K are offered
  (``benchmarks/encodings.py`` counts how often).

Every encoding plays a move by applying its chain of flat decisions, so all of them play the same game.
The codec keeps the legal moves of the state it last looked at; it looks again after playing a move and when
the engine's turn, seat to act, flat legal actions or change log (where the game has one) differ.
"""
from __future__ import annotations

import abc
import math
import sys

import numpy as np
from gymnasium import spaces

from .codec import ActionCodec
from .errors import ConfigError, IllegalActionError
from .moves import MoveGrain, legal_moves

#: the largest composite index space built (its action mask is allocated at every step)
COMPOSITE_LIMIT = 1 << 22


class MaskedMultiDiscrete(spaces.MultiDiscrete):
    """``MultiDiscrete`` whose ``sample`` also takes the heads' masks one after the other in one int8 vector, the
    form of the observation's ``action_mask`` (which PettingZoo's api_test and sb3-contrib's MaskablePPO use)."""

    def sample(self, mask=None, probability=None):
        if isinstance(mask, np.ndarray) and mask.ndim == 1 and mask.size == int(self.nvec.sum()):
            mask = tuple(np.split(mask.astype(np.int8), np.cumsum(self.nvec)[:-1]))
        return super().sample(mask, probability)

    def sample_with(self, rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
        """A uniform allowed value per head, drawn from ``rng``; a head that allows nothing takes 0, as in ``sample``.
        ``sample`` draws from the space's own generator, which only ``seed()`` seeds: random play that must
        repeat draws from its own seeded generator here."""
        heads = np.split(np.asarray(mask) != 0, np.cumsum(self.nvec)[:-1])
        values = [int(rng.choice(allowed)) if (allowed := np.flatnonzero(head)).size else 0 for head in heads]
        return np.asarray(values, dtype=self.dtype)


class MoveCodec(ActionCodec):
    """Base of the encodings that play complete moves through the game's flat codec."""

    flat_codec: type[ActionCodec]
    grain: type[MoveGrain]

    def __init__(self, config, num_players: int):
        self.flat = self.flat_codec(config, num_players)
        self.moves_of = self.grain(self.flat)
        self.parts = self.moves_of.parts()
        self.nvec = tuple(part.size for part in self.parts)
        self._seen = None  # (engine, state key, its legal moves)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_seen"] = None  # holds an engine
        return state

    def reset(self) -> None:
        self._seen = None

    # -- the legal moves ------------------------------------------------------------------------------
    def legal_moves(self, engine) -> dict[tuple[int, ...], tuple[int, ...]]:
        """The legal complete moves, parts -> chain of flat decisions, in parts order."""
        key = (engine.turn, engine.current_player, getattr(engine, "moves", None),
               tuple(self.flat.legal_actions(engine)))
        seen = self._seen
        if seen is not None and seen[0] is engine and seen[1] == key:
            return seen[2]
        moves = legal_moves(engine, self.moves_of)
        self._seen = (engine, key, moves)
        return moves

    def play(self, engine, chain: tuple[int, ...]) -> None:
        self._seen = None
        for index in chain:
            self.flat.apply_legal(engine, index)

    def move_name(self, chain: tuple[int, ...]) -> str:
        return " + ".join(self.flat.action_name(index) for index in chain)

    def parts_name(self, parts) -> str:
        names = (self.moves_of.part_value_name(part, int(value)) for part, value in enumerate(parts))
        return " + ".join(name for name in names if name) or "(none)"


class CompositeCodec(MoveCodec):
    name = "composite"

    def __init__(self, config, num_players: int):
        super().__init__(config, num_players)
        self.num_actions = math.prod(self.nvec)
        if self.num_actions > COMPOSITE_LIMIT:
            raise ConfigError(f"{self.moves_of.__class__.__name__}: {self.num_actions:,} composite actions, more "
                              f"than the {COMPOSITE_LIMIT:,} this encoding builds; describe moves by smaller parts")
        self._strides = tuple(math.prod(self.nvec[p + 1:]) for p in range(len(self.nvec)))

    def _index(self, parts) -> int:
        return sum(value * stride for value, stride in zip(parts, self._strides))

    def action_name(self, index: int) -> str:
        return self.parts_name(np.unravel_index(index, self.nvec))

    def legal_actions(self, engine) -> list[int]:
        return [self._index(parts) for parts in self.legal_moves(engine)]

    def decode(self, engine, index: int) -> tuple[int, ...]:
        parts = tuple(int(v) for v in np.unravel_index(index, self.nvec))
        return self.legal_moves(engine)[parts]

    def encode(self, engine, move: tuple[int, ...]) -> int:
        return self._index(self.moves_of.parts_of(tuple(move)))

    def apply_legal(self, engine, index: int) -> None:
        self.play(engine, self.decode(engine, index))


class PointerCodec(MoveCodec):
    name = "pointer"

    def __init__(self, config, num_players: int):
        super().__init__(config, num_players)
        self.num_actions = self.moves_of.pointer_rows
        # part values plus one, so that the zeros other seats see (and the rows past the legal moves hold) are no move
        highest = np.broadcast_to(np.asarray(self.nvec, np.float32), (self.num_actions, len(self.nvec)))
        self.observation_extras = {"moves": spaces.Box(0.0, highest, (self.num_actions, len(self.nvec)), np.float32)}

    def rows(self, engine) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The offered moves, (parts, chain) per row: the first ``num_actions`` legal moves in parts order."""
        return list(self.legal_moves(engine).items())[:self.num_actions]

    def action_name(self, index: int) -> str:
        return f"ROW({index})"

    def legal_actions(self, engine) -> list[int]:
        return list(range(min(len(self.legal_moves(engine)), self.num_actions)))

    def decode(self, engine, index: int) -> tuple[int, ...]:
        return self.rows(engine)[index][1]

    def encode(self, engine, move: tuple[int, ...]) -> int:
        parts = self.moves_of.parts_of(tuple(move))
        for row, (offered, _) in enumerate(self.rows(engine)):
            if offered == parts:
                return row
        raise IllegalActionError(f"move {self.move_name(tuple(move))} is not offered now")

    def apply_legal(self, engine, index: int) -> None:
        self.play(engine, self.decode(engine, index))

    def extras(self, engine, seat: int) -> dict:
        table = np.zeros((self.num_actions, len(self.nvec)), np.float32)
        rows = self.rows(engine)
        if rows:
            table[:len(rows)] = np.asarray([parts for parts, _ in rows], np.float32) + 1.0
        return {"moves": table}


class _MultiDiscreteCodec(MoveCodec):
    """An action is a vector of part values (the contract's ``index`` is that vector)."""

    discrete = False

    def __init__(self, config, num_players: int):
        super().__init__(config, num_players)
        self.num_actions = math.prod(self.nvec)  # the number of value combinations

    @property
    def action_space(self) -> spaces.Space:
        return MaskedMultiDiscrete(self.nvec)

    @property
    def mask_size(self) -> int:
        return sum(self.nvec)

    def action_name(self, action) -> str:
        return self.parts_name(action)

    @abc.abstractmethod
    def _head_masks(self, engine) -> list[np.ndarray]:
        """The int8 mask of each part's values, in part order."""

    def action_mask(self, engine) -> np.ndarray:
        return np.concatenate(self._head_masks(engine))

    def check(self, engine, action, legal=None):
        try:
            values = tuple(int(v) for v in action)
        except (TypeError, ValueError):
            raise IllegalActionError(f"action {action!r} is not a sequence of {len(self.nvec)} part values") from None
        if len(values) != len(self.nvec):
            raise IllegalActionError(f"action {action!r} has {len(values)} parts; this encoding has "
                                     f"{len(self.nvec)}: {[part.name for part in self.parts]}")
        if engine.is_over:
            raise IllegalActionError(f"action {values}: the game is over")
        for part, (value, mask) in enumerate(zip(values, self._head_masks(engine))):
            if not 0 <= value < len(mask) or not mask[value]:
                allowed = [int(v) for v in np.flatnonzero(mask)]
                raise IllegalActionError(f"action {values}: value {value} of part {self.parts[part].name!r} is "
                                         f"illegal for seat {engine.current_player} now; allowed: {allowed}")
        return values


class FactoredCodec(_MultiDiscreteCodec):
    """Exact conditional masks: one part per step (see the module's docstring)."""

    name = "factored"

    def __init__(self, config, num_players: int):
        super().__init__(config, num_players)
        self._chosen: tuple[int, ...] = ()  # the parts chosen by earlier steps of the move in progress
        self._chosen_for = None  # the legal moves they were chosen from
        self.observation_extras = {"substep": spaces.Box(0.0, 1.0, (len(self.nvec) + sum(self.nvec),),
                                                         np.float32)}
        self._offsets = np.cumsum((0,) + self.nvec[:-1])

    def reset(self) -> None:
        super().reset()
        self._chosen, self._chosen_for = (), None

    def _progress(self, engine) -> tuple[tuple[int, ...], int, list]:
        """The parts chosen so far (forced ones filled in), the part to choose now and the moves left."""
        moves = self.legal_moves(engine)
        # equal, not only the same: a copy of the env (copy.deepcopy, pickle) lists its moves afresh
        chosen = self._chosen if self._chosen_for is moves or self._chosen_for == moves else ()
        left = [parts for parts in moves if parts[:len(chosen)] == chosen]
        last = len(self.nvec) - 1
        while len(chosen) < last and len({parts[len(chosen)] for parts in left}) == 1:
            chosen += (left[0][len(chosen)],)
        return chosen, len(chosen), left

    def _head_masks(self, engine) -> list[np.ndarray]:
        chosen, part, left = self._progress(engine)
        masks = [np.zeros(size, np.int8) for size in self.nvec]
        for p, value in enumerate(chosen):
            masks[p][value] = 1
        for parts in left:
            masks[part][parts[part]] = 1
        for p in range(part + 1, len(self.nvec)):
            masks[p][0] = 1  # not chosen at this step: one value, ignored
        return masks

    def legal_actions(self, engine) -> list[tuple[int, ...]]:
        chosen, part, left = self._progress(engine)
        rest = (0,) * (len(self.nvec) - part - 1)
        return sorted({chosen + (parts[part],) + rest for parts in left})

    def step_toward(self, engine, parts: tuple[int, ...]) -> tuple[int, ...]:
        """The action of this step that leads to the legal move with ``parts``."""
        _, part, _ = self._progress(engine)
        return tuple(parts[:part + 1]) + (0,) * (len(self.nvec) - part - 1)

    def in_progress(self) -> bool:
        """Whether a move's first parts are chosen and its next part is to come."""
        return bool(self._chosen)

    def decode(self, engine, index) -> tuple[int, ...]:
        """The parts chosen once the action ``index`` is taken (the whole move's parts when it completes it)."""
        chosen, part, _ = self._progress(engine)
        return chosen + (int(index[part]),)

    def encode(self, engine, move) -> tuple[int, ...]:
        return self.step_toward(engine, move)

    def apply_legal(self, engine, index) -> None:
        moves = self.legal_moves(engine)
        chosen, part, left = self._progress(engine)
        chosen += (int(index[part]),)
        left = [parts for parts in left if parts[:len(chosen)] == chosen]
        while len(chosen) < len(self.nvec) and len({parts[len(chosen)] for parts in left}) == 1:
            chosen += (left[0][len(chosen)],)
        if len(chosen) == len(self.nvec):
            self._chosen, self._chosen_for = (), None
            self.play(engine, moves[chosen])
        else:
            self._chosen, self._chosen_for = chosen, moves

    def extras(self, engine, seat: int) -> dict:
        chosen, part, _ = self._progress(engine)
        vector = np.zeros(len(self.nvec) + sum(self.nvec), np.float32)
        vector[part] = 1.0
        for p, value in enumerate(chosen):
            vector[len(self.nvec) + self._offsets[p] + value] = 1.0
        return {"substep": vector}


class FactoredIndependentCodec(_MultiDiscreteCodec):
    """Independent per-part masks: one step per move; an illegal combination plays the nearest legal move."""

    name = "factored_independent"

    def _head_masks(self, engine) -> list[np.ndarray]:
        masks = [np.zeros(size, np.int8) for size in self.nvec]
        for parts in self.legal_moves(engine):
            for mask, value in zip(masks, parts):
                mask[value] = 1
        return masks

    def legal_actions(self, engine) -> list[tuple[int, ...]]:
        """The combinations that are legal moves (every other combination of allowed values is mapped)."""
        return list(self.legal_moves(engine))

    def nearest(self, engine, action) -> tuple[int, ...]:
        """The legal move an action plays: itself when legal, else the first legal move (in parts order) that
        agrees with it on the longest run of leading parts."""
        moves = self.legal_moves(engine)
        action = tuple(int(v) for v in action)
        if action in moves:
            return action

        def agreement(parts):
            run = 0
            while run < len(parts) and parts[run] == action[run]:
                run += 1
            return run

        return max(moves, key=agreement)  # max keeps the first of equals: the first in parts order

    def decode(self, engine, index) -> tuple[int, ...]:
        return self.legal_moves(engine)[self.nearest(engine, index)]

    def encode(self, engine, move) -> tuple[int, ...]:
        return self.moves_of.parts_of(tuple(move))

    def apply_legal(self, engine, index) -> None:
        self.play(engine, self.decode(engine, index))


def move_encodings(flat_codec: type[ActionCodec], grain: type[MoveGrain]) -> tuple[type[ActionCodec], ...]:
    """The codec classes of the move encodings of a game, to register after its flat codec. Each is also set on
    the grain's module under its name (e.g. ``KingsburgCompositeCodec``), where pickle looks for a class."""
    made = []
    module = sys.modules[grain.__module__]
    for base in (CompositeCodec, FactoredCodec, FactoredIndependentCodec, PointerCodec):
        name = f"{grain.__name__.removesuffix('Grain')}{base.__name__}"
        codec = type(name, (base,), {"flat_codec": flat_codec, "grain": grain, "__module__": grain.__module__})
        setattr(module, name, codec)
        made.append(codec)
    return tuple(made)
