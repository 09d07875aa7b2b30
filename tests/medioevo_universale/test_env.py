"""The engine through the shared AEC adapter: API, seeds, bad input, hidden information, docs.

The checks every registered game passes are in tests/test_every_game.py; these add the game's own
options (8-round games keep them short).
"""
import numpy as np
import pytest

from envs.core import ConfigError, IllegalActionError, TabletopEnv, testing
from envs.medioevo_universale import SPEC, Phase
from envs.medioevo_universale.data import game_data
from envs.medioevo_universale.determinize import determinize

PLAYER_COUNTS = (3, 4, 5, 6)


def make(**kw):
    kw.setdefault("num_rounds", 8)
    return TabletopEnv(SPEC, **kw)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_pettingzoo_api(n):
    testing.run_api_test(make(num_players=n), num_cycles=300)


def test_pettingzoo_api_with_rule_options():
    testing.run_api_test(make(num_players=3, empire_selection="pick", reveal_money=True, ep_limit=15,
                              secret_goal_pairing=False), num_cycles=200)


def test_pettingzoo_seed_test():
    testing.check_seed_test(lambda: make(num_players=3), num_cycles=200)


@pytest.mark.parametrize("n", (3, 6))
def test_same_seed_same_game(n):
    steps = testing.check_determinism(lambda: make(num_players=n, empire_selection="pick"), seed=11 + n,
                                      max_steps=600)
    assert steps > 200


def test_different_seeds_differ():
    a, b = make(), make()
    a.reset(seed=1)
    b.reset(seed=2)
    assert not np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])


def test_illegal_and_out_of_range_actions_raise_and_change_nothing():
    checks = testing.check_illegal_actions_rejected(make(num_players=3), seed=3, steps=25)
    assert checks > 5000


def test_illegal_action_error_names_the_action():
    env = make(num_players=3)
    env.reset(seed=0)
    tax = env.codec.index("TAX(50)")
    with pytest.raises(IllegalActionError, match=r"action \d+ \(TAX\(50\)\) is illegal for seat \d now; legal: .*KIT"):
        env.step(tax)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(env.codec.num_actions)


@pytest.mark.parametrize("bad", [2, 7, 0, "3", 3.0, True])
def test_unsupported_player_counts(bad):
    with pytest.raises(ConfigError, match="num_players"):
        make(num_players=bad)


def test_bad_config_values():
    with pytest.raises(ConfigError, match="num_rounds must be 8, 10 or 12"):
        make(num_rounds=9)
    with pytest.raises(ConfigError, match="empire_selection"):
        make(empire_selection="auction")
    with pytest.raises(ConfigError, match="ep_limit"):
        make(ep_limit=-1)
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) \['rounds'\]"):
        make(rounds=8)
    with pytest.raises(ConfigError, match="reveal_money"):
        make(reveal_money="yes")


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_spaces_and_names(n):
    env = make(num_players=n)
    names = env.codec.action_names()
    # the layout grows while step 5 adds heads: the size is the sum of the heads, the same for every count
    assert env.action_space("player_0").n == len(names) == sum(env.codec.head_sizes)
    assert len(set(names)) == len(names)
    assert env.codec.index("NODE(Konstantinopel)") == env.codec.offsets[6] + game_data().board.index("Konstantinopel")
    layout = env.observation_layout
    assert env.observation_space("player_0")["observation"].shape == (layout.size,)
    assert sum(f.size for f in layout.fields) == layout.size


@pytest.mark.parametrize("n", (3, 5))
def test_game_ends_at_the_round_limit_with_rank_rewards(n):
    env = make(num_players=n)
    result = testing.play_random_game(env, seed=40 + n, check_observations=False)
    assert result.terminated and not result.truncated
    e = env.engine
    assert e.round == 8 and e.is_over
    assert sum(result.returns.values()) == pytest.approx(0.0)
    best = max(range(n), key=lambda p: e.placement_scores()[p])
    assert result.returns[f"player_{best}"] == 1.0
    assert result.infos["player_0"]["scores"] == e.ep


@pytest.mark.parametrize("n", (3, 4, 5))
def test_every_seat_bankrupt_ends_the_game(n):
    """Every seat always playing its highest legal index borrows and bids until each is eliminated (spec 5.6);
    the game then ends with rank rewards instead of starting an auction without bidders."""
    env = TabletopEnv(SPEC, num_players=n)  # the defaults of envs.make: 12 rounds
    env.reset(seed=0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        returns[agent] += reward
        env.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
    e = env.engine
    assert e.is_over and all(e.eliminated) and e.round < e.num_rounds
    assert sum(returns.values()) == pytest.approx(0.0)


def test_truncation_at_max_turns():
    env = make(max_turns=5)
    result = testing.play_random_game(env, seed=3)
    assert result.truncated and not result.terminated
    assert env.engine.turn == 5


# what a seat must not know, sampled again: the game's determinization (envs/medioevo_universale/determinize.py)
_scramble_hidden = determinize


@pytest.mark.parametrize("n", (3, 4))
def test_hidden_information_never_leaks(n):
    env = make(num_players=n)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    pick = np.random.default_rng(1)
    checked = 0
    for _ in range(150):
        engine = env.engine
        if engine.is_over:
            break
        for seat in range(n):
            base = env.encoder.encode(engine, seat)
            other = _scramble_hidden(engine, seat, rng)
            assert np.array_equal(base, env.encoder.encode(other, seat)), f"seat {seat} sees hidden data"
            checked += 1
        legal = env.legal_actions()
        env.step(int(legal[pick.integers(len(legal))]))
    assert checked >= 150 * n


def test_own_money_and_bid_are_visible_to_the_owner_only():
    env = make(num_players=3)
    env.reset(seed=1)
    e = env.engine
    while e.phase != Phase.BID:
        env.step(env.legal_actions()[0])
    bidder = e.actor
    env.step(env.codec.index("COIN(+100)"))
    layout = env.observation_layout
    mine = env.observe(f"player_{bidder}")["observation"]
    assert mine[layout["my_bid"]][0] == pytest.approx(100 / 2000)
    for q in range(3):
        if q != bidder:
            obs = env.observe(f"player_{q}")["observation"]
            assert obs[layout["my_bid"]][0] == 0
            rel = (bidder - q) % 3
            assert obs[layout[f"seat{rel}_money_known"]][0] == 0


def test_render_and_clone():
    env = make(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert "round 1/8" in env.render()
    twin = env.engine.clone()
    before = testing.state_bytes(twin)
    for _ in range(30):
        env.step(env.legal_actions()[-1])
    assert testing.state_bytes(env.engine) != before
    assert testing.state_bytes(twin) == before


def test_docs_show_the_layouts_in_code():
    from pathlib import Path

    from envs.medioevo_universale.constants import HEAD_NAMES

    doc = (Path(__file__).resolve().parents[2] / "docs" / "games" / "medioevo_universale.md").read_text()
    env = TabletopEnv(SPEC, num_players=3)
    assert env.observation_layout.table() in doc
    codec = env.codec
    for head, offset, size in zip(HEAD_NAMES, codec.offsets, codec.head_sizes):
        assert f"| {head} | {offset}–{offset + size - 1} | {size} |" in doc, head
    assert f"= {codec.num_actions} on the default map" in doc
    sizes = " / ".join(str(TabletopEnv(SPEC, num_players=n).encoder.size) for n in (3, 4, 5, 6))
    assert f"sizes {sizes} for 3 / 4 / 5 / 6 players" in doc
