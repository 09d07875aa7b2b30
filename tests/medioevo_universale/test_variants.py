"""Variants 8.1 empire auction, 8.2 terrain, 8.3 blood markers, 8.5 hidden purchases and the G87
per-unit captain reading (config options, off by default)."""
import numpy as np
import pytest

from envs.core import ConfigError, IllegalActionError, TabletopEnv, testing
from envs.medioevo_universale import SPEC
from envs.medioevo_universale.constants import (
    AR, CARAVAN, GALLEY, HI, MERCHANT_SHIP, SIEGE, WAR_WAGON, Ctrl, Head, Phase, Purchase, Stage,
)
from envs.medioevo_universale.observation import MedioevoEncoder
from envs.medioevo_universale.engine import MedioevoConfig, MedioevoEngine
from envs.medioevo_universale.variants import BLOOD_MARKERS

from .test_fuzz import check_invariants
from .test_rules import NT, clear_seat, engine_at_purchase, node
from .test_war import fight, put

DONE = (Head.CTRL, Ctrl.DONE)
ALL_VARIANTS = dict(empire_auction=True, terrain=True, blood_markers=True, hidden_purchases=True,
                    captains_per_unit=True)


def blank_engine(**cfg):
    """HRE, HUN, BYZ, GH in the purchase phase of round 1, every army and object cleared."""
    e = engine_at_purchase(**cfg)
    for p in range(4):
        clear_seat(e, p)
    e.order = [0, 1, 2, 3]
    e.position = [0] * 4
    e.queue = []
    return e


def war_turn(e, p):
    e.stage, e.actor, e.phase = Stage.WAR, p, Phase.WAR_TURN


def node_moves(e):
    return sorted(e.board.names[a] for h, a in e.legal_moves() if h == Head.NODE)


# ------------------------------------------------------------------------- 8.2 terrain ----
def test_terrain_mp_to_enter():
    e = blank_engine(terrain=True)
    wagon = e._new_object(0, WAR_WAGON, 1, node("Mailand"))
    slot = e.slots[0].index(wagon)
    war_turn(e, 0)
    e.play((Head.OBJECT, slot))
    # plain Venedig 1 MP, hills Genua / Schwaben 2 MP (Toskana: barbarians, not for an empty wagon)
    assert node_moves(e) == ["Genua", "Schwaben", "Venedig"]
    mp = e.objs[wagon][4]
    e.play((Head.NODE, node("Genua")))
    assert e.objs[wagon][4] == mp - 2
    e.play((Head.NODE, node("Mailand")))
    assert e.objs[wagon][4] == mp - 3
    e.objs[wagon][4] = 1
    assert node_moves(e) == ["Venedig"]  # one MP left: only the plain neighbour
    e.objs[wagon][4] = 0
    assert node_moves(e) == []
    # ships pay 1 MP to dock whatever the terrain; caravans pay the terrain
    assert e.step_cost(GALLEY, node("Tyrrhenisches Meer (Tyrrhenian Sea)"), node("Genua")) == 1
    assert e.step_cost(MERCHANT_SHIP, node("Schwarzes Meer (Black Sea)"), node("Trebisonda")) == 1
    assert e.step_cost(CARAVAN, node("Tiflis"), node("Trebisonda")) == 3
    assert e.step_cost(SIEGE, node("Kairo"), node("Sinai")) == 2


def test_river_crossing_costs_one_more():
    e = blank_engine(terrain=True)
    mailand, venedig = node("Mailand"), node("Venedig")
    assert e.step_cost(WAR_WAGON, mailand, venedig) == 1  # the default map has no rivers
    e.rivers = {(mailand, venedig), (venedig, mailand)}  # as a river edge of map.json would give
    assert e.step_cost(WAR_WAGON, mailand, venedig) == 2
    assert e.step_cost(WAR_WAGON, venedig, mailand) == 2


