"""Technology activations (spec 2.7, 5.8; G13-G15, G29, G67, G79-G81): the rulebook's examples of the
technology section as scenarios, the TP payment outside phase 4, and a fuzz with every technology owned."""

import numpy as np
import pytest

from envs.core import TabletopEnv, testing
from envs.core.errors import IllegalActionError
from envs.medioevo_universale import SPEC, MedioevoEncoder
from envs.medioevo_universale.combat import BattleStep
from envs.medioevo_universale.constants import (
    AR, BLUE, CA, CARAVAN, CP1, GALLEY, GREEN, HI, LI, MERCHANT_SHIP, ORANGE, RED, SIEGE, TOWN, VILLAGE, VIOLET,
    WAR_WAGON, YELLOW, Ctrl, EventStage, Head, Phase, Stage,
)
from envs.medioevo_universale.data import game_data
from envs.medioevo_universale.technologies import (
    BESCHAFFUNG, EINFLUSS, ERLASS, ERNENNUNG, GESETZE, GILDEN, HANDEL, INGENIEURSKUNST, KARTOGRAFIE, LOGISTIK, MARKT,
    MASCHINENBAU, NATIONALSTAAT, STRATEGIE, TAKTIK, WELTLICHE_MACHT,
)
from envs.medioevo_universale.trade import Route

from .forced import forced_decisions
from .test_encoder_cache import assert_matches_fresh_encoder
from .test_fuzz import check_invariants
from .test_rules import menu
from .test_war import ScriptedRng, fight, node, play, put, units_at, war_engine

DONE = (Head.CTRL, Ctrl.DONE)
BUY = (Head.CTRL, Ctrl.BUY)


def tech(t):
    return (Head.TECH, t)


def no_tp_sources(e, p):
    """Put p's empire cards back under the deck and drop its goal tokens: TP only from the pool / fl."""
    for c in e.hand[p]:
        e.deck.insert(0, c)
    e.hand[p] = []
    for k in range(6):
        e.token_supply[k] += e.tokens[p][k]
        e.tokens[p][k] = e.tokens_flipped[p][k] = 0


def quiet_engine():
    """war_engine() with no empire cards or goal tokens anywhere: no card windows interfere."""
    e = war_engine()
    for p in range(4):
        no_tp_sources(e, p)
    for n in range(e.board.num_nodes):  # and no barbarians from the setup
        for k in range(3):
            count = e.barb[n * 3 + k]
            e._add_barb(n, k, -count)
            e.barb_supply[k] += count
    return e


def give_token(e, p, colour):
    e.token_supply[colour] -= 1
    e.tokens[p][colour] += 1


def printed_good(name):
    return game_data().board.good[node(name)]


def card_with_tp(e, alts):
    """An empire card in the deck whose TP alternatives are ``alts``; it moves to p's hand."""
    return next(i for i, c in enumerate(e.cards) if tuple(map(tuple, c.tp)) == alts and i in e.deck)


def slot_of(e, p, kind):
    return next(s for s, oid in enumerate(e.slots[p]) if oid >= 0 and e.objs[oid][1] == kind)


# ------------------------------------------------------------------------------ TP payment ----
def test_missing_tp_cost_100_fl_and_moenchtum_converts_violet():
    """5.8: a missing TP costs 100 fl. G15: with Mönchtum a violet TP pays a TP of another colour."""
    e = quiet_engine()
    p = 0
    e.money[p] = 300
    assert e.tp_affordable(p, 200, ((RED, 1),)) and not e.tp_affordable(p, 201, ((RED, 1),))
    e.tp[p][VIOLET] = 1
    assert not e.tp_affordable(p, 201, ((RED, 1),))  # no Mönchtum: violet is only violet
    e.tech[p][VIOLET] = 2
    assert e.tp_affordable(p, 300, ((RED, 1),))
    e.tp_pay(p, 0, ((RED, 1),))
    assert e.tp[p][VIOLET] == 0 and e.money[p] == 300
    e.tp_pay(p, 0, ((RED, 1), (VIOLET, 1)))
    assert e.money[p] == 100


def test_tp_pool_is_lost_when_the_phase_ends():
    """G29: TP made in a phase and not spent there are lost."""
    e = quiet_engine()
    e._new_object(0, WAR_WAGON, 1, node("Prag"))
    e._start_war()
    e.tp[0][BLUE] = 2
    assert e.stage == Stage.WAR and e.phase == Phase.WAR_TURN
    play(e, DONE)  # every seat passes: the war phase ends (nothing can move)
    assert e.stage != Stage.WAR and e.tp[0] == [0] * 6


def test_ingenieurskunst_raises_a_catapult_to_a_trebuchet():
    """2.7 Ingenieurskunst: 'Du wertest z. B. für 1 TP 1 Katapult zu einer Blide auf' - no other cost."""
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    e._new_object(p, SIEGE, 1, node("Aachen"))
    s = slot_of(e, p, SIEGE)
    menu(e, p)
    assert tech(INGENIEURSKUNST) not in e.legal_moves()  # the technology is not owned
    e.tech[p][GREEN] = 4
    e.tp[p][GREEN] = 1
    money, supply = e.money[p], list(e.siege_supply)
    menu(e, p)
    play(e, tech(INGENIEURSKUNST), (Head.OBJECT, s))
    assert e.objs[e.slots[p][s]][2] == 2 and e.money[p] == money and e.tp[p][GREEN] == 0
    assert e.siege_supply == [supply[0] + 1, supply[1] - 1, supply[2]]
    assert e.phase == Phase.PURCHASE and e.actor == p


def test_ingenieurskunst_village_to_town_pays_the_missing_tp_in_fl_only_at_peace():
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    e.tech[p][GREEN] = 4
    prag = node("Prag")
    e.civil[prag], e.civil_owner[prag] = 1, p
    e.building_supply[VILLAGE] -= 1
    money = e.money[p]
    menu(e, p)
    play(e, tech(INGENIEURSKUNST), (Head.NODE, prag), (Head.BUILD, TOWN))
    assert e.civil[prag] == 2 and e.money[p] == money - 100
    e.battle_nodes.add(prag)  # G47-like: a battle there this round means war
    menu(e, p)
    assert tech(INGENIEURSKUNST) not in e.legal_moves()


