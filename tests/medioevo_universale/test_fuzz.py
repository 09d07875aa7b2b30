"""Random-play fuzz over complete games with the game's invariants checked after every step."""
import pytest

from envs.core import TabletopEnv, testing
from envs.medioevo_universale import SPEC
from envs.medioevo_universale.data import game_data, markers_feasible
from envs.medioevo_universale.scoring import AWARDS
from envs.medioevo_universale.technologies import TechWindow

COMP = game_data().comp
# games per player count in the default run
DEFAULT_GAMES = {3: 4, 4: 3, 5: 2, 6: 2}


def check_invariants(env) -> None:
    e = env.engine
    n = e.num_players
    nn = e.board.num_nodes
    # units: supply + board = the per-player set (captains: 3 figures of any level)
    for p in range(n):
        u = e.units[p]
        aboard = [0] * 7
        for oid, c in e.cargo.items():
            if e.objs[oid][0] == p:
                aboard = [a + b for a, b in zip(aboard, c)]
        if e.carrier == -1 and e.mover == p:  # a movement on foot, also while a window inside it is open
            aboard = [a + b for a, b in zip(aboard, e.foot_cargo)]
        aboard = [a + b for a, b in zip(aboard, e.capitulated[p])]  # set aside counts as not in the supply
        for c in range(n):
            aboard = [a + b for a, b in zip(aboard, e.prisoners[c][p])]  # held by a captor
        for t in range(4):
            assert e.unit_supply[p][t] + sum(u[t::7]) + aboard[t] == COMP.unit_supply[t], (p, t)
        assert e.unit_supply[p][4] + sum(u[4::7]) + sum(u[5::7]) + sum(u[6::7]) + sum(aboard[4:]) \
            == COMP.unit_supply[4]
        assert min(u) >= 0 and min(aboard) >= 0
        assert min(e.stopped[p]) >= 0 and all(map(int.__le__, e.stopped[p], u))
        assert e.army[p] == list(map(sum, zip(*(u[t::7] for t in range(7)))))
    # transports, siege engines, buildings, barbarians, goal tokens, cards, control markers
    for k in range(4):
        kits = sum(1 for kit in e.kit for kind, _ in kit if kind == k)  # taken at S2, placed at S5
        assert e.vehicle_supply[k] + sum(1 for o in e.objs.values() if o[1] == k) + kits == COMP.vehicle_supply[k]
    for lv in range(3):
        placed = sum(1 for o in e.objs.values() if o[1] == 4 and o[2] == lv + 1)
        assert e.siege_supply[lv] + placed == COMP.siege_supply[lv]
    placed = [0] * 7
    for i in range(nn):
        if e.civil[i]:
            placed[e.civil[i] - 1] += 1
        if e.mil[i]:
            placed[2 + e.mil[i]] += 1
        if e.cath_owner[i] >= 0:
            placed[6] += 1
    assert [a + b for a, b in zip(e.building_supply, placed)] == list(COMP.building_supply)
    assert e.barb_total == list(map(sum, zip(e.barb[0::3], e.barb[1::3], e.barb[2::3])))
    assert sum(1 for i in range(nn) if e.board.is_sea[i] and e.barb_total[i]) <= e.barb_galleys  # G42
    bsup = COMP.raw["barbarians"]["supply"]
    for k, name in enumerate(("LI", "AR", "CP")):
        assert e.barb_supply[k] + sum(e.barb[k::3]) == bsup[name]
    for c in range(6):
        assert e.token_supply[c] + sum(e.tokens[p][c] for p in range(n)) == COMP.raw["goal_tokens_per_colour"]
        assert all(0 <= e.tokens_flipped[p][c] <= e.tokens[p][c] for p in range(n))
    for g in range(8):  # goods cubes: supply + markets + aboard trade vehicles
        on_board = sum(e.cubes[i][g] for i in range(nn)) + sum(c[g] for c in e.goods.values())
        assert e.goods_supply[g] + on_board == COMP.raw["goods_cubes_per_colour"] and e.goods_supply[g] >= 0
    for oid, c in e.goods.items():
        o = e.objs[oid]
        assert sum(c) <= COMP.capacity[o[1]] * o[2] and sum(c) <= e.goods_capacity(oid)
    cards = list(e.deck) + list(e.drawn) + [c for h in e.hand for c in h]
    assert sorted(cards) == list(range(72))
    for p in range(n):
        assert e.markers_left[p] + e.marker.count(p) == COMP.raw["control_markers_per_player"]
        assert markers_feasible(tuple(e.owned_levels(p)))
        assert sum(1 for oid in e.slots[p] if oid >= 0) == sum(1 for o in e.objs.values() if o[0] == p)
    # money: never negative; every change is a bank flow or a transfer between seats
    start = COMP.raw["starting_money"]
    assert sum(e.transfer_net) == 0
    for p in range(n):
        assert e.money[p] >= 0, (p, e.money[p])
        assert e.money[p] == start + e.bank_net[p] + e.transfer_net[p]
    # EP recomputed from the logged events equals the reported EP
    for p in range(n):
        assert e.ep[p] == COMP.raw["starting_ep"] + sum(e.ep_events[p].values())
    # war wagons and galleys within capacity; battles leave one side (or none) in a region
    for oid, c in e.cargo.items():  # Wissenschaftler 11 / Kanonier 54 lend capacity for a round
        assert sum(c) + len(e.aboard.get(oid, ())) <= e.unit_capacity(oid)
    for galley, carried in e.aboard.items():
        assert all(e.carried_by[c] == galley and e.objs[c][3] == -1 and e.objs[c][0] == e.objs[galley][0]
                   for c in carried)
    assert sum(len(c) for c in e.aboard.values()) == len(e.carried_by)
    if e.bt is None:
        for i in e.land_nodes:
            if e.multi_war is not None and e.multi_war.node == i:
                continue  # spec 5.15: the attacker fights the armies there one after another
            if e.tech_use is not None and e.tech_use.window == TechWindow.INVADE and e.tech_use.context.node == i:
                continue  # W-INVADE: the absent controller may bring a unit before the battles begin
            sides = e.hostile_sides(i)  # treaty guests (right of way, stationing) side with their host
            assert sides <= 1, f"two hostile armies in {e.board.names[i]} outside a battle"
    # each region has at most one controller; barbarian armies leave regions uncontrolled
    owners = [e.controller(i) for i in range(nn)]
    for i in range(nn):
        if e.barb_size(i) or e.board.is_sea[i] or not e.playable[i]:
            assert owners[i] == -1
    if e.is_over:
        assert e.final_awards() == e.final_breakdown
        for p in range(n):
            assert sum(e.final_breakdown[a][p] for a in AWARDS) == sum(
                v for k, v in e.ep_events[p].items() if k.startswith("final_"))


