"""Kingsburg (2nd edition): rules engine, component data, action codec and observation encoder."""
from ..core.compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (envs/core/compiled.py)

from ..core.encodings import move_encodings
from ..core.game import GameSpec
from .codec import KingsburgCodec
from .encoder import KingsburgEncoder
from .engine import Decision, KingsburgConfig, KingsburgEngine, Op
from .moves import KingsburgGrain
from .picture import draw as draw_picture
from .view import seat_view

SPEC = GameSpec(
    name="kingsburg",
    version=0,
    player_counts=(2, 3, 4, 5),
    default_players=2,
    config_cls=KingsburgConfig,
    new_engine=KingsburgEngine,
    codecs=(KingsburgCodec, *move_encodings(KingsburgCodec, KingsburgGrain)),
    new_encoder=KingsburgEncoder,
    default_max_turns=5000,
    state_version=7,  # bumped whenever the pickled engine changes shape (see GameSpec)
    seat_view=seat_view,  # one seat's view, its own hidden information included (view.py)
    draw_picture=draw_picture,  # the same as a picture of the table (picture.py)
)

__all__ = ["SPEC", "Decision", "KingsburgCodec", "KingsburgConfig", "KingsburgEncoder", "KingsburgEngine", "Op"]
