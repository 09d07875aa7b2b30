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
from .changes import CELLS, DOMAINS
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
PER_PLAYER = (  # public, kept until the public domains change
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
_NO_ALLOCS = ((),) * 4  # per seat the allocation in a row's inputs before the reveal
PER_PLAYER_BOARD = (  # from the map, kept until the map or the permanent TS change
    ("ts", TS_MAX, "tear stones"),
    ("production", BIG, "P, resource stones owned (clipped at 255)"), ("upkeep", BIG, "U, living military units"),
    *[(f"armies_{t}", 15, f"{t} armies on the board (clipped; more than 5 only mid-movement)") for t in UNIT_TYPES],
)
_SEL_CELL_PHASES = frozenset((9, 11, 12, 13, 14, 15, 19))
_SEL_ITEM_PHASES = frozenset((8, 9))
_PHASES_WITH_LIVE_VALUES = _SEL_CELL_PHASES | _SEL_ITEM_PHASES | {2, 12, 13, 14, 15}  # (mover's view)
CELL_STATIC = len(TERRAINS) + len(PRINTED) + len(PORTALS) - 1
_ONE_HOT4 = [bytes(1 if i == j else 0 for j in range(4)) for i in range(4)]
_MEMO_MAX = 1 << 13  # entries per seat of the rotated-block memo (all full hold about 7 MB)
# per observer seat: absolute cell block -> the block from that seat's view (keyed by the shared block
# itself, whose hash bytes keep, rather than by a new block + seat key)
_ROTATED: list[dict[bytes, bytes]] = [{} for _ in range(8)]
# the order of the change domains in ``engine.stamps`` (each read as a plain int at every look): the board part
# shows the cells and the permanent TS, the public part the public domain and the permanent TS
assert DOMAINS.names == ("cells", "permanent_ts", "public", "allocations"), DOMAINS.names


class _SeatView:
    """One seat's observation as raw values (one byte each, unscaled), without the live part (zero there
    but for the seat's own allocation), and what of the engine it shows: the engine's move count at the last
    look, the position in the log of changed cells, cells."""

    __slots__ = ("raw", "moves", "epoch", "logged", "shown", "stats")

    def __init__(self, size: int):
        self.raw = bytearray(size)
        self.moves = self.epoch = -1  # no look yet: every domain is new
        self.logged = 0  # entries of the engine's log of changed cells already shown
        self.shown: list = []  # per cell the shared block entry shown
        self.stats: bytes | None = None  # the shared per-seat map stats shown


class _SharedBoard:
    """The board part's pieces that do not depend on the observer, kept up to date from the engine's log of
    changed cells: per cell its ``_cell_block`` (absolute seats)
    and its share of the per-seat totals (``engine.cell_holdings``); per seat TS from control, P, U and
    armies per type (``control_stats`` and ``army_stats``); the per-seat stats as raw bytes, per seat (None
    when stale) and all together (None when a seat's are stale), with the tournament wins and tear stones
    they show."""

    __slots__ = ("epoch", "logged", "blocks", "held", "cts", "prod", "upk", "types", "seat_stats", "stats",
                 "wins", "tear")

    def __init__(self, e, blocks: list):
        self.epoch = e.item_log_epoch
        self.logged = len(e.item_log(CELLS))
        self.blocks = blocks
        self.held = [e.cell_holdings(c) for c in range(NUM_CELLS)]
        self.cts, self.prod = e.control_stats()
        self.upk, self.types = e.army_stats()
        self.seat_stats: list[bytes | None] = [None] * e.num_players
        self.stats: bytes | None = None
        self.wins: list[int] = []
        self.tear: list[bool] = []

    def move_holdings(self, old: tuple, now: tuple) -> None:
        """A cell's holdings changed from old to now: the totals follow, the stats of the seats involved
        are stale."""
        stale = self.seat_stats
        k, ts, value, armies = old
        if k >= 0:
            self.cts[k] -= ts
            self.prod[k] -= value
            stale[k] = None
        for p, mil, t in armies:
            self.upk[p] -= mil
            self.types[p][t] -= 1
            stale[p] = None
        k, ts, value, armies = now
        if k >= 0:
            self.cts[k] += ts
            self.prod[k] += value
            stale[k] = None
        for p, mil, t in armies:
            self.upk[p] += mil
            self.types[p][t] += 1
            stale[p] = None
        self.stats = None


class _SharedPublic:
    """The public part's pieces that do not depend on the observer, as raw values with per-seat pieces in
    absolute seat order, with the inputs each piece shows."""

    __slots__ = ("moves", "head_key", "head", "order_shown", "mover_shown", "order", "row_keys", "rows",
                 "offer_shown", "offer", "piles_shown", "piles", "status_shown", "status")

    def __init__(self, num_players: int):
        self.moves = -1  # the engine's move count when brought up to date
        self.head_key: tuple | None = None
        self.order_shown: list[int] | None = None
        self.mover_shown = -1
        self.row_keys: list[tuple | None] = [None] * num_players
        self.rows: list[bytes] = [b""] * num_players
        self.offer_shown: list[int] | None = None
        self.head = self.order = self.offer = self.piles = b""
        self.piles_shown: tuple | None = None
        self.status_shown: tuple | None = None  # the offer's statuses and takers shown
        self.status: list[bytes | None] = [None] * num_players  # per seat the offer status, once built


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
        fields += [  # cached part: changes only with the public domains
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
        self._off = {name: sl.start for name, sl in self.layout.slices.items()}
        self._head = self.layout["year"].start  # the live part's size
        self._live_size = self.layout["my_allocation"].start  # the live part before the seat's own allocation
        self._empty_cell = bytes(self.per_cell_dynamic)
        # offsets of the pieces in a seat's raw frame
        lay = self.layout
        self._stats_at, self._static_at = lay["seat0_ts"].start, lay["cell_static"].start
        self._dynamic_at, self._stones_at = lay["cell_dynamic"].start, lay["my_stones"].start
        self._alloc_at = lay["my_allocation"].start
        self._assignee_at, self._movement_at = lay["assignee"].start, lay["movement"].start
        # (start, stop, width per seat, end of the following seat-free values) of the cell block's
        # per-seat parts: controller, capital people, armies, defender
        self._seat_parts = ((1, 1 + n, 1, 2 + n), (2 + n, 2 + 2 * n, 1, 7 + 2 * n),
                            (7 + 2 * n, 7 + 10 * n, 8, 8 + 10 * n), (8 + 10 * n, 8 + 11 * n, 1, 8 + 11 * n))
        self._rules_raw = bytes(self._rules)
        self._new_scratch()
        self._follow(None)

    def _follow(self, engine) -> None:
        """Start the caches anew for ``engine``: they hold one engine's frames (another engine, a clone or a copy,
        starts them again): per seat its frame, the board and public pieces shared by all seats, the map's
        static block."""
        self._engine = engine
        self._views: list[_SeatView | None] = [None] * self.num_players
        self._shared_board: _SharedBoard | None = None
        self._shared_pub: _SharedPublic | None = None
        self._static_block: bytes | None = None

    def _new_scratch(self) -> None:
        """The buffer an observation's raw values are put together in, and a uint8 array over it (one numpy
        call less per observation)."""
        self._scratch = bytearray(self.layout.size)
        self._scratch_values = np.frombuffer(self._scratch, np.uint8)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()  # a copied array would no longer show the buffer: made anew
        del state["_scratch"], state["_scratch_values"]
        for name in ("_engine", "_views", "_shared_board", "_shared_pub", "_static_block"):
            del state[name]  # the caches: a copy builds its own
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._new_scratch()
        self._follow(None)

    def unscale(self, observation: np.ndarray) -> np.ndarray:
        """Raw integer values (counts, flags) of an observation, e.g. for rule-based agents."""
        return np.rint(observation / self._scale).astype(np.int64)

    def _static(self, board) -> bytes:
        block = self._static_block
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
            block = self._static_block = bytes(v)  # the map never changes during a game
        return block

    def _board(self, e) -> "_SharedBoard":
        """The shared board pieces brought up to date: every cell logged as changed since the last call is
        encoded anew (its block replaced only when its content changed), and the per-seat totals follow
        the changed cells' holdings."""
        board = self._shared_board
        log = e.item_log(CELLS)
        if board is None or board.epoch != e.item_log_epoch:  # new, or the log restarted: every cell anew
            board = self._shared_board = _SharedBoard(e, [self._cell_block(e, c) for c in range(NUM_CELLS)])
        elif board.logged < len(log):
            blocks, held = board.blocks, board.held
            holdings = e.cell_holdings
            for c in set(log[board.logged:]):
                block = self._cell_block(e, c)
                if block != blocks[c]:
                    blocks[c] = block
                now = holdings(c)
                old = held[c]
                if now != old:
                    board.move_holdings(old, now)
                    held[c] = now
            board.logged = len(log)
        if board.wins != e.tourn_wins or board.tear != e.tear_bought:
            board.wins, board.tear = e.tourn_wins[:], e.tear_bought[:]
            board.seat_stats = [None] * self.num_players
            board.stats = None
        if board.stats is None:
            seat_stats = board.seat_stats
            for p, row in enumerate(seat_stats):
                if row is None:
                    seat_stats[p] = self._seat_stats(board, p)
            board.stats = b"".join(seat_stats)
        return board

    @staticmethod
    def _seat_stats(board: "_SharedBoard", p: int) -> bytes:
        """Seat p's PER_PLAYER_BOARD values, clipped to their caps."""
        m, r, c = board.types[p]
        ts = board.cts[p] + board.wins[p] + (1 if board.tear[p] else 0)
        prod, upk = board.prod[p], board.upk[p]
        return bytes((ts if ts < TS_MAX else TS_MAX, prod if prod < BIG else BIG, upk if upk < BIG else BIG,
                      m if m < 15 else 15, r if r < 15 else 15, c if c < 15 else 15))

    def _cell_block(self, e, c: int) -> tuple[bytes, bytes | None]:
        """One cell's public block with absolute seats (``_rotated`` turns it to an observer's view), and
        per seat the kind + 1 of its stone there (None without stones)."""
        n = self.num_players
        here = e.armies[c]
        k = e.controller[c]
        bl = e.buildings[c]
        cap = e.capital_of[c]
        d = e.conflicts.get(c, -1)
        if k < 0 and not here and not bl and not e.lava[c] and cap < 0 and d < 0:
            return self._empty_cell, None
        buf = bytearray(self.per_cell_dynamic)
        stones = None
        if e.lava[c]:
            buf[0] = 1
        if k >= 0:
            buf[1 + k] = 1
        if cap >= 0:
            buf[1 + n] = 1
            buf[2 + n + cap] = 1
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
            base = army_off + 8 * a.owner
            mil, merc = a.mil, a.merc
            v = buf[base] + len(mil)
            buf[base] = v if v < UNITS else UNITS
            v = buf[base + 1] + len(merc)
            buf[base + 1] = v if v < UNITS else UNITS
            buf[base + 2 + a.utype] = 1
            if a.stones:
                buf[base + 5] = 1
                if stones is None:
                    stones = bytearray(n)
                stones[a.owner] = a.stones[0] + 1
            mp = len(mil) - mil.count(0) + len(merc) - merc.count(0)
            if mp:
                v = buf[base + 6] + mp
                buf[base + 6] = v if v < UNITS else UNITS
            if a.support >= 0:
                buf[base + 7] = 1
        if d >= 0:
            conf_off = army_off + 8 * n
            buf[conf_off] = 1
            buf[conf_off + 1 + d] = 1
        return bytes(buf), (None if stones is None else bytes(stones))

    def _rotated(self, block: bytes, seat: int) -> bytes:
        """A cell block with absolute seats from seat's view: every per-seat part starts at seat."""
        if seat == 0:
            return block
        parts = [block[:1]]
        for start, stop, width, after in self._seat_parts:
            cut = start + width * seat
            parts += (block[cut:stop], block[start:cut], block[stop:after])
        return b"".join(parts)

    def _refresh_board(self, e, seat: int, view: "_SeatView") -> None:
        """Rewrite the board part of seat's frame: the per-player map stats when they changed, and the cell
        blocks and stone kinds of the cells whose shared block changed since seat's frame showed them."""
        raw = view.raw
        board = self._board(e)
        if view.epoch != board.epoch:
            changed = range(NUM_CELLS)
            view.epoch = board.epoch
            view.shown = [None] * NUM_CELLS
        elif view.logged < board.logged:
            changed = set(e.item_log(CELLS)[view.logged:board.logged])
        else:
            changed = ()
        view.logged = board.logged
        shown = view.shown
        blocks = board.blocks
        width = self.per_cell_dynamic
        dynamic, stones_at = self._dynamic_at, self._stones_at
        rotated_memo = _ROTATED[seat]
        for c in changed:
            entry = blocks[c]
            if entry is shown[c]:
                continue
            shown[c] = entry
            block, stones = entry
            if seat:
                rotated = rotated_memo.get(block)
                if rotated is None:
                    if len(rotated_memo) >= _MEMO_MAX:
                        rotated_memo.clear()
                    rotated = rotated_memo[block] = self._rotated(block, seat)
                block = rotated
            o = dynamic + c * width
            raw[o:o + width] = block
            raw[stones_at + c] = stones[seat] if stones else 0
        stats = board.stats
        if stats is not view.stats:
            view.stats = stats
            cut = len(PER_PLAYER_BOARD) * seat  # rotated: the observer first
            o = self._stats_at
            raw[o:o + len(stats)] = stats[cut:] + stats[:cut]

    def _shared_public(self, e) -> "_SharedPublic":
        """The public part's pieces that do not depend on the observer, checked when a public domain changed:
        each piece is rebuilt only when its inputs differ from the ones it shows."""
        pub = self._shared_pub
        if pub is None:
            pub = self._shared_pub = _SharedPublic(self.num_players)
        elif e.stamped <= pub.moves:  # nothing stamped since the last look
            return pub
        _, permanent_ts, public, _ = e.stamps
        last, pub.moves = pub.moves, e.moves
        if public <= last and permanent_ts <= last:
            return pub
        n = self.num_players
        key = (e.year, e.round_counter, e.unit_max, e.event)
        if key != pub.head_key:
            pub.head_key = key
            head = bytearray(11)
            head[0] = e.year if e.year < YEARS else YEARS
            head[1 + e.round_counter] = 1
            head[4] = e.unit_max if e.unit_max < UNITS else UNITS
            if e.event >= 0:
                head[5 + e.event] = 1
            pub.head = bytes(head)
        if e.order != pub.order_shown or e.double_mover != pub.mover_shown:
            pub.order_shown, pub.mover_shown = e.order[:], e.double_mover
            order = bytearray(n * n + n)  # per seat its position one-hot, then the double mover one-hot
            for pos, p in enumerate(e.order):
                order[p * n + pos] = 1
            if e.double_mover >= 0:
                order[n * n + e.double_mover] = 1
            pub.order = bytes(order)
        revealed = e.revealed
        row_keys, rows = pub.row_keys, pub.rows
        # per seat the row's inputs (the allocation only once revealed), copied: the lists change in place
        keys = zip(e.tourn_wins, e.tear_bought, e.budget, e.tstones, e.pend_build, map(tuple, e.pend_units),
                   e.pend_mercs, map(sum, e.hands), e.committed, map(tuple, e.market_rank),
                   map(tuple, e.alloc) if revealed else _NO_ALLOCS)
        for p, key in enumerate(keys):
            if key != row_keys[p]:
                row_keys[p] = key
                rows[p] = self._player_row(key)
        if e.offer[:4] != pub.offer_shown:
            pub.offer_shown = e.offer[:4]
            offer = bytearray(4 * NUM_KINDS)
            for i, k in enumerate(pub.offer_shown):
                offer[i * NUM_KINDS + k] = 1
            pub.offer = bytes(offer)
        piles = (e.discard, [len(s) for s in e.stacks[:4]])
        if piles != pub.piles_shown:
            pub.piles_shown = (piles[0][:], piles[1])
            pub.piles = bytes(piles[0]) + bytes(piles[1]).ljust(4, b"\0")
        statuses = e.offer_status[:len(e.offer[:4])]
        status = (statuses, e.offer_taker[:len(statuses)])
        if status != pub.status_shown:
            pub.status_shown = status
            pub.status = [None] * n
        return pub

    @staticmethod
    def _offer_status(statuses: list[int], takers: list[int], seat: int) -> bytes:
        """Per offered slot from seat's view, one-hot: available, taken by me, taken by another, discarded."""
        return b"".join([_ONE_HOT4[0 if st == 0 else 3 if st == 2 else 1 if takers[i] == seat else 2]
                         for i, st in enumerate(statuses)]).ljust(16, b"\0")

    @staticmethod
    def _player_row(key: tuple) -> bytes:
        """A seat's PER_PLAYER raw values from its inputs as listed in ``_shared_public``."""
        wins, tear, budget, stones, builds, (m, r, c), mercs, hand, committed, ranks, alloc = key
        tear = 1 if tear else 0
        perm = wins + tear
        # clamped to the caps of PER_PLAYER where a value can exceed them (flags, mercenaries, hand size
        # and ranks stay within theirs by the rules)
        return bytes((
            perm if perm < TS_MAX else TS_MAX, budget if budget < BIG else BIG,
            stones if stones < STONES_MAX else STONES_MAX, wins if wins < TS_MAX else TS_MAX, tear,
            builds if builds < STONES_MAX else STONES_MAX, m if m < STONES_MAX else STONES_MAX,
            r if r < STONES_MAX else STONES_MAX, c if c < STONES_MAX else STONES_MAX, mercs, hand,
            1 if committed else 0, *([x if x < BIG else BIG for x in alloc] if alloc else _HIDDEN),
            ranks[0] + 1, ranks[1] + 1, ranks[2] + 1, ranks[3] + 1))

    def _public(self, e, seat: int) -> bytes:
        """The public part between the live part and the board part as raw values."""
        pub = self._shared_public(e)
        n = self.num_players
        order = pub.order
        # per-seat pieces rotated so that the observer comes first
        cut, mover, mover_cut = n * seat, n * n, n * n + seat
        status = pub.status[seat]
        if status is None:
            status = pub.status[seat] = self._offer_status(*pub.status_shown, seat)
        return b"".join((
            pub.head, order[cut:mover], order[:cut], order[mover_cut:], order[mover:mover_cut], self._rules_raw,
            *pub.rows[seat:], *pub.rows[:seat], pub.offer, status, pub.piles,
            bytes(e.hands[seat])))

    def _new_view(self, e, seat: int) -> "_SeatView":
        """Seat's frame before its first look: the map's static block only."""
        view = self._views[seat] = _SeatView(self.layout.size)
        static = self._static(e.board)
        view.raw[self._static_at:self._static_at + len(static)] = static
        return view

    def _update(self, e, seat: int, view: "_SeatView") -> None:
        """Seat's frame brought up to date: the parts that show a domain stamped since its last look are
        rewritten."""
        cells, permanent_ts, public, allocations = e.stamps  # the move that last changed each domain
        last, view.moves = view.moves, e.moves
        if cells > last or permanent_ts > last:
            self._refresh_board(e, seat, view)
        if public > last or permanent_ts > last:
            part = self._public(e, seat)
            view.raw[self._head:self._head + len(part)] = part
        if allocations > last:  # the seat's own allocation (private until the reveal)
            alloc = e.alloc[seat]
            o = self._alloc_at
            view.raw[o:o + 8] = bytes(alloc) if max(alloc) < BIG else bytes([x if x < BIG else BIG for x in alloc])

    def encode(self, engine, seat: int) -> np.ndarray:
        e = engine
        if e is not self._engine:
            self._follow(e)
        view = self._views[seat]
        if view is None:
            view = self._new_view(e, seat)
        if e.stamped > view.moves:  # a domain stamped since this seat's last look
            self._update(e, seat, view)
        # the live part is set value by value into a copy of the frame (mostly zero there), then every
        # value is scaled at once
        f = e.fight
        ph = e.phase
        acting = e.current_player
        mine_to_act = acting == seat
        raw = self._scratch
        raw[:] = view.raw  # the same size: the buffer keeps its place
        if f is not None:
            raw[:self._live_size] = self._fight_part(f, seat, mine_to_act and ph == Phase.DICE_ALLOC)
        raw[ph if mine_to_act else NUM_PHASES - 1] = 1
        n = self.num_players
        if acting >= 0:
            raw[NUM_PHASES + (acting - seat) % n] = 1
        if mine_to_act and ph in _PHASES_WITH_LIVE_VALUES:
            off = self._off
            if ph in _SEL_CELL_PHASES and e.sel_cell >= 0:
                raw[off["selected_cell"] + e.sel_cell] = 1
            if ph in _SEL_ITEM_PHASES and e.sel_item >= 0:
                raw[off["selected_item"] + e.sel_item] = 1
            if 12 <= ph <= 15:
                o = off["selected_counts"]
                raw[o] = e.sel_type + 1
                if ph > 12:
                    raw[o + 1] = min(e.sel_mil, MAX_AMOUNT)
                if ph > 13:
                    raw[o + 2] = min(e.sel_merc, MAX_AMOUNT)
                if ph == 15 and e.sel_stone:
                    raw[o + 3] = 1
            if ph == 2:
                raw[off["my_budget_left"]] = max(0, min(e.budget_left(seat), BIG))
        if e.assignee >= 0:
            raw[self._assignee_at + (e.assignee - seat) % n] = 1
        if e.checkpoints or e.broken_depth:
            o = self._movement_at
            raw[o] = min(len(e.checkpoints), STONES_MAX)
            raw[o + 1] = min(e.broken_depth, 7)
        out = self._scratch_values.astype(np.float32)
        out *= self._scale
        return out

    def _fight_part(self, f, seat: int, allocating: bool) -> bytearray:
        """The live part's fight fields as raw values (zero elsewhere)."""
        n = self.num_players
        off = self._off
        buf = bytearray(self._live_size)
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
