"""Observation of spec 9.6 from one seat's view, seats rotated so the observer is seat 0.

Hidden from every observer: the draw pile, the city side of every settlement card (the
observer's own included), other hands (except the Library view to its owner during a Library
pick) and the identity of cards moved between two other players. All values lie in [0, 1]:
counts are divided by their largest possible value. ``CatanCardEncoder(...).layout`` names
every slice; docs/games/catan_card.md prints the table.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.encoder import Field, ObservationEncoder, ObsLayout
from .data import BUILD_KINDS, IMPROVEMENT_KINDS, setup_for
from .engine import DRAW_PILE_PARTNER, MARKET_PARTNER, NUM_PHASES as _ALL_PHASES, PHASE_NAMES, Phase

NUM_PHASES = _ALL_PHASES - 1  # GAME_OVER is never a decision; its slot is "not my decision"
_BATCH = frozenset((Phase.DRAW_PILE_DISCARD, Phase.MARKET_TAKE, Phase.MARKET_RETURN, Phase.PLAYER_TAKE,
                    Phase.LIBRARY_PICK, Phase.PLAYER_RETURN))
_TAKING = frozenset((Phase.DRAW_PILE_DISCARD, Phase.MARKET_TAKE, Phase.PLAYER_TAKE, Phase.LIBRARY_PICK))
_OPPONENT_BATCH = frozenset((Phase.PLAYER_TAKE, Phase.LIBRARY_PICK, Phase.PLAYER_RETURN))
_ZEROS5 = (0, 0, 0, 0, 0)
_GAME_OVER, _PAY, _ROBBER_DISCARD, _KNIGHT_DRAW, _LIBRARY_PICK = (
    Phase.GAME_OVER, Phase.PAY, Phase.ROBBER_DISCARD, Phase.KNIGHT_DRAW, Phase.LIBRARY_PICK)
_CHURCH, _CITY_CASTLE = IMPROVEMENT_KINDS.index("church"), IMPROVEMENT_KINDS.index("city_castle")

TURN_SCALE = 250  # raw values must fit a byte, see encode()
VP_SCALE = 20


class CatanCardEncoder(ObservationEncoder):
    def __init__(self, config, num_players: int):
        n = self.num_players = num_players
        s = setup_for(num_players, config.five_six_extra_building_cards)
        self.setup = s
        per_seat = [
            ("hand_size", "cards in hand"), ("settlements", "settlement cards"),
            ("unimproved_cities", "cities without improvement"),
            *[(f"owns_{k}", f"owns a {k} (0/1)") for k in IMPROVEMENT_KINDS],
            ("roads", "road stack size"), ("knights", "knight stack size"),
            ("a_roads", "A-side roads"), ("a_knights", "A-side knights"), ("vp", f"victory points / {VP_SCALE}"),
            ("roads_protected", "owns a City Castle (first 3 roads safe)"),
            ("first_knight_protected", "owns a Church (first knight safe)"),
        ]
        fields = [
            Field("phase", NUM_PHASES + 1, "one-hot: " + ", ".join(PHASE_NAMES[:NUM_PHASES])
                  + ", not my decision"),
            Field("acting_seat", n, "one-hot, relative to the observer (0 = observer)"),
            Field("active_seat", n, "one-hot, relative: whose turn it is"),
            Field("market", 5, "market cards per resource / copies of that resource"),
            Field("discard", 5, "discard pile per resource / copies of that resource"),
            Field("draw_pile", 1, "draw pile size / all resource cards"),
            Field("supply_buildings", 3, "roads, knights, settlements left in the supply / cards in play"),
            Field("supply_improvements", 6, "improvements left per kind / 4"),
            Field("fate", 2, "fate card in use; arrows clockwise"),
            Field("events", 4, "revealed market days, revealed robber raids, unrevealed market days, "
                                "unrevealed robber raids (in the game) / settlement cards"),
        ]
        for i in range(n):
            for name, desc in per_seat:
                fields.append(Field(f"seat{i}_{name}", 1, f"seat +{i}: {desc}"))
        fields += [
            Field("turn_flags", 9, "active player's exchanges left, Marketplace bonus left, Library used, "
                                   "Guild used, built this turn: " + ", ".join(BUILD_KINDS)),
            Field("batch_partner", n + 1, "one-hot: draw pile, market, opponent +1..+N-1"),
            Field("batch_cards", 2, "cards taken so far, cards still to give back"),
            Field("paying", 5, "one-hot build kind being paid"),
            Field("unpaid", 5, "unpaid cost per resource / 3"),
            Field("my_quota", 2, "cards the observer must still discard (robber raid); extra knight draws left"),
            Field("turn", 1, f"completed player turns / {TURN_SCALE} (capped at 1)"),
            Field("my_hand", 5, "observer's hand per resource / copies of that resource (private)"),
            Field("library_view", 5, "partner's hand per resource during the observer's Library pick (private)"),
            Field("batch_received", 5, "cards the observer took in the current opponent batch (private)"),
        ]
        self.layout = ObsLayout(fields)

        res = [float(c) for c in s.resource_counts]
        total = float(s.total_resources)
        settle_total = float(len(s.settlement_events))
        max_a_roads = float(max(1, math.ceil(s.roads / 2)))
        scale = []
        scale += [1.0] * (NUM_PHASES + 1 + 2 * n)
        scale += [1 / r for r in res] * 2 + [1 / total]
        scale += [1 / max(1, s.roads), 1 / max(1, s.knights), 1 / settle_total]
        scale += [1 / 4] * 6 + [1.0, 1.0] + [1 / settle_total] * 4
        seat_scale = ([1 / total, 1 / settle_total, 1 / settle_total] + [1.0] * 6
                      + [1 / max(1, s.roads), 1 / max(1, s.knights), 1 / max_a_roads,
                         1 / max(1, math.ceil(s.knights / 2)), 1 / VP_SCALE, 1.0, 1.0])
        scale += seat_scale * n
        scale += [1 / max_a_roads, 1.0, 1.0, 1.0] + [1.0] * 5
        scale += [1.0] * (n + 1) + [1 / (max_a_roads + 1)] * 2 + [1.0] * 5 + [1 / 3] * 5
        scale += [1 / total, 1 / max(1, math.ceil(s.knights / 2)), 1 / TURN_SCALE]
        scale += [1 / r for r in res] * 3
        assert len(scale) == self.layout.size, (len(scale), self.layout.size)
        self._scale = np.asarray(scale, dtype=np.float32)
        self._settle_events = [s.settlement_events.count(e) for e in (0, 1)]
        self._head = NUM_PHASES + 1 + 2 * n
        self._tableau_cache: dict = {}
        self._no_batch = (0,) * (n + 1 + 2)  # batch partner one-hot and batch card counts
        self._seat_orders = [[(seat + d) % n for d in range(n)] for seat in range(n)]

    def unscale(self, observation: np.ndarray) -> np.ndarray:
        """Raw integer values (counts, flags) of an observation, e.g. for rule-based agents."""
        return np.rint(observation / self._scale).astype(np.int64)

    def encode(self, engine, seat: int) -> np.ndarray:
        # Hot path: plain local ints, one list, one bytes() pack, one multiply.
        n = self.num_players
        e = engine
        phase = e.phase
        over = phase == _GAME_OVER
        acting = -1 if over else e.actor
        mine = acting == seat
        v = [0] * self._head
        v[phase if mine else NUM_PHASES] = 1
        if not over:
            v[NUM_PHASES + 1 + (acting - seat) % n] = 1
        active = e.active
        v[NUM_PHASES + 1 + n + (active - seat) % n] = 1
        md, rr = e.events_revealed
        v += e.market
        v += e.discard
        v += (len(e.draw_pile), e.supply_roads, e.supply_knights, len(e.settlement_stack))
        v += e.supply_improvements
        v += (1, 1 if e.fate_clockwise else 0) if e.fate_in_use else (0, 0)
        v += (md, rr, self._settle_events[0] - md, self._settle_events[1] - rr)
        hands, owned, roads_, knights_ = e.hands, e.owned, e.roads, e.knights
        settlements, cities, impr_vp = e.settlements, e.unimproved_cities, e.improvement_vp
        cache = self._tableau_cache
        for p in self._seat_orders[seat]:
            v.append(sum(hands[p]))
            # A seat's tableau changes only when it builds or loses a card: reuse its block.
            key = (len(settlements[p]), cities[p], roads_[p], knights_[p], owned[p])
            block = cache.get(key)
            if block is None:
                block = self._tableau_block(key, impr_vp[p])
                cache[key] = block
            v += block
        v += (e.allowance, e.market_bonus, 1 if e.library_used else 0, 1 if e.guild_used else 0)
        v += e.built
        if phase in _BATCH:
            partner = [0] * (n + 1)
            pt = e.partner
            partner[0 if pt == DRAW_PILE_PARTNER else 1 if pt == MARKET_PARTNER else 1 + (pt - active) % n] = 1
            v += partner
            v += (e.batch_count, 0) if phase in _TAKING else (0, e.batch_count)
            v += _ZEROS5
        else:
            v += self._no_batch
            if phase == _PAY:
                paying = [0, 0, 0, 0, 0]
                paying[e.pay_kind] = 1
                v += paying
            else:
                v += _ZEROS5
        v += e.unpaid
        turn = e.turn
        if mine and phase == _ROBBER_DISCARD:
            v += (e.quota, 0, turn if turn < TURN_SCALE else TURN_SCALE)
        elif mine and phase == _KNIGHT_DRAW:
            v += (0, e.extra_draws_left, turn if turn < TURN_SCALE else TURN_SCALE)
        else:
            v += (0, 0, turn if turn < TURN_SCALE else TURN_SCALE)
        v += hands[seat]
        v += hands[e.partner] if mine and phase == _LIBRARY_PICK else _ZEROS5
        v += e.batch_received if seat == active and phase in _OPPONENT_BATCH else _ZEROS5
        # Every raw value is a count in 0..255, so bytearray() packs them (and raises if one is
        # not); with only exact ints (no bools) in v it is about twice as fast as bytes(v), which
        # is twice as fast as np.array(v, dtype=float32).
        return np.frombuffer(bytearray(v), np.uint8) * self._scale

    def _tableau_block(self, key, improvement_vp: int) -> tuple:
        settlements, cities, roads, knights, own = key
        if len(self._tableau_cache) > 100_000:  # bound memory in very long runs
            self._tableau_cache.clear()
        own = [1 if o else 0 for o in own]  # ints, not bools: see the end of encode()
        return (settlements, cities, *own, roads, knights, (roads + 1) >> 1, (knights + 1) >> 1,
                settlements + 2 * cities + improvement_vp + (roads >> 1) + (knights >> 1),
                own[_CITY_CASTLE], own[_CHURCH])
