"""Rulebook scenario tests for Kingsburg (envs/kingsburg).

Sources, in order of authority: the German rulebook (outside the repository, see docs/rules/README.md), the
spec docs/rules/kingsburg.md (its Appendix A scenarios T1..T12 and assumptions A1..A58) and
docs/rules/DECISIONS.md. Every test names the rule it checks and quotes the rulebook.

Scenarios set engine state directly, then play moves through ``KingsburgEngine.play`` (which
checks legality). Dice still to be rolled are injected into the engine's dice buffer, which
``_die`` pops from the end.
"""
from __future__ import annotations

import numpy as np
import pytest

from envs import IllegalActionError
from envs.kingsburg import Decision, KingsburgConfig, KingsburgEngine, Op
from envs.kingsburg.data import CRANE, FARMS, MARKET, ROWS, STATUE
from envs.kingsburg.engine import (
    CHAPEL_USED, MARKET_USED, PASS, PLUS2_USED, ST_BUILD, ST_END_EFFECTS, ST_FARMS, ST_INFLUENCE, ST_PRINCE,
    ST_RECRUIT, ST_REROLL, ST_REWARDS, ST_YEAR, STATUE_USED, YES,
)

GOLD, WOOD, STONE = 0, 1, 2
RINA, CARSTEN, LUIS, LENA = 0, 1, 2, 3


def new(n=4, seed=0, **options) -> KingsburgEngine:
    return KingsburgEngine(KingsburgConfig(**options), n, np.random.default_rng(seed))


def GOOD(g):
    return (Op.GOOD, g)


def BUILD(row: str):
    return (Op.BUILD, ROWS.index(row))


def DICE(*player, bonus=()):
    """Placement of player-die slots (0..2) and bonus-die slots (0..3)."""
    pm = sum(1 << i for i in player)
    bm = sum(1 << i for i in bonus)
    return (Op.DICE, 16 * (pm - 1) + bm)


def MOD(plus2=0, market=0, envoy=0):
    return (Op.MODIFIERS, 6 * plus2 + 2 * (market + 1) + envoy)


def legal(e) -> set:
    return set(e.legal_moves())


def give(e, p, *building_ids):
    """Seat p owns these buildings (and, as the rules require, everything left of them)."""
    for bid in building_ids:
        row, col = bid.split("-")
        r, c = ROWS.index(row), ("I", "II", "III", "IV").index(col)
        e.rows[p][r] = max(e.rows[p][r], c + 1)
    e.num_buildings[p] = sum(e.rows[p])
    e.stamp_everything()


def clear(e):
    """Nobody owns anything; no decision pending."""
    n = e.num_players
    e.vp = [0] * n
    e.goods = [[0, 0, 0] for _ in range(n)]
    e.plus2 = [0] * n
    e.soldiers = [0] * n
    e.rows = [[0] * 7 for _ in range(n)]
    e.num_buildings = [0] * n
    e.favour_die = [0] * n
    e.farms_die = [0] * n
    e.envoy = -1
    e.log = []
    e.decision = Decision.NONE
    e._moves = []


def roll_next(e, *values):
    """The next dice rolled show these values, in this order."""
    e._dice = list(reversed(values)) + []


def at_influence(e, order, dice, bonus=None, season=0):
    """Step b of a productive season with these dice already rolled and sorted."""
    n = e.num_players
    e._clear_dice()
    e._reset_season()
    e.season, e.phase = season, 2 + 2 * season
    e.order = list(order)
    for p in range(n):
        e.pdice[p] = sorted(dice[p])
        e.bdice[p] = sorted((bonus or {}).get(p, []))
    e.season_flags = [0] * n
    e.active_count = n
    e.cursor = 0
    e.decision = Decision.NONE
    e.stage = ST_INFLUENCE
    e._advance()


def run_stage(e, stage, order=None, season=0, cursor=0):
    if order is not None:
        e.order = list(order)
    e.season, e.phase = season, 2 + 2 * season
    e.stage, e.cursor, e.sub = stage, cursor, 0
    e.decision = Decision.NONE
    e._moves = []
    e._advance()


# ===================================================================== setup and phase 1 ====
def test_setup_one_enemy_card_per_year_and_random_turn_order():
    """Setup 3/5: "Beginnend mit Jahr V ... nehmt ihr 1 Karte von jedem Stapel" (one card per year,
    the year-I card on top); turn-order markers are placed randomly."""
    e = new(5, seed=3)
    assert [e.tables.enemies[c].year for c in e.enemy_deck] == [1, 2, 3, 4, 5]
    assert sorted(e.order) == [0, 1, 2, 3, 4]
    assert e.vp == [0] * 5 and e.goods == [[0, 0, 0]] * 5 and e.num_buildings == [0] * 5
    orders = {tuple(new(5, seed=s).order) for s in range(20)}
    assert len(orders) > 10


def test_T10_year_one_every_player_gets_a_good_and_nobody_the_bonus_die():
    """T10: "Da im ersten Jahr alle Spieler gleich wenig Gebäude und Waren haben, erhält jeder
    Spieler 1 Ware seiner Wahl und niemand erhält einen Bonuswürfel." """
    e = new(3, seed=1)
    order = list(e.order)
    for i, p in enumerate(order):
        assert e.decision == Decision.PICK_GOOD and e.actor == p and e.pick_source == 0
        assert legal(e) == {GOOD(GOLD), GOOD(WOOD), GOOD(STONE)}
        e.play(GOOD(i))
    assert [e.goods[p] for p in order] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert e.favour_die == [0, 0, 0]
    assert e.phase == 2 and all(len(e.bdice[p]) == 0 for p in range(3))


