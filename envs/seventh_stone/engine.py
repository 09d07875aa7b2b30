"""Rules engine of Seventh Stone: plain state and transitions, no RL terms.

Moves are ``(op, arg)`` tuples (see ``Op``); seats in moves and state are absolute. Every decision
of the rulebook that this engine leaves to a player is a move of the seat in ``current_player``;
chance (dice, shuffles, events), the tournament and forced single-option decisions run inside
``apply``. Randomness comes only from the ``numpy.random.Generator`` passed in. References G01..G46
are the gap list of ``docs/rules/seventh_stone.md`` section 12; docs/games/seventh_stone.md
lists every resolution and every deviation.

A year runs through stages (``Stage``); a stage hands decisions out by setting ``phase`` and
``actor``. Debt disbanding and fights interrupt any stage and are run first by ``_run``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..core.changes import ChangeLog
from ..core.engine import RulesEngine
from ..core.config import check_range
from ..core.errors import ConfigError, IllegalActionError
from .changes import ALLOCATIONS, CELLS, DOMAINS, PERMANENT_TS, PUBLIC
from .board import P_DESERT, P_FOREST, P_MOUNTAIN, P_PLAIN, Board, build_board
from .data import (
    BARRACKS, CAVALRY, E_AGILITY, E_BRIBERY, E_EXPLOSIVE, E_MASTER, E_POWER, E_PRECISION, E_SHIELD, E_SPEED,
    E_SUPPRESSION, E_TEAR, E_TELEPORT, EVENTS, F_BUILDING, F_CAVALRY, F_EQUIP, F_MELEE, F_MERC, F_MOVE, F_RANGED,
    F_TOURN, FOREST, MANUFACTORY, MELEE, MERCENARY_DISCHARGE, MOUNTAIN, NUM_CELLS, PLAIN, PORTAL_OPENING, QUICKSAND,
    RANGED, TEMPLE, TROOP_EXPANSION, UNIT_TYPES, VOLCANO_ERUPTION, WALL, WATER_CROSSING, GRID, num_stacks, rules,
    stone_kinds,
)


@dataclass(frozen=True)
class SeventhStoneConfig:
    """Rule options. Defaults follow the spec and docs/rules/DECISIONS.md."""

    #: section 11.1: terrain distinction (yields 3/2/1, mountain wall, cavalry and support limits).
    advanced_terrain: bool = False
    #: section 11.1 Mauerumgehung: walls cannot stop hits from ranged units.
    wall_bypass: bool = False
    #: section 11.2 Keine Zeit: 6 TS win instead of 7.
    no_time: bool = False
    #: section 11.2 Doppelzug (4 players only): a dominant movement bid doubles movement (G39).
    double_move: bool = False
    #: section 11.2 Vier Inseln (4 players only): the four-islands map of data/four_islands.json (G36).
    four_islands: bool = False
    #: G03: a building is destroyed after a fight on a roll <= this value (1..6).
    destruction_roll: int = 3
    #: Spec 13.4 option A: move orders in a row that may leave the capacity rules broken before only
    #: UNDO (or a move order that repairs the state) is left; bounds the search for a legal end state.
    max_moves_over_capacity: int = 2
    #: G10 target allocation in fights: "agent" (each roller with two or more possible targets splits his
    #: dice, a decision) or "auto" (all dice of a phase at the opponent with the most units in the field).
    dice_allocation: str = "agent"


DICE_ALLOCATION_MODES = ("agent", "auto")


def validate_config(config: SeventhStoneConfig, num_players: int) -> None:
    if not 0 <= config.destruction_roll <= 6:
        raise ConfigError(f"destruction_roll must be 0..6, got {config.destruction_roll!r}")
    check_range("max_moves_over_capacity", config.max_moves_over_capacity, 1, 10)
    if config.dice_allocation not in DICE_ALLOCATION_MODES:
        raise ConfigError(f"dice_allocation must be one of {DICE_ALLOCATION_MODES}, got {config.dice_allocation!r}")
    if config.double_move and num_players != 4:
        raise ConfigError(f"double_move is a 4-player variant (rulebook p. 13), got num_players={num_players}")
    if config.four_islands and num_players != 4:
        raise ConfigError(f"four_islands uses all 35 tiles: 4 players only, got num_players={num_players}")


class Phase:
    """Decision kinds (spec 13.3). Plain ints: they index the observation's one-hot."""

    SETUP_CAPITAL = 0
    SETUP_BARRACKS = 1
    ALLOC = 2
    DRAFT_PICK = 3
    DRAFT_DISCARD = 4
    ORDER_PICK = 5
    ORDER_ASSIGN = 6
    PLACE_ITEM = 7
    PLACE_CELL = 8
    PLACE_REPLACE = 9
    MOVE_SELECT = 10
    MOVE_TYPE = 11
    MOVE_COUNT_MIL = 12
    MOVE_COUNT_MERC = 13
    MOVE_TAKE_STONE = 14
    MOVE_DEST = 15
    KEEP_STONE = 16
    POST_OVERRUN = 17
    SUPPORT_ARMY = 18
    SUPPORT_TARGET = 19
    FIGHT_PICK = 20
    USE_EQUIPMENT = 21
    USE_WALL = 22
    CASUALTY = 23
    DISBAND = 24
    DICE_ALLOC = 25
    GAME_OVER = 26


class Op:
    """Move kinds (segments of the action codec)."""

    CELL = 0  # arg: cell
    OVERRUN = 1  # arg: cell
    REVEAL = 2  # arg: cell
    CAS_MERC = 3  # arg: cell
    ALLOC1 = 4  # arg: sheet field
    ALLOC5 = 5  # arg: sheet field
    AMOUNT = 6  # arg: count
    YESNO = 7  # arg: 0 yes, 1 no
    CHOICE = 8  # arg: slot / position
    ITEM = 9  # arg: placement item (ITEM_* or ITEM_STONE + kind)
    UTYPE = 10  # arg: unit type
    DONE = 11
    UNDO = 12


class Stage:
    SETUP_CAPITAL, SETUP_BARRACKS, EVENT, ALLOC, DRAFT, ORDER, PLACE, MOVE, POST, SUPPORT, FIGHTS, YEAR_END, OVER = \
        range(13)


_MOVEMENT_PHASES = frozenset((
    Phase.MOVE_SELECT, Phase.MOVE_TYPE, Phase.MOVE_COUNT_MIL, Phase.MOVE_COUNT_MERC, Phase.MOVE_TAKE_STONE,
    Phase.MOVE_DEST, Phase.KEEP_STONE))
# hot-path copies of some Phase, Op and Stage members: a module global is read through a cache, a class
# attribute by a lookup at every use (CPython 3.11)
_GAME_OVER, _ALLOC, _PLACE_ITEM, _KEEP_STONE = Phase.GAME_OVER, Phase.ALLOC, Phase.PLACE_ITEM, Phase.KEEP_STONE
_MOVE_SELECT, _MOVE_TYPE, _MOVE_COUNT_MIL, _MOVE_COUNT_MERC, _MOVE_TAKE_STONE, _MOVE_DEST = (
    Phase.MOVE_SELECT, Phase.MOVE_TYPE, Phase.MOVE_COUNT_MIL, Phase.MOVE_COUNT_MERC, Phase.MOVE_TAKE_STONE,
    Phase.MOVE_DEST)
_OP_CELL, _OP_REVEAL, _OP_OVERRUN, _OP_ITEM, _OP_DONE, _OP_UNDO, _OP_ALLOC1, _OP_ALLOC5 = (
    Op.CELL, Op.REVEAL, Op.OVERRUN, Op.ITEM, Op.DONE, Op.UNDO, Op.ALLOC1, Op.ALLOC5)
_STAGE_MOVE = Stage.MOVE
PHASE_NAMES = tuple(sorted((k for k, v in vars(Phase).items() if isinstance(v, int)),
                           key=lambda k: getattr(Phase, k)))
NUM_PHASES = len(PHASE_NAMES)
ITEM_BUILDING = 0  # + building type (0..2)
ITEM_UNIT = 3  # + unit type (0..2)
ITEM_MERC = 6
ITEM_STONE = 7  # + stone kind
UNDO_LIMIT = 32  # UNDOs in one movement phase; then only the way back to a legal state and DONE remain
MAX_AMOUNT = 31  # move counts 0..31 (an army would need 27 Troop expansions to exceed it)
DONE = (Op.DONE, 0)
UNDO = (Op.UNDO, 0)
YES, NO = (Op.YESNO, 0), (Op.YESNO, 1)
AMOUNTS = [(Op.AMOUNT, i) for i in range(MAX_AMOUNT + 1)]  # sliced: a slice is a new list

R = rules()
KINDS = stone_kinds()
NUM_KINDS = len(KINDS)
TEAR_KIND = next(i for i, k in enumerate(KINDS) if k.effect == E_TEAR)
HIT = (R["hit"]["melee"], R["hit"]["ranged"], R["hit"]["cavalry"])
#: RS per unit of each sheet field: a building, a unit of each type, one RS of each bid
ALLOC_COSTS = (R["building_cost"], R["unit_cost"], R["unit_cost"], R["unit_cost"], 1, 1, 1, 1)
_BUILDING_COST, _UNIT_COST = R["building_cost"], R["unit_cost"]
_CAPITAL_RS, _CAPITAL_TS, _MANUFACTORY_RS = R["capital_rs"], R["capital_ts"], R["manufactory_rs"]
_CAPITAL_BARRACKS, _UNITS_PER_BARRACKS = R["capital_barracks"], R["units_per_barracks"]
_ALLOC_MOVES: dict[int, tuple] = {}  # budget left -> legal allocation moves
MOVE = (R["move"]["melee"], R["move"]["ranged"], R["move"]["cavalry"])
MAX_ARMIES = R["max_armies_per_type"]  # per type and player


_new_army = object.__new__


class Army:
    """One player's army stone on a field: its type, units (each unit's movement points), stones."""

    __slots__ = ("owner", "utype", "mil", "merc", "stones", "teleport", "agile", "support")

    def __init__(self, owner: int, utype: int, mil: list[int], merc: list[int], stones: list[int]):
        self.owner = owner
        self.utype = utype
        self.mil = mil  # movement points left per military unit
        self.merc = merc  # movement points left per mercenary
        self.stones = stones  # hidden equipment kinds under the stone (<= 1 outside movement)
        self.teleport = False  # revealed movement effects this movement phase
        self.agile = False
        self.support = -1  # conflict cell this army supports (combat phase)

    @property
    def size(self) -> int:
        return len(self.mil) + len(self.merc)

    def __eq__(self, other) -> bool:
        # by content: the change log's test compares the map with a copy of it
        return (isinstance(other, Army) and self.owner == other.owner and self.utype == other.utype
                and self.mil == other.mil and self.merc == other.merc and self.stones == other.stones
                and self.teleport == other.teleport and self.agile == other.agile and self.support == other.support)

    __hash__ = None  # mutable

    def copy(self) -> "Army":
        a = _new_army(Army)  # every slot is set below: no __init__ call (undo checkpoints copy armies often)
        a.owner, a.utype, a.mil, a.merc, a.stones = self.owner, self.utype, self.mil[:], self.merc[:], self.stones[:]
        a.teleport, a.agile, a.support = self.teleport, self.agile, self.support
        return a

    def __repr__(self) -> str:
        return f"Army(p{self.owner} {UNIT_TYPES[self.utype]} m{len(self.mil)} s{len(self.merc)} {self.stones})"


