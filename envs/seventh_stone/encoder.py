"""Observation (spec 13.6, condensed) from one seat's view; seats rotated so the observer is seat 0.

Hidden from every observer: the other players' allocations before the reveal, the kind of every
stone in another player's hand or under another player's army (only a "carries a stone" flag), who
took which drafted stone (G24: each slot shows only taken by me / by someone else / discarded) and
the order of the equipment stacks. Every raw value is an integer 0..255 (counts, flags, clipped
amounts), scaled into [0, 1] by a fixed vector; ``layout`` names every slice.
"""
from __future__ import annotations

import numpy as np

from ..core.encoder import Field, ObservationEncoder, ObsLayout
from .data import ALLOC_FIELDS, EVENTS, NUM_CELLS, PORTALS, PRINTED, TERRAINS, UNIT_TYPES
from .engine import (
    ITEM_STONE, KINDS, MAX_AMOUNT, NUM_KINDS, NUM_PHASES, PHASE_NAMES, BARRACKS, MANUFACTORY, Phase,
    validate_config,
)

BIG = 255  # RS amounts (P, U, budget, bids) are clipped here
UNITS = 31  # units per army
YEARS = 60
TS_MAX = 15
STONES_MAX = 63
KIND_TOTAL = sum(k.count for k in KINDS)
PER_PLAYER = (  # public, cached per public version
    ("permanent_ts", TS_MAX, "tournament wins + bought tear stone"),
    ("budget", BIG, "B = P - U at this year's regeneration"), ("tournament_stones", STONES_MAX, "tournament stones"),
    ("tournament_wins", TS_MAX, "tournament wins"), ("tear_bought", 1, "bought the tear stone"),
    ("pending_buildings", STONES_MAX, "buildings still to place (after the reveal)"),
    *[(f"pending_{t}", STONES_MAX, f"{t} units still to place") for t in UNIT_TYPES],
    ("pending_mercenaries", 4, "mercenaries still to place"), ("hand_size", KIND_TOTAL, "equipment stones in hand"),
    ("committed", 1, "finished this year's sealed allocation"),
    *[(f"revealed_{f}", BIG, f"revealed allocation: {f} (0 before the reveal)") for f in ALLOC_FIELDS],
    *[(f"rank_{m}", 4, f"rank + 1 in the {m} market (0 = not ranked)") for m in
      ("mercenaries", "equipment", "movement", "tournament")],
)
_HIDDEN = (0,) * 8  # other seats' allocations before the reveal
PER_PLAYER_BOARD = (  # from the map, cached per board version
    ("ts", TS_MAX, "tear stones"),
    ("production", BIG, "P, resource stones owned (clipped at 255)"), ("upkeep", BIG, "U, living military units"),
    *[(f"armies_{t}", 15, f"{t} armies on the board (clipped; more than 5 only mid-movement)") for t in UNIT_TYPES],
)
_SEL_CELL_PHASES = frozenset((9, 11, 12, 13, 14, 15, 19))
_SEL_ITEM_PHASES = frozenset((8, 9))
CELL_STATIC = len(TERRAINS) + len(PRINTED) + len(PORTALS) - 1