# --------------------------------------------------------------------------------- revolts ----
def revolt_for(e, p):
    e.stage = Stage.EVENTS
    e.ev_stage = EventStage.REVOLTS
    e.final_check = False
    e.revolt_queue = [p]
    e._next_revolt()


def test_gesetze_moves_a_revolt_out_of_the_start_empire():
    """2.7 Gesetze (G67): right after the revolt lands in the start empire, 1 orange TP moves it into
    an adjacent region outside it that p does not control and that holds no army."""
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    give_token(e, p, ORANGE)
    e.tech[p][ORANGE] = 2
    put(e, 1, "Pressburg", LI=1)  # HUN's start region next to Prag, guarded
    e.unit_supply[1][LI] -= 1
    revolt_for(e, p)
    assert e.phase == Phase.REVOLT_PLACE and e.actor == p
    play(e, (Head.NODE, node("Prag")))
    assert e.phase == Phase.TECH_USE and e.legal_moves() == [DONE, tech(GESETZE)]
    play(e, tech(GESETZE))
    targets = {m[1] for m in e.legal_moves()}
    assert node("Schlesien") in targets and node("Pressburg") not in targets  # an army is there
    assert not targets & set(e.home_regions[p])
    money = e.money[p]
    play(e, (Head.NODE, node("Schlesien")))
    assert e.phase == Phase.TP_PAY and e.legal_moves() == [DONE, (Head.COLOUR, ORANGE)]
    play(e, (Head.COLOUR, ORANGE))
    assert e.barb_total[node("Schlesien")] and not e.barb_total[node("Prag")]
    assert e.money[p] == money and e.tokens_flipped[p][ORANGE] == 1
    assert e.phase == Phase.TAX  # the revolt step went on


def test_gesetze_window_done_leaves_the_revolt_where_it_is():
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    e.tech[p][ORANGE] = 2
    revolt_for(e, p)
    play(e, (Head.NODE, node("Prag")), DONE)
    assert e.barb_total[node("Prag")]


def test_no_gesetze_window_without_the_money():
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    e.tech[p][ORANGE] = 2
    e._bank(p, -e.money[p])
    revolt_for(e, p)
    play(e, (Head.NODE, node("Prag")))
    assert e.barb_total[node("Prag")] and e.phase != Phase.TECH_USE


# ----------------------------------------------------------------------------------- trade ----
def trading(p, where, kind=CARAVAN, level=1, setup=None):
    e = quiet_engine()
    no_tp_sources(e, p)
    e._new_object(p, kind, level, node(where))
    if setup:
        setup(e)
    e._start_trade()
    assert e.phase == Phase.TRADE_TURN and e.actor == p
    play(e, (Head.OBJECT, slot_of(e, p, kind)))
    return e


def test_handel_village_sale():
    """2.7 Handel: 2 cubes sold in a village bring 100 each; 25 more per cube and yellow TP."""
    p = 0
    prag = node("Prag")
    cargo_good = next(g for g in range(8) if g != printed_good("Prag"))

    def setup(e):
        e.civil[prag], e.civil_owner[prag] = 1, p
        e.building_supply[VILLAGE] -= 1
        oid = e.slots[p][0]
        e.goods[oid][cargo_good] = 2
        e.goods_supply[cargo_good] -= 2

    e = trading(p, "Prag", setup=setup)
    e.tech[p][YELLOW] = 1
    e.tp[p][YELLOW] = 2
    money = e.money[p]
    assert tech(HANDEL) not in e.legal_moves()  # only during a sale
    play(e, (Head.GOOD, cargo_good), (Head.GOOD, cargo_good))
    play(e, tech(HANDEL), tech(HANDEL))
    assert tech(HANDEL) not in e.legal_moves()  # one TP per cube sold
    assert e.money[p] == money + 250 and e.tp[p][YELLOW] == 0


def test_markt_lowers_a_purchase_but_never_to_zero():
    """2.7 Markt: 2 yellow cubes cost 200 fl; 3 TP lower it by 150 to 50; a 4th TP is not allowed."""
    e = trading(0, "Rom", level=1)
    e.tech[0][YELLOW] = 2
    e.tp[0][YELLOW] = 4
    money = e.money[0]
    play(e, BUY, BUY)
    assert e.money[0] == money - 200
    play(e, tech(MARKT), tech(MARKT), tech(MARKT))
    assert e.money[0] == money - 50 and tech(MARKT) not in e.legal_moves()


def test_beschaffung_brings_market_cubes_to_rome():
    """2.7 Beschaffung: p controls Rom, its merchant ship is in Panormos where the market has 4 cubes;
    1 yellow TP per cube moves 2 of them to Rom; the ship stays; a colour Rom has is not offered (G81)."""
    p = 0
    pan, rom = node("Panormos"), node("Rom")
    colours = [g for g in range(8) if g not in (printed_good("Panormos"), printed_good("Rom"))][:4]

    def setup(e):
        put(e, p, "Rom", LI=1)
        e.unit_supply[p][LI] -= 1
        for g in colours:
            e.cubes[pan][g] = 1
            e.goods_supply[g] -= 1
        e.cubes[pan][printed_good("Rom")] = 1
        e.goods_supply[printed_good("Rom")] -= 1

    e = trading(p, "Panormos", kind=MERCHANT_SHIP, setup=setup)
    e.tech[p][YELLOW] = 3
    e.tp[p][YELLOW] = 2
    assert e.market_factor(pan) == 5
    play(e, tech(BESCHAFFUNG), (Head.NODE, pan), (Head.NODE, rom))
    offered = {m[1] for m in e.legal_moves()}
    assert printed_good("Rom") not in offered and set(colours) <= offered
    play(e, (Head.GOOD, colours[0]))
    play(e, tech(BESCHAFFUNG), (Head.NODE, pan), (Head.NODE, rom), (Head.GOOD, colours[1]))
    assert e.market_factor(pan) == 3 and e.market_factor(rom) == 2
    assert e.objs[e.slots[p][slot_of(e, p, MERCHANT_SHIP)]][3] == pan


