"""One seat's view: the public picture (``render_text``) and that seat's stones (hand and under its armies)
and its sealed allocation."""
from __future__ import annotations

from .data import ALLOC_FIELDS, GRID
from .engine import KINDS, Phase


def seat_view(engine, seat: int) -> str:
    e = engine
    hand = ", ".join(f"{KINDS[k].name} x{c}" for k, c in enumerate(e.hands[seat]) if c) or "empty"
    lines = [e.render_text(), f"your hand (seat {seat}): {hand}"]
    under = []
    for cell, armies in enumerate(e.armies):
        for army in armies:
            if army.owner == seat and army.stones:
                where = f"row {cell // GRID} col {cell % GRID}"  # the grid as render_text draws it
                under.append(f"{where}: " + ", ".join(KINDS[k].name for k in army.stones))
    if under:
        lines.append("your stones under your armies: " + "; ".join(under))
    if e.phase == Phase.ALLOC:
        alloc = ", ".join(f"{ALLOC_FIELDS[f]} {v}" for f, v in enumerate(e.alloc[seat]) if v) or "nothing yet"
        lines.append(f"your sealed allocation: {alloc}  (budget left {e.budget_left(seat)})")
    return "\n".join(lines)