def test_without_terrain_every_step_costs_one():
    e = blank_engine()
    wagon = e._new_object(0, WAR_WAGON, 1, node("Mailand"))
    war_turn(e, 0)
    e.play((Head.OBJECT, e.slots[0].index(wagon)))
    mp = e.objs[wagon][4]
    e.play((Head.NODE, node("Genua")))
    assert e.objs[wagon][4] == mp - 1


def test_terrain_upkeep_by_region():
    for terrain, expected in ((True, 2 * 10 + 30 + 40 + 20 + 20 + 20), (False, 20 * 6 + 20)):
        e = blank_engine(terrain=terrain)
        put(e, 0, "Mailand", LI=2)  # inhabited: 10 each
        put(e, 0, "Serbien", LI=1)  # uninhabited mountains: 30
        put(e, 0, "Palmyra", LI=1)  # uninhabited desert: 40
        put(e, 0, "Schwaben", LI=1)  # uninhabited hills: 20
        wagon = e._new_object(0, WAR_WAGON, 1, node("Franken"))  # a transport: 20
        e.cargo[wagon][HI] = 1  # aboard in uninhabited forest: 20
        assert e.upkeep(0) == expected


# -------------------------------------------------------------------- 8.3 blood markers ----
def test_blood_markers_for_conquest_and_plunder():
    e = blank_engine(blood_markers=True)
    buda = node("Buda")  # HUN (seat 1) start region with seat 1's village
    e.civil[buda], e.civil_owner[buda] = 1, 1
    put(e, 0, "Buda", HI=1)
    e.stage, e.carrier, e.foot_node, e.move_steps = Stage.WAR, -1, buda, 1
    e.actor = e.mover = 0
    e._start_conquest(buda, 0, 1, buildings=True)
    assert e.blood == [0, 1, 0, 0]  # a region of seat 1's start empire conquered
    assert e.phase == Phase.CONQUEST
    e.play((Head.CTRL, Ctrl.PLUNDER))
    assert e.blood == [0, 2, 0, 0]  # its village plundered
    assert e.blood_supply == BLOOD_MARKERS - 2
    # seat 1 taking back its own region gives nothing; the supply limits the markers
    e._blood_for_conquest(buda, 1)
    e.blood_supply = 0
    e._blood_for_conquest(buda, 2)
    assert e.blood == [0, 2, 0, 0]


def test_no_blood_markers_without_the_variant():
    e = blank_engine()
    e._gain_blood(1)
    assert e.blood == [0, 0, 0, 0] and e.blood_supply == BLOOD_MARKERS


def test_blood_markers_spent_for_attack():
    e = blank_engine(blood_markers=True)
    put(e, 0, "Buda", HI=3)
    put(e, 1, "Buda", HI=2)
    e.blood, e.blood_supply = [3, 0, 0, 0], BLOOD_MARKERS - 3
    fight(e, "Buda", 0, 1, dice=[1, 2, 3, 1, 1, 4] + [4] * 20)
    assert e.phase == Phase.BLOOD_SPEND and e.actor == 0  # before the attacker's roll
    assert set(e.legal_moves()) == {DONE, (Head.CTRL, Ctrl.SPEND_BLOOD)}
    e.play((Head.CTRL, Ctrl.SPEND_BLOOD))
    e.play((Head.CTRL, Ctrl.SPEND_BLOOD))
    e.play(DONE)
    assert e.blood[0] == 1 and e.blood_supply == BLOOD_MARKERS - 1
    assert e.phase == Phase.ATTACK_REROLL and e.actor == 0
    e.play((Head.DICE, 0))
    assert e.bt.av[0] == 3 + 2  # highest die 3, +1 per marker
    # the defender holds no markers: no decision, straight to its roll
    assert e.phase == Phase.ATTACK_REROLL and e.actor == 1
    e.play((Head.DICE, 0))
    while e.phase != Phase.AFTER_ROUND:  # damage points, windows of other rules (declined)
        e.play(DONE if DONE in e.legal_moves() else e.legal_moves()[0])
    assert e.bt.av == [5, 4] and e.bt.winner == 0  # 3 alone would have lost to 4
    e.play(DONE)  # the next battle round: the markers counted for one attack only
    while e.phase != Phase.BLOOD_SPEND:
        e.play(DONE if DONE in e.legal_moves() else e.legal_moves()[0])
    assert e.bt.round == 2 and e.bt.blood == [0, 0]


