"""Flat action codec of Mythotopia: ``Discrete(268)``, layout in ``envs.mythotopia.layout``.

Indices equal engine moves except the PLAYER segment, which names seats relative to the actor
(``PLAYER(+j)``: j seats after the actor in turn order), so that a policy sees every seat alike.
"""
from __future__ import annotations

from ..core.codec import ActionCodec
from . import layout as M
from .data import tables
from .engine import Phase


class MythotopiaCodec(ActionCodec):
    num_actions = M.NUM_MOVES

    def __init__(self, config, num_players: int):
        self.num_players = num_players
        T = tables(config.fifth_starting_card)
        names = []
        borders = [f"{T.province_names[a]}-{T.province_names[b]}" for a, b, _ in T.borders]
        for i in range(M.NUM_MOVES):
            if M.PLAYER <= i < M.OPTION:
                names.append(f"PLAYER(+{i - M.PLAYER})")
            else:
                names.append(M.move_name(i, T.province_names, T.card_names, borders))
        self._names = names

    def action_name(self, index: int) -> str:
        return self._names[index]

    def legal_actions(self, engine) -> list[int]:
        legal = engine.legal_moves()
        if engine.phase == Phase.MARAUD_PLAYER:  # the only phase that offers PLAYER moves
            n, actor = self.num_players, engine.actor
            legal = sorted(M.PLAYER + (m - M.PLAYER - actor) % n if M.PLAYER <= m < M.OPTION else m
                           for m in legal)
        return legal

    def decode(self, engine, index: int) -> int:
        """The engine move of an index for the engine's current actor."""
        if M.PLAYER <= index < M.OPTION:
            return M.PLAYER + (index - M.PLAYER + engine.actor) % self.num_players
        return index

    def encode(self, engine, move: int) -> int:
        if M.PLAYER <= move < M.OPTION:
            return M.PLAYER + (move - M.PLAYER - engine.actor) % self.num_players
        return move

    def apply_legal(self, engine, index: int) -> None:
        engine.play(self.decode(engine, index))
