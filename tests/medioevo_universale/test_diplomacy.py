"""Diplomacy (spec 5.19, 10.5; G24, G35, G46, G50, G71) and the team game (variant 8.4)."""
import dataclasses

import numpy as np
import pytest

from envs.core import TabletopEnv, testing
from envs.core.errors import ConfigError, IllegalActionError
from envs.core.rewards import team_rank_rewards
from envs.medioevo_universale import SPEC, MedioevoConfig, MedioevoEncoder, MedioevoEngine
from envs.medioevo_universale.constants import (
    AR, CARAVAN, COINS, GALLEY, HI, LI, WAR_WAGON, Ctrl, DiplomacyWindow, Head, Phase, Purchase, Stage,
)
from envs.medioevo_universale.cards import JEDERZEIT_WINDOWS
from envs.medioevo_universale.data import game_data
from envs.medioevo_universale.diplomacy import (
    GUEST_TREATIES, STATE_TREATIES, TREATY_NAMES, Offer, OfferStep, Treaty,
)
from envs.medioevo_universale.technologies import TechWindow

from .forced import forced_decisions
from .test_encoder_cache import assert_matches_fresh_encoder
from .test_engine_caches import MINOR_MAY_CHANGE, _public_state
from .test_fuzz import check_invariants
from .test_rules import NT, clear_seat, engine_at_purchase, menu, new_engine, node
from .test_multi_war import crew, force_crowded_seas
from .test_war import ScriptedRng, fight, play, put, war_engine

DONE = (Head.CTRL, Ctrl.DONE)
ACCEPT = (Head.CTRL, Ctrl.ACCEPT)
REJECT = (Head.CTRL, Ctrl.REJECT)
PAY = (Head.CTRL, Ctrl.PAY)
DEMAND = (Head.CTRL, Ctrl.DEMAND)
GOODS = game_data().comp.goods
HRE, HUN, BYZ = 0, 1, 2  # seats of new_engine's empires


def coin(amount):
    return (Head.COIN, COINS.index(amount))


def dip_engine(offers=1):
    """HRE, HUN, BYZ, GH in seat order; realms cleared; the war-phase diplomacy window is open."""
    e = engine_at_purchase(diplomacy_offers=offers)  # passes the purchase window with DONE
    for p in range(4):
        clear_seat(e, p)
    e.order, e.position, e.queue = [0, 1, 2, 3], [0, 1, 2, 3], []
    e.dip_done = ()
    e._start_war()
    assert e.stage == Stage.WAR and e.phase == Phase.DIPLOMACY and e.actor == 0
    return e


def propose(e, to, kind, *terms):
    """The acting seat offers ``kind`` to absolute seat ``to``, then the given sub-decisions."""
    p = e.actor
    play(e, (Head.PLAYER, (to - p) % e.num_players - 1), (Head.TREATY, kind), *terms)


def close_window(e):
    """Every seat ends its diplomacy turn (and passes the card windows that follow, cards.py)."""
    while e.phase in (Phase.DIPLOMACY, Phase.CARD_WINDOW):
        play(e, DONE)


def test_player_head_has_five_slots_and_masks_missing_seats():
    e = new_engine(empires=("HRE", "HUN", "BYZ"), diplomacy_offers=1)
    while e.phase != Phase.DIPLOMACY:
        e.play(e.legal_moves()[0])
    env = TabletopEnv(SPEC, num_players=3)
    assert env.codec.head_sizes[Head.PLAYER] == 5
    assert {a for h, a in e.legal_moves() if h == Head.PLAYER} == {0, 1}  # +1 and +2 only
    state = (e.phase, e.actor, e.offer)
    with pytest.raises(IllegalActionError):
        e.play((Head.PLAYER, 2))
    assert (e.phase, e.actor, e.offer) == state


def test_right_of_way_with_payment_is_a_normal_move_and_keeps_control():
    """Rulebook example: right of way (+ a one-off 100 fl), ending after round 3. Entering the partner's
    regions is a normal move (G35): no stop, no takeover, no act of war; the host keeps control (G24)."""
    e = dip_engine()
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    put(e, HRE, "Prag", HI=1)
    money = list(e.money)
    assert e.round == 1
    propose(e, HUN, Treaty.RIGHT_OF_WAY, (Head.DURATION, 2), PAY, coin(100), DONE, DONE)
    assert e.phase == Phase.OFFER_ANSWER and e.actor == HUN
    play(e, ACCEPT)
    assert e.money[HRE] == money[HRE] - 100 and e.money[HUN] == money[HUN] + 100
    assert [(t.kind, t.parties, t.until, t.secret) for t in e.treaties] == [
        (Treaty.RIGHT_OF_WAY, (HRE, HUN), 3, False)]
    close_window(e)
    assert e.phase == Phase.WAR_TURN and e.actor == HRE
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.NODE, node("Pressburg")))
    assert e.phase == Phase.MOVE and e.objs[e.slots[HRE][0]][4] == 5  # not stopped
    play(e, (Head.NODE, node("Buda")), DONE)
    buda = node("Buda")
    assert e.units[HRE][buda * NT + HI] == 1 and e.controller(buda) == HUN
    assert "undeclared_attack" not in e.ep_events[HRE] and not e.at_war[HRE][HUN]
    assert e.hostile_sides(buda) == 1
    # without the treaty the guest army takes the region: the term ends after round 3 and the guest leaves
    supply = e.unit_supply[HRE][HI]
    e.round = 3
    e._diplomacy_end_round()
    assert e.treaties == [] and e.units[HRE][buda * NT + HI] == 0 and e.unit_supply[HRE][HI] == supply + 1
    assert e.controller(buda) == HUN


def test_declaration_of_war_takes_effect_next_round():
    """Spec 5.19 / G50: war from the following round; attacking in the round of the declaration is
    still an undeclared attack (-3 EP)."""
    e = dip_engine()
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    put(e, HRE, "Prag", HI=1)
    propose(e, HUN, Treaty.DECLARE_WAR)
    assert e.war_declared[HRE][HUN] == 1 and not e.at_war[HRE][HUN]
    close_window(e)
    now, later = e.clone(), e.clone()
    play(now, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.NODE, node("Pressburg")))
    assert now.ep_events[HRE]["undeclared_attack"] == -3
    later._diplomacy_end_round()
    assert later.at_war[HRE][HUN] and later.at_war[HUN][HRE]
    play(later, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.NODE, node("Pressburg")))
    assert "undeclared_attack" not in later.ep_events[HRE] and later.controller(node("Pressburg")) == HRE


