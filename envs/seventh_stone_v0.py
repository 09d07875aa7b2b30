"""Seventh Stone (Der siebte Stein), 2-4 players: the board game of the four peoples of Andur.

``env(num_players=4, max_turns=30, render_mode=None, **rule_options)`` returns a PettingZoo AECEnv.
A "turn" here is a year (every player acts in every phase of it), so ``max_turns`` is the year limit
of G41: a game that reaches it is truncated.

Action space: ``Discrete(285)`` for every player count and option; layout in
``envs.seventh_stone.codec`` (cells on a 7 x 7 grid, r1c1 top left); ``env.action_name(i)`` names
every index. Observation: ``{"observation": float32[obs_size] in [0, 1], "action_mask":
int8[285]}``; ``env.observation_layout`` names every slice (obs_size 2685 / 3265 / 3847 for 2 / 3 /
4 players). Rewards: +1 to the winner, -1/(N-1) to each other seat at the end (a shared win ties);
0 for everyone on truncation. Rule options (docs/games/seventh_stone.md): advanced_terrain,
wall_bypass, no_time, double_move, four_islands, destruction_roll, max_moves_over_capacity,
dice_allocation.
"""
from .core.aec import TabletopEnv
from .seventh_stone import SPEC


def raw_env(**kwargs) -> TabletopEnv:
    return TabletopEnv(SPEC, **kwargs)


env = raw_env

__all__ = ["SPEC", "env", "raw_env"]
