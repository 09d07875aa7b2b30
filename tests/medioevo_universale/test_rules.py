"""Rulebook scenarios (spec Appendix D and sections 2-6) run directly on the engine."""
import numpy as np
import pytest

from envs.core.errors import IllegalActionError
from envs.medioevo_universale.constants import (
    AR, CA, CARAVAN, CASTLE, CATHEDRAL, CITY, CP1, CP2, FORTRESS, GALLEY, HI, LI, SIEGE, TOWER, TOWN, VILLAGE,
    WAR_WAGON, Ctrl, Head, Phase, Purchase,
)
from envs.medioevo_universale.data import EMPIRES, STARTING_KITS, game_data
from envs.medioevo_universale.engine import MedioevoConfig, MedioevoEngine

BOARD = game_data().board
NT = 7
DONE = (Head.CTRL, Ctrl.DONE)


def node(name):
    return BOARD.index(name)


def new_engine(empires=("HRE", "HUN", "BYZ", "GH"), seed=0, **cfg):
    cfg.setdefault("diplomacy_offers", 0)  # scenarios open no diplomacy windows unless they ask for them
    e = MedioevoEngine(MedioevoConfig(empire_selection="pick", **cfg), len(empires), np.random.default_rng(seed))
    for name in empires:
        e.play((Head.EMPIRE, EMPIRES.index(name)))
    return e


def advance_to(e, phase):
    while e.phase != phase:
        e.play(e.legal_moves()[0])
    return e


def engine_at_purchase(**kw):
    """Phase 4 of round 1 with the starting empire cards back in the deck: their abilities would open
    card windows in the scenarios (test_cards.py deals the cards it needs)."""
    e = advance_to(new_engine(**kw), Phase.PURCHASE)
    for q in range(e.num_players):
        e.deck[:0] = e.hand[q]
        e.hand[q] = []
    menu(e, e.actor)
    return e


def menu(e, p):
    """Open seat p's purchase menu on the current state (after a test changed the state)."""
    e.actor = p
    e.phase = Phase.PURCHASE
    e._open_tree(e._purchase_options(p))


def buy(e, *moves):
    for m in moves:
        assert m in e.legal_moves(), (m, e.legal_moves())
        e.play(m)


def clear_seat(e, p):
    """Remove p's setup army, transports and buildings so a scenario starts from a blank realm."""
    for n in range(BOARD.num_nodes):
        for t in range(NT):
            k = e.units[p][n * NT + t]
            e._add_units(p, n, t, -k)
            e.unit_supply[p][min(t, 4)] += k
        for cls in range(3):
            if e.building_owner_at(n, cls) == p:
                e._remove_building(n, cls)
    for oid in e.own_objects(p):
        e._remove_object(oid)


def test_starting_money_and_ep():
    """D2: 2x500 + 4x100 + 3x50 + 3x10 + 3x5 + 5x1 = 1600 fl; everyone starts at 10 EP."""
    e = new_engine()
    assert 2 * 500 + 4 * 100 + 3 * 50 + 3 * 10 + 3 * 5 + 5 * 1 == 1600
    assert e.money == [1600] * 4 and e.ep == [10] * 4


def test_starting_kit_masks_ships_without_a_port():
    """D3: "A player whose empire has no port may not choose galleys or merchant ships"."""
    e = new_engine()
    assert e.phase == Phase.KIT
    assert len(e.kit_moves()) == 14
    e.home_regions[e.actor] = [node("Franken"), node("Schwaben")]  # a port-less realm
    names = [STARTING_KITS[a] for _, a in e.kit_moves()]
    assert len(names) == 5  # caravan II, war wagon II, caravan+caravan, caravan+wagon, wagon+wagon
    assert all(kind in (CARAVAN, WAR_WAGON) for kit in names for kind, _ in kit)


def test_horde_roll_and_reroll():
    """D4: d4 = 3, d6 = 5, d8 = 1 gives 2 LI + 1 captain; rerolling only the d8 to 4 leaves 2 LI.
    D5: dice 2, 4, 7 give a horde of 2 LI."""
    e = new_engine()
    e.barb_dice = [3, 5, 1]
    e._set_horde()
    assert e.horde == [2, 0, 1]
    e.barb_dice = [3, 5, 4]
    e._set_horde()
    assert e.horde == [2, 0, 0]
    e.barb_dice = [2, 4, 7]
    e._set_horde()
    assert e.horde == [2, 0, 0]