def _fuzz(n, games, seed0, rounds=8, check_all_seats_every=10, **options):
    env = TabletopEnv(SPEC, num_players=n, num_rounds=rounds, max_turns=100_000, **options)
    for g in range(games):
        result = testing.play_random_game(env, seed=seed0 + g, on_step=check_invariants,
                                          check_observations=(g % check_all_seats_every == 0))
        assert result.terminated and not result.truncated, f"seed {seed0 + g}: game did not end by the rules"
        e = env.engine
        assert e.round == rounds or (e.ep_limit and max(e.ep) >= e.ep_limit)


@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz(n):
    _fuzz(n, DEFAULT_GAMES[n], seed0=1000 * n)


def test_random_play_fuzz_with_rule_options():
    _fuzz(3, 2, seed0=7, rounds=12, empire_selection="pick", secret_goal_pairing=False, reveal_money=True)
    _fuzz(4, 1, seed0=70, rounds=10, ep_limit=14)
    _fuzz(3, 1, seed0=700, rounds=8, trade_vehicles_in_war=True, market_bonus_with_route_ep=True)


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(DEFAULT_GAMES))
def test_random_play_fuzz_long(n):
    _fuzz(n, 1000, seed0=10**6 + 10**5 * n, rounds=12, check_all_seats_every=50)
