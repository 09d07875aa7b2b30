"""Any AEC board game as a single-agent gymnasium env for the learner, opponents playing inside it.

``SelfPlayEnv`` gives the learner one seat (a different one each game, in rotation) and plays every
other seat with opponents drawn from an ``OpponentPool`` inside ``step()``, until it is the learner's
turn again or the game is over. The learner's reward is its own AEC reward accumulated since its
last move (for tabletop games: 0, then the final rank reward), plus, when ``score_reward`` is set, that many
times the change of its score lead since its last move (see ``SelfPlayEnv``). ``action_masks()`` is the learner's
legal-action mask, as sb3-contrib's MaskablePPO expects. ``get_state``/``set_state`` carry a game in
progress into and out of a checkpoint; ``make_selfplay_env`` is the picklable factory vector envs use.
"""
from __future__ import annotations

import functools
import io
import pickle
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces

from agents.base import Agent, policy_observation
from agents.encoded import playing_in
from agents.random_agent import RandomAgent

from .pool import OpponentPool


class _StatePickler(pickle.Pickler):
    """Pickles a game's GameSpec by registry name: specs hold factories that need not be picklable."""

    def persistent_id(self, obj):
        from envs.core.game import GameSpec

        if isinstance(obj, GameSpec):
            return ("gamespec", obj.name)
        return None


class _StateUnpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        kind, name = pid
        if kind != "gamespec":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        import envs

        return envs.spec(name)