def test_reroll_changes_only_the_chosen_dice():
    e = advance_to(new_engine(seed=3), Phase.HORDE_REROLL)
    assert e.legal_moves() == [(Head.DICE, m) for m in range(8)]
    d4, d6, _ = e.barb_dice
    e.play((Head.DICE, 0b100))  # reroll the d8 only
    assert e.barb_dice[:2] == [d4, d6]
    assert e.horde == [1 + (d4 <= 3), int(d6 <= 3), int(e.barb_dice[2] <= 3)]


def _bid(e, amount_coins):
    for coin in amount_coins:
        e.play((Head.COIN, coin))
    e.play(DONE)


def test_auction_start_player_pays_the_last_placed():
    """Spec 5.3: highest bid starts, the others follow by bid; only the start player pays, to the last."""
    e = advance_to(new_engine(), Phase.BID)
    assert e.round == 1 and e.actor == 0
    _bid(e, [4])  # seat 0: 100
    _bid(e, [3])  # seat 1: 50
    _bid(e, [2])  # seat 2: 10
    _bid(e, [])  # seat 3: 0
    assert e.order == [0, 1, 2, 3]
    assert e.money == [1500, 1600, 1600, 1700]


def test_auction_ties_reverse_the_previous_order():
    """Spec 5.3: "in all later rounds the previous turn order among the tied players is reversed"."""
    e = engine_at_purchase()
    e.round = 2
    e.order = [2, 0, 3, 1]
    e._start_auction()
    for p in [2, 0, 3, 1]:
        assert e.actor == p
        _bid(e, [4] if p == 2 else [])
    assert e.order == [2, 1, 3, 0]
    assert e.position == [3, 1, 0, 2]


def test_auction_tie_at_the_top_is_broken_by_extra_sealed_bids():
    """Spec 5.3 / G25: the tied highest bidders add further amounts in extra sealed rounds."""
    e = advance_to(new_engine(), Phase.BID)
    _bid(e, [3])  # seat 0: 50
    _bid(e, [3])  # seat 1: 50
    _bid(e, [])
    _bid(e, [])
    assert e.phase == Phase.TIE_BID and e.actor == 0
    assert (Head.CTRL, Ctrl.TAKE_LOAN) not in e.legal_moves()
    _bid(e, [])  # seat 0 adds nothing
    _bid(e, [1])  # seat 1 adds 5
    assert e.order[0] == 1
    assert e.money[1] == 1600 - 55


def test_income_formula():
    """Spec 5.5: rate x (controlled regions + 1/2/3 per village/town/city) + 20 x market factor per city."""
    e = engine_at_purchase()
    p = 0  # HRE: six home regions, a village from setup
    village = next(n for n in e.land_nodes if e.civil_owner[n] == p)
    assert len(e.controlled_regions(p)) == 6
    e.tax_rate[p] = 30
    assert e.income(p) == 30 * (6 + 1)
    e.civil[village] = 3  # make it a city with two market cubes
    e.cubes[village][0] = e.cubes[village][1] = 1
    assert e.income(p) == 30 * (6 + 3) + 20 * 2


def test_income_without_units_and_regions_is_200():
    e = engine_at_purchase()
    p = 0
    clear_seat(e, p)
    for n in e.home_regions[p]:
        e._add_barb(n, 0, 1)  # every home region in revolt
    assert e.controlled_regions(p) == []
    assert e.income(p) == 200


def test_upkeep_example():
    """D9: 2 LI, 1 HI, 1 AR, 1 CA, 1 CP, 1 bombard, 2 war wagons, 1 galley = 10 x 20 = 200 fl."""
    e = engine_at_purchase()
    p = 1
    clear_seat(e, p)
    n = node("Buda")
    for t, k in ((LI, 2), (HI, 1), (AR, 1), (CA, 1), (CP1, 1)):
        e._add_units(p, n, t, k)
    e._new_object(p, SIEGE, 3, n)
    e._new_object(p, WAR_WAGON, 1, n)
    e._new_object(p, WAR_WAGON, 2, n)
    e._new_object(p, GALLEY, 1, node("Spalato"))
    assert e.upkeep(p) == 200


