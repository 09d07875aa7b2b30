"""Flat action layout (spec 13.2, adapted): ``Discrete(285)`` for every player count and option.

Cells are indexed on a 7 x 7 grid, ``cell = row * 7 + col`` (r1c1 = top left), so the four-islands
map fits; cells off the board are always masked out. No action names a seat, so nothing is relative.

| indices | action | used in |
|---|---|---|
| 0 .. 48 | ``CELL(rRcC)`` | setup, placement target, move source and destination, support army and target, fight pick, casualty (a military unit), disband |
| 49 .. 97 | ``OVERRUN(rRcC)`` | movement and the post-movement window |
| 98 .. 146 | ``REVEAL(rRcC)`` | movement: reveal the movement stone under the army there |
| 147 .. 195 | ``CASUALTY_MERC(rRcC)`` | casualty: remove a mercenary of the army there |
| 196 .. 203 | ``ALLOC+1(field)`` | sealed allocation: one more building / unit / bid RS |
| 204 .. 211 | ``ALLOC+5(field)`` | sealed allocation: five more |
| 212 .. 243 | ``AMOUNT(k)`` k = 0..31 | move order: how many military units / mercenaries; fight: dice at the target asked for (G10) |
| 244, 245 | ``YES``, ``NO`` | take the stone along, use combat equipment, use a wall |
| 246 .. 249 | ``CHOICE(k)`` | draft slot, discard slot, turn-order position, building to replace |
| 250 .. 279 | ``ITEM(name)`` | placement item: 3 buildings, 3 unit types, mercenary, 23 stone kinds; also the stone kept at KEEP_STONE |
| 280 .. 282 | ``UNIT_TYPE(t)`` | which own army moves when two stand on one field |
| 283 | ``DONE`` | end allocation / placement / movement / window / supports; cancel a support |
| 284 | ``UNDO`` | movement: take back the last move order |
"""
from __future__ import annotations

from ..core.codec import ActionCodec
from .data import ALLOC_FIELDS, BUILDINGS, GRID, NUM_CELLS, UNIT_TYPES
from .engine import ITEM_BUILDING, ITEM_MERC, ITEM_STONE, ITEM_UNIT, KINDS, MAX_AMOUNT, Op, validate_config

SEGMENTS = (
    (Op.CELL, "CELL", NUM_CELLS),
    (Op.OVERRUN, "OVERRUN", NUM_CELLS),
    (Op.REVEAL, "REVEAL", NUM_CELLS),
    (Op.CAS_MERC, "CASUALTY_MERC", NUM_CELLS),
    (Op.ALLOC1, "ALLOC+1", len(ALLOC_FIELDS)),
    (Op.ALLOC5, "ALLOC+5", len(ALLOC_FIELDS)),
    (Op.AMOUNT, "AMOUNT", MAX_AMOUNT + 1),
    (Op.YESNO, "YESNO", 2),
    (Op.CHOICE, "CHOICE", 4),
    (Op.ITEM, "ITEM", ITEM_STONE + len(KINDS)),
    (Op.UTYPE, "UNIT_TYPE", 3),
    (Op.DONE, "DONE", 1),
    (Op.UNDO, "UNDO", 1),
)


def cell_name(cell: int) -> str:
    return f"r{cell // GRID + 1}c{cell % GRID + 1}"


def item_name(item: int) -> str:
    if item < ITEM_UNIT:
        return BUILDINGS[item - ITEM_BUILDING]
    if item < ITEM_MERC:
        return UNIT_TYPES[item - ITEM_UNIT]
    if item == ITEM_MERC:
        return "mercenary"
    return "stone:" + KINDS[item - ITEM_STONE].name


def _arg_name(op: int, label: str, arg: int) -> str:
    if op in (Op.CELL, Op.OVERRUN, Op.REVEAL, Op.CAS_MERC):
        return f"{label}({cell_name(arg)})"
    if op in (Op.ALLOC1, Op.ALLOC5):
        return f"{label}({ALLOC_FIELDS[arg]})"
    if op == Op.YESNO:
        return ("YES", "NO")[arg]
    if op == Op.ITEM:
        return f"ITEM({item_name(arg)})"
    if op == Op.UTYPE:
        return f"UNIT_TYPE({UNIT_TYPES[arg]})"
    if op in (Op.DONE, Op.UNDO):
        return label
    return f"{label}({arg})"


class SeventhStoneCodec(ActionCodec):
    def __init__(self, config, num_players: int):
        validate_config(config, num_players)
        self.offsets = [0] * len(SEGMENTS)
        names: list[str] = []
        moves: list[tuple[int, int]] = []
        for op, label, size in SEGMENTS:
            self.offsets[op] = len(names)
            for arg in range(size):
                names.append(_arg_name(op, label, arg))
                moves.append((op, arg))
        self.num_actions = len(names)
        self._names = names
        self._moves = moves
        self._index = {move: i for i, move in enumerate(moves)}

    def action_name(self, index: int) -> str:
        return self._names[index]

    def legal_actions(self, engine) -> list[int]:
        offsets = self.offsets  # as encode(), inlined: this runs at every step
        return sorted([offsets[op] + arg for op, arg in engine.legal_moves()])

    def decode(self, engine, index: int) -> tuple[int, int]:
        return self._moves[index]

    def encode(self, engine, move: tuple[int, int]) -> int:
        return self.offsets[move[0]] + move[1]

    def apply_legal(self, engine, index: int) -> None:
        engine.apply(self._moves[index])
