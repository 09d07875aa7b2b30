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
from .data import NUM_SLOTS, tables
from .engine import DECISION_NAMES, NUM_DECISIONS, Decision

VP_OFFSET = 20  # VP -20..100 map to 0..120
VP_RANGE = 120
COUNT_CAP = 30  # goods, +2 tokens and soldiers above this read as the cap
PICK_SOURCES = 21  # 0 King's favour, 1..18 advisor rank, 19 battle reward, 20 tax collector
_CONTEXT_DECISIONS = frozenset((Decision.MODIFIERS, Decision.PICK_GOOD, Decision.ALCHEMIST, Decision.SMUGGLER,
                                Decision.RECRUIT, Decision.GOVERNOR))
_DIE_ONEHOT = tuple(tuple(1 if v == d else 0 for v in range(1, 7)) for d in range(7))


class KingsburgEncoder(ObservationEncoder):
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
        self._building_cache: dict = {}
        self._dice_cache: dict = {}
        self._enemy_cache: dict = {}
        self._head_cache: dict = {}

        def onehot(size, i):
            v = [0] * size
            if 0 <= i < size:
                v[i] = 1
            return bytes(v)

        self._decision_bytes = [onehot(NUM_DECISIONS + 1, k) for k in range(NUM_DECISIONS + 1)]
        self._acting_bytes = [onehot(n, k) for k in range(n + 1)]  # n = nobody acts
        modules = bytes((config.module_more_buildings, config.module_governors, config.module_army_tokens))
        self._year_phase_bytes = [onehot(5, k // 9 - 1) + onehot(8, k % 9 - 1) + modules for k in range(6 * 9)]
        self._envoy_bytes = [onehot(n + 1, k) for k in range(n + 1)]
        # module 2 and 3 private parts can be non-zero outside their decisions
        self._private_parts = config.module_governors or config.module_army_tokens
        self._mask18_cache: dict = {}
        self._zeros_decision_part = bytes(8 + 5 + PICK_SOURCES + ngov + nval)
        self._cached_engine = None
        self._seat_blocks: list = []
        self._enemy_parts: list = []
        self._zeros_val2 = (0,) * (2 * nval)
        self._zeros_modules = bytes(2 * nval + ngov)
        self._values = t.army_values

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

    def _head(self, e, seat: int, mine: bool, acting: int) -> bytes:
        """Decision, acting seat, year, phase, modules, turn order and envoy (cached by their values)."""
        n = self.num_players
        order = tuple(e.order)
        key = (seat, e.decision if mine else -1, acting, e.year * 9 + e.phase, order, e.envoy)
        position = [0] * n
        for i, p in enumerate(order):
            position[p] = i
        v = []
        for p in self._seat_orders[seat]:
            one = [0] * n
            one[position[p]] = 1
            v += one
        head = b"".join((
            self._decision_bytes[e.decision if mine else NUM_DECISIONS],
            self._acting_bytes[(acting - seat) % n if acting >= 0 else n],
            self._year_phase_bytes[e.year * 9 + e.phase],
            bytes(v),
            self._envoy_bytes[(e.envoy - seat) % n if e.envoy >= 0 else n],
        ))
        if len(self._head_cache) > 200_000:
            self._head_cache.clear()
        self._head_cache[key] = head
        return head

    def _enemy_part(self, e, seat: int) -> bytes:
        """Neutral dice, card back, the card if visible to ``seat``, peeks, King's aid, battle outcomes.

        Cached per observer until the engine's ``public_version`` changes (see ``encode``)."""
        hit = self._enemy_parts[seat]
        if hit[0] == e.public_version:
            return hit[1]
        rel = self._seat_orders[seat]
        visible = e.revealed or e.peeked[seat]
        lo, hi = self.tables.year_range[e.year - 1]
        v = [0] * 18
        for r in e.neutral:
            v[r - 1] = 1
        v += (lo, hi)
        v += self._enemy_block(e.enemy_card()) if visible else self._zeros_enemy
        v.append(1 if e.revealed else 0)
        v += [1 if e.peeked[p] else 0 for p in rel]
        v.append(e.kings_aid if not self.config.module_army_tokens else 0)
        if e.revealed:
            for p in rel:
                o = e.outcomes[p]
                v += (1 if o > 0 else 0, 1 if o < 0 else 0)
        else:
            v += [0] * (2 * self.num_players)
        block = bytes(v)
        self._enemy_parts[seat] = (e.public_version, block)
        return block

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
        v.append(1 if (decision == Decision.RECRUIT and e.owns(acting, e.s_barracks)) else
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

    def _dice_block(self, e, p: int) -> bytes:
        pd, bd = e.pdice[p], e.bdice[p]
        key = (tuple(pd), e.pplaced[p], tuple(bd), e.bplaced[p])
        block = self._dice_cache.get(key)
        if block is None:
            bits = []
            placed = e.pplaced[p]
            for i in range(3):
                if i < len(pd):
                    bits += _DIE_ONEHOT[pd[i]]
                    bits.append(placed >> i & 1)
                else:
                    bits += (0,) * 7
            placed = e.bplaced[p]
            for i in range(4):
                if i < len(bd):
                    bits.append(1)
                    bits += _DIE_ONEHOT[bd[i]]
                    bits.append(placed >> i & 1)
                else:
                    bits += (0,) * 8
            bits.append(sum(pd) + sum(bd))
            block = bytes(bits)
            if len(self._dice_cache) > 200_000:
                self._dice_cache.clear()
            self._dice_cache[key] = block
        return block

    def _buildings_block(self, rows: list[int]) -> bytes:
        key = tuple(rows)
        block = self._building_cache.get(key)
        if block is None:
            bits = [0] * NUM_SLOTS
            for r, built in enumerate(key):
                for col in range(built):
                    bits[r * 4 + col] = 1
            block = self._building_cache[key] = bytes(bits)
        return block

    def seat_block(self, e, p: int) -> bytes:
        """Seat p's public block (the same for every observer), without caching."""
        vp = e.vp[p] + VP_OFFSET
        g0, g1, g2 = e.goods[p]
        plus2, soldiers = e.plus2[p], e.soldiers[p]
        cap = COUNT_CAP
        counts = bytes((
            vp if 0 <= vp <= VP_RANGE else (0 if vp < 0 else VP_RANGE),
            g0 if g0 < cap else cap, g1 if g1 < cap else cap, g2 if g2 < cap else cap,
            plus2 if plus2 < cap else cap, soldiers if soldiers < cap else cap,
            e.plus2_used[p], e.market_used[p], e.statue_used[p], e.chapel_used[p], e.passed[p],
            e.favour_die[p], e.farms_die[p]))
        mask = e.advisor_mask[p]
        advisors = self._mask18_cache.get(mask)
        if advisors is None:
            advisors = self._mask18_cache[mask] = bytes(mask >> i & 1 for i in range(18))
        rows = tuple(e.rows[p])
        buildings = self._building_cache.get(rows)
        if buildings is None:
            buildings = self._buildings_block(rows)
        c = self.config
        if c.module_army_tokens or c.module_governors:
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
            modules = bytes(tail)
        else:
            modules = self._zeros_modules
        return b"".join((counts, advisors, buildings, self._dice_block(e, p), modules))

    def encode(self, engine, seat: int) -> np.ndarray:
        e = engine
        acting = e.current_player
        mine = acting == seat
        decision = e.decision
        # Blocks are reused while the engine's versions are unchanged. The caches belong to one
        # engine object (held, so its id cannot be reused); any other engine starts afresh.
        if self._cached_engine is not e:
            n = self.num_players
            self._cached_engine = e
            self._seat_blocks = [(-1, -1, b"")] * n
            self._enemy_parts = [(-1, b"")] * n
        head = self._head_cache.get((seat, decision if mine else -1, acting, e.year * 9 + e.phase,
                                     tuple(e.order), e.envoy))
        if head is None:
            head = self._head(e, seat, mine, acting)
        rare = self._enemy_parts[seat]  # neutral dice and the enemy: change with public_version
        rare = rare[1] if rare[0] == e.public_version else self._enemy_part(e, seat)
        if decision in _CONTEXT_DECISIONS or self._private_parts:
            context = self._decision_part(e, seat, mine, acting)
        else:
            context = self._zeros_decision_part
        parts = [head, rare, context]
        blocks = self._seat_blocks
        versions = e.seat_version
        epoch = e.epoch
        for p in self._seat_orders[seat]:
            block_epoch, version, block = blocks[p]
            if version != versions[p] or block_epoch != epoch:
                block = self.seat_block(e, p)
                blocks[p] = (epoch, versions[p], block)
            parts.append(block)
        # every raw value is an int in 0..255 (bytes() raises otherwise); joined blocks are memcpy'd
        return np.frombuffer(b"".join(parts), dtype=np.uint8) * self._scale


__all__ = ["KingsburgEncoder"]
