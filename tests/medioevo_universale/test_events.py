"""Phase 2 steps 2.2-2.4 and the last revolt check (spec 5.4, 6.2; Appendix D6-D8)."""
from envs.medioevo_universale.constants import CARAVAN, GALLEY, HI, LI, Ctrl, EventStage, Head, Phase
from envs.medioevo_universale.data import game_data

from .test_war import ScriptedRng, node, play, put, units_at, war_engine

EVENTS = game_data().events
DONE = (Head.CTRL, Ctrl.DONE)


def test_event_example():
    """D6: the start player applies Units and Movement. Only Yellow has an army in the area: he rolls 4
    and removes 2 HI (2 points each). White rolls 5: nothing. Blue rolls 1: one caravan stops."""
    e = war_engine(order=(0, 1, 2, 3))
    yellow, white, blue = 0, 1, 2
    assert EVENTS[0].symbols == ("movement", "units", "goods")  # E1, Rhineland & Bohemia
    e.event_deck.remove(0)
    e.event_deck.append(0)
    put(e, yellow, "Prag", HI=2)
    e._new_object(white, CARAVAN, 1, node("Franken"))
    e._new_object(blue, CARAVAN, 1, node("Aachen"))
    e.rng = ScriptedRng([5, 1, 4])
    e._start_event_card()
    assert e.phase == Phase.EVENT_CHOICE and e.actor == 0
    play(e, (Head.EVENT, 2))  # drop Goods
    assert e.ev_rolls[:2] == [("movement", white, 5), ("movement", blue, 1)]
    assert e.objs[e.slots[blue][0]][4] == 0 and e.objs[e.slots[white][0]][4] == 6
    assert e.phase == Phase.EVENT_EFFECT and e.actor == yellow  # 1st point was forced: HI -> LI
    play(e, (Head.NODE, node("Prag")), (Head.UNIT, LI))
    assert sum(units_at(e, yellow, "Prag")) == 0
    assert e.phase == Phase.BUILDUP and e.actor == 0


def test_buildup_example():
    """D7: +1 LI in Trebisonda (1 point), then the army of 2 moves 2 regions (2 points) and attacks
    Yellow; the barbarians attack at once (G26)."""
    e = war_engine(order=(0, 1, 2, 3))
    treb, arm, konya = node("Trebisonda"), node("Armenien"), node("Konya")
    e._add_barb(treb, 0, 1)
    e._add_barb(arm, 0, -1)  # Armenien's barbarian is gone
    e.barb_supply[0] += 1
    put(e, 2, "Konya", HI=1)
    e.barb_dice = [1, 1, 1]
    e.ev_stage = EventStage.BUILDUP
    e.buildup_left = 3
    e.tax_rate = [10] * 4
    e._resume_events()
    assert e.phase == Phase.BUILDUP
    play(e, (Head.UNIT, LI), (Head.NODE, treb))
    assert e.barb_total[treb] == 2
    play(e, (Head.NODE, treb), (Head.NODE, arm))
    e.rng = ScriptedRng([1, 6, 8])
    play(e, (Head.NODE, arm), (Head.NODE, konya))
    assert e.bt is not None and e.bt.owners == [-1, 2]
    assert e.phase == Phase.ATTACK_REROLL and e.actor == 2
    play(e, (Head.DICE, 0))  # 8/1 against the barbarians' 1/1
    assert e.bt is None and e.barb_total[konya] == 0 and units_at(e, 2, "Konya")[HI] == 1
    assert e.phase == Phase.TAX  # no revolts: phase 3 begins


def test_revolt_example():
    """D8: Green at tax 50, allowed 30, two start regions already in revolt: 2 new revolts, -2 EP."""
    e = war_engine(order=(0, 1, 2, 3))
    green = 3
    top = next(i for i, ev in enumerate(EVENTS) if ev.allowed_tax == 30)
    e.event_deck.remove(top)
    e.event_deck.append(top)
    e.tax_rate = [30, 20, 10, 50]
    for name in ("Kiptschak", "Don-Steppe"):
        e._add_barb(node(name), 0, 1)
    caffa = node("Caffa")
    put(e, green, "Saraj", LI=1)  # Saraj has a unit: revolts go to the regions without units first
    before = e.ep[green]
    e._start_revolts(final=False)
    assert e.ep[green] == before - 2
    assert e.phase == Phase.REVOLT_PLACE and e.actor == green
    assert {a for _, a in e.legal_moves()} == {caffa, node("Bolgar"), node("Kiew")}
    e.civil[caffa], e.civil_owner[caffa] = 1, green
    play(e, (Head.NODE, caffa))
    assert e.barb_total[caffa] == sum(e.horde) and e.civil[caffa] == 0  # raid: the village is destroyed
    assert e.controller(caffa) == -1
    play(e, (Head.NODE, node("Kiew")))
    assert e.revolts_placed[green] == 2 and e.phase == Phase.TAX