def test_loan_interest_schedule():
    """D10: a loan in round r pays no interest in r; r+1 pays 50 and takes a 2nd loan; r+2 pays 100.
    Never two loans in one round."""
    e = engine_at_purchase()
    p = e.actor
    buy(e, (Head.CTRL, Ctrl.TAKE_LOAN))
    assert e.loans[p] == 1 and (Head.CTRL, Ctrl.TAKE_LOAN) not in e.legal_moves()
    assert e.interest_due(p) == 0
    e.loan_taken = [0] * 4  # next round
    assert e.interest_due(p) == 50
    e._loan(p, Ctrl.TAKE_LOAN)
    assert e.interest_due(p) == 50
    e.loan_taken = [0] * 4
    assert e.interest_due(p) == 100


def test_deficit_offers_a_loan_and_pays():
    e = engine_at_purchase()
    p = 2
    e.money[p] = 0
    e.queue = [p]
    e._next_expenses()
    assert e.phase == Phase.DEFICIT and e.actor == p
    due = e.expenses_due(p)
    assert (Head.CTRL, Ctrl.TAKE_LOAN) in e.legal_moves()
    e.play((Head.CTRL, Ctrl.TAKE_LOAN))
    assert e.money[p] == 500 - due and e.loans[p] == 1


def test_missing_interest_twice_eliminates():
    """Spec 5.6: failing to pay interest in two consecutive rounds eliminates the player."""
    e = engine_at_purchase()
    p = 2
    clear_seat(e, p)
    e.barb_supply = [0, 0, 0]  # no barbarian figures left: no revolts to sell
    e.loans[p] = 5
    e.money[p] = 10
    e.queue = [p]
    e._next_expenses()
    assert e.missed_interest[p] == 1 and not e.eliminated[p]
    assert e.money[p] == 10
    e.queue = [p]
    e._next_expenses()
    assert e.eliminated[p]
    assert e.hand[p] == [] and sum(e.tokens[p]) == 0


def test_game_ends_when_the_last_player_is_eliminated():
    """Spec 5.6 / 4.6: with the other seats out, the last one missing its interest a second time leaves nobody
    in the game; it ends at once with the final scoring (no auction of the next round without bidders)."""
    e = advance_to(new_engine(("HRE", "HUN", "BYZ")), Phase.TAX)
    round_now = e.round
    for q in (0, 1):
        e._eliminate(q)
    p = 2
    clear_seat(e, p)
    e.barb_supply = [0, 0, 0]  # no revolts to sell
    e.loans[p] = 5
    e.loan_taken[p] = 0  # every loan from earlier rounds: 250 fl interest due
    e.missed_interest[p] = 1
    e.money[p] = 0
    e.actor, e.queue = p, []
    e.play((Head.TAX, 0))
    assert e.eliminated == [True, True, True]
    assert e.is_over and e.current_player == -1 and e.round == round_now
    assert e.final_breakdown is not None and not any(any(v) for v in e.final_breakdown.values())


def test_deficit_sells_buildings_for_half_price():
    """Spec 5.6: own buildings and transports are given up for 50 % of their price."""
    e = engine_at_purchase()
    p = 2
    clear_seat(e, p)
    n = node("Konstantinopel")
    e.civil[n], e.civil_owner[n] = 2, p  # a town
    e.barb_supply = [0, 0, 0]  # no barbarian figures left: no revolts to sell
    e.loans[p] = 5
    e.money[p] = 0
    e.queue = [p]
    e._next_expenses()
    assert e.phase == Phase.DEFICIT
    assert e.legal_moves() == [(Head.BUILD, TOWN)]
    e.play((Head.BUILD, TOWN))
    e.play((Head.NODE, n))
    # 100 fl cannot pay 250 fl interest and nothing is left to give up: the interest is missed
    assert e.civil[n] == 0 and e.money[p] == 100 and e.missed_interest[p] == 1


