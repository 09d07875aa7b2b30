"""The rules report every change of a change domain (envs/seventh_stone/changes.py): at every move of seeded
random games each domain whose content changed was reported (``check_reported``), every changed cell was named
in the cells' log, and finding the legal moves (which tries move orders and takes them back) changes nothing."""
import random

import numpy as np
import pytest

from envs.core.changes import check_reported
from envs.seventh_stone.changes import CELLS, DOMAINS
from envs.seventh_stone.data import NUM_CELLS
from envs.seventh_stone.engine import PHASE_NAMES, SeventhStoneConfig, SeventhStoneEngine

GAMES = (
    (2, {}),
    (3, dict(advanced_terrain=True, wall_bypass=True)),
    (4, {}),
    (4, dict(double_move=True, four_islands=True, dice_allocation="auto", max_moves_over_capacity=1)),
)


def _cells(e) -> list:
    """Per cell what the cells domain holds of it, comparable with a later state (armies compare by content)."""
    return [(e.controller[c], e.capital_of[c], [b[:] for b in e.buildings[c]], e.lava[c],
             [a.copy() for a in e.armies[c]], e.conflicts.get(c)) for c in range(NUM_CELLS)]


def play_checked(n: int, seed: int, options: dict, max_moves: int = 1500) -> int:
    """A seeded random game on the engine with every move checked; returns the number of moves."""
    e = SeventhStoneEngine(SeventhStoneConfig(**options), n, np.random.default_rng(seed))
    pick = random.Random(seed)
    steps = 0
    while not e.is_over and steps < max_moves:
        where = f"{n} players {options} seed {seed} move {steps} year {e.year} phase {PHASE_NAMES[e.phase]}"
        before, moves_before = DOMAINS.snapshot(e), e.moves
        e._legal = None  # found anew: the legal-move search tries move orders and takes them back
        moves = e.legal_moves()
        assert DOMAINS.changed_bits(before, e) == 0 and e.moves == moves_before and not e.unstamped, \
            f"{where}: finding the legal moves changed the state"
        move = moves[pick.randrange(len(moves))]
        cells, epoch, logged = _cells(e), e.item_log_epoch, len(e.item_log(CELLS))
        missed = check_reported(e, DOMAINS, lambda: e.apply(move))
        assert not missed, f"{where} {move}: changed but not reported: {', '.join(DOMAINS.names_of(missed))}"
        if e.item_log_epoch == epoch:  # else every cell counts as changed
            named = set(e.item_log(CELLS)[logged:])
            unnamed = [c for c, now in enumerate(_cells(e)) if now != cells[c] and c not in named]
            assert not unnamed, f"{where} {move}: cells {unnamed} changed but were not named"
        steps += 1
    return steps


@pytest.mark.parametrize("game", range(len(GAMES)))
def test_every_change_is_reported(game):
    n, options = GAMES[game]
    for seed in range(2):
        assert play_checked(n, 100 * game + seed, options) > 200


def test_a_missing_report_is_found(monkeypatch):
    """The check fails when a rule changes a domain without reporting it (here: unplaced production expires)."""
    def end_placement(self, p):
        self.pend_build[p] = 0
        self.pend_units[p] = [0, 0, 0]
        self.pend_mercs[p] = 0
        self.placed_at = [0] * NUM_CELLS
        self.idx += 1
    monkeypatch.setattr(SeventhStoneEngine, "_end_placement", end_placement)
    with pytest.raises(AssertionError, match="changed but not reported: public"):
        play_checked(2, 0, {})


@pytest.mark.parametrize("report", (False, True))
def test_a_cell_changed_but_not_named_is_found(monkeypatch, report):
    """A placement that does not name its cell fails the check, also when it reports the cells domain as a
    whole (observers look again only at the cells named)."""
    place = SeventhStoneEngine._place

    def unnamed(self, bit, item):
        if report:
            self.changed(bit)

    def place_unnamed(self, *args):
        SeventhStoneEngine.changed_in = unnamed  # while placing only
        try:
            place(self, *args)
        finally:
            del SeventhStoneEngine.changed_in
    monkeypatch.setattr(SeventhStoneEngine, "_place", place_unnamed)
    message = r"cells \[\d+\] changed but were not named" if report else "changed but not reported: cells"
    with pytest.raises(AssertionError, match=message):
        play_checked(2, 0, {})