def test_declaration_breaks_every_treaty_with_the_penalty():
    """Spec 5.19: a declaration breaks all treaties between the two, -2 EP per treaty for the declarer."""
    e = dip_engine(offers=3)
    ep = e.ep[HRE]
    propose(e, HUN, Treaty.TRADE, (Head.DURATION, 5), DONE, DONE, DONE)
    play(e, ACCEPT)
    propose(e, HUN, Treaty.NON_AGGRESSION, (Head.DURATION, 5), DONE, DONE)
    play(e, ACCEPT)
    assert len(e.treaties) == 2 and e.actor == HRE and e.phase == Phase.DIPLOMACY
    propose(e, HUN, Treaty.DECLARE_WAR)
    assert e.treaties == [] and e.ep[HRE] == ep - 4 and e.ep_events[HRE]["treaty_breach"] == -4
    assert e.actor == HUN  # three offers made: seat 0's diplomacy turn is over


def test_attacking_a_non_aggression_partner_is_a_breach():
    """Breach detection (G71): the attack is undeclared (-3) and breaks the pact (-2)."""
    e = dip_engine()
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    put(e, HRE, "Prag", HI=1)
    propose(e, HUN, Treaty.NON_AGGRESSION, (Head.DURATION, 5), DONE, DONE)
    play(e, ACCEPT)
    close_window(e)
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.NODE, node("Pressburg")))
    assert e.ep_events[HRE]["undeclared_attack"] == -3 and e.ep_events[HRE]["treaty_breach"] == -2
    assert e.treaties == [] and e.at_war[HRE][HUN]


def test_ceasefire_masks_attacks_and_peace_ends_the_war():
    e = dip_engine()
    e.at_war[HRE][HUN] = e.at_war[HUN][HRE] = True
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    put(e, HRE, "Prag", HI=1)
    put(e, HUN, "Pressburg", LI=1)
    play(e, (Head.PLAYER, 0))
    kinds = {a for _, a in e.legal_moves()}
    assert kinds == {Treaty.CEASEFIRE, Treaty.PEACE, Treaty.PAYMENT}  # no treaties while at war
    play(e, (Head.TREATY, Treaty.CEASEFIRE), DONE)
    play(e, ACCEPT)
    close_window(e)
    without = e.clone()
    without.ceasefires = set()
    for eng, allowed in ((e, False), (without, True)):
        play(eng, (Head.OBJECT, 0), (Head.LOAD, HI))
        assert ((Head.NODE, node("Pressburg")) in eng.legal_moves()) == allowed
    e._diplomacy_end_round()
    assert not e.ceasefires and e.at_war[HRE][HUN]
    e._conclude(Offer(HRE, HUN, kind=Treaty.PEACE))
    assert not e.at_war[HRE][HUN] and not e.at_war[HUN][HRE]


def test_trade_treaty_with_a_sale_fee():
    """Rulebook example: trade in the partner's regions, 50 fl per sale action to the host."""
    salt = GOODS.index("salt")
    pressburg = node("Pressburg")
    assert game_data().board.good[pressburg] != salt
    e = dip_engine()
    oid = e._new_object(HRE, CARAVAN, 1, pressburg)
    e.goods[oid][salt] = 1
    e.goods_supply[salt] -= 1
    before = e.clone()
    before.phase, before.actor = Phase.TRADE, HRE
    before.trader, before.trade_action = oid, ""
    assert (Head.GOOD, salt) not in before.trade_moves()  # no trade in a foreign region without a treaty
    propose(e, HUN, Treaty.TRADE, (Head.DURATION, 1), (Head.CTRL, Ctrl.SALE_FEE), DONE, DONE)
    play(e, ACCEPT)
    assert e.treaties[0].fee == 50 and e.treaties[0].until == 2
    close_window(e)
    e._start_trade()
    money = list(e.money)
    play(e, (Head.OBJECT, 0), (Head.GOOD, salt), DONE)
    assert e.money[HRE] == money[HRE] + 100 - 50 and e.money[HUN] == money[HUN] + 50


def test_stationing_and_free_trade_allow_purchases_in_the_partner_region():
    e = dip_engine(offers=2)
    propose(e, HUN, Treaty.STATIONING, (Head.DURATION, 5), DONE, DONE)
    play(e, ACCEPT)
    propose(e, HUN, Treaty.FREE_TRADE, (Head.DURATION, 5), DONE, DONE)
    play(e, ACCEPT)
    pressburg = node("Pressburg")
    e.tech[HRE][0] = 1  # transports need Logistics I (blue)
    menu(e, HRE)
    assert ((Head.PURCHASE, Purchase.UNIT), (Head.UNIT, LI), (Head.NODE, pressburg)) in e.tree
    assert ((Head.PURCHASE, Purchase.VEHICLE), (Head.VEHICLE, CARAVAN * 3), (Head.NODE, pressburg)) in e.tree
    play(e, (Head.PURCHASE, Purchase.UNIT), (Head.UNIT, LI), (Head.NODE, pressburg))
    assert e.units[HRE][pressburg * NT + LI] == 1 and e.controller(pressburg) == HUN  # G24
    e.treaties = [t for t in e.treaties if t.kind != Treaty.STATIONING]
    e._refresh_treaty_index()
    assert e.controller(pressburg) == HRE  # the guest treaty is gone (the engine would evict it)


def test_demand_the_addressee_cannot_pay_can_only_be_rejected():
    e = dip_engine()
    e.money[HUN] = 300
    propose(e, HUN, Treaty.PAYMENT, DEMAND, coin(500), DONE)
    assert e.phase == Phase.OFFER_ANSWER and e.legal_moves() == [REJECT]
    money = list(e.money)
    play(e, REJECT)
    assert e.money == money and e.actor == HUN and e.phase == Phase.DIPLOMACY


def test_prisoner_release_sends_prisoners_home():
    e = dip_engine()
    e.prisoners[HRE][HUN][HI] = 2
    e.unit_supply[HUN][HI] -= 2
    propose(e, HUN, Treaty.PRISONER_RELEASE, DEMAND, coin(100), DONE)
    play(e, ACCEPT)
    assert e.prisoners[HRE][HUN][HI] == 0 and e.unit_supply[HUN][HI] == game_data().comp.unit_supply[HI]


