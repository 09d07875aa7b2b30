"""Rules engine of Mythotopia: plain state and transitions, no RL terms.

Moves are ints in the flat layout of ``envs.mythotopia.layout`` (the PLAYER segment holds absolute
seats; the codec makes them relative). Every multi-part action of spec 5.3/5.4 is a sequence of
small decisions driven by ``phase``; a choice is offered only if the action can still be completed
(spec 10.1, no dead ends). Each decision state has a ``_legal_<state>`` and an ``_apply_<state>``
method, bound to it in ``PHASE_HANDLERS`` at the end of this file; an action that ends in a payment
hands ``_pay`` the method that completes it (kept in ``pay_then`` during ``Phase.PAY``).
Randomness comes only from the generator passed in. References A-nn are the assumptions of
docs/rules/mythotopia.md section 9; docs/games/mythotopia.md lists them.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from ..core.changes import CountedChangeLog
from ..core.engine import RulesEngine, copy_generator, flat_class, instance_state
from ..core.errors import ConfigError, IllegalActionError
from . import layout as M
from .changes import BOARD, CARDS, CITIES, DOMAINS, MAP, VP
from .data import (
    ARMY, FIRST_IMPROVEMENT, FOOD, GOLD, HILLS, KIND_IMPROVEMENT, KIND_PROVINCE, KIND_STARTING, MOUNTAINS,
    NUM_BORDERS, NUM_CARDS, NUM_IMPROVEMENTS, NUM_PROVINCES, NUM_SEAS, OPEN, SHIP, STONE,
    VARIABLE_VP_CARDS, VP_CARD_NAMES, starting_card, tables,
)


@dataclass(frozen=True)
class MythotopiaConfig:
    """Rule options; defaults follow the spec and docs/rules/DECISIONS.md."""

    #: A-03: the unknown fifth starting card (a name from data/cards.json "starting_cards").
    fifth_starting_card: str = "Market"
    #: A-07: value of the Castle fixed VP card's counters (2 as the German text says; 1 = variant).
    castle_counter_value: int = 2
    #: A-06 / DECISIONS: counters on Spoils of War.
    spoils_of_war_counters: int = 6
    #: spec 8: optional rule "choose your starting provinces" (3-4 players only).
    optional_start_choice: bool = False
    #: A-11: provinces discarded under the optional rule (2 as written, 1 = variant).
    optional_discard_count: int = 2
    #: A-10: the start player is drawn from the seed; False = seat 0 starts.
    random_start_player: bool = True
    #: force variable VP cards into play (names from data); empty = draw 4 at random (spec 3.2).
    variable_vp_cards: tuple = ()

    def __post_init__(self):
        try:
            tables(self.fifth_starting_card)
        except ValueError as err:
            raise ConfigError(str(err)) from None
        if self.castle_counter_value not in (1, 2):
            raise ConfigError(f"castle_counter_value must be 1 or 2, got {self.castle_counter_value!r}")
        if self.optional_discard_count not in (1, 2):
            raise ConfigError(f"optional_discard_count must be 1 or 2, got {self.optional_discard_count!r}")
        if not 0 <= self.spoils_of_war_counters <= 10:
            raise ConfigError(f"spoils_of_war_counters must be 0..10, got {self.spoils_of_war_counters!r}")
        if not isinstance(self.variable_vp_cards, tuple) or len(set(self.variable_vp_cards)) != len(
                self.variable_vp_cards) or len(self.variable_vp_cards) > 4 or any(
                c not in VARIABLE_VP_CARDS for c in self.variable_vp_cards):
            raise ConfigError(f"variable_vp_cards must be a tuple of up to 4 distinct names from "
                              f"{list(VARIABLE_VP_CARDS)}, got {self.variable_vp_cards!r}")


class Phase:
    """Decision states (plain ints: faster than an IntEnum in the hot path)."""

    CHOOSE = 0
    SETUP_DISCARD = 1
    SETUP_CITADEL = 2
    INV_TARGET = 3
    INV_LOC = 4
    INV_ROUTE = 5
    INV_SHIP = 6
    ARMY_CARDS = 7
    PAY = 8
    PLACE_PROV = 9
    REM_PROV = 10
    REM_ARMIES_N = 11
    REM_MERCS_N = 12
    SHIP_SEA = 13
    SHIP_CARDS = 14
    REMSHIP_SEA = 15
    REMSHIP_N = 16
    ENDWAR_PROV = 17
    BUY_ARMIES = 18
    BUY_SHIPS = 19
    DRAFT_CARD = 20
    RESERVE_CARDS = 21
    DISCARD_CARDS = 22
    TRASH_CARDS = 23
    BUILD_CARD = 24
    BUILD_TYPE = 25
    BUILD_WHERE = 26
    BUILD_LOC = 27
    BUILD_EXTRA = 28
    ALCH_OPT = 29
    DIPLO_PROV = 30
    COUNSEL_CARDS = 31
    MARAUD_PROV = 32
    MARAUD_PLAYER = 33
    MERC_PROV = 34
    MERC_N = 35
    MYSTIC_CARD = 36
    PHILO_CARD = 37
    WAREHOUSE_CARD = 38
    RM_FROM = 39
    RM_TO = 40
    RM_N = 41
    SCRIBE_SOURCE = 42
    GAME_OVER = 43


PHASE_NAMES = tuple(sorted((k for k, v in vars(Phase).items() if isinstance(v, int)),
                           key=lambda k: getattr(Phase, k)))
NUM_PHASES = len(PHASE_NAMES)

# zones of a card (observation and invariants)
Z_HAND, Z_DRAW, Z_DISCARD, Z_RESERVE, Z_ASIDE, Z_DISPLAY, Z_IMPDECK, Z_PSTACK, Z_OUT = range(9)
ZONE_NAMES = ("hand", "draw", "discard", "reserve", "set_aside", "display", "improvement_deck",
              "province_stack", "out_of_game")
CITY_T, CASTLE_T, ROAD_T = range(3)  # build types, offered as OPTION 0..2
# settlement in a province
NONE_S, VILLAGE_S, CITY_S, CITADEL_S = range(4)
_NO_ARRIVALS = (0,) * NUM_PROVINCES
_SINGLETONS = tuple((x,) for x in range(NUM_PROVINCES))
# the sub-decision context of an action and its empty values
# (pay_then: the engine method that completes the action once PAY is done, see _pay)
_PENDING = dict(pk=-1, target=-1, ships_needed=0, food_needed=0, army_syms=0, army_dest=-1, pay_kind=-1,
                pay_owed=0, pay_then=None, m_conv=False, m_merch=False, m_wm=False, number=0, number2=0,
                build_card=-1, build_type=-1, extra=False, from_prov=-1, moved=0)
# route classes (ships, food) offered as OPTION 0..3: land, land over hills, one sea, two seas
ROUTES = ((0, 1), (0, 2), (1, 1), (2, 1))
# VP card indices
VP_INDEX = {name: i for i, name in enumerate(VP_CARD_NAMES)}
V_CITY, V_CASTLE, V_ROADS = 0, 1, 2
V_CITADEL, V_DEFENDER, V_GUILDED, V_DRAGONS, V_ISLES, V_SEA, V_PATRONAGE, V_INNS, V_RUNES, V_SPOILS = range(3, 13)
NUM_VP_CARDS = len(VP_CARD_NAMES)


class MythotopiaEngine(CountedChangeLog, RulesEngine):
    def __init__(self, config: MythotopiaConfig, num_players: int, rng: np.random.Generator):
        if num_players not in (2, 3, 4):
            raise ConfigError(f"mythotopia supports 2-4 players, got {num_players!r}")
        self.start_change_log(DOMAINS)
        self.config = config
        self.num_players = n = num_players
        self.rng = rng
        T = self.T = tables(config.fifth_starting_card)
        raw = T.raw
        self._static()
        imp = T.improvement
        self.ID = {name: cid for name, cid in imp.items()}
        pieces = raw["pieces"]
        # --- player material (spec 3.2 step 1)
        self.villages = [pieces["villages"][p] for p in range(n)]
        self.villages_total = list(self.villages)
        self.cities = [pieces["cities"]] * n  # on the Reserve card
        self.cities_total = pieces["cities"]
        self.armies_pers = [pieces["armies_personal"]] * n
        self.armies_gen = [pieces["armies_general"]] * n
        self.armies_total = pieces["armies_personal"] + pieces["armies_general"]
        self.ships_pers = [pieces["ships_personal"]] * n
        self.ships_gen = [pieces["ships_general"]] * n
        self.ships_total = pieces["ships_personal"] + pieces["ships_general"]
        self.citadel_state = [0] * n  # 0 unused, 1 on the board, 2 destroyed
        self.castles_left = pieces["castles"]
        self.roads_left = pieces["roads"]
        self.mercs_left = pieces["mercenaries"]
        self.pieces = pieces
        # --- board
        self.controller = [-1] * NUM_PROVINCES
        self.settle = [NONE_S] * NUM_PROVINCES
        self.castle = [False] * NUM_PROVINCES
        self.dragon = [False] * NUM_PROVINCES
        self.rune = [False] * NUM_PROVINCES
        self.armies = [[0] * n for _ in range(NUM_PROVINCES)]
        self.mercs = [[0] * n for _ in range(NUM_PROVINCES)]
        self.road = [False] * NUM_BORDERS
        self.roads_built: list[int] = []
        # the rules' caches (war list, road networks, coasts, ...): the legal-move checks ask for them many
        # times between two changes; keyed on the revisions of the domains they read (see changes.py)
        self._cache: dict = {}
        self._no_armies = [0] * n
        self.loc = bytearray(NUM_CARDS)  # location code per card: zone * 5 + owner + 1 (observation)
        self.ships = [[0] * n for _ in range(NUM_SEAS)]
        self.prov_count = [0] * n
        # --- cards
        self.hand = [[] for _ in range(n)]
        self.draw = [[] for _ in range(n)]
        self.discard = [[] for _ in range(n)]
        self.reserve = [[] for _ in range(n)]
        self.aside = [[] for _ in range(n)]
        self.display: list[int] = []
        self.impdeck: list[int] = []
        self.pstack: list[int] = []
        self.out: list[int] = []
        # --- VP
        self.counters = [[0, 0, 0, 0] for _ in range(n)]  # index = counter value 1..3
        self.vp_cards = [None] * NUM_VP_CARDS  # list of counter values left, None = not in play
        self.sea_claimed = [-1, -1]  # Master of the Sea conditions (3 seas, 4 seas): who took them
        self.scribe_marks = [[False, False] for _ in range(n)]  # Master of the Sea with Scribe
        self.villages_on_card = [0] * n  # Scribe markers on Master of the Sea (A-29)
        self.isle_complete = [[False, False] for _ in range(n)]
        # Scribe (spec 5.7): counters taken from a VP card by a Scribe owner while the spare stock holds
        # one of the same value, each (seat, VP card, value, position on the card, Master of the Sea
        # condition or -1) until the owner decides where it comes from (after the action that earned it)
        self.scribe_queue: list[tuple[int, int, int, int, int]] = []
        # --- turn
        self.turn = 0
        self.winner = -1
        self.active = 0
        self.actor = 0
        self.actions_used = 0
        self.any_action = False
        self.drafted = False
        self.removed_now: list[int] = []  # starting / province cards removed from the deck in this turn
        self.road_moved = False
        self.warehouse_used = False
        self._route_choices: list = []  # an invasion's routes to choose from (INV_ROUTE)
        self.conv_used = [False] * 4
        self._reset_pending()
        self.start_player = 0
        self._setup()

    # ------------------------------------------------------------------------------ static ----
    def _static(self):
        T = self.T
        self.SYM = T.card_symbols
        self.RES_ANY = tuple(max(s[0], s[1], s[2]) for s in T.card_symbols)
        self.SYM_COLUMN = tuple(tuple(s[kind] for s in T.card_symbols) for kind in range(5))  # [kind][card]
        self.KIND = T.card_kind
        self.CARD_PROV = tuple(c if T.card_kind[c] == KIND_PROVINCE else -1 for c in range(NUM_CARDS))
        imp = T.improvement
        self.MERCHANT, self.WATERMILL = imp["Merchant"], imp["Water Mill"]
        self.CONVERTER = (imp["Farming"], imp["Quarry"], imp["Gold Mine"], imp["Levies"])
        self.GENERAL, self.PORTAL, self.HERO = imp["General"], imp["Portal"], imp["Hero"]
        self.SHIP_TITLED = frozenset(c for c in range(NUM_CARDS) if T.card_names[c].startswith("Ship("))
        self.BUILD_CARDS = frozenset(c for c in range(NUM_CARDS) if T.card_names[c].startswith("Build("))
        # the army-symbol limit (army_playable): ARMY_UPTO[k][c] = c's army symbols if at most k, else 0;
        # ARMY_FIRST[k] the same for the first army card, where with 1 army left an "Army" card counts too
        army = self.SYM_COLUMN[ARMY]
        self.ARMY_TOP = top = max(army)
        self.ARMY_UPTO = tuple(tuple(v if v <= k else 0 for v in army) for k in range(top + 1))
        self.ARMY_FIRST = tuple(tuple(v if v <= k or (k == 1 and T.card_names[c].startswith("Army(")) else 0
                                      for c, v in enumerate(army)) for k in range(top + 1))
        nb = [[] for _ in range(NUM_PROVINCES)]
        for k, (a, b, t) in enumerate(T.borders):
            nb[a].append((b, t, k))
            nb[b].append((a, t, k))
        self.NEIGH = tuple(tuple(x) for x in nb)
        # ROUTE_CLASSES[ranger][o][t]: set of (ships, food) ways to invade t from o
        rc = []
        for ranger in (0, 1):
            table = []
            for o in range(NUM_PROVINCES):
                row = [set() for _ in range(NUM_PROVINCES)]
                for b, t, _ in nb[o]:
                    t2 = t - 1 if ranger and t > OPEN else t
                    if t2 != MOUNTAINS:
                        row[b].add((0, 2 if t2 == HILLS else 1))
                for s in T.province_seas[o]:
                    for q in T.sea_provinces[s]:
                        if q != o:
                            row[q].add((1, 1))
                    for s2 in T.sea_adjacent[s]:
                        for q in T.sea_provinces[s2]:
                            if q != o and (1, 1) not in row[q]:
                                row[q].add((2, 1))
                table.append(tuple(tuple(sorted(r)) for r in row))
            rc.append(tuple(table))
        self.ROUTE_CLASSES = tuple(rc)
        # REACH_BY_CLASS[ranger][o][k]: targets o reaches with route class ROUTES[k]
        self.REACH_BY_CLASS = tuple(tuple(tuple(tuple(t for t in range(NUM_PROVINCES) if r in table[o][t])
                                                for r in ROUTES) for o in range(NUM_PROVINCES)) for table in rc)
        self.BASE_CAPACITY = T.raw["base_reserve_capacity"]
        self.HAND_SIZE, self.QUEEN_HAND, self.QUEEN = T.raw["hand_size"], T.raw["queen_hand_size"], imp["Queen"]
        self.EMPTY_TO_END = T.raw["empty_vp_cards_to_end"]
        self.WAREHOUSE = imp["Warehouse"]
        self.COUNSELLOR, self.ALCHEMIST, self.DIPLOMAT = imp["Counsellor"], imp["Alchemist"], imp["Diplomat"]
        self.ACTION_CARDS = frozenset((self.ALCHEMIST, self.DIPLOMAT))
        self.MIN_DECK = T.raw["min_deck_size"]
        self.PATRONAGE_GOLD = T.raw["costs"]["patronage_gold"]
        self.RANGER, self.RESERVE_ARMY = imp["Ranger"], imp["Reserve Army"]
        self.LIMES, self.CAVALRY = imp["Limes"], imp["Cavalry"]
        st = T.raw["strength"]
        self.ST_DRAGON, self.ST_LIMES, self.ST_CASTLE = st["dragon"], st["limes"], st["castle"]
        self.ST_RUGGED, self.ST_CAVALRY, self.ST_RANGER = st["rugged"], st["cavalry"], st["ranger"]
        self.FREE_CARDS = frozenset(imp[x] for x in ("Counsellor", "Marauders", "Mercenary", "Militia", "Mystic",
                                                     "Philosopher", "Providence"))
        self.ISLANDS = tuple(tuple(p for p in range(NUM_PROVINCES) if T.island[p] == k) for k in (1, 2))

    # ------------------------------------------------------------------------------- setup ----
    def _setup(self):
        n, rng, T, cfg = self.num_players, self.rng, self.T, self.config
        raw = T.raw
        optional = cfg.optional_start_choice and n >= 3
        deal = raw["provinces_dealt_optional_rule" if optional else "provinces_dealt"][str(n)]
        order = [int(i) for i in rng.permutation(NUM_PROVINCES)]
        for p in range(n):
            for c in order[p * deal:(p + 1) * deal]:
                self.discard[p].append(c)  # parked in the discard until decks are formed
                self._place_village(p, c)
        self.pstack = order[n * deal:][::-1]  # top = end of list
        for p in range(n):
            self.draw[p] = [starting_card(p, k) for k in range(5)]
        for seat in range(n, 4):
            self.out += [starting_card(seat, k) for k in range(5)]
        imps = [FIRST_IMPROVEMENT + int(i) for i in rng.permutation(NUM_IMPROVEMENTS)]
        self.display = sorted(imps[:raw["improvement_display"]])
        self.impdeck = imps[raw["improvement_display"]:]
        # VP counters and cards (A-05, A-08)
        self.spare = [0] + [raw["vp_counters"][str(v)] for v in (1, 2, 3)]
        fixed = raw["fixed_vp_counters"][str(n)]
        self.vp_cards[V_CITY] = [2] * fixed
        self.vp_cards[V_CASTLE] = [cfg.castle_counter_value] * fixed
        self.vp_cards[V_ROADS] = [2] * fixed
        forced = list(cfg.variable_vp_cards)
        pool = [c for c in VARIABLE_VP_CARDS if c not in forced]
        drawn = forced + [pool[int(i)] for i in rng.permutation(len(pool))[:4 - len(forced)]]
        for name in drawn:
            k = VP_INDEX[name]
            if k == V_SPOILS:
                vals = [1] * cfg.spoils_of_war_counters
            else:
                vals = [v for v, cnt in raw["variable_vp_cards"][name] for _ in range(cnt)]
            self.vp_cards[k] = vals
        for k in range(NUM_VP_CARDS):
            if self.vp_cards[k] is not None:
                for v in self.vp_cards[k]:
                    self.spare[v] = max(0, self.spare[v] - 1)
        # counters in the game (A-08: the spare stock never goes below 0), for the conservation check
        self.counter_total = [0] + [self.spare[v] + sum(vals.count(v) for vals in self.vp_cards if vals is not None)
                                    for v in (1, 2, 3)]
        for name in drawn:  # A-42: dragons / runestones in draw order
            if name in ("Here be Dragons", "Runestones"):
                top = [self.pstack.pop() for _ in range(self.pieces["dragons" if name == "Here be Dragons"
                                                                    else "runestones"])]
                for c in top:
                    (self.dragon if name == "Here be Dragons" else self.rune)[c] = True
                self.pstack[:0] = top[::-1]  # to the bottom
        # secret setup choices (A-45): optional discards, then citadels
        self.setup_queue = []
        if optional:
            self.setup_queue += [(Phase.SETUP_DISCARD, p) for p in range(n)
                                 for _ in range(cfg.optional_discard_count)]
        if self.vp_cards[V_CITADEL] is not None:
            self.setup_queue += [(Phase.SETUP_CITADEL, p) for p in range(n)]
        self.setup_choice = [[] for _ in range(n)]
        self._rebuild_loc()
        if self.setup_queue:
            self.phase, self.actor = self.setup_queue.pop(0)
        else:
            self._finish_setup()

    def _place_village(self, p, prov):
        self.changed(MAP | BOARD)
        self.controller[prov] = p
        self.settle[prov] = VILLAGE_S
        self.villages[p] -= 1
        self.prov_count[p] += 1

    def _finish_setup(self):
        self.changed(CARDS)  # the decks are formed and the first hands drawn
        n, rng, raw = self.num_players, self.rng, self.T.raw
        if self.vp_cards[V_CITADEL] is not None:
            self.changed(BOARD | CITIES)
            for p in range(n):
                prov = self.setup_choice[p][0]
                self.settle[prov] = CITADEL_S
                self.villages[p] += 1
                self.citadel_state[p] = 1
                self.setup_choice[p] = []
        self.start_player = int(rng.integers(n)) if self.config.random_start_player else 0
        for p in range(n):
            deck = self.discard[p] + self.draw[p]
            self.discard[p] = []
            self.draw[p] = [deck[int(i)] for i in rng.permutation(len(deck))]
        for d in range(n):
            p = (self.start_player + d) % n
            self._draw(p, raw["hand_size"] + (raw["fourth_player_extra_card"] if d == 3 else 0))
        for p in range(n):
            self._check_isles(p)
        self._rebuild_loc()
        self.active = self.actor = self.start_player
        self.phase = Phase.CHOOSE
        self._start_turn()

    # ---------------------------------------------------------------- RulesEngine protocol ----
    @property
    def current_player(self) -> int:
        return -1 if self.phase == Phase.GAME_OVER else self.actor

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def placement_scores(self) -> list[float]:
        """Only the End-the-game caller wins (spec 6: the rules rank only the winner)."""
        return [1.0 if p == self.winner else 0.0 for p in range(self.num_players)]

    def scores(self) -> list[int]:
        return [self.vp(p) for p in range(self.num_players)]

    #: attributes holding static tables (data, config), shared by clones
    _STATIC = ("T", "SYM_COLUMN", "FREE_CARDS", "ACTION_CARDS", "REACH_BY_CLASS", "SYM", "RES_ANY", "KIND",
               "CARD_PROV", "NEIGH", "ROUTE_CLASSES", "ISLANDS", "SHIP_TITLED", "BUILD_CARDS", "ARMY_UPTO",
               "ARMY_FIRST", "CONVERTER", "ID", "config", "pieces")

    def clone(self) -> "MythotopiaEngine":
        """An independent copy, faster than ``copy.deepcopy`` (listing complete moves clones the engine once per
        decision that may continue a move, envs/core/moves.py): the lists and dicts of the state are copied two
        levels deep, their items being ints, bools, tuples or lists of those; ``loc`` and the random generator are
        copied too; everything else is immutable (ints, tuples, the change-log declaration, the engine method in
        ``pay_then``) or a static table, and shared. tests/mythotopia/test_moves.py checks every attribute's
        type."""
        twin = object.__new__(type(self))
        static = self._STATIC
        for name, value in instance_state(self).items():
            kind = type(value)
            if kind is list and name not in static:
                value = [item[:] if type(item) is list else item for item in value]
            elif kind is dict and name not in static:
                value = {key: item[:] if type(item) is list else item for key, item in value.items()}
            elif kind is bytearray:
                value = bytearray(value)
            object.__setattr__(twin, name, value)
        twin.rng = copy_generator(self.rng)
        return twin

    # ----------------------------------------------------------------------------- queries ----
    def vp(self, p: int) -> int:
        c = self.counters[p]
        return self.T.raw["province_vp"] * self.prov_count[p] + c[1] + 2 * c[2] + 3 * c[3]

    def capacity(self, p: int) -> int:
        """Spec 2.11: 2 + cities on the board + citadel on the board + 2 for a Warehouse in the reserve."""
        return (self.BASE_CAPACITY + self.cities_total - self.cities[p] + (self.citadel_state[p] == 1)
                + (2 if self.WAREHOUSE in self.reserve[p] else 0))

    def deck_size(self, p: int) -> int:
        return len(self.hand[p]) + len(self.draw[p]) + len(self.discard[p]) + len(self.reserve[p])

    def hand_limit(self, p: int) -> int:
        return self.QUEEN_HAND if self.QUEEN in self.reserve[p] else self.HAND_SIZE

    def avail(self, p: int) -> list[int]:
        return self.hand[p] + self.reserve[p]

    def empty_vp_cards(self) -> int:
        return self.vp_cards.count([])

    def attackers(self, prov: int) -> list[int]:
        c = self.controller[prov]
        a = self.armies[prov]
        return [q for q in range(self.num_players) if q != c and a[q] > 0]

    def at_war(self, prov: int) -> bool:
        a = self.armies[prov]
        if not any(a):
            return False
        c = self.controller[prov]
        for q, x in enumerate(a):
            if x and q != c:
                return True
        return False

    def is_party(self, p: int, prov: int) -> bool:
        return self.at_war(prov) and (self.controller[prov] == p or self.armies[prov][p] > 0)

    def at_war_with_player(self, p: int) -> bool:
        """Reserve Army (A-28): p is a party of a war over a player's province against another player."""
        ctrl, armies = self.controller, self.armies
        for x in self.war_provinces():
            c = ctrl[x]
            if c >= 0 and (c == p or armies[x][p]):
                return True
        return False

    def strength(self, prov: int, q: int) -> int:
        """Military strength of party q in prov (spec 5.3.6); q = -1 is the neutral defender."""
        if q < 0:
            return self.T.strength[prov] + (self.ST_DRAGON if self.dragon[prov] else 0)
        ms = self.armies[prov][q] + self.mercs[prov][q]
        for s in self.T.province_seas[prov]:
            ms += self.ships[s][q]
        res = self.reserve[q]
        rugged = self.T.rugged[prov]
        if self.controller[prov] == q:
            if self.LIMES in res:
                ms += self.ST_LIMES
            if self.castle[prov] or self.settle[prov] == CITADEL_S:
                ms += self.ST_CASTLE
            if rugged:
                ms += self.ST_RUGGED
        elif self.CAVALRY in res:
            ms += self.ST_CAVALRY
        if rugged and self.RANGER in res:
            ms += self.ST_RANGER
        return ms

    def war_standing(self, prov: int):
        """(max strength, parties with it) of the war in prov."""
        c = self.controller[prov]
        best, top = self.strength(prov, c), [c]
        a = self.armies[prov]
        for q in range(self.num_players):
            if q == c or not a[q]:
                continue
            ms = self.strength(prov, q)
            if ms > best:
                best, top = ms, [q]
            elif ms == best:
                top.append(q)
        return best, top

    def __getstate__(self):
        state = instance_state(self)
        state.pop("_cache", None)  # derived data only: never part of the state
        del state["change_domains"]  # the game's declaration (DOMAINS), not part of the state
        return state

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)
        self._cache = {}
        self.change_domains = DOMAINS

    def war_provinces(self) -> list[int]:
        """Provinces with a war, ascending (cached: asked for many times between two changes)."""
        revisions = self.revisions
        key = ("wars", revisions[BOARD], revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) > 64:
                self._cache.clear()
            zero, ctrl = self._no_armies, self.controller
            # at war: some army of a seat other than the controller (counts are never negative)
            got = self._cache[key] = [x for x, a in enumerate(self.armies)
                                      if a != zero and sum(a) > (a[ctrl[x]] if ctrl[x] >= 0 else 0)]
        return got

    def road_components(self, p: int) -> list[int]:
        """Component id per province of p's road network (A-19); -1 where p has no control (cached: the build
        checks read it for every location card)."""
        key = ("comp", p, self.revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) > 64:
                self._cache.clear()
            got = self._cache[key] = self._road_components(p)
        return got

    def road_members(self, p: int) -> list:
        """Per province, the provinces of its component in p's road network (cached: the invasion and build
        checks read it for every location card)."""
        key = ("members", p, self.revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            ctrl, borders = self.controller, self.T.borders
            group = {}  # province -> the set of its component, over p's roads (at most 9)
            for k in self.roads_built:
                a, b, _ = borders[k]
                if ctrl[a] == p and ctrl[b] == p:
                    ga, gb = group.get(a), group.get(b)
                    if ga is None and gb is None:
                        group[a] = group[b] = {a, b}
                    elif gb is None:
                        ga.add(b)
                        group[b] = ga
                    elif ga is None:
                        gb.add(a)
                        group[a] = gb
                    elif ga is not gb:
                        ga |= gb
                        for x in gb:
                            group[x] = ga
            if not group:
                got = _SINGLETONS  # no road of p's network: every province stands alone
            else:
                got = list(_SINGLETONS)
                for x, g in group.items():
                    got[x] = tuple(sorted(g))
            self._cache[key] = got
        return got

    def road_hubs(self, p: int) -> list[int]:
        """Provinces of p joined by a road to another of p's provinces, ascending (cached: road movement is
        checked at every CHOOSE)."""
        key = ("hubs", p, self.revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = [x for x, m in enumerate(self.road_members(p)) if len(m) > 1]
        return got

    def _road_components(self, p: int) -> list[int]:
        ctrl = self.controller
        comp = [x if ctrl[x] == p else -1 for x in range(NUM_PROVINCES)]
        borders = self.T.borders
        links = [borders[k] for k in self.roads_built if ctrl[borders[k][0]] == p and ctrl[borders[k][1]] == p]
        changed = bool(links)
        while changed:
            changed = False
            for a, b, _ in links:
                ca, cb = comp[a], comp[b]
                if ca != cb:
                    lo, hi = (ca, cb) if ca < cb else (cb, ca)
                    for i in range(NUM_PROVINCES):
                        if comp[i] == hi:
                            comp[i] = lo
                    changed = True
        return comp

    def terrain_for(self, p: int, terrain: int) -> int:
        if terrain > OPEN and self.ID["Ranger"] in self.reserve[p]:
            return terrain - 1
        return terrain

    def conv_ok(self, p: int, kind: int) -> bool:
        return not self.conv_used[kind] and self.CONVERTER[kind] in self.reserve[p]

    # ------------------------------------------------------------------- payment feasibility ----
    def max_pay(self, cards, kind: int, conv: bool) -> int:
        """Most of `kind` (food/stone/gold/army/ship) the cards can pay (spec 5.1, A-14, A-34)."""
        if kind > GOLD or (self.MERCHANT not in cards and self.WATERMILL not in cards):
            # the common case: printed symbols, plus 1 if the converter may turn a card without any
            values = [self.SYM_COLUMN[kind][c] for c in cards]
            if conv and kind != SHIP and 0 in values and self.CONVERTER[kind] in cards:
                return sum(values) + 1
            return sum(values)
        SYM = self.SYM
        base = 0
        maxv = 0
        zero = 0
        zres = 0
        has_m = has_w = False
        resource = kind <= GOLD
        for c in cards:
            v = SYM[c][kind]
            if v:
                base += v
                if v > maxv:
                    maxv = v
            elif resource and c == self.MERCHANT:
                has_m = True
            elif resource and c == self.WATERMILL:
                has_w = True
            else:
                zero += 1
                if resource and self.RES_ANY[c]:
                    zres += 1
        if kind == SHIP:
            return base
        if conv and self.CONVERTER[kind] not in cards:
            conv = False  # the converter card itself was played in this action
        if not (has_m or has_w):
            return base + (1 if conv and zero > 0 else 0)
        best = base
        for um in range(2 if has_m and zres else 1):  # range, not a tuple literal: Cython types those
            for uw in range(2 if has_w else 1):
                if uw and not (maxv or um):
                    continue
                spare_zero = zero - um + (0 if um else has_m) + (0 if uw else has_w)
                total = base + um + (uw * max(maxv, um)) + (1 if conv and spare_zero > 0 else 0)
                if total > best:
                    best = total
        return best

    def _without(self, cards, *drop):
        return [c for c in cards if c not in drop]

    def army_playable(self, p: int, played: int = 0) -> tuple:
        """Army symbols per card that p may add now to the `played` symbols of this action (0: not playable).

        Rulebook (Ein Gebiet angreifen): "Für jedes Armeesymbol auf deinen ausgespielten Karten musst du eine
        Armee in deinem Persönlichen Vorrat haben" -- "Einzige Ausnahme: Besitzt du nur noch 1 Armee in deinem
        Persönlichen Vorrat, darfst du die Karte ‚Army' ausspielen und nutzen (obwohl sie 2 Armeesymbole hat)."
        So the symbols played never exceed the armies in the personal supply, except an Army card played
        alone with 1 army left (which places that 1 army).
        """
        room = self.armies_pers[p] - played
        if room <= 0:
            return self.ARMY_UPTO[0]
        top = self.ARMY_TOP
        return (self.ARMY_UPTO if played else self.ARMY_FIRST)[room if room < top else top]

    def army_food_ok(self, cards, food: int, p: int) -> bool:
        """At least one playable army symbol and `food` food from disjoint cards."""
        SYM = self.SYM
        army = self.army_playable(p)
        if food <= 0:  # any army symbol, or Levies turning any card into one
            for x in cards:
                if army[x]:
                    return True
            return bool(cards) and self.conv_ok(p, ARMY)
        has_army = False
        printed_food = 0
        for x in cards:
            if army[x]:
                has_army = True
            else:
                printed_food += SYM[x][FOOD]
        if has_army and printed_food >= food:
            return True  # quick sufficient case: an army card plus food printed on other cards
        levies = self.conv_ok(p, ARMY)
        farm = self.conv_ok(p, FOOD)
        for x in cards:
            if army[x] or levies:
                if food <= 0 or self.max_pay(self._without(cards, x), FOOD, farm) >= food:
                    return True
        return False

    # --------------------------------------------------------------------------- turn flow ----
    def _reset_pending(self):
        """Clear the sub-decision context of the action being assembled."""
        for name, value in _PENDING.items():
            setattr(self, name, value)
        self.played: list[int] = []  # cards played in this action (Mystic, A-27)
        self.chosen: list[int] = []
        self.limbo: list[int] = []  # Counsellor and its discards, public, until the draw is done
        self.arrived = _NO_ARRIVALS  # road movement: armies that already moved (a list once one moves)

    def _start_turn(self):
        self.actions_used = 0
        self.any_action = False
        self.drafted = False
        if self.removed_now:
            self.removed_now = []
        self.road_moved = False
        self.warehouse_used = False
        self.conv_used = [False] * 4
        self._reset_pending()
        self.phase = Phase.CHOOSE
        self.actor = self.active

    def _end_turn(self):
        p = self.active
        need = self.hand_limit(p) - len(self.hand[p])
        if need > 0:
            self._draw(p, need)
        self.turn += 1
        self.active = (p + 1) % self.num_players
        self._start_turn()

    def _rebuild_loc(self):
        """Recompute every card's location code from the piles (setup; the invariant tests)."""
        self.loc = self.locations_from_piles()
        self.changed(CARDS)

    def locations_from_piles(self) -> bytearray:
        loc = bytearray(NUM_CARDS)
        for c, (zone, owner) in enumerate(self.card_zones()):
            loc[c] = zone * 5 + owner + 1
        return loc

    def _draw(self, p: int, k: int):
        self.changed(CARDS)
        hand, draw, loc = self.hand[p], self.draw[p], self.loc
        in_hand = Z_HAND * 5 + p + 1
        for _ in range(k):
            if not draw:
                disc = self.discard[p]
                if not disc:
                    return  # A-37
                self.draw[p] = draw = [disc[i] for i in self.rng.permutation(len(disc)).tolist()]
                self.discard[p] = []
                code = Z_DRAW * 5 + p + 1
                for c in draw:
                    loc[c] = code
            c = draw.pop()
            hand.append(c)
            loc[c] = in_hand

    def _play(self, p: int, c: int):
        """Play card c from hand or reserve: it goes onto the discard pile (spec 5.1)."""
        self.changed(CARDS)
        h = self.hand[p]
        if c in h:
            h.remove(c)
        else:
            self.reserve[p].remove(c)
        self.discard[p].append(c)
        self.loc[c] = Z_DISCARD * 5 + p + 1
        self.played.append(c)

    def _take(self, p: int, c: int, zone: int, owner: int):
        """Take card c out of p's hand or reserve; the caller puts it into (zone, owner)."""
        self.changed(CARDS)
        self.loc[c] = zone * 5 + owner + 1
        h = self.hand[p]
        if c in h:
            h.remove(c)
        else:
            self.reserve[p].remove(c)

    def _action_done(self):
        self.actions_used += 1
        self.any_action = True
        self._back_to_choose()

    def _free_done(self):
        self.any_action = True
        self._back_to_choose()

    def _back_to_choose(self):
        self._reset_pending()
        self.phase = Phase.CHOOSE
        if self.scribe_queue and self._next_scribe_choice():
            return
        if self.actions_used >= 2 and not self._free_actions_legal():
            self._end_turn()

    # ------------------------------------------------------------------------------ VP ----
    def _give(self, p: int, v: int):
        self.counters[p][v] += 1

    def award(self, p: int, k: int, value: int = 0) -> bool:
        """Take a counter of VP card k (spec 5.7). With Scribe from the spare stock if the card cannot
        give one; if both can, the counter is taken from the card now and the owner decides after
        the action whether it comes from the spare stock instead (Phase.SCRIBE_SOURCE)."""
        self.changed(VP)
        vals = self.vp_cards[k]
        if vals is None:
            return False
        if vals and (not value or value in vals):
            v = value or vals[-1]
            at = vals.index(v)
            del vals[at]
            self._give(p, v)
            if not self.dry and self.spare[v] > 0 and self.ID["Scribe"] in self.reserve[p]:
                self.scribe_queue.append((p, k, v, at, -1))
            return True
        if self.ID["Scribe"] in self.reserve[p]:
            v = value or self._vp_value(k)
            if v and self.spare[v] > 0:
                self.spare[v] -= 1
                self._give(p, v)
                return True
        return False

    def _next_scribe_choice(self) -> bool:
        """Open the Scribe decision of the first queued counter that still has two sources."""
        queue = self.scribe_queue
        while queue:
            p, k, v, _, cond = queue[0]
            if (self.spare[v] > 0 and self.ID["Scribe"] in self.reserve[p]
                    and (cond < 0 or self.villages[p] > 0)):
                self.phase = Phase.SCRIBE_SOURCE
                self.actor = p
                return True
            queue.pop(0)  # the spare stock ran out of that value meanwhile: the card it is
        return False

    def _legal_scribe_source(self) -> list[int]:
        return [M.OPTION + 0, M.OPTION + 1]  # 0: from the VP card (as taken), 1: from the spare stock

    def _apply_scribe_source(self, move: int):
        p, k, v, at, cond = self.scribe_queue.pop(0)
        if move == M.OPTION + 1:
            self.changed(VP)
            self.vp_cards[k].insert(at, v)  # the counter goes back onto the card, in its place
            self.spare[v] -= 1
            if cond >= 0:  # Master of the Sea: the condition stays open for the others; p marks it
                self.changed(BOARD)  # a village of p's supply
                self.sea_claimed[cond] = -1
                self.scribe_marks[p][cond] = True
                self.villages[p] -= 1
                self.villages_on_card[p] += 1
        self.actor = self.active
        self._back_to_choose()

    def _vp_value(self, k: int) -> int:
        raw = self.T.raw
        if k == V_SPOILS:
            return 1
        if k == V_CASTLE:
            return self.config.castle_counter_value
        if k < 3:
            return 2
        return raw["variable_vp_cards"][VP_CARD_NAMES[k]][0][0]

    def can_award(self, p: int, k: int) -> bool:
        vals = self.vp_cards[k]
        if vals is None:
            return False
        if vals:
            return True
        return self.ID["Scribe"] in self.reserve[p] and self.spare[self._vp_value(k)] > 0

    def _check_isles(self, p: int):
        if self.vp_cards[V_ISLES] is None:
            return
        self.changed(VP)
        for i, isle in enumerate(self.ISLANDS):
            complete = all(self.controller[x] == p for x in isle)
            if complete and not self.isle_complete[p][i]:
                self.award(p, V_ISLES, 3 if i == 0 else 2)
            self.isle_complete[p][i] = complete

    def _check_sea(self, p: int):
        if self.vp_cards[V_SEA] is None:
            return
        self.changed(VP)
        seas = sum(1 for s in range(NUM_SEAS) if self.ships[s][p] > 0)
        for cond, need in enumerate((3, 4)):
            if seas < need:
                continue
            if self.sea_claimed[cond] < 0 and self.vp_cards[V_SEA] and not self.scribe_marks[p][cond]:
                self.vp_cards[V_SEA].pop()
                self._give(p, 2)
                self.sea_claimed[cond] = p
                if (self.ID["Scribe"] in self.reserve[p] and self.villages[p] > 0 and self.spare[2] > 0
                        and not self.dry):  # Scribe: or from the spare stock with a village marker
                    self.scribe_queue.append((p, V_SEA, 2, len(self.vp_cards[V_SEA]), cond))
            elif (self.sea_claimed[cond] != p and not self.scribe_marks[p][cond]
                  and self.ID["Scribe"] in self.reserve[p] and self.villages[p] > 0 and self.spare[2] > 0):
                self.changed(BOARD)  # a village of p's supply
                self.spare[2] -= 1
                self._give(p, 2)
                self.scribe_marks[p][cond] = True
                self.villages[p] -= 1
                self.villages_on_card[p] += 1

    # --------------------------------------------------------------------------- wars ----
    def resolve_war(self, prov: int, winner: int, counts_defence: bool = True):
        """Spec 5.8 steps B and C."""
        self.changed(BOARD)
        n = self.num_players
        d = self.controller[prov]
        att = self.attackers(prov)
        arm, mer = self.armies[prov], self.mercs[prov]
        for q in range(n):
            self.armies_pers[q] += arm[q]
            arm[q] = 0
            self.mercs_left += mer[q]
            mer[q] = 0
        if winner == d:
            if counts_defence and d >= 0 and att:
                self.award(d, V_DEFENDER)
            return
        w = winner
        was_citadel = self.settle[prov] == CITADEL_S
        if d >= 0:
            s = self.settle[prov]
            if s == VILLAGE_S:
                self.villages[d] += 1
            elif s == CITY_S:
                self.changed(CITIES)
                self.cities[d] += 1
            elif s == CITADEL_S:
                self.changed(CITIES)
                self.citadel_state[d] = 2
            self.prov_count[d] -= 1
        self.changed(MAP)
        self.settle[prov] = NONE_S
        self.controller[prov] = -1
        if self.villages[w] == 0:  # C1 (A-18)
            self.dragon[prov] = self.rune[prov] = False
            if d >= 0:
                if not self.dry:
                    self._move_province_card(prov, d, -1)
                self._check_isles(d)
            return
        if self.dragon[prov]:
            self.dragon[prov] = False
            self.award(w, V_DRAGONS)
        if self.rune[prov]:
            self.rune[prov] = False
            self.award(w, V_RUNES)
        self._place_village(w, prov)
        if not self.dry:
            self._move_province_card(prov, d, w)
        if d >= 0:
            self.award(w, V_SPOILS)
            if was_citadel:
                self.award(w, V_CITADEL)
            self._check_isles(d)
        self._check_isles(w)

    def _move_province_card(self, prov: int, d: int, w: int):
        self.changed(CARDS)
        c = prov
        if c in self.pstack:
            self.pstack.remove(c)
        elif d >= 0:
            if c in self.hand[d]:
                self.hand[d].remove(c)
                self._draw(d, 1)
            elif c in self.draw[d]:
                self.draw[d].remove(c)
                dr = self.draw[d]
                self.draw[d] = [dr[i] for i in self.rng.permutation(len(dr)).tolist()]
            elif c in self.discard[d]:
                self.discard[d].remove(c)
            elif c in self.reserve[d]:
                self.reserve[d].remove(c)
            else:
                raise AssertionError(f"province card {c} not found with seat {d}")
        if w >= 0:
            self.discard[w].append(c)
            self.loc[c] = Z_DISCARD * 5 + w + 1
        else:
            self.pstack.append(c)
            self.loc[c] = Z_PSTACK * 5

    def _drop_mercs_if_alone(self, prov: int, q: int):
        if self.armies[prov][q] == 0 and self.mercs[prov][q]:
            self.changed(BOARD)
            self.mercs_left += self.mercs[prov][q]
            self.mercs[prov][q] = 0

    dry = False  # a dry-run copy: card movements are skipped (they never change scores)

    def _dry_copy(self) -> "MythotopiaEngine":
        """A copy sharing everything that war resolution leaves alone (cards, rng, static tables)."""
        sim = copy.copy(self)
        sim.dry = True
        sim._cache = {}
        sim.revisions = dict(self.revisions)  # its own: the copy's changes must not move the engine's
        sim.armies = [a[:] for a in self.armies]
        sim.mercs = [m[:] for m in self.mercs]
        for name in ("armies_pers", "villages", "cities", "citadel_state", "prov_count", "settle", "controller",
                     "dragon", "rune", "spare"):
            setattr(sim, name, list(getattr(self, name)))
        sim.counters = [c[:] for c in self.counters]
        sim.vp_cards = [None if v is None else v[:] for v in self.vp_cards]
        sim.isle_complete = [x[:] for x in self.isle_complete]
        sim.scribe_queue = []
        return sim

    def end_game_outcome(self):
        """Dry run of End the game (spec 5.3.15, A-23) on a copy: the final scores."""
        sim = self._dry_copy()
        for prov in list(sim.war_provinces()):  # ascending; resolving one war leaves the others as they are
            if sim.at_war(prov):
                best, top = sim.war_standing(prov)
                d = sim.controller[prov]
                sim.resolve_war(prov, d if (len(top) > 1 or top[0] == d) else top[0])
        return sim

    def _end_game_ok(self, p: int) -> bool:
        if self.any_action or self.empty_vp_cards() < self.EMPTY_TO_END:
            return False
        if self.war_provinces():
            sim = self.end_game_outcome()
        else:
            sim = self
        s = sim.scores()
        return all(s[p] > s[q] for q in range(self.num_players) if q != p)

    # ------------------------------------------------------------------------ legality ----
    def legal_moves(self) -> list[int]:
        if self.phase == Phase.GAME_OVER:
            return []
        legal, _ = PHASE_HANDLERS[self.phase]
        return legal(self)

    def apply(self, move: int) -> None:
        """Validate and apply; on error the state is unchanged."""
        legal = self.legal_moves()
        if move not in legal:
            raise IllegalActionError(f"move {move} ({M.move_name(move)}) is illegal now; legal: {legal}")
        self.play(move)

    def play(self, move: int) -> None:
        """Apply a move known to be legal."""
        _, apply = PHASE_HANDLERS[self.phase]
        apply(self, move)
        self.stamp_changes()

    # --- CHOOSE
    def _free_actions_legal(self) -> bool:
        """Some free action is possible (decides whether the turn ends by itself, A-24)."""
        p = self.active
        av = self.avail(p)
        ID = self.ID
        if ID["Counsellor"] in av and any(c != ID["Counsellor"] for c in self.hand[p]):
            return True
        out = []
        self._legal_free_cards(p, av, out)
        if out:
            return True
        if (not self.warehouse_used and ID["Warehouse"] in self.reserve[p] and self.hand[p]
                and len(self.reserve[p]) < self.capacity(p)):
            return True
        return bool(not self.road_moved and self._road_move_sources(p))

    def _legal_choose(self) -> list[int]:
        p = self.active
        out = []
        av = self.hand[p] + self.reserve[p]
        hand, reserve = self.hand[p], self.reserve[p]
        if self.actions_used < 2:
            armies_pers = self.armies_pers[p]
            if armies_pers > 0 and self._any_invade(p, av):
                out.append(M.V_INVADE)
            if armies_pers > 0 and self._any_place(p, av):
                out.append(M.V_PLACE_ARMIES)
            if armies_pers + self.armies_gen[p] < self.armies_total and self._any_remove(p):
                out.append(M.V_REMOVE_ARMIES)
            if self.ships_pers[p] > 0:
                ship = self.SYM_COLUMN[SHIP]
                if any([ship[c] for c in av]) and self._ship_seas(p):
                    out.append(M.V_PLACE_SHIPS)
            if self.ships_pers[p] + self.ships_gen[p] < self.ships_total:
                out.append(M.V_REMOVE_SHIPS)
            if not self.any_action and self.war_provinces() and self._endwar_provinces(p, first_only=True):
                out.append(M.V_END_WAR)
            gold = self.max_pay(av, GOLD, not self.conv_used[GOLD] and self.CONVERTER[GOLD] in reserve)
            if (self.armies_gen[p] and gold >= 1) or (self.ships_gen[p] and gold >= 2):
                out.append(M.V_BUY)
            if not self.drafted and gold >= 1 and (self.display or self._draftable(p)):
                out.append(M.V_DRAFT)
            if hand and len(reserve) < self.capacity(p):
                out.append(M.V_RESERVE)
            if av:
                out.append(M.V_DISCARD)
                if len(av) + len(self.draw[p]) + len(self.discard[p]) > self.MIN_DECK:
                    out.append(M.V_REMOVE_FROM_DECK)
            if self._any_build(p, av):
                out.append(M.V_BUILD)
            if not self.ACTION_CARDS.isdisjoint(av):
                if self.ALCHEMIST in av and self._alchemy_options(p):
                    out.append(M.V_ALCHEMIST)
                if (self.DIPLOMAT in av and self._my_wars(p)
                        and self.max_pay(self._without(av, self.DIPLOMAT), GOLD, self.conv_ok(p, GOLD)) >= 1):
                    out.append(M.V_DIPLOMAT)
            if gold >= self.PATRONAGE_GOLD and self.can_award(p, V_PATRONAGE):
                out.append(M.V_PATRONAGE)
            out.append(M.V_PASS)
            if not self.any_action and self._end_game_ok(p):
                out.append(M.V_END_GAME)
        if not self.FREE_CARDS.isdisjoint(av):
            if self.COUNSELLOR in av and any(c != self.COUNSELLOR for c in hand):
                out.append(M.V_COUNSELLOR)
            self._legal_free_cards(p, av, out)
        if (not self.warehouse_used and self.WAREHOUSE in reserve and hand
                and len(reserve) < self.capacity(p)):
            out.append(M.V_WAREHOUSE)
        if not self.road_moved and self.roads_built and self._road_move_sources(p):
            out.append(M.V_ROAD_MOVE)
        if self.actions_used >= 2:
            out.append(M.V_END_TURN)
        return out

    def _legal_free_cards(self, p, av, out):
        """Free actions of cards (spec 5.4), after Counsellor; appended in verb order."""
        ID = self.ID
        if self.FREE_CARDS.isdisjoint(av):
            return
        if ID["Marauders"] in av and any(any(a) for a in self.armies):
            out.append(M.V_MARAUDERS)
        if ID["Mercenary"] in av and self._merc_provinces(p) and self.max_pay(
                self._without(av, ID["Mercenary"]), GOLD, self.conv_ok(p, GOLD)) >= 1:
            out.append(M.V_MERCENARY)
        if ID["Militia"] in av and self.armies_gen[p] > 0:
            out.append(M.V_MILITIA)
        if ID["Mystic"] in av and self.discard[p] and self.max_pay(
                self._without(av, ID["Mystic"]), GOLD, self.conv_ok(p, GOLD)) >= 1:
            out.append(M.V_MYSTIC)
        if ID["Philosopher"] in av and self.impdeck:
            out.append(M.V_PHILOSOPHER)
        if ID["Providence"] in av and (self.draw[p] or self.discard[p]):
            out.append(M.V_PROVIDENCE)

    def _apply_choose(self, move: int):
        p = self.active
        self.pk = move  # the pending context is clear: every way back to CHOOSE resets it
        phase = _VERB_PHASE.get(move)
        if phase is not None:  # verbs that only open their first sub-decision
            self.phase = phase
            return
        ID = self.ID
        if move == M.V_BUILD:
            cards = [b for b in self._build_cards(p) if self._build_types(p, b)]
            if len(cards) == 1:
                self._choose_build_card(cards[0])
            else:
                self.phase = Phase.BUILD_CARD
        elif move == M.V_ALCHEMIST:
            self._play(p, ID["Alchemist"])
            opts = self._alchemy_options(p)
            if len(opts) == 1:
                self._alchemy(opts[0])
            else:
                self.phase = Phase.ALCH_OPT
        elif move == M.V_DIPLOMAT:
            self._play(p, ID["Diplomat"])
            self.phase = Phase.DIPLO_PROV
        elif move == M.V_PATRONAGE:
            self._pay(GOLD, self.T.raw["costs"]["patronage_gold"], MythotopiaEngine._patronage_paid)
        elif move == M.V_PASS:
            self._action_done()
        elif move == M.V_END_GAME:
            self._end_game()
        elif move == M.V_COUNSELLOR:
            self._take(p, ID["Counsellor"], Z_DISCARD, p)  # limbo: public, shown as discarded
            self.limbo = [ID["Counsellor"]]
            self.phase = Phase.COUNSEL_CARDS
        elif move == M.V_MARAUDERS:
            self._play(p, ID["Marauders"])
            self.phase = Phase.MARAUD_PROV
        elif move == M.V_MERCENARY:
            self._play(p, ID["Mercenary"])
            self.phase = Phase.MERC_PROV
        elif move == M.V_MILITIA:
            self._play(p, ID["Militia"])
            self.changed(BOARD)
            self.armies_gen[p] -= 1
            self.armies_pers[p] += 1
            self._free_done()
        elif move == M.V_MYSTIC:
            self._play(p, ID["Mystic"])
            self._pay(GOLD, self.T.raw["costs"]["mystic_gold"], MythotopiaEngine._mystic_paid)
        elif move == M.V_PHILOSOPHER:
            self._take(p, ID["Philosopher"], Z_OUT, -1)
            self.out.append(ID["Philosopher"])
            self.phase = Phase.PHILO_CARD
        elif move == M.V_PROVIDENCE:
            self._take(p, ID["Providence"], Z_DISCARD, p)
            self._draw(p, 2)
            self.discard[p].append(ID["Providence"])
            self._free_done()
        elif move == M.V_ROAD_MOVE:
            self.road_moved = True
            self.phase = Phase.RM_FROM
        elif move == M.V_END_TURN:
            self._end_turn()

    # --- generic payment (spec 5.1): one card at a time, with converter / Merchant / Water Mill modes
    def _pay(self, kind: int, amount: int, then):
        """Pay `amount` of `kind`, then call `then` (a MythotopiaEngine method, e.g.
        MythotopiaEngine._buy_paid): at once if nothing is owed, else after the PAY phase."""
        if amount <= 0:
            then(self)
            return
        self.pay_kind, self.pay_owed, self.pay_then = kind, amount, then
        self.m_conv = self.m_merch = self.m_wm = False
        self.phase = Phase.PAY

    def _pay_value(self, c: int, kind: int) -> int:
        if self.m_conv:
            return 1
        if self.m_merch:
            v = self.RES_ANY[c]
        else:
            v = self.SYM[c][kind]
        return v * 2 if (self.m_wm and v) else v

    def _legal_pay(self) -> list[int]:
        p = self.active
        kind, owed = self.pay_kind, self.pay_owed
        av = self.avail(p)
        conv_free = self.conv_ok(p, kind)
        column = self.SYM_COLUMN[kind]
        printed = sum([column[c] for c in av])  # printed - column[c]: a lower bound of what av - c pays
        out = []
        for c in av:
            if (c == self.MERCHANT or c == self.WATERMILL) and not self.m_conv:
                continue
            v = self._pay_value(c, kind)
            if v <= 0:
                continue
            rest = owed - v
            if rest <= 0 or printed - column[c] >= rest or self.max_pay(
                    self._without(av, c), kind, conv_free and not self.m_conv) >= rest:
                out.append(M.CARD + c)
        if not (self.m_conv or self.m_merch or self.m_wm) and conv_free:
            if any(owed <= 1 or self.max_pay(self._without(av, c), kind, False) >= owed - 1 for c in av):
                out.append(M.MODE_CONVERT)
        merch, mill = self.MERCHANT, self.WATERMILL
        if not self.m_conv and not self.m_merch and merch in av:
            rest_av = self._without(av, merch)
            mill_later = not self.m_wm and mill in rest_av
            for c in rest_av:
                v = self.RES_ANY[c]
                if not v or c == mill:
                    continue
                v2 = v * 2 if self.m_wm else v
                if owed <= v2 or self.max_pay(self._without(rest_av, c), kind, conv_free) >= owed - v2:
                    out.append(M.MODE_MERCHANT)
                    break
                if mill_later and (owed <= 2 * v or self.max_pay(
                        self._without(rest_av, c, mill), kind, conv_free) >= owed - 2 * v):
                    out.append(M.MODE_MERCHANT)
                    break
        if not self.m_conv and not self.m_wm and mill in av:
            rest_av = self._without(av, mill)
            merch_later = not self.m_merch and merch in rest_av
            for c in rest_av:
                if c == merch:
                    continue
                v = self.RES_ANY[c] if self.m_merch else self.SYM[c][kind]
                if v and (owed <= 2 * v or self.max_pay(self._without(rest_av, c), kind, conv_free) >= owed - 2 * v):
                    out.append(M.MODE_WATERMILL)
                    break
                v = self.RES_ANY[c]
                if merch_later and v and (owed <= 2 * v or self.max_pay(
                        self._without(rest_av, c, merch), kind, conv_free) >= owed - 2 * v):
                    out.append(M.MODE_WATERMILL)
                    break
        out.sort()
        return out

    def _apply_pay(self, move: int):
        p = self.active
        if move == M.MODE_CONVERT:
            self.m_conv = True
            return
        if move == M.MODE_MERCHANT:
            self._play(p, self.MERCHANT)
            self.m_merch = True
            return
        if move == M.MODE_WATERMILL:
            self._play(p, self.WATERMILL)
            self.m_wm = True
            return
        c = move - M.CARD
        self.pay_owed -= self._pay_value(c, self.pay_kind)
        if self.m_conv:
            self.conv_used[self.pay_kind] = True
        self.m_conv = self.m_merch = self.m_wm = False
        self._play(p, c)
        if self.pay_owed <= 0:
            then = self.pay_then
            self.pay_then = None
            self.phase = Phase.CHOOSE
            then(self)

    # --- army cards (Invade, Place armies): the army-symbol limit is army_playable
    def _legal_army_cards(self) -> list[int]:
        p = self.active
        av = self.avail(p)
        food = self.food_needed
        farm = self.conv_ok(p, FOOD)
        out = []
        if self.army_syms < self.armies_pers[p]:
            if self.m_conv:
                for c in av:
                    if food <= 0 or self.max_pay(self._without(av, c), FOOD, farm) >= food:
                        out.append(M.CARD + c)
            else:
                army = self.army_playable(p, self.army_syms)
                food_column = self.SYM_COLUMN[FOOD]
                printed = sum([food_column[c] for c in av])  # minus the card's own: a lower bound
                for c in av:
                    if army[c] and (food <= 0 or printed - food_column[c] >= food
                                         or self.max_pay(self._without(av, c), FOOD, farm) >= food):
                        out.append(M.CARD + c)
                if self.conv_ok(p, ARMY) and any(
                        food <= 0 or self.max_pay(self._without(av, c), FOOD, farm) >= food for c in av):
                    out.append(M.MODE_CONVERT)
        out.sort()
        if self.army_syms >= 1 and not self.m_conv:
            out.append(M.DONE)
        return out

    def _apply_army_cards(self, move: int):
        p = self.active
        if move == M.MODE_CONVERT:
            self.m_conv = True
            return
        if move == M.DONE:
            self.changed(BOARD)
            k = min(self.army_syms, self.armies_pers[p])  # the symbols, or the 1 army left after an Army card
            self.armies_pers[p] -= k
            self.armies[self.army_dest][p] += k
            self.army_syms = 0
            self._pay(FOOD, self.food_needed, MythotopiaEngine._action_done)
            return
        c = move - M.CARD
        if self.m_conv:
            self.army_syms += 1
            self.conv_used[ARMY] = True
            self.m_conv = False
        else:
            self.army_syms += self.SYM[c][ARMY]
        self._play(p, c)

    # --- Invade (spec 5.3.1)
    def _loc_options(self, p: int, target: int, av=None):
        """{card: [(ships, food), ...]} location cards usable for an invasion of target."""
        av = self.avail(p) if av is None else av
        rc = self.ROUTE_CLASSES[1 if self.RANGER in self.reserve[p] else 0]
        ctrl = self.controller
        members = None
        out = {}
        for c in av:
            prov = self.CARD_PROV[c]
            if prov >= 0:
                if ctrl[prov] == p and self.roads_built:
                    if members is None:
                        members = self.road_members(p)
                    origins = members[prov]
                else:
                    origins = (prov,)
            elif c == self.GENERAL:
                origins = [o for o in range(NUM_PROVINCES) if ctrl[o] == p]
            elif c == self.PORTAL:
                out[c] = [(0, 1)]
                continue
            else:
                continue
            if len(origins) == 1:
                classes = rc[origins[0]][target]
                if classes:
                    out[c] = list(classes)
                continue
            found = set()
            for o in origins:
                found.update(rc[o][target])
            if found:
                out[c] = sorted(found)
        return out

    def _invade_ok(self, p: int, av, loc: int, ships: int, food: int) -> bool:
        rest = self._without(av, loc)
        if ships:
            titled = [c for c in rest if c in self.SHIP_TITLED]
            if len(titled) < ships:
                return False
            if ships == 1:
                return any(self.army_food_ok(self._without(rest, s), food, p) for s in titled)
            for i in range(len(titled)):
                for j in range(i + 1, len(titled)):
                    if self.army_food_ok(self._without(rest, titled[i], titled[j]), food, p):
                        return True
            return False
        return self.army_food_ok(rest, food, p)

    def _invade_blocked(self, p: int, target: int) -> bool:
        c = self.controller[target]
        if c == p:
            return True
        return c >= 0 and self._ra_blocks(p)[c]

    def _ra_blocks(self, p: int) -> list[bool]:
        """Per seat c: Reserve Army forbids p to invade c's provinces now (A-28)."""
        revisions = self.revisions
        key = ("ra", p, revisions[BOARD], revisions[MAP], revisions[CARDS])
        got = self._cache.get(key)
        if got is None:
            ra = self.RESERVE_ARMY
            mine = ra in self.reserve[p] and self.at_war_with_player(p)
            got = self._cache[key] = [mine or (ra in self.reserve[c] and self.at_war_with_player(c))
                                      for c in range(self.num_players)]
        return got

    def _reserve_army_in_play(self) -> bool:
        ra = self.RESERVE_ARMY
        for r in self.reserve:
            if ra in r:
                return True
        return False

    def _any_invade(self, p: int, av) -> bool:
        """Some invasion is possible (fast check for the verb): for each location card, each route
        class it can afford, any target reachable with that class that p may invade."""
        army, food = self.army_playable(p), self.SYM_COLUMN[FOOD]
        army_cards = sum(1 for c in av if army[c])
        if not army_cards and not self.conv_ok(p, ARMY):
            return False  # no army symbol at all
        if not any([food[c] for c in av]) and self.max_pay(av, FOOD, self.conv_ok(p, FOOD)) < 1:
            return False
        # food printed on cards without an army symbol: with one of them as the location card gone,
        # an army card plus this food suffices (the quick case of army_food_ok)
        plain_food = sum([food[c] for c in av if not army[c]])
        ctrl = self.controller
        by_class = self.REACH_BY_CLASS[1 if self.RANGER in self.reserve[p] else 0]
        ra_in_play = self._reserve_army_in_play()
        blocks = self._ra_blocks(p) if ra_in_play else None
        members = None
        for c in av:
            prov = self.CARD_PROV[c]
            if prov >= 0:
                if ctrl[prov] == p and self.roads_built:
                    if members is None:
                        members = self.road_members(p)
                    origins = members[prov]
                else:
                    origins = (prov,)
            elif c == self.GENERAL:
                origins = [o for o in range(NUM_PROVINCES) if ctrl[o] == p]
            elif c == self.PORTAL:
                if self._invade_ok(p, av, c, 0, 1) and any(
                        ctrl[t] != p and not (ra_in_play and self._invade_blocked(p, t)) for t in range(NUM_PROVINCES)):
                    return True
                continue
            else:
                continue
            for k, (ships, food_needed) in enumerate(ROUTES):
                reachable = False
                for o in origins:
                    for t in by_class[o][k]:
                        owner = ctrl[t]
                        if owner != p and not (ra_in_play and owner >= 0 and blocks[owner]):
                            reachable = True
                            break
                    if reachable:
                        break
                if reachable:
                    if not ships and (army_cards - (army[c] > 0) > 0
                                      and plain_food - (0 if army[c] else food[c]) >= food_needed):
                        return True
                    if self._invade_ok(p, av, c, ships, food_needed):
                        return True
        return False

    def _invade_targets(self, p: int) -> list[int]:
        """Every province p can invade now (the INV_TARGET choices), ascending."""
        av = self.avail(p)
        ctrl = self.controller
        by_class = self.REACH_BY_CLASS[1 if self.RANGER in self.reserve[p] else 0]
        ra_in_play = self._reserve_army_in_play()
        comp = None
        found = set()
        for c in av:
            prov = self.CARD_PROV[c]
            if prov >= 0:
                if ctrl[prov] == p and self.roads_built:
                    if comp is None:
                        comp = self.road_members(p)
                    origins = comp[prov]
                else:
                    origins = (prov,)
            elif c == self.GENERAL:
                origins = [o for o in range(NUM_PROVINCES) if ctrl[o] == p]
            elif c == self.PORTAL:
                if self._invade_ok(p, av, c, 0, 1):
                    found.update(range(NUM_PROVINCES))
                continue
            else:
                continue
            for k, (ships, food) in enumerate(ROUTES):
                targets = set()
                for o in origins:
                    targets.update(by_class[o][k])
                if targets - found and self._invade_ok(p, av, c, ships, food):
                    found |= targets
        return sorted(t for t in found if ctrl[t] != p and not (ra_in_play and self._invade_blocked(p, t)))

    def _legal_inv_target(self):
        return [M.PROVINCE + t for t in self._invade_targets(self.active)]

    def _apply_inv_target(self, move):
        self.target = move - M.PROVINCE
        self.army_dest = self.target
        self.phase = Phase.INV_LOC

    def _legal_inv_loc(self):
        p = self.active
        av = self.avail(p)
        out = []
        for c, classes in self._loc_options(p, self.target, av).items():
            if any(self._invade_ok(p, av, c, s, f) for s, f in classes):
                out.append(M.CARD + c)
        out.sort()
        return out

    def _apply_inv_loc(self, move):
        p = self.active
        c = move - M.CARD
        av = self.avail(p)
        classes = [r for r in self._loc_options(p, self.target, av)[c] if self._invade_ok(p, av, c, *r)]
        self._play(p, c)
        if len(classes) == 1:
            self._set_route(classes[0])
        else:
            self.phase = Phase.INV_ROUTE
            self._route_choices = classes

    def _legal_inv_route(self):
        return [M.OPTION + ROUTES.index(r) for r in self._route_choices]

    def _apply_inv_route(self, move):
        self._set_route(ROUTES[move - M.OPTION])

    def _set_route(self, route):
        self.ships_needed, self.food_needed = route
        self._route_choices = []
        self._after_ships()

    def _after_ships(self):
        if self.ships_needed > 0:
            self.phase = Phase.INV_SHIP
        else:
            self.army_syms = 0
            self.phase = Phase.ARMY_CARDS

    def _legal_inv_ship(self):
        p = self.active
        av = self.avail(p)
        out = []
        for c in av:
            if c in self.SHIP_TITLED:
                rest = self._without(av, c)
                if self.ships_needed == 1:
                    ok = self.army_food_ok(rest, self.food_needed, p)
                else:
                    ok = any(self.army_food_ok(self._without(rest, s), self.food_needed, p)
                             for s in rest if s in self.SHIP_TITLED)
                if ok:
                    out.append(M.CARD + c)
        out.sort()
        return out

    def _apply_inv_ship(self, move):
        self._play(self.active, move - M.CARD)
        self.ships_needed -= 1
        self._after_ships()

    # --- Place armies (spec 5.3.2)
    def _place_provinces(self, p):
        av = self.avail(p)
        out = []
        own_ok = foreign_ok = None
        for prov in range(NUM_PROVINCES):
            if self.controller[prov] == p:
                if own_ok is None:
                    own_ok = self.army_food_ok(av, 0, p)
                if own_ok:
                    out.append(prov)
            elif self.armies[prov][p] > 0:
                if foreign_ok is None:
                    foreign_ok = self.army_food_ok(av, 1, p)
                if foreign_ok:
                    out.append(prov)
        return out

    def _any_place(self, p, av) -> bool:
        """Place armies is possible somewhere (fast check for the verb)."""
        ctrl = self.controller
        if p in ctrl and self.army_food_ok(av, 0, p):
            return True
        for a, c in zip(self.armies, ctrl):
            if a[p] and c != p:
                return self.army_food_ok(av, 1, p)
        return False

    def _legal_place_prov(self):
        return [M.PROVINCE + x for x in self._place_provinces(self.active)]

    def _apply_place_prov(self, move):
        prov = move - M.PROVINCE
        self.army_dest = prov
        self.food_needed = 0 if self.controller[prov] == self.active else 1
        self.army_syms = 0
        self.phase = Phase.ARMY_CARDS

    # --- Remove armies (spec 5.3.3)
    def _remove_provinces(self, p):
        revisions = self.revisions
        key = ("rem", p, revisions[BOARD], revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            armies = self.armies
            wars = self.war_provinces()
            got = self._cache[key] = [x for x, a in enumerate(armies) if a[p] and x not in wars]
        return got

    def _any_remove(self, p) -> bool:
        """Remove armies is possible somewhere (fast check for the verb, cached like the war list)."""
        revisions = self.revisions
        key = ("any_remove", p, revisions[BOARD], revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            wars = self.war_provinces()
            got = False
            for x, a in enumerate(self.armies):
                if a[p] and x not in wars:
                    got = True
                    break
            self._cache[key] = got
        return got

    def _legal_rem_prov(self):
        return [M.PROVINCE + x for x in self._remove_provinces(self.active)]

    def _apply_rem_prov(self, move):
        self.target = move - M.PROVINCE
        p = self.active
        if self.mercs[self.target][p] == 0 and self.armies[self.target][p] == 1:
            self._remove_armies(1, 0)
        else:
            self.phase = Phase.REM_ARMIES_N

    def _legal_rem_armies_n(self):
        p, t = self.active, self.target
        lo = 0 if self.mercs[t][p] else 1
        return [M.NUMBER + k for k in range(lo, self.armies[t][p] + 1)]

    def _apply_rem_armies_n(self, move):
        p, t = self.active, self.target
        k = move - M.NUMBER
        if self.mercs[t][p] and self.armies[t][p] - k > 0:
            self.number = k
            self.phase = Phase.REM_MERCS_N
        else:
            self._remove_armies(k, self.mercs[t][p])

    def _legal_rem_mercs_n(self):
        p, t = self.active, self.target
        lo = 1 if self.number == 0 else 0
        return [M.NUMBER + k for k in range(lo, self.mercs[t][p] + 1)]

    def _apply_rem_mercs_n(self, move):
        self._remove_armies(self.number, move - M.NUMBER)

    def _remove_armies(self, k, mercs):
        self.changed(BOARD)
        p, t = self.active, self.target
        self.armies[t][p] -= k
        self.armies_pers[p] += k
        self.mercs[t][p] -= mercs
        self.mercs_left += mercs
        self._drop_mercs_if_alone(t, p)
        self._action_done()

    # --- ships (spec 5.3.4, 5.3.5)
    def _ship_seas(self, p):
        """Seas next to a province of p (cached: the action menu asks at every CHOOSE)."""
        key = ("seas", p, self.revisions[MAP])
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) > 64:
                self._cache.clear()
            ctrl = self.controller
            got = self._cache[key] = [s for s in range(NUM_SEAS) if p in [ctrl[x] for x in self.T.sea_provinces[s]]]
        return got

    def _legal_ship_sea(self):
        return [M.SEA + s for s in self._ship_seas(self.active)]

    def _apply_ship_sea(self, move):
        self.target = move - M.SEA
        self.army_syms = 0
        self.phase = Phase.SHIP_CARDS

    def _legal_ship_cards(self):
        p = self.active
        out = []
        if self.army_syms < self.ships_pers[p]:
            out = [M.CARD + c for c in sorted(self.avail(p)) if self.SYM[c][SHIP]]
        if self.army_syms >= 1:
            out.append(M.DONE)
        return out

    def _apply_ship_cards(self, move):
        p = self.active
        if move == M.DONE:
            self.changed(BOARD)
            k = min(self.army_syms, self.ships_pers[p])
            self.ships_pers[p] -= k
            self.ships[self.target][p] += k
            self._check_sea(p)
            self._action_done()
            return
        c = move - M.CARD
        self.army_syms += self.SYM[c][SHIP]
        self._play(p, c)

    def _legal_remship_sea(self):
        p = self.active
        return [M.SEA + s for s in range(NUM_SEAS) if self.ships[s][p]]

    def _apply_remship_sea(self, move):
        self.target = move - M.SEA
        if self.ships[self.target][self.active] == 1:
            self._remove_ships(1)
        else:
            self.phase = Phase.REMSHIP_N

    def _legal_remship_n(self):
        return [M.NUMBER + k for k in range(1, self.ships[self.target][self.active] + 1)]

    def _apply_remship_n(self, move):
        self._remove_ships(move - M.NUMBER)

    def _remove_ships(self, k):
        self.changed(BOARD)
        p = self.active
        self.ships[self.target][p] -= k
        self.ships_pers[p] += k
        self._action_done()

    # --- End a war (spec 5.3.6, A-38, A-47)
    def _endwar_winner(self, p, prov):
        """The winner if p may end the war in prov now, else None; (winner, uses_hero)."""
        if not self.is_party(p, prov):
            return None
        best, top = self.war_standing(prov)
        if len(top) == 1:
            return top[0], False
        if p in top and self.HERO in self.avail(p):
            return p, True
        return None

    def _endwar_provinces(self, p, first_only=False):
        """Wars p may end now; with first_only, stop at the first (existence check for the verb)."""
        ctrl, armies = self.controller, self.armies
        hero = None
        out = []
        for x in self.war_provinces():
            if ctrl[x] == p or armies[x][p]:
                best, top = self.war_standing(x)
                if len(top) == 1:
                    out.append(x)
                elif p in top:
                    if hero is None:
                        hero = self.HERO in self.hand[p] or self.HERO in self.reserve[p]
                    if hero:
                        out.append(x)
                if out and first_only:
                    break
        return out

    def _legal_endwar_prov(self):
        return [M.PROVINCE + x for x in self._endwar_provinces(self.active)]

    def _apply_endwar_prov(self, move):
        p = self.active
        prov = move - M.PROVINCE
        winner, hero = self._endwar_winner(p, prov)
        if hero:
            self._play(p, self.HERO)
        self.resolve_war(prov, winner)
        self._action_done()

    # --- Buy (spec 5.3.7)
    def _legal_buy_armies(self):
        p = self.active
        gold = self.max_pay(self.avail(p), GOLD, self.conv_ok(p, GOLD))
        costs = self.T.raw["costs"]
        hi = min(self.armies_gen[p], gold // costs["army_gold"], 14)
        lo = 0 if (self.ships_gen[p] and gold >= costs["ship_gold"]) else 1
        return [M.NUMBER + k for k in range(lo, hi + 1)]

    def _apply_buy_armies(self, move):
        p = self.active
        self.number = move - M.NUMBER
        costs = self.T.raw["costs"]
        gold = self.max_pay(self.avail(p), GOLD, self.conv_ok(p, GOLD))
        if self.ships_gen[p] and gold - self.number * costs["army_gold"] >= costs["ship_gold"]:
            self.phase = Phase.BUY_SHIPS
        else:
            self._buy(0)

    def _legal_buy_ships(self):
        p = self.active
        costs = self.T.raw["costs"]
        gold = self.max_pay(self.avail(p), GOLD, self.conv_ok(p, GOLD)) - self.number * costs["army_gold"]
        hi = min(self.ships_gen[p], gold // costs["ship_gold"])
        lo = 0 if self.number else 1
        return [M.NUMBER + k for k in range(lo, hi + 1)]

    def _apply_buy_ships(self, move):
        self._buy(move - M.NUMBER)

    def _buy(self, ships):
        self.number2 = ships
        costs = self.T.raw["costs"]
        cost = self.number * costs["army_gold"] + ships * costs["ship_gold"]
        self._pay(GOLD, cost, MythotopiaEngine._buy_paid)

    def _buy_paid(self):
        self.changed(BOARD)
        p = self.active
        self.armies_gen[p] -= self.number
        self.armies_pers[p] += self.number
        self.ships_gen[p] -= self.number2
        self.ships_pers[p] += self.number2
        self._action_done()

    # --- Draft (spec 5.3.8, A-41)
    def _draftable(self, p):
        """Display cards, and the starting / province cards p removed from his deck "in einem früheren Zug"
        (rulebook, Eine Karte dem Deck hinzufügen; spec 5.3.8 lost those words): not those removed in this turn."""
        removed = self.aside[p] + [c for c in self.pstack if self.controller[c] == p]
        if self.removed_now:
            removed = [c for c in removed if c not in self.removed_now]
        return self.display + removed

    def _legal_draft_card(self):
        return sorted(M.CARD + c for c in self._draftable(self.active))

    def _apply_draft_card(self, move):
        self.target = move - M.CARD
        self.drafted = True
        self._pay(GOLD, self.T.raw["costs"]["draft_gold"], MythotopiaEngine._draft_paid)

    def _draft_paid(self):
        self.changed(CARDS)
        p, c = self.active, self.target
        for zone in (self.display, self.aside[p], self.pstack):
            if c in zone:
                zone.remove(c)
                break
        self.discard[p].append(c)
        self.loc[c] = Z_DISCARD * 5 + p + 1
        self._action_done()

    # --- Reserve / Discard / Remove from deck (spec 5.3.9 - 5.3.11)
    def _legal_reserve_cards(self):
        p = self.active
        out = []
        if len(self.reserve[p]) < self.capacity(p):
            out = sorted([M.CARD + c for c in self.hand[p]])
        if self.chosen:
            out.append(M.DONE)
        return out

    def _apply_reserve_cards(self, move):
        p = self.active
        if move == M.DONE:
            self._action_done()
            return
        self.changed(CARDS)
        c = move - M.CARD
        self.hand[p].remove(c)
        self.reserve[p].append(c)
        self.loc[c] = Z_RESERVE * 5 + p + 1
        self.chosen.append(c)

    def _legal_discard_cards(self):
        p = self.active
        out = sorted([M.CARD + c for c in self.avail(p)])
        if self.chosen:
            out.append(M.DONE)
        return out

    def _apply_discard_cards(self, move):
        p = self.active
        if move == M.DONE:
            self._action_done()
            return
        c = move - M.CARD
        self._take(p, c, Z_DISCARD, p)
        self.discard[p].append(c)
        self.chosen.append(c)

    def _legal_trash_cards(self):
        p = self.active
        out = []
        if len(self.chosen) < 2 and self.deck_size(p) > self.T.raw["min_deck_size"]:
            out = sorted([M.CARD + c for c in self.avail(p)])
        if self.chosen:
            out.append(M.DONE)
        return out

    def _apply_trash_cards(self, move):
        p = self.active
        if move == M.DONE:
            self._action_done()
            return
        c = move - M.CARD
        kind = self.KIND[c]
        if kind == KIND_STARTING:
            self._take(p, c, Z_ASIDE, p)
            self.aside[p].append(c)
            self.removed_now.append(c)
        elif kind == KIND_IMPROVEMENT:  # back to the display: draftable by anyone, at once (display clause)
            self._take(p, c, Z_DISPLAY, -1)
            self.display.append(c)
            self.display.sort()
        else:
            self._take(p, c, Z_PSTACK, -1)
            self.pstack.append(c)
            self.removed_now.append(c)
        self.chosen.append(c)
        if len(self.chosen) == 2 or self.deck_size(p) <= self.T.raw["min_deck_size"]:
            self._action_done()

    # --- Build (spec 5.3.12)
    def _build_cards(self, p):
        return sorted(c for c in self.avail(p) if c in self.BUILD_CARDS)

    def _build_sites(self, p, btype):
        """[(site, stone cost, provinces a location card may name)] for a build type."""
        ctrl = self.controller
        costs = self.T.raw["costs"]
        out = []
        if btype == CITY_T:
            if self.cities[p] > 0:
                for x in range(NUM_PROVINCES):
                    if ctrl[x] == p and self.settle[x] == VILLAGE_S:
                        out.append((x, costs["city_stone"], (x,)))
        elif btype == CASTLE_T:
            if self.castles_left > 0:
                for x in range(NUM_PROVINCES):
                    if ctrl[x] == p and not self.castle[x] and self.settle[x] != CITADEL_S:
                        out.append((x, costs["castle_stone"], (x,)))
        else:
            if self.roads_left > 0:
                for k, (a, b, t) in enumerate(self.T.borders):
                    if ctrl[a] == p and ctrl[b] == p and not self.road[k]:
                        t2 = self.terrain_for(p, t)
                        if t2 != MOUNTAINS:
                            out.append((k, costs["road_stone"] + (costs["hills_extra"] if t2 == HILLS else 0), (a, b)))
        return out

    def _build_locs(self, p, av, provs, comp):
        """Location cards in av that name one of provs (own card, road substitute, General)."""
        out = []
        for c in av:
            prov = self.CARD_PROV[c]
            if prov >= 0:
                if prov in provs or (self.controller[prov] == p and any(comp[x] == comp[prov] for x in provs)):
                    out.append(c)
            elif c == self.GENERAL:
                out.append(c)
        return out

    def _build_options(self, p, b, btype):
        """{site: [location cards that leave the stone payable]}."""
        av = self._without(self.avail(p), b)
        comp = self.road_components(p)
        conv = self.conv_ok(p, STONE)
        out = {}
        for site, cost, provs in self._build_sites(p, btype):
            locs = [c for c in self._build_locs(p, av, provs, comp)
                    if self.max_pay(self._without(av, c), STONE, conv) >= cost]
            if locs:
                out[site] = locs
        return out

    def _any_build(self, p, av) -> bool:
        """Some build is possible (fast check for the verb): a location card names a site whose
        cheapest structure the remaining cards can pay for."""
        if self.BUILD_CARDS.isdisjoint(av):
            return False
        cards = [b for b in av if b in self.BUILD_CARDS]
        ctrl, settle, castle, road = self.controller, self.settle, self.castle, self.road
        costs = self.T.raw["costs"]
        castle_cost = costs["castle_stone"] if self.castles_left > 0 else 99
        city_cost = costs["city_stone"] if self.cities[p] > 0 else 99
        road_costs = None
        if self.roads_left > 0:
            ranger = self.RANGER in self.reserve[p]
            base, extra = costs["road_stone"], costs["hills_extra"]
            # cost per printed terrain for p (Ranger shifts hills to open and mountains to hills)
            road_costs = (base, base, base + extra) if ranger else (base, base + extra, 99)
        members = None
        conv = self.conv_ok(p, STONE)
        NEIGH = self.NEIGH
        cheapest_any = min(castle_cost, city_cost, road_costs[0] if road_costs else 99)
        stone = self.SYM_COLUMN[STONE]
        for b in cards:
            rest = self._without(av, b)
            if self.max_pay(rest, STONE, conv) < cheapest_any:
                continue  # not even the cheapest structure is affordable with every card
            printed = sum([stone[x] for x in rest])  # a lower bound of what the cards can pay
            for c in rest:
                prov = self.CARD_PROV[c]
                if prov >= 0:
                    if ctrl[prov] != p:
                        continue
                    if self.roads_built:
                        if members is None:
                            members = self.road_members(p)
                        named = members[prov]
                    else:
                        named = (prov,)
                elif c == self.GENERAL:
                    named = [x for x in range(NUM_PROVINCES) if ctrl[x] == p]
                else:
                    continue
                cheapest = 99
                for x in named:
                    if castle_cost < cheapest and not castle[x] and settle[x] != CITADEL_S:
                        cheapest = castle_cost
                    if city_cost < cheapest and settle[x] == VILLAGE_S:
                        cheapest = city_cost
                    if road_costs is not None:
                        for y, t, k in NEIGH[x]:
                            if ctrl[y] == p and not road[k] and road_costs[t] < cheapest:
                                cheapest = road_costs[t]
                if cheapest < 99 and (printed - stone[c] >= cheapest
                                      or self.max_pay(self._without(rest, c), STONE, conv) >= cheapest):
                    return True
        return False

    def _build_types(self, p, b):
        return [t for t in (CITY_T, CASTLE_T, ROAD_T) if self._build_options(p, b, t)]

    def _legal_build_card(self):
        p = self.active
        return [M.CARD + b for b in self._build_cards(p) if self._build_types(p, b)]

    def _apply_build_card(self, move):
        self._choose_build_card(move - M.CARD)

    def _choose_build_card(self, b):
        self.build_card = b
        self.phase = Phase.BUILD_TYPE

    def _legal_build_type(self):
        return [M.OPTION + t for t in self._build_types(self.active, self.build_card)]

    def _apply_build_type(self, move):
        self.build_type = move - M.OPTION
        self.phase = Phase.BUILD_WHERE

    def _legal_build_where(self):
        p = self.active
        seg = M.BORDER if self.build_type == ROAD_T else M.PROVINCE
        return sorted(seg + s for s in self._build_options(p, self.build_card, self.build_type))

    def _apply_build_where(self, move):
        p = self.active
        self.target = move - (M.BORDER if self.build_type == ROAD_T else M.PROVINCE)
        self._play(p, self.build_card)
        self.phase = Phase.BUILD_LOC

    def _build_cost(self):
        for site, cost, _ in self._build_sites(self.active, self.build_type):
            if site == self.target:
                return cost
        raise AssertionError("build site vanished")

    def _legal_build_loc(self):
        p = self.active
        av = self.avail(p)
        cost = self._build_cost()
        provs = self.T.borders[self.target][:2] if self.build_type == ROAD_T else (self.target,)
        conv = self.conv_ok(p, STONE)
        return sorted(M.CARD + c for c in self._build_locs(p, av, provs, self.road_components(p))
                      if self.max_pay(self._without(av, c), STONE, conv) >= cost)

    def _apply_build_loc(self, move):
        p = self.active
        cost = self._build_cost()
        self._play(p, move - M.CARD)
        self._pay(STONE, cost, MythotopiaEngine._build_paid)

    def _extra_card(self):
        return V_GUILDED if self.build_type == CITY_T else V_INNS if self.build_type == ROAD_T else -1

    def _build_paid(self):
        p = self.active
        k = self._extra_card()
        key = "guilded_city_gold" if k == V_GUILDED else "roadside_inns_gold"
        if (k >= 0 and self.can_award(p, k)
                and self.max_pay(self.avail(p), GOLD, self.conv_ok(p, GOLD)) >= self.T.raw["costs"][key]):
            self.phase = Phase.BUILD_EXTRA
        else:
            self._do_build()

    def _legal_build_extra(self):
        return [M.OPTION + 0, M.OPTION + 1]

    def _apply_build_extra(self, move):
        if move == M.OPTION + 1:
            self.extra = True
            key = "guilded_city_gold" if self.build_type == CITY_T else "roadside_inns_gold"
            self._pay(GOLD, self.T.raw["costs"][key], MythotopiaEngine._do_build)
        else:
            self._do_build()

    def _do_build(self):
        self.changed(BOARD)
        p, t = self.active, self.target
        if self.build_type == CITY_T:
            self.changed(CITIES)
            self.settle[t] = CITY_S
            self.villages[p] += 1
            self.cities[p] -= 1
            self.award(p, V_CITY)
            if self.extra:
                self.award(p, V_GUILDED)
        elif self.build_type == CASTLE_T:
            self.castle[t] = True
            self.castles_left -= 1
            self.award(p, V_CASTLE)
        else:
            self.changed(MAP)
            self.road[t] = True
            self.roads_built.append(t)
            self.roads_left -= 1
            self.award(p, V_ROADS)
            if self.extra:
                self.award(p, V_INNS)
        self._action_done()

    # --- Alchemist, Diplomat, Patronage, End the game
    def _alchemy_options(self, p):
        c = self.counters[p]
        return [k for k, v in enumerate((1, 2)) if c[v] > 0 and self.spare[v + 1] > 0]

    def _legal_alch_opt(self):
        return [M.OPTION + k for k in self._alchemy_options(self.active)]

    def _apply_alch_opt(self, move):
        self._alchemy(move - M.OPTION)

    def _alchemy(self, k):
        self.changed(VP)
        p = self.active
        v = k + 1
        self.counters[p][v] -= 1
        self.spare[v] += 1  # A-30
        self.counters[p][v + 1] += 1
        self.spare[v + 1] -= 1
        self._action_done()

    def _my_wars(self, p):
        return [x for x in self.war_provinces() if self.controller[x] == p or self.armies[x][p] > 0]

    def _legal_diplo_prov(self):
        return [M.PROVINCE + x for x in self._my_wars(self.active)]

    def _apply_diplo_prov(self, move):
        self.target = move - M.PROVINCE
        self._pay(GOLD, self.T.raw["costs"]["diplomat_gold"], MythotopiaEngine._diplomat_paid)

    def _diplomat_paid(self):
        t = self.target
        self.resolve_war(t, self.controller[t], counts_defence=False)
        self._action_done()

    def _patronage_paid(self):
        self.award(self.active, V_PATRONAGE)
        self._action_done()

    def _end_game(self):
        for prov in range(NUM_PROVINCES):
            if self.at_war(prov):
                best, top = self.war_standing(prov)
                d = self.controller[prov]
                self.resolve_war(prov, d if (len(top) > 1 or top[0] == d) else top[0])
        self.scribe_queue = []  # the game is over: where the counters came from cannot matter any more
        self.winner = self.active
        self.any_action = True
        self.phase = Phase.GAME_OVER

    # --- Free actions (spec 5.4)
    def _legal_counsel_cards(self):
        p = self.active
        out = sorted([M.CARD + c for c in self.avail(p)])
        if self.number:  # at least one hand card discarded (A-33)
            out.append(M.DONE)
        return out

    def _apply_counsel_cards(self, move):
        self.changed(CARDS)
        p = self.active
        if move == M.DONE:
            # spec 4.4: draw first, so a reshuffle cannot bring back the Counsellor or its discards
            self._draw(p, self.number + 1)
            self.discard[p] += self.limbo
            self.limbo = []
            self._free_done()
            return
        c = move - M.CARD
        if c in self.hand[p]:
            self.number += 1
        self._take(p, c, Z_DISCARD, p)
        self.limbo.append(c)

    def _legal_maraud_prov(self):
        return [M.PROVINCE + x for x in range(NUM_PROVINCES) if any(self.armies[x])]

    def _apply_maraud_prov(self, move):
        self.target = move - M.PROVINCE
        owners = [q for q in range(self.num_players) if self.armies[self.target][q]]
        if len(owners) == 1:
            self._maraud(owners[0])
        else:
            self.phase = Phase.MARAUD_PLAYER

    def _legal_maraud_player(self):
        return [M.PLAYER + q for q in range(self.num_players) if self.armies[self.target][q]]

    def _apply_maraud_player(self, move):
        self._maraud(move - M.PLAYER)

    def _maraud(self, q):
        self.changed(BOARD)
        t = self.target
        self.armies[t][q] -= 1
        self.armies_pers[q] += 1
        self._drop_mercs_if_alone(t, q)  # A-16 / A-22
        self._free_done()

    def _merc_provinces(self, p):
        return [x for x in range(NUM_PROVINCES) if self.armies[x][p] > 0] if self.mercs_left > 0 else []

    def _legal_merc_prov(self):
        return [M.PROVINCE + x for x in self._merc_provinces(self.active)]

    def _apply_merc_prov(self, move):
        self.target = move - M.PROVINCE
        if self.mercs_left == 1:
            self.number = 1
            self._pay(GOLD, self.T.raw["costs"]["mercenary_gold"], MythotopiaEngine._merc_paid)
        else:
            self.phase = Phase.MERC_N

    def _legal_merc_n(self):
        return [M.NUMBER + k for k in range(1, min(2, self.mercs_left) + 1)]

    def _apply_merc_n(self, move):
        self.number = move - M.NUMBER
        self._pay(GOLD, self.T.raw["costs"]["mercenary_gold"], MythotopiaEngine._merc_paid)

    def _merc_paid(self):
        self.changed(BOARD)
        p = self.active
        self.mercs[self.target][p] += self.number
        self.mercs_left -= self.number
        self._free_done()

    def _mystic_paid(self):
        p = self.active
        if any(c not in self.played for c in self.discard[p]):
            self.phase = Phase.MYSTIC_CARD
        else:
            self._free_done()

    def _legal_mystic_card(self):
        p = self.active
        return sorted(M.CARD + c for c in self.discard[p] if c not in self.played)  # A-27

    def _apply_mystic_card(self, move):
        self.changed(CARDS)
        p = self.active
        c = move - M.CARD
        self.discard[p].remove(c)
        self.hand[p].append(c)
        self.loc[c] = Z_HAND * 5 + p + 1
        self._free_done()

    def _legal_philo_card(self):
        return sorted(M.CARD + c for c in self.impdeck[-3:])

    def _apply_philo_card(self, move):
        self.changed(CARDS)
        c = move - M.CARD
        self.impdeck.remove(c)  # A-26: the others stay on top in order
        self.hand[self.active].append(c)
        self.loc[c] = Z_HAND * 5 + self.active + 1
        self._free_done()

    def _legal_warehouse_card(self):
        return sorted(M.CARD + c for c in self.hand[self.active])

    def _apply_warehouse_card(self, move):
        self.changed(CARDS)
        p = self.active
        c = move - M.CARD
        self.hand[p].remove(c)
        self.reserve[p].append(c)
        self.loc[c] = Z_RESERVE * 5 + p + 1
        self.warehouse_used = True
        self._free_done()

    def _road_move_sources(self, p):
        if not self.roads_built or self.armies_pers[p] + self.armies_gen[p] == self.armies_total:
            return []
        revisions = self.revisions
        key = ("rms", p, revisions[BOARD], revisions[MAP], self.moved)  # armies moved this action: `arrived`
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._road_move_sources_uncached(p)
        return got

    def _road_move_sources_uncached(self, p):
        """Own, peaceful provinces with armies that may still move and a road to another own province."""
        armies, arrived = self.armies, self.arrived
        sources = [x for x in self.road_hubs(p) if armies[x][p] > arrived[x]]
        if not sources:
            return []
        wars = self.war_provinces()
        return [x for x in sources if x not in wars]

    def _legal_rm_from(self):
        out = [M.PROVINCE + x for x in self._road_move_sources(self.active)]
        if self.moved:
            out.append(M.DONE)
        return out

    def _apply_rm_from(self, move):
        if move == M.DONE:
            self._free_done()
            return
        self.from_prov = move - M.PROVINCE
        self.phase = Phase.RM_TO

    def _legal_rm_to(self):
        comp = self.road_components(self.active)
        f = self.from_prov
        return [M.PROVINCE + x for x in range(NUM_PROVINCES) if x != f and comp[x] == comp[f]]

    def _apply_rm_to(self, move):
        self.target = move - M.PROVINCE
        if self.armies[self.from_prov][self.active] - self.arrived[self.from_prov] == 1:
            self._road_move(1)
        else:
            self.phase = Phase.RM_N

    def _legal_rm_n(self):
        f = self.from_prov
        return [M.NUMBER + k for k in range(1, self.armies[f][self.active] - self.arrived[f] + 1)]

    def _apply_rm_n(self, move):
        self._road_move(move - M.NUMBER)

    def _road_move(self, k):
        self.changed(BOARD)
        p = self.active
        self.armies[self.from_prov][p] -= k
        self.armies[self.target][p] += k
        if self.arrived is _NO_ARRIVALS:
            self.arrived = list(_NO_ARRIVALS)
        self.arrived[self.target] += k
        self._drop_mercs_if_alone(self.from_prov, p)  # A-22: mercenaries do not move
        self.moved += k
        self.phase = Phase.RM_FROM
        if not self._road_move_sources(p):
            self._free_done()

    # --- setup choices (spec 3.3, 8; A-45)
    def _legal_setup(self):
        p = self.actor
        return [M.PROVINCE + x for x in range(NUM_PROVINCES)
                if self.controller[x] == p and x not in self.setup_choice[p]]

    def _apply_setup(self, move):
        p = self.actor
        self.setup_choice[p].append(move - M.PROVINCE)
        if self.setup_queue:
            phase, actor = self.setup_queue.pop(0)
            if phase != self.phase:  # all discards revealed before the citadel choice
                self._reveal_discards()
            self.phase, self.actor = phase, actor
        else:
            if self.phase == Phase.SETUP_DISCARD:
                self._reveal_discards()
            self._finish_setup()

    def _reveal_discards(self):
        self.changed(MAP | BOARD | CARDS)
        for p in range(self.num_players):
            for prov in self.setup_choice[p]:
                self.discard[p].remove(prov)
                self.pstack.append(prov)
                self.controller[prov] = -1
                self.settle[prov] = NONE_S
                self.villages[p] += 1
                self.prov_count[p] -= 1
            self.setup_choice[p] = []
        self._rebuild_loc()

    # ------------------------------------------------------------------------ rendering ----
    def render_text(self) -> str:
        T = self.T
        lines = [f"turn {self.turn}  active seat {self.active}  actions used {self.actions_used}  "
                 f"phase {PHASE_NAMES[self.phase]}  scores {self.scores()}"]
        vp = [f"{VP_CARD_NAMES[k]}:{v}" for k, v in enumerate(self.vp_cards) if v is not None]
        lines.append("VP cards: " + "  ".join(vp) + f"  spare {self.spare[1:]}")
        for x in range(NUM_PROVINCES):
            bits = []
            if self.controller[x] >= 0:
                bits.append(f"P{self.controller[x]} {('', 'village', 'city', 'citadel')[self.settle[x]]}")
            if self.castle[x]:
                bits.append("castle")
            if self.dragon[x]:
                bits.append("dragon")
            if self.rune[x]:
                bits.append("runestone")
            if any(self.armies[x]):
                bits.append(f"armies {self.armies[x]} mercs {self.mercs[x]}")
            if bits:
                lines.append(f"  {T.province_names[x]:<10} " + ", ".join(bits))
        for p in range(self.num_players):
            lines.append(f"seat {p}: vp {self.vp(p)} armies {self.armies_pers[p]}/{self.armies_gen[p]} "
                         f"ships {self.ships_pers[p]}/{self.ships_gen[p]} villages {self.villages[p]} "
                         f"hand {len(self.hand[p])} draw {len(self.draw[p])} discard {len(self.discard[p])} "
                         f"reserve {[T.card_names[c] for c in self.reserve[p]]}")
        lines.append("roads: " + ", ".join(f"{T.province_names[a]}-{T.province_names[b]}"
                                           for k, (a, b, _) in enumerate(T.borders) if self.road[k]))
        return "\n".join(lines)

    # ----------------------------------------------------------------------- invariants ----
    def card_zones(self) -> list[tuple[int, int]]:
        """(zone, owner seat or -1) per card; raises if a card is in no zone or in two."""
        where = [None] * NUM_CARDS
        def put(cards, zone, owner):
            for c in cards:
                if where[c] is not None:
                    raise AssertionError(f"card {c} in two zones: {where[c]} and {(zone, owner)}")
                where[c] = (zone, owner)
        for p in range(self.num_players):
            put(self.hand[p], Z_HAND, p)
            put(self.draw[p], Z_DRAW, p)
            put(self.discard[p], Z_DISCARD, p)
            put(self.reserve[p], Z_RESERVE, p)
            put(self.aside[p], Z_ASIDE, p)
        put(self.display, Z_DISPLAY, -1)
        put(self.impdeck, Z_IMPDECK, -1)
        put(self.pstack, Z_PSTACK, -1)
        put(self.out, Z_OUT, -1)
        put(self.limbo, Z_DISCARD, self.active)
        missing = [c for c in range(NUM_CARDS) if where[c] is None]
        if missing:
            raise AssertionError(f"cards in no zone: {missing}")
        return where


# ------------------------------------------------------------------------- dispatch ----
# The engine's instance attributes are kept in slots (a read then skips the instance dict and the walk up the class
# hierarchy that CPython's type cache often misses for an engine this size: 2-4 % of a step, core/engine.py
# flat_class). The slots are those of a new engine; one a rule set first later would live in the instance dict,
# slower: tests/mythotopia/test_engine_slots.py checks that random games leave that dict empty.
ENGINE_ATTRIBUTES = tuple(sorted(vars(MythotopiaEngine(MythotopiaConfig(), 4, np.random.default_rng(0)))))
MythotopiaEngine = flat_class(MythotopiaEngine, RulesEngine, ENGINE_ATTRIBUTES)
E = MythotopiaEngine
# each decision state: (its legal moves, applying the chosen move); GAME_OVER has none
PHASE_HANDLERS = {
    Phase.CHOOSE: (E._legal_choose, E._apply_choose),
    Phase.SETUP_DISCARD: (E._legal_setup, E._apply_setup),
    Phase.SETUP_CITADEL: (E._legal_setup, E._apply_setup),
    Phase.INV_TARGET: (E._legal_inv_target, E._apply_inv_target),
    Phase.INV_LOC: (E._legal_inv_loc, E._apply_inv_loc),
    Phase.INV_ROUTE: (E._legal_inv_route, E._apply_inv_route),
    Phase.INV_SHIP: (E._legal_inv_ship, E._apply_inv_ship),
    Phase.ARMY_CARDS: (E._legal_army_cards, E._apply_army_cards),
    Phase.PAY: (E._legal_pay, E._apply_pay),
    Phase.PLACE_PROV: (E._legal_place_prov, E._apply_place_prov),
    Phase.REM_PROV: (E._legal_rem_prov, E._apply_rem_prov),
    Phase.REM_ARMIES_N: (E._legal_rem_armies_n, E._apply_rem_armies_n),
    Phase.REM_MERCS_N: (E._legal_rem_mercs_n, E._apply_rem_mercs_n),
    Phase.SHIP_SEA: (E._legal_ship_sea, E._apply_ship_sea),
    Phase.SHIP_CARDS: (E._legal_ship_cards, E._apply_ship_cards),
    Phase.REMSHIP_SEA: (E._legal_remship_sea, E._apply_remship_sea),
    Phase.REMSHIP_N: (E._legal_remship_n, E._apply_remship_n),
    Phase.ENDWAR_PROV: (E._legal_endwar_prov, E._apply_endwar_prov),
    Phase.BUY_ARMIES: (E._legal_buy_armies, E._apply_buy_armies),
    Phase.BUY_SHIPS: (E._legal_buy_ships, E._apply_buy_ships),
    Phase.DRAFT_CARD: (E._legal_draft_card, E._apply_draft_card),
    Phase.RESERVE_CARDS: (E._legal_reserve_cards, E._apply_reserve_cards),
    Phase.DISCARD_CARDS: (E._legal_discard_cards, E._apply_discard_cards),
    Phase.TRASH_CARDS: (E._legal_trash_cards, E._apply_trash_cards),
    Phase.BUILD_CARD: (E._legal_build_card, E._apply_build_card),
    Phase.BUILD_TYPE: (E._legal_build_type, E._apply_build_type),
    Phase.BUILD_WHERE: (E._legal_build_where, E._apply_build_where),
    Phase.BUILD_LOC: (E._legal_build_loc, E._apply_build_loc),
    Phase.BUILD_EXTRA: (E._legal_build_extra, E._apply_build_extra),
    Phase.ALCH_OPT: (E._legal_alch_opt, E._apply_alch_opt),
    Phase.DIPLO_PROV: (E._legal_diplo_prov, E._apply_diplo_prov),
    Phase.COUNSEL_CARDS: (E._legal_counsel_cards, E._apply_counsel_cards),
    Phase.MARAUD_PROV: (E._legal_maraud_prov, E._apply_maraud_prov),
    Phase.MARAUD_PLAYER: (E._legal_maraud_player, E._apply_maraud_player),
    Phase.MERC_PROV: (E._legal_merc_prov, E._apply_merc_prov),
    Phase.MERC_N: (E._legal_merc_n, E._apply_merc_n),
    Phase.MYSTIC_CARD: (E._legal_mystic_card, E._apply_mystic_card),
    Phase.PHILO_CARD: (E._legal_philo_card, E._apply_philo_card),
    Phase.WAREHOUSE_CARD: (E._legal_warehouse_card, E._apply_warehouse_card),
    Phase.RM_FROM: (E._legal_rm_from, E._apply_rm_from),
    Phase.RM_TO: (E._legal_rm_to, E._apply_rm_to),
    Phase.RM_N: (E._legal_rm_n, E._apply_rm_n),
    Phase.SCRIBE_SOURCE: (E._legal_scribe_source, E._apply_scribe_source),
}
del E

# the CHOOSE verbs that only open their first sub-decision (the others: _apply_choose)
_VERB_PHASE = {
    M.V_INVADE: Phase.INV_TARGET, M.V_PLACE_ARMIES: Phase.PLACE_PROV, M.V_REMOVE_ARMIES: Phase.REM_PROV,
    M.V_PLACE_SHIPS: Phase.SHIP_SEA, M.V_REMOVE_SHIPS: Phase.REMSHIP_SEA, M.V_END_WAR: Phase.ENDWAR_PROV,
    M.V_BUY: Phase.BUY_ARMIES, M.V_DRAFT: Phase.DRAFT_CARD, M.V_RESERVE: Phase.RESERVE_CARDS,
    M.V_DISCARD: Phase.DISCARD_CARDS, M.V_REMOVE_FROM_DECK: Phase.TRASH_CARDS,
    M.V_WAREHOUSE: Phase.WAREHOUSE_CARD,
}
