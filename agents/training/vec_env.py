"""Vector envs for self-play training and the choice between them.

``MultiEnvSubprocVecEnv`` steps several envs per worker process, ``CachedMaskVecEnv`` answers
MaskablePPO's mask queries without a round trip, and ``make_vec_env`` builds the training envs in
worker processes or in the training process (``vec_env_kind``: ``auto`` depends on the cores).
"""
from __future__ import annotations

import functools
import os
import signal
from typing import Any, Callable

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from .config import TrainConfig
from .selfplay_env import make_selfplay_env


def _multi_env_worker(remote, parent_remote, env_fns_wrapper) -> None:
    """Worker loop of MultiEnvSubprocVecEnv: steps its slice of envs, auto-resetting finished ones."""
    # Ctrl-C in a terminal reaches every process of the group: the trainer decides when to stop (it saves a
    # checkpoint, which needs the workers' envs), so the workers ignore it and end when the trainer closes them
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
        "mcts": config.pool.mcts,
        "snapshots": list(snapshots),
    }
    subproc = vec_env_kind(config) == "subproc"
    fns = [
        functools.partial(
            make_selfplay_env, config.game, num_players, dict(config.env), pool_kwargs, config.seed, rank,
            1 if subproc else 0, config.score_reward,
        )
        for rank in range(n_envs)
    ]
    if subproc:
        venv = MultiEnvSubprocVecEnv(fns, config.n_processes or max(1, available_cpus() - 1), config.start_method)
    else:
        venv = DummyVecEnv(fns)
    return CachedMaskVecEnv(venv)