def test_gilden_establishes_stages_but_not_the_destination():
    """2.7 Gilden: a 6-stage route with 3 stages established; 2 TP establish stages 4 and 5."""
    gh = 3
    stages = [node(x) for x in ("Kiptschak", "Don-Steppe", "Saraj", "Bolgar", "Kiew", "Caffa")]

    def setup(e):
        e.route[gh] = Route(e.slots[gh][0], stages, [True] * 3 + [False] * 3, 4, node("Walachei"), "land")

    e = quiet_engine()
    no_tp_sources(e, gh)
    e._new_object(gh, CARAVAN, 1, node("Caffa"))
    setup(e)
    e._start_trade()
    play(e, (Head.OBJECT, slot_of(e, gh, CARAVAN)))
    e.tech[gh][YELLOW] = 4
    e.tp[gh][YELLOW] = 2
    play(e, tech(GILDEN))
    assert e.legal_moves() == sorted([(Head.NODE, stages[3]), (Head.NODE, stages[4])])
    play(e, (Head.NODE, stages[3]), tech(GILDEN), (Head.NODE, stages[4]))
    assert e.route[gh].established == [True] * 5 + [False]
    assert tech(GILDEN) not in e.legal_moves()


# -------------------------------------------------------------------------------- movement ----
def moving_wagon(p=0, where="Mailand", mp=None, units=1):
    e = quiet_engine()
    no_tp_sources(e, p)
    e._new_object(p, WAR_WAGON, 2, node(where))
    s = slot_of(e, p, WAR_WAGON)
    if mp is not None:
        e.objs[e.slots[p][s]][4] = mp
    put(e, p, where, LI=units)
    e.unit_supply[p][LI] -= units
    e._start_war()
    assert e.phase == Phase.WAR_TURN and e.actor == p
    play(e, (Head.OBJECT, s))
    for _ in range(units):
        play(e, (Head.LOAD, LI))
    return e, e.slots[p][s]


def test_erlass_crosses_a_barbarian_region_without_resistance():
    """2.7 Erlass: a war wagon with an army enters a barbarian region without an army for 1 orange TP:
    nothing happens, it must move on; entering the next one without Erlass raises a horde."""
    e, oid = moving_wagon()
    e.tech[0][ORANGE] = 1
    e.tp[0][ORANGE] = 1
    tosk, rom = node("Toskana"), node("Rom")
    play(e, tech(ERLASS), (Head.NODE, tosk))
    assert e.objs[oid][3] == tosk and not e.barb_total[tosk] and e.phase == Phase.MOVE
    assert DONE not in e.legal_moves() and (Head.UNLOAD, LI) not in e.legal_moves()
    assert (Head.NODE, rom) in e.legal_moves()
    play(e, (Head.NODE, rom))
    assert e.bt is not None and e.bt.node == rom and e.bt.owners == [0, -1]


def test_kartografie_gives_the_carrier_one_more_mp():
    e, oid = moving_wagon(where="Mailand", mp=1)
    e.tech[0][BLUE] = 4
    assert tech(KARTOGRAFIE) not in e.legal_moves()  # it can still step
    play(e, (Head.NODE, node("Genua")))
    assert e.objs[oid][4] == 0 and tech(KARTOGRAFIE) in e.legal_moves()
    money = e.money[0]
    play(e, tech(KARTOGRAFIE))
    assert e.objs[oid][4] == 1 and e.money[0] == money - 100


def test_weltliche_macht_uses_a_neighbours_technology():
    """2.7 Weltliche Macht: 1 violet TP for access to a neighbour's technology, then its own cost."""
    e, oid = moving_wagon(where="Mailand", mp=1)
    play(e, (Head.NODE, node("Genua")))
    e.tech[0][VIOLET] = 4
    assert tech(WELTLICHE_MACHT) not in e.legal_moves()  # no neighbour has Kartografie
    e.tech[1][BLUE] = 4  # HUN borders the HRE
    assert tech(WELTLICHE_MACHT) in e.legal_moves() and tech(KARTOGRAFIE) not in e.legal_moves()
    money = e.money[0]
    play(e, tech(WELTLICHE_MACHT), tech(KARTOGRAFIE))
    assert e.objs[oid][4] == 1 and e.money[0] == money - 200


# -------------------------------------------------------------------------------- war turn ----
def test_nationalstaat_moves_a_horde_away_unit_by_unit():
    """2.7 Nationalstaat (G13): per orange TP 1 barbarian unit to an adjacent region: a horde of
    infantry, archer and captain leaves for 3 TP."""
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    e._new_object(p, WAR_WAGON, 1, node("Mailand"))
    tosk, rom = node("Toskana"), node("Rom")
    for k in range(3):
        e._add_barb(tosk, k, 1)
        e.barb_supply[k] -= 1
    e.tech[p][ORANGE] = 3
    e._start_war()
    e.tp[p][ORANGE] = 3
    money = e.money[p]
    for t in (LI, AR, CP1):
        play(e, tech(NATIONALSTAAT), (Head.NODE, tosk), (Head.UNIT, t), (Head.NODE, rom))
        assert e.phase == Phase.WAR_TURN and e.actor == p
    assert not e.barb_total[tosk] and e.barb[rom * 3:rom * 3 + 3] == [1, 1, 1]
    assert e.money[p] == money and e.tp[p][ORANGE] == 0
    assert tech(NATIONALSTAAT) in e.legal_moves()  # the money would pay more


