"""Self-play training: any AEC board game as a single-agent gymnasium env, an opponent pool, the trainer.

``SelfPlayEnv`` gives the learner one seat (a different one each game, in rotation) and plays every
other seat with opponents drawn from an ``OpponentPool`` inside ``step()``, until it is the learner's
turn again or the game is over. The learner's reward is its own AEC reward accumulated since its
last move (for tabletop games: 0, then the final rank reward). ``action_masks()`` is the learner's
legal-action mask, as sb3-contrib's MaskablePPO expects.

``train(config)`` runs MaskablePPO on vectorised copies of that env, adding snapshots of the
learner to the pool, writing resumable checkpoints, TensorBoard logs and the final model. The
opponent sampling rule and the checkpoint contents are described in docs/training.md.
"""
from __future__ import annotations

import csv
import functools
import io
import os
import pickle
import random
import shutil
import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

import agents as agents_pkg
from agents.base import Agent
from agents.random_agent import RandomAgent
from envs.core.errors import ConfigError

from .config import POOL_CATEGORIES, TrainConfig, check_game, save_config, to_dict

# -- the opponent pool ------------------------------------------------------------------------------


class OpponentPool:
    """Who plays the seats the learner does not hold.

    Sampling rule, once per game: pick a category with probability proportional to its weight
    among the categories that currently have a member (the others' weight is spread over them):
      * ``latest``    - the newest snapshot of the learner;
      * ``past``      - each opponent seat independently a uniformly chosen older snapshot;
      * ``random``    - the uniform random agent;
      * ``heuristic`` - the game's heuristic agent (only if the game has one).
    Every opponent seat of that game is filled from the chosen category. Opponents are reseeded at
    the start of each game from the environment's generator.
    """

    def __init__(
        self,
        game: str,
        num_players: int,
        weights: dict[str, float],
        max_snapshots: int = 20,
        snapshot_deterministic: bool = False,
        snapshots: list[str] | None = None,
    ):
        unknown = sorted(set(weights) - set(POOL_CATEGORIES))
        if unknown:
            raise ConfigError(f"unknown opponent categories {unknown}; valid are {list(POOL_CATEGORIES)}")
        if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            raise ConfigError(f"opponent weights must be >= 0 with a positive sum, got {weights}")
        self.game = game
        self.num_players = num_players
        self.weights = {c: float(weights.get(c, 0.0)) for c in POOL_CATEGORIES}
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.has_heuristic = game in agents_pkg.heuristic_games()
        self.snapshots: list[str] = []
        # one agent object per (member, seat slot), built on first use
        self._agents: dict[tuple[str, int], Agent] = {}
        self.set_snapshots(snapshots or [])

    # snapshots are added by the trainer (in each worker process, through VecEnv.env_method)
    def add_snapshot(self, path: str) -> None:
        self.set_snapshots(self.snapshots + [os.fspath(path)])

    def set_snapshots(self, paths: list[str]) -> None:
        self.snapshots = [os.fspath(p) for p in paths][-self.max_snapshots:]
        live = set(self.snapshots)
        for key in [k for k in self._agents if k[0] not in ("random", "heuristic") and k[0] not in live]:
            del self._agents[key]

    def category_weights(self) -> dict[str, float]:
        """Normalised weights of the categories that can be drawn now."""
        available = {
            "latest": len(self.snapshots) >= 1,
            "past": len(self.snapshots) >= 2,
            "random": True,
            "heuristic": self.has_heuristic,
        }
        raw = {c: w for c, w in self.weights.items() if w > 0 and available[c]}
        total = sum(raw.values())
        if total <= 0:
            raise ConfigError(
                f"no opponent can be drawn: positive weights {[c for c, w in self.weights.items() if w > 0]} "
                f"but the pool has {len(self.snapshots)} snapshot(s)"
                + ("" if self.has_heuristic else f" and {self.game!r} has no heuristic agent")
            )
        return {c: w / total for c, w in raw.items()}

    def draw(self, rng: np.random.Generator, num_seats: int) -> tuple[str, list[Agent]]:
        """(category, one agent per opponent seat), each agent reseeded for the new game."""
        weights = self.category_weights()
        categories = list(weights)
        category = categories[int(rng.choice(len(categories), p=list(weights.values())))]
        members = []
        for slot in range(num_seats):
            if category == "latest":
                member = self.snapshots[-1]
            elif category == "past":
                member = self.snapshots[int(rng.integers(len(self.snapshots) - 1))]
            else:
                member = category
            agent = self._agent(member, slot)
            agent.reset(int(rng.integers(2**63 - 1)))
            members.append(agent)
        return category, members

    def _agent(self, member: str, slot: int) -> Agent:
        key = (member, slot)
        agent = self._agents.get(key)
        if agent is None:
            if member in ("random", "heuristic"):
                agent = agents_pkg.make_agent(member, self.game, self.num_players)
            else:
                from agents.ppo import PPOAgent

                agent = PPOAgent(member, deterministic=self.snapshot_deterministic)
            self._agents[key] = agent
        return agent


