"""One seat's view: the public picture (``render_text``) and that seat's hand and secret setup choice."""
from __future__ import annotations


def seat_view(engine, seat: int) -> str:
    T = engine.T
    lines = [engine.render_text(),
             f"your hand (seat {seat}): " + (", ".join(T.card_names[c] for c in engine.hand[seat]) or "empty")]
    if engine.setup_choice[seat]:
        lines.append("your secret setup choice: " + ", ".join(T.province_names[x] for x in engine.setup_choice[seat]))
    return "\n".join(lines)
