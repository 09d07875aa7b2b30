"""Catan - the fast card game: rules engine, component data, action codec and observation encoder."""
from ..core.compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (envs/core/compiled.py)

from ..core.encodings import move_encodings
from ..core.game import GameSpec
from .codec import CatanCardCodec
from .encoder import CatanCardEncoder
from .engine import CatanCardConfig, CatanCardEngine, Op, Phase
from .moves import CatanCardGrain
from .picture import draw as draw_picture
from .view import seat_view

SPEC = GameSpec(
    name="catan_card",
    version=0,
    player_counts=(2, 3, 4, 5, 6),
    default_players=2,
    config_cls=CatanCardConfig,
    new_engine=CatanCardEngine,
    codecs=(CatanCardCodec, *move_encodings(CatanCardCodec, CatanCardGrain)),
    new_encoder=CatanCardEncoder,
    default_max_turns=1000,
    seat_view=seat_view,  # one seat's view, its own hidden information included (view.py)
    draw_picture=draw_picture,  # the same as a picture of the table (picture.py)
)

__all__ = ["SPEC", "CatanCardCodec", "CatanCardConfig", "CatanCardEncoder", "CatanCardEngine", "Op", "Phase"]