class Fight:
    """The state of one fight (section 6.5) or overrun (6.4.9)."""

    def __init__(self, cell: int, overrun: bool, invoker: int, defender: int):
        self.cell = cell
        self.overrun = overrun
        self.invoker = invoker
        self.defender = defender
        self.stage = 0  # 0 equipment, 1 walls, 2 roll, 3 casualties, 4 end
        self.equip_queue: list[int] = []
        self.walls_left = 0
        self.walls_used = 0
        self.used: dict[int, int] = {}  # player -> revealed combat stone kind
        self.absorb_wall: dict[int, int] = {}
        self.absorb_shield: dict[int, int] = {}
        self.absorb_mountain: dict[int, int] = {}
        self.guard = 0
        self.guard_owner = -1
        self.roll_phase = 1
        self.rounds = 0
        self.hits_pending: list[list[int]] = []  # [player, hits] in turn order
        self.captured: list[int] = []
        self.suppressed = [False, False, False]
        # G10 target allocation, made at the start of each round for both of its phases
        self.aim_round = -1  # the round whose allocation has been made
        self.aims: dict[tuple[int, int], list[list[int]]] = {}  # (roller, roll phase) -> [[target, dice]]
        self.aim_queue: list[tuple[int, int, int]] = []  # (roller, roll phase, dice) still to allocate
        self.aim_idx = 0  # the target of the head of aim_queue being asked for
        self.aim_left = 0  # dice of the head of aim_queue not yet assigned


