"""The rule state kept as records (``combat.Battle``, ``cards.CardWindow``, ``technologies.TechUse``,
``conquest.Conquest``, ``trade.Route``, ``diplomacy.Offer``, ``diplomacy.StateTreaty``, ``variants.AuctionTie``,
``events.EventEffect``, ...): a closing card window goes
on with the rule its ``Resume`` names, a battle task with the rule its ``BattleStep`` names, a window opened inside
another leaves that one open underneath, a W-INVADE window's context names what the next one inherits, the records
follow their rules' steps, and they copy, compare and pickle by value (the change domains and ``clone()`` rely on
it)."""
import copy
import inspect
import pickle
from dataclasses import replace

from envs.medioevo_universale.cards import CONTINUE, CardWindow, Resume
from envs.medioevo_universale.combat import ROUND_TASKS, Battle, BattleStep
from envs.medioevo_universale.conquest import Conquest
from envs.medioevo_universale.constants import CARAVAN, HI, LI, MILITARY, Ctrl, Head, Phase, Stage, Stake
from envs.medioevo_universale.diplomacy import SALE_FEE_FL, UNTIL_END, Offer, OfferStep, StateTreaty, Treaty
from envs.medioevo_universale.engine import MedioevoEngine
from envs.medioevo_universale.events import EventEffect
from envs.medioevo_universale.technologies import KARTOGRAFIE, TechContext, TechUse, TechWindow
from envs.medioevo_universale.trade import Route, RouteDraft
from envs.medioevo_universale.variants import AuctionTie

from .test_cards import PLAY, card, choose_taxes, engine_at_purchase, engine_at_tax, give, trade_turn
from .test_diplomacy import dip_engine, propose
from .test_multi_war import BYZ, HRE, HUN, ally_engine
from .test_rules import DONE, buy, node
from .test_variants import auction_engine, bid
from .test_war import ScriptedRng, fight, play, put, tower_war, war_engine


def test_every_resume_goes_on_with_a_rule_of_the_engine():
    """``CONTINUE`` holds one engine method per ``Resume`` constant, SAVED aside (it restores the saved
    decision instead)."""
    constants = {v for k, v in vars(Resume).items() if k.isupper()}
    assert len(constants) == sum(k.isupper() for k in vars(Resume))  # no two constants share a value
    assert set(CONTINUE) == constants - {Resume.SAVED}
    for resume, go_on in CONTINUE.items():
        called = []

        class Probe:
            def __getattr__(self, name):
                called.append(name)
                return lambda: None

        go_on(Probe())
        assert len(called) == 1 and callable(getattr(MedioevoEngine, called[0], None)), (resume, called)


def test_every_battle_step_is_run_by_one_rule_of_the_engine():
    """``_STEPS`` (combat.py) holds one engine method per ``BattleStep`` constant, found on the engine under its own
    name; a battle's tasks are (BattleStep, arguments...) with the arguments that method takes."""
    constants = {v for k, v in vars(BattleStep).items() if k.isupper()}
    assert len(constants) == sum(k.isupper() for k in vars(BattleStep))  # no two constants share a value
    steps = MedioevoEngine._STEPS
    assert set(steps) == constants
    assert len(set(steps.values())) == len(steps)  # one method per step
    for kind, method in steps.items():
        assert getattr(MedioevoEngine, method.__name__, None) is method, kind

    def well_formed(task):
        arguments = len(inspect.signature(steps[task[0]]).parameters) - 1  # self aside
        return isinstance(task, tuple) and len(task) - 1 == arguments

    assert all(map(well_formed, ROUND_TASKS))
    e = war_engine(blood_markers=True)
    put(e, 0, "Prag", HI=2, CA=1)
    put(e, 1, "Prag", HI=1, LI=2)
    fight(e, "Prag", 0, 1, [4, 5, 2, 1, 2, 3])  # both keep their dice: the attacker wins the round
    seen = set()
    while e.bt is not None:  # to the battle's end: the loss values wipe the defender out
        assert all(map(well_formed, e.bt.tasks)), e.bt.tasks
        seen.update(e.bt.tasks)
        e.play((Head.DICE, 0) if e.phase == Phase.ATTACK_REROLL else e.legal_moves()[0])
    assert {(BattleStep.BLOOD, 1), (BattleStep.DAMAGE, 1, 1, False), (BattleStep.FREED,)} <= seen


