"""Mythotopia's complete moves (envs/mythotopia/moves.py): a card play with all its targets is one move, a card
with the modes it is played with, no move reaches past a card drawn or revealed; and the engine's fast clone."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import envs
from envs.core import testing
from envs.core.engine import instance_state
from envs.core.moves import legal_moves
from envs.mythotopia.engine import CITY_S, Phase
from envs.mythotopia.moves import MythotopiaGrain

from .test_rules import BUILD, P, blank, card, own, prov, put, S


class EveryDecisionPlayed(MythotopiaGrain):
    """The grain with every decision played on a clone: its moves are where ``continues`` ends them."""

    def may_continue(self, engine, index):
        return True


def composite(e):
    e.stamp_everything()  # the tests edit the position directly: every cache looks again
    return envs.spec("mythotopia").new_codec(e.config, e.num_players, "composite")


def chain_of(codec, *names):
    return tuple(codec.flat.index(name) for name in names)


def played_flat(e, chain, flat):
    twin = e.clone()
    for index in chain:
        flat.apply_legal(twin, index)
    return twin


def move_states(n: int, seeds=(0, 1), moves: int = 250):
    return testing.move_states("mythotopia", MythotopiaGrain, n, seeds, moves)


def what_the_seat_learns(engine):
    """What a decision can show the seat to act: a card drawn (a draw pile shrinks), the random generator
    (a shuffle), the improvement cards the Philosopher looks at."""
    return tuple(map(len, engine.draw)), engine.rng.bit_generator.state["state"]["state"], engine.phase == Phase.PHILO_CARD


def test_marauders_with_its_province_and_player_is_one_move():
    """Spec 5.4: Marauders, "choose a province and a player with >= 1 army there": one move, named by its parts,
    and the same state as its flat decisions."""
    e = blank(3)
    e.active = e.actor = 1
    e._start_turn()
    e.armies[P["Blore"]][0] = 2
    e.armies[P["Blore"]][2] = 1
    e.armies_pers[0] -= 2
    e.armies_pers[2] -= 1
    put(e, 1, "hand", e.ID["Marauders"])
    codec = composite(e)
    moves = codec.legal_moves(e)
    chain = chain_of(codec, "MARAUDERS", prov("Blore"), "PLAYER(+2)")
    assert chain in moves.values() and chain_of(codec, "MARAUDERS", prov("Blore"), "PLAYER(+1)") in moves.values()
    assert not any(chain[:1] == listed or chain[:2] == listed for listed in moves.values())  # no part-moves
    index = codec.encode(e, chain)
    assert index in codec.legal_actions(e)
    assert codec.action_name(index) == "MARAUDERS + PROVINCE(Blore) + PLAYER(+2)"
    twin = played_flat(e, chain, codec.flat)
    codec.apply_legal(e, index)
    assert pickle.dumps(e) == pickle.dumps(twin) and e.armies[P["Blore"]] == [1, 0, 1]


def test_a_build_with_its_structure_and_site_then_a_card_with_its_modes():
    """Spec 5.3.12: Build "exactly one of the following", its structure and site one move; the location card a
    move of its own; Merchant and Water Mill with the card they change and double (A-34) one move."""
    e = blank()
    own(e, 0, "Quean", "Palmain")
    put(e, 0, "hand", S(0, BUILD), P["Quean"], P["Palmain"], e.MERCHANT, e.WATERMILL)
    codec = composite(e)
    build = chain_of(codec, "BUILD", "OPTION(0)", prov("Quean"))
    assert build in codec.legal_moves(e).values()
    assert codec.action_name(codec.encode(e, build)) == "BUILD + PROVINCE(Quean) + OPTION(0)"
    codec.play(e, build)
    assert set(codec.legal_moves(e).values()) == {(codec.flat.index(card(P["Quean"])),)}  # the location card
    codec.play(e, chain_of(codec, card(P["Quean"])))
    assert e.phase == Phase.PAY and e.pay_owed == 2
    moves = codec.legal_moves(e)
    paid = chain_of(codec, "MODE(MERCHANT)", "MODE(WATER_MILL)", card(P["Palmain"]))
    assert set(moves.values()) == {paid, chain_of(codec, "MODE(WATER_MILL)", "MODE(MERCHANT)", card(P["Palmain"]))}
    index = codec.encode(e, paid)
    assert codec.action_name(index) == f"{card(P['Palmain'])} + MODE(MERCHANT) + MODE(WATER_MILL)"
    codec.apply_legal(e, index)
    assert e.settle[P["Quean"]] == CITY_S and e.phase == Phase.CHOOSE


def test_the_philosopher_ends_its_move_where_it_looks_at_the_improvement_deck():
    """Spec 5.4 item 6: "look at the top 3 cards of the improvement deck, take 1": the look is hidden
    information, so the Philosopher is a move and the card taken another."""
    e = blank()
    put(e, 0, "hand", e.ID["Philosopher"])
    e.impdeck = [c for c in e.display if c != e.ID["Philosopher"]][:4]
    e.display = [c for c in e.display if c not in e.impdeck]
    codec = composite(e)
    philosopher = chain_of(codec, "PHILOSOPHER")
    assert philosopher in codec.legal_moves(e).values()
    assert not any(len(chain) > 1 and chain[0] == philosopher[0] for chain in codec.legal_moves(e).values())
    codec.play(e, philosopher)
    assert sorted(codec.legal_moves(e).values()) == [(codec.flat.index(card(c)),) for c in sorted(e.impdeck[-3:])]


def test_counsellor_draws_after_its_move():
    """Spec 5.4 item 1: the cards are discarded one move each and DONE draws, ending the move."""
    e = blank()
    own(e, 0, "Blore", "Quean", "Margent", "Trogle")
    put(e, 0, "hand", e.ID["Counsellor"], P["Blore"], P["Quean"])
    put(e, 0, "draw", S(0, 0), S(0, 2))
    codec = composite(e)
    for chain in (("COUNSELLOR",), (card(P["Blore"]),), ("DONE",)):
        assert chain_of(codec, *chain) in codec.legal_moves(e).values()
        codec.play(e, chain_of(codec, *chain))
    assert len(e.hand[0]) == 3 and e.phase == Phase.CHOOSE  # Quean and the two cards drawn


@pytest.mark.parametrize("n", [2, 3])
def test_no_move_reaches_past_a_card_drawn_or_revealed(n):
    """Spec 7: drawn cards (the draw piles are shuffled ahead), a shuffle and the Philosopher's look are chance
    or hidden information. A move may end with one of them, never go on after it."""
    ended_by_news = 0
    for engine, flat, _ in move_states(n, seeds=(n,), moves=150):
        for chain in legal_moves(engine, EveryDecisionPlayed(flat)).values():
            twin = engine.clone()
            for step, index in enumerate(chain):
                before = what_the_seat_learns(twin)
                flat.apply_legal(twin, index)
                if step < len(chain) - 1:
                    assert what_the_seat_learns(twin) == before, [flat.action_name(i) for i in chain]
            ended_by_news += what_the_seat_learns(twin) != before
    assert ended_by_news > 20


@pytest.mark.parametrize("n", [2, 4])
def test_may_continue_only_saves_clones(n):
    """``may_continue`` takes a decision as a whole move without playing it: the moves are the same as when
    every decision is played on a clone."""
    for engine, flat, listed in move_states(n, seeds=(0,), moves=150):
        assert listed == legal_moves(engine, EveryDecisionPlayed(flat))


def test_the_clone_is_the_engine_and_independent_of_it():
    """The fast clone (engine.py) pickles as the engine, and moves played on it leave the engine as it was."""
    checked = 0
    for engine, flat, _ in move_states(3, seeds=(2,), moves=200):
        before = pickle.dumps(engine)
        twin = engine.clone()
        assert pickle.dumps(twin) == before
        for _ in range(20):  # a few decisions on the twin
            if twin.is_over:
                break
            flat.apply_legal(twin, flat.legal_actions(twin)[-1])
        assert pickle.dumps(engine) == before
        checked += 1
    assert checked == 200


def test_every_attribute_is_of_a_type_the_clone_copies_or_immutable():
    """The fast clone copies lists and dicts two levels deep and shares the rest: every attribute must be
    immutable, a static table, or a list or dict of immutables and of lists of immutables."""
    def immutable(value):
        if isinstance(value, tuple):
            return all(map(immutable, value))
        return value is None or isinstance(value, (int, float, str, frozenset)) or callable(value)

    def copied(value):
        return immutable(value) or (type(value) is list and all(map(immutable, value)))

    for engine, _, _ in move_states(3, seeds=(3,), moves=300):
        for name, value in instance_state(engine).items():
            if name in engine._STATIC or name in ("rng", "change_domains") or type(value) is bytearray:
                continue
            items = value.values() if type(value) is dict else value if type(value) is list else None
            assert immutable(value) or (items is not None and all(map(copied, items))), name
