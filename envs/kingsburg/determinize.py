"""Kingsburg's hidden information sampled again for one seat (``envs.core.determinize``).

Hidden from a seat (spec, "hidden information"; tests/kingsburg/test_env.py): the enemy cards of the years to come
and this year's before the reveal (unless the seat peeked), the dice still to be rolled, other seats' committed
army tokens (module 3) before the reveal, and other seats' governor hands and chosen governors (module 2) before the
governors are revealed.
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    other = engine.clone()
    t = other.tables
    for y in range(5):
        current = y == other.year - 1
        if y < other.year - 1 or (current and (other.revealed or other.peeked[seat])):
            continue  # past cards and a card the seat has seen stay
        stack = t.enemies_by_year[y]
        other.enemy_deck[y] = stack[int(rng.integers(len(stack)))]
    other._dice = [int(v) for v in rng.integers(1, 7, size=len(other._dice))]
    other.rng = fresh_generator(rng)
    others = [p for p in range(other.num_players) if p != seat]
    for p in others:
        if other.army_choice[p] >= 0:  # committed, not yet revealed: any token the seat still holds
            tokens = sorted(other.army_tokens[p])
            other.army_choice[p] = int(tokens[int(rng.integers(len(tokens)))])
    if other.config.module_governors and not other.governors_revealed:
        deal = min(t.governor_deal, len(t.governors))
        deal_distinct = deal * other.num_players <= len(t.governors)  # as _deal_governors deals
        unseen = shuffled((g for g in range(len(t.governors))
                           if not (deal_distinct and g in other.governor_hand[seat])), rng)
        for p in others:
            size = len(other.governor_hand[p])
            if deal_distinct:
                hand, unseen = unseen[:size], unseen[size:]
            else:
                hand = [int(g) for g in rng.choice(len(t.governors), size, replace=False)]
            other.governor_hand[p] = sorted(hand)
            if other.governor[p] >= 0:
                other.governor[p] = other.governor_hand[p][int(rng.integers(size))]
    other.stamp_everything()  # edited from outside the rules: observers look again
    return other