class SeventhStoneEngine(ChangeLog, RulesEngine):
    # every attribute in a slot: faster reads than the instance dict, which its size keeps from sharing keys
    __slots__ = (
        "config", "num_players", "rng", "board", "win_ts", "merc_key", "tourn_key", "offer_size",
        "yield_rs",
        # map state
        "controller", "capital_of", "buildings", "lava", "armies", "conflicts",
        # players
        "unit_max", "tourn_wins", "tear_bought", "tstones", "hands", "budget", "alloc", "committed", "revealed",
        "pend_build", "pend_units", "pend_mercs", "market_rank",
        # equipment stacks, offer, discard
        "stacks", "discard", "offer", "offer_status", "offer_taker", "stack_rotation",
        # year and order
        "year", "turn", "round_counter", "event", "order", "double_mover", "winners", "winner",
        # decision state
        "stage", "phase", "actor", "current_player", "is_over", "setup_order", "idx", "ranking", "draft_step", "order_slots", "assignee",
        "sel_item", "sel_cell", "sel_type", "sel_mil", "sel_merc", "sel_stone", "placed_at", "checkpoints",
        "broken_depth", "undos", "pending_control", "moved_done", "debt_queue", "fight",
        # caches of the rules
        "_legal", "_open_nbr", "_reach", "_crossed", "_select_moves", "_undone_moves",
        *ChangeLog.SLOTS,
    )

    def __init__(self, config: SeventhStoneConfig, num_players: int, rng: np.random.Generator,
                 board: Board | None = None):
        validate_config(config, num_players)
        self.config = config
        self.num_players = n = num_players
        self.rng = rng
        if board is None:
            board = build_board(n, config.four_islands, rng)
        self.board = board
        self.win_ts = R["no_time_win_ts"] if config.no_time else R["win_ts"]
        self.merc_key = R["mercenary_key"][str(n)]
        self.tourn_key = R["tournament_key"][str(n)]
        self.offer_size = R["equipment_offer"][str(n)]
        adv = R["advanced_yield_rs"]
        self.yield_rs = [0] * NUM_CELLS
        for cell in range(NUM_CELLS):
            t = board.terrain[cell]
            if board.yield_field[cell]:
                if config.advanced_terrain:
                    self.yield_rs[cell] = adv["plain"] if t == PLAIN else adv["forest"] if t == FOREST else adv["mountain"]
                else:
                    self.yield_rs[cell] = R["yield_rs"]

        # map state
        self.controller = [-1] * NUM_CELLS
        self.capital_of = [-1] * NUM_CELLS  # the people whose capital stands here
        self.buildings: list[list[list[int]]] = [[] for _ in range(NUM_CELLS)]  # [type, ready]
        self.lava = [False] * NUM_CELLS
        self.armies: list[list[Army]] = [[] for _ in range(NUM_CELLS)]
        self.conflicts: dict[int, int] = {}  # cell -> defender

        # players
        self.unit_max = R["start_unit_max"]
        self.tourn_wins = [0] * n
        self.tear_bought = [False] * n
        self.tstones = [0] * n
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.budget = [0] * n
        self.alloc = [[0] * 8 for _ in range(n)]  # counts on production fields, RS on market fields
        self.committed = [False] * n
        self.revealed = False
        self.pend_build = [0] * n
        self.pend_units = [[0, 0, 0] for _ in range(n)]
        self.pend_mercs = [0] * n
        self.market_rank = [[-1] * 4 for _ in range(n)]  # rank per market (0 best), -1 not ranked

        # equipment stacks, offer, discard
        total = [k for k, kind in enumerate(KINDS) for _ in range(kind.count)]
        order = rng.permutation(len(total))
        shuffled = [total[i] for i in order]
        s = num_stacks()
        self.stacks: list[list[int]] = [shuffled[i::s] for i in range(s)]
        self.discard = [0] * NUM_KINDS
        self.offer: list[int] = []
        self.offer_status: list[int] = []  # 0 available, 1 taken, 2 discarded
        self.offer_taker: list[int] = []
        self.stack_rotation = 0

        # year and order
        self.year = 0
        self.turn = 0  # completed years (the adapter's truncation counter)
        self.round_counter = 0
        self.event = -1
        self.order: list[int] = list(range(n))
        self.double_mover = -1
        self.winners: list[int] = []
        self.winner = -1

        # decision state
        self.stage = Stage.SETUP_CAPITAL
        self.phase = Phase.SETUP_CAPITAL
        self.actor = self.current_player = 0
        self.is_over = False
        self.setup_order = [int(x) for x in rng.permutation(n)]  # G29: d6 with re-rolls = uniform order
        self.idx = 0  # position within the current stage's player sequence
        self.ranking: list[int] = []  # current market ranking
        self.draft_step = 0
        self.order_slots: list[int] = [-1] * n  # position -> seat
        self.assignee = -1
        self.sel_item = -1
        self.sel_cell = -1
        self.sel_type = -1
        self.sel_mil = 0
        self.sel_merc = 0
        self.sel_stone = True
        self.placed_at = [0] * NUM_CELLS
        self.checkpoints: list[tuple] = []
        self.broken_depth = 0  # move orders since the capacity rules last held
        self.undos = 0  # UNDOs in the current movement phase
        self.pending_control: set[int] = set()
        self.moved_done = False
        self.debt_queue: list[int] = []
        self.fight: Fight | None = None
        self._legal: list | None = None
        self._open_nbr: tuple | None = None  # (lava, per cell: a free land neighbour)
        self._reach: tuple | None = None  # (key, steps per destination, water-crossing ends) of the move order
        self._select_moves: list | None = None  # MOVE_SELECT's legal moves where the current move order began
        self._undone_moves: tuple | None = None  # (map mark, MOVE_SELECT's legal moves) of the state UNDO went back to
        self.start_change_log(DOMAINS)
        self._run()

    # ---------------------------------------------------------------- RulesEngine protocol ----
    # current_player and is_over are plain attributes (slots) rather than properties, as the adapter reads
    # them at every step: the seat that decides (the actor, -1 once the game is over) and whether the game
    # is over, set wherever the actor or the end is set

    def clone(self) -> "SeventhStoneEngine":
        """An independent copy, built slot by slot by the shape of each attribute (``_CLONE_BY_SHAPE``): the move
        encodings clone the engine for every decision they follow, and ``copy.deepcopy`` walks every list of it
        (about 10 times slower). A slot of no listed shape is deep-copied."""
        twin = _new_engine(SeventhStoneEngine)
        for name in _ENGINE_SLOTS:
            try:
                value = getattr(self, name)
            except AttributeError:
                continue
            if type(value) in _IMMUTABLE:
                setattr(twin, name, value)
                continue
            copier = _CLONE_BY_SHAPE.get(name)
            setattr(twin, name, copier(value) if copier is not None else copy.deepcopy(value))
        return twin

    def placement_scores(self) -> list[float]:
        return [1.0 if p in self.winners else 0.0 for p in range(self.num_players)]

    def scores(self) -> list[int]:
        return self.all_ts()

    # ---------------------------------------------------------------------------- queries ----
    def production(self, p: int) -> int:
        """Section 4.2: P = 15 per capital + yield per yield field + 2 per manufactory."""
        total = 0
        yields, capital, buildings = self.yield_rs, self.capital_of, self.buildings
        for cell in [c for c, k in enumerate(self.controller) if k == p]:
            total += yields[cell]
            if capital[cell] >= 0:
                total += _CAPITAL_RS
            for b in buildings[cell]:
                if b[0] == MANUFACTORY:
                    total += _MANUFACTORY_RS
        return total

    def control_stats(self) -> tuple[list[int], list[int]]:
        """One pass over the controlled fields: per seat TS from control and P. Depends only on
        control, capitals and manufactories."""
        n = self.num_players
        cts, prod = [0] * n, [0] * n
        cap_rs, cap_ts, man = R["capital_rs"], R["capital_ts"], R["manufactory_rs"]
        terrain, capital, yields, blds = self.board.terrain, self.capital_of, self.yield_rs, self.buildings
        for cell, k in enumerate(self.controller):
            if k >= 0:
                v = yields[cell]
                if capital[cell] >= 0:
                    v += cap_rs
                    cts[k] += cap_ts
                if terrain[cell] == TEMPLE:
                    cts[k] += 1
                for b in blds[cell]:
                    if b[0] == MANUFACTORY:
                        v += man
                prod[k] += v
        return cts, prod

    def cell_holdings(self, cell: int) -> tuple[int, int, int, tuple[tuple[int, int, int], ...]]:
        """One field's share of ``control_stats`` and ``army_stats``: its controller, the TS and P it gives
        him (0 without one), and (owner, military units, type) per army on it."""
        k = self.controller[cell]
        ts = value = 0
        if k >= 0:
            value = self.yield_rs[cell]
            if self.capital_of[cell] >= 0:
                value += _CAPITAL_RS
                ts += _CAPITAL_TS
            if self.board.terrain[cell] == TEMPLE:
                ts += 1
            for b in self.buildings[cell]:
                if b[0] == MANUFACTORY:
                    value += _MANUFACTORY_RS
        return k, ts, value, tuple([(a.owner, len(a.mil), a.utype) for a in self.armies[cell]])

    def army_stats(self) -> tuple[list[int], list[list[int]]]:
        """Per seat U (living military units) and armies per type."""
        n = self.num_players
        upk = [0] * n
        types = [[0, 0, 0] for _ in range(n)]
        for here in self.armies:
            for a in here:
                upk[a.owner] += len(a.mil)
                types[a.owner][a.utype] += 1
        return upk, types

    def upkeep(self, p: int) -> int:
        """U: living military units of p."""
        return sum([len(a.mil) for here in self.armies if here for a in here if a.owner == p])

    def controlled_ts(self, p: int) -> int:
        total = 0
        capital, terrain = self.capital_of, self.board.terrain
        for cell in [c for c, k in enumerate(self.controller) if k == p]:
            if capital[cell] >= 0:
                total += _CAPITAL_TS
            if terrain[cell] == TEMPLE:
                total += 1
        return total

    def permanent_ts(self, p: int) -> int:
        return self.tourn_wins[p] + (1 if self.tear_bought[p] else 0)

    def ts(self, p: int) -> int:
        """Section 4.3: 3 per capital + 1 per temple + tournament wins + the bought tear stone."""
        return self.controlled_ts(p) + self.permanent_ts(p)

    def all_ts(self) -> list[int]:
        """``ts`` of every seat, from one pass over the map."""
        return [cts + self.permanent_ts(p) for p, cts in enumerate(self.control_stats()[0])]

    def armies_of(self, p: int) -> list[tuple[int, Army]]:
        return [(cell, a) for cell in range(NUM_CELLS) for a in self.armies[cell] if a.owner == p]

    def army_at(self, cell: int, p: int, utype: int = -1) -> Army | None:
        for a in self.armies[cell]:
            if a.owner == p and (utype < 0 or a.utype == utype):
                return a
        return None

    def ready_barracks(self, cell: int) -> int:
        if self.capital_of[cell] >= 0:
            return _CAPITAL_BARRACKS
        blds = self.buildings[cell]
        return len([b for b in blds if b[0] == BARRACKS and b[1]]) if blds else 0

    def stone_count(self) -> int:
        """Every equipment stone: stacks, offer, hands, under armies, discard, the bought tear stone."""
        total = sum(len(s) for s in self.stacks) + sum(self.discard) + sum(self.tear_bought)
        total += sum(1 for st in self.offer_status if st == 0)
        total += sum(sum(h) for h in self.hands)
        total += sum(len(a.stones) for cell in self.armies for a in cell)
        if self.fight is not None:
            total += len(self.fight.captured)  # stones of destroyed armies, for the fight's winner
        return total

    def enemy_army(self, cell: int, p: int) -> bool:
        for a in self.armies[cell]:
            if a.owner != p:
                return True
        return False

    def capacity_ok(self, p: int, stones_too: bool = True) -> bool:
        """Section 4.4: army, mercenary, unit, equipment and army-count maximums for player p."""
        per_type = [0, 0, 0]
        unit_max = self.unit_max
        for cell in filter(None, self.armies):
            seen = False
            for a in cell:
                if a.owner != p:
                    continue
                if seen:
                    return False
                seen = True
                m, s = len(a.mil), len(a.merc)
                if s > m or m + s > unit_max or (stones_too and len(a.stones) > 1):
                    return False
                per_type[a.utype] += 1
        return max(per_type) <= MAX_ARMIES

    # -------------------------------------------------------------------------- legality ----
    def legal_moves(self) -> list[tuple[int, int]]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[tuple[int, int]]:
        if self.phase == _GAME_OVER:
            return []
        return _LEGAL_BY_PHASE[self.phase](self, self.actor)

    # one method per decision kind (spec 13.3), looked up by phase in _LEGAL_BY_PHASE
    def _setup_moves(self, p: int) -> list[tuple[int, int]]:
        yields, controller = self.board.yield_field, self.controller
        return [(Op.CELL, c) for c in range(NUM_CELLS) if yields[c] and controller[c] < 0]

    def _alloc_moves(self, p: int) -> list[tuple[int, int]]:
        left = self.budget_left(p)
        moves = _ALLOC_MOVES.get(left)
        if moves is None:  # they depend on the budget left only
            moves = [DONE]
            for f in range(8):
                if ALLOC_COSTS[f] <= left:
                    moves.append((_OP_ALLOC1, f))
                if 5 * ALLOC_COSTS[f] <= left:
                    moves.append((_OP_ALLOC5, f))
            moves = _ALLOC_MOVES[left] = tuple(moves)
        return list(moves)

    def _offer_moves(self, p: int) -> list[tuple[int, int]]:
        return [(Op.CHOICE, i) for i, st in enumerate(self.offer_status) if st == 0]

    def _order_moves(self, p: int) -> list[tuple[int, int]]:
        return [(Op.CHOICE, i) for i in range(self.num_players) if self.order_slots[i] < 0]

    def _place_item_moves(self, p: int) -> list[tuple[int, int]]:
        return [DONE] + [(_OP_ITEM, it) for it in self._placeable_items(p)]

    def _place_cell_moves(self, p: int) -> list[tuple[int, int]]:
        return [(_OP_CELL, c) for c in self._place_cells(p, self.sel_item)]

    def _two_choices(self, p: int) -> list[tuple[int, int]]:
        return [(Op.CHOICE, 0), (Op.CHOICE, 1)]

    def _yes_no(self, p: int) -> list[tuple[int, int]]:
        return [YES, NO]

    def _move_type_moves(self, p: int) -> list[tuple[int, int]]:
        return [(Op.UTYPE, a.utype) for a in self.armies[self.sel_cell] if a.owner == p and self._movable(a)]

    def _move_mil_moves(self, p: int) -> list[tuple[int, int]]:
        a = self._sel_army()  # units with movement points left (MP are never negative)
        k = len(a.mil) - a.mil.count(0)
        lo = 0 if a.merc.count(0) < len(a.merc) else 1
        return AMOUNTS[lo:min(k, MAX_AMOUNT) + 1]

    def _move_merc_moves(self, p: int) -> list[tuple[int, int]]:
        a = self._sel_army()
        k = len(a.merc) - a.merc.count(0)
        lo = 0 if self.sel_mil > 0 else 1
        return AMOUNTS[lo:min(k, MAX_AMOUNT) + 1]

    def _move_dest_moves(self, p: int) -> list[tuple[int, int]]:
        return [(_OP_CELL, c) for c in self._move_destinations(p)]

    def _keep_stone_moves(self, p: int) -> list[tuple[int, int]]:
        a = self._double_stone_army(p)
        return [(Op.ITEM, ITEM_STONE + k) for k in sorted(set(a.stones))]

    def _post_overrun_moves(self, p: int) -> list[tuple[int, int]]:
        return [DONE] + [(Op.OVERRUN, c) for c in self._overrun_cells(p)]

    def _support_army_moves(self, p: int) -> list[tuple[int, int]]:
        return [DONE] + [(Op.CELL, c) for c, a in self.armies_of(p)
                         if a.support == -1 and c not in self.conflicts and self._support_targets(c, a)]

    def _support_target_moves(self, p: int) -> list[tuple[int, int]]:
        a = self.army_at(self.sel_cell, p)
        return [DONE] + [(Op.CELL, c) for c in self._support_targets(self.sel_cell, a)]

    def _fight_pick_moves(self, p: int) -> list[tuple[int, int]]:
        return [(Op.CELL, c) for c in self._open_conflicts_of(p)]

    def _disband_moves(self, p: int) -> list[tuple[int, int]]:
        return [(Op.CELL, c) for c in self._disband_cells(p)]

    def _dice_moves(self, p: int) -> list[tuple[int, int]]:
        return AMOUNTS[:min(self.fight.aim_left, MAX_AMOUNT) + 1]

    def budget_left(self, p: int) -> int:
        building, melee, ranged, cavalry, bid1, bid2, bid3, bid4 = self.alloc[p]
        return (self.budget[p] - building * _BUILDING_COST - (melee + ranged + cavalry) * _UNIT_COST
                - bid1 - bid2 - bid3 - bid4)  # a bid RS costs 1 (ALLOC_COSTS)

    # ------------------------------------------------------------------------ transitions ----
    def play(self, move: tuple[int, int]) -> None:
        """Apply a move after checking it is legal; the state is unchanged on error."""
        move = (int(move[0]), int(move[1]))
        if move not in self.legal_moves():
            raise IllegalActionError(f"move {move} is illegal in phase {PHASE_NAMES[self.phase]} "
                                     f"for seat {self.actor}")
        self.apply(move)

    def apply(self, move: tuple[int, int]) -> None:
        """Apply a move known to be legal, then every forced or automatic step after it."""
        self._apply_one(move)
        self._legal = None
        while self.phase != _GAME_OVER:
            legal = self._legal = _LEGAL_BY_PHASE[self.phase](self, self.actor)  # legal_moves(), inlined
            if len(legal) != 1:
                break
            self._apply_one(legal[0])  # a forced decision (spec 13.1.3)
            self._legal = None
        self.stamp_changes()

    def _apply_one(self, move: tuple[int, int]) -> None:
        op, arg = move
        ph = self.phase
        p = self.actor
        if ph in _MOVEMENT_PHASES:  # the most frequent decisions first
            if not self._apply_movement(p, op, arg):
                self._run()
            return
        if ph == _ALLOC:  # the next most frequent decisions
            if op == _OP_DONE:
                self.committed[p] = True
                self.changed(PUBLIC)
                self.idx += 1
            else:
                self.alloc[p][arg] += 1 if op == _OP_ALLOC1 else 5
                self.changed(ALLOCATIONS)
                return
        elif ph == Phase.SETUP_CAPITAL:
            self.controller[arg] = p
            self.capital_of[arg] = p
            self.changed_in(CELLS, arg)
            self.idx += 1
        elif ph == Phase.SETUP_BARRACKS:
            self.controller[arg] = p
            self.buildings[arg].append([BARRACKS, 1])  # G30: ready in year 1
            self.changed_in(CELLS, arg)
            self.idx += 1
        elif ph == Phase.DRAFT_PICK:
            self._take_offer(p, arg)
            if self.num_players < 4 and self.draft_step == 0:
                self.draft_step = 1
                if any(st == 0 for st in self.offer_status):
                    self.phase = Phase.DRAFT_DISCARD
                    return
            self.draft_step = 1
            self.idx += 1
        elif ph == Phase.DRAFT_DISCARD:
            self.offer_status[arg] = 2
            self.discard[self.offer[arg]] += 1
            self.changed(PUBLIC)
            self.idx += 1
        elif ph == Phase.ORDER_PICK:
            self.order_slots[arg] = p
            self.idx += 1
        elif ph == Phase.ORDER_ASSIGN:
            self.order_slots[arg] = self.assignee
        elif ph == _PLACE_ITEM:
            if op == _OP_DONE:
                self._end_placement(p)
            else:
                self.sel_item = arg
                self.phase = Phase.PLACE_CELL
                return
        elif ph == Phase.PLACE_CELL:
            self.sel_cell = arg
            if self.sel_item < ITEM_UNIT and len(self.buildings[arg]) >= R["max_buildings"]:
                self.phase = Phase.PLACE_REPLACE
                return
            self._place(p, self.sel_item, arg, -1)
        elif ph == Phase.PLACE_REPLACE:
            self._place(p, self.sel_item, self.sel_cell, arg)
        elif ph == Phase.POST_OVERRUN:
            if op == _OP_DONE:
                self.idx += 1
            else:
                self._start_overrun(p, arg)
        elif ph == Phase.SUPPORT_ARMY:
            if op == _OP_DONE:
                self.idx += 1
            else:
                self.sel_cell = arg
                self.phase = Phase.SUPPORT_TARGET
                return
        elif ph == Phase.SUPPORT_TARGET:
            # DONE declines: that army supports nobody this year (so declaring always ends)
            self.army_at(self.sel_cell, p).support = arg if op != _OP_DONE else -2
            self.changed_in(CELLS, self.sel_cell)
        elif ph == Phase.FIGHT_PICK:
            self._start_fight(arg, overrun=False, invoker=p)
        elif ph == Phase.USE_EQUIPMENT:
            self._answer_equipment(p, arg == 0)
        elif ph == Phase.USE_WALL:
            f = self.fight
            f.walls_left -= 1
            if arg == 0:
                f.walls_used += 1
                f.absorb_wall[f.defender] = f.absorb_wall.get(f.defender, 0) + R["wall_absorb"]
        elif ph == Phase.CASUALTY:
            self._remove_casualty(p, arg, merc=(op == Op.CAS_MERC))
        elif ph == Phase.DISBAND:
            self._disband_one(p, arg)
        elif ph == Phase.DICE_ALLOC:
            self._aim(arg)
        self._run()

    # ---------------------------------------------------------------------- main loop ----
    def _run(self) -> None:
        """Run automatic steps until a player must decide (sets phase and actor)."""
        while True:
            if self.debt_queue:
                p = self.debt_queue[0]
                if self.upkeep(p) <= self.production(p) or not self._disband_cells(p):
                    self.debt_queue.pop(0)
                    continue
                self.phase = Phase.DISBAND
                self.actor = self.current_player = p
                return
            if self.fight is not None:
                if self._fight_run():
                    return
                continue
            if self._stage_run():
                return

    def _stage_run(self) -> bool:
        st = self.stage
        n = self.num_players
        # the movement stage first: most decisions are taken there
        if st == _STAGE_MOVE:
            if self.idx < n:
                p = self.order[self.idx]
                if not self.moved_done:  # p's movement phase starts: a hard checkpoint
                    self._reset_mp(p)
                    self.moved_done = True
                    self.checkpoints = []
                    self.pending_control = set()
                    self.broken_depth = 0
                    self.undos = 0
                self.phase = _MOVE_SELECT
                self.actor = self.current_player = p
                return True
            self.stage, self.idx = Stage.POST, 0
            return False
        if st == Stage.SETUP_CAPITAL:
            if self.idx < n:
                self.phase = Phase.SETUP_CAPITAL
                self.actor = self.current_player = self.setup_order[self.idx]
                return True
            self.stage, self.idx = Stage.SETUP_BARRACKS, 0
            return False
        if st == Stage.SETUP_BARRACKS:
            if self.idx < n:
                self.phase = Phase.SETUP_BARRACKS
                self.actor = self.current_player = self.setup_order[n - 1 - self.idx]
                return True
            self.stage = Stage.EVENT
            return False
        if st == Stage.EVENT:
            self._start_year()
            self.stage, self.idx = Stage.ALLOC, 0
            return False
        if st == Stage.ALLOC:
            if self.idx < n:
                self.phase = Phase.ALLOC
                self.actor = self.current_player = self.idx
                return True
            self._reveal_and_mercenaries()
            self.stage, self.idx, self.draft_step = Stage.DRAFT, 0, 0
            self.ranking = self._rank(F_EQUIP)
            return False
        if st == Stage.DRAFT:
            return self._draft_run()
        if st == Stage.ORDER:
            return self._order_run()
        if st == Stage.PLACE:
            if self.idx < n:
                self.phase = _PLACE_ITEM
                self.actor = self.current_player = self.order[self.idx]
                return True
            self.stage, self.idx = _STAGE_MOVE, 0
            self._begin_movement()
            return False
        if st == Stage.POST:
            if self.idx < n:
                self.phase = Phase.POST_OVERRUN
                self.actor = self.current_player = self.order[self.idx]
                return True
            self.stage, self.idx = Stage.SUPPORT, 0
            return False
        if st == Stage.SUPPORT:
            if self.idx < n:
                self.phase = Phase.SUPPORT_ARMY
                self.actor = self.current_player = self.order[self.idx]
                return True
            self.stage, self.idx = Stage.FIGHTS, 0
            return False
        if st == Stage.FIGHTS:
            while self.idx < n:
                p = self.order[self.idx]
                if self._open_conflicts_of(p):
                    self.phase = Phase.FIGHT_PICK
                    self.actor = self.current_player = p
                    return True
                self.idx += 1
            if self.conflicts:  # conflicts with nobody left in the field (G40)
                cell = min(self.conflicts)
                self._start_fight(cell, overrun=False, invoker=-1)
                return False
            self.stage = Stage.YEAR_END
            return False
        if st == Stage.YEAR_END:
            self._end_year()
            return self.phase == _GAME_OVER
        raise AssertionError(f"unknown stage {st}")

    # ---------------------------------------------------------------- year start (6.1, 6.2) ----
    def _start_year(self) -> None:
        self.changed(PUBLIC | ALLOCATIONS)
        self.year += 1
        for c in range(NUM_CELLS):
            if self.lava[c]:
                self.changed_in(CELLS, c)
            for bld in self.buildings[c]:
                if not bld[1]:
                    bld[1] = 1
                    self.changed_in(CELLS, c)
            for a in self.armies[c]:
                if a.support != -1:
                    a.support = -1
                    self.changed_in(CELLS, c)
        self.lava = [False] * NUM_CELLS
        self.event = int(self.rng.integers(6))  # G04
        ev = self.event
        if ev == VOLCANO_ERUPTION:
            for cell in self.board.eruption_targets(self.rng, R["lava_counters"]):
                self.changed_in(CELLS, cell)
                self.lava[cell] = True
                for a in self.armies[cell]:
                    for k in a.stones:
                        self.discard[k] += 1  # G13
                self.armies[cell] = []
        elif ev == QUICKSAND:
            for cell in range(NUM_CELLS):
                if self.board.terrain[cell] == 6 and self.armies[cell]:  # desert fields only
                    self.changed_in(CELLS, cell)
                    kept = []
                    for a in self.armies[cell]:
                        agility = [k for k in a.stones if KINDS[k].effect == E_AGILITY]
                        if agility:
                            a.stones.remove(agility[0])
                            self.discard[agility[0]] += 1
                            kept.append(a)
                        else:
                            for k in a.stones:
                                self.discard[k] += 1
                    self.armies[cell] = kept
        elif ev == TROOP_EXPANSION:
            self.unit_max += 1
        elif ev == MERCENARY_DISCHARGE:
            for c, here in enumerate(self.armies):
                for a in here:
                    if a.merc:
                        a.merc = []
                        self.changed_in(CELLS, c)
        # A) regeneration: budget B = P - U
        n = self.num_players
        for p in range(n):
            self.budget[p] = self.production(p) - self.upkeep(p)
            self.alloc[p] = [0] * 8
            self.market_rank[p] = [-1] * 4
        self.committed = [False] * n
        self.revealed = False
        self.double_mover = -1
        # B) equipment offer (G23, G11)
        self._deal_offer()

    def _deal_offer(self) -> None:
        stacks = self.stacks
        want = self.offer_size
        if any(len(s) == 0 for s in stacks):
            pool = [k for s in stacks for k in s]
            pool += [k for k in range(NUM_KINDS) for _ in range(self.discard[k])]
            self.discard = [0] * NUM_KINDS
            order = self.rng.permutation(len(pool))
            pool = [pool[i] for i in order]
            s = len(stacks)
            self.stacks = stacks = [pool[i::s] for i in range(s)]
        self.offer = []
        for j in range(len(stacks)):
            if len(self.offer) == want:
                break
            s = stacks[(self.stack_rotation + j) % len(stacks)]
            if s:
                self.offer.append(s.pop())
        if want < len(stacks):
            self.stack_rotation = (self.stack_rotation + want) % len(stacks)
        self.offer_status = [0] * len(self.offer)
        self.offer_taker = [-1] * len(self.offer)

    def _rank(self, field: int) -> list[int]:
        """Section 6.2.4: bidders (>= 1) by bid, then TS (G42), then a die roll."""
        bidders = [p for p in range(self.num_players) if self.alloc[p][field] >= 1]
        ts = self.all_ts() if bidders else []
        keys = {p: (-self.alloc[p][field], -ts[p], float(self.rng.random())) for p in bidders}
        ranking = sorted(bidders, key=keys.__getitem__)
        for r, p in enumerate(ranking):
            self.market_rank[p][field - F_MERC] = r
        self.changed(PUBLIC)
        return ranking

    def _reveal_and_mercenaries(self) -> None:
        self.revealed = True
        self.changed(PUBLIC)
        n = self.num_players
        for p in range(n):
            a = self.alloc[p]
            self.pend_build[p] = a[F_BUILDING]
            self.pend_units[p] = [a[F_MELEE], a[F_RANGED], a[F_CAVALRY]]
            self.pend_mercs[p] = 0
        for r, p in enumerate(self._rank(F_MERC)):
            if r < len(self.merc_key):
                self.pend_mercs[p] = self.merc_key[r]

    def _take_offer(self, p: int, slot: int) -> None:
        kind = self.offer[slot]
        self.offer_status[slot] = 1
        self.offer_taker[slot] = p
        self.changed(PUBLIC)
        if kind == TEAR_KIND:
            self.tear_bought[p] = True  # revealed at once: +1 permanent TS
            self.changed(PERMANENT_TS)
        else:
            self.hands[p][kind] += 1

    def _draft_run(self) -> bool:
        """Section 6.2.6 (4 players) and 10 / G11 (2-3 players)."""
        while self.idx < len(self.ranking):
            if not any(st == 0 for st in self.offer_status):
                break
            self.phase = Phase.DRAFT_PICK
            self.actor = self.current_player = self.ranking[self.idx]
            return True
        for i, st in enumerate(self.offer_status):
            if st == 0:
                self.offer_status[i] = 2
                self.discard[self.offer[i]] += 1
        self.changed(PUBLIC)  # the offer's rest discarded; the movement market ranked, the double mover
        self.stage, self.idx = Stage.ORDER, 0
        self.ranking = self._rank(F_MOVE)
        self.order_slots = [-1] * self.num_players
        if not self.ranking:
            self.order_slots = [int(x) for x in self.rng.permutation(self.num_players)]
        elif self.config.double_move:
            top = self.ranking[0]
            bid = self.alloc[top][F_MOVE]
            rest = sum(self.alloc[q][F_MOVE] for q in range(self.num_players) if q != top)
            if bid >= max(1, rest):
                self.double_mover = top
        return False

    def _order_run(self) -> bool:
        """Section 6.2.7: bidders pick positions; rank 1 seats the excluded players."""
        if self.idx < len(self.ranking):
            self.phase = Phase.ORDER_PICK
            self.actor = self.current_player = self.ranking[self.idx]
            return True
        seated = set(self.order_slots)
        for q in range(self.num_players):
            if q not in seated:
                self.assignee = q
                self.phase = Phase.ORDER_ASSIGN
                self.actor = self.current_player = self.ranking[0]
                return True
        self.assignee = -1
        self.order = list(self.order_slots)
        self.changed(PUBLIC)  # the turn order, the tournament ranking and stones
        for r, p in enumerate(self._rank(F_TOURN)):
            if r < len(self.tourn_key):
                self.tstones[p] += self.tourn_key[r]
        self.stage, self.idx = Stage.PLACE, 0
        self.placed_at = [0] * NUM_CELLS
        return False

    # -------------------------------------------------------------------- placement (6.3) ----
    def _placeable_items(self, p: int) -> list[int]:
        """Items p may still place somewhere (the conditions of ``_place_cells``, from one pass over p's
        fields and one over p's armies)."""
        items = []
        lava = self.lava
        fields = [c for c, k in enumerate(self.controller) if k == p and not lava[c]]
        own = [(c, a) for c, here in enumerate(self.armies) if here for a in here if a.owner == p]
        if self.pend_build[p] > 0:
            yields, capital = self.board.yield_field, self.capital_of
            if any([yields[c] and capital[c] < 0 for c in fields]):
                items += (ITEM_BUILDING, ITEM_BUILDING + 1, ITEM_BUILDING + 2)
        pend = self.pend_units[p]
        if pend[0] > 0 or pend[1] > 0 or pend[2] > 0:
            items += self._placeable_unit_types(p, pend, fields, own)
        hand = self.hands[p]
        if self.pend_mercs[p] <= 0 and not any(hand):
            return items
        merc_ok = False
        free_types = [False, False, False]  # own armies without a stone, per type
        unit_max = self.unit_max
        for c, a in own:
            if lava[c]:
                continue
            if not merc_ok and len(a.merc) + 1 <= len(a.mil) and a.size < unit_max:
                merc_ok = True
            if not a.stones:
                free_types[a.utype] = True
        if self.pend_mercs[p] > 0 and merc_ok:
            items.append(ITEM_MERC)
        for k in range(NUM_KINDS):
            if hand[k] > 0:
                types = KINDS[k].types
                if (free_types[0] and types[0]) or (free_types[1] and types[1]) or (free_types[2] and types[2]):
                    items.append(ITEM_STONE + k)
        return items

    def _placeable_unit_types(self, p: int, pend: list[int], fields: list[int], own: list) -> list[int]:
        """ITEM_UNIT + t for every pending unit type t with a cell for it (as ``_place_cells``), given p's
        fields without lava and p's armies."""
        wanted = [t for t in range(3) if pend[t] > 0]
        n_type = [0, 0, 0]
        army_of: dict[int, Army] = {}  # per cell p's first army there (as army_at)
        for c, a in own:
            n_type[a.utype] += 1
            army_of.setdefault(c, a)
        placed, unit_max = self.placed_at, self.unit_max
        found = set()
        for c in fields:
            rb = self.ready_barracks(c)
            if rb == 0 or placed[c] >= _UNITS_PER_BARRACKS * rb:
                continue
            army = army_of.get(c)
            if army is None:
                found.update(t for t in wanted if n_type[t] < MAX_ARMIES)
            elif army.size < unit_max:
                found.add(army.utype)
            if len(found) == 3:
                break
        return [ITEM_UNIT + t for t in wanted if t in found]

    def _place_cells(self, p: int, item: int) -> list[int]:
        """Cells where p may place item (section 6.3)."""
        out = []
        b = self.board
        ctrl = self.controller
        lava = self.lava
        if item < ITEM_UNIT:
            yields, capital = b.yield_field, self.capital_of
            return [c for c, k in enumerate(ctrl) if k == p and yields[c] and capital[c] < 0 and not lava[c]]
        if item < ITEM_MERC:
            t = item - ITEM_UNIT
            n_type = len([a for here in self.armies if here for a in here if a.owner == p and a.utype == t])
            placed = self.placed_at
            for c in [c for c, k in enumerate(ctrl) if k == p and not lava[c]]:
                rb = self.ready_barracks(c)
                if rb == 0 or placed[c] >= _UNITS_PER_BARRACKS * rb:
                    continue
                own = self.army_at(c, p)
                if own is None:
                    if n_type >= MAX_ARMIES:
                        continue
                elif own.utype != t or own.size >= self.unit_max:
                    continue
                out.append(c)
            return out
        for c in range(NUM_CELLS):
            if lava[c]:
                continue
            for a in self.armies[c]:
                if a.owner != p:
                    continue
                if item == ITEM_MERC:
                    ok = len(a.merc) + 1 <= len(a.mil) and a.size < self.unit_max
                else:
                    ok = not a.stones and KINDS[item - ITEM_STONE].types[a.utype]
                if ok:
                    out.append(c)
        return out

    def _place(self, p: int, item: int, cell: int, replace: int) -> None:
        self.changed_in(CELLS, cell)
        self.changed(PUBLIC)  # what p has left to place
        if item < ITEM_UNIT:
            self.pend_build[p] -= 1
            blds = self.buildings[cell]
            if replace >= 0:
                blds.pop(replace)  # G16: a replaced manufactory costs its production (debt below)
            blds.append([item - ITEM_BUILDING, 1 if item - ITEM_BUILDING == MANUFACTORY else 0])
            if self.upkeep(p) > self.production(p):
                self.debt_queue.append(p)
        elif item < ITEM_MERC:
            t = item - ITEM_UNIT
            self.pend_units[p][t] -= 1
            self.placed_at[cell] += 1
            own = self.army_at(cell, p)
            if own is None:
                self.armies[cell].append(Army(p, t, [0], [], []))
            else:
                own.mil.append(0)
        elif item == ITEM_MERC:
            self.pend_mercs[p] -= 1
            self.army_at(cell, p).merc.append(0)
        else:
            k = item - ITEM_STONE
            self.hands[p][k] -= 1
            self.army_at(cell, p).stones.append(k)

    def _end_placement(self, p: int) -> None:
        """Unplaced production and mercenaries expire; equipment stays in hand (G20)."""
        self.pend_build[p] = 0
        self.pend_units[p] = [0, 0, 0]
        self.pend_mercs[p] = 0
        self.changed(PUBLIC)
        self.placed_at = [0] * NUM_CELLS
        self.idx += 1

    # --------------------------------------------------------------------- movement (6.4) ----
    def _begin_movement(self) -> None:
        self.checkpoints = []
        self.pending_control = set()
        self.moved_done = False

    def _reset_mp(self, p: int) -> None:
        mult = 2 if p == self.double_mover else 1  # G39
        for c, cell in enumerate(self.armies):
            for a in cell:
                if a.owner == p:
                    self.changed_in(CELLS, c)
                    mp = MOVE[a.utype] * mult
                    a.mil = [mp] * len(a.mil)
                    a.merc = [mp] * len(a.merc)
                    a.teleport = a.agile = False

    def _movable(self, a: Army) -> bool:
        # a unit with points left (movement points are never negative)
        return a.mil.count(0) < len(a.mil) or a.merc.count(0) < len(a.merc)

    def _sel_army(self) -> Army:
        return self.army_at(self.sel_cell, self.actor, self.sel_type)

    def _move_select_moves(self, p: int) -> list[tuple[int, int]]:
        undone = self._undone_moves
        if undone is not None:
            self._undone_moves = None
            if undone[0] == self._map_mark() and self.undos < UNDO_LIMIT:
                return list(undone[1])  # UNDO restored the state they were computed for
        if self.undos >= UNDO_LIMIT:  # bounds a movement phase: back to a legal state, then DONE
            return [DONE] if self.capacity_ok(p, stones_too=False) else [UNDO]
        if self.broken_depth >= self.config.max_moves_over_capacity:
            moves = [DONE] if self.capacity_ok(p, stones_too=False) else []
            return moves + [UNDO] if self.checkpoints else moves
        # one pass over p's armies: the capacity rules (as capacity_ok(p, stones_too=False)), the
        # armies that can move and those that carry a movement stone
        conflicts = self.conflicts
        open_nbr = self._open_neighbours()
        unit_max = self.unit_max
        ok = single_stones = True
        per_type = [0, 0, 0]
        moves = []
        reveals = []
        last = -1  # the cell of the previous army of p (p's armies come in cell order)
        for c, a in [(c, a) for c, here in enumerate(self.armies) if here for a in here if a.owner == p]:
            mil, merc = a.mil, a.merc
            if ok:
                m, s = len(mil), len(merc)
                if c == last or s > m or m + s > unit_max:
                    ok = False
                per_type[a.utype] += 1
            last = c
            if len(a.stones) > 1:
                single_stones = False
            if ((not moves or moves[-1][1] != c) and c not in conflicts
                    and (mil.count(0) < len(mil) or merc.count(0) < len(merc))):
                # a free neighbouring land cell is always a destination; otherwise search
                if open_nbr[c] or self._destinations(p, c, 1, a.teleport, a.agile, a.utype, True):
                    moves.append((_OP_CELL, c))
            if a.stones and (not reveals or reveals[-1][1] != c):
                for k in a.stones:
                    if KINDS[k].is_movement:
                        reveals.append((_OP_REVEAL, c))
                        break
        if ok and max(per_type) > MAX_ARMIES:
            ok = False
        if ok:
            moves.append(DONE)
            moves += reveals  # a hard checkpoint: only from a legal state (13.4)
            if single_stones and conflicts:
                moves += [(_OP_OVERRUN, c) for c in self._overrun_cells(p)]
        if self.checkpoints:
            moves.append(UNDO)
        moves.sort()
        return moves

    def _open_neighbours(self) -> list[bool]:
        """Per cell: has an orthogonal land neighbour without lava (cached while the lava stays)."""
        lava = self.lava
        if self._open_nbr is None or self._open_nbr[0] != lava:
            land, ortho = self.board.land, self.board.ortho
            self._open_nbr = (lava[:], [any(land[q] and not lava[q] for q in ortho[c]) for c in range(NUM_CELLS)])
        return self._open_nbr[1]

    def _overrun_cells(self, p: int) -> list[int]:
        """Section 6.4.9 / G17: own units >= 2x all enemy units (city guards included) in a conflict."""
        out = []
        for c in self.conflicts:
            mine = others = 0
            for a in self.armies[c]:
                if a.owner == p:
                    mine += a.size
                else:
                    others += a.size
            if self.capital_of[c] >= 0 and self.controller[c] >= 0:
                if self.controller[c] == p:
                    mine += R["city_guard"]
                else:
                    others += R["city_guard"]
            if mine > 0 and others > 0 and mine >= 2 * others:
                out.append(c)
        out.sort()
        return out

    def _snapshot(self, cells: tuple[int, int], select_moves: list | None = None) -> tuple:
        """What one move order can change: the armies of its two cells, control, conflicts; with the legal
        MOVE_SELECT moves of this state when known, and the place in the cells' change log."""
        return ([(c, [a.copy() for a in self.armies[c]]) for c in cells], self.controller[:], dict(self.conflicts),
                set(self.pending_control), self.broken_depth, select_moves, self.item_mark(CELLS))

    def _restore(self, snap: tuple, report: bool = True) -> list | None:
        """Undo to a snapshot (consumed: its armies are put back, not copied); returns its MOVE_SELECT moves.
        ``report``: the cells that may differ are reported (not after a trial whose changes were never reported);
        for a snapshot of the move in progress, the cells named since are forgotten instead (all put back)."""
        armies, controller, conflicts, pending, self.broken_depth, select_moves, mark = snap
        if report and not self.forget_items(CELLS, mark):
            for c, _ in armies:
                self.changed_in(CELLS, c)
            if controller != self.controller:
                for c in range(NUM_CELLS):
                    if controller[c] != self.controller[c]:
                        self.changed_in(CELLS, c)
            if conflicts != self.conflicts:
                for c in set(conflicts) | set(self.conflicts):
                    if conflicts.get(c) != self.conflicts.get(c):
                        self.changed_in(CELLS, c)
        for c, saved in armies:
            self.armies[c] = saved
        self.controller = controller
        self.conflicts = conflicts
        self.pending_control = pending
        return select_moves

    def _apply_movement(self, p: int, op: int, arg: int) -> bool:
        """Returns True while the move order waits for a further sub-decision."""
        ph = self.phase
        if ph == _MOVE_SELECT:
            if op == _OP_DONE:
                if self._double_stone_army(p) is not None:
                    self.phase = _KEEP_STONE
                    return True
                self._end_movement(p)
                return False
            if op == _OP_UNDO:
                moves = self._restore(self.checkpoints.pop())
                self.undos += 1
                if moves is not None:  # the state is again the one where these moves were legal
                    self._undone_moves = (self._map_mark(), moves)
                return False
            if op == _OP_REVEAL:
                self._reveal(p, arg)
                self.checkpoints = []  # a revealed stone is public: hard checkpoint
                return False
            if op == _OP_OVERRUN:
                self.checkpoints = []
                self._start_overrun(p, arg)
                return False
            self.sel_cell = arg
            self._select_moves = self._legal  # computed for this state (None if apply() came first)
            self._reach = None  # a new move order
            types = [a.utype for a in self.armies[arg] if a.owner == p and self._movable(a)]
            if len(types) > 1:
                self.phase = _MOVE_TYPE
                return True
            self.sel_type = types[0]
            self.phase = _MOVE_COUNT_MIL
            return True
        if ph == _MOVE_TYPE:
            self.sel_type = arg
            self.phase = _MOVE_COUNT_MIL
            return True
        if ph == _MOVE_COUNT_MIL:
            self.sel_mil = arg
            self.phase = _MOVE_COUNT_MERC
            return True
        if ph == _MOVE_COUNT_MERC:
            self.sel_merc = arg
            a = self._sel_army()
            self.sel_stone = True
            if a.stones and self.sel_mil + self.sel_merc < a.size:
                self.phase = _MOVE_TAKE_STONE
                return True
            self.phase = _MOVE_DEST
            return True
        if ph == _MOVE_TAKE_STONE:
            self.sel_stone = arg == 0
            self.phase = _MOVE_DEST
            return True
        if ph == _MOVE_DEST:
            self._move(p, arg)
            return False
        if ph == _KEEP_STONE:
            a = self._double_stone_army(p)
            keep = arg - ITEM_STONE
            for k in a.stones:
                self.discard[k] += 1
            self.discard[keep] -= 1
            a.stones = [keep]
            self.changed_in(CELLS, next(c for c, here in enumerate(self.armies) if a in here))  # the army's cell
            self.changed(PUBLIC)  # the discard pile
            if self._double_stone_army(p) is not None:
                return True
            self._end_movement(p)
            return False
        raise AssertionError(ph)

    def _double_stone_army(self, p: int) -> Army | None:
        for cell in self.armies:
            for a in cell:
                if a.owner == p and len(a.stones) > 1:
                    return a
        return None

    def _reveal(self, p: int, cell: int) -> None:
        """Section 6.4.5: reveal the movement stone under an own army; it is discarded at once."""
        for a in self.armies[cell]:
            if a.owner != p:
                continue
            for k in a.stones:
                kind = KINDS[k]
                if kind.is_movement:
                    a.stones.remove(k)
                    self.discard[k] += 1
                    if kind.effect == E_TELEPORT:
                        a.teleport = True
                    elif kind.effect == E_AGILITY:
                        a.agile = True
                    elif kind.effect == E_SPEED:
                        a.mil = [mp + kind.value for mp in a.mil]
                        a.merc = [mp + kind.value for mp in a.merc]
                    self.changed_in(CELLS, cell)
                    self.changed(PUBLIC)  # the discard pile
                    return

    def _group_mp(self, a: Army, k_mil: int, k_merc: int) -> int:
        """Movement points of the group of units with the most points left: its slowest unit's."""
        if k_mil + a.mil.count(0) > len(a.mil) or k_merc + a.merc.count(0) > len(a.merc):
            # more units than have points left (never asked by the legal amounts): the slowest with points
            mps = []
            if k_mil:
                mps += sorted([mp for mp in a.mil if mp > 0], reverse=True)[:k_mil]
            if k_merc:
                mps += sorted([mp for mp in a.merc if mp > 0], reverse=True)[:k_merc]
            return min(mps)
        # the k-th most points of each kind (points are never negative)
        if not k_merc:
            return sorted(a.mil, reverse=True)[k_mil - 1]
        merc = sorted(a.merc, reverse=True)[k_merc - 1]
        return min(sorted(a.mil, reverse=True)[k_mil - 1], merc) if k_mil else merc

    def _map_mark(self) -> tuple[int, int]:
        """The map's place in the change log: every change of a cell is named there, so the mark moves with each
        (and goes back with an undo within one move); the key of the legal moves an UNDO goes back to."""
        return self.item_log_epoch, len(self.item_logs[CELLS])

    def _reach_of_selection(self, p: int) -> tuple[dict[int, int], set[int]]:
        """Destinations of the selected move order (steps used) and the water-crossing ends among them;
        computed once for the mask, its capacity trials and the move itself (the map stays as it is from the
        selection on, where the cache is cleared)."""
        a = self._sel_army()
        mp = self._group_mp(a, self.sel_mil, self.sel_merc)
        key = (p, self.sel_cell, mp, a.teleport, a.agile, a.utype)
        if self._reach is None or self._reach[0] != key:
            dests = self._destinations(p, self.sel_cell, mp, a.teleport, a.agile, a.utype, False)
            self._reach = (key, dests, self._crossed)
        return self._reach[1], self._reach[2]

    def _move_destinations(self, p: int) -> list[int]:
        dests = self._reach_of_selection(p)[0]
        out = []
        margins: dict[int, int] = {}
        controller = self.controller
        for c in sorted(dests):
            q = controller[c]  # only a field of another player can be taken from him (_takes_with_debt)
            if (q >= 0 and q != p and self._takes_with_debt(p, c, margins)
                    and not self._capacity_after_move(p, c)):
                continue  # spec 13.4: a move that forces a disband needs a legal state after it
            out.append(c)
        return out

    def _destinations(self, p: int, src: int, mp: int, teleport: bool, agile: bool, utype: int,
                      any_one: bool) -> dict[int, int]:
        """Section 6.4.3: cells reachable from src within mp steps -> steps used (BFS)."""
        b = self.board
        land, lava = b.land, self.lava
        water = self.event == WATER_CROSSING or agile
        crossing = b.crossing_agile if agile else b.crossing
        portals_open = self.event == PORTAL_OPENING
        cav_limit = self.config.advanced_terrain and utype == CAVALRY
        conflicts, ortho, portal = self.conflicts, b.ortho, b.portal
        dist = {src: 0}
        crossed = self._crossed = set()
        frontier = [src]
        steps = 0
        while frontier and steps < mp:
            steps += 1
            nxt = []
            for c in frontier:
                if c != src:
                    if c in conflicts or self.enemy_army(c, p):
                        continue  # ends there: an enemy army or a conflict stops the move
                if cav_limit and steps == 2 and b.printed[c] not in (P_PLAIN, P_DESERT):
                    continue  # advanced: cavalry moves on only from a plain or desert
                nbrs = ortho[c]
                if portal[c]:
                    nbrs = list(nbrs)
                    for q in b.portal_cells:
                        if q != c and (teleport or portals_open or portal[q] == portal[c]):
                            nbrs.append(q)
                for q in nbrs:
                    if q in dist or not land[q] or lava[q]:
                        continue
                    dist[q] = steps
                    if any_one:
                        return dist
                    nxt.append(q)
                if water:
                    for q in crossing[c]:
                        if q not in dist and not lava[q]:
                            dist[q] = steps  # a crossing ends the move (G12): not expanded
                            crossed.add(q)
                            if any_one:
                                return dist
            frontier = nxt
        del dist[src]
        return dist

    def _takes_with_debt(self, p: int, c: int, margins: dict[int, int]) -> bool:
        """Taking c from its controller q would leave q with U > P; margins caches P - U per seat."""
        q = self.controller[c]
        if q < 0 or q == p or not self.board.controllable[c] or self.enemy_army(c, p) or self.capital_of[c] >= 0:
            return False
        value = self.yield_rs[c] + sum([_MANUFACTORY_RS for bl in self.buildings[c] if bl[0] == MANUFACTORY])
        margin = margins.get(q)
        if margin is None:
            margin = margins[q] = self.production(q) - self.upkeep(q)
        return value > margin

    def _capacity_after_move(self, p: int, c: int) -> bool:
        """Whether the capacity rules hold after the selected move order to c: tried and taken back (no change)."""
        snap = self._snapshot((self.sel_cell, c))
        self._move_units(p, c)
        ok = self.capacity_ok(p)
        self._restore(snap, report=False)
        return ok

    def _move_units(self, p: int, dest: int) -> Army:
        """The selected units go from the selected cell to dest (the caller reports the change)."""
        a = self._sel_army()
        src = self.sel_cell
        dests, crossed = self._reach_of_selection(p)
        dist = dests[dest]
        water_end = dest in crossed
        a.mil.sort(reverse=True)
        a.merc.sort(reverse=True)
        mil, a.mil = a.mil[:self.sel_mil], a.mil[self.sel_mil:]
        merc, a.merc = a.merc[:self.sel_merc], a.merc[self.sel_merc:]
        whole = a.size == 0
        stones = []
        if whole or self.sel_stone:
            stones, a.stones = a.stones, []
        if whole:
            self.armies[src].remove(a)
        conflict = self.enemy_army(dest, p) or (self.capital_of[dest] >= 0 and self.controller[dest] not in (-1, p))
        if conflict and not water_end:
            left = [mp - dist for mp in mil] + [mp - dist for mp in merc]
            mil, merc = left[:len(mil)], left[len(mil):]
        else:
            mil, merc = [0] * len(mil), [0] * len(merc)  # G25: a move order is atomic
        group = Army(p, a.utype, mil, merc, stones)
        group.teleport, group.agile = a.teleport, a.agile
        same = self.army_at(dest, p, a.utype)
        if same is not None:
            same.mil += group.mil
            same.merc += group.merc
            same.stones += group.stones
            same.teleport |= group.teleport
            same.agile |= group.agile
            return same
        self.armies[dest].append(group)
        return group

    def _move(self, p: int, dest: int) -> None:
        self.checkpoints.append(self._snapshot((self.sel_cell, dest), self._select_moves))
        self._move_units(p, dest)
        self.changed_in(CELLS, self.sel_cell)
        self.changed_in(CELLS, dest)
        self.broken_depth = 0 if self.capacity_ok(p, stones_too=False) else self.broken_depth + 1
        conflict = self.enemy_army(dest, p) or (self.capital_of[dest] >= 0 and self.controller[dest] not in (-1, p))
        if conflict:
            if dest not in self.conflicts:
                self.conflicts[dest] = self._defender(dest, p)
        elif self.board.controllable[dest] and self.controller[dest] != p:
            if self._set_control(dest, p):
                self.checkpoints = []  # the other player's disbanding cannot be undone (13.4)

    def _defender(self, cell: int, mover: int) -> int:
        """G07: the controller; on a desert the player whose army was there first."""
        if self.board.controllable[cell] and self.controller[cell] >= 0:
            return self.controller[cell]
        for a in self.armies[cell]:
            if a.owner != mover:
                return a.owner
        return mover

    def _set_control(self, cell: int, p: int) -> bool:
        """p takes control of cell; returns whether that leaves its former controller in debt (queued)."""
        q = self.controller[cell]
        self.controller[cell] = p
        self.changed_in(CELLS, cell)
        if q >= 0 and q != p and self.upkeep(q) > self.production(q):
            self.debt_queue.append(q)
            return True
        return False

    def _end_movement(self, p: int) -> None:
        for c in sorted(self.pending_control):
            if self.army_at(c, p) is not None and c not in self.conflicts and self.board.controllable[c]:
                self._set_control(c, p)
        for c, cell in enumerate(self.armies):
            for a in cell:
                if a.owner == p:
                    a.mil = [0] * len(a.mil)
                    a.merc = [0] * len(a.merc)
                    self.changed_in(CELLS, c)
        self.pending_control = set()
        self.checkpoints = []
        self.moved_done = False
        self.idx += 1

    # ------------------------------------------------------------------------ debt (4.2) ----
    def _disband_cells(self, p: int) -> list[int]:
        return [c for c in range(NUM_CELLS) if any(a.owner == p and a.mil for a in self.armies[c])]

    def _disband_one(self, p: int, cell: int) -> None:
        """G31: one military unit per RS of shortfall; surplus mercenaries leave too."""
        self.changed_in(CELLS, cell)
        for a in self.armies[cell]:
            if a.owner == p and a.mil:
                a.mil.pop()
                while len(a.merc) > len(a.mil):
                    a.merc.pop()
                if a.size == 0:
                    for k in a.stones:
                        self.discard[k] += 1
                    self.changed(PUBLIC)  # the discard pile
                    self.armies[cell].remove(a)
                break

    # ---------------------------------------------------------------------- combat (6.5) ----
    def _support_targets(self, cell: int, a: Army) -> list[int]:
        """Section 6.5.1: cavalry orthogonal + portal, ranged also diagonal; advanced terrain limits."""
        if a is None or a.utype == MELEE:
            return []
        b = self.board
        conf = self.conflicts
        if not conf:
            return []
        cand = set(b.ortho[cell])
        if a.utype == RANGED:
            cand.update(b.diag[cell])
        if b.portal[cell]:
            portals_open = self.event == PORTAL_OPENING  # G35
            cand.update(q for q in b.portal_cells if q != cell and (portals_open or b.portal[q] == b.portal[cell]))
        adv = self.config.advanced_terrain
        if adv and a.utype == RANGED and b.printed[cell] == P_MOUNTAIN:
            for mid, far in b.line2[cell]:
                if b.terrain[mid] not in (1, 7):  # G34: water or the volcano blocks the line
                    cand.add(far)
        out = []
        for c in cand:
            if c not in conf:
                continue
            if adv:
                if b.printed[c] == P_FOREST and a.utype != CAVALRY:
                    continue
                if b.printed[c] == P_MOUNTAIN and a.utype != RANGED:
                    continue
            out.append(c)
        out.sort()
        return out

    def _open_conflicts_of(self, p: int) -> list[int]:
        return sorted(c for c in self.conflicts if any(a.owner == p for a in self.armies[c]))

    def _in_field(self, cell: int) -> dict[int, int]:
        """Units per player in the conflict field, city guard included."""
        out: dict[int, int] = {}
        for a in self.armies[cell]:
            if a.size:
                out[a.owner] = out.get(a.owner, 0) + a.size
        f = self.fight
        if f is not None and f.cell == cell and f.guard > 0:
            out[f.guard_owner] = out.get(f.guard_owner, 0) + f.guard
        return out

    def _start_overrun(self, p: int, cell: int) -> None:
        self._start_fight(cell, overrun=True, invoker=p)

    def _start_fight(self, cell: int, overrun: bool, invoker: int) -> None:
        defender = self.conflicts.get(cell, -1)
        f = Fight(cell, overrun, invoker, defender)
        self.fight = f
        if self.capital_of[cell] >= 0 and self.controller[cell] >= 0:
            present = [a for a in self.armies[cell] if a.owner != self.controller[cell] and a.size]
            if present:  # city guard (6.5.8) only against attackers
                f.guard, f.guard_owner = R["city_guard"], self.controller[cell]
        if overrun:
            f.stage = 2
            return
        f.equip_queue = [q for q in self.order if any(
            a.owner == q and any(KINDS[k].is_combat for k in a.stones) for a in self.armies[cell])]
        f.stage = 0

    def _fight_run(self) -> bool:
        f = self.fight
        while True:
            if f.stage == 0:  # step 1: combat equipment, in turn order
                while f.equip_queue:
                    q = f.equip_queue[0]
                    if any(a.owner == q and any(KINDS[k].is_combat for k in a.stones) for a in self.armies[f.cell]):
                        self.phase = Phase.USE_EQUIPMENT
                        self.actor = self.current_player = q
                        return True
                    f.equip_queue.pop(0)
                f.stage = 1
                d = f.defender
                alive = self._in_field(f.cell)
                if d >= 0 and d == self.controller[f.cell] and d in alive:
                    f.walls_left = sum(1 for bl in self.buildings[f.cell] if bl[0] == WALL and bl[1])
                if self.config.advanced_terrain and self.board.terrain[f.cell] == MOUNTAIN and d >= 0:
                    f.absorb_mountain[d] = 1  # G34
            if f.stage == 1:  # step 3: walls
                if f.walls_left > 0:
                    self.phase = Phase.USE_WALL
                    self.actor = self.current_player = f.defender
                    return True
                f.stage = 2
            if f.stage == 2:
                if len(self._in_field(f.cell)) <= 1:
                    f.stage = 4
                    continue
                if f.roll_phase == 1 and f.aim_round != f.rounds:
                    self._plan_aims(f)
                if f.aim_queue:
                    self.phase = Phase.DICE_ALLOC
                    self.actor = self.current_player = f.aim_queue[0][0]
                    return True
                self._roll(f)
                f.stage = 3
            if f.stage == 3:
                while f.hits_pending:
                    q, hits = f.hits_pending[0]
                    options = self._casualty_moves(q)
                    if hits <= 0 or not options:
                        f.hits_pending.pop(0)
                        continue
                    total = self._casualty_pool(q)
                    if len(options) == 1 or hits >= total:
                        if len(options) == 1:
                            op, c = options[0]
                            self._remove_casualty(q, c, merc=(op == Op.CAS_MERC))
                        else:
                            self._remove_all(q)
                        continue
                    self.phase = Phase.CASUALTY
                    self.actor = self.current_player = q
                    return True
                f.roll_phase = 2 if f.roll_phase == 1 else 1
                if f.roll_phase == 1:
                    f.rounds += 1
                f.stage = 2
                continue
            if f.stage == 4:
                self._end_fight(f)
                return False

    def _answer_equipment(self, p: int, use: bool) -> None:
        f = self.fight
        f.equip_queue.pop(0)
        if not use:
            return
        a = next(a for a in self.armies[f.cell] if a.owner == p and any(KINDS[k].is_combat for k in a.stones))
        k = next(k for k in a.stones if KINDS[k].is_combat)
        a.stones.remove(k)
        self.discard[k] += 1
        f.used[p] = k
        eff = KINDS[k].effect
        self.changed_in(CELLS, f.cell)  # the stone; what bribery and explosives take
        self.changed(PUBLIC)  # the discard pile
        if eff == E_BRIBERY:
            for other in self.armies[f.cell]:
                if other.owner != p:
                    other.merc = []
            self.armies[f.cell] = [x for x in self.armies[f.cell] if x.size]
        elif eff == E_EXPLOSIVE:
            self.buildings[f.cell] = [bl for bl in self.buildings[f.cell] if bl[0] != WALL]
        elif eff == E_SUPPRESSION:
            for t in range(3):
                if KINDS[k].types[t]:
                    f.suppressed[t] = True
        elif eff == E_SHIELD:
            f.absorb_shield[p] = f.absorb_shield.get(p, 0) + KINDS[k].value

    def _supporters(self, f: Fight) -> list[tuple[int, Army]]:
        if f.overrun:
            return []
        return [(c, a) for c in range(NUM_CELLS) for a in self.armies[c]
                if a.support == f.cell and not f.suppressed[a.utype] and a.size]

    def _dice(self, f: Fight, phase1: bool) -> dict[int, list[tuple[int, int, bool]]]:
        """The dice of one fight phase (6.5.5) per roller: [(count, hit threshold, master strike)]."""
        cell = f.cell
        dice: dict[int, list[tuple[int, int, bool]]] = {}

        def add(q: int, count: int, threshold: int, master: bool) -> None:
            if count > 0:
                dice.setdefault(q, []).append((count, threshold, master))

        for a in self.armies[cell]:
            if not a.size:
                continue
            used = f.used.get(a.owner, -1)
            eff = KINDS[used].effect if used >= 0 else -1
            fits = used >= 0 and KINDS[used].types[a.utype]
            if (a.utype == RANGED) != phase1:
                continue
            count = a.size + (2 if eff == E_POWER and fits else 0)
            threshold = HIT[a.utype] + (1 if eff == E_PRECISION and fits else 0)
            add(a.owner, count, threshold, eff == E_MASTER and fits)
        if not phase1 and f.guard > 0:
            add(f.guard_owner, f.guard, R["hit"]["guard"], False)
        for _, a in self._supporters(f):
            if phase1 and a.utype == RANGED:
                add(a.owner, a.size, R["hit"]["support_ranged"], False)
            elif not phase1 and a.utype == CAVALRY:
                add(a.owner, a.size, R["hit"]["support_cavalry"], False)
        return dice

    def _plan_aims(self, f: Fight) -> None:
        """G10: at the start of a round, in turn order, every roller with two or more possible targets
        (players with units in the field) splits his dice of each phase among them, as counts per
        target in seat order; the last target takes the rest."""
        f.aim_round = f.rounds
        f.aims = {}
        f.aim_queue = []
        if self.config.dice_allocation != "agent":
            return
        alive = self._in_field(f.cell)
        phases = ((1, self._dice(f, True)), (2, self._dice(f, False)))
        for q in self.order:
            targets = sorted(t for t in alive if t != q)
            if len(targets) < 2:
                continue
            for roll_phase, dice in phases:
                total = sum(count for count, _, _ in dice.get(q, ()))
                if total:
                    f.aims[(q, roll_phase)] = [[t, 0] for t in targets]
                    f.aim_queue.append((q, roll_phase, total))
        if f.aim_queue:
            f.aim_idx, f.aim_left = 0, f.aim_queue[0][2]

    def _aim(self, count: int) -> None:
        """DICE_ALLOC: count more dice at the target asked for; AMOUNT(MAX_AMOUNT) with dice left asks
        again for the same target, so that every split of any number of dice is reachable."""
        f = self.fight
        q, roll_phase, _ = f.aim_queue[0]
        slots = f.aims[(q, roll_phase)]
        slots[f.aim_idx][1] += count
        f.aim_left -= count
        if count < MAX_AMOUNT or f.aim_left == 0:
            f.aim_idx += 1
        if f.aim_idx >= len(slots) - 1 or f.aim_left == 0:
            slots[-1][1] += f.aim_left  # the rest goes to the last target
            f.aim_queue.pop(0)
            if f.aim_queue:
                f.aim_idx, f.aim_left = 0, f.aim_queue[0][2]

    @staticmethod
    def _deal(dice: list[tuple[int, int, bool]], slots: list[list[int]]) -> list[tuple[int, int, int, bool]]:
        """Dice of one roller to his allocated targets: the better dice (higher hit threshold) to the
        first-listed targets; the last target takes whatever is left, so that fewer dice than allocated
        (phase-1 casualties) cut the allocation back from the last-listed target (G10)."""
        want = [dice_count for _, dice_count in slots]
        last = len(slots) - 1
        pieces = []
        i = 0
        for count, threshold, master in sorted(dice, key=lambda d: -d[1]):
            while count:
                while i < last and want[i] == 0:
                    i += 1
                take = count if i == last else min(count, want[i])
                want[i] -= take
                count -= take
                pieces.append((slots[i][0], take, threshold, master))
        return pieces

    def _roll(self, f: Fight) -> None:
        """One fight phase (6.5.5): every die rolled at once; casualties removed afterwards."""
        alive = self._in_field(f.cell)
        order_pos = {q: i for i, q in enumerate(self.order)}
        phase1 = f.roll_phase == 1
        dice = self._dice(f, phase1)
        received: dict[int, int] = {}
        for q in sorted(dice, key=order_pos.__getitem__):
            slots = f.aims.get((q, f.roll_phase))
            if slots is None:
                targets = [t for t in alive if t != q]
                if not targets:
                    continue
                # one possible target, or dice_allocation="auto": the strongest opponent (ties: turn order)
                target = max(targets, key=lambda t: (alive[t], -order_pos[t]))
                pieces = [(target, count, threshold, master) for count, threshold, master in dice[q]]
            else:
                pieces = self._deal(dice[q], slots)
            for target, count, threshold, master in pieces:
                rolls = self.rng.integers(1, 7, size=count).tolist()  # counted in Python: a few dice
                hits = len([r for r in rolls if r <= threshold])
                if master:
                    ones = rolls.count(1)
                    if ones:
                        extra = self.rng.integers(1, 7, size=ones).tolist()  # same target; extra dice do not chain
                        hits += len([r for r in extra if r <= threshold])
                if hits and target in alive:  # hits on a target already out of the field are lost
                    received[target] = received.get(target, 0) + hits
        pending = []
        for q in sorted(received, key=order_pos.__getitem__):
            hits = received[q]
            if not (self.config.wall_bypass and phase1):
                w = min(hits, f.absorb_wall.get(q, 0))
                hits -= w
                f.absorb_wall[q] = f.absorb_wall.get(q, 0) - w
            s = min(hits, f.absorb_shield.get(q, 0))
            hits -= s
            f.absorb_shield[q] = f.absorb_shield.get(q, 0) - s
            m = min(hits, f.absorb_mountain.get(q, 0))
            hits -= m
            f.absorb_mountain[q] = f.absorb_mountain.get(q, 0) - m
            if hits > 0:
                pending.append([q, hits])
        f.hits_pending = pending

    def _casualty_armies(self, p: int) -> list[tuple[int, Army]]:
        f = self.fight
        out = [(f.cell, a) for a in self.armies[f.cell] if a.owner == p and a.size]
        out += [(c, a) for c, a in self._supporters(f) if a.owner == p and a.utype == CAVALRY]
        return out

    def _casualty_moves(self, p: int) -> list[tuple[int, int]]:
        """Section 6.5.6: own units in the field or own supporting cavalry, keeping s <= m."""
        moves = []
        for c, a in self._casualty_armies(p):
            if a.merc:
                moves.append((Op.CAS_MERC, c))
            if a.mil and len(a.merc) <= len(a.mil) - 1:
                moves.append((Op.CELL, c))
        if not moves and self.fight.guard > 0 and self.fight.guard_owner == p:
            moves.append((Op.CELL, self.fight.cell))  # the city guard: last resort
        moves.sort()
        return moves

    def _casualty_pool(self, p: int) -> int:
        f = self.fight
        total = sum(a.size for _, a in self._casualty_armies(p))
        if f.guard_owner == p:
            total += f.guard
        return total

    def _remove_all(self, p: int) -> None:
        f = self.fight
        for c, a in self._casualty_armies(p):
            a.mil, a.merc = [], []
            self._army_destroyed(c, a)
        if f.guard_owner == p:
            f.guard = 0
        f.hits_pending.pop(0)

    def _remove_casualty(self, p: int, cell: int, merc: bool) -> None:
        f = self.fight
        a = next((x for c, x in self._casualty_armies(p) if c == cell), None)
        self.changed_in(CELLS, cell)
        if a is None or (not a.size):
            f.guard -= 1  # the city guard
        elif merc:
            a.merc.pop()
        else:
            a.mil.pop()
        if a is not None and a.size == 0:
            self._army_destroyed(cell, a)
        f.hits_pending[0][1] -= 1
        if f.hits_pending[0][1] <= 0:
            f.hits_pending.pop(0)

    def _army_destroyed(self, cell: int, a: Army) -> None:
        self.changed_in(CELLS, cell)
        if a in self.armies[cell]:
            self.armies[cell].remove(a)
        self.fight.captured += a.stones  # G14: unused stones go to the fight's winner
        a.stones = []

    def _end_fight(self, f: Fight) -> None:
        cell = f.cell
        f.guard = 0
        alive = self._in_field(cell)
        winner = next(iter(alive)) if len(alive) == 1 else f.defender
        self.fight = None
        self.conflicts.pop(cell, None)
        self.changed_in(CELLS, cell)  # the conflict, the buildings; the supporters that withdraw below
        if f.captured:
            self.changed(PUBLIC)  # to the winner's hand or the discard pile
            if winner >= 0:
                for k in f.captured:
                    self.hands[winner][k] += 1
            else:
                for k in f.captured:
                    self.discard[k] += 1
        if winner >= 0 and self.board.controllable[cell] and self.controller[cell] != winner:
            in_own_phase = (f.overrun and self.stage == Stage.MOVE and winner == f.invoker
                            and self.idx < self.num_players and self.order[self.idx] == winner)
            if in_own_phase:
                self.pending_control.add(cell)  # G17: control if he still stands there at his END
            else:
                self._set_control(cell, winner)
        if not f.overrun:
            blds = [bl for bl in self.buildings[cell]]
            if f.walls_used:
                removed = 0
                kept = []
                for bl in blds:
                    if bl[0] == WALL and bl[1] and removed < f.walls_used:
                        removed += 1
                        continue
                    kept.append(bl)
                blds = kept
            survivors = []
            for bl in blds:
                if int(self.rng.integers(1, 7)) > self.config.destruction_roll:
                    survivors.append(bl)
            self.buildings[cell] = survivors
            owner = self.controller[cell]
            if owner >= 0 and self.upkeep(owner) > self.production(owner):
                self.debt_queue.append(owner)
        for c in range(NUM_CELLS):
            for a in self.armies[c]:
                if a.support == cell:
                    a.support = -1
                    self.changed_in(CELLS, c)
        if f.overrun and self.stage == Stage.MOVE:
            self.checkpoints = []  # dice were rolled: hard checkpoint (13.4)

    # ------------------------------------------------------------------ end of year (6.6, 8) ----
    def _end_year(self) -> None:
        self.round_counter += 1
        self.changed(PUBLIC)
        if self.round_counter >= R["tournament_every"]:
            self.round_counter = 0
            self._tournament()
        self.turn += 1
        ts = self.all_ts()
        rich = [p for p in range(self.num_players) if ts[p] >= self.win_ts]
        if rich:
            best = max(ts[p] for p in rich)  # G19
            rich = [p for p in rich if ts[p] == best]
            perm = max(self.permanent_ts(p) for p in rich)
            self.winners = [p for p in rich if self.permanent_ts(p) == perm]
            self.winner = self.winners[0]
            self.phase = Phase.GAME_OVER
            self.is_over = True
            self.stage = Stage.OVER
            self.actor = self.current_player = -1
            return
        self.stage = Stage.EVENT

    def _tournament(self) -> None:
        """Section 6.6 and G11: bracket by tournament stones; the final winner gets 1 TS."""
        n = self.num_players
        st = self.tstones
        ranked = sorted(range(n), key=lambda p: (-st[p], float(self.rng.random())))
        if n == 4:
            w1 = self._duel(ranked[0], ranked[3])
            w2 = self._duel(ranked[1], ranked[2])
            champion = self._duel(w1, w2)
        elif n == 3:
            w1 = self._duel(ranked[1], ranked[2])
            champion = self._duel(w1, ranked[0])
        else:
            champion = self._duel(ranked[0], ranked[1])
        self.tourn_wins[champion] += 1
        self.tstones = [0] * n
        self.changed(PERMANENT_TS | PUBLIC)

    def _duel(self, a: int, b: int) -> int:
        """Section 6.6.3: 5 LE each; hit on 1-3; damage 1 + floor(diff / 2) for the richer (G43)."""
        sa, sb = self.tstones[a], self.tstones[b]
        da = 1 + (sa - sb) // 2 if sa > sb else 1
        db = 1 + (sb - sa) // 2 if sb > sa else 1
        la = lb = R["tournament_life"]
        hit = R["tournament_hit"]
        while la > 0 and lb > 0:
            ra, rb = int(self.rng.integers(1, 7)), int(self.rng.integers(1, 7))
            if ra <= hit:
                lb -= da
            if rb <= hit:
                la -= db
        if la <= 0 and lb <= 0:
            if sa != sb:
                return a if sa > sb else b
            return a if int(self.rng.integers(1, 7)) <= 3 else b
        return a if lb <= 0 else b

    # ------------------------------------------------------------------------- rendering ----
    def render_text(self) -> str:
        b = self.board
        lines = [f"year {self.year}  event {EVENTS[self.event] if self.event >= 0 else '-'}  phase "
                 f"{PHASE_NAMES[self.phase]}  to move: seat {self.current_player}  order {self.order}  "
                 f"unit max {self.unit_max}"]
        for r in range(b.num_rows):
            row = []
            for c in range(b.num_cols):
                cell = r * GRID + c
                t = b.terrain[cell]
                ch = ".~PFMTDV"[t]
                if b.portal[cell]:
                    ch = ch.lower()
                ctrl = self.controller[cell]
                tag = (str(ctrl) if ctrl >= 0 else " ") + ("C" if self.capital_of[cell] >= 0 else " ")
                tag += "L" if self.lava[cell] else ("!" if cell in self.conflicts else " ")
                units = "".join(f"{a.owner}{'mrc'[a.utype]}{len(a.mil)}+{len(a.merc)}" for a in self.armies[cell])
                bl = "".join("bmw"[x[0]] for x in self.buildings[cell])
                row.append(f"{ch}{tag}{bl:2s}{units:10s}")
            lines.append(" | ".join(row))
        for p in range(self.num_players):
            lines.append(f"seat {p}: TS {self.ts(p)}  P {self.production(p)}  U {self.upkeep(p)}  "
                         f"tournament stones {self.tstones[p]}  wins {self.tourn_wins[p]}  hand {sum(self.hands[p])}")
        if self.winners:
            lines.append(f"winner(s): {self.winners}")
        return "\n".join(lines)