# ------------------------------------------------------------------- 8.1 empire auction ----
def auction_engine(seed=0, **cfg):
    return MedioevoEngine(MedioevoConfig(empire_auction=True, **cfg), 4, np.random.default_rng(seed))


def bid(e, empire, amount):
    assert e.phase == Phase.EMPIRE_BID
    e.play((Head.EMPIRE, empire))
    e.play((Head.EP_BID, amount))


def test_empire_auction_with_a_tie():
    e = auction_engine()
    a, b, c, d = e.auction_empires
    assert e.phase == Phase.EMPIRE_BID and e.actor == 0
    assert sorted(e.legal_moves()) == sorted((Head.EMPIRE, x) for x in (a, b, c, d))
    bid(e, a, 5)
    bid(e, a, 5)
    bid(e, b, 3)
    bid(e, b, 0)
    # b goes to seat 2 for 3 EP; seats 0 and 1 tied for a bid again at once, at least 5
    assert e.empire_of == [-1, -1, b, -1]
    assert e.phase == Phase.EMPIRE_TIE_BID and e.actor == 0
    assert e.legal_moves() == [(Head.EP_BID, k) for k in range(5, 11)]
    e.play((Head.EP_BID, 7))
    e.play((Head.EP_BID, 6))
    assert e.empire_of == [a, -1, b, -1]
    # 2nd bidding round: seats 1 and 3 for c and d
    assert e.phase == Phase.EMPIRE_BID and e.actor == 1
    assert sorted(e.legal_moves()) == sorted([(Head.EMPIRE, c), (Head.EMPIRE, d)])
    bid(e, c, 0)
    bid(e, c, 2)
    # seat 3 wins c; d is left after the 2nd round and goes to seat 1 at random
    assert e.empire_of == [a, d, b, c]
    # EP 3, 10, 7, 8 -> the lowest moves to 10: +7 for everyone
    assert e.ep == [10, 17, 14, 15]
    assert [ev["empire_auction"] for ev in e.ep_events] == [0, 7, 4, 5]
    assert e.phase == Phase.KIT and e.home_regions[0]


def test_illegal_empire_bid_raises_and_changes_nothing():
    e = auction_engine()
    before = e.clone()
    with pytest.raises(IllegalActionError):
        e.play((Head.EP_BID, 3))  # the empire comes first
    e.play((Head.EMPIRE, e.auction_empires[0]))
    with pytest.raises(IllegalActionError):
        e.play((Head.EP_BID, 11))
    with pytest.raises(IllegalActionError):
        e.play((Head.EMPIRE, e.auction_empires[1]))
    assert e.sealed_ep_bid == before.sealed_ep_bid and e.actor == 0 and e.ep == before.ep


def test_empire_auction_tie_at_ten_is_drawn_at_once():
    e = auction_engine(seed=3)
    a, b, c, d = e.auction_empires
    for empire in (a, a, b, c):
        bid(e, empire, 10)
    assert e.phase == Phase.EMPIRE_BID  # no tie bidding above 10: round 2 for the loser
    assert sorted(e.empire_of[:2]) == [-1, a]
    assert e.empire_of[2:] == [b, c]


def test_sealed_empire_bids_stay_hidden():
    env = TabletopEnv(SPEC, num_players=4, empire_auction=True)
    env.reset(seed=5)
    e = env.engine
    a, b = e.auction_empires[:2]
    env.step(env.codec.encode(env.engine, (Head.EMPIRE, a)))
    env.step(env.codec.encode(env.engine, (Head.EP_BID, 4)))
    other = e.clone()
    other.sealed_empire[0], other.sealed_ep_bid[0] = b, 9
    for seat in (1, 2, 3):
        assert np.array_equal(env.encoder.encode(e, seat), env.encoder.encode(other, seat))
    assert not np.array_equal(env.encoder.encode(e, 0), env.encoder.encode(other, 0))
    layout = env.observation_layout
    mine = env.encoder.encode(e, 0)[layout["my_empire_bid"]]
    assert mine[a] == 1 and mine[-1] == pytest.approx(0.4)


