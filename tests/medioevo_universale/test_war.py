"""Phase 5: completed movements and land battles (spec 5.9-5.11, 5.16 EP, 5.20; Appendix D)."""
import pytest

from envs.medioevo_universale.combat import attack_value
from envs.medioevo_universale.constants import (
    AR, CA, CP1, GALLEY, HI, LI, SIEGE, WAR_WAGON, Ctrl, Head, Phase, Stage, Stake,
)
from envs.medioevo_universale.data import game_data

from .test_rules import NT, clear_seat, engine_at_purchase, node

DONE = (Head.CTRL, Ctrl.DONE)


class ScriptedRng:
    """Stands in for the engine's generator: ``integers(lo, hi)`` returns the scripted values."""

    def __init__(self, values):
        self.values = list(values)

    def integers(self, lo, hi=None):
        v = self.values.pop(0)
        assert lo <= v < hi, (v, lo, hi)
        return v


def war_engine(order=(0, 1, 2, 3), **cfg):
    """HRE, HUN, BYZ, GH; every army and object cleared; phase 5 about to start."""
    e = engine_at_purchase(**cfg)
    for p in range(4):
        clear_seat(e, p)
    e.order = list(order)
    e.position = [0] * 4
    for i, p in enumerate(order):
        e.position[p] = i
    e.queue = []
    return e


def put(e, p, where, **units):
    n = node(where)
    for name, k in units.items():
        e._add_units(p, n, {"LI": LI, "HI": HI, "AR": AR, "CA": CA, "CP1": CP1}[name], k)
    return n


def units_at(e, p, where):
    n = node(where)
    return e.units[p][n * NT:n * NT + NT]


def decline_captures(e):
    """Answer 'no capture' to the declarations at the start of each battle round (spec 5.14)."""
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)


def fight(e, where, attacker, defender, dice, captures=False):
    """Start a battle as if ``attacker`` had just moved in on foot (no carrier)."""
    e.rng = ScriptedRng(dice)
    e.stage = Stage.WAR
    e.carrier, e.foot_node, e.foot_cargo, e.move_steps = -1, node(where), [0] * NT, 1
    e.actor = e.mover = attacker
    e._start_battle(node(where), attacker, defender)
    if not captures:
        decline_captures(e)


def play(e, *moves, captures=False):
    for m in moves:
        assert m in e.legal_moves(), (m, e.legal_moves(), e.phase)
        e.play(m)
        if not captures:
            decline_captures(e)


def test_critical_attack_values():
    """D20: (3,3,3) -> 27; (5,5,4) -> 25; (2,2,5) -> 5 (2 x 2 = 4 < 5); loss values 3, 4, 2."""
    assert [attack_value(d) for d in ([3, 3, 3], [5, 5, 4], [2, 2, 5])] == [27, 25, 5]
    assert [min(d) for d in ([3, 3, 3], [5, 5, 4], [2, 2, 5])] == [3, 4, 2]


def test_turn_order_malus():
    """D22: with 4 players the 3rd has -2; rows of table 2.12."""
    malus = game_data().comp.malus
    assert malus[4][2] == -2
    assert malus[3] == (0, -1, -3) and malus[6] == (0, -1, -1, -2, -2, -3)


def test_battle_round_example():
    """D21: Blue (start player) rerolls 1,5,3 into 1,5,5: 25/1; Yellow (4th of 4, -3) rerolls 1,2,4
    into 4,2,7: 4/2. 21 capped to 1 (Blue has 1 unit); superiority cuts Blue's loss to 0;
    Yellow takes 1 + 2 = 3."""
    e = war_engine(order=(0, 1, 2, 3))
    blue, yellow = 0, 3
    put(e, blue, "Puszta", LI=1)
    put(e, yellow, "Puszta", LI=4)
    fight(e, "Puszta", blue, yellow, [1, 5, 3, 1, 5, 1, 2, 4, 4, 2, 7] + [1, 1, 1])
    assert e.phase == Phase.ATTACK_REROLL and e.actor == blue
    play(e, (Head.DICE, 0b101))
    assert e.bt.dice[0] == [1, 5, 5] and e.bt.av[0] == 25 and e.bt.lv[0] == 1
    play(e, (Head.DICE, 0b111))
    assert e.bt.dice[1] == [4, 2, 7] and e.bt.av[1] == 4 and e.bt.lv[1] == 2
    assert e.phase == Phase.SUPERIORITY and e.actor == blue
    play(e, (Head.CTRL, Ctrl.SUPER_REDUCE))
    assert units_at(e, blue, "Puszta")[LI] == 1  # loss value 1 - 1 = 0
    assert units_at(e, yellow, "Puszta")[LI] == 1  # 4 LI - (1 + 2)
    assert e.phase == Phase.AFTER_ROUND and e.actor == blue  # another round, retreat or capitulation
    assert e.legal_moves() == [DONE, (Head.CTRL, Ctrl.CAPITULATE), (Head.CTRL, Ctrl.DEMAND_CAPITULATION)]


