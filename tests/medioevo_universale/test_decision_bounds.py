"""No chain of decisions that leaves the game where it was can go on without end (README, "Degenerate policies").

* A sum (a bid, a tie round's addition, a diplomacy offer's payment) is entered in its fewest coins
  (``constants.coin_moves``): at most S // 500 + 14 coin decisions for S fl, 33 up to the 10,000 fl demand ceiling.
* A transport or siege engine that left the moving group rejoins it only after the group's next step
  (``movement.py``, ``left_group``).
"""
import pytest

from envs.core.errors import IllegalActionError
from envs.core.testing import state_bytes
from envs.medioevo_universale.constants import (
    COINS, GALLEY, HI, LI, SIEGE, WAR_WAGON, Head, Phase, coin_moves, fewest_coins,
)
from envs.medioevo_universale.diplomacy import DEMAND_CEILING, OfferStep, Treaty

from .test_diplomacy import DEMAND, HUN, coin, dip_engine, propose
from .test_rules import advance_to, new_engine
from .test_war import DONE, node, play, put, war_engine

PLUS_1 = coin(1)


def enter_coins(e, first=True) -> int:
    """Plays the first (or last) legal COIN until none is left; returns how many were played."""
    played = 0
    while coins := [m for m in e.legal_moves() if m[0] == Head.COIN]:
        e.play(coins[0] if first else coins[-1])
        played += 1
    return played


def assert_rejected_unchanged(e, move):
    before = state_bytes(e)
    with pytest.raises(IllegalActionError, match="COIN"):
        e.play(move)
    assert state_bytes(e) == before


def test_fewest_coins_largest_first():
    assert [fewest_coins(s) for s in (0, 1, 4, 5, 9, 10, 14, 499, 500, 9_999, 10_000)] == [
        0, 1, 4, 1, 5, 1, 5, 14, 1, 33, 20]


def test_every_sum_stays_reachable_in_any_order_of_its_coins():
    """DECISIONS.md "An encoding never forbids a legal move": each sum up to the limit is entered by its fewest
    coins, smallest or largest first."""
    limit = 1_234
    for target in range(limit + 1):
        coins = []
        rest = target
        for c in reversed(COINS):
            coins += [c] * (rest // c)
            rest %= c
        for order in (coins, coins[::-1]):
            amount = 0
            for c in order:
                assert (Head.COIN, COINS.index(c)) in coin_moves(amount, limit), (target, amount, c)
                amount += c
            assert amount == target


def test_a_fifth_coin_of_one_value_is_not_offered():
    assert (Head.COIN, 0) not in coin_moves(4, 10_000)  # 5 x 1 fl: +5 instead
    assert (Head.COIN, 1) in coin_moves(4, 10_000)
    assert (Head.COIN, 1) not in coin_moves(5, 10_000)  # 2 x 5 fl: +10 instead
    assert (Head.COIN, 5) in coin_moves(9_500, 10_000)  # 500 fl coins have no larger one


def test_a_bid_is_entered_in_its_fewest_coins():
    e = advance_to(new_engine(), Phase.BID)
    for _ in range(4):
        e.play(PLUS_1)
    assert_rejected_unchanged(e, PLUS_1)
    assert coin(5) in e.legal_moves()
    e.play(DONE)  # the next seat's bid starts from nothing
    assert PLUS_1 in e.legal_moves()


@pytest.mark.parametrize("first", [True, False])
def test_a_demand_takes_at_most_33_coin_decisions(first):
    """Up to the 10,000 fl ceiling a demand is 33 coin decisions at most (9,999 fl), then only DONE is left
    (the lowest coin each time: +1 x 4, +5, +10 x 4, +50, +100 x 4, +500 x 19)."""
    e = dip_engine()
    propose(e, HUN, Treaty.PAYMENT, DEMAND)
    assert e.offer.step == OfferStep.AMOUNT
    played = enter_coins(e, first)
    assert (played, e.offer.amount) == ((33, 9_999) if first else (20, DEMAND_CEILING))
    assert e.legal_moves() == [DONE]
    assert_rejected_unchanged(e, PLUS_1)


def test_a_galley_takes_a_war_wagon_it_set_down_only_after_a_step():
    e = war_engine()
    genua, tyr = node("Genua"), node("Tyrrhenisches Meer (Tyrrhenian Sea)")
    e._new_object(0, GALLEY, 2, genua)
    e._new_object(0, WAR_WAGON, 1, genua)
    put(e, 0, "Genua", LI=1)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.EMBARK, 1), (Head.DISEMBARK, 1))
    assert (Head.EMBARK, 1) not in e.legal_moves()
    play(e, (Head.LOAD, LI), (Head.NODE, tyr), (Head.NODE, genua))  # out and back: 2 MP
    assert (Head.EMBARK, 1) in e.legal_moves()


def test_a_war_wagon_takes_an_escort_it_left_only_after_a_step():
    e = war_engine()
    e._new_object(0, WAR_WAGON, 1, node("Aachen"))
    e._new_object(0, SIEGE, 1, node("Aachen"))
    put(e, 0, "Aachen", HI=1)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.EMBARK, 1), (Head.DISEMBARK, 1))
    assert (Head.EMBARK, 1) not in e.legal_moves()


def test_a_group_does_not_change_back_to_the_carrier_it_left_before_a_step():
    e = war_engine()
    e._new_object(0, WAR_WAGON, 1, node("Aachen"))
    e._new_object(0, WAR_WAGON, 1, node("Aachen"))
    put(e, 0, "Aachen", HI=1)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.OBJECT, 1))
    assert (Head.OBJECT, 0) not in e.legal_moves()
    play(e, (Head.NODE, node("Franken")), (Head.NODE, node("Aachen")))
    assert e.phase == Phase.MOVE and (Head.OBJECT, 0) in e.legal_moves()
