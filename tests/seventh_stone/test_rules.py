"""Rulebook scenario tests for Seventh Stone (envs/seventh_stone).

Sources, in order of authority: the German rulebook (outside the repository, see docs/rules/README.md), the spec
docs/rules/seventh_stone.md (gap resolutions G01..G46 of its section 12) and
docs/rules/DECISIONS.md. Scenarios set engine state directly on a small hand-made map, then play
moves through ``SeventhStoneEngine.play`` (which checks legality); dice come from a scripted generator.
"""
from __future__ import annotations

import numpy as np
import pytest

import envs
from envs import IllegalActionError
from envs.seventh_stone import SeventhStoneConfig, SeventhStoneEncoder, SeventhStoneEngine
from envs.seventh_stone.board import board_from_rows
from envs.seventh_stone.data import BARRACKS, CAVALRY, MANUFACTORY, MELEE, RANGED, WALL, WATER_CROSSING
from envs.seventh_stone.engine import (
    DONE, KINDS, UNDO, YES, Army, Fight, Op, Phase, Stage,
)


class Dice:
    """A scripted random generator: integers() hands out the given die values in order, then
    falls back to a seeded generator (for the years a scenario may run on into)."""

    def __init__(self, values=()):
        self.values = list(values)
        self.fallback = np.random.default_rng(0)

    def _one(self, low, high):
        return self.values.pop(0) if self.values else int(self.fallback.integers(low, high))

    def integers(self, low, high=None, size=None):
        if size is None:
            return self._one(low, high)
        return np.array([self._one(low, high) for _ in range(size)])

    def random(self):
        return 0.5

    def permutation(self, n):
        return np.arange(n)


def cell(r, c):
    return (r - 1) * 7 + (c - 1)


MAP = [  # 5 columns x 4 rows; T = temple (plain), p1 = plain with a blue portal
    "P  P  F  M  p1",
    "P  T  ~  P  P",
    "F  D  ~  M  P",
    "p1 P  P  P  T",
]
ANCHORS = ["~  ~  ~  ~  ~", "P  P  P  P  P"]  # behind water: one capital per player (row 6)


def scenario(n=2, rows=MAP, anchors=True, **options):
    """A hand-made map; with anchors every player owns a capital in row 6, so that every year has a
    real allocation decision and a scenario stops there instead of playing on by forced moves."""
    rows = list(rows) + (ANCHORS if anchors else [])
    e = SeventhStoneEngine(SeventhStoneConfig(**options), n, np.random.default_rng(0), board=board_from_rows(rows))
    e.stage, e.idx, e.year, e.event = Stage.YEAR_END, 0, 1, -1
    if anchors:
        for p in range(n):
            e.capital_of[cell(6, p + 1)] = e.controller[cell(6, p + 1)] = p
    return e


def place(e, item, at):
    e.play((Op.ITEM, item))
    if e.phase == Phase.PLACE_CELL:
        e.play((Op.CELL, at))


def add(e, at, p, utype, mil, merc=0, stones=()):
    e.armies[at].append(Army(p, utype, [0] * mil, [0] * merc, list(stones)))
    e.stamp_everything()


def start(e, stage, order=None):
    e.order = list(order or range(e.num_players))
    e.stage, e.idx, e.moved_done, e.fight = stage, 0, False, None
    e._legal = None
    e._run()


def CELL(at):
    return (Op.CELL, at)


def select(e, src, mil=None, merc=0, utype=None):
    """Start a move order at src; counts are asked only when there is a choice (forced ones run alone)."""
    e.play(CELL(src))
    if e.phase == Phase.MOVE_TYPE:
        e.play((Op.UTYPE, utype))
    if e.phase == Phase.MOVE_COUNT_MIL:
        e.play((Op.AMOUNT, mil))
    if e.phase == Phase.MOVE_COUNT_MERC:
        e.play((Op.AMOUNT, merc))
    if e.phase == Phase.MOVE_TAKE_STONE:
        e.play(YES)
    assert e.phase == Phase.MOVE_DEST


def order(e, src, dest, mil=None, merc=0, utype=None):
    select(e, src, mil, merc, utype)
    e.play(CELL(dest))


