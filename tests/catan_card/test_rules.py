"""Rulebook scenario tests for Catan - das schnelle Kartenspiel (envs/catan_card).

Sources, in order of authority: the German rulebook (outside the repository, see docs/rules/README.md),
the spec docs/rules/catan_card.md (gap resolutions G1..G34 of its section 8.2) and
docs/rules/DECISIONS.md. Every test names the rule it checks and quotes the rulebook.

Scenarios are built by setting engine state directly and then playing moves through
``CatanCardEngine.play`` (which checks legality) or through the PettingZoo env.
"""
from __future__ import annotations

import numpy as np
import pytest

import envs
from envs import IllegalActionError
from envs.catan_card import CatanCardConfig, CatanCardEngine
from envs.catan_card.engine import Op, Phase

# resource indices
BRICK, LUMBER, ORE, WOOL, GRAIN = range(5)
# build kinds
ROAD, KNIGHT, SETTLEMENT, CITY, IMPROVEMENT = range(5)
# improvement kinds (order of eng.owned)
LIBRARY, CHURCH, CITY_CASTLE, MERCHANT_GUILD, TOWN_HALL, MARKETPLACE = range(6)
# city events
MARKET_DAY, ROBBER_RAID = 0, 1

PASS = (Op.PASS, 0)
DRAW_PILE = (Op.TRADE_DRAW_PILE, 0)
MARKET = (Op.TRADE_MARKET, 0)
BLIND = (Op.BLIND_DRAW, 0)
LIB = (Op.USE_LIBRARY, 0)
PAY = (Op.PAY_AS_PRINTED, 0)
FLIP = (Op.TURN_FATE_CARD, 0)


def RES(r):
    return (Op.RESOURCE, r)


def BUILD(kind):
    return (Op.BUILD, kind)


def OPP(q):
    return (Op.TRADE_PLAYER, q)


def STEAL(q):
    return (Op.GUILD_STEAL, q)


def SUB(a, b):
    """Cover one unpaid `a` with three `b`."""
    return (Op.SUBSTITUTE, 5 * a + b)


def CHOOSE(kind):
    return (Op.CHOOSE_IMPROVEMENT, kind)


COST = {
    ROAD: [1, 1, 0, 0, 0],
    KNIGHT: [0, 0, 1, 1, 1],
    SETTLEMENT: [1, 1, 0, 1, 1],
    CITY: [0, 0, 3, 0, 2],
    IMPROVEMENT: [0, 0, 1, 3, 0],
}


def new(n=2, seed=0):
    return CatanCardEngine(CatanCardConfig(), n, np.random.default_rng(seed))


def hand(brick=0, lumber=0, ore=0, wool=0, grain=0):
    return [brick, lumber, ore, wool, grain]


def owns(*kinds):
    return tuple(k in kinds for k in range(6))


def legal(eng):
    return set(eng.legal_moves())


def empty_hands(eng):
    for p in range(eng.num_players):
        eng.hands[p] = hand()


def set_active(eng, seat):
    """Make `seat` the player on turn, at the start of its trade phase."""
    eng.active = eng.actor = seat
    eng._start_turn()


def to_build_phase(eng):
    assert eng.phase == Phase.TRADE
    eng.play(PASS)
    assert eng.phase == Phase.BUILD


def settle_vp(eng, p, vp):
    """Give seat p exactly `vp` VP from settlements (no city, no B-sides)."""
    eng.settlements[p] = [MARKET_DAY] * vp
    eng.roads[p] = 1
    eng.knights[p] = 0
    eng.unimproved_cities[p] = 0
    eng.improvement_vp[p] = 0
    assert eng.vp(p) == vp


# ============================================================================ 1. setup ====
SETUP_TABLE = {
    # n: (resource counts, draw pile, road supply, settlement supply, knights, improvements by kind,
    #     fate card used, market days / robber raids in play)
    2: ((11, 11, 16, 15, 14), 56, 3, 5, 2, (1, 2, 1, 0, 1, 0), False, (2, 5)),
    3: ((11, 11, 16, 15, 14), 53, 4, 8, 4, (1, 2, 2, 1, 1, 0), True, (4, 7)),
    4: ((11, 11, 16, 15, 14), 50, 5, 11, 5, (1, 2, 2, 2, 1, 1), True, (5, 10)),
    5: ((22, 22, 32, 30, 28), 114, 4, 10, 5, (1, 2, 3, 3, 1, 1), True, (5, 10)),
    6: ((22, 22, 32, 30, 28), 111, 3, 9, 5, (1, 2, 3, 4, 1, 2), True, (5, 10)),
}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_setup_per_player_count(n):
    """Aufbau: "67 Rohstoffkarten ... 11 x Lehm, 11 x Holz, 16 x Erz, 15 x Wolle, 14 x Getreide";
    "5 Karten ... als Karten des Marktes"; "Jeder Spieler zieht 3 Rohstoffkarten"; at 5-6 players
    "Die Rohstoffkarten des zweiten Spiels werden ... gemischt"; removals by player-count symbols
    (spec 3.2 / T5, G26 literal reading)."""
    counts, pile, roads, settlements, knights, improvements, fate, events = SETUP_TABLE[n]
    eng = new(n, seed=n)
    assert eng.setup.resource_counts == counts
    assert sum(counts) == (67 if n <= 4 else 134)
    assert len(eng.draw_pile) == sum(counts) - 5 - 3 * n == pile
    assert sum(eng.market) == 5
    assert [eng.hand_size(p) for p in range(n)] == [3] * n
    # every card is somewhere: draw pile + market + hands, per resource
    per_res = [eng.draw_pile.count(r) + eng.market[r] + sum(h[r] for h in eng.hands) for r in range(5)]
    assert tuple(per_res) == counts
    assert eng.discard == [0] * 5
    # building-card supply after the starting display
    assert eng.supply_roads == roads
    assert len(eng.settlement_stack) == settlements
    assert eng.supply_knights == knights
    assert tuple(eng.supply_improvements) == improvements
    all_events = eng.settlement_stack + [e for p in range(n) for e in eng.settlements[p]]
    assert (all_events.count(MARKET_DAY), all_events.count(ROBBER_RAID)) == events
    # fate card: only from 3 players, white arrows (clockwise) up
    assert eng.fate_in_use is fate
    assert eng.fate_clockwise is True
    # seat 0 (G21) starts with the trade phase
    assert (eng.active, eng.actor, eng.phase, eng.turn) == (0, 0, Phase.TRADE, 0)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_starting_display_one_settlement_one_a_road_is_one_vp(n):
    """Startauslage: "jeder Spieler eine Siedlung und eine Straße ... Die Straße wird mit Ihrer A-Seite
    ausgelegt ... Somit beginnt jeder Spieler das Spiel mit einem Siegpunkt." """
    eng = new(n)
    for p in range(n):
        assert len(eng.settlements[p]) == 1
        assert eng.roads[p] == 1 and eng.a_roads(p) == 1
        assert eng.knights[p] == 0
        assert eng.unimproved_cities[p] == 0 and eng.city_events[p] == []
        assert eng.owned[p] == owns()
        assert eng.vp(p) == 1


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_setup_through_env(n):
    """ "Es beginnt der älteste Spieler" -> seat 0 (G21); action space 43 + 2 (N - 1) (spec 9.3)."""
    env = envs.make("catan_card", num_players=n)
    env.reset(seed=7)
    assert env.agent_selection == "player_0"
    assert env.action_space("player_0").n == 43 + 2 * (n - 1)
    assert env.engine.card_count() == (67 if n <= 4 else 134)
    assert [env.engine.vp(p) for p in range(n)] == [1] * n
    mask = env.observe("player_0")["action_mask"]
    names = {env.action_name(i) for i in np.flatnonzero(mask)}
    expected = {"PASS", "TRADE_DRAW_PILE", "TRADE_MARKET"} | {f"TRADE_OPP(+{j})" for j in range(1, n)}
    assert names == expected
    assert not env.observe("player_1")["action_mask"].any()


@pytest.mark.parametrize("n, roads, settlements, knights", [(5, 11, 19, 7), (6, 13, 23, 8)])
def test_five_six_extra_building_cards_option(n, roads, settlements, knights):
    """G26 option: the second copy's 3-symbol (5 p) or 3- and 4-symbol (6 p) roads, settlements and
    knights are added as well; by default only its improvements are ("Von den Ausbaukarten wird nur
    ein Teil des zweiten Spiels benötigt")."""
    eng = CatanCardEngine(CatanCardConfig(five_six_extra_building_cards=True), n, np.random.default_rng(0))
    assert eng.supply_roads == roads - n
    assert len(eng.settlement_stack) == settlements - n
    assert eng.supply_knights == knights
    assert tuple(eng.supply_improvements) == SETUP_TABLE[n][5]


