"""The engine's kept query results never go stale: over random play every fast query equals its plain
definition, and clones and pickled copies keep their own caches."""
from __future__ import annotations

import copy
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core.changes import ChangeLog
from envs.core.engine import RulesEngine, instance_state
from envs.core.testing import assigned_attributes
from envs.medioevo_universale.engine import ENGINE_ATTRIBUTES, MedioevoConfig, MedioevoEngine
from envs.medioevo_universale.constants import LI, NUM_UNIT_TYPES as NT, O_KIND, O_LEVEL, SIEGE
from envs.medioevo_universale.cards import W_END, W_EVENT, W_MOVE, W_PURCHASE, W_REACT, W_TAX, W_TRADE_TURN
from envs.medioevo_universale.data import GOAL_KEYS
from envs.medioevo_universale.diplomacy import StateTreaty, Treaty
from envs.medioevo_universale.state import StateMixin

GAMES = [
    (3, 10, {}),
    (4, 14, {"diplomacy_offers": 2, "teams": "pairs"}),
    (5, 12, {"hidden_purchases": True, "terrain": True}),
    (6, 13, {"diplomacy_offers": 2, "blood_markers": True}),
]

CARD_WINDOWS = (W_EVENT, W_TAX, W_PURCHASE, W_END, W_TRADE_TURN, W_MOVE, W_REACT)  # not the battle windows


def fresh_control(e) -> list[int]:
    return [StateMixin.controller(e, node) for node in range(e.board.num_nodes)]


def plain_owned_levels(e, p: int) -> list[int]:
    levels = [0, 0, 0]
    for oid in e.slots[p]:
        if oid >= 0:
            levels[e.objs[oid][O_LEVEL] - 1] += 1
    for n in e.land_nodes:
        if e.civil_owner[n] == p:
            levels[e.civil[n] - 1] += 1
        if e.mil_owner[n] == p:
            levels[e.mil[n] - 1] += 1
        if e.cath_owner[n] == p:
            levels[2] += 1
    if e.hidden_bought[p]:
        levels = [a + b for a, b in zip(levels, e.hidden_levels(p))]
    return levels


def check_queries(e) -> None:
    control = fresh_control(e)
    assert e._cached_control_map() == control
    assert [e.controller(node) for node in range(e.board.num_nodes)] == control
    for p in range(e.num_players):
        assert e.controlled_regions(p) == [n for n in e.land_nodes if control[n] == p]
        assert e.civil_levels_owned(p) == sum(e.civil[n] for n in e.land_nodes
                                              if e.civil_owner[n] == p and control[n] == p)
        assert e.owned_levels(p) == plain_owned_levels(e, p)
        assert e.unit_places(p) == [n for n in e.land_nodes if e.unit_place_ok(p, n)]
        for kind in range(SIEGE + 1):
            assert e.vehicle_places(p, kind) == [n for n in e.land_nodes if e.vehicle_place_ok(p, kind, n)]
        assert e._offer_partners(p) == [q for q in range(e.num_players) if q != p and e._offer_kinds(p, q)]
        objs = [e.objs[oid] for oid in e.slots[p] if oid >= 0]
        plain_goals = {
            "civil_buildings": sum(1 for n in e.land_nodes if e.civil_owner[n] == p),
            "civil_levels": sum(e.civil[n] for n in e.land_nodes if e.civil_owner[n] == p),
            "cathedrals": sum(1 for n in e.land_nodes if e.cath_owner[n] == p),
            "military_buildings": sum(1 for n in e.land_nodes if e.mil_owner[n] == p),
            "military_levels": sum(e.mil[n] for n in e.land_nodes if e.mil_owner[n] == p),
            "captain_levels": sum(e.units[p][n * NT + t] * (t - 3) for n in range(e.board.num_nodes)
                                  for t in range(4, NT)),
            "transports": sum(1 for o in objs if o[O_KIND] != SIEGE),
            "transport_levels": sum(o[O_LEVEL] for o in objs if o[O_KIND] != SIEGE),
            "siege_levels": sum(o[O_LEVEL] for o in objs if o[O_KIND] == SIEGE),
        }
        for name, value in plain_goals.items():
            assert e.goal_value(p, GOAL_KEYS.index(name)) == value, name
        for q in range(-1, e.num_players):
            assert e.in_ceasefire(p, q) == (q >= 0 and (min(p, q), max(p, q)) in e.ceasefires)
        for window in CARD_WINDOWS:
            assert e._can_play_card(p, window) == bool(e._card_play_options(p, window))


@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_fast_queries_equal_their_definitions(num_players, seed, options):
    env = envs.make("medioevo_universale", num_players=num_players, num_rounds=8, **options)
    env.reset(seed=seed)
    pick = random.Random(seed)
    guests_seen = False
    for agent in env.agent_iter(max_iter=2500):
        e = env.engine
        check_queries(e)
        guests_seen = guests_seen or e.guest_treaties
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            legal = env.legal_actions()
            env.step(legal[pick.randrange(len(legal))])
    if options.get("diplomacy_offers") == 2:
        assert guests_seen, "no guest treaty in force: the treaty branch of control was not exercised"


def test_clones_and_pickles_keep_their_own_caches():
    env = envs.make("medioevo_universale", num_players=4)
    env.reset(seed=3)
    pick = random.Random(3)
    for _ in range(400):
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
    e = env.engine
    before = list(e._cached_control_map())
    node = next(n for n in e.land_nodes if e.controller(n) >= 0 and not e.army[e.controller(n)][n])
    owner = e.controller(node)
    intruder = (owner + 1) % e.num_players
    for twin in (e.clone(), pickle.loads(pickle.dumps(e))):
        twin._add_units(intruder, node, LI, 1)  # an army of another seat takes the region
        assert twin.controller(node) == intruder and twin._cached_control_map()[node] == intruder
        assert e.controller(node) == owner and e._cached_control_map() == before
        check_queries(twin)