def kind(name):
    return next(i for i, k in enumerate(KINDS) if k.name == name)


# ----------------------------------------------------------------------------------- setup ----
def test_starting_placement_and_values():
    """p. 5: "Hauptstädte ... in Reihenfolge", Kasernen "in umgekehrter Reihenfolge"; 19 RS = 15 + 2 x 2, 3 TS."""
    env = envs.make("seventh_stone", num_players=4)
    env.reset(seed=3)
    e = env.engine
    order = list(e.setup_order)
    seen = []
    while e.phase in (Phase.SETUP_CAPITAL, Phase.SETUP_BARRACKS):
        seen.append(e.actor)
        env.step(env.legal_actions()[0])
    assert seen == order + order[::-1]
    for p in range(4):
        assert e.production(p) == 19 and e.upkeep(p) == 0 and e.ts(p) == 3
        assert e.budget[p] == 19
    assert e.year == 1 and e.phase == Phase.ALLOC


def test_board_has_one_water_gap_per_column():
    """p. 2: "7 Spalten ... je Spalte eine Lücke (Wasserfeld), Zeile per Würfelwurf"; 2/3 players 5/6 columns."""
    for n, cols in ((2, 5), (3, 6), (4, 7)):
        e = envs.make("seventh_stone", num_players=n)
        e.reset(seed=n)
        b = e.engine.board
        assert b.num_cols == cols
        for c in range(cols):
            column = [b.terrain[r * 7 + c] for r in range(6)]
            assert column.count(1) == 1 and 0 not in column
        assert sum(1 for t in b.terrain if t == 7) == 1  # one volcano
        assert sum(1 for t in b.terrain if t not in (0, 1)) == {2: 25, 3: 30, 4: 35}[n]


# ------------------------------------------------------------------------------ tear stones ----
def test_tear_stone_example():
    """p. 3: Zwerg 3 Tempel = 3 TS; Mensch 1 Hauptstadt + Tränenstein = 4; Ork Hauptstadt, Tempel, 2 Turniere = 6;
    Elf zwei Hauptstädte und ein Turnier = 7."""
    rows = ["T T T T P", "P P P P P"]
    e = scenario(4, rows, anchors=False)
    dwarf, human, orc, elf = range(4)
    for c in range(3):
        e.controller[cell(1, c + 1)] = dwarf
    for p, at in ((human, cell(2, 1)), (orc, cell(2, 2)), (elf, cell(2, 3)), (dwarf, cell(2, 4))):
        e.capital_of[at] = p
        e.controller[at] = p
    e.controller[cell(2, 4)] = elf  # Elf took the dwarves' capital
    e.controller[cell(1, 4)] = orc
    e.tear_bought[human] = True
    e.tourn_wins[orc] = 2
    e.tourn_wins[elf] = 1
    assert [e.ts(p) for p in range(4)] == [3, 4, 6, 7]


def test_victory_only_at_the_end_of_a_year_with_tie_break():
    """p. 3: "am Ende eines Spieljahres 7 Tränensteine"; G19: most TS, then most permanent TS."""
    e = scenario(3, ["T T T T P", "P P P P P"], anchors=False)
    for p, at in enumerate((cell(2, 1), cell(2, 2), cell(2, 3))):
        e.capital_of[at] = e.controller[at] = p
    for c in range(4):
        e.controller[cell(1, c + 1)] = 0 if c < 2 else 1
    e.tourn_wins = [2, 2, 0]  # seat 0: 3 + 2 + 2 = 7, seat 1: 3 + 2 + 2 = 7
    e.tear_bought[1] = True  # seat 1: 8
    e.round_counter = 0
    e._end_year()
    assert e.is_over and e.winners == [1] and e.placement_scores() == [0.0, 1.0, 0.0]