# ================================================================== 2. trade allowance ====
@pytest.mark.parametrize("roads, allowance", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3)])
def test_trade_allowance_is_one_exchange_per_a_side_road(roads, allowance):
    """ "Für jede dieser Straßen [mit der A-Seite] darf der Spieler eine Karte ... tauschen" and
    "Straßen mit der B-Seite nach oben zählen nicht": allowance = ceil(roads / 2)."""
    eng = new(2)
    eng.roads[0] = roads
    eng._start_turn()
    assert eng.allowance == allowance
    # exhaust it with draw-pile exchanges of one card each; then no further exchange is offered
    eng.hands[0] = hand(ore=10)
    for _ in range(allowance):
        assert DRAW_PILE in legal(eng)
        eng.play(DRAW_PILE)
        eng.play(RES(ORE))
        if eng.phase == Phase.DRAW_PILE_DISCARD:
            eng.play(PASS)
        assert eng.phase == Phase.TRADE
    assert legal(eng) == {PASS}
    assert eng.hand_size(0) == 10


def test_trade_allowance_rulebook_example_three_roads_two_a_sides():
    """ "hat ein Spieler 3 Straßen vor sich ausliegen. Zwei der Straßen liegen mit ihrer A-Seite aus.
    Der Spieler darf 2 Rohstoffkarten tauschen." A batch of 2 market cards ends taking by itself."""
    eng = new(2)
    eng.roads[0] = 3
    eng._start_turn()
    eng.market = hand(ore=5)
    eng.hands[0] = hand(brick=2)
    eng.play(MARKET)
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_TAKE
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_RETURN  # 2 exchanges used: no third card can be taken
    eng.play(RES(BRICK))
    eng.play(RES(BRICK))
    assert eng.phase == Phase.TRADE
    assert eng.hands[0] == hand(ore=2) and eng.market == hand(brick=2, ore=3)
    assert legal(eng) == {PASS}


@pytest.mark.parametrize("roads", [5, 6])
def test_three_a_roads_market_one_opponent_and_another_opponent(roads):
    """ "Hat er beispielsweise 3 Straßen mit der A-Seite vor sich ausliegen, darf er eine Karte mit dem
    Markt, eine mit einem Mitspieler und eine mit einem anderen Mitspieler tauschen." (5 or 6 roads)"""
    eng = new(3)
    eng.roads[0] = roads
    eng._start_turn()
    assert eng.allowance == 3
    eng.market = hand(grain=5)
    eng.hands[0] = hand(brick=3)
    eng.hands[1] = hand(ore=2)
    eng.hands[2] = hand(wool=2)
    # 1 with the market
    eng.play(MARKET)
    eng.play(RES(GRAIN))
    eng.play(PASS)
    eng.play(RES(BRICK))
    assert eng.phase == Phase.TRADE and eng.allowance == 2
    # 1 with seat 1
    assert legal(eng) == {PASS, DRAW_PILE, MARKET, OPP(1), OPP(2)}
    eng.play(OPP(1))
    eng.play(BLIND)
    eng.play(PASS)
    eng.play(RES(BRICK))
    assert eng.hands[1] == hand(brick=1, ore=1) and eng.allowance == 1
    # 1 with seat 2
    eng.play(OPP(2))
    assert eng.phase == Phase.PLAYER_TAKE
    eng.play(BLIND)  # last exchange: taking stops by itself
    assert eng.phase == Phase.PLAYER_RETURN
    eng.play(RES(BRICK))
    assert eng.hands[2] == hand(brick=1, wool=1)
    assert eng.hands[0] == hand(ore=1, wool=1, grain=1)
    assert eng.allowance == 0 and legal(eng) == {PASS}


def test_no_road_one_exchange_with_draw_pile_only():
    """ "Ein Spieler hat keine Straße vor sich ausliegen: Der Spieler darf nur eine Karte mit dem
    Nachziehstapel tauschen." Market and opponents are not offered."""
    eng = new(3)
    eng.roads[0] = 0
    eng._start_turn()
    eng.hands[0] = hand(brick=3)
    eng.draw_pile = [ORE, GRAIN, WOOL]
    assert legal(eng) == {PASS, DRAW_PILE}
    eng.play(DRAW_PILE)
    assert legal(eng) == {RES(BRICK)}  # nothing discarded yet: no PASS
    eng.play(RES(BRICK))  # the single exchange: the draw follows at once
    assert eng.phase == Phase.TRADE
    assert eng.hands[0] == hand(brick=2, wool=1)
    assert eng.discard == hand(brick=1)
    assert legal(eng) == {PASS}


def test_b_side_roads_do_not_count():
    """ "Straßen mit der B-Seite nach oben zählen nicht." 2 roads (A + B) trade like 1 road."""
    eng = new(2)
    eng.roads[0] = 2
    eng._start_turn()
    eng.hands[0] = hand(brick=3)
    eng.market = hand(ore=5)
    eng.play(MARKET)
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_RETURN
    eng.play(RES(BRICK))
    assert legal(eng) == {PASS}


# =============================================================== 3. trade procedures ====
def test_draw_pile_trade_discard_k_then_draw_k():
    """ "Der Spieler legt maximal so viele Rohstoffkarten auf den Ablagestapel, wie er Straßen mit der
    A-Seite ... hat. Danach zieht er vom Nachziehstapel so viele Karten nach, wie er abgelegt hat." """
    eng = new(2)
    eng.roads[0] = 5
    eng._start_turn()
    eng.hands[0] = hand(brick=2, lumber=1)
    eng.draw_pile = [WOOL, ORE, GRAIN, GRAIN]  # top is the end of the list
    pile_before, discard_before = len(eng.draw_pile), list(eng.discard)
    eng.play(DRAW_PILE)
    assert legal(eng) == {RES(BRICK), RES(LUMBER)}
    eng.play(RES(BRICK))
    assert legal(eng) == {PASS, RES(BRICK), RES(LUMBER)}
    eng.play(RES(BRICK))
    assert eng.hands[0] == hand(lumber=1)  # nothing drawn before the discards end
    eng.play(PASS)
    assert eng.phase == Phase.TRADE
    assert eng.hands[0] == hand(lumber=1, grain=2)
    assert eng.discard == [discard_before[0] + 2] + discard_before[1:]
    assert len(eng.draw_pile) == pile_before - 2
    assert eng.allowance == 1


def test_draw_pile_trade_limited_by_own_hand():
    """Spec 9.4: for draw-pile batches k <= the player's own hand size."""
    eng = new(2)
    eng.roads[0] = 5
    eng._start_turn()
    eng.hands[0] = hand(ore=1)
    eng.draw_pile = [WOOL, GRAIN]
    eng.play(DRAW_PILE)
    eng.play(RES(ORE))
    assert eng.phase == Phase.TRADE
    assert eng.hands[0] == hand(grain=1) and eng.allowance == 2


def test_market_trade_take_k_return_exactly_k_taken_card_may_return():
    """ "Der Spieler nimmt sich maximal so viele Rohstoffkarten vom Markt, wie er Straßen mit der
    A-Seite ... hat. Danach legt er genau so viele zurück, wie er genommen hat." (G29: a taken card
    may be returned.)"""
    eng = new(2)
    eng.roads[0] = 5
    eng._start_turn()
    eng.market = hand(ore=2, wool=3)
    eng.hands[0] = hand(brick=1)
    eng.play(MARKET)
    assert legal(eng) == {RES(ORE), RES(WOOL)}  # no PASS before a card is taken
    eng.play(RES(ORE))
    eng.play(RES(WOOL))
    assert legal(eng) == {PASS, RES(ORE), RES(WOOL)}
    eng.play(PASS)
    assert eng.phase == Phase.MARKET_RETURN
    assert legal(eng) == {RES(BRICK), RES(ORE), RES(WOOL)}  # no PASS: exactly 2 must go back
    eng.play(RES(ORE))  # the ore just taken goes back
    assert eng.phase == Phase.MARKET_RETURN
    eng.play(RES(BRICK))
    assert eng.phase == Phase.TRADE
    assert eng.hands[0] == hand(wool=1)
    assert eng.market == hand(brick=1, ore=2, wool=2)
    assert sum(eng.market) == 5
    assert eng.allowance == 1