def test_li_sacrifice():
    """D23: Blue has 2 LI, Yellow none; sacrificing 1 LI and rolling 7, 5, 1 gives 11."""
    e = war_engine()
    put(e, 0, "Puszta", LI=2)
    put(e, 1, "Puszta", HI=1)
    fight(e, "Puszta", 0, 1, [1, 5, 7, 2, 2, 2])
    assert e.phase == Phase.SACRIFICE and e.actor == 0
    supply = e.unit_supply[0][LI]
    play(e, (Head.CTRL, Ctrl.SACRIFICE), DONE)
    play(e, (Head.DICE, 0))
    assert e.bt.av[0] == 11 and units_at(e, 0, "Puszta")[LI] == 1
    assert e.unit_supply[0][LI] == supply + 1  # the LI went back to the supply


def test_cavalry_example():
    """D24: only Yellow has cavalry; both have HI. Yellow 5/1 beats Blue 4/1: Blue takes 1 + 2 = 3
    (one HI removed, the other becomes LI), then loss values 1: Yellow's HI -> LI, Blue's last unit dies."""
    e = war_engine(order=(0, 1, 2, 3))
    yellow, blue = 0, 1  # Blue is 2nd: malus -1
    put(e, yellow, "Puszta", CA=1, HI=1)
    put(e, blue, "Puszta", HI=2)
    fight(e, "Puszta", yellow, blue, [1, 2, 5, 1, 4, 5])
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    assert e.bt.av == [5, 4]
    # first point: only HI can take it (auto); then Blue picks which unit takes the next
    assert e.phase == Phase.DAMAGE and e.actor == blue
    play(e, (Head.UNIT, LI))  # the damaged HI dies
    assert units_at(e, blue, "Puszta")[:2] == [1, 0]  # third point turned the other HI into LI
    assert e.phase == Phase.DAMAGE and e.actor == yellow  # loss value, attacker first
    play(e, (Head.UNIT, HI))
    assert e.bt is None  # Blue's last LI died to his loss value
    assert units_at(e, yellow, "Puszta")[:4] == [1, 0, 0, 1]
    assert sum(units_at(e, blue, "Puszta")) == 0


def test_captain_as_archer():
    """D25: Yellow's level I captain acts as an archer against Blue without archers: 1d8, a hit
    kills one blue LI."""
    e = war_engine()
    put(e, 0, "Puszta", CP1=1, HI=1)
    put(e, 1, "Puszta", LI=2)
    fight(e, "Puszta", 0, 1, [2, 1, 1, 1])
    assert e.phase == Phase.CAPTAIN_SLOT and e.actor == 0
    play(e, (Head.CAPTAIN, 0))  # act as archer
    assert units_at(e, 1, "Puszta")[LI] == 1
    assert e.phase == Phase.ATTACK_REROLL and e.actor == 0


def _barbarian_entry(units, rolls):
    e = war_engine()
    toskana, genua = node("Toskana"), node("Genua")
    e._add_barb(toskana, 0, -e.barb[toskana * 3])
    e.barb_supply[0] += 1
    e.horde, e.barb_dice = [2, 0, 0], [2, 4, 7]
    put(e, 0, "Genua", **units)
    e._new_object(0, WAR_WAGON, 1, genua)
    e.rng = ScriptedRng(rolls)
    e._start_war()
    assert e.phase == Phase.WAR_TURN and e.actor == 0
    play(e, (Head.OBJECT, 0))
    for name, k in units.items():
        for _ in range(k):
            play(e, (Head.LOAD, {"LI": LI, "HI": HI, "CA": CA}[name]))
    play(e, (Head.NODE, toskana))
    return e


def test_barbarian_battle_1():
    """D46: Blue (1 CA + 1 LI) enters a barbarian region; a horde of 2 LI appears (dice 2, 4, 7:
    7/2). Blue 8/1 wins: the barbarians are destroyed; Blue takes 1."""
    e = _barbarian_entry({"CA": 1, "LI": 1}, [1, 3, 8])
    toskana = node("Toskana")
    assert e.barb_total[toskana] == 2 and e.bt is not None
    wagon = e.objs[e.slots[0][0]]
    assert wagon[4] == 0  # all MP lost on entering
    play(e, (Head.DICE, 0))
    assert e.bt.av == [8, 7]
    assert e.barb_total[toskana] == 0  # 1 + 2 (cavalry) = 3 points
    assert e.phase == Phase.DAMAGE and e.actor == 0
    play(e, (Head.UNIT, CA))
    assert e.bt is None and units_at(e, 0, "Toskana")[:4] == [1, 1, 0, 0]
    assert e.stat_barbarians_destroyed[0] == 1 and e.controller(toskana) == 0