class SeventhStoneEncoder(ObservationEncoder):
    def __init__(self, config, num_players: int):
        validate_config(config, num_players)
        n = self.num_players = num_players
        self.config = config
        self.per_cell_dynamic = 8 + 11 * n
        fields = [  # live part: recomputed at every call
            Field("phase", NUM_PHASES, "one-hot decision kind: " + ", ".join(PHASE_NAMES[:-1])
                  + ", not my decision"),
            Field("acting_seat", n, "one-hot, relative to the observer (0 = observer)"),
            Field("fight", 6, "fight running, overrun, ranged phase, melee phase, rounds / 15, guard / 4"),
            Field("fight_cell", NUM_CELLS, "one-hot cell of the running fight"),
            Field("my_hits", 2, "hits I must still remove / 63, my absorption left (walls, shield, mountain) / 15"),
            Field("dice_aims", 2 * n, "dice allocated to each relative seat this round so far (G10), the "
                                      "ranged phase's per seat, then the melee phase's / 63"),
            Field("dice_alloc", 3 + n, "my allocation being made: ranged phase, melee phase, dice left / 63, "
                                       "one-hot relative seat of the target asked for"),
            Field("selected_cell", NUM_CELLS, "one-hot cell chosen earlier in this decision"),
            Field("selected_item", ITEM_STONE + NUM_KINDS, "one-hot placement item chosen"),
            Field("selected_counts", 4, f"move order: unit type + 1 / 3, military / {UNITS}, mercenaries / "
                                        f"{UNITS}, takes the stone"),
            Field("assignee", n, "one-hot relative seat being seated in the turn order"),
            Field("movement", 2, "undo steps available / 63, move orders since the capacity rules held / 7"),
            Field("my_allocation", 8, "my sealed allocation so far (private) / 255"),
            Field("my_budget_left", 1, "my budget left while allocating (private) / 255"),
        ]
        fields += [  # cached part: changes only with the engine's version
            Field("year", 1, f"year / {YEARS} (capped)"),
            Field("round_counter", 3, "one-hot marks on the round counter (2 = tournament this year)"),
            Field("unit_max", 1, f"unit maximum / {UNITS}"),
            Field("event", len(EVENTS), "one-hot this year's event: " + ", ".join(EVENTS)),
            Field("turn_order", n * n, "per relative seat, one-hot position in this year's turn order"),
            Field("double_mover", n, "one-hot relative seat moving double (variant)"),
            Field("rules", 5, "advanced terrain, wall bypass, no time, double move, four islands"),
        ]
        for i in range(n):
            for name, cap, desc in PER_PLAYER:
                fields.append(Field(f"seat{i}_{name}", 1, f"seat +{i}: {desc} / {cap}"))
        fields += [
            Field("offer_kind", 4 * NUM_KINDS, "per offered slot, one-hot stone kind"),
            Field("offer_status", 16, "per slot one-hot: available, taken by me, taken by another, discarded"),
            Field("discard", NUM_KINDS, "discard pile per stone kind / copies of the kind"),
            Field("stacks", 4, f"stones left in each draw stack / {KIND_TOTAL}"),
            Field("my_hand", NUM_KINDS, "my hand per stone kind (private) / copies of the kind"),
        ]
        for i in range(n):  # board part: changes only with the map
            for name, cap, desc in PER_PLAYER_BOARD:
                fields.append(Field(f"seat{i}_{name}", 1, f"seat +{i}: {desc} / {cap}"))
        fields += [
            Field("cell_static", NUM_CELLS * CELL_STATIC,
                  "per cell: one-hot terrain (" + ", ".join(TERRAINS) + "), one-hot printed terrain ("
                  + ", ".join(PRINTED) + "), one-hot portal (blue, yellow, red)"),
            Field("cell_dynamic", NUM_CELLS * self.per_cell_dynamic,
                  "per cell: lava, one-hot controller (relative seat), capital, one-hot capital people, ready "
                  "barracks, new barracks, manufactories, ready walls, new walls (/2); per relative seat: "
                  f"military / {UNITS}, mercenaries / {UNITS}, army type flags (melee, ranged, cavalry), carries "
                  f"a stone, units with movement points / {UNITS}, supporting; conflict, one-hot defender"),
            Field("my_stones", NUM_CELLS, f"per cell: (kind + 1) / {NUM_KINDS} of the stone under my army (private)"),
        ]
        self.layout = ObsLayout(fields)
        scale: list[float] = [1.0] * (NUM_PHASES + n)
        scale += [1.0, 1.0, 1.0, 1.0, 1 / 15, 1 / 4] + [1.0] * NUM_CELLS + [1 / STONES_MAX, 1 / 15]
        scale += [1 / STONES_MAX] * (2 * n) + [1.0, 1.0, 1 / STONES_MAX] + [1.0] * n
        scale += [1.0] * (NUM_CELLS + ITEM_STONE + NUM_KINDS) + [1 / 3, 1 / UNITS, 1 / UNITS, 1.0]
        scale += [1.0] * n + [1 / STONES_MAX, 1 / 7] + [1 / BIG] * 9
        scale += [1 / YEARS] + [1.0] * 3 + [1 / UNITS] + [1.0] * (len(EVENTS) + n * n + n + 5)
        scale += [1 / cap for _, cap, _ in PER_PLAYER] * n
        scale += [1.0] * (4 * NUM_KINDS + 16)
        scale += [1 / k.count for k in KINDS] + [1 / KIND_TOTAL] * 4 + [1 / k.count for k in KINDS]
        scale += [1 / cap for _, cap, _ in PER_PLAYER_BOARD] * n
        scale += [1.0] * (NUM_CELLS * CELL_STATIC)
        dyn = [1.0] * (1 + n + 1 + n) + [0.5] * 5 + [1 / UNITS, 1 / UNITS, 1, 1, 1, 1, 1 / UNITS, 1] * n
        dyn += [1.0] * (1 + n)
        scale += dyn * NUM_CELLS
        scale += [1 / NUM_KINDS] * NUM_CELLS
        assert len(scale) == self.layout.size, (len(scale), self.layout.size)
        self._scale = np.asarray(scale, dtype=np.float32)
        self._rules = (int(config.advanced_terrain), int(config.wall_bypass), int(config.no_time),
                       int(config.double_move), int(config.four_islands))
        self._static_cache: dict = {}
        self._off = {name: sl.start for name, sl in self.layout.slices.items()}
        self._off["players"] = self.layout["seat0_permanent_ts"].start
        self._head = self.layout["year"].start  # the live part's size
        self._tail_start = self.layout["year"].start
        self._tail_head = self.layout["seat0_ts"].start - self._tail_start
        self._tail_off = {k: v - self._tail_start for k, v in self._off.items()}
        self._seat_orders = [[(seat + d) % n for d in range(n)] for seat in range(n)]
        self._rel = [[(p - seat) % n for p in range(n)] for seat in range(n)]
        self._empty_cell = bytes(self.per_cell_dynamic)
        # scales of the three parts, each converted to float32 once per cache entry
        head, board_start = self._head, self.layout["seat0_ts"].start
        self._scale_live = self._scale[:head]
        self._live_scale = [float(x) for x in self._scale_live]
        self._scale_public = self._scale[head:board_start]
        self._scale_board = self._scale[board_start:]
        self._board_start = board_start

    def unscale(self, observation: np.ndarray) -> np.ndarray:
        """Raw integer values (counts, flags) of an observation, e.g. for rule-based agents."""
        return np.rint(observation / self._scale).astype(np.int64)

    def _static(self, board) -> bytes:
        block = getattr(board, "static_bytes", None)
        if block is None:
            v = []
            for c in range(NUM_CELLS):
                t = [0] * len(TERRAINS)
                t[board.terrain[c]] = 1
                pr = [0] * len(PRINTED)
                if board.printed[c] >= 0:
                    pr[board.printed[c]] = 1
                po = [0, 0, 0]
                if board.portal[c]:
                    po[board.portal[c] - 1] = 1
                v += t + pr + po
            block = bytes(v)
            board.static_bytes = block  # the map never changes during a game
        return block

    def _board_stats(self, e) -> list[tuple[int, int, int, int, int, int]]:
        """Per absolute seat: TS from control, P, U and armies per type (cached per board version)."""
        cache = e.obs_cache
        if cache.get("version") != e.version:
            cache.clear()
            cache["version"] = e.version
        stats = cache.get("stats")
        if stats is None:
            key = (tuple(e.controller), tuple(e.capital_of), e.manufactory_rev)
            control = e.cell_blocks.get("control")  # changes far less often than the board version
            if control is None or control[0] != key:
                control = e.cell_blocks["control"] = (key, *e.control_stats())
            _, cts, prod = control
            upk, types = e.army_stats()
            stats = []
            for p in range(self.num_players):
                m, r, c = types[p]
                stats.append((cts[p], prod[p] if prod[p] < BIG else BIG, upk[p] if upk[p] < BIG else BIG,
                              m if m < 15 else 15, r if r < 15 else 15, c if c < 15 else 15))
            cache["stats"] = stats
        return stats

    def _cell_block(self, e, c: int, seat: int) -> tuple[bytes, int]:
        """One cell's public block from seat's view, and the kind + 1 of seat's stone there."""
        n = self.num_players
        here = e.armies[c]
        k = e.controller[c]
        bl = e.buildings[c]
        cap = e.capital_of[c]
        d = e.conflicts.get(c, -1)
        if k < 0 and not here and not bl and not e.lava[c] and cap < 0 and d < 0:
            return self._empty_cell, 0
        rel = self._rel[seat]
        buf = bytearray(self.per_cell_dynamic)
        mine = 0
        if e.lava[c]:
            buf[0] = 1
        if k >= 0:
            buf[1 + rel[k]] = 1
        if cap >= 0:
            buf[1 + n] = 1
            buf[2 + n + rel[cap]] = 1
        bld_off = 2 + 2 * n
        for b in bl:
            t = b[0]
            if t == BARRACKS:
                slot = 0 if b[1] else 1
            elif t == MANUFACTORY:
                slot = 2
            else:
                slot = 3 if b[1] else 4
            buf[bld_off + slot] += 1
        army_off = bld_off + 5
        for a in here:
            base = army_off + 8 * rel[a.owner]
            mil, merc = a.mil, a.merc
            v = buf[base] + len(mil)
            buf[base] = v if v < UNITS else UNITS
            v = buf[base + 1] + len(merc)
            buf[base + 1] = v if v < UNITS else UNITS
            buf[base + 2 + a.utype] = 1
            if a.stones:
                buf[base + 5] = 1
                if a.owner == seat:
                    mine = a.stones[0] + 1
            mp = len(mil) - mil.count(0) + len(merc) - merc.count(0)
            if mp:
                v = buf[base + 6] + mp
                buf[base + 6] = v if v < UNITS else UNITS
            if a.support >= 0:
                buf[base + 7] = 1
        if d >= 0:
            conf_off = army_off + 8 * n
            buf[conf_off] = 1
            buf[conf_off + 1 + rel[d]] = 1
        return bytes(buf), mine

    def _cells(self, e, seat: int) -> bytes:
        """Per-player map stats, static map, per-cell public block and the observer's stone kinds as raw
        bytes: rebuilt only for the cells whose revision changed."""
        entry = e.cell_blocks.get(seat)
        revs = e.cell_rev
        if entry is None or entry[0] != e.rev_all:
            parts, mine = [], bytearray(NUM_CELLS)
            for c in range(NUM_CELLS):
                part, mine[c] = self._cell_block(e, c, seat)
                parts.append(part)
            entry = e.cell_blocks[seat] = [e.rev_all, revs[:], parts, mine]
        else:
            seen, parts, mine = entry[1], entry[2], entry[3]
            if seen != revs:
                for c in range(NUM_CELLS):
                    if seen[c] != revs[c]:
                        parts[c], mine[c] = self._cell_block(e, c, seat)
                        seen[c] = revs[c]
        stats = self._board_stats(e)
        head = []
        for p in self._seat_orders[seat]:
            cts, prod, upk, m, r, c = stats[p]
            ts = cts + e.tourn_wins[p] + (1 if e.tear_bought[p] else 0)
            head += (ts if ts < TS_MAX else TS_MAX, prod, upk, m, r, c)
        return b"".join((bytes(head), self._static(e.board), *entry[2], entry[3]))

    def _public(self, e, seat: int) -> np.ndarray:
        """The public part between the live part and the board part, scaled; cached per public version."""
        cache = e.pub_cache
        if cache.get("pversion") != e.pversion:
            cache.clear()
            cache["pversion"] = e.pversion
        public = cache.get(seat)
        if public is not None:
            return public
        n = self.num_players
        off = self._tail_off
        buf = bytearray(self._tail_head)
        o = off["year"]
        buf[o] = e.year if e.year < YEARS else YEARS
        buf[o + 1 + e.round_counter] = 1
        buf[o + 4] = e.unit_max if e.unit_max < UNITS else UNITS
        if e.event >= 0:
            buf[o + 5 + e.event] = 1
        o = off["turn_order"]
        for pos, p in enumerate(e.order):
            buf[o + ((p - seat) % n) * n + pos] = 1
        if e.double_mover >= 0:
            buf[off["double_mover"] + (e.double_mover - seat) % n] = 1
        o = off["rules"]
        buf[o:o + 5] = self._rules
        revealed = e.revealed
        o = off["players"]
        width = len(PER_PLAYER)
        all_wins, all_tear, all_budget, all_stones = e.tourn_wins, e.tear_bought, e.budget, e.tstones
        all_builds, all_units, all_mercs, hands = e.pend_build, e.pend_units, e.pend_mercs, e.hands
        committed, alloc, ranks = e.committed, e.alloc, e.market_rank
        for p in self._seat_orders[seat]:
            # clamped to the caps of PER_PLAYER where a value can exceed them (flags, mercenaries,
            # hand size and ranks stay within theirs by the rules)
            wins, tear = all_wins[p], (1 if all_tear[p] else 0)
            perm = wins + tear
            budget, stones, builds = all_budget[p], all_stones[p], all_builds[p]
            m, r, c = all_units[p]
            rank = ranks[p]
            buf[o:o + width] = bytes((
                perm if perm < TS_MAX else TS_MAX, budget if budget < BIG else BIG,
                stones if stones < STONES_MAX else STONES_MAX, wins if wins < TS_MAX else TS_MAX, tear,
                builds if builds < STONES_MAX else STONES_MAX, m if m < STONES_MAX else STONES_MAX,
                r if r < STONES_MAX else STONES_MAX, c if c < STONES_MAX else STONES_MAX, all_mercs[p],
                sum(hands[p]), 1 if committed[p] else 0, *(
                    [x if x < BIG else BIG for x in alloc[p]] if revealed else _HIDDEN),
                rank[0] + 1, rank[1] + 1, rank[2] + 1, rank[3] + 1))
            o += width
        o = off["offer_kind"]
        so = off["offer_status"]
        for i, k in enumerate(e.offer[:4]):
            buf[o + i * NUM_KINDS + k] = 1
            st = e.offer_status[i]
            buf[so + 4 * i + (0 if st == 0 else 3 if st == 2 else 1 if e.offer_taker[i] == seat else 2)] = 1
        o = off["discard"]
        buf[o:o + NUM_KINDS] = bytes(e.discard)
        o = off["stacks"]
        for i, s in enumerate(e.stacks[:4]):
            buf[o + i] = len(s)
        o = off["my_hand"]
        buf[o:o + NUM_KINDS] = bytes(e.hands[seat])
        public = np.frombuffer(buf, dtype=np.uint8) * self._scale_public
        cache[seat] = public
        return public

    def _frame(self, e, seat: int) -> np.ndarray:
        """The observation with a zero live part: cached per board version, public version and seat."""
        cache = e.obs_cache
        if cache.get("version") != e.version:
            cache.clear()
            cache["version"] = e.version
        entry = cache.get(seat)
        if entry is not None and entry[0] == e.pversion:
            return entry[1]
        head, board_start = self._head, self._board_start
        frame = np.empty(self.layout.size, dtype=np.float32)
        frame[:head] = 0.0
        frame[head:board_start] = self._public(e, seat)
        if entry is not None:  # same board version: its board part still holds
            frame[board_start:] = entry[1][board_start:]
        else:
            np.multiply(np.frombuffer(self._cells(e, seat), dtype=np.uint8), self._scale_board,
                        out=frame[board_start:])
        cache[seat] = (e.pversion, frame)
        return frame

    def encode(self, engine, seat: int) -> np.ndarray:
        e = engine
        n = self.num_players
        off = self._off
        scale = self._live_scale
        out = self._frame(e, seat).copy()  # the live part is set value by value: it is mostly zero
        acting = e.current_player
        mine_to_act = acting == seat
        ph = e.phase
        out[ph if mine_to_act else NUM_PHASES - 1] = 1.0
        if acting >= 0:
            out[NUM_PHASES + (acting - seat) % n] = 1.0
        f = e.fight
        if f is not None:
            out[:self._head] += np.frombuffer(self._fight_part(f, seat, mine_to_act and ph == Phase.DICE_ALLOC),
                                              dtype=np.uint8) * self._scale_live
        if mine_to_act:
            if ph in _SEL_CELL_PHASES and e.sel_cell >= 0:
                out[off["selected_cell"] + e.sel_cell] = 1.0
            if ph in _SEL_ITEM_PHASES and e.sel_item >= 0:
                out[off["selected_item"] + e.sel_item] = 1.0
            if 12 <= ph <= 15:
                o = off["selected_counts"]
                out[o] = (e.sel_type + 1) * scale[o]
                if ph > 12:
                    out[o + 1] = min(e.sel_mil, MAX_AMOUNT) * scale[o + 1]
                if ph > 13:
                    out[o + 2] = min(e.sel_merc, MAX_AMOUNT) * scale[o + 2]
                if ph == 15 and e.sel_stone:
                    out[o + 3] = 1.0
            if ph == 2:
                o = off["my_budget_left"]
                out[o] = max(0, min(e.budget_left(seat), BIG)) * scale[o]
        if e.assignee >= 0:
            out[off["assignee"] + (e.assignee - seat) % n] = 1.0
        if e.checkpoints or e.broken_depth:
            o = off["movement"]
            out[o] = min(len(e.checkpoints), STONES_MAX) * scale[o]
            out[o + 1] = min(e.broken_depth, 7) * scale[o + 1]
        o = off["my_allocation"]
        for x in e.alloc[seat]:
            if x:
                out[o] = (x if x < BIG else BIG) * scale[o]
            o += 1
        return out

    def _fight_part(self, f, seat: int, allocating: bool) -> bytearray:
        """The live part's fight fields as raw values (zero elsewhere)."""
        n = self.num_players
        off = self._off
        buf = bytearray(self._head)
        o = off["fight"]
        buf[o:o + 6] = bytes((1, 1 if f.overrun else 0, 1 if f.roll_phase == 1 else 0,
                              1 if f.roll_phase == 2 else 0, min(f.rounds, 15), f.guard))
        buf[off["fight_cell"] + f.cell] = 1
        hits = sum(h for q, h in f.hits_pending if q == seat)
        absorb = f.absorb_wall.get(seat, 0) + f.absorb_shield.get(seat, 0) + f.absorb_mountain.get(seat, 0)
        o = off["my_hits"]
        buf[o] = min(hits, STONES_MAX)
        buf[o + 1] = min(absorb, 15)
        if f.aims:
            o = off["dice_aims"]
            for (_, roll_phase), slots in f.aims.items():
                for target, count in slots:
                    i = o + (roll_phase - 1) * n + (target - seat) % n
                    buf[i] = min(buf[i] + count, STONES_MAX)
            if allocating:
                _, roll_phase, _ = f.aim_queue[0]
                target = f.aims[(seat, roll_phase)][f.aim_idx][0]
                o = off["dice_alloc"]
                buf[o + roll_phase - 1] = 1
                buf[o + 2] = min(f.aim_left, STONES_MAX)
                buf[o + 3 + (target - seat) % n] = 1
        return buf