def test_einfluss_turns_barbarians_next_to_the_realm_in_battle():
    """2.7 Einfluss: in a battle next to the realm against a captain and an infantry, 2 orange TP
    make both units p's."""
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    tosk = put(e, p, "Toskana", LI=1)
    e.unit_supply[p][LI] -= 1
    for k in (0, 2):  # barbarian LI and CP
        e._add_barb(tosk, k, 1)
        e.barb_supply[k] -= 1
    e.tech[p][ORANGE] = 4
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[p][ORANGE] = 2
    fight(e, "Toskana", p, -1, dice=[])
    assert e.phase == Phase.TECH_USE and e.actor == p
    play(e, tech(EINFLUSS), (Head.UNIT, CP1))
    assert e.phase == Phase.TECH_USE
    play(e, tech(EINFLUSS), (Head.UNIT, LI))
    assert not e.barb_total[tosk] and units_at(e, p, "Toskana")[LI] == 2 and units_at(e, p, "Toskana")[CP1] == 1
    assert e.bt is None  # nobody is left to fight


def test_strategie_kills_before_melee():
    """2.7 Strategie: LI against 2 barbarian infantry; 2 red TP kill both before the melee, which
    then does not take place."""
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    tosk = put(e, p, "Toskana", LI=1)
    e.unit_supply[p][LI] -= 1
    e._add_barb(tosk, 0, 2)
    e.barb_supply[0] -= 2
    e.tech[p][RED] = 4
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[p][RED] = 2
    fight(e, "Toskana", p, -1, dice=[])
    play(e, tech(STRATEGIE), tech(STRATEGIE))
    assert not e.barb_total[tosk] and units_at(e, p, "Toskana")[LI] == 1 and e.bt is None


def test_einfluss_not_offered_far_from_the_realm():
    e = quiet_engine()
    p = 0
    no_tp_sources(e, p)
    far = put(e, p, "Trebisonda", LI=1)
    e.unit_supply[p][LI] -= 1
    e._add_barb(far, 0, 1)
    e.barb_supply[0] -= 1
    e.tech[p][ORANGE] = 4
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[p][ORANGE] = 2
    fight(e, "Trebisonda", p, -1, dice=[1, 1, 1])
    assert e.phase != Phase.TECH_USE


def test_tp_pay_offers_only_helpful_sources():
    """Outside phase 4 the payer rotates cards / flips tokens that help, one at a time."""
    e, oid = moving_wagon(where="Mailand", mp=1)
    play(e, (Head.NODE, node("Genua")))
    e.tech[0][BLUE] = 4
    give_token(e, 0, BLUE)
    give_token(e, 0, RED)
    card = card_with_tp(e, ((RED,), (BLUE,)))
    e.deck.remove(card)
    e.hand[0].append(card)
    money = e.money[0]
    play(e, tech(KARTOGRAFIE))
    assert e.phase == Phase.TP_PAY
    assert e.legal_moves() == [DONE, (Head.CARD, card), (Head.COLOUR, BLUE)]  # the red token is no help
    play(e, (Head.CARD, card))
    assert e.legal_moves() == [(Head.COLOUR, BLUE)]  # only the helpful side of the "/" card
    play(e, (Head.COLOUR, BLUE))
    assert e.phase == Phase.MOVE and e.objs[oid][4] == 1 and e.money[0] == money
    assert card in e.rotated[0] and e.tokens_flipped[0][BLUE] == 0


def test_tp_left_over_stay_for_the_phase():
    """A card making yellow and red pays a yellow Markt activation; the red TP stays in the pool
    until the trade phase ends (G29)."""
    e = trading(0, "Rom", level=1)
    e.tech[0][YELLOW] = 2
    card = card_with_tp(e, ((YELLOW, RED),))
    e.deck.remove(card)
    e.hand[0].append(card)
    play(e, BUY, BUY, tech(MARKT))
    assert e.legal_moves() == [DONE, (Head.CARD, card)]
    play(e, (Head.CARD, card))
    assert e.tp[0][RED] == 1 and e.tp[0][YELLOW] == 0 and e.phase == Phase.TRADE
    assert e.tp[0][RED] == 1
    while e.stage == Stage.TRADE:  # end the purchase, then pass: nobody else trades
        play(e, DONE)
    assert e.tp[0] == [0] * 6


def test_illegal_activation_leaves_the_state_unchanged():
    e, oid = moving_wagon(where="Mailand", mp=1)
    e.tech[0][BLUE] = 4
    before = e.clone()
    with pytest.raises(IllegalActionError):
        e.play(tech(KARTOGRAFIE))  # the carrier still has its MP
    assert e.objs[oid] == before.objs[oid] and e.money == before.money and e.phase == before.phase


# ------------------------------------------------------------------------------------ fuzz ----
@pytest.mark.parametrize("n, games", [(3, 1), (5, 1)])
def test_fuzz_with_every_technology_owned(n, games):
    """Random play where every seat but one owns all 24 technologies (the last one borrows them with
    Weltliche Macht) and activates them often; the package's invariants after every step."""
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=0)
    used = set()

    def grant(e):
        for p in range(n):  # the last seat owns only Weltliche Macht: it borrows the others'
            e.tech[p] = [4] * 6 if p < n - 1 else [0, 0, 0, 0, 0, 4]
            e._bank(p, 3000)

    for seed in range(games):
        for agent, obs, pick in forced_decisions(env, seed, grant):
            e = env.engine
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            assert legal
            techs = [i for i in legal if env.action_name(i).startswith("TECH(")]
            if techs and e.phase != Phase.PURCHASE and pick.random() < 0.7:
                legal = techs
            elif e.phase in (Phase.TECH_USE, Phase.TP_PAY) and len(legal) > 1 and pick.random() < 0.7:
                legal = [i for i in legal if env.action_name(i) != "CTRL(DONE)"]
            action = pick.choice(legal)
            name = env.action_name(action)
            if name.startswith("TECH(") and (e.phase not in (Phase.TECH_USE, Phase.PURCHASE) or not e.prefix):
                used.add(name)
            if pick.random() < 0.05:
                testing.observation_in_space(env, agent, obs)
            env.step(action)
            check_invariants(env)
        assert env.engine.is_over and env.engine.round == 8
    assert len(used) >= 8, used


