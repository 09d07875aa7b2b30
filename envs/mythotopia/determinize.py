"""Mythotopia's hidden information sampled again for one seat (``envs.core.determinize``).

Hidden from a seat (tests/mythotopia/test_env.py): the other seats' hands and draw piles (their sizes are public;
which cards a seat holds in hand and draw pile together is public, the split is not), the order of its own draw
pile and of the improvement deck (except the top three the Philosopher shows its player) and of the province stack
(kept while a card is being drafted from it), and the other seats' secret setup picks.
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled
from .data import NUM_PROVINCES
from .engine import Phase


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    other = engine.clone()
    for p in range(other.num_players):
        if p == seat:
            other.draw[p] = shuffled(other.draw[p], rng)
            continue
        pool = shuffled(other.hand[p] + other.draw[p], rng)
        h = len(other.hand[p])
        other.hand[p], other.draw[p] = pool[:h], pool[h:]
    if other.phase == Phase.PHILO_CARD and other.active == seat:
        other.impdeck[:-3] = shuffled(other.impdeck[:-3], rng)  # the top three are in the seat's view
    else:
        other.impdeck = shuffled(other.impdeck, rng)
    if other.phase != Phase.DRAFT_CARD:
        other.pstack = shuffled(other.pstack, rng)
    if other.phase in (Phase.SETUP_CITADEL, Phase.SETUP_DISCARD):
        for p in range(other.num_players):
            picks = len(other.setup_choice[p])
            if p != seat and picks:  # secret picks: any of that seat's own provinces
                own = [x for x in range(NUM_PROVINCES) if other.controller[x] == p]
                other.setup_choice[p] = [own[i] for i in sorted(rng.choice(len(own), picks, replace=False))]
    other.rng = fresh_generator(rng)
    other._rebuild_loc()  # card locations as the encoder reads them
    other.stamp_everything()  # edited from outside the rules: observers look again
    return other
