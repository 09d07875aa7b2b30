"""One seat's view: the public picture (``render_text``) and what only that seat knows: its governor cards
(module 2), its committed army token (module 3) and the enemy card it peeked at."""
from __future__ import annotations

from .engine import Decision


def seat_view(engine, seat: int) -> str:
    e, t, c = engine, engine.tables, engine.config
    lines = [e.render_text()]
    if c.module_governors:
        if e.current_player == seat and e.decision == Decision.GOVERNOR:
            lines.append("your governor cards to choose from: "
                         + ", ".join(t.governors[g].name for g in e.governor_hand[seat]))
        elif not e.governors_revealed and e.governor[seat] >= 0:
            lines.append(f"your governor (hidden until the reveal): {t.governors[e.governor[seat]].name}")
    if c.module_army_tokens and e.army_choice[seat] >= 0:
        lines.append(f"your army token (hidden until the reveal): {e.army_choice[seat]}")
    if e.peeked[seat] and not e.revealed:
        card = e.enemy_card()
        lines.append(f"you peeked at this year's enemy: {card.type_name} strength {card.strength}")
    return "\n".join(lines)
