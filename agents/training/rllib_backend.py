"""``train_rllib(config)``: self-play PPO on Ray RLlib (``train.py --backend rllib``), new or resumed.

RLlib's new API stack: env runners (Ray actors, ``rllib.num_env_runners`` of them) play the games, the learner
runs on the driver. Each env is a ``SelfPlayEnv`` (the SB3 path's env) under ``MaskedSelfPlayEnv``, which hands
RLlib a ``Dict`` observation of ``observations`` and ``action_mask``; ``MaskedPPOTorchRLModule`` masks the
logits with it, as RLlib's action-masking example (``ActionMaskingTorchRLModule``) does. The opponents are the
SB3 path's: the same ``OpponentPool`` (snapshots of the learner every ``pool.snapshot_every_updates`` updates,
random, heuristic) drawn by the same documented rule, playing inside the env, so RLlib sees one agent, the
learner, and the two backends train the same way. Snapshots reach the env runners as arrays (no shared disk
needed on a cluster). See docs/training.md.
"""
from __future__ import annotations

import functools
import itertools
import math
import os
import pickle
import shutil
import socket
import sys
import time
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces

import agents as agents_pkg
from agents.rllib_agent import RLlibAgent, save_rllib_model
from envs.core.errors import ConfigError

from .checkpoints import STATE_FILE, RunPaths, check_same_backend, resolve, start_new_run
from .config import TrainConfig, check_game, save_config, to_dict

try:
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as exc:  # the `ray` extra is not installed
    raise ConfigError(
        "the rllib backend needs Ray RLlib: pip install -c constraints.txt -e '.[ray]' "
        f"(docs/training.md) ({exc})"
    ) from exc

import torch

#: the run directory's final model for this backend: a directory (agents/rllib_agent.py), not SB3's .zip
FINAL_MODEL_DIR = "final_model"
MODULE_ID = "default_policy"
# beyond this many actions the policy head (one logit each) and the mask sent with every observation are too large
# to train: catan_card's composite encoding has about 3 million
MAX_ACTIONS = 100_000
# config keys a resumed run may change: those of the SB3 path, and where and how wide the env runners play
RESUMABLE_CHANGES = ("total_steps", "progress_bar", "vec_env", "n_processes", "start_method", "rllib")