def test_secret_treaty_is_hidden_from_non_parties():
    e = dip_engine()
    propose(e, HUN, Treaty.RIGHT_OF_WAY, (Head.DURATION, 5), DONE, (Head.CTRL, Ctrl.SECRET))
    play(e, ACCEPT)
    assert e.treaties[0].secret
    enc = MedioevoEncoder(e.config, 4)
    hidden = e.clone()
    hidden.treaties = []
    hidden._refresh_treaty_index()
    L = enc.layout.slices
    for seat in (BYZ, 3):
        assert np.array_equal(enc.encode(e, seat), enc.encode(hidden, seat))
    for seat in (HRE, HUN):
        assert enc.encode(e, seat)[L["treaties"]].any() and not enc.encode(hidden, seat)[L["treaties"]].any()


def test_offer_is_seen_by_its_two_parties_only():
    e = dip_engine()
    propose(e, HUN, Treaty.NON_AGGRESSION, (Head.DURATION, 0), PAY, coin(50), DONE)
    enc = MedioevoEncoder(e.config, 4)
    L = enc.layout.slices
    assert enc.encode(e, HRE)[L["offer"]].any() and enc.encode(e, HUN)[L["offer"]].any()
    assert not enc.encode(e, BYZ)[L["offer"]].any()


def test_team_placement_follows_the_team_sum():
    e = MedioevoEngine(MedioevoConfig(teams=((0, 1), (2, 3))), 4, np.random.default_rng(0))
    e.ep = [20, 5, 12, 12]
    scores = e.placement_scores()
    assert scores[0] == scores[1] and scores[2] == scores[3] and scores[0] > scores[2]
    assert team_rank_rewards(scores, e.team_of) == pytest.approx([1, 1, -1, -1])
    pairs = MedioevoEngine(MedioevoConfig(teams="pairs"), 6, np.random.default_rng(0))
    assert pairs.team_of == [0, 0, 1, 1, 2, 2]


def test_team_and_diplomacy_config_errors():
    for bad in ("trios", ((0, 1), ()), 3):
        with pytest.raises(ConfigError):
            MedioevoConfig(teams=bad)
    with pytest.raises(ConfigError):
        MedioevoConfig(diplomacy_offers=-1)
    with pytest.raises(ConfigError):
        MedioevoEngine(MedioevoConfig(teams="pairs"), 3, np.random.default_rng(0))
    with pytest.raises(ConfigError):
        MedioevoEngine(MedioevoConfig(teams=((0, 1), (1, 2))), 3, np.random.default_rng(0))


def test_random_play_with_diplomacy_and_teams():
    """Fuzz with two offers per window and the team game: the package invariants hold, and treaties
    (also secret ones), declarations and treaty guests' armies in their hosts' regions actually occur."""
    env = TabletopEnv(SPEC, num_players=4, num_rounds=8, max_turns=100_000, diplomacy_offers=2, teams="pairs")
    seen = {"treaty": 0, "declared": 0, "secret": 0, "guest army": 0}

    def on_step(env):
        check_invariants(env)
        e = env.engine
        seen["treaty"] += bool(e.treaties)
        seen["secret"] += any(t.secret for t in e.treaties)
        seen["declared"] += any(map(any, e.war_declared))
        seen["guest army"] += any(e.army[p][i] and e.controller(i) not in (-1, p)
                                  for i in e.land_nodes for p in range(e.num_players))

    for seed in range(2):
        result = testing.play_random_game(env, seed=seed, on_step=on_step, check_observations=seed == 0)
        assert result.terminated and not result.truncated
        e = env.engine
        assert e.placement_scores()[0] == e.placement_scores()[1]
    assert all(seen.values()), seen


def test_schemer_barbarians_next_to_a_treaty_guest_fight_them_in_turn():
    """Regression (seed found by a long fuzz): card 15 placed barbarians where a stationing guest
    stood beside its host; the barbarians fight both, one after another (spec 5.15, combat.py)."""
    env = TabletopEnv(SPEC, num_players=4, num_rounds=8, max_turns=100_000, diplomacy_offers=2, teams="pairs")
    result = testing.play_random_game(env, seed=5065, on_step=check_invariants, check_observations=False)
    assert result.terminated and not result.truncated


def test_a_state_treaty_ends_early_when_both_agree():
    """Spec 5.19: a state treaty "ends automatically at the end of its term, or at any time if all
    parties agree". TREATY(k) of a kind in force is the offer to end it (payment steps only); on
    acceptance it ends without a breach penalty and the guest's army leaves the host's region."""
    e = dip_engine(offers=2)
    buda = node("Buda")
    propose(e, HUN, Treaty.RIGHT_OF_WAY, (Head.DURATION, 4), DONE, DONE)
    play(e, ACCEPT)
    put(e, HRE, "Buda", HI=1)  # a guest army in the host's region
    assert e.controller(buda) == HUN and e.phase == Phase.DIPLOMACY and e.actor == HRE
    ep = list(e.ep)
    propose(e, HUN, Treaty.RIGHT_OF_WAY)
    assert e.offer.ending and set(e.legal_moves()) == {DONE, PAY, DEMAND}  # no term, fee or secrecy
    play(e, PAY, coin(50), DONE)
    assert e.phase == Phase.OFFER_ANSWER and e.actor == HUN
    play(e, REJECT)
    assert len(e.treaties) == 1  # a refusal keeps it
    close_window(e)
    e.dip_done = ()
    e.stage = Stage.PURCHASES
    e._diplomacy_window(DiplomacyWindow.PURCHASES)
    assert e.phase == Phase.DIPLOMACY and e.actor == HRE
    money = list(e.money)
    propose(e, HUN, Treaty.RIGHT_OF_WAY, PAY, coin(50), DONE)
    play(e, ACCEPT)
    assert e.treaties == [] and e.ep == ep and "treaty_breach" not in e.ep_events[HRE]
    assert e.money[HRE] == money[HRE] - 50 and e.money[HUN] == money[HUN] + 50
    assert e.units[HRE][buda * NT + HI] == 0 and e.controller(buda) == HUN  # the guest went home


# ---------------------------------------------------------------- DW-BATTLE: ceasefire in a battle ----
def battle_in_pressburg(offers=1, at_war=True):
    """HRE attacks HUN's 3 LI in Pressburg with 1 HI; round 1 is a tie at 3 (D31's dice), both sides stay."""
    e = war_engine(order=(0, 1, 2, 3))
    e.config = dataclasses.replace(e.config, diplomacy_offers=offers)
    e.at_war[HRE][HUN] = e.at_war[HUN][HRE] = at_war
    put(e, HRE, "Pressburg", HI=1)
    put(e, HUN, "Pressburg", LI=3)
    e.unit_supply[HRE][HI] -= 1
    e.unit_supply[HUN][LI] -= 3
    fight(e, "Pressburg", HRE, HUN, [1, 2, 3, 1, 2, 4])
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))
    return e


