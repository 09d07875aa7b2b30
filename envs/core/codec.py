"""Action codecs: how a policy's choices map onto a game's moves.

A codec sits between the rules and the AEC env, so that several encodings of one game can exist without
touching its engine. A game registers its codecs by name in its ``GameSpec`` (``flat`` first, the default);
the env builds the one asked for, and nothing else names a codec's class.

The contract, the same signature in every game:

- ``num_actions``: the size of the ``Discrete`` index space; ``action_name(index)`` names every index,
  independently of the state (``action_names()`` lists them, ``index(name)`` finds one).
- ``legal_actions(engine)``: the legal indices for the engine's current player, ascending. The mask built
  from it is exact: an index is legal exactly when the codec accepts it.
- ``decode(engine, index)``: the engine's move for an index in the current state; ``encode(engine, move)``
  its inverse. Both take the engine because a move may be relative to the seat that acts.
- ``apply_legal(engine, index)``: apply an index already known to be legal (the env checks first);
  ``apply(engine, index)`` checks, then applies, and leaves the engine unchanged when it raises.

A codec whose actions are not one index (``discrete = False``: the factored encodings' ``MultiDiscrete``) says so
through ``action_space``, ``mask_size`` and ``action_mask``, and its ``legal_actions`` lists action tuples; a codec
may add entries to the acting seat's observation (``observation_extras``, ``extras``) and keep the state of a
decision taken over several steps, which ``reset`` clears. envs/core/encodings.py holds such codecs.
"""
from __future__ import annotations

import abc

import numpy as np
from gymnasium import spaces

from .errors import IllegalActionError


class ActionCodec(abc.ABC):
    #: the encoding's registry name (``envs.encodings(game)``)
    name: str = "flat"
    num_actions: int
    #: True when an action is one index of a ``Discrete(num_actions)`` space
    discrete: bool = True
    #: entries the codec adds to the acting seat's observation dict: name -> Box space
    observation_extras: dict = {}

    @abc.abstractmethod
    def __init__(self, config, num_players: int):
        """A codec for the game's rule options and player count."""

    @abc.abstractmethod
    def action_name(self, index: int) -> str:
        """Readable name of an index, independent of the state (for example ``"RES(ore)"``)."""

    def action_names(self) -> list[str]:
        return [self.action_name(i) for i in range(self.num_actions)]

    def index(self, name: str) -> int:
        """The index whose readable name is ``name`` (for tests, logs and scripted play)."""
        names = self.action_names()
        try:
            return names.index(name)
        except ValueError:
            raise KeyError(f"no action named {name!r}; names are {names}") from None

    @abc.abstractmethod
    def legal_actions(self, engine) -> list[int]:
        """Legal indices for the engine's current player, ascending."""

    @abc.abstractmethod
    def decode(self, engine, index: int):
        """The engine's move that ``index`` stands for in the engine's current state."""

    @abc.abstractmethod
    def encode(self, engine, move) -> int:
        """The index of an engine move in the engine's current state (the inverse of ``decode``)."""

    @abc.abstractmethod
    def apply_legal(self, engine, index: int) -> None:
        """Apply an index known to be legal (``check`` passed)."""

    def check(self, engine, index, legal: list[int] | None = None) -> int:
        """Return ``index`` as an int or raise IllegalActionError naming it.

        ``legal`` may pass the already computed ``legal_actions(engine)``.
        """
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise IllegalActionError(f"action {index!r} is not an integer index")
        as_int = int(index)
        if not 0 <= as_int < self.num_actions:
            raise IllegalActionError(
                f"action {index!r} is out of range: valid indices are 0..{self.num_actions - 1}"
            )
        if engine.is_over:
            raise IllegalActionError(f"action {as_int} ({self.action_name(as_int)}): the game is over")
        if legal is None:
            legal = self.legal_actions(engine)
        if as_int not in legal:
            names = ", ".join(f"{i} {self.action_name(i)}" for i in legal)
            raise IllegalActionError(
                f"action {as_int} ({self.action_name(as_int)}) is illegal for seat "
                f"{engine.current_player} now; legal: {names}"
            )
        return as_int

    def apply(self, engine, index) -> None:
        """Validate, then apply. On error the engine is unchanged."""
        self.apply_legal(engine, self.check(engine, index))

    @property
    def action_space(self) -> spaces.Space:
        return spaces.Discrete(self.num_actions)

    @property
    def mask_size(self) -> int:
        """The length of the action mask (for ``MultiDiscrete``, the heads' masks one after the other)."""
        return self.num_actions

    def action_mask(self, engine) -> np.ndarray:
        """The int8 mask of the actions legal for the engine's current player."""
        mask = np.zeros(self.num_actions, np.int8)
        mask[self.legal_actions(engine)] = 1
        return mask

    def extras(self, engine, seat: int) -> dict:
        """The acting seat's entries of ``observation_extras`` (other seats see zeros: they may show hidden
        information, such as the moves a hand allows)."""
        return {}

    def reset(self) -> None:
        """A new game: forget any decision in progress."""