# -- the env and the module -------------------------------------------------------------------------
class MaskedSelfPlayEnv(gymnasium.Env):
    """A ``SelfPlayEnv`` whose observation is ``{"observations": vector, "action_mask": 0/1 floats}``.

    ``env_config`` holds ``game``, ``num_players``, ``env_kwargs``, ``pool_kwargs``, ``seed`` and
    ``torch_threads``; RLlib passes it as an ``EnvContext`` whose ``worker_index`` (0 on the driver) with the
    env's number within its runner gives each env its own seed and first learner seat.
    """

    metadata = {"render_modes": []}
    _built = itertools.count()

    def __init__(self, env_config: dict):
        import envs
        from .pool import OpponentPool
        from .selfplay_env import SelfPlayEnv

        torch.set_num_threads(int(env_config.get("torch_threads", 1)))
        game, num_players = env_config["game"], env_config["num_players"]
        rank = 1000 * int(getattr(env_config, "worker_index", 0)) + next(self._built)
        pool = OpponentPool(game, num_players, **env_config["pool_kwargs"])
        env_fn = functools.partial(envs.make, game, num_players=num_players, **env_config["env_kwargs"])
        self.selfplay = SelfPlayEnv(env_fn, pool, seed=int(env_config["seed"]) + 1000 * rank, first_seat=rank,
                                    score_reward=float(env_config.get("score_reward", 0.0)))
        self.action_space = self.selfplay.action_space
        self.observation_space = spaces.Dict({
            "observations": self.selfplay.observation_space,
            "action_mask": spaces.Box(0.0, 1.0, (int(self.action_space.n),), np.float32),
        })

    def _observe(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        return {"observations": vector, "action_mask": self.selfplay.action_masks().astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        vector, info = self.selfplay.reset(seed=seed)
        return self._observe(vector), info

    def step(self, action):
        vector, reward, terminated, truncated, info = self.selfplay.step(int(action))
        return self._observe(vector), reward, terminated, truncated, info


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module on ``observations``, its logits masked by ``action_mask`` (illegal: -inf).

    The same masking as RLlib's ``ActionMaskingTorchRLModule`` example, on the non-deprecated base class.
    """

    def __init__(self, *, observation_space=None, **kwargs):
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch):
        observations = batch[Columns.OBS]
        batch = dict(batch)
        batch[Columns.OBS] = observations["observations"]
        return observations["action_mask"], batch

    @staticmethod
    def _masked(outs, action_mask):
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(action_mask), min=FLOAT_MIN)
        return outs

    def _forward_inference(self, batch, **kwargs):
        action_mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), action_mask)

    def _forward_exploration(self, batch, **kwargs):
        action_mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), action_mask)

    def _forward_train(self, batch, **kwargs):
        action_mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), action_mask)

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


class SelfPlayMetrics(RLlibCallback):
    """Rolling win rates of the training games, by the category of opponent drawn (``selfplay/...``)."""

    window = 500

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        result = episode.get_infos(-1).get("selfplay")
        if result is not None and metrics_logger is not None:
            metrics_logger.log_value(("selfplay", f"win_rate_vs_{result['category']}"), float(result["win"]),
                                     reduce="mean", window=self.window)
            metrics_logger.log_value(("selfplay", "win_rate"), float(result["win"]), reduce="mean",
                                     window=self.window)


# -- the learner's actor as numpy layers ------------------------------------------------------------
def actor_layers(state: dict[str, Any], activation: str) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """The actor of a ``MaskedPPOTorchRLModule`` state (encoder MLP, then the policy head) as ``(W, b, act)``."""
    def linears(prefix: str) -> list[tuple[np.ndarray, np.ndarray]]:
        indices = sorted({int(k[len(prefix):].split(".")[0]) for k in state if k.startswith(prefix)})
        return [(np.asarray(state[f"{prefix}{i}.weight"], np.float32).T.copy(),
                 np.asarray(state[f"{prefix}{i}.bias"], np.float32).copy()) for i in indices]

    encoder = linears("encoder.actor_encoder.net.mlp.") or linears("encoder.encoder.net.mlp.")
    head = linears("pi.net.mlp.")
    if not encoder or not head:
        raise ValueError(f"unexpected RLModule layout: {sorted(state)}")
    return ([(w, b, activation) for w, b in encoder] + [(w, b, activation) for w, b in head[:-1]]
            + [(head[-1][0], head[-1][1], "linear")])


def _to_numpy(state):
    return {k: v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v) for k, v in state.items()}


# -- Ray ----------------------------------------------------------------------------------------------
def check_address_reachable(address: str, timeout: float = 5.0) -> None:
    """A one-line ConfigError unless something listens at ``address`` (``HOST:PORT`` or ``ray://HOST:PORT``)."""
    if address == "auto":
        return
    target = address[len("ray://"):] if address.startswith("ray://") else address
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--ray-address {address!r}: use 'auto', 'HOST:PORT' or 'ray://HOST:PORT'")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise ConfigError(f"--ray-address {address!r}: no Ray cluster reachable there ({exc})") from exc


def start_ray(config: TrainConfig, log: Callable[[str], None]) -> bool:
    """Start Ray in this process or join the configured cluster; False when Ray was already up."""
    address = config.rllib.ray_address
    env_vars = {k: os.environ[k] for k in ("TABLETOP_GYM_PURE",) if k in os.environ}
    runtime_env = {"env_vars": env_vars} if env_vars else None
    if ray.is_initialized():
        return False
    if address is None:
        # every env runner asks Ray for one CPU: never fewer CPUs than runners, or they would wait forever
        cpus = max(os.cpu_count() or 1, config.rllib.num_env_runners)
        ray.init(num_cpus=cpus, include_dashboard=False, runtime_env=runtime_env, log_to_driver=False,
                 configure_logging=True, logging_level="ERROR")
        log(f"ray: started in this process with {cpus} CPUs")
        return True
    check_address_reachable(address)
    try:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False, logging_level="ERROR")
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"--ray-address {address!r}: cannot join the Ray cluster: "
                          f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from exc
    log(f"ray: joined the cluster at {address}: {ray.cluster_resources().get('CPU', 0):.0f} CPUs, "
        f"{len([n for n in ray.nodes() if n.get('Alive')])} node(s)")
    return True


# -- the run ------------------------------------------------------------------------------------------
def check_supported(config: TrainConfig, num_players: int) -> None:
    """One-line errors for what this backend cannot take."""
    import envs

    env = envs.make(config.game, num_players=num_players, **config.env)
    actions = env.action_space(env.possible_agents[0])
    encoding = config.env.get("action_encoding", "flat")
    if not isinstance(actions, spaces.Discrete) or encoding == "pointer":
        raise ConfigError(
            f"the rllib backend takes action encodings with one Discrete action and a flat observation "
            f"(flat, composite); {encoding!r} is not one of them: train it with backend: sb3")
    if int(actions.n) > MAX_ACTIONS:
        raise ConfigError(
            f"the rllib backend's policy has one logit per action, and {config.game!r} in the {encoding!r} encoding "
            f"has {int(actions.n):,} actions (at most {MAX_ACTIONS:,}): use the flat encoding")
    if config.ppo.target_kl is not None:
        raise ConfigError("ppo.target_kl (SB3's early stop of an update) has no counterpart in RLlib's PPO: "
                          "set it to null for backend: rllib")


def build_algorithm(config: TrainConfig, num_players: int):
    ppo, settings = config.ppo, config.rllib
    runners = settings.num_env_runners
    per_runner = settings.envs_per_env_runner or max(1, math.ceil(config.n_envs / max(runners, 1)))
    total_envs = per_runner * max(runners, 1)
    pool_kwargs = {"weights": dict(config.pool.weights), "max_snapshots": config.pool.max_snapshots,
                   "snapshot_deterministic": config.pool.snapshot_deterministic, "mcts": config.pool.mcts,
                   "snapshots": []}
    env_config = {"game": config.game, "num_players": num_players, "env_kwargs": dict(config.env),
                  "pool_kwargs": pool_kwargs, "seed": config.seed, "torch_threads": config.torch_threads,
                  "score_reward": config.score_reward}
    SelfPlayMetrics.window = config.eval.window
    algo_config = (
        PPOConfig()
        .environment(env=MaskedSelfPlayEnv, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=per_runner,
                     rollout_fragment_length=ppo.n_steps, num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(lr=ppo.learning_rate, gamma=ppo.gamma, lambda_=ppo.gae_lambda, clip_param=ppo.clip_range,
                  entropy_coeff=ppo.ent_coef,
                  vf_loss_coeff=ppo.vf_coef, grad_clip=ppo.max_grad_norm, num_epochs=ppo.n_epochs,
                  minibatch_size=ppo.batch_size, train_batch_size_per_learner=ppo.n_steps * total_envs,
                  use_kl_loss=False)
        .rl_module(rl_module_spec=RLModuleSpec(
            module_class=MaskedPPOTorchRLModule,
            model_config={"fcnet_hiddens": list(ppo.net_arch), "fcnet_activation": ppo.activation,
                          "head_fcnet_hiddens": [], "vf_share_layers": False}))
        .callbacks(SelfPlayMetrics)
        .debugging(seed=config.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=config.eval.window)
    )
    algo = algo_config.build_algo()
    return algo, total_envs


def _metadata(config: TrainConfig, num_players: int, layers, num_timesteps: int) -> dict[str, Any]:
    return {"backend": "rllib", "game": config.game, "num_players": num_players, "env_kwargs": dict(config.env),
            "observation_size": int(layers[0][0].shape[0]), "num_actions": int(layers[-1][0].shape[1]),
            "num_timesteps": int(num_timesteps), "seed": config.seed}


def _push_snapshot(runner, path: str, layers, metadata: dict[str, Any]) -> None:
    """On one env runner: make the snapshot loadable without disk and add it to each env's pool."""
    from agents.rllib_agent import register_policy as register

    register(path, layers, metadata)
    if getattr(runner, "env", None) is None:  # the driver's runner holds no env when the actors play
        return
    for env in runner.env.unwrapped.envs:
        env.unwrapped.selfplay.add_snapshot(path)


def _node_of(_runner) -> str:
    return ray.get_runtime_context().get_node_id()


def _flatten(prefix: str, value, out: dict[str, float]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(f"{prefix}/{key}" if prefix else str(key), item, out)
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        if math.isfinite(float(value)):
            out[prefix] = float(value)


def _sampled_steps(result: dict[str, Any]) -> int:
    return int(result["env_runners"]["num_env_steps_sampled"])


def train_rllib(config: TrainConfig, resume: bool = False, overwrite: bool = False,
                log: Callable[[str], None] = functools.partial(print, file=sys.stderr)):
    """Train (or resume) a self-play PPO run on RLlib described by ``config``; see docs/training.md."""
    import envs
    from tensorboardX import SummaryWriter

    from .trainer import TrainResult, _compare_for_resume

    check_game(config)
    num_players, _, run_dir = resolve(config)
    check_supported(config, num_players)
    paths = RunPaths(run_dir)
    final_model = os.path.join(run_dir, FINAL_MODEL_DIR)
    state = None
    if resume:
        checkpoints = paths.checkpoint_dirs()
        if not checkpoints:
            raise ConfigError(f"--resume: no checkpoint under {paths.checkpoints!r}")
        latest = checkpoints[-1]
        from .config import from_dict, read_yaml

        saved = to_dict(from_dict(read_yaml(paths.config)))
        check_same_backend(saved.get("backend", "sb3"), config.backend, run_dir)
        with open(os.path.join(latest, STATE_FILE), "rb") as handle:
            state = pickle.load(handle)
        differing = [d for d in _compare_for_resume(saved, to_dict(config))
                     if d.split(":")[0] not in RESUMABLE_CHANGES]
        if differing:
            raise ConfigError("--resume: the config differs from the one the run was started with "
                              f"(only {list(RESUMABLE_CHANGES)} may change): " + "; ".join(differing))
        if state.get("engine_state_version") != envs.spec(config.game).state_version:
            log("note: the engine state version changed since the checkpoint; the weights carry on, "
                "games restart anyway on this backend")
        log(f"resuming {run_dir} from {latest} (step {state['num_timesteps']})")
    else:
        start_new_run(paths, run_dir, overwrite, also=(final_model,))
    os.makedirs(run_dir, exist_ok=True)
    save_config(config, paths.config)
    torch.set_num_threads(config.torch_threads)
    if config.game not in agents_pkg.heuristic_games() and config.pool.weights.get("heuristic", 0) > 0:
        log(f"note: {config.game!r} has no heuristic agent; its pool weight is spread over the other categories")

    started_ray = start_ray(config, log)
    try:
        algo, total_envs = build_algorithm(config, num_players)
    except BaseException:
        if started_ray:
            ray.shutdown()
        raise
    writer = SummaryWriter(paths.tensorboard)
    activation = config.ppo.activation
    snapshots: list[str] = []
    latest_eval: dict[str, float] = {}
    num_timesteps, iteration, seconds_before = 0, 0, 0.0
    try:
        def current_layers():
            weights = algo.learner_group.get_weights([MODULE_ID])[MODULE_ID]
            return actor_layers(_to_numpy(weights), activation)

        def push(path: str, layers) -> None:
            metadata = _metadata(config, num_players, layers, num_timesteps)
            algo.env_runner_group.foreach_env_runner(
                functools.partial(_push_snapshot, path=path, layers=layers, metadata=metadata))

        def add_snapshot() -> None:
            layers = current_layers()
            path = os.path.join(paths.snapshots, f"snapshot_{num_timesteps:012d}")
            save_rllib_model(path, layers, _metadata(config, num_players, layers, num_timesteps))
            snapshots.append(path)
            push(path, layers)

        def save_checkpoint() -> None:
            path = os.path.join(paths.checkpoints, f"step_{num_timesteps:012d}")
            algo.save_to_path(os.path.abspath(path))
            layers = current_layers()
            save_rllib_model(path, layers, _metadata(config, num_players, layers, num_timesteps))
            with open(os.path.join(path, STATE_FILE), "wb") as handle:
                pickle.dump({"backend": "rllib", "num_timesteps": num_timesteps, "iteration": iteration,
                             "snapshots": list(snapshots), "latest_eval": dict(latest_eval),
                             "seconds": seconds_before + time.perf_counter() - start,
                             "engine_state_version": envs.spec(config.game).state_version}, handle)
            keep = config.checkpoint.keep
            if keep:
                for old in paths.checkpoint_dirs()[:-keep]:
                    shutil.rmtree(old, ignore_errors=True)

        def evaluate() -> None:
            from .tournament import play_match

            layers = current_layers()
            current = RLlibAgent.from_layers(layers, {"env_kwargs": dict(config.env)})
            for opponent in config.eval.opponents:
                if opponent == "heuristic" and config.game not in agents_pkg.heuristic_games():
                    continue
                result = play_match(config.game, num_players, current, opponent, config.eval.games,
                                    seed=config.seed + 7_919, env_kwargs=config.env)
                latest_eval[result.opponent_name] = result.win_rate
                writer.add_scalar(f"eval/win_rate_vs_{result.opponent_name}", result.win_rate, num_timesteps)
            row = {"step": num_timesteps, **{f"win_rate_vs_{k}": round(v, 4) for k, v in latest_eval.items()}}
            new_file = not os.path.isfile(paths.eval_history)
            with open(paths.eval_history, "a", encoding="utf-8") as handle:
                if new_file:
                    handle.write(",".join(row) + "\n")
                handle.write(",".join(str(v) for v in row.values()) + "\n")

        start = time.perf_counter()
        if state is None:
            # the initial policy is the first snapshot, so that 'latest' can be drawn from the first game
            add_snapshot()
        else:
            algo.restore_from_path(os.path.abspath(paths.checkpoint_dirs()[-1]))
            num_timesteps, iteration = state["num_timesteps"], state["iteration"]
            seconds_before = float(state.get("seconds", 0.0))
            latest_eval = dict(state.get("latest_eval", {}))
            from agents.rllib_agent import _load

            for path in state["snapshots"][-config.pool.max_snapshots:]:
                loaded = _load(path)
                snapshots.append(path)
                push(path, loaded.layers)
        steps_at_start = num_timesteps
        if config.rllib.num_env_runners:
            nodes = algo.env_runner_group.foreach_env_runner(_node_of, local_env_runner=False)
            log(f"rllib: env runners on {len(set(nodes))} node(s): "
                + ", ".join(f"{node[:8]} x{nodes.count(node)}" for node in sorted(set(nodes))))
        log(f"rllib: {config.rllib.num_env_runners} env runner(s), {total_envs} env(s), "
            f"{config.ppo.n_steps * total_envs} steps per update")
        while num_timesteps < config.total_steps:
            tick = time.perf_counter()
            result = algo.train()
            num_timesteps += _sampled_steps(result)
            iteration += 1
            scalars: dict[str, float] = {}
            _flatten("", {k: result[k] for k in ("env_runners", "learners") if k in result}, scalars)
            for key, value in scalars.items():
                writer.add_scalar(key, value, num_timesteps)
            rate = _sampled_steps(result) / max(time.perf_counter() - tick, 1e-9)
            writer.add_scalar("time/env_steps_per_second", rate, num_timesteps)
            selfplay = result.get("env_runners", {}).get("selfplay", {})
            log(f"update {iteration}: {num_timesteps:,} steps, {rate:,.0f} steps/s, "
                + ", ".join(f"{k} {v:.2f}" for k, v in sorted(selfplay.items()) if not math.isnan(v)))
            if iteration % config.pool.snapshot_every_updates == 0:
                add_snapshot()
            if config.eval.every_updates and iteration % config.eval.every_updates == 0:
                evaluate()
            if iteration % config.checkpoint.every_updates == 0 or num_timesteps >= config.total_steps:
                save_checkpoint()
        seconds = time.perf_counter() - start
        layers = current_layers()
        save_rllib_model(final_model, layers, _metadata(config, num_players, layers, num_timesteps))
    finally:
        writer.close()
        algo.stop()
        if started_ray:  # leave a cluster, or stop the Ray this run started, as it was before the run
            ray.shutdown()
    return TrainResult(run_dir=run_dir, final_model=final_model, num_timesteps=num_timesteps - steps_at_start,
                       seconds=seconds, latest_eval=dict(latest_eval))