def test_a_window_opened_inside_another_leaves_it_open_underneath():
    """W-REACT (a Narr holder) opens inside W-TAX: its close resolves the activation and the tax window asks
    its seat again; the tax window's close goes on with the expenses (``Resume.EXPENSES``)."""
    e = engine_at_tax()
    holder, fool = e.order[-1], e.order[0]
    give(e, holder, 37, 38)
    give(e, fool, 49)
    choose_taxes(e)
    tax = e.cw
    assert e.phase == Phase.CARD_WINDOW and e.actor == holder and isinstance(tax, CardWindow)
    assert tax.window == "tax" and tax.resume == Resume.EXPENSES and tax.outer is None
    buy(e, PLAY, card(38))
    react = e.cw
    assert e.actor == fool and react.window == "react" and react.resume == Resume.ACTIVATION and react.outer is tax
    assert pickle.loads(pickle.dumps(react)) == react == copy.deepcopy(react)
    e.play(DONE)  # the fool lets Magnat 38 happen
    assert e.cw is tax and e.phase == Phase.CARD_WINDOW and e.actor == holder and e.stage == Stage.TAXES
    assert e.round_effects[card(38)[1]] == (e.round, holder)
    e.play(DONE)
    assert e.cw is None and e.stage == Stage.PURCHASES


def test_a_turn_window_goes_back_to_the_decision_it_interrupted():
    """``Resume.SAVED``: CTRL(PLAY_CARD) in the own trade turn opens a window for the seat; DONE restores the
    trade turn."""
    e = engine_at_purchase()
    p = 0
    give(e, p, 21)
    trade_turn(e, p, node("Prag"), [0] * 8)
    e.play(PLAY)
    cw = e.cw
    assert e.phase == Phase.CARD_WINDOW and cw.window == "trade_turn" and cw.resume == Resume.SAVED
    assert cw.saved == (Phase.TRADE_TURN, p) and cw.outer is None
    e.play(DONE)
    assert e.cw is None and e.phase == Phase.TRADE_TURN and e.actor == p


def test_the_battle_record_copies_compares_and_pickles_by_value():
    e = war_engine()
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [4, 5, 2, 1, 2, 3])
    bt = e.bt
    assert isinstance(bt, Battle) and not hasattr(bt, "__dict__")  # slots: a misspelt field cannot be set
    assert bt.owners == [0, 1] and bt.round == 1 and bt.dice[0] == [4, 5, 2] and e.phase == Phase.ATTACK_REROLL
    twin, restored = e.clone(), pickle.loads(pickle.dumps(e))
    assert twin.bt == bt == restored.bt and twin.bt is not bt
    twin.bt.dice[0][0] = 1
    assert bt.dice[0] == [4, 5, 2] and twin.bt != bt  # a clone's battle is its own
    restored.play((Head.DICE, 0))  # the attacker keeps its dice, the defender rolls 1, 2, 3
    assert restored.bt.dice == [[4, 5, 2], [1, 2, 3]] and bt.dice[1] == [0, 0, 0]


def test_the_invasion_windows_pass_their_context_on_in_records():
    """W-INVADE of the empty region's controller, then of its ally: each window is a ``TechUse`` whose
    ``TechContext`` (also ``engine.tech_ctx``) names the region, the invader, the controller, the opponents so far
    and the deciders still to come; the unit the controller brings in is an opponent in the ally's window, whose
    record is a new one (the first is unchanged)."""
    e = ally_engine(hun_army=False, hun_kartografie=True)
    pressburg = node("Pressburg")
    use = e.tech_use
    assert isinstance(use, TechUse) and not hasattr(use, "__dict__") and e.tech_ctx is use.context
    assert e.phase == Phase.TECH_USE and (use.window, use.seat) == (TechWindow.INVADE, HUN)
    assert use.context == TechContext(node=pressburg, invader=HRE, controller=HUN, deciders=(BYZ,))
    twin, restored = e.clone(), pickle.loads(pickle.dumps(e))
    assert twin.tech_use == use == restored.tech_use and twin.tech_use is not use
    play(e, (Head.TECH, KARTOGRAFIE), (Head.NODE, node("Buda")), (Head.UNIT, HI), DONE)
    ally = e.tech_use
    assert (ally.window, ally.seat, ally.return_phase) == (TechWindow.INVADE, BYZ, use.return_phase)
    assert ally.context == replace(use.context, opponents=(HUN,), deciders=())
    assert use.context.opponents == () and use.context.deciders == (BYZ,)