# -------------------------------------------------------------------------------- markets ----
def test_mercenary_and_tournament_keys_and_tie_breaks():
    """p. 6: "4, 2, 1, 0 Söldner"; gleiches Gebot: mehr TS, sonst Würfel; Gebot 0 nimmt nicht teil."""
    e = scenario(4)
    e.rng = Dice()
    e.tourn_wins = [0, 1, 0, 0]
    e.alloc = [[0, 0, 0, 0, 3, 0, 0, 0], [0, 0, 0, 0, 3, 0, 0, 2], [0, 0, 0, 0, 5, 0, 0, 4],
               [0, 0, 0, 0, 0, 0, 0, 2]]
    e._reveal_and_mercenaries()
    assert e.pend_mercs == [1, 2, 4, 0]  # seat 1 beats seat 0 on TS; seat 3 did not bid
    e.tstones = [0, 0, 5, 0]
    for r, p in enumerate(e._rank(7)):
        e.tstones[p] += e.tourn_key[r]
    assert e.tstones == [0, 2, 9, 1]  # the stones accumulate until the next tournament


def test_turn_order_market_example():
    """p. 6 example: Elf (highest bid) takes the last place, Dwarf the third; Elf seats Human 1st, Orc 2nd."""
    e = scenario(4)
    dwarf, orc, human, elf = range(4)
    e.alloc = [[0, 0, 0, 0, 0, 0, 2, 0], [0] * 8, [0] * 8, [0, 0, 0, 0, 0, 0, 5, 0]]
    e.offer, e.offer_status, e.offer_taker = [], [], []
    e.stage, e.idx, e.ranking = Stage.DRAFT, 0, []
    e._run()
    assert e.phase == Phase.ORDER_PICK and e.actor == elf
    e.play((Op.CHOICE, 3))
    assert e.actor == dwarf
    e.play((Op.CHOICE, 2))
    assert e.phase == Phase.ORDER_ASSIGN and e.actor == elf and e.assignee == orc
    with pytest.raises(IllegalActionError):
        e.play((Op.CHOICE, 3))
    e.play((Op.CHOICE, 1))  # Orc 2nd, Human gets the last free place (forced)
    assert e.order == [human, orc, dwarf, elf]


def test_two_player_equipment_draft():
    """p. 13: "Der Gewinner nimmt 1 Stein und legt 1 auf den Ablagestapel, der andere erhält den übrigen"."""
    e = scenario(2)
    e.offer = [kind("bribery"), kind("tear_stone"), kind("shield1")]
    e.offer_status, e.offer_taker = [0, 0, 0], [-1, -1, -1]
    e.alloc = [[0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 3, 0, 0]]
    e.stage, e.idx, e.draft_step = Stage.DRAFT, 0, 0
    e.ranking = e._rank(5)
    e._run()
    assert e.phase == Phase.DRAFT_PICK and e.actor == 1
    e.play((Op.CHOICE, 1))  # the lost tear stone: +1 permanent TS at once
    assert e.tear_bought[1] and e.phase == Phase.DRAFT_DISCARD
    e.play((Op.CHOICE, 2))
    assert e.hands[0][kind("bribery")] == 1  # the other bidder gets the last stone (forced)
    assert e.discard[kind("shield1")] == 1 and e.permanent_ts(1) == 1


# ------------------------------------------------------------------------------ placement ----
def test_placement_capacity_example():
    """p. 8: Kasernenmaximum 2 Einheiten je bereite Kaserne; neue Kaserne erst nächstes Jahr;
    Einheitenmaximum 4; Söldner <= Militäreinheiten."""
    e = scenario(2)
    a_field, c_field = cell(1, 1), cell(1, 2)
    e.controller[a_field] = e.controller[c_field] = 0
    e.buildings[c_field] = [[BARRACKS, 1]]
    add(e, c_field, 0, CAVALRY, 2)
    e.pend_build[0], e.pend_units[0], e.pend_mercs[0] = 1, [1, 0, 3], 4
    start(e, Stage.PLACE, [0, 1])
    place(e, 0, a_field)  # a barracks on A: not ready this year
    assert a_field not in e._place_cells(0, 5) and c_field in e._place_cells(0, 5)
    place(e, 5, c_field)
    place(e, 5, c_field)  # 2 + 2 = 4 cavalry: the unit maximum
    assert c_field not in e._place_cells(0, 5)  # a 3rd unit breaks the barracks and unit maximum
    army = e.army_at(c_field, 0)
    assert len(army.mil) == 4 and e.upkeep(0) == 4
    assert (Op.ITEM, 6) not in e.legal_moves()  # mercenaries: unit maximum reached
    e.play(DONE)
    assert e.pend_mercs[0] == 0 and e.pend_units[0] == [0, 0, 0]  # unplaced goods expire


