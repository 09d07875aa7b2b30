"""Multi-party war (spec 5.15, rulebook MEHRPARTEIENKRIEG): an army entering a region with several
opponents fights them one after another; barbarians first, then the attacker picks; conquest only
when its army is left alone (GEBIETE EROBERN)."""
import copy
import random

import numpy as np
import pytest

from envs.core import TabletopEnv, testing
from envs.core.errors import IllegalActionError
from envs.medioevo_universale import SPEC
from envs.medioevo_universale.constants import (
    BLUE, CIVIL, GALLEY, HI, LI, WAR_WAGON, Ctrl, EventStage, Head, Phase, Stake,
)
from envs.medioevo_universale.data import game_data, markers_feasible
from envs.medioevo_universale.diplomacy import Offer, Treaty
from envs.medioevo_universale.technologies import KARTOGRAFIE, TechWindow

from .forced import forced_decisions, touched
from .test_encoder_cache import assert_matches_fresh_encoder
from .test_fuzz import check_invariants
from .test_rules import NT, node
from .test_war import DONE, ScriptedRng, fight, play, put, war_engine

HRE, HUN, BYZ, GH = 0, 1, 2, 3
GAMES = 10  # forced fuzz games per player count
WIN = [1, 1, 8, 1, 1, 1]  # the attacker rolls 8 / 1, the defender 1 / 1: 3 HI destroy 1 LI, no loss
LOSE = [1, 1, 1, 4, 1, 8]  # 2 LI roll 1 / 1 against 3 LI with 8 / 1: the attacker is destroyed


def treaty(e, a, b, kind=Treaty.RIGHT_OF_WAY):
    e._conclude(Offer(a, b, kind=kind, term=5))


def three_party_engine(dice, attacker=HI, hun_li=1):
    """HUN's army in its Pressburg with BYZ's as its right-of-way guest, a HUN village and a BYZ war wagon
    there; HRE's 3 HI (or 2 LI) and a war wagon in Prag next door; phase 5, HRE to move."""
    e = war_engine()
    treaty(e, HUN, BYZ)
    pressburg = put(e, HUN, "Pressburg", LI=hun_li)
    put(e, BYZ, "Pressburg", LI=1)
    e.civil[pressburg], e.civil_owner[pressburg] = 1, HUN
    e.building_supply[0] -= 1
    e._new_object(BYZ, WAR_WAGON, 1, pressburg)
    put(e, HRE, "Prag", **({"HI": 3} if attacker == HI else {"LI": 2}))
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    assert e.controller(pressburg) == HUN and e.hostile_sides(pressburg) == 1
    e._start_war()
    assert e.phase == Phase.WAR_TURN and e.actor == HRE
    e.rng = ScriptedRng(dice)
    return e


def enter(e, where="Pressburg"):
    """HRE's war wagon loads the whole army in Prag and steps into ``where``."""
    play(e, (Head.OBJECT, 0))
    for t in (HI, LI):
        for _ in range(e.units[HRE][node("Prag") * NT + t]):
            play(e, (Head.LOAD, t))
    play(e, (Head.NODE, node(where)))


def one_round(e):
    """Attacker and defender keep their dice; the defender sacrifices no LI."""
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))


def test_attacker_fights_each_opponent_in_the_chosen_order_then_conquers():
    """MEHRPARTEIENKRIEG: "Sind mehr als 2 Parteien in einem Gebiet vertreten ..., so wählt der aktive
    Spieler, wen er zuerst angreift ... Man muss nacheinander mit jedem Gegner kämpfen, und jede Schlacht
    wird für sich komplett abgehandelt, bevor die nächste beginnt." GEBIETE EROBERN: "Überlebt nur das
    angreifende Heer die Schlacht(en) ... erobert der Angreifer das Gebiet": one conquest at the end, its
    decisions over the objects of both beaten players."""
    e = three_party_engine(WIN + WIN)
    pressburg = node("Pressburg")
    enter(e)
    assert e.phase == Phase.NEXT_OPPONENT and e.actor == HRE and e.bt is None
    assert e.legal_moves() == [(Head.PLAYER, 0), (Head.PLAYER, 1)]  # +1 = HUN, +2 = BYZ
    assert not e.at_war[HRE][HUN] and not e.at_war[HRE][BYZ]  # nobody attacked yet
    play(e, (Head.PLAYER, 1))  # BYZ first
    assert e.bt.owners == [HRE, BYZ] and e.at_war[HRE][BYZ] and not e.at_war[HRE][HUN]
    one_round(e)
    # the first battle is over: no conquest yet, the second starts at once against the last opponent
    assert e.army[BYZ][pressburg] == 0 and "conquest" not in e.ep_events[HRE]
    assert e.bt.owners == [HRE, HUN] and e.at_war[HRE][HUN]
    assert e.ep_events[HRE]["undeclared_attack"] == -6  # two acts of war, one per battle
    one_round(e)
    assert e.bt is None and e.multi_war is None and e.sole_army(pressburg, HRE)
    assert e.ep_events[HRE]["conquest"] == 2  # 1 + the village, once
    assert e.phase == Phase.CONQUEST and e.actor == HRE
    byz_wagon = e.conquest_item()[1]
    assert e.conquest_item()[0] == Stake.OBJECT and e.objs[byz_wagon][0] == BYZ  # the beaten guest's war wagon
    money = e.money[HRE]
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert e.conquest_item() == (Stake.BUILDING, CIVIL)  # then HUN's village (in the order of the battles)
    play(e, (Head.CTRL, Ctrl.KEEP))
    assert e.civil_owner[pressburg] == HRE and byz_wagon not in e.objs and e.money[HRE] > money
    assert e.conquest is None and e.controller(pressburg) == HRE


def test_the_sequence_ends_when_the_attacker_is_destroyed_and_the_others_stay():
    """Each battle is the ordinary two-party battle: when the attacker's army is destroyed in the first
    one, the second never starts (no act of war against the seat never attacked) and the host and its
    guest stay; the winner decides over the attacker's transports left there (G75)."""
    e = three_party_engine(LOSE, attacker=LI, hun_li=3)
    pressburg = node("Pressburg")
    enter(e)
    play(e, (Head.PLAYER, 0))  # HUN first
    play(e, (Head.DICE, 0), (Head.DICE, 0))  # LI on both sides: no LI ability, no sacrifice
    assert e.army[HRE][pressburg] == 0 and e.multi_war is None
    assert e.army[HUN][pressburg] and e.army[BYZ][pressburg] and e.hostile_sides(pressburg) == 1
    assert e.at_war[HRE][HUN] and not e.at_war[HRE][BYZ]
    assert e.phase == Phase.CONQUEST and e.actor == HUN  # G75: HRE's war wagon
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert e.controller(pressburg) == HUN and "conquest" not in e.ep_events[HRE]


