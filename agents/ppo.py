"""``PPOAgent``: plays from a MaskablePPO checkpoint written by ``train.py``.

A checkpoint is SB3's ``.zip`` plus one extra member, ``tabletop_gym.json``, naming the game, player
count, observation size and action count it was trained for (SB3 ignores the extra member, so the
file still loads with ``MaskablePPO.load``). A plain SB3 checkpoint without that member is accepted
too; then only the observation size and action count can be checked.

Inference runs the actor network in numpy when the policy is the usual flatten + MLP one: a single
observation through a small MLP is several times faster in numpy than through torch, and opponents
in self-play make one such call per move.
"""
from __future__ import annotations

import json
import os
import threading
import zipfile
from typing import Any, Callable

import numpy as np

from envs.core.errors import TabletopError

from .base import Agent

METADATA_MEMBER = "tabletop_gym.json"
METADATA_FORMAT = 1


class CheckpointError(TabletopError, ValueError):
    """A checkpoint file that cannot be read, or that was trained for another game or shape."""


# -- metadata ---------------------------------------------------------------------------------------
def copy_zip_without(src: zipfile.ZipFile, dst: zipfile.ZipFile, member: str) -> None:
    """Copy every member of ``src`` but ``member`` into ``dst`` (zipfile cannot remove a member in place)."""
    for item in src.infolist():
        if item.filename != member:
            dst.writestr(item, src.read(item.filename))


#: the critic's parameters in an SB3 actor-critic policy: acting never reads them, so a pretrained model is
#: shipped without them (``drop_critic``), about half the size with a large observation
CRITIC_PREFIXES = ("mlp_extractor.value_net.", "value_net.")
POLICY_MEMBER = "policy.pth"


def drop_critic(path: str | os.PathLike) -> None:
    """Rewrite the SB3 zip ``path`` without its critic's parameters (``CRITIC_PREFIXES``). ``PPOAgent`` loads such a
    policy; SB3's own ``load`` does not (its critic would be missing)."""
    rewrite_policy_state(path, lambda state: {name: value for name, value in state.items()
                                              if not name.startswith(CRITIC_PREFIXES)})


def rewrite_policy_state(path: str | os.PathLike, change: Callable[[dict], dict]) -> None:
    """Replace the policy's parameters (``POLICY_MEMBER``) of the SB3 zip ``path`` by ``change(parameters)``."""
    import io

    import torch

    path = os.fspath(path)
    with zipfile.ZipFile(path) as archive:
        members = {item.filename: (item, archive.read(item.filename)) for item in archive.infolist()}
    state = torch.load(io.BytesIO(members[POLICY_MEMBER][1]), map_location="cpu", weights_only=True)
    buffer = io.BytesIO()
    torch.save(change(state), buffer)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, (item, data) in members.items():
            archive.writestr(item, buffer.getvalue() if name == POLICY_MEMBER else data)


def write_checkpoint_metadata(path: str | os.PathLike, metadata: dict[str, Any]) -> None:
    """Add (or replace) the ``tabletop_gym.json`` member of an SB3 checkpoint zip."""
    path = os.fspath(path)
    payload = json.dumps({"format": METADATA_FORMAT, **metadata}, indent=2, sort_keys=True, default=str)
    with zipfile.ZipFile(path, "r") as archive:
        has_member = METADATA_MEMBER in archive.namelist()
    if has_member:  # zipfile cannot replace a member in place: rewrite the archive without it
        tmp = path + ".tmp"
        with zipfile.ZipFile(path, "r") as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
            copy_zip_without(src, dst, METADATA_MEMBER)
            dst.writestr(METADATA_MEMBER, payload)
        os.replace(tmp, path)
    else:
        with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(METADATA_MEMBER, payload)


def read_checkpoint_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``tabletop_gym.json`` member, ``{}`` for a plain SB3 checkpoint; CheckpointError if unreadable."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise CheckpointError(f"checkpoint {path!r} does not exist")
    try:
        with zipfile.ZipFile(path, "r") as archive:
            if METADATA_MEMBER not in archive.namelist():
                return {}
            return json.loads(archive.read(METADATA_MEMBER).decode())
    except (zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, OSError) as exc:
        raise CheckpointError(f"checkpoint {path!r} is corrupt or not a MaskablePPO .zip: {exc}") from exc


