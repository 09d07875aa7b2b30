"""Random-play fuzz with the game's invariants checked after every step."""
import copy

import numpy as np
import pytest

import envs
from envs.core import testing
from envs.core.changes import check_reported
from envs.kingsburg.changes import DOMAINS, PUBLIC, SEATS
from envs.kingsburg.data import BUILDING_EFFECTS, CATHEDRAL, NUM_COLS, tables
from envs.kingsburg import encoder as encoder_module
from envs.kingsburg import engine as engine_module
from envs.kingsburg.encoder import KingsburgEncoder
from envs.kingsburg.engine import (
    EV_ADVISOR, EV_ARMY_TOKEN, EV_BUILD, EV_BUILD_NO_VP, EV_CATHEDRAL, EV_DEFEAT, EV_DESTROY, EV_EMBASSY,
    EV_FORTRESS, EV_GOVERNOR, EV_HONOUR, EV_PREACHER, EV_SMUGGLER, EV_TOP_STRENGTH, EV_TOWN_HALL, EV_VICTORY,
)

SHARED_ENCODER_CACHES = ("_DICE_BLOCKS", "_BUILDING_BLOCKS", "_CONTEXT_BLOCKS")
ENGINE_MOVE_CACHES = (engine_module._SUBSET_CACHE, engine_module._CHOICES_CACHE, engine_module._MODIFIER_MOVES,
                      engine_module._RECRUIT_MOVES, engine_module._BUILD_MOVE_LISTS, engine_module._PICK_MOVES)

# complete games per player count in the default run (base game), then per module set
DEFAULT_GAMES = {2: 200, 3: 120, 4: 80, 5: 60}
MODULE_SETS = ({"module_more_buildings": True}, {"module_governors": True}, {"module_army_tokens": True},
               {"module_more_buildings": True, "module_governors": True, "module_army_tokens": True})


def vp_from_history(e, p: int) -> int:
    """VP of seat p recomputed from the event log and the data tables alone."""
    t = e.tables
    total = 0
    for seat, event, arg in e.log:
        if seat != p:
            continue
        if event == EV_ADVISOR:
            total += t.advisors[arg - 1].gain[3]
        elif event == EV_SMUGGLER:
            total -= t.advisors[arg - 1].optional_pay_vp
        elif event == EV_BUILD:
            total += t.buildings[arg].vp
        elif event == EV_DESTROY:
            total -= t.buildings[arg].vp
        elif event in (EV_HONOUR, EV_FORTRESS, EV_TOP_STRENGTH, EV_TOWN_HALL, EV_EMBASSY):
            total += 1
        elif event == EV_VICTORY:
            total += t.enemies[arg].reward[3]
        elif event == EV_DEFEAT:
            total -= t.enemies[arg].penalty[3]
        elif event == EV_CATHEDRAL:
            total += arg // t.building(CATHEDRAL).params["goods_per_vp"]
        elif event == EV_ARMY_TOKEN:
            total += arg
        elif event == EV_GOVERNOR:
            total += t.governors[arg].params.get("vp", 0)
        elif event == EV_PREACHER:
            total += next(g.params["vp"] for g in t.governors if g.effect == "no_build_vp")
        else:
            assert event == EV_BUILD_NO_VP
    return total