def test_ceasefire_between_battle_rounds_ends_the_battle():
    """Spec 10.5: "DW-BATTLE between battle rounds (ceasefire and capitulation only)"; 5.19 / rulebook C:
    "Waffenstillstand (gegenseitige Übereinkunft): Beendet alle Kämpfe zwischen den Partnern bis zum Ende
    der Spielrunde." Both parties in turn order may offer it (with a payment); on acceptance the
    attacker's army leaves as in a retreat (ASSUMPTION) and attacks stay masked for the round."""
    e = battle_in_pressburg()
    pressburg, prag = node("Pressburg"), node("Prag")
    assert e.phase == Phase.DIPLOMACY and e.actor == HRE and e.bt is not None
    assert e.legal_moves() == [DONE, (Head.PLAYER, 0)]  # only the other party of the battle
    play(e, (Head.PLAYER, 0))
    assert e.legal_moves() == [(Head.TREATY, Treaty.CEASEFIRE)]  # ceasefire only
    money = list(e.money)
    play(e, (Head.TREATY, Treaty.CEASEFIRE), PAY, coin(100), DONE)
    assert e.phase == Phase.OFFER_ANSWER and e.actor == HUN
    play(e, ACCEPT)
    assert e.money[HRE] == money[HRE] - 100 and e.money[HUN] == money[HUN] + 100
    assert e.in_ceasefire(HRE, HUN) and not e._armed_entry_ok(HRE, pressburg)  # masked for the round
    assert e.phase == Phase.RETREAT_TO and e.actor == HRE and e.legal_moves() == [(Head.NODE, prag)]
    play(e, (Head.NODE, prag))
    assert e.bt is None and e.army[HRE][pressburg] == 0 and e.army[HRE][prag] == 1
    assert e.controller(pressburg) == HUN and e.army[HUN][pressburg] == 2


def test_rejected_ceasefire_lets_the_battle_go_on():
    """A rejected offer: the other party's diplomacy turn, then the attacker's usual choice after the
    round (another round, capitulation); the window opens once per pair of rounds."""
    e = battle_in_pressburg()
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.CEASEFIRE), DONE, REJECT)
    assert e.phase == Phase.DIPLOMACY and e.actor == HUN
    play(e, DONE)
    assert e.phase == Phase.AFTER_ROUND and e.actor == HRE and not e.ceasefires
    assert (Head.CTRL, Ctrl.CAPITULATE) in e.legal_moves()


def test_no_battle_window_without_offers_war_or_a_way_out():
    """The window opens only when a ceasefire can be agreed: diplomacy on, the two at war, a retreat
    region for the attacker; never against barbarians."""
    for kwargs in ({"offers": 0}, {"at_war": False}):
        assert battle_in_pressburg(**kwargs).phase == Phase.AFTER_ROUND
    e = war_engine(order=(0, 1, 2, 3))
    put(e, HRE, "Puszta", HI=1)  # no region of HRE next to Puszta: nowhere to withdraw to
    put(e, HUN, "Puszta", LI=3)
    e.at_war[HRE][HUN] = e.at_war[HUN][HRE] = True
    assert not any(e.controller(y) == HRE for y in e.board.land_adj[node("Puszta")])
    fight(e, "Puszta", HRE, HUN, [1, 2, 3, 1, 2, 4])
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.phase == Phase.AFTER_ROUND
    e = war_engine(order=(0, 1, 2, 3))
    e.unit_supply[HRE][HI] -= 1
    put(e, HRE, "Pressburg", HI=1)
    e._add_barb(node("Pressburg"), 0, 3)
    e.barb_supply[0] -= 3
    fight(e, "Pressburg", HRE, -1, [1, 2, 3] * 4)
    assert e.bt is not None and not e._battle_ceasefire_possible()  # no treaties with barbarians


# ----------------------------------------------------------- DW-BATTLE: ceasefire in a naval battle ----
TYR = "Tyrrhenisches Meer (Tyrrhenian Sea)"
TIE_AT_SEA = [1, 2, 3, 1, 2, 4]  # 3 against 4 - 1 (HUN's turn-order malus): a tie, each loses 1 LI


def naval_battle_in_the_tyrrhenian_sea(dice, hre=2, hun=2, byz=0, hun_spare=False):
    """HRE's level I galley sails from Genua with ``hre`` LI into the Tyrrhenian Sea, where HUN's level I
    galley has ``hun`` LI aboard (a second one 1 LI with ``hun_spare``; BYZ's ``byz``, if any); everyone at
    war; one battle round played."""
    e = war_engine(order=(0, 1, 2, 3))
    galleys = {HUN: crew(e, HUN, TYR, LI=hun)}
    if hun_spare:
        galleys["spare"] = crew(e, HUN, TYR, LI=1)
    if byz:
        galleys[BYZ] = crew(e, BYZ, TYR, LI=byz)
    galleys[HRE] = e._new_object(HRE, GALLEY, 1, node("Genua"))
    put(e, HRE, "Genua", LI=hre)
    e.unit_supply[HRE][LI] -= hre
    for p in range(4):
        e.at_war[p] = [q != p for q in range(4)]
    e._start_war()
    e.config = dataclasses.replace(e.config, diplomacy_offers=1)  # after the war phase's own window
    e.rng = ScriptedRng(dice)
    play(e, (Head.OBJECT, 0), *[(Head.LOAD, LI)] * hre, (Head.NODE, node(TYR)))
    if byz:
        play(e, (Head.PLAYER, 0))  # HUN first
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    return e, galleys


