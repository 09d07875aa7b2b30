"""Training configuration: YAML files under ``configs/`` mapped onto nested dataclasses.

Every key is validated: an unknown key raises ConfigError naming it and the valid keys, a value of
the wrong type raises ConfigError naming the key, the expected type and the value. Numbers may be
written ``2e6`` or ``3_000_000`` (YAML reads ``2e6`` as a string; it is accepted where an integer is
expected when it is a whole number). Command-line overrides use the same dotted keys
(``ppo.learning_rate=1e-4``) and go through the same checks.
"""
from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, get_args, get_origin, get_type_hints

from envs.core.errors import ConfigError, TabletopError

POOL_CATEGORIES = ("latest", "past", "random", "heuristic", "mcts")
VEC_ENV_KINDS = ("auto", "subproc", "dummy")
ACTIVATIONS = ("tanh", "relu")
POLICIES = ("mlp", "entities")
BACKENDS = ("sb3", "rllib")


@dataclass
class PPOConfig:
    """MaskablePPO hyperparameters (names as in sb3-contrib)."""

    learning_rate: float = 3e-4
    n_steps: int = 256  # per environment, per update
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "tanh"
    # mlp: an MLP of the observation; entities: actions that name a thing scored from its rows (flat encoding,
    # games whose encoder declares such actions; agents/entity_policy.py)
    policy: str = "mlp"


@dataclass
class PoolConfig:
    """The opponent pool; see docs/training.md for the sampling rule."""

    snapshot_every_updates: int = 10  # K: a snapshot of the learner joins the pool every K updates
    max_snapshots: int = 20  # oldest snapshots leave the pool beyond this
    weights: dict[str, float] = field(
        default_factory=lambda: {"latest": 0.35, "past": 0.25, "random": 0.15, "heuristic": 0.25}
    )
    snapshot_deterministic: bool = False  # snapshots sample from their policy (more varied opponents)
    mcts: str = "mcts:50"  # the search agent of the ``mcts`` category (agents/mcts.py), e.g. mcts:N or mcts:N:guided:d5


@dataclass
class CheckpointConfig:
    every_updates: int = 20
    keep: int = 3  # most recent checkpoints kept on disk (0 keeps all)


@dataclass
class EvalConfig:
    """Periodic games of the current policy (deterministic) against fixed agents, logged to TensorBoard."""

    every_updates: int = 20  # 0 disables
    games: int = 40
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    window: int = 500  # training games in the rolling win rates


@dataclass
class ImitationConfig:
    """A warm start: the new policy first imitates the game's heuristic (agents/training/imitation.py)."""

    decisions: int = 0  # heuristic decisions recorded and imitated before PPO; 0: none, PPO starts from scratch
    epochs: int = 4  # passes over them
    batch_size: int = 256
    learning_rate: float = 1e-3
    rounds: int = 1  # rounds of recording and cloning; from the second on the clone plays a seat (DAgger)
    # 0: every decision weighs alike; b > 0: a decision weighs (decisions taking its action)^-b, so that rare
    # actions (a purchase among thousands of card plays) count more in the cloning loss
    balance: float = 0.0


@dataclass
class RLlibConfig:
    """The RLlib backend (``backend: rllib``, agents/training/rllib_backend.py); docs/training.md sizes it."""

    num_env_runners: int = 1  # Ray actors that play the games; 0 plays them on the driver beside the learner
    # envs each runner steps in one batch; null: n_envs spread evenly over the runners
    envs_per_env_runner: int | None = None
    # null: Ray starts in this process on this machine; 'auto' or 'ray://HOST:PORT' (or HOST:PORT) joins a cluster
    ray_address: str | None = None


