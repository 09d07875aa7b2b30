"""Mythotopia: rules engine, component data, action codec and observation encoder."""
from ..core.compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (envs/core/compiled.py)

from ..core.encodings import move_encodings
from ..core.game import GameSpec
from .codec import MythotopiaCodec
from .encoder import MythotopiaEncoder
from .engine import MythotopiaConfig, MythotopiaEngine, Phase
from .moves import MythotopiaGrain
from .picture import draw as draw_picture
from .determinize import determinize
from .view import seat_view

SPEC = GameSpec(
    name="mythotopia",
    version=0,
    player_counts=(2, 3, 4),
    default_players=2,
    config_cls=MythotopiaConfig,
    new_engine=MythotopiaEngine,
    codecs=(MythotopiaCodec, *move_encodings(MythotopiaCodec, MythotopiaGrain)),
    new_encoder=MythotopiaEncoder,
    default_max_turns=1000,
    state_version=3,  # 3: the change log replaces the version counters; 2: pay_then holds the engine method
    seat_view=seat_view,  # one seat's view, its own hidden information included (view.py)
    determinize=determinize,  # the hidden information sampled again for one seat (determinize.py)
    draw_picture=draw_picture,  # the same as a picture of the table (picture.py)
)

__all__ = ["SPEC", "MythotopiaCodec", "MythotopiaConfig", "MythotopiaEncoder", "MythotopiaEngine", "Phase"]
