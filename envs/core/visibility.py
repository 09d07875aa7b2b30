"""Which seats may be told a move's name: those that can tell it from every other legal move with another name.

A seat learns of another seat's move only through what it sees afterwards: its view (``env.seat_view``), its
observation and, when it is to act, its legal moves. When a legal alternative with another name leaves all that
exactly as the move does while another seat sees a difference (a card chosen from a hidden hand, a coin added to a
sealed bid), naming the move would tell the seat what only that other seat knows: play.py and its web page then
say only that a choice was made. Alternatives that every seat sees the same way change nothing anybody may know,
and are named. They are played on copies of the engine (its random generator copied too), so the game itself is
untouched.
"""
from __future__ import annotations

import copy


class MoveVisibility:
    """Answers, for the env of one game setting, which viewer seats cannot tell a move from its alternatives."""

    def __init__(self, env):
        self._spec = env.spec
        # a flat codec holds no decision in progress: its moves can be played on bare engine copies; other
        # encodings are played on copies of the whole env
        self._flat = env.action_encoding == env.spec.encodings[0]
        if self._flat:
            self._codec = env.spec.new_codec(env.config, env.num_players, env.action_encoding)
            self._encoder = env.spec.new_encoder(env.config, env.num_players)

    def hidden_from(self, env, index, viewers: list[int]) -> set[int]:
        """The seats among ``viewers`` that cannot tell ``index`` (legal, about to be played by the seat to move)
        from a legal alternative with another name that some other seat can tell from it; call before the move
        is played."""
        mover = env.possible_agents.index(env.agent_selection)
        viewers = [v for v in viewers if v != mover]
        name = env.action_name(index)
        alternatives = [b for b in env.legal_actions() if env.action_name(b) != name]
        if not viewers or not alternatives:
            return set()
        seats = range(env.num_players)
        played = self._seen_after(env, index, seats)
        hidden: set[int] = set()
        for other in alternatives:
            seen = self._seen_after(env, other, seats)
            differs = {s for s in seats if seen[s] != played[s]}
            hidden.update(v for v in viewers if v not in differs and differs)
            if len(hidden) == len(viewers):
                break
        return hidden

    def _seen_after(self, env, index, viewers) -> dict[int, tuple]:
        """Per viewer, all it sees once ``index`` is played: its view, its observation, its legal moves."""
        if self._flat:
            engine = env.engine.clone()
            self._codec.apply_legal(engine, index)
            view = self._spec.seat_view or (lambda e, _seat: e.render_text())
            return {v: (view(engine, v), self._encoder.encode(engine, v).tobytes(),
                        tuple(self._codec.legal_actions(engine))
                        if not engine.is_over and engine.current_player == v else ())
                    for v in viewers}
        twin = copy.deepcopy(env)
        twin.step(index)
        seen = {}
        for v in viewers:
            obs = twin.observe(twin.possible_agents[v])
            seen[v] = (twin.seat_view(v),) + tuple(repr(value.tolist()) for _, value in sorted(obs.items()))
        return seen
