"""Observation encoders: one seat's view of the state as a flat float32 vector.

The layout is a list of named slices, available in code (``encoder.layout``) and in each game's
docs, so that users can read and slice observations without guessing offsets.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Field:
    name: str
    size: int
    description: str = ""


class ObsLayout:
    """Named consecutive slices of an observation vector."""

    def __init__(self, fields: list[Field]):
        self.fields = list(fields)
        self.slices: dict[str, slice] = {}
        offset = 0
        for f in self.fields:
            if f.name in self.slices:
                raise ValueError(f"duplicate observation field {f.name!r}")
            self.slices[f.name] = slice(offset, offset + f.size)
            offset += f.size
        self.size = offset

    def __getitem__(self, name: str) -> slice:
        return self.slices[name]

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Cut an observation into its named parts."""
        return {name: obs[s] for name, s in self.slices.items()}

    def table(self) -> str:
        """Markdown table of the layout, for docs."""
        rows = ["| slice | field | size | meaning |", "|---|---|---|---|"]
        for f in self.fields:
            s = self.slices[f.name]
            rows.append(f"| {s.start}:{s.stop} | `{f.name}` | {f.size} | {f.description} |")
        return "\n".join(rows)


class ObservationEncoder(abc.ABC):
    layout: ObsLayout
    low: float = 0.0
    high: float = 1.0

    @property
    def size(self) -> int:
        return self.layout.size

    @abc.abstractmethod
    def encode(self, engine, seat: int) -> np.ndarray:
        """float32 vector of length ``size`` from ``seat``'s point of view; never leaks hidden data."""


class MemoBlock:
    """Memoised float32 bytes of one run of observation fields.

    Observations are mostly small counts that repeat across steps and games. A block maps the
    tuple of its raw values (or any key that determines them) to the bytes of
    ``raw * scale`` as float32, computed once. An encoder joins its blocks' bytes and calls
    ``np.frombuffer`` once, so a step costs a few dict lookups instead of per-element work.
    """

    __slots__ = ("scale", "cache", "max_entries")

    def __init__(self, scale, max_entries: int = 200_000):
        self.scale = np.asarray(scale, dtype=np.float32)
        self.cache: dict = {}
        self.max_entries = max_entries

    def miss(self, key, raw=None) -> bytes:
        """Compute, store and return the bytes for ``key`` (whose raw values are ``raw or key``)."""
        values = key if raw is None else raw
        if len(values) != len(self.scale):
            raise ValueError(f"block of {len(self.scale)} fields got {len(values)} values")
        packed = (np.asarray(values, dtype=np.float32) * self.scale).tobytes()
        if len(self.cache) >= self.max_entries:  # bound memory in very long runs
            self.cache.clear()
        self.cache[key] = packed
        return packed


def join_blocks(parts: list) -> np.ndarray:
    """One writable float32 array from the blocks' bytes."""
    return np.frombuffer(bytearray(b"".join(parts)), dtype=np.float32)