def test_weltliche_macht_recruits_a_captain_with_the_neighbours_militaerwesen():
    """2.7 Weltliche Macht example: you lack Militärwesen, your neighbour has it: 1 violet TP for the
    access, then 1 red TP and 100 fl for a level I captain (here every TP is bought: 300 fl)."""
    e = quiet_engine()
    p = 0
    e.tech[p][VIOLET] = 4
    menu(e, p)
    assert (Head.TECH, WELTLICHE_MACHT) not in e.legal_moves()  # no neighbour has Militärwesen
    e.tech[1][RED] = 1
    menu(e, p)
    money = e.money[p]
    play(e, tech(WELTLICHE_MACHT), (Head.PURCHASE, 5), (Head.UNIT, CP1), (Head.NODE, node("Prag")))
    assert units_at(e, p, "Prag")[CP1] == 1 and e.money[p] == money - 300
    assert e.phase == Phase.PURCHASE


def test_maschinenbau_lets_the_crew_fight_too():
    """2.7 Maschinenbau: 3 of 4 units crew a catapult; 1 blue TP: the catapult fires 3 times and all 4
    units still fight in the other steps of the round."""
    e = quiet_engine()
    p = 0
    tosk = put(e, p, "Toskana", LI=4)
    e.unit_supply[p][LI] -= 4
    e._new_object(p, SIEGE, 1, tosk)
    e._add_barb(tosk, 0, 2)
    e.barb_supply[0] -= 2
    e.tech[p][BLUE] = 3
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[p][BLUE] = 1
    fight(e, "Toskana", p, -1, dice=[8, 8, 8, 1, 1, 1])  # the catapult misses 3 times; the attack roll
    assert e.phase == Phase.SIEGE_CREW
    play(e, (Head.UNIT, LI), (Head.UNIT, LI), (Head.UNIT, LI))
    assert e.phase == Phase.TECH_USE and e.fighting_units(0)[LI] == 1
    play(e, tech(MASCHINENBAU), (Head.OBJECT, slot_of(e, p, SIEGE)))
    assert e.fighting_units(0)[LI] == 4 and e.tp[p][BLUE] == 0


def test_taktik_places_the_combat_result():
    """2.7 Taktik: the winner's combat result of 2 points against Yellow; 2 red TP: the winner decides
    which yellow unit each point hits (before the loser assigns the rest)."""
    e = quiet_engine()
    winner, yellow = 0, 1
    for p, units in ((winner, {"HI": 4}), (yellow, {"HI": 1, "AR": 1, "LI": 1})):
        put(e, p, "Toskana", **units)
        for name, k in units.items():
            e.unit_supply[p][{"LI": LI, "HI": 1, "AR": AR}[name]] -= k
    e.tech[winner][RED] = 3
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[winner][RED] = 2
    fight(e, "Toskana", winner, yellow, dice=[8, 1, 1, 1])  # the yellow archer misses; the attack roll
    assert e.phase == Phase.TECH_USE  # the battle window: Taktik's owner has Ernennung (red II) too
    play(e, DONE)
    assert e.phase == Phase.ATTACK_REROLL
    e.bt.tasks = [(BattleStep.TAKTIK_WINDOW, 1, 2), (BattleStep.END_ROUND,)]  # the combat result of step 9
    e._battle_run()
    assert e.phase == Phase.TECH_USE and e.actor == winner
    play(e, tech(TAKTIK))
    assert e.legal_moves() == [(Head.UNIT, LI), (Head.UNIT, 1), (Head.UNIT, AR)]  # not only melee units
    play(e, (Head.UNIT, AR), tech(TAKTIK), (Head.UNIT, 1))
    assert units_at(e, yellow, "Toskana")[:3] == [2, 0, 0]  # the HI became an LI; the archer died
    assert e.phase == Phase.AFTER_ROUND


def test_logistik_takes_a_caravan_across_the_sea():
    """2.7 Logistik: a caravan goes from Rom to Panormos directly, without a ship, for 1 blue TP; it
    must not stop at sea."""
    e = trading(0, "Rom", level=1)
    sea = node("Tyrrhenisches Meer (Tyrrhenian Sea)")
    oid = e.slots[0][slot_of(e, 0, CARAVAN)]
    assert (Head.NODE, sea) not in e.legal_moves()
    e.tech[0][BLUE] = 2
    e.tp[0][BLUE] = 1
    play(e, tech(LOGISTIK))
    assert (Head.NODE, sea) in e.legal_moves()
    play(e, (Head.NODE, sea))
    at_sea = e.legal_moves()
    assert all(m[0] == Head.NODE for m in at_sea) and (Head.NODE, node("Panormos")) in at_sea  # no DONE at sea
    play(e, (Head.NODE, node("Panormos")))
    assert e.objs[oid][3] == node("Panormos") and DONE in e.legal_moves() and e.tp[0][BLUE] == 0


def test_logistik_not_offered_without_the_mp_to_come_back():
    e = trading(0, "Rom", level=1)
    e.tech[0][BLUE] = 2
    e.objs[e.slots[0][slot_of(e, 0, CARAVAN)]][4] = 1  # one MP: into the sea, but not out again
    assert tech(LOGISTIK) not in e.legal_moves()


