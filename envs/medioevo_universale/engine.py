"""Rules engine of Medioevo Universale: plain state and transitions, no RL terms.

Moves are ``(head, arg)`` pairs (``constants.Head``); seats in moves are absolute. Every decision
of the rules is a move of the seat in ``current_player``; automatic steps (income, horde, payments,
scoring) run inside ``apply``. Randomness comes only from the ``numpy.random.Generator`` passed in.
The rules live in mixins, one module per part of the round:

* ``state.py`` - state queries (control, ownership markers, upkeep, money flows)
* ``setup.py`` - S1-S10, objects
* ``economy.py`` - auction, horde roll, taxes, upkeep, loans, deficits, the generic sub-decision tree
* ``events.py`` - event cards, barbarian build-up, revolts, the last revolt check
* ``purchases.py`` - phase 4 and TP
* ``movement.py`` - phase 5 war cycles and completed movements
* ``combat.py`` - land and naval battles; ``conquest.py`` - take over / plunder
* ``trade.py`` - phase 6
* ``diplomacy.py`` - declarations, typed treaty offers and their effects, breaches, the team game
* ``scoring.py`` - EP, goals, end of round, final scoring

References G1..G92 are the gap list of ``docs/rules/medioevo_universale.md`` section 9;
docs/games/medioevo_universale.md lists every resolution and what is not built yet.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from itertools import chain
from operator import is_

import numpy as np

from ..core.changes import ChangeLog
from ..core.config import check_range
from ..core.engine import RulesEngine, copy_generator, flat_class, instance_state
from ..core.errors import ConfigError, IllegalActionError
from .constants import HEAD_NAMES, NUM_UNIT_TYPES, PHASE_NAMES, STAGE_NAMES, Ctrl, EventStage, Head, Phase, Stage
from .data import BUILDING_NAMES, EMPIRES, UNIT_NAMES, VEHICLE_KINDS, GameData, game_data
from . import changes
from .cards import CardsMixin
from .combat import BarbarianWar, Battle, BattleAfter, BattleMixin
from .conquest import Conquest, ConquestMixin
from .diplomacy import DiplomacyMixin, team_of_seats
from .economy import EconomyMixin
from .events import EventEffect, EventsMixin
from .movement import MultiWar, WarMixin
from .purchases import PurchaseMixin
from .scoring import ScoringMixin
from .setup import SetupMixin
from .state import StateMixin
from .technologies import TechnologyMixin
from .trade import Route, RouteDraft, TradeMixin
from .variants import VariantsMixin

NT = NUM_UNIT_TYPES
UNKNOWN_CONTROL = -2  # a kept controller that must be computed again


@dataclass(frozen=True)
class MedioevoConfig:
    """Rule options. Defaults follow the spec and docs/rules/DECISIONS.md."""

    #: spec 1.5: 8, 10 or 12 rounds (short, medium, long); 12 without agreement
    num_rounds: int = 12
    #: spec 1.5: optional EP limit; 0 = none
    ep_limit: int = 0
    #: S1: "random" (a random connected set, randomly seated) or "pick" (seats pick in order, G3)
    empire_selection: str = "random"
    #: G56: goals are paired with person sides by a secret per-game permutation
    secret_goal_pairing: bool = True
    #: spec 7.1: money is hidden behind the screen; True shows every seat's money to everyone
    reveal_money: bool = False
    #: G88: TP per flipped goal token
    tp_per_goal_token: int = 1
    #: G25: extra sealed bidding rounds for a tie at the top before a random draw
    auction_tie_rounds: int = 2
    #: G89 alternative: empty caravans and merchant ships may also move in phase 5
    trade_vehicles_in_war: bool = False
    #: G91 alternative: the route-completing sale keeps the market bonus when no trade point is taken as money
    market_bonus_with_route_ep: bool = False
    #: spec 10.5: offers per seat in each diplomacy window (start of phases 4 and 5); 0 = no diplomacy windows
    diplomacy_offers: int = 1
    #: variant 8.4: None, "pairs" (seats 0+1, 2+3, ...) or a tuple of teams, each a tuple of seats
    teams: object = None
    #: variant 8.1: the seats win the empires of the S1 set with sealed (empire, 0-10 EP) bids
    empire_auction: bool = False
    #: variant 8.2: MP to enter a region and unit upkeep by terrain (data/map.json)
    terrain: bool = False
    #: variant 8.3: blood markers for plundered possessions and conquered start regions, +1 attack each
    blood_markers: bool = False
    #: variant 8.5: purchases are hidden (the demand is always made); units and vehicles are placed at the reveal
    hidden_purchases: bool = False
    #: G87 alternative: a captain's enable-own / cancel-enemy choice concerns one unit, not the whole type
    captains_per_unit: bool = False

    def __post_init__(self):
        if self.num_rounds not in (8, 10, 12):
            raise ConfigError(f"num_rounds must be 8, 10 or 12, got {self.num_rounds!r}")
        # the observation shows ep_limit / 100, so a higher limit could not be told apart
        check_range("ep_limit", self.ep_limit, 0, 100)
        if self.empire_selection not in ("random", "pick"):
            raise ConfigError(f"empire_selection must be 'random' or 'pick', got {self.empire_selection!r}")
        check_range("tp_per_goal_token", self.tp_per_goal_token, 0, 5)
        check_range("auction_tie_rounds", self.auction_tie_rounds, 0, 10)
        for name in ("empire_auction", "terrain", "blood_markers", "hidden_purchases", "captains_per_unit"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.empire_auction and self.empire_selection == "pick":
            raise ConfigError("empire_auction assigns the empires of the S1 set: use empire_selection='random'")
        check_range("diplomacy_offers", self.diplomacy_offers, 0, 5)
        if not (self.teams is None or self.teams == "pairs" or (
                isinstance(self.teams, (tuple, list)) and self.teams
                and all(isinstance(t, (tuple, list)) and t and all(isinstance(s, int) for s in t)
                        for t in self.teams))):
            raise ConfigError(f"teams must be None, 'pairs' or a list of teams of seats, got {self.teams!r}")


def check_config(config: MedioevoConfig, num_players: int) -> None:
    """The options that depend on the player count, checked when the env is made: the teams split the seats."""
    team_of_seats(config.teams, num_players)


class MedioevoEngine(StateMixin, SetupMixin, EconomyMixin, PurchaseMixin, WarMixin, BattleMixin, ConquestMixin,
                     EventsMixin, TradeMixin, ScoringMixin, CardsMixin, DiplomacyMixin, VariantsMixin, TechnologyMixin,
                     ChangeLog, RulesEngine):
    def __init__(self, config: MedioevoConfig, num_players: int, rng: np.random.Generator,
                 data: GameData | None = None):
        self.config = config
        self.num_players = n = num_players
        self.rng = rng
        d = self.data = data or game_data()
        self.board = board = d.board
        self.comp = comp = d.comp
        self.cards = d.cards
        raw = comp.raw
        nn = board.num_nodes
        # constants read from the data files
        self.tax_rates = tuple(raw["tax_rates"])
        self.upkeep_per_item = raw["units"]["upkeep"]
        self.loan_amount = raw["loan"]["amount"]
        self.max_loans = raw["loan"]["max"]
        self.loan_interest = raw["loan"]["interest"]
        self.final_loan_deduction = raw["loan"]["final_money_deduction"]
        self.income_floor = raw["income_no_possessions"]
        self.city_market_bonus = raw["city_market_bonus"]
        self.tech_price = raw["technology_price_per_level"]
        self.tp_price = raw["tp_price"]
        self.vehicle_cost_per_level = raw["vehicles"]["cost_per_level"]
        self.repair_price = raw["buildings"]["repair_per_marker"]
        self.plunder_fraction = raw["plunder_fraction"]
        self.self_revolt_money = raw["self_revolt_money"]
        self.unit_limit_base = raw["unit_limit_base"]
        self.award_ep = raw["award_ep"]
        self.award_tie_ep = raw["award_tie_ep"]
        self.jerusalem_excluded = EMPIRES.index(raw["jerusalem_excluded_empire"])
        self.special_nodes = {key: board.names.index(raw[key]) if raw[key] in board.names else -1
                              for key in ("rome", "jerusalem")}
        self.num_rounds = config.num_rounds
        self.ep_limit = config.ep_limit
        self.tp_per_token = config.tp_per_goal_token
        self.max_tie_rounds = config.auction_tie_rounds
        if n not in comp.malus:
            raise ConfigError(f"no turn-order malus row for {n} players")

        # players
        self.money = [raw["starting_money"]] * n
        self.bank_net = [0] * n
        self.transfer_net = [0] * n
        self.ep = [raw["starting_ep"]] * n
        self.ep_events: list[dict[str, int]] = [{} for _ in range(n)]
        self.loans = [0] * n
        self.loan_taken = [0] * n
        self.loan_repaid = [0] * n
        self.missed_interest = [0] * n
        self.eliminated = [False] * n
        self.tax_rate = [self.tax_rates[0]] * n  # irrelevant before the first phase 3
        self.tax_pending = [-1] * n
        self.tech = [[0] * 6 for _ in range(n)]
        self.tech_bought = [[False] * 6 for _ in range(n)]
        self.tp = [[0] * 6 for _ in range(n)]
        self.tokens = [[0] * 6 for _ in range(n)]
        self.tokens_flipped = [[0] * 6 for _ in range(n)]
        self.token_supply = [raw["goal_tokens_per_colour"]] * 6
        self.hand: list[list[int]] = [[] for _ in range(n)]
        self.rotated: list[list[int]] = [[] for _ in range(n)]
        self.goals_claimed = [0] * n
        self.unit_supply = [list(comp.unit_supply) for _ in range(n)]
        self.units = [[0] * (nn * NT) for _ in range(n)]
        self.army = [[0] * nn for _ in range(n)]
        self.stopped = [[0] * (nn * NT) for _ in range(n)]  # stop markers per unit type and node
        self.at_war = [[False] * n for _ in range(n)]
        self.units_bought = [0] * n
        self.card_bought = [False] * n
        self.markers_left = [raw["control_markers_per_player"]] * n
        self.kit: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.slots = [[-1] * 10 for _ in range(n)]
        self.stat_route_stages = [0] * n
        self.stat_barbarians_destroyed = [0] * n
        self.stat_conquered = [0] * n
        # board
        self.objs: dict[int, list] = {}
        self.cargo: dict[int, list[int]] = {}  # war wagon / galley id -> units aboard per type
        self.cargo_stopped: dict[int, bool] = {}  # a galley whose army ended a movement at sea
        self.aboard: dict[int, list[int]] = {}  # galley id -> war wagons / siege engines aboard (node -1)
        self.carried_by: dict[int, int] = {}
        self.next_obj = 0
        self.barb = [0] * (nn * 3)
        self.barb_total = [0] * nn
        self.barb_supply = [raw["barbarians"]["supply"][k] for k in ("LI", "AR", "CP")]
        self.civil = [0] * nn
        self.civil_owner = [-1] * nn
        self.civil_dmg = [0] * nn
        self.mil = [0] * nn
        self.mil_owner = [-1] * nn
        self.mil_dmg = [0] * nn
        self.cath_owner = [-1] * nn
        self.cath_dmg = [0] * nn
        self.marker = [-1] * nn
        self._control = [UNKNOWN_CONTROL] * nn  # kept controllers, see ``controller``
        self._control_markers = [-1] * nn  # the marker each kept controller was computed with
        self._control_shared: list[int] | None = None  # the full map handed out last
        self._control_stale = True  # a kept controller was forgotten or recomputed since
        self._seat_regions_kept: tuple | None = None  # (control map, regions per seat), see ``_seat_regions``
        # A new object after every edit of the state from outside the rules (tests): observers look at everything.
        self.revision = object()
        # See ``changes.py``: the domains each move changed, reported by the rules (the setup's too, dropped
        # at its end) and stamped with the count of moves at the end of the move.
        self.start_change_log(changes.DOMAINS)
        self.cubes = [[0] * len(comp.goods) for _ in range(nn)]
        self.building_supply = list(comp.building_supply)
        self.vehicle_supply = list(comp.vehicle_supply)
        self.siege_supply = list(comp.siege_supply)
        # decks: the last element is the top card
        self.deck = [int(i) for i in rng.permutation(len(self.cards))]
        goals = [(c.goal_key, c.goal_threshold) for c in self.cards]
        if config.secret_goal_pairing:
            perm = rng.permutation(len(goals))
            self.goal_of = [goals[int(i)] for i in perm]
        else:
            self.goal_of = goals
        self.event_deck = [int(i) for i in rng.permutation(len(d.events))]
        self.drawn: list[int] = []
        # round state
        self.round = 1
        self.turn = 0
        self.order = list(range(n))
        self.position = list(range(n))
        self.bids = [0] * n
        self.bids_revealed = [0] * n
        self.tie_extra = [0] * n
        self.tie_round = 0
        self.barb_dice = [0, 0, 0]
        self.horde = [1, 0, 0]
        self.queue: list[int] = []
        self.tree: list[tuple] = []
        # first moves whose options are listed only once chosen (``_lazy_tree_options``: purchase menu, build-up)
        self.tree_lazy: tuple = ()
        self.prefix: tuple = ()
        self.markers_to_place = 0
        self.marker_origin = -1
        self.pending_end = False
        self.conquered_round: set = set()  # regions that gave conquest EP this round
        self.special_conquered: set = set()  # Rome / Jerusalem conquered before (+2 EP once)
        self.bt: Battle | None = None  # the battle in progress
        self.multi_war: MultiWar | None = None  # spec 5.15: the battles of one entry against several opponents
        self.barbarian_war: BarbarianWar | None = None  # spec 5.15: barbarians fighting several armies of a region
        self.entry_host = -1  # the controller of the land region an armed entry of this movement went into
        self.carrier = -1  # the moving carrier (object id, or -1 = army on foot)
        self.foot_node = -1
        self.foot_cargo = [0] * NT
        self.foot_stepped = False
        self.move_steps = 0
        self.mover = -1
        self.cycle_moved = False
        self.conquest: Conquest | None = None  # pending take-over / plunder decisions
        self.capitulated = [[0] * NT for _ in range(n)]  # units set aside by capitulation
        self.capitulated_round = [0] * n
        self.prisoners = [[[0] * NT for _ in range(n)] for _ in range(n)]  # [captor][owner][type]
        self.goods_supply = [raw["goods_cubes_per_colour"]] * len(comp.goods)
        self.goods: dict[int, list[int]] = {}  # caravan / merchant ship id -> cubes aboard per good
        self.cube_price = raw["cube_price"]
        self.trader = -1  # the active trade vehicle
        self.trade_action = ""  # "buy" / "sell" while a purchase or sale is open
        self.pending_step = -1
        self.sold_now: list[int] = []
        self.sale_factor = 0
        self.battle_nodes: set = set()  # G47: regions with a battle this round
        self.bought_at = -1  # the region where the active vehicle just bought (a route may start)
        self.route: list[Route | None] = [None] * n  # each seat's trade route
        self.route_draft: RouteDraft | None = None  # the route being declared
        self.route_graphs: dict[str, dict] = {}
        self.naval_crewed: list[int] = []  # galleys with units aboard when a naval battle starts
        self.barb_galleys = raw["barbarians"]["galley_markers"]
        self.follow_up: list | None = None  # [retreat region, units that retreated]
        self.follow_up_active = False
        self.escort: list[int] = []  # siege engines accompanying the moving war wagon
        # objects that left the moving group since its last step: they rejoin only after the next (movement.py)
        self.left_group: list[int] = []
        self.route_completing = False
        self.withheld_factor = 0
        self.route_fl_points = 0
        self.route_points_left = 0
        self.route_points = tuple(raw["trade_route_points"])
        self.route_point_fl = raw["trade_point_fl_per_cube"]
        self.battle_after = BattleAfter.MOVE  # what a battle's end resumes (combat.py)
        self.event_discard: list[int] = []
        self.event_card = -1
        self.ev_stage = EventStage.NONE
        self.ev_tasks: list = []
        self.ev_effect: EventEffect | None = None  # an event symbol's points being distributed (events.py)
        self.ev_rolls: list = []
        self.buildup_left = 0
        self.revolt_queue: list[int] = []
        self.revolts_placed = [0] * n
        self.allowed_tax = 0
        self.final_check = False
        self.final_started = False
        self.final_breakdown: dict | None = None
        self.setup_done = False
        self.stage = Stage.SETUP
        self.empire_of = [-1] * n
        self.playable = [True] * nn
        self.land_playable = [not board.is_sea[i] for i in range(nn)]
        self.land_nodes = [i for i in range(nn) if not board.is_sea[i]]
        self.home_owner = [-1] * nn
        self.home_regions: list[list[int]] = [[] for _ in range(n)]
        self._init_diplomacy()
        self._init_variants()
        self.actor = 0
        self._init_cards()
        self._init_technologies()
        if config.empire_selection == "pick":
            self.phase = Phase.EMPIRE_PICK
            self.queue = list(range(1, n))
        elif config.empire_auction:
            self._start_empire_auction()
        else:
            self.phase = Phase.KIT
            self._assign_random_empires()
        self.start_change_log(changes.DOMAINS)  # the setup reports nothing: observers look at everything first

    # ---------------------------------------------------------------- RulesEngine protocol ----
    @property
    def current_player(self) -> int:
        return -1 if self.phase == Phase.GAME_OVER else self.actor

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def placement_scores(self) -> list[float]:
        return self.team_placement() if self.team_of is not None else self.placement()

    def scores(self) -> list[int]:
        return list(self.ep)

    def clone(self) -> "MedioevoEngine":
        """An independent copy, the one ``copy.deepcopy`` makes (the same pickle, an object referenced twice still
        one object), about four times faster, which the move encodings' listing of moves needs (it plays every
        decision on a clone): the component data and the frozen config are shared, the rest copied by ``_copy``."""
        memo = {id(self.rng): copy_generator(self.rng)}
        for shared in (self.data, self.board, self.comp, self.cards, self.config):
            memo[id(shared)] = shared
        twin = object.__new__(type(self))
        names = _ATTRIBUTES.get(type(self))
        if names is None:
            names = _ATTRIBUTES[type(self)] = tuple(name for klass in type(self).__mro__
                                                    for name in klass.__dict__.get("__slots__", ()))
        for name in names:
            value = getattr(self, name, _UNSET)  # unset: a slot of an option switched off (terrain)
            if value is not _UNSET:
                setattr(twin, name, _copy(value, memo))
        for name, value in getattr(self, "__dict__", {}).items():
            setattr(twin, name, _copy(value, memo))
        return twin

    def __getstate__(self):
        state = instance_state(self)
        for k in ("data", "board", "comp", "cards"):
            state[k] = None
        return state

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)
        d = game_data()
        self.data, self.board, self.comp, self.cards = d, d.board, d.comp, d.cards

    # ---------------------------------------------------------------------------- caches ----
    # The controller of each node is kept until an input of ``StateMixin.controller`` changes there:
    # ``_add_units`` / ``_add_barb`` forget a node whose armies or barbarians appear or vanish, a
    # treaty change (``_refresh_treaty_index``) every node with an army, the setup every node, and a
    # node's control marker is compared with the one its value was computed with, since rules set
    # markers directly.
    def _forget_control(self, node: int = -1) -> None:
        """Drop the kept controller of ``node`` (-1: of every node, and the map handed out)."""
        if node < 0:
            self._control = [UNKNOWN_CONTROL] * self.board.num_nodes
            self._control_shared = None
        else:
            self._control[node] = UNKNOWN_CONTROL
        self._control_stale = True

    def controller(self, node: int) -> int:
        c = self._control[node]
        m = self.marker[node]
        if c == UNKNOWN_CONTROL or m != self._control_markers[node]:
            c = self._control[node] = StateMixin.controller(self, node)
            self._control_markers[node] = m
            self._control_stale = True
        return c

    def _cached_control_map(self) -> list[int]:
        """The controller of every node. The returned list is shared and never changed afterwards:
        callers must not change it. An unchanged map is the same list (``_seat_regions`` stays)."""
        shared = self._control_shared
        if not self._control_stale and self.marker == self._control_markers:
            return shared
        control, markers = self._control, self._control_markers
        for node, m in enumerate(self.marker):
            if control[node] == UNKNOWN_CONTROL or m != markers[node]:
                control[node] = StateMixin.controller(self, node)
                markers[node] = m
        if shared is None or shared != control:
            shared = self._control_shared = control[:]
        self._control_stale = False
        return shared

    def control_map(self) -> list[int]:
        return list(self._cached_control_map())

    def _seat_regions(self) -> list[list[int]]:
        """The land regions each seat controls, in node order, kept as long as the control map they
        were read from. The lists are shared: callers must not change them."""
        control = self._cached_control_map()
        kept = self._seat_regions_kept
        if kept is not None and kept[0] is control:
            return kept[1]
        regions: list[list[int]] = [[] for _ in range(self.num_players)]
        for node in self.land_nodes:
            c = control[node]
            if c >= 0:
                regions[c].append(node)
        self._seat_regions_kept = (control, regions)
        return regions

    def controlled_regions(self, p: int) -> list[int]:
        return list(self._seat_regions()[p])

    # -------------------------------------------------------------------------- legality ----
    def legal_moves(self) -> list[tuple[int, int]]:
        ph = self.phase
        if ph in (Phase.PURCHASE, Phase.DEFICIT, Phase.EVENT_EFFECT, Phase.BUILDUP, Phase.CARD_WINDOW,
                  Phase.CARD_FOLLOW):
            return self.tree_moves()
        if Phase.DIPLOMACY <= ph <= Phase.OFFER_ANSWER:  # frequent: offers are drafted coin by coin
            return self.diplomacy_moves()
        if ph in (Phase.BID, Phase.TIE_BID):
            return self.bid_moves()
        if ph == Phase.TAX:
            return self.tax_moves()
        if ph == Phase.HORDE_REROLL:
            return [(Head.DICE, m) for m in range(8)]
        if ph == Phase.KEEP_CARD:
            return self.keep_card_moves()
        if ph == Phase.PLACE_MARKER:
            return self.marker_moves()
        if ph == Phase.MOVE:
            return self.tech_adjusted_moves(self.move_moves()) + self.card_turn_moves(self.actor, "move")  # W-MOVE
        if ph == Phase.WAR_TURN:
            moves = self.war_turn_moves(self.actor)
            return self.tech_adjusted_moves(moves) if moves else moves
        if ph in (Phase.TECH_USE, Phase.TP_PAY):
            return self.tree_moves()
        if Phase.CAPTAIN_SLOT <= ph <= Phase.RETREAT_TO or Phase.PROTECT_CHOICE <= ph <= Phase.CAPTURE_DECLARE:
            return self.battle_moves()
        if ph == Phase.CONQUEST:
            return self.conquest_moves()
        if ph == Phase.EVENT_CHOICE:
            return self.event_choice_moves()
        if ph == Phase.TRADE_TURN:
            return self.trade_turn_moves()
        if ph in (Phase.TRADE, Phase.PLACE_CUBE) or Phase.ROUTE_LENGTH <= ph <= Phase.ROUTE_POINTS:
            return self.tech_adjusted_moves(self.trade_moves()) if ph == Phase.TRADE else self.trade_moves()
        if ph == Phase.REVOLT_PLACE:
            return self.revolt_moves()
        if ph == Phase.KIT:
            return self.kit_moves()
        if ph == Phase.VILLAGE:
            return self.village_moves()
        if ph in (Phase.PLACE_ARCHER, Phase.PLACE_TRANSPORT):
            return self.placement_moves()
        if ph == Phase.GOAL_TOKEN:
            return self.goal_token_moves()
        if ph == Phase.EMPIRE_PICK:
            return self.empire_pick_moves()
        if ph in (Phase.EMPIRE_BID, Phase.EMPIRE_TIE_BID):
            return self.empire_bid_moves()
        if ph == Phase.BLOOD_SPEND:
            return self.blood_moves()
        if ph == Phase.HIDDEN_PLACE:
            return self.hidden_place_moves()
        if ph == Phase.NEXT_OPPONENT:
            return self.next_opponent_moves()
        return []

    # ------------------------------------------------------------------------ transitions ----
    def play(self, move: tuple[int, int]) -> None:
        """Apply a move after checking it is legal; the state is unchanged on error."""
        move = (int(move[0]), int(move[1]))
        if move not in self.legal_moves():
            raise IllegalActionError(
                f"move {self.move_name(move)} is illegal in phase {PHASE_NAMES[self.phase]} for seat {self.actor}")
        self.apply(move)

    def apply(self, move: tuple[int, int]) -> None:
        """Apply a move known to be legal.

        Every rule that changes an attribute of a change domain (``changes.DOMAINS``) reports it
        (``self.changed(changes.UNITS)``); at the end the move is counted in ``moves`` and the reported
        domains are stamped with it (``stamp_changes``), so ``stamps`` says which domains this move changed.
        A rule may report a domain whose content ends up unchanged (a reset of what was already reset, a
        flow of 0), never leave out one that changed (tests/medioevo_universale/test_change_domains.py)."""
        # A battle, a multi-party war and a conquest change their records at almost every move made while they
        # are open: such a move reports them here, and the rules report only opening one.
        if self.bt is not None:
            self.changed(changes.BATTLE)
        if self.multi_war is not None:
            self.changed(changes.MULTI_WAR)
        if self.conquest is not None:
            self.changed(changes.CONQUEST)
        ph = self.phase
        if ph in (Phase.PURCHASE, Phase.DEFICIT, Phase.EVENT_EFFECT, Phase.BUILDUP, Phase.CARD_WINDOW,
                  Phase.CARD_FOLLOW):
            opt = self._tree_step(move)
            if opt is not None:
                if ph == Phase.CARD_WINDOW:
                    self._apply_card_window(opt)
                elif ph == Phase.CARD_FOLLOW:
                    self._apply_card_follow(opt)
                elif ph == Phase.PURCHASE:
                    self._apply_purchase_option(opt)
                elif ph == Phase.DEFICIT:
                    self._apply_deficit(opt)
                elif ph == Phase.EVENT_EFFECT:
                    self._apply_event_effect(opt)
                else:
                    self._apply_buildup(opt)
        elif Phase.DIPLOMACY <= ph <= Phase.OFFER_ANSWER:  # frequent: offers are drafted coin by coin
            self._apply_diplomacy(move)
        elif ph in (Phase.BID, Phase.TIE_BID):
            self._apply_bid(move)
        elif ph == Phase.TAX:
            self._apply_tax(move)
        elif ph == Phase.HORDE_REROLL:
            self._apply_reroll(move[1])
        elif ph == Phase.KEEP_CARD:
            self._apply_keep_card(move[1])
        elif ph == Phase.PLACE_MARKER:
            self._apply_marker(move)
        elif move[0] == Head.TECH and ph in (Phase.MOVE, Phase.WAR_TURN, Phase.TRADE):
            self._begin_tech_use(move)  # a technology activation inside the decision
        elif ph == Phase.TECH_USE:
            self._apply_tech_use(move)
        elif ph == Phase.TP_PAY:
            opt = self._tree_step(move)
            if opt is not None:
                self._apply_tp_pay(opt)
        elif ph == Phase.MOVE and move == (Head.CTRL, Ctrl.PLAY_CARD):
            self._open_turn_window(self.actor, "move")  # W-MOVE (cards.py)
        elif ph == Phase.MOVE:
            self._apply_move(move)
            if self.decree_steps != -1:  # an Erlass lock lasts until the next move of the movement
                self.changed(changes.TECHNOLOGY)
                self.decree_steps = -1
        elif ph == Phase.WAR_TURN:
            if self.logistik != -1:  # a new movement: no Logistik yet
                self.changed(changes.TECHNOLOGY)
                self.logistik = -1
            self._apply_war_turn(move)
        elif Phase.CAPTAIN_SLOT <= ph <= Phase.RETREAT_TO or Phase.PROTECT_CHOICE <= ph <= Phase.CAPTURE_DECLARE:
            self._apply_battle(move)
        elif ph == Phase.CONQUEST:
            self._apply_conquest(move)
        elif ph == Phase.EVENT_CHOICE:
            self._apply_event_choice(move[1])
        elif ph == Phase.TRADE_TURN:
            if self.logistik != -1:  # a new trade activation: no Logistik yet
                self.changed(changes.TECHNOLOGY)
                self.logistik = -1
            self._apply_trade_turn(move)
        elif ph in (Phase.TRADE, Phase.PLACE_CUBE) or Phase.ROUTE_LENGTH <= ph <= Phase.ROUTE_POINTS:
            self._apply_trade(move)
        elif ph == Phase.REVOLT_PLACE:
            self._apply_revolt(move[1])
        elif ph == Phase.KIT:
            self._apply_kit(move[1])
        elif ph == Phase.VILLAGE:
            self._apply_village(move[1])
        elif ph in (Phase.PLACE_ARCHER, Phase.PLACE_TRANSPORT):
            self._apply_placement(move[1])
        elif ph == Phase.GOAL_TOKEN:
            self._apply_goal_token(move[1])
        elif ph in (Phase.EMPIRE_BID, Phase.EMPIRE_TIE_BID):
            self._apply_empire_bid(move)
        elif ph == Phase.BLOOD_SPEND:
            self._apply_blood(move)
        elif ph == Phase.HIDDEN_PLACE:
            self._apply_hidden_place(move)
        elif ph == Phase.NEXT_OPPONENT:
            self._apply_next_opponent(move)
        elif ph == Phase.EMPIRE_PICK:
            self.changed(changes.SEATS)
            self.empire_of[self.actor] = move[1]
            self.turn += 1
            if self.queue:
                self.actor = self.queue.pop(0)
            else:
                self._after_empires()
        if self.pending_end and not self.final_started:
            self._start_final()
        self.stamp_changes()

    # ------------------------------------------------------------------------- rendering ----
    def move_name(self, move: tuple[int, int]) -> str:
        head, arg = move
        return f"{HEAD_NAMES[head]}({arg})"

    def render_text(self) -> str:
        b = self.board
        lines = [
            f"round {self.round}/{self.num_rounds}  stage {STAGE_NAMES[self.stage]}  phase {PHASE_NAMES[self.phase]}  "
            f"to move: seat {self.current_player}  turn order {self.order}",
            f"horde LI{self.horde[0]} AR{self.horde[1]} CP{self.horde[2]}  barbarian dice {self.barb_dice}",
        ]
        for p in range(self.num_players):
            emp = EMPIRES[self.empire_of[p]] if self.empire_of[p] >= 0 else "?"
            techs = "".join(str(x) for x in self.tech[p])
            lines.append(
                f"seat {p} {emp:3s} EP {self.ep[p]:3d}  money {self.money[p]:5d}  loans {self.loans[p]}"
                f"  tax {self.tax_rate[p]}"
                f"  tech {techs}  cards {len(self.hand[p])}  tokens {sum(self.tokens[p])}  units {self.total_units(p)}"
                f"  objects {len(self.own_objects(p))}" + ("  ELIMINATED" if self.eliminated[p] else ""))
        for node in range(b.num_nodes):
            if not self.playable[node]:
                continue
            parts = []
            for p in range(self.num_players):
                base = node * NT
                army = " ".join(f"{UNIT_NAMES[t]}x{self.units[p][base + t]}" for t in range(NT)
                                if self.units[p][base + t])
                if army:
                    parts.append(f"p{p}[{army}]")
            if self.barb_size(node):
                kinds = ("LI", "AR", "CP")
                parts.append("barb[" + " ".join(f"{k}x{self.barb[node * 3 + i]}" for i, k in enumerate(kinds)
                                                 if self.barb[node * 3 + i]) + "]")
            for cls in range(3):
                k = self.building_kind_at(node, cls)
                if k >= 0:
                    parts.append(f"{BUILDING_NAMES[k]}(p{self.building_owner_at(node, cls)})")
            for oid in self.objects_at(node):
                o = self.objs[oid]
                parts.append(f"{VEHICLE_KINDS[o[1]]}{o[2]}(p{o[0]})")
            if self.marker[node] >= 0:
                parts.append(f"marker(p{self.marker[node]})")
            if parts:
                c = self.controller(node)
                lines.append(f"  {b.names[node]:15s} ctrl {c:2d}  " + "  ".join(parts))
        if self.final_breakdown is not None:
            lines.append("final EP " + str(self.ep))
        return "\n".join(lines)


_PLAIN = frozenset({int, bool, float, str, type(None)})


def _copy(value, memo: dict):
    """``copy.deepcopy(value, memo)`` for ``MedioevoEngine.clone``, without deepcopy's generic walk for what the
    engine holds: plain values and tuples of them are kept (as deepcopy keeps them); lists, dicts, sets and the
    rules' dataclass records are copied item by item (lists and dicts of plain values at once); every copy goes
    into ``memo``, so that an object met again is the same copy."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    twin = memo.get(id(value))
    if twin is not None:
        return twin
    if kind is list:
        kinds = set(map(type, value))
        if kinds <= _PLAIN:
            twin = value[:]
        elif kinds == _LIST and set(map(type, chain.from_iterable(value))) <= _PLAIN:
            twin = []
            for item in value:  # each inner list copied once (``memo``), as deepcopy would
                inner = memo.get(id(item))
                if inner is None:
                    inner = memo[id(item)] = item[:]
                twin.append(inner)
        elif kinds <= _FROZEN and _frozen([item for item in value if type(item) is tuple]):
            twin = value[:]  # tuples of plain values (the options of a decision tree): shared, as deepcopy does
        else:
            twin = [_copy(item, memo) for item in value]
    elif kind is tuple:
        if _frozen((value,)):
            return value
        items = tuple(_copy(item, memo) for item in value)
        return value if all(map(is_, items, value)) else items  # deepcopy keeps a tuple whose items it kept
    elif kind is dict:
        if set(map(type, value.values())) <= _PLAIN:
            twin = {_copy(key, memo): item for key, item in value.items()}
        else:
            twin = {_copy(key, memo): _copy(item, memo) for key, item in value.items()}
    elif kind is set:
        twin = {_copy(item, memo) for item in value}
    elif _record_fields(kind):
        twin = object.__new__(kind)
        memo[id(value)] = twin
        for name in _RECORDS[kind]:
            object.__setattr__(twin, name, _copy(getattr(value, name), memo))
        return twin
    else:
        return copy.deepcopy(value, memo)
    memo[id(value)] = twin
    return twin


