"""Flat action layout: the heads of ``constants.Head`` laid end to end.

Every index is one engine move ``(head, arg)``; ``action_name`` names it. Multi-part choices (a
purchase: category, item, place; a bid: coin by coin) are sequential sub-decisions, so every legal
amount stays reachable (DECISIONS.md "An encoding never forbids a legal move").

| head | size | meaning |
|---|---|---|
| CTRL | 22 | control words: see `constants.CTRL_NAMES` (DONE, loans, battle and trade choices) |
| COIN | 6 | add 1, 5, 10, 50, 100, 500 fl to the sealed bid |
| TAX | 5 | tax rate 10 .. 50 |
| DICE | 8 | reroll subset of the barbarian dice (0 = keep) |
| KIT | 14 | starting transports |
| EMPIRE | 6 | empire pick |
| NODE | nodes | a region or sea zone of the map (65 on the default map) |
| PURCHASE | 8 | purchase category |
| TECH | 24 | technology branch x level |
| BUILD | 7 | village, town, city, tower, fortress, castle, cathedral |
| VEHICLE | 15 | caravan, merchant ship, war wagon, galley, siege engine x level I-III |
| UNIT | 7 | LI, HI, AR, CA, CP1, CP2, CP3 |
| OBJECT | 10 | own transport / siege engine by ownership slot |
| CARD | 72 | empire card 1..72 |
| COLOUR | 6 | TP / goal-token colour |
| LOAD | 7 | load one unit of a type onto the moving carrier |
| UNLOAD | 7 | drop one unit of a type from the moving carrier |
| CAPTAIN | 12 | captain slot: act as / enable own / cancel enemy x AR, LI, HI, CA |
| EVENT | 3 | the event symbol the start player does not apply |
| PROTECT | 3 | what a military building protects against this battle round: siege engines, archers, melee |
| GOOD | 8 | a goods colour (sell one cube, place a market cube, lose a cube to an event) |
| ROUTE | 3 | trade-route length: 4, 6, 8 stages |
| EMBARK | 10 | an own empty war wagon / siege engine (by slot) boards the moving galley, or accompanies a wagon |
| DISEMBARK | 10 | unload one of them where the galley is docked; with a war wagon: leave the engine behind |
| PLAYER | 5 | another seat relative to the deciding seat, +1 .. +5: diplomacy addressee, next multi-party opponent |
| TREATY | 12 | diplomacy offer kind: see `diplomacy.TREATY_NAMES` |
| DURATION | 6 | a state treaty's term: 1 .. 5 rounds, or until the game ends |
| EP_BID | 11 | variant 8.1: an empire bid of 0 .. 10 EP |
| SIDE | 2 | the battle side an empire card targets: attacker, defender |
"""
from __future__ import annotations

from ..core.codec import ActionCodec
from .constants import (
    ABILITY_TYPES, CAPTAIN_MODES, COINS, CTRL_NAMES, HEAD_NAMES, NUM_SLOTS, PROTECT_NAMES, PURCHASE_NAMES,
    ROUTE_LENGTHS, Head,
)
from .diplomacy import MAX_OPPONENTS, MAX_TERM, TREATY_NAMES
from .variants import EP_BID_MAX
from .data import (
    BUILDING_NAMES, COLOURS, EMPIRES, STARTING_KITS, UNIT_NAMES, VEHICLE_KINDS, game_data,
)

_LEVEL = ("I", "II", "III", "IV")


def head_names(num_nodes: int) -> list[list[str]]:
    d = game_data()
    techs = d.comp.technologies
    per_head = {
        Head.CTRL: list(CTRL_NAMES),
        Head.COIN: [f"+{c}" for c in COINS],
        Head.TAX: [str(r) for r in d.comp.raw["tax_rates"]],
        Head.DICE: ["keep"] + [",".join(die for i, die in enumerate(("d4", "d6", "d8")) if m >> i & 1)
                               for m in range(1, 8)],
        Head.KIT: [" + ".join(f"{VEHICLE_KINDS[k]} {_LEVEL[lv - 1]}" for k, lv in kit) for kit in STARTING_KITS],
        Head.EMPIRE: list(EMPIRES),
        Head.NODE: list(d.board.names[:num_nodes]),
        Head.PURCHASE: list(PURCHASE_NAMES),
        Head.TECH: [f"{techs[b][lv]} ({COLOURS[b]} {_LEVEL[lv]})" for b in range(6) for lv in range(4)],
        Head.BUILD: list(BUILDING_NAMES),
        Head.VEHICLE: [f"{k} {_LEVEL[lv]}" for k in VEHICLE_KINDS for lv in range(3)],
        Head.UNIT: list(UNIT_NAMES),
        Head.OBJECT: [f"slot {i}" for i in range(NUM_SLOTS)],
        Head.CARD: [f"{c.id} {c.person}" for c in d.cards],
        Head.COLOUR: list(COLOURS),
        Head.LOAD: list(UNIT_NAMES),
        Head.UNLOAD: list(UNIT_NAMES),
        Head.CAPTAIN: [f"{mode} {UNIT_NAMES[t]}" for mode in CAPTAIN_MODES for t in ABILITY_TYPES],
        Head.EVENT: ["drop 1st symbol", "drop 2nd symbol", "drop 3rd symbol"],
        Head.PROTECT: list(PROTECT_NAMES),
        Head.GOOD: list(d.comp.goods),
        Head.ROUTE: [f"{k} stages" for k in ROUTE_LENGTHS],
        Head.EMBARK: [f"slot {i}" for i in range(NUM_SLOTS)],
        Head.DISEMBARK: [f"slot {i}" for i in range(NUM_SLOTS)],
        Head.PLAYER: [f"+{k}" for k in range(1, MAX_OPPONENTS + 1)],
        Head.TREATY: list(TREATY_NAMES),
        Head.SIDE: ["attacker", "defender"],
        Head.DURATION: [f"{k} rounds" for k in range(1, MAX_TERM + 1)] + ["until the game ends"],
        Head.EP_BID: [f"{k} EP" for k in range(EP_BID_MAX + 1)],
    }
    return [per_head[h] for h in range(len(HEAD_NAMES))]


class MedioevoCodec(ActionCodec):
    def __init__(self, config, num_players: int):
        self.num_players = num_players
        nodes = game_data().board.num_nodes
        per_head = head_names(nodes)
        self.offsets: list[int] = []
        names: list[str] = []
        decode: list[tuple[int, int]] = []
        for h, labels in enumerate(per_head):
            self.offsets.append(len(names))
            for a, label in enumerate(labels):
                names.append(f"{HEAD_NAMES[h]}({label})")
                decode.append((h, a))
        self.head_sizes = [len(x) for x in per_head]
        self.num_actions = len(names)
        self._names = names
        self._decode = decode

    def action_name(self, index: int) -> str:
        return self._names[index]

    def legal_actions(self, engine) -> list[int]:
        off = self.offsets
        legal = [off[h] + a for h, a in engine.legal_moves()]
        legal.sort()
        return legal

    def decode(self, engine, index: int) -> tuple[int, int]:
        return self._decode[index]

    def encode(self, engine, move: tuple[int, int]) -> int:
        return self.offsets[move[0]] + move[1]

    def apply_legal(self, engine, index: int) -> None:
        engine.apply(self._decode[index])
