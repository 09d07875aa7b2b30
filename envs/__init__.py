"""tabletop-gym environments: ``envs.make(name, **config)``, ``envs.names()``.

Each game also has a versioned module, e.g. ``from envs import catan_card_v0; catan_card_v0.env()``.
Games register themselves by their module name (``envs/<game>_v<k>.py``); see ``envs.core.registry``.
"""
from .core.errors import ConfigError, IllegalActionError, ResetNeededError
from .core.registry import discover, encodings, make, module, names, register, spec

discover(__name__, __path__)

__all__ = ["ConfigError", "IllegalActionError", "ResetNeededError", "encodings", "make", "module", "names", "register",
           "spec"]