def test_manufactory_adds_production_and_replacing_it_removes_it():
    """p. 4: Manufaktur "sofort 2 RS"; G16: replacing a manufactory loses its 2 RS."""
    e = scenario(2)
    f = cell(1, 1)
    e.controller[f] = 0
    e.pend_build[0] = 3
    start(e, Stage.PLACE, [0, 1])
    base = e.production(0)
    for _ in range(2):
        place(e, 1, f)
    assert e.production(0) == base + 4
    place(e, 2, f)
    assert e.phase == Phase.PLACE_REPLACE
    e.play((Op.CHOICE, 0))
    assert [b[0] for b in e.buildings[f]] == [MANUFACTORY, WALL] and e.production(0) == base + 2


# ------------------------------------------------------------------------------- movement ----
def test_movement_reach_portals_and_barriers():
    """p. 9: Nahkampf/Fernkampf 1 Feld, Kavallerie 2 Felder; Portale gleicher Farbe benachbart; Wasser Barriere."""
    e = scenario(2)
    add(e, cell(2, 4), 0, MELEE, 1)
    add(e, cell(1, 5), 0, CAVALRY, 1)
    start(e, Stage.MOVE, [0, 1])
    select(e, cell(2, 4))
    dests = {m[1] for m in e.legal_moves()}
    assert dests == {cell(1, 4), cell(3, 4), cell(2, 5)}  # the water at r2c3 blocks the way west
    e.play(CELL(cell(2, 5)))
    select(e, cell(1, 5))
    dests = {m[1] for m in e.legal_moves()}
    assert cell(4, 1) in dests and cell(4, 2) in dests  # through the blue portal, then one more step
    assert cell(3, 5) in dests and cell(2, 4) in dests and cell(3, 3) not in dests


def test_water_crossing_event_goes_straight_and_ends_the_move():
    """p. 13 Wasserüberquerung: gegenüberliegendes Ufer, keine Richtungsänderung, Bewegung endet dort (G12)."""
    e = scenario(2)
    e.event = WATER_CROSSING
    add(e, cell(2, 2), 0, CAVALRY, 1)
    start(e, Stage.MOVE, [0, 1])
    select(e, cell(2, 2))
    assert (Op.CELL, cell(2, 4)) in e.legal_moves()
    e.play(CELL(cell(2, 4)))
    assert e.army_at(cell(2, 4), 0).mil == [0] and e.controller[cell(2, 4)] == 0


def test_taking_a_field_moves_production_between_players():
    """p. 9: "Zwerg erhält 2 RS von Elf" - the gainer's P rises by 2, the loser's falls by 2."""
    e = scenario(2)
    e.controller[cell(1, 2)] = 1
    add(e, cell(1, 1), 0, MELEE, 1)
    p0, p1 = e.production(0), e.production(1)
    start(e, Stage.MOVE, [0, 1])
    order(e, cell(1, 1), cell(1, 2))
    assert e.controller[cell(1, 2)] == 0
    assert (e.production(0), e.production(1)) == (p0 + 2, p1 - 2)


def test_deferred_capacity_check_allows_a_swap_and_undo():
    """p. 9 "Gleichzeitigkeit": the maximums must hold only at the end of the own movement phase;
    spec 13.4 option A: DONE is masked while a rule is broken, UNDO takes the last move order back."""
    e = scenario(2)
    x, y = cell(4, 3), cell(4, 4)
    e.controller[x] = e.controller[y] = 0
    add(e, x, 0, MELEE, 2)
    add(e, y, 0, RANGED, 2)
    start(e, Stage.MOVE, [0, 1])
    order(e, x, y, 2)  # melee and ranged on one field for now
    assert DONE not in e.legal_moves() and UNDO in e.legal_moves()
    e.play(UNDO)
    assert len(e.army_at(x, 0, MELEE).mil) == 2 and DONE in e.legal_moves()
    order(e, x, y, 2)
    order(e, y, x, 2, utype=RANGED)  # two armies stand on y: the type picks the ranged one
    assert DONE in e.legal_moves()
    e.play(DONE)
    assert e.army_at(x, 0).utype == RANGED and e.army_at(y, 0).utype == MELEE


