"""One seat's view: the public picture (``render_text``) and that seat's hidden cards."""
from __future__ import annotations

from .data import RESOURCES
from .engine import Phase

_OPPONENT_BATCH = (Phase.PLAYER_TAKE, Phase.LIBRARY_PICK, Phase.PLAYER_RETURN)


def _cards(counts) -> str:
    return ", ".join(f"{RESOURCES[r]} x{c}" for r, c in enumerate(counts) if c) or "none"


def seat_view(engine, seat: int) -> str:
    lines = [engine.render_text(), f"your hand (seat {seat}): {_cards(engine.hands[seat])}"]
    if engine.current_player == seat and engine.phase == Phase.LIBRARY_PICK:
        lines.append(f"library: seat {engine.partner}'s hand: {_cards(engine.hands[engine.partner])}")
    if seat == engine.active and engine.phase in _OPPONENT_BATCH:
        lines.append(f"taken in this exchange: {_cards(engine.batch_received)}")
    return "\n".join(lines)