def test_a_retreat_ends_the_sequence_without_conquest():
    """The attacker retreats in the second battle: the first opponent is beaten, the second keeps the
    region, nothing is conquered."""
    e = three_party_engine(WIN + [1, 1, 2, 1, 1, 2] + [1, 1, 1, 1, 1, 1])
    pressburg = node("Pressburg")
    e.units[HUN][pressburg * NT + LI] += 3  # 4 LI: one tied round does not end the second battle
    e.army[HUN][pressburg] += 3
    e.unit_supply[HUN][LI] -= 3
    enter(e)
    play(e, (Head.PLAYER, 1))
    one_round(e)
    assert e.bt.owners == [HRE, HUN]
    one_round(e)  # 2 / 1 against 1 / 1 (HUN's malus): 1 LI lost
    assert e.phase == Phase.AFTER_ROUND
    play(e, (Head.CTRL, Ctrl.RETREAT))
    one_round(e)
    play(e, (Head.NODE, node("Prag")))
    assert e.bt is None and e.multi_war is None and e.army[HRE][pressburg] == 0 and e.army[HRE][node("Prag")]
    assert e.controller(pressburg) == HUN and "conquest" not in e.ep_events[HRE]


def test_a_treaty_partner_is_not_fought_and_blocks_the_conquest():
    """Hinweis: "... ist der Spieler frei, wen er zuerst angreift, und allenfalls durch Staatsverträge
    gebunden." HRE has right of way with BYZ (the guest): only HUN is fought (a two-party battle); BYZ
    stays, so HRE's army is not the only one left and conquers nothing (ASSUMPTION)."""
    e = three_party_engine(WIN)
    treaty(e, HRE, BYZ)
    pressburg = node("Pressburg")
    enter(e)
    assert e.bt.owners == [HRE, HUN] and e.multi_war is None
    one_round(e)
    assert e.bt is None and e.army[HUN][pressburg] == 0 and e.army[BYZ][pressburg] and e.army[HRE][pressburg]
    assert "conquest" not in e.ep_events[HRE] and e.civil_owner[pressburg] == HUN
    assert e.phase == Phase.WAR_TURN and e.hostile_sides(pressburg) == 1


def test_a_ceasefire_partner_in_the_region_masks_the_entry():
    """A ceasefire partner may not be attacked, and HRE's army may not stand beside it either: the entry
    is masked (ASSUMPTION); an illegal choice raises and leaves the state unchanged."""
    e = three_party_engine(WIN)
    e.at_war[HRE][BYZ] = e.at_war[BYZ][HRE] = True
    e.ceasefires.add((HRE, BYZ))
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI))
    pressburg = node("Pressburg")
    assert (Head.NODE, pressburg) not in e.legal_moves()
    before = e.clone()
    with pytest.raises(IllegalActionError):
        e.play((Head.NODE, pressburg))
    assert e.army == before.army and e.phase == before.phase and e.multi_war is None


def test_an_opponent_not_in_the_region_cannot_be_chosen():
    e = three_party_engine(WIN)
    enter(e)
    state = (e.phase, e.actor, copy.deepcopy(e.multi_war))
    with pytest.raises(IllegalActionError):
        e.play((Head.PLAYER, 2))  # +3 = GH has no army there
    assert (e.phase, e.actor, e.multi_war) == state


def one_barbarian(e, where: int) -> None:
    """One barbarian LI from the supply into ``where`` (a constructed state), with the lowest barbarian dice."""
    e._add_barb(where, 0, 1)
    e.barb_supply[0] -= 1
    e.barb_dice = [1, 1, 1]


def test_barbarians_are_always_attacked_first():
    """"sind Barbaren dort, muss ihnen immer der erste Angriff gelten": with barbarians beside the two
    players' armies (a constructed state: outside a battle they never share a region), the barbarian
    battle starts at once; then HRE chooses between the players."""
    e = three_party_engine(WIN + WIN + WIN)
    pressburg = node("Pressburg")
    one_barbarian(e, pressburg)
    enter(e)
    assert e.bt.owners == [HRE, -1] and e.multi_war.left == [HUN, BYZ]
    play(e, (Head.DICE, 0))
    assert e.barb_total[pressburg] == 0 and e.phase == Phase.NEXT_OPPONENT
    assert e.legal_moves() == [(Head.PLAYER, 0), (Head.PLAYER, 1)]
    play(e, (Head.PLAYER, 0))
    assert e.bt.owners == [HRE, HUN]


def test_observation_shows_the_pending_sequence_to_every_seat():
    """Field multi_war: region, attacker, opponents left, the choice pending; the same for the others,
    relative to each observer; the cached encoder equals a fresh one at every step."""
    env = TabletopEnv(SPEC, num_players=4)
    env.reset(seed=0)
    e = three_party_engine(WIN + WIN)
    env.engine = e
    s = env.encoder.layout.slices["multi_war"]
    nn, n = e.board.num_nodes, 4
    assert not env.encoder.encode(e, HUN)[s].any()
    enter(e)
    for seat in range(n):
        v = env.encoder.encode(e, seat)[s]
        rel = lambda q: (q - seat) % n  # noqa: E731
        expect = np.zeros_like(v)
        expect[node("Pressburg")] = 1
        expect[nn + rel(HRE)] = 1
        expect[nn + n + rel(HUN)] = expect[nn + n + rel(BYZ)] = 1
        expect[nn + 2 * n + 1] = 1  # the choice is pending
        assert np.array_equal(v, expect), seat
    assert_matches_fresh_encoder(env, range(n))
    play(e, (Head.PLAYER, 1))
    v = env.encoder.encode(e, HUN)[s]
    assert v[nn + n + (HUN - HUN) % n] == 1 and v[nn + n + (BYZ - HUN) % n] == 0 and v[nn + 2 * n + 1] == 0
    assert_matches_fresh_encoder(env, range(n))
    one_round(e)
    one_round(e)
    assert e.multi_war is None and not env.encoder.encode(e, GH)[s].any()
    assert_matches_fresh_encoder(env, range(n))


def test_no_purchase_beside_a_guest_the_buyer_may_not_pass():
    """Found by the fuzz below: HRE's stationing partner HUN hosts BYZ's army in Pressburg; a unit HRE
    bought there would stand beside BYZ's army (no treaty between them) outside a battle, and would be
    left facing it once HUN's army leaves: Pressburg is no placement region for HRE while BYZ is there."""
    e = war_engine()
    treaty(e, HUN, BYZ)
    treaty(e, HRE, HUN, Treaty.STATIONING)
    pressburg = put(e, HUN, "Pressburg", LI=1)
    assert e.unit_place_ok(HRE, pressburg) and pressburg in e.unit_places(HRE)
    put(e, BYZ, "Pressburg", LI=1)
    assert e.controller(pressburg) == HUN
    assert not e.unit_place_ok(HRE, pressburg) and pressburg not in e.unit_places(HRE)
    treaty(e, HRE, BYZ)  # a right-of-way partner's army is no obstacle
    assert e.unit_place_ok(HRE, pressburg) and pressburg in e.unit_places(HRE)


