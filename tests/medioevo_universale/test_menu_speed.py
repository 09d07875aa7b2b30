"""The purchase menu is opened lazily (purchases.py ``_open_purchase_menu``): its larger parts are listed only
when chosen. Over random play the open menu always offers exactly what a fresh full rebuild of the menu
(``_purchase_options``) offers. The barbarian build-up (events.py ``_open_buildup``) is opened lazily too and
always offers what the full list of its options does."""
from __future__ import annotations

import random

import pytest

import envs
from envs.medioevo_universale.constants import AR, B_AR, B_CP, B_LI, CP1, LI, Ctrl, Head, Phase

GAMES = [
    (3, 20, {}),
    (4, 21, {"diplomacy_offers": 2, "teams": "pairs"}),
    (5, 22, {"hidden_purchases": True, "terrain": True}),
    (6, 23, {"blood_markers": True, "captains_per_unit": True}),
]


def check_lazy_tree(e, full: list[tuple], part) -> int:
    """Compare an open lazy tree (``part(first)`` lists a lazy first move's options) with ``full``, every
    option listed whole; returns the number of lazy first moves seen."""
    depth = len(e.prefix)
    fresh = sorted(opt for opt in full if opt[:depth] == e.prefix)
    assert fresh, "an open tree without a complete option"
    assert e.tree_moves() == sorted({opt[depth] for opt in fresh})
    listed = list(e.tree)
    if e.tree_lazy:
        assert depth == 0
        firsts = {opt[0] for opt in e.tree}
        for first in e.tree_lazy:
            assert first not in firsts, first
            options = part(first)
            assert options and all(opt[0] == first for opt in options), first
            listed += options
    assert sorted(listed) == fresh
    return len(e.tree_lazy)


def check_menu(e) -> int:
    """Compare the open purchase menu with a fresh rebuild; returns the number of lazy parts seen."""
    return check_lazy_tree(e, e._purchase_options(e.actor), lambda first: e._menu_part(e.actor, first))


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


def buildup_options(e) -> list[tuple]:
    """Every option of the barbarian build-up, listed whole as the engine did before it was opened lazily."""
    board = e.board
    control = e.control_map()
    barb, playable = e.barb_total, e.playable
    free_symbols = [n for n in e.land_nodes if board.barbarian_symbol[n] and control[n] < 0]
    targets = {n for n in e.land_nodes if barb[n]}
    targets |= {n for n in free_symbols if not any(a[n] for a in e.army)}
    if not free_symbols:
        targets |= {n for n in e.land_nodes if control[n] < 0 and board.empire[n] < 0 and e._empty_region(n)}
    opts = [((Head.CTRL, Ctrl.DONE),)]
    for n in sorted(targets):
        for t, k, need in ((LI, B_LI, 0), (AR, B_AR, 2), (CP1, B_CP, 4)):
            if barb[n] >= need and e.barb_supply[k] > 0:
                opts.append(((Head.UNIT, t), (Head.NODE, n)))
    galleys_left = e.barb_galleys - sum(1 for n in range(board.num_nodes) if board.is_sea[n] and barb[n])
    for n in range(board.num_nodes):
        if not (barb[n] and playable[n]):
            continue
        if board.is_sea[n]:
            steps = [y for y in board.sea_adj[n] + board.coast[n] if playable[y]]
        else:
            steps = [y for y in board.land_adj[n] if playable[y]]
            steps += [y for y in board.coast[n] if (galleys_left > 0 or barb[y]) and playable[y]]
        opts += [((Head.NODE, n), (Head.NODE, y)) for y in steps]
    return opts


@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_the_lazy_barbarian_buildup_equals_a_fresh_rebuild(num_players, seed, options):
    env = envs.make("medioevo_universale", num_players=num_players, num_rounds=8, **options)
    env.reset(seed=seed)
    e = env.engine
    pick = random.Random(seed)
    checked = lazy_seen = 0
    while not e.is_over:
        if e.phase == Phase.BUILDUP:
            lazy_seen += check_lazy_tree(e, buildup_options(e), e._buildup_part)
            checked += 1
        moves = e.legal_moves()
        e.apply(moves[pick.randrange(len(moves))])
    assert checked > 20 and lazy_seen > 20