def test_ceasefire_in_a_naval_battle_ends_it_and_both_fleets_stay():
    """DW-BATTLE at sea. Rulebook C: "Waffenstillstand (gegenseitige Übereinkunft): Beendet alle Kämpfe
    zwischen den Partnern bis zum Ende der Spielrunde"; SEEKRIEG has no retreat. ASSUMPTION: the battle
    ends, the crews go back aboard, and both fleets stay in the sea zone as ceasefire partners' galleys
    may (they are not hostile to each other, spec 5.13); nobody takes ships, the mover's movement ends."""
    e, galleys = naval_battle_in_the_tyrrhenian_sea(TIE_AT_SEA)
    tyr = node(TYR)
    assert e.bt.naval and e.phase == Phase.DIPLOMACY and e.actor == HRE
    assert e.legal_moves() == [DONE, (Head.PLAYER, 0)]
    play(e, (Head.PLAYER, 0))
    assert e.legal_moves() == [(Head.TREATY, Treaty.CEASEFIRE)]
    money = list(e.money)
    play(e, (Head.TREATY, Treaty.CEASEFIRE), DEMAND, coin(50), DONE, ACCEPT)
    assert e.bt is None and e.in_ceasefire(HRE, HUN)
    assert e.money[HRE] == money[HRE] + 50 and e.money[HUN] == money[HUN] - 50
    assert e.cargo[galleys[HRE]][LI] == 1 and e.cargo[galleys[HUN]][LI] == 1  # survivors back aboard
    assert all(e.objs[galleys[p]][0] == p and e.objs[galleys[p]][3] == tyr for p in (HRE, HUN))
    assert not any(e.army[p][tyr] for p in range(4))
    assert e.phase == Phase.WAR_TURN and e.actor == HUN and not e._hostile_galleys(HRE, tyr)  # the next war turn


def test_a_galley_that_lost_its_crew_rolls_to_sink_when_a_ceasefire_ends_the_battle():
    """SEEKRIEG: "Verliert deine Galeere alle Einheiten, die sie an Bord hat, wirfst du 1W8: Bei einer 1-3
    sinkt die Galeere", also when a ceasefire ends the battle: HUN's crews of 2 + 1 LI lose 1 LI, the 2
    survivors board the first galley, the second is left empty and rolls (1: it sinks, 5: it stays). The
    dice tie at 3: HUN's 3 - 1 (turn-order malus) + 1 (galley levels 2 against 1)."""
    for roll, sinks in ((1, True), (5, False)):
        e, galleys = naval_battle_in_the_tyrrhenian_sea([1, 2, 3, 1, 2, 3, roll], hun_spare=True)
        spare = galleys["spare"]
        assert spare in e.bt.galleys[1] and not sum(e.cargo[spare])
        play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.CEASEFIRE), DONE, ACCEPT)
        assert e.bt is None and (spare not in e.objs) == sinks and e.cargo[galleys[HUN]][LI] == 2


def test_a_naval_ceasefire_lets_the_multi_party_sequence_go_on():
    """Spec 5.15 at sea: after the ceasefire with HUN (its galley stays, not taken), HRE's crews still sail
    the zone beside BYZ's hostile galley: the battle against BYZ follows at once."""
    e, galleys = naval_battle_in_the_tyrrhenian_sea(TIE_AT_SEA + [1, 1, 8, 1, 1, 1, 5], hre=3, hun=2, byz=1)
    assert e.bt.owners == [HRE, HUN] and e.multi_war.left == [BYZ]
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.CEASEFIRE), DONE, ACCEPT)
    assert e.bt is not None and e.bt.owners == [HRE, BYZ] and e.multi_war.fought == [HUN, BYZ]
    assert e.objs[galleys[HUN]][0] == HUN and e.cargo[galleys[HUN]][LI] == 1
    play(e, (Head.DICE, 0), (Head.DICE, 0))  # HRE's 8 beats BYZ's 1: BYZ's crew is destroyed, its galley afloat
    assert e.bt is None and e.phase == Phase.CONQUEST and e.conquest.loser == BYZ
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert e.multi_war is None and galleys[BYZ] not in e.objs and e.objs[galleys[HUN]][0] == HUN


def force_battles(e):
    """Every seat at war with every other, every technology, 3000 fl more, 1 HI + 3 AR by each war
    wagon, and up to 8 LI in each other seat's region beside it (all units from the supplies)."""
    n = e.num_players
    for p in range(n):
        e.tech[p] = [4] * 6
        e._bank(p, 3000)
        e.at_war[p] = [q != p for q in range(n)]
    wagons = [o for o in e.objs.values() if o[1] == WAR_WAGON and o[3] >= 0]
    for o in wagons:
        for t, want in ((HI, 1), (AR, 3)):
            k = min(want, e.unit_supply[o[0]][t])
            e.unit_supply[o[0]][t] -= k
            e._add_units(o[0], o[3], t, k)
    ctrl = e.control_map()
    for o in wagons:
        for b in e.board.land_adj[o[3]]:
            q = ctrl[b]
            k = min(8 - e.army[q][b], e.unit_supply[q][LI]) if q >= 0 and q != o[0] and not e.barb_total[b] else 0
            if k > 0:
                e.unit_supply[q][LI] -= k
                e._add_units(q, b, LI, k)


def preferred_moves(e, legal, names, pick):
    """The random player's bias towards movements into battles, activations and agreements in battles; it
    passes the W-ANY card windows (every seat has Missionare: a neighbour's Bischof 1 would end most battles
    between players before their ceasefire window)."""
    def starting(*prefixes):
        return [i for i in legal if names[i].startswith(prefixes)]
    if e.phase == Phase.CARD_WINDOW and e.cw.window in JEDERZEIT_WINDOWS:
        return starting("CTRL(DONE)") or legal
    if e.phase == Phase.WAR_TURN and starting("OBJECT(") and pick.random() < 0.6:
        return starting("OBJECT(")
    if e.phase == Phase.MOVE and starting("LOAD(", "NODE(") and pick.random() < 0.8:
        return starting("LOAD(") or starting("NODE(")
    if starting("TECH(") and e.phase != Phase.PURCHASE and pick.random() < 0.7:
        return starting("TECH(")
    if e.phase in (Phase.TECH_USE, Phase.TP_PAY) and len(legal) > 1 and pick.random() < 0.7:
        return [i for i in legal if names[i] != "CTRL(DONE)"]
    if e.bt is not None and e.phase in (Phase.DIPLOMACY, Phase.OFFER, Phase.OFFER_ANSWER):
        return [i for i in legal if names[i] not in ("CTRL(DONE)", "CTRL(REJECT)")] or legal
    return legal


