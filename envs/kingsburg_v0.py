"""Kingsburg (2nd edition, German rulebook), 2-5 players, base game plus three optional modules.

``env(num_players=2, max_turns=5000, render_mode=None, **rule_options)`` returns a PettingZoo AECEnv.

Action space: ``Discrete(162)`` for every player count and module choice (layout in
``envs.kingsburg.codec``; ``env.action_name(i)`` names every index). A decision with a single legal
move is taken by the env itself, so every agent step is a real choice.
Observation: ``{"observation": float32[obs_size] in [0, 1], "action_mask": int8[162]}``;
``env.observation_layout`` names every slice (size 391 / 530 / 671 / 814 for 2 / 3 / 4 / 5 players).
Rewards: rank-based at the end of year V (+1 / -1 with two players; ties on VP, goods and buildings
share), 0 for everyone on truncation after ``max_turns`` decisions.
Rule options (see docs/games/kingsburg.md): module_more_buildings, module_governors, module_army_tokens.
"""
from .core.aec import TabletopEnv
from .kingsburg import SPEC


def raw_env(**kwargs) -> TabletopEnv:
    return TabletopEnv(SPEC, **kwargs)


env = raw_env

__all__ = ["SPEC", "env", "raw_env"]