_LIST = frozenset({list})
_ATTRIBUTES: dict[type, tuple[str, ...]] = {}  # per engine class, its slots
_UNSET = object()
_FROZEN = _PLAIN | {tuple}
#: per class met, its fields when it is a slots dataclass (a rules record: copied field by field), else ()
_RECORDS: dict[type, tuple[str, ...]] = {}


def _record_fields(kind: type) -> tuple[str, ...]:
    fields = _RECORDS.get(kind)
    if fields is None:
        fields = tuple(getattr(kind, "__dataclass_fields__", ()))
        if not fields or set(kind.__dict__.get("__slots__", ())) != set(fields) or hasattr(kind, "__deepcopy__"):
            fields = ()
        _RECORDS[kind] = fields
    return fields


def _frozen(tuples) -> bool:
    """Whether the tuples ``tuples`` hold plain values and tuples of them only, at any depth."""
    while tuples:
        items = list(chain.from_iterable(tuples))
        kinds = set(map(type, items))
        if not kinds <= _FROZEN:
            return False
        tuples = [item for item in items if type(item) is tuple] if tuple in kinds else ()
    return True


def instance_attributes(engine_class: type) -> tuple[str, ...]:
    """The instance attributes of a new engine of ``engine_class`` (the mixins' class, whose instances keep them in a
    dict), with the option that adds some switched on (terrain)."""
    prototype = engine_class(MedioevoConfig(terrain=True), 3, np.random.default_rng(0))
    return tuple(sorted(vars(prototype)))


# The engine's instance attributes, kept in slots: those a new engine has, the change log's included. One a rule set
# first later would live in the instance dict, slower: tests/medioevo_universale/test_engine_caches.py checks that no
# rule does.
ENGINE_ATTRIBUTES = instance_attributes(MedioevoEngine)
# The mixins organise the rules by topic; the class that plays has a short MRO and slots (see flat_class).
MedioevoEngine = flat_class(MedioevoEngine, RulesEngine, ENGINE_ATTRIBUTES)
