"""Random-play fuzz with the game's invariants checked after every step."""
import pytest

import envs
from envs.catan_card.data import IMPROVEMENT_KINDS
from envs.core import testing

# games per player count in the default run: 2,000 in all
DEFAULT_GAMES = {2: 800, 3: 450, 4: 400, 5: 200, 6: 150}


def check_invariants(env) -> None:
    e = env.engine
    s = e.setup
    n = e.num_players
    if not e.is_over:
        legal = env.legal_actions()
        assert legal == sorted(set(legal)), f"legal actions not ascending and unique: {legal}"
    # every resource card is somewhere: draw pile, discard, market or a hand
    assert e.card_count() == s.total_resources, (e.card_count(), s.total_resources)
    for h in e.hands:
        assert min(h) >= 0
    assert min(e.market) >= 0 and min(e.discard) >= 0
    # building cards are conserved
    assert e.supply_roads + sum(e.roads) == s.roads
    assert e.supply_knights + sum(e.knights) == s.knights
    events = list(e.settlement_stack)
    for p in range(n):
        events += e.settlements[p] + e.city_events[p]
    assert sorted(events) == sorted(s.settlement_events)
    for k in range(len(IMPROVEMENT_KINDS)):
        assert e.supply_improvements[k] + sum(e.owned[p][k] for p in range(n)) == s.improvement_copies[k]
    assert e.supply_roads >= 0 and e.supply_knights >= 0 and min(e.supply_improvements) >= 0
    # VP recomputed from the tableau equals the reported VP (engine, observation)
    layout = env.observation_layout
    seen_by_seat0 = env.encoder.encode(e, 0)
    for p in range(n):
        owned = [k for k in range(len(IMPROVEMENT_KINDS)) if e.owned[p][k]]
        assert e.unimproved_cities[p] == len(e.city_events[p]) - len(owned)
        recomputed = (len(e.settlements[p]) + 2 * e.unimproved_cities[p]
                      + sum(s.improvement_vp[k] for k in owned) + e.roads[p] // 2 + e.knights[p] // 2)
        assert e.vp(p) == recomputed
        if p != e.winner:
            assert recomputed < s.win_vp, f"seat {p} has {recomputed} VP but did not win"
        seen = seen_by_seat0[layout[f"seat{p}_vp"]][0] * 20  # seat p is +p seats from seat 0
        assert round(float(seen)) == recomputed


def _fuzz(n, games, seed0, check_all_seats_every=25):
    env = envs.make("catan_card", num_players=n, max_turns=2000)
    lengths = []
    for g in range(games):
        result = testing.play_random_game(env, seed=seed0 + g, on_step=check_invariants,
                                          check_observations=(g % check_all_seats_every == 0))
        assert result.terminated and not result.truncated, f"seed {seed0 + g}: game did not end by the rules"
        winner = env.engine.winner
        assert env.engine.vp(winner) >= 10
        assert result.returns[f"player_{winner}"] == 1.0
        lengths.append(env.engine.turn)
    return lengths


@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz(n):
    lengths = _fuzz(n, DEFAULT_GAMES[n], seed0=1000 * n)
    assert max(lengths) < 2000


def test_random_play_fuzz_with_rule_options():
    for n, options in ((3, {"optional_knight_draws": True}), (5, {"five_six_extra_building_cards": True}),
                       (6, {"five_six_extra_building_cards": True, "random_start_seat": True})):
        env = envs.make("catan_card", num_players=n, **options)
        for g in range(40):
            result = testing.play_random_game(env, seed=g, on_step=check_invariants, check_observations=g < 3)
            assert result.terminated


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz_long(n):
    _fuzz(n, 5000, seed0=10**6 + 10**5 * n, check_all_seats_every=10)
