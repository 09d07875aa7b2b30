"""The flat move layout of Mythotopia (spec 10.3), shared by the engine and the codec.

| indices | segment | meaning |
|---|---|---|
| 0..26 | VERB | the 15 actions, 9 free actions and END_TURN (names in ``VERBS``) |
| 27..66 | PROVINCE | province P0..P39 (target, origin, build site, war, ...) |
| 67..70 | SEA | sea area S0..S3 |
| 71..149 | BORDER | land border B00..B78 (road sites) |
| 150..238 | CARD | card instance C0..C88 (hand/reserve card to play, card to draft, ...) |
| 239..241 | MODE | CONVERT (Farming/Quarry/Gold Mine/Levies), MERCHANT, WATER_MILL for the next card |
| 242..256 | NUMBER | 0..14 |
| 257..260 | PLAYER | seat (absolute in the engine; relative to the actor in the codec) |
| 261..266 | OPTION | build type / route class / yes-no / Alchemist exchange (meaning per phase) |
| 267 | DONE | finish a repeated selection |
"""
from __future__ import annotations

from .data import NUM_BORDERS, NUM_CARDS, NUM_PROVINCES, NUM_SEAS

VERBS = ("INVADE", "PLACE_ARMIES", "REMOVE_ARMIES", "PLACE_SHIPS", "REMOVE_SHIPS", "END_WAR", "BUY", "DRAFT",
         "RESERVE", "DISCARD", "REMOVE_FROM_DECK", "BUILD", "ALCHEMIST", "DIPLOMAT", "PATRONAGE", "PASS",
         "END_GAME", "COUNSELLOR", "MARAUDERS", "MERCENARY", "MILITIA", "MYSTIC", "PHILOSOPHER", "PROVIDENCE",
         "WAREHOUSE", "ROAD_MOVE", "END_TURN")
(V_INVADE, V_PLACE_ARMIES, V_REMOVE_ARMIES, V_PLACE_SHIPS, V_REMOVE_SHIPS, V_END_WAR, V_BUY, V_DRAFT,
 V_RESERVE, V_DISCARD, V_REMOVE_FROM_DECK, V_BUILD, V_ALCHEMIST, V_DIPLOMAT, V_PATRONAGE, V_PASS,
 V_END_GAME, V_COUNSELLOR, V_MARAUDERS, V_MERCENARY, V_MILITIA, V_MYSTIC, V_PHILOSOPHER, V_PROVIDENCE,
 V_WAREHOUSE, V_ROAD_MOVE, V_END_TURN) = range(27)
NUM_VERBS = len(VERBS)
PROVINCE = NUM_VERBS
SEA = PROVINCE + NUM_PROVINCES
BORDER = SEA + NUM_SEAS
CARD = BORDER + NUM_BORDERS
MODE = CARD + NUM_CARDS
MODE_CONVERT, MODE_MERCHANT, MODE_WATERMILL = MODE, MODE + 1, MODE + 2
NUMBER = MODE + 3
NUM_NUMBERS = 15
PLAYER = NUMBER + NUM_NUMBERS
OPTION = PLAYER + 4
NUM_OPTIONS = 6
DONE = OPTION + NUM_OPTIONS
NUM_MOVES = DONE + 1
assert NUM_MOVES == 268

MODE_NAMES = ("CONVERT", "MERCHANT", "WATER_MILL")


def move_name(move: int, province_names=None, card_names=None, border_names=None) -> str:
    if 0 <= move < PROVINCE:
        return VERBS[move]
    if move < SEA:
        k = move - PROVINCE
        return f"PROVINCE({province_names[k]})" if province_names else f"PROVINCE(P{k})"
    if move < BORDER:
        return f"SEA(S{move - SEA})"
    if move < CARD:
        k = move - BORDER
        return f"BORDER({border_names[k]})" if border_names else f"BORDER(B{k:02d})"
    if move < MODE:
        k = move - CARD
        return f"CARD({card_names[k]})" if card_names else f"CARD(C{k})"
    if move < NUMBER:
        return f"MODE({MODE_NAMES[move - MODE]})"
    if move < PLAYER:
        return f"NUMBER({move - NUMBER})"
    if move < OPTION:
        return f"PLAYER(seat {move - PLAYER})"
    if move < DONE:
        return f"OPTION({move - OPTION})"
    if move == DONE:
        return "DONE"
    return f"<invalid {move}>"