# -- loading ----------------------------------------------------------------------------------------
class _LoadedPolicy:
    """What inference needs from a checkpoint: the torch policy and, when possible, numpy layers."""

    def __init__(self, policy, metadata: dict[str, Any]):
        self.policy = policy
        self.metadata = metadata
        self.observation_size = int(np.prod(policy.observation_space.shape))
        space = policy.action_space
        #: the sizes of the action's parts: one for a Discrete policy, one per part for MultiDiscrete
        self.nvec = (int(space.n),) if hasattr(space, "n") else tuple(int(v) for v in space.nvec)
        self.num_actions = int(space.n) if hasattr(space, "n") else int(np.prod(self.nvec))
        self.layers = _numpy_actor_layers(policy)


_CACHE: dict[tuple[str, float], _LoadedPolicy] = {}
_CACHE_LOCK = threading.Lock()


def _load_policy(path: str) -> _LoadedPolicy:
    """Load (once per file version and process) the policy of a checkpoint zip."""
    if not os.path.isfile(path):
        raise CheckpointError(f"checkpoint {path!r} does not exist")
    key = (os.path.abspath(path), os.path.getmtime(path))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
    metadata = read_checkpoint_metadata(path)
    from gymnasium import spaces
    from stable_baselines3.common.save_util import load_from_zip_file

    import torch

    try:
        # Not MaskablePPO.load: that would reseed the process-wide RNGs and build an optimizer.
        data, params, _ = load_from_zip_file(path, device="cpu", print_system_info=False)
        if data is None or "policy" not in params:
            raise ValueError("no 'data' or policy parameters in the archive")
        obs_space, act_space = data["observation_space"], data["action_space"]
        if not isinstance(act_space, (spaces.Discrete, spaces.MultiDiscrete)) or not isinstance(obs_space, spaces.Box):
            raise ValueError(f"expected Box observations and Discrete or MultiDiscrete actions, got {obs_space} / "
                             f"{act_space}")
        # Building a policy draws its initial weights from torch's global generator; loading a
        # snapshot mid-training must not shift the trainer's random stream (exact resume).
        with torch.random.fork_rng(devices=[]):
            policy = data["policy_class"](obs_space, act_space, lambda _: 0.0, **data.get("policy_kwargs", {}))
        # strict but for the critic, which a pretrained model leaves out (drop_critic): acting does not use it
        missing, unexpected = policy.load_state_dict(params["policy"], strict=False)
        if unexpected or any(not name.startswith(CRITIC_PREFIXES) for name in missing):
            raise ValueError(f"the policy's parameters do not match: missing {missing}, unexpected {unexpected}")
    except CheckpointError:
        raise
    except Exception as exc:  # SB3 raises ValueError, KeyError, pickle and torch errors on a bad file
        raise CheckpointError(f"checkpoint {path!r} is corrupt or not a MaskablePPO .zip: {exc}") from exc
    policy.set_training_mode(False)
    loaded = _LoadedPolicy(policy, metadata)
    with _CACHE_LOCK:
        _CACHE[key] = loaded
    return loaded


def _numpy_actor_layers(policy) -> list[tuple[np.ndarray, np.ndarray, str]] | None:
    """The actor as ``[(W, b, activation), ...]`` if it is flatten + Linear/Tanh/ReLU, else None."""
    import torch.nn as nn
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.torch_layers import FlattenExtractor

    extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
    if (not isinstance(extractor, FlattenExtractor) or is_image_space(policy.observation_space)
            or not hasattr(policy.mlp_extractor, "policy_net")):  # e.g. the pointer policy: torch does the work
        return None
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    layers: list[tuple[np.ndarray, np.ndarray, str]] = []
    for module in modules:
        if isinstance(module, nn.Linear):
            weight = module.weight.detach().cpu().numpy().T.astype(np.float32)
            bias = module.bias.detach().cpu().numpy().astype(np.float32)
            layers.append((weight, bias, "linear"))
        elif isinstance(module, (nn.Tanh, nn.ReLU)) and layers and layers[-1][2] == "linear":
            weight, bias, _ = layers[-1]
            layers[-1] = (weight, bias, "tanh" if isinstance(module, nn.Tanh) else "relu")
        else:
            return None
    return layers


def _numpy_logits(layers, observation: np.ndarray) -> np.ndarray:
    x = observation
    for weight, bias, activation in layers:
        x = x @ weight + bias
        if activation == "tanh":
            x = np.tanh(x)
        elif activation == "relu":
            x = np.maximum(x, 0.0)
    return x


