"""``GameSpec.determinize``: a seat's hidden information sampled again, consistent with what it has seen.

For every game at two player counts, over a seeded random game: the seat's observation and view are unchanged, the
sample depends on the seat's information and the generator only (a state the seat cannot tell apart gives the same
sample), the original engine is untouched, and a sample plays on to the end."""
from __future__ import annotations

import pickle
from dataclasses import replace

import numpy as np
import pytest

import envs
from envs.core.changes import ChangeLog
from envs.core.engine import instance_state
from envs.medioevo_universale.constants import COINS, CP1, Ctrl, Head, Phase, Stage
from envs.medioevo_universale.diplomacy import SALE_FEE_FL, Treaty
from envs.medioevo_universale.view import behind_screen
from envs.seventh_stone.engine import ITEM_STONE, Op
from tests.medioevo_universale.test_rules import engine_at_purchase
from tests.test_seat_view import OPTIONS

DONE = (Head.CTRL, Ctrl.DONE)
# (game, player counts, decisions walked)
CASES = [("catan_card", (2, 4), 150), ("kingsburg", (2, 4), 150), ("medioevo_universale", (3, 4), 60),
         ("mythotopia", (2, 4), 100), ("seventh_stone", (2, 4), 150)]
# bookkeeping for observers (envs/core/changes.py), not game state: a sample stamps every domain as changed
_BOOKKEEPING = set(ChangeLog.SLOTS) | {"_legal"}


def canonical_dump(engine) -> bytes:
    """The engine's game state as bytes, its random generator's state included, the change log left out."""
    state = {name: value for name, value in instance_state(engine).items() if name not in _BOOKKEEPING}
    state["rng"] = engine.rng.bit_generator.state
    return pickle.dumps(sorted(state.items(), key=lambda item: item[0]))


def _walk(game, n, steps):
    """The states of a seeded random game, one per decision."""
    env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
    env.reset(seed=11)
    pick = np.random.default_rng(3)
    for _ in range(steps):
        if env.engine.is_over:
            break
        yield env
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))


@pytest.mark.parametrize("game, counts, steps", CASES, ids=[case[0] for case in CASES])
def test_determinize_keeps_the_view_and_reads_nothing_hidden(game, counts, steps):
    spec = envs.spec(game)
    for n in counts:
        checked = 0
        for step, env in enumerate(_walk(game, n, steps)):
            if step % 4:
                continue  # every fourth decision: the per-game hidden-information tests check every one
            engine = env.engine
            for seat in range(n):
                before = pickle.dumps(engine)
                sample = env.determinized(seat, np.random.default_rng(step))
                # another state the seat cannot tell apart gives the very same sample
                twin = spec.determinize(spec.determinize(engine, seat, np.random.default_rng(10_000 + step)),
                                        seat, np.random.default_rng(step))
                assert pickle.dumps(engine) == before, "determinize changed the real game"
                assert canonical_dump(twin) == canonical_dump(sample), \
                    f"{game} n={n} step {step}: seat {seat}'s sample depends on a hidden value"
                assert np.array_equal(env.encoder.encode(sample, seat), env.encoder.encode(engine, seat)), \
                    f"{game} n={n} step {step}: seat {seat}'s observation changed"
                assert spec.seat_view(sample, seat) == spec.seat_view(engine, seat)
                checked += 1
        assert checked >= 10 * n


@pytest.mark.parametrize("game, counts, steps", CASES, ids=[case[0] for case in CASES])
def test_a_determinized_game_plays_to_its_end(game, counts, steps):
    spec = envs.spec(game)
    for n in counts:
        env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
        codec = spec.new_codec(env.config, n, "flat")
        states = list(_walk(game, n, steps))
        engine = env.engine if not states else states[0].engine
        pick = np.random.default_rng(0)
        sample = spec.determinize(engine, engine.current_player, np.random.default_rng(7))
        moves = 0
        while not sample.is_over and moves < 20_000:
            legal = codec.legal_actions(sample)
            codec.apply(sample, int(legal[pick.integers(len(legal))]))
            moves += 1
        assert sample.is_over or moves == 20_000


def _hand_counts_are_not_negative(engine) -> bool:
    return all(count >= 0 for hand in engine.hands for count in hand)


# what a game's engine must keep true that its observation does not show (a count below zero is clipped there)
ENGINE_CHECKS = {"seventh_stone": _hand_counts_are_not_negative}