def test_conflict_blockade_and_overrun():
    """p. 9/12: a unit that ends on an enemy army makes a conflict; nobody leaves it (Blockade);
    Überrennen needs at least twice the enemy units and is fought without walls or equipment."""
    e = scenario(2)
    f = cell(3, 2)  # desert: nobody controls it
    add(e, f, 1, MELEE, 1)
    add(e, cell(3, 1), 0, MELEE, 1)
    add(e, cell(4, 2), 0, MELEE, 1)
    start(e, Stage.MOVE, [0, 1])
    order(e, cell(3, 1), f, 1)
    assert e.conflicts == {f: 1}
    assert (Op.CELL, f) not in e.legal_moves() and (Op.OVERRUN, f) not in e.legal_moves()
    order(e, cell(4, 2), f, 1)
    assert (Op.OVERRUN, f) in e.legal_moves()  # 2 units against 1
    e.rng = Dice([1, 1, 6])  # melee phase: seat 0 rolls 1, 1; seat 1 rolls 6
    e.play((Op.OVERRUN, f))
    assert f not in e.conflicts and e.army_at(f, 1) is None and len(e.army_at(f, 0).mil) == 2


def test_enemy_capital_is_always_defended_by_its_city_guard():
    """p. 4 Stadtwache 4; G06: entering an enemy capital starts a fight against the guard, even if empty."""
    e = scenario(2)
    capital = cell(1, 2)
    e.capital_of[capital] = e.controller[capital] = 1
    add(e, cell(1, 1), 0, MELEE, 4)
    start(e, Stage.MOVE, [0, 1])
    order(e, cell(1, 1), capital, 4)
    assert e.conflicts == {capital: 1} and e.controller[capital] == 1
    assert (Op.OVERRUN, capital) not in e.legal_moves()  # 4 units against a guard of 4
    e.rng = Dice([1, 1, 1, 1, 6, 6, 6, 6])  # melee phase: 4 hits on the guard, the guard misses
    e.play(DONE)  # seat 1 cannot move; no overrun, no support: the fight runs (a forced pick)
    assert e.controller[capital] == 0 and e.ts(0) == 6 and e.ts(1) == 3
    assert e.production(0) == 2 * 17


# -------------------------------------------------------------------------------- combat ----
def test_support_reach_figure():
    """p. 10: "Fernkampfarmee kann jeden der vier Konflikte (orthogonal und diagonal) unterstützen,
    die Kavallerie nur einen der unteren zwei (orthogonal)"."""
    e = scenario(2, ["P P P", "P P P", "P P P"], anchors=False)
    centre = cell(2, 2)
    ranged = Army(0, RANGED, [0], [], [])
    cavalry = Army(0, CAVALRY, [0], [], [])
    melee = Army(0, MELEE, [0], [], [])
    e.conflicts = {cell(1, 1): 1, cell(1, 3): 1, cell(3, 2): 1, cell(2, 3): 1}
    assert e._support_targets(centre, ranged) == sorted(e.conflicts)
    assert e._support_targets(centre, cavalry) == [cell(2, 3), cell(3, 2)]
    assert e._support_targets(centre, melee) == []


def _fight(e, at, attacker_army, defender_army, defender=1):
    e.armies[at] = [attacker_army, defender_army]
    e.conflicts = {at: defender}
    e.order = [0, 1]
    e.fight = Fight(at, False, 0, defender)
    e.fight.stage = 2
    return e.fight


