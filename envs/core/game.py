"""What a game package hands to the generic adapter: how to build its engine, codec and encoder."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .codec import ActionCodec
from .encoder import ObservationEncoder
from .errors import ConfigError
from .engine import RulesEngine


@dataclass(frozen=True)
class GameSpec:
    name: str  # registry name, e.g. "catan_card"
    version: int  # module suffix, e.g. 0 -> envs.catan_card_v0
    player_counts: tuple[int, ...]
    default_players: int
    config_cls: type  # frozen dataclass of the game's rule options
    new_engine: Callable[[Any, int, np.random.Generator], RulesEngine]
    # the action encodings, each an ActionCodec class built as ``codec(config, num_players)``, by their
    # ``name``; the first (``flat``) is the default
    codecs: tuple[type[ActionCodec], ...]
    new_encoder: Callable[[Any, int], ObservationEncoder]
    default_max_turns: int  # truncation limit in completed player turns
    # raises ConfigError for options that do not fit the player count; called by make(), before any reset
    check_config: Callable[[Any, int], None] | None = None
    # bumped whenever the engine's pickled state changes shape: a training checkpoint holds games in
    # progress, and resuming games pickled by another engine version is refused with a clear error
    state_version: int = 1
    # ``seat_view(engine, seat) -> str``: the picture one seat may see, its own hidden information included and
    # every other seat's left out; None when the engine's ``render_text`` (public only) is all a seat may see
    seat_view: Callable[[Any, int], str] | None = None
    # ``draw_picture(engine, seat) -> Picture`` (envs.core.picture): the table as seat ``seat`` may see it, or the
    # public table when ``seat`` is None; what ``env.seat_picture`` and ``render_mode="rgb_array"`` show
    draw_picture: Callable[[Any, int | None], Any] | None = None

    @property
    def encodings(self) -> list[str]:
        """The names of the game's action encodings, the default first."""
        return [codec.name for codec in self.codecs]

    def new_codec(self, config, num_players: int, encoding: str | None = None) -> ActionCodec:
        """The codec of an encoding by its name (the default when None)."""
        for codec in self.codecs:
            if encoding is None or codec.name == encoding:
                return codec(config, num_players)
        raise ConfigError(f"{self.name} has no action encoding {encoding!r}; encodings are {self.encodings}")

    @property
    def env_name(self) -> str:
        return f"{self.name}_v{self.version}"