def test_opponent_trade_blind_draw_then_give_back_exactly_k():
    """ "Der Spieler zieht von der verdeckten Kartenhand eines beliebigen Mitspielers maximal so viele
    Rohstoffkarten ... Danach gibt er ihm so viele zurück, wie er gezogen hat. Dabei darf er ihm auch
    Karten zurückgeben, die er sich von ihm genommen hat." """
    eng = new(3)
    eng.roads[0] = 5
    eng._start_turn()
    eng.hands[0] = hand(brick=1)
    eng.hands[2] = hand(ore=4)
    eng.play(OPP(2))
    assert legal(eng) == {BLIND}  # no PASS before a card is drawn, no Library without one
    eng.play(BLIND)
    eng.play(BLIND)
    assert eng.hands[0] == hand(brick=1, ore=2) and eng.hands[2] == hand(ore=2)
    eng.play(PASS)
    assert eng.phase == Phase.PLAYER_RETURN
    assert legal(eng) == {RES(BRICK), RES(ORE)}  # no PASS while cards are owed
    eng.play(RES(ORE))  # a card taken from him goes back
    eng.play(RES(BRICK))
    assert eng.phase == Phase.TRADE
    assert eng.hands[0] == hand(ore=1)
    assert eng.hands[2] == hand(brick=1, ore=3)
    assert eng.allowance == 1


def test_opponent_trade_limited_by_opponent_hand_and_empty_hand_not_offered():
    """Spec 9.4/9.5: k <= the partner's hand size; an opponent without cards is no trade partner."""
    eng = new(3)
    eng.roads[0] = 5
    eng._start_turn()
    eng.hands[0] = hand(brick=2)
    eng.hands[1] = hand()
    eng.hands[2] = hand(wool=1)
    assert legal(eng) == {PASS, DRAW_PILE, MARKET, OPP(2)}
    eng.play(OPP(2))
    eng.play(BLIND)
    assert eng.phase == Phase.PLAYER_RETURN  # his hand is empty: no second draw
    eng.play(RES(BRICK))
    assert eng.hands[2] == hand(brick=1) and eng.allowance == 2


def test_allowance_caps_cards_across_batches():
    """ "Für jede dieser Straßen darf der Spieler eine Karte ... tauschen": the total of all batches
    (G22) is at most the number of A-side roads."""
    eng = new(3)
    eng.roads[0] = 3  # 2 exchanges
    eng._start_turn()
    eng.hands[0] = hand(brick=3)
    eng.hands[1] = hand(ore=3)
    eng.market = hand(wool=5)
    eng.draw_pile = [GRAIN] * 10
    eng.play(DRAW_PILE)
    eng.play(RES(BRICK))
    eng.play(PASS)
    assert eng.allowance == 1
    eng.play(OPP(1))
    eng.play(BLIND)
    assert eng.phase == Phase.PLAYER_RETURN  # the batch is full after 1 card
    eng.play(RES(BRICK))
    assert eng.allowance == 0
    assert legal(eng) == {PASS}
    assert eng.hands[0] == hand(brick=1, ore=1, grain=1)


def test_unused_allowance_is_lost_at_build_phase():
    """The phases run in order "1. ... tauschen 2. ... bauen 3. ... nachziehen"; unused exchanges are
    lost (G22) and do not carry over to the next turn."""
    eng = new(2)
    eng.roads[0] = 3
    eng._start_turn()
    eng.hands[0] = hand(brick=4)
    eng.play(PASS)
    assert eng.phase == Phase.BUILD
    assert all(op not in (Op.TRADE_DRAW_PILE, Op.TRADE_MARKET, Op.TRADE_PLAYER)
               for op, _ in eng.legal_moves())
    eng.play(PASS)  # draw phase, seat 1's turn
    eng.play(PASS)
    eng.play(PASS)
    assert eng.active == 0 and eng.allowance == 2


def test_trade_through_env_by_action_names():
    """Market exchange through the env: "nimmt sich ... vom Markt ... legt ... genau so viele zurück"."""
    env = envs.make("catan_card", num_players=2)
    env.reset(seed=3)
    eng = env.engine
    eng.market = hand(ore=5)
    eng.hands[0] = hand(brick=1)
    idx = env.codec.index
    env.step(idx("TRADE_MARKET"))
    env.step(idx("RES(ore)"))  # 1 A-road: taking ends by itself
    names = {env.action_name(i) for i in np.flatnonzero(env.observe("player_0")["action_mask"])}
    assert names == {"RES(brick)", "RES(ore)"}
    env.step(idx("RES(brick)"))
    assert eng.hands[0] == hand(ore=1) and eng.market == hand(brick=1, ore=4)
    with pytest.raises(IllegalActionError):
        env.step(idx("TRADE_MARKET"))


def test_blind_draw_is_uniform_over_the_opponents_hidden_hand():
    """ "zieht von der verdeckten Kartenhand": a blind draw takes a uniformly random card
    (hand of 1 brick + 3 ore: ore about 3 times in 4)."""
    ore = 0
    trials = 400
    for seed in range(trials):
        eng = new(2, seed=seed)
        eng.hands[0] = hand(wool=1)
        eng.hands[1] = hand(brick=1, ore=3)
        eng.play(OPP(1))
        eng.play(BLIND)
        ore += eng.hands[0][ORE]
        assert eng.hands[0][ORE] + eng.hands[0][BRICK] == 1
    assert 0.65 < ore / trials < 0.85


# ========================================================================= 4. Library ====
def test_library_choose_once_then_blind_draw():
    """Bibliothek: "darf er einmal in seiner Tauschphase eine Karte aus der offenen Hand eines
    Mitspielers aussuchen ... Möchte er eine zweite Karte mit dem gleichen Spieler tauschen, muss er
    ihm wieder eine Karte aus der verdeckten Hand ziehen." """
    eng = new(3, seed=4)
    eng.roads[0] = 5
    eng.owned[0] = owns(LIBRARY)
    eng._start_turn()
    eng.hands[0] = hand(wool=3)
    eng.hands[1] = hand(brick=3, ore=1)
    eng.hands[2] = hand(grain=2, ore=1)
    eng.play(OPP(1))
    assert legal(eng) == {BLIND, LIB}
    eng.play(LIB)
    assert eng.phase == Phase.LIBRARY_PICK
    assert legal(eng) == {RES(BRICK), RES(ORE)}  # the open hand of seat 1
    eng.play(RES(ORE))
    assert eng.hands[0] == hand(ore=1, wool=3) and eng.hands[1] == hand(brick=3)
    assert eng.allowance == 2  # the pick is one of the exchanges (G9)
    assert legal(eng) == {PASS, BLIND}  # second card from the same player: blind only
    eng.play(BLIND)
    assert eng.hands[1] == hand(brick=2)
    eng.play(PASS)
    eng.play(RES(WOOL))
    eng.play(RES(WOOL))
    # once per trade phase: not again with another opponent either
    eng.play(OPP(2))
    assert legal(eng) == {BLIND}


def test_library_available_again_next_turn_and_only_for_owner():
    """ "einmal in seiner Tauschphase": a new trade phase gives a new pick; non-owners never pick."""
    eng = new(2)
    eng.owned[0] = owns(LIBRARY)
    eng._start_turn()
    eng.hands[0] = hand(wool=1)
    eng.hands[1] = hand(ore=1, brick=1)
    eng.play(OPP(1))
    eng.play(LIB)
    eng.play(RES(ORE))
    eng.play(RES(WOOL))
    eng.play(PASS)
    eng.play(PASS)  # seat 1's turn
    eng.hands[1] = hand(grain=3)
    eng.hands[0] = hand(ore=2)
    eng.play(OPP(0))
    assert legal(eng) == {BLIND}  # seat 1 owns no Library
    eng.play(BLIND)
    eng.play(RES(GRAIN))
    eng.play(PASS)
    eng.play(PASS)  # seat 0 again
    eng.play(OPP(1))
    assert legal(eng) == {BLIND, LIB}


# ===================================================================== 5. build costs ====
@pytest.mark.parametrize("kind", [ROAD, KNIGHT, SETTLEMENT, CITY, IMPROVEMENT])
def test_build_cost_exact_and_paid_to_discard(kind):
    """Baukosten: Siedlung "je 1 ... Holz, Lehm, Getreide und Wolle"; Stadt "2 x Getreide und 3 x Erz";
    Stadtausbau "3 x Wolle und 1 x Erz"; Straße "je 1 ... Holz und Lehm"; Ritter "je 1 ... Getreide,
    Wolle und Erz". "Der Spieler zahlt die Baukosten, indem er die Rohstoffkarten auf die Ablage legt." """
    eng = new(3)
    assert eng.costs[kind] == COST[kind]
    eng.unimproved_cities[0] = 1  # an improvement needs a city
    eng.hands[0] = list(COST[kind])
    discard_before = list(eng.discard)
    to_build_phase(eng)
    assert BUILD(kind) in legal(eng)
    eng.play(BUILD(kind))  # exactly one way to pay: paid automatically
    assert eng.hands[0] == hand()
    assert eng.discard == [d + c for d, c in zip(discard_before, COST[kind])]
    assert eng.built[kind]