def test_master_strike_example():
    """p. 14 Meisterschlag: 5 Nahkämpfer würfeln 1,1,1,4,5 -> 3 Zusatzwürfel 1,4,5: insgesamt 6 Treffer."""
    e = scenario(2)
    f = _fight(e, cell(3, 2), Army(0, MELEE, [0] * 5, [], []), Army(1, MELEE, [0] * 8, [], []))
    f.used[0] = kind("master_strike(melee)")
    f.roll_phase = 2
    e.rng = Dice([1, 1, 1, 4, 5, 1, 4, 5] + [6] * 8)
    e._roll(f)
    assert f.hits_pending == [[1, 6]]


def test_wall_and_shield_absorb_first_hits():
    """p. 4 Mauer: "die ersten 2 Treffer"; p. 14 Schild N wie eine Mauer; G18 order walls, shield."""
    e = scenario(2)
    f = _fight(e, cell(1, 1), Army(0, MELEE, [0] * 4, [], []), Army(1, MELEE, [0] * 4, [], []))
    f.absorb_wall[1] = 2
    f.absorb_shield[1] = 1
    f.roll_phase = 2
    e.rng = Dice([1, 1, 1, 1] + [6] * 4)
    e._roll(f)
    assert f.hits_pending == [[1, 1]]


def test_supporting_ranged_cannot_be_removed_but_cavalry_can():
    """p. 11: unterstützende Kavallerie darf als Verlust entfernt werden, unterstützende Fernkämpfer nicht."""
    e = scenario(2)
    at = cell(2, 4)
    _fight(e, at, Army(0, MELEE, [0, 0], [], []), Army(1, MELEE, [0], [0], []))
    cav = Army(1, CAVALRY, [0], [], [])
    cav.support = at
    rng_ = Army(1, RANGED, [0], [], [])
    rng_.support = at
    e.armies[cell(1, 4)] = [cav]
    e.armies[cell(3, 4)] = [rng_]
    moves = set(e._casualty_moves(1))
    assert moves == {(Op.CAS_MERC, at), (Op.CELL, cell(1, 4))}  # military only once s < m holds after


def test_destruction_roll_after_a_fight():
    """p. 11 Zerstörungswurf: je Gebäude 1 W6, bei <= 3 zerstört (G03), auch nach erfolgreicher Verteidigung."""
    e = scenario(2)
    at = cell(1, 1)
    e.controller[at] = 1
    e.buildings[at] = [[BARRACKS, 1], [MANUFACTORY, 1]]
    e.armies[at] = [Army(1, MELEE, [0], [], [])]
    e.conflicts = {at: 1}
    e.rng = Dice([3, 4])
    start(e, Stage.FIGHTS, [0, 1])  # a one-sided conflict: no dice, the roll still applies (G40)
    e.play(CELL(at))
    assert [b[0] for b in e.buildings[at]] == [MANUFACTORY]


def test_debt_rule_forces_disbanding():
    """p. 4: Verlust einer Quelle ohne genug RS -> Militäreinheiten auflösen (G31: surplus mercenaries too)."""
    e = scenario(2, anchors=False)
    e.controller[cell(1, 1)] = e.controller[cell(1, 2)] = 1
    add(e, cell(1, 1), 1, MELEE, 2, 1)
    add(e, cell(4, 4), 1, MELEE, 2)
    add(e, cell(2, 2), 0, MELEE, 1)
    assert e.production(1) == 4 and e.upkeep(1) == 4
    start(e, Stage.MOVE, [0, 1])
    order(e, cell(2, 2), cell(1, 2))
    assert e.production(1) == 2
    assert e.phase == Phase.DISBAND and e.actor == 1
    assert set(e.legal_moves()) == {CELL(cell(1, 1)), CELL(cell(4, 4))}
    e.play(CELL(cell(1, 1)))
    assert e.phase == Phase.DISBAND and len(e.army_at(cell(1, 1), 1).mil) == 1
    e.play(CELL(cell(1, 1)))  # its last military unit: the mercenary leaves as well
    assert e.army_at(cell(1, 1), 1) is None and e.upkeep(1) == e.production(1) == 2
    assert e.phase == Phase.MOVE_SELECT and e.actor == 1  # seat 0 had nothing left to move


# ------------------------------------------------------------ multi-player fights (G10) ----
FIELD = cell(2, 4)  # a plain nobody controls, without buildings: no destruction roll


