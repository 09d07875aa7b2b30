"""Catan - the fast card game's complete moves (envs/core/moves.py): a whole trade batch, a whole build.

The flat encoding takes a trade card by card and a build step by step (spec 9.4). The rulebook's moves:

* **A trade batch** (spec 5.1, the table of the three partners): with the draw pile, "put k hand cards onto the
  discard pile, then draw k"; with the market, "take k cards, then put back exactly k"; with an opponent, "draw
  k cards at random from that opponent's hidden hand, then give that opponent exactly k". A batch with the draw
  pile is one move: ``TRADE_DRAW_PILE``, the cards discarded (and ``PASS`` when fewer than the limit); the draw
  ends it. A batch with the market is one move: ``TRADE_MARKET``, the cards taken, ``PASS`` when fewer than the
  limit, the cards put back. A batch with an opponent is split where chance and hidden information come in:
  ``TRADE_OPP(+j)`` with its first ``BLIND_DRAW`` (a random card) or ``USE_LIBRARY`` (the revealed hand, G9) is
  one move, each further ``BLIND_DRAW`` or ``USE_LIBRARY`` one, the card picked from the revealed hand one, and
  the giving back (``PASS``, then the cards given) one.
* **A build** (spec 5.2, 4.4): ``BUILD(kind)`` with its follow-up, the improvement kind chosen after paying
  (G34) or the optional turn of the fate card after a settlement (G25). Its cost is paid automatically when only
  one payment is possible; when 3:1 substitutions (spec 5.2) offer a choice, each payment decision is a move of
  its own, the last one with the build's follow-up: the engine settles a payment by itself as soon as only one
  remains, so one set of substitutions ends after different numbers of decisions in different orders and is no
  single move of the flat decisions. A city's event (spec 5.5) is revealed when it is built and ends the move.
* **A robber-raid discard** (spec 5.5, G4: "discards half of them, rounded down, and chooses which"): one move
  per seat, of at most ``MAX_CARDS`` cards (the rest in further moves); a market-day take is one card, and the
  market's refill from the draw pile ends it.
* Every other decision (ending a phase, the Merchant Guild's random steal, the optional knight draws, G24) is a
  move of its own.

Chance and hidden information: the draw pile is shuffled ahead, so drawing reveals cards without touching the
random generator. A move ends wherever cards are drawn (a draw-pile batch, the draw phase, the knight draws, the
market's refill), a card is drawn at random (``BLIND_DRAW``, a steal), a hand is revealed (``USE_LIBRARY``) or a
city's event is turned up. A settlement taken from the shuffled stack keeps its city side hidden from everyone
(spec 2.4), so the fate-card choice that follows it stays in the build's move.

Cards given, discarded, taken or put back are a set: every order of them is one move, listed once in ascending
order of resource (``may_follow``). Parts: the first decision (the flat decisions, or none when the move starts
with a card), the cards (a multiset of up to ``MAX_CARDS``), and then the cards put back into the market or the
build's follow-up decision.
"""
from __future__ import annotations

from itertools import combinations_with_replacement

from ..core.moves import MoveGrain, MovePart
from .data import IMPROVEMENT_KINDS, RESOURCES, SETTLEMENT, IMPROVEMENT
from .engine import Phase

NUM_RES = len(RESOURCES)
#: the most cards one move gives, takes or discards in one go: the market's five cards, which is also the most
#: exchanges a turn allows (5 A-side roads of the 9 in play); a longer discard or giving back takes several moves
MAX_CARDS = 5
CARD_SETS = tuple(counts for size in range(1, MAX_CARDS + 1)
                  for counts in sorted({tuple(combo.count(r) for r in range(NUM_RES))
                                        for combo in combinations_with_replacement(range(NUM_RES), size)},
                                       reverse=True))
_CARD_SET_INDEX = {counts: i for i, counts in enumerate(CARD_SETS)}
# phases in which a move goes on while it has cards left to choose
_CARD_STAGES = (Phase.DRAW_PILE_DISCARD, Phase.MARKET_TAKE, Phase.ROBBER_DISCARD)