@pytest.mark.parametrize("kind", [ROAD, KNIGHT, SETTLEMENT, CITY, IMPROVEMENT])
def test_build_not_legal_with_one_card_missing(kind):
    """A build must be paid in full: one missing card (and nothing to substitute) makes it illegal."""
    eng = new(3)
    eng.unimproved_cities[0] = 1
    to_build_phase(eng)
    for r in range(5):
        if COST[kind][r] == 0:
            continue
        eng.hands[0] = list(COST[kind])
        eng.hands[0][r] -= 1
        assert BUILD(kind) not in legal(eng)
        with pytest.raises(IllegalActionError):
            eng.play(BUILD(kind))


def test_substitution_three_wool_pay_the_ore_of_an_improvement():
    """ "Ein Spieler darf beim Bauen beliebig oft 1 Rohstoff seiner Wahl durch 3 gleiche Rohstoffe
    ersetzen": 6 wool pay an improvement (3 wool + 3 wool for the 1 ore)."""
    eng = new(2)
    eng.unimproved_cities[0] = 1
    eng.hands[0] = hand(wool=6)
    to_build_phase(eng)
    assert BUILD(IMPROVEMENT) in legal(eng)
    discard_before = list(eng.discard)
    eng.play(BUILD(IMPROVEMENT))  # the only payment: ore <- 3 wool, then 3 wool as printed
    assert eng.phase == Phase.CHOOSE_IMPROVEMENT
    assert eng.hands[0] == hand()
    assert eng.discard[WOOL] == discard_before[WOOL] + 6 and eng.discard[ORE] == discard_before[ORE]


def test_substitution_is_a_choice_when_several_payments_exist():
    """ "beliebig oft 1 Rohstoff seiner Wahl durch 3 gleiche Rohstoffe ersetzen": the payer chooses."""
    eng = new(2)
    eng.unimproved_cities[0] = 1
    eng.hands[0] = hand(ore=1, wool=3, grain=3)
    to_build_phase(eng)
    eng.play(BUILD(IMPROVEMENT))
    assert eng.phase == Phase.PAY
    # 3 wool may not replace the ore: the wool is then missing for the printed 3 wool
    assert legal(eng) == {PAY, SUB(ORE, GRAIN), SUB(WOOL, GRAIN)}
    eng.play(SUB(ORE, GRAIN))  # the rest (3 wool) can only be paid as printed: automatic
    assert eng.phase == Phase.CHOOSE_IMPROVEMENT
    assert eng.hands[0] == hand(ore=1)


def test_substitution_several_times_in_one_build():
    """ "beliebig oft": both grain of a city paid with 2 x 3 wool."""
    eng = new(2)
    eng.hands[0] = hand(ore=3, wool=6)
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    assert eng.hands[0] == hand()
    assert eng.unimproved_cities[0] == 1


def test_build_not_payable_even_with_substitution_is_illegal():
    """A city needs 3 ore + 2 grain; with 2 ore, 2 grain and only pairs of other cards, no three
    identical cards can replace the missing ore."""
    eng = new(2)
    eng.hands[0] = hand(brick=2, lumber=2, ore=2, wool=2, grain=2)
    to_build_phase(eng)
    assert BUILD(CITY) not in legal(eng)
    eng.hands[0] = hand(brick=2, lumber=2, ore=2, wool=3, grain=2)
    assert BUILD(CITY) in legal(eng)


def test_substitution_through_env():
    """ "3 gleiche Rohstoffe" through the env's readable action names."""
    env = envs.make("catan_card", num_players=2)
    env.reset(seed=5)
    eng = env.engine
    eng.hands[0] = hand(brick=1, lumber=1, ore=3)  # a road: lumber printed or 3 ore
    idx = env.codec.index
    discard_before = list(eng.discard)
    env.step(idx("PASS"))
    env.step(idx("BUILD(road)"))
    names = {env.action_name(i) for i in np.flatnonzero(env.observe("player_0")["action_mask"])}
    assert names == {"PAY_AS_PRINTED", "SUBSTITUTE(lumber<-3xore)", "SUBSTITUTE(brick<-3xore)"}
    env.step(idx("SUBSTITUTE(lumber<-3xore)"))
    assert eng.hands[0] == hand(lumber=1)
    assert eng.discard == [d + x for d, x in zip(discard_before, hand(brick=1, ore=3))]
    assert eng.roads[0] == 2


# ========================================================== 6. once per kind per turn ====
def test_each_kind_only_once_per_turn_road_and_knight_allowed():
    """ "In einem Zug darf jedes Bauobjekt nur einmal gebaut werden ... nicht erlaubt, im gleichen Zug
    2 Straßen zu bauen. Der Bau einer Straße und eines Ritters hingegen ist erlaubt." """
    eng = new(2)
    eng.hands[0] = hand(brick=2, lumber=2, ore=2, wool=2, grain=2)
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    assert eng.hands[0] == hand(brick=1, lumber=1, ore=2, wool=2, grain=2)
    assert BUILD(ROAD) not in legal(eng)
    with pytest.raises(IllegalActionError):
        eng.play(BUILD(ROAD))
    assert BUILD(KNIGHT) in legal(eng)
    eng.play(BUILD(KNIGHT))
    assert (eng.roads[0], eng.knights[0]) == (2, 1)
    assert legal(eng) == {PASS, BUILD(SETTLEMENT)}  # no second road or knight


def test_once_per_kind_resets_next_turn():
    """The limit is per turn ("In einem Zug")."""
    eng = new(2)
    eng.hands[0] = hand(brick=2, lumber=2)
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    eng.play(PASS)
    eng.play(PASS)
    eng.play(PASS)  # seat 1's turn ends
    eng.hands[0] = hand(brick=1, lumber=1)
    eng.play(PASS)
    assert BUILD(ROAD) in legal(eng)


# ================================================================ 7. A/B alternation ====
def test_roads_alternate_a_b_and_b_side_is_one_vp():
    """Straße: "Seine erste Straßenkarte muss ... mit der A-Seite ... Seine nächste ... mit der B-Seite
    ... immer so auslegen, dass sich ihre A- und B-Seiten abwechseln." B-side = 1 VP."""
    eng = new(2)
    expected = {2: (1, 2), 3: (2, 2), 4: (2, 3), 5: (3, 3)}  # roads -> (A-sides, VP)
    for roads in (2, 3, 4, 5):
        eng.hands[0] = hand(brick=1, lumber=1)
        eng.supply_roads = 1
        eng._start_turn()
        to_build_phase(eng)
        eng.play(BUILD(ROAD))
        assert eng.roads[0] == roads
        assert (eng.a_roads(0), eng.vp(0)) == expected[roads]
        eng._start_turn()
        assert eng.allowance == expected[roads][0]


def test_knights_alternate_a_b_and_b_side_is_one_vp():
    """Ritter: "Ein Spieler muss seine erste Ritterkarte mit ihrer A-Seite auslegen. Nachfolgende
    Ritterkarten muss er immer so auslegen, dass sich ihre B- und A-Seiten abwechseln." """
    eng = new(2)
    expected = {1: (1, 1), 2: (1, 2), 3: (2, 2)}  # knights -> (A-sides, VP)
    for knights in (1, 2, 3):
        eng.hands[0] = hand(ore=1, wool=1, grain=1)
        eng.supply_knights = 1
        eng._start_turn()
        to_build_phase(eng)
        eng.play(BUILD(KNIGHT))
        assert eng.knights[0] == knights
        assert (eng.a_knights(0), eng.vp(0)) == expected[knights]


# ====================================================================== 8. settlement ====
def test_settlement_adds_one_vp_and_takes_from_supply():
    """Siedlung: "Eine Siedlung zählt einen Siegpunkt ... nimmt er sich eine Siedlungskarte vom Vorrat"."""
    eng = new(2)
    eng.hands[0] = list(COST[SETTLEMENT])
    stack = list(eng.settlement_stack)
    to_build_phase(eng)
    eng.play(BUILD(SETTLEMENT))
    assert eng.phase == Phase.BUILD  # 2 players: no fate card
    assert eng.settlements[0][-1] == stack[-1]
    assert len(eng.settlement_stack) == len(stack) - 1
    assert eng.vp(0) == 2


def test_no_settlement_in_supply_cannot_build():
    """ "Sollte keine Siedlung mehr vorrätig sein, kann er keine neue Siedlung mehr bauen." """
    eng = new(3)
    eng.hands[0] = list(COST[SETTLEMENT])
    eng.settlement_stack = []
    to_build_phase(eng)
    assert legal(eng) == {PASS, BUILD(ROAD)}  # the lumber + brick still pay a road
    eng.settlement_stack = [ROBBER_RAID]
    assert legal(eng) == {PASS, BUILD(ROAD), BUILD(SETTLEMENT)}


