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


@dataclass(frozen=True)
class ActionEntities:
    """Flat actions that each name one thing the observation describes in a row of its own: action
    ``first_action + i`` names thing ``i``, whose row is the observation's values at ``features[i]`` (Mythotopia's
    province actions and each province's block). A policy can score such an action from its thing's row with one
    network shared by all of them (agents/entity_policy.py), as the pointer policy scores moves."""

    name: str
    first_action: int
    features: tuple[tuple[int, ...], ...]  # per thing, the observation indices of its row (every row one length)


class ObservationEncoder(abc.ABC):
    layout: ObsLayout
    low: float = 0.0
    high: float = 1.0

    def action_entities(self) -> tuple[ActionEntities, ...]:
        """The groups of flat actions that name things the observation describes row by row; none by default."""
        return ()

    @property
    def size(self) -> int:
        return self.layout.size

    @abc.abstractmethod
    def encode(self, engine, seat: int) -> np.ndarray:
        """float32 vector of length ``size`` from ``seat``'s point of view; never leaks hidden data."""