def test_barbarian_battle_2():
    """D47: Yellow (1 CA + 2 HI): the barbarians sacrifice 1 LI (2 units vs 3, >= 2 LI) for 7 + 4 = 11,
    beat Yellow's 8/2 and deal 1 (capped by their 1 melee unit): the cavalry becomes HI; Yellow's
    loss value 2 is absorbed by his 2 HI; the barbarian loss value kills the last LI."""
    e = _barbarian_entry({"CA": 1, "HI": 2}, [2, 3, 8])
    play(e, (Head.DICE, 0))
    assert e.bt.av == [8, 11] and e.bt.sac == [0, 1]
    assert e.phase == Phase.DAMAGE and e.actor == 0
    play(e, (Head.UNIT, CA))
    assert e.bt is None
    assert units_at(e, 0, "Toskana")[:4] == [0, 3, 0, 0]
    assert e.barb_total[node("Toskana")] == 0


def test_lost_to_barbarians_costs_one_ep_and_raid():
    e = war_engine()
    toskana = node("Toskana")
    put(e, 0, "Toskana", LI=1)
    e._add_barb(toskana, 0, 2)
    e.barb_supply[0] -= 2
    e.barb_dice = [3, 3, 1]  # 9 / 1
    e.civil[toskana], e.civil_owner[toskana] = 1, 0
    fight(e, "Toskana", 0, -1, [1, 1, 1])
    play(e, (Head.DICE, 0))
    assert e.bt is None and e.army[0][toskana] == 0
    assert e.ep_events[0]["lost_to_barbarians"] == -1
    assert e.civil[toskana] == 0  # barbarians alone destroy the buildings


def test_conquest_ep_city_and_castle():
    """D34: conquering a region with a city and a castle gives 1 + 3 + 3 = 7 EP."""
    e = war_engine()
    buda = node("Buda")
    e.civil[buda], e.civil_owner[buda] = 3, 1
    e.mil[buda], e.mil_owner[buda] = 3, 1
    put(e, 0, "Buda", HI=3)
    put(e, 1, "Buda", LI=1)
    before = e.ep[0]
    fight(e, "Buda", 0, 1, [4, 6, 8, 1, 1, 1])
    assert e.phase == Phase.PROTECT_CHOICE and e.actor == 1  # the castle's owner declares
    play(e, (Head.PROTECT, 2), (Head.DICE, 0), DONE, (Head.DICE, 0))  # DONE: no LI sacrifice
    assert e.bt is None and e.ep[0] == before + 7 and e.stat_conquered[0] == 1


def test_rome_gives_two_more_ep_to_the_first_conqueror_only():
    e = war_engine()
    rom = node("Rom")
    for attempt in range(2):
        e._add_barb(rom, 0, 1)
        e.barb_supply[0] -= 1
        e.barb_dice = [1, 1, 1]
        put(e, 0, "Rom", HI=3)
        before = e.ep[0]
        e.conquered_round = set()
        fight(e, "Rom", 0, -1, [4, 6, 8])
        play(e, (Head.DICE, 0))
        assert e.bt is None
        assert e.ep[0] - before == (3 if attempt == 0 else 1)
        for t in range(NT):
            e._add_units(0, rom, t, -e.units[0][rom * NT + t])


def test_takeover_without_defender_is_an_act_of_war():
    """Spec 5.9 case 3 and 5.19: entering another player's region without an army takes it;
    without a declaration of war it costs 3 EP once and starts the war."""
    e = war_engine()
    pressburg, prag = node("Pressburg"), node("Prag")
    put(e, 0, "Prag", HI=2)
    e._new_object(0, WAR_WAGON, 1, prag)
    e._new_object(0, SIEGE, 1, node("Aachen"))  # keeps phase 5 going after the move
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.NODE, pressburg))
    assert e.stage == Stage.WAR and e.phase == Phase.WAR_TURN
    assert e.controller(pressburg) == 0 and e.ep_events[0]["undeclared_attack"] == -3
    assert e.at_war[0][1] and e.at_war[1][0]
    assert e.objs[e.slots[0][0]][4] == 0  # stopped: all MP lost
    assert e.stopped[0][pressburg * NT + HI] == 1


def test_movement_costs_and_stop_markers():
    """Spec 5.9: 1 MP per step; MP kept for later war turns; units moved get stop markers and cannot
    be loaded again; units left behind are stopped."""
    e = war_engine()
    aachen, franken, prag = node("Aachen"), node("Franken"), node("Prag")
    put(e, 0, "Aachen", LI=2)
    e._new_object(0, WAR_WAGON, 1, aachen)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, LI), (Head.LOAD, LI), (Head.NODE, franken), (Head.UNLOAD, LI),
         (Head.NODE, prag), DONE)
    wagon = e.objs[e.slots[0][0]]
    assert wagon[3] == prag and wagon[4] == 6 - 2
    assert e.stopped[0][franken * NT + LI] == 1 and e.stopped[0][prag * NT + LI] == 1
    # next war turn: the wagon still has MP but no unstopped units to load
    e.queue = []
    e.actor = 0
    assert (Head.OBJECT, 0) in e.war_turn_moves(0)
    e.phase = Phase.WAR_TURN
    play(e, (Head.OBJECT, 0))
    assert not any(m[0] == Head.LOAD for m in e.legal_moves())


