"""Medioevo's complete moves (envs/medioevo_universale/moves.py): a purchase with its place is one move, a movement
path is one move, and no move reaches past a die, a card drawn or an event card turned."""
from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.medioevo_universale.constants import Head, Phase, Purchase
from envs.medioevo_universale.moves import MAX_DECISIONS, TECH_EMBEDDED, TREE_PHASES


def _chance_seen(engine) -> tuple:
    """What chance and the hidden decks have given so far: the generator's state, the decks and the cards drawn."""
    return (str(engine.rng.bit_generator.state), len(engine.deck), len(engine.event_deck), tuple(engine.drawn),
            engine.event_card)


def _random_states(seed: int = 0, steps: int = 2500):
    """A seeded random 3-player game in the composite encoding: (env, legal moves) at each of its decisions."""
    env = envs.make("medioevo_universale", num_players=3, action_encoding="composite")
    env.reset(seed=seed)
    pick = np.random.default_rng(seed)
    for _ in range(steps):
        if env.engine.is_over:
            return
        moves = env.codec.legal_moves(env.engine)
        yield env, moves
        chains = list(moves.values())
        env.step(env.codec.encode(env.engine, chains[int(pick.integers(len(chains)))]))


def test_every_move_is_a_tree_option_a_path_or_one_decision_and_stops_at_chance():
    """Over a random game: a move of several decisions is an option of the decision tree (a purchase, a card or
    technology activation, ...) or a path of steps; while it goes on, nothing is rolled, drawn or turned up, the
    phase stays the move's, and only its last decision may carry the option out or end the path."""
    kinds = set()
    for env, moves in _random_states():
        engine, flat = env.engine, env.codec.flat
        for chain in moves.values():
            if len(chain) == 1:
                continue
            assert len(chain) <= MAX_DECISIONS
            twin = engine.clone()
            heads = [flat.decode(twin, index)[0] for index in chain]
            phase = twin.phase
            path = phase == Phase.MOVE and heads[0] == Head.NODE
            assert path or phase in TREE_PHASES or (phase in TECH_EMBEDDED and heads[0] == Head.TECH), (phase, heads)
            kinds.add("path" if path else "tree")
            seen = _chance_seen(twin)
            for i, index in enumerate(chain[:-1]):
                flat.apply_legal(twin, index)
                assert _chance_seen(twin) == seen, (chain, i)
                if path:
                    assert twin.phase == Phase.MOVE and heads[i] == Head.NODE  # steps, then what follows them
                else:
                    assert twin.phase in TREE_PHASES and len(twin.prefix) == i + 1  # the option not carried out yet
        if kinds == {"path", "tree"}:
            return
    pytest.fail(f"only {kinds} met")


def test_a_unit_bought_with_its_place_is_one_composite_action():
    for env, moves in _random_states(seed=1):
        engine, codec = env.engine, env.codec
        if engine.phase != Phase.PURCHASE or engine.prefix:
            continue
        flat = codec.flat
        first = flat.encode(engine, (Head.PURCHASE, Purchase.UNIT))
        buys = [chain for chain in moves.values() if chain[0] == first]
        if not buys:
            continue
        chain = buys[-1]
        (_, unit), (_, node) = (flat.decode(engine, index) for index in chain[1:])
        assert len(chain) == 3 and flat.decode(engine, chain[2])[0] == Head.NODE
        index = codec.encode(engine, chain)
        assert index in codec.legal_actions(engine) and codec.decode(engine, index) == chain
        assert codec.action_name(index).startswith("PURCHASE(UNIT) + ")
        seat, before = engine.actor, engine.units[engine.actor][node * 7 + unit]
        env.step(index)
        assert engine.units[seat][node * 7 + unit] == before + 1  # bought and placed in one step
        assert engine.phase != Phase.PURCHASE or (engine.actor == seat and not engine.prefix)
        return
    pytest.fail("no unit purchase met")


def test_a_card_bought_ends_the_move_where_the_cards_are_drawn():
    """The deck is shuffled ahead: the cards a purchase draws come without a die, so the grain itself ends the move
    there; keeping one of them is a move of its own."""
    for env, moves in _random_states(seed=2):
        engine, codec = env.engine, env.codec
        if engine.phase != Phase.PURCHASE or engine.prefix:
            continue
        card = codec.flat.encode(engine, (Head.PURCHASE, Purchase.CARD))
        if (card,) not in moves.values():
            continue
        assert not [chain for chain in moves.values() if chain[0] == card and len(chain) > 1]
        env.step(codec.encode(engine, (card,)))
        assert engine.phase == Phase.KEEP_CARD and engine.drawn
        assert all(len(chain) == 1 for chain in codec.legal_moves(engine).values())
        return
    pytest.fail("no card purchase met")


def test_a_path_of_steps_is_one_move_with_what_follows_it():
    """A carrier's steps and the decision after them (ending the movement, unloading, ...) are one move; a path of
    ``MAX_DECISIONS`` steps goes on in the next move."""
    for seed in range(3):
        for env, moves in _random_states(seed=seed, steps=4000):
            engine, flat = env.engine, env.codec.flat
            if engine.phase != Phase.MOVE:
                continue
            paths = [chain for chain in moves.values() if len(chain) == MAX_DECISIONS
                     and all(flat.decode(engine, index)[0] == Head.NODE for index in chain[:2])]
            if not paths:
                continue
            chain = paths[0]
            carrier, mp = engine.carrier, engine.objs[engine.carrier][4]
            env.step(env.codec.encode(engine, chain))
            steps = sum(flat.decode(engine, index)[0] == Head.NODE for index in chain)
            if engine.carrier == carrier and carrier in engine.objs:
                assert engine.objs[carrier][4] <= mp - steps  # every step paid its MP
            return
    pytest.fail("no path of two steps met")
