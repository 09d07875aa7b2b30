"""Observation of spec 10.6 from one seat's view, seats rotated so the observer is seat 0.

Hidden from every observer: other seats' hands and draw piles (their cards show only as
"hand or draw pile" of that seat; sizes are public), the order of every draw pile, the improvement
deck's order, the province stack's order and other seats' pending secret setup choices. Public:
the board, supplies, VP counters, reserves, discard piles (A-32), set-aside cards, the display.
Every raw value is a small count packed with ``bytes`` and multiplied by a float32 scale vector so
that all values lie in [0, 1]; ``MythotopiaEncoder(...).layout`` names every slice.

The blocks that change only with the board, the VP counters or the cards are cached in the encoder and rebuilt
when the engine's change log stamps their domains (envs/mythotopia/changes.py); another engine object is
looked at afresh.
"""
from __future__ import annotations

import numpy as np

from ..core.encoder import ActionEntities, Field, ObservationEncoder, ObsLayout
from . import layout as M
from .changes import BOARD, CARDS, CITIES, DOMAINS, MAP, VP
from .data import NUM_BORDERS, NUM_CARDS, NUM_PROVINCES, NUM_SEAS, VP_CARD_NAMES, tables
from .engine import (
    NUM_PHASES, NUM_VP_CARDS, PHASE_NAMES, Phase, Z_ASIDE, Z_DISCARD, Z_DISPLAY, Z_DRAW, Z_HAND, Z_IMPDECK,
    Z_OUT, Z_PSTACK, Z_RESERVE, ZONE_NAMES,
)

Z_HIDDEN = len(ZONE_NAMES)  # another seat's hand or draw pile
CARD_ZONES = ZONE_NAMES + ("hand_or_draw",)
NZ = len(CARD_ZONES)
DECISIONS = NUM_PHASES - 1  # GAME_OVER is never a decision; its slot means "not my decision"
TURN_SCALE = 250
VP_SCALE = 150
# the domains a cached block shows: the public block (board, roads, supplies, VP cards), the pile sizes with
# the card locations (a reserve's capacity counts cities and the citadel); the VP cards block shows VP only
PUBLIC_DOMAINS = MAP | BOARD | CITIES | VP
CARD_DOMAINS = CARDS | CITIES


