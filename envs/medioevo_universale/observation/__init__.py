"""The observation of Medioevo Universale: one seat's view of the engine, float32 in [0, 1] (``MedioevoEncoder``).

``encoder.py`` holds the encoder: the layout, the blocks of the core game and the caches that rewrite only what
changed. The fields of one topic each live beside it, each as its layout (``*_fields``), what it reads
(``*_sources``: the encoder writes the field again only when they changed) and how it is written (``encode_*``):
``cards.py`` (empire-card effects), ``diplomacy.py`` (treaties and the offer), ``technologies.py`` (activation
windows), ``multi_war.py`` (spec 5.15), ``variants.py`` (8.1, 8.3, 8.5). The rules modules hold no observation code.
"""
from ...core.compiled import use_compiled

use_compiled(__name__, __path__)  # the compiled build, when current (envs/core/compiled.py)

from .encoder import MedioevoEncoder

__all__ = ["MedioevoEncoder"]
