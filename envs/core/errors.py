"""Errors raised by every environment, with messages that name the offending value."""


class TabletopError(Exception):
    """Base class of the errors this package raises on bad input."""


class IllegalActionError(TabletopError, ValueError):
    """An action index that is out of range or not legal in the current state.

    The state is left unchanged when this is raised.
    """


class ConfigError(TabletopError, ValueError):
    """An unknown configuration key, a bad value, or an unsupported player count."""


class ResetNeededError(TabletopError, RuntimeError):
    """The env was used before ``reset()``, or after every agent was done and stepped out."""
