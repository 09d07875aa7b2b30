"""Catan card game's hidden information sampled again for one seat (``envs.core.determinize``).

Hidden from a seat (tests/catan_card/test_env.py): the other hands (their sizes are public) and the draw pile's
order, except the hand the seat is looking at through its Library (S6), and the city side of every settlement
card, its own included, with the settlement stack's order.
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled
from .engine import NUM_RES, Phase


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    other = engine.clone()
    n = other.num_players
    seen = {seat}
    if other.phase == Phase.LIBRARY_PICK and other.actor == seat:
        seen.add(other.partner)  # the Library shows the partner's hand
    unseen = [p for p in range(n) if p not in seen]
    pool = [r for p in unseen for r in range(NUM_RES) for _ in range(other.hands[p][r])] + other.draw_pile
    pool = shuffled(pool, rng)
    k = 0
    for p in unseen:
        size = sum(other.hands[p])
        hand = [0] * NUM_RES
        for r in pool[k:k + size]:
            hand[r] += 1
        other.hands[p] = hand
        k += size
    other.draw_pile = pool[k:]
    piles = other.settlements + [other.settlement_stack]
    sides = shuffled([card for pile in piles for card in pile], rng)
    k = 0
    for pile in piles:
        pile[:] = sides[k:k + len(pile)]
        k += len(pile)
    other.rng = fresh_generator(rng)
    return other