def test_kings_favour_fewest_buildings_then_fewest_goods():
    """Phase 1: "Der Spieler mit den wenigsten Gebäuden ... erhält 1 Bonuswürfel"; tie: "der am
    Gleichstand beteiligte Spieler mit den wenigsten Waren"; still tied: each gets 1 good."""
    e = new(4)
    clear(e)
    give(e, 0, "B-I")
    e.goods = [[0, 0, 0], [2, 0, 0], [1, 0, 0], [1, 0, 0]]
    e.year = 2
    roll_next(e, *[3] * 40)
    run_stage(e, ST_YEAR, order=[0, 1, 2, 3])
    # seats 1-3 have 0 buildings; 2 and 3 have fewest goods (1) and stay tied: a good each
    assert e.decision == Decision.PICK_GOOD and e.actor == 2
    e.play(GOOD(WOOD))
    assert e.actor == 3
    e.play(GOOD(STONE))
    assert e.favour_die == [0, 0, 0, 0]
    assert e.goods[2] == [1, 1, 0] and e.goods[3] == [1, 0, 1] and e.goods[1] == [2, 0, 0]

    e = new(4)
    clear(e)
    give(e, 0, "B-I")
    e.goods = [[0, 0, 0], [2, 0, 0], [1, 0, 0], [0, 1, 1]]
    e.year = 2
    roll_next(e, *[3] * 40)
    run_stage(e, ST_YEAR, order=[0, 1, 2, 3])
    assert e.goods[2] == [1, 0, 0]  # alone with the fewest goods: the bonus die, no good
    assert len(e.bdice[2]) == 1 and all(len(e.bdice[p]) == 0 for p in (0, 1, 3))


# ============================================================ step a: roll and turn order ====
def test_T1_turn_order_by_dice_totals_ties_keep_relative_order():
    """T1: "Rina hat ein Gesamtergebnis von 12, das von Luis ist 6, Lena und Carsten haben jeweils
    ein Ergebnis von 9 ... Luis ist Startspieler ... Lena ist nun Zweite gefolgt von Carsten." """
    e = new(4)
    clear(e)
    e.pdice = [[4, 4, 4], [3, 3, 3], [1, 2, 3], [2, 3, 4]]  # Rina 12, Carsten 9, Luis 6, Lena 9
    run_stage(e, ST_PRINCE, order=[RINA, LENA, CARSTEN, LUIS])  # Lena above Carsten before the roll
    assert e.order == [LUIS, LENA, CARSTEN, RINA]


def test_bonus_dice_count_in_the_turn_order_total():
    """Step a: "indem ihr die Gesamtzahl aller geworfenen Würfel addiert" (bonus dice included)."""
    e = new(2)
    clear(e)
    e.pdice = [[1, 1, 1], [1, 1, 2]]
    e.bdice = [[3], []]
    run_stage(e, ST_PRINCE, order=[0, 1])
    assert e.order == [1, 0]


def test_T5_statue_then_chapel_then_no_more_rerolls():
    """T5 (clarification): 2,2,2,2 with one bonus die -> Statue rerolls one die; it shows 1, total 7
    -> Chapel rerolls all; afterwards no further reroll this season, whatever the result."""
    e = new(2)
    clear(e)
    give(e, 0, "B-II")
    e.pdice = [[2, 2, 2], [1, 5, 6]]
    e.bdice = [[2], []]
    run_stage(e, ST_REROLL, order=[0, 1])
    assert e.decision == Decision.REROLL and e.actor == 0
    assert legal(e) == {PASS, (Op.STATUE, 0), (Op.STATUE, 1)}  # total 8: no Chapel yet
    roll_next(e, 1)
    e.play((Op.STATUE, 0))
    assert sorted(e.pdice[0] + e.bdice[0]) == [1, 2, 2, 2]
    assert legal(e) == {PASS, (Op.CHAPEL, 0)}
    roll_next(e, 1, 1, 2, 1)  # again all equal-ish and total 5: still no further reroll
    e.play((Op.CHAPEL, 0))
    assert e.season_flags[0] & STATUE_USED and e.season_flags[0] & CHAPEL_USED
    assert e.decision != Decision.REROLL  # the window closed by itself
    assert e.pdice[0] == [1, 1, 2] and e.bdice[0] == [1]


def test_statue_needs_all_dice_equal_and_chapel_total_seven_or_less():
    """Statue: "Falls alle deine Würfel dieselbe Zahl zeigen, darfst du 1 davon neu werfen";
    Chapel: "Falls das Gesamtergebnis deiner Würfel 7 oder weniger ist"."""
    e = new(2)
    clear(e)
    give(e, 0, "B-II")
    e.pdice = [[2, 2, 4], [1, 1, 1]]
    e.bdice = [[], []]
    run_stage(e, ST_REROLL, order=[0, 1])
    assert e.decision != Decision.REROLL  # total 8, not all equal: nothing to decide
    e = new(2)
    clear(e)
    give(e, 0, "B-I")
    e.pdice = [[3, 3, 3], [1, 1, 1]]
    e.bdice = [[], []]
    run_stage(e, ST_REROLL, order=[1, 0])
    assert e.decision == Decision.REROLL and legal(e) == {PASS, (Op.STATUE, 0)}


def test_farms_bonus_die_is_a_choice_D14():
    """Farms: "Zu Beginn jeder Ertragsphase: Du erhältst 1 Bonuswürfel" - optional like every
    building effect (D14); the die is rolled with the others."""
    e = new(2)
    clear(e)
    give(e, 1, "C-III")
    roll_next(e, *[4] * 30)
    e._reset_season()
    run_stage(e, ST_FARMS, order=[0, 1], season=1)
    assert e.decision == Decision.FARMS_DIE and e.actor == 1 and legal(e) == {PASS, YES}
    e.play(YES)
    assert len(e.bdice[1]) == 1 and len(e.bdice[0]) == 0


