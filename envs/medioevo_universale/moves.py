"""Medioevo Universale's complete moves (envs/core/moves.py): a whole purchase, a movement path.

The flat encoding takes every compound choice as a chain of small decisions (spec 10.2, docs/games/
medioevo_universale.md "Moves and sub-decisions"). The grain joins them where the rulebook makes one choice:

* **An option of the decision tree** (a purchase, spec 5.7: a technology, building, transport, unit or siege
  engine with its placement; a goal claim or card TP, spec 5.8; a card activation with its targets, spec 5.21; a technology
  activation, spec 2.7; a deficit cover, spec 5.5-5.6; an event point, spec 5.4 phase 2.2; a build-up point,
  spec 5.4 phase 2.3; a TP payment; a removal, spec 5.17): the engine lists every complete option as a tuple of
  decisions and carries it out when it is determined, so nothing is revealed or rolled inside it. One move holds
  the option's first decision and the next ones while the options still open go on with one kind of decision
  (``PURCHASE(UNIT)``, ``UNIT(LI)``, ``NODE(Roma)``), up to ``MAX_DECISIONS``; an option that is longer or
  branches into several kinds of decision (a removal: a unit, a transport or a goods cube) goes on in moves of
  one decision each.
* **A movement path** (spec 5.9, "abgeschlossene Bewegung": "an army starts and moves until (a) its MP are used
  up, (b) the player ends it, or (c) it enters a land region or sea zone holding an opposing army"): the steps of the moving carrier with the decision that follows them (ending the
  movement, loading, unloading, boarding, changing carrier, a technology or card), ``MAX_DECISIONS`` at most; a
  longer path goes on in the next move. A step whose entry sets something off (a battle, a takeover, barbarian
  resistance) ends the move there: the phase is no longer the movement's.
* Every other decision (a bid's coin, a tax rate, a battle decision, a trade step, a card kept) is a move of its
  own. A sum is entered in its fewest coins (``constants.coin_moves``), one coin per move.

Chance and hidden information end a move: dice are rolled with the engine's generator (battles, the horde, a
galley sinking, card rolls), which ``legal_moves`` notices; the decks are shuffled ahead, and a card is drawn
(a card purchase, setup S7, Weiser 61) or an event card turned (phase 2.2, the last revolt check) only when a tree
option is carried out or a phase ends, so never inside a move: after an option the tree is opened afresh (or the
phase changes) and the move ends. Sealed bids and tax choices, revealed after the last seat's, are moves of one
decision.

Parts: the first decision (a flat decision), then two further decisions, each described in the move's context
(0: none): inside a tree option its value within its kind (1 + ``arg``; the options open share the kind); after a
step (or another ``NODE``) the next region as one of the neighbours of the last (1 .. ``max_neighbours``), or the
decision that closes the path (``CLOSING``).
"""
from __future__ import annotations

from ..core.moves import MoveGrain, MoveGrainError, MovePart
from .constants import Ctrl, Head, Phase
from .data import game_data

#: the phases whose decision is an option of the engine's decision tree (economy.py ``_open_tree``)
TREE_PHASES = frozenset({Phase.PURCHASE, Phase.DEFICIT, Phase.EVENT_EFFECT, Phase.BUILDUP, Phase.CARD_WINDOW,
                         Phase.CARD_FOLLOW, Phase.TECH_USE, Phase.TP_PAY})
#: the phases in which a technology's first decision (``TECH``) opens its activation (technologies.py)
TECH_EMBEDDED = frozenset({Phase.MOVE, Phase.WAR_TURN, Phase.TRADE})
#: the most decisions one move takes: the purchase of a unit, building or vehicle with its place
MAX_DECISIONS = 3
#: the decisions that may close a movement path (movement.py ``move_moves``, cards' W-MOVE, technologies)
CLOSING = ((Head.CTRL, (Ctrl.DONE, Ctrl.PLAY_CARD)), (Head.LOAD, range(7)), (Head.UNLOAD, range(7)),
           (Head.EMBARK, range(10)), (Head.DISEMBARK, range(10)), (Head.OBJECT, range(10)), (Head.TECH, range(24)))
NUM_CLOSING = sum(len(args) for _, args in CLOSING)


def neighbours(board) -> list[tuple[int, ...]]:
    """Each node's neighbours over land, coast and sea, in node order: the regions one step can reach."""
    return [tuple(sorted(set(board.land_adj[x]) | set(board.coast[x]) | set(board.sea_adj[x])))
            for x in range(board.num_nodes)]


