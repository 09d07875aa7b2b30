"""The self-play adapter: masks passed through, rewards to the right seat, opponents only on their turns.

Every registered game is checked at its smallest and largest player count, plus PettingZoo's
connect_four_v3 to keep the adapter honest about being generic.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from gymnasium import spaces

import envs
from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.training.pool import OpponentPool
from agents.training.selfplay_env import SelfPlayEnv, make_selfplay_env
from agents.training.vec_env import CachedMaskVecEnv, MultiEnvSubprocVecEnv
from envs.core.errors import ConfigError


def _connect_four():
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def _cases():
    cases = []
    for game in envs.names():
        counts = envs.spec(game).player_counts
        for n in sorted({min(counts), max(counts)}):
            cases.append(pytest.param(game, n, functools.partial(envs.make, game, num_players=n), id=f"{game}-{n}p"))
    cases.append(pytest.param("connect_four", 2, _connect_four, id="connect_four_v3"))
    return cases


class SpyOpponent(Agent):
    """Random play that checks, on every call, that it is this seat's turn in the real AEC env."""

    def __init__(self, log: list, seed: int = 0):
        self.log = log
        self.env = None
        self.learner_agent = None
        self._random = RandomAgent(seed)

    def reset(self, seed=None):
        self._random.reset(seed)

    def act(self, observation, action_mask) -> int:
        raw = self.env.unwrapped
        mover = raw.agent_selection
        assert mover != self.learner_agent(), "an opponent was asked to move on the learner's turn"
        expected = np.asarray(self.env.observe(mover)["action_mask"])
        assert np.array_equal(np.asarray(action_mask), expected), "opponent got another seat's mask"
        assert expected.any()
        action = self._random.act(observation, action_mask)
        self.log.append((mover, action))
        return action


class SpyPool(OpponentPool):
    """A pool whose every opponent is a SpyOpponent bound to the adapter's env."""

    def __init__(self, game, num_players, log):
        super().__init__(game, num_players, {"random": 1.0})
        self.log = log
        self.adapter = None

    def draw(self, rng, num_seats):
        opponents = []
        for slot in range(num_seats):
            spy = SpyOpponent(self.log, seed=int(rng.integers(1 << 30)))
            spy.env = self.adapter._env
            spy.learner_agent = lambda: self.adapter._learner
            opponents.append(spy)
        return "spy", opponents


def _recording(env_fn, seeds: list):
    """env_fn whose env records the seed of every reset (to replay games independently)."""

    def make():
        env = env_fn()
        original = env.reset

        def reset(seed=None, options=None):
            seeds.append(seed)
            return original(seed=seed, options=options)

        env.reset = reset
        return env

    return make


def _replay(env_fn, seed, actions):
    """Replay a game's (agent, action) list in a fresh env; return the final rewards per agent."""
    env = env_fn()
    env.reset(seed=seed)
    raw = env.unwrapped
    for agent, action in actions:
        assert raw.agent_selection == agent
        env.step(action)
    assert all(raw.terminations[a] or raw.truncations[a] for a in raw.possible_agents)
    return {a: raw.rewards[a] for a in raw.possible_agents}