def test_technology_prices_and_one_per_branch():
    """D12: level IV costs 400; at most 1 per branch per round; 3 x level I = 300 fl."""
    e = engine_at_purchase()
    p = e.actor
    e.money[p] = 2000
    menu(e, p)
    for b in (0, 1, 2):
        buy(e, (Head.PURCHASE, Purchase.TECH), (Head.TECH, b * 4))
    assert e.money[p] == 1700
    assert (Head.TECH, 1) not in [m for opt in e.tree for m in opt]  # blue II not this round
    e.tech[p][3] = 3
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.TECH), (Head.TECH, 3 * 4 + 3))
    assert e.money[p] == 1300 and e.tech[p][3] == 4


def test_tower_to_castle_upgrade():
    """D13: tower -> castle costs 2 green TP + 200 fl, +1 EP, control markers +2 (3 in total)."""
    e = engine_at_purchase()
    p = 0
    prag = node("Prag")
    e.tech[p][4] = 2  # Architektur
    e.money[p] = 1000
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.BUILD), (Head.BUILD, TOWER), (Head.NODE, prag))
    assert e.money[p] == 1000 - 100 - 100  # 1 missing green TP at 100 fl
    assert e.phase == Phase.PLACE_MARKER
    schlesien = node("Schlesien")  # barbarian region with a barbarian LI: not allowed
    assert (Head.NODE, schlesien) not in e.legal_moves()
    e.play(DONE)  # keep no marker
    before_ep = e.ep[p]
    e.tp[p][4] = 2  # two green TP from cards
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.BUILD), (Head.BUILD, CASTLE), (Head.NODE, prag))
    assert e.money[p] == 800 - 200 and e.tp[p][4] == 0
    assert e.mil[prag] == 3 and e.building_supply[TOWER] == game_data().comp.building_supply[TOWER]
    assert e.ep[p] == before_ep + 1
    assert e.markers_to_place == 2


def test_control_marker_gives_control_of_an_adjacent_region():
    """Spec 5.7 example: a new tower's marker placed in an adjacent region controls it."""
    e = engine_at_purchase()
    p = 0
    prag, schlesien = node("Prag"), node("Schlesien")
    e._add_barb(schlesien, 0, -1)  # the barbarians there are gone
    e.tech[p][4] = 2
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.BUILD), (Head.BUILD, TOWER), (Head.NODE, prag))
    # own Franken and Schwaben qualify too; Pressburg is Hungarian (controlled by another player)
    assert e.legal_moves() == [DONE, (Head.NODE, node("Franken")), (Head.NODE, node("Schwaben")),
                               (Head.NODE, schlesien)]
    e.play((Head.NODE, schlesien))
    assert e.controller(schlesien) == p and e.markers_left[p] == 7
    assert e.phase == Phase.PURCHASE


def test_galley_purchase_and_upgrade():
    """D14: a new galley II costs 2 blue TP + 200 fl in an own port; II -> III costs 1 TP + 100 fl."""
    e = engine_at_purchase()
    p = 0
    genua = node("Genua")
    e.tech[p][0] = 1
    e.money[p] = 1000
    menu(e, p)
    galley_places = [o[2] for o in e.tree if len(o) > 2 and o[1] == (Head.VEHICLE, GALLEY * 3 + 1)]
    assert (Head.NODE, node("Mailand")) not in galley_places and (Head.NODE, node("Genua")) in galley_places
    buy(e, (Head.PURCHASE, Purchase.VEHICLE), (Head.VEHICLE, GALLEY * 3 + 1), (Head.NODE, genua))
    assert e.money[p] == 1000 - 200 - 200
    slot = next(s for s, oid in enumerate(e.slots[p]) if oid >= 0 and e.objs[oid][1] == GALLEY)
    buy(e, (Head.PURCHASE, Purchase.UPGRADE_VEHICLE), (Head.OBJECT, slot), (Head.VEHICLE, GALLEY * 3 + 2))
    assert e.money[p] == 600 - 100 - 100
    assert e.objs[e.slots[p][slot]][2] == 3