def test_merchants_guild_gold_at_the_start_of_each_season():
    """Gilde der Kaufleute: "Zu Beginn jeder Ertragsphase: Du erhältst 1 [Gold]" (A56: automatic)."""
    e = new(3)
    clear(e)
    give(e, 2, "C-IV")
    e.goods[2] = [0, 0, 0]
    e._start_season(1)
    assert e.goods[2][GOLD] == 1 and e.goods[0] == [0, 0, 0]


# ================================================================== step b: influencing ====
def test_T2_influence_example_and_rewards():
    """T2, the rulebook's example: "Rina (1, 3, 5) ... legt ihre 3 und ihre 5 auf den
    Schatzmeister (Rang 8) ... Lena (2, 2, 6, 6) kann mit ihrer 2 und ihrer 6 den Schatzmeister
    nicht mehr beeinflussen ... legt sie ihre beiden 2er auf den Händler (Rang 4)." """
    e = new(4)
    clear(e)
    e.plus2[LUIS] = 1
    at_influence(e, [RINA, CARSTEN, LUIS, LENA],
                 {RINA: (1, 3, 5), CARSTEN: (2, 3, 5), LUIS: (4, 4, 5), LENA: (2, 2, 6)}, bonus={LENA: [6]})
    assert e.actor == RINA and e.decision == Decision.DICE
    e.play(DICE(1, 2))  # 3 + 5 -> 8; a single modifier choice is taken automatically
    assert e.actor == CARSTEN
    e.play(DICE(0, 2))  # 2 + 5 -> 7
    assert e.actor == LUIS
    e.play(DICE(0, 1, 2))  # 4 + 4 + 5 = 13, or 15 with the +2 token
    assert e.decision == Decision.MODIFIERS and legal(e) == {MOD(0), MOD(1)}
    e.play(MOD(plus2=1))
    assert e.actor == LENA
    assert DICE(0, 2) not in legal(e)  # 2 + 6 = 8: the Treasurer is taken
    assert DICE(0, 2, bonus=(0,)) in legal(e) and DICE(2, bonus=(0,)) in legal(e)  # 14, 12
    e.play(DICE(0, 1))  # 2 + 2 -> 4
    e.play(DICE(0))  # Rina 1 -> 1
    e.play(DICE(1))  # Carsten 3 -> 3; Luis has no dice and passes automatically
    assert e.actor == LENA
    e.play(DICE(2, bonus=(0,)))  # 6 + bonus 6 -> 12
    # nobody has dice left: rewards in ascending rank; the Merchant (4) asks Lena first
    occupied = {r: e.board[r] for r in range(1, 19) if e.board[r]}
    assert occupied == {1: [RINA], 3: [CARSTEN], 4: [LENA], 7: [CARSTEN], 8: [RINA], 12: [LENA], 15: [LUIS]}
    assert e.vp[RINA] == 1 and e.goods[CARSTEN][WOOD] == 1  # ranks 1 and 3 already paid
    assert e.decision == Decision.PICK_GOOD and e.actor == LENA and legal(e) == {GOOD(GOLD), GOOD(WOOD)}
    e.play(GOOD(GOLD))
    assert e.actor == CARSTEN and legal(e) == {GOOD(GOLD), GOOD(WOOD), GOOD(STONE)}  # Astronomer
    e.play(GOOD(STONE))
    assert e.actor == LENA  # Duchess: two goods of choice
    e.play(GOOD(WOOD))
    assert legal(e) == {GOOD(WOOD), GOOD(STONE)}  # picks in canonical order
    e.play(GOOD(STONE))
    assert e.goods[RINA] == [2, 0, 0] and e.vp[RINA] == 1
    assert e.goods[CARSTEN] == [0, 1, 1] and e.plus2[CARSTEN] == 1
    assert e.goods[LENA] == [1, 1, 1] and e.plus2[LENA] == 1
    assert e.goods[LUIS] == [1, 1, 1] and e.plus2[LUIS] == 0  # his used token went back
    assert e.bdice[LENA] == []  # "Legt auch alle Bonuswürfel zurück in den Vorrat."
    assert e.stage == ST_BUILD


def test_canonical_dice_subsets_remove_duplicates():
    """Spec 10.3: with dice 4, 4, 5 the player parts {P0}, {P2}, {P0,P1}, {P0,P2}, {P0,P1,P2}."""
    e = new(2)
    clear(e)
    at_influence(e, [0, 1], {0: (4, 4, 5), 1: (1, 1, 1)})
    assert legal(e) == {PASS, DICE(0), DICE(2), DICE(0, 1), DICE(0, 2), DICE(0, 1, 2)}


def test_bonus_dice_never_alone_and_a_forced_pass_is_automatic():
    """ "ihr dürft nicht nur Bonuswürfel einsetzen ... Es muss immer mindestens 1 Spielerwürfel
    zusammen mit dem Bonuswürfel eingesetzt werden." ; "müsst ihr passen". """
    e = new(2)
    clear(e)
    at_influence(e, [0, 1], {0: (1, 2, 3), 1: (6, 6, 6)}, bonus={0: [4]})
    e.play(DICE(0, 1, 2))  # 6 -> Alchemist; only the bonus die is left
    assert e.actor == 1
    e.play(DICE(0, 1, 2))  # 18 -> King; seat 0 cannot place his bonus die alone and passes
    assert e.stage == ST_BUILD and e.actor == 1  # no decision left for seat 0 in step b or c
    assert e.goods == [[0, 0, 0], [1, 1, 1]] and e.soldiers == [0, 1]