@pytest.mark.parametrize("turn", [True, False])
def test_settlement_allows_fate_card_turn(turn):
    """ "Baut ein Spieler eine Siedlung, darf er die Schicksalskarte auf die andere Seite drehen." """
    eng = new(3)
    eng.hands[0] = list(COST[SETTLEMENT])
    to_build_phase(eng)
    eng.play(BUILD(SETTLEMENT))
    assert eng.phase == Phase.FATE_FLIP and eng.actor == 0
    assert legal(eng) == {PASS, FLIP}
    eng.play(FLIP if turn else PASS)
    assert eng.fate_clockwise is (not turn)
    assert eng.phase == Phase.BUILD


def test_no_fate_card_at_two_players():
    """ "Im Spiel zu zweit wird die Karte nicht benötigt." """
    eng = new(2)
    eng.hands[0] = list(COST[SETTLEMENT])
    to_build_phase(eng)
    eng.play(BUILD(SETTLEMENT))
    assert eng.phase == Phase.BUILD
    assert FLIP not in legal(eng)


def test_city_side_of_settlements_hidden_from_everyone():
    """ "Solange ein Spieler eine Siedlung nicht in eine Stadt umwandelt, darf er sich die Rückseite
    (Stadtseite) mit dem dort beschriebenen Ereignis nicht anschauen." Swapping the hidden events of
    seat 0's settlement and a supply card changes no observation, the owner's included."""
    env = envs.make("catan_card", num_players=3)
    env.reset(seed=9)
    eng = env.engine
    eng.settlements[0] = [MARKET_DAY]
    eng.settlement_stack[-1] = ROBBER_RAID
    before = {a: env.observe(a)["observation"].copy() for a in env.agents}
    eng.settlements[0] = [ROBBER_RAID]
    eng.settlement_stack[-1] = MARKET_DAY
    for a in env.agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], before[a])


# ============================================================================ 9. city ====
def test_city_needs_a_settlement_card():
    """ "Hat ein Spieler keine Siedlungskarte vor sich ausliegen, kann er keine Stadt bauen." """
    eng = new(2)
    eng.hands[0] = list(COST[CITY])
    eng.settlements[0] = []
    to_build_phase(eng)
    assert legal(eng) == {PASS}
    eng.settlements[0] = [MARKET_DAY]
    assert legal(eng) == {PASS, BUILD(CITY)}


def test_city_turns_settlement_vp_one_to_two_and_reveals_event():
    """Stadt: "Eine Stadt zählt 2 Siegpunkte ... dreht er eine seiner Siedlungskarten auf die
    Stadtseite. Er liest das Ereignis vor"."""
    eng = new(2)
    empty_hands(eng)
    eng.settlements[0] = [ROBBER_RAID, MARKET_DAY]
    eng.hands[0] = list(COST[CITY])
    assert eng.vp(0) == 2  # 2 settlements, 1 A-side road
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    assert eng.settlements[0] == [MARKET_DAY]
    assert eng.city_events[0] == [ROBBER_RAID]
    assert eng.unimproved_cities[0] == 1
    assert eng.vp(0) == 3  # 1 settlement + 2 city + 0 roads
    assert eng.events_revealed[ROBBER_RAID] >= 1
    assert eng.phase == Phase.BUILD  # nobody has more than 7 cards


def test_robber_raid_discards_half_and_forces_fate_card_turn():
    """ "Tritt das Ereignis „Räuberüberfall“ ein, muss auch die Schicksalskarte gewendet werden."
    G4: every player with more than 7 cards, the builder included, discards half (rounded down),
    clockwise from the builder; the Town Hall owner is exempt."""
    eng = new(4)
    eng.settlements[0] = [ROBBER_RAID]
    eng.hands[0] = hand(ore=3, grain=2, brick=9)  # 9 after paying -> discards 4
    eng.hands[1] = hand(wool=8)  # 8 -> 4
    eng.hands[2] = hand(lumber=7)  # 7: not more than 7
    eng.hands[3] = hand(brick=10)  # Town Hall: exempt
    eng.owned[3] = owns(TOWN_HALL)
    discard_before = list(eng.discard)
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    eng.play(PAY)  # (3 brick could replace an item: the payer chooses)
    assert eng.phase == Phase.ROBBER_DISCARD and eng.actor == 0
    assert legal(eng) == {RES(BRICK)}  # no PASS
    for _ in range(4):
        eng.play(RES(BRICK))
    assert eng.phase == Phase.ROBBER_DISCARD and eng.actor == 1
    assert eng.fate_clockwise is True  # the flip comes after the raid
    for _ in range(4):
        eng.play(RES(WOOL))
    assert eng.phase == Phase.BUILD and eng.actor == 0
    assert eng.fate_clockwise is False
    assert eng.hands == [hand(brick=5), hand(wool=4), hand(lumber=7), hand(brick=10)]
    assert eng.discard == [d + x for d, x in zip(discard_before, hand(brick=4, ore=3, wool=4, grain=2))]


def test_robber_raid_without_big_hands_still_turns_fate_card_back():
    """ "muss auch die Schicksalskarte gewendet werden" also from counter-clockwise to clockwise."""
    eng = new(3)
    empty_hands(eng)
    eng.fate_clockwise = False
    eng.settlements[0] = [ROBBER_RAID]
    eng.hands[0] = list(COST[CITY])
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    assert eng.phase == Phase.BUILD
    assert eng.fate_clockwise is True


def test_robber_raid_at_two_players_discards_without_fate_card():
    """2 players: the raid's discards apply, no fate card is in play."""
    eng = new(2)
    eng.settlements[0] = [ROBBER_RAID]
    eng.hands[0] = list(COST[CITY])
    eng.hands[1] = hand(ore=11)
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    assert eng.actor == 1 and eng.phase == Phase.ROBBER_DISCARD
    for _ in range(5):
        eng.play(RES(ORE))
    assert eng.hands[1] == hand(ore=6)
    assert eng.phase == Phase.BUILD and eng.actor == 0
    assert eng.fate_clockwise is True


def test_market_day_each_player_clockwise_from_builder_takes_one_with_refill():
    """G5 (Markttag): starting with the builder, clockwise, every player takes 1 market card;
    the market is refilled to 5 from the draw pile after each take."""
    eng = new(3)
    set_active(eng, 1)
    empty_hands(eng)
    eng.settlements[1] = [MARKET_DAY]
    eng.hands[1] = list(COST[CITY])
    eng.market = hand(brick=1, lumber=1, ore=1, wool=1, grain=1)
    eng.draw_pile = [ORE, ORE, WOOL, GRAIN]  # refills: grain, then wool, then ore
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    assert (eng.phase, eng.actor) == (Phase.MARKET_DAY, 1)
    assert legal(eng) == {RES(r) for r in range(5)}
    eng.play(RES(BRICK))
    assert eng.market == hand(lumber=1, ore=1, wool=1, grain=2)
    assert eng.actor == 2
    assert legal(eng) == {RES(LUMBER), RES(ORE), RES(WOOL), RES(GRAIN)}
    eng.play(RES(GRAIN))
    assert eng.market == hand(lumber=1, ore=1, wool=2, grain=1)
    assert eng.actor == 0
    eng.play(RES(WOOL))
    assert eng.market == hand(lumber=1, ore=2, wool=1, grain=1)
    assert (eng.phase, eng.actor) == (Phase.BUILD, 1)
    assert eng.hands == [hand(wool=1), hand(brick=1), hand(grain=1)]
    assert eng.draw_pile == [ORE]
    assert eng.fate_clockwise is True  # a market day does not turn the fate card


# ===================================================================== 10. improvement ====
def test_improvement_needs_an_unimproved_city():
    """ "Wer keine Stadt ausliegen hat, kann auch keinen Stadtausbau bauen." G18: one per city."""
    eng = new(2)
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    assert legal(eng) == {PASS}
    eng.improvement_vp[0] = 3  # an already improved city does not take a second one
    eng.owned[0] = owns(CHURCH)
    assert legal(eng) == {PASS}
    eng.unimproved_cities[0] = 1
    assert legal(eng) == {PASS, BUILD(IMPROVEMENT)}


def test_improvement_pay_first_then_choose_any_available_kind():
    """ "Wer einen Stadtausbau bauen möchte, zahlt zunächst die Baukosten. Dann sucht er sich eine
    Karte aus dem Stapel mit den Ausbaukarten aus" (2 players: Library, 2 Churches, City Castle,
    Town Hall)."""
    eng = new(2)
    eng.unimproved_cities[0] = 1
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    eng.play(BUILD(IMPROVEMENT))
    assert eng.phase == Phase.CHOOSE_IMPROVEMENT
    assert eng.hands[0] == hand()  # already paid
    assert legal(eng) == {CHOOSE(LIBRARY), CHOOSE(CHURCH), CHOOSE(CITY_CASTLE), CHOOSE(TOWN_HALL)}
    assert eng.vp(0) == 3
    eng.play(CHOOSE(CHURCH))
    assert eng.owned[0] == owns(CHURCH)
    assert eng.supply_improvements[CHURCH] == 1
    assert eng.unimproved_cities[0] == 0
    # "Die Siegpunkte der darunter liegenden Stadt zählen nicht mehr": 1 settlement + 3 Church
    assert eng.vp(0) == 4
    assert eng.phase == Phase.BUILD


