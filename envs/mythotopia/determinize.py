"""Mythotopia's hidden information sampled again for one seat (``envs.core.determinize``).

Hidden from a seat (tests/mythotopia/test_env.py): the other seats' hands and draw piles (their sizes are public;
which cards a seat holds in hand and draw pile together is public, the split is not), the order of its own draw
pile and of the improvement deck (except the top three the Philosopher shows its player) and of the province stack
(kept while a card is being drafted from it), and the other seats' secret setup picks. A seat in the middle of an
action (paying, choosing a location card, building with a chosen card) is dealt a hand with which it can go on, as
it can with its real one.
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled
from .data import NUM_PROVINCES
from .engine import Phase

#: deals tried for the hand of a seat in the middle of an action before keeping its real hand
ACTING_DEALS = 200


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    other = engine.clone()
    acting = other.active if other.phase not in (Phase.CHOOSE, Phase.GAME_OVER) and other.active != seat else None
    for p in range(other.num_players):
        if p == seat:
            other.draw[p] = shuffled(other.draw[p], rng)
            continue
        real = other.hand[p], other.draw[p]
        for _ in range(ACTING_DEALS if p == acting else 1):
            pool = shuffled(real[0] + real[1], rng)
            h = len(real[0])
            other.hand[p], other.draw[p] = pool[:h], pool[h:]
            if p != acting or _can_go_on(other, p):
                break
        else:  # a sample must stay playable
            other.hand[p], other.draw[p] = real
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


def _can_go_on(e, p: int) -> bool:
    """Whether seat ``p``, in the middle of an action, has a legal move with its hand (and still holds the card it
    chose to build with)."""
    if e.build_card >= 0 and e.build_card not in e.avail(p):
        return False
    trial = e.clone()  # listing moves fills the engine's caches: a sample must not depend on the deals tried
    trial._rebuild_loc()
    return bool(trial.legal_moves())