def _deep_copy_clone(engine):
    """The copy ``clone`` stands for: copy.deepcopy with the component data shared."""
    shared = {id(x): x for x in (engine.data, engine.board, engine.comp, engine.cards)}
    return copy.deepcopy(engine, shared)


@pytest.mark.parametrize("n, seed, options", GAMES[1:3])  # treaties, teams, hidden purchases, terrain
def test_a_clone_is_the_deep_copy_and_goes_its_own_way(n, seed, options):
    """``clone`` (its fast copy of lists, trees and records) gives deepcopy's copy, pickle for pickle, at every
    kind of state met in random play, and a game played on the clone leaves the original as it was."""
    env = envs.make("medioevo_universale", num_players=n, **options)
    env.reset(seed=seed)
    pick = random.Random(seed)
    phases = set()
    for step in range(900):
        if env.engine.is_over:
            break
        e = env.engine
        if step % 9 == 0 or e.phase not in phases:
            phases.add(e.phase)
            twin = e.clone()
            assert pickle.dumps(twin) == pickle.dumps(_deep_copy_clone(e))
            if step % 27 == 0:
                before = pickle.dumps(e)
                for _ in range(30):
                    if twin.is_over:
                        break
                    legal = twin.legal_moves()
                    twin.apply(legal[pick.randrange(len(legal))])
                assert pickle.dumps(e) == before
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
    assert len(phases) > 10


def test_a_marker_set_directly_changes_control():
    """Rules set control markers by plain assignment: the kept controller notices the change."""
    env = envs.make("medioevo_universale", num_players=3)
    env.reset(seed=0)
    e = env.engine
    node = next(n for n in e.land_nodes if e.controller(n) < 0 and not e.barb_total[n]
                and not any(e.army[p][n] for p in range(3)))
    e._cached_control_map()
    e.marker[node] = 2
    assert e.controller(node) == 2
    e.marker[node] = -1
    assert e._cached_control_map()[node] == -1 and e.controlled_regions(2) == [
        n for n in e.land_nodes if StateMixin.controller(e, n) == 2]


def test_a_guest_treaty_changes_control():
    """G24: a stationing treaty hands a region with a guest army back to its host at once."""
    env = envs.make("medioevo_universale", num_players=3)
    env.reset(seed=0)
    e = env.engine
    node = next(n for n in e.home_regions[0] if e.controller(n) == 0 and not e.army[0][n] and not e.barb_total[n])
    e._add_units(1, node, LI, 1)
    assert e.controller(node) == 1
    e.treaties.append(StateTreaty(Treaty.STATIONING, (0, 1), until=0, secret=False, fee=0))
    e._refresh_treaty_index()
    assert e.controller(node) == 0 and e._cached_control_map() == fresh_control(e)


# What a move that reports no change domain (changes.py) may change: the open sub-decision, the sealed bids and tax
# choices with the seat to move, the offers of a diplomacy window with its phase and queue; and the move count.
MINOR_MAY_CHANGE = {"prefix", "tree", "tree_lazy", "bids", "tie_extra", "tax_pending", "actor", "turn", "queue",
                    "offer", "phase", "dip_queue", "offers_left", "moves"}


def _public_state(e) -> dict:
    """A deep copy of the engine's state without its caches (attributes starting with _), shared data and
    revision, with the random generator's state."""
    skip = {"data", "board", "comp", "cards", "rng", "revision"}  # revision: compared by identity
    state = copy.deepcopy({k: v for k, v in instance_state(e).items() if not k.startswith("_") and k not in skip})
    state["rng"] = copy.deepcopy(e.rng.bit_generator.state)
    return state


def test_engine_attributes_cover_every_rule():
    """ENGINE_ATTRIBUTES (the slots: the attributes of a new engine) holds every name a rule assigns as
    ``self.<name>``, and the change log's: no rule sets one first during play (it would work, from the instance dict,
    but slower), and random games leave the instance dict empty."""
    package = Path(__file__).resolve().parents[2] / "envs" / "medioevo_universale"  # the sources, not the build
    not_engine = ("codec.py", "moves.py", "data.py", "__init__.py", "changes.py", "constants.py")  # not the engine's classes
    names = assigned_attributes(p for p in package.glob("*.py") if p.name not in not_engine)
    names = {n for n in names if not hasattr(MedioevoEngine, n) or n in ENGINE_ATTRIBUTES}
    assert names <= set(ENGINE_ATTRIBUTES), sorted(names - set(ENGINE_ATTRIBUTES))
    assert set(ChangeLog.SLOTS) <= set(ENGINE_ATTRIBUTES)
    assert MedioevoEngine.__mro__[1] is RulesEngine
    for n, options in ((3, {}), (4, dict(terrain=True, blood_markers=True, hidden_purchases=True, teams="pairs")),
                       (5, dict(empire_auction=True, captains_per_unit=True, diplomacy_offers=2))):
        e = MedioevoEngine(MedioevoConfig(num_rounds=8, **options), n, np.random.default_rng(n))
        pick = random.Random(n)
        while not e.is_over:
            moves = e.legal_moves()
            e.apply(moves[pick.randrange(len(moves))])
        assert not vars(e), (n, options, sorted(vars(e)))
    e = MedioevoEngine(MedioevoConfig(), 4, np.random.default_rng(0))
    assert not vars(e)
    assert pickle.loads(pickle.dumps(e)).ep == e.ep and instance_state(e.clone()).keys() == instance_state(e).keys()
