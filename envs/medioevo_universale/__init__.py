"""Medioevo Universale: rules engine, component data, action codec and observation encoder.

Registered as ``envs.medioevo_universale_v0`` / ``envs.make("medioevo_universale")``. The rules still
missing are listed in docs/games/medioevo_universale.md.
"""
from ..core.compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (envs/core/compiled.py)

from ..core.game import GameSpec
from .codec import MedioevoCodec
from .constants import Head, Phase, Stage
from .observation import MedioevoEncoder
from .engine import MedioevoConfig, MedioevoEngine, check_config
from .picture import draw as draw_picture
from .view import seat_view

SPEC = GameSpec(
    name="medioevo_universale",
    version=0,
    player_counts=(3, 4, 5, 6),
    default_players=4,
    config_cls=MedioevoConfig,
    new_engine=MedioevoEngine,
    codecs=(MedioevoCodec,),
    new_encoder=MedioevoEncoder,
    default_max_turns=5000,
    check_config=check_config,
    state_version=16,  # bumped whenever the pickled engine changes shape (see GameSpec)
    seat_view=seat_view,  # one seat's view, its own hidden information included (view.py)
    draw_picture=draw_picture,  # the same as a picture of the table (picture.py)
)

__all__ = ["SPEC", "Head", "MedioevoCodec", "MedioevoConfig", "MedioevoEncoder", "MedioevoEngine", "Phase", "Stage"]
