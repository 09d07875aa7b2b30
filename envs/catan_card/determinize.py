"""Catan card game's hidden information sampled again for one seat (``envs.core.determinize``).

Hidden from a seat (tests/catan_card/test_env.py): the other hands (their sizes are public) and the draw pile's
order, except the hand the seat is looking at through its Library (S6), and the city side of every settlement
card, its own included, with the settlement stack's order. A seat paying for a build (S9) is dealt a hand that can
pay what is left unpaid, as its real one can.
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled
from .engine import NUM_RES, Phase, payable

#: deals tried for a paying seat's hand before keeping the real hands (a deal that pays is the rule, not rare)
PAYING_DEALS = 200


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    other = engine.clone()
    n = other.num_players
    seen = {seat}
    if other.phase == Phase.LIBRARY_PICK and other.actor == seat:
        seen.add(other.partner)  # the Library shows the partner's hand
    unseen = [p for p in range(n) if p not in seen]
    pool = [r for p in unseen for r in range(NUM_RES) for _ in range(other.hands[p][r])] + other.draw_pile
    paying = other.actor if other.phase == Phase.PAY and other.actor in unseen else None
    sizes = [sum(other.hands[p]) for p in unseen]
    for _ in range(PAYING_DEALS):
        pool = shuffled(pool, rng)
        hands = _deal(pool, sizes)
        if paying is None or payable(other.unpaid, hands[unseen.index(paying)], other.rate):
            draw_pile = pool[sum(sizes):]
            break
    else:  # a sample must stay playable
        hands, draw_pile = [other.hands[p] for p in unseen], shuffled(other.draw_pile, rng)
    for p, hand in zip(unseen, hands):
        other.hands[p] = hand
    other.draw_pile = draw_pile
    piles = other.settlements + [other.settlement_stack]
    sides = shuffled([card for pile in piles for card in pile], rng)
    k = 0
    for pile in piles:
        pile[:] = sides[k:k + len(pile)]
        k += len(pile)
    other.rng = fresh_generator(rng)
    return other


def _deal(pool: list[int], sizes: list[int]) -> list[list[int]]:
    """Hands of ``sizes`` cards from the front of ``pool``, as counts per resource."""
    hands, k = [], 0
    for size in sizes:
        hand = [0] * NUM_RES
        for r in pool[k:k + size]:
            hand[r] += 1
        hands.append(hand)
        k += size
    return hands