def test_empty_carrier_cannot_enter_foreign_or_defended_regions():
    """G33: empty transports enter only own regions or barbarian regions without an army."""
    e = war_engine()
    prag = node("Prag")
    e._new_object(0, WAR_WAGON, 1, prag)
    e._start_war()
    play(e, (Head.OBJECT, 0))
    steps = {a for h, a in e.legal_moves() if h == Head.NODE}
    assert steps == {node("Franken"), node("Schwaben")}  # not Pressburg (HUN), not Schlesien (barbarians)


def test_castle_rule_moves_an_army_on_foot():
    """Spec 5.9: every land move out of a castle region is free and needs no transport."""
    e = war_engine()
    prag, pressburg = node("Prag"), node("Pressburg")
    e.mil[prag], e.mil_owner[prag] = 3, 0
    put(e, 0, "Prag", HI=2)
    e._start_war()
    assert (Head.NODE, prag) in e.legal_moves()
    play(e, (Head.NODE, prag), (Head.LOAD, HI), (Head.LOAD, HI), (Head.NODE, pressburg))
    assert e.army[0][pressburg] == 2 and e.controller(pressburg) == 0


def test_galley_docking_and_loading():
    """Spec 5.9: undocking and docking cost 1 MP each; loading only while docked."""
    e = war_engine()
    genua, tyr, rom = node("Genua"), node("Tyrrhenisches Meer (Tyrrhenian Sea)"), node("Rom")
    put(e, 0, "Genua", HI=1)
    e._new_object(0, GALLEY, 1, genua)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.NODE, tyr))
    assert not any(m[0] in (Head.LOAD, Head.UNLOAD) for m in e.legal_moves())
    e._add_barb(rom, 0, 1)
    e.barb_supply[0] -= 1
    e.barb_dice = [1, 1, 1]
    e.rng = ScriptedRng([4, 6, 8])
    play(e, (Head.NODE, rom))
    galley = e.objs[e.slots[0][0]]
    assert galley[3] == rom and galley[4] == 0 and e.bt is not None


def test_war_phase_ends_after_a_cycle_of_passes():
    e = war_engine()
    aachen = node("Aachen")
    e._new_object(0, SIEGE, 1, aachen)
    e._start_war()
    assert e.phase == Phase.WAR_TURN and e.actor == 0
    play(e, DONE)
    assert e.stage != Stage.WAR  # nobody else can move: the phase ended


def test_retreat_example():
    """D31: Yellow 4/1; Blue 7 halved to 4 (a tie); the retreat step adds 1 to Blue's loss value:
    1 + 1 - 1 (HI) = 1 point, his HI becomes LI; Yellow's loss value removes one yellow LI; Blue's
    army and its war wagon move to the retreat region, and "Blue may then move on with a war wagon"."""
    e = war_engine(order=(0, 1, 2, 3))
    blue, yellow = 0, 1
    pressburg, prag = node("Pressburg"), node("Prag")
    put(e, blue, "Pressburg", HI=1)
    put(e, yellow, "Pressburg", LI=3)
    e._new_object(blue, WAR_WAGON, 1, pressburg)
    fight(e, "Pressburg", blue, yellow, [1, 2, 3, 1, 2, 4] + [1, 2, 7, 1, 5, 2])
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))  # round 1: 3/1 vs 3/1
    assert e.phase == Phase.AFTER_ROUND and units_at(e, yellow, "Pressburg")[LI] == 2
    play(e, (Head.CTRL, Ctrl.RETREAT))
    play(e, (Head.DICE, 0))
    assert e.bt.av[0] == 4  # 7 halved, rounded up
    play(e, DONE, (Head.DICE, 0))
    assert e.bt.av == [4, 4]
    assert e.phase == Phase.RETREAT_TO and e.legal_moves() == [(Head.NODE, prag)]
    play(e, (Head.NODE, prag))
    assert e.bt is None
    assert units_at(e, blue, "Prag")[:2] == [1, 0] and units_at(e, yellow, "Pressburg")[LI] == 1
    assert e.objs[e.slots[blue][0]][3] == prag
    assert e.controller(pressburg) == yellow
    # "Blue may then move on with a war wagon in the retreat region"
    assert e.phase == Phase.WAR_TURN and e.actor == blue and e.legal_moves() == [DONE, (Head.OBJECT, 0)]
    play(e, (Head.OBJECT, 0), (Head.LOAD, LI), (Head.NODE, node("Franken")), DONE)
    assert units_at(e, blue, "Franken")[LI] == 1 and e.stopped[blue][node("Franken") * NT + LI] == 1


RETREAT_ROUNDS = [1, 2, 3, 1, 2, 4] + [1, 2, 7, 1, 5, 2]  # the retreat example's dice: 3/1 : 3/1, then 4/1 : 4/1


def retreat_battle(blue_units: dict, yellow_units: dict, wagon_level: int = 2, **config):
    """The retreat example's set-up: Blue (seat 0) and Yellow (seat 1) in Pressburg, Blue's war wagon beside
    his army; the caller starts the battle with ``fight``."""
    e = war_engine(order=(0, 1, 2, 3), **config)
    put(e, 0, "Pressburg", **blue_units)
    put(e, 1, "Pressburg", **yellow_units)
    e._new_object(0, WAR_WAGON, wagon_level, node("Pressburg"))
    return e