def _three_party_fight(armies, supporters=(), **options):
    """Seats 0..2 in turn order; armies = [(seat, type, military, mercenaries)] in FIELD; the
    fight starts when seat 0 picks it (his only conflict)."""
    e = scenario(3, **options)
    for p, utype, mil, merc in armies:
        add(e, FIELD, p, utype, mil, merc)
    for at, p, utype, mil in supporters:
        add(e, at, p, utype, mil)
        e.army_at(at, p).support = FIELD
    e.conflicts = {FIELD: armies[0][0]}
    start(e, Stage.FIGHTS, [0, 1, 2])
    assert e.phase == Phase.FIGHT_PICK and e.actor == 0
    return e


def _aim(e, seat, count, choices):
    assert e.phase == Phase.DICE_ALLOC and e.actor == seat
    assert e.legal_moves() == [(Op.AMOUNT, k) for k in range(choices + 1)]
    e.play((Op.AMOUNT, count))


def test_three_party_fight_every_roller_splits_his_dice():
    """p. 11 Mehrspielerkampf: vor jeder Kampfrunde legen die Spieler in der bestimmten Reihenfolge fest,
    welchem Spieler ihre Würfel gelten; eine Aufteilung ist möglich (G10: counts per target in seat order)."""
    e = _three_party_fight([(0, MELEE, 3, 0), (1, MELEE, 2, 0), (2, MELEE, 3, 1)])
    e.rng = Dice([1, 1, 5] + [6, 6] + [1, 1, 1, 6])  # melee phase: seat 0, 1, 2 in turn order
    e.play(CELL(FIELD))
    _aim(e, 0, 1, 3)  # 1 die at seat 1, the rest (2) at seat 2
    with pytest.raises(IllegalActionError):
        e.play((Op.AMOUNT, 3))  # seat 1 decides now, and has only 2 dice
    _aim(e, 1, 2, 2)  # both at seat 0
    assert e.fight.aims == {(0, 2): [[1, 1], [2, 2]], (1, 2): [[0, 2], [2, 0]], (2, 2): [[0, 0], [1, 0]]}
    encoder = SeventhStoneEncoder(e.config, 3)
    raw = encoder.unscale(encoder.encode(e, 2))
    aimed = raw[encoder.layout["dice_aims"]]  # seat 2's view: relative seats 0 = seat 2, 1 = seat 0, 2 = seat 1
    assert list(aimed) == [0, 0, 0, 2, 2, 1]
    assert list(raw[encoder.layout["dice_alloc"]]) == [0, 1, 4, 0, 1, 0]  # melee dice, 4 left, asked: seat 0
    _aim(e, 2, 0, 4)  # nothing at seat 0: all 4 at seat 1
    # seat 1 took 1 + 3 hits and had 2 units (all gone); seat 2 took 1 and chooses which unit
    assert e.army_at(FIELD, 1) is None
    assert e.phase == Phase.CASUALTY and e.actor == 2 and e.fight.hits_pending == [[2, 1]]
    assert e.army_at(FIELD, 0).size == 3


def test_supporter_splits_his_dice_but_is_never_a_target():
    """p. 11: Würfel können nicht gegen Spieler gerichtet werden, die nur unterstützen. Only the
    supporter has two possible targets; the two fighters have one each and are not asked."""
    e = _three_party_fight([(0, MELEE, 2, 0), (1, MELEE, 2, 0)], supporters=[(cell(1, 4), 2, RANGED, 2)])
    e.rng = Dice([1, 1] + [6, 6, 6, 6])  # ranged phase: the supporter; melee phase: seats 0 and 1
    e.play(CELL(FIELD))
    assert list(e.fight.aims) == [(2, 1)]
    _aim(e, 2, 1, 2)
    assert e.army_at(FIELD, 0).size == 1 and e.army_at(FIELD, 1).size == 1  # one hit each
    assert e.phase == Phase.DICE_ALLOC and e.actor == 2 and e.fight.rounds == 1  # asked again next round


