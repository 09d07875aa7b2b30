"""Seventh Stone's change domains (envs/core/changes.py): the parts of the state the observation caches, each
reported by the rules that change it.

Not listed, because observers read them anew at every look: the decision in progress (phase, actor, the
selections, the undo stack), the running fight, the sealed bids' budget left.
"""
from ..core.changes import Domains

DOMAINS = Domains({
    # the map: per cell its control, capital, buildings, lava, armies (units, stones, movement, support) and
    # conflict; the rules name the cells they change (``changed_in(CELLS, cell)``)
    "cells": ("controller", "capital_of", "buildings", "lava", "armies", "conflicts"),
    # tournament wins and the bought tear stone: the permanent TS, shown with the map's stats and the public rows
    "permanent_ts": ("tourn_wins", "tear_bought"),
    # the rest of what the observation keeps: year, event, markets, turn order, production to place, the
    # offer and the piles, the hands (their sizes public, the kinds only to their owner)
    "public": ("year", "round_counter", "unit_max", "event", "order", "double_mover", "tstones", "budget",
               "pend_build", "pend_units", "pend_mercs", "hands", "committed", "market_rank", "revealed", "offer",
               "offer_status", "offer_taker", "discard", "stacks"),
    # the sealed allocations (public once revealed, and unchanged from then until the next year starts)
    "allocations": ("alloc",),
}, itemized=("cells",))

CELLS, PERMANENT_TS, PUBLIC, ALLOCATIONS = DOMAINS.bits
