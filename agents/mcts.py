"""Information-set Monte Carlo tree search (single-observer IS-MCTS; Cowling, Powley & Whitehouse 2012).

The agent searches one tree for the seat to move. Each iteration draws a *determinization* of the game, a copy in
which everything the seat must not know is sampled again consistently with what it has seen (``GameSpec.
determinize``), then walks the tree on that copy: UCB1 among the actions legal in this copy, each child's
exploration term counting the iterations in which it was available (not its parent's visits), expands one untried
action, plays a random rollout to the end of the game or for ``rollout_depth`` decisions, and backs the values up,
each node scoring the value of the seat that chose the action leading to it (so several players search for
themselves in one tree). The value of a game over is its rank reward (``envs.core.rewards``, +1 first, -1 last);
a rollout cut at the depth limit is valued from the seats' margins in the game's own score (``state_values``).
With ``rollout="heuristic"`` the rollouts follow the game's heuristic agent; with ``"guided"`` the heuristic also
guides the tree: PUCT selection with the heuristic's choice as the prior (``_select_guided``), so its move is
searched first and played unless the rollouts find a better one.
The move played is the most visited action of the root among those legal now.

The agent reads nothing of the real game: ``attach(sample_state)`` gives it a function that returns a fresh
determinization of the current state for the seat to move (``agents.encoded.playing_in`` attaches one from the
env's ``determinized``). That is the narrowest interface for a search: a searcher needs playable states, and a
state it may look at whole must hold nothing its seat does not know, so the sampler, not the agent, decides what is
hidden. Acts in the flat encoding (codec built from the sampled engine's config). Budgets: ``mcts`` runs
``DEFAULT_ITERATIONS``, ``mcts:N`` N iterations per decision (docs/baselines.md: time per move).
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np

import envs
from envs.core.rewards import rank_rewards, team_rank_rewards

from .base import Agent

DEFAULT_ITERATIONS = 100
DEFAULT_ROLLOUT_DEPTH = 20  # decisions played after the tree before the game's scores value the state
EXPLORATION = 0.7  # UCB1's constant for values in [-1, 1]
# the rollout policy: uniform, the game's heuristic agent (agents/heuristics), or the heuristic guiding the tree as well
ROLLOUTS = ("random", "heuristic", "guided")
GUIDE_WEIGHT = 0.5  # guided: the share of the prior on the heuristic's own choice (the rest spread evenly)
GUIDE_EXPLORATION = 1.0  # guided: PUCT's constant
SCORE_MARGIN_SCALE = 2.0  # score points of margin that give a cut-off state a value of tanh(1), about 0.76

#: Per game, the smaller and the larger search of the baseline table (docs/baselines.md, "Budgets and time per
#: move", which gives their win rates against the heuristic and their time per move). The guided search's best
#: rollout depth differs by game, and games of thousands of decisions (mythotopia, medioevo_universale) or costly
#: heuristics (seventh_stone) afford fewer iterations per decision.
BASELINE_BUDGETS = {
    "catan_card": ("mcts:20:guided", "mcts:100:guided"),
    "kingsburg": ("mcts:20:guided", "mcts:100:guided"),
    "medioevo_universale": ("mcts:5:guided:d5", "mcts:20:guided:d5"),
    "mythotopia": ("mcts:5:guided:d30", "mcts:20:guided:d30"),
    "seventh_stone": ("mcts:5:guided:d5", "mcts:20:guided:d5"),
}


class _Node:
    __slots__ = ("parent", "seat", "children", "visits", "total", "available")

    def __init__(self, parent: "_Node | None", seat: int):
        self.parent = parent
        self.seat = seat  # the seat that chose the action leading here (its value is backed up here)
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available = 0  # iterations in which this node's action was legal at its parent


def state_values(engine) -> list[float]:
    """Per seat, the value of a state in [-1, 1]. A game over: its rank reward (``envs.core.rewards``, a team's
    members share their team's). A game cut at the rollout depth: ``tanh(margin / SCORE_MARGIN_SCALE)`` of the seat's
    margin in the game's own score (``scores()``: victory points, ...) over the mean of the other seats' (the rules'
    ``placement_scores`` are only final at the end, and some games leave them 0 until then)."""
    if engine.is_over:
        placement = engine.placement_scores()
        team_of = engine.team_of
        return rank_rewards(placement) if team_of is None else team_rank_rewards(placement, team_of)
    scores = [float(s) for s in engine.scores()]
    n = len(scores)
    if n == 1:
        return [0.0]
    total = sum(scores)
    return [math.tanh((s - (total - s) / (n - 1)) / SCORE_MARGIN_SCALE) for s in scores]


class MCTSAgent(Agent):
    """IS-MCTS over determinizations drawn by an attached sampler; ``iterations`` per decision."""

    searches = True  # given a sampler of determinized states (``attach``) by whoever seats it

    def __init__(self, game: str, num_players: int, iterations: int = DEFAULT_ITERATIONS, seed: int | None = None,
                 rollout_depth: int | None = DEFAULT_ROLLOUT_DEPTH, exploration: float = EXPLORATION,
                 rollout: str = "random"):
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise ValueError(f"mcts: iterations must be a positive integer, got {iterations!r}")
        if rollout_depth is not None and (not isinstance(rollout_depth, (int, np.integer)) or rollout_depth < 0):
            raise ValueError(f"mcts: rollout_depth must be a non-negative integer or None, got {rollout_depth!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"mcts: rollout must be one of {ROLLOUTS}, got {rollout!r}")
        self.spec = envs.spec(game)
        self.game = game
        self.rollout = rollout
        self.num_players = num_players
        self.iterations = int(iterations)
        self.rollout_depth = rollout_depth
        self.exploration = exploration
        self.name = (f"mcts:{self.iterations}" + ("" if rollout == "random" else f":{rollout}")
                     + ("" if rollout_depth == DEFAULT_ROLLOUT_DEPTH else
                        f":d{'end' if rollout_depth is None else rollout_depth}"))
        self._rng = np.random.default_rng(seed)
        self._sample_state: Callable[[np.random.Generator], object] | None = None
        self._codecs: dict = {}
        self._rollout_players: dict = {}  # (config, players) -> (encoder, heuristic agent) for heuristic rollouts
        self.last_root: _Node | None = None  # the tree of the last search (its root's children: visits, values)

    def attach(self, sample_state: Callable[[np.random.Generator], object]) -> None:
        """``sample_state(rng)`` returns a determinization of the current state for the seat to move."""
        self._sample_state = sample_state

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for _, heuristic in self._rollout_players.values():
                heuristic.reset(seed)

    def _codec(self, engine):
        key = (repr(engine.config), engine.num_players)  # a config may hold lists (unhashable)
        codec = self._codecs.get(key)
        if codec is None:
            codec = self._codecs[key] = self.spec.new_codec(engine.config, engine.num_players, "flat")
        return codec

    def act(self, observation, action_mask) -> int:
        legal_now = [int(i) for i in np.flatnonzero(action_mask)]
        if not legal_now:
            raise ValueError("MCTSAgent.act: the action mask has no legal action")
        if len(legal_now) == 1:
            return legal_now[0]
        if self._sample_state is None:
            raise RuntimeError("MCTSAgent.act: no state sampler attached; seat it through agents.encoded.playing_in "
                               "(evaluate.py, play.py) or call attach(sample_state)")
        root = self.last_root = self.search()
        visits = [(root.children[a].visits if a in root.children else -1, a) for a in legal_now]
        best = max(count for count, _ in visits)
        ties = [a for count, a in visits if count == best]
        return ties[int(self._rng.integers(len(ties)))] if len(ties) > 1 else ties[0]

    def search(self) -> _Node:
        """Run the iterations from the current state; the root of the tree (its children's visits decide)."""
        rng = self._rng
        root = _Node(None, -1)
        guided = self.rollout == "guided"
        for _ in range(self.iterations):
            state = self._sample_state(rng)
            codec = self._codec(state)
            node = root
            # selection: descend while every action legal in this determinization has a child
            while not state.is_over:
                legal = codec.legal_actions(state)
                children = node.children
                for a in legal:
                    child = children.get(a)
                    if child is not None:
                        child.available += 1
                if guided:  # PUCT with the heuristic's choice as the prior; an unvisited child ends the descent
                    hint = self._heuristic_action(state, codec, legal) if len(legal) > 1 else legal[0]
                    action = self._select_guided(node, legal, hint)
                    child = children.get(action)
                    expanded = child is None
                    if expanded:
                        child = children[action] = _Node(node, state.current_player)
                        child.available = 1
                    codec.apply_legal(state, action)
                    node = child
                    if expanded:
                        break
                    continue
                untried = [a for a in legal if a not in children]
                if untried:  # expansion
                    action = untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
                    child = children[action] = _Node(node, state.current_player)
                    child.available = 1
                    codec.apply_legal(state, action)
                    node = child
                    break
                action = self._select(node, legal)
                codec.apply_legal(state, action)
                node = children[action]
            # rollout
            depth = 0
            limit = self.rollout_depth
            rollout_action = None if self.rollout == "random" else self._heuristic_action
            while not state.is_over and (limit is None or depth < limit):
                legal = codec.legal_actions(state)
                if len(legal) == 1:
                    action = legal[0]
                elif rollout_action is None:
                    action = legal[int(rng.integers(len(legal)))]
                else:
                    action = rollout_action(state, codec, legal)
                codec.apply_legal(state, action)
                depth += 1
            values = state_values(state)
            # backup: each node scores the value of the seat that chose its action
            while node is not root:
                node.visits += 1
                node.total += values[node.seat]
                node = node.parent
            root.visits += 1
        return root

    def _heuristic_action(self, state, codec, legal: list[int]) -> int:
        """The game's heuristic agent's choice for the seat to move, from that seat's observation of the sample."""
        key = (repr(state.config), state.num_players)
        players = self._rollout_players.get(key)
        if players is None:
            from . import make_agent

            options = {f.name: getattr(state.config, f.name) for f in dataclasses.fields(state.config)}
            players = self._rollout_players[key] = (
                self.spec.new_encoder(state.config, state.num_players),
                make_agent("heuristic", self.game, state.num_players, seed=int(self._rng.integers(1 << 30)), **options))
        encoder, heuristic = players
        mask = np.zeros(codec.num_actions, np.int8)
        mask[legal] = 1
        return int(heuristic.act(encoder.encode(state, state.current_player), mask))

    def _select_guided(self, node: _Node, legal: list[int], hint: int) -> int:
        """PUCT (Silver et al. 2017) over the actions legal here: mean value (0 for an unvisited child) plus
        ``GUIDE_EXPLORATION * prior * sqrt(visits here) / (1 + child visits)``, the prior ``GUIDE_WEIGHT`` on the
        heuristic's choice ``hint`` and the rest spread evenly: the heuristic's move is searched first and kept
        unless another proves better, so the search plays at least about as well as its guide."""
        children = node.children
        spread = (1.0 - GUIDE_WEIGHT) / len(legal)
        visited = [children.get(a) for a in legal]
        root_term = GUIDE_EXPLORATION * math.sqrt(1 + sum(child.visits for child in visited if child is not None))
        best, best_score = legal[0], -math.inf
        for a, child in zip(legal, visited):
            prior = spread + (GUIDE_WEIGHT if a == hint else 0.0)
            if child is None or child.visits == 0:
                score = prior * root_term
            else:
                score = child.total / child.visits + prior * root_term / (1 + child.visits)
            if score > best_score:
                best, best_score = a, score
        return best

    def _select(self, node: _Node, legal: list[int]) -> int:
        """UCB1 over the children legal here, with availability counts in place of the parent's visits."""
        c = self.exploration
        best, best_score = legal[0], -math.inf
        for a in legal:
            child = node.children[a]
            score = child.total / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
            if score > best_score:
                best, best_score = a, score
        return best