def test_retreat_adds_the_step_before_heavy_infantry_lowers_the_loss_value():
    """RÜCKZUG: "Nach Schritt 9 darfst du dein komplettes Heer in ein angrenzendes Gebiet bewegen ... Vor
    Schritt 10 addierst du zu deinem Verlustwert die BP, die du für den 1. Schritt deiner Rückzugsbewegung
    verbraucht hast"; the example adds the step (1 + 1 = 2) before the heavy infantry lowers it, and
    SCHWERE INFANTERIE: "Der Verlustwert kann dadurch nicht unter 0 fallen". Two HI: 1 + 1 - 2 = 0, no
    damage (not max(0, 1 - 2) + 1 = 1). The retreat region is chosen after step 9, before step 10."""
    e = retreat_battle({"HI": 2}, {"LI": 3}, wagon_level=1)
    blue, yellow = 0, 1
    prag = node("Prag")
    fight(e, "Pressburg", blue, yellow, RETREAT_ROUNDS)
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))  # round 1: a tie, Blue's loss value 1 - 2 = 0
    assert units_at(e, blue, "Pressburg")[:2] == [0, 2] and units_at(e, yellow, "Pressburg")[LI] == 2
    play(e, (Head.CTRL, Ctrl.RETREAT), (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.bt.av == [4, 4] and e.bt.lv == [1, 1]
    assert e.phase == Phase.RETREAT_TO  # after step 9: Yellow's loss value (step 10) is still to come
    assert units_at(e, yellow, "Pressburg")[LI] == 2
    play(e, (Head.NODE, prag))
    assert e.bt is None and units_at(e, blue, "Prag")[:2] == [0, 2]  # both HI are left
    assert units_at(e, yellow, "Pressburg")[LI] == 1


@pytest.mark.parametrize("river, mp", [(False, 2), (True, 3)])
def test_retreat_step_costs_the_terrain_mp(river, mp):
    """RÜCKZUG: the loss value grows by "die BP, die du für den 1. Schritt deiner Rückzugsbewegung
    verbraucht hast"; GELÄNDEARTEN: "Die Kosten, um sich in ein Gebiet hinein zu bewegen, hängen von
    dessen Geländeart ab: ... Hügel: 2 BP ... Fluss überqueren: +1 BP". Prag is hills: Blue's loss value
    1 + 2 (+ 1 across a river) takes 3 (4) of his 5 LI before the army reaches Prag."""
    e = retreat_battle({"LI": 6}, {"HI": 3}, terrain=True)
    blue, yellow = 0, 1
    pressburg, prag = node("Pressburg"), node("Prag")
    if river:
        e.rivers = {(pressburg, prag), (prag, pressburg)}  # as a river edge of map.json would give
    fight(e, "Pressburg", blue, yellow, RETREAT_ROUNDS)
    play(e, DONE, (Head.DICE, 0), (Head.DICE, 0))  # round 1: a tie; Blue loses 1 LI, Yellow's HI 0
    assert units_at(e, blue, "Pressburg")[LI] == 5
    play(e, (Head.CTRL, Ctrl.RETREAT), DONE, (Head.DICE, 0), (Head.DICE, 0))
    assert e.bt.av == [4, 4] and e.phase == Phase.RETREAT_TO
    assert units_at(e, blue, "Pressburg")[LI] == 5  # step 10 waits for the retreat step's MP
    play(e, (Head.NODE, prag))
    assert e.bt is None and units_at(e, blue, "Prag")[LI] == 5 - (1 + mp)
    assert units_at(e, yellow, "Pressburg")[HI] == 3


def test_retreat_without_a_region_left_adds_no_mp():
    """The way back is lost before step 9 ends (ASSUMPTION, G76): no step was made, so no MP are added
    (RÜCKZUG: "die BP, die du ... verbraucht hast"); Blue's loss value 1 takes 1 LI, not 2."""
    e = retreat_battle({"LI": 6}, {"HI": 3})
    blue, yellow = 0, 1
    fight(e, "Pressburg", blue, yellow, RETREAT_ROUNDS)
    play(e, DONE, (Head.DICE, 0), (Head.DICE, 0))
    play(e, (Head.CTRL, Ctrl.RETREAT))
    put(e, 3, "Prag", LI=1)  # the only retreat region is lost while the round is fought
    play(e, DONE, (Head.DICE, 0), (Head.DICE, 0))
    assert e.bt is not None and e.phase == Phase.AFTER_ROUND and units_at(e, blue, "Pressburg")[LI] == 4


def test_retreat_takes_the_units_chirurg_29_kept_until_the_end_of_the_round():
    """Chirurg 29: "Du entfernst Einheiten, die durch Belagerungsmaschinen oder Bogenschützen sterben, erst
    am Ende dieser Gefechtsrunde"; RÜCKZUG ends that round ("Damit endet die Gefechtsrunde"): the units the
    archers killed are removed before the army leaves, they do not escape with it."""
    from .test_cards import PLAY, card, deal
    from .test_rules import buy
    e = retreat_battle({"LI": 6}, {"AR": 3})
    blue, yellow = 0, 1
    prag = node("Prag")
    fight(e, "Pressburg", blue, yellow, [8, 8, 8] + RETREAT_ROUNDS[:6])  # round 1: the archers miss
    play(e, DONE, (Head.DICE, 0), (Head.DICE, 0))  # a tie: Blue loses 1 LI, Yellow 1 AR
    assert units_at(e, blue, "Pressburg")[LI] == 5 and units_at(e, yellow, "Pressburg")[AR] == 2
    deal(e, blue, 29)
    e.rng = ScriptedRng([1, 1] + RETREAT_ROUNDS[6:])  # round 2: both archers hit
    play(e, (Head.CTRL, Ctrl.RETREAT))
    assert e.phase == Phase.CARD_WINDOW and e.actor == blue
    buy(e, PLAY, card(29))
    decline_captures(e)
    play(e, DONE, (Head.DICE, 0), (Head.DICE, 0))
    assert units_at(e, blue, "Pressburg")[LI] == 5  # the 2 archer hits wait for the end of the round
    play(e, (Head.NODE, prag))
    assert e.bt is None and units_at(e, blue, "Prag")[LI] == 5 - 2 - 2  # loss value 1 + 1, then the archers


def test_capitulation_demanded_and_accepted():
    """Spec 5.14: if both agree, the capitulating side's units in the battle are set aside (G90);
    the attacker conquers; the units come back through the purchase phase of a later round."""
    e = war_engine(order=(0, 1, 2, 3))
    put(e, 0, "Puszta", HI=1)
    put(e, 1, "Puszta", HI=2)
    put(e, 1, "Buda", HI=1)
    fight(e, "Puszta", 0, 1, [1, 2, 3, 1, 2, 4])
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    assert e.phase == Phase.AFTER_ROUND
    play(e, (Head.CTRL, Ctrl.DEMAND_CAPITULATION))
    assert e.phase == Phase.CAPITULATION_ANSWER and e.actor == 1
    play(e, (Head.CTRL, Ctrl.ACCEPT))
    # round 1 was a tie at 3 (loss values 1 each turned one HI of each side into LI)
    assert e.bt is None and e.capitulated[1][:2] == [1, 1] and e.army[1][node("Puszta")] == 0
    assert e.controller(node("Puszta")) == 0
    assert e.total_units(1) == 1  # set-aside units cost no upkeep
    # next round's purchase phase: redeploy into an own inhabited region
    e.round += 1
    from .test_rules import menu
    from envs.medioevo_universale.constants import Purchase
    menu(e, 1)
    play(e, (Head.PURCHASE, Purchase.REDEPLOY), (Head.UNIT, HI), (Head.NODE, node("Buda")))
    assert e.capitulated[1][:2] == [1, 0] and units_at(e, 1, "Buda")[HI] == 2


def test_conquest_plunder_and_take_over():
    """D33 / G45: plundering a village and a cathedral brings 50 + 150 = 200 fl; the caravan is
    kept (its ownership marker changes hands)."""
    e = war_engine()
    buda = node("Buda")
    e.civil[buda], e.civil_owner[buda] = 1, 1
    e.cath_owner[buda] = 1
    e._new_object(1, 0, 2, buda)  # a level II caravan
    put(e, 0, "Buda", HI=3)
    put(e, 1, "Buda", LI=1)
    money = e.money[0]
    fight(e, "Buda", 0, 1, [4, 6, 8, 1, 1, 1])
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.phase == Phase.CONQUEST and e.actor == 0
    play(e, (Head.CTRL, Ctrl.PLUNDER), (Head.CTRL, Ctrl.PLUNDER), (Head.CTRL, Ctrl.KEEP))
    assert e.money[0] == money + 200
    assert e.civil[buda] == 0 and e.cath_owner[buda] == -1
    caravans = [o for o in e.objs.values() if o[1] == 0 and o[3] == buda]
    assert len(caravans) == 1 and caravans[0][0] == 0
    assert e.ep_events[0]["conquest"] == 1 + 1 + 3  # buildings counted before plundering (G52)


def tower_war():
    """Seat 1 holds towers in Buda and Kronstadt and control markers in Puszta and Slawonien; seat 0 attacks
    Buda with 3 HI against 1 LI (not yet fought)."""
    e = war_engine()
    for n in (node("Buda"), node("Kronstadt")):
        e.mil[n], e.mil_owner[n] = 1, 1
    for m in (node("Puszta"), node("Slawonien")):
        e.marker[m] = 1
        e.markers_left[1] -= 1
    put(e, 0, "Buda", HI=3)
    put(e, 1, "Buda", LI=1)
    return e


def test_control_marker_replacement_on_taking_a_tower():
    """Spec 5.16 / G92: only markers no other adjacent military building of the former owner can
    hold may be replaced."""
    e = tower_war()
    buda, puszta, slaw = node("Buda"), node("Puszta"), node("Slawonien")
    fight(e, "Buda", 0, 1, [4, 6, 8, 1, 1, 1])
    play(e, (Head.PROTECT, 2), (Head.DICE, 0), DONE, (Head.DICE, 0))
    play(e, (Head.CTRL, Ctrl.KEEP))  # the tower
    assert e.mil_owner[buda] == 0 and e.phase == Phase.CONQUEST
    assert e.conquest.items[0] == (Stake.MARKER, slaw)
    play(e, (Head.CTRL, Ctrl.KEEP))
    assert e.marker[slaw] == 0 and e.marker[puszta] == 1


def test_siege_engine_example():
    """D26 / spec 5.12: Blue crews a catapult with 1 cavalry + 1 LI and keeps 1 LI for melee; 2d8 = 1
    and 5: one hit, 2 damage to units; the crew is absent from the other steps."""
    e = war_engine()
    put(e, 0, "Puszta", CA=1, LI=2)
    put(e, 1, "Puszta", LI=3, HI=1)
    e._new_object(0, SIEGE, 1, node("Puszta"))
    fight(e, "Puszta", 0, 1, [1, 5] + [1, 1, 6, 1, 1, 6])
    assert e.phase == Phase.SIEGE_CREW and e.actor == 0
    play(e, (Head.UNIT, CA), (Head.UNIT, LI), DONE)
    assert e.bt.crew[0] == [1, 0, 0, 1, 0, 0, 0]
    assert e.fighting_units(0) == [1, 0, 0, 0, 0, 0, 0]
    assert e.phase == Phase.DAMAGE and e.actor == 1  # 2 points to Yellow's units
    play(e, (Head.UNIT, LI), (Head.UNIT, LI))
    assert units_at(e, 1, "Puszta")[:2] == [1, 1]


def test_tower_protects_against_archers():
    """D30: a tower set against archers absorbs the single archer hit (roll 2)."""
    e = war_engine()
    put(e, 0, "Puszta", AR=1, HI=1)
    put(e, 1, "Puszta", HI=1)
    n = node("Puszta")
    e.mil[n], e.mil_owner[n] = 1, 1
    fight(e, "Puszta", 0, 1, [2] + [1, 1, 1])
    play(e, (Head.PROTECT, 1))
    assert e.bt.last_archer_hits == [1, 0]
    assert units_at(e, 1, "Puszta")[HI] == 1  # the hit was absorbed


def test_capture_example():
    """D32: Blue attacks to capture with only 2:1, so he halves: 7 + 2 = 9 -> 4.5 -> 5 (the +2 of card 5
    comes with the cards; here a start-player roll of 9 stands for it) against Yellow's 3: Blue wins
    and the destroyed yellow unit becomes a prisoner; Yellow's loss value is skipped."""
    e = war_engine(order=(0, 1, 2, 3))
    put(e, 0, "Puszta", HI=2)
    put(e, 1, "Puszta", LI=1)
    fight(e, "Puszta", 0, 1, [3, 3, 1, 1, 3, 2], captures=True)
    assert e.phase == Phase.CAPTURE_DECLARE and e.actor == 0
    play(e, (Head.CTRL, Ctrl.CAPTURE), DONE, captures=True)  # Blue captures, Yellow does not
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))  # Yellow declines to sacrifice his LI
    assert e.bt is None
    assert e.prisoners[0][1] == [1, 0, 0, 0, 0, 0, 0] and e.army[1][node("Puszta")] == 0
    assert e.final_awards()["prisoners"][1] == -3
    # ransom in a later purchase phase: 2 x 20 fl to the captor, within the unit limit
    from envs.medioevo_universale.constants import Purchase
    from .test_rules import menu
    money = e.money[:]
    menu(e, 1)
    play(e, (Head.PURCHASE, Purchase.RANSOM), (Head.UNIT, LI), (Head.NODE, node("Buda")))
    assert e.money[1] == money[1] - 40 and e.money[0] == money[0] + 40
    assert e.prisoners[0][1][LI] == 0 and units_at(e, 1, "Buda")[LI] == 1


