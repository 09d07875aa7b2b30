"""Observation of spec 10.5 from one seat's view, seats rotated so the observer is seat 0.

Hidden from every observer: this year's enemy card until it is revealed in winter (except from a
seat that peeked with the General or the Queen, which sees it), the enemy cards of later years,
other seats' committed King's-army tokens before the reveal, other seats' dealt governor cards and
their choice before the reveal. Everything else is open information (spec 7.1). All values lie in
[0, 1]: counts are capped and divided by their cap; VP are shifted by ``VP_OFFSET`` first.
"""
from __future__ import annotations

import numpy as np

from ..core.encoder import Field, ObservationEncoder, ObsLayout
from .changes import PUBLIC, SEATS
from .data import BARRACKS, NUM_COLS, NUM_SLOTS, tables
from .engine import DECISION_NAMES, NUM_DECISIONS, Decision

VP_OFFSET = 20  # VP -20..100 map to 0..120
VP_RANGE = 120
COUNT_CAP = 30  # goods, +2 tokens and soldiers above this read as the cap
# VP (shifted by _TABLE_VP_SHIFT) and counts are read through tables that clip as the fields do; they
# cover VP -512..511 and counts up to 1023, far beyond what five years can bring (a few hundred)
_TABLE_SIZE, _TABLE_VP_SHIFT = 1024, 512
PICK_SOURCES = 21  # 0 King's favour, 1..18 advisor rank, 19 battle reward, 20 tax collector
_CONTEXT_DECISIONS = frozenset((Decision.MODIFIERS, Decision.PICK_GOOD, Decision.ALCHEMIST, Decision.SMUGGLER,
                                Decision.RECRUIT, Decision.GOVERNOR))
_FLOAT32, _UINT8 = np.dtype(np.float32), np.dtype(np.uint8)
_frombuffer = np.frombuffer  # read at every observation: a module's attribute costs a lookup per read
_DIE_ONEHOT = tuple(tuple(1 if v == d else 0 for v in range(1, 7)) for d in range(7))
# Scaled float32 bytes of the parts whose content and scale are the same for every player count and
# module choice, shared by all encoders of the process (kept out of pickles) and keyed by their inputs:
# a seat's dice, its buildings (built per row), and the decision context (only without modules 2 and 3,
# whose private parts make the context observer-dependent).
_DICE_BLOCKS: dict = {}
_BUILDING_BLOCKS: dict = {}
_CONTEXT_BLOCKS: dict = {}
_PUBLIC_STAMP = PUBLIC.bit_length() - 1  # index of the public domain in the engine's stamps


