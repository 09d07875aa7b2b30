"""Medioevo Universale's hidden information sampled again for one seat (``envs.core.determinize``).

Sampled (spec 7.1, G56; tests/medioevo_universale/test_env.py, tests/test_determinize.py): the other seats' money
(unless ``reveal_money``), their sealed bids and tie-round additions, their tax choices before all chose, the goals
paired with every card outside the seat's hand (with ``secret_goal_pairing``), the order of the empire-card deck,
the cards another seat is choosing from (KEEP_CARD), the event deck under its top card (whose back, the allowed tax
rate, is public), the terms of secret treaties the seat is not a party to, an offer in progress between other
seats, and the ordinary units behind other seats' screens (variant 8.5).

ASSUMPTION (docs/games/medioevo_universale.md, assumption 7.1 "determinization"): the observation keeps no record of
the bank flows a seat saw, so another seat's hidden money is sampled as the searching seat's own money (every seat
starts with the same sum and earns by the same public rules); a sealed bid is then any whole sum the bidder could
pay. Simpler samples where a faithful one would need a prior over what other seats negotiate or buy: a secret treaty
keeps its kind and parties (guest treaties show on the board as the control of regions with guest armies) and draws
its term and sale fee from the legal ones; an offer being drafted is one just begun to a drawn addressee, a sent one
a random legal draft to the seat answering (its proposer kept: the seat whose diplomacy turn it is); behind the
screen of a seat that had its purchase turn the ordinary units are any number up to the unit limit the others see,
of types drawn from its supply, while the captains and vehicles are kept (the vehicle supply is public). Not sampled
(kept as they are): the other purchases a seat behind the screen made in this phase (technologies, cards, buildings,
captain upgrades; the observation shows the state as phase 4 began).
"""
from __future__ import annotations

from dataclasses import replace

from ..core.determinize import fresh_generator, shuffled
from .constants import CIVIL, CP1, Head, Phase
from .diplomacy import MAX_TERM, SALE_FEE_FL, Offer, OfferStep, Treaty
from .view import behind_screen


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
    _sample_secret_terms(other, seat, rng)
    _sample_offer(other, seat, rng)
    for p in sorted(behind_screen(other, seat)):
        if p not in other.queue:  # a seat still to have its purchase turn has bought nothing yet
            _sample_units_behind_screen(other, p, rng)
    if other.phase == Phase.PURCHASE and other.actor != seat and not other.prefix:
        other._open_purchase_menu(other.actor)  # listed again: the real menu was listed from hidden money
    other.rng = fresh_generator(rng)
    other.stamp_everything()  # edited from outside the rules: observers look again
    return other


def _tie_bidders_done(e) -> list[int]:
    """The seats of this tie round that have entered their addition already: tied on the revealed bids, neither
    the actor nor still queued."""
    live = [q for q in range(e.num_players) if not e.eliminated[q]]
    top = max(e.bids[q] for q in live)
    return [p for p in live if e.bids[p] == top and p != e.actor and p not in e.queue]


def _sample_secret_terms(e, seat: int, rng) -> None:
    """The term and the sale fee of every secret treaty ``seat`` is not a party to: any the rules allow for a
    treaty in force now (it ends at the end of this round at the earliest, after at most ``MAX_TERM`` rounds,
    or with the game)."""
    until_choices = [0] + list(range(e.round, e.round + MAX_TERM))
    for i, t in enumerate(e.treaties):
        if t.secret and seat not in t.parties:
            until = until_choices[int(rng.integers(len(until_choices)))]
            fee = SALE_FEE_FL * int(rng.integers(2)) if t.kind == Treaty.TRADE else 0
            e.treaties[i] = replace(t, until=until, fee=fee)


def _sample_offer(e, seat: int, rng) -> None:
    """An offer in progress between other seats, drawn again. Kept: its proposer (the seat whose diplomacy turn it
    is) and, once sent, the seat answering now. Drafting: an offer just begun, to an addressee drawn among the
    proposer's partners other than ``seat``. Sent: an offer drafted to the answering seat alone, by the rules'
    own drafting moves drawn at random (no further party, no declaration of war, no ending of a treaty)."""
    o = e.offer
    if o is None or seat == o.proposer or seat == o.addressee or seat in o.also:
        return
    proposer = o.proposer
    if e.phase == Phase.OFFER:
        partners = [q for q in e._offer_partners(proposer) if q != seat]
        e.offer = Offer(proposer, partners[int(rng.integers(len(partners)))])
        return
    answering = e.actor
    e.offer = draft = Offer(proposer, answering)
    e.phase, e.actor = Phase.OFFER, proposer
    while e.phase == Phase.OFFER:
        moves = e.diplomacy_moves()
        if draft.step == OfferStep.KIND:
            moves = [m for m in moves if m[1] != Treaty.DECLARE_WAR and not e.has_treaty(proposer, answering, m[1])]
        elif draft.step == OfferStep.TERM:
            moves = [m for m in moves if m[0] == Head.DURATION]
        e._apply_diplomacy(moves[int(rng.integers(len(moves)))])


def _sample_units_behind_screen(e, p: int, rng) -> None:
    """Variant 8.5: the ordinary units (not captains) behind seat p's screen, drawn again: back to p's supply, then
    a number up to the unit limit the others see (the civil levels p owned as phase 4 began), each of a type drawn
    from the supply left. Kept: the captains and the vehicles (the vehicle supply is public), placed first at the
    reveal, in their order."""
    supply = e.unit_supply[p]
    kept = []
    for item in e.hidden_bought[p]:
        if item[0] == "unit" and item[1] < CP1:
            supply[item[1]] += 1
            e.units_bought[p] -= 1
        else:
            kept.append(item)
    snap = e.purchase_snapshot
    civil_levels = 0
    for node, buildings in enumerate(snap["buildings"]):
        level, owner, _damage = buildings[CIVIL]
        if owner == p and snap["control"][node] == p:
            civil_levels += level
    room = min(e.unit_limit_base + civil_levels - e.units_bought[p], sum(supply[:CP1]))
    for _ in range(int(rng.integers(max(room, 0) + 1))):
        types = [t for t in range(CP1) if supply[t] > 0]
        t = types[int(rng.integers(len(types)))]
        supply[t] -= 1
        e.units_bought[p] += 1
        kept.append(("unit", t))
    e.hidden_bought[p] = kept