def test_allocation_is_cut_back_from_the_last_target_when_dice_are_lost():
    """G10: phase-2 dice are allocated before the round; ranged casualties of phase 1 cut the
    allocation back starting from the last-listed target."""
    e = _three_party_fight([(0, MELEE, 3, 0), (1, RANGED, 2, 1), (2, MELEE, 2, 0)])
    e.rng = Dice([1, 2, 6] + [1] + [6, 6])  # ranged: seat 1; melee: seat 0's one die left, seat 2
    e.play(CELL(FIELD))
    _aim(e, 0, 2, 3)  # melee dice: 2 at seat 1, 1 at seat 2
    _aim(e, 1, 3, 3)  # ranged dice: all 3 at seat 0
    _aim(e, 2, 0, 2)  # melee dice: both at seat 1
    assert e.army_at(FIELD, 0).size == 1  # 2 ranged hits
    # seat 0's single die went to seat 1 (listed first), not to seat 2
    assert e.phase == Phase.CASUALTY and e.actor == 1 and e.fight.hits_pending == [[1, 1]]


def test_more_dice_than_one_amount_covers_stay_splittable():
    """AMOUNT goes up to 31; AMOUNT(31) with dice left asks again for the same target."""
    e = _three_party_fight([(0, MELEE, 33, 0), (1, MELEE, 1, 0), (2, MELEE, 1, 0)])
    e.play(CELL(FIELD))
    _aim(e, 0, 31, 31)
    assert e.fight.aim_idx == 0 and e.fight.aim_left == 2
    _aim(e, 0, 1, 2)
    assert e.fight.aims[(0, 2)] == [[1, 32], [2, 1]]
    assert e.actor == 1


def test_automatic_dice_allocation_option():
    """dice_allocation="auto": no decision; all dice at the opponent with the most units in the field."""
    e = _three_party_fight([(0, MELEE, 3, 1), (1, MELEE, 2, 0), (2, MELEE, 4, 0)], dice_allocation="auto")
    e.rng = Dice([6, 6, 6, 6] + [6, 6] + [1, 6, 6, 6])
    e.play(CELL(FIELD))  # seat 0 aims at seat 2; seats 1 and 2 at seat 0 (ties: turn order)
    assert e.phase == Phase.CASUALTY and e.actor == 0 and e.fight.hits_pending == [[0, 1]]
    with pytest.raises(envs.ConfigError, match="dice_allocation"):
        envs.make("seventh_stone", num_players=3, dice_allocation="sometimes")


# ---------------------------------------------------------------------------- tournament ----
def test_tournament_damage_example():
    """p. 12: Mensch (5 Steine) gegen Zwerg (2): Schaden 2 gegen 1; beide auf 0 -> mehr Steine gewinnt."""
    e = scenario(4)
    e.tstones = [2, 0, 5, 8]  # dwarf, orc, human, elf
    e.rng = Dice([1, 1, 1, 1, 1, 1])  # both hit every time: human 2 damage per hit, dwarf 1
    assert e._duel(2, 0) == 2  # the dwarf falls after 3 exchanges, the human has 2 LE left
    e.rng = Dice([1, 1] * 5)
    assert e._duel(2, 3) == 3  # elf deals 1 + floor(3 / 2) = 2; human 1: human falls first
    e.rng = Dice([1, 1] * 5)
    e.tstones = [0, 0, 3, 1]
    assert e._duel(3, 2) == 2



def test_undo_limit_bounds_a_movement_phase():
    """Spec 13.4 safeguard: after 32 UNDOs in one movement phase only the way back and DONE remain,
    so an agent that keeps taking moves back cannot stall the game."""
    e = scenario(2)
    x, y = cell(4, 3), cell(4, 4)
    e.controller[x] = e.controller[y] = 0
    add(e, x, 0, MELEE, 2)
    add(e, y, 0, RANGED, 2)
    start(e, Stage.MOVE, [0, 1])
    for _ in range(31):
        order(e, x, y, 2)
        e.play(UNDO)
    order(e, x, y, 2)
    assert UNDO in e.legal_moves() and DONE not in e.legal_moves()
    e.play(UNDO)  # the 32nd: DONE is then the only move and is played at once
    assert e.stage != Stage.MOVE and len(e.army_at(x, 0, MELEE).mil) == 2
