"""A training run's directory: where its config, checkpoints, snapshots and logs go, and saving a model.

Every saved model carries metadata naming the game it fits (``checkpoint_metadata``); what a
checkpoint holds and how a run resumes from it is described in docs/training.md.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.errors import ConfigError

from .config import TrainConfig

STATE_FILE = "state.pkl"
MODEL_FILE = "model.zip"
FINAL_MODEL = "final_model.zip"
CONFIG_FILE = "config.yaml"
TRAINING_LOG = "training.json"


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

    @property
    def training_log(self) -> str:
        return os.path.join(self.root, TRAINING_LOG)

    def checkpoint_dirs(self) -> list[str]:
        """Complete checkpoints, oldest first."""
        if not os.path.isdir(self.checkpoints):
            return []
        names = sorted(n for n in os.listdir(self.checkpoints) if n.startswith("step_"))
        dirs = [os.path.join(self.checkpoints, n) for n in names]
        return [d for d in dirs if os.path.isfile(os.path.join(d, STATE_FILE))]


def check_same_backend(saved: str, current: str, run_dir: str) -> None:
    """--resume of a run trained by the other backend: a one-line error naming the flag that continues it."""
    if saved != current:
        from agents.ppo import CheckpointError

        raise CheckpointError(f"--resume: {run_dir!r} was trained with backend {saved!r}, not {current!r}; "
                              f"continue it with --backend {saved}, or start a new run in another --run-dir")


def start_new_run(paths: RunPaths, run_dir: str, overwrite: bool, also: tuple[str, ...] = ()) -> None:
    """Refuse a run directory that already holds a run unless ``overwrite``; with it, remove that run's outputs
    (``also``: a backend's own outputs besides the common ones)."""
    existing = paths.checkpoint_dirs() or os.path.isfile(paths.final_model) or any(map(os.path.exists, also))
    if existing and not overwrite:
        raise ConfigError(f"run directory {run_dir!r} already holds a run; pass --resume to continue it, "
                          "--overwrite to replace it, or choose another --run-dir")
    if overwrite:
        for sub in (paths.checkpoints, paths.snapshots, paths.tensorboard, *also):
            shutil.rmtree(sub, ignore_errors=True)
        for file in (paths.final_model, paths.eval_history):
            if os.path.isfile(file):
                os.remove(file)


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
        "num_actions": (int(model.action_space.n) if hasattr(model.action_space, "n")
                        else int(np.prod(model.action_space.nvec))),
        "num_timesteps": int(model.num_timesteps),
        "seed": config.seed,
    }


def save_model(model, path: str, config: TrainConfig, num_players: int) -> None:
    from agents.ppo import write_checkpoint_metadata

    model.save(path)
    write_checkpoint_metadata(path, checkpoint_metadata(config, num_players, model))


#: the member of an SB3 zip holding the optimizer's state (Adam: two values per weight)
OPTIMIZER_MEMBER = "policy.optimizer.pth"


def save_policy(model, path: str, config: TrainConfig, num_players: int) -> None:
    """A snapshot for the opponent pool: the model's zip without the optimizer's state (``copy_policy``). Loads
    as an agent (``PPOAgent``)."""
    from agents.ppo import write_checkpoint_metadata

    full = io.BytesIO()
    model.save(full)
    full.seek(0)
    copy_policy(full, path)
    write_checkpoint_metadata(path, checkpoint_metadata(config, num_players, model))


def copy_policy(source, path: str) -> None:
    """Write the SB3 zip ``source`` (a path or a file object) to ``path`` without the optimizer's state, which
    only resuming training needs (checkpoints keep it): about a third of the size. Every other member, the
    ``tabletop_gym.json`` metadata among them, is copied."""
    from agents.ppo import copy_zip_without

    with zipfile.ZipFile(source) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        copy_zip_without(src, dst, OPTIMIZER_MEMBER)


# -- how a run was made ------------------------------------------------------------------------------
def code_version(directory: str | None = None) -> str | None:
    """The git commit of the code in ``directory`` (default: this repository), with ``+local changes`` when
    tracked files differ from it; None outside a git checkout."""
    directory = directory or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True,
                                check=True, timeout=30).stdout.strip()
        changes = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=directory,
                                 capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+local changes" if changes else "") if commit else None


def record_session(run_dir: str, session: dict[str, Any], resume: bool) -> None:
    """Add one ``train.py`` session (its command, config file, code version, seconds, steps) to the run's
    ``training.json``; a new run starts the list afresh. ``scripts/export_model.py`` reads it (the model's
    sidecar), since a resumed run's wall time is the sum of its sessions."""
    path = RunPaths(run_dir).training_log
    sessions = read_sessions(run_dir) if resume else []
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"sessions": sessions + [session]}, handle, indent=2)


def read_sessions(run_dir: str) -> list[dict[str, Any]]:
    """The sessions ``record_session`` wrote, ``[]`` for a run without (or with an unreadable) ``training.json``."""
    try:
        with open(RunPaths(run_dir).training_log, encoding="utf-8") as handle:
            return list(json.load(handle).get("sessions", []))
    except (OSError, ValueError, AttributeError):
        return []