def test_one_player_per_advisor_and_one_plus2_token_per_season():
    """ "Jeder Berater darf in jeder Jahreszeit von nur einem einzigen Spieler beeinflusst werden";
    "Jeder Spieler darf nur einen einzigen +2-Marker pro Ertragsphase verwenden." """
    e = new(2)
    clear(e)
    e.plus2 = [2, 0]
    at_influence(e, [0, 1], {0: (1, 3, 5), 1: (1, 3, 5)})
    e.play(DICE(0))
    assert legal(e) == {MOD(0), MOD(1)}  # 1 or 3
    e.play(MOD(1))  # 1 + 2 -> 3
    assert e.plus2[0] == 1 and e.season_flags[0] & PLUS2_USED
    assert DICE(1) not in legal(e)  # 3 is taken
    e.play(DICE(0))  # seat 1: 1 -> 1
    assert e.actor == 0
    assert legal(e) == {PASS, DICE(2), DICE(1, 2)}  # 3 is taken and the token is spent: 5 or 8
    e.play(DICE(2))
    assert e.board[3] == [0] and e.board[5] == [0] and e.plus2[0] == 1


def test_T7_market_one_higher_or_lower_once_per_season():
    """T7: "Beeinflusse einen Berater, dessen Rang 1 höher oder niedriger ist, als deine
    eingesetzten Würfel zeigen" (total 9 -> Treasurer 8 or General 10); once per season."""
    e = new(2)
    clear(e)
    give(e, 0, "C-II")
    at_influence(e, [0, 1], {0: (1, 4, 5), 1: (6, 6, 6)})
    e.play(DICE(1, 2))
    assert legal(e) == {MOD(market=-1), MOD(market=0), MOD(market=1)}
    e.play(MOD(market=1))
    assert e.board[10] == [0] and e.season_flags[0] & MARKET_USED
    e.play(DICE(0, 1, 2))  # seat 1 -> 18
    assert legal(e) == {PASS, DICE(0)}  # 1 only, no market any more
    e.play(DICE(0))  # the Jester; then the rewards: Jester 1 VP, General 2 soldiers
    assert e.vp[0] == 1 and e.soldiers[0] == 2


def test_envoy_influences_an_occupied_advisor_and_it_pays_twice():
    """Phase 5: the envoy may "einen Berater beeinflussen, auf dem bereits Würfel liegen"; the
    advisor then gives its reward twice (A35: own dice allowed, A17: only occupied advisors)."""
    e = new(2)
    clear(e)
    e.envoy = 1
    at_influence(e, [0, 1], {0: (2, 3, 3), 1: (1, 3, 4)})
    e.play(DICE(0, 1))  # seat 0: 5 -> Sergeant
    e.play(DICE(1))  # seat 1: 3 -> free, no envoy choice to make
    assert e.board[3] == [1] and e.envoy == 1
    assert e.actor == 1  # seat 0's last die (3) has no free advisor: he passed automatically
    e.play(DICE(0, 2))  # 1 + 4 = 5: occupied -> only with the envoy
    assert e.envoy == -1 and e.envoy_rank == 5  # used: back on its space
    assert e.soldiers == [1, 1]  # the Sergeant paid both influences


def test_T12_two_players_neutral_dice_block_advisors():
    """T12 / 2 players: three neutral dice on their total, two on theirs; equal totals -> the two
    dice individually ("Falls beide Würfel dasselbe Ergebnis zeigen ... nur einen")."""
    e = new(2)
    clear(e)
    roll_next(e, 2, 3, 5, 4, 6)
    e._start_season(0)
    assert sorted(r for r in range(1, 19) if e.board[r]) == [4, 6, 10]
    e = new(2)
    clear(e)
    roll_next(e, 2, 3, 5, 5, 5)
    e._start_season(0)
    assert sorted(r for r in range(1, 19) if e.board[r]) == [5, 10]
    e = new(2)
    clear(e)
    roll_next(e, 1, 1, 2, 6, 3)
    e._start_season(0)
    assert sorted(r for r in range(1, 19) if e.board[r]) == [4, 9]
    assert e.board[9] == [-1]  # neutral dice: nobody's


# ====================================================================== step c: rewards ====
def _rewards(e, placements, order=(0, 1)):
    e.order = list(order)
    for r, p in placements:
        e.occupied |= 1 << r
        e.placements.append((r, p))
    e.reward_queue = [(r, p) for r in range(1, 19) for p in e.board[r] if p >= 0]  # as step b leaves it
    e.reward_i = 0
    run_stage(e, ST_REWARDS, season=1)  # summer: no honour VP afterwards


def test_T8_stables_one_more_soldier_per_soldier_reward():
    """T8: Ställe: "Jedes Mal wenn du durch das Beeinflussen von Beratern [Soldaten] erhältst,
    erhältst du 1 zusätzlichen" - General 3 instead of 2, Sergeant and King 2 instead of 1."""
    e = new(2)
    clear(e)
    give(e, 0, "E-II")
    _rewards(e, [(5, 0), (10, 0), (18, 0), (10, 1)])
    assert e.soldiers == [2 + 3 + 2, 2]
    assert e.peeked == [True, True]


def test_T9_smuggler_at_zero_vp_goes_negative():
    """T9: "Du kannst auch dann 1 Siegpunkt zahlen, falls du 0 oder weniger Siegpunkte hast." """
    e = new(2)
    clear(e)
    _rewards(e, [(14, 0)])
    assert e.decision == Decision.SMUGGLER and legal(e) == {PASS, YES}
    e.play(YES)
    assert e.vp[0] == -1
    e.play(GOOD(GOLD))
    assert legal(e) == {GOOD(GOLD), GOOD(WOOD), GOOD(STONE)}
    e.play(GOOD(STONE))  # the third pick can only be stone (canonical order): taken automatically
    assert e.goods[0] == [1, 0, 2]


