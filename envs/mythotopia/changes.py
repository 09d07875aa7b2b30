"""The parts of a Mythotopia position the rules report when they change (the change log, envs/core/changes.py).

The encoder rebuilds its cached blocks from the domains stamped since it last looked; the rules' own caches
(war list, road networks, coasts) key on the revisions of the counted domains, which move at once (a war
resolved in the middle of a move changes the road networks the rest of the move reads). The decision context
(phase, the pending action, the turn flags, setup choices, the Scribe queue) is no domain: the encoder reads it
afresh for every observation.
"""
from __future__ import annotations

from ..core.changes import Domains

DOMAINS = Domains({
    # who controls each province, and the roads: the road networks and the coasts of each seat
    "map": ("controller", "road", "roads_built"),
    # what stands on the provinces and seas, and the supplies shown with them
    "board": ("settle", "castle", "dragon", "rune", "armies", "mercs", "ships", "villages", "prov_count",
              "armies_pers", "armies_gen", "ships_pers", "ships_gen", "castles_left", "roads_left", "mercs_left"),
    # cities and citadels left and on the board: they also set every seat's reserve capacity (spec 2.11)
    "cities": ("cities", "citadel_state"),
    # VP counters on the VP cards, in the spare stock and with the seats; Master of the Sea and Lord of the Isles
    "vp": ("vp_cards", "spare", "counters", "sea_claimed", "scribe_marks", "villages_on_card", "isle_complete"),
    # where every card is (the piles, and one location code per card for the observation)
    "cards": ("hand", "draw", "discard", "reserve", "aside", "display", "impdeck", "pstack", "out", "limbo", "loc"),
}, counted=("map", "board", "cards"))

MAP, BOARD, CITIES, VP, CARDS = DOMAINS.bits
