"""Seventh Stone's complete moves (envs/seventh_stone/moves.py): a whole move order, placement, support, rank 1's
draft and a fight's walls are one move each; no move reaches past chance or the equipment drawn ahead."""
from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import envs
from envs.core import moves as core_moves
from envs.core import testing
from envs.core.moves import legal_moves, split_moves
from envs.seventh_stone.data import BARRACKS, MELEE, WALL
from envs.core.engine import deep_copy
from envs.seventh_stone.engine import Fight, Op, Phase, SeventhStoneEngine, Stage
from envs.seventh_stone.moves import SeventhStoneGrain

from .test_rules import FIELD, add, cell, kind, scenario, start


class EveryDecisionPlayed(SeventhStoneGrain):
    """The grain with every decision played on a clone: its moves are where ``continues`` ends them."""

    def may_continue(self, engine, index):
        return True


def composite(engine):
    return envs.spec("seventh_stone").new_codec(engine.config, engine.num_players, "composite")


def move_states(n: int, seeds=(0,), moves: int = 200):
    return testing.move_states("seventh_stone", SeventhStoneGrain, n, seeds, moves)


def what_chance_shows(engine):
    """What chance decides, drawn now or ahead: the random generator, the equipment stacks (shuffled ahead and
    popped at the year's start), the offer, the event and the year."""
    return (engine.rng.bit_generator.state["state"]["state"], [list(s) for s in engine.stacks], list(engine.offer),
            engine.event, engine.year)


@pytest.mark.parametrize("n", [2, 4])
def test_no_move_reaches_past_chance_even_unseen_by_the_random_generator(n, monkeypatch):
    """Spec 9.2: events, dice, shuffles and the equipment stacks are chance; the stacks are drawn ahead, so the
    year's offer is revealed without touching the random generator. With the core's check of the generator
    switched off, the grain alone ends every move where chance comes in: a move may end with it, never go on."""
    ended_by_chance_with_the_seat_to_act = 0
    for engine, flat, _ in move_states(n):
        monkeypatch.setattr(core_moves, "_chance_state", lambda engine: 0)
        for chain in legal_moves(engine, EveryDecisionPlayed(flat)).values():
            twin = engine.clone()
            for step, index in enumerate(chain):
                before = what_chance_shows(twin)
                flat.apply_legal(twin, index)
                if step < len(chain) - 1:
                    assert what_chance_shows(twin) == before, [flat.action_name(i) for i in chain]
            if what_chance_shows(twin) != before and twin.current_player == engine.current_player:
                ended_by_chance_with_the_seat_to_act += 1  # the chain could have gone on: the grain ended it
        monkeypatch.undo()
    assert ended_by_chance_with_the_seat_to_act > 5


@pytest.mark.parametrize("n", [2, 3])
def test_may_continue_only_saves_clones(n):
    """``may_continue`` takes a decision as a whole move without playing it: the moves are the same as when
    every decision is played on a clone."""
    for engine, flat, listed in move_states(n, moves=120):
        assert listed == legal_moves(engine, EveryDecisionPlayed(flat))


def test_a_move_order_is_one_move():
    """Spec 6.4.2 and 6.4.4: the field, the units moved, the stone taken along or left and the destination are
    one move order; its composite action is named after those decisions."""
    e = scenario(2)
    src, dest = cell(2, 1), cell(1, 1)
    e.controller[src] = 0
    add(e, src, 0, MELEE, 3, 1, stones=[kind("shield1")])
    start(e, Stage.MOVE)
    assert e.phase == Phase.MOVE_SELECT and e.actor == 0
    codec = composite(e)
    moves = codec.legal_moves(e)
    flat = codec.flat
    chain = tuple(flat.index(name) for name in
                  ("CELL(r2c1)", "AMOUNT(2)", "AMOUNT(1)", "NO", "CELL(r1c1)"))
    assert chain in moves.values()
    index = codec.encode(e, chain)
    assert codec.action_name(index) == "CELL(r2c1) + AMOUNT(2) + AMOUNT(1) + NO + CELL(r1c1)"
    # taking the stone along is the move without NO; the whole army takes it without being asked
    assert codec.action_name(codec.encode(e, chain[:3] + (flat.index("YES"),) + chain[4:])) == \
        "CELL(r2c1) + AMOUNT(2) + AMOUNT(1) + CELL(r1c1)"
    # every move order from the field is a whole one: it ends at a destination
    orders = [c for c in moves.values() if c[0] == flat.index("CELL(r2c1)")]
    assert orders and all(flat.action_name(c[-1]).startswith("CELL(") and len(c) > 1 for c in orders)
    played = e.clone()
    for step in chain:
        flat.apply_legal(played, step)
    codec.apply_legal(e, index)
    assert pickle.dumps(played) == pickle.dumps(e)
    assert e.phase == Phase.MOVE_SELECT and len(e.army_at(dest, 0).mil) == 2 and e.army_at(src, 0).stones


