"""The change log of mythotopia (envs/mythotopia/changes.py): every change the rules make is reported, and the
observations of clones and pickled copies equal the original's."""
import pickle
import random

import numpy as np
import pytest

import envs
from envs.core.changes import CountedChangeLog, check_reported
from envs.mythotopia.changes import DOMAINS
from envs.mythotopia.encoder import MythotopiaEncoder
from envs.mythotopia.engine import MythotopiaConfig, MythotopiaEngine

SEA_ISLES_CITADEL = ("Master of the Sea", "Lord of the Isles", "Citadel")


def scribe_in_a_reserve(engine):
    """The Scribe in seat 0's reserve from the start: its decisions (Phase.SCRIBE_SOURCE) come up."""
    scribe = engine.ID["Scribe"]
    for pile in (engine.display, engine.impdeck):
        if scribe in pile:
            pile.remove(scribe)
    engine.reserve[0].append(scribe)
    engine._rebuild_loc()
    engine.stamp_everything()


def near_end(engine):
    """One counter left on every VP card: random players soon may end the game (wars resolved at the end)."""
    for k, vals in enumerate(engine.vp_cards):
        if vals is not None:
            engine.vp_cards[k] = vals[:1]
    engine.stamp_everything()


# seeded random games (players, options, seed, steps, edit before the first move) in which every domain
# changes and the rarer rules come up: Master of the Sea, the Alchemist, the Mystic, a city and a citadel
# conquered, the Scribe's choice, the optional start with its secret discards
GAMES = [
    (2, {"variable_vp_cards": SEA_ISLES_CITADEL}, 21, 1500, None),
    (3, {"variable_vp_cards": SEA_ISLES_CITADEL + ("Spoils of War",)}, 0, 1500, scribe_in_a_reserve),
    (4, {"variable_vp_cards": SEA_ISLES_CITADEL}, 13, 1500, None),
    (4, {"optional_start_choice": True, "variable_vp_cards": ("Citadel",)}, 3, 1500, None),
]


def unreported(n, options, seed, steps, edit=None, drop=0):
    """Play a seeded random game: per step, the domains it changed without a report (0: none); also every
    domain changed in the game, and the engine. With ``drop``, the engine leaves those domains out of its
    reports (and the game stops where the check finds it)."""
    engine = MythotopiaEngine(MythotopiaConfig(**options), n, np.random.default_rng(seed))
    if edit:
        edit(engine)
    if drop:
        engine.changed = lambda bits: CountedChangeLog.changed(engine, bits & ~drop)
    pick = random.Random(seed)
    found, changed = [], 0
    for _ in range(steps):
        if engine.is_over:
            break
        moves = engine.legal_moves()
        before = DOMAINS.snapshot(engine)
        found.append(check_reported(engine, DOMAINS, lambda: engine.play(moves[pick.randrange(len(moves))])))
        changed |= DOMAINS.changed_bits(before, engine)
        if found[-1] & drop:
            break  # found; the rules' caches would go stale from here on
    return found, changed, engine


@pytest.mark.parametrize("n, options, seed, steps, edit", GAMES)
def test_every_change_is_reported(n, options, seed, steps, edit):
    found, changed, _ = unreported(n, options, seed, steps, edit)
    missed = [(step, DOMAINS.names_of(bits)) for step, bits in enumerate(found) if bits]
    assert not missed, f"changed without a report (step, domains): {missed[:5]}"
    assert changed == DOMAINS.all, f"never changed: {DOMAINS.names_of(DOMAINS.all & ~changed)}"


@pytest.mark.parametrize("seed", (0, 5))
def test_every_change_is_reported_up_to_the_end_of_the_game(seed):
    found, _, engine = unreported(2, {}, seed, 3000, near_end)
    assert not any(found) and engine.is_over


@pytest.mark.parametrize("name", DOMAINS.names)
def test_the_check_finds_a_dropped_report(name):
    """The check is real: with the reports of one domain left out, it finds a change nobody reported."""
    bit = DOMAINS.bit[name]
    found = []
    for game in GAMES:
        found, _, _ = unreported(*game, drop=bit)
        if found[-1] & bit:
            break
    assert found[-1] & bit


def play_alike(copies, pick, steps):
    """Random moves played on every env of ``copies``; their observations (every seat) stay equal."""
    for _ in range(steps):
        first = copies[0]
        if first.engine.is_over:
            return
        observations = [[env.encoder.encode(env.engine, seat) for seat in range(env.engine.num_players)]
                        for env in copies]
        for other in observations[1:]:
            assert all(np.array_equal(a, b) for a, b in zip(observations[0], other))
        legal = first.legal_actions()
        assert all(env.legal_actions() == legal for env in copies[1:])
        action = legal[pick.randrange(len(legal))]
        for env in copies:
            env.step(action)


@pytest.mark.parametrize("n", (2, 3, 4))
def test_clones_and_pickled_envs_observe_alike(n):
    """A pickled env (its encoder's caches with it), an env on a clone of the engine sharing the original's
    encoder, and the original see the same at every step."""
    env = envs.make("mythotopia", num_players=n)
    env.reset(seed=n)
    pick = random.Random(n)
    play_alike([env], pick, 150)
    pickled = pickle.loads(pickle.dumps(env))
    cloned = pickle.loads(pickle.dumps(env))
    cloned.engine = env.engine.clone()
    cloned.encoder = env.encoder
    play_alike([env, pickled, cloned], pick, 300)


@pytest.mark.parametrize("n", (2, 4))
def test_one_encoder_tells_engines_apart(n):
    """Two clones that went separate ways, with as many moves each, observed in turn by one encoder: each
    observation equals a fresh encoder's."""
    engine = MythotopiaEngine(MythotopiaConfig(), n, np.random.default_rng(n))
    pick = random.Random(n)
    for _ in range(100):
        moves = engine.legal_moves()
        engine.play(moves[pick.randrange(len(moves))])
    engines = [engine, engine.clone()]
    shared = MythotopiaEncoder(MythotopiaConfig(), n)
    differed = 0
    for _ in range(200):
        if any(e.is_over for e in engines):
            break
        for e in engines:
            moves = e.legal_moves()
            e.play(moves[pick.randrange(len(moves))])
        assert engines[0].moves == engines[1].moves
        for e in engines:
            for seat in range(n):
                assert np.array_equal(shared.encode(e, seat), MythotopiaEncoder(MythotopiaConfig(), n).encode(e, seat))
        differed += not np.array_equal(shared.encode(engines[0], 0), shared.encode(engines[1], 0))
    assert differed > 100
