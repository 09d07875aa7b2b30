"""The rules report every change of a change domain (changes.py): at every move of random games, each
domain whose content changed (``DOMAINS.changed_bits``, a deep comparison) carries the stamp of that
move; what finding the legal moves changes (a lazy update) is stamped at once, and it reports nothing
else. Also with the forced fuzzes of the rare rules."""
import random

import numpy as np
import pytest

from envs.medioevo_universale.cards import ABILITY_WINDOWS
from envs.medioevo_universale.changes import DOMAINS
from envs.medioevo_universale.constants import PHASE_NAMES
from envs.medioevo_universale.engine import MedioevoConfig, MedioevoEngine

from . import forced
from .forced import assert_query_reported, assert_reported

#: (players, rule options): every variant once in the default run
GAMES = (
    (3, {}),
    (3, dict(empire_auction=True)),
    (4, dict(terrain=True, captains_per_unit=True)),
    (4, dict(teams="pairs", diplomacy_offers=2)),
    (5, dict(blood_markers=True, trade_vehicles_in_war=True)),
    (5, dict(hidden_purchases=True)),
    (6, dict(empire_selection="pick", blood_markers=True)),
    (6, dict(terrain=True, hidden_purchases=True, empire_auction=True, teams="pairs")),
)


def play_checked(n: int, seed: int, options: dict, extra_cards: int = 0, rounds: int = 8) -> int:
    """One random game played on the engine with every move checked; returns the number of moves.
    ``extra_cards``: cards with abilities dealt to each seat at the start (their windows open often)."""
    e = MedioevoEngine(MedioevoConfig(num_rounds=rounds, **options), n, np.random.default_rng(seed))
    pick = random.Random(seed)
    if extra_cards:
        rng = np.random.default_rng(seed)
        extra = [c for c in rng.permutation(sorted(ABILITY_WINDOWS)).tolist() if c in e.deck][:extra_cards * n]
        for i, c in enumerate(extra):
            e.deck.remove(c)
            e.hand[i % n].append(c)
    before = DOMAINS.snapshot(e)
    steps = 0
    while not e.is_over:
        count = e.moves
        moves = e.legal_moves()
        where = f"{n} players {options} seed {seed} move {steps} round {e.round} phase {PHASE_NAMES[e.phase]}"
        assert_query_reported(before, count, e, where)
        move = moves[pick.randrange(len(moves))]
        e.apply(move)
        assert_reported(before, e, f"{where} {e.move_name(move)}")
        before = DOMAINS.snapshot(e)
        steps += 1
    return steps


@pytest.mark.parametrize("game", range(len(GAMES)))
def test_every_change_is_reported(game):
    n, options = GAMES[game]
    play_checked(n, 100 + game, options)


def test_every_change_is_reported_with_many_cards():
    play_checked(4, 7, dict(diplomacy_offers=0), extra_cards=8)


def test_a_missing_report_is_found(monkeypatch):
    """The check fails when a rule changes a domain without reporting it (here: every money flow)."""
    def bank_unreported(self, p, amount):
        self.money[p] += amount
        self.bank_net[p] += amount
    monkeypatch.setattr(MedioevoEngine, "_bank", bank_unreported)
    with pytest.raises(AssertionError, match="changed but not reported: money"):
        play_checked(3, 1, {})


def test_the_technology_fuzz_reports_every_change(monkeypatch):
    """The forced fuzz where every seat owns every technology (the others are in the slow run below)."""
    from .test_technologies import test_fuzz_with_every_technology_owned
    monkeypatch.setattr(forced, "CHECK_CHANGES", True)
    test_fuzz_with_every_technology_owned(3, 1)


@pytest.mark.slow
@pytest.mark.parametrize("game", range(len(GAMES)))
def test_every_change_is_reported_long(game):
    n, options = GAMES[game]
    for g in range(20):
        play_checked(n, 10_000 * game + g, options, extra_cards=8 if g % 5 == 4 else 0, rounds=12)


@pytest.mark.slow
def test_the_forced_fuzzes_report_every_change(monkeypatch):
    """Battles at sea, multi-party wars, ceasefires, treaties of several parties, Ernennung, Kartografie."""
    from .test_diplomacy import (test_fuzz_ceasefire_in_battles_and_kartografie_defenders,
                                 test_fuzz_ceasefire_in_naval_battles, test_fuzz_treaties_of_several_parties)
    from .test_multi_war import test_fuzz_multi_party_wars, test_fuzz_naval_multi_party_wars
    from .test_technologies import test_fuzz_ernennung_and_kartografie_after_a_battle, test_fuzz_with_every_technology_owned
    monkeypatch.setattr(forced, "CHECK_CHANGES", True)
    test_fuzz_ceasefire_in_battles_and_kartografie_defenders()
    test_fuzz_ceasefire_in_naval_battles()
    test_fuzz_treaties_of_several_parties()
    for n in (4, 6):
        test_fuzz_multi_party_wars(n)
        test_fuzz_naval_multi_party_wars(n)
    test_fuzz_with_every_technology_owned(5, 1)
    test_fuzz_ernennung_and_kartografie_after_a_battle(monkeypatch)