def test_alchemist_pays_one_good_for_the_two_others_or_declines():
    """Alchemist: "Zahle 1 Ware deiner Wahl, um 2 verschiedene andere Waren zu erhalten"."""
    e = new(2)
    clear(e)
    e.goods[0] = [0, 0, 2]
    _rewards(e, [(6, 0)])
    assert e.decision == Decision.ALCHEMIST and legal(e) == {PASS, GOOD(STONE)}
    e.play(GOOD(STONE))
    assert e.goods[0] == [1, 1, 1]
    e = new(2)
    clear(e)
    _rewards(e, [(6, 0)])  # nothing to pay: no decision, nothing gained
    assert e.goods[0] == [0, 0, 0] and e.decision != Decision.ALCHEMIST


def test_fixed_rewards_of_every_advisor():
    """The reward table of step c for the advisors without a choice."""
    expected = {1: ([0, 0, 0], 1, 0, 0), 2: ([1, 0, 0], 0, 0, 0), 3: ([0, 1, 0], 0, 0, 0),
                5: ([0, 0, 0], 0, 1, 0), 8: ([2, 0, 0], 0, 0, 0), 10: ([0, 0, 0], 0, 2, 0),
                13: ([0, 0, 3], 0, 0, 0), 15: ([1, 1, 1], 0, 0, 0), 16: ([4, 0, 0], 0, 0, 0),
                18: ([1, 1, 1], 0, 1, 0)}
    for rank, (goods, vp, soldiers, plus2) in expected.items():
        e = new(2)
        clear(e)
        _rewards(e, [(rank, 1)])
        assert (e.goods[1], e.vp[1], e.soldiers[1], e.plus2[1]) == (goods, vp, soldiers, plus2), rank


def test_hunter_swordsmith_queen_choices():
    """Meisterjäger: 1 Gold und 1 Holz oder 1 Stein und 1 Holz; Schwertschmied: 1 Gold und 1 Stein
    oder 1 Stein und 1 Holz; Königin: 2 Waren deiner Wahl und 3 Siegpunkte (and a peek)."""
    e = new(2)
    clear(e)
    _rewards(e, [(9, 0), (11, 0), (17, 0)])
    assert legal(e) == {GOOD(GOLD), GOOD(STONE)}
    e.play(GOOD(STONE))
    assert legal(e) == {GOOD(GOLD), GOOD(WOOD)}
    e.play(GOOD(GOLD))
    assert e.vp[0] == 3 and e.peeked[0]
    e.play(GOOD(GOLD))
    e.play(GOOD(GOLD))
    assert e.goods[0] == [3, 1, 2]


# ====================================================================== step d: building ====
def _build_step(e, order=(0, 1), season=1):
    run_stage(e, ST_BUILD, order=order, season=season)  # summer: no honour VP afterwards


def test_T3_build_the_statue():
    """T3: "Rina hat 2 Gold und 1 Holz. Sie zahlt 2 Gold, um die Statue zu errichten ... Die Statue
    ist 3 SP wert ... in der Lage, in einer späteren Ertragsphase die Kapelle zu errichten." """
    e = new(2)
    clear(e)
    e.goods[0] = [2, 1, 0]
    _build_step(e)
    assert e.decision == Decision.BUILD and e.actor == 0
    assert legal(e) == {PASS, BUILD("B"), BUILD("C"), BUILD("F")}  # Statue, Inn, Barricade
    e.play(BUILD("B"))
    assert e.goods[0] == [0, 1, 0] and e.vp[0] == 3 and e.owns(0, STATUE)
    assert e.rows[0][ROWS.index("B")] == 1  # the Chapel is now the row's next building


def test_T6_crane_makes_columns_three_and_four_one_gold_cheaper():
    """T6 (Crane clarification): the Farms cost "1 Gold statt 2 Gold, 3 Holz und 1 Stein"."""
    e = new(2)
    clear(e)
    give(e, 0, "C-II", "F-II")
    e.goods[0] = [1, 3, 1]
    _build_step(e)
    assert BUILD("C") in legal(e)
    e.play(BUILD("C"))
    assert e.goods[0] == [0, 0, 0] and e.owns(0, FARMS)
    e = new(2)
    clear(e)
    give(e, 0, "C-II")
    e.goods[0] = [1, 3, 1]
    _build_step(e)
    assert BUILD("C") not in legal(e)


def test_envoy_second_building_right_after_the_first():
    """ "Wer den Gesandter-des-Königs-Marker hat, darf in diesem Schritt ein zweites Gebäude
    errichten ... unmittelbar im Anschluss, nachdem er sein erstes Gebäude errichtet hat" (A15)."""
    e = new(2)
    clear(e)
    e.envoy = 0
    e.goods[0] = [4, 0, 1]
    _build_step(e, order=(0, 1))
    e.play(BUILD("B"))  # Statue: 2 gold
    assert e.decision == Decision.ENVOY_BUILD and e.actor == 0
    assert legal(e) == {PASS, BUILD("D")}  # Chapel needs 3 gold; Guard tower 1 gold 1 stone
    e.play(BUILD("D"))
    assert e.num_buildings[0] == 2 and e.vp[0] == 3 + 1
    assert e.envoy == 1  # used; phase 5 then gave it to the player with the fewest buildings


def test_no_envoy_build_without_a_first_building():
    """A15: the envoy's building is a second one."""
    e = new(2)
    clear(e)
    e.envoy = 0
    e.goods[0] = [4, 0, 1]
    _build_step(e, season=2)
    e.play(PASS)
    assert e.decision == Decision.RECRUIT  # autumn ended; the envoy was not used
    assert e.envoy == 0 and e.num_buildings[0] == 0 and e.decision != Decision.ENVOY_BUILD