@pytest.mark.parametrize("game,num_players,env_fn", _cases())
def test_masks_rewards_and_turns(game, num_players, env_fn):
    log: list = []
    seeds: list = []
    pool = SpyPool(game, num_players, log)
    adapter = SelfPlayEnv(_recording(env_fn, seeds), pool, seed=3, first_seat=1)
    pool.adapter = adapter
    raw_of = lambda: adapter._env.unwrapped  # noqa: E731  (set_state may swap the env object)
    rng = np.random.default_rng(0)
    seats_played = []
    for game_index in range(2):  # two complete games, the learner in two different seats
        log.clear()
        obs, info = adapter.reset()
        learner_seat = adapter._learner_seat
        seats_played.append(learner_seat)
        learner = raw_of().possible_agents[learner_seat]
        moves = list(log)
        while True:
            raw = raw_of()
            assert raw.agent_selection == learner, "the learner was handed another seat's turn"
            mask = adapter.action_masks()
            assert mask.dtype == bool
            assert np.array_equal(mask, np.asarray(adapter._env.observe(learner)["action_mask"], dtype=bool))
            assert np.array_equal(info["action_mask"], mask)
            assert np.array_equal(obs, np.asarray(adapter._env.observe(learner)["observation"], np.float32).reshape(-1))
            assert obs.shape == adapter.observation_space.shape and mask.any()
            action = int(rng.choice(np.flatnonzero(mask)))
            moves.append((learner, action))
            log.clear()
            obs, reward, terminated, truncated, info = adapter.step(action)
            moves.extend(log)
            if terminated or truncated:
                break
            assert reward == 0
        final = _replay(env_fn, seeds[-1], moves)
        assert reward == final[learner], "the learner got another seat's reward"
        result = info["selfplay"]
        assert result["seat"] == learner_seat and result["moves"] == len(moves)
        others = [final[a] for a in final if a != learner]
        assert result["win"] == (not truncated and final[learner] > max(others))
        with pytest.raises(RuntimeError, match="after the game ended"):
            adapter.step(0)
    # a different seat each game, in rotation from first_seat
    for _ in range(num_players):
        adapter.reset()
        seats_played.append(adapter._learner_seat)
        assert raw_of().agent_selection == raw_of().possible_agents[adapter._learner_seat]
    assert seats_played == [(1 + g) % num_players for g in range(2 + num_players)]


def test_reset_with_seed_is_reproducible_and_opponents_reseeded():
    make = functools.partial(envs.make, "catan_card", num_players=2)

    def episode(adapter, seed):
        obs, _ = adapter.reset(seed=seed)
        trace = [obs]
        rng = np.random.default_rng(1)
        for _ in range(40):
            obs, reward, term, trunc, _ = adapter.step(int(rng.choice(np.flatnonzero(adapter.action_masks()))))
            trace.append(obs)
            if term or trunc:
                break
        return trace

    a = SelfPlayEnv(make, OpponentPool("catan_card", 2, {"random": 1.0}))
    b = SelfPlayEnv(make, OpponentPool("catan_card", 2, {"random": 1.0}))
    first, second = episode(a, 5), episode(b, 5)
    assert all(np.array_equal(x, y) for x, y in zip(first, second)) and len(first) == len(second)
    third = episode(a, 6)
    assert not all(np.array_equal(x, y) for x, y in zip(first, third))


def _pick(env, rng):
    """A random legal action of the learner: an index, or for MultiDiscrete one legal value per part."""
    mask = env.action_masks()
    if isinstance(env.action_space, spaces.Discrete):
        return int(rng.choice(np.flatnonzero(mask)))
    heads = np.split(mask, np.cumsum(env.action_space.nvec)[:-1])
    return np.array([int(rng.choice(np.flatnonzero(head))) for head in heads])


@pytest.mark.parametrize("game, num_players, options, weights", [
    ("catan_card", 3, {}, {"random": 0.5, "heuristic": 0.5}),
    # flat opponents play a move encoding through wrappers that read the env: after set_state replaced the env,
    # the wrappers of the games played before (a resumed run resets its envs first) must not be used again; they
    # were, and planned their moves on the old game: an illegal action, or in the pointer encoding row 0
    *[("kingsburg", 2, {"action_encoding": encoding}, {"heuristic": 1.0})
      for encoding in ("composite", "factored", "pointer")],
])
def test_state_round_trip_continues_identically(game, num_players, options, weights):
    make = functools.partial(envs.make, game, num_players=num_players, **options)
    a = SelfPlayEnv(make, OpponentPool(game, num_players, weights=weights), seed=11)
    a.reset()
    rng = np.random.default_rng(2)
    for _ in range(25):
        _, _, term, trunc, _ = a.step(_pick(a, rng))
        if term or trunc:
            a.reset()
    blob = a.get_state()
    b = SelfPlayEnv(make, OpponentPool(game, num_players, weights=weights), seed=99)
    b.reset()
    b.set_state(blob)
    assert np.array_equal(a.action_masks(), b.action_masks())
    for _ in range(300):  # across game ends: the generator and the seat rotation come back too
        action = _pick(a, rng)
        ra, rb = a.step(action), b.step(action)
        assert np.array_equal(ra[0], rb[0]) and ra[1:4] == rb[1:4]
        if ra[2] or ra[3]:
            assert ra[4]["selfplay"] == rb[4]["selfplay"]
            assert np.array_equal(a.reset()[0], b.reset()[0])


