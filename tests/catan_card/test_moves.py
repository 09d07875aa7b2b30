"""Catan's complete moves (envs/catan_card/moves.py): a whole trade batch or build is one move, no move reaches
past a card drawn or revealed, a set of cards is one move whatever its order; and the engine's fast clone."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import envs
from envs.catan_card.engine import Phase
from envs.catan_card.moves import CatanCardGrain
from envs.core import testing
from envs.core.moves import legal_moves

from .test_rules import DRAW_PILE, MARKET, ORE, WOOL, hand, new


class EveryDecisionPlayed(CatanCardGrain):
    """The grain with every decision played on a clone: its moves are where ``continues`` ends them."""

    def may_continue(self, engine, index):
        return True


def move_states(n: int, seeds=(0, 1), moves: int = 250):
    return testing.move_states("catan_card", CatanCardGrain, n, seeds, moves)


def what_the_seat_learns(engine):
    """What a decision can show: cards drawn from the pile (also the market's refill), a random draw or steal,
    a revealed hand, a city's event."""
    return (len(engine.draw_pile), engine.rng.bit_generator.state["state"]["state"],
            engine.phase == Phase.LIBRARY_PICK, tuple(engine.events_revealed))


@pytest.mark.parametrize("n", [2, 3])
def test_no_move_reaches_past_a_card_drawn_or_revealed(n):
    """Spec 7: drawn cards, a random card of an opponent, a revealed hand and a city's event are chance or
    hidden information; the draw pile is shuffled ahead, so a draw does not touch the random generator. A move
    may end with one of them, never go on after it."""
    ended_by_news_with_the_seat_to_act = 0
    for engine, flat, _ in move_states(n):
        for chain in legal_moves(engine, EveryDecisionPlayed(flat)).values():
            twin = engine.clone()
            for step, index in enumerate(chain):
                before = what_the_seat_learns(twin)
                flat.apply_legal(twin, index)
                if step < len(chain) - 1:
                    assert what_the_seat_learns(twin) == before, [flat.action_name(i) for i in chain]
            if what_the_seat_learns(twin) != before and twin.current_player == engine.current_player:
                ended_by_news_with_the_seat_to_act += 1  # the chain could have gone on: the grain ended it
    assert ended_by_news_with_the_seat_to_act > 20


@pytest.mark.parametrize("n", [2, 4])
def test_may_continue_only_saves_clones(n):
    """``may_continue`` takes a decision as a whole move without playing it: the moves are the same as when
    every decision is played on a clone."""
    for engine, flat, listed in move_states(n, seeds=(0,)):
        assert listed == legal_moves(engine, EveryDecisionPlayed(flat))


def test_a_draw_pile_batch_is_one_move_its_cards_a_set():
    """Spec 5.1: "put k hand cards onto the discard pile, then draw k": the discards are one move, listed once
    whatever their order; the flat decisions in another order are the same move and reach the same state."""
    engine = new(2)
    engine.roads[0] = 5  # three A-side roads: three exchanges
    engine._start_turn()
    engine.hands[0] = hand(brick=2, ore=1)
    codec = envs.spec("catan_card").new_codec(engine.config, 2, "composite")
    moves = codec.legal_moves(engine)
    flat = codec.flat
    names = {codec.move_name(chain) for chain in moves.values()}
    assert "TRADE_DRAW_PILE + RES(brick) + RES(ore) + PASS" in names
    assert "TRADE_DRAW_PILE + RES(ore) + RES(brick) + PASS" not in names  # one order of the set
    assert "TRADE_DRAW_PILE + RES(brick) + RES(brick) + RES(ore)" in names  # the limit: no PASS
    draw_pile_moves = [chain for chain in moves.values() if chain[0] == flat.encode(engine, DRAW_PILE)]
    assert len(draw_pile_moves) == 5  # {b}, {o}, {b,b}, {b,o}, {b,b,o}
    other_order = tuple(flat.index(name) for name in ("TRADE_DRAW_PILE", "RES(ore)", "RES(brick)", "PASS"))
    listed = moves[codec.moves_of.parts_of(other_order)]
    played, replayed = engine.clone(), engine.clone()
    for index in other_order:
        flat.apply_legal(played, index)
    codec.play(replayed, listed)
    assert pickle.dumps(played) == pickle.dumps(replayed)
    assert len(played.draw_pile) == len(engine.draw_pile) - 2  # the draw came at the end of the move


def test_a_market_batch_is_one_move_takes_and_cards_put_back():
    """Spec 5.1: "take k cards from the market, then put back exactly k" is one move; its name lists the cards
    taken, then those put back."""
    engine = new(2)
    engine.roads[0] = 3  # two exchanges
    engine._start_turn()
    engine.market = hand(ore=2, wool=3)
    engine.hands[0] = hand(brick=1)
    codec = envs.spec("catan_card").new_codec(engine.config, 2, "composite")
    flat = codec.flat
    market = [chain for chain in codec.legal_moves(engine).values() if chain[0] == flat.encode(engine, MARKET)]
    # one card: 2 kinds taken x 2 put back (brick or the card taken); two cards: {o,o}, {o,w}, {w,w} taken x
    # the sets of 2 of the 3 cards then in hand
    assert len(market) == 2 * 2 + (2 + 3 + 2)
    chain = tuple(flat.index(name) for name in ("TRADE_MARKET", "RES(ore)", "RES(wool)", "RES(brick)", "RES(ore)"))
    assert chain in market
    index = codec.encode(engine, chain)
    assert codec.action_name(index) == "TRADE_MARKET + RES(ore) + RES(wool) + RES(brick) + RES(ore)"
    codec.play(engine, chain)
    assert engine.phase == Phase.TRADE and engine.hands[0] == hand(wool=1) and engine.market[WOOL] == 2


def test_a_build_with_its_follow_up_is_one_move():
    """Spec 5.2 and G34: the improvement is chosen after paying, as part of building it."""
    engine = new(2)
    engine.unimproved_cities[0] = 1
    engine.hands[0] = hand(ore=1, wool=3)
    engine.play((0, 0))  # PASS: to the build phase
    codec = envs.spec("catan_card").new_codec(engine.config, 2, "composite")
    names = {codec.move_name(chain) for chain in codec.legal_moves(engine).values()}
    assert "BUILD(improvement) + IMPROVEMENT(library)" in names
    assert "BUILD(improvement)" not in names


@pytest.mark.parametrize("n", [2, 6])
def test_clone_is_an_independent_copy(n):
    """The fast clone copies every list and shares only immutable values (and the shared payment memo)."""
    for engine, _, _ in move_states(n, seeds=(3,), moves=100):
        pass
    twin = engine.clone()
    assert pickle.dumps(twin) == pickle.dumps(engine)
    for name, value in vars(engine).items():
        if name in ("rng", "_payments"):
            continue
        assert isinstance(value, (int, tuple, list, type(engine.config), type(engine.setup))), name
        if isinstance(value, list):
            assert getattr(twin, name) is not value
            assert all(not isinstance(item, list) or item is not theirs
                       for item, theirs in zip(value, getattr(twin, name))), name
            assert all(isinstance(item, (int, tuple)) or all(isinstance(x, int) for x in item) for item in value), name
    twin.hands[0][ORE] += 5
    twin.rng.random()
    assert pickle.dumps(twin) != pickle.dumps(engine)
    assert pickle.dumps(engine.clone()) == pickle.dumps(engine)