# ======================================================================= end of the season ====
def test_T11_inn_token_paid_to_the_town_hall_once():
    """T11: Inn "Am Ende des Sommers: Du erhältst 1 [+2-Marker]"; Town hall "Zahle 1 [+2] oder 1
    [Ware], um 1 [SP] zu erhalten"; the Inn's token may be spent at once, but only 1 VP a season."""
    e = new(2)
    clear(e)
    give(e, 0, "C-I", "F-III")
    run_stage(e, ST_END_EFFECTS, order=[0, 1], season=1)
    assert e.decision == Decision.TOWN_HALL and legal(e) == {PASS, (Op.PAY_PLUS2, 0)}
    e.play((Op.PAY_PLUS2, 0))
    assert e.vp[0] == 1 and e.plus2[0] == 0
    assert e.decision != Decision.TOWN_HALL


def test_embassy_and_inn_timing():
    """Embassy: "Am Ende jeder Ertragsphase: Du erhältst 1 [SP]"; Inn only at the end of summer."""
    e = new(2)
    clear(e)
    give(e, 0, "C-I", "F-IV")
    e.goods[0] = [0, 0, 0]
    e.rows[0][ROWS.index("F")] = 4
    e.num_buildings[0] = 5
    run_stage(e, ST_END_EFFECTS, order=[0, 1], season=0)
    # spring: no Inn token; Town hall with nothing to pay asks nothing; Embassy +1, honour +1
    assert e.plus2[0] == 0 and e.vp[0] == 2


def test_kings_honour_most_buildings_all_tied_gain():
    """Phase 3: "Der Spieler mit den meisten Gebäuden erhält sofort 1 Siegpunkt" (ties: each)."""
    e = new(3)
    clear(e)
    give(e, 0, "B-I")
    give(e, 2, "D-I")
    run_stage(e, ST_END_EFFECTS, order=[0, 1, 2], season=0)
    assert e.vp == [1, 0, 1]


def test_envoy_goes_to_fewest_buildings_then_fewest_goods_else_nobody():
    """Phase 5: fewest buildings gets the envoy; tie: fewest goods; still tied: nobody."""
    for goods, holder in (([[0, 0, 0], [1, 0, 0], [2, 0, 0]], 0), ([[1, 0, 0], [1, 0, 0], [2, 0, 0]], -1)):
        e = new(3)
        clear(e)
        give(e, 2, "B-I")
        e.goods = goods
        e.envoy = 2
        run_stage(e, ST_END_EFFECTS, order=[0, 1, 2], season=1)
        assert e.envoy == holder


# ====================================================================== phase 7 and 8 ====
def test_recruit_two_goods_per_soldier_barracks_one():
    """Phase 7: 2 goods of choice per soldier; Kaserne: "zahle nur 1 [Ware] pro Soldat"."""
    e = new(2)
    clear(e)
    e.goods = [[1, 1, 0], [1, 0, 0]]
    run_stage(e, ST_RECRUIT, order=[0, 1], season=2)
    assert e.decision == Decision.RECRUIT and e.actor == 0
    assert legal(e) == {PASS, (Op.RECRUIT, 1)}  # GW
    e.play((Op.RECRUIT, 1))
    assert e.goods[0] == [0, 0, 0]
    assert e.strengths[0] == 1 + e.kings_aid  # the winter followed: the recruit fought in it
    # seat 1 cannot pay 2 goods: no decision; winter follows
    e = new(2)
    clear(e)
    give(e, 1, "D-III")
    e.goods = [[0, 0, 0], [1, 0, 1]]
    run_stage(e, ST_RECRUIT, order=[0, 1], season=2)
    assert e.actor == 1 and legal(e) == {PASS, (Op.RECRUIT, 10), (Op.RECRUIT, 12)}  # G, S


def _battle(e, soldiers, card_index, order):
    e.enemy_deck[e.year - 1] = card_index
    e.soldiers = list(soldiers)
    e.order = list(order)
    e.phase = 8
    e._winter_soldiers([0] * e.num_players)
    e._advance()


def test_T4_battle_example_goblins():
    """T4: "Goblins, Stärke 4" - Rina 4 and Luis 4 tie, Lena 5 wins (+1 wood, +1 VP for the highest
    strength), Carsten 3 loses: no goods to lose, the Market (rightmost column, topmost row) is
    destroyed (-1 VP) and -1 VP more."""
    e = new(4)
    clear(e)
    goblins = next(c.index for c in e.tables.enemies if c.type_name == "Goblins" and c.year == 1)
    give(e, RINA, "E-I", "F-I")
    give(e, LUIS, "D-I")
    give(e, LENA, "D-II", "F-I")
    give(e, CARSTEN, "C-II", "D-I", "F-II")
    e.goods[CARSTEN] = [1, 0, 0]
    vp_before = list(e.vp)
    _battle(e, [2, 1, 3, 2], goblins, order=[RINA, CARSTEN, LUIS, LENA])
    assert e.strengths == [4, 3, 4, 5]
    assert e.outcomes == [0, -1, 0, 1]
    assert e.goods[LENA] == [0, 1, 0] and e.vp[LENA] - vp_before[LENA] == 1
    assert e.goods[CARSTEN] == [1, 0, 0]
    assert e.vp[CARSTEN] - vp_before[CARSTEN] == -2
    assert not e.owns(CARSTEN, MARKET) and e.owns(CARSTEN, CRANE)
    assert e.vp[RINA] == vp_before[RINA] and e.vp[LUIS] == vp_before[LUIS]
    assert e.soldiers == [0, 0, 0, 0]  # all soldiers go back after the winter
    assert e.year == 2