@pytest.mark.parametrize("game, counts, steps", CASES, ids=[case[0] for case in CASES])
def test_a_sample_for_any_seat_plays_on(game, counts, steps):
    """A sample drawn for every seat, not only the one to move (as a seat naming another's move draws it,
    envs/core/visibility.py), at every fifth decision: the mover's moves there play on, legal and within the
    observation's bounds, for a few random moves."""
    spec = envs.spec(game)
    check = ENGINE_CHECKS.get(game, lambda _engine: True)
    for n in counts:
        env = envs.make(game, num_players=n, **OPTIONS.get(game, {}))
        box = env.observation_spaces[env.possible_agents[0]]["observation"]
        codec = spec.new_codec(env.config, n, "flat")
        pick = np.random.default_rng(1)
        for step, state in enumerate(_walk(game, n, steps)):
            if step % 5:
                continue
            for seat in range(n):
                sample = state.determinized(seat, np.random.default_rng(step))
                for move in range(12):
                    if sample.is_over:
                        break
                    legal = codec.legal_actions(sample)
                    codec.apply(sample, int(legal[pick.integers(len(legal))]))
                    where = f"{game} n={n} step {step}, sample for seat {seat}, move {move}"
                    assert check(sample), where
                    for viewer in range(n):
                        assert box.contains(env.encoder.encode(sample, viewer)), f"{where}: seat {viewer}'s observation"


def test_seventh_stone_sample_lists_its_legal_moves_from_the_sampled_stones():
    """The legal moves the real game had listed (and kept) offer the mover's real stones: a sample for another
    seat lists them again from its own hands."""
    spec = envs.spec("seventh_stone")
    stone_decisions = 0
    for step, env in enumerate(_walk("seventh_stone", 2, 400)):
        engine = env.engine
        moves = engine.legal_moves()  # listed and kept, as before the seat to move chooses
        stone_decisions += any(op == Op.ITEM and arg >= ITEM_STONE for op, arg in moves)
        observer = 1 - engine.current_player
        sample = spec.determinize(engine, observer, np.random.default_rng(step))
        listed_again = sample.clone()
        listed_again._legal = None
        assert sample.legal_moves() == listed_again.legal_moves(), f"step {step}"
    assert stone_decisions >= 3


def test_determinized_refuses_a_bad_seat_and_leaves_the_game_unchanged():
    env = envs.make("kingsburg")
    env.reset(seed=0)
    before = pickle.dumps(env.engine)
    with pytest.raises(envs.IllegalActionError, match="seats are 0..1"):
        env.determinized(2, np.random.default_rng(0))
    assert pickle.dumps(env.engine) == before


# ------------------------------------------------ medioevo_universale: secrets between other seats ----
def _medioevo_war_window():
    """Four seats in seat order, the war-phase diplomacy window open with seat 0 to offer."""
    e = engine_at_purchase(diplomacy_offers=1, num_rounds=8)
    e.order, e.position, e.queue = [0, 1, 2, 3], [0, 1, 2, 3], []
    e.dip_done = ()
    e._start_war()
    assert e.phase == Phase.DIPLOMACY and e.actor == 0
    return e


def _play(e, *moves):
    for move in moves:
        assert move in e.legal_moves(), (move, e.phase)
        e.play(move)


def _secret_trade_treaty_of_seats_0_and_1():
    e = _medioevo_war_window()
    _play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.TRADE), (Head.DURATION, 2), DONE, DONE, (Head.CTRL, Ctrl.SECRET),
          (Head.CTRL, Ctrl.ACCEPT))
    changed = e.clone()
    changed.treaties[0] = replace(changed.treaties[0], until=0, fee=SALE_FEE_FL)
    changed.stamp_everything()
    return e, changed, (2, 3)


def _offer_being_drafted_by_seat_0():
    e = _medioevo_war_window()
    _play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.NON_AGGRESSION), (Head.DURATION, 3))
    changed = _medioevo_war_window()
    _play(changed, (Head.PLAYER, 1), (Head.TREATY, Treaty.PAYMENT), (Head.CTRL, Ctrl.DEMAND),
          (Head.COIN, COINS.index(50)))  # to seat 2
    changed.stamp_everything()
    return e, changed, (3,)


def _offer_sent_to_seat_1():
    e = _medioevo_war_window()
    _play(e, (Head.PLAYER, 0), (Head.TREATY, Treaty.NON_AGGRESSION), (Head.DURATION, 0), (Head.CTRL, Ctrl.PAY),
          (Head.COIN, COINS.index(50)), DONE, DONE)
    changed = _medioevo_war_window()
    _play(changed, (Head.PLAYER, 0), (Head.TREATY, Treaty.PAYMENT), (Head.CTRL, Ctrl.DEMAND),
          (Head.COIN, COINS.index(100)), DONE)
    changed.stamp_everything()
    return e, changed, (2, 3)