def test_empire_auction_config():
    with pytest.raises(ConfigError):
        MedioevoConfig(empire_auction=True, empire_selection="pick")
    with pytest.raises(ConfigError):
        MedioevoConfig(terrain=1)


# ------------------------------------------------------------------ 8.5 hidden purchases ----
def test_hidden_purchases_are_placed_at_the_reveal():
    e = engine_at_purchase(hidden_purchases=True)
    enc = MedioevoEncoder(e.config, 4)
    p = e.actor
    others = [q for q in range(4) if q != p]
    e.tech[p][0] = 1  # transport technology: vehicles may be bought
    before = {q: enc.encode(e, q) for q in others}
    units = list(e.units[p])
    objects = len(e.objs)
    e.play((Head.PURCHASE, Purchase.UNIT))
    e.play((Head.UNIT, HI))  # no place: it goes behind the screen
    assert e.phase == Phase.PURCHASE and e.prefix == ()
    e.play((Head.PURCHASE, Purchase.VEHICLE))
    e.play((Head.VEHICLE, WAR_WAGON * 3))
    assert e.hidden_bought[p] == [("unit", HI), ("vehicle", WAR_WAGON, 1)]
    assert e.units[p] == units and len(e.objs) == objects
    e.play((Head.PURCHASE, Purchase.TECH))  # a technology: bought at once, shown at the reveal
    e.play(next(m for m in e.legal_moves() if m[0] == Head.TECH))
    assert sum(e.tech[p]) == 2
    # the money and the pieces are hidden; only the supply of transports shows a wagon was taken
    vehicles = e.vehicle_supply
    for q in others:
        obs = enc.encode(e, q)
        sup = enc.layout.slices["supply"]
        diff = np.flatnonzero(obs != before[q])
        assert all(sup.start <= i < sup.stop for i in diff), (q, diff)
    assert vehicles[WAR_WAGON] == e.comp.vehicle_supply[WAR_WAGON] - sum(
        1 for o in e.objs.values() if o[1] == WAR_WAGON) - 1
    e.play(DONE)
    while e.phase == Phase.PURCHASE:
        e.play(DONE)
    # the reveal: seat p places its pieces one at a time; everyone sees them now
    assert e.revealing == p
    seen = enc.encode(e, others[0])[enc.layout.slices["hidden_purchases"]]
    assert seen.any()
    while e.phase == Phase.HIDDEN_PLACE:
        e.play(e.legal_moves()[0])
    assert not e.hidden_bought[p]
    assert sum(e.units[p][HI::NT]) == sum(units[HI::NT]) + 1
    assert len(e.objs) == objects + 1
    assert e.stage != Stage.PURCHASES
    q = others[0]
    tech_seen = enc.encode(e, q)[enc.layout.slices[f"seat{(p - q) % 4}_tech"]]
    assert tech_seen.sum() == pytest.approx(2 / 4)  # revealed


# -------------------------------------------------------------------- G87 per unit ----
@pytest.mark.parametrize("per_unit", (False, True))
def test_captain_enable_own_and_cancel_enemy(per_unit):
    e = blank_engine(captains_per_unit=per_unit)
    put(e, 0, "Buda", AR=3, CP1=2)
    put(e, 1, "Buda", AR=2, HI=2)
    fight(e, "Buda", 0, 1, dice=[4] * 40)
    assert e.phase == Phase.CAPTAIN_SLOT and e.actor == 0
    e.play((Head.CAPTAIN, 4 + 0))  # enable own AR
    e.play((Head.CAPTAIN, 8 + 2))  # cancel enemy HI
    bt = e.bt
    assert bt.active[0][AR] and not bt.active[1][AR]
    if per_unit:  # one archer shoots, one enemy HI loses its ability
        assert bt.count[0][AR] == 1 and bt.count[1][HI] == 1 and bt.active[1][HI]
    else:  # the whole type
        assert bt.count[0][AR] == 3 and not bt.active[1][HI]