def test_stone_wall_wins_ties_fortress_adds_vp_farms_penalty():
    """Steinmauer: "Falls dein Kampf unentschieden endet, bist du siegreich"; Festung: "Falls du im
    Kampf siegreich bist, erhältst du 1 [SP] zusätzlich"; Bauernhof: "Strafe: -1 Kampfstärke"."""
    e = new(2)
    clear(e)
    card = next(c for c in e.tables.enemies if c.year == 1 and c.strength == 4 and c.type_name == "Zombies")
    give(e, 0, "E-IV")  # Palisade (+2 vs Zombies), Stables, Stone wall +1, Fortress +1
    give(e, 1, "C-III")  # Farms -1
    vp0 = e.vp[0]
    _battle(e, [0, 5], card.index, order=[0, 1])
    assert e.strengths == [4, 4]
    assert e.outcomes == [1, 0]
    # reward +1 VP, Fortress +1, highest victorious strength +1
    assert e.vp[0] - vp0 == 3


def test_destroying_buildings_rightmost_column_then_topmost_row():
    """Penalty: "das Gebäude in der am weitesten rechts liegenden Spalte ... in der obersten Reihe"."""
    e = new(2)
    clear(e)
    give(e, 0, "B-II", "D-II", "E-I")
    e._destroy(0)
    assert e.rows[0][ROWS.index("B")] == 1 and e.rows[0][ROWS.index("D")] == 2
    e._destroy(0)
    assert e.rows[0][ROWS.index("D")] == 1
    assert e.vp[0] == -(5 + 2)


def test_final_scoring_cathedral_and_tie_breakers():
    """Cathedral: "Am Ende des Spiels: Du erhältst 1 [SP] für je 2 [Waren]"; ties: most goods,
    then most buildings, then a shared victory."""
    e = new(3)
    clear(e)
    give(e, 0, "B-IV")
    e.goods = [[3, 2, 0], [5, 5, 0], [5, 5, 0]]
    e.vp = [10, 12, 12]
    e.year = 5
    e._end_year()
    assert e.vp == [12, 12, 12]  # 5 goods -> 2 VP
    assert e.winners == [1, 2] and e.is_over
    e = new(3)
    clear(e)
    e.goods = [[1, 0, 0], [1, 0, 0], [0, 0, 0]]
    give(e, 1, "B-I")
    e.year = 5
    e._end_year()
    assert e.winners == [1]


# ============================================================================== modules ====
def test_module3_army_token_replaces_the_aid_roll_and_the_last_token_scores():
    """Module 3: "wählt ... geheim 1 ihrer verbleibenden Marker"; the unused token scores its value."""
    e = new(2, module_army_tokens=True)
    clear(e)
    e.order = [0, 1]
    run_stage(e, ST_RECRUIT, order=[0, 1], season=2)
    assert e.decision == Decision.ARMY_TOKEN and legal(e) == {(Op.ARMY_TOKEN, i) for i in range(5)}
    e.play((Op.ARMY_TOKEN, 4))
    assert e.army_choice[0] == 4 and e.army_tokens[0] == [0, 1, 1, 2, 3, 4]  # committed, not yet revealed
    e.play((Op.ARMY_TOKEN, 0))
    assert e.army_tokens[0] == [0, 1, 1, 2, 3] and e.army_revealed[:2] == [4, 0]
    assert e.strengths == [4, 0]
    e = new(2, module_army_tokens=True)
    clear(e)
    e.army_tokens = [[3], [1]]
    e.year = 5
    e._end_year()
    assert e.vp == [3, 1]


def test_module1_military_academy_and_training_camp():
    """Militärakademie: "Falls sein Ergebnis höher ist als die Hilfe des Königs, erhältst du
    stattdessen [Soldaten] in Höhe des ... Würfels"; Ausbildungslager: end of autumn, 1 or fewer
    soldiers -> +1."""
    e = new(2, module_more_buildings=True)
    clear(e)
    give(e, 0, "G-IV")
    card = e.tables.enemies[e.enemy_deck[0]]
    roll_next(e, 5)
    e.order = [0, 1]
    e._winter_soldiers([2, 2])
    assert e.strengths[0] == 5 + (1 if card.strength <= 5 else 0)  # academy roll, G-I vs weak enemies
    e = new(2, module_more_buildings=True)
    clear(e)
    give(e, 1, "G-III")
    e.soldiers = [0, 1]
    e.order, e.season, e.stage, e.cursor, e.sub = [0, 1], 2, ST_END_EFFECTS, 0, 0
    e._step_end_effects()  # end of autumn only, not on into the winter
    assert e.soldiers == [0, 2]


def test_module1_row_a_conversion_in_summer_or_every_season_with_the_mint():
    """Row A: "Am Ende des Sommers: Zahle 1 [X], um 2 [Y] zu erhalten"; Münzstätte: "Du darfst die
    anderen Gebäude in dieser Reihe am Ende jeder Ertragsphase nutzen"."""
    e = new(2, module_more_buildings=True)
    clear(e)
    give(e, 0, "A-I")
    e.goods[0] = [0, 1, 0]
    run_stage(e, ST_END_EFFECTS, order=[0, 1], season=0)
    assert e.decision != Decision.CONVERSION  # spring, no Mint
    e = new(2, module_more_buildings=True)
    clear(e)
    give(e, 0, "A-I")
    e.goods[0] = [0, 1, 0]
    run_stage(e, ST_END_EFFECTS, order=[0, 1], season=1)
    assert e.decision == Decision.CONVERSION and legal(e) == {PASS, YES}
    e.play(YES)
    assert e.goods[0] == [2, 0, 0]