# -- the adapter ------------------------------------------------------------------------------------


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


def _flat(observation) -> np.ndarray:
    return np.asarray(observation, dtype=np.float32).reshape(-1)


class SelfPlayEnv(gymnasium.Env):
    """One AEC game as a single-agent env for the learner; opponents play inside ``step()``.

    ``env_fn`` builds the AEC env (e.g. ``functools.partial(envs.make, "catan_card", num_players=2)``).
    Its per-agent observation must be a dict with ``observation`` and ``action_mask``; the
    observation is flattened to float32. The learner's seat in game ``g`` is
    ``(first_seat + g) % num_players``. ``info["action_mask"]`` repeats ``action_masks()`` so a
    vector env can forward it without a second round trip; at the end of a game
    ``info["selfplay"]`` holds the result (category, reward, win, draw, seat, moves).
    """

    metadata = {"render_modes": []}

    def __init__(self, env_fn: Callable[[], Any], pool: OpponentPool, seed: int | None = None, first_seat: int = 0):
        super().__init__()
        self._env = env_fn()
        self._raw = self._env.unwrapped  # dicts are read here; steps go through the wrappers
        self._env.reset(seed=seed)
        self.pool = pool
        self.agents = list(self._env.possible_agents)
        self.num_players = len(self.agents)
        self._seat_of = {agent: seat for seat, agent in enumerate(self.agents)}
        first = self.agents[0]
        obs_space = self._env.observation_space(first)["observation"]
        self.observation_space = spaces.Box(
            low=np.broadcast_to(np.asarray(obs_space.low, dtype=np.float32), obs_space.shape).reshape(-1).copy(),
            high=np.broadcast_to(np.asarray(obs_space.high, dtype=np.float32), obs_space.shape).reshape(-1).copy(),
            dtype=np.float32,
        )
        self.action_space = spaces.Discrete(int(self._env.action_space(first).n))
        self._rng = np.random.default_rng(seed)
        self._first_seat = first_seat % self.num_players
        self._games = 0
        self._learner_seat = 0
        self._learner = first
        self._opponents: list[Agent | None] = [None] * self.num_players
        self._category = ""
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._done = True
        self._moves = 0
        # random opponents need only the legal moves: skip encoding an observation for them
        self._legal_actions = getattr(self._raw, "legal_actions", None)

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
        obs = self._observe_learner()
        return obs, {"action_mask": self._mask}

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called after the game ended; call reset()")
        self._env.step(int(action))
        self._moves += 1
        learner_to_move = self._play_opponents()
        raw = self._raw
        learner = self._learner
        reward = float(raw._cumulative_rewards[learner])
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
            if self._legal_actions is not None and type(opponent) is RandomAgent:
                mask = np.zeros(self.action_space.n, dtype=np.int8)
                mask[self._legal_actions()] = 1
                action = opponent.act(None, mask)
            else:
                obs = env.observe(agent)
                action = opponent.act(_flat(obs["observation"]), obs["action_mask"])
            env.step(action)
            self._moves += 1

    def _observe_learner(self) -> np.ndarray:
        obs = self._env.observe(self._learner)
        self._mask = np.asarray(obs["action_mask"], dtype=bool)
        return _flat(obs["observation"])

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


# -- vector envs ------------------------------------------------------------------------------------