def test_catapult_to_bombard():
    """D15: catapult -> bombard costs 2 green TP + 200 fl; the catapult goes back to the supply."""
    e = engine_at_purchase()
    p = 0
    e.tech[p][4] = 3  # Mathematik
    e.money[p] = 1000
    e.tp[p][4] = 5
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.VEHICLE), (Head.VEHICLE, SIEGE * 3), (Head.NODE, node("Aachen")))
    assert e.money[p] == 900 and e.tp[p][4] == 4
    slot = next(s for s, oid in enumerate(e.slots[p]) if oid >= 0 and e.objs[oid][1] == SIEGE)
    supply = list(e.siege_supply)
    buy(e, (Head.PURCHASE, Purchase.UPGRADE_VEHICLE), (Head.OBJECT, slot), (Head.VEHICLE, SIEGE * 3 + 2))
    assert e.money[p] == 700 and e.tp[p][4] == 2
    assert e.siege_supply == [supply[0] + 1, supply[1], supply[2] - 1]


def test_unit_limit_example():
    """D16: controls 1 empty inhabited region, 1 village and 1 city: 3 + (0 + 1 + 3) = 7 units."""
    e = engine_at_purchase()
    p = 0
    village = next(n for n in e.land_nodes if e.civil_owner[n] == p)
    other = next(n for n in e.home_regions[p] if BOARD.inhabited[n] and n != village)
    e.civil[other], e.civil_owner[other] = 3, p
    assert e.unit_limit(p) == 7
    e.money[p] = 10000
    menu(e, p)
    for _ in range(7):
        buy(e, (Head.PURCHASE, Purchase.UNIT), (Head.UNIT, LI), (Head.NODE, village))
    assert all(m[0] != Head.PURCHASE or m[1] != Purchase.UNIT for m in e.legal_moves())
    assert e.units[p][village * NT + LI] == 7


def test_units_only_in_inhabited_or_fortified_controlled_regions():
    e = engine_at_purchase()
    p = 0
    menu(e, p)
    places = {o[2][1] for o in e.tree if o[0] == (Head.PURCHASE, Purchase.UNIT)}
    assert places == {n for n in e.home_regions[p] if BOARD.inhabited[n]}


def test_card_price_and_draw():
    """D17: holding 3 cards the next costs 100 + 3 x 50 = 250 fl; draw 2 (+2 per cathedral), keep 1."""
    e = engine_at_purchase()
    p = e.actor
    e.hand[p] = [e.deck.pop(), e.deck.pop(), e.deck.pop()]
    e.money[p] = 1000
    menu(e, p)
    assert e.card_price(p) == 250
    deck = len(e.deck)
    buy(e, (Head.PURCHASE, Purchase.CARD))
    assert e.money[p] == 750 and e.phase == Phase.KEEP_CARD and len(e.drawn) == 2
    keep = e.drawn[1]
    e.play((Head.CARD, keep))
    assert keep in e.hand[p] and len(e.deck) == deck - 1
    assert (Head.PURCHASE, Purchase.CARD) not in e.legal_moves()  # one per purchase phase
    e.card_bought[p] = False
    n = e.home_regions[p][0]
    e.cath_owner[n] = p
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.CARD))
    assert len(e.drawn) == 4


def test_tp_from_cards_pay_for_a_village_and_a_captain():
    """D18: card A gives 1 green, card B red or blue (red chosen): village 100 fl + green TP,
    level I captain red TP + 100 fl."""
    e = engine_at_purchase()
    p = 0
    card_a, card_b = 9, 4  # card 10 (green), card 5 (red / blue)
    e.hand[p] = [card_a, card_b]
    e.tech[p][4] = 1  # Maurerhandwerk
    e.tech[p][3] = 1  # Militärwesen
    e.money[p] = 500
    menu(e, p)
    buy(e, (Head.CARD, card_a))
    buy(e, (Head.CARD, card_b), (Head.COLOUR, 3))
    assert e.tp[p] == [0, 0, 0, 1, 1, 0] and set(e.rotated[p]) == {card_a, card_b}
    target = next(n for n in e.home_regions[p] if BOARD.inhabited[n] and e.civil[n] == 0)
    buy(e, (Head.PURCHASE, Purchase.BUILD), (Head.BUILD, VILLAGE), (Head.NODE, target))
    buy(e, (Head.PURCHASE, Purchase.UNIT), (Head.UNIT, CP1), (Head.NODE, target))
    assert e.money[p] == 300 and e.tp[p] == [0] * 6
    e.play(DONE)
    assert e.tp[p] == [0] * 6


