"""``train(config)``: a self-play MaskablePPO run, new or resumed.

It runs MaskablePPO on vectorised self-play envs with a ``SelfPlayCallback`` that adds snapshots of
the learner to the opponent pool and writes resumable checkpoints, TensorBoard logs and the final
model. A resume is refused when the config (beyond ``RESUMABLE_CHANGES``), the game, the player
count or the engine state version differs from the checkpoint's (docs/training.md).
"""
from __future__ import annotations

import functools
import os
import pickle
import random
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import agents as agents_pkg
from envs.core.errors import ConfigError

from .callback import SelfPlayCallback
from .checkpoints import MODEL_FILE, STATE_FILE, RunPaths, check_same_backend, resolve, save_model, start_new_run
from .config import TrainConfig, check_game, save_config, to_dict
from .vec_env import make_vec_env

# config keys a resumed run may change without breaking exactness
RESUMABLE_CHANGES = ("total_steps", "progress_bar", "vec_env", "n_processes", "start_method")


@dataclass
class TrainResult:
    run_dir: str
    final_model: str
    num_timesteps: int
    seconds: float
    latest_eval: dict[str, float]
    #: stopped by Ctrl-C: the latest checkpoint holds the run (``--resume`` continues it), no final model
    interrupted: bool = False
    #: wall-clock and CPU seconds of PPO over the whole run, earlier sessions of a resumed run included (the
    #: clock of eval_history.csv); ``seconds`` is this session's, imitation included
    run_seconds: float = 0.0
    run_cpu_seconds: float = 0.0
    #: env steps of the whole run, earlier sessions included (``num_timesteps`` counts this session's)
    run_timesteps: int = 0

    @property
    def steps_per_second(self) -> float:
        return self.num_timesteps / self.seconds if self.seconds > 0 else 0.0


def memory_needed(config: TrainConfig, num_players: int, n_envs: int) -> tuple[int, list[str]]:
    """A lower bound of the bytes a MaskablePPO run of ``config`` holds at once, and its largest parts named: the
    rollout buffer's observations and action masks (float32, ``n_steps`` x ``n_envs`` decisions), the policy's
    action layer (weights, gradients and Adam's two moments) and a minibatch's scores of every action (with their
    probabilities and gradients). The last two grow with the action encoding's number of actions (a composite
    encoding may have millions, docs/encodings.md); the pointer encoding has no action layer but scores each row
    of its table with one shared network (agents/pointer_policy.py), the legal rows only."""
    import envs

    env = envs.make(config.game, num_players=num_players, **config.env)
    first = env.possible_agents[0]
    entries = env.observation_space(first).spaces
    observed = sum(int(np.prod(space.shape)) for name, space in entries.items() if name != "action_mask")
    masks = int(np.prod(entries["action_mask"].shape))
    actions = env.action_space(first)
    decisions, batch = config.ppo.n_steps * n_envs, config.ppo.batch_size
    layers = list(config.ppo.net_arch)  # never empty (config.check)
    parts = [(decisions * observed * 4, f"{decisions:,} observations of {observed:,} floats"),
             (decisions * masks * 4, f"{decisions:,} action masks of {masks:,} floats")]
    if config.env.get("action_encoding") == "pointer":
        rows = int(actions.n)
        parts.append((batch * rows * layers[-1] * 4 * 2, f"the per-row activations of a minibatch of {batch:,} "
                                                          f"tables of {rows:,} rows (all legal), with gradients"))
    else:
        outputs = int(actions.n) if hasattr(actions, "n") else int(np.sum(actions.nvec))
        parts.append((layers[-1] * outputs * 4 * 4, f"an action layer of {layers[-1]:,} x {outputs:,} weights with "
                                                    "their gradients and Adam's moments"))
        parts.append((batch * outputs * 4 * 3, f"the scores of {outputs:,} actions for a minibatch of {batch:,}, "
                                              "with their probabilities and gradients"))
    return sum(size for size, _ in parts), [f"{size / 2**30:.1f} GiB for {what}" for size, what in parts]


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux's MemAvailable), None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class RunTooLarge(ConfigError):
    """A run that cannot fit in this machine's memory (``check_memory``); ``needed``: its lower bound in bytes."""

    def __init__(self, message: str, needed: int):
        super().__init__(message)
        self.needed = needed


def check_memory(config: TrainConfig, num_players: int, n_envs: int, available: int | None = None) -> None:
    """Refuse a run that cannot fit in memory, before it starts, instead of being killed by the system later: its
    lower bound (``memory_needed``) above three quarters of the memory available (torch, the envs and the opponents
    need the rest)."""
    available = available_memory() if available is None else available
    if available is None:
        return
    needed, parts = memory_needed(config, num_players, n_envs)
    if needed > 0.75 * available:
        encoding = config.env.get("action_encoding", "flat")
        raise RunTooLarge(
            f"{config.game} in the {encoding!r} action encoding needs at least {needed / 2**30:.1f} GiB to train "
            f"({'; '.join(parts)}), more than three quarters of the {available / 2**30:.1f} GiB available. Use an "
            "encoding with fewer actions (pointer or factored, docs/encodings.md) or fewer decisions per update "
            "(n_envs, ppo.n_steps)", needed)