def test_barbarians_fight_the_host_and_then_its_guest():
    """A revolt in HUN's Pressburg where HRE's army stands as a right-of-way guest: "Man muss nacheinander
    mit jedem Gegner kämpfen" read for the barbarians (ASSUMPTION): the revolt's player first, then the
    guest, each a complete battle; phase 2 resumes after the last one."""
    e = war_engine()
    treaty(e, HRE, HUN)
    pressburg = put(e, HUN, "Pressburg", LI=1)
    put(e, HRE, "Pressburg", HI=1)
    e.horde, e.barb_dice = [3, 0, 0], [1, 1, 5]  # 3 LI rolling 5 / 1
    e.ev_stage, e.buildup_left = EventStage.BUILDUP, 3
    e.rng = ScriptedRng([1, 1, 1] + [1, 1, 8])
    assert e._place_revolt(HUN, pressburg)
    assert e.bt.owners == [-1, HUN] and e.army[HRE][pressburg] == 1  # the guest stays and waits
    play(e, (Head.DICE, 0))  # HUN 1 - 1 (malus) against 5: its LI falls; the barbarians lose 1 LI
    assert e.army[HUN][pressburg] == 0 and e.barb_total[pressburg] == 2
    assert e.bt.owners == [-1, HRE] and e.barbarian_war.left == []
    play(e, (Head.DICE, 0))  # HRE 8 against 5: 1 hit, the barbarians' loss value the other
    assert e.bt is None and e.barbarian_war is None and e.barb_total[pressburg] == 0
    assert e.units[HRE][pressburg * NT + HI] == 1 and e.phase == Phase.BUILDUP


def test_a_retreat_whose_destination_is_lost_during_the_round_stays():
    """Found by the fuzz below (Kartografie moved the unit that held the only retreat region out of it):
    when no retreat region is left after step 9 of the round the army stays and the battle goes on
    (ASSUMPTION) instead of a decision without a legal move."""
    e = war_engine()
    pressburg, prag = put(e, HRE, "Pressburg", HI=3), node("Prag")
    put(e, HUN, "Pressburg", LI=4)
    e._new_object(HRE, WAR_WAGON, 1, pressburg)
    fight(e, "Pressburg", HRE, HUN, [1, 1, 2, 1, 1, 2] * 2)
    one_round(e)
    assert e.phase == Phase.AFTER_ROUND and e.retreat_destinations() == [prag]
    play(e, (Head.CTRL, Ctrl.RETREAT))
    put(e, GH, "Prag", LI=1)  # the way back is lost while the round is fought
    one_round(e)
    assert e.bt is not None and e.phase == Phase.AFTER_ROUND and e.army[HRE][pressburg] == 3


# ------------------------------------------------------------------------------------ fuzz ----
def force_three_party_regions(e):
    """Right of way 0-1, 1-2, 2-3 (for the whole game), war between the other pairs, every seat 3000 fl;
    every war wagon gets 3 HI, and every region a seat controls 1 LI of its own (if it has no army; in
    about a third of them not) and 1 LI of a right-of-way partner (a guest): entries then meet a host with
    a guest, either both opponents or one of them a partner, or a guest alone in its host's region."""
    n = e.num_players
    pairs = [(p, p + 1) for p in range(n - 1)]
    for a, b in pairs:
        treaty(e, a, b)
    for t in e.treaties:
        t.until = 0
    for p in range(n):
        e._bank(p, 3000)
        e.tech[p][BLUE] = max(e.tech[p][BLUE], 4)  # Kartografie: an absent host may join (W-INVADE)
        for q in range(n):
            if q != p and (min(p, q), max(p, q)) not in pairs:
                e.at_war[p][q] = True
    for o in [o for o in e.objs.values() if o[1] == WAR_WAGON and o[3] >= 0]:
        k = min(3, e.unit_supply[o[0]][HI])
        e.unit_supply[o[0]][HI] -= k
        e._add_units(o[0], o[3], HI, k)
    control = e.control_map()
    for y, host in enumerate(control):
        if host < 0 or e.board.is_sea[y] or any(e.army[q][y] for q in range(n) if q != host):
            continue
        pick = random.Random(y)
        guest = pick.choice([g for g in (host - 1, host + 1) if 0 <= g < n])
        host_away = pick.random() < 0.3  # the guest alone in its host's region
        for p in (host, guest):
            if e.unit_supply[p][LI] and (p == guest or not e.army[p][y] and not host_away):
                e.unit_supply[p][LI] -= 1
                e._add_units(p, y, LI, 1)
        # a seat at war with both (or with the guest, if the host is away) gets 2 HI and a war wagon next door
        for p in range(n):
            if not (e.at_war[p][guest] and (e.at_war[p][host] or not e.army[host][y])) or e.unit_supply[p][HI] < 2:
                continue
            x = next((x for x in e.board.land_adj[y] if e.playable[x] and not e.barb_total[x]
                      and not any(e.army[q][x] for q in range(n))), -1)
            levels = e.owned_levels(p)
            levels[0] += 1
            if x < 0 or e.free_slot(p) < 0 or not e.vehicle_supply[WAR_WAGON] or not markers_feasible(tuple(levels)):
                continue
            e.vehicle_supply[WAR_WAGON] -= 1
            e._new_object(p, WAR_WAGON, 1, x)
            e.unit_supply[p][HI] -= 2
            e._add_units(p, x, HI, 2)


def guest_in_partners_region(e, p, y):
    """Whether land region y is controlled by p's right-of-way partner and holds an army p would fight."""
    host = e.controller(y)
    return host >= 0 and host != p and e.may_pass(p, host) and e._opposing_army(p, y)


def towards_crowded_regions(e, legal, codec, pick):
    """The random player's bias: carriers, loading, steps into regions holding armies of two other seats
    or a foe's army in a partner's region, and Kartografie in W-INVADE."""
    def starting(*heads):
        return [i for i in legal if codec.decode(e, i)[0] in heads]
    if e.phase == Phase.WAR_TURN and starting(Head.OBJECT) and pick.random() < 0.8:
        return starting(Head.OBJECT)
    if e.phase == Phase.TECH_USE and e.tech_use.window == TechWindow.INVADE and pick.random() < 0.9:
        return [i for i in legal if codec.decode(e, i) != DONE] or legal  # the absent host or an ally comes in
    if e.phase == Phase.MOVE:
        p = e.actor
        crowded = [i for i in starting(Head.NODE) if sum(1 for q in range(e.num_players) if q != p
                                                         and e.army[q][codec.decode(e, i)[1]]) >= 2
                   or guest_in_partners_region(e, p, codec.decode(e, i)[1])]
        if sum(e.carrier_cargo()) and crowded and pick.random() < 0.9:
            return crowded
        if pick.random() < 0.8:
            return starting(Head.LOAD) or starting(Head.NODE) or legal
    return legal