def assert_copies_by_value(e, read):
    """The record ``read(engine)`` has slots, and a clone's, a pickled engine's and a deep copy equal it, each its
    own object. Returns the clone."""
    record = read(e)
    assert not hasattr(record, "__dict__")  # slots: a misspelt field cannot be set
    twin, restored = e.clone(), pickle.loads(pickle.dumps(e))
    assert read(twin) == record == read(restored) == copy.deepcopy(record)
    assert read(twin) is not record and read(restored) is not record
    return twin


def test_the_conquest_record_tags_its_items_by_stake():
    """Taking a tower puts the former owner's orphaned control markers first (``Stake.MARKER``, G92), with their
    owner; a clone's conquest is its own."""
    e = tower_war()
    buda, slaw = node("Buda"), node("Slawonien")
    e.cubes[buda] = [0] * 8
    fight(e, "Buda", 0, 1, [4, 6, 8, 1, 1, 1])
    play(e, (Head.PROTECT, 2), (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.phase == Phase.CONQUEST and e.conquest == Conquest(buda, 0, 1, [(Stake.BUILDING, MILITARY)])
    play(e, (Head.CTRL, Ctrl.KEEP))  # the tower
    cq = e.conquest
    assert isinstance(cq, Conquest) and cq.items == [(Stake.MARKER, slaw)] and cq.marker_owner == 1
    twin = assert_copies_by_value(e, lambda x: x.conquest)
    twin.play((Head.CTRL, Ctrl.PLUNDER))
    assert twin.conquest is None and cq.items == [(Stake.MARKER, slaw)]
    play(e, (Head.CTRL, Ctrl.KEEP))
    assert e.conquest is None and e.marker[slaw] == 0 and twin.marker[slaw] == -1


def test_the_route_records_follow_the_declaration():
    """``RouteDraft`` while a route is declared (length, then stages), then the seat's ``Route``; a clone's route
    is its own."""
    gh = 3
    e = war_engine(order=(0, 1, 2, 3))
    ids = [node(x) for x in ("Kiew", "Caffa", "Saraj", "Trebisonda", "Antakya")]
    e.route_graphs["land"] = {a: frozenset(b for b in ids if abs(ids.index(b) - ids.index(a)) == 1) for a in ids}
    e._new_object(gh, CARAVAN, 3, ids[0])
    oid = e.slots[gh][0]
    e._start_trade()
    play(e, (Head.OBJECT, 0), (Head.CTRL, Ctrl.BUY), DONE, (Head.CTRL, Ctrl.START_ROUTE))
    assert e.route_draft == RouteDraft(ids[0], "land") and e.route_draft.length == 0
    play(e, (Head.ROUTE, 0), (Head.NODE, ids[1]))
    assert e.route_draft == RouteDraft(ids[0], "land", [ids[1]], 4)
    assert_copies_by_value(e, lambda x: x.route_draft)
    play(e, (Head.NODE, ids[2]), (Head.NODE, ids[3]), (Head.NODE, ids[4]))
    assert e.route_draft is None and e.route[gh] == Route(oid, ids[1:], [False] * 4, 2, ids[0], "land")
    twin = assert_copies_by_value(e, lambda x: x.route_of(gh))
    twin.route[gh].established[0] = True
    assert e.route[gh].established == [False] * 4


def test_the_offer_record_follows_its_steps():
    """A trade treaty offered until the game ends, with the sale fee and a demanded 10 fl: each sub-decision fills
    one field of the ``Offer`` and moves its ``OfferStep``; sent, the addressee answers."""
    e = dip_engine()
    propose(e, 1, Treaty.TRADE)
    assert e.offer == Offer(0, 1, kind=Treaty.TRADE, step=OfferStep.TERM)
    play(e, (Head.DURATION, UNTIL_END), (Head.CTRL, Ctrl.SALE_FEE), (Head.CTRL, Ctrl.DEMAND), (Head.COIN, 2))
    assert e.offer == Offer(0, 1, [], Treaty.TRADE, UNTIL_END, SALE_FEE_FL, 1, 10, step=OfferStep.AMOUNT)
    assert_copies_by_value(e, lambda x: x.offer)
    play(e, DONE, (Head.CTRL, Ctrl.SECRET))
    assert e.phase == Phase.OFFER_ANSWER and e.actor == 1
    assert e.offer == Offer(0, 1, [], Treaty.TRADE, UNTIL_END, SALE_FEE_FL, 1, 10, True, OfferStep.ANSWER,
                            waiting=[1])


def test_the_state_treaty_record_follows_the_offer_and_the_parties_left():
    """A public right of way of HRE, HUN and BYZ for 5 rounds and a secret trade treaty of HRE and GH with the sale
    fee until the game ends, each concluded as a ``StateTreaty`` that ``_treaty_of`` finds for any pair of its
    parties. When BYZ leaves the game the right of way goes on between the others as a new record: the old one,
    held elsewhere, keeps its parties."""
    e = dip_engine(offers=2)
    play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.RIGHT_OF_WAY), (Head.PLAYER, 1), (Head.DURATION, 4),
         DONE, DONE, (Head.CTRL, Ctrl.ACCEPT), (Head.CTRL, Ctrl.ACCEPT))
    propose(e, 3, Treaty.TRADE, (Head.DURATION, UNTIL_END), (Head.CTRL, Ctrl.SALE_FEE), DONE, (Head.CTRL, Ctrl.SECRET))
    play(e, (Head.CTRL, Ctrl.ACCEPT))
    way = StateTreaty(Treaty.RIGHT_OF_WAY, (HRE, HUN, BYZ), 5, False, 0)
    assert e.treaties == [way, StateTreaty(Treaty.TRADE, (HRE, 3), 0, True, SALE_FEE_FL)]
    assert e._treaty_of(Treaty.RIGHT_OF_WAY, BYZ, HUN) is e.treaties[0]
    twin = assert_copies_by_value(e, lambda x: x.treaties[0])
    held = e.treaties[0]
    e.eliminated[BYZ] = True
    e._diplomacy_end_round()
    assert e.treaties[0] == replace(way, parties=(HRE, HUN)) and held == way == twin.treaties[0]


