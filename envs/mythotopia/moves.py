"""Mythotopia's complete moves (envs/core/moves.py): a card play with all its targets.

The flat encoding takes an action decision by decision (spec 10.2, 10.4): the verb, then each target, then each
card. The grain joins what the rulebook states as one choice, a card or action played with what it aims at:

* **An action or free action with its targets** (spec 5.3, 5.4): the verb (``CHOOSE``) with the province, sea or
  border it names and the number, option or player that goes with it: Invade's target (5.3.1), Place armies'
  province (5.3.2), Remove armies' province and count (5.3.3), Place / Remove ships' sea and count (5.3.4, 5.3.5),
  End a war's province (5.3.6), Buy's armies (5.3.7), Build's structure and site (5.3.12, "build exactly one of
  the following"), the Alchemist's exchange, the Diplomat's war, the Marauders' province and player, the
  Mercenary's province and count (5.4).
* **A card with its targets**: the location card of an Invade with its route (5.2, 5.3.1: "Location card for an
  origin O from which T is reachable"), the Build card with its structure and site when several Build cards could
  be played; every other card played, paid or chosen (5.1: "play cards whose chosen symbol kind is that resource")
  is a move of its own, with the converter, Merchant or Water Mill that qualifies it (5.1, A-34: "each
  Merchant/Water Mill affects exactly one other card").
* **A road movement** (5.4 item 9): its origin, destination and number of armies; the free action is a repeated
  selection of movements closed by ``DONE``.
* Every other decision (``DONE`` of a repeated selection, the second number of Remove armies or Buy, the Guilded
  City / Roadside Inns extra, the Scribe's source, a setup choice, the card of Draft, Mystic, Philosopher or
  Warehouse) is a move of its own. The two numbers of Remove armies (armies, mercenaries) and of Buy (armies,
  ships) are independent choices; the grain takes the second as a move of its own, so that a move holds one
  number and the composite space stays small.

So a repeated selection (army or ship cards, a payment, the cards put into the reserve, discarded, removed or given
to the Counsellor) takes one move per card, the rest in further moves: the cards of a selection are ordered (they
land on the piles in the order played, and a reshuffle follows that order), so a move holding k of them would
have up to 89^k descriptions.

Chance and hidden information: a move never reaches past the end of the action it belongs to, and every draw and
every reveal comes at that end or opens a decision of its own: the refill at the end of a turn, Providence's
draw, Counsellor's draw after ``DONE`` (spec 4.4), a defender's replacement draw when End a war takes a province
card from his hand (5.8), the Philosopher's look at the top three improvement cards (5.4 item 6: the verb is a
move, the card taken another), the setup choices revealed once all have chosen (A-45).

Parts: the decision that opens the move (a verb, a card, a province, a number, an option or DONE: 178 values; a
sea, border or player is only ever a target, a mode opens the move of its card), the place it names (province,
sea or border, or none: 124 values) and its detail (a number, option or player, or the modes its card is played
with, or none: 31 values).
"""
from __future__ import annotations

from ..core.moves import MoveGrain, MoveGrainError, MovePart
from . import layout as M
from .engine import Phase

#: decisions of the phases that name an action's targets: joined to the verb or card before them
TARGET_PHASES = frozenset((
    Phase.INV_TARGET, Phase.INV_ROUTE, Phase.PLACE_PROV, Phase.REM_PROV, Phase.REM_ARMIES_N, Phase.SHIP_SEA,
    Phase.REMSHIP_SEA, Phase.REMSHIP_N, Phase.ENDWAR_PROV, Phase.BUY_ARMIES, Phase.BUILD_TYPE, Phase.BUILD_WHERE,
    Phase.ALCH_OPT, Phase.DIPLO_PROV, Phase.MARAUD_PROV, Phase.MARAUD_PLAYER, Phase.MERC_PROV, Phase.MERC_N,
    Phase.RM_TO, Phase.RM_N,
))
#: verbs that may be followed by a target (the others open a card choice or complete the action)
VERBS_WITH_TARGETS = frozenset((
    M.V_INVADE, M.V_PLACE_ARMIES, M.V_REMOVE_ARMIES, M.V_PLACE_SHIPS, M.V_REMOVE_SHIPS, M.V_END_WAR, M.V_BUY,
    M.V_BUILD, M.V_ALCHEMIST, M.V_DIPLOMAT, M.V_MARAUDERS, M.V_MERCENARY,
))
#: phases other than CHOOSE whose decision may be followed by a target (a card with its route or structure, a
#: province whose count or player follows, a road movement's origin and destination)
OPENS_TARGETS = frozenset((
    Phase.INV_LOC, Phase.BUILD_CARD, Phase.REM_PROV, Phase.REMSHIP_SEA, Phase.MARAUD_PROV, Phase.MERC_PROV,
    Phase.BUILD_TYPE, Phase.RM_FROM, Phase.RM_TO,
))
NUM_PLACES = M.CARD - M.PROVINCE  # PROVINCE, SEA, BORDER: contiguous in the layout
NUM_AMOUNTS = M.DONE - M.NUMBER  # NUMBER, PLAYER, OPTION: contiguous in the layout
#: the modes a card may be played with (spec 5.1, A-34), in the order chosen; values NUM_AMOUNTS + k of "detail"
MODE_RUNS = ((M.MODE_CONVERT,), (M.MODE_MERCHANT,), (M.MODE_WATERMILL,), (M.MODE_MERCHANT, M.MODE_WATERMILL),
             (M.MODE_WATERMILL, M.MODE_MERCHANT))