@pytest.mark.parametrize("n", [4, 6])
def test_fuzz_multi_party_wars(n):
    """Random play forced towards regions of a host and its treaty guest (see above), the random player
    preferring carriers, loading and steps into them: multi-party wars make the attacker choose, fight a
    second battle, end in a conquest (with its EP) and end with the attacker gone, entries leave the
    attacker beside a partner's army or alone in a partner's region (no conquest), absent hosts and allies
    of the host (G70) come in by Kartografie (W-INVADE) and join the sequence, and barbarians fight a second
    army of a region; the
    package invariants after every step (no two hostile armies share a region outside a battle, a pending
    multi-party war or W-INVADE), the cached encoder equal to a fresh one whenever a sequence is pending
    or has just ended or a W-INVADE window is open, and the observation in its space now and then."""
    seen = {"choice": 0, "second battle": 0, "conquered": 0, "attacker gone": 0, "beside a partner": 0,
            "barbarians fight a second army": 0, "alone in a partner's region": 0,
            "an absent host joins by Kartografie": 0, "an ally joins by Kartografie": 0, "fresh encoder checks": 0}
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=0)
    steps = 0
    for seed in range(GAMES):
        for agent, obs, pick in forced_decisions(env, seed, force_three_party_regions):
            e = env.engine
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            legal = towards_crowded_regions(e, legal, env.codec, pick)
            mw = e.multi_war
            before = None if mw is None else (mw.node, mw.attacker, len(mw.fought))
            battle = None if e.bt is None or e.bt.naval else (e.bt.node, e.bt.owners[0], e.entry_host)
            conquests = sum(e.stat_conquered)
            seen["choice"] += e.phase == Phase.NEXT_OPPONENT
            use = e.tech_use
            window = use if use is not None and use.window == TechWindow.INVADE else None
            ctx = use.context if window else None
            present = e.army[use.seat][ctx.node] if window else 0
            if pick.random() < 0.02:
                testing.observation_in_space(env, agent, obs)
            env.step(pick.choice(legal))
            steps += 1
            check_invariants(env)
            mw = e.multi_war
            if window and e.army[use.seat][ctx.node] > present:  # the host or an ally of it came in
                if e.tech_use is None and ctx.opponents:  # no further window: one more opponent of the sequence
                    assert mw is not None and mw.node == ctx.node
                    assert sorted(mw.left + mw.fought) == sorted([*ctx.opponents, use.seat])
                elif e.tech_use is None:  # it turned the takeover into the battle of an invasion
                    assert e.bt is not None and e.bt.owners == [ctx.invader, use.seat]
                else:  # the next decider's window, with the newcomer among the opponents
                    assert e.tech_use.window == TechWindow.INVADE and use.seat in e.tech_use.context.opponents
                key = "an absent host joins by Kartografie" if use.seat == ctx.controller else \
                    "an ally joins by Kartografie"
                seen[key] += 1
            if mw is not None:
                seen["second battle"] += e.bt is not None and len(mw.fought) > 1
                assert e.phase != Phase.NEXT_OPPONENT or len(mw.left) > 1 and -1 not in mw.left
            if before is not None and mw is None:  # a sequence ended
                y, p, _ = before
                if e.army[p][y] and e.sole_army(y, p):  # conquered: the EP once per region and round
                    assert y in e.conquered_round or not e.board.inhabited[y] or e.home_owner[y] == p
                    seen["conquered"] += 1
                elif e.army[p][y]:
                    assert sum(e.stat_conquered) == conquests  # another army is left: no conquest
                else:
                    seen["attacker gone"] += 1
            invading = e.tech_use is not None and e.tech_use.window == TechWindow.INVADE
            if mw is not None and e.phase == Phase.NEXT_OPPONENT or before is not None and mw is None or invading:
                assert_matches_fresh_encoder(env, {e.current_player, 0} - {-1})
                seen["fresh encoder checks"] += 1
            war = e.barbarian_war
            seen["barbarians fight a second army"] += war is not None and e.bt is not None and len(war.fought) > 1
            if battle is not None and e.bt is None and mw is None:  # a battle ended, no sequence pending
                y, p, host = battle
                if p >= 0 and e.army[p][y] > 0 and not e.sole_army(y, p):
                    assert sum(e.stat_conquered) == conquests  # the partner's army is left: no conquest
                    seen["beside a partner"] += 1
                elif p >= 0 and e.army[p][y] > 0 and host >= 0 and p == e.mover and e.may_pass(p, host):
                    assert sum(e.stat_conquered) == conquests and e.controller(y) == host  # G24: a guest
                    seen["alone in a partner's region"] += 1
        assert env.engine.is_over
    print(f"multi-party fuzz, {n} players: {GAMES} games, {steps} steps, {seen}")
    assert all(seen.values()), seen


# ------------------------------------------------------------------------------------- sea ----
TYR = "Tyrrhenisches Meer (Tyrrhenian Sea)"
AFLOAT = 5  # the 1d8 of a galley that lost its units: 4-8 it stays afloat, 1-3 it sinks


def crew(e, p, where, level=1, **units):
    """A galley of p at sea with units aboard (none: an empty galley)."""
    oid = e._new_object(p, GALLEY, level, node(where))
    for name, k in units.items():
        t = {"LI": LI, "HI": HI}[name]
        e.cargo[oid][t] += k
        e.unit_supply[p][t] -= k
    return oid


def sea_engine(dice, hre_hi=3):
    """HUN's and BYZ's level I galleys with 1 LI each in the Tyrrhenian Sea, HRE's level II galley with
    ``hre_hi`` HI in Genua next to it; phase 5, HRE to move."""
    e = war_engine()
    crew(e, HUN, TYR, LI=1)
    crew(e, BYZ, TYR, LI=1)
    e._new_object(HRE, GALLEY, 2, node("Genua"))
    put(e, HRE, "Genua", HI=hre_hi)
    e._start_war()
    e.rng = ScriptedRng(dice)
    return e


def sail(e):
    """HRE's galley loads the whole army in Genua and enters the Tyrrhenian Sea."""
    play(e, (Head.OBJECT, 0))
    for _ in range(e.army[HRE][node("Genua")]):
        play(e, (Head.LOAD, HI))
    play(e, (Head.NODE, node(TYR)))