def test_captain_upgrade_costs_the_difference():
    """D42 / spec 2.4: a level II captain is 2 red TP + 200 fl; upgrading pays the difference."""
    e = engine_at_purchase()
    p = 0
    e.tech[p][3] = 1
    e.money[p] = 1000
    village = next(n for n in e.land_nodes if e.civil_owner[n] == p)
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.UNIT), (Head.UNIT, CP2), (Head.NODE, village))
    assert e.money[p] == 1000 - 200 - 200
    buy(e, (Head.PURCHASE, Purchase.UPGRADE_CAPTAIN), (Head.NODE, village), (Head.UNIT, CP2), (Head.UNIT, CP2 + 1))
    assert e.money[p] == 600 - 100 - 100
    assert e.units[p][village * NT + CP2 + 1] == 1 and e.units[p][village * NT + CP2] == 0


def test_goal_claim_card_46():
    """D19: card 46 (>= 5 military buildings in adjacent regions): a castle completing the chain
    earns 1 red goal token; the card goes under the deck."""
    e = engine_at_purchase(secret_goal_pairing=False)
    p = 0
    card = 45
    e.hand[p] = [card]
    chain = [node(x) for x in ("Aachen", "Franken", "Schwaben", "Mailand")]
    for n in chain:
        e.mil[n], e.mil_owner[n] = 1, p
    menu(e, p)
    assert (Head.CTRL, Ctrl.CLAIM_GOAL) not in e.legal_moves()
    e.mil[node("Prag")], e.mil_owner[node("Prag")] = 3, p
    menu(e, p)
    red_before = e.tokens[p][3]
    buy(e, (Head.CTRL, Ctrl.CLAIM_GOAL), (Head.CARD, card))
    assert e.tokens[p][3] == red_before + 1 and e.hand[p] == [] and e.deck[0] == card


def test_rotated_card_cannot_claim_its_goal():
    """G31: a card can be claimed only while it was not used this round."""
    e = engine_at_purchase(secret_goal_pairing=False)
    p = 0
    e.hand[p] = [23]  # card 24: hold >= 3 empire cards... (threshold 3)
    e.hand[p] += [e.deck.pop(), e.deck.pop()]
    menu(e, p)
    assert (Head.CTRL, Ctrl.CLAIM_GOAL) in e.legal_moves()
    e.rotated[p].append(23)
    menu(e, p)
    assert all(opt[1] != (Head.CARD, 23) for opt in e.tree if opt[0] == (Head.CTRL, Ctrl.CLAIM_GOAL))


def test_goal_token_table_and_final_loans():
    """D49: 5 goal tokens = 8 EP. D11: 2 open loans cost 1100 fl for the money award and 4 EP."""
    e = engine_at_purchase()
    e.tokens[0] = [5, 0, 0, 0, 0, 0]
    e.loans[1] = 2
    e.money[1] = 1500
    awards = e.final_awards()
    assert awards["goal_tokens"][0] == 8
    assert e.net_money(1) == 1500 - 1100
    assert awards["loans"][1] == -4
    table = [game_data().comp.goal_token_ep[min(k, 8)] for k in range(1, 10)]
    assert table == [0, 1, 3, 5, 8, 11, 15, 20, 20]


def test_awards_ties_give_one_ep_each():
    """Spec 6.2: players tied for an award get 1 EP each instead."""
    e = engine_at_purchase()
    for p in range(4):
        e.money[p] = 1000
        e.loans[p] = 0
    e.money[3] = 900
    awards = e.final_awards()
    assert awards["money"] == [1, 1, 1, 0]
    e.money[2] = 2000
    assert e.final_awards()["money"] == [0, 0, 3, 0]


