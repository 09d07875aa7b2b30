"""Seventh Stone's complete moves (envs/core/moves.py): a whole move order, a whole placement, a whole support.

The flat encoding takes each of the rulebook's moves in small decisions (spec 13.1, 13.3). The grain:

* **A move order** (spec 6.4.2: "a move order moves a chosen group of units from one field along a path"; 6.4.4,
  rulebook: "Armeen können durch unterschiedliche Bewegungsbefehle für ihre Einheiten beliebig geteilt ...
  werden ... Bei der Teilung einer Armee entscheidet der Spieler, welcher Armeeteil den Ausrüstungsstein
  erhält"): the field (``CELL``), the number of military units and of mercenaries (``AMOUNT``, each count the
  engine does not settle by itself), whether a split-off group takes the army's stone (``YES``/``NO``, G25) and
  the destination (``CELL``) are one move. When two of the seat's armies stand on the field, choosing the field
  is a move of its own and the move order goes on from its ``UNIT_TYPE``. A move order from an army with more
  than ``MAX_COUNT`` military units or mercenaries that can move is taken decision by decision, so that a count
  is one of few part values.
* **A placement** (spec 6.3: "the type and the field. If the field already holds 2 buildings, the new one
  replaces one of them; the player chooses which"): the item, its field and the building it replaces.
* **A support declaration** (spec 6.5.2): the supporting army and the conflict it supports (or ``DONE``).
* **The draft of rank 1 at 2 and 3 players** (spec 10, G11): the stone kept and the stone discarded.
* **The walls of a fight** (spec 6.5.4 step 3; rulebook: "Die Spieler entscheiden vor den Kampf, ob sie die
  Mauer nutzen"): one move for the field's (at most two) walls; the walls are alike, so a move is how many are
  used, listed once, ``YES`` before ``NO``.
* **One roller's split of one phase's dice** (spec 6.5.5 step 0, G10; rulebook: "vor jeder Kampfrunde
  festlegen, welchem Spieler ihre Würfel gelten. Dabei ist eine Aufteilung der Würfel möglich"): the counts for
  his targets but the last, when the dice left after the first target are at most ``MAX_COUNT`` (else each
  count is a move).
* Every other decision is a move of its own. The sealed allocation (spec 6.2.3) stays one ``ALLOC`` increment per
  move: its sheet, eight amounts within the budget, can be filled in 168,492 ways at 19 RS (random play's
  median budget; 9.5 million at 36 RS), far beyond what a list of legal moves or a composite index space can
  hold, and the flat increments do not close off one field's amount (an increment on one field may be followed
  by one on any other), so no field's amount is a chain of its own either. A fight's casualties stay one hit
  per move, as the rulebook removes them ("Für jeden Treffer muss die gegnerische Partei ... eine am Kampf
  beteiligte eigene Einheit ihrer Wahl aus dem Spiel nehmen", spec 6.5.6): the
  engine removes a forced unit by itself, so one set of removals ends after different numbers of decisions in
  different orders and is no single chain.

Chance and hidden information: every compound move above lies inside one decision of the rulebook, where nothing
is rolled, drawn or revealed; a move goes on only while the engine asks for that decision's next part
(``continues``). The equipment offer is drawn ahead (stacks shuffled, ``pop()`` at the year's start, spec 6.2.2),
the markets' tie rolls, the event, a fight's dice and the destruction and tournament rolls all come after a
decision that ends a move (the end of a phase, ``OVERRUN``, a fight's last wall or equipment answer), so no move
reaches past them even where the random generator is not touched. A sealed allocation is entered one increment
at a time by its own seat, and the moves listed for it (the pointer table, the factored substeps) are shown to
that seat only.

Parts: the first flat decision (285); the detail (the counts and the stone of a move order, the second wall or
dice count, the building replaced or the stone discarded); the cell (the destination, the placement's field, the
conflict supported, or ``DONE`` declining a support).
"""
from __future__ import annotations

from ..core.moves import MoveGrain, MoveGrainError, MovePart
from .data import NUM_CELLS, WALL
from .engine import MAX_AMOUNT, Op, Phase

#: the most military units or mercenaries a move order moves as one move, and the most dice a split gives its
#: second target in the same move (an army of the starting unit maximum, 4, moves in one move)
MAX_COUNT = 4
#: the counts of a move (``AMOUNT`` decisions, in order): none, one, or two
COUNT_SETS = (((),) + tuple((k,) for k in range(MAX_COUNT + 1))
              + tuple((a, b) for a in range(MAX_COUNT + 1) for b in range(MAX_COUNT + 1)))
_COUNT_INDEX = {counts: i for i, counts in enumerate(COUNT_SETS)}
_LEAVES = len(COUNT_SETS)  # the same counts, and the split-off group leaves the stone (NO)
_SECOND_YES = 2 * len(COUNT_SETS)  # the second wall used
_SECOND_CHOICE = _SECOND_YES + 1  # + k: CHOICE(k), the building replaced or the stone discarded
DETAIL_SIZE = _SECOND_CHOICE + 4
CELL_DONE = NUM_CELLS  # the cell part's DONE (a support declined); NUM_CELLS + 1: none
_MOVE_ORDER = frozenset((Phase.MOVE_COUNT_MIL, Phase.MOVE_COUNT_MERC, Phase.MOVE_TAKE_STONE, Phase.MOVE_DEST))
# decisions after which a move may go on (may_continue): the first parts of the compound moves above
_OPENING = frozenset((Phase.MOVE_SELECT, Phase.MOVE_TYPE, Phase.MOVE_COUNT_MIL, Phase.MOVE_COUNT_MERC,
                      Phase.MOVE_TAKE_STONE, Phase.PLACE_ITEM, Phase.PLACE_CELL, Phase.SUPPORT_ARMY,
                      Phase.DRAFT_PICK, Phase.USE_WALL, Phase.DICE_ALLOC))


