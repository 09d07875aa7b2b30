"""The encoder's caches never go stale: over random play, the cached encoder (which keeps each seat's last
observation and rewrites only changed blocks) equals a fresh one (empty caches) and a from-scratch rebuild
of the cached blocks; the engine's cached control map equals ``controller`` node by node. Observations
handed out never change afterwards, and clones and pickled envs keep no stale state."""
from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

import envs
from envs.medioevo_universale.constants import NUM_UNIT_TYPES as NT
from envs.medioevo_universale.data import VEHICLE_KINDS
from envs.medioevo_universale.observation.encoder import EP_OFFSET, EP_SCALE, MONEY_SCALE, MedioevoEncoder
from envs.medioevo_universale.state import StateMixin

from .forced import exact_stamps

GAMES = [
    (3, 0, {"empire_auction": True}),
    (4, 1, {"reveal_money": True, "terrain": True, "blood_markers": True}),
    (4, 4, {"diplomacy_offers": 2, "teams": "pairs"}),
    (5, 2, {"hidden_purchases": True}),
    (6, 3, {"teams": "pairs"}),
]


def assert_matches_fresh_encoder(env, seats) -> None:
    """The env's cached observations of ``seats`` equal a fresh encoder's (for fuzzes of rare features)."""
    e = env.engine
    for s in seats:
        cached = env.encoder.encode(e, s)
        fresh = MedioevoEncoder(env.config, env.num_players).encode(e, s)
        assert np.array_equal(cached, fresh), f"seat {s}: a cache went stale"


def reference_blocks(enc, e, seat):
    """The cached blocks built the plain way, as the layout describes them, from the engine's lists."""
    n, nn = enc.num_players, enc.nn
    rel = [(seat + k) % n for k in range(n)]
    to_rel = [(p - seat) % n for p in range(n)]
    blocks = {}
    for i, p in enumerate(rel):
        visible = p == seat or enc.config.reveal_money
        blocks[f"seat{i}_ep"] = [min(1.0, max(0.0, (e.ep[p] + EP_OFFSET) / EP_SCALE))]
        blocks[f"seat{i}_money"] = [min(1.0, max(0, e.money[p]) / MONEY_SCALE) if visible else 0]
        blocks[f"seat{i}_tech"] = [x / 4 for x in e.tech[p]]
        blocks[f"seat{i}_pieces"] = [min(1.0, e.total_units(p) / 50), len(e.own_objects(p)) / 10]
        blocks[f"seat{i}_capitulated"] = [min(1.0, x / 10) for x in e.capitulated[p]]
    ctrl = np.zeros((nn, n + 1), np.float32)
    marker = np.zeros((nn, n + 1), np.float32)
    units = np.zeros((n, nn, NT), np.float32)
    stopped = np.zeros((n, nn), np.float32)
    objects = np.zeros((n, nn, len(VEHICLE_KINDS)), np.float32)
    aboard = np.zeros((n, nn), np.float32)
    for node in range(nn):
        c = StateMixin.controller(e, node)
        ctrl[node, 0 if c < 0 else 1 + to_rel[c]] = 1
        m = e.marker[node]
        marker[node, 0 if m < 0 else 1 + to_rel[m]] = 1
        for p in range(n):
            for t in range(NT):
                units[to_rel[p], node, t] = min(1.0, e.units[p][node * NT + t] / 10)
            stopped[to_rel[p], node] = min(1.0, sum(e.stopped[p][node * NT:(node + 1) * NT]) / 10)
    for o in e.objs.values():
        if o[3] >= 0:
            objects[to_rel[o[0]], o[3], o[1]] += o[2] / 9
    for oid, cargo in e.cargo.items():
        if sum(cargo) and e.objs[oid][3] >= 0:
            aboard[to_rel[e.objs[oid][0]], e.objs[oid][3]] += sum(cargo) / 9
    blocks["node_controller"] = ctrl
    blocks["node_marker"] = marker
    blocks["node_units"] = units
    blocks["node_stopped"] = stopped
    blocks["node_objects"] = np.minimum(objects, 1.0)
    blocks["node_aboard"] = np.minimum(aboard, 1.0)
    blocks["node_barbarians"] = [min(1.0, x / 5) for x in e.barb]
    blocks["node_cubes"] = [c for cubes in e.cubes for c in cubes]
    return blocks