def test_the_auction_tie_record_follows_the_bidding_again():
    """8.1 (G25): seats 0 and 1 tie at 5 EP for the same empire, an ``AuctionTie`` at 5; both bid 6 again: the tie
    stands at 6 after one extra round; 7 against 6 settles it. A clone's tie is its own."""
    e = auction_engine()
    a, b = e.auction_empires[:2]
    bid(e, a, 5)
    bid(e, a, 5)
    bid(e, b, 3)
    bid(e, b, 0)
    assert e.phase == Phase.EMPIRE_TIE_BID and e.auction_ties == [AuctionTie(a, [0, 1], 5)]
    twin = assert_copies_by_value(e, lambda x: x.auction_ties[0])
    play(e, (Head.EP_BID, 6), (Head.EP_BID, 6))
    assert e.auction_ties == [AuctionTie(a, [0, 1], 6, rounds=1)] and twin.auction_ties == [AuctionTie(a, [0, 1], 5)]
    play(e, (Head.EP_BID, 7), (Head.EP_BID, 6))
    assert e.auction_ties == [] and e.empire_of[0] == a


def test_the_event_effect_record():
    """D6: Yellow's roll of 4 against its 2 HI; the first point is forced, three are left to distribute."""
    e = war_engine(order=(0, 1, 2, 3))
    yellow = 0
    e.event_deck.remove(0)
    e.event_deck.append(0)
    put(e, yellow, "Prag", HI=2)
    e.rng = ScriptedRng([4])
    e._start_event_card()
    play(e, (Head.EVENT, 2))  # drop Goods
    assert e.phase == Phase.EVENT_EFFECT and e.ev_effect == EventEffect("units", yellow, 3)
    twin = assert_copies_by_value(e, lambda x: x.ev_effect)
    twin.play((Head.NODE, node("Prag")))
    twin.play((Head.UNIT, LI))
    assert twin.ev_effect is None and e.ev_effect.left == 3


def test_the_event_stage_and_the_diplomacy_window_are_named_constants():
    """Phase 2's stage and the open diplomacy window are ``EventStage`` / ``DiplomacyWindow`` constants (no two
    alike); the war's window holds WAR while open and NONE once every seat has passed."""
    from envs.medioevo_universale.constants import DiplomacyWindow, EventStage

    for kind in (EventStage, DiplomacyWindow):
        values = [v for k, v in vars(kind).items() if k.isupper()]
        assert len(set(values)) == len(values) and kind.NONE in values
    e = dip_engine()
    assert e.dip_window == DiplomacyWindow.WAR and e.ev_stage in (EventStage.NONE, EventStage.REVOLTS)
    while e.phase == Phase.DIPLOMACY:
        play(e, DONE)
    assert e.dip_window == DiplomacyWindow.NONE
