"""The SB3 callback of a self-play run: pool snapshots, checkpoints, periodic evaluation, logging.

A checkpoint keeps the callback's own ``state()`` too, so a resumed run carries on its counters and
rolling win-rate windows.
"""
from __future__ import annotations

import csv
import os
import pickle
import random
import shutil
import time
from collections import deque
from typing import Any, Callable

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

import agents as agents_pkg

from .checkpoints import MODEL_FILE, STATE_FILE, RunPaths, save_model, save_policy
from .config import TrainConfig


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
        self.stop_requested = False  # set by Ctrl-C (trainer.stop_on_interrupt): stop after the current env step
        self.seconds_before = 0.0  # wall-clock seconds of training before this process (a resumed run)
        self.cpu_seconds_before = 0.0  # and this process's CPU seconds
        self._started = time.monotonic()
        self._cpu_started = time.process_time()

    # -- state for resume ---------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {
            "snapshots": list(self.snapshots),
            "windows": {k: list(v) for k, v in self.windows.items()},
            "last_snapshot": self.last_snapshot,
            "last_checkpoint": self.last_checkpoint,
            "last_eval": self.last_eval,
            "latest_eval": dict(self.latest_eval),
            "seconds": self.seconds(),
            "cpu_seconds": self.cpu_seconds(),
        }

    def seconds(self) -> float:
        """Wall-clock seconds of training so far, those of earlier processes of a resumed run included."""
        return self.seconds_before + time.monotonic() - self._started

    def cpu_seconds(self) -> float:
        """CPU seconds of the training process so far (earlier processes of a resumed run included): unlike the
        wall-clock, not stretched by other work on the machine; with ``vec_env: subproc`` the workers' are not in it."""
        return self.cpu_seconds_before + time.process_time() - self._cpu_started

    def load_state(self, state: dict[str, Any]) -> None:
        self.snapshots = list(state["snapshots"])
        self.windows = {k: deque(v, maxlen=self.config.eval.window) for k, v in state["windows"].items()}
        self.last_snapshot = state["last_snapshot"]
        self.last_checkpoint = state["last_checkpoint"]
        self.last_eval = state["last_eval"]
        self.latest_eval = dict(state["latest_eval"])
        self.seconds_before = float(state.get("seconds", 0.0))
        self.cpu_seconds_before = float(state.get("cpu_seconds", 0.0))

    # -- hooks --------------------------------------------------------------------------------------
    @property
    def iteration(self) -> int:
        return self.model.num_timesteps // (self.model.n_steps * self.n_envs)

    def _on_training_start(self) -> None:
        self._started = time.monotonic()
        self._cpu_started = time.process_time()
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
        if self.stop_requested:
            # SB3 leaves its rollout before it takes this step's observation as the last one: take it here, so
            # that the checkpoint's observation is that of the envs it saves
            self.model._last_obs = self.locals["new_obs"]
            self.model._last_episode_starts = self.locals["dones"]
            return False
        return True

    def _on_rollout_end(self) -> None:
        for key, window in self.windows.items():
            if window:
                name = "selfplay/game_moves" if key == "moves" else f"selfplay/win_rate_{key}"
                self.logger.record(name, float(np.mean(window)))
        self.logger.record("selfplay/pool_snapshots", len(self.snapshots[-self.config.pool.max_snapshots:]))
        self._refresh_bar()

    def _on_training_end(self) -> None:
        if self.last_checkpoint != self.iteration or self.stop_requested:
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
        save_policy(self.model, path, self.config, self.num_players)
        self.snapshots.append(path)
        self.training_env.env_method("add_snapshot", path)
        self.last_snapshot = self.iteration

    def evaluate(self) -> None:
        from agents.ppo import PPOAgent

        from .tournament import play_match

        current = PPOAgent.from_policy(self.model.policy, deterministic=True,
                                       encoding=self.config.env.get("action_encoding", "flat"))
        row: dict[str, Any] = {"step": self.model.num_timesteps, "seconds": round(self.seconds(), 1),
                               "cpu_seconds": round(self.cpu_seconds(), 1)}
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
            row[f"draws_vs_{result.opponent_name}"] = result.draws  # shared first places and games cut by max_turns
            row[f"mean_moves_vs_{result.opponent_name}"] = round(result.mean_moves, 3)
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
