"""The parts of Kingsburg's state that its rules report to the change log (envs/core/changes.py).

``SEATS`` is itemized by seat: the rules name the seat whose holdings or season changed (``changed_in``), or
report every seat at once (``changed_in_all``) when a step of the year changes them all. The encoder rebuilds a
seat's observation block only when that seat was reported, and the enemy part only when ``PUBLIC`` was.
"""
from __future__ import annotations

from ..core.changes import Domains

DOMAINS = Domains({
    # a seat's public holdings and this season's dice, flags and advisors (the observation's seat blocks);
    # the governors' reveal changes what every seat's block shows
    "seats": ("vp", "goods", "plus2", "soldiers", "rows", "num_buildings", "season_flags", "favour_die",
              "farms_die", "advisor_mask", "pdice", "bdice", "pplaced", "bplaced", "army_tokens", "army_revealed",
              "governor", "governors_revealed"),
    # this year's enemy and what is known of it: the year, the peeks, the reveal, the King's aid, the battles
    "public": ("year", "enemy_deck", "peeked", "revealed", "kings_aid", "strengths", "outcomes"),
}, itemized=("seats",))
SEATS, PUBLIC = DOMAINS.bits

__all__ = ["DOMAINS", "PUBLIC", "SEATS"]