def test_module1_recruiting_office_pays_with_plus2_tokens():
    """Rekrutierungsstelle: "Jedes Mal wenn du in Phase 7 Soldaten rekrutierst, zahle mit [+2] als
    wären sie Waren" (A38)."""
    e = new(2, module_more_buildings=True)
    clear(e)
    give(e, 0, "G-II")
    e.plus2[0] = 2
    run_stage(e, ST_RECRUIT, order=[0, 1], season=2)
    assert legal(e) == {PASS, (Op.RECRUIT, 9)}  # TT
    e.play((Op.RECRUIT, 9))
    card = e.enemy_card()
    assert e.plus2[0] == 0 and e.strengths[0] == 1 + e.kings_aid + (1 if card.strength <= 5 else 0)


def test_module2_thief_miner_and_selection():
    """Dieb: "Du beginnst das Spiel mit 4 [Gold] und -3 [SP]"; Minenarbeiter: end of years I, II, III
    and V +1, end of year IV +2 (A37: gold); 3 cards dealt, 1 kept."""
    e = new(2, module_governors=True)
    assert e.decision == Decision.GOVERNOR and len(legal(e)) == 3
    t = e.tables
    thief = next(g.index for g in t.governors if g.id == "thief")
    miner = next(g.index for g in t.governors if g.id == "miner")
    first = e.actor
    e.governor_hand[first] = [thief, 2, 3]
    e.governor_hand[1 - first] = [miner, 2, 3]
    e.play((Op.GOVERNOR, 0))
    e.play((Op.GOVERNOR, 0))
    thief_seat = first
    assert e.goods[thief_seat] == [4, 0, 0] and e.vp[thief_seat] == -3
    # the other player alone has the fewest goods: he gets the bonus die, no free good (A32)
    assert e.favour_die[1 - thief_seat] == 1 or len(e.bdice[1 - thief_seat]) == 1
    gold_before = e.goods[1 - thief_seat][GOLD]
    e.year = 4
    e._end_year()
    assert e.goods[1 - thief_seat][GOLD] == gold_before + 2


def test_module2_prince_sets_dice_to_3_4_6():
    """Prinz (A42 reconstruction): total 8 or less -> may set the player dice to 3, 4, 6."""
    e = new(2, module_governors=True)
    clear(e)
    prince = next(g.index for g in e.tables.governors if g.id == "prince")
    e.governor = [prince, -1]
    e.governors_revealed = True
    e.pdice = [[1, 2, 3], [6, 6, 6]]
    e.bdice = [[], []]
    run_stage(e, ST_PRINCE, order=[1, 0])
    assert e.decision == Decision.PRINCE and e.actor == 0
    e.play(YES)
    assert e.pdice[0] == [3, 4, 6] and e.order == [0, 1]


def test_module2_tax_collector_gets_a_good_when_an_opponent_builds():
    """Steuereintreiber: a good immediately after an opponent has built (A42 reconstruction)."""
    e = new(2, module_governors=True)
    clear(e)
    tax = next(g.index for g in e.tables.governors if g.id == "tax_collector")
    e.governor = [-1, tax]
    e.governors_revealed = True
    e.goods[0] = [2, 0, 0]
    _build_step(e, order=(0, 1))
    e.play(BUILD("B"))
    assert e.decision == Decision.PICK_GOOD and e.actor == 1 and e.pick_source == 20
    e.play(GOOD(WOOD))
    assert e.goods[1] == [0, 1, 0]


def test_illegal_moves_are_rejected_and_change_nothing():
    from envs.core.testing import state_bytes

    e = new(3)
    before = state_bytes(e)
    for bad in ((Op.BUILD, 1), (Op.DICE, 0), (Op.GOOD, 3), (99, 0)):
        with pytest.raises(IllegalActionError, match="is illegal in decision PICK_GOOD"):
            e.play(bad)
    assert state_bytes(e) == before


def test_A58_battle_reward_with_goods_of_choice_and_a_free_building():
    """A58: a card whose reward gives a building lets the victor erect one legal building for free
    (gaining its VP) or decline; "goods of choice" rewards are picked like advisor goods."""
    import dataclasses

    e = new(2)
    clear(e)
    card = dataclasses.replace(e.tables.enemies[0], strength=1, reward=(0, 0, 0, 0, 2, 1))
    e.tables = dataclasses.replace(e.tables, enemies=(card,) + e.tables.enemies[1:])
    e.enemy_deck[0] = 0
    e.soldiers = [3, 0]
    e.order = [0, 1]
    e.phase = 8
    e._winter_soldiers([0, 0])
    e._advance()
    assert e.decision == Decision.PICK_GOOD and e.actor == 0 and e.pick_source == 19
    e.play(GOOD(GOLD))
    e.play(GOOD(WOOD))
    assert e.decision == Decision.FREE_BUILD
    assert legal(e) == {PASS, BUILD("B"), BUILD("C"), BUILD("D"), BUILD("E"), BUILD("F")}
    e.play(BUILD("B"))
    assert e.goods[0] == [1, 1, 0] and e.owns(0, STATUE)
    assert e.vp[0] == 3 + 1  # the Statue's banner and the highest victorious strength


def test_module2_dealing_at_every_player_count():
    """Setup: "3 zufällige Karten an jeden Spieler"; 6 implemented cards suffice for 2 players without
    repeats; 3-5 players get 3 distinct cards each, repeats across players allowed (ASSUMPTION)."""
    for n in (2, 3, 5):
        e = new(n, seed=n, module_governors=True)
        hands = e.governor_hand
        assert all(len(h) == 3 and len(set(h)) == 3 for h in hands)
        if n == 2:
            assert not set(hands[0]) & set(hands[1])
        # every player keeps one card, hidden until all have chosen
        for _ in range(n):
            assert e.decision == Decision.GOVERNOR and not e.governors_revealed
            e.play((Op.GOVERNOR, 0))
        assert e.governors_revealed and all(e.governor[p] == e.governor_hand[p][0] for p in range(n))