class SelfPlayEnv(gymnasium.Env):
    """One AEC game as a single-agent env for the learner; opponents play inside ``step()``.

    ``env_fn`` builds the AEC env (e.g. ``functools.partial(envs.make, "catan_card", num_players=2)``).
    Its per-agent observation must be a dict with ``observation`` and ``action_mask``; the
    observation is flattened to float32. The learner's seat in game ``g`` is
    ``(first_seat + g) % num_players``. ``info["action_mask"]`` repeats ``action_masks()`` so a
    vector env can forward it without a second round trip; at the end of a game
    ``info["selfplay"]`` holds the result (category, reward, win, draw, seat, moves).

    ``score_reward`` (default 0: the game's result only) shapes the reward with the game's own score
    (``engine.scores()``): each learner step adds ``score_reward`` times the change, since the learner's
    previous decision, of its *lead*, its score minus the best other seat's score. The shaping terms of a game
    sum to ``score_reward`` times (lead at the end − lead at the learner's first decision), so they reward
    gaining on the others and cannot be farmed by going back and forth.
    """

    metadata = {"render_modes": []}

    def __init__(self, env_fn: Callable[[], Any], pool: OpponentPool, seed: int | None = None, first_seat: int = 0,
                 score_reward: float = 0.0):
        super().__init__()
        self.score_reward = float(score_reward)
        self._lead = 0.0
        self._env = env_fn()
        self._raw = self._env.unwrapped  # dicts are read here; steps go through the wrappers
        self._env.reset(seed=seed)
        self.pool = pool
        self.agents = list(self._env.possible_agents)
        self.num_players = len(self.agents)
        self._seat_of = {agent: seat for seat, agent in enumerate(self.agents)}
        first = self.agents[0]
        # the policy's vector: the observation, then the action encoding's entries (agents.base.policy_observation)
        entries = self._env.observation_space(first).spaces
        parts = [entries[name] for name in ("observation", *sorted(set(entries) - {"observation", "action_mask"}))]
        self.observation_space = spaces.Box(
            low=np.concatenate([np.broadcast_to(np.asarray(p.low, np.float32), p.shape).reshape(-1) for p in parts]),
            high=np.concatenate([np.broadcast_to(np.asarray(p.high, np.float32), p.shape).reshape(-1) for p in parts]),
            dtype=np.float32,
        )
        actions = self._env.action_space(first)
        self._index_actions = isinstance(actions, spaces.Discrete)
        self.action_space = (spaces.Discrete(int(actions.n)) if self._index_actions
                             else spaces.MultiDiscrete(actions.nvec))
        self._rng = np.random.default_rng(seed)
        self._first_seat = first_seat % self.num_players
        self._games = 0
        self._learner_seat = 0
        self._learner = first
        self._opponents: list[Agent | None] = [None] * self.num_players
        self._category = ""
        self._mask = np.zeros(entries["action_mask"].shape[0], dtype=bool)
        self._done = True
        self._moves = 0
        # random opponents need only the legal moves: skip encoding an observation for them
        self._legal_actions = getattr(self._raw, "legal_actions", None)
        # flat opponents in another action encoding play through their moves (agents/encoded.py), by opponent
        self._in_encoding: dict[int, Agent] = {}

    # -- gymnasium API ------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._games = 0
        for _ in range(1000):
            self._start_game()
            if self._play_opponents():
                break
        else:
            raise RuntimeError("1000 games in a row ended before the learner's first move")
        if self.score_reward:
            self._lead = self._score_lead()
        obs = self._observe_learner()
        return obs, {"action_mask": self._mask}

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called after the game ended; call reset()")
        self._env.step(int(action) if self._index_actions else action)
        self._moves += 1
        learner_to_move = self._play_opponents()
        raw = self._raw
        learner = self._learner
        reward = float(raw._cumulative_rewards[learner])
        if self.score_reward:
            lead = self._score_lead()
            reward += self.score_reward * (lead - self._lead)
            self._lead = lead
        terminated = bool(raw.terminations[learner])
        truncated = bool(raw.truncations[learner]) and not terminated
        obs = self._observe_learner()
        info: dict[str, Any] = {"action_mask": self._mask}
        if terminated or truncated:
            self._done = True
            info["selfplay"] = self._result(reward, truncated)
        elif not learner_to_move:
            raise RuntimeError(f"{learner} neither moves next nor is done: the env stopped on {raw.agent_selection}")
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._mask

    # -- internals ----------------------------------------------------------------------------------
    def _start_game(self) -> None:
        self._learner_seat = (self._first_seat + self._games) % self.num_players
        self._learner = self.agents[self._learner_seat]
        self._games += 1
        game_seed = int(self._rng.integers(2**63 - 1))
        self._category, drawn = self.pool.draw(self._rng, self.num_players - 1)
        others = iter(drawn)
        self._opponents = [None if s == self._learner_seat else next(others) for s in range(self.num_players)]
        self._env.reset(seed=game_seed)
        self._moves = 0
        self._done = False

    def _play_opponents(self) -> bool:
        """Play opponents until the learner is to move (True) or the game is over (False)."""
        env, raw, learner, seat_of = self._env, self._raw, self._learner, self._seat_of
        while True:
            if raw.terminations[learner] or raw.truncations[learner]:
                return False
            agent = raw.agent_selection
            if agent == learner:
                return True
            opponent = self._opponents[seat_of[agent]]
            if opponent.searches:  # it samples this env's state as its seat may see it
                opponent = playing_in(raw, opponent)
            elif opponent.encoding != getattr(raw, "action_encoding", "flat"):
                playing = self._in_encoding.get(id(opponent))
                if playing is None or playing.agent is not opponent:
                    playing = self._in_encoding[id(opponent)] = playing_in(raw, opponent)
                opponent = playing
            if self._legal_actions is not None and type(opponent) is RandomAgent:
                mask = np.zeros(self._mask.size, dtype=np.int8)
                mask[self._legal_actions()] = 1
                action = opponent.act(None, mask)
            else:
                obs = env.observe(agent)
                action = opponent.act(policy_observation(obs), obs["action_mask"])
            env.step(action)
            self._moves += 1

    def _score_lead(self) -> float:
        return score_lead(self._raw.engine.scores(), self._learner_seat)

    def _observe_learner(self) -> np.ndarray:
        obs = self._env.observe(self._learner)
        self._mask = np.asarray(obs["action_mask"], dtype=bool)
        return policy_observation(obs)

    def _result(self, reward: float, truncated: bool) -> dict[str, Any]:
        final = self._raw.rewards
        others = [final[a] for a in self.agents if a != self._learner]
        best_other = max(others) if others else 0.0
        mine = final[self._learner]
        return {
            "category": self._category,
            "reward": reward,
            "win": (not truncated) and mine > best_other,
            "draw": truncated or mine == best_other,
            "seat": self._learner_seat,
            "moves": self._moves,
        }

    # -- exact resume -------------------------------------------------------------------------------
    def get_state(self) -> bytes:
        """The game in progress, the opponents and the generator, as bytes (see docs/training.md)."""
        buffer = io.BytesIO()
        _StatePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(
            {
                "env": self._env,
                "rng": self._rng,
                "games": self._games,
                "first_seat": self._first_seat,
                "learner_seat": self._learner_seat,
                "opponents": self._opponents,
                "category": self._category,
                "done": self._done,
                "moves": self._moves,
                "lead": self._lead,
            }
        )
        return buffer.getvalue()

    def set_state(self, blob: bytes) -> None:
        state = _StateUnpickler(io.BytesIO(blob)).load()
        self._env = state["env"]
        self._raw = self._env.unwrapped
        self._legal_actions = getattr(self._raw, "legal_actions", None)
        self._rng = state["rng"]
        self._games = state["games"]
        self._first_seat = state["first_seat"]
        self._learner_seat = state["learner_seat"]
        self._learner = self.agents[self._learner_seat]
        self._opponents = state["opponents"]
        self._category = state["category"]
        self._done = state["done"]
        self._moves = state["moves"]
        self._lead = state.get("lead", 0.0)
        # the flat opponents' wrappers read the env they were made for: the one just replaced
        self._in_encoding = {}
        if not self._done:
            self._observe_learner()

    def snapshots_in_use(self) -> list[str]:
        """Snapshot files the current game's opponents were loaded from."""
        return sorted({a.path for a in self._opponents if a is not None and getattr(a, "path", None)})

    # pool updates, called through VecEnv.env_method in every worker
    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)

    def set_snapshots(self, paths: list[str]) -> None:
        self.pool.set_snapshots(paths)


def score_lead(scores: list, seat: int) -> float:
    """The seat's score minus the best other seat's: what ``score_reward`` pays the changes of."""
    return float(scores[seat] - max(s for other, s in enumerate(scores) if other != seat))


def make_selfplay_env(
    game: str,
    num_players: int,
    env_kwargs: dict,
    pool_kwargs: dict,
    seed: int,
    rank: int,
    torch_threads: int = 1,
    score_reward: float = 0.0,
) -> gymnasium.Env:
    """Build one monitored SelfPlayEnv (module level so that worker processes can unpickle it)."""
    import envs
    from stable_baselines3.common.monitor import Monitor

    if torch_threads:
        import torch

        torch.set_num_threads(torch_threads)
    pool = OpponentPool(game, num_players, **pool_kwargs)
    env_fn = functools.partial(envs.make, game, num_players=num_players, **env_kwargs)
    return Monitor(SelfPlayEnv(env_fn, pool, seed=seed + 1000 * rank, first_seat=rank,
                               score_reward=score_reward))
