"""Names vulture reports as unused that are used, by a protocol or by name at run time, and the unused members
of a numbering, kept so that it reads whole (an action head's values, a spec table's ids).

Pass it with the paths to check, so that the report holds only dead code:
``python -m vulture envs agents train.py evaluate.py play.py webplay benchmarks scripts tests scripts/vulture_whitelist.py
--min-confidence 60``. Each name below is read as an attribute of the real object, so running this file
(``python scripts/vulture_whitelist.py``) fails once a listed name is gone and its line can go too.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.entity_policy import EntityNetwork, EntityPolicy  # noqa: E402
from agents.logits_policy import LogitsPolicy  # noqa: E402
from agents.pointer_policy import PointerNetwork, PointerPolicy  # noqa: E402
from agents.training.callback import SelfPlayCallback  # noqa: E402
from agents.training.selfplay_env import SelfPlayEnv, _StatePickler, _StateUnpickler  # noqa: E402
from agents.training.vec_env import MultiEnvSubprocVecEnv  # noqa: E402
from envs.medioevo_universale import cards as mu_cards, constants as mu_constants  # noqa: E402
from envs.medioevo_universale import technologies as mu_technologies  # noqa: E402
from envs.medioevo_universale.diplomacy import Treaty  # noqa: E402
from envs.medioevo_universale.observation.encoder import _Seen  # noqa: E402
from webplay.server import _QuietHandler  # noqa: E402

# werkzeug's request handler hook, silenced
_QuietHandler.log_request

# Stable-Baselines3 BaseCallback hooks, called by the training loop
SelfPlayCallback._on_training_start
SelfPlayCallback._on_rollout_start
SelfPlayCallback._on_step
SelfPlayCallback._on_rollout_end
SelfPlayCallback._on_training_end

# Stable-Baselines3 ActorCriticPolicy hooks and the attributes it reads from its MLP extractor; torch's forward
PointerPolicy._build_mlp_extractor
PointerNetwork.latent_dim_pi
PointerNetwork.latent_dim_vf
PointerNetwork.forward
EntityPolicy._build_mlp_extractor
EntityNetwork.latent_dim_pi
EntityNetwork.latent_dim_vf
EntityNetwork.forward
LogitsPolicy._build

# pickle's hooks for persistent ids
_StatePickler.persistent_id
_StateUnpickler.persistent_load

# called in the worker processes by name: venv.env_method("snapshots_in_use")
SelfPlayEnv.snapshots_in_use

# Stable-Baselines3 VecEnv's abstract methods
MultiEnvSubprocVecEnv.step_async
MultiEnvSubprocVecEnv.set_attr
MultiEnvSubprocVecEnv.env_is_wrapped

# read by name: the medioevo encoder's block names are vars(_Seen) (_SEEN_KEYS)
_Seen.NODE_CONTROLLER
_Seen.NODE_STATIC
_Seen.NODE_UNITS
_Seen.NODE_STOPPED
_Seen.NODE_BARBARIANS
_Seen.NODE_MARKER
_Seen.NODE_CUBES
_Seen.NODE_BUILDINGS

# unused members of a numbering, named so that it reads whole (medioevo_universale)
mu_cards.BAN_TRADE  # Bischof 2 (BAN_FIGHT, BAN_TRADE, BAN_MOVE)
mu_constants.CP3  # the unit types, the UNIT head's values
mu_constants.O_OWNER  # the fields of an object record
mu_constants.ECONOMY_B  # the technology branches
mu_constants.LEGISLATION_B
Treaty.DEFENCE_PACT  # the TREATY head's values: reserved, not built (G71)
Treaty.ATTACK_PACT
mu_technologies.MOENCHTUM  # the 18 activation technologies (spec 2.7 table)
mu_technologies.MISSIONARE

# RLlib's callback hook, called by its env runners (the module needs the `ray` extra; vulture reads the name anyway)
try:
    from agents.training.rllib_backend import SelfPlayMetrics
except Exception:  # noqa: BLE001 - without Ray the module refuses to import (ConfigError)
    pass
else:
    SelfPlayMetrics.on_episode_end
