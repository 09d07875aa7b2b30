"""The contract between a game's rules engine and the generic AEC adapter.

A rules engine is plain Python state plus transitions. It knows nothing of agents, rewards or
spaces; it draws all randomness from the ``numpy.random.Generator`` it was given, so the same seed
and the same moves give the same game. ``clone()`` returns an independent deep copy.
"""
from __future__ import annotations

import abc
import copy

import numpy as np


class RulesEngine(abc.ABC):
    num_players: int
    #: completed player turns, used by the adapter's truncation limit
    turn: int
    #: team index per seat in a team game (teams share one reward), None when every seat plays alone
    team_of: list[int] | None = None

    @property
    @abc.abstractmethod
    def current_player(self) -> int:
        """Seat that must decide now; -1 once the game is over."""

    @property
    @abc.abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended by its rules."""

    @abc.abstractmethod
    def placement_scores(self) -> list[float]:
        """Per seat, higher is better; equal values tie. Read by the adapter only at the end."""

    @abc.abstractmethod
    def scores(self) -> list[int]:
        """Per seat, the game's own score (for example victory points), for infos and logs."""

    def clone(self) -> "RulesEngine":
        """An independent copy, the random generator included (override for a faster copy)."""
        return deep_copy(self)

    @abc.abstractmethod
    def render_text(self) -> str:
        """A human-readable picture of the public state."""

    rng: np.random.Generator


def deep_copy(engine):
    """``copy.deepcopy`` of an engine whose random generator is rebuilt from its seed sequence and state: about
    70 us instead of the 130 us that deepcopy's pickling of a ``Generator`` takes, and the same copy."""
    rng = engine.rng
    return copy.deepcopy(engine, {id(rng): copy_generator(rng)})


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of a random generator, rebuilt from its seed sequence and state (any other source of
    chance, such as a test's scripted dice, deep-copied)."""
    if not isinstance(rng, np.random.Generator):
        return copy.deepcopy(rng)
    bits = rng.bit_generator
    twin = np.random.Generator(type(bits)(copy.deepcopy(bits.seed_seq)))
    twin.bit_generator.state = bits.state
    return twin


def flat_class(cls: type, base: type, slots=()) -> type:
    """``cls`` rebuilt with ``base`` as its only base and the attributes of every class between them
    (mixins) copied in, each name resolved as ``cls.__mro__`` resolves it; the instance attributes named
    in ``slots`` are kept in slots (the others, and any set later, in the instance dict, which ``base``
    provides).

    Why: an instance attribute read first looks the name up in the class's MRO, and CPython's type
    cache (a few thousand slots) misses often for an engine with hundreds of attributes; each miss
    walks every class of the MRO. Mixins that organise a large engine by topic then cost one dict
    lookup per mixin on every such miss. A slot is found in the class itself and read without the
    instance dict. The mixins must not call ``super()`` (its cell names ``cls``) or be used in
    ``isinstance`` checks; ``vars()`` of an instance holds only the attributes outside ``slots``
    (``instance_state`` gives them all).
    """
    mro = cls.__mro__
    merged: dict = {}
    for klass in reversed(mro[:mro.index(base)]):
        for name, value in klass.__dict__.items():
            if name in ("__dict__", "__weakref__", "__abstractmethods__") or name.startswith("_abc_"):
                continue
            merged[name] = value
    merged["__slots__"] = tuple(sorted(set(slots) - set(merged)))  # a class attribute stays one
    return type(base)(cls.__name__, (base,), merged)


def instance_state(obj) -> dict:
    """Every instance attribute of ``obj``, those in slots (``flat_class``) included."""
    state = {}
    for klass in type(obj).__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            try:
                state[name] = getattr(obj, name)
            except AttributeError:  # a slot not set yet
                pass
    state.update(getattr(obj, "__dict__", {}))
    return state
