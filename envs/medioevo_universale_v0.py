"""Medioevo Universale (German rulebook), 3-6 empires, 8/10/12 rounds.

``env(num_players=4, max_turns=5000, render_mode=None, **rule_options)`` returns a PettingZoo AECEnv.

Action space: ``Discrete(codec.num_actions)``, the same for every player count (layout in
``envs.medioevo_universale.codec``; ``env.action_name(i)`` names every index). Compound choices
(purchases, bids, movements, battle decisions) are sequences of small decisions whose mask never
offers a dead end.
Observation: ``{"observation": float32[obs_size] in [0, 1], "action_mask": int8[num_actions]}``;
``env.observation_layout`` names every slice; seats are relative to the observer.
Rewards: rank-based on EP at the end (ties broken by money, then turn order), 0 for everyone on
truncation after ``max_turns`` completed player turns.
Rule options and the rules still missing: docs/games/medioevo_universale.md.
"""
from .core.aec import TabletopEnv
from .medioevo_universale import SPEC


def raw_env(**kwargs) -> TabletopEnv:
    return TabletopEnv(SPEC, **kwargs)


env = raw_env

__all__ = ["SPEC", "env", "raw_env"]