def make_selfplay_env(
    game: str,
    num_players: int,
    env_kwargs: dict,
    pool_kwargs: dict,
    seed: int,
    rank: int,
    torch_threads: int = 1,
) -> gymnasium.Env:
    """Build one monitored SelfPlayEnv (module level so that worker processes can unpickle it)."""
    import envs
    from stable_baselines3.common.monitor import Monitor

    if torch_threads:
        import torch

        torch.set_num_threads(torch_threads)
    pool = OpponentPool(game, num_players, **pool_kwargs)
    env_fn = functools.partial(envs.make, game, num_players=num_players, **env_kwargs)
    return Monitor(SelfPlayEnv(env_fn, pool, seed=seed + 1000 * rank, first_seat=rank))


def _multi_env_worker(remote, parent_remote, env_fns_wrapper) -> None:
    """Worker loop of MultiEnvSubprocVecEnv: steps its slice of envs, auto-resetting finished ones."""
    parent_remote.close()
    env_list = [fn() for fn in env_fns_wrapper.var]
    try:
        while True:
            cmd, data = remote.recv()
            if cmd == "step":
                results = []
                for env, action in zip(env_list, data):
                    obs, reward, terminated, truncated, info = env.step(action)
                    done = terminated or truncated
                    info["TimeLimit.truncated"] = truncated and not terminated
                    reset_info = {}
                    if done:
                        info["terminal_observation"] = obs
                        obs, reset_info = env.reset()
                    results.append((obs, reward, done, info, reset_info))
                remote.send(results)
            elif cmd == "reset":
                remote.send([env.reset(seed=seed, **({"options": options} if options else {}))
                             for env, (seed, options) in zip(env_list, data)])
            elif cmd == "env_method":
                name, args, kwargs, local = data
                remote.send([env_list[i].get_wrapper_attr(name)(*args, **kwargs) for i in local])
            elif cmd == "get_attr":
                name, local = data
                remote.send([env_list[i].get_wrapper_attr(name) for i in local])
            elif cmd == "set_attr":
                name, value, local = data
                for i in local:
                    setattr(env_list[i], name, value)
                remote.send(None)
            elif cmd == "is_wrapped":
                from stable_baselines3.common.env_util import is_wrapped

                wrapper, local = data
                remote.send([is_wrapped(env_list[i], wrapper) for i in local])
            elif cmd == "get_spaces":
                remote.send((env_list[0].observation_space, env_list[0].action_space))
            elif cmd == "close":
                for env in env_list:
                    env.close()
                remote.close()
                break
            else:
                raise ValueError(f"self-play worker: unknown command {cmd!r}")
    except (EOFError, KeyboardInterrupt):
        pass


