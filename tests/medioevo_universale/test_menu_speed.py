"""The purchase menu is opened lazily (purchases.py ``_open_purchase_menu``): its larger parts are listed only
when chosen. Over random play the open menu always offers exactly what a fresh full rebuild of the menu
(``_purchase_options``) offers."""
from __future__ import annotations

import random

import pytest

import envs
from envs.medioevo_universale.constants import Phase

GAMES = [
    (3, 20, {}),
    (4, 21, {"diplomacy_offers": 2, "teams": "pairs"}),
    (5, 22, {"hidden_purchases": True, "terrain": True}),
    (6, 23, {"blood_markers": True, "captains_per_unit": True}),
]


def check_menu(e) -> int:
    """Compare the open purchase menu with a fresh rebuild; returns the number of lazy parts seen."""
    depth = len(e.prefix)
    fresh = sorted(opt for opt in e._purchase_options(e.actor) if opt[:depth] == e.prefix)
    assert fresh, "an open menu without a complete option"
    assert e.tree_moves() == sorted({opt[depth] for opt in fresh})
    listed = list(e.tree)
    if e.tree_lazy:
        assert depth == 0
        firsts = {opt[0] for opt in e.tree}
        for first in e.tree_lazy:
            assert first not in firsts, first
            part = e._menu_part(e.actor, first)
            assert part and all(opt[0] == first for opt in part), first
            listed += part
    assert sorted(listed) == fresh
    return len(e.tree_lazy)


@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_the_lazy_purchase_menu_equals_a_fresh_rebuild(num_players, seed, options):
    env = envs.make("medioevo_universale", num_players=num_players, num_rounds=8, **options)
    env.reset(seed=seed)
    e = env.engine
    pick = random.Random(seed)
    checked = lazy_seen = deep_seen = 0
    while not e.is_over:
        if e.phase == Phase.PURCHASE:
            lazy_seen += check_menu(e)
            deep_seen += len(e.prefix) > 0
            checked += 1
        moves = e.legal_moves()
        e.apply(moves[pick.randrange(len(moves))])
    assert checked > 200 and lazy_seen > 100 and deep_seen > 50