def test_naval_battle():
    """D28 / spec 5.13: Yellow's 3 level I galleys against Blue's 2 level II: Blue +1 attack. At sea
    only archer and LI abilities work and HI die from one damage point; the beaten side's galleys
    that lost their units sink on 1-3, the rest are captured or plundered (G42)."""
    e = war_engine(order=(0, 1, 2, 3))
    blue, yellow = 0, 1
    genua, tyr = node("Genua"), node("Tyrrhenisches Meer (Tyrrhenian Sea)")
    for _ in range(3):
        e._new_object(yellow, GALLEY, 1, tyr)
    e.cargo[e.slots[yellow][0]][HI] = 1
    e.unit_supply[yellow][HI] -= 1
    e._new_object(blue, GALLEY, 2, genua)
    e._new_object(blue, GALLEY, 2, tyr)
    put(e, blue, "Genua", HI=2)
    e._start_war()
    e.rng = ScriptedRng([1, 1, 4, 1, 1, 3, 2])
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.LOAD, HI), (Head.NODE, tyr))
    assert e.bt is not None and e.bt.naval and e.ep_events[blue]["undeclared_attack"] == -3
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    assert e.bt is None or e.bt.av == [5, 2]  # Blue 4 + 1 (galley levels 4 vs 3); Yellow 3 - 1
    assert sum(e.army[yellow]) == 0 and sum(e.army[blue]) == 0  # everyone is back aboard
    # Blue's result 2 kills Yellow's HI; Blue's loss value 1 kills one HI outright (at sea)
    assert sum(e.cargo[e.slots[blue][0]]) == 1
    assert sum(1 for o in e.objs.values() if o[0] == yellow) == 2  # the crewed galley sank (roll 2)
    assert e.phase == Phase.CONQUEST and e.actor == blue  # Yellow's galleys that stayed afloat