@pytest.mark.parametrize("stamps", ["engine", "exact"])
@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_cached_encoder_equals_reference(num_players, seed, options, stamps):
    """With the engine's stamps, and with the exact stamps of the content oracle (the encoder looks at the fewest
    blocks)."""
    env = envs.make("medioevo_universale", num_players=num_players, num_rounds=8, **options)
    env.reset(seed=seed)
    e = env.engine
    if stamps == "exact":
        exact_stamps(e)
    slices = env.encoder.layout.slices
    pick = random.Random(seed)
    for step, agent in enumerate(env.agent_iter(max_iter=1500)):
        obs, _, terminated, truncated, _ = env.last()
        seat = env.engine.current_player if env.engine.current_player >= 0 else 0
        other = (seat + 1 + step % (num_players - 1)) % num_players
        assert env.engine.control_map() == [StateMixin.controller(e, node) for node in range(env.encoder.nn)]
        assert e.controlled_regions(other) == StateMixin.controlled_regions(e, other)
        for s in (seat, other):
            cached = env.encoder.encode(e, s)
            fresh = MedioevoEncoder(env.config, num_players).encode(e, s)
            assert np.array_equal(cached, fresh), f"step {step} seat {s}: a cache went stale"
            if options.get("hidden_purchases"):
                continue  # the variant overwrites board blocks with the last public snapshot
            for name, expected in reference_blocks(env.encoder, e, s).items():
                got = cached[slices[name]]
                assert np.array_equal(got, np.asarray(expected, np.float32).ravel()), f"step {step} seat {s}: {name}"
        if terminated or truncated:
            env.step(None)
        else:
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[pick.randrange(legal.size)]))


def random_steps(env, pick: random.Random, steps: int) -> None:
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        legal = env.observe(agent)["action_mask"].nonzero()[0]
        env.step(int(legal[pick.randrange(legal.size)]))


def test_observations_handed_out_never_change():
    env = envs.make("medioevo_universale", num_players=4, num_rounds=8)
    env.reset(seed=5)
    pick = random.Random(5)
    kept = []
    for _ in range(60):
        for agent in env.possible_agents:
            obs = env.observe(agent)["observation"]
            kept.append((obs, obs.copy()))
        random_steps(env, pick, 10)
    assert len({o.tobytes() for o, _ in kept}) > 10  # the state did move on
    for obs, copy_then in kept:
        assert np.array_equal(obs, copy_then)


def test_clones_and_pickled_envs_share_no_stale_state():
    """One encoder serves an engine and its diverging clone in turn; a pickled env goes on with the caches it
    was pickled with. Each observation equals a fresh encoder's."""
    env = envs.make("medioevo_universale", num_players=4, num_rounds=8)
    env.reset(seed=6)
    pick = random.Random(6)
    random_steps(env, pick, 300)
    engines = (env.engine.clone(), env.engine.clone())  # the env's own engine stays as it is
    for step in range(200):
        for e in engines:
            seat = step % 4
            assert np.array_equal(env.encoder.encode(e, seat), MedioevoEncoder(env.config, 4).encode(e, seat))
            if not e.is_over:  # both engines move on, differently
                moves = e.legal_moves()
                e.apply(moves[pick.randrange(len(moves))])
    restored = pickle.loads(pickle.dumps(env))
    for step in range(200):
        for e, encoder in ((restored.engine, restored.encoder), (env.engine, env.encoder)):
            seat = step % 4
            assert np.array_equal(encoder.encode(e, seat), MedioevoEncoder(env.config, 4).encode(e, seat))
        random_steps(restored, pick, 1)


def test_changes_made_outside_the_rules_are_seen():
    """With no move since a seat's last observation everything is looked at again, so state edited directly
    between two observations (as scenario tests do) shows in the second, after moves that stamp no domain and
    after the others alike."""
    env = envs.make("medioevo_universale", num_players=4, num_rounds=8)
    env.reset(seed=7)
    e = env.engine
    pick = random.Random(7)
    after_unstamped = 0
    for step in range(400):
        for s in range(4):
            assert np.array_equal(env.encoder.encode(e, s), MedioevoEncoder(env.config, 4).encode(e, s)), step
        p, node = step % 4, e.land_nodes[step % len(e.land_nodes)]
        e._add_units(p, node, 0, 1)  # an army appears, changing units, control and the seat rows
        e.ep[(p + 1) % 4] += 1
        e.unstamped = 0  # the edit's own report dropped: the next move stamps only what it changes
        for s in range(4):
            assert np.array_equal(env.encoder.encode(e, s), MedioevoEncoder(env.config, 4).encode(e, s)), step
        if e.is_over:
            break
        moves = e.legal_moves()
        e.apply(moves[pick.randrange(len(moves))])
        after_unstamped += e.moves not in e.stamps
    assert after_unstamped > 50


def test_a_seat_row_changed_and_changed_back_between_observations():
    """The row cache gets a new entry for numbers seen before (other observers saw the change in between): the
    observer's own row and goals are still compared by their numbers."""
    env = envs.make("medioevo_universale", num_players=4, num_rounds=8)
    env.reset(seed=8)
    random_steps(env, random.Random(8), 200)
    e = env.engine
    for s in range(4):
        env.encoder.encode(e, s)
    for change in (1, -1):
        e.ep[0] += change
        env.encoder.encode(e, 1)
    assert np.array_equal(env.encoder.encode(e, 0), MedioevoEncoder(env.config, 4).encode(e, 0))
