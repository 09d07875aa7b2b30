"""Random-play fuzz with the game's invariants checked after every step."""
import pickle

import numpy as np
import pytest

import envs
from envs.core import testing
from envs.seventh_stone import SeventhStoneEncoder
from envs.seventh_stone import encoder as encoder_module
from envs.seventh_stone.data import NUM_CELLS, TEMPLE
from envs.seventh_stone.engine import KINDS, Phase, Stage

# complete games per player count in the default run
DEFAULT_GAMES = {2: 40, 3: 16, 4: 10}
TOTAL_STONES = sum(k.count for k in KINDS)


def check_invariants(env) -> None:
    e = env.engine
    n = e.num_players
    # the seat to decide and the end, kept as plain attributes, follow the decision state
    assert e.is_over == (e.phase == Phase.GAME_OVER)
    assert e.current_player == (-1 if e.is_over else e.actor)
    # capacity rules hold for everyone except the player in the middle of his own movement phase
    mover = e.order[e.idx] if e.stage == Stage.MOVE and e.idx < n else -1
    for p in range(n):
        if p != mover:
            assert e.capacity_ok(p), f"seat {p} breaks a capacity rule outside its movement"
    for cell in range(NUM_CELLS):
        for a in e.armies[cell]:
            assert a.size >= 1, "empty army left on the board"
        blds = e.buildings[cell]
        assert len(blds) <= 2
        if blds:
            assert e.board.yield_field[cell] and e.capital_of[cell] < 0
    # resource stones never negative: budget left, and P - U once debts are settled
    for p in range(n):
        assert e.budget_left(p) >= 0
        if not e.debt_queue and e.phase != Phase.DISBAND:
            assert e.production(p) - e.upkeep(p) >= 0, f"seat {p}: U {e.upkeep(p)} > P {e.production(p)}"
    # tear stones recomputed from control, tournament wins and the market equal the reported count
    seen = env.encoder.unscale(env.encoder.encode(e, 0))
    layout = env.observation_layout
    for p in range(n):
        ts = e.tourn_wins[p] + int(e.tear_bought[p])
        for cell in range(NUM_CELLS):
            if e.controller[cell] == p:
                ts += 3 * (e.capital_of[cell] >= 0) + (e.board.terrain[cell] == TEMPLE)
        assert e.ts(p) == ts
        assert e.scores()[p] == ts
        assert seen[layout[f"seat{p}_ts"]][0] == min(ts, 15)
    assert sum(e.tear_bought) <= 1
    # every equipment stone is somewhere
    assert e.stone_count() == TOTAL_STONES
    # a bid is never visible to another seat before the reveal
    if not e.revealed and e.phase == Phase.ALLOC:
        for seat in range(n):
            raw = env.encoder.unscale(env.encoder.encode(e, seat))
            for i in range(1, n):
                for f in ("bid_mercenaries", "bid_equipment", "bid_movement", "bid_tournament", "building"):
                    assert raw[layout[f"seat{i}_revealed_{f}"]][0] == 0


def _forget_memos() -> None:
    """Empties the encoder's memo of rotated cell blocks, so that the next encoding computes every
    value anew."""
    for memo in encoder_module._ROTATED:
        memo.clear()


def check_cache(env) -> None:
    """The encoder's caches (kept per seat from the engine's change log: domains stamped, cells changed) and
    the memos equal a fresh encoder's encoding."""
    _fresh_equals_cached(env.encoder, env.engine)


def _fresh_equals_cached(encoder, e) -> None:
    for seat in range(e.num_players):
        cached = encoder.encode(e, seat)
        _forget_memos()
        fresh = SeventhStoneEncoder(e.config, e.num_players).encode(e, seat)
        assert np.array_equal(cached, fresh), f"stale observation cache for seat {seat}"


def test_observation_caches_survive_clone_and_pickle():
    """A clone and an unpickled copy, played on apart from the original with the original's encoder, encode
    what a fresh encoder sees at every step (their change logs are copies: the encoder starts its caches anew
    for another engine), and the original encodes as before."""
    env = envs.make("seventh_stone", num_players=3)
    env.reset(seed=5)
    pick = np.random.default_rng(0)
    encoder = env.encoder
    forked = 0
    for step in range(900):
        e = env.engine
        if e.is_over:
            break
        if step % 40 == 20:
            before = [encoder.encode(e, seat) for seat in range(3)]
            for twin in (e.clone(), pickle.loads(pickle.dumps(e))):
                for _ in range(40):
                    if twin.is_over:
                        break
                    moves = twin.legal_moves()
                    twin.apply(moves[int(pick.integers(len(moves)))])
                    _fresh_equals_cached(encoder, twin)
            for seat in range(3):
                assert np.array_equal(encoder.encode(e, seat), before[seat])
            _fresh_equals_cached(encoder, e)
            forked += 1
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert forked >= 8


@pytest.mark.parametrize("n,options", [(2, {}), (4, {}), (4, {"max_moves_over_capacity": 1})])
def test_legal_moves_after_undo_equal_a_fresh_computation(n, options):
    """UNDO (chosen, or forced when a move left the capacity rules broken too long) reuses the MOVE_SELECT
    moves saved with the checkpoint; they equal what a copy without that saved list computes."""
    env = envs.make("seventh_stone", num_players=n, **options)
    pick = np.random.default_rng(3)
    after_undo = 0
    for game in range(4):
        env.reset(seed=50 + game)
        undos = 0
        while not env.engine.is_over and env.engine.turn < 12:
            e = env.engine
            if e.phase == Phase.MOVE_SELECT:
                twin = e.clone()
                twin._legal = twin._undone_moves = None
                assert twin.legal_moves() == e.legal_moves()
                after_undo += e.undos > undos
            undos = e.undos
            legal = env.legal_actions()
            env.step(int(legal[pick.integers(len(legal))]))
    assert after_undo > 20


def _fuzz(n, games, seed0, options=None, check_all_seats_every=10):
    env = envs.make("seventh_stone", num_players=n, **(options or {}))
    steps = ended = 0
    for g in range(games):
        hook = check_invariants if g % 4 else (lambda env: (check_invariants(env), check_cache(env)))
        result = testing.play_random_game(env, seed=seed0 + g, on_step=hook,
                                          check_observations=(g % check_all_seats_every == 0))
        assert result.terminated or result.truncated
        if result.terminated:
            ended += 1
            assert all(env.engine.ts(w) >= env.engine.win_ts for w in env.engine.winners)
        steps += result.steps
    return steps, ended


@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz(n):
    steps, ended = _fuzz(n, DEFAULT_GAMES[n], seed0=1000 * n)
    assert ended >= DEFAULT_GAMES[n] * 0.9
    assert steps > 300 * DEFAULT_GAMES[n]


@pytest.mark.parametrize("n,options", [
    (2, {"advanced_terrain": True, "destruction_roll": 6}),
    (3, {"wall_bypass": True, "no_time": True}),
    (4, {"four_islands": True, "double_move": True, "advanced_terrain": True}),
    (4, {"max_moves_over_capacity": 1}),
])
def test_random_play_fuzz_with_rule_options(n, options):
    steps, ended = _fuzz(n, 5, seed0=77, options=options)
    assert ended >= 4


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz_long(n):
    _fuzz(n, 300, seed0=10**6 + 10**5 * n, check_all_seats_every=50)