def test_a_galley_fights_each_hostile_crew_and_takes_the_beaten_ships_after_each_battle():
    """SEEKRIEG follows the land procedure ("folgen Seeschlachten in allen Einzelheiten der Prozedur für
    Landschlachten"), MEHRPARTEIENKRIEG included: HRE picks BYZ first. "jede Schlacht wird für sich komplett
    abgehandelt, bevor die nächste beginnt": the beaten BYZ's galley still afloat is captured or plundered
    (G42) before the battle against HUN starts (ASSUMPTION); then HUN's two galleys."""
    e = sea_engine((WIN + [AFLOAT]) * 2)
    hun_spare = crew(e, HUN, TYR)  # an empty HUN galley beside the crewed one
    tyr = node(TYR)
    sail(e)
    assert e.phase == Phase.NEXT_OPPONENT and e.actor == HRE and e.bt is None
    assert e.legal_moves() == [(Head.PLAYER, 0), (Head.PLAYER, 1)]
    state = (e.phase, e.actor, copy.deepcopy(e.multi_war))
    with pytest.raises(IllegalActionError):
        e.play((Head.PLAYER, 2))  # +3 = GH has no galley there
    assert (e.phase, e.actor, e.multi_war) == state
    play(e, (Head.PLAYER, 1))  # BYZ first
    assert e.bt.naval and e.bt.owners == [HRE, BYZ] and not e.at_war[HRE][HUN]
    one_round(e)  # HRE 8 + 1 (galley levels 2 against 1) beats BYZ's LI; its loss value 1 kills 1 HI
    assert e.bt is None and e.multi_war.left == [HUN]
    assert e.phase == Phase.CONQUEST and e.actor == HRE and e.conquest.loser == BYZ
    byz_galley = e.conquest_item()[1]
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert byz_galley not in e.objs
    assert e.bt.owners == [HRE, HUN] and e.at_war[HRE][HUN]  # the second battle, at once
    assert e.bt.galleys[1] == [oid for oid, o in e.objs.items() if o[0] == HUN]  # both count (+1 each)
    one_round(e)
    assert e.bt is None and e.multi_war.left == []  # the sequence ends once HUN's ships are decided
    assert e.phase == Phase.CONQUEST and [item[1] for item in e.conquest.items][-1] == hun_spare
    play(e, (Head.CTRL, Ctrl.KEEP), (Head.CTRL, Ctrl.PLUNDER))
    assert e.multi_war is None
    assert sorted(o[0] for o in e.objs.values() if o[3] == tyr) == [HRE, HRE]
    assert sum(e.cargo[e.slots[HRE][0]]) == 1 and not any(e.army[HRE])  # 3 HI, one lost per battle; aboard
    assert e.phase == Phase.WAR_TURN and e.ep_events[HRE]["undeclared_attack"] == -6


def test_an_empty_hostile_fleet_is_taken_in_its_turn_without_a_battle():
    """G42: "Empty hostile galleys ... in a sea zone entered by your galley with units are captured or
    plundered": BYZ has only an empty galley there; chosen first, it is taken at once (an act of war), and
    the battle against HUN follows."""
    e = sea_engine(WIN + [AFLOAT])
    byz_galley = next(oid for oid, o in e.objs.items() if o[0] == BYZ)
    e.unit_supply[BYZ][LI] += e.cargo[byz_galley][LI]
    e.cargo[byz_galley][LI] = 0
    sail(e)
    play(e, (Head.PLAYER, 1))
    assert e.bt is None and e.phase == Phase.CONQUEST and e.conquest_item() == (Stake.OBJECT, byz_galley)
    assert e.at_war[HRE][BYZ] and not e.at_war[HRE][HUN]
    play(e, (Head.CTRL, Ctrl.KEEP))
    assert e.objs[byz_galley][0] == HRE
    assert e.bt.owners == [HRE, HUN] and e.bt.galleys[0] == sorted([e.slots[HRE][0], byz_galley])
    one_round(e)
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert e.multi_war is None and e.phase == Phase.WAR_TURN
    assert not any(o[0] in (HUN, BYZ) for o in e.objs.values())


def test_barbarian_galleys_are_fought_first_at_sea():
    """"sind Barbaren dort, muss ihnen immer der erste Angriff gelten" (barbarian galleys beside players'
    crews: a constructed state); then HRE chooses."""
    e = sea_engine(WIN)
    tyr = node(TYR)
    one_barbarian(e, tyr)
    sail(e)
    assert e.bt.owners == [HRE, -1] and e.multi_war.left == [HUN, BYZ]
    play(e, (Head.DICE, 0))
    assert e.barb_total[tyr] == 0 and e.phase == Phase.NEXT_OPPONENT
    assert len([o for o in e.objs.values() if o[3] == tyr]) == 3  # nothing to take from barbarians


def test_a_beaten_attacker_ends_the_naval_sequence():
    """HRE's single HI loses against HUN: its galley (afloat) goes to the winner (G42, G75) and BYZ is
    never attacked."""
    e = sea_engine(LOSE + [AFLOAT], hre_hi=1)
    hun_galley = next(oid for oid, o in e.objs.items() if o[0] == HUN)
    e.cargo[hun_galley][LI] += 2
    e.unit_supply[HUN][LI] -= 2
    sail(e)
    play(e, (Head.PLAYER, 0))
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.bt is None and e.phase == Phase.CONQUEST and e.actor == HUN
    assert e.conquest_item() == (Stake.OBJECT, e.slots[HRE][0])
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert e.multi_war is None and e.phase == Phase.WAR_TURN and not e.at_war[HRE][BYZ]
    assert sum(e.cargo[next(oid for oid, o in e.objs.items() if o[0] == BYZ)]) == 1


def test_galleys_of_a_treaty_or_ceasefire_partner_are_no_opponents_at_sea():
    """Spec 5.13 "wenn feindliche Galeeren im gleichen Seegebiet stehen": a treaty partner's or ceasefire
    partner's galleys are not hostile (``peaceful``): only HUN is fought, a single battle."""
    for peace in ("treaty", "ceasefire"):
        e = sea_engine(WIN + [AFLOAT])
        if peace == "treaty":
            treaty(e, HRE, BYZ)
        else:
            e.at_war[HRE][BYZ] = e.at_war[BYZ][HRE] = True
            e.ceasefires.add((HRE, BYZ))
        sail(e)
        assert e.multi_war is None and e.bt.owners == [HRE, HUN], peace


