"""Observation from one seat's view, seats rotated so the observer is seat 0 (spec 10.6).

Hidden from every observer: other seats' money (unless ``reveal_money``), sealed bids and tax
choices before the reveal, the goal sides of other seats' cards, cards another seat is choosing
from, and the order of both decks. Everything is scaled into [0, 1] (counts divided by their
largest value, clipped). ``MedioevoEncoder(...).layout`` names every slice.

Speed: the encoder keeps each seat's last observation and rewrites only the blocks whose engine inputs
changed. Which blocks it looks at follows the change domains the rules stamp (changes.py): each seat
remembers ``engine.moves`` at its last look, and a block is looked at only when a domain it reads (the
``_HEAD`` .. ``_GOAL_DOMAINS`` constants, worked out from the engine functions the block calls) was stamped
since, or when something it reads besides its domains may have changed (pseudo-domains); what no domain
covers (the turn, the private fields, the choice in progress, the offer) and the blocks used only in some
phases are looked at in every call. A block looked at is compared with copies taken when it was written
(``_changed``, ``_versions``), so a stamp that changed nothing the block shows costs a comparison, not a
rewrite; the copies shared by all seats (board, seat rows) once per stamp, by whichever seat looks first
(``_checked``). When no move was made since the seat's last look, or ``engine.revision`` is a new object (an edit
from outside the rules: tests/medioevo_universale/forced.py ``touched``; or another engine, as a clone),
every block is looked at by content. The blocks shared by all observers (board, seat rows, head) are built
once in absolute seats and cached (``_versions``; a seat's row is patched where its numbers changed,
``_seat_rows``; node_units per seat, ``_units_block``); each call returns a copy.
tests/medioevo_universale/test_encoder_cache.py and test_encoder_incremental.py check the result against a
fresh encoder at every step of random games, with the engine's stamps and with exact ones (the content
oracle, ``forced.exact_stamps``).
"""
from __future__ import annotations

import copy
from math import inf

import numpy as np

from ...core.encoder import Field, ObservationEncoder, ObsLayout
from .. import changes
from ..changes import (
    BARBARIANS, BATTLE, BUILDINGS, CARD_EFFECTS, CARDS, DIPLOMACY, EVENTS, HORDE, MARKERS, MARKET, MONEY, MULTI_WAR,
    OBJECTS, ORDER, ROUTES, SEATS, SUPPLY, TECHNOLOGY, UNITS, WAR,
)
from ..codec import head_names
from ..combat import Battle
from ..constants import (
    NUM_PHASES as _ALL_PHASES, NUM_SLOTS, NUM_UNIT_TYPES, PHASE_NAMES, STAGE_NAMES, EventStage, Phase, Stage,
    Stake,
)
from ..data import EMPIRES, GOAL_KEYS, VEHICLE_KINDS, game_data
from ..technologies import TechWindow
from .cards import (
    card_choice_sources, card_effects_sources, card_move_fields, card_moves_sources, card_window_fields,
    encode_card_choice, encode_card_effects, encode_card_moves, encode_card_window,
)
from .diplomacy import diplomacy_fields, diplomacy_sources, encode_diplomacy, encode_offer, offer_sources
from .multi_war import encode_multi_war, multi_war_fields, multi_war_sources
from .technologies import (
    appointment_fields, appointments_sources, encode_appointments, encode_invasion, encode_technologies,
    invasion_fields, technology_fields, technology_sources,
)
from .variants import encode_variants, show_purchase_snapshot, variant_fields

NT = NUM_UNIT_TYPES
NUM_PHASES = _ALL_PHASES - 1  # GAME_OVER is never a decision; its slot means "not my decision"
_DECISION_PHASES = [name for name in PHASE_NAMES if name != "GAME_OVER"]
MONEY_SCALE = 5000.0
BID_SCALE = 2000.0
EP_OFFSET, EP_SCALE = 50.0, 200.0
STATIC_FEATURES = 20
# The domains (changes.py) each block reads, following the engine functions it calls.
_HEAD = ORDER | HORDE | SUPPLY | CARDS | EVENTS  # the decks' sizes
_CONTROL = UNITS | BARBARIANS | MARKERS | BUILDINGS | DIPLOMACY  # StateMixin.controller, _treaty_controller
_BOARD = _CONTROL | MARKET | OBJECTS


def _with_stamps(groups: tuple) -> tuple:
    """Groups of sources (domain bits, positions) with the indices of their domains in ``engine.stamps``."""
    return tuple((bits, positions, tuple(i for i in range(len(changes.DOMAINS)) if bits >> i & 1))
                 for bits, positions in groups)


# (no stamps: these short lists cost less to compare than the stamps to look up)
_HEAD_GROUPS = ((ORDER, (0, 1), ()), (HORDE, (2, 3), ()), (SUPPLY, (4, 5, 6, 7, 8), ()), (CARDS, (9,), ()),
                (EVENTS, (10,), ()))
# the board's sources (see _encode_board) by domain
_BOARD_GROUPS = _with_stamps(((_CONTROL, (0,)), (BUILDINGS, (1,) + tuple(range(10, 20))), (UNITS, (2, 3)),
                              (BARBARIANS, (4,)), (MARKERS, (5,)), (MARKET, (6,)), (OBJECTS, (7, 8, 9))))
# _seat_rows's inputs: engine attributes (the last two are not per seat)
_ROW_INPUTS = ("ep", "loans", "loan_taken", "loan_repaid", "tax_rate", "markers_left", "eliminated", "missed_interest",
               "units_bought", "card_bought", "empire_of", "army", "slots", "tech", "tech_bought", "tokens",
               "tokens_flipped", "capitulated", "hand", "rotated", "cargo", "tax_rates")
_ROWS = SEATS | UNITS | OBJECTS | CARDS  # _seat_rows: army, capitulated; slots, cargo; hand, rotated
# _seat_rows's inputs by domain
_ROW_GROUPS = _with_stamps(((SEATS, tuple(range(11)) + (13, 14, 15, 16)), (UNITS, (11, 17)), (OBJECTS, (12, 20)),
                            (CARDS, (18, 19))))
# the domains goal_value reads per goal template (GOAL_KEYS)
# pseudo-domains past the domains' bits: what some blocks read besides their domains (see encode)
_ROUTE_POINTS, _TREATY_ROUND, _LOCK, _CARD_TURN, _MULTI_WAR_ON = (1 << (len(changes.DOMAINS) + k) for k in range(5))
_EVERYTHING = (1 << (len(changes.DOMAINS) + 5)) - 1
_GOAL_DOMAINS = (
    _CONTROL, _CONTROL, BUILDINGS, BUILDINGS, BUILDINGS, BUILDINGS, BUILDINGS, SEATS, SEATS, SEATS, OBJECTS, OBJECTS,
    OBJECTS, UNITS | OBJECTS, UNITS, MONEY | SEATS, OBJECTS, _CONTROL | MARKET, SEATS, SEATS, SEATS,
    _CONTROL | BUILDINGS, _CONTROL, CARDS)
assert len(_GOAL_DOMAINS) == len(GOAL_KEYS)
_SEATS = _ROWS | MONEY | _BOARD  # _encode_seats: rows, money, goals (their domains are a subset)
# the phases in which one of _encode_phase_blocks' blocks is written (besides those of a battle, a conquest or
# a technology in use)
_PHASE_BLOCK_PHASES = frozenset((Phase.TRADE, Phase.PLACE_CUBE, Phase.MOVE, Phase.KEEP_CARD, Phase.PLACE_MARKER))
_TREE_PHASES = (Phase.PURCHASE, Phase.DEFICIT, Phase.EVENT_EFFECT, Phase.BUILDUP, Phase.CARD_WINDOW,
                Phase.CARD_FOLLOW, Phase.TECH_USE, Phase.TP_PAY)