def test_pool_sampling_rule():
    pool = OpponentPool("catan_card", 2, {"latest": 0.5, "past": 0.3, "random": 0.2})
    # no snapshot yet: only 'random' can be drawn
    assert pool.category_weights() == {"random": 1.0}
    pool.set_snapshots(["a.zip"])  # one snapshot: 'latest' exists, 'past' does not
    assert pool.category_weights() == pytest.approx({"latest": 0.5 / 0.7, "random": 0.2 / 0.7})
    pool.set_snapshots(["a.zip", "b.zip", "c.zip"])
    assert pool.category_weights() == pytest.approx({"latest": 0.5, "past": 0.3, "random": 0.2})
    # draws follow the weights; 'past' never picks the newest snapshot
    pool._agent = lambda member, slot: _Named(member)  # no checkpoint files needed for this
    rng = np.random.default_rng(0)
    counts = {"latest": 0, "past": 0, "random": 0}
    members = set()
    for _ in range(4000):
        category, agents_ = pool.draw(rng, 2)
        counts[category] += 1
        if category == "past":
            members |= {a.member for a in agents_}
        if category == "latest":
            assert [a.member for a in agents_] == ["c.zip", "c.zip"]
    assert members == {"a.zip", "b.zip"}
    for category, weight in {"latest": 0.5, "past": 0.3, "random": 0.2}.items():
        assert abs(counts[category] / 4000 - weight) < 0.03
    # max_snapshots keeps the newest
    small = OpponentPool("catan_card", 2, {"latest": 1.0}, max_snapshots=2, snapshots=["a", "b", "c"])
    assert small.snapshots == ["b", "c"]


class _Named(Agent):
    def __init__(self, member):
        self.member = member

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def test_pool_errors():
    with pytest.raises(ConfigError, match="unknown opponent categories \\['self'\\]"):
        OpponentPool("catan_card", 2, {"self": 1.0})
    with pytest.raises(ConfigError, match="positive sum"):
        OpponentPool("catan_card", 2, {"random": 0.0})
    pool = OpponentPool("catan_card", 2, {"latest": 1.0})
    with pytest.raises(ConfigError, match="no opponent can be drawn"):
        pool.category_weights()


def _fns(n):
    pool_kwargs = {"weights": {"random": 0.5, "heuristic": 0.5}}
    return [functools.partial(make_selfplay_env, "catan_card", 2, {}, pool_kwargs, 0, rank, 0) for rank in range(n)]