def test_last_revolt_check_before_scoring():
    """Spec 6.2 step 1 / G53: the final scoring starts with a revolt check."""
    e = war_engine(order=(0, 1, 2, 3))
    e.round = e.num_rounds
    e.tax_rate = [50, 10, 10, 10]
    e.event_deck = [i for i, ev in enumerate(EVENTS) if ev.allowed_tax == 10][:2]
    e._end_round()
    while not e.is_over:
        e.play(e.legal_moves()[0])
    assert e.revolts_placed[0] == 4 and e.final_breakdown is not None


def test_units_aboard_galleys_in_the_event_seas_are_hit():
    """Spec 2.9 / 5.4: effects apply to the marked regions and the sea zones next to them; units on
    galleys there are affected (the normal damage rules: HI -> LI)."""
    e = war_engine(order=(0, 1, 2, 3))
    card = 11  # E12: Italy, Units / Buildings / Goods
    assert EVENTS[card].symbols[0] == "units"
    e.event_deck.remove(card)
    e.event_deck.append(card)
    tyr = node("Tyrrhenisches Meer (Tyrrhenian Sea)")
    e._new_object(0, GALLEY, 1, tyr)
    oid = e.slots[0][0]
    e.cargo[oid][HI] = 1
    e.unit_supply[0][HI] -= 1
    e.rng = ScriptedRng([1])
    e._start_event_card()
    play(e, (Head.EVENT, 1))  # keep Units and Goods
    assert e.cargo[oid][:2] == [1, 0]


def test_destroyed_tower_takes_its_control_marker_back():
    """Spec 5.12: a destroyed military building's owner takes back the markers only it could hold."""
    e = war_engine(order=(0, 1, 2, 3))
    prag, schlesien = node("Prag"), node("Schlesien")
    e.mil[prag], e.mil_owner[prag] = 1, 0
    e.marker[schlesien] = 0
    e.markers_left[0] -= 1
    e._damage_building(prag, 3, 3)  # a tower has 3 GP
    assert e.mil[prag] == 0 and e.marker[schlesien] == -1 and e.markers_left[0] == 8



def test_barbarian_galleys_in_the_build_up():
    """Spec 5.4 / G42: moving into a sea zone puts the army on a barbarian galley (at most 4 at once);
    landing puts it ashore; a player's manned galley there is attacked at once."""
    e = war_engine(order=(0, 1, 2, 3))
    toskana = node("Toskana")
    tyr = node("Tyrrhenisches Meer (Tyrrhenian Sea)")
    ion = node("Ionisches Meer (Ionian Sea)")
    e.ev_stage = EventStage.BUILDUP
    e.buildup_left = 3
    e.tax_rate = [10] * 4
    e._new_object(2, GALLEY, 1, ion)
    oid = e.slots[2][0]
    e.cargo[oid][HI] = 2
    e.unit_supply[2][HI] -= 2
    e.barb_dice = [1, 1, 1]
    e._resume_events()
    play(e, (Head.NODE, toskana), (Head.NODE, tyr))
    assert e.barb_total[tyr] == 1 and e.barb_total[toskana] == 0
    e.rng = ScriptedRng([1, 6, 8])
    play(e, (Head.NODE, tyr), (Head.NODE, ion))
    assert e.bt is not None and e.bt.naval and e.bt.owners == [-1, 2]
    play(e, (Head.DICE, 0))
    # 8 against 1: the barbarian dies; Yellow's loss value 1 kills one HI (at sea one point kills)
    assert e.bt is None and e.barb_total[ion] == 0 and e.cargo[oid][HI] == 1  # the survivor is back aboard
