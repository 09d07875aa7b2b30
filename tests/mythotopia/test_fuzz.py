"""Random-play fuzz of mythotopia with the game's invariants checked after every step."""
import numpy as np
import pytest

from envs.core import testing
from envs.core.aec import TabletopEnv
from envs.mythotopia import SPEC
from envs.mythotopia.data import KIND_PROVINCE, NUM_PROVINCES, VARIABLE_VP_CARDS
from envs.mythotopia.engine import CITY_S, NONE_S, VILLAGE_S, Z_DISCARD, Z_DRAW, Z_HAND, Z_RESERVE

PER_OWNER_ZONES = (Z_HAND, Z_DRAW, Z_DISCARD, Z_RESERVE)


def make_env(n, **options):
    return TabletopEnv(SPEC, num_players=n, **options)


def check_invariants(env) -> None:
    e = env.engine
    n = e.num_players
    raw = e.T.raw
    # every card is in exactly one deck, hand, discard, reserve, set-aside pile or supply
    where = e.card_zones()
    assert e.loc == e.locations_from_piles(), "incremental card locations differ from the piles"
    for c, (zone, owner) in enumerate(where):
        if e.KIND[c] == KIND_PROVINCE and zone in PER_OWNER_ZONES:
            assert e.controller[c] == owner, f"seat {owner} holds the card of {c} without controlling it"
    # pieces never exceed their supply
    for p in range(n):
        board_armies = sum(a[p] for a in e.armies)
        assert min(e.armies_pers[p], e.armies_gen[p]) >= 0
        assert e.armies_pers[p] + e.armies_gen[p] + board_armies == e.armies_total
        board_ships = sum(s[p] for s in e.ships)
        assert min(e.ships_pers[p], e.ships_gen[p]) >= 0
        assert e.ships_pers[p] + e.ships_gen[p] + board_ships == e.ships_total
        villages = sum(1 for x in range(NUM_PROVINCES) if e.controller[x] == p and e.settle[x] == VILLAGE_S)
        assert e.villages[p] >= 0
        assert e.villages[p] + villages + e.villages_on_card[p] == e.villages_total[p]
        cities = sum(1 for x in range(NUM_PROVINCES) if e.controller[x] == p and e.settle[x] == CITY_S)
        assert e.cities[p] >= 0 and e.cities[p] + cities == e.cities_total
        controlled = sum(1 for x in range(NUM_PROVINCES) if e.controller[x] == p)
        assert e.prov_count[p] == controlled
        # VP recomputed from the board and the counters equals the reported score
        c = e.counters[p]
        assert min(c) >= 0
        assert e.vp(p) == raw["province_vp"] * controlled + c[1] + 2 * c[2] + 3 * c[3]
        assert e.scores()[p] == e.vp(p)
    # a province has at most one owner, and a settlement exactly when it has one
    for x in range(NUM_PROVINCES):
        assert (e.controller[x] >= 0) == (e.settle[x] != NONE_S), x
        for p in range(n):
            assert e.armies[x][p] >= 0 and e.mercs[x][p] >= 0
            if e.mercs[x][p]:
                assert e.armies[x][p] > 0, "mercenaries without an army of their owner (A-22)"
    pieces = raw["pieces"]
    assert e.castles_left >= 0 and e.castles_left + sum(e.castle) == pieces["castles"]
    assert e.roads_left >= 0 and e.roads_left + sum(e.road) == pieces["roads"]
    assert e.mercs_left >= 0 and e.mercs_left + sum(sum(m) for m in e.mercs) == pieces["mercenaries"]
    # VP counters are conserved between the spare stock, the VP cards and the players
    for v in (1, 2, 3):
        held = sum(e.counters[p][v] for p in range(n))
        on_cards = sum(vals.count(v) for vals in e.vp_cards if vals is not None)
        assert e.spare[v] >= 0
        assert e.spare[v] + on_cards + held == e.counter_total[v]
    assert len(e.hand[e.active]) >= 0


def _fuzz(n, games, seed0, check_every=20, **options):
    env = make_env(n, max_turns=options.pop("max_turns", 200), **options)
    steps = ended = 0
    for g in range(games):
        result = testing.play_random_game(env, seed=seed0 + g, on_step=check_invariants,
                                          check_observations=(g % check_every == 0))
        assert result.terminated or result.truncated
        steps += result.steps
        if result.terminated:
            ended += 1
            w = env.engine.winner
            assert result.returns[f"player_{w}"] == 1.0
            s = env.engine.scores()
            assert all(s[w] > s[q] for q in range(n) if q != w), "End the game needs the strict lead"
    return steps, ended


# games per player count in the default run (max 200 player turns each)
DEFAULT_GAMES = {2: 16, 3: 10, 4: 8}


@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz(n):
    steps, _ = _fuzz(n, DEFAULT_GAMES[n], seed0=1000 * n)
    assert steps > 1000 * DEFAULT_GAMES[n]


