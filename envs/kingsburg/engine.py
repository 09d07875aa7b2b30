"""Rules engine of Kingsburg (2nd edition): plain state and transitions, no RL terms.

Moves are ``(op, arg)`` tuples (see ``Op``). Every decision of the rules is a move of the seat in
``current_player``; automatic steps (events, rolls, rewards without a choice, battles, scoring) run
inside ``apply``, and a decision with a single legal move is taken automatically (spec 10: forced
passes never reach an agent). Randomness comes only from the ``numpy.random.Generator`` passed in.
References A1..A58 / D1..D14 / T1..T12 are those of ``docs/rules/kingsburg.md``;
docs/games/kingsburg.md lists every resolution.

Buildings are stored per player as the number built in each row: building is left to right and
destruction always removes the rightmost building of a row, so a row is always a prefix.
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import add, itemgetter

import numpy as np

from ..core.changes import ChangeLog
from ..core.engine import RulesEngine, deep_copy
from ..core.errors import IllegalActionError
from .changes import DOMAINS, PUBLIC, SEATS
from .data import (BARRACKS, CATHEDRAL, CHAPEL, CRANE, EMBASSY, FARMS, FORTRESS, GOLD, GOODS, INN, MARKET,
                   MERCHANTS_GUILD, MILITARY_ACADEMY, MINT, NUM_COLS, NUM_ROWS, RECRUITING_OFFICE, ROWS, STABLES,
                   STATUE, STONE_WALL, TOWN_HALL, TRAINING_CAMP, Tables, tables)


@dataclass(frozen=True)
class KingsburgConfig:
    """Rule options. Defaults follow the spec and docs/rules/DECISIONS.md (all modules off)."""

    #: Module 1 (spec 8.1): the 7-row side of the province sheet (rows A and G are PLACEHOLDER data).
    module_more_buildings: bool = False
    #: Module 2 (spec 8.2, A42): the reduced governor module (6 implementable cards of 24).
    module_governors: bool = False
    #: Module 3 (spec 8.3): King's-army tokens replace the King's-aid roll.
    module_army_tokens: bool = False


class Op:
    """Move kinds (plain ints: enum access is slow in the hot path)."""

    PASS = 0  # pass / decline / stop / done
    YES = 1
    GOOD = 2  # arg: good (gain it, or pay it)
    PAY_PLUS2 = 3
    BUILD = 4  # arg: row 0..6 (A..G)
    STATUE = 5  # arg: 0 reroll a player die, 1 a bonus die
    CHAPEL = 6
    GOVERNOR = 7  # arg: 0..2, which dealt card to keep
    ARMY_TOKEN = 8  # arg: index into the distinct token values
    RECRUIT = 9  # arg: payment index into RECRUIT_PAYMENTS
    MODIFIERS = 10  # arg: 6 t + 2 (m + 1) + e
    DICE = 11  # arg: 16 (player subset - 1) + bonus subset


class Decision:
    """Kinds of decision (values index the observation's one-hot)."""

    GOVERNOR = 0  # D1
    FARMS_DIE = 1  # D14
    REROLL = 2  # D3
    PRINCE = 3  # D4
    DICE = 4  # D5
    MODIFIERS = 5  # D6
    PICK_GOOD = 6  # D2, D7, D13 goods of choice, tax collector
    ALCHEMIST = 7  # D7
    SMUGGLER = 8  # D7
    BUILD = 9  # D8
    ENVOY_BUILD = 10  # D9
    FREE_BUILD = 11  # D13 (A58)
    CONVERSION = 12  # D10 row A
    TOWN_HALL = 13  # D10
    RECRUIT = 14  # D11
    ARMY_TOKEN = 15  # D12
    NONE = 16


DECISION_NAMES = tuple(sorted((k for k, v in vars(Decision).items() if isinstance(v, int)),
                              key=lambda k: getattr(Decision, k)))
NUM_DECISIONS = len(DECISION_NAMES) - 1

# automatic stages of the state machine (spec 4.3)
ST_GOVERNORS, ST_YEAR, ST_FAVOUR, ST_FARMS, ST_REROLL, ST_PRINCE, ST_INFLUENCE, ST_REWARDS, ST_BUILD, \
    ST_END_EFFECTS, ST_RECRUIT, ST_TOKENS, ST_BATTLE, ST_OVER = range(14)

# VP events of the history log: (seat, event, arg); tests recompute VP from them and the data
EV_ADVISOR, EV_SMUGGLER, EV_BUILD, EV_BUILD_NO_VP, EV_DESTROY, EV_HONOUR, EV_VICTORY, EV_DEFEAT, \
    EV_FORTRESS, EV_TOP_STRENGTH, EV_TOWN_HALL, EV_EMBASSY, EV_CATHEDRAL, EV_ARMY_TOKEN, EV_GOVERNOR, \
    EV_PREACHER = range(16)

# recruit payments (D11): counts of (gold, wood, stone, +2 tokens)
_UNITS = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
RECRUIT_PAYMENTS: tuple[tuple[int, int, int, int], ...] = tuple(
    [tuple(a + b for a, b in zip(_UNITS[i], _UNITS[j])) for i in range(4) for j in range(i, 4)] + list(_UNITS))
RECRUIT_PAYMENT_NAMES = tuple("".join("GWST"[k] * c[k] for k in range(4)) for c in RECRUIT_PAYMENTS)

PASS = (Op.PASS, 0)
YES = (Op.YES, 0)
_PASS_YES = (PASS, YES)
_GOOD_MOVES = ((Op.GOOD, 0), (Op.GOOD, 1), (Op.GOOD, 2))
_BUILD_MOVES = tuple((Op.BUILD, r) for r in range(NUM_ROWS))
_NEUTRAL = -1
_RANK_OF = itemgetter(0)  # of a (rank, seat) placement
# bits of a seat's season_flags (reset every season): the order of the observation's flags
PLUS2_USED, MARKET_USED, STATUE_USED, CHAPEL_USED, PASSED = 1, 2, 4, 8, 16


def _subsets(values: tuple[int, ...], placed: int, need_one: bool) -> tuple[tuple[int, int], ...]:
    """Canonical subsets (spec 10.3) of the unplaced dice of one group as (bitmask, sum).

    Dice are sorted ascending; within a run of equal values only the lowest unplaced ones may be
    chosen, so permutations of equal dice are one choice. ``need_one`` drops the empty subset.
    """
    k = len(values)
    out = []
    for mask in range(0 if not need_one else 1, 1 << k):
        if mask & placed:
            continue
        ok = True
        for i in range(k):
            if mask >> i & 1:
                # an unplaced equal die with a lower index must be chosen too
                for j in range(i):
                    if values[j] == values[i] and not (placed >> j & 1) and not (mask >> j & 1):
                        ok = False
                        break
            if not ok:
                break
        if ok:
            out.append((mask, sum(values[i] for i in range(k) if mask >> i & 1)))
    return tuple(out)


_SUBSET_CACHE: dict = {}
_CHOICES_CACHE: dict = {}
_DICE_MOVES = tuple((Op.DICE, a) for a in range(112))
_MOD_MOVES = tuple((Op.MODIFIERS, a) for a in range(12))
# MODIFIERS arg 6 t + 2 (m + 1) + e -> (+2 token used, Market shift, envoy used)
_MODIFIER_PARTS = tuple((a // 6, a % 6 // 2 - 1, a & 1) for a in range(12))
# legal moves by the inputs they depend on (see the methods that fill them): shared, hence tuples
_MODIFIER_MOVES: dict = {}
_RECRUIT_MOVES: dict = {}
_BUILD_MOVE_LISTS: dict = {}
_PICK_MOVES: dict = {}
_ALL_RANKS = sum(1 << r for r in range(1, 19))


def canonical_subsets(values: tuple[int, ...], placed: int, need_one: bool):
    key = (values, placed, need_one)
    hit = _SUBSET_CACHE.get(key)
    if hit is None:
        hit = _SUBSET_CACHE[key] = _subsets(values, placed, need_one)
    return hit


def _dice_choice_entry(key: tuple, pdice: tuple, pplaced: int, bdice: tuple, bplaced: int) -> tuple:
    """Cache entry of one dice state (``key`` as built in _dice_moves): the (DICE arg, sum) of every
    canonical placement of unplaced dice with at least one player die, the same as a dict arg -> sum,
    the bit set of those sums, and the legal DICE moves built so far, by the set of placeable sums."""
    pairs = []
    for pm, ps in canonical_subsets(pdice, pplaced, True):
        for bm, bs in canonical_subsets(bdice, bplaced, False):
            pairs.append((((pm - 1) << 4) | bm, ps + bs))
    sum_bits = 0
    for _, total in pairs:
        sum_bits |= 1 << total
    hit = _CHOICES_CACHE[key] = (tuple(pairs), dict(pairs), sum_bits, {})
    return hit


_STRENGTH_BY_ROW: dict = {}
_NEUTRAL_BLOCKS: dict = {}


def _neutral_blocks(dice: tuple) -> tuple:
    """Spec 3.3 (2 players): the ranks blocked by the five neutral dice, three on their total and two
    on theirs (on each die's own rank when the two totals are equal), as (ranks, bit mask of the
    ranks, placements); cached by the dice."""
    a, b, c, d, e = dice
    three = a + b + c
    blocked = [three]
    if d + e != three:
        blocked.append(d + e)
    elif d != e:
        blocked += [d, e]
    else:
        blocked.append(d)
    occupied = 0
    for r in blocked:
        occupied |= 1 << r
    hit = _NEUTRAL_BLOCKS[dice] = (tuple(blocked), occupied, tuple((r, _NEUTRAL) for r in blocked))
    return hit


def _price(cost: tuple[int, int, int], column: int, crane: bool) -> tuple[int, int, int]:
    """What a building costs its builder: the printed cost, but with the Crane 1 gold less on columns III
    and IV, never below 0 (spec 2.4 F-II, A24)."""
    gold, wood, stone = cost
    if crane and column >= 2 and gold > 0:
        gold -= 1
    return gold, wood, stone


def _strength_by_row(key: tuple, t: Tables, card) -> tuple:
    """Battle modifiers of the buildings against one enemy card, per row and number built there
    (rows are built left to right, so a row's modifier is a prefix sum); ``key`` = (sheet, card)."""
    by_row = []
    for r in range(NUM_ROWS):
        total, prefix = 0, [0]
        for c in range(NUM_COLS):
            b = t.buildings[r * NUM_COLS + c]
            if b is not None:
                total += b.strength_vs[card.type]
                if b.strength_vs_max is not None and card.strength <= b.strength_vs_max[0]:
                    total += b.strength_vs_max[1]
            prefix.append(total)
        by_row.append(tuple(prefix))
    hit = _STRENGTH_BY_ROW[key] = tuple(by_row)
    return hit


# (row, column) of each building, one table for both sides of the sheet (tested); (0, NUM_COLS) is never built
_PLACES = tuple(divmod(slot, NUM_COLS) if slot >= 0 else (0, NUM_COLS) for slot in tables(True).slot_of)


class KingsburgEngine(RulesEngine, ChangeLog):
    # Every attribute is a slot: Python reads and writes slots faster than the entries of an
    # instance dict this large (about 70 attributes), which the engine and encoder do
    # hundreds of times per step. Attributes not listed still go to the instance's __dict__.
    __slots__ = (
        "config", "num_players", "rng", "tables", "_dice", "enemy_deck", "order", "year", "phase",
        "season", "vp", "goods", "plus2", "soldiers", "rows", "num_buildings", "envoy", "favour_die", "farms_die",
        "log", "peeked", "revealed", "kings_aid", "strengths", "outcomes",
        "army_tokens", "army_choice", "army_revealed", "governor_hand", "governor", "governors_revealed",
        "turn", "winners", "winner", "actor", "current_player", "is_over", "decision", "_moves", "pending_dice",
        "pending_sum", "_sums", "picks_left", "pick_from", "pick_min", "pick_source", "cursor", "sub",
        "reward_queue", "reward_i", "favour_list", "battle_builds", "tax_queue", "built_this_step", "stage",
        "active_count",
        # per season (see _reset_season)
        "pdice", "bdice", "pplaced", "bplaced", "season_flags", "prince_done", "occupied", "placements",
        "advisor_mask", "neutral", "envoy_rank", *ChangeLog.SLOTS)

    def __init__(self, config: KingsburgConfig, num_players: int, rng: np.random.Generator):
        if not 2 <= num_players <= 5:
            raise ValueError(f"Kingsburg is for 2-5 players, not {num_players}")
        self.config = config
        self.num_players = n = num_players
        self.rng = rng
        self.tables: Tables = tables(config.module_more_buildings)
        t = self.tables
        self._dice: list[int] = []
        # setup 3: one random card per year; the year-I card is on top
        self.enemy_deck = [cards[int(rng.integers(len(cards)))] for cards in t.enemies_by_year]
        # setup 5: random turn order (A30)
        self.order = list(range(n))
        rng.shuffle(self.order)  # the same order as rng.permutation(n), without its array overhead
        self.year = 1
        self.phase = 1
        self.season = 0
        self.vp = [0] * n
        self.goods = [[0, 0, 0] for _ in range(n)]
        self.plus2 = [0] * n
        self.soldiers = [0] * n
        self.rows = [[0] * NUM_ROWS for _ in range(n)]
        self.num_buildings = [0] * n
        self.envoy = -1
        self.favour_die = [0] * n
        self.farms_die = [0] * n
        self.log: list[tuple[int, int, int]] = []
        self.start_change_log(DOMAINS)  # what the rules change, for observers (see changes.py)
        self.peeked = [False] * n
        self.revealed = False
        self.kings_aid = 0
        self.strengths = [0] * n
        self.outcomes = [0] * n  # last winter: 1 victorious, 0 tie, -1 defeated
        self.army_tokens = [list(t.army_tokens) if config.module_army_tokens else [] for _ in range(n)]
        self.army_choice = [-1] * n  # committed, hidden until all have chosen
        self.army_revealed = [-1] * n
        self.governor_hand: list[list[int]] = [[] for _ in range(n)]
        self.governor = [-1] * n
        self.governors_revealed = False
        self._clear_dice()
        self._reset_season()

        self.turn = 0
        self.winners: list[int] = []
        self.winner = -1
        self.actor = self.current_player = self.order[0]
        self.is_over = False
        self.decision = Decision.NONE
        self._moves: list | tuple = ()  # a fresh list, or a shared tuple from a move cache
        self.pending_dice = 0  # DICE arg chosen, awaiting MODIFIERS
        self.pending_sum = 0
        self._sums: dict = {}
        self.picks_left = 0
        self.pick_from: tuple[int, ...] = ()
        self.pick_min = 0
        self.pick_source = 0  # advisor rank, 0 = King's favour, 19 = battle, 20 = tax collector
        self.cursor = 0
        self.sub = 0
        self.reward_queue: list[tuple[int, int]] = []  # step c: (rank, seat) to reward, in order
        self.reward_i = 0
        self.favour_list: list[int] = []
        self.battle_builds = 0
        self.tax_queue: list[int] = []
        self.built_this_step = [False] * n
        if config.module_governors:
            self._deal_governors()
            self.stage = ST_GOVERNORS
        else:
            self.stage = ST_YEAR
        self._advance()

    # ---------------------------------------------------------------- RulesEngine protocol ----
    # current_player and is_over are plain attributes (slots) rather than properties, as they are
    # read several times per step: the seat of the pending decision, -1 once the game is over; set
    # by _decide and _end_year

    def placement_scores(self) -> list[float]:
        """Spec 6.3: VP, then goods, then buildings; equal triples share the victory."""
        return [float(self.vp[p] * 1_000_000 + min(sum(self.goods[p]), 999) * 1000 + self.num_buildings[p])
                for p in range(self.num_players)]

    def scores(self) -> list[int]:
        return list(self.vp)

    def clone(self) -> "KingsburgEngine":
        return deep_copy(self)

    # ---------------------------------------------------------------------------- queries ----
    @property
    def board(self) -> list[list[int]]:
        """Per advisor rank 0..18, the seats on it this season in placement order (-1: neutral dice)."""
        board: list[list[int]] = [[] for _ in range(19)]
        for r, p in self.placements:
            board[r].append(p)
        return board

    def owns(self, p: int, building: int) -> bool:
        """Whether seat p has built ``building`` (STATUE, MARKET, ...: the buildings of data.py)."""
        row, column = _PLACES[building]
        return self.rows[p][row] > column

    def has_built(self, p: int, slot: int) -> bool:
        """Whether seat p has built the building in ``slot`` (rows are built left to right, spec 5.5)."""
        return self.rows[p][slot // NUM_COLS] > slot % NUM_COLS

    def owned_slots(self, p: int) -> list[int]:
        return [r * NUM_COLS + c for r in range(NUM_ROWS) for c in range(self.rows[p][r])]

    def dice_total(self, p: int) -> int:
        return sum(self.pdice[p]) + sum(self.bdice[p])

    def enemy_card(self):
        """This year's enemy card (hidden until winter, except from seats that peeked)."""
        return self.tables.enemies[self.enemy_deck[self.year - 1]]

    def cost_of(self, p: int, slot: int) -> tuple[int, int, int]:
        """What seat p pays for the building in ``slot``."""
        return _price(self.tables.costs[slot], slot % NUM_COLS, self.owns(p, CRANE))

    def battle_strength(self, p: int, card) -> int:
        """Spec 5.10.4: soldiers plus every modifier of the buildings owned."""
        key = (self.config.module_more_buildings, card.index)
        by_row = _STRENGTH_BY_ROW.get(key) or _strength_by_row(key, self.tables, card)
        strength = self.soldiers[p]
        for r, built in enumerate(self.rows[p]):
            strength += by_row[r][built]
        return strength

    # -------------------------------------------------------------------------- legality ----
    def legal_moves(self) -> list[tuple[int, int]]:
        return list(self._moves) if self.stage != ST_OVER else []

    def play(self, move: tuple[int, int]) -> None:
        """Apply a move after checking it is legal; the state is unchanged on error."""
        move = (int(move[0]), int(move[1]))
        if self.stage == ST_OVER or move not in self._moves:
            raise IllegalActionError(f"move {move} is illegal in decision {DECISION_NAMES[self.decision]} "
                                     f"for seat {self.actor}; legal: {self._moves}")
        self.apply(move)

    def apply(self, move: tuple[int, int]) -> None:
        """Apply a move known to be legal, then run the game on to the next decision."""
        self.turn += 1
        self._resolve(move)
        self._advance()
        self.stamp_changes()

    # ------------------------------------------------------------------------ the machine ----
    def _decide(self, p: int, kind: int, moves: list | tuple) -> bool:
        """Seat p decides among ``moves``: a fresh list, or a shared tuple from a move cache."""
        self.actor = self.current_player = p
        self.decision = kind
        self._moves = moves
        return True

    def _advance(self) -> None:
        """Run automatic steps until a decision with two or more moves (or the end)."""
        while True:
            if self.decision != Decision.NONE:
                moves = self._moves
                if len(moves) > 1:
                    return
                self._resolve(moves[0])  # one legal move is no decision (spec 10)
                continue
            if self.tax_queue:
                q = self.tax_queue.pop(0)
                self._start_picks(q, int(self._gov(q)["goods"]), (0, 1, 2), 20)
                continue
            st = self.stage
            if st == ST_OVER:
                return
            _STAGE_STEPS[st](self)

    def _resolve(self, move: tuple[int, int]) -> bool:
        """Apply a decision's move. True if it leaves a follow-up decision of the same seat set."""
        op, arg = move
        kind = self.decision
        p = self.actor
        self._moves = ()
        self.decision = Decision.NONE
        if kind == Decision.DICE:
            if op == Op.PASS:
                self.changed_in(SEATS, p)
                self.season_flags[p] |= PASSED
                self.active_count -= 1
                return False
            # the chosen dice are only pending: the seat's own state changes with the placement
            self.pending_dice = arg
            self.pending_sum = self._sums[arg]
            moves = self._modifier_moves(p, arg)
            if len(moves) == 1:  # one way to place these dice is no decision (spec 10): place them now
                self.changed_in(SEATS, p)
                self._place(p, arg, moves[0][1])
                return False
            return self._decide(p, Decision.MODIFIERS, moves)
        # a decision changes its seat's state (a build, a pick, a payment, ...); other passes change nothing
        if op != Op.PASS or kind == Decision.FARMS_DIE:
            self.changed_in(SEATS, p)
        # kinds by how often they come up in play
        if kind == Decision.BUILD:
            if op == Op.PASS:
                self.cursor += 1
                return False
            self._build(p, arg)
            self.built_this_step[p] = True
            self.sub = 1  # the envoy's second building may follow
            return False
        if kind == Decision.PICK_GOOD:
            self.goods[p][arg] += 1
            self.picks_left -= 1
            self.pick_min = arg
            if self.picks_left:
                return self._decide(p, Decision.PICK_GOOD, self._pick_moves())
            return False
        if kind == Decision.MODIFIERS:
            self._place(p, self.pending_dice, arg)
            return False
        if kind == Decision.RECRUIT:
            if op == Op.PASS:
                self.cursor += 1
                return False
            pay = RECRUIT_PAYMENTS[arg]
            g = self.goods[p]
            g[0] -= pay[0]
            g[1] -= pay[1]
            g[2] -= pay[2]
            self.plus2[p] -= pay[3]
            self.soldiers[p] += 1
            return False
        if kind == Decision.ALCHEMIST:
            if op == Op.GOOD:
                g = self.goods[p]
                g[arg] -= 1
                for k in range(3):
                    if k != arg:
                        g[k] += 1
            return False
        if kind == Decision.TOWN_HALL:
            if op == Op.PAY_PLUS2:
                self.plus2[p] -= 1
            elif op == Op.GOOD:
                self.goods[p][arg] -= 1
            if op != Op.PASS:
                self._add_vp(p, 1, EV_TOWN_HALL, 0)
            return False
        if kind == Decision.ENVOY_BUILD:
            if op == Op.BUILD:
                self._build(p, arg)
                self.envoy = -1
            self.sub = 0
            self.cursor += 1
            return False
        if kind == Decision.REROLL:
            if op == Op.PASS:
                self.cursor += 1
            elif op == Op.STATUE:
                self.season_flags[p] |= STATUE_USED
                if arg == 0:
                    self.pdice[p][0] = self._die()
                else:
                    self.bdice[p][0] = self._die()
            else:
                self.season_flags[p] |= CHAPEL_USED
                self.pdice[p] = [self._die() for _ in self.pdice[p]]
                self.bdice[p] = [self._die() for _ in self.bdice[p]]
            return False
        if kind == Decision.SMUGGLER:
            if op == Op.YES:
                adv = self.tables.advisors[self.pick_source - 1]
                self._add_vp(p, -adv.optional_pay_vp, EV_SMUGGLER, adv.rank)
                return self._start_picks(p, adv.picks, adv.pick_from, adv.rank)
            return False
        if kind == Decision.FREE_BUILD:
            self.battle_builds -= 1
            if op == Op.BUILD:
                self._build(p, arg, pay=False)
            else:
                self.battle_builds = 0
            return False
        if kind == Decision.CONVERSION:
            if op == Op.YES:
                b = self.tables.buildings[self.tables.conversion_slots[self.sub - 2]]
                g = self.goods[p]
                for k in range(3):
                    g[k] += b.params["gain"][k] - b.params["pay"][k]
            self.sub += 1
            return False
        if kind == Decision.FARMS_DIE:
            self.farms_die[p] = 1 if op == Op.YES else 0
            self.cursor += 1
            return False
        if kind == Decision.PRINCE:
            if op == Op.YES:
                self.pdice[p] = list(self._gov(p)["dice"])
            self.prince_done[p] = True
            self.cursor += 1
            return False
        if kind == Decision.ARMY_TOKEN:
            self.army_choice[p] = self.tables.army_values[arg]
            self.cursor += 1
            return False
        if kind == Decision.GOVERNOR:
            self.governor[p] = self.governor_hand[p][arg]
            self.cursor += 1
            return False
        raise AssertionError(f"no decision pending for move {move}")  # pragma: no cover

    # ---------------------------------------------------------------------------- helpers ----
    def _die(self) -> int:
        dice = self._dice
        if not dice:
            dice.extend(self.rng.integers(1, 7, size=256).tolist())
        return dice.pop()

    def _roll(self, k: int) -> list[int]:
        """k dice, the same values as k calls of _die."""
        pool = self._dice
        if len(pool) < k:
            return [self._die() for _ in range(k)]
        dice = pool[:-k - 1:-1]
        del pool[len(pool) - k:]
        return dice

    def _add_vp(self, p: int, delta: int, event: int, arg: int) -> None:
        """Seat p's VP and the history log (the step that gives or takes the VP reports the seat's change)."""
        self.vp[p] += delta
        self.log.append((p, event, arg))

    def _gov(self, p: int) -> dict:
        return self.tables.governors[self.governor[p]].params

    def _has_gov(self, p: int, effect: str) -> bool:
        g = self.governor[p]
        return g >= 0 and self.governors_revealed and self.tables.governors[g].effect == effect

    def _start_picks(self, p: int, count: int, allowed: tuple[int, ...], source: int) -> bool:
        if count <= 0:
            return False
        self.picks_left = count
        self.pick_from = allowed
        self.pick_min = 0
        self.pick_source = source
        return self._decide(p, Decision.PICK_GOOD, self._pick_moves())

    def _pick_moves(self) -> tuple:
        # canonical order: each pick >= the previous one (permutations are one choice)
        key = (self.pick_from, self.pick_min)
        moves = _PICK_MOVES.get(key)
        if moves is None:
            moves = _PICK_MOVES[key] = tuple(_GOOD_MOVES[g] for g in self.pick_from if g >= self.pick_min)
        return moves

    def _reset_season(self) -> None:
        """The season's flags (the dice are already back: see _clear_dice)."""
        n = self.num_players
        self.changed_in_all(SEATS)
        self.season_flags = [0] * n  # per seat: PLUS2_USED, MARKET_USED, STATUE_USED, CHAPEL_USED, PASSED
        self.prince_done = [False] * n
        # ranks blocked by neutral dice (2 players): a shared tuple, so that observers can tell a
        # change by identity
        self.neutral: tuple[int, ...] = ()
        self.envoy_rank = 0

    def _clear_dice(self) -> None:
        """Dice back to their owners, all bonus dice to the supply, every advisor free."""
        n = self.num_players
        self.pdice = [[] for _ in self.order]
        self.bdice = [[] for _ in self.order]
        self.pplaced = [0] * n
        self.bplaced = [0] * n
        self.occupied = 0  # bit r set while advisor r holds any dice (kept with placements)
        self.placements: list[tuple[int, int]] = []  # (rank, seat or -1 neutral) in placement order
        self.advisor_mask = [0] * n  # per seat: bit r - 1 set when it has dice on advisor r

    # ------------------------------------------------------------------------- governors ----
    def _deal_governors(self) -> None:
        t = self.tables
        pool = list(range(len(t.governors)))
        deal = min(t.governor_deal, len(pool))
        if deal * self.num_players <= len(pool):
            shuffled = [pool[i] for i in self.rng.permutation(len(pool))]
            for p in range(self.num_players):
                self.governor_hand[p] = sorted(shuffled[p * deal:(p + 1) * deal])
        else:  # too few implemented cards: each player gets distinct cards, repeats across players
            for p in range(self.num_players):
                self.governor_hand[p] = sorted(int(i) for i in self.rng.choice(len(pool), deal, replace=False))

    def _step_governors(self) -> bool:
        n = self.num_players
        if self.cursor < n:
            p = self.order[self.cursor]
            return self._decide(p, Decision.GOVERNOR, [(Op.GOVERNOR, i) for i in range(len(self.governor_hand[p]))])
        self.governors_revealed = True
        self.changed_in_all(SEATS)  # every seat's block shows its governor now
        for p in self.order:
            if self._has_gov(p, "start"):  # Thief: start with goods and negative VP
                self.changed_in(SEATS, p)
                params = self._gov(p)
                gain = params.get("gain", {})
                for k, good in enumerate(GOODS):
                    self.goods[p][k] += int(gain.get(good, 0))
                self._add_vp(p, int(params.get("vp", 0)), EV_GOVERNOR, self.governor[p])
        self.cursor = 0
        self.stage = ST_YEAR
        return False

    # ------------------------------------------------------------------- phase 1: favour ----
    def _step_year(self) -> bool:
        """Start of a year, then phase 1 (King's favour, spec 5.1)."""
        n = self.num_players
        self.phase = 1
        self.peeked = [False] * n
        self.revealed = False
        self.changed(PUBLIC)  # a new year: its enemy card, neither peeked at nor revealed
        for p in self.order if self.config.module_governors else ():
            # Magician (A42 reconstruction): free column-I buildings, no VP
            if self._has_gov(p, "free_column_builds") and self._gov(p)["year"] == self.year:
                params = self._gov(p)
                col = params["column"]
                built = 0
                self.changed_in(SEATS, p)
                for r in range(NUM_ROWS):
                    if built < params["max"] and r in self.tables.rows and self.rows[p][r] == col:
                        slot = r * NUM_COLS + col
                        self.rows[p][r] += 1
                        self.num_buildings[p] += 1
                        if params.get("gain_vp"):
                            self._add_vp(p, self.tables.buildings[slot].vp, EV_BUILD, slot)
                        else:
                            self.log.append((p, EV_BUILD_NO_VP, slot))
                        built += 1
        fewest = min(self.num_buildings)
        tied = [p for p in self.order if self.num_buildings[p] == fewest]
        if len(tied) > 1:
            least = min(sum(self.goods[p]) for p in tied)
            tied = [p for p in tied if sum(self.goods[p]) == least]
        if len(tied) == 1:
            self.favour_die[tied[0]] = 1
            self.changed_in(SEATS, tied[0])
            self.favour_list = []
        else:
            self.favour_list = tied  # each receives 1 good of choice, in turn order
        self.cursor = 0
        self.stage = ST_FAVOUR
        return False

    def _step_favour(self) -> bool:
        if self.cursor < len(self.favour_list):
            p = self.favour_list[self.cursor]
            self.cursor += 1
            return self._start_picks(p, 1, (0, 1, 2), 0)
        self._start_season(0)
        return False

    # ------------------------------------------------------------- productive seasons ----
    def _start_season(self, season: int) -> None:
        self.season = season
        self.phase = 2 + 2 * season
        self._reset_season()
        if self.num_players == 2:  # spec 3.3: neutral blocking dice before anything else
            dice = tuple(self._roll(5))
            blocked, self.occupied, placements = _NEUTRAL_BLOCKS.get(dice) or _neutral_blocks(dice)
            self.neutral = blocked
            self.placements = list(placements)
        for p in self.order:  # Merchants' guild: +1 gold at the start of a productive season (spec 2.4 C-IV, A56)
            if self.owns(p, MERCHANTS_GUILD):
                self.goods[p][GOLD] += 1
        self.farms_die = [0] * self.num_players
        self.cursor = 0
        self.stage = ST_FARMS

    def _step_farms(self) -> bool:
        n = self.num_players
        while self.cursor < n:  # Farms: +1 bonus die if its owner wants it (spec 2.4 C-III, D14)
            p = self.order[self.cursor]
            if self.owns(p, FARMS):
                return self._decide(p, Decision.FARMS_DIE, _PASS_YES)
            self.cursor += 1
        # roll: every player's dice and bonus dice (spec 5.2.3), drawn at once in seat order
        bonus = self.farms_die if self.season else list(map(add, self.farms_die, self.favour_die))
        dice = self._roll(3 * n + sum(bonus))
        pdice, bdice = self.pdice, self.bdice
        i = 0
        for p in range(n):
            j = i + 3 + bonus[p]
            pdice[p] = dice[i:i + 3]
            bdice[p] = dice[i + 3:j]
            i = j
        self.changed_in_all(SEATS)
        self.cursor = 0
        self.stage = ST_REROLL
        return False

    def _reroll_moves(self, p: int) -> list:
        """Spec 5.2.4: the Statue rerolls one die if all dice show the same number, the Chapel all dice if
        their total is 7 or less; each once per season (spec 2.4 B-I, B-II, A19, A20)."""
        moves = [PASS]
        pd, bd = self.pdice[p], self.bdice[p]
        flags = self.season_flags[p]
        if not flags & STATUE_USED and self.owns(p, STATUE):
            first = pd[0]
            if pd.count(first) == len(pd) and bd.count(first) == len(bd):  # all dice show the same
                moves.append((Op.STATUE, 0))
                if bd:
                    moves.append((Op.STATUE, 1))
        if not flags & CHAPEL_USED and self.owns(p, CHAPEL) and sum(pd) + sum(bd) <= 7:
            moves.append((Op.CHAPEL, 0))
        return moves

    def _step_reroll(self) -> bool:
        """Spec 5.2.4 / A52: each player's reroll window, in the current (old) turn order."""
        n = self.num_players
        while self.cursor < n:
            p = self.order[self.cursor]
            if self.owns(p, STATUE) or self.owns(p, CHAPEL):
                moves = self._reroll_moves(p)
                if len(moves) > 1:
                    return self._decide(p, Decision.REROLL, moves)
            self.cursor += 1
        self.cursor = 0
        self.stage = ST_PRINCE
        return False

    def _step_prince(self) -> bool:
        n = self.num_players
        if self.config.module_governors:
            while self.cursor < n:
                p = self.order[self.cursor]
                if (self._has_gov(p, "set_dice") and not self.prince_done[p]
                        and self.dice_total(p) <= self._gov(p)["max_total"]):
                    return self._decide(p, Decision.PRINCE, _PASS_YES)
                self.cursor += 1
        # spec 5.2.6: new turn order by ascending totals, ties keep their relative order
        pdice, bdice = self.pdice, self.bdice
        totals = list(map(add, map(sum, pdice), map(sum, bdice)))
        self.order.sort(key=totals.__getitem__)
        for pd in pdice:  # canonical dice slots (spec 10.3)
            pd.sort()
        for bd in bdice:
            bd.sort()
        self.changed_in_all(SEATS)
        self.active_count = n
        self.cursor = 0
        self.stage = ST_INFLUENCE
        return False

    # ----------------------------------------------------------------- step b: influence ----
    def _dice_moves(self, p: int) -> tuple:
        pd, bd = self.pdice[p], self.bdice[p]
        key = (self.pplaced[p], self.bplaced[p], *pd, 0, *bd)  # dice are 1..6: 0 separates the groups
        entry = _CHOICES_CACHE.get(key)
        if entry is None:
            entry = _dice_choice_entry(key, tuple(pd), self.pplaced[p], tuple(bd), self.bplaced[p])
        # with the envoy any rank will do (free or occupied), otherwise a free one
        free = _ALL_RANKS if self.envoy == p else _ALL_RANKS & ~self.occupied
        # the sums s that reach a usable rank s + offset: a +2 token adds 2, the Market -1 or +1 (A11: both)
        flags = self.season_flags[p]
        reach = free
        if self.plus2[p] > 0 and not flags & PLUS2_USED:  # one +2 token per season (A16)
            reach |= free >> 2
        if not flags & MARKET_USED and self.owns(p, MARKET):  # once per season (spec 2.4 C-II)
            reach |= reach << 1 | reach >> 1
        placeable = entry[2] & reach
        if not placeable:
            return ()
        self._sums = entry[1]
        by_placeable = entry[3]
        moves = by_placeable.get(placeable)
        if moves is None:
            moves = by_placeable[placeable] = (PASS, *(_DICE_MOVES[arg] for arg, s in entry[0] if placeable >> s & 1))
        return moves

    def _modifier_moves(self, p: int, arg: int) -> tuple:
        s = self.pending_sum
        flags = self.season_flags[p]
        plus = self.plus2[p] > 0 and not flags & PLUS2_USED  # one +2 token per season (A16)
        market = not flags & MARKET_USED and self.owns(p, MARKET)  # once per season (spec 2.4 C-II)
        envoy = self.envoy == p
        # the moves depend only on these and on which of the ranks s - 1 .. s + 3 are occupied
        key = (s << 8) | (plus << 7) | (market << 6) | (envoy << 5) | (self.occupied >> (s - 1) & 31)
        moves = _MODIFIER_MOVES.get(key)
        if moves is None:
            moves = []
            occupied = self.occupied
            for t in range(2 if plus else 1):  # ranges, not tuple literals: Cython types those
                for m in (range(-1, 2) if market else range(1)):
                    r = s + 2 * t + m
                    if 0 < r <= 18:
                        for e in range(2 if envoy else 1):
                            if bool(occupied >> r & 1) == bool(e):  # free without the envoy, occupied with it (A17)
                                moves.append(_MOD_MOVES[6 * t + 2 * (m + 1) + e])
            moves = _MODIFIER_MOVES[key] = tuple(moves)
        return moves

    def _place(self, p: int, dice_arg: int, mod_arg: int) -> None:
        t, m, e = _MODIFIER_PARTS[mod_arg]
        r = self.pending_sum + 2 * t + m
        self.pplaced[p] |= (dice_arg >> 4) + 1
        self.bplaced[p] |= dice_arg & 15
        if t:
            self.plus2[p] -= 1
            self.season_flags[p] |= PLUS2_USED
        if m:
            self.season_flags[p] |= MARKET_USED
        if e:
            self.envoy = -1  # used: back to its space (spec 5.8)
            self.envoy_rank = r
        self.occupied |= 1 << r
        self.placements.append((r, p))
        self.advisor_mask[p] |= 1 << (r - 1)

    def _step_influence(self) -> bool:
        n = self.num_players
        order, flags = self.order, self.season_flags
        while self.active_count > 0:
            cursor = self.cursor
            p = order[cursor]
            self.cursor = cursor + 1 if cursor + 1 < n else 0
            if flags[p] & PASSED:
                continue
            moves = self._dice_moves(p)
            if not moves:  # no dice or no legal placement: must pass
                self.changed_in(SEATS, p)
                flags[p] |= PASSED
                self.active_count -= 1
                continue
            return self._decide(p, Decision.DICE, moves)
        self.reward_queue = sorted(self.placements[len(self.neutral):], key=_RANK_OF)  # neutral dice come first
        self.reward_i = 0
        self.stage = ST_REWARDS
        return False

    # ------------------------------------------------------------------- step c: rewards ----
    def _step_rewards(self) -> bool:
        # the players' placements by ascending rank, in placement order on one advisor (A9)
        queue = self.reward_queue
        i = self.reward_i
        while i < len(queue):
            rank, p = queue[i]
            i += 1
            self.reward_i = i  # resumed here after a decision
            if self._grant(rank, p):
                return True
        # used +2 tokens were paid when placed
        self._clear_dice()
        n = self.num_players
        self.favour_die = [0] * n
        self.changed_in_all(SEATS)
        self.cursor = 0
        self.sub = 0
        self.built_this_step = [False] * self.num_players
        self.stage = ST_BUILD
        return False

    def _grant(self, rank: int, p: int) -> bool:
        adv = self.tables.advisors[rank - 1]
        if adv.optional_pay_vp:
            self.pick_source = rank
            return self._decide(p, Decision.SMUGGLER, _PASS_YES)
        if adv.exchange:
            g = self.goods[p]
            moves = [PASS] + [_GOOD_MOVES[k] for k in range(3) if g[k] > 0]
            self.pick_source = rank
            return self._decide(p, Decision.ALCHEMIST, moves)
        gold, wood, stone, vp, soldiers, plus2 = adv.gain
        self.changed_in(SEATS, p)
        g = self.goods[p]
        g[0] += gold
        g[1] += wood
        g[2] += stone
        if vp:
            self._add_vp(p, vp, EV_ADVISOR, rank)
        if soldiers:  # Stables: 1 more soldier with each reward of soldiers (spec 2.4 E-II, A50)
            self.soldiers[p] += soldiers + (1 if self.owns(p, STABLES) else 0)
        self.plus2[p] += plus2
        if adv.peek:
            self.peeked[p] = True
            self.changed(PUBLIC)
        return self._start_picks(p, adv.picks, adv.pick_from, rank) if adv.picks else False

    # -------------------------------------------------------------------- step d: build ----
    def _build_moves(self, p: int, pay: bool = True) -> tuple:
        """PASS and the rows seat p can build in (paying unless ``pay`` is False), or () if none: in each row
        the leftmost building not yet built, if seat p can pay for it (spec 5.5)."""
        rows = self.rows[p]
        gold, wood, stone = self.goods[p]
        # the moves are cached by their inputs; goods beyond the dearest building's price change nothing,
        # so capped they make fewer keys
        most_gold, most_wood, most_stone = self.tables.max_cost
        if gold > most_gold:
            gold = most_gold
        if wood > most_wood:
            wood = most_wood
        if stone > most_stone:
            stone = most_stone
        crane = self.owns(p, CRANE)
        key = (self.config.module_more_buildings, pay, crane, gold, wood, stone, *rows)
        moves = _BUILD_MOVE_LISTS.get(key)
        if moves is not None:
            return moves
        costs = self.tables.costs
        moves = [PASS]
        for r in self.tables.rows:
            c = rows[r]
            if c < NUM_COLS:
                if pay:
                    gold_due, wood_due, stone_due = _price(costs[r * NUM_COLS + c], c, crane)
                    if gold_due > gold or wood_due > wood or stone_due > stone:
                        continue
                moves.append(_BUILD_MOVES[r])
        if len(_BUILD_MOVE_LISTS) > 100_000:
            _BUILD_MOVE_LISTS.clear()
        moves = _BUILD_MOVE_LISTS[key] = tuple(moves) if len(moves) > 1 else ()
        return moves

    def _build(self, p: int, row: int, pay: bool = True) -> None:
        slot = row * NUM_COLS + self.rows[p][row]
        if pay:
            cg, cw, cs = self.cost_of(p, slot)
            g = self.goods[p]
            g[0] -= cg
            g[1] -= cw
            g[2] -= cs
        self.rows[p][row] += 1
        self.num_buildings[p] += 1
        self._add_vp(p, self.tables.buildings[slot].vp, EV_BUILD, slot)
        if self.config.module_governors and self.governors_revealed:
            for q in self.order:  # Tax collector: a good each time an opponent builds
                if q != p and self._has_gov(q, "opponent_builds"):
                    self.tax_queue.append(q)

    def _step_build(self) -> bool:
        n = self.num_players
        while self.cursor < n:
            p = self.order[self.cursor]
            if self.sub == 1:
                if self.envoy == p:
                    moves = self._build_moves(p)
                    if moves:
                        return self._decide(p, Decision.ENVOY_BUILD, moves)
                self.sub = 0
                self.cursor += 1
                continue
            moves = self._build_moves(p)
            if moves:
                return self._decide(p, Decision.BUILD, moves)
            self.cursor += 1
        if self.config.module_governors and not all(self.built_this_step):
            for p in self.order:  # Preacher (A42 reconstruction)
                if self._has_gov(p, "no_build_vp"):
                    self.changed_in(SEATS, p)
                    self._add_vp(p, int(self._gov(p)["vp"]), EV_PREACHER, 0)
        self.cursor = 0
        self.sub = 0
        self.stage = ST_END_EFFECTS
        return False

    # ------------------------------------------------------------ end of the season ----
    def _step_end_effects(self) -> bool:
        """Spec 5.6, fixed order A41: Inn, Training camp, row-A conversions, Town hall, Embassy."""
        n = self.num_players
        season = self.season
        conversions = self.tables.conversion_slots
        while self.cursor < n:
            p = self.order[self.cursor]
            if self.sub == 0:
                if season == 1 and self.owns(p, INN):  # a +2 token after summer (spec 2.4 C-I)
                    self.changed_in(SEATS, p)
                    self.plus2[p] += 1
                elif season == 2 and self.owns(p, TRAINING_CAMP):  # after autumn (spec 2.6 G-III, A38)
                    params = self.tables.building(TRAINING_CAMP).params
                    if self.soldiers[p] <= params.get("max_soldiers", 1):
                        self.changed_in(SEATS, p)
                        self.soldiers[p] += params.get("soldiers", 1)
                self.sub = 2
            while 2 <= self.sub < 2 + len(conversions):  # row A: after summer, or every season with the Mint (A49)
                slot = conversions[self.sub - 2]
                if self.has_built(p, slot) and (season == 1 or self.owns(p, MINT)):
                    pay = self.tables.buildings[slot].params["pay"]
                    g = self.goods[p]
                    if g[0] >= pay[0] and g[1] >= pay[1] and g[2] >= pay[2]:
                        return self._decide(p, Decision.CONVERSION, _PASS_YES)
                self.sub += 1
            if self.sub < 9:
                self.sub = 9
                if self.owns(p, TOWN_HALL):  # a +2 token or a good for 1 VP (spec 2.4 F-III)
                    g = self.goods[p]
                    moves = [PASS] + [_GOOD_MOVES[k] for k in range(3) if g[k] > 0]
                    if self.plus2[p] > 0:
                        moves.append((Op.PAY_PLUS2, 0))
                    if len(moves) > 1:
                        return self._decide(p, Decision.TOWN_HALL, moves)
            if self.owns(p, EMBASSY):  # +1 VP (spec 2.4 F-IV)
                self.changed_in(SEATS, p)
                self._add_vp(p, 1, EV_EMBASSY, 0)
            self.sub = 0
            self.cursor += 1
        # season cleanup (the next season's start resets again), then the next phase
        if season == 2:
            self._reset_season()
        self.cursor = 0
        self.sub = 0
        if season == 0:  # phase 3: King's honour (spec 5.7, A12)
            self.phase = 3
            most = max(self.num_buildings)
            for p in self.order:
                if self.num_buildings[p] == most:
                    self.changed_in(SEATS, p)
                    self._add_vp(p, 1, EV_HONOUR, 0)
            self._start_season(1)
        elif season == 1:  # phase 5: the King's envoy (spec 5.8)
            self.phase = 5
            self.envoy = -1
            fewest = min(self.num_buildings)
            tied = [p for p in self.order if self.num_buildings[p] == fewest]
            if len(tied) > 1:
                least = min(sum(self.goods[p]) for p in tied)
                tied = [p for p in tied if sum(self.goods[p]) == least]
            if len(tied) == 1:
                self.envoy = tied[0]
            self._start_season(2)
        else:
            self.phase = 7
            self.stage = ST_RECRUIT
        return False

    # -------------------------------------------------------------- phase 7: recruit ----
    def _recruit_moves(self, p: int) -> tuple:
        """Spec 5.9: a soldier costs 2 goods of choice, 1 with the Barracks (spec 2.4 D-III, A23); with the
        Recruiting office +2 tokens pay like goods (spec 2.6 G-II, A38)."""
        g0, g1, g2 = self.goods[p]
        tokens = self.plus2[p] if self.owns(p, RECRUITING_OFFICE) else 0
        # a payment takes at most 2 of anything, so the moves depend on the counts capped at 2
        key = ((g0 if g0 < 2 else 2), (g1 if g1 < 2 else 2), (g2 if g2 < 2 else 2), (tokens if tokens < 2 else 2),
               self.owns(p, BARRACKS))
        moves = _RECRUIT_MOVES.get(key)
        if moves is None:
            *have, barracks = key
            payments = tuple((Op.RECRUIT, i) for i, pay in enumerate(RECRUIT_PAYMENTS)
                             if (sum(pay) == 1) == barracks and all(need <= own for need, own in zip(pay, have)))
            moves = _RECRUIT_MOVES[key] = (PASS, *payments) if payments else ()
        return moves

    def _step_recruit(self) -> bool:
        n = self.num_players
        while self.cursor < n:
            p = self.order[self.cursor]
            moves = self._recruit_moves(p)
            if moves:
                return self._decide(p, Decision.RECRUIT, moves)
            self.cursor += 1
        self.phase = 8
        self.cursor = 0
        if self.config.module_army_tokens:
            self.army_choice = [-1] * n
            self.army_revealed = [-1] * n
            self.changed_in_all(SEATS)
            self.stage = ST_TOKENS
        else:
            self.kings_aid = self._die()  # the start player rolls for everybody
            self.changed(PUBLIC)
            self._winter_soldiers([self.kings_aid] * n)
        return False

    def _step_tokens(self) -> bool:
        n = self.num_players
        values = self.tables.army_values
        if self.cursor < n:
            p = self.order[self.cursor]
            left = set(self.army_tokens[p])
            return self._decide(p, Decision.ARMY_TOKEN, [(Op.ARMY_TOKEN, i) for i, v in enumerate(values) if v in left])
        for p in range(n):  # simultaneous reveal
            v = self.army_choice[p]
            self.army_tokens[p].remove(v)
            self.army_revealed[p] = v
        self.army_choice = [-1] * n
        self.changed_in_all(SEATS)
        self._winter_soldiers(list(self.army_revealed))
        return False

    # --------------------------------------------------------------- phase 8: winter ----
    def _winter_soldiers(self, aid: list[int]) -> None:
        halve = self.config.module_army_tokens
        for p in self.order:
            gain = aid[p]
            if self.owns(p, MILITARY_ACADEMY):  # the better of aid and a roll (spec 2.6 G-IV, A39)
                roll = self._die()
                if halve:
                    roll = (roll + 1) // 2
                if roll > gain:
                    gain = roll
            self.soldiers[p] += gain
        self.changed_in_all(SEATS)
        card = self.enemy_card()
        self.revealed = True
        self.changed(PUBLIC)
        n = self.num_players
        self.strengths = [self.battle_strength(p, card) for p in range(n)]
        outcomes = []
        for p in range(n):
            s = self.strengths[p]
            # the Stone wall wins a tie (spec 2.4 E-III)
            if s > card.strength or (s == card.strength and self.owns(p, STONE_WALL)):
                outcomes.append(1)
            elif s == card.strength:
                outcomes.append(0)
            else:
                outcomes.append(-1)
        self.outcomes = outcomes
        self.cursor = 0
        self.sub = 0
        self.stage = ST_BATTLE

    def _step_battle(self) -> bool:
        n = self.num_players
        card = self.enemy_card()
        while self.cursor < n:
            p = self.order[self.cursor]
            if self.sub == 0:
                self.sub = 1
                self.changed_in(SEATS, p)  # the battle's outcome: goods, VP, buildings
                outcome = self.outcomes[p]
                if outcome > 0:
                    gold, wood, stone, vp, choice, builds = card.reward
                    g = self.goods[p]
                    g[0] += gold
                    g[1] += wood
                    g[2] += stone
                    self._add_vp(p, vp, EV_VICTORY, card.index)
                    if self.owns(p, FORTRESS):  # +1 VP for a victory (spec 2.4 E-IV)
                        self._add_vp(p, 1, EV_FORTRESS, 0)
                    self.battle_builds = builds
                    if self._start_picks(p, choice, (0, 1, 2), 19):
                        return True
                elif outcome < 0:
                    gold, wood, stone, vp, lose = card.penalty
                    g = self.goods[p]
                    g[0] -= min(gold, g[0])
                    g[1] -= min(wood, g[1])
                    g[2] -= min(stone, g[2])
                    for _ in range(lose):  # A26: goods, then buildings one by one, then VP
                        self._destroy(p)
                    self._add_vp(p, -vp, EV_DEFEAT, card.index)
            if self.battle_builds > 0:
                moves = self._build_moves(p, pay=False)
                if moves:
                    return self._decide(p, Decision.FREE_BUILD, moves)
                self.battle_builds = 0
            self.sub = 0
            self.cursor += 1
        winners = [p for p in range(n) if self.outcomes[p] > 0]
        if winners:
            best = max(self.strengths[p] for p in winners)
            for p in self.order:
                if self.outcomes[p] > 0 and self.strengths[p] == best:
                    self.changed_in(SEATS, p)
                    self._add_vp(p, 1, EV_TOP_STRENGTH, 0)
        self.soldiers = [0] * n
        self.changed_in_all(SEATS)
        self._end_year()
        return False

    def _destroy(self, p: int) -> None:
        """Spec 5.10.7: the building in the rightmost column; among those, the topmost row."""
        rows = self.rows[p]
        best = max(rows)
        if best == 0:
            return
        r = rows.index(best)
        rows[r] -= 1
        self.num_buildings[p] -= 1
        slot = r * NUM_COLS + best - 1
        self._add_vp(p, -self.tables.buildings[slot].vp, EV_DESTROY, slot)

    def _end_year(self) -> None:
        year = self.year
        for p in self.order if self.config.module_governors else ():  # Miner (A37: gold)
            if self._has_gov(p, "year_end"):
                params = self._gov(p)
                self.changed_in(SEATS, p)
                self.goods[p][GOODS.index(params["good"])] += int(params["per_year"][year - 1])
        if year < 5:
            self.year += 1
            self.stage = ST_YEAR
            return
        # spec 6.2 / A8: Cathedral (1 VP per 2 goods, spec 2.4 B-IV), then the unused King's-army token
        for p in self.order:
            if self.owns(p, CATHEDRAL):
                self.changed_in(SEATS, p)
                goods = sum(self.goods[p])
                self._add_vp(p, goods // self.tables.building(CATHEDRAL).params.get("goods_per_vp", 2),
                             EV_CATHEDRAL, goods)
        if self.config.module_army_tokens:
            for p in self.order:
                self.changed_in(SEATS, p)
                for v in self.army_tokens[p]:
                    self._add_vp(p, v, EV_ARMY_TOKEN, v)
        placement = self.placement_scores()
        best = max(placement)
        self.winners = [p for p in range(self.num_players) if placement[p] == best]
        self.winner = self.winners[0]
        self.stage = ST_OVER
        self.is_over = True
        self.current_player = -1
        self.decision = Decision.NONE
        self._moves = ()

    # ------------------------------------------------------------------------- rendering ----
    def render_text(self) -> str:
        n = self.num_players
        phase_names = ("", "King's favour", "spring", "King's honour", "summer", "King's envoy", "autumn",
                       "recruit", "winter")
        lines = [f"year {self.year}  phase {self.phase} ({phase_names[self.phase]})  turn {self.turn}  "
                 f"to move: seat {self.current_player} ({DECISION_NAMES[self.decision]})",
                 "turn order: " + " ".join(str(p) for p in self.order)
                 + f"  envoy: {'seat ' + str(self.envoy) if self.envoy >= 0 else 'on the track'}"]
        board = self.board
        occupied = [f"{r}:{','.join('N' if s < 0 else str(s) for s in board[r])}" for r in range(1, 19) if board[r]]
        if occupied:
            lines.append("advisors " + " ".join(occupied))
        if self.revealed:
            card = self.enemy_card()
            lines.append(f"enemy: {card.type_name} strength {card.strength}")
        for p in range(n):
            g = self.goods[p]
            built = " ".join(f"{ROWS[r]}{self.rows[p][r]}" for r in self.tables.rows)
            dice = ",".join(str(d) for d in self.pdice[p])
            if self.bdice[p]:
                dice += "+" + ",".join(str(d) for d in self.bdice[p])
            lines.append(f"seat {p}: VP {self.vp[p]:3d}  gold {g[0]} wood {g[1]} stone {g[2]}  +2 {self.plus2[p]}  "
                         f"soldiers {self.soldiers[p]}  rows [{built}]  dice [{dice}]")
        if self.stage == ST_OVER:
            lines.append("winner(s): " + ", ".join(f"seat {p}" for p in self.winners))
        return "\n".join(lines)


# the automatic step of each stage, indexed by ST_* (ST_OVER has none)
_STAGE_STEPS = (
    KingsburgEngine._step_governors, KingsburgEngine._step_year, KingsburgEngine._step_favour,
    KingsburgEngine._step_farms, KingsburgEngine._step_reroll, KingsburgEngine._step_prince,
    KingsburgEngine._step_influence, KingsburgEngine._step_rewards, KingsburgEngine._step_build,
    KingsburgEngine._step_end_effects, KingsburgEngine._step_recruit, KingsburgEngine._step_tokens,
    KingsburgEngine._step_battle)