def test_technology_award_cascade():
    """Spec 6.2 / G55: highest level, then most branches at it, then the next lower level."""
    e = engine_at_purchase()
    e.tech = [[3, 1, 0, 0, 0, 0], [3, 2, 0, 0, 0, 0], [2, 2, 2, 2, 0, 0], [0] * 6]
    assert e.final_awards()["technology"] == [0, 3, 0, 0]
    e.tech[0] = [3, 2, 0, 0, 0, 0]
    assert e.final_awards()["technology"] == [1, 1, 0, 0]


def test_ep_limit_ends_the_game_at_once():
    """D1 / spec 1.5: reaching the EP limit ends the turn and the game immediately."""
    e = engine_at_purchase(ep_limit=30)
    p = 0
    e.ep[p] = 29
    village = next(n for n in e.land_nodes if e.civil_owner[n] == p)
    e.tech[p][4] = 1
    e.money[p] = 5000
    menu(e, p)
    buy(e, (Head.PURCHASE, Purchase.BUILD), (Head.BUILD, CITY), (Head.NODE, village))
    assert e.is_over and e.current_player == -1
    assert e.ep[p] >= 30 and e.final_breakdown is not None


def test_control_rules():
    """Spec 5.2: barbarian army -> nobody; a foreign army takes a home region; control returns."""
    e = engine_at_purchase()
    aachen = node("Franken")
    assert e.army_size(0, aachen) == 0
    assert e.controller(aachen) == 0
    e._add_units(1, aachen, LI, 1)
    assert e.controller(aachen) == 1
    e._add_units(1, aachen, LI, -1)
    assert e.controller(aachen) == 0
    e.marker[aachen] = 2
    assert e.controller(aachen) == 2
    e._add_barb(aachen, 0, 1)
    assert e.controller(aachen) == -1
    assert e.controller(node("Toskana")) == -1  # barbarian region
    assert e.controller(node("Tyrrhenisches Meer (Tyrrhenian Sea)")) == -1  # G24: seas never


def test_ownership_markers_block_purchases():
    """Spec 2.1: without a free matching ownership marker an object cannot be built."""
    e = engine_at_purchase()
    p = 0
    clear_seat(e, p)
    aachen = node("Aachen")
    for _ in range(4):
        e._new_object(p, SIEGE, 3, aachen)
    e.tech[p][4] = 3
    e.money[p] = 5000
    menu(e, p)
    levels = {o[1][1] % 3 + 1 for o in e.tree if o[0] == (Head.PURCHASE, Purchase.VEHICLE)}
    assert levels == {1, 2}  # no fifth level-III marker
    assert not any(o[0] == (Head.PURCHASE, Purchase.BUILD) and o[1] == (Head.BUILD, CATHEDRAL) for o in e.tree)


def test_one_building_per_class_and_only_in_controlled_regions():
    e = engine_at_purchase()
    p = 0
    e.tech[p] = [0, 0, 0, 0, 2, 1]
    e.money[p] = 5000
    menu(e, p)
    builds = {(o[1][1], o[2][1]) for o in e.tree if o[0] == (Head.PURCHASE, Purchase.BUILD)}
    village = next(n for n in e.land_nodes if e.civil_owner[n] == p)
    assert (VILLAGE, village) not in builds and (TOWN, village) in builds and (CITY, village) in builds
    assert all(n in e.home_regions[p] for _, n in builds)
    assert (FORTRESS, node("Aachen")) in builds  # new building straight at level II
    with pytest.raises(IllegalActionError):
        e.play((Head.NODE, village))


def test_bankrupt_player_may_start_revolts_for_money():
    """Spec 5.6: a player who cannot pay interest may trigger revolts in own regions, 100 fl each."""
    e = engine_at_purchase()
    p = 2
    clear_seat(e, p)
    e.loans[p] = 5
    e.money[p] = 0
    e.queue = [p]
    e._next_expenses()
    assert e.phase == Phase.DEFICIT
    regions = {a for h, a in e.legal_moves() if h == Head.NODE}
    assert regions == set(e.home_regions[p])
    target = sorted(regions)[0]
    e.play((Head.NODE, target))
    assert e.money[p] == 100 and e.barb_total[target] == sum(e.horde) and e.controller(target) == -1
    assert e.revolts_placed[p] == 1