_MODE_RUN_VALUE = {run: NUM_AMOUNTS + k for k, run in enumerate(MODE_RUNS)}
NO_PLACE = NUM_PLACES
NO_DETAIL = NUM_AMOUNTS + len(MODE_RUNS)
#: the flat decisions that can open a move (values of "opening"): not a sea, border or player, which are only ever
#: targets, nor a mode, which opens the move of the card it qualifies
OPENINGS = tuple(index for index in range(M.NUM_MOVES)
                 if not (M.SEA <= index < M.CARD or M.MODE <= index < M.NUMBER or M.PLAYER <= index < M.OPTION))
_OPENING_VALUE = {index: value for value, index in enumerate(OPENINGS)}


def _is_mode(index: int) -> bool:
    return M.MODE <= index < M.NUMBER


class MythotopiaGrain(MoveGrain):
    max_length = 3  # a verb or card with a place and a detail; Merchant and Water Mill with their card
    pointer_rows = 128  # about twice the most legal moves met in random play (docs/games/mythotopia.md)

    def may_continue(self, engine, index: int) -> bool:
        if _is_mode(index):
            return True  # the card it qualifies follows
        phase = engine.phase
        if phase == Phase.CHOOSE:
            return index in VERBS_WITH_TARGETS
        return phase in OPENS_TARGETS and index != M.DONE

    def continues(self, engine, chain: tuple[int, ...]) -> bool:
        return _is_mode(chain[-1]) or engine.phase in TARGET_PHASES

    def parts(self) -> tuple[MovePart, ...]:
        return (MovePart("opening", len(OPENINGS)), MovePart("place", NUM_PLACES + 1),
                MovePart("detail", NO_DETAIL + 1))

    def parts_of(self, chain: tuple[int, ...]) -> tuple[int, int, int]:
        modes = 0
        while modes < len(chain) and _is_mode(chain[modes]):
            modes += 1
        if modes == len(chain):
            raise MoveGrainError(f"{type(self).__name__}: a move of modes without their card: {chain}")
        place, detail = NO_PLACE, NO_DETAIL
        if modes:
            detail = _MODE_RUN_VALUE[tuple(chain[:modes])]
        for index in chain[modes + 1:]:
            if M.PROVINCE <= index < M.CARD and place == NO_PLACE:
                place = index - M.PROVINCE
            elif M.NUMBER <= index < M.DONE and detail == NO_DETAIL:
                detail = index - M.NUMBER
            else:
                raise MoveGrainError(f"{type(self).__name__}: move {chain} has a decision its parts cannot hold")
        opening = _OPENING_VALUE.get(chain[modes])
        if opening is None:
            raise MoveGrainError(f"{type(self).__name__}: move {chain} opens with a decision that is only a target")
        return opening, place, detail

    def part_value_name(self, part: int, value: int) -> str:
        if part == 0:
            return self.flat.action_name(OPENINGS[value])
        if part == 1:
            return "" if value == NO_PLACE else self.flat.action_name(M.PROVINCE + value)
        if value == NO_DETAIL:
            return ""
        if value < NUM_AMOUNTS:
            return self.flat.action_name(M.NUMBER + value)
        return " + ".join(self.flat.action_name(mode) for mode in MODE_RUNS[value - NUM_AMOUNTS])