@pytest.mark.parametrize("byz_wins", [True, False])
def test_barbarian_galleys_fight_every_crew_of_the_zone(byz_wins):
    """Barbarian galleys arriving in a zone with two players' crews fight both, one battle after another
    (as on land, ASSUMPTION: turn order); HUN's galley emptied in the first battle stays afloat beside
    them meanwhile; barbarians left alone at the end destroy the ships there (spec 5.20)."""
    e = war_engine()
    tyr = node(TYR)
    hun_galley, byz_galley = crew(e, HUN, TYR, LI=1), crew(e, BYZ, TYR, LI=2)
    e._add_barb(tyr, 0, 3)
    e.barb_supply[0] -= 3
    e.barb_dice = [1, 1, 5]  # 3 LI rolling 5 / 1
    e.ev_stage, e.buildup_left = EventStage.BUILDUP, 3
    e.rng = ScriptedRng([1, 1, 1, AFLOAT] + ([1, 1, 8] if byz_wins else [1, 1, 1, AFLOAT]))
    e._barbarians_arrive(tyr)
    assert e.bt.naval and e.bt.owners == [-1, HUN] and e.barbarian_war.left == [BYZ]
    play(e, (Head.DICE, 0))
    assert e.bt.owners == [-1, BYZ] and hun_galley in e.objs and not sum(e.cargo[hun_galley])
    play(e, (Head.DICE, 0))
    assert e.bt is None and e.barbarian_war is None and e.phase == Phase.BUILDUP
    assert (hun_galley in e.objs, byz_galley in e.objs) == ((True, True) if byz_wins else (False, False))
    assert bool(e.barb_total[tyr]) != byz_wins


def test_beating_a_guest_in_a_right_of_way_partners_region_conquers_nothing():
    """G24 / G35 (ASSUMPTION): HRE has right of way in HUN's Pressburg, where HUN has no army but BYZ's
    army stands as HUN's guest. HRE's entry is a normal move into HUN's region with a battle against BYZ;
    winning it leaves HRE a guest there: HUN keeps control, its village and the market cubes, no
    conquest EP. Without the treaty the same win conquers the region (GEBIETE EROBERN)."""
    for partners in (True, False):
        e = three_party_engine(WIN, hun_li=0)
        pressburg = node("Pressburg")
        e.cubes[pressburg][0] += 1
        if partners:
            treaty(e, HRE, HUN)
        enter(e)
        assert e.bt.owners == [HRE, BYZ] and e.multi_war is None
        one_round(e)
        assert e.army[BYZ][pressburg] == 0 and e.army[HRE][pressburg] == 3
        if partners:
            assert e.phase == Phase.WAR_TURN and "conquest" not in e.ep_events[HRE]
            assert e.controller(pressburg) == HUN and e.civil_owner[pressburg] == HUN
            assert e.cubes[pressburg][0] == 1 and any(o[0] == BYZ for o in e.objs.values())
        else:
            assert e.phase == Phase.CONQUEST and e.ep_events[HRE]["conquest"] == 2
            assert e.controller(pressburg) == HRE


def test_a_crewed_galley_at_sea_that_does_not_move_keeps_its_crew_aboard():
    """Found by the fuzz below: choosing a crewed galley at sea and ending the movement at once put its
    units on the sea zone ("nothing moved: the units go back unstopped" is meant for units loaded in a
    land region); they stay aboard."""
    e = war_engine()
    galley = crew(e, HRE, TYR, LI=2)
    e._start_war()
    play(e, (Head.OBJECT, 0), DONE)
    assert e.cargo[galley][LI] == 2 and not any(e.army[HRE])


# -------------------------------------------------------------------------------- sea fuzz ----
def force_crowded_seas(e):
    """War between every pair of seats, 3000 fl each; every sea zone gets level I galleys of two or three
    seats, each with 1 LI aboard, one of them now and then empty: a crewed galley stepping into a
    neighbouring zone then meets several hostile parties."""
    n = e.num_players
    for p in range(n):
        e._bank(p, 3000)
        for q in range(n):
            if q != p:
                e.at_war[p][q] = True
    for y in range(e.board.num_nodes):
        if e.board.is_sea[y] and e.playable[y] and not e.barb_total[y]:
            pick = random.Random(y)
            for p in pick.sample(range(n), pick.choice([2, 3])):
                add_galley(e, p, y, crewed=pick.random() < 0.8)


def add_galley(e, p, y, crewed):
    """A level I galley of p in sea zone y (1 LI aboard if ``crewed``), when p's supply allows it."""
    levels = e.owned_levels(p)
    levels[0] += 1
    if e.free_slot(p) < 0 or not e.vehicle_supply[GALLEY] or not markers_feasible(tuple(levels)):
        return
    e.vehicle_supply[GALLEY] -= 1
    oid = e._new_object(p, GALLEY, 1, y)
    if crewed and e.unit_supply[p][LI]:
        e.unit_supply[p][LI] -= 1
        e.cargo[oid][LI] = 1


def crowd_beside_barbarian_galleys(e, pick):
    """Before a build-up: crews of two seats in a sea zone next to each barbarian galley, which the
    random player (``towards_crowded_seas``) then likes to move in."""
    for x in range(e.board.num_nodes):
        if not e.board.is_sea[x] or not e.barb_total[x]:
            continue
        free = [y for y in e.board.sea_adj[x] if e.playable[y] and not e.barb_total[y] and not e.objects_at(y)]
        if free:
            y = pick.choice(free)
            for p in pick.sample(range(e.num_players), 2):
                add_galley(e, p, y, crewed=True)


def towards_crowded_seas(e, legal, codec, pick):
    """The random player's bias: galleys, steps into sea zones holding galleys of two other seats, and
    barbarian moves (phase 2 build-up) into sea zones holding two seats' crews."""
    def starting(*heads):
        return [i for i in legal if codec.decode(e, i)[0] in heads]

    def two_crews(y):
        return e.board.is_sea[y] and sum(1 for q in range(e.num_players) if e.crews_at(q, y)) >= 2
    if e.phase == Phase.BUILDUP and pick.random() < 0.9:
        b = e.board
        if not e.prefix:  # barbarians next to such a zone
            near = [i for i in starting(Head.NODE) if e.barb_total[codec.decode(e, i)[1]] and any(
                two_crews(y) for y in b.coast[codec.decode(e, i)[1]] + b.sea_adj[codec.decode(e, i)[1]])]
        else:
            near = [i for i in starting(Head.NODE) if two_crews(codec.decode(e, i)[1])]
        return near or legal
    if e.phase == Phase.WAR_TURN and starting(Head.OBJECT) and pick.random() < 0.9:
        return starting(Head.OBJECT)
    if e.phase == Phase.MOVE:
        p = e.actor
        crowded = [i for i in starting(Head.NODE) if e.board.is_sea[codec.decode(e, i)[1]]
                   and len(e._sea_opponents(p, codec.decode(e, i)[1])) >= 2]
        if sum(e.carrier_cargo()) and crowded and pick.random() < 0.9:
            return crowded
    return legal