def test_town_hall_is_four_vp_covering_the_city():
    """ "Ein Stadtausbau zählt 3 bzw. 4 Siegpunkte" (Town Hall 4, T4)."""
    eng = new(2)
    eng.unimproved_cities[0] = 1
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    eng.play(BUILD(IMPROVEMENT))
    eng.play(CHOOSE(TOWN_HALL))
    assert eng.vp(0) == 1 + 4


def test_each_improvement_kind_only_once_per_player():
    """ "Ein Spieler darf jeden Stadtausbau nur einmal bauen. Es ist einem Spieler zum Beispiel nicht
    erlaubt, 2 Kirchen zu bauen." The second Church stays available to the others."""
    eng = new(2)
    eng.owned[0] = owns(CHURCH)
    eng.improvement_vp[0] = 3
    eng.supply_improvements[CHURCH] = 1
    eng.unimproved_cities[0] = 1
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    eng.play(BUILD(IMPROVEMENT))
    assert legal(eng) == {CHOOSE(LIBRARY), CHOOSE(CITY_CASTLE), CHOOSE(TOWN_HALL)}
    with pytest.raises(IllegalActionError):
        eng.play(CHOOSE(CHURCH))
    # seat 1 may still build the other Church
    eng.play(CHOOSE(LIBRARY))
    eng.play(PASS)
    eng.unimproved_cities[1] = 1
    eng.hands[1] = list(COST[IMPROVEMENT])
    eng.play(PASS)
    eng.play(BUILD(IMPROVEMENT))
    assert CHOOSE(CHURCH) in legal(eng)


def test_improvement_not_offered_when_every_available_kind_is_owned():
    """Each kind once per player: with all kinds in play owned, no improvement can be built (G34)."""
    eng = new(2)
    eng.owned[0] = owns(LIBRARY, CHURCH, CITY_CASTLE, TOWN_HALL)
    eng.unimproved_cities[0] = 1
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    assert legal(eng) == {PASS}


def test_sold_out_kind_cannot_be_chosen():
    """Improvements come from the stack in play: a kind with no card left cannot be chosen."""
    eng = new(2)
    eng.supply_improvements = [0, 0, 1, 0, 0, 0]
    eng.unimproved_cities[0] = 1
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    eng.play(BUILD(IMPROVEMENT))
    assert legal(eng) == {CHOOSE(CITY_CASTLE)}


# ======================================================= 11. roads and knights change owner ====
def test_road_taken_from_nearest_opponent_in_arrow_direction_skipping_roadless():
    """ "ist keine entsprechende Karte mehr in der Auslage vorrätig, nimmt der Spieler einem Mitspieler
    die oberste seiner Straßen ... Besitzt ein Spieler keine Straße ..., wird er übersprungen"
    (G10: white arrows = clockwise). Losing a B-side costs 1 VP."""
    eng = new(4)
    eng.supply_roads = 0
    eng.roads[1:] = [0, 2, 5]
    eng.hands[0] = list(COST[ROAD])
    to_build_phase(eng)
    assert eng.victim(ROAD) == 2
    vp2 = eng.vp(2)
    eng.play(BUILD(ROAD))
    assert eng.roads == [2, 0, 1, 5]
    assert eng.vp(2) == vp2 - 1  # its top card was a B-side
    assert eng.supply_roads == 0


def test_road_taken_counter_clockwise_loses_a_side_advantage():
    """ "Die Karte verliert der Spieler, der ihm in Pfeilrichtung der Schicksalskarte am nächsten
    sitzt": counter-clockwise from seat 0 is seat 3. Losing an A-side costs an exchange."""
    eng = new(4)
    eng.fate_clockwise = False
    eng.supply_roads = 0
    eng.roads[1:] = [0, 2, 5]
    eng.hands[0] = list(COST[ROAD])
    to_build_phase(eng)
    vp3 = eng.vp(3)
    eng.play(BUILD(ROAD))
    assert eng.roads == [2, 0, 2, 4]
    assert eng.vp(3) == vp3  # an A-side left: no VP lost
    assert eng.a_roads(3) == 2
    # seat 3's next trade allowance: 2 instead of 3
    eng.play(PASS)
    eng.play(PASS)
    eng.play(PASS)
    eng.play(PASS)
    eng.play(PASS)
    assert eng.active == 3 and eng.allowance == 2


def test_turning_fate_card_after_settlement_changes_road_victim():
    """ "Baut ein Spieler eine Siedlung, darf er die Schicksalskarte auf die andere Seite drehen" -
    the turned card decides who loses the road built afterwards (spec 5.3)."""
    for turn, victim in ((False, 1), (True, 2)):
        eng = new(3)
        eng.supply_roads = 0
        eng.roads = [1, 1, 1]
        eng.hands[0] = hand(brick=2, lumber=2, wool=1, grain=1)
        to_build_phase(eng)
        eng.play(BUILD(SETTLEMENT))
        eng.play(FLIP if turn else PASS)
        assert eng.victim(ROAD) == victim
        eng.play(BUILD(ROAD))
        assert eng.roads[0] == 2 and eng.roads[victim] == 0 and eng.roads[3 - victim] == 1


def test_knight_taken_when_supply_empty_and_church_protects_first_knight():
    """ "Besitzt ein Spieler eine Kirche ..., ist sein erster Ritter ... geschützt ... Falls er nur
    1 Ritter ... besitzt, wird er daher übersprungen." """
    eng = new(4)
    eng.supply_knights = 0
    eng.knights = [0, 1, 0, 2]
    eng.owned[1] = owns(CHURCH)
    eng.hands[0] = list(COST[KNIGHT])
    to_build_phase(eng)
    assert eng.victim(KNIGHT) == 3  # seat 1: Church + 1 knight, seat 2: no knight
    vp3 = eng.vp(3)
    eng.play(BUILD(KNIGHT))
    assert eng.knights == [1, 1, 0, 1]
    assert eng.vp(3) == vp3 - 1


def test_church_owner_with_two_knights_loses_the_top_one():
    """Only the first knight is protected: with 2 knights the second can be taken."""
    eng = new(3)
    eng.supply_knights = 0
    eng.knights = [0, 2, 3]
    eng.owned[1] = owns(CHURCH)
    eng.hands[0] = list(COST[KNIGHT])
    to_build_phase(eng)
    eng.play(BUILD(KNIGHT))
    assert eng.knights == [1, 1, 3]


@pytest.mark.parametrize("castle_roads, victim", [(1, 2), (3, 2), (4, 1)])
def test_city_castle_protects_first_three_roads(castle_roads, victim):
    """ "Besitzt ein Spieler ... eine Stadtburg, ... sind seine ersten drei Straßen geschützt ...
    Falls er nur ... 3 oder weniger Straßen besitzt, wird er daher übersprungen." """
    eng = new(3)
    eng.supply_roads = 0
    eng.roads = [1, castle_roads, 2]
    eng.owned[1] = owns(CITY_CASTLE)
    eng.hands[0] = list(COST[ROAD])
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    expected = [2, castle_roads, 2]
    expected[victim] -= 1
    assert eng.roads == expected


def test_road_not_offered_when_nobody_can_lose_one():
    """G11: supply empty and every opponent skipped -> the build is not allowed (nothing is paid)."""
    eng = new(3)
    eng.supply_roads = 0
    eng.supply_knights = 0
    eng.roads = [1, 0, 3]
    eng.owned[2] = owns(CITY_CASTLE)
    eng.knights = [0, 1, 0]
    eng.owned[1] = owns(CHURCH)
    eng.hands[0] = hand(brick=1, lumber=1, ore=1, wool=1, grain=1)
    to_build_phase(eng)
    assert legal(eng) == {PASS, BUILD(SETTLEMENT)}
    eng.supply_roads = 1
    assert legal(eng) == {PASS, BUILD(ROAD), BUILD(SETTLEMENT)}


@pytest.mark.parametrize("clockwise, victim", [(True, 0), (False, 1)])
def test_victim_search_wraps_around_the_table(clockwise, victim):
    """ "Besitzt ein Spieler keine Straße ..., wird er übersprungen und der in Pfeilrichtung
    nachfolgende Spieler verliert die entsprechende Karte" - the search goes on around the table
    (5 players, builder seat 3: clockwise 4, 0, 1, 2; counter-clockwise 2, 1, 0, 4)."""
    eng = new(5)
    set_active(eng, 3)
    eng.fate_clockwise = clockwise
    eng.supply_roads = 0
    eng.roads = [2, 3, 0, 1, 0]
    eng.hands[3] = list(COST[ROAD])
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    expected = [2, 3, 0, 2, 0]
    expected[victim] -= 1
    assert eng.roads == expected