class MedioevoGrain(MoveGrain):
    max_length = MAX_DECISIONS
    pointer_rows = 256  # above the most legal moves met in random play (docs/games/medioevo_universale.md)

    def __init__(self, flat):
        super().__init__(flat)
        self._offsets = flat.offsets
        self._decode = flat._decode
        board = game_data().board
        self._neighbours = neighbours(board)
        self.max_neighbours = max(map(len, self._neighbours))
        self._closing = {}  # flat index -> closing code
        for head, args in CLOSING:
            for arg in args:
                self._closing[flat.offsets[head] + arg] = len(self._closing)
        self._closing_names = {code: flat.action_name(index) for index, code in self._closing.items()}
        # the values of a later part: 0 none, then the neighbours, then the closing decisions; a tree
        # option's 1 + arg shares the range
        self._later = 1 + max(self.max_neighbours + NUM_CLOSING, max(flat.head_sizes[1:]))

    # -- where a move ends -----------------------------------------------------------------------------
    def _is_node(self, index: int) -> bool:
        return self._decode[index][0] == Head.NODE

    def may_continue(self, engine, index: int) -> bool:
        phase = engine.phase
        head = self._decode[index][0]
        if phase == Phase.MOVE and head == Head.NODE:
            return True  # a step: the path may go on
        if phase in TECH_EMBEDDED:
            return head == Head.TECH  # a technology's activation opens its tree
        if phase not in TREE_PHASES:
            return False
        depth = len(engine.prefix)
        if depth + 1 >= MAX_DECISIONS or (depth == 0 and engine.tree_lazy):
            return depth + 1 < MAX_DECISIONS
        move = self._decode[index]
        left = [option for option in engine.tree if option[depth] == move]
        return not (len(left) == 1 and len(left[0]) == depth + 1)  # not the option's last decision

    def continues(self, engine, chain: tuple[int, ...]) -> bool:
        n = len(chain)
        if n >= MAX_DECISIONS:
            return False
        phase = engine.phase
        if phase in TREE_PHASES:
            if len(engine.prefix) != n:  # the chain is not (all of) the option chosen so far
                return False
            offsets = self._offsets
            nexts = {offsets[option[n][0]] + option[n][1] for option in engine.tree if len(option) > n}
            return bool(nexts) and self._encodable(chain[-1], nexts)
        if phase == Phase.MOVE and engine.move_steps >= n and all(map(self._is_node, chain)):
            return self._encodable(chain[-1], self.flat.legal_actions(engine))  # a path: its steps so far
        return False

    def _encodable(self, previous: int, nexts) -> bool:
        """Whether every decision of ``nexts`` that may follow ``previous`` has a value of its part, each its own."""
        if self._is_node(previous):
            return all(self._code(previous, index) is not None for index in nexts)
        return len({self._decode[index][0] for index in nexts}) == 1  # one kind: its argument tells them apart

    def _code(self, previous: int, index: int) -> int | None:
        """The value of the part of decision ``index`` following ``previous`` in a move (None: it has none)."""
        if self._is_node(previous):
            head, arg = self._decode[index]
            if head == Head.NODE:
                near = self._neighbours[self._decode[previous][1]]
                return 1 + near.index(arg) if arg in near else None
            closing = self._closing.get(index)
            return None if closing is None else 1 + self.max_neighbours + closing
        return 1 + self._decode[index][1]

    # -- parts -------------------------------------------------------------------------------------------
    def parts(self) -> tuple[MovePart, ...]:
        return (MovePart("decision", self.flat.num_actions), MovePart("second", self._later),
                MovePart("third", self._later))

    def parts_of(self, chain: tuple[int, ...]) -> tuple[int, ...]:
        parts = [chain[0], 0, 0]
        for i in range(1, len(chain)):
            code = self._code(chain[i - 1], chain[i])
            if code is None:
                raise MoveGrainError(f"MedioevoGrain: no part value for {self.flat.action_name(chain[i])} after "
                                     f"{self.flat.action_name(chain[i - 1])}")
            parts[i] = code
        return tuple(parts)

    def part_value_name(self, part: int, value: int) -> str:
        """A later part's value reads in the move's context: ``[k]`` is argument k of the option's decision (after
        a step, neighbour k of the last region); a closing decision of a path adds its name."""
        if part == 0:
            return self.flat.action_name(value)
        if value == 0:
            return ""
        closing = self._closing_names.get(value - 1 - self.max_neighbours)
        return f"[{value - 1}]" if closing is None else f"[{value - 1}|{closing}]"