@pytest.mark.parametrize("cards", [VARIABLE_VP_CARDS[0:4], VARIABLE_VP_CARDS[4:8], VARIABLE_VP_CARDS[6:10]])
def test_random_play_fuzz_with_each_variable_vp_card(cards):
    _fuzz(3, 3, seed0=77, variable_vp_cards=cards)


@pytest.mark.parametrize("options", [
    {"optional_start_choice": True},
    {"optional_start_choice": True, "optional_discard_count": 1, "variable_vp_cards": ("Citadel",)},
    {"castle_counter_value": 1, "fifth_starting_card": "Army", "random_start_player": False},
])
def test_random_play_fuzz_with_rule_options(options):
    _fuzz(4 if options.get("optional_start_choice") else 2, 3, seed0=5, **options)


def test_random_games_end_by_the_rules_when_the_end_is_near():
    """With one counter left on every VP card, random players soon may and do call the end."""
    env = make_env(2, max_turns=300)
    ended = 0
    for g in range(20):
        env.reset(seed=g)
        e = env.engine
        for k, vals in enumerate(e.vp_cards):
            if vals is not None:
                e.vp_cards[k] = vals[:1]
        e.counter_total = [0] + [e.spare[v] + sum(vals.count(v) for vals in e.vp_cards if vals is not None)
                                 for v in (1, 2, 3)]
        e.stamp_everything()  # edited from outside the rules
        pick = np.random.default_rng(g)
        while not e.is_over and e.turn < 300:
            legal = env.legal_actions()
            env.step(int(legal[pick.integers(len(legal))]))
            check_invariants(env)
            e = env.engine
        ended += e.is_over
        if e.is_over:
            s = e.scores()
            assert all(s[e.winner] > s[q] for q in range(2) if q != e.winner)
            assert e.empty_vp_cards() >= 4 and not any(e.at_war(x) for x in range(NUM_PROVINCES))
    assert ended >= 5


def test_random_play_with_a_scribe_in_a_reserve():
    """The Scribe decision (SCRIBE_SOURCE) in random play: offered as exactly two options, invariants
    (counter conservation above all) kept after every step."""
    from envs.mythotopia.engine import Phase
    from envs.mythotopia.layout import CARD, OPTION

    env = make_env(3, max_turns=150)
    decisions = 0
    for g in range(6):
        env.reset(seed=40 + g)
        e = env.engine
        scribe = e.ID["Scribe"]
        for pile in (e.display, e.impdeck):
            if scribe in pile:
                pile.remove(scribe)
        e.reserve[g % 3].append(scribe)
        e._rebuild_loc()
        e.stamp_everything()
        pick = np.random.default_rng(g)
        while not e.is_over and e.turn < 150:
            legal = env.legal_actions()
            if e.phase == Phase.SCRIBE_SOURCE:
                decisions += 1
                assert legal == [OPTION, OPTION + 1] and scribe in e.reserve[e.current_player]
            keep = [a for a in legal if a != CARD + scribe] or legal  # the Scribe stays in the reserve
            env.step(int(keep[pick.integers(len(keep))]))
            check_invariants(env)
            e = env.engine
    assert decisions >= 5


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz_long(n):
    _fuzz(n, 300, seed0=10**6 + 10**5 * n, check_every=50)


@pytest.mark.parametrize("n", (2, 4))
def test_caches_and_fast_checks_agree_with_the_full_computation(n):
    """Derived caches (board blocks, war lists, road networks) and the verbs' fast existence checks
    must agree with a from-scratch computation in every state of random games."""
    from envs.mythotopia.encoder import MythotopiaEncoder

    env = make_env(n, max_turns=120)
    pick = np.random.default_rng(n)
    checked = 0
    for g in range(2):
        env.reset(seed=500 + g)
        while not env.engine.is_over and env.engine.turn < 120:
            e = env.engine
            fresh = e.clone()  # a clone starts with empty caches
            for seat in range(n):
                obs = env.encoder.encode(e, seat)
                assert np.array_equal(obs, MythotopiaEncoder(e.config, n).encode(fresh, seat))
                direct = np.frombuffer(env.encoder._board_block(e, env.encoder._rel[seat]), dtype=np.uint8)
                if seat == 0:
                    assert env.encoder._board_block_absolute(e) == env.encoder._board_block(e, env.encoder._rel[0])
                raw = np.rint(obs / env.encoder._scale).astype(np.uint8)
                assert np.array_equal(raw[env.observation_layout["provinces"]], direct)
            assert env.legal_actions() == env.codec.legal_actions(fresh)
            if e.phase == 0:
                p, av = e.active, e.avail(e.active)
                assert e._any_invade(p, av) == bool(fresh._invade_targets(p))
                assert e._any_place(p, av) == bool(fresh._place_provinces(p))
                assert e._any_build(p, av) == any(fresh._build_types(p, b) for b in fresh._build_cards(p))
                checked += 1
            legal = env.legal_actions()
            env.step(int(legal[pick.integers(len(legal))]))
    assert checked > 100