def test_supply_road_used_before_taking_from_an_opponent():
    """Only "ist keine entsprechende Karte mehr in der Auslage vorrätig" is a road taken."""
    eng = new(3)
    eng.supply_roads = 1
    eng.roads = [1, 2, 2]
    eng.hands[0] = list(COST[ROAD])
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    assert eng.roads == [2, 2, 2] and eng.supply_roads == 0


def test_two_players_road_taken_from_the_only_opponent():
    """2 players: no fate card, the single opponent loses the top road."""
    eng = new(2)
    eng.supply_roads = 0
    eng.roads = [1, 3]
    eng.hands[0] = list(COST[ROAD])
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    assert eng.roads == [2, 2]


def test_victim_who_loses_last_road_keeps_one_draw_pile_exchange():
    """Spec 5.3 step 5 + "keine Straße ...: nur eine Karte mit dem Nachziehstapel tauschen"."""
    eng = new(2)
    eng.supply_roads = 0
    eng.hands[0] = list(COST[ROAD])
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    assert eng.roads == [2, 0]
    eng.play(PASS)
    assert eng.active == 1
    eng.hands[1] = hand(ore=1)
    assert legal(eng) == {PASS, DRAW_PILE}


# ======================================================================== 12. draw phase ====
def test_draw_two_plus_one_per_a_side_knight():
    """ "Der Spieler zieht die beiden obersten Karten vom Nachziehstapel. Für jede seiner
    Ritterkarten, die mit ihrer A-Seite ausliegt, darf er eine weitere Karte nachziehen." """
    eng = new(2)
    empty_hands(eng)
    eng.knights[0] = 3  # A, B, A -> 2 extra
    eng.draw_pile = [WOOL, GRAIN, ORE, LUMBER, BRICK, BRICK]
    eng.play(PASS)
    eng.play(PASS)
    assert eng.hands[0] == hand(brick=2, lumber=1, ore=1)
    assert eng.draw_pile == [WOOL, GRAIN]
    assert eng.active == 1 and eng.phase == Phase.TRADE


def test_knight_built_this_turn_counts_for_the_draw():
    """The draw phase comes after building; a new A-side knight already gives its extra card."""
    eng = new(2)
    empty_hands(eng)
    eng.hands[0] = list(COST[KNIGHT])
    eng.draw_pile = [WOOL, GRAIN, ORE, LUMBER, BRICK]
    to_build_phase(eng)
    eng.play(BUILD(KNIGHT))
    eng.play(PASS)
    assert eng.hands[0] == hand(brick=1, lumber=1, ore=1)


def test_b_side_knight_gives_no_extra_draw():
    """Only knights "die mit ihrer A-Seite ausliegt": 2 knights (A + B) give 1 extra card."""
    eng = new(2)
    empty_hands(eng)
    eng.knights[0] = 2
    eng.draw_pile = [WOOL, GRAIN, ORE, LUMBER, BRICK]
    eng.play(PASS)
    eng.play(PASS)
    assert eng.hands[0] == hand(brick=1, lumber=1, ore=1)


def test_optional_knight_draws_option():
    """ "darf er eine weitere Karte nachziehen" - G24 option: the extra cards become a decision."""
    eng = CatanCardEngine(CatanCardConfig(optional_knight_draws=True), 2, np.random.default_rng(0))
    empty_hands(eng)
    eng.knights[0] = 3
    eng.draw_pile = [WOOL, GRAIN, ORE, LUMBER, BRICK]
    eng.play(PASS)
    eng.play(PASS)
    assert eng.hands[0] == hand(brick=1, lumber=1)
    assert (eng.phase, eng.actor) == (Phase.KNIGHT_DRAW, 0)
    assert legal(eng) == {PASS, BLIND}
    eng.play(BLIND)
    assert eng.phase == Phase.KNIGHT_DRAW
    eng.play(PASS)  # the second extra card is declined
    assert eng.hands[0] == hand(brick=1, lumber=1, ore=1)
    assert eng.active == 1


def test_discard_pile_reshuffled_when_draw_pile_runs_out():
    """ "Wenn im Laufe des Spiels der Nachziehstapel ... zur Neige geht, werden die Karten der Ablage
    gemischt und als neuer Nachziehstapel ausgelegt." (G13: when a draw finds the pile empty)"""
    eng = new(2)
    empty_hands(eng)
    eng.draw_pile = [ORE]
    eng.discard = hand(lumber=3)
    eng.market = hand(grain=5)
    total = eng.card_count()
    eng.play(PASS)
    eng.play(PASS)
    assert eng.hands[0] == hand(lumber=1, ore=1)
    assert eng.draw_pile == [LUMBER, LUMBER]
    assert eng.discard == hand()
    assert eng.card_count() == total


def test_draws_skipped_when_both_piles_are_empty():
    """G13: if the draw pile and the discard pile are both empty, the remaining draws are skipped."""
    eng = new(2)
    empty_hands(eng)
    eng.draw_pile = [ORE]
    eng.discard = hand()
    eng.play(PASS)
    eng.play(PASS)
    assert eng.hands[0] == hand(ore=1)
    assert eng.active == 1


# ================================================================================ 13. end ====
def winning_display(eng, p):
    """The rulebook's winning display: 2 settlements, 1 city, 1 city with a Church, 2 knights, 4 roads."""
    eng.settlements[p] = [MARKET_DAY, ROBBER_RAID]
    eng.city_events[p] = [ROBBER_RAID, MARKET_DAY]
    eng.unimproved_cities[p] = 1
    eng.owned[p] = owns(CHURCH)
    eng.improvement_vp[p] = 3
    eng.knights[p] = 2
    eng.roads[p] = 4


def test_rulebook_winning_display_is_exactly_ten_vp():
    """ "Der Spieler besitzt 2 Siedlungen, hat eine Siedlung in eine Stadt umgewandelt und eine Stadt
    mit einer Kirche ausgebaut. 2 Ritter- und 4 Straßenkarten haben ihm 3 weitere Siegpunkte
    eingebracht." 2 + 2 + 3 (Church) + 1 + 2 = 10."""
    eng = new(2)
    winning_display(eng, 0)
    assert eng.setup.improvement_vp[CHURCH] == 3
    assert eng.knights[0] // 2 + eng.roads[0] // 2 == 3
    assert eng.vp(0) == 10


def test_reaching_ten_vp_on_own_turn_ends_game_immediately():
    """ "Das Spiel endet, wenn ein Spieler an der Reihe ist und 10 Siegpunkte erreicht hat." The 4th
    road completes the winning display; no draw phase follows (G17)."""
    eng = new(2)
    winning_display(eng, 0)
    eng.roads[0] = 3
    assert eng.vp(0) == 9
    eng.hands[0] = hand(brick=1, lumber=1, ore=1, wool=1, grain=1)
    pile = len(eng.draw_pile)
    to_build_phase(eng)
    eng.play(BUILD(ROAD))
    assert eng.vp(0) == 10
    assert eng.is_over and eng.phase == Phase.GAME_OVER
    assert eng.winner == 0 and eng.current_player == -1
    assert eng.legal_moves() == []
    assert eng.hands[0] == hand(ore=1, wool=1, grain=1) and len(eng.draw_pile) == pile
    assert eng.placement_scores() == [1.0, 0.0]


def test_win_by_city_skips_its_event():
    """G30: a city that reaches 10 VP ends the game before its event is resolved."""
    eng = new(3)
    winning_display(eng, 0)
    eng.settlements[0] = [ROBBER_RAID]
    eng.hands[0] = list(COST[CITY])
    eng.hands[1] = hand(ore=10)
    assert eng.vp(0) == 9
    to_build_phase(eng)
    eng.play(BUILD(CITY))
    assert eng.vp(0) == 10 and eng.is_over
    assert eng.hands[1] == hand(ore=10) and eng.fate_clockwise is True