def buildings_from_history(e, p: int) -> set[int]:
    """Replay build/destroy events; every build must have its left neighbour (prerequisites)."""
    owned: set[int] = set()
    for seat, event, arg in e.log:
        if seat != p:
            continue
        if event in (EV_BUILD, EV_BUILD_NO_VP):
            assert arg not in owned, f"seat {p} built {e.tables.buildings[arg].id} twice"
            if arg % NUM_COLS:
                assert arg - 1 in owned, f"seat {p} built {e.tables.buildings[arg].id} without its prerequisite"
            owned.add(arg)
        elif event == EV_DESTROY:
            # destruction takes the rightmost column, topmost row
            assert arg == max(owned, key=lambda s: (s % NUM_COLS, -(s // NUM_COLS)))
            owned.remove(arg)
    return owned


class Invariants:
    """Checked after every step; also tracks the year sequence across a game."""

    def __init__(self):
        self.years: list[int] = []

    def __call__(self, env) -> None:
        e = env.engine
        n = e.num_players
        if not self.years or self.years[-1] != e.year:
            self.years.append(e.year)
        for p in range(n):
            assert min(e.goods[p]) >= 0, f"seat {p} goods {e.goods[p]}"
            assert e.plus2[p] >= 0 and e.soldiers[p] >= 0
            assert e.vp[p] == vp_from_history(e, p), f"seat {p}: VP {e.vp[p]} != history"
            owned = buildings_from_history(e, p)
            assert owned == set(e.owned_slots(p))
            assert e.num_buildings[p] == len(owned)
            for slot in owned:
                assert e.tables.buildings[slot] is not None and slot // NUM_COLS in e.tables.rows
            assert all(1 <= d <= 6 for d in e.pdice[p] + e.bdice[p])
            assert len(e.pdice[p]) in (0, 3)
            if e.config.module_army_tokens:
                assert len(e.army_tokens[p]) == 6 - (e.year - 1) - (1 if e.revealed else 0)
        # each advisor is influenced by at most one player per season; the envoy adds one more
        for r in range(1, 19):
            occupants = e.board[r]
            assert len(occupants) <= 1 + (r == e.envoy_rank), f"advisor {r}: {occupants}"
            assert (e.occupied >> r & 1) == bool(occupants), f"advisor {r}: occupied bit out of step with the board"
        # the codec maps moves without sorting: the engine must list them in ascending index order
        legal = env.codec.legal_actions(e)
        assert legal == sorted(set(legal)), f"moves not in layout order: {e.legal_moves()}"
        assert legal == [env.codec.encode(e, m) for m in e.legal_moves()]
        if e.is_over:
            assert self.years == [1, 2, 3, 4, 5], f"years played {self.years}"
            assert e.phase == 8


def _fuzz(n, games, seed0, options=None, check_all_seats_every=25):
    env = envs.make("kingsburg", num_players=n, **(options or {}))
    steps = []
    for g in range(games):
        inv = Invariants()
        result = testing.play_random_game(env, seed=seed0 + g, on_step=inv,
                                          check_observations=(g % check_all_seats_every == 0))
        assert result.terminated and not result.truncated, f"seed {seed0 + g}: game did not end by the rules"
        assert inv.years == [1, 2, 3, 4, 5]
        steps.append(result.steps)
    return steps


@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz(n):
    steps = _fuzz(n, DEFAULT_GAMES[n], seed0=1000 * n)
    assert min(steps) > 20


@pytest.mark.parametrize("options", MODULE_SETS)
def test_random_play_fuzz_with_modules(options):
    for n in (2, 3, 5):
        _fuzz(n, 25, seed0=77 * n, options=options, check_all_seats_every=5)


def _fresh_encoding(env, seat: int) -> np.ndarray:
    """The observation from a new encoder that does not see the process-wide block caches either."""
    saved = {name: getattr(encoder_module, name) for name in SHARED_ENCODER_CACHES}
    try:
        for name in SHARED_ENCODER_CACHES:
            setattr(encoder_module, name, {})
        return KingsburgEncoder(env.config, env.num_players).encode(env.engine, seat)
    finally:
        for name, cache in saved.items():
            setattr(encoder_module, name, cache)


def test_seat_block_pieces_equal_scaled_raw_values():
    """The advisors, buildings and dice parts of a seat block are joined from per-value pieces: they equal the
    raw values times the observation's scale, the arithmetic of every other part (``_as_floats``)."""
    enc = envs.make("kingsburg", num_players=2).encoder
    fields = enc.layout.slices
    advisor_floats = enc._seat_tables[3]
    rng = np.random.default_rng(5)
    for _ in range(300):
        mask = int(rng.integers(1 << 18))
        raw = bytes(mask >> i & 1 for i in range(18))
        assert advisor_floats[mask & 511] + advisor_floats[mask >> 9] == enc._as_floats(
            raw, fields["seat0_advisors"].start)
        rows = tuple(int(b) for b in rng.integers(0, NUM_COLS + 1, 7))
        raw = bytes(1 if col < built else 0 for built in rows for col in range(NUM_COLS))
        assert enc._buildings_block(rows) == enc._as_floats(raw, fields["seat0_buildings"].start)
        pd = sorted(int(v) for v in rng.integers(1, 7, int(rng.integers(0, 4))))
        bd = [int(v) for v in rng.integers(1, 7, int(rng.integers(0, 5)))]
        pplaced, bplaced = int(rng.integers(1 << len(pd))), int(rng.integers(1 << len(bd)))
        raw = []
        for i in range(3):
            raw += [v == pd[i] for v in range(1, 7)] + [pplaced >> i & 1] if i < len(pd) else [0] * 7
        for i in range(4):
            raw += [1] + [v == bd[i] for v in range(1, 7)] + [bplaced >> i & 1] if i < len(bd) else [0] * 8
        raw.append(sum(pd) + sum(bd))
        key = (pplaced, bplaced, *pd, 0, *bd)
        assert enc._dice_block(key, pd, pplaced, bd, bplaced) == enc._as_floats(
            bytes(raw), fields["seat0_player_dice"].start)


def test_cached_observation_blocks_equal_fresh_encoding():
    """The encoder reuses per-seat blocks while the engine's seat versions are unchanged, and parts
    cached process-wide by their inputs (warmed here by earlier games)."""
    for options in ({}, MODULE_SETS[-1]):
        for n in (2, 4):
            env = envs.make("kingsburg", num_players=n, **options)
            for g in range(4):
                env.reset(seed=g)
                pick = np.random.default_rng(g)
                while not env.engine.is_over:
                    for seat in range(n):
                        assert np.array_equal(env.encoder.encode(env.engine, seat), _fresh_encoding(env, seat))
                    legal = env.legal_actions()
                    env.step(int(legal[pick.integers(len(legal))]))


def _seat_parts(e) -> list:
    """Per seat, a copy of its part of the seats domain: its entries of the per-seat lists, and the flags that
    every seat's block shows."""
    values = [getattr(e, a) for a in DOMAINS.attributes["seats"]]
    n = e.num_players
    return [copy.deepcopy([v[p] if isinstance(v, list) else v for v in values]) for p in range(n)]


def _endow(e, pick) -> None:
    """Every seat starts with random buildings, goods and +2 tokens, so that the effects of buildings that random
    play seldom builds (Inn, Training camp, Embassy, Statue, Chapel, Mint, ...) come up in every game."""
    for p in range(e.num_players):
        e.rows[p] = [int(pick.integers(5)) if r in e.tables.rows else 0 for r in range(len(e.rows[p]))]
        e.num_buildings[p] = sum(e.rows[p])
        e.goods[p] = [int(v) for v in pick.integers(6, size=3)]
        e.plus2[p] = int(pick.integers(3))
    e.stamp_everything()


def _unreported_changes(n: int, options: dict, games: int, endowed: bool = False) -> list:
    """Seeded random games, every move checked against the change log: the domains it changed without a report,
    and the seats whose part changed while the seats' log neither named them nor restarted."""
    env = envs.make("kingsburg", num_players=n, **options)
    missed = []
    for g in range(games):
        env.reset(seed=g)
        pick = np.random.default_rng(g)
        e = env.engine
        if endowed:
            _endow(e, pick)
        while not e.is_over:
            legal = env.legal_actions()
            action = int(legal[pick.integers(len(legal))])
            seats = _seat_parts(e)
            read, epoch = len(e.item_log(SEATS)), e.item_log_epoch
            bits = check_reported(e, DOMAINS, lambda: env.step(action))
            if bits:
                missed.append((g, e.turn, DOMAINS.names_of(bits)))
            if e.item_log_epoch == epoch:
                named = set(e.item_log(SEATS)[read:])
                unnamed = [p for p, part in enumerate(_seat_parts(e)) if part != seats[p] and p not in named]
                if unnamed:
                    missed.append((g, e.turn, "seats", unnamed))
    return missed


@pytest.mark.parametrize("options", ({}, MODULE_SETS[-1]))
@pytest.mark.parametrize("n", (2, 5))
def test_rules_report_every_change(n, options):
    """The encoder rebuilds only what the change log reports: at every step, every domain whose content changed
    was reported, and every seat whose part changed was named (or the log restarted: every seat changed). Half
    the games start with buildings on every sheet, so that the rarer building effects are checked too."""
    assert _unreported_changes(n, options, games=5) == []
    assert _unreported_changes(n, options, games=5, endowed=True) == []


@pytest.mark.parametrize("dropped", ("public", "every seat", "seat 0"))
def test_the_change_check_finds_a_dropped_report(dropped, monkeypatch):
    """The check above is a real one: with reports of the public domain, of every seat at once, or of seat 0
    alone dropped, it finds unreported changes."""
    report = {"public": "changed", "every seat": "changed_in_all", "seat 0": "changed_in"}[dropped]
    keep = getattr(engine_module.KingsburgEngine, report)

    def forgetful(self, bit, *item):
        if not (bit == PUBLIC or report == "changed_in_all" or item == (0,)):
            keep(self, bit, *item)

    monkeypatch.setattr(engine_module.KingsburgEngine, report, forgetful)
    missed = _unreported_changes(2, MODULE_SETS[-1], games=1)
    assert missed and all(miss[2] == ["public"] if dropped == "public" else "seats" in miss[2] for miss in missed)


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_rules_report_every_change_long(n):
    for options in ({}, *MODULE_SETS):
        assert _unreported_changes(n, options, games=40) == []
        assert _unreported_changes(n, options, games=40, endowed=True) == []


def test_cached_legal_moves_equal_moves_computed_afresh():
    """The engine keeps legal moves in process-wide caches keyed by what they depend on: games played
    with caches warmed by many earlier games must list the same moves at every step as the same
    games replayed with every such cache emptied before each step."""
    for options in ({}, MODULE_SETS[-1]):
        for n in (2, 3):
            env = envs.make("kingsburg", num_players=n, **options)
            for g in range(40):
                testing.play_random_game(env, seed=500 + g)  # other games fill the caches first
            games = []
            for g in range(20):
                env.reset(seed=g)
                pick = np.random.default_rng(g)
                steps = []
                while not env.engine.is_over:
                    legal = env.legal_actions()
                    steps.append((legal, int(legal[pick.integers(len(legal))])))
                    env.step(steps[-1][1])
                games.append(steps)
            for g, steps in enumerate(games):
                env.reset(seed=g)
                for legal, action in steps:
                    assert env.legal_actions() == legal
                    for cache in ENGINE_MOVE_CACHES:
                        cache.clear()
                    env.step(action)  # the next decision's moves are computed from empty caches
                assert env.engine.is_over


def test_rolling_several_dice_draws_what_single_dice_would():
    """_roll(k) takes k dice at once from the pre-drawn pool, also across a refill of the pool."""
    env = envs.make("kingsburg", num_players=2)
    env.reset(seed=3)
    for left in (0, 1, 2, 4, 5, 9):
        one_by_one, at_once = env.engine.clone(), env.engine.clone()
        one_by_one._dice = one_by_one._dice[:left]
        at_once._dice = at_once._dice[:left]
        for k in (5, 0, 3, 1, 4):
            assert at_once._roll(k) == [one_by_one._die() for _ in range(k)]
        assert at_once._dice == one_by_one._dice


def test_battle_strength_tables_equal_summing_the_owned_buildings():
    """battle_strength reads per-card prefix sums of the rows; it must equal soldiers plus the
    modifiers of every owned building (spec 5.10.4) against every enemy card, over random play."""
    for options in ({}, {"module_more_buildings": True}):
        env = envs.make("kingsburg", num_players=3, **options)
        for g in range(6):
            env.reset(seed=g)
            pick = np.random.default_rng(g)
            e = env.engine
            while not e.is_over:
                for p in range(e.num_players):
                    for card in e.tables.enemies:
                        plain = e.soldiers[p]
                        for slot in e.owned_slots(p):
                            b = e.tables.buildings[slot]
                            plain += b.strength_vs[card.type]
                            if b.strength_vs_max is not None and card.strength <= b.strength_vs_max[0]:
                                plain += b.strength_vs_max[1]
                        assert e.battle_strength(p, card) == plain
                legal = env.legal_actions()
                env.step(int(legal[pick.integers(len(legal))]))


def test_engine_and_encoder_keep_every_attribute_in_a_slot():
    """Attributes missing from __slots__ still work but land in an instance dict, which is slower
    to read; after play with every module no attribute may have landed there."""
    for n in (2, 5):
        env = envs.make("kingsburg", num_players=n, **MODULE_SETS[-1])
        for g in range(3):
            testing.play_random_game(env, seed=g)  # observes every seat along the way
            assert vars(env.engine) == {} and vars(env.encoder) == {}


def test_a_building_stands_at_the_same_place_on_both_sides_of_the_sheet():
    """owns reads one table of building places for both sides of the province sheet: every building of the
    5-row side stands where it stands on the 7-row side."""
    base, seven_rows = tables(False), tables(True)
    for building, slot in enumerate(base.slot_of):
        assert slot in (-1, seven_rows.slot_of[building]), BUILDING_EFFECTS[building]
        assert engine_module._PLACES[building] == divmod(seven_rows.slot_of[building], NUM_COLS)


def test_enemy_deck_holds_one_random_card_per_year():
    """Setup 3: one random card of each year, the year-I card on top, drawn first from the generator."""
    config = engine_module.KingsburgConfig()
    for seed in range(50):
        e = engine_module.KingsburgEngine(config, 2, np.random.default_rng(seed))
        by_year = e.tables.enemies_by_year
        rng = np.random.default_rng(seed)
        assert e.enemy_deck == [cards[int(rng.integers(len(cards)))] for cards in by_year]


def test_turn_order_shuffled_as_a_permutation_would():
    """Setup shuffles a list for the random turn order: the order and the generator's state after it
    must be those of rng.permutation(n)."""
    for n in (2, 3, 4, 5):
        for seed in range(50):
            shuffled, permuted = np.random.default_rng(seed), np.random.default_rng(seed)
            order = list(range(n))
            shuffled.shuffle(order)
            assert order == [int(s) for s in permuted.permutation(n)]
            assert shuffled.bit_generator.state == permuted.bit_generator.state


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz_long(n):
    _fuzz(n, 3000, seed0=10**6 + 10**5 * n, check_all_seats_every=10)
    for options in MODULE_SETS:
        _fuzz(n, 500, seed0=2 * 10**6 + 10**5 * n, options=options, check_all_seats_every=10)