def test_vec_envs_forward_masks_and_agree():
    """Worker processes (several envs each) give the same transitions as in-process envs, and the
    cached masks equal what each env reports."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    dummy = CachedMaskVecEnv(DummyVecEnv(_fns(3)))
    procs = CachedMaskVecEnv(MultiEnvSubprocVecEnv(_fns(3), n_processes=2))
    try:
        for venv in (dummy, procs):
            venv.seed(4)
        obs_d, obs_p = dummy.reset(), procs.reset()
        rng = np.random.default_rng(0)
        dones_seen = 0
        for _ in range(400):
            masks = np.stack(procs.env_method("action_masks"))
            assert np.array_equal(masks, np.stack(procs.venv.env_method("action_masks")))
            assert np.array_equal(masks, np.stack(dummy.env_method("action_masks")))
            assert np.array_equal(obs_d, obs_p)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs_d, rew_d, done_d, _ = dummy.step(actions)
            obs_p, rew_p, done_p, _ = procs.step(actions)
            assert np.array_equal(rew_d, rew_p) and np.array_equal(done_d, done_p)
            dones_seen += int(done_d.sum())
        assert dones_seen > 0  # auto-reset was exercised
        assert procs.env_method("snapshots_in_use", indices=[2, 0]) == [[], []]
        assert procs.get_attr("num_players") == [2, 2, 2]
    finally:
        dummy.close()
        procs.close()


def test_the_mcts_category_searches_on_the_env_it_plays_in(monkeypatch):
    """An MCTS opponent drawn from the pool is attached a sampler of the training env's state (as its seat may see
    it) and plays the game to its end; without the attachment it refuses to act."""
    from agents.mcts import MCTSAgent

    sampled_seats = []
    determinized = envs.make("kingsburg", num_players=2).unwrapped.__class__.determinized

    def spy(self, seat, rng):
        sampled_seats.append((seat, self.engine.current_player))
        return determinized(self, seat, rng)

    monkeypatch.setattr(envs.make("kingsburg", num_players=2).unwrapped.__class__, "determinized", spy)
    make = functools.partial(envs.make, "kingsburg", num_players=2)
    adapter = SelfPlayEnv(make, OpponentPool("kingsburg", 2, {"mcts": 1.0}, mcts="mcts:3"), seed=2)
    adapter.reset(seed=2)
    assert adapter._category == "mcts" and isinstance(adapter._opponents[1 - adapter._learner_seat], MCTSAgent)
    rng = np.random.default_rng(0)
    for _ in range(400):
        _, _, terminated, truncated, info = adapter.step(int(rng.choice(np.flatnonzero(adapter.action_masks()))))
        if terminated or truncated:
            break
    assert terminated and info["selfplay"]["category"] == "mcts"
    # every sample was drawn for the seat to move, which was the MCTS opponent's
    assert sampled_seats and all(seat == mover == 1 - adapter._learner_seat for seat, mover in sampled_seats)


def test_the_pool_config_names_a_search_agent_in_the_flat_encoding():
    from agents.training.config import load_config

    assert load_config(None, {"game": "kingsburg", "pool": {"weights": {"mcts": 1.0}, "mcts": "mcts:8:heuristic"}})
    with pytest.raises(ConfigError, match="'pool.mcts' must name a search agent"):
        load_config(None, {"game": "kingsburg", "pool": {"mcts": "heuristic"}})
    with pytest.raises(ConfigError, match="'pool.mcts': "):
        load_config(None, {"game": "kingsburg", "pool": {"mcts": "mcts:0"}})
    with pytest.raises(ConfigError, match="flat encoding only"):
        load_config(None, {"game": "kingsburg", "env": {"action_encoding": "pointer"}, "pool": {"weights": {"mcts": 1.0}}})


@pytest.mark.parametrize("game", ["catan_card", "mythotopia"])
def test_score_reward_adds_the_change_of_the_score_lead_to_the_result(game):
    """Each step's reward is the result plus score_reward times the change of the learner's lead; over a game the
    shaping sums to score_reward times (final lead - lead at the learner's first decision)."""
    make = functools.partial(envs.make, game, num_players=2)
    plain = SelfPlayEnv(make, OpponentPool(game, 2, {"random": 1.0}), seed=4)
    shaped = SelfPlayEnv(make, OpponentPool(game, 2, {"random": 1.0}), seed=4, score_reward=0.25)
    plain.reset()
    shaped.reset()

    def lead(adapter):
        scores = adapter._raw.engine.scores()
        return scores[adapter._learner_seat] - max(s for i, s in enumerate(scores) if i != adapter._learner_seat)

    changes, rng = 0, np.random.default_rng(0)
    for _ in range(20_000):
        before = lead(shaped)
        action = int(rng.choice(np.flatnonzero(plain.action_masks())))
        _, result, term, trunc, _ = plain.step(action)
        _, reward, term_s, trunc_s, _ = shaped.step(action)
        assert (term, trunc) == (term_s, trunc_s)
        assert reward == pytest.approx(result + 0.25 * (lead(shaped) - before))
        changes += lead(shaped) != before
        if term or trunc:
            break
    assert term or trunc
    assert changes > 0  # the game's score moved during the game, so the shaping was exercised


def test_score_reward_must_not_be_negative():
    from agents.training.config import load_config

    with pytest.raises(ConfigError, match="score_reward"):
        load_config(None, overrides={"score_reward": -1})