def _compare_for_resume(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    differing = []
    for key in sorted(set(saved) | set(current)):
        if key in RESUMABLE_CHANGES:
            continue
        if saved.get(key) != current.get(key):
            differing.append(f"{key}: {saved.get(key)!r} -> {current.get(key)!r}")
    return differing


def _policy(config: TrainConfig, num_players: int) -> tuple[Any, dict[str, Any]]:
    """MaskablePPO's policy and its arguments: an MLP; with ``ppo.policy: entities`` the entity policy
    (agents/entity_policy.py); for the pointer encoding a policy that scores each move of the table from its
    features (agents/pointer_policy.py)."""
    import torch.nn as nn

    import envs

    kwargs = {
        "net_arch": list(config.ppo.net_arch),
        "activation_fn": {"tanh": nn.Tanh, "relu": nn.ReLU}[config.ppo.activation],
    }
    if config.ppo.policy == "entities":  # flat encoding (config.check_game)
        from agents.entity_policy import EntityPolicy

        encoder = envs.make(config.game, num_players=num_players, **config.env).encoder
        return EntityPolicy, {**kwargs, "entities": [(group.first_action, group.features)
                                                     for group in encoder.action_entities()]}
    if config.env.get("action_encoding") != "pointer":
        return "MlpPolicy", kwargs
    from agents.pointer_policy import PointerPolicy

    codec = envs.make(config.game, num_players=num_players, **config.env).codec
    return PointerPolicy, {**kwargs, "rows": codec.num_actions, "parts": list(codec.nvec)}


def imitate_heuristic(model, config: TrainConfig, num_players: int, log: Callable[[str], None]) -> None:
    """The warm start of ``imitation``: record the heuristic's decisions, then train the new policy on them."""
    from .imitation import clone_heuristic, merge, record_heuristic_games, sampling_learner

    settings = config.imitation
    start = time.perf_counter()
    data = None
    for round_ in range(settings.rounds):
        recorded = time.perf_counter()
        # round r's games have their own seeds; from the second round on the clone plays one seat of each (DAgger)
        learner = sampling_learner(model.policy, config.seed * 7_919 + round_) if round_ else None
        more = record_heuristic_games(config.game, num_players, dict(config.env), settings.decisions,
                                      config.seed + 1_000 * round_, config.ppo.gamma, config.score_reward, learner)
        data = more if data is None else merge(data, more)
        played = "the heuristic" if not round_ else "the heuristic, one seat played by the clone,"
        of_rounds = f", round {round_ + 1}/{settings.rounds}" if settings.rounds > 1 else ""
        log(f"imitation: {len(more.actions)} decisions of {played} recorded in {more.games} games "
            f"({time.perf_counter() - recorded:.0f} s){of_rounds}")
        clone_heuristic(model.policy, data, settings.epochs, settings.batch_size, settings.learning_rate,
                        config.ppo.vf_coef, config.seed + round_, log, settings.balance)
    log(f"imitation: done in {time.perf_counter() - start:.0f} s")


@contextmanager
def stop_on_interrupt(callback: SelfPlayCallback, log: Callable[[str], None]):
    """The first Ctrl-C asks the callback to stop after the env step in progress (then a checkpoint is saved);
    a second one aborts at once. Only the main thread can take signals; elsewhere Ctrl-C aborts as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def first(_signum, _frame):
        log("Ctrl-C: stopping after this step and saving a checkpoint (Ctrl-C again aborts without saving)")
        callback.stop_requested = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, first)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


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
    check_memory(config, num_players, n_envs)
    paths = RunPaths(run_dir)
    state = None
    if resume:
        checkpoints = paths.checkpoint_dirs()
        if not checkpoints:
            raise ConfigError(f"--resume: no checkpoint under {paths.checkpoints!r}")
        from .config import from_dict, read_yaml

        saved = from_dict(read_yaml(paths.config))
        check_same_backend(saved.backend, config.backend, run_dir)
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
        start_new_run(paths, run_dir, overwrite)
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
            policy, policy_kwargs = _policy(config, num_players)
            model = MaskablePPO(
                policy, venv, learning_rate=ppo.learning_rate, n_steps=ppo.n_steps,
                batch_size=ppo.batch_size, n_epochs=ppo.n_epochs, gamma=ppo.gamma, gae_lambda=ppo.gae_lambda,
                clip_range=ppo.clip_range, ent_coef=ppo.ent_coef, vf_coef=ppo.vf_coef,
                max_grad_norm=ppo.max_grad_norm, target_kl=ppo.target_kl,
                policy_kwargs=policy_kwargs, seed=config.seed, device="cpu", verbose=0,
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
            if config.imitation.decisions:
                imitate_heuristic(model, config, num_players, log)
            # the initial policy is the first snapshot, so that 'latest' can be drawn from the first game
            callback.init_callback(model)
            callback.add_snapshot()
        if remaining > 0:
            with stop_on_interrupt(callback, log):
                model.learn(remaining, callback=callback, reset_num_timesteps=state is None, log_interval=1)
        seconds = time.perf_counter() - start
        if not callback.stop_requested:
            save_model(model, paths.final_model, config, num_players)
    finally:
        venv.close()
    return TrainResult(
        run_dir=run_dir,
        final_model=paths.final_model,
        num_timesteps=int(model.num_timesteps - steps_at_start),
        seconds=seconds,
        latest_eval=dict(callback.latest_eval),
        interrupted=callback.stop_requested,
        run_seconds=callback.seconds(),
        run_cpu_seconds=callback.cpu_seconds(),
        run_timesteps=int(model.num_timesteps),
    )