def test_win_by_improvement_after_choice():
    """ "Ein Stadtausbau zählt 3 bzw. 4 Siegpunkte": a Town Hall on the last city wins."""
    eng = new(2)
    winning_display(eng, 0)
    eng.roads[0] = 1
    eng.knights[0] = 1
    eng.settlements[0] = [MARKET_DAY]
    assert eng.vp(0) == 6
    eng.unimproved_cities[0] = 2
    assert eng.vp(0) == 8
    eng.hands[0] = list(COST[IMPROVEMENT])
    to_build_phase(eng)
    eng.play(BUILD(IMPROVEMENT))
    assert not eng.is_over
    eng.play(CHOOSE(TOWN_HALL))
    assert eng.vp(0) == 10 and eng.is_over and eng.winner == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_env_end_terminations_and_rewards(n):
    """End of game through the env: terminations for all, +1 to the winner, -1 (2 players) or
    -1/(N-1) (more players) to the others (spec 9.7)."""
    env = envs.make("catan_card", num_players=n)
    env.reset(seed=11)
    eng = env.engine
    winning_display(eng, 0)
    eng.roads[0] = 3
    eng.supply_roads = 1
    eng.hands[0] = list(COST[ROAD])
    env.step(env.codec.index("PASS"))
    env.step(env.codec.index("BUILD(road)"))
    assert all(env.terminations.values())
    assert not any(env.truncations.values())
    expected = {f"player_{p}": (1.0 if p == 0 else -1.0 / (n - 1)) for p in range(n)}
    assert env.rewards == pytest.approx(expected)
    assert env.infos["player_0"]["scores"][0] == 10


# ====================================================================== 14. turn order ====
@pytest.mark.parametrize("clockwise", [True, False])
def test_turn_order_clockwise_regardless_of_fate_card(clockwise):
    """ "Danach ist der nächste Spieler im Uhrzeigersinn an der Reihe – unabhängig von der Richtung
    der Schicksalskarte." """
    eng = new(4)
    eng.fate_clockwise = clockwise
    seen = []
    for _ in range(8):
        seen.append(eng.active)
        eng.play(PASS)
        eng.play(PASS)
    assert seen == [0, 1, 2, 3, 0, 1, 2, 3]
    assert eng.turn == 8


def test_turn_order_through_env():
    """Clockwise seat order in the env, with the fate card counter-clockwise."""
    env = envs.make("catan_card", num_players=3)
    env.reset(seed=2)
    env.engine.fate_clockwise = False
    order = []
    for _ in range(4):
        order.append(env.agent_selection)
        env.step(env.codec.index("PASS"))
        env.step(env.codec.index("PASS"))
    assert order == ["player_0", "player_1", "player_2", "player_0"]


# ================================================================== 15. Merchant Guild ====
def test_merchant_guild_steals_from_opponent_with_at_least_as_many_vp():
    """Händlergilde (G8): once per turn, in the trade or build phase, steal 1 random card from an
    opponent with at least as many VP; not an exchange."""
    eng = new(4)
    eng.owned[0] = owns(MERCHANT_GUILD)
    settle_vp(eng, 0, 2)
    settle_vp(eng, 1, 1)  # fewer VP
    settle_vp(eng, 2, 2)  # equal
    settle_vp(eng, 3, 3)  # more
    eng._start_turn()
    eng.hands[0] = hand()
    eng.hands[1] = hand(brick=2)
    eng.hands[2] = hand(ore=2)
    eng.hands[3] = hand()  # nothing to steal
    assert legal(eng) == {PASS, MARKET, OPP(1), OPP(2), STEAL(2)}
    allowance = eng.allowance
    eng.play(STEAL(2))
    assert eng.hands[0] == hand(ore=1) and eng.hands[2] == hand(ore=1)
    assert eng.allowance == allowance  # not an exchange
    assert eng.phase == Phase.TRADE
    assert STEAL(2) not in legal(eng)
    eng.play(PASS)
    assert legal(eng) == {PASS}  # once per turn: not again in the build phase


def test_merchant_guild_usable_in_build_phase():
    """G8: the steal may come in the build phase instead."""
    eng = new(3)
    eng.owned[0] = owns(MERCHANT_GUILD)
    eng.hands[0] = hand()
    eng.hands[1] = hand(wool=1)
    eng.hands[2] = hand(grain=1)
    to_build_phase(eng)
    assert legal(eng) == {PASS, STEAL(1), STEAL(2)}
    eng.play(STEAL(1))
    assert eng.hands[0] == hand(wool=1) and eng.hands[1] == hand()
    assert legal(eng) == {PASS}


def test_no_guild_no_steal():
    """Only a Merchant Guild owner may steal."""
    eng = new(3)
    assert all(op != Op.GUILD_STEAL for op, _ in eng.legal_moves())
    eng.play(PASS)
    assert all(op != Op.GUILD_STEAL for op, _ in eng.legal_moves())


# ===================================================================== 16. Marketplace ====
def test_marketplace_one_extra_exchange_only_with_market():
    """Marktplatz (T4): +1 exchange per trade phase, usable only with the market."""
    eng = new(3)
    eng.owned[0] = owns(MARKETPLACE)
    eng._start_turn()
    eng.hands[0] = hand(brick=3)
    eng.market = hand(ore=5)
    eng.draw_pile = [GRAIN] * 5
    # the road's exchange goes to the draw pile
    eng.play(DRAW_PILE)
    eng.play(RES(BRICK))
    assert eng.allowance == 0
    assert legal(eng) == {PASS, MARKET}  # no draw pile, no opponent
    eng.play(MARKET)
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_RETURN  # only 1 card
    eng.play(RES(BRICK))
    assert legal(eng) == {PASS}
    assert eng.hands[0] == hand(brick=1, ore=1, grain=1)


def test_marketplace_two_market_cards_in_one_batch():
    """1 A-road + Marktplatz: 2 market cards in a single batch; the bonus is used first."""
    eng = new(3)
    eng.owned[0] = owns(MARKETPLACE)
    eng._start_turn()
    eng.hands[0] = hand(brick=2)
    eng.market = hand(ore=5)
    eng.play(MARKET)
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_TAKE and eng.market_bonus == 0 and eng.allowance == 1
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_RETURN
    eng.play(RES(BRICK))
    eng.play(RES(BRICK))
    assert eng.hands[0] == hand(ore=2)
    assert legal(eng) == {PASS}


def test_marketplace_without_road_bonus_market_plus_draw_pile():
    """Without a road: the single exchange is with the draw pile only; the bonus adds 1 market card."""
    eng = new(3)
    eng.roads[0] = 0
    eng.owned[0] = owns(MARKETPLACE)
    eng._start_turn()
    eng.hands[0] = hand(brick=2)
    eng.market = hand(ore=5)
    assert legal(eng) == {PASS, DRAW_PILE, MARKET}
    eng.play(MARKET)
    eng.play(RES(ORE))
    assert eng.phase == Phase.MARKET_RETURN
    eng.play(RES(BRICK))
    assert legal(eng) == {PASS, DRAW_PILE}


def test_a_payment_with_only_one_card_multiset_is_made_automatically():
    """Spec 9.4: if exactly one feasible payment multiset exists, pay it automatically."""
    env = envs.make("catan_card")
    env.reset(seed=0)
    e = env.engine
    e.hands[0] = [0, 0, 6, 0, 0]  # a road (brick + lumber) can only be paid with 2 x 3 ore
    env.step(env.codec.index("PASS"))
    env.step(env.codec.index("BUILD(road)"))
    assert e.phase == Phase.BUILD and e.roads[0] == 2 and e.hands[0] == [0, 0, 0, 0, 0]
    e.hands[0] = [1, 1, 3, 0, 0]  # a road can now be paid three ways
    e.built[0] = False
    env.step(env.codec.index("BUILD(road)"))
    assert e.phase == Phase.PAY
    names = {env.action_name(i) for i in env.legal_actions()}
    assert names == {"PAY_AS_PRINTED", "SUBSTITUTE(brick<-3xore)", "SUBSTITUTE(lumber<-3xore)"}


def test_memoised_payment_checks_match_the_full_search():
    """Speed paths (spec 5.2, 9.4): the per-hand affordability memo equals ``payable`` and the
    memoised "only payment" equals the exhaustive search of distinct payments, on random hands."""
    from envs.catan_card.engine import payable

    eng = new(3)
    rng = np.random.default_rng(7)
    for _ in range(3000):
        hand = [int(x) for x in rng.integers(0, 7, size=5)]
        eng.hands[eng.actor] = hand
        assert eng.affordable(hand) == tuple(payable(c, hand, eng.rate) for c in eng.costs)
        eng.unpaid = [int(x) for x in rng.integers(0, 3, size=5)]
        outcomes = eng._payment_outcomes()
        expected = next(iter(outcomes)) if len(outcomes) == 1 else None
        assert eng._only_payment() == expected, (hand, eng.unpaid, outcomes)
        assert eng._find_only_payment() == expected  # the memo did not hide a stale answer


def test_engine_copies_share_the_payment_memo_without_copying_it():
    import copy
    import pickle

    eng = new(2)
    eng.affordable([3, 3, 3, 3, 3])
    for twin in (eng.clone(), copy.deepcopy(eng), pickle.loads(pickle.dumps(eng))):
        assert twin._payments is eng._payments
        assert twin.legal_moves() == eng.legal_moves()
    assert "_payments" not in eng.__getstate__()
