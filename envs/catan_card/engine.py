"""Rules engine of Catan - the fast card game: plain state and transitions, no RL terms.

Moves are ``(op, arg)`` tuples (see ``Op``); seats in moves are absolute. Every decision of the
rulebook is a move of the seat in ``current_player``; automatic steps (turn start, draws, victim
search, market refill, forced single payments) run inside ``play``. Randomness comes only from the
``numpy.random.Generator`` passed in. References G1..G34 are the gap list of
``docs/rules/catan_card.md`` section 8.2; docs/games/catan_card.md lists every resolution.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.engine import RulesEngine, copy_generator
from ..core.errors import IllegalActionError
from .data import (
    BUILD_KINDS, CHURCH, CITY, CITY_CASTLE, EVENTS, IMPROVEMENT_KINDS, KNIGHT, LIBRARY,
    MARKET_DAY, MARKETPLACE, MERCHANT_GUILD, RESOURCES, ROAD, ROBBER_RAID, SETTLEMENT, TOWN_HALL,
    Setup, setup_for,
)


@dataclass(frozen=True)
class CatanCardConfig:
    """Rule options. Defaults follow the spec and docs/rules/DECISIONS.md."""

    #: G26: 5-6 players also take the second copy's 3-/4-symbol roads, settlements and knights.
    five_six_extra_building_cards: bool = False
    #: G24: the extra draws for A-side knights become a decision (draw one more / stop).
    optional_knight_draws: bool = False
    #: G21: "the oldest player starts" -> seat 0; True draws the starting seat from the seed.
    random_start_seat: bool = False


class Phase:
    """Sub-states of a turn (spec 4.3). Values index the observation's phase one-hot.

    Plain ints rather than an IntEnum: enum member access is several times slower in the hot path.
    """

    TRADE = 0  # S1 choose a trade partner, steal, or end trading
    DRAW_PILE_DISCARD = 1  # S2
    MARKET_TAKE = 2  # S3
    MARKET_RETURN = 3  # S4
    PLAYER_TAKE = 4  # S5
    LIBRARY_PICK = 5  # S6
    PLAYER_RETURN = 6  # S7
    BUILD = 7  # S8
    PAY = 8  # S9
    CHOOSE_IMPROVEMENT = 9  # S10
    FATE_FLIP = 10  # S11
    ROBBER_DISCARD = 11  # S12
    MARKET_DAY = 12  # S13
    KNIGHT_DRAW = 13  # optional extra knight draws (G24 flag)
    GAME_OVER = 14


class Op:
    """Move kinds (plain ints, as Phase)."""

    PASS = 0
    TRADE_DRAW_PILE = 1
    TRADE_MARKET = 2
    TRADE_PLAYER = 3  # arg: opponent seat
    GUILD_STEAL = 4  # arg: opponent seat
    RESOURCE = 5  # arg: resource index; meaning depends on the phase
    BLIND_DRAW = 6  # also "draw one more" in KNIGHT_DRAW
    USE_LIBRARY = 7
    BUILD = 8  # arg: build kind
    PAY_AS_PRINTED = 9
    SUBSTITUTE = 10  # arg: 5 * a + b, cover one unpaid `a` with `rate` cards of `b`
    CHOOSE_IMPROVEMENT = 11  # arg: improvement kind
    TURN_FATE_CARD = 12


PHASE_NAMES = tuple(sorted((k for k, v in vars(Phase).items() if isinstance(v, int)),
                           key=lambda k: getattr(Phase, k)))
NUM_PHASES = len(PHASE_NAMES)
PASS = (Op.PASS, 0)
# Constant move tuples: built once, not per call (the legal-move lists are on the hot path).
TRADE_DRAW_PILE_MOVE = (Op.TRADE_DRAW_PILE, 0)
TRADE_MARKET_MOVE = (Op.TRADE_MARKET, 0)
BLIND_DRAW_MOVE = (Op.BLIND_DRAW, 0)
USE_LIBRARY_MOVE = (Op.USE_LIBRARY, 0)
TURN_FATE_CARD_MOVE = (Op.TURN_FATE_CARD, 0)
PAY_AS_PRINTED_MOVE = (Op.PAY_AS_PRINTED, 0)
RESOURCE_MOVES = tuple((Op.RESOURCE, r) for r in range(5))
BUILD_MOVES = tuple((Op.BUILD, k) for k in range(5))
NUM_RES = 5
# partner codes of a trade batch
DRAW_PILE_PARTNER, MARKET_PARTNER = -2, -1


def payable(cost: list[int], hand: list[int], rate: int) -> bool:
    """Spec 5.2: the cost can be paid with substitutions iff spare triples cover the deficit."""
    deficit = 0
    spare = 0
    for c, h in zip(cost, hand):
        if c > h:
            deficit += c - h
        else:
            spare += (h - c) // rate
    return spare >= deficit


class _PaymentMemo:
    """Payment results that depend only on the costs, the substitution rate and the cards involved;
    shared by every engine with the same costs and rate (not copied with an engine)."""

    def __init__(self):
        self.affordable: dict[tuple[int, ...], tuple[bool, ...]] = {}  # hand -> per build kind
        self.only_payment: dict[tuple[int, ...], tuple[int, ...] | None] = {}  # unpaid + hand -> cards

    def bound(self) -> None:
        if len(self.affordable) + len(self.only_payment) > 200_000:  # memory in very long runs
            self.affordable.clear()
            self.only_payment.clear()


_PAYMENT_MEMOS: dict[tuple, _PaymentMemo] = {}  # (costs, substitution rate) -> memo


class CatanCardEngine(RulesEngine):
    def __init__(self, config: CatanCardConfig, num_players: int, rng: np.random.Generator):
        self.config = config
        self.num_players = n = num_players
        self.rng = rng
        self.setup: Setup = setup_for(num_players, config.five_six_extra_building_cards)
        s = self.setup
        self.rate = s.substitution_rate
        self.costs = [list(c) for c in s.costs]
        self._payments = _PAYMENT_MEMOS.setdefault((s.costs, self.rate), _PaymentMemo())
        self.fate_in_use = n >= 3
        self._opponent_order = [[(p + d) % n for d in range(1, n)] for p in range(n)]  # clockwise
        self.fate_clockwise = True  # white arrows up (G10: white = clockwise)

        deck = [r for r in range(NUM_RES) for _ in range(s.resource_counts[r])]
        self.draw_pile: list[int] = [deck[i] for i in rng.permutation(len(deck))]
        self.discard = [0] * NUM_RES
        self.market = [0] * NUM_RES
        for _ in range(s.market_size):
            self.market[self.draw_pile.pop()] += 1
        self.hands = [[0] * NUM_RES for _ in range(n)]
        for p in range(n):
            for _ in range(s.starting_hand):
                self.hands[p][self.draw_pile.pop()] += 1

        events = list(s.settlement_events)
        self.settlement_stack: list[int] = [events[i] for i in rng.permutation(len(events))]
        # G20: the starting settlement is the top card; its city side stays hidden.
        self.settlements: list[list[int]] = [[self.settlement_stack.pop()] for _ in range(n)]
        self.city_events: list[list[int]] = [[] for _ in range(n)]  # revealed, public
        self.unimproved_cities = [0] * n
        # per seat, one bool per improvement kind; a tuple, replaced on change (hashable for caches)
        self.owned = [(False,) * len(IMPROVEMENT_KINDS) for _ in range(n)]
        self.improvement_vp = [0] * n
        self.roads = [1] * n
        self.knights = [0] * n
        self.supply_roads = s.roads - n
        self.supply_knights = s.knights
        self.supply_improvements = list(s.improvement_copies)
        self.events_revealed = [0, 0]

        self.turn = 0
        self.winner = -1
        self.active = int(rng.integers(n)) if config.random_start_seat else 0
        self.actor = self.active
        self.phase = Phase.TRADE
        self._start_turn()

    def clone(self) -> "CatanCardEngine":
        """An independent copy: lists (of ints, of tuples, or of lists of ints) are copied, the random generator
        too; everything else is immutable (ints, tuples, the frozen config and setup) or the shared payment memo.
        tests/catan_card/test_rules.py checks that every attribute is of such a type."""
        twin = object.__new__(CatanCardEngine)
        state = self.__dict__.copy()
        for name, value in state.items():
            if type(value) is list:
                state[name] = [item[:] if type(item) is list else item for item in value]
        state["rng"] = copy_generator(self.rng)
        twin.__dict__ = state
        return twin

    # The payment memo is shared and can be large: copies (clone, pickle) reattach to it.
    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_payments"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._payments = _PAYMENT_MEMOS.setdefault((self.setup.costs, self.rate), _PaymentMemo())

    # ---------------------------------------------------------------- RulesEngine protocol ----
    @property
    def current_player(self) -> int:
        return -1 if self.phase == Phase.GAME_OVER else self.actor

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def placement_scores(self) -> list[float]:
        return [1.0 if p == self.winner else 0.0 for p in range(self.num_players)]

    def scores(self) -> list[int]:
        return [self.vp(p) for p in range(self.num_players)]

    # ---------------------------------------------------------------------------- queries ----
    def vp(self, p: int) -> int:
        """Spec 6: settlements 1, unimproved cities 2, improvements 3/4, every B-side 1."""
        return (len(self.settlements[p]) + 2 * self.unimproved_cities[p] + self.improvement_vp[p]
                + self.roads[p] // 2 + self.knights[p] // 2)

    def hand_size(self, p: int) -> int:
        return sum(self.hands[p])

    def a_roads(self, p: int) -> int:
        return (self.roads[p] + 1) // 2

    def a_knights(self, p: int) -> int:
        return (self.knights[p] + 1) // 2

    def roads_protected(self, p: int) -> int:
        return self.setup.city_castle_protected_roads if self.owned[p][CITY_CASTLE] else 0

    def knights_protected(self, p: int) -> int:
        return self.setup.church_protected_knights if self.owned[p][CHURCH] else 0

    def victim(self, kind: int) -> int:
        """Spec 5.3 / G10: nearest opponent in arrow direction with an unprotected card, or -1."""
        n, b = self.num_players, self.active
        step = 1 if (self.fate_clockwise or not self.fate_in_use) else -1
        for d in range(1, n):
            p = (b + step * d) % n
            if kind == ROAD:
                if self.roads[p] > self.roads_protected(p):
                    return p
            elif self.knights[p] > self.knights_protected(p):
                return p
        return -1

    def card_count(self) -> int:
        """Every resource card in play: piles, market and hands (conservation invariant)."""
        return (len(self.draw_pile) + sum(self.discard) + sum(self.market)
                + sum(sum(h) for h in self.hands))

    # -------------------------------------------------------------------------- legality ----
    def legal_moves(self) -> list[tuple[int, int]]:
        """Legal moves of the seat to act, in the order of the action layout (codec relies on it)."""
        ph = self.phase
        p = self.actor
        hand = self.hands[p]
        if ph == Phase.TRADE:
            moves = [PASS]
            allowance = self.allowance
            if allowance > 0 and sum(hand) > 0:
                moves.append(TRADE_DRAW_PILE_MOVE)
            if self._market_capacity() > 0 and sum(self.market) > 0:
                moves.append(TRADE_MARKET_MOVE)
            if self.trade_any and allowance > 0:
                hands = self.hands
                moves += [(Op.TRADE_PLAYER, q) for q in self._opponent_order[p] if sum(hands[q]) > 0]
            if self.owned[p][MERCHANT_GUILD]:
                moves += self._guild_moves()
            return moves
        if ph == Phase.BUILD:
            moves = [PASS]
            if self.owned[p][MERCHANT_GUILD]:
                moves += self._guild_moves()
            built = self.built
            affordable = self.affordable(hand)
            for kind in range(5):
                if not built[kind] and affordable[kind] and self._can_build(kind):
                    moves.append(BUILD_MOVES[kind])
            return moves
        if ph == Phase.PAY:
            return self._payment_moves()
        if ph in (Phase.DRAW_PILE_DISCARD, Phase.MARKET_RETURN, Phase.PLAYER_RETURN,
                  Phase.ROBBER_DISCARD):
            moves = [RESOURCE_MOVES[r] for r in range(NUM_RES) if hand[r] > 0]
            if ph == Phase.DRAW_PILE_DISCARD and self.batch_count > 0:
                moves.insert(0, PASS)
            return moves
        if ph == Phase.MARKET_TAKE:
            market = self.market
            moves = [RESOURCE_MOVES[r] for r in range(NUM_RES) if market[r] > 0]
            if self.batch_count > 0:
                moves.insert(0, PASS)
            return moves
        if ph == Phase.MARKET_DAY:
            market = self.market
            return [RESOURCE_MOVES[r] for r in range(NUM_RES) if market[r] > 0]
        if ph == Phase.PLAYER_TAKE:
            moves = [PASS] if self.batch_count > 0 else []
            moves.append(BLIND_DRAW_MOVE)
            if self.owned[p][LIBRARY] and not self.library_used:
                moves.append(USE_LIBRARY_MOVE)
            return moves
        if ph == Phase.LIBRARY_PICK:
            partner = self.hands[self.partner]
            return [RESOURCE_MOVES[r] for r in range(NUM_RES) if partner[r] > 0]
        if ph == Phase.CHOOSE_IMPROVEMENT:
            own = self.owned[p]
            return [(Op.CHOOSE_IMPROVEMENT, k) for k in range(len(IMPROVEMENT_KINDS))
                    if self.supply_improvements[k] > 0 and not own[k]]
        if ph == Phase.FATE_FLIP:
            return [PASS, TURN_FATE_CARD_MOVE]
        if ph == Phase.KNIGHT_DRAW:
            return [PASS, BLIND_DRAW_MOVE]
        return []

    def _market_capacity(self) -> int:
        # A roadless player's single exchange is with the draw pile only (spec 5.1).
        return self.market_bonus + (self.allowance if self.trade_any else 0)

    def _guild_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        if not self.owned[p][MERCHANT_GUILD] or self.guild_used:
            return []
        mine = self.vp(p)
        return [(Op.GUILD_STEAL, q) for q in self._opponent_order[p]
                if self.vp(q) >= mine and sum(self.hands[q]) > 0]

    def affordable(self, hand: list[int]) -> tuple[bool, ...]:
        """Per build kind: can ``hand`` pay its cost, substitutions included? (Memoised per hand.)"""
        key = tuple(hand)
        kinds = self._payments.affordable.get(key)
        if kinds is None:
            self._payments.bound()
            kinds = self._payments.affordable[key] = tuple(payable(c, hand, self.rate) for c in self.costs)
        return kinds

    def _can_build(self, kind: int) -> bool:
        """The card to build is available (from the supply or an opponent, G11; a settlement to
        upgrade; an improvement kind, G34). Whether the hand can pay is ``affordable``."""
        p = self.actor
        if kind == ROAD:
            ok = self.supply_roads > 0 or self.victim(ROAD) >= 0
        elif kind == KNIGHT:
            ok = self.supply_knights > 0 or self.victim(KNIGHT) >= 0
        elif kind == SETTLEMENT:
            ok = len(self.settlement_stack) > 0
        elif kind == CITY:
            ok = len(self.settlements[p]) > 0
        else:
            own = self.owned[p]
            ok = self.unimproved_cities[p] > 0 and any(
                self.supply_improvements[k] > 0 and not own[k] for k in range(len(IMPROVEMENT_KINDS)))
        return ok

    def _payment_moves(self) -> list[tuple[int, int]]:
        hand, unpaid, rate = self.hands[self.actor], self.unpaid, self.rate
        moves = []
        if all(h >= u for h, u in zip(hand, unpaid)):
            moves.append(PAY_AS_PRINTED_MOVE)
        for a in range(NUM_RES):
            if unpaid[a] == 0:
                continue
            for b in range(NUM_RES):
                if b == a or hand[b] < rate:
                    continue
                unpaid[a] -= 1
                hand[b] -= rate
                ok = payable(unpaid, hand, rate)
                unpaid[a] += 1
                hand[b] += rate
                if ok:
                    moves.append((Op.SUBSTITUTE, 5 * a + b))
        return moves

    # ------------------------------------------------------------------------ transitions ----
    def play(self, move: tuple[int, int]) -> None:
        """Apply a move after checking it is legal; the state is unchanged on error."""
        move = (int(move[0]), int(move[1]))
        if move not in self.legal_moves():
            raise IllegalActionError(f"move {move} is illegal in phase {PHASE_NAMES[self.phase]} "
                                     f"for seat {self.actor}")
        self.apply(move)

    def apply(self, move: tuple[int, int]) -> None:
        """Apply a move known to be legal."""
        op, arg = move
        ph = self.phase
        p = self.actor
        if ph == Phase.TRADE:
            if op == Op.PASS:
                self.phase = Phase.BUILD
            elif op == Op.GUILD_STEAL:
                self._guild_steal(arg)
            else:
                self._open_batch(op, arg)
        elif ph == Phase.BUILD:
            if op == Op.PASS:
                self._end_build_phase()
            elif op == Op.GUILD_STEAL:
                self._guild_steal(arg)
            else:
                self.pay_kind = arg
                self.unpaid = list(self.costs[arg])
                self.phase = Phase.PAY
                self._auto_pay()
        elif ph == Phase.PAY:
            hand = self.hands[p]
            if op == Op.PAY_AS_PRINTED:
                for r in range(NUM_RES):
                    u = self.unpaid[r]
                    if u:
                        hand[r] -= u
                        self.discard[r] += u
                        self.unpaid[r] = 0
            else:
                a, b = divmod(arg, 5)
                self.unpaid[a] -= 1
                hand[b] -= self.rate
                self.discard[b] += self.rate
            self._auto_pay()
        elif ph == Phase.DRAW_PILE_DISCARD:
            if op == Op.PASS:
                self._finish_draw_pile_batch()
            else:
                self.hands[p][arg] -= 1
                self.discard[arg] += 1
                self.batch_count += 1
                self.allowance -= 1
                if self.allowance == 0 or sum(self.hands[p]) == 0:
                    self._finish_draw_pile_batch()
        elif ph == Phase.MARKET_TAKE:
            if op == Op.PASS:
                self.phase = Phase.MARKET_RETURN
            else:
                self.market[arg] -= 1
                self.hands[p][arg] += 1
                self.batch_count += 1
                if self.market_bonus > 0:  # Marketplace bonus is used first (spec 5.1)
                    self.market_bonus -= 1
                else:
                    self.allowance -= 1
                if self._market_capacity() == 0 or sum(self.market) == 0:
                    self.phase = Phase.MARKET_RETURN
        elif ph == Phase.MARKET_RETURN:
            self.hands[p][arg] -= 1
            self.market[arg] += 1
            self.batch_count -= 1
            if self.batch_count == 0:
                self.phase = Phase.TRADE
        elif ph == Phase.PLAYER_TAKE:
            if op == Op.PASS:
                self.phase = Phase.PLAYER_RETURN
            elif op == Op.USE_LIBRARY:
                self.library_used = True
                self.phase = Phase.LIBRARY_PICK
            else:
                self._take_from_partner(self._random_card(self.hands[self.partner]))
        elif ph == Phase.LIBRARY_PICK:
            self._take_from_partner(arg)
        elif ph == Phase.PLAYER_RETURN:
            self.hands[p][arg] -= 1
            self.hands[self.partner][arg] += 1
            self.batch_count -= 1
            if self.batch_count == 0:
                self.partner = DRAW_PILE_PARTNER
                self.batch_received = [0] * NUM_RES
                self.phase = Phase.TRADE
        elif ph == Phase.CHOOSE_IMPROVEMENT:
            self.supply_improvements[arg] -= 1
            own = self.owned[p]
            self.owned[p] = own[:arg] + (True,) + own[arg + 1:]
            self.improvement_vp[p] += self.setup.improvement_vp[arg]
            self.unimproved_cities[p] -= 1  # G18: one improvement per city
            self.phase = Phase.BUILD
            self._win_check()
        elif ph == Phase.FATE_FLIP:
            if op == Op.TURN_FATE_CARD:
                self.fate_clockwise = not self.fate_clockwise
            self.phase = Phase.BUILD
        elif ph == Phase.ROBBER_DISCARD:
            self.hands[p][arg] -= 1
            self.discard[arg] += 1
            self.quota -= 1
            if self.quota == 0:
                self._next_event_step()
        elif ph == Phase.MARKET_DAY:
            self.market[arg] -= 1
            self.hands[p][arg] += 1
            self._refill_market()
            self._next_event_step()
        elif ph == Phase.KNIGHT_DRAW:
            if op == Op.PASS:
                self._end_turn()
            else:
                self._draw_to(self.active, 1)
                self.extra_draws_left -= 1
                if self.extra_draws_left == 0:
                    self._end_turn()

    # --------------------------------------------------------------------------- trading ----
    def _open_batch(self, op: int, arg: int) -> None:
        self.batch_count = 0
        if op == Op.TRADE_DRAW_PILE:
            self.partner = DRAW_PILE_PARTNER
            self.phase = Phase.DRAW_PILE_DISCARD
        elif op == Op.TRADE_MARKET:
            self.partner = MARKET_PARTNER
            self.phase = Phase.MARKET_TAKE
        else:
            self.partner = arg
            self.batch_received = [0] * NUM_RES
            self.phase = Phase.PLAYER_TAKE

    def _finish_draw_pile_batch(self) -> None:
        self._draw_to(self.actor, self.batch_count)
        self.batch_count = 0
        self.phase = Phase.TRADE

    def _take_from_partner(self, r: int) -> None:
        self.hands[self.partner][r] -= 1
        self.hands[self.actor][r] += 1
        self.batch_received[r] += 1
        self.batch_count += 1
        self.allowance -= 1
        if self.allowance == 0 or sum(self.hands[self.partner]) == 0:
            self.phase = Phase.PLAYER_RETURN
        else:
            self.phase = Phase.PLAYER_TAKE

    def _guild_steal(self, q: int) -> None:
        # G8: once per turn, not an exchange; a uniformly random card of the victim's hand.
        self.guild_used = True
        r = self._random_card(self.hands[q])
        self.hands[q][r] -= 1
        self.hands[self.actor][r] += 1

    def _random_card(self, hand: list[int]) -> int:
        k = int(self.rng.integers(sum(hand)))
        for r in range(NUM_RES):
            k -= hand[r]
            if k < 0:
                return r
        raise AssertionError("random card from an empty hand")

    def _draw_to(self, p: int, k: int) -> None:
        """Draw k cards into p's hand, reshuffling the discard pile when the pile is empty (G13)."""
        hand = self.hands[p]
        pile = self.draw_pile
        for _ in range(k):
            if not pile:
                if not self._reshuffle():
                    return
            hand[pile.pop()] += 1

    def _reshuffle(self) -> bool:
        cards = [r for r in range(NUM_RES) for _ in range(self.discard[r])]
        if not cards:
            return False
        self.discard = [0] * NUM_RES
        # in place: callers hold a reference to the pile
        self.draw_pile[:] = [cards[i] for i in self.rng.permutation(len(cards))]
        return True

    def _refill_market(self) -> None:
        """Market day: refill to the market size from the draw pile (G5, G14)."""
        missing = self.setup.market_size - sum(self.market)
        pile = self.draw_pile
        for _ in range(missing):
            if not pile and not self._reshuffle():
                return
            self.market[pile.pop()] += 1

    # -------------------------------------------------------------------------- building ----
    def _auto_pay(self) -> None:
        """Spec 9.4: pay automatically when exactly one multiset of cards can pay what is unpaid
        (different orders of the same substitutions are one payment); resolve once paid."""
        if any(self.unpaid):
            paid = self._only_payment()
            if paid is None:
                return
            hand = self.hands[self.actor]
            for r in range(NUM_RES):
                hand[r] -= paid[r]
                self.discard[r] += paid[r]
            self.unpaid = [0] * NUM_RES
        self._resolve_build()

    def _only_payment(self) -> tuple[int, ...] | None:
        """The cards of the only payment of the unpaid cost, or None if there are several or none."""
        hand, unpaid = self.hands[self.actor], self.unpaid
        key = (*unpaid, *hand)
        memo = self._payments.only_payment
        if key not in memo:
            self._payments.bound()
            memo[key] = self._find_only_payment()
        return memo[key]

    def _find_only_payment(self) -> tuple[int, ...] | None:
        hand, unpaid, rate = self.hands[self.actor], self.unpaid, self.rate
        if all(h >= u for h, u in zip(hand, unpaid)):
            # The printed cost is one payment. A substitution that keeps the rest payable leads to
            # another (payable states always complete), which pays rate - 1 more cards per
            # substitution: so the printed cost is the only payment iff no substitution is legal.
            if max(hand) >= rate:
                for a in range(NUM_RES):
                    if unpaid[a] == 0:
                        continue
                    for b in range(NUM_RES):
                        if b != a and hand[b] >= rate:
                            unpaid[a] -= 1
                            hand[b] -= rate
                            ok = payable(unpaid, hand, rate)
                            unpaid[a] += 1
                            hand[b] += rate
                            if ok:
                                return None
            return tuple(unpaid)
        outcomes = self._payment_outcomes()
        return next(iter(outcomes)) if len(outcomes) == 1 else None

    def _payment_outcomes(self) -> set[tuple[int, ...]]:
        """The distinct multisets of cards that can pay the unpaid cost (search stops at two)."""
        rate = self.rate
        hand = self.hands[self.actor]
        if max(hand) < rate:  # no substitution possible: the printed cost is the only payment
            return {tuple(self.unpaid)} if all(h >= u for h, u in zip(hand, self.unpaid)) else set()
        outcomes: set[tuple[int, ...]] = set()
        seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
        start = tuple(self.hands[self.actor])
        stack = [(tuple(self.unpaid), start)]
        while stack and len(outcomes) < 2:
            unpaid, hand = stack.pop()
            if (unpaid, hand) in seen:
                continue
            seen.add((unpaid, hand))
            if all(h >= u for h, u in zip(hand, unpaid)):
                outcomes.add(tuple(s - h + u for s, h, u in zip(start, hand, unpaid)))
            for a in range(NUM_RES):
                if unpaid[a] == 0:
                    continue
                for b in range(NUM_RES):
                    if b != a and hand[b] >= rate:
                        u2 = unpaid[:a] + (unpaid[a] - 1,) + unpaid[a + 1:]
                        h2 = hand[:b] + (hand[b] - rate,) + hand[b + 1:]
                        if payable(list(u2), list(h2), rate):
                            stack.append((u2, h2))
        return outcomes

    def _resolve_build(self) -> None:
        kind, p = self.pay_kind, self.actor
        self.built[kind] = 1
        self.pay_kind = -1
        self.phase = Phase.BUILD
        if kind == ROAD:
            if self.supply_roads > 0:
                self.supply_roads -= 1
            else:
                self.roads[self.victim(ROAD)] -= 1
            self.roads[p] += 1
            self._win_check()
        elif kind == KNIGHT:
            if self.supply_knights > 0:
                self.supply_knights -= 1
            else:
                self.knights[self.victim(KNIGHT)] -= 1
            self.knights[p] += 1
            self._win_check()
        elif kind == SETTLEMENT:
            self.settlements[p].append(self.settlement_stack.pop())
            self._win_check()
            if self.phase != Phase.GAME_OVER and self.fate_in_use:
                self.phase = Phase.FATE_FLIP
        elif kind == CITY:
            # G19: the oldest settlement becomes the city (backs are unknown, so any is as random).
            event = self.settlements[p].pop(0)
            self.city_events[p].append(event)
            self.unimproved_cities[p] += 1
            self.events_revealed[event] += 1
            self._win_check()
            if self.phase != Phase.GAME_OVER:  # G30: a winning city's event is not resolved
                self._start_event(event)
        else:
            self.phase = Phase.CHOOSE_IMPROVEMENT

    def _win_check(self) -> None:
        if self.vp(self.active) >= self.setup.win_vp:  # G17: >= 10 on one's own turn
            self.winner = self.active
            self.phase = Phase.GAME_OVER
            self.actor = self.active

    # ---------------------------------------------------------------------------- events ----
    def _start_event(self, event: int) -> None:
        n, b = self.num_players, self.active
        order = [(b + d) % n for d in range(n)]  # G32: clockwise from the builder
        if event == ROBBER_RAID:
            limit = self.setup.robber_hand_limit
            self.event_queue = [(q, sum(self.hands[q]) // 2) for q in order
                                if sum(self.hands[q]) > limit and not self.owned[q][TOWN_HALL]]
            self.event = ROBBER_RAID
        else:
            self.event_queue = [(q, 1) for q in order]
            self.event = MARKET_DAY
        self._next_event_step()

    def _next_event_step(self) -> None:
        while self.event_queue:
            q, quota = self.event_queue.pop(0)
            if self.event == MARKET_DAY and sum(self.market) == 0:
                continue  # G14: nothing to take; skip rather than select a player with no move
            self.actor = q
            self.quota = quota
            self.phase = Phase.ROBBER_DISCARD if self.event == ROBBER_RAID else Phase.MARKET_DAY
            return
        if self.event == ROBBER_RAID and self.fate_in_use:
            self.fate_clockwise = not self.fate_clockwise  # [SRC] forced flip after a raid
        self.event = -1
        self.actor = self.active
        self.phase = Phase.BUILD

    # ----------------------------------------------------------------------- turn ending ----
    def _end_build_phase(self) -> None:
        p = self.active
        self._draw_to(p, self.setup.draw_per_turn)
        extra = self.a_knights(p)
        if extra and self.config.optional_knight_draws:
            self.extra_draws_left = extra
            self.phase = Phase.KNIGHT_DRAW
            return
        self._draw_to(p, extra)
        self._end_turn()

    def _end_turn(self) -> None:
        self.turn += 1
        self.active = (self.active + 1) % self.num_players
        self.actor = self.active
        self._start_turn()

    def _start_turn(self) -> None:
        p = self.active
        # Spec 5.1: one exchange per A-side road; without roads one draw-pile exchange.
        self.trade_any = self.roads[p] > 0
        self.allowance = self.a_roads(p) if self.trade_any else 1
        self.market_bonus = 1 if self.owned[p][MARKETPLACE] else 0
        self.library_used = False
        self.guild_used = False
        self.built = [0] * len(BUILD_KINDS)  # 0/1 per build kind (ints pack faster than bools)
        self.partner = DRAW_PILE_PARTNER
        self.batch_count = 0
        self.batch_received = [0] * NUM_RES
        self.pay_kind = -1
        self.unpaid = [0] * NUM_RES
        self.event = -1
        self.event_queue: list[tuple[int, int]] = []
        self.quota = 0
        self.extra_draws_left = 0
        self.phase = Phase.TRADE

    # ------------------------------------------------------------------------- rendering ----
    def render_text(self) -> str:
        n = self.num_players
        res = lambda counts: " ".join(f"{RESOURCES[r][:2]}{c}" for r, c in enumerate(counts) if c) or "-"
        lines = [
            f"turn {self.turn}  active seat {self.active}  to move: seat {self.current_player}  "
            f"phase {PHASE_NAMES[self.phase]}"
            + (f"  fate card: {'clockwise' if self.fate_clockwise else 'counter-clockwise'}"
               if self.fate_in_use else ""),
            f"market [{res(self.market)}]  draw pile {len(self.draw_pile)}  discard [{res(self.discard)}]",
            f"supply: roads {self.supply_roads}  knights {self.supply_knights}  settlements "
            f"{len(self.settlement_stack)}  improvements "
            + " ".join(f"{IMPROVEMENT_KINDS[k]}:{c}" for k, c in enumerate(self.supply_improvements) if c),
        ]
        for p in range(n):
            owned = ",".join(IMPROVEMENT_KINDS[k] for k in range(len(IMPROVEMENT_KINDS)) if self.owned[p][k])
            events = ",".join(EVENTS[e] for e in self.city_events[p])
            lines.append(
                f"seat {p}{'*' if p == self.active else ' '} VP {self.vp(p):2d}  hand {self.hand_size(p):2d}  "
                f"settlements {len(self.settlements[p])}  cities {len(self.city_events[p])} [{events}]  "
                f"roads {self.roads[p]}  knights {self.knights[p]}  improvements [{owned}]"
            )
        if self.winner >= 0:
            lines.append(f"seat {self.winner} wins with {self.vp(self.winner)} VP")
        return "\n".join(lines)
