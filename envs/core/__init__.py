"""What every game shares: the AEC adapter, registry, config, codec/encoder bases and errors."""
from .compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (compiled.py)

from .aec import TabletopEnv
from .codec import ActionCodec
from .encoder import Field, ObsLayout, ObservationEncoder
from .engine import RulesEngine
from .errors import ConfigError, IllegalActionError, ResetNeededError, TabletopError
from .game import GameSpec
from .rewards import rank_rewards, team_rank_rewards

__all__ = [
    "ActionCodec", "ConfigError", "Field", "GameSpec", "IllegalActionError", "ObsLayout",
    "ObservationEncoder", "ResetNeededError", "RulesEngine", "TabletopEnv", "TabletopError", "rank_rewards", "team_rank_rewards",
]
