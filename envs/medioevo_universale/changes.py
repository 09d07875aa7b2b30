"""Medioevo's change domains (envs/core/changes.py gives the contract): the rules report which parts of the
state a move changed, so observers need not look.

Each engine attribute an observer reads belongs to one domain below. Every rule that changes an attribute
of a domain reports it (``self.changed(changes.UNITS)``), once at the rules' choke points where it can (such
as ``_add_units``, ``_bank``, ``_new_object``, ``_step``, ``_end_movement``, ``_apply_route``), and also for
changes through an alias (``o = self.objs[oid]; o[3] = node`` is OBJECTS); a battle, a multi-party war and a
conquest report opening, and ``MedioevoEngine.apply`` reports them for every move made while they are open. The
setup before the first move reports nothing (observers look at everything first). ``MedioevoEngine.apply``
stamps the reported domains at its end (``stamp_changes``). A domain may be stamped without a change of its
content (a rule reports what it may change: a reset of what was already reset, a flow of 0), never the other
way round. Two exceptions count as moves of their own: a lazy update a query may make between two moves
(``stamp_at_once``: ``route_of`` ending a route whose vehicle was lost) and an edit from outside the rules
(``stamp_everything``, tests; they also give the engine a new ``revision``).

Attributes that are not listed here (the phase, the stage, the round, the seat to move, the choice in
progress, the offer, the sealed bids and tax choices, TP) change at almost every move: observers compare
them at every look. ``DOMAINS.snapshot`` / ``DOMAINS.changed_bits`` find the changed domains by content; the
tests use them to check, at every step of random games, that every change was reported
(tests/medioevo_universale/test_change_domains.py).
"""
from __future__ import annotations

from ..core.changes import Domains

#: domain name -> the engine attributes it covers (each attribute in one domain only)
DOMAINS = Domains({
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
    "move": ("carrier", "foot_node", "foot_cargo", "foot_stepped", "move_steps", "escort", "left_group"),
    "trade": ("trade_action", "trader", "sold_now"),
})

ORDER, HORDE, SUPPLY, UNITS, BARBARIANS, MARKERS, MARKET, OBJECTS, BUILDINGS, SEATS, MONEY, CARDS, ROUTES, WAR, \
    EVENTS, CONQUEST, DIPLOMACY, TECHNOLOGY, CARD_EFFECTS, MULTI_WAR, VARIANTS, BATTLE, MOVE, TRADE = DOMAINS.bits