def test_fuzz_ceasefire_in_battles_and_kartografie_defenders():
    """Random play forced towards battles between players: every seat at war with every other, owning
    every technology with money to spare, 1 HI + 3 AR by each war wagon and 8 LI in the neighbouring
    regions of other seats (large defences survive a battle round); the random player prefers
    carriers, loading and steps, technology activations, offers and acceptance inside battles. Runs
    until a ceasefire stopped a battle (DW-BATTLE) and a W-INVADE Kartografie window opened and brought
    a defender in; the package invariants after every step, the offer hidden from the other seats."""
    seen = {"battle window": 0, "ceasefire retreat": 0, "invasion window": 0, "defender came": 0}
    n = 4
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=1)
    offer = env.encoder.layout.slices["offer"]
    for seed in range(24, 36):  # seed 24: the first of these games with a ceasefire in a battle
        for agent, obs, pick in forced_decisions(env, seed, force_battles):
            e = env.engine
            in_battle = e.bt is not None
            seen["battle window"] += in_battle and e.phase == Phase.DIPLOMACY
            seen["ceasefire retreat"] += in_battle and e.phase == Phase.RETREAT_TO and e.in_ceasefire(*e.bt.owners)
            invading = e.phase == Phase.TECH_USE and e.tech_use.window == TechWindow.INVADE
            seen["invasion window"] += invading and not e.prefix
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            names = {i: env.action_name(i) for i in legal}
            if in_battle and e.offer is not None:
                for seat in range(n):
                    if seat not in (e.offer.proposer, e.offer.addressee):
                        assert not env.observe(env.possible_agents[seat])["observation"][offer].any()
            legal = preferred_moves(e, legal, names, pick)
            if pick.random() < 0.05:
                testing.observation_in_space(env, agent, obs)
            action = pick.choice(legal)
            came = invading and names[action].startswith("UNIT(")
            env.step(action)
            seen["defender came"] += came and e.bt is not None
            check_invariants(env)
            use = e.tech_use
            invade_open = use is not None and use.window == TechWindow.INVADE
            if e.current_player >= 0 and (e.dip_window == DiplomacyWindow.BATTLE or invade_open):
                assert_matches_fresh_encoder(env, {e.current_player, 0})
            if e.dip_window == DiplomacyWindow.BATTLE and e.current_player >= 0:  # the fast partner list keeps the window's limit
                p = e.current_player
                assert e._offer_partners(p) == [q for q in range(n) if q != p and e._offer_kinds(p, q)]
        assert env.engine.is_over
        if all(seen.values()):
            break
    assert all(seen.values()), seen


def force_crowded_seas_with_full_crews(e):
    """``force_crowded_seas``, then every crewed galley filled up with LI from its owner's supply, so that
    naval battles last more than one round."""
    force_crowded_seas(e)
    for oid, cargo in e.cargo.items():
        o = e.objs[oid]
        if o[1] == GALLEY and sum(cargo):
            k = min(e.unit_capacity(oid) - sum(cargo), e.unit_supply[o[0]][LI])
            e.unit_supply[o[0]][LI] -= k
            cargo[LI] += k


def towards_naval_battles(e, legal, codec, pick):
    """The random player's bias: galleys, loading, and steps of a crewed galley into sea zones with hostile
    galleys (of several parties first)."""
    def starting(*heads):
        return [i for i in legal if codec.decode(e, i)[0] in heads]
    if e.phase == Phase.WAR_TURN and starting(Head.OBJECT) and pick.random() < 0.9:
        return starting(Head.OBJECT)
    if e.phase == Phase.MOVE and pick.random() < 0.9:
        opponents = {i: len(e._sea_opponents(e.actor, codec.decode(e, i)[1])) for i in starting(Head.NODE)
                     if e.board.is_sea[codec.decode(e, i)[1]]}
        attacks = [i for i, k in opponents.items() if k >= 2] or [i for i, k in opponents.items() if k]
        return (attacks if sum(e.carrier_cargo()) else []) or starting(Head.LOAD) or attacks or legal
    return legal


def test_fuzz_ceasefire_in_naval_battles():
    """Random play forced towards naval battles between players (``force_crowded_seas``: galleys of two or
    three seats, all at war, in every sea zone; steps into crowded zones preferred) with diplomacy on and
    offers and acceptance preferred inside battles. Runs until ceasefires ended naval battles, once with a
    multi-party sequence going on to its next battle; after each, both fleets are still in the zone, and
    the package invariants hold after every step (no unit left on a sea zone outside a battle), the offer
    hidden from the other seats, the cached encoder equal to a fresh one around the ceasefire."""
    seen = {"naval battle window": 0, "naval ceasefire": 0, "sequence went on": 0}
    n = 4
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=1)
    offer = env.encoder.layout.slices["offer"]
    board = game_data().board
    seas = [y for y in range(board.num_nodes) if board.is_sea[y]]
    for seed in range(30):
        for agent, obs, pick in forced_decisions(env, seed, force_crowded_seas_with_full_crews):
            e = env.engine
            naval = e.bt is not None and e.bt.naval
            seen["naval battle window"] += naval and e.phase == Phase.DIPLOMACY
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            names = {i: env.action_name(i) for i in legal}
            if naval and e.offer is not None:
                for seat in range(n):
                    if seat not in (e.offer.proposer, e.offer.addressee):
                        assert not env.observe(env.possible_agents[seat])["observation"][offer].any()
            legal = preferred_moves(e, towards_naval_battles(e, legal, env.codec, pick), names, pick)
            action = pick.choice(legal)
            agreed = naval and e.phase == Phase.OFFER_ANSWER and names[action] == "CTRL(ACCEPT)"
            fleets = (e.bt.node, list(e.bt.owners)) if agreed else None
            env.step(action)
            check_invariants(env)
            if e.bt is None:
                assert not any(e.army[p][y] for p in range(n) for y in seas), "units left on a sea zone"
            if agreed and e.in_ceasefire(*fleets[1]):  # the battle is over; both fleets stay
                y, owners = fleets
                assert e.bt is None or e.bt.owners != owners and e.bt.node == y  # the sequence's next
                assert all(e._galleys_at(p, y) for p in owners)
                seen["naval ceasefire"] += 1
                seen["sequence went on"] += e.multi_war is not None  # the next battle, choice or ships taken
                assert_matches_fresh_encoder(env, {e.current_player, 0} - {-1})
        assert env.engine.is_over
        if all(seen.values()):
            break
    print(f"naval ceasefire fuzz: {seed + 1} games, {seen}")
    assert all(seen.values()), seen


