"""Names vulture reports as unused that are used, by a protocol or by name at run time.

Pass it with the paths to check, so that the report holds only dead code:
``python -m vulture envs agents train.py evaluate.py benchmarks scripts tests scripts/vulture_whitelist.py
--min-confidence 60``. Each name below is read as an attribute of the real object, so running this file
(``python scripts/vulture_whitelist.py``) fails once a listed name is gone and its line can go too.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.training.callback import SelfPlayCallback  # noqa: E402
from agents.training.selfplay_env import SelfPlayEnv, _StatePickler, _StateUnpickler  # noqa: E402
from agents.training.vec_env import MultiEnvSubprocVecEnv  # noqa: E402

# Stable-Baselines3 BaseCallback hooks, called by the training loop
SelfPlayCallback._on_training_start
SelfPlayCallback._on_rollout_start
SelfPlayCallback._on_step
SelfPlayCallback._on_rollout_end
SelfPlayCallback._on_training_end

# pickle's hooks for persistent ids
_StatePickler.persistent_id
_StateUnpickler.persistent_load

# called in the worker processes by name: venv.env_method("snapshots_in_use")
SelfPlayEnv.snapshots_in_use

# Stable-Baselines3 VecEnv's abstract methods
MultiEnvSubprocVecEnv.step_async
MultiEnvSubprocVecEnv.set_attr
MultiEnvSubprocVecEnv.env_is_wrapped