_new_engine = object.__new__
_ENGINE_SLOTS = SeventhStoneEngine.__slots__
_IMMUTABLE = frozenset((int, bool, str, type(None)))


def _shared(value):
    return value


def _flat_copy(value):
    return value.copy() if value is not None else None


def _nested_copy(value):
    return [item[:] for item in value]


def _generator_copy(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of the random generator at its state; it shares the seed sequence, from which the
    engine never spawns (3 times faster than ``copy_generator``, which copies the sequence too)."""
    bits = rng.bit_generator
    twin = type(bits)(bits.seed_seq)
    twin.state = bits.state
    return np.random.Generator(twin)


def _checkpoint_copy(snap: tuple) -> tuple:
    """A snapshot of ``_snapshot``: its armies and control are put back by ``_restore``, so they are copied."""
    armies, controller, conflicts, pending, depth, select_moves, mark = snap
    return ([(c, [a.copy() for a in saved]) for c, saved in armies], controller[:], dict(conflicts), set(pending),
            depth, select_moves, mark)


# how clone() copies each slot: shared when never changed in place (the map, the rules tables, caches that are
# replaced rather than changed), else a copy as deep as the slot's lists go
_CLONE_BY_SHAPE = {
    "config": _shared, "board": _shared, "merc_key": _shared, "tourn_key": _shared, "yield_rs": _shared,
    "change_domains": _shared, "_open_nbr": _shared, "_reach": _shared, "_crossed": _shared,
    "_undone_moves": _shared, "_select_moves": _shared, "_legal": _shared,
    "rng": _generator_copy,
    "controller": _flat_copy, "capital_of": _flat_copy, "lava": _flat_copy, "conflicts": _flat_copy,
    "tourn_wins": _flat_copy, "tear_bought": _flat_copy, "tstones": _flat_copy, "budget": _flat_copy,
    "committed": _flat_copy, "pend_build": _flat_copy, "pend_mercs": _flat_copy, "discard": _flat_copy,
    "offer": _flat_copy, "offer_status": _flat_copy, "offer_taker": _flat_copy, "order": _flat_copy,
    "winners": _flat_copy, "setup_order": _flat_copy, "ranking": _flat_copy, "order_slots": _flat_copy,
    "placed_at": _flat_copy, "pending_control": _flat_copy, "debt_queue": _flat_copy,
    "stamps": _flat_copy, "revisions": _flat_copy,
    "hands": _nested_copy, "alloc": _nested_copy, "pend_units": _nested_copy, "market_rank": _nested_copy,
    "stacks": _nested_copy,
    "buildings": lambda cells: [[building[:] for building in here] for here in cells],
    "armies": lambda cells: [[army.copy() for army in here] for here in cells],
    "checkpoints": lambda snaps: [_checkpoint_copy(snap) for snap in snaps],
    "item_logs": lambda logs: {bit: log[:] for bit, log in logs.items()},
}


_LEGAL_BY_PHASE = {
    Phase.SETUP_CAPITAL: SeventhStoneEngine._setup_moves,
    Phase.SETUP_BARRACKS: SeventhStoneEngine._setup_moves,
    Phase.ALLOC: SeventhStoneEngine._alloc_moves,
    Phase.DRAFT_PICK: SeventhStoneEngine._offer_moves,
    Phase.DRAFT_DISCARD: SeventhStoneEngine._offer_moves,
    Phase.ORDER_PICK: SeventhStoneEngine._order_moves,
    Phase.ORDER_ASSIGN: SeventhStoneEngine._order_moves,
    Phase.PLACE_ITEM: SeventhStoneEngine._place_item_moves,
    Phase.PLACE_CELL: SeventhStoneEngine._place_cell_moves,
    Phase.PLACE_REPLACE: SeventhStoneEngine._two_choices,
    Phase.MOVE_SELECT: SeventhStoneEngine._move_select_moves,
    Phase.MOVE_TYPE: SeventhStoneEngine._move_type_moves,
    Phase.MOVE_COUNT_MIL: SeventhStoneEngine._move_mil_moves,
    Phase.MOVE_COUNT_MERC: SeventhStoneEngine._move_merc_moves,
    Phase.MOVE_TAKE_STONE: SeventhStoneEngine._yes_no,
    Phase.MOVE_DEST: SeventhStoneEngine._move_dest_moves,
    Phase.KEEP_STONE: SeventhStoneEngine._keep_stone_moves,
    Phase.POST_OVERRUN: SeventhStoneEngine._post_overrun_moves,
    Phase.SUPPORT_ARMY: SeventhStoneEngine._support_army_moves,
    Phase.SUPPORT_TARGET: SeventhStoneEngine._support_target_moves,
    Phase.FIGHT_PICK: SeventhStoneEngine._fight_pick_moves,
    Phase.USE_EQUIPMENT: SeventhStoneEngine._yes_no,
    Phase.USE_WALL: SeventhStoneEngine._yes_no,
    Phase.CASUALTY: SeventhStoneEngine._casualty_moves,
    Phase.DISBAND: SeventhStoneEngine._disband_moves,
    Phase.DICE_ALLOC: SeventhStoneEngine._dice_moves,
}
