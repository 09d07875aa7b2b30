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
decisions (steps of the acting seat) and take exactly its ``MEASURED`` count: a rule change that moves a count
updates it and README.md's table ("Degenerate policies", which also says what bounds each game's chains of
decisions; tests/test_docs.py checks the two agree).
"""
import numpy as np
import pytest

import envs

SEED = 0
POLICIES = ("lowest", "highest", "repeat", "first_last")

#: game -> the most decisions a degenerate game may take: the largest count of ``MEASURED`` with about 50 % margin
#: (README.md, "Degenerate policies", says what bounds each game's chains of decisions).
DECISION_BOUNDS = {
    "catan_card": 5_000,
    "kingsburg": 400,
    "medioevo_universale": 6_000,
    "mythotopia": 14_000,
    "seventh_stone": 4_000,
}

#: game -> policy -> the decisions its game takes, by player count (ascending); README.md shows them.
MEASURED = {
    "catan_card": {
        "lowest": (2_000, 2_000, 2_000, 2_000, 2_000),
        "highest": (393, 580, 874, 1_039, 1_426),
        "repeat": (2_006, 2_009, 2_012, 2_015, 2_018),
        "first_last": (278, 257, 2_755, 3_425, 1_326),
    },
    "kingsburg": {
        "lowest": (72, 108, 144, 180),
        "highest": (103, 147, 202, 259),
        "repeat": (105, 154, 218, 257),
        "first_last": (65, 136, 170, 205),
    },
    "medioevo_universale": {
        "lowest": (435, 561, 687, 824),
        "highest": (1_648, 2_219, 2_895, 3_846),
        "repeat": (1_358, 1_795, 2_164, 2_613),
        "first_last": (649, 867, 1_004, 1_256),
    },
    "mythotopia": {
        "lowest": (9_107, 9_039, 9_077),
        "highest": (2_000, 2_000, 2_000),
        "repeat": (2_000, 2_000, 2_000),
        "first_last": (7_019, 7_336, 7_404),
    },
    "seventh_stone": {
        "lowest": (530, 1_333, 2_451),
        "highest": (40, 96, 128),
        "repeat": (40, 96, 128),
        "first_last": (140, 354, 466),
    },
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
    decisions, _ = play(game, n, policy, DECISION_BOUNDS[game])
    assert decisions == MEASURED[game][policy][envs.spec(game).player_counts.index(n)], "update MEASURED and README"
