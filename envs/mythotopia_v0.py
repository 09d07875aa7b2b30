"""Mythotopia (2-4 players): a deck-building game on a map of 40 provinces and 4 seas.

``env(num_players=2, max_turns=1000, render_mode=None, **rule_options)`` returns a PettingZoo AECEnv.

Action space: ``Discrete(268)``, layout in ``envs.mythotopia.layout`` (VERB 27, PROVINCE 40, SEA 4,
BORDER 79, CARD 89, MODE 3, NUMBER 15, PLAYER 4 relative to the actor, OPTION 6, DONE 1);
``env.action_name(i)`` names every index. Every action of the rulebook is a short sequence of these
sub-decisions; the mask offers a choice only if the action can still be completed.
Observation: ``{"observation": float32[obs_size] in [0, 1], "action_mask": int8[268]}``;
``env.observation_layout`` names every slice (2637 floats for 2 players).
Rewards: +1 to the player who ends the game by the rules, -1/(N-1) to each other seat; 0 for
everyone on truncation after ``max_turns`` completed player turns (the game has no forced end).
Rule options (see docs/games/mythotopia.md): fifth_starting_card, castle_counter_value,
spoils_of_war_counters, optional_start_choice, optional_discard_count, random_start_player,
variable_vp_cards.
"""
from .core.aec import TabletopEnv
from .mythotopia import SPEC


def raw_env(**kwargs) -> TabletopEnv:
    return TabletopEnv(SPEC, **kwargs)


env = raw_env

__all__ = ["SPEC", "env", "raw_env"]
