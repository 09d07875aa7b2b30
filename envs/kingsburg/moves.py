"""Kingsburg's complete moves (envs/core/moves.py): a placement is one move, its dice and its modifiers.

Step b of a productive season, influencing the advisors (spec 5.3; decisions D5 and D6 of spec 10.2): a seat
places dice on an advisor and may add its +2 token, the Market's shift and the envoy to their sum, all as one
placement. The flat encoding takes it in two
decisions, ``DICE(...)`` and then ``MODIFIERS(...)`` (when more than one way of modifying is legal); every other
decision is a move of its own. The grain: a placement's ``DICE`` decision and its ``MODIFIERS``; the parts of a
move are its first flat decision (162 values) and its modifiers (12 values, or none).
"""
from __future__ import annotations

from ..core.moves import MovePart, MoveGrain
from .engine import Decision

NUM_MODIFIERS = 12  # MODIFIERS(plus2, market, envoy): codec.py


class KingsburgGrain(MoveGrain):
    max_length = 2
    pointer_rows = 128  # placements with modifiers: at most 12 per dice choice (benchmarks/encodings.py)

    def __init__(self, flat):
        super().__init__(flat)
        self._first_modifiers = flat.index("MODIFIERS(plus2=0,market=-1,envoy=0)")
        self._first_dice = flat.index("DICE(P0)")

    def may_continue(self, engine, index: int) -> bool:
        return engine.decision == Decision.DICE and index >= self._first_dice  # dice (not a pass): modifiers may follow

    def continues(self, engine, chain: tuple[int, ...]) -> bool:
        return engine.decision == Decision.MODIFIERS  # the dice are chosen; their modifiers follow

    def parts(self) -> tuple[MovePart, ...]:
        return MovePart("decision", self.flat.num_actions), MovePart("modifiers", NUM_MODIFIERS + 1)

    def parts_of(self, chain: tuple[int, ...]) -> tuple[int, ...]:
        if len(chain) == 1:
            return chain[0], NUM_MODIFIERS
        return chain[0], chain[1] - self._first_modifiers

    def part_value_name(self, part: int, value: int) -> str:
        if part == 0:
            return self.flat.action_name(value)
        return "" if value == NUM_MODIFIERS else self.flat.action_name(self._first_modifiers + value)