def _snapshot(value):
    """A copy of engine data that later changes of the engine's lists, dicts and sets cannot reach
    (a list is copied element by element unless its first element is a number or a string: a list of
    numbers is copied at C speed, and None often stands for a record to come, as in ``route``)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is list and (not value or type(value[0]) in _FLAT):
        return value[:]
    if kind is list or kind is tuple:
        # the common items inline: a call per item costs more than the copying
        copies = [x if type(x) in _SCALARS else x[:] if type(x) is list and (not x or type(x[0]) in _FLAT)
                  else _snapshot(x) for x in value]
        return copies if kind is list else tuple(copies)
    if kind is dict:
        return {k: x if type(x) in _SCALARS else x[:] if type(x) is list and (not x or type(x[0]) in _FLAT)
                else _snapshot(x) for k, x in value.items()}
    if kind is set:
        return set(value)  # set elements are hashable, so taken as unchanging
    return copy.deepcopy(value)


def _recopy(old, live):
    """``old`` (a copy of an earlier state of ``live``) if ``live`` still equals it, else a copy of ``live``. A list
    of a few lists (one per seat, as units) is compared list by list, in one pass, and the copies of the lists that
    did not change are kept (so the changed seats are those whose copy is a new object)."""
    if type(live) is list and 0 < len(live) <= _FEW and type(live[0]) is list and type(old) is list \
            and len(old) == len(live):
        new = None
        for k, y in enumerate(live):
            if old[k] != y:
                if new is None:
                    new = list(old)
                new[k] = y[:] if not y or type(y[0]) in _FLAT else _snapshot(y)
        return old if new is None else new
    return old if old == live else _snapshot(live)


_FEW = 8  # the most seats
_SCALARS = (int, bool, float, str, type(None))
_CARGO_INPUT = 20  # the input of ``_seat_rows`` that is not a list per seat (cargo per carrier)
_FLAT = (int, bool, float, str)


# What each block of a seat's output was written from (see ``encode``) is kept in a list, one entry per block
# (a list subscript by a constant costs less than a dict lookup by a string).
class _Seen:
    """Positions in a seat's list of what its output was written from (``_FIRST_SEEN``), numbered by their order
    here. Plain ints, which the compiled build reads as their values (``constant_table`` in
    scripts/build_compiled.py)."""
    (TURN, PRIVATE, TP, OFFER, MOVES, REVISION, TRADE, MOVE, BATTLE, CONQUEST, DRAWN, MARKER_ORIGIN, HEAD,
     BOARD, ROWS, MONEY, GOALS, VEHICLES, CARD_TURN, ROUTES, AT_WAR, EVENTS, OBJECTS, DIPLOMACY,
     TECHNOLOGIES, CARD_EFFECTS, CARD_CHOICE, CARD_MOVES, APPOINTMENTS, MULTI_WAR, NODE_CONTROLLER,
     NODE_STATIC, NODE_UNITS, NODE_STOPPED, NODE_BARBARIANS, NODE_MARKER, NODE_CUBES, NODE_BUILDINGS,
     PENDING, INVADED, GOAL_DOMAINS, PHASE_BLOCKS, GOAL_VALUES) = range(43)


_SEEN_KEYS = tuple(name.lower() for name in vars(_Seen) if name.isupper())  # the blocks' names, by position


# What a new output was written from, per block (``_Seen`` positions): nothing yet.
_FIRST_SEEN = [None] * len(_SEEN_KEYS)
_FIRST_SEEN[_Seen.PENDING] = ()
_FIRST_SEEN[_Seen.INVADED] = -1
_FIRST_SEEN[_Seen.GOAL_DOMAINS] = changes.DOMAINS.all
_FIRST_SEEN[_Seen.PHASE_BLOCKS] = False
_SEEN_INDEX = {k: i for i, k in enumerate(_SEEN_KEYS)}  # the blocks written by _put, by field name


def _seen_list(seen) -> list:
    """A seat's list of what its output was written from; from the dict of a pickle of an earlier version."""
    if type(seen) is list:
        return seen
    kept = _FIRST_SEEN[:]
    kept[_Seen.GOAL_VALUES] = {}
    for key, value in seen.items():
        kept[_SEEN_INDEX[key]] = value
    return kept


def _card_turn(e, seat: int) -> tuple:
    """What the card blocks read besides their domains."""
    return e.round, e.stage == Stage.EVENTS, e.phase == Phase.CARD_FOLLOW, e.actor == seat


def _positions(*shape: int) -> np.ndarray:
    """Each entry's flat position in an array of ``shape``."""
    return np.arange(int(np.prod(shape))).reshape(shape)


def _small_ints(rows: list[list[int]]) -> np.ndarray:
    """The numbers of ``rows`` in one flat float32 array; through bytes when they fit (0..255), which is many
    times faster than numpy's conversion of lists."""
    try:
        return np.frombuffer(b"".join([bytes(row) for row in rows]), np.uint8).astype(np.float32)
    except (TypeError, ValueError):
        return np.array(rows, dtype=np.float32).ravel()


def _scaled_table(scale: int) -> np.ndarray:
    """min(1, k / scale) for k = 0..255, computed as ``_scaled_ints``'s fallback computes it (in float32)."""
    return np.minimum(1.0, np.arange(256, dtype=np.float32) / scale)


def _scaled_ints(rows: list[list[int]], table: np.ndarray, scale: int) -> np.ndarray:
    """min(1, k / scale) for the numbers k of ``rows``, in one flat float32 array: looked up in ``table``
    (``_scaled_table(scale)``) when they fit in a byte."""
    try:
        return table.take(np.frombuffer(b"".join([bytes(row) for row in rows]), np.uint8))
    except (TypeError, ValueError):
        return np.minimum(1.0, np.array(rows, dtype=np.float32).ravel() / scale)


_TENTHS, _FIFTHS = _scaled_table(10), _scaled_table(5)


def _add(sums: dict, i: int, x: float) -> None:
    """sums[i] += x as numpy adds into a float32 array: the first term as it is (it becomes float32 when written),
    the next ones added to the float32 sum (``_vehicle_blocks`` has it written out for the objects)."""
    old = sums.get(i)
    sums[i] = x if old is None else np.float32(old) + x


def _sums_block(sums: dict, size: int) -> np.ndarray:
    """A float32 array of ``size`` zeros with min(1, sum) at each index of ``sums``."""
    block = np.zeros(size, dtype=np.float32)
    if sums:
        block[list(sums)] = list(sums.values())
        np.minimum(block, 1.0, out=block)
    return block


def _changed(seen: list, name: int, sources, shared: dict | None = None) -> bool:
    """Whether the block ``name`` (a ``_Seen`` position) of a seat's output was written from other ``sources``
    (then remembers a copy). None as sources means an empty block, which is what a new output holds. ``shared``: for sources
    alike for every seat, the encoder's copies by block, taken over by the seats that see the same content."""
    if seen[name] == sources:
        return False
    if shared is None:
        seen[name] = _snapshot(sources)
        return True
    kept = shared.get(name)
    if kept is None or kept != sources:
        kept = shared[name] = _snapshot(sources)
    seen[name] = kept
    return True