@dataclass
class TrainConfig:
    game: str = "catan_card"
    backend: str = "sb3"  # sb3: MaskablePPO (stable-baselines3); rllib: PPO on Ray RLlib (the `ray` extra)
    num_players: int | None = None  # None: the game's default
    env: dict[str, Any] = field(default_factory=dict)  # max_turns and the game's rule options
    # 0: the reward is the game's result; > 0 adds this times each change of the learner's score lead
    # (its score minus the best other's, engine.scores()), a shaping described in docs/training.md
    score_reward: float = 0.0
    seed: int = 0
    total_steps: int = 1_000_000  # learner decisions (SB3 timesteps), summed over environments
    n_envs: int = 16  # environments stepped in lockstep; the policy acts on all of them in one batch
    # subproc: envs spread over worker processes; dummy: all envs in the training process;
    # auto: subproc when the machine has >= 4 cores, else dummy (faster on 2 cores, see docs/training.md)
    vec_env: str = "auto"
    n_processes: int | None = None  # worker processes for subproc; None: available cores - 1
    start_method: str | None = None  # multiprocessing start method for subproc; None: SB3's default
    torch_threads: int = 1
    run_dir: str | None = None  # None: runs/<game>_<num_players>p
    progress_bar: bool = True
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    checkpoint: CheckpointConfig = field(default_factory=CheckpointConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)


# -- building from mappings -------------------------------------------------------------------------
_INT_TEXT = re.compile(r"^[+-]?[0-9_]+(\.0*)?([eE][+]?[0-9]+)?$")