class KingsburgEncoder(ObservationEncoder):
    # slots: read faster than the entries of an instance dict of this size (see the engine)
    __slots__ = (
        "num_players", "tables", "config", "max_enemy", "per_seat", "layout", "_scale", "_seat_orders", "_zeros_gov",
        "_zeros_val", "_zeros_enemy", "_enemy_cache", "_own_decision", "_other_decision", "_year_phase_bytes",
        "_envoy_bytes", "_order_parts", "_neutral", "_enemy_shared", "_zeros_enemy_bytes", "_zeros_battle",
        "_private_parts", "_zeros_decision_part", "_cached_engine", "_seat_blocks", "_seat_log", "_seat_log_read",
        "_seat_log_epoch", "_built_rows", "_enemy_parts",
        "_zeros_val2", "_zeros_modules", "_values", "_per_value", "_unit", "_vp_floats", "_count_floats", "_flag_floats",
        "_context_start", "_zeros_context", "_enemy_start", "_enemy_floats", "_neutral_floats", "_order_floats",
        "_modules_start", "_seat_tables", "_encode_tables", "_row_floats", "_dice_floats")

    def __init__(self, config, num_players: int):
        n = self.num_players = num_players
        t = self.tables = tables(config.module_more_buildings)
        self.config = config
        ntypes = len(t.enemy_types)
        ngov = len(t.governors)
        nval = len(t.army_values)
        self.max_enemy = max(max(c.strength for c in t.enemies), max(r[1] for r in t.year_range), 1)
        per_seat = [
            ("vp", 1, f"(VP + {VP_OFFSET}) / {VP_RANGE}, clipped"),
            ("goods", 3, f"gold, wood, stone / {COUNT_CAP} (capped)"),
            ("plus2", 1, f"+2 tokens / {COUNT_CAP}"),
            ("soldiers", 1, f"soldiers / {COUNT_CAP}"),
            ("flags", 7, "+2 used, Market used, Statue used, Chapel used, passed, holds favour die, took Farms die"),
            ("advisors", 18, "advisor ranks 1..18 this seat has dice on this season"),
            ("buildings", NUM_SLOTS, "owned buildings, row-major A-I .. G-IV (rows A, G only with module 1)"),
            ("player_dice", 21, "3 player dice (sorted slots P0..P2): value one-hot 1..6, placed flag"),
            ("bonus_dice", 32, "4 bonus-die slots B0..B3: present, value one-hot 1..6, placed flag"),
            ("dice_total", 1, "total of all dice this season / 42"),
            ("army_tokens", nval, "module 3: remaining tokens per distinct value / copies of that value"),
            ("army_revealed", nval, "module 3: token revealed this winter (one-hot value)"),
            ("governor", ngov, "module 2: the kept governor card after the reveal (one-hot)"),
        ]
        self.per_seat = per_seat
        fields = [
            Field("decision", NUM_DECISIONS + 1, "one-hot: " + ", ".join(DECISION_NAMES[:NUM_DECISIONS])
                  + ", not my decision"),
            Field("acting_seat", n, "one-hot, relative to the observer (0 = observer)"),
            Field("year", 5, "one-hot year I..V"),
            Field("phase", 8, "one-hot phase 1..8 of the year"),
            Field("modules", 3, "module 1 more buildings, module 2 governors, module 3 army tokens"),
            Field("turn_order", n * n, "per relative seat: its position on the turn-order track (one-hot)"),
            Field("envoy", n + 1, "King's envoy holder: relative seat one-hot, or last = on its space"),
            Field("neutral_advisors", 18, "advisor ranks 1..18 blocked by neutral dice this season (2 players)"),
            Field("enemy_back", 2, f"this year's card back: strength range min, max / {self.max_enemy}"),
            Field("enemy_known", 1, "this year's enemy card is visible to the observer (revealed or peeked)"),
            Field("enemy_type", ntypes, "one-hot: " + ", ".join(t.enemy_types)),
            Field("enemy_strength", 1, f"strength / {self.max_enemy}"),
            Field("enemy_reward", 6, "gold, wood, stone, VP, goods of choice, buildings / 5"),
            Field("enemy_penalty", 5, "gold, wood, stone, VP, buildings / 5"),
            Field("enemy_revealed", 1, "the card is revealed (winter)"),
            Field("peeked", n, "relative seats that looked at this year's card (public fact)"),
            Field("kings_aid", 1, "King's aid this winter / 9"),
            Field("battle", 2 * n, "per relative seat after the reveal: victorious, defeated"),
            Field("pending_dice", 8, "dice chosen for the placement being modified: P0..P2, B0..B3, sum / 42"),
            Field("picks", 5, "goods of choice still to pick / 3; goods pickable now: gold, wood, stone; "
                              "price per soldier / 2"),
            Field("pick_source", PICK_SOURCES, "one-hot: King's favour, advisor 1..18, battle reward, tax collector"),
            Field("my_governor_hand", ngov, "module 2: the observer's dealt cards while choosing, then the kept "
                                            "card until the reveal (private)"),
            Field("my_army_choice", nval, "module 3: the observer's committed token before the reveal (private)"),
        ]
        for i in range(n):
            for name, size, desc in per_seat:
                fields.append(Field(f"seat{i}_{name}", size, f"seat +{i}: {desc}"))
        self.layout = ObsLayout(fields)

        scale: list[float] = []
        scale += [1.0] * (NUM_DECISIONS + 1 + n + 5 + 8 + 3 + n * n + n + 1 + 18)
        scale += [1 / self.max_enemy] * 2 + [1.0] * (1 + ntypes) + [1 / self.max_enemy]
        scale += [1 / 5] * 11 + [1.0] + [1.0] * n + [1 / 9] + [1.0] * (2 * n)
        scale += [1.0] * 7 + [1 / 42] + [1 / 3, 1, 1, 1, 1 / 2] + [1.0] * PICK_SOURCES + [1.0] * (ngov + nval)
        copies = [max(1, t.army_tokens.count(v)) for v in t.army_values]
        seat = ([1 / VP_RANGE] + [1 / COUNT_CAP] * 5 + [1.0] * (7 + 18) + [1.0] * (NUM_SLOTS + 21 + 32) + [1 / 42]
                + [1 / c for c in copies] + [1.0] * (nval + ngov))
        scale += seat * n
        assert len(scale) == self.layout.size, (len(scale), self.layout.size)
        self._scale = np.asarray(scale, dtype=np.float32)
        self._seat_orders = [[(s + d) % n for d in range(n)] for s in range(n)]
        self._zeros_gov = (0,) * ngov
        self._zeros_val = (0,) * nval
        self._zeros_enemy = (0,) * (1 + ntypes + 1 + 11)
        self._enemy_cache: dict = {}

        def onehot(size, i):
            v = [0] * size
            if 0 <= i < size:
                v[i] = 1
            return bytes(v)

        # decision and acting seat: the observer's own decision, or another seat's (index -1: nobody acts)
        self._own_decision = [onehot(NUM_DECISIONS + 1, k) + onehot(n, 0) for k in range(NUM_DECISIONS + 1)]
        self._other_decision = [[onehot(NUM_DECISIONS + 1, NUM_DECISIONS) + onehot(n, (a - s) % n if a < n else n)
                                 for a in range(n + 1)] for s in range(n)]
        modules = bytes((config.module_more_buildings, config.module_governors, config.module_army_tokens))
        self._year_phase_bytes = [onehot(5, k // 9 - 1) + onehot(8, k % 9 - 1) + modules for k in range(6 * 9)]
        # per observer, indexed by the envoy's holder (index -1: on its space)
        self._envoy_bytes = [[onehot(n + 1, (h - s) % n if h < n else n) for h in range(n + 1)] for s in range(n)]
        self._order_parts = ([], [])  # (turn order they encode, bytes per observer)
        self._neutral: tuple = (None, b"")  # (the engine's neutral list it encodes, bytes)
        self._enemy_shared: tuple = (-1,)
        self._zeros_enemy_bytes = bytes(self._zeros_enemy)
        self._zeros_battle = bytes(2 * n)
        # module 2 and 3 private parts can be non-zero outside their decisions
        self._private_parts = config.module_governors or config.module_army_tokens
        self._zeros_decision_part = bytes(8 + 5 + PICK_SOURCES + ngov + nval)
        self._cached_engine = None
        self._seat_blocks: list = []  # per seat: its block, None once the engine reported the seat changed
        self._seat_log: list = []  # the engine's log of changed seats, read up to _seat_log_read
        self._seat_log_read = 0
        self._seat_log_epoch = -1
        self._enemy_parts: list = []
        self._zeros_val2 = (0,) * (2 * nval)
        self._zeros_modules = bytes(4 * (2 * nval + ngov))  # float32 zeros are zero bytes
        self._values = t.army_values

        # Every part is kept as float32 bytes, already scaled, so that an observation is one join
        # and one frombuffer. Values are scaled exactly as ``raw_uint8 * self._scale`` would.
        fields = self.layout.slices
        self._per_value = {}  # scale -> float32 bytes of 0..255 times that scale

        as_floats = self._as_floats
        unit = self._value_table(1.0)
        self._unit = unit
        vp_values, count_values = self._value_table(1 / VP_RANGE), self._value_table(1 / COUNT_CAP)
        self._vp_floats = [vp_values[min(max(i - _TABLE_VP_SHIFT + VP_OFFSET, 0), VP_RANGE)]
                           for i in range(_TABLE_SIZE)]
        self._count_floats = [count_values[min(v, COUNT_CAP)] for v in range(_TABLE_SIZE)]
        # the seven 0/1 flags of a seat block, indexed by their bits (flag i = bit i)
        self._flag_floats = [b"".join([unit[bits >> i & 1] for i in range(7)]) for bits in range(128)]
        head = fields["decision"].start
        self._own_decision = [as_floats(b, head) for b in self._own_decision]
        self._other_decision = [[as_floats(b, head) for b in row] for row in self._other_decision]
        year = fields["year"].start
        self._year_phase_bytes = [as_floats(b, year) for b in self._year_phase_bytes]
        envoy = fields["envoy"].start
        self._envoy_bytes = [[as_floats(b, envoy) for b in row] for row in self._envoy_bytes]
        self._context_start = fields["pending_dice"].start
        self._zeros_context = bytes(4 * len(self._zeros_decision_part))  # float32 zeros are zero bytes
        self._enemy_start = fields["neutral_advisors"].start
        self._enemy_floats: dict = {}  # uint8 block after the neutral dice -> float32 bytes
        self._neutral_floats: dict = {}  # ranks blocked by neutral dice -> float32 bytes
        self._order_floats: dict = {}  # turn order -> float32 bytes per observer
        # The advisors, buildings and dice parts are 0/1 values at scale 1 (and the dice total): joined from
        # pieces of the unit table rather than computed with numpy, which made each new block (a fifth of the
        # seat blocks in the first games of a process) cost as much as ten seat blocks
        def ones(raw) -> bytes:
            return b"".join([unit[b] for b in raw])

        # nine advisor ranks (1..9 or 10..18) of a seat's bit mask
        advisor_floats = [ones([mask >> i & 1 for i in range(9)]) for mask in range(512)]
        # a row with 0..NUM_COLS buildings built (left to right)
        self._row_floats = [ones([1] * built + [0] * (NUM_COLS - built)) for built in range(NUM_COLS + 1)]
        # a player die (value one-hot, placed) and a bonus die (present, value one-hot, placed) by
        # value * 2 + placed (value 0: no die), and the dice total at its own scale
        total = fields["seat0_dice_total"].start
        self._dice_floats = ([ones(_DIE_ONEHOT[v] + (placed if v else 0,)) for v in range(7) for placed in (0, 1)],
                             [ones((1 if v else 0,) + _DIE_ONEHOT[v] + (placed if v else 0,)) for v in range(7)
                              for placed in (0, 1)],
                             self._value_table(float(self._scale[total])))
        self._modules_start = fields["seat0_army_tokens"].start
        # the tables encode and seat_block read at every call, each read as one attribute (compiled, every
        # attribute read is a generic lookup); _built_rows is refilled in place
        self._built_rows = [(None, b"")] * n  # per seat: (copy of its rows, buildings block)
        self._seat_tables = (self._vp_floats, self._count_floats, self._flag_floats, advisor_floats,
                             self._built_rows, self._private_parts, self._zeros_modules)
        self._encode_tables = (self._own_decision, self._other_decision, self._year_phase_bytes, self._envoy_bytes,
                               self._seat_orders, self._private_parts, self._zeros_context)

    def _as_floats(self, raw: bytes, start: int) -> bytes:
        """float32 bytes of the raw values ``raw`` placed at ``start`` of the observation, scaled."""
        return (np.frombuffer(raw, _UINT8) * self._scale[start:start + len(raw)]).tobytes()

    def _value_table(self, scale: float) -> list[bytes]:
        """float32 bytes of v * scale for v = 0..255 (the same arithmetic as the whole-vector product)."""
        table = self._per_value.get(scale)
        if table is None:
            values = np.arange(256, dtype=np.uint8) * np.full(256, scale, dtype=np.float32)
            table = self._per_value[scale] = [v.tobytes() for v in values]
        return table

    def unscale(self, observation: np.ndarray) -> np.ndarray:
        """Raw integer values of an observation (VP still offset by VP_OFFSET), for rule-based agents."""
        return np.rint(observation / self._scale).astype(np.int64)

    def _enemy_block(self, card) -> tuple:
        block = self._enemy_cache.get(card.index)
        if block is None:
            onehot = [0] * len(self.tables.enemy_types)
            onehot[card.type] = 1
            block = (1, *onehot, card.strength, *(min(v, 5) for v in card.reward), *(min(v, 5) for v in card.penalty))
            self._enemy_cache[card.index] = block
        return block

    def _order_part(self, e) -> tuple:
        """Per observer, per relative seat, its position on the turn-order track (cached per order;
        the last one is kept with a copy of the order it encodes, for every observer at once)."""
        order = tuple(e.order)
        blocks = self._order_floats.get(order)
        if blocks is None:
            n = self.num_players
            position = [0] * n
            for i, p in enumerate(order):
                position[p] = i
            blocks = []
            for seat in range(n):
                v = [0] * (n * n)
                for k, p in enumerate(self._seat_orders[seat]):
                    v[k * n + position[p]] = 1
                blocks.append(b"".join([self._unit[b] for b in v]))
            self._order_floats[order] = blocks
        hit = self._order_parts = (list(order), blocks)
        return hit

    def _enemy_part(self, e, seat: int) -> bytes:
        """Card back, the card if visible to ``seat``, peeks, King's aid, battle outcomes.

        Cached per observer until the engine stamps a change of its public domain (see ``encode``); the
        observer-independent pieces are built once per such change."""
        stamp = e.stamps[_PUBLIC_STAMP]
        shared = self._enemy_shared
        if shared[0] != stamp:
            shared = self._enemy_shared = (
                stamp, bytes(self.tables.year_range[e.year - 1]),
                bytes(self._enemy_block(e.enemy_card())), b"\x01" if e.revealed else b"\x00",
                bytes((e.kings_aid if not self.config.module_army_tokens else 0,)))
        _, back, card, revealed, aid = shared
        rel = self._seat_orders[seat]
        peeked = e.peeked
        if e.revealed:
            outcomes = e.outcomes
            battle = bytes([b for p in rel for b in ((1, 0) if outcomes[p] > 0 else (0, 1) if outcomes[p] < 0
                                                    else (0, 0))])
        else:
            battle = self._zeros_battle
        # these take few distinct values: convert them through a cache
        raw = b"".join((back, card if (e.revealed or peeked[seat]) else self._zeros_enemy_bytes, revealed,
                        bytes(map(peeked.__getitem__, rel)), aid, battle))  # peeked holds bools
        rest = self._enemy_floats.get(raw)
        if rest is None:
            if len(self._enemy_floats) > 100_000:
                self._enemy_floats.clear()
            rest = self._enemy_floats[raw] = self._as_floats(raw, self._enemy_start + 18)
        self._enemy_parts[seat] = (stamp, rest)
        return rest

    def _neutral_part(self, e) -> tuple:
        """Advisor ranks blocked by neutral dice, kept while the engine's ``neutral`` list is the same object."""
        neutral = e.neutral
        key = tuple(neutral)
        blocked = self._neutral_floats.get(key)
        if blocked is None:
            v = [0] * 18
            for r in neutral:
                v[r - 1] = 1
            blocked = self._neutral_floats[key] = b"".join([self._unit[b] for b in v])
        hit = self._neutral = (neutral, blocked)
        return hit

    def _decision_part(self, e, seat: int, mine: bool, acting: int) -> bytes:
        """The context of the pending decision (dice being placed, goods to pick, price, private picks)."""
        decision = e.decision
        c = self.config
        if decision not in _CONTEXT_DECISIONS and not (c.module_army_tokens and e.army_choice[seat] >= 0) \
                and not (c.module_governors and not e.governors_revealed):
            return self._zeros_decision_part
        t = self.tables
        v = []
        if decision == Decision.MODIFIERS:
            arg = e.pending_dice
            pm, bm = (arg >> 4) + 1, arg & 15
            v += (pm & 1, pm >> 1 & 1, pm >> 2 & 1, bm & 1, bm >> 1 & 1, bm >> 2 & 1, bm >> 3 & 1,
                  e.pending_sum)
        else:
            v += (0, 0, 0, 0, 0, 0, 0, 0)
        source = [0] * PICK_SOURCES
        if decision == Decision.PICK_GOOD:
            allowed = [0, 0, 0]
            for g in e.pick_from:
                if g >= e.pick_min:
                    allowed[g] = 1
            v.append(e.picks_left)
            v += allowed
            source[e.pick_source] = 1
        elif decision in (Decision.ALCHEMIST, Decision.SMUGGLER):
            v += (0, 0, 0, 0)
            source[e.pick_source] = 1
        else:
            v += (0, 0, 0, 0)
        v.append(1 if (decision == Decision.RECRUIT and e.owns(acting, BARRACKS)) else
                 2 if decision == Decision.RECRUIT else 0)
        v += source
        if c.module_governors and mine and decision == Decision.GOVERNOR:
            hand = [0] * len(t.governors)
            for g in e.governor_hand[seat]:
                hand[g] = 1
            v += hand
        elif c.module_governors and not e.governors_revealed and e.governor[seat] >= 0:
            kept = [0] * len(t.governors)  # chosen, not yet revealed: only its owner sees it
            kept[e.governor[seat]] = 1
            v += kept
        else:
            v += self._zeros_gov
        if c.module_army_tokens and e.army_choice[seat] >= 0:
            v += [1 if val == e.army_choice[seat] else 0 for val in self._values]
        else:
            v += self._zeros_val
        return bytes(v)

    def _dice_block(self, key: tuple, pd: list, pplaced: int, bd: list, bplaced: int) -> bytes:
        """Dice slots of one seat (cached under ``key``)."""
        player, bonus, total = self._dice_floats
        parts = [player[pd[i] * 2 + (pplaced >> i & 1)] if i < len(pd) else player[0] for i in range(3)]
        parts += [bonus[bd[i] * 2 + (bplaced >> i & 1)] if i < len(bd) else bonus[0] for i in range(4)]
        parts.append(total[sum(pd) + sum(bd)])
        if len(_DICE_BLOCKS) > 200_000:
            _DICE_BLOCKS.clear()
        block = _DICE_BLOCKS[key] = b"".join(parts)
        return block

    def _buildings_block(self, key: tuple) -> bytes:
        """Owned buildings from the number built per row, cached."""
        row_floats = self._row_floats
        block = _BUILDING_BLOCKS[key] = b"".join([row_floats[built] for built in key])
        return block

    def _modules_block(self, e, p: int) -> bytes:
        """Module 2 and 3 parts of seat p's block."""
        c = self.config
        values = self._values
        tail = []
        if c.module_army_tokens:
            left = e.army_tokens[p]
            tail += [left.count(val) for val in values]
            tail += [1 if e.army_revealed[p] == val else 0 for val in values]
        else:
            tail += self._zeros_val2
        if c.module_governors and e.governors_revealed:
            gov = [0] * len(self.tables.governors)
            gov[e.governor[p]] = 1
            tail += gov
        else:
            tail += self._zeros_gov
        return self._as_floats(bytes(tail), self._modules_start)

    def seat_block(self, e, p: int) -> bytes:
        """Seat p's public block as scaled float32 bytes (the same for every observer), from cached pieces."""
        vp_floats, count, flag_floats, advisor_floats, built_rows, private_parts, zeros_modules = self._seat_tables
        g0, g1, g2 = e.goods[p]
        mask = e.advisor_mask[p]
        # buildings change in few rebuilt blocks: compare with the rows last encoded for this seat
        rows = e.rows[p]
        built = built_rows[p]
        if built[0] != rows:
            key = tuple(rows)
            built = built_rows[p] = (rows[:], _BUILDING_BLOCKS.get(key) or self._buildings_block(key))
        pd, bd = e.pdice[p], e.bdice[p]
        pplaced, bplaced = e.pplaced[p], e.bplaced[p]
        dice = (pplaced, bplaced, *pd, 0, *bd)  # dice are 1..6: 0 separates the groups
        return b"".join((
            vp_floats[e.vp[p] + _TABLE_VP_SHIFT], count[g0], count[g1], count[g2], count[e.plus2[p]],
            count[e.soldiers[p]],
            flag_floats[e.season_flags[p] | e.favour_die[p] << 5 | e.farms_die[p] << 6],
            advisor_floats[mask & 511], advisor_floats[mask >> 9],
            built[1],
            _DICE_BLOCKS.get(dice) or self._dice_block(dice, pd, pplaced, bd, bplaced),
            self._modules_block(e, p) if private_parts else zeros_modules))

    def encode(self, engine, seat: int) -> np.ndarray:
        e = engine
        own_decision, other_decision, year_phase_bytes, envoy_bytes, seat_orders, private_parts, zeros_context = \
            self._encode_tables
        acting = e.current_player
        mine = acting == seat
        decision = e.decision
        # Blocks are reused until the engine's change log reports them changed. The caches belong to one
        # engine object (held, so its id cannot be reused); any other engine starts afresh.
        if self._cached_engine is not e:
            n = self.num_players
            self._cached_engine = e
            self._seat_blocks = [None] * n
            self._seat_log_epoch = -1  # read the log from its start (below)
            self._built_rows[:] = [(None, b"")] * n
            self._enemy_parts = [(-1, b"")] * n
            self._enemy_shared = (-1,)
        order = self._order_parts
        if order[0] != e.order:
            order = self._order_part(e)
        neutral = self._neutral
        if neutral[0] is not e.neutral:
            neutral = self._neutral_part(e)
        rare = self._enemy_parts[seat]  # the enemy, peeks, aid and battles: the engine's public domain
        rare = rare[1] if rare[0] == e.stamps[_PUBLIC_STAMP] else self._enemy_part(e, seat)
        if private_parts:
            context = self._as_floats(self._decision_part(e, seat, mine, acting), self._context_start)
        elif decision in _CONTEXT_DECISIONS:
            # without modules 2 and 3 the context is the same for every observer: cache it by the
            # inputs of this kind of decision (see _decision_part)
            if decision == Decision.MODIFIERS:
                key = (decision, e.pending_dice, e.pending_sum)
            elif decision == Decision.PICK_GOOD:
                key = (decision, e.picks_left, e.pick_from, e.pick_min, e.pick_source)
            elif decision == Decision.RECRUIT:
                key = (decision, e.owns(acting, BARRACKS))
            else:
                key = (decision, e.pick_source)
            context = _CONTEXT_BLOCKS.get(key)
            if context is None:
                if len(_CONTEXT_BLOCKS) > 100_000:
                    _CONTEXT_BLOCKS.clear()
                context = _CONTEXT_BLOCKS[key] = self._as_floats(self._decision_part(e, seat, mine, acting),
                                                                     self._context_start)
        else:
            context = zeros_context
        parts = [own_decision[decision] if mine else other_decision[seat][acting],
                 year_phase_bytes[e.year * 9 + e.phase], order[1][seat], envoy_bytes[seat][e.envoy],
                 neutral[1], rare, context]
        # seat blocks: forget those of the seats logged as changed since the last look, or all of them when
        # the log restarted (every seat may have changed)
        blocks = self._seat_blocks
        log = self._seat_log
        read = self._seat_log_read
        if self._seat_log_epoch != e.item_log_epoch:
            self._seat_log_epoch = e.item_log_epoch
            log = self._seat_log = e.item_log(SEATS)
            blocks[:] = [None] * self.num_players
            self._seat_log_read = len(log)
        elif len(log) != read:
            for p in log[read:]:
                blocks[p] = None
            self._seat_log_read = len(log)
        for p in seat_orders[seat]:
            block = blocks[p]
            if block is None:
                block = blocks[p] = self.seat_block(e, p)
            parts.append(block)
        # the parts are scaled float32 bytes; a bytearray keeps the observation writable (a positional
        # dtype: numpy parses keyword arguments of frombuffer slowly)
        return _frombuffer(bytearray().join(parts), _FLOAT32)


__all__ = ["KingsburgEncoder"]