class CatanCardGrain(MoveGrain):
    max_length = 2 * MAX_CARDS + 2  # a market batch: TRADE_MARKET, 5 takes, PASS, 5 cards put back
    pointer_rows = 512  # a market batch of 3 cards can offer several hundred (benchmarks/encodings.py)

    def __init__(self, flat):
        super().__init__(flat)
        self._pass = flat.index("PASS")
        self._draw_pile = flat.index("TRADE_DRAW_PILE")
        self._market = flat.index("TRADE_MARKET")
        n = flat.num_players
        self._opponents = range(flat.index("TRADE_OPP(+1)"), flat.index("TRADE_OPP(+1)") + n - 1)
        self._first_card = flat.index(f"RES({RESOURCES[0]})")
        self._blind_draw = flat.index("BLIND_DRAW")
        self._library = flat.index("USE_LIBRARY")
        self._build = flat.index("BUILD(road)")
        self._pay_first = flat.index("PAY_AS_PRINTED")
        self._pay_last = self._pay_first + 20  # PAY_AS_PRINTED and the 20 SUBSTITUTE(a<-b)
        self._improvement = flat.index(f"IMPROVEMENT({IMPROVEMENT_KINDS[0]})")
        self._turn_fate = flat.index("TURN_FATE_CARD")
        # the second decisions of a move that opens an opponent batch or builds, values 1.. of the last part
        # (0: none; after them, the cards put back into the market)
        seconds = [self._blind_draw, self._library, self._pass, self._turn_fate]  # PASS: keep the fate card
        seconds += [self._improvement + k for k in range(len(IMPROVEMENT_KINDS))]
        self._seconds = {index: 1 + i for i, index in enumerate(seconds)}
        self._second_names = {value: flat.action_name(index) for index, value in self._seconds.items()}
        self._put_back = 1 + len(seconds)

    # -- which decisions are cards -------------------------------------------------------------------
    def _card(self, index: int) -> bool:
        return 0 <= index - self._first_card < NUM_RES

    def _stage_cards(self, engine, chain: tuple[int, ...]) -> int:
        """How many cards the move has chosen in its current stage (the cards put back into the market, or
        the trailing run of cards)."""
        if engine.phase == Phase.MARKET_RETURN:
            cards = sum(map(self._card, chain))  # the takes and the cards put back so far
            return (cards - engine.batch_count) // 2
        run = 0
        while run < len(chain) and self._card(chain[-1 - run]):
            run += 1
        return run

    # -- where a move ends ---------------------------------------------------------------------------
    def may_continue(self, engine, index: int) -> bool:
        if self._card(index):
            phase = engine.phase
            if phase in (Phase.MARKET_DAY, Phase.LIBRARY_PICK):
                return False  # the market's refill; a card picked from the revealed hand is a move alone
            if phase == Phase.ROBBER_DISCARD:
                return engine.quota > 1
            if phase == Phase.DRAW_PILE_DISCARD:
                return engine.allowance > 1 and engine.hand_size(engine.actor) > 1  # the last card draws
            return phase == Phase.MARKET_TAKE or engine.batch_count > 1  # the last card given ends the batch
        if index in (self._draw_pile, self._market) or index in self._opponents:
            return True
        if index == self._build + IMPROVEMENT or (index == self._build + SETTLEMENT and engine.fate_in_use):
            return True
        if self._pay_first <= index <= self._pay_last:
            return engine.pay_kind == IMPROVEMENT or (engine.pay_kind == SETTLEMENT and engine.fate_in_use)
        return index == self._pass and engine.phase in (Phase.MARKET_TAKE, Phase.PLAYER_TAKE)  # give back next

    def continues(self, engine, chain: tuple[int, ...]) -> bool:
        phase = engine.phase
        if phase in _CARD_STAGES:
            return self._stage_cards(engine, chain) < MAX_CARDS
        if phase == Phase.MARKET_RETURN:
            return True  # as many cards go back as were taken, at most the market's five
        if phase == Phase.PLAYER_TAKE:
            return chain[-1] in self._opponents  # the batch is opened: its first card is drawn or picked
        if phase == Phase.PLAYER_RETURN:
            # giving back, begun by PASS or by a card given (not a card just drawn or picked)
            gave = chain[-1] == self._pass or engine.batch_count < sum(engine.batch_received)
            return gave and self._stage_cards(engine, chain) < MAX_CARDS
        return phase in (Phase.CHOOSE_IMPROVEMENT, Phase.FATE_FLIP)  # the build's follow-up

    def may_follow(self, engine, chain: tuple[int, ...], index: int) -> bool:
        if not self._card(index) or not self._card(chain[-1]) or not self._stage_cards(engine, chain):
            return True
        return index >= chain[-1]  # the cards of one stage in ascending order of resource

    # -- parts -----------------------------------------------------------------------------------------
    def parts(self) -> tuple[MovePart, ...]:
        return (MovePart("decision", self.flat.num_actions + 1), MovePart("cards", 1 + len(CARD_SETS)),
                MovePart("then", self._put_back + len(CARD_SETS)))

    def _card_set(self, cards) -> int:
        counts = [0] * NUM_RES
        for index in cards:
            counts[index - self._first_card] += 1
        return 1 + _CARD_SET_INDEX[tuple(counts)] if cards else 0

    def parts_of(self, chain: tuple[int, ...]) -> tuple[int, int, int]:
        first = chain[0]
        decision = self.flat.num_actions if self._card(first) else first
        rest = chain if self._card(first) else chain[1:]
        cards = [index for index in rest if self._card(index)]
        then = 0
        if first == self._market:
            if self._pass in rest:
                taken = rest.index(self._pass)
            else:
                taken = len(cards) // 2  # the limit reached: as many put back as taken
            put_back = self._card_set(cards[taken:])
            cards = cards[:taken]
            then = self._put_back + put_back - 1 if put_back else 0
        elif rest and (first in self._opponents or self._build <= first <= self._pay_last):
            then = self._seconds[rest[0]]  # an opponent batch's first card, a build's follow-up
        return decision, self._card_set(cards), then

    def part_value_name(self, part: int, value: int) -> str:
        if part == 0:
            return "" if value == self.flat.num_actions else self.flat.action_name(value)
        if part == 2 and value < self._put_back:
            return self._second_names.get(value, "")
        if part == 2:
            value -= self._put_back - 1
        if not value:
            return ""
        counts = CARD_SETS[value - 1]
        return " + ".join(f"RES({RESOURCES[r]})" for r in range(NUM_RES) for _ in range(counts[r]))