def test_galley_carries_wagons_and_siege_engines():
    """Spec 2.5: "a level II galley carrying 1 war wagon, 1 catapult and 3 units has 5 of its 6 slots
    used"; they go ashore where the galley docks."""
    e = war_engine()
    genua, tyr, rom = node("Genua"), node("Tyrrhenisches Meer (Tyrrhenian Sea)"), node("Rom")
    e._new_object(0, GALLEY, 2, genua)
    e._new_object(0, WAR_WAGON, 1, genua)
    e._new_object(0, SIEGE, 1, genua)
    e._new_object(0, SIEGE, 1, genua)
    put(e, 0, "Genua", LI=4)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.EMBARK, 1), (Head.EMBARK, 2), (Head.LOAD, LI), (Head.LOAD, LI),
         (Head.LOAD, LI))
    assert (Head.EMBARK, 3) in e.legal_moves() and (Head.LOAD, LI) in e.legal_moves()  # 1 slot left
    play(e, (Head.LOAD, LI))
    assert not any(m[0] in (Head.EMBARK, Head.LOAD) for m in e.legal_moves())  # 6 of 6
    play(e, (Head.NODE, tyr))
    assert e.objs[e.slots[0][1]][3] == -1 and not any(m[0] == Head.DISEMBARK for m in e.legal_moves())
    play(e, (Head.NODE, genua), (Head.DISEMBARK, 1), (Head.DISEMBARK, 2))
    assert e.objs[e.slots[0][1]][3] == genua and e.objs[e.slots[0][2]][3] == genua
    assert e.objs[e.slots[0][2]][5]  # the catapult moved: stop marker (G85)
    assert rom not in e.land_nodes or e.controller(rom) == -1


