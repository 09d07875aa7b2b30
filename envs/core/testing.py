"""Test helpers every game's tests reuse: API conformance, seeded determinism, random-play fuzz.

They raise AssertionError with a message naming the game, seed and step, so a failing fuzz game
can be replayed with ``play_random_game(make_env(), seed)``.
"""
from __future__ import annotations

import pickle
import random
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import IllegalActionError

# PettingZoo's api_test warns about Dict observation spaces, which its classic games use too.
_EXPECTED_API_WARNINGS = (
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
    "Action space for each agent probably should be",  # the factored encodings' MultiDiscrete
)


def run_api_test(env, num_cycles: int = 1000) -> None:
    """PettingZoo's api_test plus its seed_test, failing on any warning other than the Dict- and
    MultiDiscrete-space ones."""
    from pettingzoo.test import api_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    unexpected = [str(w.message) for w in caught
                  if not str(w.message).startswith(_EXPECTED_API_WARNINGS)]
    assert not unexpected, f"api_test warnings: {unexpected}"


def check_seed_test(make_env: Callable[[], object], num_cycles: int = 500) -> None:
    from pettingzoo.test import seed_test

    seed_test(make_env, num_cycles=num_cycles)


def observation_in_space(env, agent, obs) -> None:
    """Fast equivalent of ``observation_space(agent).contains(obs)`` with a precise message."""
    space = env.observation_space(agent)
    o, m = obs["observation"], obs["action_mask"]
    box = space["observation"]
    assert o.dtype == box.dtype and o.shape == box.shape, (o.dtype, o.shape, box)
    assert np.all(o >= box.low) and np.all(o <= box.high), (
        f"observation out of bounds at {np.flatnonzero((o < box.low) | (o > box.high)).tolist()}")
    assert m.dtype == np.int8 and m.shape == space["action_mask"].shape
    assert np.all((m == 0) | (m == 1)), "mask values must be 0/1"


@dataclass
class GameResult:
    seed: int
    steps: int
    terminated: bool
    truncated: bool
    returns: dict = field(default_factory=dict)
    infos: dict = field(default_factory=dict)


def play_random_game(env, seed: int, on_step: Callable | None = None,
                     check_observations: bool = True) -> GameResult:
    """Play one game with uniform legal actions; check the mask and observation at every step.

    ``on_step(env)`` runs after every live step (game-specific invariants).
    """
    env.reset(seed=seed)
    pick = random.Random(seed)
    returns = {a: 0.0 for a in env.possible_agents}
    steps = 0
    terminated = truncated = False
    infos = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        returns[agent] += reward
        if term or trunc:
            terminated |= term
            truncated |= trunc
            infos[agent] = info
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"{env}: seed {seed} step {steps}: empty mask for acting {agent}"
        if check_observations:
            observation_in_space(env, agent, obs)
            for other in env.agents:
                if other != agent:
                    other_obs = env.observe(other)
                    assert not other_obs["action_mask"].any(), f"{other} has legal actions off-turn"
                    observation_in_space(env, other, other_obs)
        env.step(int(legal[pick.randrange(legal.size)]))
        steps += 1
        if on_step is not None:
            on_step(env)
    return GameResult(seed, steps, terminated, truncated, returns, infos)


def check_determinism(make_env: Callable[[], object], seed: int, max_steps: int = 2000) -> int:
    """Two envs, same seed, same (seeded) actions: identical observations, masks, rewards, agents."""
    a, b = make_env(), make_env()
    a.reset(seed=seed)
    b.reset(seed=seed)
    pick = random.Random(seed)
    steps = 0
    for agent in a.agent_iter():
        assert b.agent_selection == agent, f"step {steps}: agent {agent} vs {b.agent_selection}"
        oa, ra, ta, ua, ia = a.last()
        ob, rb, tb, ub, ib = b.last()
        assert np.array_equal(oa["observation"], ob["observation"]), f"step {steps}: observations differ"
        assert np.array_equal(oa["action_mask"], ob["action_mask"]), f"step {steps}: masks differ"
        assert (ra, ta, ua, ia) == (rb, tb, ub, ib), f"step {steps}: reward/termination/info differ"
        if ta or ua:
            action = None
        else:
            legal = np.flatnonzero(oa["action_mask"])
            action = int(legal[pick.randrange(legal.size)])
        a.step(action)
        b.step(action)
        steps += 1
        if steps >= max_steps:
            break
    return steps


def state_bytes(engine) -> bytes:
    """A byte snapshot of an engine (RNG included) for 'state unchanged' assertions."""
    return pickle.dumps(engine)


def check_illegal_actions_rejected(env, seed: int, steps: int = 200) -> int:
    """At every step of a random game, every masked-out and out-of-range index raises
    IllegalActionError and leaves the engine byte-for-byte unchanged. Returns the checks made."""
    env.reset(seed=seed)
    pick = random.Random(seed)
    checks = 0
    n = env.action_space(env.possible_agents[0]).n
    for _ in range(steps):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        mask = obs["action_mask"]
        before = state_bytes(env.engine)
        for bad in [i for i in range(n) if not mask[i]] + [-1, n, n + 7, 2.5, "1", None]:
            try:
                env.step(bad)
            except IllegalActionError as err:
                assert str(bad) in str(err) or repr(bad) in str(err), f"error does not name {bad!r}: {err}"
            else:
                raise AssertionError(f"{env}: action {bad!r} was accepted but is illegal")
            assert state_bytes(env.engine) == before, f"illegal action {bad!r} changed the state"
            assert env.agent_selection == agent
            checks += 1
        legal = np.flatnonzero(mask)
        env.step(int(legal[pick.randrange(legal.size)]))
    return checks


_ASSIGN = re.compile(r"\bself\.([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+|&*/]?=(?!=)|:\s*[^=\n]+=)")
_SEVERAL = re.compile(r"^\s*((?:self\.[A-Za-z_][A-Za-z0-9_]*\s*,\s*)+self\.[A-Za-z_][A-Za-z0-9_]*)\s*=", re.M)


def assigned_attributes(paths) -> set[str]:
    """Every name the sources at ``paths`` assign as ``self.<name>`` (alone or in a tuple assignment): the
    attributes an engine kept in slots (``flat_class``) must cover."""
    names: set[str] = set()
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        names |= set(_ASSIGN.findall(text))
        for group in _SEVERAL.findall(text):
            names |= set(re.findall(r"self\.([A-Za-z_][A-Za-z0-9_]*)", group))
    return names



def move_states(game: str, grain_class, num_players: int, seeds=(0,), moves: int = 200):
    """Engines of seeded random games of ``game`` played move by move (as the move encodings see them, with the
    grain ``grain_class``): yields the engine, the flat codec and the moves listed there, before each move."""
    import envs
    from .moves import legal_moves

    for seed in seeds:
        env = envs.make(game, num_players=num_players)
        env.reset(seed=seed)
        engine, flat, pick = env.engine, env.codec, np.random.default_rng(seed)
        grain = grain_class(flat)
        for _ in range(moves):
            if engine.is_over:
                break
            listed = legal_moves(engine, grain)
            yield engine, flat, listed
            for index in list(listed.values())[int(pick.integers(len(listed)))]:
                flat.apply_legal(engine, index)
