"""The table of Catan - the fast card game as one seat may see it: the market, the piles and the supply, every
seat's buildings and hand size, the building costs, and the seat's own hand (with the hand it looks at through
its Library and the cards taken in a running exchange), as ``view.seat_view`` tells them in text."""
from __future__ import annotations

from ..core.picture import (
    EDGE, HIGHLIGHT, INK, MUTED, PAPER, WIDTH, Picture, header, label, lines, panel, seat_swatch,
)
from .data import BUILD_KINDS, EVENTS, IMPROVEMENT_KINDS, RESOURCES
from .engine import PHASE_NAMES, Phase
from .view import _OPPONENT_BATCH

RESOURCE_COLOURS = ("#b5523b", "#2f7d32", "#7b8a94", "#a5cf6a", "#e8b634")
CARD_W, CARD_H = 64, 84


def _resource_cards(p: Picture, x: float, y: float, counts, caption: str) -> None:
    """One card per resource with its count (a count of 0 drawn faded)."""
    p.text(x, y + 14, caption, size=13, colour=INK, bold=True)
    for r, name in enumerate(RESOURCES):
        cx = x + r * (CARD_W + 8)
        with p.group(f"{name}: {counts[r]}"):
            p.rect(cx, y + 22, CARD_W, CARD_H, fill=RESOURCE_COLOURS[r] if counts[r] else "#e6e1d6",
                   stroke=INK if counts[r] else EDGE, radius=6)
            p.text(cx + CARD_W / 2, y + 22 + 50, str(counts[r]), size=24, anchor="middle", bold=True,
                   colour="#ffffff" if counts[r] else MUTED)
            p.text(cx + CARD_W / 2, y + 22 + CARD_H + 16, name, size=12, anchor="middle", colour=INK)


def draw(engine, seat: int | None) -> Picture:
    e = engine
    n = e.num_players
    p = Picture(WIDTH, 1, background=PAPER)
    mover = "game over" if e.is_over else f"seat {e.current_player} to move"
    y = header(p, "Catan – the fast card game", seat, f"turn {e.turn}  ·  active seat {e.active}  ·  {mover}",
               f"decision: {label(PHASE_NAMES[e.phase])}")

    # the middle of the table: market, piles, supply
    top = panel(p, 10, y, WIDTH - 20, 170, "Market and piles")
    _resource_cards(p, 24, top - 12, e.market, "market")
    x = 24 + 5 * (CARD_W + 8) + 24
    discard = " ".join(f"{RESOURCES[r]} {c}" for r, c in enumerate(e.discard) if c) or "empty"
    facts = [f"draw pile: {len(e.draw_pile)} cards", f"discard: {discard}",
             f"supply: roads {e.supply_roads}, knights {e.supply_knights}, settlements {len(e.settlement_stack)}",
             "improvements: " + (", ".join(f"{label(IMPROVEMENT_KINDS[k])} {c}"
                                           for k, c in enumerate(e.supply_improvements) if c) or "none")]
    if e.fate_in_use:
        facts.append("fate card: " + ("clockwise" if e.fate_clockwise else "counter-clockwise"))
    lines(p, x, top + 4, facts, WIDTH - x - 24, size=13)
    y += 180

    # building costs, printed on the cards
    costs = [f"{kind}: " + " + ".join(f"{c} {RESOURCES[r]}" for r, c in enumerate(cost) if c)
             for kind, cost in zip(BUILD_KINDS, e.costs)]
    panel(p, 10, y, WIDTH - 20, 76)
    p.text(24, y + 22, "costs", size=13, bold=True)
    for i, text in enumerate(costs):
        p.text(90 + (i % 2) * 400, y + 22 + 20 * (i // 2), text, size=12, colour=MUTED)
    y += 86

    # the seats
    row = 34
    top = panel(p, 10, y, WIDTH - 20, 40 + row * n, f"Seats (win at {e.setup.win_vp} VP)")
    for q in range(n):
        ry = top - 14 + q * row
        if q == e.current_player:
            p.rect(14, ry, WIDTH - 28, row - 4, fill=HIGHLIGHT)
        seat_swatch(p, 20, ry + 8, q)
        name = f"seat {q}" + (" (you)" if q == seat else "") + ("  *active" if q == e.active else "")
        p.text(42, ry + 20, name, size=13, bold=q == seat)
        p.text(190, ry + 20, f"VP {e.vp(q)}", size=15, bold=True)
        p.text(250, ry + 20, f"hand {e.hand_size(q)}", size=13)
        cities = ", ".join(label(EVENTS[ev]) for ev in e.city_events[q])
        built = (f"settlements {len(e.settlements[q])}  cities {len(e.city_events[q])}"
                 + (f" [{cities}]" if cities else "") + f"  roads {e.roads[q]}  knights {e.knights[q]}")
        p.text(330, ry + 13, built, size=12)
        owned = ", ".join(label(IMPROVEMENT_KINDS[k]) for k in range(len(IMPROVEMENT_KINDS)) if e.owned[q][k])
        p.text(330, ry + 27, "improvements: " + (owned or "none"), size=12, colour=MUTED)
    y += 50 + row * n

    # the seat's own cards
    if seat is not None:
        extra = []
        if e.current_player == seat and e.phase == Phase.LIBRARY_PICK:
            extra.append((e.hands[e.partner], f"library: seat {e.partner}'s hand"))
        if seat == e.active and e.phase in _OPPONENT_BATCH:
            extra.append((e.batch_received, "taken in this exchange"))
        height = 140 * (1 + len(extra)) + 20
        panel(p, 10, y, WIDTH - 20, height, fill="#fffbe8")
        _resource_cards(p, 24, y + 8, e.hands[seat], f"your hand (seat {seat}): {sum(e.hands[seat])} cards")
        for i, (counts, caption) in enumerate(extra):
            _resource_cards(p, 24, y + 8 + 140 * (i + 1), counts, caption)
        y += height + 10
    if e.winner >= 0:
        p.text(WIDTH / 2, y + 20, f"seat {e.winner} wins with {e.vp(e.winner)} VP", size=18, anchor="middle",
               bold=True)
        y += 34
    p.height = int(y + 10)
    return p