def test_kartografie_moves_a_unit_without_a_transport():
    """2.7 Kartografie / G72: 1 blue TP, and one unit steps to an adjacent region on its own (an army
    of 1 with the normal entry effects); that is the war turn's movement."""
    e = quiet_engine()
    p = 0
    e._new_object(p, WAR_WAGON, 1, node("Prag"))
    put(e, p, "Mailand", LI=2)
    e.unit_supply[p][LI] -= 2
    e.tech[p][BLUE] = 4
    e._start_war()
    e.tp[p][BLUE] = 2  # made in this phase
    play(e, tech(KARTOGRAFIE), (Head.NODE, node("Mailand")), (Head.UNIT, LI), (Head.NODE, node("Genua")))
    assert units_at(e, p, "Genua")[LI] == 1 and units_at(e, p, "Mailand")[LI] == 1
    assert e.stopped[p][node("Genua") * 7 + LI] == 1  # it arrived: stopped for the round
    assert e.turn > 0 and e.tp[p][BLUE] == 1
    if e.phase == Phase.WAR_TURN and e.actor == p:  # the next war turn: into Toskana, nobody's region
        play(e, tech(KARTOGRAFIE), (Head.NODE, node("Mailand")), (Head.UNIT, LI), (Head.NODE, node("Toskana")))
        assert e.bt is not None and e.bt.node == node("Toskana")  # barbarian resistance


def test_kartografie_brings_a_unit_into_a_battle():
    """2.7 Kartografie (G70): during a battle, 1 blue TP moves a cavalry from an adjacent region into
    the battle region; it fights on the owner's side."""
    e = quiet_engine()
    green, yellow = 0, 1
    put(e, green, "Toskana", LI=1)
    put(e, green, "Genua", CA=1)
    put(e, yellow, "Toskana", HI=2)
    e.unit_supply[green][LI] -= 1
    e.unit_supply[green][3] -= 1
    e.unit_supply[yellow][1] -= 2
    e.tech[green][BLUE] = 4
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[green][BLUE] = 1
    money = e.money[green]
    fight(e, "Toskana", yellow, green, dice=[1, 1, 1])
    assert e.phase == Phase.TECH_USE and e.actor == green
    play(e, tech(KARTOGRAFIE), (Head.NODE, node("Genua")), (Head.UNIT, 3))
    assert units_at(e, green, "Toskana")[3] == 1 and units_at(e, green, "Genua")[3] == 0
    assert e.side_units(1)[3] == 1 and e.tp[green][BLUE] == 0 and e.money[green] == money


def invaded_pressburg(defender_tech=4):
    """HRE's war wagon with 2 HI moves from Prag into Pressburg, a HUN region without an army; HUN has
    1 HI in Buda next to it (and 1 stopped LI there)."""
    e = quiet_engine()
    hre, hun = 0, 1
    oid = e._new_object(hre, WAR_WAGON, 1, node("Prag"))
    put(e, hre, "Prag", HI=2)
    put(e, hun, "Buda", HI=1, LI=1)
    e.stopped[hun][node("Buda") * 7 + LI] = 1
    e.unit_supply[hre][HI] -= 2
    e.unit_supply[hun][HI] -= 1
    e.unit_supply[hun][LI] -= 1
    e.tech[hun][BLUE] = defender_tech
    e._start_war()
    play(e, (Head.OBJECT, e.slots[hre].index(oid)), (Head.LOAD, HI), (Head.LOAD, HI), (Head.NODE, node("Pressburg")))
    return e, hre, hun


def test_kartografie_brings_a_defender_into_an_invaded_region():
    """Spec 10.4: "Technologies used out of turn: Kartografie (W-INVADE, W-ROUND-PRE)"; W-INVADE belongs
    to "the controller of the entered region"; 2.7 Kartografie IV: "Für [1 TP] erhält 1 Einheit ...
    1 BP ... Einheiten dürfen sich dabei auch ohne Transportmittel bewegen" (G72: an army of 1).
    The invaded controller pays 1 blue TP (100 fl) and moves 1 unstopped unit from an adjacent region in:
    the takeover becomes a battle."""
    e, hre, hun = invaded_pressburg()
    pressburg, buda = node("Pressburg"), node("Buda")
    assert e.phase == Phase.TECH_USE and e.actor == hun and e.at_war[hre][hun]  # the entry is an act of war
    assert e.legal_moves() == [DONE, tech(KARTOGRAFIE)]
    play(e, tech(KARTOGRAFIE))
    assert e.legal_moves() == [(Head.NODE, buda)]
    play(e, (Head.NODE, buda))
    assert e.legal_moves() == [(Head.UNIT, HI)]  # the stopped LI may not move
    enc = MedioevoEncoder(e.config, 4)
    assert enc.encode(e, hre)[enc.layout.slices["tech_invaded"]][pressburg] == 1  # public: played in the open
    money = e.money[hun]
    play(e, (Head.UNIT, HI))
    assert e.money[hun] == money - 100
    assert units_at(e, hun, "Pressburg")[HI] == 1 and units_at(e, hun, "Buda")[HI] == 0
    assert e.stopped[hun][pressburg * 7 + HI] == 1
    assert e.bt is not None and e.bt.node == pressburg and e.bt.owners == [hre, hun]
    assert e.controller(pressburg) == -1  # two armies: nobody's until the battle ends


def test_no_kartografie_defender_means_the_takeover_goes_on():
    """Without the technology no window opens; with it, DONE lets the invader take the region over."""
    e, hre, hun = invaded_pressburg(defender_tech=3)
    assert e.phase != Phase.TECH_USE and e.controller(node("Pressburg")) == hre
    e, hre, hun = invaded_pressburg()
    before = e.clone()
    with pytest.raises(IllegalActionError):
        e.play((Head.NODE, node("Buda")))  # the technology must be chosen first
    assert e.phase == before.phase and e.units == before.units and e.money == before.money
    play(e, DONE)
    assert e.bt is None and e.controller(node("Pressburg")) == hre and units_at(e, hun, "Buda")[HI] == 1


# ------------------------------------------------------------------------------- Ernennung ----
def appoint(side, real, as_type):
    return tech(ERNENNUNG), (Head.SIDE, side), (Head.UNIT, real), (Head.UNIT, as_type)


