"""tabletop-gym environments: ``envs.make(name, **config)``, ``envs.names()``.

Each game also has a versioned module, e.g. ``from envs import catan_card_v0; catan_card_v0.env()``.
"""
from .core.errors import ConfigError, IllegalActionError
from .core.registry import make, module, names, register, spec

register("catan_card", "envs.catan_card_v0")

__all__ = ["ConfigError", "IllegalActionError", "make", "module", "names", "register", "spec"]
