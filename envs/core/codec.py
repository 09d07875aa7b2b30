"""Action codecs: a flat ``Discrete`` index space over a game's moves.

A codec is separate from the rules so that a second encoding of a game can be added without
touching the engine. Every index has a readable name; the mask is exact: an index is legal exactly
when ``apply`` accepts it.
"""
from __future__ import annotations

import abc

import numpy as np

from .errors import IllegalActionError


class ActionCodec(abc.ABC):
    num_actions: int

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

    def legal_mask(self, engine) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[self.legal_actions(engine)] = 1
        return mask

    @abc.abstractmethod
    def _apply(self, engine, index: int) -> None:
        """Apply a legal index; called only after ``check`` passed."""

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
        self._apply(engine, self.check(engine, index))
