"""Flat action layout (spec 10.4, without its reserved slots): ``Discrete(162)`` for every player
count and module choice; module actions are simply never legal when the module is off.

| indices | action |
|---|---|
| 0 | PASS (also: decline, stop recruiting, end rerolls, keep the dice) |
| 1 | YES (take the Farms die, pay the Smuggler, use a conversion, use the Prince) |
| 2..4 | GOOD(gold / wood / stone): receive that good, or pay it (Alchemist, Town hall) |
| 5 | PAY_PLUS2 (Town hall) |
| 6..12 | BUILD(row A..G): the leftmost unbuilt building of that row |
| 13..15 | STATUE(player die), STATUE(bonus die), CHAPEL(reroll all) |
| 16..18 | GOVERNOR(card 1..3): keep that dealt card (module 2) |
| 19..23 | ARMY_TOKEN(value): one per distinct token value (module 3) |
| 24..37 | RECRUIT(payment): one soldier for GG, GW, GS, GT, WW, WS, WT, SS, ST, TT, G, W, S, T (T = +2 token) |
| 38..49 | MODIFIERS(plus2, market, envoy) of a placement: 6 plus2 + 2 (market + 1) + envoy |
| 50..161 | DICE(slots) to place, e.g. DICE(P0+P2+B0): 16 (player subset - 1) + bonus subset |

Seats never appear in moves, so the layout is the same for every actor.
"""
from __future__ import annotations

from ..core.codec import ActionCodec
from .data import GOODS, ROWS, tables
from .engine import RECRUIT_PAYMENT_NAMES, Op


def _dice_name(arg: int) -> str:
    pm, bm = (arg >> 4) + 1, arg & 15
    player = "+".join(f"P{i}" for i in range(3) if pm >> i & 1)
    bonus = "+".join(f"B{i}" for i in range(4) if bm >> i & 1)
    return f"DICE({player}+{bonus})" if bonus else f"DICE({player})"


class KingsburgCodec(ActionCodec):
    def __init__(self, config, num_players: int):
        t = tables(config.module_more_buildings)
        names: list[str] = ["PASS", "YES"]
        moves: list[tuple[int, int]] = [(Op.PASS, 0), (Op.YES, 0)]
        for g, good in enumerate(GOODS):
            names.append(f"GOOD({good})")
            moves.append((Op.GOOD, g))
        names.append("PAY_PLUS2")
        moves.append((Op.PAY_PLUS2, 0))
        for r, row in enumerate(ROWS):
            names.append(f"BUILD(row {row})")
            moves.append((Op.BUILD, r))
        names += ["STATUE(player die)", "STATUE(bonus die)", "CHAPEL(reroll all)"]
        moves += [(Op.STATUE, 0), (Op.STATUE, 1), (Op.CHAPEL, 0)]
        for i in range(t.governor_deal):
            names.append(f"GOVERNOR(card {i + 1})")
            moves.append((Op.GOVERNOR, i))
        for i, v in enumerate(t.army_values):
            names.append(f"ARMY_TOKEN({v})")
            moves.append((Op.ARMY_TOKEN, i))
        for i, pay in enumerate(RECRUIT_PAYMENT_NAMES):
            names.append(f"RECRUIT({pay})")
            moves.append((Op.RECRUIT, i))
        for arg in range(12):
            plus, rest = divmod(arg, 6)
            market, envoy = rest // 2 - 1, rest & 1
            names.append(f"MODIFIERS(plus2={plus},market={market:+d},envoy={envoy})")
            moves.append((Op.MODIFIERS, arg))
        for arg in range(112):
            names.append(_dice_name(arg))
            moves.append((Op.DICE, arg))
        self.num_actions = len(names)
        self._names = names
        self._moves = moves
        self._index = {m: i for i, m in enumerate(moves)}
        # index of (op, arg) = first index of op + arg, since each op's indices are consecutive
        self._first = [0] * (max(op for op, _ in moves) + 1)
        for i in reversed(range(len(moves))):
            self._first[moves[i][0]] = i
        assert all(self._first[op] + arg == i for i, (op, arg) in enumerate(moves))
        self.num_players = num_players
        self._indices_of: dict = {}  # id of a shared move tuple -> (the tuple, its indices)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_indices_of"] = {}  # keyed by object ids, which mean nothing in a copy
        return state

    def action_name(self, index: int) -> str:
        return self._names[index]

    def legal_actions(self, engine) -> list[int]:
        # the engine lists every decision's moves in this layout's order (the fuzz test checks it)
        moves = engine._moves
        if type(moves) is tuple:
            # a shared tuple from one of the engine's move caches: its indices are remembered by
            # identity (the entry holds the tuple, so its id cannot be reused while remembered)
            hit = self._indices_of.get(id(moves))
            if hit is not None and hit[0] is moves:
                return list(hit[1])
            if len(self._indices_of) > 100_000:
                self._indices_of.clear()
            first = self._first
            indices = tuple([first[op] + arg for op, arg in moves])
            self._indices_of[id(moves)] = (moves, indices)
            return list(indices)
        first = self._first
        return [first[op] + arg for op, arg in moves]

    def decode(self, engine, index: int) -> tuple[int, int]:
        return self._moves[index]

    def encode(self, engine, move: tuple[int, int]) -> int:
        return self._index[(int(move[0]), int(move[1]))]

    def apply_legal(self, engine, index: int) -> None:
        engine.apply(self._moves[index])