@pytest.mark.parametrize("n", [4, 6])
def test_fuzz_naval_multi_party_wars(n):
    """Random play forced towards sea zones holding galleys of several seats (see above): naval sequences
    make the attacker choose, take a beaten side's ships between two battles, fight a second battle, end
    with the attacker's crews gone, and barbarian galleys fight a second crew now and then; the package
    invariants after every step, no unit left on a sea zone outside a battle, the attacker that ends a
    sequence with its crews has no hostile party left beside it, and the cached encoder equal to a fresh
    one whenever a sequence is pending or has just ended."""
    seen = {"choice": 0, "ships taken between battles": 0, "second battle": 0, "attacker alone at the end": 0,
            "attacker gone": 0, "barbarian galleys fight a second crew": 0, "fresh encoder checks": 0}
    env = TabletopEnv(SPEC, num_players=n, num_rounds=8, max_turns=100_000, diplomacy_offers=0)
    steps = 0
    board = game_data().board
    seas = [y for y in range(board.num_nodes) if board.is_sea[y]]
    for seed in range(GAMES):
        crowded_round = 0
        for agent, obs, pick in forced_decisions(env, seed, force_crowded_seas):
            e = env.engine
            if e.phase == Phase.BUILDUP and crowded_round != e.round:
                crowd_beside_barbarian_galleys(e, pick)
                touched(e)
                crowded_round = e.round
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            legal = towards_crowded_seas(e, legal, env.codec, pick)
            mw = e.multi_war
            before = None if mw is None or not e.board.is_sea[mw.node] else (mw.node, mw.attacker)
            seen["choice"] += before is not None and e.phase == Phase.NEXT_OPPONENT
            if pick.random() < 0.02:
                testing.observation_in_space(env, agent, obs)
            env.step(pick.choice(legal))
            steps += 1
            check_invariants(env)
            if e.bt is None:
                assert not any(e.army[p][y] for p in range(n) for y in seas), "units left on a sea zone"
            mw = e.multi_war
            if before is not None and mw is not None:
                seen["ships taken between battles"] += e.phase == Phase.CONQUEST and bool(mw.left)
                seen["second battle"] += e.bt is not None and len(mw.fought) > 1
                assert e.phase != Phase.NEXT_OPPONENT or len(mw.left) > 1 and -1 not in mw.left
            if before is not None and mw is None:  # a naval sequence ended
                y, p = before
                if e.crews_at(p, y):  # every hostile crew fought (a Diplomat-protected empty ship may stay)
                    assert not any(q < 0 or e.crews_at(q, y) for q in e._sea_opponents(p, y))
                    seen["attacker alone at the end"] += 1
                else:
                    seen["attacker gone"] += 1
            if before is not None:
                assert_matches_fresh_encoder(env, {e.current_player, 0} - {-1})
                seen["fresh encoder checks"] += 1
            war = e.barbarian_war
            seen["barbarian galleys fight a second crew"] += (war is not None and e.bt is not None and e.bt.naval
                                                              and len(war.fought) > 1)
        assert env.engine.is_over
    print(f"naval multi-party fuzz, {n} players: {GAMES} games, {steps} steps, {seen}")
    assert all(seen.values()), seen


def test_conquering_a_region_from_beside_its_hosts_guest_attacks_the_host():
    """HUN has no army in its Pressburg, BYZ's army stands there as its guest. HRE beats BYZ and is left
    alone: GEBIETE EROBERN, HRE conquers the region, and taking it from HUN is an attack on HUN like a
    takeover (spec 5.9 case 3: "This is an attack", ASSUMPTION): -3 EP more without a declaration of war.
    During a ceasefire with HUN the entry is masked."""
    e = three_party_engine(WIN, hun_li=0)
    pressburg = node("Pressburg")
    enter(e)
    assert e.at_war[HRE][BYZ] and not e.at_war[HRE][HUN]  # the battle is BYZ's alone
    one_round(e)
    assert e.phase == Phase.CONQUEST and e.at_war[HRE][HUN]
    assert e.ep_events[HRE]["undeclared_attack"] == -6 and e.ep_events[HRE]["conquest"] == 2
    assert e.controller(pressburg) == HRE
    e = three_party_engine(WIN, hun_li=0)
    e.at_war[HRE][HUN] = e.at_war[HUN][HRE] = True
    e.ceasefires.add((HRE, HUN))
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI))
    assert (Head.NODE, pressburg) not in e.legal_moves()
    e.ceasefires.clear()
    assert (Head.NODE, pressburg) in e.legal_moves()


# ------------------------------------------------------------------- Kartografie W-INVADE ----
def invaded_beside_a_guest(kartografie=True):
    """BYZ's army (1 LI) stands in HUN's Pressburg as its right-of-way guest, HUN's army is away in Buda
    next door (1 HI); HUN has Kartografie (blue level 4) or not. HRE's war wagon with 3 HI enters from
    Prag."""
    e = war_engine()
    treaty(e, HUN, BYZ)
    put(e, BYZ, "Pressburg", LI=1)
    put(e, HUN, "Buda", HI=1)
    e.tech[HUN][BLUE] = 4 if kartografie else 3
    e._bank(HUN, 1000)
    put(e, HRE, "Prag", HI=3)
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    e._start_war()
    e.rng = ScriptedRng(WIN + WIN)
    enter(e)
    return e


def test_kartografie_lets_the_absent_controller_join_the_battles_against_its_guest():
    """W-INVADE belongs to "the controller of the entered region" (spec 10.4): HRE's entry would conquer
    HUN's region from beside HUN's guest, so HUN may bring a unit in with Kartografie first; then HUN is
    one more opponent of the sequence (MEHRPARTEIENKRIEG) and HRE chooses the order."""
    e = invaded_beside_a_guest()
    pressburg = node("Pressburg")
    assert e.phase == Phase.TECH_USE and e.actor == HUN and e.tech_use.window == TechWindow.INVADE
    assert e.bt is None and not e.at_war[HRE][BYZ]  # nothing fought yet
    play(e, (Head.TECH, KARTOGRAFIE), (Head.NODE, node("Buda")), (Head.UNIT, HI), DONE)  # DONE: 100 fl for the TP
    assert e.army[HUN][pressburg] == 1 and e.phase == Phase.NEXT_OPPONENT and e.actor == HRE
    assert e.multi_war.left == [BYZ, HUN]
    play(e, (Head.PLAYER, 1))  # BYZ first
    assert e.bt.owners == [HRE, BYZ]
    one_round(e)
    assert e.bt.owners == [HRE, HUN] and e.at_war[HRE][HUN]


