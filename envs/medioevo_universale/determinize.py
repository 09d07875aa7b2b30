"""Medioevo Universale's hidden information sampled again for one seat (``envs.core.determinize``).

Sampled (spec 7.1, G56; tests/medioevo_universale/test_env.py): the other seats' money (unless ``reveal_money``),
their sealed bids and tie-round additions, their tax choices before all chose, the goals paired with every card
outside the seat's hand (with ``secret_goal_pairing``), the order of the empire-card deck, the cards another seat
is choosing from (KEEP_CARD), and the event deck under its top card (whose back, the allowed tax rate, is public).

ASSUMPTION (docs/games/medioevo_universale.md, assumption 7.1 "determinization"): the observation keeps no record of the bank
flows a seat saw, so another seat's hidden money is sampled as the searching seat's own money (every seat starts
with the same sum and earns by the same public rules); a sealed bid is then any whole sum the bidder could pay.
Not sampled (kept as they are): the parties' terms of a secret treaty, the offer in progress between two other
seats, and the purchases behind the screen of variant 8.5.
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled
from .constants import Phase


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    other = engine.clone()
    others = [p for p in range(other.num_players) if p != seat]
    if not other.config.reveal_money:
        for p in others:
            other.money[p] = other.money[seat]
    for p in others:
        if other.phase == Phase.BID and (p == other.actor or (p not in other.queue and not other.eliminated[p])):
            other.bids[p] = int(rng.integers(max(other.money[p], 0) + 1))  # sealed: any sum it could pay
        elif other.phase == Phase.TIE_BID and (p == other.actor or p in _tie_bidders_done(other)):
            other.tie_extra[p] = int(rng.integers(max(other.money[p] - other.bids[p], 0) + 1))
        if other.tax_pending[p] >= 0:
            rates = sorted(other.tax_rates)
            other.tax_pending[p] = rates[int(rng.integers(len(rates)))]
    if other.config.secret_goal_pairing:
        own = set(other.hand[seat])
        unseen = [i for i in range(len(other.goal_of)) if i not in own]
        for i, goal in zip(unseen, shuffled([other.goal_of[i] for i in unseen], rng)):
            other.goal_of[i] = goal
    if other.phase == Phase.KEEP_CARD and other.actor != seat:  # the drawn cards: any of the unseen ones
        pool = shuffled(other.deck + other.drawn, rng)
        other.drawn, other.deck = pool[:len(other.drawn)], pool[len(other.drawn):]
    else:
        other.deck = shuffled(other.deck, rng)
    if other.event_deck:  # the back of the top card (the allowed tax rate) is public
        other.event_deck[:-1] = shuffled(other.event_deck[:-1], rng)
    other.rng = fresh_generator(rng)
    other.stamp_everything()  # edited from outside the rules: observers look again
    return other


def _tie_bidders_done(e) -> list[int]:
    """The seats of this tie round that have entered their addition already: tied on the revealed bids, neither
    the actor nor still queued."""
    live = [q for q in range(e.num_players) if not e.eliminated[q]]
    top = max(e.bids[q] for q in live)
    return [p for p in live if e.bids[p] == top and p != e.actor and p not in e.queue]