def test_ernennung_infantry_as_cavalry_and_the_barbarian_captain_as_infantry():
    """2.7 Ernennung: "you fight with 1 light infantry against a barbarian army of 1 infantry and 1
    captain. You spend 2 TP; your infantry counts as cavalry and the barbarian captain as plain
    infantry." Then no side has a captain (no barbarian captain slot), the cavalry ability works (no
    enemy cavalry) and deals +2; the cavalry steps down to HI from a damage point (ASSUMPTION: as a
    cavalry would, without a figure from the supply); the pieces keep their real types."""
    e = quiet_engine()
    p = 0
    tosk = put(e, p, "Toskana", LI=1)
    e.unit_supply[p][LI] -= 1
    for k in (0, 2):  # barbarian LI and CP
        e._add_barb(tosk, k, 1)
        e.barb_supply[k] -= 1
    e.tech[p][RED] = 2
    e.stage = Stage.WAR  # the battle's phase: TP made now stay for it
    e.tp[p][RED] = 2
    e.barb_dice = [1, 1, 1]
    money, hi_supply = e.money[p], e.unit_supply[p][HI]
    fight(e, "Toskana", p, -1, dice=[1, 1, 8])  # p's roll: attack 8, loss value 1
    assert e.phase == Phase.TECH_USE and e.actor == p
    play(e, *appoint(0, LI, CA))
    play(e, *appoint(1, CP1, LI)[:3])
    assert set(e.legal_moves()) == {(Head.UNIT, t) for t in (LI, HI, AR, CA)}  # a captain stays no captain
    play(e, (Head.UNIT, LI), DONE)
    assert e.phase == Phase.ATTACK_REROLL and e.tp[p][RED] == 0 and e.money[p] == money
    assert e.side_units(0) == [0, 0, 0, 1, 0, 0, 0] and e.side_units(1) == [2, 0, 0, 0, 0, 0, 0]
    assert e.captain_levels(1) == 0 and e.bt.cap == [[], []]  # no captain: no slot
    assert e.bt.active[0][CA]
    assert units_at(e, p, "Toskana")[LI] == 1 and e.barb[tosk * 3:tosk * 3 + 3] == [1, 0, 1]  # real pieces
    play(e, (Head.DICE, 0))
    # 8 against 1: combat result 1 (one melee unit) + 2 (cavalry) = 3 points: both barbarians die,
    # the captain as the infantry it counts as; p's loss value 1 steps the cavalry down
    assert not e.barb_total[tosk] and e.bt is None
    assert units_at(e, p, "Toskana")[:4] == [1, 0, 0, 0] and e.unit_supply[p][HI] == hi_supply


def test_ernennung_enemy_cavalry_as_infantry_dies_from_one_point():
    """Ernennung on an opponent's unit: its cavalry counts as LI, so the first damage point kills it
    (ASSUMPTION: as an LI would) and its piece goes back to the owner's supply."""
    e = quiet_engine()
    p, q = 0, 1
    put(e, p, "Toskana", HI=3)
    put(e, q, "Toskana", CA=1, LI=1)
    e.unit_supply[p][HI] -= 3
    e.unit_supply[q][CA] -= 1
    e.unit_supply[q][LI] -= 1
    e.tech[p][RED] = 2
    e.stage = Stage.WAR
    e.tp[p][RED] = 1
    fight(e, "Toskana", p, q, dice=[1, 1, 1])
    assert e.phase == Phase.TECH_USE and e.actor == p
    assert tech(ERNENNUNG) in e.legal_moves()
    play(e, *appoint(1, CA, LI), DONE)
    assert e.side_units(1)[:4] == [2, 0, 0, 0]
    ca_supply = e.unit_supply[q][CA]
    e._hit(1, LI)  # q's real LI first (ASSUMPTION), then the appointed cavalry
    assert units_at(e, q, "Toskana")[:4] == [0, 0, 0, 1] and e.side_units(1)[:4] == [1, 0, 0, 0]
    e._hit(1, LI)
    assert units_at(e, q, "Toskana")[:4] == [0, 0, 0, 0] and e.unit_supply[q][CA] == ca_supply + 1


def test_ernennung_appointed_units_are_not_sacrificed_and_end_with_the_battle():
    """An archer counted as LI gives its side the LI ability but is not sacrificed (like a captain
    acting as LI, 5.11); the appointment ends with the battle: the survivor is an archer again."""
    e = quiet_engine()
    p = 0
    tosk = put(e, p, "Toskana", AR=2)
    e.unit_supply[p][AR] -= 2
    e._add_barb(tosk, 2, 1)  # a barbarian captain alone
    e.barb_supply[2] -= 1
    e.tech[p][RED] = 2
    e.stage = Stage.WAR
    e.tp[p][RED] = 1
    e.barb_dice = [1, 1, 1]
    fight(e, "Toskana", p, -1, dice=[1, 3, 4])  # p's roll: attack 4, loss value 1
    play(e, *appoint(0, AR, LI), DONE)
    assert e.bt.active[0][LI] and e.sacrifices_left(0) == 0
    assert e.phase == Phase.ATTACK_REROLL  # no SACRIFICE decision: nothing to sacrifice
    play(e, (Head.DICE, 0))  # 4 against 1 kills the captain; p's loss value 1: p picks the unit
    assert e.phase == Phase.DAMAGE and set(e.legal_moves()) == {(Head.UNIT, LI), (Head.UNIT, AR)}
    play(e, (Head.UNIT, LI))  # the appointed archer dies as the LI it counts as
    assert e.bt is None and units_at(e, p, "Toskana")[:4] == [0, 0, 1, 0] and e.unit_supply[p][AR] >= 1


def test_ernennung_illegal_appointment_leaves_the_state_unchanged():
    """A captain cannot be appointed as a captain (no level change): the move is refused, nothing changes."""
    e = quiet_engine()
    p = 0
    tosk = put(e, p, "Toskana", LI=1)
    e.unit_supply[p][LI] -= 1
    e._add_barb(tosk, 2, 1)
    e.barb_supply[2] -= 1
    e.tech[p][RED] = 2
    e.stage = Stage.WAR
    fight(e, "Toskana", p, -1, dice=[])
    play(e, *appoint(1, CP1, LI)[:3])
    before = testing.state_bytes(e)
    with pytest.raises(IllegalActionError):
        e.play((Head.UNIT, CP1))
    assert testing.state_bytes(e) == before and e.bt.appointed is None


