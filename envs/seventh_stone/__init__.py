"""Seventh Stone: rules engine, component data, action codec and observation encoder."""
from ..core.compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (envs/core/compiled.py)

from ..core.encodings import move_encodings
from ..core.game import GameSpec
from .codec import SeventhStoneCodec
from .encoder import SeventhStoneEncoder
from .engine import Op, Phase, SeventhStoneConfig, SeventhStoneEngine, validate_config
from .moves import SeventhStoneGrain
from .picture import draw as draw_picture
from .view import seat_view

SPEC = GameSpec(
    name="seventh_stone",
    version=0,
    player_counts=(2, 3, 4),
    default_players=4,
    config_cls=SeventhStoneConfig,
    new_engine=SeventhStoneEngine,
    codecs=(SeventhStoneCodec, *move_encodings(SeventhStoneCodec, SeventhStoneGrain)),
    new_encoder=SeventhStoneEncoder,
    check_config=validate_config,
    default_max_turns=30,  # a turn is a year here: G41's year limit, a truncation
    state_version=7,  # 3: the encoder's cached frames and the undo stack; 4: the shared public part's pieces;
    # 5: the engine keeps its attributes in slots; 6: the change log (changes.py), the encoder's caches in itself;
    # 7: gap_rows, fight_picker and keep_cell (never read) gone
    seat_view=seat_view,  # one seat's view, its own hidden information included (view.py)
    draw_picture=draw_picture,  # the same as a picture of the table (picture.py)
)

__all__ = ["SPEC", "Op", "Phase", "SeventhStoneCodec", "SeventhStoneConfig", "SeventhStoneEncoder",
           "SeventhStoneEngine"]