def _coerce(value: Any, hint: Any, key: str) -> Any:
    """Check ``value`` against a type hint, converting whole-number text like '2e6' to int."""
    origin = get_origin(hint)
    args = get_args(hint)
    if origin is None and hint is type(None):
        if value is None:
            return None
        raise ConfigError(f"config key {key!r} must be null, got {value!r}")
    if args and type(None) in args and origin is not list and origin is not dict:  # Optional[X]
        if value is None:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(value, inner[0], key)
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"config key {key!r} expects true/false, got {value!r}")
    if hint is int:
        if isinstance(value, bool):
            raise ConfigError(f"config key {key!r} expects an integer, got {value!r}")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INT_TEXT.match(value.strip()):
            number = float(value.replace("_", ""))
            if number.is_integer():
                return int(number)
        raise ConfigError(f"config key {key!r} expects an integer, got {value!r}")
    if hint is float:
        if isinstance(value, bool):
            raise ConfigError(f"config key {key!r} expects a number, got {value!r}")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.replace("_", ""))
            except ValueError:
                pass
        raise ConfigError(f"config key {key!r} expects a number, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"config key {key!r} expects a string, got {value!r}")
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"config key {key!r} expects a list, got {value!r}")
        return [_coerce(v, args[0], f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"config key {key!r} expects a mapping, got {value!r}")
        if args[1] is Any:
            return dict(value)
        return {str(k): _coerce(v, args[1], f"{key}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, key)
    raise ConfigError(f"config key {key!r}: unsupported type {hint!r}")


def _build(cls: type, values: Any, prefix: str = ""):
    where = prefix or "the config"
    if values is None:
        values = {}
    if not isinstance(values, Mapping):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {values!r}")
    hints = get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(str(k) for k in values if k not in names)
    if unknown:
        full = [f"{prefix}.{u}" if prefix else u for u in unknown]
        raise ConfigError(f"unknown config key(s) {full} in {where}; valid keys are {names}")
    kwargs = {}
    for name in names:
        if name in values:
            key = f"{prefix}.{name}" if prefix else name
            kwargs[name] = _coerce(values[name], hints[name], key)
    return cls(**kwargs)


def _check_values(config: TrainConfig) -> None:
    def positive(key: str, value) -> None:
        if value is not None and value <= 0:
            raise ConfigError(f"config key {key!r} must be positive, got {value!r}")

    def non_negative(key: str, value) -> None:
        if value < 0:
            raise ConfigError(f"config key {key!r} must be >= 0, got {value!r}")

    positive("total_steps", config.total_steps)
    positive("n_envs", config.n_envs)
    positive("n_processes", config.n_processes)
    positive("torch_threads", config.torch_threads)
    non_negative("score_reward", config.score_reward)
    non_negative("imitation.decisions", config.imitation.decisions)
    non_negative("imitation.balance", config.imitation.balance)
    for key in ("epochs", "batch_size", "learning_rate", "rounds"):
        positive(f"imitation.{key}", getattr(config.imitation, key))
    if config.backend not in BACKENDS:
        raise ConfigError(f"config key 'backend' must be one of {list(BACKENDS)}, got {config.backend!r}")
    non_negative("rllib.num_env_runners", config.rllib.num_env_runners)
    positive("rllib.envs_per_env_runner", config.rllib.envs_per_env_runner)
    if config.vec_env not in VEC_ENV_KINDS:
        raise ConfigError(f"config key 'vec_env' must be one of {list(VEC_ENV_KINDS)}, got {config.vec_env!r}")
    if config.start_method is not None:
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        if config.start_method not in methods:
            raise ConfigError(f"config key 'start_method' must be one of {methods} or null, got {config.start_method!r}")
    ppo = config.ppo
    for key in ("learning_rate", "n_steps", "batch_size", "n_epochs", "clip_range", "max_grad_norm", "target_kl"):
        positive(f"ppo.{key}", getattr(ppo, key))
    for key in ("ent_coef", "vf_coef"):
        non_negative(f"ppo.{key}", getattr(ppo, key))
    for key in ("gamma", "gae_lambda"):
        value = getattr(ppo, key)
        if not 0.0 <= value <= 1.0:
            raise ConfigError(f"config key 'ppo.{key}' must be in [0, 1], got {value!r}")
    if not ppo.net_arch or any(width <= 0 for width in ppo.net_arch):
        raise ConfigError(f"config key 'ppo.net_arch' must be a non-empty list of positive widths, got {ppo.net_arch!r}")
    if ppo.activation not in ACTIVATIONS:
        raise ConfigError(f"config key 'ppo.activation' must be one of {list(ACTIVATIONS)}, got {ppo.activation!r}")
    if ppo.policy not in POLICIES:
        raise ConfigError(f"config key 'ppo.policy' must be one of {list(POLICIES)}, got {ppo.policy!r}")
    pool = config.pool
    positive("pool.snapshot_every_updates", pool.snapshot_every_updates)
    positive("pool.max_snapshots", pool.max_snapshots)
    unknown = sorted(set(pool.weights) - set(POOL_CATEGORIES))
    if unknown:
        raise ConfigError(
            f"unknown opponent category {unknown} in 'pool.weights'; valid categories are {list(POOL_CATEGORIES)}"
        )
    from agents import parse_mcts

    try:
        search = parse_mcts(pool.mcts)
    except ValueError as error:
        raise ConfigError(f"'pool.mcts': {error}") from None
    if search is None:
        raise ConfigError(f"'pool.mcts' must name a search agent (mcts[:N][:heuristic|:guided][:dD]), "
                          f"got {pool.mcts!r}")
    if pool.weights.get("mcts", 0) > 0 and config.env.get("action_encoding", "flat") != "flat":
        raise ConfigError("the pool's 'mcts' category searches in the flat encoding only; give it weight 0 or "
                          "train in env.action_encoding: flat")
    for category, weight in pool.weights.items():
        non_negative(f"pool.weights.{category}", weight)
    if sum(pool.weights.values()) <= 0:
        raise ConfigError("'pool.weights' must give at least one category a positive weight")
    positive("checkpoint.every_updates", config.checkpoint.every_updates)
    non_negative("checkpoint.keep", config.checkpoint.keep)
    non_negative("eval.every_updates", config.eval.every_updates)
    positive("eval.games", config.eval.games)
    positive("eval.window", config.eval.window)


def check_game(config: TrainConfig) -> None:
    """Check the game, player count and rule options against the registry (builds the env once)."""
    import envs

    spec = envs.spec(config.game)  # ConfigError naming the registered games if unknown
    if config.num_players is not None and config.num_players not in spec.player_counts:
        raise ConfigError(
            f"{config.game} does not support num_players={config.num_players}; supported: {list(spec.player_counts)}"
        )
    env = envs.make(config.game, num_players=config.num_players, **config.env)  # ConfigError on a bad rule option
    if config.ppo.policy == "entities":
        if config.env.get("action_encoding", "flat") != "flat" or config.backend != "sb3":
            raise ConfigError("config key 'ppo.policy': the entity policy scores flat actions, with the sb3 backend; "
                              f"this run has action_encoding {config.env.get('action_encoding')!r} and backend "
                              f"{config.backend!r}")
        if not env.encoder.action_entities():
            raise ConfigError(f"config key 'ppo.policy': {config.game}'s observation declares no actions that "
                              "name things (ObservationEncoder.action_entities); use 'mlp'")
    check_eval_opponents(config, config.num_players or spec.default_players)
    from agents.training.imitation import check_imitation

    check_imitation(config)


def check_eval_opponents(config: TrainConfig, num_players: int) -> None:
    """Every ``eval.opponents`` entry names an agent, and ``pretrained`` has a model that fits the game: refused
    before training rather than at the first evaluation."""
    from agents.training.tournament import AgentSpec

    for name in config.eval.opponents:
        try:
            spec = AgentSpec.parse(name)
            if spec.kind == "pretrained":
                spec.build(config.game, num_players, config.env)
        except (ValueError, TabletopError) as error:
            raise ConfigError(f"'eval.opponents': {error}") from None


def from_dict(values: Mapping[str, Any] | None) -> TrainConfig:
    config = _build(TrainConfig, values)
    _check_values(config)
    return config


def to_dict(config: TrainConfig) -> dict[str, Any]:
    return dataclasses.asdict(config)


def apply_overrides(values: dict[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Set dotted keys (``ppo.learning_rate``) in a nested mapping; keys are validated later by ``from_dict``."""
    result = _deep_copy(values)
    for dotted, value in overrides.items():
        parts = dotted.split(".")
        node = result
        for i, part in enumerate(parts[:-1]):
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            elif not isinstance(child, dict):
                raise ConfigError(f"cannot set {dotted!r}: {'.'.join(parts[: i + 1])!r} is not a mapping")
            node = child
        node[parts[-1]] = value
    return result


def parse_assignment(text: str) -> tuple[str, Any]:
    """``"ppo.learning_rate=1e-4"`` -> ``("ppo.learning_rate", 0.0001)`` (the value is read as YAML)."""
    import yaml

    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key=value, e.g. ppo.learning_rate=1e-4")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key:
        raise ConfigError(f"override {text!r} has an empty key")
    return key, yaml.safe_load(raw) if raw.strip() else None


def load_config(path: str | os.PathLike | None = None, overrides: Mapping[str, Any] | None = None) -> TrainConfig:
    """Read a YAML config (or start from the defaults when ``path`` is None), apply overrides, validate."""
    values: dict[str, Any] = {}
    if path is not None:
        values = read_yaml(path)
    return from_dict(apply_overrides(values, overrides or {}))


def read_yaml(path: str | os.PathLike) -> dict[str, Any]:
    import yaml

    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ConfigError(f"config file {path!r} does not exist")
    with open(path, encoding="utf-8") as handle:
        try:
            values = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {path!r} is not valid YAML: {exc}") from exc
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise ConfigError(f"config file {path!r} must hold a mapping of keys to values")
    return values


def save_config(config: TrainConfig, path: str | os.PathLike) -> None:
    import yaml

    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(to_dict(config), handle, sort_keys=False)


def default_config_path(game: str, configs_dir: str | os.PathLike = "configs") -> str | None:
    """``configs/<game>.yaml`` if it exists."""
    path = os.path.join(configs_dir, f"{game}.yaml")
    return path if os.path.isfile(path) else None


def _deep_copy(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, Mapping) else v for k, v in values.items()}