# -- the agent --------------------------------------------------------------------------------------
class PPOAgent(Agent):
    """Acts with a trained MaskablePPO policy: argmax of the masked logits, or a sample if stochastic.

    ``PPOAgent(path, game="catan_card", num_players=2)`` also checks that the checkpoint fits that
    game's observation size and action count (building the env once), raising CheckpointError if not.
    """

    name = "ppo"

    def __init__(
        self,
        path: str | os.PathLike,
        game: str | None = None,
        num_players: int | None = None,
        env_kwargs: dict | None = None,
        deterministic: bool = True,
        seed: int | None = None,
    ):
        path = os.fspath(path)
        self._hold(type(self)._read(path), path, deterministic, np.random.default_rng(seed), self._label(path))
        if game is not None:
            import envs

            env = envs.make(game, num_players=num_players, **{**(env_kwargs or {}), "action_encoding": self.encoding})
            spaces_ = env.observation_space(env.possible_agents[0]).spaces
            size = sum(int(np.prod(space.shape)) for name, space in spaces_.items() if name != "action_mask")
            action_space = env.action_space(env.possible_agents[0])
            actions = int(action_space.n) if hasattr(action_space, "n") else int(np.prod(action_space.nvec))
            self.check_compatible(game, size, actions)

    @classmethod
    def from_policy(cls, policy, deterministic: bool = True, seed: int | None = None,
                    encoding: str = "flat") -> "PPOAgent":
        """Wrap a live (training) policy; its weights are copied now, so later updates do not leak in."""
        agent = cls.__new__(cls)
        agent._hold(_LoadedPolicy(policy, {}), None, deterministic, np.random.default_rng(seed), "current", encoding)
        return agent

    #: how a file of this agent's kind is read (once per file and process); a subclass reads its own kind
    _read = staticmethod(_load_policy)

    @staticmethod
    def _label(path: str) -> str:
        return os.path.splitext(os.path.basename(path))[0]

    def _hold(self, loaded, path: str | None, deterministic: bool, rng: np.random.Generator, name: str,
              encoding: str | None = None) -> None:
        """Take ``loaded`` as this agent's policy; the encoding is the one it was trained in unless given."""
        self.path, self._loaded, self.metadata = path, loaded, loaded.metadata
        self.deterministic, self._rng, self.name = deterministic, rng, name
        self.encoding = encoding or (self.metadata.get("env_kwargs") or {}).get("action_encoding", "flat")

    @property
    def observation_size(self) -> int:
        return self._loaded.observation_size

    @property
    def num_actions(self) -> int:
        return self._loaded.num_actions

    def check_compatible(self, game: str, observation_size: int, num_actions: int) -> None:
        trained_on = self.metadata.get("game")
        if trained_on is not None and trained_on != game:
            raise CheckpointError(
                f"checkpoint {self.path!r} was trained on game {trained_on!r}, not {game!r}"
            )
        if observation_size != self.observation_size:
            raise CheckpointError(
                f"checkpoint {self.path!r} expects observations of size {self.observation_size} but "
                f"{game!r} gives {observation_size} (trained with num_players="
                f"{self.metadata.get('num_players', '?')}, rule options {self.metadata.get('env_kwargs', {})})"
            )
        if num_actions != self.num_actions:
            raise CheckpointError(
                f"checkpoint {self.path!r} has {self.num_actions} actions but {game!r} has {num_actions}"
            )

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits for one observation."""
        obs = np.asarray(observation, dtype=np.float32).reshape(-1)
        layers = self._loaded.layers
        if layers is not None:
            return _numpy_logits(layers, obs)
        import torch

        policy = self._loaded.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs.reshape(policy.observation_space.shape))
            return policy.get_distribution(tensor).distribution.logits[0].cpu().numpy()

    def act(self, observation, action_mask):
        nvec = self._loaded.nvec
        if len(nvec) > 1:  # MultiDiscrete: each part from its own logits and mask
            logits = self.logits(observation)
            bounds = np.cumsum((0,) + nvec)
            return np.array([self._pick(logits[a:b], action_mask[a:b]) for a, b in zip(bounds, bounds[1:])])
        return self._pick(None, action_mask, observation)

    def _pick(self, logits, action_mask, observation=None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("PPOAgent.act: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        legal_logits = (self.logits(observation) if logits is None else logits)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(legal_logits))])
        weights = np.exp(legal_logits - legal_logits.max())
        cumulative = np.cumsum(weights)
        pick = int(np.searchsorted(cumulative, self._rng.random() * cumulative[-1], side="right"))
        return int(legal[min(pick, legal.size - 1)])

    # Pickled by path (for saving self-play game states): the weights come back from the file.
    def __getstate__(self):
        if self.path is None:
            raise TypeError("a PPOAgent wrapping a live policy cannot be pickled; save a checkpoint first")
        return {"path": self.path, "deterministic": self.deterministic, "rng": self._rng, "name": self.name}

    def __setstate__(self, state):
        self._hold(type(self)._read(state["path"]), state["path"], state["deterministic"], state["rng"], state["name"])