class SeventhStoneGrain(MoveGrain):
    max_length = 5  # a move order: CELL, AMOUNT, AMOUNT, YES/NO, CELL
    pointer_rows = 512  # a move order can be one of several hundred (benchmarks/encodings.py)

    def __init__(self, flat):
        super().__init__(flat)
        offsets = flat.offsets
        self._amount = offsets[Op.AMOUNT]
        self._yes, self._no = offsets[Op.YESNO], offsets[Op.YESNO] + 1
        self._choice = offsets[Op.CHOICE]
        self._done = offsets[Op.DONE]

    # -- where a move ends ---------------------------------------------------------------------------
    def may_continue(self, engine, index: int) -> bool:
        phase = engine.phase
        if phase not in _OPENING:
            return False
        if phase == Phase.MOVE_SELECT:
            return index < NUM_CELLS  # a move order's field (not DONE, UNDO, REVEAL or OVERRUN)
        if phase in (Phase.PLACE_ITEM, Phase.SUPPORT_ARMY):
            return index != self._done
        if phase == Phase.DRAFT_PICK:
            return engine.num_players < 4  # rank 1 discards next
        if phase == Phase.DICE_ALLOC:
            return index != self._amount + MAX_AMOUNT
        return True

    def continues(self, engine, chain: tuple[int, ...]) -> bool:
        phase = engine.phase
        if phase in _MOVE_ORDER:
            return self._order_fits(engine)
        if phase in (Phase.PLACE_CELL, Phase.PLACE_REPLACE, Phase.SUPPORT_TARGET, Phase.DRAFT_DISCARD):
            return True  # the decision's next part (a forced part is taken by the engine, not asked)
        if phase == Phase.USE_WALL:
            fight = engine.fight
            ready = sum(1 for building in engine.buildings[fight.cell] if building[0] == WALL and building[1])
            asked = ready - fight.walls_left
            return len(chain) == asked  # the chain is the walls asked so far
        if phase == Phase.DICE_ALLOC:
            fight = engine.fight
            # the first target's count given (aim_idx 1: no AMOUNT(31) asking again), a few dice left
            return (len(chain) == 1 and chain[0] != self._amount + MAX_AMOUNT and fight.aim_idx == 1
                    and fight.aim_left <= MAX_COUNT)
        return False

    def _order_fits(self, engine) -> bool:
        """Whether the selected army's movable units fit the count parts (else the order goes decision by
        decision; the same answer at every step of one order, as the army is not changed before its end)."""
        army = engine._sel_army()
        return (len(army.mil) - army.mil.count(0) <= MAX_COUNT
                and len(army.merc) - army.merc.count(0) <= MAX_COUNT)

    def may_follow(self, engine, chain: tuple[int, ...], index: int) -> bool:
        if engine.phase == Phase.USE_WALL:
            return index >= chain[-1]  # walls are alike: YES before NO, listed once
        return True

    # -- parts ---------------------------------------------------------------------------------------
    def parts(self) -> tuple[MovePart, ...]:
        return (MovePart("decision", self.flat.num_actions), MovePart("detail", DETAIL_SIZE),
                MovePart("cell", NUM_CELLS + 2))

    def parts_of(self, chain: tuple[int, ...]) -> tuple[int, int, int]:
        first, rest = chain[0], chain[1:]
        yes_no = (self._yes, self._no)
        if first in yes_no and rest:  # the walls of a fight: how many are used
            first, second = sorted(chain)
            return first, (_SECOND_YES if second == self._yes else _LEAVES), NUM_CELLS + 1
        counts: list[int] = []
        detail = 0
        cell = NUM_CELLS + 1
        for index in rest:
            if index < NUM_CELLS:
                cell = index
            elif index == self._done:
                cell = CELL_DONE
            elif self._amount <= index <= self._amount + MAX_AMOUNT:
                counts.append(index - self._amount)
            elif index == self._no:
                detail = _LEAVES
            elif self._choice <= index < self._choice + 4:
                detail = _SECOND_CHOICE + index - self._choice
            elif index != self._yes:  # YES: the group takes the stone, as when nobody asks
                raise MoveGrainError(f"{type(self).__name__}: no part for {self.flat.action_name(index)} in {chain}")
        if counts:
            if tuple(counts) not in _COUNT_INDEX:
                raise MoveGrainError(f"{type(self).__name__}: counts {counts} of {chain} exceed MAX_COUNT")
            detail += _COUNT_INDEX[tuple(counts)]
        return first, detail, cell

    def part_value_name(self, part: int, value: int) -> str:
        if part == 0:
            return self.flat.action_name(value)
        if part == 2:
            return "" if value > NUM_CELLS else "DONE" if value == CELL_DONE else self.flat.action_name(value)
        if value == _SECOND_YES:
            return "YES"
        if value >= _SECOND_CHOICE:
            return f"CHOICE({value - _SECOND_CHOICE})"
        names = [f"AMOUNT({k})" for k in COUNT_SETS[value % _LEAVES]]
        if value >= _LEAVES:
            names.append("NO")
        return " + ".join(names)
