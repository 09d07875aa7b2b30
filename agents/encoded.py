"""Flat agents (random, the heuristics) playing in any move encoding (docs/encodings.md).

A flat agent decides one flat decision at a time from its seat's observation and flat mask. In a move encoding
it chooses a complete move the same way: it takes the move's flat decisions one by one on a copy of the game
(seen, as always, through its own seat's observation), and the encoding turns that move into its action, or,
for ``factored``, into one action per step. So the heuristics play the same game in every encoding, and a
tournament or a training run in any encoding can meet them.
"""
from __future__ import annotations

import numpy as np

from envs.core.errors import ConfigError, IllegalActionError
from envs.core.moves import play_move

from .base import Agent


class FlatAgentInMoves(Agent):
    """``agent`` (a flat agent) acting in ``env``, an env of a move encoding, which it reads to copy the game."""

    def __init__(self, agent: Agent, env):
        self.agent = agent
        self.env = env.unwrapped
        self.name = agent.name
        self.encoding = self.env.action_encoding
        self._encoder = self.env.spec.new_encoder(self.env.config, self.env.num_players)  # its caches apart
        self._planned: tuple[int, ...] | None = None  # the parts of the factored move in progress

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)
        self._planned = None

    def choose_move(self) -> tuple[int, ...]:
        """The complete move (its flat decisions) the flat agent makes from the current state."""
        env = self.env
        codec = env.codec
        seat = env.engine.current_player
        mask = np.zeros(codec.flat.num_actions, np.int8)

        def choose(engine) -> int:
            mask[:] = 0
            mask[codec.flat.legal_actions(engine)] = 1
            return int(self.agent.act(self._encoder.encode(engine, seat), mask))

        return play_move(env.engine.clone(), codec.moves_of, choose)

    def act(self, observation, action_mask):
        env = self.env
        codec, engine = env.codec, env.engine
        if env.action_encoding == "factored":
            if self._planned is None or not codec.in_progress():
                self._planned = codec.moves_of.parts_of(self.choose_move())
            return codec.step_toward(engine, self._planned)
        chain = self.choose_move()
        if env.action_encoding == "pointer":
            try:
                return codec.encode(engine, chain)
            except IllegalActionError:  # a move left out of the K rows: the first row instead
                return 0
        return codec.encode(engine, chain)


def playing_in(env, agent: Agent) -> Agent:
    """``agent`` as it plays in ``env``'s action encoding: itself in its own encoding, a flat agent through
    ``FlatAgentInMoves``; ConfigError for an agent of another encoding. An agent that searches (``searches``,
    agents/mcts.py) is attached a sampler of the env's state as the seat to move may see it (``env.determinized``),
    and plays in the flat encoding only."""
    encoding = env.unwrapped.action_encoding
    if agent.searches:
        if encoding != "flat":
            raise ConfigError(f"agent {agent.name!r} searches in the flat encoding only; this env uses {encoding!r}")
        raw = env.unwrapped
        agent.attach(lambda rng: raw.determinized(raw.engine.current_player, rng))
        return agent
    if agent.encoding == encoding:
        return agent
    if agent.encoding == "flat":
        return FlatAgentInMoves(agent, env)
    raise ConfigError(f"agent {agent.name!r} acts in the {agent.encoding!r} encoding and cannot play in an env of "
                      f"the {encoding!r} encoding")