class MythotopiaEncoder(ObservationEncoder):
    def __init__(self, config, num_players: int):
        n = self.num_players = num_players
        T = tables(config.fifth_starting_card)
        self.T = T
        fields, scale = [], []

        def add(name, size, desc, s=1.0):
            fields.append(Field(name, size, desc))
            scale.extend([s] * size if not isinstance(s, list) else s)

        add("phase", DECISIONS + 1, "one-hot decision: " + ", ".join(PHASE_NAMES[:DECISIONS]) + ", not my decision")
        add("acting_seat", n, "one-hot, relative to the observer (0 = observer)")
        add("active_seat", n, "one-hot, relative: whose turn it is")
        add("turn_flags", 9, "actions used (/2), any action taken, drafted, road movement used, Warehouse used, "
                             "converter used: Farming, Quarry, Gold Mine, Levies",
            [1 / 2] + [1.0] * 8)
        add("pending_verb", M.NUM_VERBS, "one-hot verb being assembled")
        add("pending_province", NUM_PROVINCES, "target / site province of the pending action")
        add("pending_sea", NUM_SEAS, "sea of the pending ship action")
        add("pending_border", NUM_BORDERS, "border of the pending road build")
        add("pending_from", NUM_PROVINCES, "road movement: origin province")
        add("pending_values", 12, "pay kind one-hot (food, stone, gold), owed (/10), modes convert/merchant/"
                                  "water mill, symbols played (/14), food needed (/2), ships needed (/2), "
                                  "number chosen (/14), build type (/2)",
            [1.0] * 3 + [1 / 10] + [1.0] * 3 + [1 / 14, 1 / 2, 1 / 2, 1 / 14, 1 / 2])
        add("scribe_choice", NUM_VP_CARDS + 1, "counter awaiting its Scribe owner's choice of source (SCRIBE_SOURCE): "
                                               "VP card one-hot, counter value (/3)", [1.0] * NUM_VP_CARDS + [1 / 3])
        per_prov = n + 1 + 4 + 3 + 2 * n + 1
        add("provinces", NUM_PROVINCES * per_prov,
            f"per province ({per_prov}): controller one-hot (neutral, seats +0..+{n - 1}), settlement one-hot "
            "(none, village, city, citadel), castle, dragon, runestone, armies per seat (/14), "
            "mercenaries per seat (/2), war",
            ([1.0] * (n + 1 + 4 + 3) + [1 / 14] * n + [1 / 2] * n + [1.0]) * NUM_PROVINCES)
        self.per_prov = per_prov
        add("province_static", NUM_PROVINCES * 9,
            "per province: symbol one-hot (food, stone, gold, army), printed strength (/4), rugged, island one-hot "
            "(none, larger, smaller)", ([1.0] * 4 + [1 / 4] + [1.0] * 4) * NUM_PROVINCES)
        add("roads", NUM_BORDERS, "road built on border")
        add("ships", NUM_SEAS * n, "ships per sea per seat (/5)", 1 / 5)
        self.seat_fields = ("vp (/150)", "1-VP counters (/28)", "2-VP counters (/26)", "3-VP counters (/3)",
                            "villages in supply (/18)", "cities on board (/4)", "citadel unused/on board/destroyed",
                            "", "", "armies personal (/14)", "armies general (/14)", "armies on board (/14)",
                            "ships personal (/5)", "ships general (/5)", "ships on board (/5)",
                            "villages on Master of the Sea (/2)", "islands completed (larger, smaller)", "")
        seat_scale = [1 / VP_SCALE, 1 / 28, 1 / 26, 1 / 3, 1 / 18, 1 / 4, 1, 1, 1, 1 / 14, 1 / 14, 1 / 14,
                      1 / 5, 1 / 5, 1 / 5, 1 / 2, 1, 1]
        for i in range(n):
            add(f"seat{i}", len(seat_scale), f"seat +{i}: " + ", ".join(f for f in self.seat_fields if f),
                seat_scale)
        add("vp_cards", NUM_VP_CARDS * 5, "per VP card (" + ", ".join(VP_CARD_NAMES) + "): in play, empty, "
            "1/2/3-VP counters left (/7)", [1.0, 1.0, 1 / 7, 1 / 7, 1 / 7] * NUM_VP_CARDS)
        add("spare_and_tokens", 8, "spare counters by value 1/2/3 (/28), empty VP cards (/7), castles left (/9), "
                                   "roads left (/9), mercenaries left (/2), Master of the Sea conditions taken",
            [1 / 28, 1 / 28, 1 / 28, 1 / 7, 1 / 9, 1 / 9, 1 / 2, 1 / 2])
        add("piles", 5 * n, "per seat +0..+N-1: reserve capacity (/9), hand size (/30), draw pile size (/89), "
                            "discard size (/89), reserve size (/9)", [1 / 9, 1 / 30, 1 / 89, 1 / 89, 1 / 9] * n)
        add("cards", NUM_CARDS * (NZ + n + 1),
            f"per card ({NZ + n + 1}): zone one-hot (" + ", ".join(CARD_ZONES) + f"), owner one-hot (none, seats "
            f"+0..+{n - 1}); another seat's hand and draw pile merge into hand_or_draw")
        add("my_setup_choice", NUM_PROVINCES, "provinces the observer picked in a secret setup choice (private)")
        add("turn", 1, f"completed player turns / {TURN_SCALE} (capped at 1)", 1 / TURN_SCALE)
        self.layout = ObsLayout(fields)
        assert len(scale) == self.layout.size, (len(scale), self.layout.size)
        self._scale = np.asarray(scale, dtype=np.float32)
        L = self.layout
        self._o = {f.name: L[f.name].start for f in fields}
        self._o_phase, self._o_acting, self._o_active = L["phase"].start, L["acting_seat"].start, L["active_seat"].start
        self._o_flags = L["turn_flags"].start
        static = []
        for x in range(NUM_PROVINCES):
            sym = [0, 0, 0, 0]
            sym[T.province_symbol[x]] = 1
            isl = [0, 0, 0]
            isl[T.island[x]] = 1
            static += sym + [T.strength[x], int(T.rugged[x])] + isl
        self._static = bytes(static)
        order = ["provinces", "province_static", "roads", "ships"] + [f"seat{i}" for i in range(n)] + [
            "vp_cards", "spare_and_tokens"]
        names = [f.name for f in fields]
        start = names.index("provinces")
        assert names[start:start + len(order)] == order
        self._public_size = sum(f.size for f in fields[start:start + len(order)])
        self._rel = [[(q - seat) % n for q in range(n)] for seat in range(n)]
        # the engine last looked at, and its move count then: the caches below hold its blocks as they were
        self._engine = None
        self._seen_moves = 0
        self._vp_cache = None  # the VP cards block
        self._abs_cache = None  # the public block for seat 0 (absolute seats), as a numpy array
        self._last_board = (None,)  # (province state key, block, armies and mercenaries it shows)
        self._no_armies = [0] * n
        pats = []
        for code in range((n + 1) * 32):
            c, rest = divmod(code, 32)
            st, flags = divmod(rest, 8)
            pat = bytearray(self.per_prov)
            pat[c] = 1  # controller: 0 neutral, 1 + absolute seat
            if st < 4:
                pat[n + 1 + st] = 1
            pat[n + 5], pat[n + 6], pat[n + 7] = (flags >> 2) & 1, (flags >> 1) & 1, flags & 1
            pats.append(bytes(pat))
        self._prov_patterns = pats
        self._public_cache = [None] * n  # per seat: the public block
        assert self._o["cards"] == self._o["piles"] + 5 * n
        self._seat_orders = [[(seat + d) % n for d in range(n)] for seat in range(n)]
        assert self._o["seat0"] == self._o["ships"] + NUM_SEAS * n
        self._card_cache = [None] * n  # per seat: the pile sizes and the card block
        perms = []
        for seat in range(n):
            perm = [0]  # neutral
            perm += [1 + (seat + r) % n for r in range(n)]  # controller: relative r = absolute seat + r
            perm += list(range(n + 1, n + 8))  # settlement one-hot, castle, dragon, rune
            perm += [n + 8 + (seat + r) % n for r in range(n)]  # armies
            perm += [2 * n + 8 + (seat + r) % n for r in range(n)]  # mercenaries
            perm += [3 * n + 8]  # war
            assert len(perm) == self.per_prov
            perms.append(np.asarray(perm, dtype=np.intp))
        # per seat: absolute public block index of every seat-relative position
        self._public_perm = []
        for seat in range(n):
            idx = [x * per_prov + k for x in range(NUM_PROVINCES) for k in perms[seat]]
            idx += range(len(idx), self._o["ships"] - self._o["provinces"])  # static data, roads
            base = len(idx)
            idx += [base + s * n + (seat + r) % n for s in range(NUM_SEAS) for r in range(n)]
            base = len(idx)
            idx += [base + 18 * ((seat + r) % n) + k for r in range(n) for k in range(18)]
            idx += range(len(idx), self._public_size)  # VP cards, tokens
            assert sorted(idx) == list(range(self._public_size))
            self._public_perm.append(np.asarray(idx, dtype=np.intp))
        self._province_vp = T.raw["province_vp"]
        self._base_capacity = T.raw["base_reserve_capacity"]
        self._warehouse = T.improvement["Warehouse"]
        assert self._o["spare_and_tokens"] == self._o["vp_cards"] + 5 * NUM_VP_CARDS
        K = NZ + n + 1
        self._card_block = K * NUM_CARDS
        b = self._o["piles"]
        self._card_slice = slice(b, b + 5 * n + self._card_block)
        assert self._card_slice.stop == self._o["my_setup_choice"]
        assert self._o["turn"] == self._o["my_setup_choice"] + NUM_PROVINCES and self._o["turn"] + 1 == self.layout.size
        patterns, index = [], {}

        def pattern(zone, owner):  # owner: -1 none, else relative seat
            if (zone, owner) not in index:
                pat = bytearray(K)
                pat[zone] = 1
                pat[NZ + 1 + owner] = 1
                index[(zone, owner)] = len(patterns)
                patterns.append(bytes(pat))
            return index[(zone, owner)]

        self._own_codes = []
        for seat in range(n):
            per_owner = []
            for q in range(n):
                r = (q - seat) % n
                hidden = q != seat
                per_owner.append(tuple(pattern(Z_HIDDEN if hidden and z in (Z_HAND, Z_DRAW) else z, r)
                                       for z in (Z_HAND, Z_DRAW, Z_DISCARD, Z_RESERVE, Z_ASIDE)))
            self._own_codes.append(per_owner)
        self._public_codes = {z: pattern(z, -1) for z in (Z_DISPLAY, Z_IMPDECK, Z_PSTACK, Z_OUT)}
        # absolute location code (zone * 5 + owner + 1, see the engine) -> pattern index, per seat
        self._translate = []
        for seat in range(n):
            table = bytearray(256)
            for q in range(n):
                for z, code in zip((Z_HAND, Z_DRAW, Z_DISCARD, Z_RESERVE, Z_ASIDE), self._own_codes[seat][q]):
                    table[z * 5 + q + 1] = code
            for z, code in self._public_codes.items():
                table[z * 5] = code
            self._translate.append(bytes(table))
        self._patterns_np = np.frombuffer(b"".join(patterns), dtype=np.uint8).reshape(len(patterns), K)
        assert len(patterns) < 256

    def action_entities(self) -> tuple[ActionEntities, ...]:
        """The province actions (PROVINCE + x: a target, site, origin or war), each described by its province's
        board block, printed data and the marks of a pending choice."""
        L, pp = self.layout, self.per_prov
        rows = tuple(
            tuple(range(L["provinces"].start + x * pp, L["provinces"].start + (x + 1) * pp))
            + tuple(range(L["province_static"].start + x * 9, L["province_static"].start + (x + 1) * 9))
            + (L["pending_province"].start + x, L["pending_from"].start + x, L["my_setup_choice"].start + x)
            for x in range(NUM_PROVINCES))
        return (ActionEntities("province", M.PROVINCE, rows),)

    def unscale(self, observation: np.ndarray) -> np.ndarray:
        """Raw integer values of an observation (counts, flags), for rule-based agents."""
        return np.rint(observation / self._scale).astype(np.int64)

    def _board_block(self, e, rel) -> bytes:
        """Per-province public state with seats ordered by `rel` (relative index per absolute seat)."""
        n = self.num_players
        pp = self.per_prov
        v = bytearray(pp * NUM_PROVINCES)
        b = 0
        ctrl, settle, castle, dragon, rune = e.controller, e.settle, e.castle, e.dragon, e.rune
        armies, mercs = e.armies, e.mercs
        for x in range(NUM_PROVINCES):
            c = ctrl[x]
            v[b + (0 if c < 0 else 1 + rel[c])] = 1
            v[b + n + 1 + settle[x]] = 1
            k = b + n + 5
            v[k] = castle[x]
            v[k + 1] = dragon[x]
            v[k + 2] = rune[x]
            a = armies[x]
            if any(a):
                war = False
                for q in range(n):
                    if a[q]:
                        v[k + 3 + rel[q]] = a[q]
                        if q != c:
                            war = True
                mq = mercs[x]
                for q in range(n):
                    if mq[q]:
                        v[k + 3 + n + rel[q]] = mq[q]
                v[k + 3 + 2 * n] = war
            b += pp
        return bytes(v)

    def _board_block_absolute(self, e) -> bytearray:
        """The same block for seat 0's view. One precomputed pattern per province state (controller,
        settlement, castle, dragon, runestone), joined when one of those lists changed; otherwise
        the last block (of the engine last looked at) is patched where armies or mercenaries changed
        (most board changes move a few armies)."""
        key = (tuple(e.controller), tuple(e.settle), tuple(e.castle), tuple(e.dragon), tuple(e.rune))
        armies, mercs = e.armies, e.mercs
        last = self._last_board
        if last[0] == key:
            v, seen_armies, seen_mercs = last[1], last[2], last[3]
            if armies != seen_armies or mercs != seen_mercs:
                for x, a in enumerate(armies):
                    if a != seen_armies[x] or mercs[x] != seen_mercs[x]:
                        self._patch_armies(v, x, a, mercs[x], e.controller[x])
                        seen_armies[x] = a[:]
                        seen_mercs[x] = mercs[x][:]
            return v
        pats = self._prov_patterns
        v = bytearray(b"".join([pats[(c + 1) * 32 + s * 8 + ca * 4 + d * 2 + r] for c, s, ca, d, r in zip(*key)]))
        zero = self._no_armies
        ctrl = e.controller
        for x, a in enumerate(armies):
            if a != zero:
                self._patch_armies(v, x, a, mercs[x], ctrl[x])
        self._last_board = (key, v, [a[:] for a in armies], [m[:] for m in mercs])
        return v

    def _patch_armies(self, v: bytearray, x: int, armies, mercs, controller: int) -> None:
        """Write province x's armies, mercenaries and war flag into the absolute board block v."""
        n = self.num_players
        k = x * self.per_prov + n + 8
        v[k:k + n] = bytes(armies)
        v[k + n:k + 2 * n] = bytes(mercs)
        v[k + 2 * n] = sum(armies) > (armies[controller] if controller >= 0 else 0)  # a non-controller's army

    def _public_block(self, e, seat) -> bytes:
        """Provinces, static map data, roads, ships, seats, VP cards and tokens from seat's view:
        built once per change for seat 0 (absolute seats) and rotated for the others by one index
        permutation."""
        absolute = self._abs_cache
        if absolute is None:
            absolute = self._abs_cache = np.frombuffer(self._public_block_absolute(e), np.uint8)
        if seat == 0:
            return absolute.tobytes()
        return absolute.take(self._public_perm[seat]).tobytes()

    def _public_block_absolute(self, e) -> bytes:
        roads = bytearray(NUM_BORDERS)
        for k in e.roads_built:
            roads[k] = 1
        vp = self._vp_cache
        if vp is None:
            vp = self._vp_cache = self._vp_block(e)
        sc = e.sea_claimed
        tokens = bytes((e.castles_left, e.roads_left, e.mercs_left, (sc[0] >= 0) + (sc[1] >= 0)))
        block = b"".join((self._board_block_absolute(e), self._static, roads, self._seats_block(e), vp, tokens))
        assert len(block) == self._public_size
        return block

    def _seats_block(self, e) -> bytes:
        """Ships per sea and the per-seat supplies and counters, seats in absolute order."""
        n = self.num_players
        out = []
        for sh in e.ships:
            out += sh
        at, st, ct, pvp = e.armies_total, e.ships_total, e.cities_total, self._province_vp
        for pc, cnt, vil, cities, cs, ap, ag, sp, sg, vpc, isl in zip(
                e.prov_count, e.counters, e.villages, e.cities, e.citadel_state, e.armies_pers, e.armies_gen,
                e.ships_pers, e.ships_gen, e.villages_on_card, e.isle_complete):
            _, c1, c2, c3 = cnt
            out += (pvp * pc + c1 + 2 * c2 + 3 * c3, c1, c2, c3, vil, ct - cities, cs == 0, cs == 1, cs == 2,
                    ap, ag, at - ap - ag, sp, sg, st - sp - sg, vpc, isl[0], isl[1])
        assert len(out) == NUM_SEAS * n + 18 * n
        return bytes(out)

    def _vp_block(self, e) -> bytes:
        """VP cards, then spare counters and the number of empty cards (layout-adjacent slices)."""
        out = []
        empty = 0
        for vals in e.vp_cards:
            if vals is None:
                out += (0, 0, 0, 0, 0)
            else:
                if not vals:
                    empty += 1
                out += (1, not vals, vals.count(1), vals.count(2), vals.count(3))
        sp = e.spare
        out += (min(sp[1], 28), min(sp[2], 28), min(sp[3], 28), empty)
        return bytes(out)

    def _piles_bytes(self, e, seat: int) -> bytes:
        """Per seat: reserve capacity, hand, draw pile, discard pile and reserve sizes."""
        hand, draw, disc, res = e.hand, e.draw, e.discard, e.reserve
        base_cap, warehouse, cities, cit = self._base_capacity + e.cities_total, self._warehouse, e.cities, e.citadel_state
        out = []
        for q in self._seat_orders[seat]:
            r = res[q]
            cap = base_cap - cities[q] + (cit[q] == 1) + (2 if warehouse in r else 0)
            h = len(hand[q])
            lr = len(r)
            out += (cap if cap < 9 else 9, h if h < 30 else 30, len(draw[q]), len(disc[q]), lr if lr < 9 else 9)
        if e.limbo:  # the Counsellor's discards count as discarded
            out[5 * self._rel[seat][e.active] + 3] += len(e.limbo)
        return bytes(out)

    def _card_block_bytes(self, e, seat: int) -> bytes:
        """Per card: zone and owner one-hot from seat's view. The engine keeps one absolute
        location code per card; a per-seat byte table maps it to a pattern (hiding other seats'
        hand / draw pile distinction), then one numpy gather builds the one-hot rows."""
        codes = e.loc.translate(self._translate[seat])
        return self._patterns_np.take(np.frombuffer(codes, np.uint8), 0).tobytes()  # positional: keywords cost

    def _look(self, e) -> None:
        """Drop the cached blocks whose domains the engine stamped since the last look (all of them for
        another engine)."""
        if e is self._engine:
            fresh = e.changed_since(self._seen_moves)
        else:
            self._engine = e
            fresh = DOMAINS.all
            self._last_board = (None,)
        self._seen_moves = e.moves
        if not fresh:
            return
        if fresh & PUBLIC_DOMAINS:
            self._abs_cache = None
            self._public_cache = [None] * self.num_players
        if fresh & VP:
            self._vp_cache = None
        if fresh & CARD_DOMAINS:
            self._card_cache = [None] * self.num_players

    def encode(self, e, seat: int) -> np.ndarray:
        if e is not self._engine or e.stamped > self._seen_moves:  # else nothing was stamped since the last look
            self._look(e)
        o = self._o
        v = bytearray(self._o["provinces"])  # the decision context; the cached blocks follow it
        rel = self._rel[seat]
        phase = e.phase
        acting = -1 if phase == Phase.GAME_OVER else e.actor
        v[self._o_phase + (phase if acting == seat else DECISIONS)] = 1
        if acting >= 0:
            v[self._o_acting + rel[acting]] = 1
        v[self._o_active + rel[e.active]] = 1
        b = self._o_flags
        cu = e.conv_used
        v[b:b + 9] = bytes((e.actions_used, e.any_action, e.drafted, e.road_moved, e.warehouse_used,
                            cu[0], cu[1], cu[2], cu[3]))
        if e.pk >= 0 and phase != Phase.CHOOSE:
            v[o["pending_verb"] + e.pk] = 1
            t = e.target
            if t >= 0:
                if phase in (Phase.SHIP_SEA, Phase.SHIP_CARDS, Phase.REMSHIP_N):
                    v[o["pending_sea"] + t] = 1
                elif e.pk == M.V_BUILD and e.build_type == 2 and phase not in (Phase.BUILD_TYPE, Phase.BUILD_WHERE):
                    v[o["pending_border"] + t] = 1
                elif e.pk != M.V_DRAFT:
                    v[o["pending_province"] + t] = 1
            if e.from_prov >= 0:
                v[o["pending_from"] + e.from_prov] = 1
            b = o["pending_values"]
            if phase == Phase.PAY and e.pay_kind <= 2:
                v[b + e.pay_kind] = 1
                v[b + 3] = min(e.pay_owed, 10)
            v[b + 4:b + 12] = bytes((e.m_conv, e.m_merch, e.m_wm, min(e.army_syms, 14), e.food_needed,
                                     e.ships_needed, min(e.number, 14), max(e.build_type, 0)))
        if e.scribe_queue:
            _, k, value, _, _ = e.scribe_queue[0]
            b = o["scribe_choice"]
            v[b + k] = 1
            v[b + NUM_VP_CARDS] = value
        # everything that changes only with the board or the VP counters: one cached block
        public = self._public_cache[seat]
        if public is None:
            public = self._public_cache[seat] = self._public_block(e, seat)
        # pile sizes, capacities and card locations
        cards = self._card_cache[seat]
        if cards is None:
            cards = self._card_cache[seat] = self._piles_bytes(e, seat) + self._card_block_bytes(e, seat)
        tail = bytearray(NUM_PROVINCES + 1)  # my setup choice, turn
        if phase == Phase.SETUP_DISCARD or phase == Phase.SETUP_CITADEL:
            for x in e.setup_choice[seat]:
                tail[x] = 1
        tail[NUM_PROVINCES] = e.turn if e.turn < TURN_SCALE else TURN_SCALE
        v = b"".join((v, public, cards, tail))
        return np.frombuffer(v, np.uint8) * self._scale  # a new float32 array; v is not kept