def _units_behind_a_screen():
    """A seeded game with hidden purchases, at the first decision where a seat has ordinary units behind its
    screen and another seat is still to have its purchase turn; the same state with the first of those units of
    another type and one more of that type."""
    env = envs.make("medioevo_universale", num_players=4, hidden_purchases=True)
    env.reset(seed=3)
    pick = np.random.default_rng(0)
    for _ in range(3000):
        e = env.engine
        buyers = [p for p in range(4) if behind_screen(e, (p + 1) % 4) and any(
            item[0] == "unit" and item[1] < CP1 for item in e.hidden_bought[p])]
        if buyers and e.queue:
            p = buyers[0]
            e, changed = e.clone(), e.clone()  # clones alike: a clone rebuilds the route caches' sets
            i, t = next((i, item[1]) for i, item in enumerate(changed.hidden_bought[p])
                        if item[0] == "unit" and item[1] < CP1)
            other_type = next(u for u in range(CP1) if u != t and changed.unit_supply[p][u] > 1)
            changed.hidden_bought[p][i] = ("unit", other_type)
            changed.unit_supply[p][t] += 1
            changed.unit_supply[p][other_type] -= 1
            changed.hidden_bought[p].append(("unit", other_type))  # and one more
            changed.unit_supply[p][other_type] -= 1
            changed.units_bought[p] += 1
            changed.stamp_everything()
            return e, changed, [s for s in range(4) if p in behind_screen(e, s)]
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    raise AssertionError("the walk reached no units behind a screen")


# each makes (a state, the state with what some seats may not see changed, those seats)
MEDIOEVO_SECRETS = {"secret treaty": _secret_trade_treaty_of_seats_0_and_1,
                    "offer being drafted": _offer_being_drafted_by_seat_0,
                    "offer sent": _offer_sent_to_seat_1,
                    "units behind a screen": _units_behind_a_screen}


@pytest.mark.parametrize("case", sorted(MEDIOEVO_SECRETS))
def test_medioevo_determinize_samples_what_other_seats_keep_secret(case):
    """A secret treaty, an offer and the purchases behind a screen of other seats: the observer's sample is the
    same whatever they are, keeps its observation and view, and plays on to the end."""
    engine, changed, observers = MEDIOEVO_SECRETS[case]()
    spec = envs.spec("medioevo_universale")
    encoder = spec.new_encoder(engine.config, engine.num_players)
    codec = spec.new_codec(engine.config, engine.num_players, "flat")
    for seat in observers:
        assert np.array_equal(encoder.encode(changed, seat), encoder.encode(engine, seat)), "the change is seen"
        assert spec.seat_view(changed, seat) == spec.seat_view(engine, seat)
        sample = spec.determinize(engine, seat, np.random.default_rng(seat))
        assert np.array_equal(encoder.encode(sample, seat), encoder.encode(engine, seat))
        assert spec.seat_view(sample, seat) == spec.seat_view(engine, seat)
        assert canonical_dump(spec.determinize(changed, seat, np.random.default_rng(seat))) == canonical_dump(sample), \
            f"{case}: seat {seat}'s sample reads what it may not see"
        assert not any(sample.hidden_bought[p] for p in engine.queue if engine.stage == Stage.PURCHASES), \
            "a seat still to have its purchase turn has bought nothing"
    pick = np.random.default_rng(0)
    for _ in range(20_000):
        if sample.is_over:
            break
        legal = codec.legal_actions(sample)
        codec.apply(sample, int(legal[pick.integers(len(legal))]))
    assert sample.is_over


def test_medioevo_another_seats_purchase_menu_is_listed_from_the_sample():
    """The purchase menu open for another seat was listed from its real money and purchases: the sample lists it
    again, so it offers no part left empty (a sample of a seat without money gives every other seat none)."""
    engine, _, observers = _units_behind_a_screen()
    assert engine.phase == Phase.PURCHASE and not engine.prefix and engine.actor not in observers
    engine.money[observers[0]] = 0
    sample = envs.spec("medioevo_universale").determinize(engine, observers[0], np.random.default_rng(0))
    listed_again = sample.clone()
    listed_again._open_purchase_menu(sample.actor)
    assert sample.legal_moves() == listed_again.legal_moves()