# ------------------------------------------------------------------ Kartografie after a battle ----
def test_kartografie_after_beating_barbarians_moves_the_war_wagon_one_region_further():
    """2.7 Kartografie: "you move a war wagon with units into a barbarian region. You win the battle
    against the barbarian army, then pay 1 TP and may move the war wagon one region further." The
    units that fought may board again (ASSUMPTION: every own unit in the region), and the step is the
    movement's: they arrive stopped."""
    e, oid = moving_wagon(where="Mailand", units=3)
    tosk, genua = node("Toskana"), node("Genua")
    e.tech[0][BLUE] = 4
    e.tp[0][BLUE] = 1
    e.horde = [1, 0, 0]
    e.barb_dice = [1, 1, 1]
    e.rng = ScriptedRng([1, 1, 8])  # p's roll: 8 against 1, loss value 1
    play(e, (Head.NODE, tosk), (Head.DICE, 0))
    assert e.bt is None and not e.barb_total[tosk] and units_at(e, 0, "Toskana")[LI] == 2
    assert e.phase == Phase.MOVE and e.actor == 0 and e.objs[oid][3] == tosk and e.objs[oid][4] == 0
    assert set(e.legal_moves()) == {DONE, (Head.LOAD, LI), tech(KARTOGRAFIE)}
    play(e, (Head.LOAD, LI), (Head.LOAD, LI), tech(KARTOGRAFIE))
    assert e.objs[oid][4] == 1 and e.tp[0][BLUE] == 0
    play(e, (Head.NODE, genua))
    assert e.objs[oid][3] == genua and e.objs[oid][4] == 0
    if e.phase == Phase.MOVE:
        play(e, DONE)
    assert units_at(e, 0, "Genua")[LI] == 2 and units_at(e, 0, "Toskana")[LI] == 0 and not sum(e.cargo[oid])


def test_no_step_after_the_battle_without_kartografie_or_its_price():
    """Without Kartografie (or without the money for its TP) the movement ends with the battle."""
    for owned, money in ((0, 5000), (4, 0)):
        e, oid = moving_wagon(where="Mailand", units=3)
        e.tech[0][BLUE] = owned
        e.money[0] = money
        e.horde = [1, 0, 0]
        e.barb_dice = [1, 1, 1]
        e.rng = ScriptedRng([1, 1, 8])
        play(e, (Head.NODE, node("Toskana")), (Head.DICE, 0))
        assert e.phase != Phase.MOVE and e.carrier == -1 and units_at(e, 0, "Toskana")[LI] == 2


def test_kartografie_after_the_battle_done_ends_the_movement():
    e, oid = moving_wagon(where="Mailand", units=3)
    e.tech[0][BLUE] = 4
    e.horde = [1, 0, 0]
    e.barb_dice = [1, 1, 1]
    e.rng = ScriptedRng([1, 1, 8])
    play(e, (Head.NODE, node("Toskana")), (Head.DICE, 0), (Head.LOAD, LI), DONE)
    assert e.phase != Phase.MOVE and e.carrier == -1  # the movement is over
    assert units_at(e, 0, "Toskana")[LI] == 2 and not sum(e.cargo[oid])  # the boarded unit got off again


def test_fuzz_ernennung_and_kartografie_after_a_battle(monkeypatch):
    """Random play as in the technology fuzz (every seat owns the technologies and prefers activations,
    armies by the transports are stronger, movements prefer steps) until Ernennung has taken damage on
    appointed units, an appointed player's unit has died and a movement went on after a won battle;
    the package's invariants after every step."""
    from envs.medioevo_universale.engine import MedioevoEngine

    seen = {"appointed_hit": 0, "appointed_dies": 0, "resumed": 0}

    def counted(name, key, player_only=False):
        original = getattr(MedioevoEngine, name)

        def wrapper(self, *args):
            result = original(self, *args)
            if result is not False and (not player_only or self.bt is None or self.bt.owners[args[0]] >= 0):
                seen[key] += 1
            return result
        monkeypatch.setattr(MedioevoEngine, name, wrapper)

    counted("appointed_hit", "appointed_hit")
    counted("_appointed_dies", "appointed_dies", player_only=True)
    counted("kartografie_after_battle", "resumed")
    n = 4
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=0)

    def grant_and_arm(e):
        for p in range(n):
            e.tech[p] = [4] * 6
            e._bank(p, 3000)
            for oid in e.slots[p]:  # stronger armies by the transports win more entry battles
                if oid >= 0 and e.objs[oid][1] in (WAR_WAGON, GALLEY) and e.objs[oid][3] >= 0:
                    k = min(4, e.unit_supply[p][HI])
                    e.unit_supply[p][HI] -= k
                    e._add_units(p, e.objs[oid][3], HI, k)

    for seed in range(12):
        for agent, obs, pick in forced_decisions(env, seed, grant_and_arm):
            e = env.engine
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            techs = [i for i in legal if env.action_name(i).startswith("TECH(")]
            if techs and e.phase != Phase.PURCHASE and pick.random() < 0.7:
                legal = techs
            elif e.phase in (Phase.TECH_USE, Phase.TP_PAY) and len(legal) > 1 and pick.random() < 0.7:
                legal = [i for i in legal if env.action_name(i) != "CTRL(DONE)"]
            elif e.phase == Phase.MOVE and pick.random() < 0.5:  # movements that go somewhere
                legal = [i for i in legal if env.action_name(i).startswith(("NODE(", "LOAD("))] or legal
            if pick.random() < 0.05:
                testing.observation_in_space(env, agent, obs)
            env.step(pick.choice(legal))
            check_invariants(env)
            bt = env.engine.bt
            if bt is not None and any(bt.appointed or ()) and env.engine.current_player >= 0:
                assert_matches_fresh_encoder(env, {env.engine.current_player, 0})
        if all(seen.values()):
            break
    assert all(seen.values()), seen