# ------------------------------------------------------------------ treaties of several parties ----
def test_a_treaty_of_three_parties_binds_every_pair_and_all_must_accept():
    """Rulebook C: "Staatsvertrag: Ein formaler Vertrag zwischen 2 oder mehr Spielern"; "Nichtangriffspakt: 2
    oder mehr Spieler dürfen sich gegenseitig nicht angreifen". HRE drafts a non-aggression pact with HUN,
    adds BYZ (``PLAYER`` before the term) and pays each addressee 50 fl; HUN, then BYZ accept; every pair of
    the three is bound, GH sees the public treaty in every pair."""
    e = dip_engine()
    money = list(e.money)
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.NON_AGGRESSION))
    assert set(e.legal_moves()) == {(Head.DURATION, d) for d in range(6)} | {(Head.PLAYER, 1), (Head.PLAYER, 2)}
    play(e, (Head.PLAYER, 1))  # BYZ joins; GH could still join
    assert set(e.legal_moves()) == {(Head.DURATION, d) for d in range(6)} | {(Head.PLAYER, 2)}
    play(e, (Head.DURATION, 2), PAY, coin(50), DONE, DONE)
    assert e.phase == Phase.OFFER_ANSWER and e.actor == HUN
    play(e, ACCEPT)
    assert e.phase == Phase.OFFER_ANSWER and e.actor == BYZ and e.treaties == [] and e.money == money
    play(e, ACCEPT)
    assert [(t.kind, t.parties, t.until) for t in e.treaties] == [(Treaty.NON_AGGRESSION, (HRE, HUN, BYZ), 3)]
    assert e.money[HRE] == money[HRE] - 100 and e.money[HUN] == money[HUN] + 50 and e.money[BYZ] == money[BYZ] + 50
    assert all(e.has_treaty(a, b, Treaty.NON_AGGRESSION) for a in (HRE, HUN, BYZ) for b in (HRE, HUN, BYZ) if a != b)
    assert not any(e.has_treaty(3, b, Treaty.NON_AGGRESSION) for b in range(3))
    enc = MedioevoEncoder(e.config, 4)
    tv = enc.encode(e, 3)[enc.layout.slices["treaties"]].reshape(4, 4, 6)
    assert [(i, j) for i in range(4) for j in range(4) if tv[i, j, 4]] == [  # GH is relative seat 0
        (i, j) for i in (1, 2, 3) for j in (1, 2, 3) if i != j]


def test_one_rejection_ends_an_offer_of_several_parties():
    """Every party must agree: BYZ, the second addressee, rejects after HUN accepted: no treaty, no payment."""
    e = dip_engine()
    money = list(e.money)
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.TRADE), (Head.PLAYER, 1), (Head.DURATION, 5), DONE,
         DEMAND, coin(100), DONE, DONE, ACCEPT)
    assert e.actor == BYZ
    play(e, REJECT)
    assert e.treaties == [] and e.money == money and e.offer is None


def test_a_demand_an_addressee_cannot_pay_can_only_be_rejected_by_it():
    e = dip_engine()
    e.money[BYZ] = 20
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.FREE_TRADE), (Head.PLAYER, 1), (Head.DURATION, 0),
         DEMAND, coin(50), DONE, DONE)
    assert e.legal_moves() == [ACCEPT, REJECT]  # HUN can pay
    play(e, ACCEPT)
    assert e.actor == BYZ and e.legal_moves() == [REJECT]


def test_only_seats_at_peace_with_every_party_and_without_that_treaty_may_join():
    """A seat may join when it is at war with none of the parties (nor a declaration pending) and has no
    treaty of that kind with any of them (one of each kind per pair)."""
    e = dip_engine(offers=2)
    e.at_war[BYZ][HUN] = e.at_war[HUN][BYZ] = True
    propose(e, 3, Treaty.RIGHT_OF_WAY, (Head.DURATION, 5), DONE, DONE)  # HRE and GH
    play(e, ACCEPT)
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.RIGHT_OF_WAY))  # to HUN: BYZ at war with HUN, GH has one with HRE
    assert not any(h == Head.PLAYER for h, _ in e.legal_moves())
    e2 = dip_engine()
    play(e2, (Head.PLAYER, 0), (Head.TREATY, Treaty.STATIONING))
    state = (e2.phase, e2.actor, dataclasses.replace(e2.offer, also=list(e2.offer.also)))
    e2.war_declared[3][HRE] = 1
    assert (Head.PLAYER, 2) not in e2.legal_moves()
    with pytest.raises(IllegalActionError):
        e2.play((Head.PLAYER, 2))
    assert (e2.phase, e2.actor, e2.offer) == state


def test_a_breach_ends_a_treaty_of_several_parties_for_all_of_them():
    """VERTRAGSBRUCH: "Der Vertrag endet dann sofort, und der vertragsbrüchige Spieler verliert 2 EP": HUN
    declares war on BYZ; the pact of the three ends for HRE too; HUN loses 2 EP once."""
    e = dip_engine()
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.NON_AGGRESSION), (Head.PLAYER, 1), (Head.DURATION, 5),
         DONE, DONE, ACCEPT, ACCEPT)
    assert len(e.treaties) == 1 and e.phase == Phase.DIPLOMACY and e.actor == HUN
    ep = e.ep[HUN]
    propose(e, BYZ, Treaty.DECLARE_WAR)
    assert e.treaties == [] and not e.has_treaty(HRE, HUN, Treaty.NON_AGGRESSION)
    assert e.ep[HUN] == ep - 2 and e.ep_events[HUN]["treaty_breach"] == -2


def test_a_treaty_of_several_parties_ends_early_only_when_all_agree():
    """VERTRÄGE BEENDEN: "jederzeit, falls alle beteiligten Spieler dem zustimmen": HRE's offer to end the
    right of way of the three goes to HUN and BYZ; the stationed guest leaves once both accepted."""
    e = dip_engine(offers=3)
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.RIGHT_OF_WAY), (Head.PLAYER, 1), (Head.DURATION, 5),
         DONE, DONE, ACCEPT, ACCEPT)
    buda = node("Buda")
    put(e, BYZ, "Buda", HI=1)  # BYZ's guest army in HUN's region
    e.unit_supply[BYZ][HI] -= 1
    assert e.controller(buda) == HUN and e.actor == HRE
    propose(e, BYZ, Treaty.RIGHT_OF_WAY)
    assert e.offer.ending and e.offer.also == [HUN]
    play(e, DONE, ACCEPT)
    assert e.actor == HUN and len(e.treaties) == 1
    play(e, REJECT)
    assert len(e.treaties) == 1 and e.army[BYZ][buda] == 1
    propose(e, HUN, Treaty.RIGHT_OF_WAY, DONE, ACCEPT, ACCEPT)
    assert e.treaties == [] and e.army[BYZ][buda] == 0 and "treaty_breach" not in e.ep_events[HRE]