class MedioevoEncoder(ObservationEncoder):
    def __init__(self, config, num_players: int):
        n = self.num_players = num_players
        self.config = config
        d = game_data()
        b = self.board = d.board
        nn = self.nn = b.num_nodes
        # the pending block has a slot per engine move (head, argument), in the order of the flat encoding
        sizes = [len(labels) for labels in head_names(nn)]
        self._move_offsets = [sum(sizes[:head]) for head in range(len(sizes))]
        self.num_moves = sum(sizes)
        per_seat = [
            ("ep", 1, f"(EP + {EP_OFFSET:g}) / {EP_SCALE:g}"),
            ("money", 1, f"money / {MONEY_SCALE:g} (0 unless own or reveal_money)"),
            ("money_known", 1, "1 if the money slot is filled"),
            ("loans", 1, "open loans / 5"),
            ("loan_flags", 2, "loan taken, loan repaid this round"),
            ("tax", 5, "one-hot current tax rate 10..50"),
            ("tech", 6, "technology level per branch / 4"),
            ("tech_bought", 6, "bought a level in the branch this round"),
            ("tokens", 6, "goal tokens per colour / 12"),
            ("tokens_flipped", 6, "flipped goal tokens per colour / 12"),
            ("cards", 1, "empire cards held / 10"),
            ("markers_left", 1, "control markers in the supply / 8"),
            ("status", 2, "eliminated, missed interest last round"),
            ("purchases", 2, "units bought this phase / 10, empire card bought"),
            ("empire", len(EMPIRES), "one-hot start empire"),
            ("pieces", 2, "units / 50, transports and siege engines / 10"),
            ("capitulated", NT, "units set aside by capitulation, per type / 10"),
        ]
        fields = [
            Field("phase", NUM_PHASES + 1, "one-hot pending decision: " + ", ".join(_DECISION_PHASES)
                  + "; the GAME_OVER slot means not my decision"),
            Field("stage", len(STAGE_NAMES), "one-hot phase of the round: " + ", ".join(STAGE_NAMES)),
            Field("round", 3, "round / 12, last round / 12, EP limit / 100"),
            Field("acting_seat", n, "one-hot, relative to the observer"),
            Field("turn_order", n * n, "per relative seat, one-hot position in the turn order"),
            Field("horde", 6, "horde LI / 2, AR, CP; barbarian dice d4 / 4, d6 / 6, d8 / 8"),
            Field("supply", 7 + 7 + 3 + 6 + 2, "buildings (7), transports (4) and siege engines (3), barbarian "
                                               "LI/AR/CP, goal tokens per colour, empire and event deck sizes"),
            Field("revealed_bids", n, f"last auction's bids per relative seat / {BID_SCALE:g}"),
        ]
        for i in range(n):
            for name, size, desc in per_seat:
                fields.append(Field(f"seat{i}_{name}", size, f"seat +{i}: {desc}"))
            fields.append(Field(f"seat{i}_hand", 72, f"seat +{i}: held empire cards (person sides are public)"))
            fields.append(Field(f"seat{i}_rotated", 72, f"seat +{i}: cards used this round"))
        fields += [
            Field("node_static", nn * STATIC_FEATURES, "per node: sea, inhabited, port, good one-hot (8), barbarian "
                                                       "symbol, start empire one-hot (6 + none), playable"),
            Field("node_controller", nn * (n + 1), "per node: one-hot controller (none, relative seats)"),
            Field("node_units", n * nn * NT, "per relative seat, per node: units per type / 10"),
            Field("node_barbarians", nn * 3, "per node: barbarian LI, AR, CP / 5"),
            Field("node_buildings", nn * (3 + 3 + 3 * (n + 1)), "per node: civil level / 3, military level / 3, "
                  "cathedral; damage of each / its GP; owner one-hot (none, relative seats) of each"),
            Field("node_marker", nn * (n + 1), "per node: control-marker owner one-hot (none, relative seats)"),
            Field("node_objects", n * nn * len(VEHICLE_KINDS), "per relative seat, per node: summed levels of "
                  "caravans, merchant ships, war wagons, galleys, siege engines / 9"),
            Field("node_cubes", nn * 8, "per node: goods cubes of the market"),
            Field("node_goods", nn * 8, "per node: goods cubes aboard caravans and merchant ships there / 6"),
            Field("trade", 4 + NUM_SLOTS + 8, "phase 6: open action one-hot (none, buy, sell, placing a cube); "
                  "the active trade vehicle's slot one-hot; cubes sold in the open sale per good / 6"),
            Field("routes", nn * n * 2 + nn + 3 + 1, "trade routes: per node and relative seat, a planned and "
                  "an established stage (the destination counts as planned); the route being declared (its "
                  "stages, length one-hot); trade points still to convert / 6"),
            Field("node_stopped", n * nn, "per relative seat, per node: units with a stop marker / 10"),
            Field("node_aboard", n * nn, "per relative seat, per node: units aboard war wagons and galleys / 9"),
            Field("at_war", n * n, "war state between relative seats i and j"),
            Field("move", NUM_SLOTS + 1 + nn + NT + 2, "the completed movement in progress: carrier slot "
                  "one-hot (10 slots, army on foot), carrier node one-hot, cargo per unit type / 9, steps / 10, "
                  "carrier MP / 8"),
            Field("battle_siege", 2 * 3 + 2 * NT, "the battle round's building protection per side (siege "
                  "engines, archers, melee) and siege crews per side and unit type / 3"),
            Field("battle", nn + 2 * (n + 1) + 1 + 6 + 4 + 24 + 8 + 3 + 2 + 1 + 3, "the battle in progress: "
                  "node one-hot; attacker and defender one-hot (barbarians, relative seats); battle round / 10; "
                  "dice of both sides / 8; attack values / 64 and loss values / 8; captain choices per side / 3; "
                  "active abilities AR LI HI CA per side; damage being assigned (points / 20, melee first, side is "
                  "defender); LI sacrificed per side / 10; superiority points left / 5; retreat announced; "
                  "capitulation offered by the attacker / demanded of the defender"),
            Field("events", 12 + nn + 5 + 5 + 1 + n, "the event card drawn this round: its three symbols "
                  "one-hot (movement, units, buildings, goods); its area (land regions and adjacent seas); the "
                  "allowed tax rate on the back of the top card (public) one-hot; the effect being distributed "
                  "(symbol one-hot, points left / 4); build-up points left / 3; revolts still to place per "
                  "relative seat / 5"),
            Field("conquest", 10 + 1 + nn, "the conquest item being decided: kind one-hot (civil, military, "
                  "cathedral, caravan, merchant ship, war wagon, galley, siege engine, market cube, control "
                  "marker), level / 3, node one-hot (the region, or the marker's region)"),
            Field("my_bid", 2, f"observer's sealed bid / {BID_SCALE:g}, extra tie bid / {BID_SCALE:g} (private)"),
            Field("my_tax_choice", 5, "observer's tax choice before the reveal (private)"),
            Field("my_tp", 6, "observer's unspent TP per colour / 10"),
            Field("my_drawn", 72, "empire cards the observer is choosing from (private)"),
            Field("my_goals", len(GOAL_KEYS) * 2, "per goal template: lowest threshold among the observer's held "
                  "cards' goals (scaled, 0 = none), and whether it is met now (private)"),
            Field("my_objects", NUM_SLOTS * (len(VEHICLE_KINDS) + 3), "per ownership slot: kind one-hot, level / 3, "
                  "node / nodes, MP / 8"),
            Field("pending", self.num_moves, "moves already chosen in the current multi-part decision"),
            Field("marker_origin", nn + 1, "markers left to place / 3, one-hot node of the new military building"),
            Field("card_effects", 4 * nn + 72 + 72 + 1 + 4 + 3, "empire-card effects (public): per node a fight, "
                  "trade and movement ban this round (Bischof 1-3) and protection from this round's event "
                  "(Pestarzt); cards locked by Intrigant 13; the card whose follow-up is being decided; money on "
                  "Magnat 36 / 300; Magnat 37 and 38 used this round, by the observer or another seat; the "
                  "follow-up choices left / 3, the open card window is a phase window, a turn window"),
            Field("my_card_choice", 3 * (12 + nn), "Weiser 61: the 3 event cards drawn to choose from, each its "
                  "symbols one-hot and its area (private, while choosing)"),
        ]
        fields += variant_fields(n)
        fields += diplomacy_fields(n)
        fields += technology_fields(nn)
        fields += card_move_fields(n)  # Kriegsfürst 6, Wissenschaftler 11, Miliz 25, Kanonier 54, Jäger 55 / 56
        fields += appointment_fields()  # Ernennung
        fields += invasion_fields(nn)  # Kartografie in W-INVADE
        fields += multi_war_fields(n, nn)  # spec 5.15
        fields += card_window_fields()  # W-ANY (cards.py)
        self.layout = ObsLayout(fields)
        # the fields each encode_* function of another module writes, as one run to zero before it does
        self._variant_region, self._technology_region = (
            slice(self.layout.slices[group[0].name].start, self.layout.slices[group[-1].name].stop)
            for group in (variant_fields(n), technology_fields(nn)))
        self._variants_on = config.empire_auction or config.blood_markers or config.hidden_purchases
        self._hidden = config.hidden_purchases
        static = np.zeros((nn, STATIC_FEATURES), dtype=np.float32)
        for i in range(nn):
            static[i, 0] = b.is_sea[i]
            static[i, 1] = b.inhabited[i]
            static[i, 2] = b.port[i]
            if b.good[i] >= 0:
                static[i, 3 + b.good[i]] = 1
            static[i, 11] = b.barbarian_symbol[i]
            static[i, 12 + (b.empire[i] if b.empire[i] >= 0 else 6)] = 1
        self._static = static
        self._identity = np.eye(n + 1, dtype=np.float32)  # _owner_one_hot's rows
        self._seat_orders = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        self._to_rel = [[(p - seat) % n for p in range(n)] for seat in range(n)]
        self._comp = d.comp
        self._events = d.events
        # The board blocks are built once in absolute seats and cached (see _fill_board). Per observer and
        # block with owner one-hots, the position in the flat absolute block of each entry of the observer's
        # block: the rotation to relative seats applied once to positions, then to values by np.take.
        slices = self.layout.slices
        self._gather = []
        for order in self._seat_orders:
            owners = [0] + [1 + p for p in order]
            building_columns = list(range(6)) + [6 + g * (n + 1) + c for g in range(3) for c in owners]
            positions = {
                "node_controller": _positions(nn, n + 1)[:, owners],
                "node_marker": _positions(nn, n + 1)[:, owners],
                "node_buildings": _positions(nn, 6 + 3 * (n + 1))[:, building_columns],
            }
            self._gather.append({name: np.ascontiguousarray(at).ravel() for name, at in positions.items()})
        # The blocks with a seat axis first (seat-major): the observer's block is the absolute one rotated by
        # whole seat rows, two runs copied through memoryviews. Per block: (start in the output, seat row size).
        self._seat_major = {name: (slices[name].start, (slices[name].stop - slices[name].start) // n)
                            for name in ("node_units", "node_stopped", "node_objects", "node_aboard")}
        # each relative seat's fields form one run: the scalar fields, then hand and rotated cards
        self._seat_start = slices["seat0_ep"].start
        self._seat_stride = slices["seat0_rotated"].stop - self._seat_start
        self._hand_offset = slices["seat0_hand"].start - self._seat_start
        self._rotated_offset = slices["seat0_rotated"].start - self._seat_start
        self._num_empires = len(EMPIRES)
        self._money_seats = range(n) if config.reveal_money else range(1)  # relative seats whose money is seen
        # _build_seat_row: per entry of a seat's row, (offset, scale, low, high) of (value + offset) / scale
        scaling = [(EP_OFFSET, EP_SCALE, 0, 1), (0, MONEY_SCALE, -inf, 1), (0, 1, -inf, inf), (0, 5, -inf, inf)]
        scaling += [(0, 1, -inf, inf)] * (2 + 5)  # loan flags, tax
        scaling += [(0, 4, -inf, inf)] * 6 + [(0, 1, -inf, inf)] * 6 + [(0, 12, -inf, 1)] * 12  # tech, tokens
        scaling += [(0, 10, -inf, 1), (0, 8, -inf, inf), (0, 1, -inf, inf), (0, 1, -inf, 1), (0, 10, -inf, 1),
                    (0, 1, -inf, inf)]  # cards .. purchases
        scaling += [(0, 1, -inf, inf)] * len(EMPIRES) + [(0, 50, -inf, 1), (0, 10, -inf, inf)]  # empire, pieces
        scaling += [(0, 10, -inf, 1)] * NT  # capitulated
        self._row_scaling = tuple(np.array(column, dtype=np.float64) for column in zip(*scaling))
        assert len(scaling) == self._hand_offset
        self._row_parts = self._row_part_writers()
        head_fields = ("phase", "stage", "round", "acting_seat", "turn_order", "horde", "supply", "revealed_bids")
        self._head_offsets = {name: slices[name].start for name in head_fields}
        self._head_size = slices["revealed_bids"].stop
        self._turn_size = slices["turn_order"].start  # phase .. acting_seat
        assert slices["phase"].start == 0 and self._head_size == slices["seat0_ep"].start
        self._private_offsets = (slices["my_bid"].start, slices["my_tax_choice"].start, slices["my_tp"].start,
                                 (slices["pending"].start, slices["pending"].stop))
        self._offer_run = (slices["offer"].start, slices["offer"].stop)
        self._zeros = self._zero_run()
        self._memo: dict = {}  # blocks shared by all observers, and their sources (see _versions, _put)
        self._checked: dict = {}  # per entry of _versions: (engine revision, move count its groups were compared at)
        self._shared_sources: dict = {}  # the latest copy of a block's sources alike for every seat (_changed)
        self._seat_inputs: tuple | None = None  # (copies of the engine lists, rows) of _seat_rows
        self._units_kept: tuple | None = None  # (the board's copy of the units it was built from, block)
        self._buildings_kept: tuple | None = None  # (land nodes, buildings per node, block) of _building_block
        self._version = 0  # the last version number given (see _versions)
        # per seat: its last observation, updated in place, and what each block was written from
        self._outputs: dict[int, tuple[np.ndarray, dict]] = {}

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_row_parts"]  # functions made in __init__: made again on loading
        del state["_zeros"]  # a memoryview is no pickle: made again on loading
        state["_outputs"] = {seat: kept[:2] for seat, kept in self._outputs.items()}  # a memoryview is no pickle
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_shared_sources", {})  # a pickle of an earlier version
        self.__dict__.setdefault("_checked", {})
        self._row_parts = self._row_part_writers()
        self._zeros = self._zero_run()
        self._outputs = {seat: (out, _seen_list(seen), memoryview(out))
                         for seat, (out, seen, *_) in self._outputs.items()}

    def _zero_run(self) -> memoryview:
        """Zeros to clear a run of an output through its memoryview, as long as the longest run cleared so."""
        n = self.num_players
        return memoryview(np.zeros(max(self._turn_size, self.num_moves, n * n, 5,
                                       self._offer_run[1] - self._offer_run[0]), dtype=np.float32))

    def encode(self, engine, seat: int) -> np.ndarray:
        e = engine
        rel = self._seat_orders[seat]  # rel[i] = absolute seat of relative seat i
        to_rel = self._to_rel[seat]
        state = self._outputs.get(seat)
        if state is None:
            out = np.zeros(self.layout.size, dtype=np.float32)
            seen = _FIRST_SEEN[:]
            seen[_Seen.GOAL_VALUES] = {}
            state = self._outputs[seat] = (out, seen, memoryview(out))
        # this seat's last observation, what each of its blocks was written from, and a memoryview of it: single
        # numbers and short runs are written through the view, at a third of numpy's cost per write
        out, seen, view = state
        phase = e.phase
        acting = -1 if phase == Phase.GAME_OVER else e.actor  # the engine's current_player, without its call
        mine = acting == seat
        stage = e.stage
        zeros = self._zeros
        # the public head (phase .. revealed_bids): the turn's one-hots, then the rest filled as a list
        at = self._head_offsets
        turn = (phase if mine else Phase.GAME_OVER, stage, e.round, e.num_rounds, e.ep_limit, acting)
        if seen[_Seen.TURN] != turn:  # numbers only: kept as they are
            seen[_Seen.TURN] = turn
            view[:self._turn_size] = zeros[:self._turn_size]
            view[at["phase"] + (phase if mine else Phase.GAME_OVER)] = 1.0
            view[at["stage"] + stage] = 1.0
            start = at["round"]
            view[start] = e.round / 12
            view[start + 1] = e.num_rounds / 12
            view[start + 2] = min(1.0, e.ep_limit / 100)
            if acting >= 0:
                view[at["acting_seat"] + to_rel[acting]] = 1.0
        # what no domain covers (changes.py), compared at every look
        bid = e.bids[seat] if phase in (Phase.BID, Phase.TIE_BID) else 0
        private = (bid, e.tie_extra[seat], e.tax_pending[seat], e.tax_rates)
        if seen[_Seen.PRIVATE] != private:
            seen[_Seen.PRIVATE] = private
            start = self._private_offsets[0]
            view[start] = min(1.0, bid / BID_SCALE)
            view[start + 1] = min(1.0, e.tie_extra[seat] / BID_SCALE)
            start = self._private_offsets[1]
            view[start:start + 5] = zeros[:5]
            if e.tax_pending[seat] >= 0:
                view[start + e.tax_rates.index(e.tax_pending[seat])] = 1
        tp = e.tp[seat]  # changes in the purchases, apart from the rest
        if seen[_Seen.TP] != tp:
            seen[_Seen.TP] = tp[:]
            start = self._private_offsets[2]
            for k, x in enumerate(tp):
                view[start + k] = min(1.0, x / 10)
        prefix = e.prefix if mine and phase in _TREE_PHASES else ()  # a tuple of moves: kept as it is
        if seen[_Seen.PENDING] != prefix:
            seen[_Seen.PENDING] = prefix
            start, stop = self._private_offsets[3]
            view[start:stop] = zeros[:stop - start]
            offsets = self._move_offsets
            for head, argument in prefix:
                view[start + offsets[head] + argument] = 1.0
        offer = offer_sources(e, seat)
        if seen[_Seen.OFFER] != offer:  # None: an empty block, as a new output holds
            seen[_Seen.OFFER] = offer
            start, stop = self._offer_run
            view[start:stop] = zeros[:stop - start]
            if offer is not None:
                encode_offer(offer, view[start:stop], to_rel)
        if self._variants_on or e.auction_round:
            out[self._variant_region] = 0
            encode_variants(e, seat, out, self.layout.slices, rel, to_rel)
        # The domains (changes.py) stamped since this seat's last look; all of them when no move was made since
        # (so that state edited from outside the rules between two looks is seen) or ``revision`` is a new object
        # (an edit after a move, or another engine).
        moves, last = e.moves, seen[_Seen.MOVES]
        if last is None or last == moves or seen[_Seen.REVISION] is not e.revision:
            seen[_Seen.REVISION] = e.revision
            fresh = _EVERYTHING
        else:
            fresh = e.changed_since(last)
            # the pseudo-domains (_ROUTE_POINTS ..) of the blocks that read more than their domains, whenever that
            # more may have changed (the last: _card_turn)
            if phase == Phase.ROUTE_POINTS or seen[_Seen.ROUTES][2]:
                fresh |= _ROUTE_POINTS
            if seen[_Seen.DIPLOMACY][1] != (e.round if e.treaties else 0):
                fresh |= _TREATY_ROUND
            if phase == Phase.MOVE or e.logistik >= 0 or seen[_Seen.TECHNOLOGIES][2]:
                fresh |= _LOCK
            if seen[_Seen.CARD_TURN] != (e.round, stage == Stage.EVENTS, phase == Phase.CARD_FOLLOW, e.actor == seat):
                fresh |= _CARD_TURN
            if e.multi_war is not None:
                fresh |= _MULTI_WAR_ON
        seen[_Seen.MOVES] = moves
        if fresh:
            self._encode_stamped(e, seat, out, seen, phase, rel, to_rel, fresh, view)
        # the blocks used only in some phases: skipped while none is in use nor was at the last look
        in_use = phase in _PHASE_BLOCK_PHASES or e.bt is not None or e.conquest is not None or e.tech_use is not None
        if in_use or seen[_Seen.PHASE_BLOCKS]:
            seen[_Seen.PHASE_BLOCKS] = in_use
            self._encode_phase_blocks(e, seat, out, seen, mine, phase, to_rel)
        obs = out.copy()  # callers may keep observations: later calls must not change them
        if self._hidden:
            show_purchase_snapshot(e, seat, obs, self.layout.slices, rel, to_rel)
        return obs

    def _encode_stamped(self, e, seat: int, out: np.ndarray, seen: list, phase: int, rel: list[int],
                        to_rel: list[int], fresh: int, view: memoryview) -> None:
        """The blocks of the domains ``fresh`` (bits of changes.py and the pseudo-domains):
        each looked at when a domain it reads is fresh, and rewritten (zeroed first) when its inputs changed."""
        n, nn = self.num_players, self.nn
        L = self.layout.slices
        shared = self._shared_sources  # for the blocks whose sources are alike for every seat (see _changed)
        if fresh & _HEAD:
            self._encode_head(e, view, seen, rel, fresh)
        if fresh & _BOARD:
            self._encode_board(e, seat, out, seen, fresh)
        if fresh & _SEATS:
            self._encode_seats(e, seat, out, seen, rel, fresh, view)
        points_left = e.route_points_left if phase == Phase.ROUTE_POINTS else 0
        if fresh & (ROUTES | _ROUTE_POINTS) and _changed(
                seen, _Seen.ROUTES, (e.route, e.route_draft, points_left), shared):
            rv = out[L["routes"]]
            rv[:] = 0
            rs = rv[:nn * n * 2].reshape(nn, n, 2)
            for p in range(n):
                route = e.route[p]
                if route is not None:
                    for node, done in zip(route.stages, route.established):
                        rs[node, to_rel[p], 1 if done else 0] = 1
            draft = e.route_draft
            if draft is not None:
                for node in draft.stages:
                    rv[nn * n * 2 + node] = 1
                if draft.length:
                    rv[nn * n * 2 + nn + (4, 6, 8).index(draft.length)] = 1
            rv[-1] = min(1.0, points_left / 6)
        if fresh & WAR and _changed(seen, _Seen.AT_WAR, e.at_war, shared):
            out[L["at_war"]] = [e.at_war[p][q] for p in rel for q in rel]
        if fresh & EVENTS and _changed(seen, _Seen.EVENTS, (
                e.event_card, e.event_deck[-1] if e.event_deck else -1, e.tax_rates, e.ev_effect,
                e.buildup_left if e.ev_stage == EventStage.BUILDUP else 0, e.revolt_queue), shared):
            evv = out[L["events"]]
            evv[:] = 0
            symbols = ("movement", "units", "buildings", "goods")
            if e.event_card >= 0:
                ev = self._events[e.event_card]
                for i, sym in enumerate(ev.symbols):
                    evv[4 * i + symbols.index(sym)] = 1
                for node in ev.regions | ev.seas:
                    evv[12 + node] = 1
            if e.event_deck:
                evv[12 + nn + e.tax_rates.index(self._events[e.event_deck[-1]].allowed_tax)] = 1
            k = 12 + nn + 5
            if e.ev_effect is not None:
                evv[k + symbols.index(e.ev_effect.symbol)] = 1
                evv[k + 4] = min(1.0, e.ev_effect.left / 4)
            evv[k + 5] = e.buildup_left / 3 if e.ev_stage == EventStage.BUILDUP else 0
            for p in e.revolt_queue:
                evv[k + 6 + to_rel[p]] = min(1.0, evv[k + 6 + to_rel[p]] + 0.2)
        if fresh & OBJECTS and _changed(seen, _Seen.OBJECTS, (e.slots[seat],
                                                          [e.objs[oid] for oid in e.slots[seat] if oid >= 0])):
            mo = out[L["my_objects"]].reshape(NUM_SLOTS, len(VEHICLE_KINDS) + 3)
            mo[:] = 0
            for s, oid in enumerate(e.slots[seat]):
                if oid >= 0:
                    o = e.objs[oid]
                    mo[s, o[1]] = 1
                    mo[s, 5] = o[2] / 3
                    mo[s, 6] = max(0, o[3]) / nn
                    mo[s, 7] = min(1.0, o[4] / 8)
        if fresh & (DIPLOMACY | _TREATY_ROUND) and _changed(
                seen, _Seen.DIPLOMACY, diplomacy_sources(e, seat), shared):
            encode_diplomacy(e, seat, out, L, rel, to_rel, view)
        if fresh & (TECHNOLOGY | _LOCK) and _changed(
                seen, _Seen.TECHNOLOGIES, technology_sources(e), shared):
            out[self._technology_region] = 0
            encode_technologies(e, out, L)
        if fresh & _CARD_TURN:
            seen[_Seen.CARD_TURN] = _card_turn(e, seat)
        if fresh & (CARD_EFFECTS | _CARD_TURN) and _changed(
                seen, _Seen.CARD_EFFECTS, card_effects_sources(e, seat), shared):
            v = out[L["card_effects"]]
            v[:] = 0
            encode_card_effects(e, seat, v)
            v = out[L["card_window"]]
            v[:] = 0
            encode_card_window(e, v)
        if fresh & (CARD_EFFECTS | _CARD_TURN) and _changed(seen, _Seen.CARD_CHOICE, card_choice_sources(e, seat)):
            v = out[L["my_card_choice"]]
            v[:] = 0
            encode_card_choice(e, seat, v)
        if fresh & (CARD_EFFECTS | OBJECTS | _CARD_TURN) and _changed(
                seen, _Seen.CARD_MOVES, card_moves_sources(e), shared):
            out[L["card_vehicles"]] = 0
            out[L["card_movement"]] = 0
            encode_card_moves(e, out, L, rel)
        if fresh & (BATTLE | UNITS | BARBARIANS) and _changed(
                seen, _Seen.APPOINTMENTS, appointments_sources(e), shared):
            out[L["tech_appointed"]] = 0
            encode_appointments(e, out, L)
        if fresh & (MULTI_WAR | _MULTI_WAR_ON) and _changed(seen, _Seen.MULTI_WAR, multi_war_sources(e), shared):
            encode_multi_war(e, out, L, to_rel)


    def _encode_phase_blocks(self, e, seat: int, out: np.ndarray, seen: list, mine: bool, phase: int,
                             to_rel: list[int]) -> None:
        """The blocks used only in some phases: written while in use, and once more to clear them."""
        nn = self.nn
        L = self.layout.slices
        trading = phase == Phase.TRADE or phase == Phase.PLACE_CUBE
        if trading or seen[_Seen.TRADE]:
            seen[_Seen.TRADE] = trading
            tv = out[L["trade"]]
            tv[:] = 0
            if trading:
                tv[3 if phase == Phase.PLACE_CUBE else ("", "buy", "sell").index(e.trade_action)] = 1
                tv[4 + e.slots[e.actor].index(e.trader)] = 1
                for g in e.sold_now:
                    tv[4 + NUM_SLOTS + g] = min(1.0, tv[4 + NUM_SLOTS + g] + 1 / 6)
        moving = phase == Phase.MOVE
        if moving or seen[_Seen.MOVE]:
            seen[_Seen.MOVE] = moving
            mv = out[L["move"]]
            mv[:] = 0
            if moving:
                if e.carrier < 0:
                    mv[NUM_SLOTS] = 1
                else:
                    mv[e.slots[e.actor].index(e.carrier)] = 1
                node = e.carrier_node()
                mv[NUM_SLOTS + 1 + node] = 1
                cargo = e.carrier_cargo()
                base = NUM_SLOTS + 1 + nn
                for t in range(NT):
                    mv[base + t] = min(1.0, cargo[t] / 9)
                mv[base + NT] = min(1.0, e.move_steps / 10)
                mv[base + NT + 1] = 0 if e.carrier < 0 else min(1.0, e.objs[e.carrier][4] / 8)
        bt = e.bt
        if bt is not None or seen[_Seen.BATTLE]:
            seen[_Seen.BATTLE] = bt is not None
            bv = out[L["battle"]]
            sv = out[L["battle_siege"]]
            bv[:] = 0
            sv[:] = 0
            if bt is not None:
                self._write_battle(e, bt, to_rel, bv, sv)
        cq = e.conquest
        conquering = cq is not None and bool(cq.items)
        if conquering or seen[_Seen.CONQUEST]:
            seen[_Seen.CONQUEST] = conquering
            cv = out[L["conquest"]]
            cv[:] = 0
            if conquering:
                kind, x = cq.items[0]
                where = cq.node
                if kind == Stake.BUILDING:
                    cv[x] = 1
                    cv[10] = e.building_level_at(where, x) / 3
                elif kind == Stake.OBJECT:
                    cv[3 + e.objs[x][1]] = 1
                    cv[10] = e.objs[x][2] / 3
                elif kind == Stake.CUBE:
                    cv[8] = 1
                else:  # Stake.MARKER
                    cv[9] = 1
                    where = x
                cv[11 + where] = 1
        keeping = mine and phase == Phase.KEEP_CARD
        if keeping or seen[_Seen.DRAWN]:
            seen[_Seen.DRAWN] = keeping
            drawn = out[L["my_drawn"]]
            drawn[:] = 0
            if keeping:
                for c in e.drawn:
                    drawn[c] = 1
        placing = mine and phase == Phase.PLACE_MARKER
        if placing or seen[_Seen.MARKER_ORIGIN]:
            seen[_Seen.MARKER_ORIGIN] = placing
            mo2 = out[L["marker_origin"]]
            mo2[:] = 0
            if placing:
                mo2[0] = min(1.0, e.markers_to_place / 3)
                mo2[1 + e.marker_origin] = 1
        use = e.tech_use
        invaded = use.context.node if use is not None and use.window == TechWindow.INVADE else -1
        if seen[_Seen.INVADED] != invaded:
            seen[_Seen.INVADED] = invaded
            out[L["tech_invaded"]] = 0
            encode_invasion(e, out, L)

    def _encode_head(self, e, view: memoryview, seen: list, rel: list[int], fresh: int) -> None:
        """The public head after the turn's one-hots: turn order, horde, supply and revealed bids, each part
        written when the versions of its sources differ from those this seat's output shows (through the
        output's memoryview ``view``)."""
        n = self.num_players
        at = self._head_offsets
        head = self._versions(e, "head", (e.position, e.bids_revealed, e.horde, e.barb_dice, e.building_supply,
                                       e.vehicle_supply, e.siege_supply, e.barb_supply, e.token_supply, len(e.deck),
                                       len(e.event_deck)), _HEAD_GROUPS, fresh)
        last = seen[_Seen.HEAD]
        if last is head:
            return
        seen[_Seen.HEAD] = head
        versions = head[1]
        shown = (0,) * len(versions) if last is None else last[1]
        if versions[0] != shown[0]:  # the turn order
            start = at["turn_order"]
            view[start:start + n * n] = self._zeros[:n * n]
            position = e.position
            for i, p in enumerate(rel):
                view[start + i * n + position[p]] = 1.0
        if versions[1] != shown[1]:
            start = at["revealed_bids"]
            bids = e.bids_revealed
            for i, p in enumerate(rel):
                view[start + i] = min(1.0, bids[p] / BID_SCALE)
        if versions[2] != shown[2] or versions[3] != shown[3]:
            start = at["horde"]
            horde, dice = e.horde, e.barb_dice
            view[start] = horde[0] / 2
            view[start + 1] = horde[1]
            view[start + 2] = horde[2]
            view[start + 3] = dice[0] / 4
            view[start + 4] = dice[1] / 6
            view[start + 5] = dice[2] / 8
        supply_versions = versions[4:]
        if supply_versions != shown[4:]:
            entry = self._memo.get("supply")
            if entry is None or entry[0] != supply_versions:  # one float32 array per version, shared by the seats
                entry = self._memo["supply"] = (supply_versions, np.array(self._supply_block(e), dtype=np.float32))
            start = at["supply"]
            view[start:start + len(entry[1])] = entry[1]

    def _encode_board(self, e, seat: int, out: np.ndarray, seen: list, fresh: int) -> None:
        """The per-node blocks, of the sources in the ``fresh`` domains that changed."""
        # the control map is kept by the engine and never changed afterwards: no copy needed
        control = e._cached_control_map() if fresh & _CONTROL else None
        board = self._versions(e, "board", (
            control, e.playable, e.units, e.stopped, e.barb, e.marker, e.cubes, e.objs, e.goods, e.cargo,
            e.land_nodes, e.civil, e.civil_owner, e.civil_dmg, e.mil, e.mil_owner, e.mil_dmg, e.cath_owner,
            e.cath_dmg, e.home_owner), _BOARD_GROUPS, fresh)  # home_owner: read by the goals, no board block
        last = seen[_Seen.BOARD]
        if last is not board:
            seen[_Seen.BOARD] = board
            self._fill_board(e, seat, out, seen, board[1], None if last is None else last[1])

    def _encode_seats(self, e, seat: int, out: np.ndarray, seen: list, rel: list[int], fresh: int,
                      view: memoryview) -> None:
        """The seat rows, the visible money and the observer's goals, as far as the ``fresh`` domains changed
        them (the goals: ``_GOAL_DOMAINS``)."""
        n = self.num_players
        L = self.layout.slices
        stride = self._seat_stride
        rows_written = False
        if fresh & _ROWS:  # each row built once per change of its numbers and shared by all observers
            rows = seen[_Seen.ROWS]
            if rows is None:
                rows = seen[_Seen.ROWS] = [None] * n  # the shared row written for each relative seat
            shared = self._seat_rows(e, fresh)
            for i, p in enumerate(rel):
                row = shared[p]
                if rows[i] is not row:
                    rows[i] = row
                    base = self._seat_start + i * stride
                    view[base:base + stride] = row
                    rows_written = True  # its money slots hold 0 again
        # money (and money_known) is kept out of the cached rows: it changes at many steps
        if rows_written or fresh & MONEY:
            money = [e.money[rel[i]] for i in self._money_seats]
            if rows_written or seen[_Seen.MONEY] != money:
                seen[_Seen.MONEY] = money
                for i, m in zip(self._money_seats, money):
                    base = self._seat_start + i * stride
                    view[base + 1] = min(1.0, max(0, m) / MONEY_SCALE)
                    view[base + 2] = 1.0
        # The held cards' goals: per template the lowest threshold (scaled) and whether the template's value reaches
        # it. A value is measured again when a domain it reads was stamped; the cards held when one was.
        if not fresh & (seen[_Seen.GOAL_DOMAINS] | CARDS):
            return
        kept = seen[_Seen.GOAL_VALUES]
        values = {}
        domains = 0
        goals = [0.0] * (2 * len(GOAL_KEYS))  # per template: lowest scaled threshold, met
        for key, threshold in [e.goal_of[c] for c in e.hand[seat]]:
            scaled = min(1.0, threshold / 20) if threshold <= 20 else min(1.0, threshold / 2000)
            if goals[2 * key] == 0 or scaled < goals[2 * key]:
                goals[2 * key] = scaled
            value = values.get(key)
            if value is None:
                reads = _GOAL_DOMAINS[key]
                domains |= reads
                value = values[key] = kept[key] if key in kept and not fresh & reads else e.goal_value(seat, key)
            if value >= threshold:
                goals[2 * key + 1] = 1.0
        seen[_Seen.GOAL_VALUES] = values
        seen[_Seen.GOAL_DOMAINS] = domains
        if seen[_Seen.GOALS] != goals:
            seen[_Seen.GOALS] = goals
            out[L["my_goals"]] = goals

    def _write_battle(self, e, bt: Battle, to_rel: list[int], bv: np.ndarray, sv: np.ndarray) -> None:
        """The battle in progress into the zeroed ``battle`` and ``battle_siege`` fields."""
        n, nn = self.num_players, self.nn
        bv[bt.node] = 1
        k = nn
        for side in (0, 1):
            owner = bt.owners[side]
            bv[k + (0 if owner < 0 else 1 + to_rel[owner])] = 1
            k += n + 1
        bv[k] = min(1.0, bt.round / 10)
        k += 1
        for side in (0, 1):
            for j, top in enumerate((4, 6, 8)):
                bv[k + 3 * side + j] = bt.dice[side][j] / 8
        k += 6
        bv[k:k + 4] = (min(1.0, bt.av[0] / 64), min(1.0, bt.av[1] / 64), bt.lv[0] / 8, bt.lv[1] / 8)
        k += 4
        for side in (0, 1):
            for mode, a in bt.cap[side]:
                bv[k + 12 * side + 4 * mode + a] = min(1.0, bv[k + 12 * side + 4 * mode + a] + 1 / 3)
        k += 24
        for side in (0, 1):
            for j, t in enumerate((2, 0, 1, 3)):
                bv[k + 4 * side + j] = bt.active[side][t]
        k += 8
        if bt.damage is not None:
            side, points, restricted = bt.damage
            bv[k:k + 3] = (min(1.0, points / 20), restricted, side)
        k += 3
        bv[k:k + 2] = (min(1.0, bt.sac[0] / 10), min(1.0, bt.sac[1] / 10))
        bv[k + 2] = min(1.0, bt.super_left / 5)
        bv[k + 3] = bt.retreat
        for side in (0, 1):
            if bt.protect[side] >= 0:
                sv[3 * side + bt.protect[side]] = 1
            for t in range(NT):
                sv[6 + NT * side + t] = min(1.0, bt.crew[side][t] / 3)
        if bt.offer >= 0 and e.phase == Phase.CAPITULATION_ANSWER:
            bv[k + 4 + bt.offer] = 1

    # ------------------------------------------------------------------------ caches ----
    def _versions(self, e, name: str, sources: tuple, groups: tuple, fresh: int) -> tuple:
        """The entry ``(copy of sources, version of each source)``: a version is a number the encoder gives
        a source's content when it first sees it, so blocks can be keyed by a few numbers. A new entry
        whenever a source changed. ``groups``: (domain bits, positions of the sources they cover, indices of
        the domains' stamps); only the sources of the ``fresh`` domains are compared (the others may be None),
        and of those, in groups with stamp indices, only the groups with a domain stamped since the copies were
        last compared (by any seat's look: ``_checked``)."""
        entry = self._memo.get(name)
        if entry is None:
            first = self._version + 1
            self._version += len(sources)
            entry = self._memo[name] = ([_snapshot(x) for x in sources], list(range(first, self._version + 1)))
            self._checked[name] = (e.revision, [-1] * len(groups))
            return entry
        copies, versions = entry
        new = None
        checked = self._checked.get(name)
        if checked is None or checked[0] is not e.revision:  # another engine, or an edit from outside the rules
            checked = self._checked[name] = (e.revision, [-1] * len(groups))
        compared = checked[1]
        # between two moves the copies compared now stay the engine's content until a domain is stamped again;
        # within a move (rules changing the state) they are not taken as compared
        now = e.moves if not e.unstamped else -1
        trust = fresh != _EVERYTHING  # else the seat looks again with no move since: everything by content
        stamps = e.stamps
        for g, (bits, positions, stamp_at) in enumerate(groups):
            if fresh & bits:
                if stamp_at:
                    if trust and compared[g] >= 0 and max([stamps[i] for i in stamp_at]) <= compared[g]:
                        continue  # compared since the latest stamp of its domains
                    compared[g] = now
                for i in positions:
                    copy = _recopy(copies[i], sources[i])
                    if copy is not copies[i]:
                        if new is None:
                            new = copies, versions = list(copies), list(versions)
                        copies[i] = copy
                        self._version += 1
                        versions[i] = self._version
        if new is not None:
            entry = self._memo[name] = new
        return entry

    def _put(self, out: np.ndarray, seen: list, seat: int, field: str, key, build) -> None:
        """Writes the block ``field`` into a seat's output unless it holds it already: ``build()``, flat and in
        absolute seats, cached under ``key`` (versions of its inputs)."""
        entry = self._memo.get(field)
        if entry is None or entry[0] != key:
            entry = self._memo[field] = (key, build())
        k = _SEEN_INDEX[field]
        if seen[k] is not entry:
            seen[k] = entry
            self._write(out, seat, field, entry[1])

    def _write(self, out: np.ndarray, seat: int, field: str, block: np.ndarray) -> None:
        """A flat absolute float32 block into the observer's field, rotated to relative seats where it has seats."""
        major = self._seat_major.get(field)
        if major is not None:  # seat rows: the observer's row first, two runs (memoryview copies cost least)
            start, size = major
            cut = seat * size
            stop = start + len(block) - cut
            view, rows = memoryview(out), memoryview(block)
            view[start:stop] = rows[cut:]
            view[stop:stop + cut] = rows[:cut]
            return
        target = out[self.layout.slices[field]]
        gather = self._gather[seat].get(field)
        if gather is None:
            target[:] = block
        else:  # mode "clip" makes take unbuffered; every position is in range. The method, not np.take: that
            # is a Python function around it
            block.take(gather, out=target, mode="clip")

    def _fill_board(self, e, seat: int, out: np.ndarray, seen: list, versions: list[int], last: list[int] | None
                    ) -> None:
        """The per-node blocks, built in absolute seats (seat p in column 1 + p of one-hots, index p of seat
        axes) and turned into the observer's relative seats by the gather positions of ``__init__``.
        ``versions`` are those of the sources listed in ``encode``, ``last`` those this seat's output shows
        (None: nothing yet): only the blocks of changed sources are looked at."""
        n, nn = self.num_players, self.nn
        changed = [True] * len(versions) if last is None else [a != b for a, b in zip(last, versions)]
        put = self._put
        if changed[0]:
            put(out, seen, seat, "node_controller", versions[0], lambda: self._owner_one_hot(e._cached_control_map()).ravel())
        if changed[1]:
            put(out, seen, seat, "node_static", versions[1], lambda: self._static_block(e))
        if changed[2]:
            put(out, seen, seat, "node_units", versions[2], lambda: self._units_block(self._memo["board"][0][2]))
        if changed[3]:
            put(out, seen, seat, "node_stopped", versions[3],
                lambda: np.minimum(1.0, _small_ints(e.stopped).reshape(n, nn, NT).sum(axis=2).ravel() / 10))
        if changed[4]:
            put(out, seen, seat, "node_barbarians", versions[4], lambda: _scaled_ints([e.barb], _FIFTHS, 5))
        if changed[5]:
            put(out, seen, seat, "node_marker", versions[5], lambda: self._owner_one_hot(e.marker).ravel())
        if changed[6]:
            put(out, seen, seat, "node_cubes", versions[6], lambda: _small_ints(e.cubes))
        if changed[7] or changed[8] or changed[9]:
            # keyed by what the blocks read of the objects (not their MP, which changes at every step of a move),
            # which is listed once per version of the objects
            entry = self._memo.get("vehicles")
            if entry is None or entry[2] != versions[7:10]:
                key = ([o[:4] for o in e.objs.values()], versions[8], versions[9])
                if entry is None or entry[0] != key:  # key: a new list, not engine data
                    entry = (key, self._vehicle_blocks(e), versions[7:10])
                else:
                    entry = (entry[0], entry[1], versions[7:10])
                self._memo["vehicles"] = entry
            if seen[_Seen.VEHICLES] is not entry:
                seen[_Seen.VEHICLES] = entry
                for field, block in zip(("node_objects", "node_goods", "node_aboard"), entry[1]):
                    self._write(out, seat, field, block)
        if any(changed[10:]):
            put(out, seen, seat, "node_buildings", tuple(versions[10:]), lambda: self._building_block(e))

    def _units_block(self, units: list[list[int]]) -> np.ndarray:
        """node_units in absolute seats from the board's copy of the units (see ``_versions``), a seat's units
        converted again only when its copy is a new list since the last build (a move changes one seat's units,
        mostly): the block is updated in place (observers' outputs hold copies of it, ``_write``)."""
        kept = self._units_kept
        if kept is None:
            block = _scaled_ints(units, _TENTHS, 10)
        else:
            built, block = kept
            size = len(units[0])
            for p, row in enumerate(units):
                if row is not built[p]:
                    block[p * size:(p + 1) * size] = _scaled_ints([row], _TENTHS, 10)
        self._units_kept = (units, block)
        return block

    def _seat_rows(self, e, fresh: int) -> list:
        """Each seat's block (ep .. rotated) with its money hidden, shared by all observers; a seat's block is a
        new array whenever one of its numbers changed. The engine lists of the ``fresh`` domains (only those are
        read) are compared with copies as a whole (at C speed); only a list that differs is compared seat by seat,
        and only the entries it feeds are written again, into a copy of the seat's block."""
        kept = self._seat_inputs
        n = self.num_players
        if kept is None or kept[0][-1] != e.tax_rates:
            rows = [self._build_seat_row(e, p) for p in range(n)]
            self._seat_inputs = ([_snapshot(getattr(e, name)) for name in _ROW_INPUTS], rows)
            self._checked["rows"] = (e.revision, [-1] * len(_ROW_GROUPS))
            return rows
        copies, rows = kept
        copied: set = set()  # the seats whose block is a new copy
        checked = self._checked.get("rows")  # as in _versions
        if checked is None or checked[0] is not e.revision:
            checked = self._checked["rows"] = (e.revision, [-1] * len(_ROW_GROUPS))
        compared = checked[1]
        now = e.moves if not e.unstamped else -1
        trust = fresh != _EVERYTHING
        stamps = e.stamps
        for g, (bits, positions, stamp_at) in enumerate(_ROW_GROUPS):
            if not fresh & bits:
                continue
            if trust and compared[g] >= 0 and max([stamps[i] for i in stamp_at]) <= compared[g]:
                continue
            compared[g] = now
            for k in positions:
                old = copies[k]
                live = getattr(e, _ROW_INPUTS[k])
                if old == live:  # the common case, without a call
                    continue
                copy = _recopy(old, live)
                if not copied:
                    copies = list(copies)
                copies[k] = copy
                for p in range(n) if k == _CARGO_INPUT else [
                        p for p in range(n) if copy[p] is not old[p] and copy[p] != old[p]]:
                    if p not in copied:
                        copied.add(p)
                        rows[p] = rows[p].copy()
                    self._row_parts[k](e, p, rows[p])
        if copied:
            self._seat_inputs = (copies, rows)
        return rows

    def _row_part_writers(self) -> list:
        """Per input of ``_seat_rows`` (in its order), a function writing the entries of a seat's block that
        the input feeds, scaled as ``_build_seat_row`` does."""
        at = {name: self.layout.slices[f"seat0_{name}"].start - self._seat_start for name in (
            "ep", "loans", "loan_flags", "tax", "tech", "tech_bought", "tokens", "tokens_flipped", "cards",
            "markers_left", "status", "purchases", "empire", "pieces", "capitulated")}
        offset, scale, low, high = (column.tolist() for column in self._row_scaling)

        def put(row, start, values):
            for j, x in enumerate(values, start):
                v = (x + offset[j]) / scale[j]
                row[j] = high[j] if v > high[j] else low[j] if v < low[j] else v

        def one_hot(row, start, size, index):
            row[start:start + size] = 0
            if index >= 0:
                row[start + index] = 1

        def cards(row, start, held):
            row[start:start + 72] = 0
            for c in held:
                row[start + c] = 1

        def pieces(e, p, row):
            put(row, at["pieces"], (e.total_units(p), len(e.own_objects(p))))

        def hand(e, p, row):
            put(row, at["cards"], (len(e.hand[p]),))
            cards(row, self._hand_offset, e.hand[p])

        return [
            lambda e, p, row: put(row, at["ep"], (e.ep[p],)),
            lambda e, p, row: put(row, at["loans"], (e.loans[p],)),
            lambda e, p, row: put(row, at["loan_flags"], (e.loan_taken[p],)),
            lambda e, p, row: put(row, at["loan_flags"] + 1, (e.loan_repaid[p],)),
            lambda e, p, row: one_hot(row, at["tax"], 5, e.tax_rates.index(e.tax_rate[p])),
            lambda e, p, row: put(row, at["markers_left"], (e.markers_left[p],)),
            lambda e, p, row: put(row, at["status"], (e.eliminated[p],)),
            lambda e, p, row: put(row, at["status"] + 1, (e.missed_interest[p],)),
            lambda e, p, row: put(row, at["purchases"], (e.units_bought[p],)),
            lambda e, p, row: put(row, at["purchases"] + 1, (e.card_bought[p],)),
            lambda e, p, row: one_hot(row, at["empire"], self._num_empires, e.empire_of[p]),
            pieces,  # army
            pieces,  # slots
            lambda e, p, row: put(row, at["tech"], e.tech[p]),
            lambda e, p, row: put(row, at["tech_bought"], e.tech_bought[p]),
            lambda e, p, row: put(row, at["tokens"], e.tokens[p]),
            lambda e, p, row: put(row, at["tokens_flipped"], e.tokens_flipped[p]),
            lambda e, p, row: put(row, at["capitulated"], e.capitulated[p]),
            hand,
            lambda e, p, row: cards(row, self._rotated_offset, e.rotated[p]),
            pieces,  # cargo: units aboard
        ]

    def _build_seat_row(self, e, p: int) -> np.ndarray:
        """The raw numbers, then (value + offset) / scale clipped to [low, high] per entry, all at once (in
        float64 like Python's arithmetic, so the values are those of scaling one by one). Money and
        money_known stay 0: encode writes them where the money is visible."""
        tax = [0] * 5
        tax[e.tax_rates.index(e.tax_rate[p])] = 1
        empire = [0] * self._num_empires
        if e.empire_of[p] >= 0:
            empire[e.empire_of[p]] = 1
        raw = [e.ep[p], 0, 0, e.loans[p], e.loan_taken[p], e.loan_repaid[p]]
        raw += tax
        raw += e.tech[p]
        raw += e.tech_bought[p]
        raw += e.tokens[p]
        raw += e.tokens_flipped[p]
        raw += (len(e.hand[p]), e.markers_left[p], e.eliminated[p], e.missed_interest[p], e.units_bought[p],
                e.card_bought[p])
        raw += empire
        raw += (e.total_units(p), len(e.own_objects(p)))
        raw += e.capitulated[p]
        offset, scale, low, high = self._row_scaling
        row = np.minimum(high, np.maximum(low, (np.array(raw, dtype=np.float64) + offset) / scale))
        block = np.zeros(self._seat_stride, dtype=np.float32)
        block[:len(row)] = row
        for c in e.hand[p]:
            block[self._hand_offset + c] = 1
        for c in e.rotated[p]:
            block[self._rotated_offset + c] = 1
        return block

    def _supply_block(self, e) -> list[float]:
        comp = self._comp
        sup = [e.building_supply[k] / max(1, comp.building_supply[k]) for k in range(7)]
        sup += [e.vehicle_supply[k] / max(1, comp.vehicle_supply[k]) for k in range(4)]
        sup += [e.siege_supply[k] / max(1, comp.siege_supply[k]) for k in range(3)]
        bs = comp.raw["barbarians"]["supply"]
        sup += [e.barb_supply[0] / bs["LI"], e.barb_supply[1] / bs["AR"], e.barb_supply[2] / bs["CP"]]
        sup += [t / 12 for t in e.token_supply]
        sup += [len(e.deck) / 72, len(e.event_deck) / 30]
        return [min(1.0, x) for x in sup]

    def _static_block(self, e) -> np.ndarray:
        static = self._static.copy()
        static[:, 19] = e.playable
        return static.ravel()

    def _owner_one_hot(self, owners: list[int]) -> np.ndarray:
        """Per node one-hot (none, seat 0, seat 1, ...) of an owner or -1: rows of the identity matrix."""
        return self._identity.take(np.array(owners, dtype=np.intp) + 1, axis=0)

    def _building_block(self, e) -> np.ndarray:
        """node_buildings in absolute seats, flat. Only the nodes whose buildings changed since the last build are
        written again, in place (observers' outputs hold copies of the block, ``_write``)."""
        width = 6 + 3 * (self.num_players + 1)
        keys = list(zip(e.civil, e.civil_dmg, e.civil_owner, e.mil, e.mil_dmg, e.mil_owner, e.cath_owner, e.cath_dmg))
        kept = self._buildings_kept
        if kept is None or kept[0] != e.land_nodes:
            bld = [0.0] * (self.nn * width)  # a list: numpy's element writes cost several times more
            for node in e.land_nodes:
                bld[node * width:(node + 1) * width] = self._building_row(keys[node])
            block = np.array(bld, dtype=np.float32)
        else:
            _, old, block = kept
            for node in e.land_nodes:
                if keys[node] != old[node]:
                    block[node * width:(node + 1) * width] = self._building_row(keys[node])
        self._buildings_kept = (e.land_nodes[:], keys, block)
        return block

    def _building_row(self, key: tuple) -> list[float]:
        """A land node's row of node_buildings from (civil, its damage, owner, military, its damage, owner,
        cathedral owner, its damage)."""
        n = self.num_players
        civil, civil_dmg, civil_owner, mil, mil_dmg, mil_owner, cath_owner, cath_dmg = key
        gp = self._comp.building_gp
        row = [0.0] * (6 + 3 * (n + 1))
        if civil:
            row[0] = civil / 3
            row[3] = civil_dmg / gp[civil - 1]
            row[6 + 1 + civil_owner] = 1.0
        else:
            row[6] = 1.0
        if mil:
            row[1] = mil / 3
            row[4] = mil_dmg / gp[2 + mil]
            row[6 + (n + 1) + 1 + mil_owner] = 1.0
        else:
            row[6 + (n + 1)] = 1.0
        if cath_owner >= 0:
            row[2] = 1.0
            row[5] = cath_dmg / gp[6]
            row[6 + 2 * (n + 1) + 1 + cath_owner] = 1.0
        else:
            row[6 + 2 * (n + 1)] = 1.0
        return row

    def _vehicle_blocks(self, e) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Objects per seat and node, goods aboard per node, units aboard per seat and node (flat). The sums per
        entry are collected first and written at once: numpy's element writes cost several times more."""
        n, nn = self.num_players, self.nn
        kinds = len(VEHICLE_KINDS)
        objs = e.objs
        level_sums: dict = {}
        known = level_sums.get
        for o in objs.values():
            node = o[3]
            if node >= 0:  # objects aboard a galley are not on the map
                i = (o[0] * nn + node) * kinds + o[1]
                old = known(i)  # _add written out: a call per object costs as much as the rest
                level_sums[i] = o[2] / 9 if old is None else np.float32(old) + o[2] / 9
        goods: dict = {}
        for oid, cubes in e.goods.items():
            if any(cubes):
                base = objs[oid][3] % nn * 8  # as numpy indexes: a node of -1 (aboard a galley) is the last row
                for g in range(8):
                    if cubes[g]:  # adding 0 changes no sum
                        _add(goods, base + g, cubes[g] / 6)
        aboard: dict = {}
        for oid, cargo in e.cargo.items():
            k = sum(cargo)
            if k and objs[oid][3] >= 0:
                o = objs[oid]
                _add(aboard, o[0] * nn + o[3], k / 9)
        return _sums_block(level_sums, n * nn * kinds), _sums_block(goods, nn * 8), _sums_block(aboard, n * nn)


__all__ = ["MedioevoEncoder"]
