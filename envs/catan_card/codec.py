"""Flat action layout of spec 9.3: ``Discrete(43 + 2 (N - 1))``; opponents relative to the actor.

| indices | action |
|---|---|
| 0 | PASS |
| 1 | TRADE_DRAW_PILE |
| 2 | TRADE_MARKET |
| 3 .. 3+N-2 | TRADE_OPP(+j), j = 1..N-1 seats clockwise from the actor |
| next N-1 | GUILD_STEAL(+j) |
| next 5 | RES(r), r = brick, lumber, ore, wool, grain (meaning depends on the phase) |
| next 1 | BLIND_DRAW (also "draw one more" in the optional knight draws) |
| next 1 | USE_LIBRARY |
| next 5 | BUILD(kind), kind = road, knight, settlement, city, improvement |
| next 1 | PAY_AS_PRINTED |
| next 20 | SUBSTITUTE(a<-b): offset 4 a + (b if b < a else b - 1) |
| next 6 | IMPROVEMENT(kind) |
| last | TURN_FATE_CARD |
"""
from __future__ import annotations

from ..core.codec import ActionCodec
from .data import BUILD_KINDS, IMPROVEMENT_KINDS, RESOURCES
from .engine import Op


class CatanCardCodec(ActionCodec):
    def __init__(self, config, num_players: int):
        n = self.num_players = num_players
        names: list[str] = ["PASS", "TRADE_DRAW_PILE", "TRADE_MARKET"]
        # per relative offset j: the move template; absolute seats are filled in per actor
        templates: list[tuple[int, int, bool]] = [(Op.PASS, 0, False), (Op.TRADE_DRAW_PILE, 0, False),
                                                  (Op.TRADE_MARKET, 0, False)]
        for op, label in ((Op.TRADE_PLAYER, "TRADE_OPP"), (Op.GUILD_STEAL, "GUILD_STEAL")):
            for j in range(1, n):
                names.append(f"{label}(+{j})")
                templates.append((op, j, True))
        for r, res in enumerate(RESOURCES):
            names.append(f"RES({res})")
            templates.append((Op.RESOURCE, r, False))
        names += ["BLIND_DRAW", "USE_LIBRARY"]
        templates += [(Op.BLIND_DRAW, 0, False), (Op.USE_LIBRARY, 0, False)]
        for k, kind in enumerate(BUILD_KINDS):
            names.append(f"BUILD({kind})")
            templates.append((Op.BUILD, k, False))
        names.append("PAY_AS_PRINTED")
        templates.append((Op.PAY_AS_PRINTED, 0, False))
        for a in range(5):
            for b in range(5):
                if b != a:
                    names.append(f"SUBSTITUTE({RESOURCES[a]}<-3x{RESOURCES[b]})")
                    templates.append((Op.SUBSTITUTE, 5 * a + b, False))
        for k, kind in enumerate(IMPROVEMENT_KINDS):
            names.append(f"IMPROVEMENT({kind})")
            templates.append((Op.CHOOSE_IMPROVEMENT, k, False))
        names.append("TURN_FATE_CARD")
        templates.append((Op.TURN_FATE_CARD, 0, False))
        assert len(names) == 43 + 2 * (n - 1)
        self.num_actions = len(names)
        self._names = names
        # per actor seat: index -> move, and move -> index
        self._decode: list[list[tuple[int, int]]] = []
        self._encode: list[dict[tuple[int, int], int]] = []
        for actor in range(n):
            moves = [(op, (actor + arg) % n if relative else arg) for op, arg, relative in templates]
            self._decode.append(moves)
            self._encode.append({m: i for i, m in enumerate(moves)})

    def action_name(self, index: int) -> str:
        return self._names[index]

    def legal_actions(self, engine) -> list[int]:
        # the engine lists moves in layout order, so the indices come out ascending (no sort)
        table = self._encode[engine.actor]
        return [table[m] for m in engine.legal_moves()]

    def decode(self, engine, index: int) -> tuple[int, int]:
        """The engine move of an index for the engine's current actor."""
        return self._decode[engine.actor][index]

    def encode(self, engine, move: tuple[int, int]) -> int:
        return self._encode[engine.actor][(int(move[0]), int(move[1]))]

    def apply_legal(self, engine, index: int) -> None:
        engine.apply(self._decode[engine.actor][index])