def test_a_large_army_moves_decision_by_decision():
    """More units than the count part holds: each decision of the move order is a move, so the parts stay few."""
    e = scenario(2)
    src = cell(2, 1)
    e.controller[src] = 0
    e.unit_max = 8
    add(e, src, 0, MELEE, 6)
    start(e, Stage.MOVE)
    codec = composite(e)
    flat = codec.flat
    chains = list(codec.legal_moves(e).values())
    assert (flat.index("CELL(r2c1)"),) in chains
    codec.play(e, (flat.index("CELL(r2c1)"),))
    assert e.phase == Phase.MOVE_COUNT_MIL
    assert sorted(codec.legal_moves(e).values()) == [(flat.index(f"AMOUNT({k})"),) for k in range(1, 7)]


def test_a_placement_is_one_move_with_the_building_it_replaces():
    """Spec 6.3: the item, its field and, on a full field, the building replaced are one placement."""
    e = scenario(2)
    at = cell(1, 1)
    e.controller[at] = e.controller[cell(1, 2)] = 0
    e.buildings[at] = [[BARRACKS, 1], [WALL, 1]]
    e.pend_build = [1, 0]
    start(e, Stage.PLACE)
    assert e.phase == Phase.PLACE_ITEM and e.actor == 0
    codec = composite(e)
    names = {codec.move_name(chain) for chain in codec.legal_moves(e).values()}
    assert "ITEM(manufactory) + CELL(r1c1) + CHOICE(1)" in names
    assert "ITEM(manufactory) + CELL(r1c2)" in names  # an empty field: nothing replaced
    assert "ITEM(manufactory) + CELL(r1c1)" not in names and "ITEM(manufactory)" not in names
    chain = next(c for c in codec.legal_moves(e).values()
                 if codec.move_name(c) == "ITEM(manufactory) + CELL(r1c1) + CHOICE(1)")
    # the composite action's name follows its parts: the decision, the detail (the building replaced), the cell
    assert codec.action_name(codec.encode(e, chain)) == "ITEM(manufactory) + CHOICE(1) + CELL(r1c1)"


def test_rank_one_picks_and_discards_in_one_move():
    """Spec 10 (2 players): "the winner takes 1 stone and puts 1 on the discard pile" is one move."""
    e = scenario(2)
    e.offer = [kind("bribery"), kind("tear_stone"), kind("shield1")]
    e.offer_status, e.offer_taker = [0, 0, 0], [-1, -1, -1]
    e.alloc = [[0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 3, 0, 0]]
    e.stage, e.idx, e.draft_step = Stage.DRAFT, 0, 0
    e.ranking = e._rank(5)
    e._run()
    codec = composite(e)
    names = sorted(codec.move_name(chain) for chain in codec.legal_moves(e).values())
    assert names == [f"CHOICE({pick}) + CHOICE({discard})" for pick in range(3) for discard in range(3)
                     if discard != pick]


