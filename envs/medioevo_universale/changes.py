"""Change domains: the rules report which parts of the state a move changed, so observers need not look.

Each engine attribute an observer reads belongs to one domain below. Every rule that changes an attribute
of a domain sets the domain's bit in ``engine.dirty`` (``self.dirty |= changes.UNITS``), once per function
where it can, at choke points such as ``_add_units``, ``_bank`` or ``_new_object``, and also for changes
through an alias (``o = self.objs[oid]; o[3] = node`` is OBJECTS); the setup before the first move reports
nothing (observers look at everything first). At the end of ``MedioevoEngine.apply`` the set bits are
stamped: ``engine.stamps[i]`` is the value of ``engine.moves`` (a count of the applied moves) after the last
move that changed domain ``i``, and ``engine.stamped`` the latest of them; ``engine.stamped_bits`` are the domains
stamped then and ``engine.stamped_before`` the latest stamp before it, so an observer that looked after
``stamped_before`` needs no scan of the stamps. An observer that remembers the ``moves`` it last looked at needs to look
again only at the domains stamped later. A domain may be stamped without a change of its content (a rule
reports what it may change: a reset of what was already reset, a flow of 0), never the other way round.
Two exceptions count as moves of their own: a lazy update a query may make between two moves
(``stamp_at_once``: ``route_of`` ending a route whose vehicle was lost) and an edit from outside the rules
(``stamp_all``, tests).

Attributes that are not listed here (the phase, the stage, the round, the seat to move, the choice in
progress, the offer, the sealed bids and tax choices, TP) change at almost every move: observers compare
them at every look. ``snapshot`` / ``changed_bits`` find the changed domains by content; the tests use them
to check, at every step of random games, that every change was reported (tests/medioevo_universale/
test_change_domains.py).
"""
from __future__ import annotations

import copy

#: domain name -> the engine attributes it covers (each attribute in one domain only)
DOMAINS: dict[str, tuple[str, ...]] = {
    "order": ("order", "position", "bids_revealed"),
    "horde": ("horde", "barb_dice"),
    "supply": ("building_supply", "vehicle_supply", "siege_supply", "barb_supply", "token_supply"),
    "units": ("units", "stopped", "army", "capitulated"),
    "barbarians": ("barb", "barb_total"),
    "markers": ("marker",),
    "market": ("cubes",),
    "objects": ("objs", "goods", "cargo", "cargo_stopped", "aboard", "carried_by", "slots"),
    "buildings": ("civil", "civil_owner", "civil_dmg", "mil", "mil_owner", "mil_dmg", "cath_owner", "cath_dmg",
                  "home_owner", "playable", "land_playable", "land_nodes"),
    "seats": ("ep", "loans", "loan_taken", "loan_repaid", "tax_rate", "markers_left", "eliminated",
              "missed_interest", "units_bought", "card_bought", "empire_of", "tech", "tech_bought", "tokens",
              "tokens_flipped", "stat_route_stages", "stat_barbarians_destroyed", "stat_conquered"),
    "money": ("money",),
    "cards": ("hand", "rotated", "deck", "drawn"),
    "routes": ("route", "route_draft", "route_points_left"),
    "war": ("at_war",),
    "events": ("event_card", "event_deck", "ev_effect", "ev_stage", "buildup_left", "revolt_queue"),
    "conquest": ("conquest",),
    "diplomacy": ("treaties", "war_declared", "ceasefires", "treaty_kinds", "guest_treaties"),
    "technology": ("tech_use", "trade_bonus", "tp_payment", "decree_steps", "logistik"),
    "card_effects": ("card_bans", "event_protected", "locked_cards", "card_ctx", "card_money", "round_effects",
                     "cw", "vehicle_cards", "hunters", "warlord_step", "warlord_load", "hunter_pending"),
    "multi_war": ("multi_war",),
    "variants": ("auction_empires", "auction_round", "auction_ties", "blood", "blood_supply", "hidden_bought",
                 "revealing", "sealed_empire", "sealed_ep_bid", "shown_empire_bid", "purchase_snapshot",
                 "revealed_seats"),
    "battle": ("bt",),
    "move": ("carrier", "foot_node", "foot_cargo", "foot_stepped", "move_steps", "escort"),
    "trade": ("trade_action", "trader", "sold_now"),
}
NAMES: tuple[str, ...] = tuple(DOMAINS)
NUM_DOMAINS = len(NAMES)
BIT = {name: 1 << i for i, name in enumerate(NAMES)}
ALL = (1 << NUM_DOMAINS) - 1

ORDER, HORDE, SUPPLY, UNITS, BARBARIANS, MARKERS, MARKET, OBJECTS, BUILDINGS, SEATS, MONEY, CARDS, ROUTES, WAR, \
    EVENTS, CONQUEST, DIPLOMACY, TECHNOLOGY, CARD_EFFECTS, MULTI_WAR, VARIANTS, BATTLE, MOVE, TRADE = BIT.values()
assert NUM_DOMAINS == 24


def stamp(engine) -> None:
    """Stamp the domains set in ``engine.dirty`` with the move count and clear it (end of ``apply``)."""
    d = engine.dirty
    if d:
        engine.dirty = 0
        stamps, now = engine.stamps, engine.moves
        engine.stamped_before, engine.stamped, engine.stamped_bits = engine.stamped, now, d
        while d:
            low = d & -d
            stamps[low.bit_length() - 1] = now
            d ^= low


def stamp_at_once(engine, bit: int) -> None:
    """A lazy update, which a query between two moves may make: stamped at once, with a count of its own
    (observers look again before the next move), and again at the end of the move in progress, if any."""
    engine.dirty |= bit
    engine.moves += 1
    engine.stamped_before, engine.stamped_bits = engine.stamped, bit
    engine.stamps[bit.bit_length() - 1] = engine.stamped = engine.moves


def stamp_all(engine) -> None:
    """The state was edited from outside the rules (tests): count it as a move that changed every domain."""
    engine.moves += 1
    engine.stamps[:] = [engine.moves] * NUM_DOMAINS
    engine.stamped_before, engine.stamped, engine.stamped_bits = engine.stamped, engine.moves, ALL


def snapshot(engine) -> list:
    """A deep copy of every domain's attributes (missing attributes as a marker), for ``changed_bits``."""
    return [copy.deepcopy(tuple(getattr(engine, a, _MISSING) for a in attrs)) for attrs in DOMAINS.values()]


def changed_bits(before: list, engine) -> int:
    """The bits of the domains whose content differs from the ``snapshot`` ``before``."""
    bits = 0
    for i, (attrs, old) in enumerate(zip(DOMAINS.values(), before)):
        if tuple(getattr(engine, a, _MISSING) for a in attrs) != old:
            bits |= 1 << i
    return bits


def names_of(bits: int) -> list[str]:
    return [name for i, name in enumerate(NAMES) if bits >> i & 1]


_MISSING = "<missing attribute>"
