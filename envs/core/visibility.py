"""Which seats may be told a move's name: those that can tell it from every other legal move with another name.

A seat learns of another seat's move only through what it sees afterwards: its view (``env.seat_view``), its
observation and, when it is to act, its legal moves. When a legal alternative with another name leaves all that
exactly as the move does while another seat sees a difference (a card chosen from a hidden hand, a coin added to a
sealed bid), naming the move would tell the seat what only that other seat knows: play.py and its web page then
say only that a choice was made. Alternatives that every seat sees the same way change nothing anybody may know,
and are named.

The alternatives of the real game are not enough: a name can tell what the moves the mover could make are, which
depends on what the seat cannot see (an opponent whose hidden hand holds one kind of stone has one stone move, and
its name tells the kind). So the same rule is also applied in states the seat cannot tell from the real one: a few
determinizations of the game for the seat (``GameSpec.determinize``, drawn from a generator seeded by the move
count, the seat and the sample's number, so the naming is reproducible). The move is hidden when, in a sample, a
legal move of the mover with another name leaves what the seat sees exactly as the real move does, and either the
move's name is not legal there or another seat sees a difference between the two. A move that shows its content to
the seat (a card played face up, a build) has no such look-alike and stays named.

Moves are played on copies of the engine (its random generator copied too), so the game itself is untouched.
"""
from __future__ import annotations

import copy

import numpy as np

#: determinizations drawn per viewer and move; each one a chance to find a look-alike the real game lacks
SAMPLES = 4


class MoveVisibility:
    """Answers, for the env of one game setting, which viewer seats cannot tell a move from its alternatives."""

    def __init__(self, env, samples: int = SAMPLES):
        self._spec = env.spec
        self._samples = samples if env.spec.determinize is not None else 0
        # a flat codec holds no decision in progress: its moves can be played on bare engine copies; other
        # encodings are played on copies of the whole env
        self._flat = env.action_encoding == env.spec.encodings[0]
        if self._flat:
            self._codec = env.spec.new_codec(env.config, env.num_players, env.action_encoding)
            self._encoder = env.spec.new_encoder(env.config, env.num_players)

    def hidden_from(self, env, index, viewers: list[int]) -> set[int]:
        """The seats among ``viewers`` that cannot tell ``index`` (legal, about to be played by the seat to move)
        from a legal alternative with another name that some other seat can tell from it, in the real game or in
        a state they cannot tell from it; call before the move is played."""
        mover = env.possible_agents.index(env.agent_selection)
        viewers = [v for v in viewers if v != mover]
        if not viewers:
            return set()
        real = self._state(env)
        name = env.action_name(index)
        played = self._seen_after(real, index)
        hidden = self._look_alikes(real, name, viewers, played, played)
        for v in viewers:
            for k in range(self._samples if v not in hidden else 0):
                sample = self._sampled(env, v, np.random.default_rng((len(env._moves), v, k)))
                mine = self._index_named(sample, name)
                if self._look_alikes(sample, name, [v], played, mine):
                    hidden.add(v)
                    break
        return hidden

    def _look_alikes(self, state, name, viewers, played, mine) -> set[int]:
        """The ``viewers`` for whom a legal move of ``state`` with another name than ``name`` looks as the real
        move does (``played``: what each seat sees after it) while some seat sees a difference between that move
        and the move named ``name`` in ``state``: ``mine``, what each seat sees after it, or its index to play,
        or None when no move of ``state`` has that name (then any look-alike hides the name)."""
        hidden: set[int] = set()
        for other in self._legal(state):
            if self._name(state, other) == name:
                continue
            seen = self._seen_after(state, other)
            alike = [v for v in viewers if v not in hidden and seen[v] == played[v]]
            if not alike:
                continue
            if mine is None:
                hidden.update(alike)
            else:
                if not isinstance(mine, dict):
                    mine = self._seen_after(state, mine)
                differs = {s for s in seen if seen[s] != mine[s]}
                hidden.update(v for v in alike if v not in differs and differs)
            if len(hidden) == len(viewers):
                break
        return hidden

    # -- the two ways of playing a move on a copy: bare engines (flat) or whole envs ----------------------
    def _state(self, env):
        return env.engine if self._flat else env

    def _sampled(self, env, viewer: int, rng):
        sample = env.determinized(viewer, rng)
        if self._flat:
            return sample
        twin = copy.deepcopy(env)
        twin.engine, twin._legal = sample, None
        return twin

    def _legal(self, state) -> list:
        return self._codec.legal_actions(state) if self._flat else state.legal_actions()

    def _name(self, state, index) -> str:
        return self._codec.action_name(index) if self._flat else state.action_name(index)

    def _index_named(self, state, name):
        return next((i for i in self._legal(state) if self._name(state, i) == name), None)

    def _seen_after(self, state, index) -> dict[int, tuple]:
        """Per seat, all it sees once ``index`` is played: its view, its observation, its legal moves."""
        seats = range(self._engine_of(state).num_players)
        if self._flat:
            engine = state.clone()
            self._codec.apply_legal(engine, index)
            view = self._spec.seat_view or (lambda e, _seat: e.render_text())
            return {v: (view(engine, v), self._encoder.encode(engine, v).tobytes(),
                        tuple(self._codec.legal_actions(engine))
                        if not engine.is_over and engine.current_player == v else ())
                    for v in seats}
        twin = copy.deepcopy(state)
        twin.step(index)
        seen = {}
        for v in seats:
            obs = twin.observe(twin.possible_agents[v])
            seen[v] = (twin.seat_view(v),) + tuple(repr(value.tolist()) for _, value in sorted(obs.items()))
        return seen

    def _engine_of(self, state):
        return state if self._flat else state.engine