def test_a_fights_walls_are_one_move_how_many_are_used():
    """Spec 6.5.4 step 3: the defender decides for each ready wall; the walls are alike, so the move is how many
    he uses, listed once, and the flat decisions in another order are the same move and reach the same state."""
    e = scenario(2)
    at = cell(1, 1)
    e.controller[at] = 1
    e.buildings[at] = [[WALL, 1], [WALL, 1]]
    e.armies[at] = []
    add(e, at, 0, MELEE, 3)
    add(e, at, 1, MELEE, 2)
    e.conflicts = {at: 1}
    e.order = [0, 1]
    e.fight = Fight(at, False, 0, 1)
    e.stage = Stage.FIGHTS
    e._run()  # the fight's first steps: no equipment, then the walls
    assert e.phase == Phase.USE_WALL and e.actor == 1 and e.fight.walls_left == 2
    codec = composite(e)
    flat = codec.flat
    names = sorted(codec.move_name(chain) for chain in codec.legal_moves(e).values())
    assert names == ["NO + NO", "YES + NO", "YES + YES"]
    other_order = (flat.index("NO"), flat.index("YES"))
    listed = codec.legal_moves(e)[codec.moves_of.parts_of(other_order)]
    assert listed == (flat.index("YES"), flat.index("NO"))
    played, replayed = e.clone(), e.clone()
    for index in other_order:
        flat.apply_legal(played, index)
    codec.play(replayed, listed)
    assert pickle.dumps(played) == pickle.dumps(replayed)  # the same walls used, then the same dice
    assert split_moves(e, codec.moves_of, other_order) == [other_order]


def _same_state(a, b):
    """Slot by slot, by value (a fight by its attributes, the generator by its state)."""
    for name in SeventhStoneEngine.__slots__:
        if not hasattr(b, name):
            assert not hasattr(a, name), name
        elif name == "rng":
            assert a.rng.bit_generator.state == b.rng.bit_generator.state
        elif name == "fight":
            assert (a.fight is None) == (b.fight is None) and (a.fight is None or vars(a.fight) == vars(b.fight))
        elif name != "board":
            assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("n", [3])
def test_clone_is_an_independent_copy(n):
    """The fast clone equals a deep copy at every step of a random game (undo checkpoints, fights and debts
    included), shares only what never changes in place, and a change to the clone leaves the engine as it was."""
    env = envs.make("seventh_stone", num_players=n)
    env.reset(seed=2)
    engine, pick = env.engine, np.random.default_rng(2)
    seen = set()
    for step in itertools.count():
        if engine.is_over:
            break
        twin = engine.clone()
        if step % 5 == 0 or engine.fight is not None:
            _same_state(twin, deep_copy(engine))
        seen.add(engine.phase)
        if engine.checkpoints and engine.fight is None and "undo" not in seen:
            seen.add("undo")
            before = pickle.dumps(engine)
            flat = env.codec
            for index in (flat.index("UNDO"), flat.index("UNDO")):
                if index in flat.legal_actions(twin):
                    flat.apply_legal(twin, index)  # puts the checkpoint's armies back: the clone's own
            twin.armies[next(c for c, here in enumerate(twin.armies) if here)][0].mil.append(3)
            twin.buildings[0].append([0, 1])
            twin.hands[0][0] += 1
            twin.rng.random()
            assert pickle.dumps(engine) == before
        legal = env.codec.legal_actions(engine)
        env.codec.apply_legal(engine, legal[int(pick.integers(len(legal)))])
    assert "undo" in seen and Phase.USE_EQUIPMENT in seen
    assert engine.clone().board is engine.board


def test_a_rollers_split_of_his_dice_is_one_move():
    """Spec 6.5.5 step 0 (G10): before a round each roller decides how many dice go at each target; with three
    targets he names two counts (the last target takes the rest), one move."""
    e = scenario(4)
    for seat in range(4):
        add(e, FIELD, seat, MELEE, 3 if seat == 0 else 1)
    e.conflicts = {FIELD: 1}
    start(e, Stage.FIGHTS, [0, 1, 2, 3])
    e.play((Op.CELL, FIELD))  # seat 0 picks the fight
    assert e.phase == Phase.DICE_ALLOC and e.actor == 0 and e.fight.aim_left == 3
    codec = composite(e)
    names = sorted(codec.move_name(chain) for chain in codec.legal_moves(e).values())
    assert names == sorted([f"AMOUNT({a}) + AMOUNT({b})" for a in range(3) for b in range(4 - a)] + ["AMOUNT(3)"])