def test_galley_siege_levels_in_naval_battles():
    """D29: a level II galley can use 2 catapults or 1 trebuchet; a level III galley 3 catapults, a
    trebuchet + a catapult, or a bombard."""
    tyr = node("Tyrrhenisches Meer (Tyrrhenian Sea)")
    cases = [(2, [1, 1], 2), (2, [2, 1], 1), (3, [1, 1, 1], 3), (3, [2, 1], 2), (3, [3, 1], 1)]
    for level, engines, usable in cases:
        e2 = war_engine(order=(0, 1, 2, 3))
        galley = e2._new_object(0, GALLEY, level, tyr)
        for lv in engines:
            oid = e2._new_object(0, SIEGE, lv, tyr)
            e2.objs[oid][3] = -1
            e2.aboard.setdefault(galley, []).append(oid)
            e2.carried_by[oid] = galley
        e2._add_units(0, tyr, HI, 3)
        e2._new_object(1, GALLEY, 1, tyr)
        e2._add_units(1, tyr, HI, 1)
        e2.naval_crewed = []
        e2.rng = ScriptedRng([])
        e2.stage = Stage.WAR
        e2.actor = e2.mover = 0
        e2.carrier, e2.move_steps = galley, 1
        e2._start_battle(tyr, 0, 1)
        decline_captures(e2)
        assert e2.phase == Phase.SIEGE_CREW
        assert len(e2.bt.engines[0]) == usable, (level, engines)


def test_siege_engine_accompanies_a_war_wagon():
    """Spec 5.9: siege engines in the start region may accompany the group step by step, paying their
    own MP (4); one that runs out of MP stays behind; engines that moved are stopped (G85)."""
    e = war_engine()
    aachen, franken, prag = node("Aachen"), node("Franken"), node("Prag")
    e._new_object(0, WAR_WAGON, 1, aachen)
    e._new_object(0, SIEGE, 1, aachen)
    put(e, 0, "Aachen", HI=1)
    e.objs[e.slots[0][1]][4] = 1  # the catapult has 1 MP left
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.EMBARK, 1), (Head.NODE, franken), (Head.NODE, prag), DONE)
    catapult = e.objs[e.slots[0][1]]
    assert catapult[3] == franken and catapult[4] == 0 and catapult[5]
    assert e.objs[e.slots[0][0]][3] == prag