class MultiEnvSubprocVecEnv(VecEnv):
    """SB3's SubprocVecEnv, but each worker process steps several envs per message.

    One pipe round trip per process and step instead of one per env: when an env step costs about
    as much as a round trip (board games), this is what makes worker processes pay off. With as many
    processes as envs it behaves like SubprocVecEnv.
    """

    def __init__(self, env_fns: list[Callable[[], gymnasium.Env]], n_processes: int, start_method: str | None = None):
        import multiprocessing as mp

        from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper

        n_processes = max(1, min(n_processes, len(env_fns)))
        bounds = np.linspace(0, len(env_fns), n_processes + 1).round().astype(int)
        self._slices = [range(bounds[p], bounds[p + 1]) for p in range(n_processes)]
        self._owner = [(p, i - s.start) for p, s in enumerate(self._slices) for i in s]
        if start_method is None:
            start_method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(start_method)
        if start_method == "forkserver":
            # the server imports torch & co. once; each worker is then a cheap fork of it
            ctx.set_forkserver_preload([__name__])
        self.remotes, work_remotes = zip(*[ctx.Pipe() for _ in range(n_processes)])
        self.processes = []
        for work_remote, remote, chunk in zip(work_remotes, self.remotes, self._slices):
            fns = CloudpickleWrapper([env_fns[i] for i in chunk])
            process = ctx.Process(target=_multi_env_worker, args=(work_remote, remote, fns), daemon=True)
            process.start()
            self.processes.append(process)
            work_remote.close()
        self.waiting = False
        self.closed = False
        self.remotes[0].send(("get_spaces", None))
        observation_space, action_space = self.remotes[0].recv()
        super().__init__(len(env_fns), observation_space, action_space)

    def step_async(self, actions: np.ndarray) -> None:
        for remote, chunk in zip(self.remotes, self._slices):
            remote.send(("step", actions[chunk.start:chunk.stop]))
        self.waiting = True

    def step_wait(self):
        results = [r for remote in self.remotes for r in remote.recv()]
        self.waiting = False
        obs, rewards, dones, infos, self.reset_infos = zip(*results)
        return np.stack(obs), np.array(rewards, dtype=np.float32), np.array(dones, dtype=bool), list(infos)

    def reset(self):
        for remote, chunk in zip(self.remotes, self._slices):
            remote.send(("reset", [(self._seeds[i], self._options[i]) for i in chunk]))
        results = [r for remote in self.remotes for r in remote.recv()]
        obs, self.reset_infos = zip(*results)
        self._reset_seeds()
        self._reset_options()
        return np.stack(obs)

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
        for remote in self.remotes:
            remote.send(("close", None))
        for process in self.processes:
            process.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True

    def _by_process(self, indices) -> dict[int, list[int]]:
        grouped: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            process, local = self._owner[i]
            grouped.setdefault(process, []).append(local)
        return grouped

    def _ask(self, cmd: str, payload: Callable[[list[int]], tuple], indices) -> list[Any]:
        grouped = self._by_process(indices)
        for process, local in grouped.items():
            self.remotes[process].send((cmd, payload(local)))
        answers = {process: self.remotes[process].recv() for process in grouped}
        # back in the order of the requested indices
        out = []
        positions = {process: 0 for process in grouped}
        for i in self._get_indices(indices):
            process, _ = self._owner[i]
            out.append(answers[process][positions[process]])
            positions[process] += 1
        return out

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return self._ask("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        grouped = self._by_process(indices)
        for process, local in grouped.items():
            self.remotes[process].send(("set_attr", (attr_name, value, local)))
        for process in grouped:
            self.remotes[process].recv()

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        return self._ask("env_method", lambda local: (method_name, method_args, method_kwargs, local), indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return self._ask("is_wrapped", lambda local: (wrapper_class, local), indices)


class CachedMaskVecEnv(VecEnvWrapper):
    """Answers MaskablePPO's per-step ``env_method("action_masks")`` from the masks each worker already
    sent in its step info, which saves one round trip to every worker process per step."""

    def __init__(self, venv):
        super().__init__(venv)
        self._masks: np.ndarray | None = None

    def reset(self):
        obs = self.venv.reset()
        self._masks = np.stack([info["action_mask"] for info in self.venv.reset_infos])
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        reset_infos = self.venv.reset_infos
        self._masks = np.stack(
            [reset_infos[i]["action_mask"] if dones[i] else infos[i]["action_mask"] for i in range(len(infos))]
        )
        return obs, rewards, dones, infos

    def refresh_masks(self) -> None:
        self._masks = np.stack(self.venv.env_method("action_masks"))

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks" and indices is None and not method_args and not method_kwargs:
            return list(self._masks)
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)


def available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


SUBPROC_MIN_CORES = 4  # below this, stepping envs in the training process is faster (docs/training.md)


def vec_env_kind(config: TrainConfig) -> str:
    """'subproc' or 'dummy' (what ``vec_env: auto`` means on this machine)."""
    if config.vec_env != "auto":
        return config.vec_env
    return "subproc" if available_cpus() >= SUBPROC_MIN_CORES else "dummy"


def make_vec_env(config: TrainConfig, num_players: int, n_envs: int, snapshots: list[str]):
    from stable_baselines3.common.vec_env import DummyVecEnv

    pool_kwargs = {
        "weights": dict(config.pool.weights),
        "max_snapshots": config.pool.max_snapshots,
        "snapshot_deterministic": config.pool.snapshot_deterministic,
        "snapshots": list(snapshots),
    }
    subproc = vec_env_kind(config) == "subproc"
    fns = [
        functools.partial(
            make_selfplay_env, config.game, num_players, dict(config.env), pool_kwargs, config.seed, rank,
            1 if subproc else 0,
        )
        for rank in range(n_envs)
    ]
    if subproc:
        venv = MultiEnvSubprocVecEnv(fns, config.n_processes or max(1, available_cpus() - 1), config.start_method)
    else:
        venv = DummyVecEnv(fns)
    return CachedMaskVecEnv(venv)


# -- the trainer ------------------------------------------------------------------------------------

STATE_FILE = "state.pkl"
MODEL_FILE = "model.zip"
FINAL_MODEL = "final_model.zip"
CONFIG_FILE = "config.yaml"
# config keys a resumed run may change without breaking exactness
RESUMABLE_CHANGES = ("total_steps", "progress_bar", "vec_env", "n_processes", "start_method")


@dataclass
class RunPaths:
    root: str

    @property
    def config(self) -> str:
        return os.path.join(self.root, CONFIG_FILE)

    @property
    def final_model(self) -> str:
        return os.path.join(self.root, FINAL_MODEL)

    @property
    def checkpoints(self) -> str:
        return os.path.join(self.root, "checkpoints")

    @property
    def snapshots(self) -> str:
        return os.path.join(self.root, "snapshots")

    @property
    def tensorboard(self) -> str:
        return os.path.join(self.root, "tb")

    @property
    def eval_history(self) -> str:
        return os.path.join(self.root, "eval_history.csv")

    def checkpoint_dirs(self) -> list[str]:
        """Complete checkpoints, oldest first."""
        if not os.path.isdir(self.checkpoints):
            return []
        names = sorted(n for n in os.listdir(self.checkpoints) if n.startswith("step_"))
        dirs = [os.path.join(self.checkpoints, n) for n in names]
        return [d for d in dirs if os.path.isfile(os.path.join(d, STATE_FILE))]


def default_run_dir(game: str, num_players: int) -> str:
    return os.path.join("runs", f"{game}_{num_players}p")


def resolve(config: TrainConfig) -> tuple[int, int, str]:
    """(num_players, n_envs, run_dir) with the defaults filled in."""
    import envs

    num_players = config.num_players or envs.spec(config.game).default_players
    n_envs = config.n_envs
    run_dir = config.run_dir or default_run_dir(config.game, num_players)
    return num_players, n_envs, run_dir


def checkpoint_metadata(config: TrainConfig, num_players: int, model) -> dict[str, Any]:
    return {
        "game": config.game,
        "num_players": num_players,
        "env_kwargs": dict(config.env),
        "observation_size": int(np.prod(model.observation_space.shape)),
        "num_actions": int(model.action_space.n),
        "num_timesteps": int(model.num_timesteps),
        "seed": config.seed,
    }


def save_model(model, path: str, config: TrainConfig, num_players: int) -> None:
    from agents.ppo import write_checkpoint_metadata

    model.save(path)
    write_checkpoint_metadata(path, checkpoint_metadata(config, num_players, model))


class SelfPlayCallback(BaseCallback):
    """Snapshots, checkpoints, periodic evaluation, win-rate logging and the progress bar.

    Snapshots, evaluations and checkpoints happen at the start of a rollout, i.e. right after a PPO
    update, when no transition is half collected: that is the point a checkpoint can resume from.
    """

    def __init__(self, config: TrainConfig, num_players: int, paths: RunPaths, n_envs: int, log: Callable[[str], None]):
        super().__init__()
        self.config = config
        self.num_players = num_players
        self.paths = paths
        self.n_envs = n_envs
        self.log = log
        self.snapshots: list[str] = []
        self.windows: dict[str, deque] = {}
        self.last_snapshot = -1
        self.last_checkpoint = -1
        self.last_eval = -1
        self.latest_eval: dict[str, float] = {}
        self._bar = None
        self._bar_pending = 0

    # -- state for resume ---------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "snapshots": list(self.snapshots),
            "windows": {k: list(v) for k, v in self.windows.items()},
            "last_snapshot": self.last_snapshot,
            "last_checkpoint": self.last_checkpoint,
            "last_eval": self.last_eval,
            "latest_eval": dict(self.latest_eval),
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.snapshots = list(state["snapshots"])
        self.windows = {k: deque(v, maxlen=self.config.eval.window) for k, v in state["windows"].items()}
        self.last_snapshot = state["last_snapshot"]
        self.last_checkpoint = state["last_checkpoint"]
        self.last_eval = state["last_eval"]
        self.latest_eval = dict(state["latest_eval"])

    # -- hooks --------------------------------------------------------------------------------------
    @property
    def iteration(self) -> int:
        return self.model.num_timesteps // (self.model.n_steps * self.n_envs)

    def _on_training_start(self) -> None:
        if self.config.progress_bar:
            from tqdm.auto import tqdm

            rollout = self.model.n_steps * self.n_envs  # SB3 trains whole rollouts: round the goal up
            total = -(-self.config.total_steps // rollout) * rollout
            self._bar = tqdm(
                total=total, initial=self.model.num_timesteps, unit="step",
                dynamic_ncols=True, smoothing=0.05, desc=f"{self.config.game} {self.num_players}p",
            )
            self._refresh_bar()

    def _on_rollout_start(self) -> None:
        iteration = self.iteration
        if iteration > 0 and iteration % self.config.pool.snapshot_every_updates == 0 and self.last_snapshot != iteration:
            self.add_snapshot()
        every_eval = self.config.eval.every_updates
        if every_eval and iteration > 0 and iteration % every_eval == 0 and self.last_eval != iteration:
            self.evaluate()
        if iteration > 0 and iteration % self.config.checkpoint.every_updates == 0 and self.last_checkpoint != iteration:
            self.save_checkpoint()

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            result = info.get("selfplay")
            if result is not None:
                for key in ("all", result["category"]):
                    self.windows.setdefault(key, deque(maxlen=self.config.eval.window)).append(float(result["win"]))
                self.windows.setdefault("moves", deque(maxlen=self.config.eval.window)).append(result["moves"])
        if self._bar is not None:
            self._bar_pending += self.n_envs
            if self._bar_pending >= 1024:
                self._bar.update(self._bar_pending)
                self._bar_pending = 0
        return True

    def _on_rollout_end(self) -> None:
        for key, window in self.windows.items():
            if window:
                name = "selfplay/game_moves" if key == "moves" else f"selfplay/win_rate_{key}"
                self.logger.record(name, float(np.mean(window)))
        self.logger.record("selfplay/pool_snapshots", len(self.snapshots[-self.config.pool.max_snapshots:]))
        self._refresh_bar()

    def _on_training_end(self) -> None:
        if self.last_checkpoint != self.iteration:
            self.save_checkpoint()
        if self._bar is not None:
            self._bar.update(self._bar_pending)
            self._bar_pending = 0
            self._refresh_bar()
            self._bar.close()
            self._bar = None

    # -- actions ------------------------------------------------------------------------------------
    def add_snapshot(self) -> None:
        os.makedirs(self.paths.snapshots, exist_ok=True)
        path = os.path.join(self.paths.snapshots, f"snapshot_{self.model.num_timesteps:012d}.zip")
        save_model(self.model, path, self.config, self.num_players)
        self.snapshots.append(path)
        self.training_env.env_method("add_snapshot", path)
        self.last_snapshot = self.iteration

    def evaluate(self) -> None:
        from agents.ppo import PPOAgent

        from .tournament import play_match

        current = PPOAgent.from_policy(self.model.policy, deterministic=True)
        row: dict[str, Any] = {"step": self.model.num_timesteps}
        for opponent in self.config.eval.opponents:
            if opponent == "heuristic" and self.config.game not in agents_pkg.heuristic_games():
                continue
            result = play_match(
                self.config.game, self.num_players, current, opponent, self.config.eval.games,
                seed=self.config.seed + 7_919, env_kwargs=self.config.env,
            )
            rate = result.win_rate
            self.logger.record(f"eval/win_rate_vs_{result.opponent_name}", rate)
            self.logger.record(f"eval/mean_moves_vs_{result.opponent_name}", result.mean_moves)
            self.latest_eval[result.opponent_name] = rate
            row[f"win_rate_vs_{result.opponent_name}"] = round(rate, 4)
        self.last_eval = self.iteration
        new_file = not os.path.isfile(self.paths.eval_history)
        with open(self.paths.eval_history, "a", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            if new_file:
                writer.writeheader()
            writer.writerow(row)
        self._refresh_bar()

    def save_checkpoint(self) -> None:
        import torch

        model = self.model
        directory = os.path.join(self.paths.checkpoints, f"step_{model.num_timesteps:012d}")
        os.makedirs(directory, exist_ok=True)
        save_model(model, os.path.join(directory, MODEL_FILE), self.config, self.num_players)
        venv = self.training_env
        env_states = venv.env_method("get_state")
        in_use = sorted({p for paths in venv.env_method("snapshots_in_use") for p in paths})
        self.last_checkpoint = self.iteration
        import envs

        state = {
            "format": 1,
            "engine_state_version": envs.spec(self.config.game).state_version,
            "num_timesteps": int(model.num_timesteps),
            "iteration": self.iteration,
            "rng": {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()},
            "last_obs": np.copy(model._last_obs),
            "last_episode_starts": np.copy(model._last_episode_starts),
            "env_states": env_states,
            "callback": self.state(),
            "snapshots_referenced": sorted(set(self.snapshots[-self.config.pool.max_snapshots:]) | set(in_use)),
        }
        tmp = os.path.join(directory, STATE_FILE + ".tmp")
        with open(tmp, "wb") as handle:
            pickle.dump(state, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, os.path.join(directory, STATE_FILE))
        self._prune()

    def _prune(self) -> None:
        """Drop checkpoints beyond ``checkpoint.keep`` and snapshot files nothing refers to any more."""
        keep = self.config.checkpoint.keep
        dirs = self.paths.checkpoint_dirs()
        if keep:
            for old in dirs[:-keep]:
                shutil.rmtree(old, ignore_errors=True)
            dirs = dirs[-keep:]
        referenced = set(self.snapshots[-self.config.pool.max_snapshots:])
        for directory in dirs:
            with open(os.path.join(directory, STATE_FILE), "rb") as handle:
                referenced |= set(pickle.load(handle)["snapshots_referenced"])
        for path in self.snapshots:
            if path not in referenced and os.path.isfile(path):
                os.remove(path)
        self.snapshots = [p for p in self.snapshots if p in referenced]

    def _refresh_bar(self) -> None:
        if self._bar is None:
            return
        postfix = {}
        if self.windows.get("all"):
            postfix["win(train)"] = f"{np.mean(self.windows['all']):.2f}"
        for name, rate in self.latest_eval.items():
            postfix[f"vs_{name}"] = f"{rate:.2f}"
        self._bar.set_postfix(postfix, refresh=True)


@dataclass
class TrainResult:
    run_dir: str
    final_model: str
    num_timesteps: int
    seconds: float
    latest_eval: dict[str, float]

    @property
    def steps_per_second(self) -> float:
        return self.num_timesteps / self.seconds if self.seconds > 0 else 0.0


def _compare_for_resume(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    differing = []
    for key in sorted(set(saved) | set(current)):
        if key in RESUMABLE_CHANGES:
            continue
        if saved.get(key) != current.get(key):
            differing.append(f"{key}: {saved.get(key)!r} -> {current.get(key)!r}")
    return differing


def _policy_kwargs(config: TrainConfig) -> dict[str, Any]:
    import torch.nn as nn

    return {
        "net_arch": list(config.ppo.net_arch),
        "activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[config.ppo.activation],
    }


def train(
    config: TrainConfig,
    resume: bool = False,
    overwrite: bool = False,
    log: Callable[[str], None] = functools.partial(print, file=sys.stderr),
) -> TrainResult:
    """Train (or resume) a self-play MaskablePPO run described by ``config``; see docs/training.md."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    import envs

    check_game(config)
    num_players, n_envs, run_dir = resolve(config)
    paths = RunPaths(run_dir)
    state = None
    if resume:
        checkpoints = paths.checkpoint_dirs()
        if not checkpoints:
            raise ConfigError(f"--resume: no checkpoint under {paths.checkpoints!r}")
        from .config import from_dict, read_yaml

        saved = from_dict(read_yaml(paths.config))
        differing = _compare_for_resume(to_dict(saved), to_dict(config))
        if differing:
            raise ConfigError(
                "--resume: the config differs from the one the run was started with "
                f"(only {list(RESUMABLE_CHANGES)} may change): " + "; ".join(differing)
            )
        latest = checkpoints[-1]
        from agents.ppo import CheckpointError, read_checkpoint_metadata

        trained_for = read_checkpoint_metadata(os.path.join(latest, MODEL_FILE))
        if (trained_for.get("game"), trained_for.get("num_players")) != (config.game, num_players):
            raise CheckpointError(
                f"--resume: checkpoint {latest!r} was trained for {trained_for.get('game')!r} with "
                f"{trained_for.get('num_players')} players, not {config.game!r} with {num_players}"
            )
        with open(os.path.join(latest, STATE_FILE), "rb") as handle:
            state = pickle.load(handle)
        saved, current = state.get("engine_state_version", 1), envs.spec(config.game).state_version
        if saved != current:
            raise CheckpointError(
                f"--resume: checkpoint {latest!r} holds {config.game!r} games saved by engine state version "
                f"{saved}; this code has version {current}, so they cannot be continued. The model itself "
                "still loads for evaluate.py; start a new run to train further"
            )
        log(f"resuming {run_dir} from {latest} (step {state['num_timesteps']})")
    else:
        existing = paths.checkpoint_dirs() or os.path.isfile(paths.final_model)
        if existing and not overwrite:
            raise ConfigError(
                f"run directory {run_dir!r} already holds a run; pass --resume to continue it, "
                "--overwrite to replace it, or choose another --run-dir"
            )
        if overwrite:
            for sub in (paths.checkpoints, paths.snapshots, paths.tensorboard):
                shutil.rmtree(sub, ignore_errors=True)
            for file in (paths.final_model, paths.eval_history):
                if os.path.isfile(file):
                    os.remove(file)
    os.makedirs(run_dir, exist_ok=True)
    save_config(config, paths.config)
    torch.set_num_threads(config.torch_threads)
    if not (config.game in agents_pkg.heuristic_games()) and config.pool.weights.get("heuristic", 0) > 0:
        log(f"note: {config.game!r} has no heuristic agent; its pool weight is spread over the other categories")

    callback_state = state["callback"] if state else None
    snapshots = callback_state["snapshots"][-config.pool.max_snapshots:] if callback_state else []
    venv = make_vec_env(config, num_players, n_envs, snapshots)
    try:
        ppo = config.ppo
        if state is None:
            model = MaskablePPO(
                "MlpPolicy", venv, learning_rate=ppo.learning_rate, n_steps=ppo.n_steps,
                batch_size=ppo.batch_size, n_epochs=ppo.n_epochs, gamma=ppo.gamma, gae_lambda=ppo.gae_lambda,
                clip_range=ppo.clip_range, ent_coef=ppo.ent_coef, vf_coef=ppo.vf_coef,
                max_grad_norm=ppo.max_grad_norm, target_kl=ppo.target_kl,
                policy_kwargs=_policy_kwargs(config), seed=config.seed, device="cpu", verbose=0,
            )
        else:
            try:
                model = MaskablePPO.load(
                    os.path.join(paths.checkpoint_dirs()[-1], MODEL_FILE), env=venv, device="cpu",
                    print_system_info=False,
                )
            except ValueError as exc:  # SB3's check that the spaces match the env
                from agents.ppo import CheckpointError

                raise CheckpointError(f"--resume: the checkpoint does not fit {config.game!r}: {exc}") from exc
            venv.reset()  # workers' Monitor wrappers need a reset before their state is replaced
            for index, blob in enumerate(state["env_states"]):
                venv.env_method("set_state", blob, indices=[index])
            venv.refresh_masks()
            model._last_obs = state["last_obs"]
            model._last_episode_starts = state["last_episode_starts"]
            random.setstate(state["rng"]["python"])
            np.random.set_state(state["rng"]["numpy"])
            torch.set_rng_state(state["rng"]["torch"])
        model.set_logger(configure(paths.tensorboard, ["tensorboard"]))
        callback = SelfPlayCallback(config, num_players, paths, n_envs, log)
        if callback_state:
            callback.load_state(callback_state)
        remaining = config.total_steps - model.num_timesteps
        start, steps_at_start = time.perf_counter(), model.num_timesteps
        if state is None:
            # the initial policy is the first snapshot, so that 'latest' can be drawn from the first game
            callback.init_callback(model)
            callback.add_snapshot()
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=state is None, log_interval=1)
        seconds = time.perf_counter() - start
        save_model(model, paths.final_model, config, num_players)
    finally:
        venv.close()
    return TrainResult(
        run_dir=run_dir,
        final_model=paths.final_model,
        num_timesteps=int(model.num_timesteps - steps_at_start),
        seconds=seconds,
        latest_eval=dict(callback.latest_eval),
    )
