"""``RLlibAgent``: plays from a policy trained by ``train.py --backend rllib`` (agents/training/rllib_backend.py).

An RLlib model directory (the run's ``final_model/``, a checkpoint ``checkpoints/step_N/`` or a pool snapshot
``snapshots/snapshot_N/``) holds ``policy.npz``, the actor network's layers as numpy arrays, and
``tabletop_gym.json``, the same metadata as an SB3 checkpoint plus ``"backend": "rllib"``. Playing needs
neither Ray nor torch: the actor (encoder MLP, then the policy head) runs in numpy, like ``PPOAgent``'s fast path,
so ``evaluate.py`` plays RLlib models beside SB3 checkpoints in one tournament wherever the project is installed.
"""
from __future__ import annotations

import json
import os
import threading
from typing import Any

import numpy as np

from .ppo import METADATA_MEMBER, CheckpointError, PPOAgent

POLICY_FILE = "policy.npz"


def is_rllib_model(path: str | os.PathLike) -> bool:
    """True for a directory holding an RLlib-trained policy (``policy.npz``)."""
    return os.path.isfile(os.path.join(os.fspath(path), POLICY_FILE))


def read_rllib_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``tabletop_gym.json`` of an RLlib model directory; CheckpointError if it is missing or unreadable."""
    file = os.path.join(os.fspath(path), METADATA_MEMBER)
    try:
        with open(file, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"RLlib model {os.fspath(path)!r} has no readable {METADATA_MEMBER}: {exc}") from exc


def save_rllib_model(path: str, layers: list[tuple[np.ndarray, np.ndarray, str]], metadata: dict[str, Any]) -> None:
    """Write ``policy.npz`` and ``tabletop_gym.json`` into the directory ``path``."""
    os.makedirs(path, exist_ok=True)
    arrays = {}
    for index, (weight, bias, activation) in enumerate(layers):
        arrays[f"w{index}"] = weight
        arrays[f"b{index}"] = bias
        arrays[f"a{index}"] = np.array(activation)
    np.savez(os.path.join(path, POLICY_FILE), **arrays)
    with open(os.path.join(path, METADATA_MEMBER), "w", encoding="utf-8") as handle:
        json.dump({"format": 1, **metadata}, handle, indent=2, sort_keys=True, default=str)


class _NumpyPolicy:
    """What ``PPOAgent`` reads from its loaded policy, for numpy layers: sizes and layers, no torch policy."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray, str]], metadata: dict[str, Any]):
        self.policy = None
        self.metadata = metadata
        self.layers = layers
        self.observation_size = int(layers[0][0].shape[0])
        self.num_actions = int(layers[-1][0].shape[1])
        self.nvec = (self.num_actions,)


# Pool snapshots reach the env runners as arrays (Ray actors may run on machines without the run directory):
# they are registered here under their path and loaded from disk only when absent.
_REGISTERED: dict[str, _NumpyPolicy] = {}
_LOCK = threading.Lock()


def register_policy(path: str, layers: list[tuple[np.ndarray, np.ndarray, str]], metadata: dict[str, Any]) -> None:
    with _LOCK:
        _REGISTERED[os.fspath(path)] = _NumpyPolicy(layers, metadata)


def _load(path: str) -> _NumpyPolicy:
    with _LOCK:
        if path in _REGISTERED:
            return _REGISTERED[path]
    if not is_rllib_model(path):
        raise CheckpointError(f"{path!r} is not an RLlib model directory (no {POLICY_FILE})")
    metadata = read_rllib_metadata(path)
    try:
        with np.load(os.path.join(path, POLICY_FILE)) as arrays:
            count = len([k for k in arrays.files if k.startswith("w")])
            layers = [(arrays[f"w{i}"].astype(np.float32), arrays[f"b{i}"].astype(np.float32), str(arrays[f"a{i}"]))
                      for i in range(count)]
    except (OSError, ValueError, KeyError) as exc:
        raise CheckpointError(f"RLlib model {path!r}: {POLICY_FILE} is corrupt: {exc}") from exc
    if not layers:
        raise CheckpointError(f"RLlib model {path!r}: {POLICY_FILE} holds no layers")
    loaded = _NumpyPolicy(layers, metadata)
    with _LOCK:
        _REGISTERED[path] = loaded
    return loaded


class RLlibAgent(PPOAgent):
    """Acts with an RLlib-trained PPO actor: argmax of the masked logits, or a sample if stochastic.

    ``RLlibAgent(path, game=..., num_players=...)`` checks that the model fits that game, as ``PPOAgent`` does.
    """

    name = "rllib"
    _read = staticmethod(_load)  # a model directory, or a snapshot the trainer registered

    @staticmethod
    def _label(path: str) -> str:
        return os.path.basename(os.path.normpath(path))

    @classmethod
    def from_layers(cls, layers: list[tuple[np.ndarray, np.ndarray, str]], metadata: dict[str, Any] | None = None,
                    deterministic: bool = True, seed: int | None = None) -> "RLlibAgent":
        """Wrap the learner's current actor (its layers as arrays); nothing is read from disk."""
        agent = cls.__new__(cls)
        agent._hold(_NumpyPolicy(layers, dict(metadata or {})), None, deterministic, np.random.default_rng(seed),
                    "current")
        return agent
