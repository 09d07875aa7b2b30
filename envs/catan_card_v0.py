"""Catan - the fast card game (Die Siedler von Catan - Das schnelle Kartenspiel), 2-6 players.

``env(num_players=2, max_turns=1000, render_mode=None, **rule_options)`` returns a PettingZoo AECEnv.

Action space: ``Discrete(43 + 2 (N - 1))`` (45 for 2 players ... 53 for 6), layout in
``envs.catan_card.codec``; ``env.action_name(i)`` names every index.
Observation: ``{"observation": float32[obs_size] in [0, 1], "action_mask": int8[num_actions]}``;
``env.observation_layout`` names every slice. Rewards: +1 to the winner, -1/(N-1) to each other
seat at the end; 0 for everyone on truncation after ``max_turns`` player turns.
Rule options (see docs/games/catan_card.md): five_six_extra_building_cards, optional_knight_draws,
random_start_seat.
"""
from .catan_card import SPEC
from .core.aec import TabletopEnv


def raw_env(**kwargs) -> TabletopEnv:
    return TabletopEnv(SPEC, **kwargs)


env = raw_env

__all__ = ["SPEC", "env", "raw_env"]