def _scramble_variant_secrets(engine, seat, rng):
    """Change what ``seat`` must not know of the variants: others' sealed empire bids and the
    pieces behind their screens (until their reveal)."""
    other = engine.clone()
    for p in range(other.num_players):
        if p == seat:
            continue
        if other.empire_of[p] < 0 and other.phase in (Phase.EMPIRE_BID, Phase.EMPIRE_TIE_BID):
            other.sealed_empire[p] = int(rng.choice(other.auction_empires))
            other.sealed_ep_bid[p] = int(rng.integers(0, 11))
        if p != other.revealing and other.stage == Stage.PURCHASES:
            other.hidden_bought[p] = [("unit", int(rng.integers(0, 4)))] * int(rng.integers(0, 3))
        if other.purchase_snapshot is not None and p not in other.revealed_seats:  # bought, not revealed
            other.tech[p] = [int(x) for x in rng.integers(0, 5, 6)]
            other.units[p] = [int(x) for x in rng.integers(0, 3, len(other.units[p]))]
            other.units_bought[p] = int(rng.integers(0, 5))
            other.card_bought[p] = bool(rng.integers(2))
    return other


def test_variant_secrets_never_leak():
    env = TabletopEnv(SPEC, num_players=4, num_rounds=8, **ALL_VARIANTS)
    env.reset(seed=21)
    rng, pick = np.random.default_rng(0), np.random.default_rng(1)
    hidden_seen = snapshot_seen = 0
    for step in range(160):
        engine = env.engine
        if engine.is_over:
            break
        hidden_seen += any(engine.hidden_bought)
        snapshot_seen += engine.purchase_snapshot is not None and engine.stage == Stage.PURCHASES
        for seat in (step % 4, (step + 2) % 4):  # two observers per step, all four every two steps
            base = env.encoder.encode(engine, seat)
            other = _scramble_variant_secrets(engine, seat, rng)
            assert np.array_equal(base, env.encoder.encode(other, seat)), f"seat {seat} sees a secret"
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert hidden_seen > 0 and snapshot_seen > 0  # the walk reached hidden purchases


# ------------------------------------------------------------------------ api and fuzz ----
def test_api_with_every_variant():
    testing.run_api_test(TabletopEnv(SPEC, num_players=4, num_rounds=8, **ALL_VARIANTS), num_cycles=300)


def check_variant_invariants(env) -> None:
    """The package invariants, with the pieces behind a screen counted as set aside."""
    e = env.engine
    assert sum(e.blood) + e.blood_supply == BLOOD_MARKERS and min(e.blood) >= 0
    pending = [list(items) for items in e.hidden_bought]
    if not any(pending):
        check_invariants(env)
        return
    saved = ([list(c) for c in e.capitulated], [list(k) for k in e.kit], list(e.siege_supply))
    for p, items in enumerate(pending):
        for item in items:
            if item[0] == "unit":
                e.capitulated[p][item[1]] += 1
            elif item[1] == SIEGE:
                e.siege_supply[item[2] - 1] += 1
            else:
                e.kit[p].append((item[1], item[2]))
    try:
        check_invariants(env)
    finally:
        e.capitulated, e.kit, e.siege_supply = saved


@pytest.mark.parametrize("n", (3, 4, 6))
def test_random_play_fuzz_with_every_variant(n):
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, **ALL_VARIANTS)
    result = testing.play_random_game(env, seed=500 * n, on_step=check_variant_invariants,
                                      check_observations=(n == 3))
    assert result.terminated and not result.truncated
    assert env.engine.round == 8