def test_declining_kartografie_leaves_the_battle_against_the_guest():
    """DONE in the window (or no Kartografie: no window): the entry's battle against the guest goes on."""
    for kartografie in (True, False):
        e = invaded_beside_a_guest(kartografie)
        if kartografie:
            play(e, DONE)
        assert e.bt.owners == [HRE, BYZ] and e.multi_war is None and e.army[HUN][node("Buda")] == 1


# ------------------------------------------------------------ Kartografie for an ally (G70) ----
def ally_engine(hun_army=True, byz_at_war=True, hun_kartografie=False):
    """HUN's Pressburg (1 LI there, or none with ``hun_army=False``); BYZ is HUN's right-of-way partner with
    Kartografie and 1 LI in HUN's Buda next door, at war with HRE (or not); HRE's war wagon with 3 HI enters
    Pressburg from Prag (the rulebook's example: "Gelb überfällt ein grünes Gebiet. Blau ist mit Grün
    verbündet, zahlt [1 blue TP] und bewegt 1 Reiterei aus einem angrenzenden Gebiet in das Kriegsgebiet")."""
    e = war_engine()
    treaty(e, HUN, BYZ)
    if hun_army:
        put(e, HUN, "Pressburg", LI=1)
    put(e, HUN, "Buda", HI=1)
    put(e, BYZ, "Buda", LI=1)
    e.tech[BYZ][BLUE] = 4
    e._bank(BYZ, 1000)
    if hun_kartografie:
        e.tech[HUN][BLUE] = 4
        e._bank(HUN, 1000)
    e.at_war[HRE][BYZ] = e.at_war[BYZ][HRE] = byz_at_war
    e.at_war[HRE][HUN] = e.at_war[HUN][HRE] = True
    put(e, HRE, "Prag", HI=3)
    e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
    e._start_war()
    e.rng = ScriptedRng(WIN * 3)
    enter(e)
    return e


def fight_to_the_end(e):
    """Keep the dice, sacrifice nothing, until the battle in progress is over."""
    bt = e.bt
    while e.bt is bt:
        play(e, DONE if e.phase == Phase.SACRIFICE else (Head.DICE, 0))


def test_kartografie_brings_an_allys_unit_into_the_invaded_region():
    """G70, the rulebook's example: BYZ, HUN's ally (right of way) at war with HRE, pays 1 blue TP and moves 1
    unit from the adjacent Buda into Pressburg; it is one more army there, fought in the sequence
    (MEHRPARTEIENKRIEG, ASSUMPTION: battle sides have one owner each); HRE beats both and conquers."""
    e = ally_engine()
    pressburg = node("Pressburg")
    assert e.phase == Phase.TECH_USE and e.actor == BYZ and e.tech_use.window == TechWindow.INVADE and e.bt is None
    play(e, (Head.TECH, KARTOGRAFIE), (Head.NODE, node("Buda")), (Head.UNIT, LI), DONE)  # DONE: 100 fl for the TP
    assert e.army[BYZ][pressburg] == 1 and e.stopped[BYZ][pressburg * NT + LI] == 1
    assert e.phase == Phase.NEXT_OPPONENT and e.actor == HRE and sorted(e.multi_war.left) == [HUN, BYZ]
    assert "undeclared_attack" not in e.ep_events[HRE]
    play(e, (Head.PLAYER, 1))  # BYZ first
    assert e.bt.owners == [HRE, BYZ]
    fight_to_the_end(e)
    assert e.bt.owners == [HRE, HUN]
    fight_to_the_end(e)
    assert e.multi_war is None and e.controller(pressburg) == HRE and e.ep_events[HRE]["conquest"] > 0


def test_no_ally_window_without_war_treaty_or_kartografie_and_done_declines():
    """Only an ally whose army may stand in the controller's region and that is at war with the invader is
    asked (its unit starts no war); DONE leaves the single battle against HUN."""
    for case in ("declines", "not at war", "no treaty", "no Kartografie"):
        if case == "declines":
            e = ally_engine()
            play(e, DONE)
        elif case == "not at war":
            e = ally_engine(byz_at_war=False)
        else:
            e = war_engine()
            if case == "no Kartografie":
                treaty(e, HUN, BYZ)
            put(e, HUN, "Pressburg", LI=1)
            put(e, BYZ, "Buda", LI=1)
            e.tech[BYZ][BLUE] = 4 if case == "no treaty" else 3
            e._bank(BYZ, 1000)
            e.at_war[HRE][BYZ] = e.at_war[BYZ][HRE] = e.at_war[HRE][HUN] = e.at_war[HUN][HRE] = True
            put(e, HRE, "Prag", HI=3)
            e._new_object(HRE, WAR_WAGON, 1, node("Prag"))
            e._start_war()
            e.rng = ScriptedRng(WIN)
            enter(e)
        assert e.bt is not None and e.bt.owners == [HRE, HUN] and e.multi_war is None, case
        assert e.army[BYZ][node("Pressburg")] == 0, case


def test_the_controller_and_then_its_ally_may_turn_a_takeover_into_battles():
    """A takeover of HUN's empty Pressburg: HUN's own W-INVADE window comes first, then its ally's; both bring
    a unit, so HRE fights both in the order it chooses; an illegal move leaves the state unchanged."""
    e = ally_engine(hun_army=False, hun_kartografie=True)
    pressburg = node("Pressburg")
    assert e.phase == Phase.TECH_USE and e.actor == HUN
    play(e, (Head.TECH, KARTOGRAFIE), (Head.NODE, node("Buda")), (Head.UNIT, HI), DONE)
    assert e.phase == Phase.TECH_USE and e.actor == BYZ and e.army[HUN][pressburg] == 1
    state = (e.phase, e.actor, list(e.army[BYZ]))
    with pytest.raises(IllegalActionError):
        e.play((Head.NODE, node("Prag")))
    assert (e.phase, e.actor, list(e.army[BYZ])) == state
    play(e, (Head.TECH, KARTOGRAFIE), (Head.NODE, node("Buda")), (Head.UNIT, LI), DONE)
    assert e.phase == Phase.NEXT_OPPONENT and sorted(e.multi_war.left) == [HUN, BYZ]


def test_an_allys_unit_alone_turns_the_takeover_into_a_battle():
    """HUN has no army in Pressburg and no Kartografie: its ally's unit is the only army there; HRE beats it
    and conquers the region from HUN (an attack on HUN as well, already at war)."""
    e = ally_engine(hun_army=False)
    assert e.actor == BYZ
    play(e, (Head.TECH, KARTOGRAFIE), (Head.NODE, node("Buda")), (Head.UNIT, LI), DONE)
    assert e.bt is not None and e.bt.owners == [HRE, BYZ] and e.multi_war is None
    fight_to_the_end(e)
    assert e.controller(node("Pressburg")) == HRE