def test_the_offer_and_a_secret_treaty_of_several_parties_are_seen_by_its_parties_only():
    e = dip_engine()
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.TRADE), (Head.PLAYER, 1), (Head.DURATION, 1), DONE, DONE)
    enc = MedioevoEncoder(e.config, 4)
    L = enc.layout.slices
    for seat in (HRE, HUN, BYZ):
        ov = enc.encode(e, seat)[L["offer"]]
        assert ov[4:8].sum() == 2  # the two addressees
    assert not enc.encode(e, 3)[L["offer"]].any()
    play(e, (Head.CTRL, Ctrl.SECRET), ACCEPT, ACCEPT)
    assert e.treaties[0].secret and e.treaties[0].parties == (HRE, HUN, BYZ)
    hidden = e.clone()
    hidden.treaties = []
    hidden._refresh_treaty_index()
    assert np.array_equal(enc.encode(e, 3), enc.encode(hidden, 3))
    for seat in (HRE, HUN, BYZ):
        assert enc.encode(e, seat)[L["treaties"]].sum() > enc.encode(hidden, seat)[L["treaties"]].sum()


def towards_treaties_of_several_parties(e, legal, names, pick):
    """The random player's bias: make offers, of state treaties, add parties, accept."""
    if e.phase == Phase.DIPLOMACY and len(legal) > 1 and pick.random() < 0.9:
        return [i for i in legal if names[i] != "CTRL(DONE)"]
    if e.phase == Phase.OFFER and e.offer.step == OfferStep.KIND and pick.random() < 0.8:
        kinds = {f"TREATY({TREATY_NAMES[k]})" for k in STATE_TREATIES}
        return [i for i in legal if names[i] in kinds] or legal
    if e.phase == Phase.OFFER and e.offer.step == OfferStep.TERM and pick.random() < 0.7:
        return [i for i in legal if names[i].startswith("PLAYER(")] or legal
    if e.phase == Phase.OFFER_ANSWER and pick.random() < 0.85:
        return [i for i in legal if names[i] == "CTRL(ACCEPT)"] or legal
    return legal


def test_fuzz_treaties_of_several_parties():
    """Random play with 6 players and two offers per window, biased towards offers of state treaties with
    further parties and acceptance: treaties of three and more parties are concluded, end by a breach, by
    agreement and at the end of their term, with guests of them in their hosts' regions; the package
    invariants after every step, each pair of parties bound while the treaty is in force, adding a party a
    minor move (test_engine_caches.py's contract), the offer seen by its parties only, and the cached encoder
    equal to a fresh one after each treaty change."""
    seen = {"party added": 0, "three parties": 0, "four or more": 0, "breach": 0, "ended by agreement": 0,
            "term over": 0, "guest army": 0}
    n = 6
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=2)
    offer = env.encoder.layout.slices["offer"]
    for seed in range(6):
        for agent, obs, pick in forced_decisions(env, seed, lambda e: None):
            e = env.engine
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            names = {i: env.action_name(i) for i in legal}
            if e.offer is not None and e.offer.also:
                parties = {e.offer.proposer, e.offer.addressee, *e.offer.also}
                for seat in set(range(n)) - parties:
                    assert not env.observe(env.possible_agents[seat])["observation"][offer].any()
            action = pick.choice(towards_treaties_of_several_parties(e, legal, names, pick))
            adding = e.phase == Phase.OFFER and names[action].startswith("PLAYER(")  # a further party: minor
            state, stamps = (_public_state(e), e.stamps[:]) if adding else (None, None)
            before = [t for t in e.treaties if len(t.parties) > 2]
            ending = e.offer is not None and e.offer.ending and e.offer.also and e.phase == Phase.OFFER_ANSWER
            breaches = sum(e.ep_events[p].get("treaty_breach", 0) for p in range(n))
            rnd = e.round
            env.step(action)
            check_invariants(env)
            if adding:  # only the offer being drafted changed: no change domain reported (changes.py)
                changed = {k for k, v in _public_state(e).items() if state.get(k) != v}
                assert e.stamps == stamps and changed <= MINOR_MAY_CHANGE, changed
                seen["party added"] += 1
            after = [t for t in e.treaties if len(t.parties) > 2]
            for t in after:
                assert all(e.has_treaty(a, b, t.kind) for a in t.parties for b in t.parties if a != b)
            gone = [t for t in before if t not in after]
            if gone:
                if sum(e.ep_events[p].get("treaty_breach", 0) for p in range(n)) < breaches:
                    seen["breach"] += 1
                elif ending and names[action] == "CTRL(ACCEPT)":
                    seen["ended by agreement"] += 1
                elif e.round != rnd:
                    seen["term over"] += 1
            new = [t for t in after if t not in before]
            seen["three parties"] += any(len(t.parties) == 3 for t in new)
            seen["four or more"] += any(len(t.parties) >= 4 for t in new)
            seen["guest army"] += any(t.kind in GUEST_TREATIES and any(
                e.army[g][i] and e.controller(i) == h for g in t.parties for h in t.parties if g != h
                for i in e.land_nodes) for t in after)
            if (gone or new) and e.current_player >= 0:
                assert_matches_fresh_encoder(env, {e.current_player, 0})
        assert env.engine.is_over
        if all(seen.values()):
            break
    print(f"multi-party treaty fuzz: {seed + 1} games, {seen}")
    assert all(seen.values()), seen


def test_a_treaty_of_several_parties_goes_on_without_an_eliminated_party():
    """Spec 5.6: an eliminated seat leaves the game; its treaties end at the end of the round, but a treaty
    of several parties goes on between the two still in the game: HRE's guest army stays in HUN's Buda."""
    e = dip_engine(offers=2)
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.RIGHT_OF_WAY), (Head.PLAYER, 1), (Head.DURATION, 5),
         DONE, DONE, ACCEPT, ACCEPT)
    propose(e, 3, Treaty.TRADE, (Head.DURATION, 5), DONE, DONE, DONE)
    play(e, ACCEPT)
    buda = put(e, HRE, "Buda", HI=1)
    e.unit_supply[HRE][HI] -= 1
    e.eliminated[BYZ] = True
    e._diplomacy_end_round()
    assert [(t.kind, t.parties) for t in e.treaties] == [
        (Treaty.RIGHT_OF_WAY, (HRE, HUN)), (Treaty.TRADE, (HRE, 3))]
    assert e.army[HRE][buda] == 1 and e.controller(buda) == HUN and not e.has_treaty(HRE, BYZ, Treaty.RIGHT_OF_WAY)
    e.eliminated[HUN] = True
    e._diplomacy_end_round()
    assert [t.kind for t in e.treaties] == [Treaty.TRADE]
