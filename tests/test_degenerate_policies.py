"""Deterministic degenerate policies play every game, at every player count, to its end without an error.

A policy that learns can settle on a fixed habit and reach corners that random play never does (Medioevo
Universale: every seat bankrupt twice, docs/games/medioevo_universale.md, spec 5.6). Every seat plays the same
policy from ``reset(seed=0)``:

* ``lowest``: the lowest legal action index;
* ``highest``: the highest legal action index;
* ``repeat``: the first legal action of the kind of the seat's previous action (the kind: the action's name up to
  its first "(", e.g. ``COIN`` of ``COIN(+1)``), else the highest legal index. Falling back to the lowest index
  instead would make it the ``lowest`` policy in most games, whose lowest action is a pass;
* ``first_last``: the lowest legal index at the seat's odd decisions and the highest at its even ones (1st, 3rd,
  ... lowest; 2nd, 4th, ... highest), so that a chain one extreme opens is walked by the other.

Each game must end (terminated, or truncated at the env's default ``max_turns``) within ``DECISION_BOUNDS[game]``
decisions (steps of the acting seat). The bounds and the measured counts are in README.md, "Degenerate policies";
the chains a policy could repeat without end are bounded by the rules of each game (README, same section).
"""
import numpy as np
import pytest

import envs

SEED = 0
POLICIES = ("lowest", "highest", "repeat", "first_last")

#: game -> the most decisions a degenerate game may take: the largest count measured over the player counts and
#: policies (in the comment), with about 50 % margin.
DECISION_BOUNDS = {
    "catan_card": 3_000,  # 2,018: 6 players, repeat (lowest and repeat never build: truncated at 1,000 turns)
    "kingsburg": 400,  # 259: 5 players, highest
    "medioevo_universale": 6_000,  # 3,846: 6 players, highest (3-5 players: every seat eliminated)
    "mythotopia": 14_000,  # 9,332: 4 players, lowest (truncated at 1,000 turns)
    "seventh_stone": 4_000,  # 2,451: 4 players, lowest
}

CASES = [(game, n, policy) for game in envs.names() for n in envs.spec(game).player_counts for policy in POLICIES]


def _kind(name: str) -> str:
    cut = name.find("(")
    return name if cut < 0 else name[:cut]


def play(game: str, n: int, policy: str, bound: int) -> tuple[int, bool]:
    """Plays one game of ``policy``; returns (decisions, terminated). Fails past ``bound`` decisions."""
    env = envs.make(game, num_players=n)
    env.reset(seed=SEED)
    kinds = [_kind(env.action_name(i)) for i in range(env.action_space(env.possible_agents[0]).n)]
    previous: dict[str, str] = {}
    made: dict[str, int] = {}  # the seat's decisions so far (first_last)
    decisions = 0
    terminated = truncated = False
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            terminated |= term
            truncated |= trunc
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"{game} {n} players {policy}: no legal action at decision {decisions}"
        if policy == "lowest":
            action = int(legal[0])
        elif policy == "highest":
            action = int(legal[-1])
        elif policy == "first_last":
            made[agent] = made.get(agent, 0) + 1
            action = int(legal[0] if made[agent] % 2 else legal[-1])
        else:
            kind = previous.get(agent)
            action = next((int(i) for i in legal if kinds[i] == kind), int(legal[-1]))
            previous[agent] = kinds[action]
        env.step(action)
        decisions += 1
        assert decisions <= bound, f"{game} {n} players {policy}: no end after {bound} decisions"
    assert terminated or truncated
    return decisions, terminated


@pytest.mark.parametrize("game, n, policy", CASES)
def test_degenerate_policy_ends_the_game(game, n, policy):
    play(game, n, policy, DECISION_BOUNDS[game])