def test_trade_vehicles_in_war_option():
    """G89: caravans and merchant ships do not move in phase 5 unless the alternative is chosen."""
    for allowed in (False, True):
        e = engine_at_purchase(trade_vehicles_in_war=allowed)
        p = 0
        clear_seat(e, p)
        e._new_object(p, CARAVAN, 1, node("Prag"))
        assert ((Head.OBJECT, 0) in e.war_turn_moves(p)) == allowed


def test_bankruptcy_revolt_on_own_units_is_fought_at_once():
    """Spec 5.6 with the phase 2 rules: a revolt placed on own units attacks them at once; then the
    player goes on covering the interest."""
    from .test_war import ScriptedRng
    e = engine_at_purchase()
    p = 2
    clear_seat(e, p)
    for n in e.home_regions[p]:
        e._add_units(p, n, HI, 1)
        e.unit_supply[p][HI] -= 1
    e.horde, e.barb_dice = [1, 0, 0], [1, 1, 1]
    e.loans[p] = 5
    e.money[p] = 0
    e.queue = []
    e.actor = p
    e.phase = Phase.DEFICIT
    e.rng = ScriptedRng([1, 6, 8])
    e._open_tree(e._deficit_options(p))
    target = e.home_regions[p][0]
    e.play((Head.NODE, target))
    assert e.bt is not None and e.bt.owners == [-1, p] and e.money[p] == 100
    e.play((Head.DICE, 0))  # 8/1 against 1/1: the barbarian dies; the HI absorbs the loss value
    assert e.bt is None and e.barb_total[target] == 0 and e.army[p][target] == 1
    assert e.phase == Phase.DEFICIT and e.actor == p


def test_own_units_transports_and_cubes_can_be_taken_off_the_board_in_the_own_turn():
    """Spec 5.17 ("Du darfst während deines Zuges jederzeit einige oder alle deiner Einheiten,
    Transportmittel, Belagerungsmaschinen und Warenwürfel vom Spielbrett nehmen und zurück in den
    jeweiligen Vorrat legen."): offered in the own purchase turn, one piece at a time; each lowers the
    upkeep by 20 fl."""
    e = engine_at_purchase()
    p = e.actor
    remove = (Head.CTRL, Ctrl.REMOVE)
    assert all(opt[0] != remove or opt[1][0] != Head.NODE for opt in e.tree)
    n, t = next((n, t) for n in range(BOARD.num_nodes) for t in range(NT) if e.units[p][n * NT + t])
    upkeep, supply, units = e.upkeep(p), e.unit_supply[p][min(t, 4)], e.units[p][n * NT + t]
    buy(e, remove, (Head.UNIT, t), (Head.NODE, n))
    assert e.units[p][n * NT + t] == units - 1 and e.unit_supply[p][min(t, 4)] == supply + 1
    assert e.upkeep(p) == upkeep - 20 and e.phase == Phase.PURCHASE and e.actor == p
    slot = next(s for s, oid in enumerate(e.slots[p]) if oid >= 0 and oid in e.goods)
    oid = e.slots[p][slot]
    e.goods[oid][3] += 1
    e.goods_supply[3] -= 1
    menu(e, p)
    cubes = e.goods_supply[3]
    buy(e, remove, (Head.GOOD, 3), (Head.OBJECT, slot))
    assert e.goods[oid][3] == 0 and e.goods_supply[3] == cubes + 1
    kind = e.objs[oid][1]
    vehicles = e.vehicle_supply[kind]
    buy(e, remove, (Head.OBJECT, slot))
    assert oid not in e.objs and e.slots[p][slot] == -1 and e.vehicle_supply[kind] == vehicles + 1
    assert e.upkeep(p) == upkeep - 40
    other = (p + 1) % e.num_players
    assert not any(opt[0] == remove and opt[1] == (Head.OBJECT, s) for opt in e.tree
                   for s, o in enumerate(e.slots[other]) if o >= 0 and o not in e.slots[p])
