"""Complete moves: a game's moves as its rulebook states them, each a chain of the game's flat decisions.

The flat encoding splits a compound move into small decisions (Kingsburg: the dice of a placement, then its
modifiers). A game's ``MoveGrain`` says which chains of flat decisions make one complete move and how a move is
described by a few *parts* (the heads of the factored encoding, the features of the pointer encoding, the digits
of the composite index). Every encoding other than ``flat`` plays complete moves through the flat codec, so the
rules never see an encoding and every encoding plays the same game.

``legal_moves`` lists the complete moves open to the seat to act, exactly: it follows every chain of flat
decisions on clones of the engine. A chain is a complete move when the grain says so, when another seat is to act
or the game is over, or when its last decision drew on the engine's random generator (a die, a shuffle): what
chance decides is not known when a move is chosen, so no move reaches past it. That check is a safety net: an
engine may draw its chance ahead (a deck shuffled at the start, dice rolled in batches), so the grain itself ends
a move wherever chance or hidden information comes in.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass



@dataclass(frozen=True)
class MovePart:
    """One part of a complete move (a head of the factored encoding): its name and number of values."""

    name: str
    size: int


class MoveGrainError(RuntimeError):
    """A grain that contradicts its own declaration (a move longer than ``max_length``, two moves with one
    description): a bug in the game's grain, never a player's mistake."""


class MoveGrain(abc.ABC):
    """Where a game's complete moves begin and end, and how each is described.

    By default a move's parts are its flat decisions in order, padded with a "none" value up to
    ``max_length``; a game may describe its moves with fewer, smaller parts (``parts`` and ``parts_of``).
    """

    #: the most flat decisions one complete move takes
    max_length: int = 1
    #: the most legal moves the pointer encoding lists (more are cut, see envs/core/encodings.py)
    pointer_rows: int = 64

    def __init__(self, flat):
        self.flat = flat  # the game's flat codec

    def may_continue(self, engine, index: int) -> bool:
        """Whether the flat decision ``index``, legal in ``engine``, can be followed by more of the same move: when
        False, the move ends with it (``legal_moves`` takes it as a whole move without playing it on a clone;
        ``play_move`` and ``split_moves`` end the move there too, whatever ``continues`` would say after it)."""
        return True

    def may_follow(self, engine, chain: tuple[int, ...], index: int) -> bool:
        """Whether the flat decision ``index``, legal in ``engine`` after the move begun with ``chain``, is listed
        as its next decision. A move that is a set of decisions taken in any order (cards to discard) is listed
        once, in one order: the grain refuses the other orders here, and its ``parts_of`` gives every order of
        the set the same parts, so a move played in another order (by the flat encoding) is the same move."""
        return True

    @abc.abstractmethod
    def continues(self, engine, chain: tuple[int, ...]) -> bool:
        """Whether the flat decisions ``chain``, just applied to ``engine`` and followed by another decision of
        the same seat, are only the first part of one move."""

    def parts(self) -> tuple[MovePart, ...]:
        none = self.flat.num_actions
        return tuple(MovePart(f"decision {i + 1}", none + 1) for i in range(self.max_length))

    def parts_of(self, chain: tuple[int, ...]) -> tuple[int, ...]:
        """The parts of the complete move ``chain``; two moves never share them."""
        none = self.flat.num_actions
        return tuple(chain) + (none,) * (self.max_length - len(chain))

    def part_value_name(self, part: int, value: int) -> str:
        """The readable name of one value of one part (for the names of composite actions)."""
        if value == self.flat.num_actions:
            return ""
        return self.flat.action_name(value)


def _chance_state(engine):
    return engine.rng.bit_generator.state


def legal_moves(engine, grain: MoveGrain) -> dict[tuple[int, ...], tuple[int, ...]]:
    """The complete moves open to the seat to act: parts -> the chain of flat decisions, ordered by parts."""
    flat = grain.flat
    seat = engine.current_player
    found: dict[tuple[int, ...], tuple[int, ...]] = {}
    pending = [(engine, ())]
    while pending:
        state, chain = pending.pop()
        before = _chance_state(state)
        indices = flat.legal_actions(state)
        last = len(indices) - 1
        for i, index in enumerate(indices):
            if chain and not grain.may_follow(state, chain, index):
                continue
            step = chain + (index,)
            if not grain.may_continue(state, index):
                _record(found, grain, step)
                continue
            # a clone made here is not looked at after its last decision: that decision is played on it
            after = state if chain and i == last else state.clone()
            flat.apply_legal(after, index)
            if _goes_on(after, seat, before, grain, step):
                if len(step) >= grain.max_length:
                    raise MoveGrainError(f"{type(grain).__name__}: a move goes on past max_length="
                                         f"{grain.max_length} decisions: {step}")
                pending.append((after, step))
                continue
            _record(found, grain, step)
    return dict(sorted(found.items()))


def _goes_on(engine, seat: int, chance_before, grain: MoveGrain, chain: tuple[int, ...]) -> bool:
    """Whether the move ``chain``, just played on ``engine``, goes on: the same seat still acts, nothing was left
    to chance since ``chance_before`` and the grain says it continues."""
    return (not engine.is_over and engine.current_player == seat and _chance_state(engine) == chance_before
            and grain.continues(engine, chain))


def _record(found: dict, grain: MoveGrain, chain: tuple[int, ...]) -> None:
    parts = grain.parts_of(chain)
    if parts in found:
        raise MoveGrainError(f"{type(grain).__name__}: moves {found[parts]} and {chain} share the parts {parts}")
    found[parts] = chain


def play_move(engine, grain: MoveGrain, choose) -> tuple[int, ...]:
    """Play one complete move on ``engine`` (a copy: it is changed), each flat decision ``choose(engine)``, and
    return its chain: the move ``legal_moves`` lists under the same decisions."""
    flat = grain.flat
    seat = engine.current_player
    chain: tuple[int, ...] = ()
    while True:
        before = _chance_state(engine)
        index = choose(engine)
        last = not grain.may_continue(engine, index)  # as legal_moves ends a move there
        flat.apply(engine, index)
        chain += (index,)
        if last or not _goes_on(engine, seat, before, grain, chain):
            return chain


def split_moves(engine, grain: MoveGrain, decisions) -> list[tuple[int, ...]]:
    """The complete moves of a game played in flat decisions from ``engine`` (which is left untouched), in
    order: each has the parts of a move ``legal_moves`` offers (its chain may take a set of decisions in another
    order, see ``MoveGrain.may_follow``). For the tests that replay a flat game in another encoding."""
    engine = engine.clone()
    flat = grain.flat
    moves: list[tuple[int, ...]] = []
    chain: tuple[int, ...] = ()
    seat = engine.current_player
    for index in decisions:
        if not chain:
            seat = engine.current_player
        before = _chance_state(engine)
        last = not grain.may_continue(engine, index)
        flat.apply(engine, index)
        chain += (index,)
        if last or not _goes_on(engine, seat, before, grain, chain):
            moves.append(chain)
            chain = ()
    if chain:
        moves.append(chain)  # the game was cut inside a move
    return moves
