"""The table of Kingsburg as one seat may see it: the King's council of 18 advisors with the dice placed on them,
the year and phase, the enemy once revealed, each seat's goods, tokens, soldiers and dice, the province sheet
with who built what, and what only the seat knows (its governor cards, its army token, the enemy it peeked at),
as ``view.seat_view`` tells them in text."""
from __future__ import annotations

from ..core.picture import (
    EDGE, HIGHLIGHT, INK, MUTED, PAPER, WIDTH, Picture, fit, header, label, lines, panel, seat_colour, seat_swatch,
)
from .data import COLUMNS, GOODS, NUM_COLS, ROWS
from .engine import DECISION_NAMES, Decision

PHASE_NAMES = ("", "King's favour", "spring", "King's honour", "summer", "King's envoy", "autumn", "recruit",
               "winter")
GOOD_COLOURS = ("#e0b526", "#8d5a2b", "#9a9a9a")


def _council(p: Picture, e, y: float) -> float:
    """The 18 advisors in three rows of six, each with the seats' dice placed on it ('N' a neutral die)."""
    board = e.board
    top = panel(p, 10, y, WIDTH - 20, 40 + 3 * 58, "The King's council")
    w = (WIDTH - 40) / 6
    for rank in range(1, 19):
        x, cy = 20 + ((rank - 1) % 6) * w, top - 10 + ((rank - 1) // 6) * 58
        advisor = e.tables.advisors[rank - 1]
        with p.group(f"advisor {rank}: {advisor.name}"):
            p.rect(x, cy, w - 8, 52, fill="#f3ead6", stroke=EDGE, radius=4)
            p.text(x + 6, cy + 16, fit(f"{rank} {advisor.name}", 12, w - 20), size=12, bold=True)
            for i, s in enumerate(board[rank]):
                cx = x + 14 + i * 22
                p.rect(cx - 9, cy + 24, 18, 18, fill="#dddddd" if s < 0 else seat_colour(s), stroke=INK, radius=3)
                p.text(cx, cy + 38, "N" if s < 0 else str(s), size=11, anchor="middle",
                       colour=INK if s < 0 else "#ffffff", bold=True)
    return y + 50 + 3 * 58


def _seats(p: Picture, e, seat: int | None, y: float) -> float:
    n = e.num_players
    row = 40
    top = panel(p, 10, y, WIDTH - 20, 40 + row * n, "Seats  (turn order " + " ".join(str(q) for q in e.order)
                + ";  envoy: " + (f"seat {e.envoy}" if e.envoy >= 0 else "on the track") + ")")
    for q in range(n):
        ry = top - 14 + q * row
        if q == e.current_player:
            p.rect(14, ry, WIDTH - 28, row - 4, fill=HIGHLIGHT)
        seat_swatch(p, 20, ry + 11, q)
        p.text(42, ry + 23, f"seat {q}" + (" (you)" if q == seat else ""), size=13, bold=q == seat)
        p.text(140, ry + 23, f"VP {e.vp[q]}", size=15, bold=True)
        for g, name in enumerate(GOODS):
            gx = 210 + g * 74
            p.rect(gx, ry + 10, 16, 16, fill=GOOD_COLOURS[g], stroke=INK, radius=3)
            p.text(gx + 21, ry + 23, f"{name} {e.goods[q][g]}", size=12)
        dice = ",".join(str(d) for d in e.pdice[q]) + ("+" + ",".join(str(d) for d in e.bdice[q])
                                                       if e.bdice[q] else "")
        facts = f"+2 tokens {e.plus2[q]}   soldiers {e.soldiers[q]}   dice [{dice}]"
        p.text(440, ry + 17, facts, size=12)
        more = []
        if e.config.module_army_tokens:
            more.append(f"army tokens {len(e.army_tokens[q])}"
                        + (f", played {e.army_revealed[q]}" if e.army_revealed[q] >= 0 else ""))
        if e.config.module_governors and e.governors_revealed and e.governor[q] >= 0:
            more.append("governor " + e.tables.governors[e.governor[q]].name)
        if more:
            p.text(440, ry + 32, fit("  ·  ".join(more), 12, WIDTH - 460), size=12, colour=MUTED)
    return y + 50 + row * n


def _province_sheet(p: Picture, e, y: float) -> float:
    """The buildings in play, row by row, each with a dot for every seat that built it."""
    t = e.tables
    rows = list(t.rows)
    cell_h = 44
    top = panel(p, 10, y, WIDTH - 20, 40 + cell_h * len(rows), "Province sheet (cost gold/wood/stone, VP; dots: built)")
    w = (WIDTH - 70) / NUM_COLS
    for i, r in enumerate(rows):
        ry = top - 14 + i * cell_h
        p.text(24, ry + 26, ROWS[r], size=14, bold=True)
        for c in range(NUM_COLS):
            b = t.buildings[r * NUM_COLS + c]
            if b is None:
                continue
            x = 46 + c * w
            with p.group(f"{ROWS[r]}{COLUMNS[c]} {b.name}"):
                p.rect(x, ry, w - 6, cell_h - 4, fill="#f3ead6", stroke=EDGE, radius=4)
                p.text(x + 6, ry + 15, fit(b.name, 12, w - 18), size=12, bold=True)
                p.text(x + 6, ry + 32, "/".join(str(v) for v in b.cost) + f", {b.vp:+d} VP", size=11, colour=MUTED)
                built = [q for q in range(e.num_players) if e.rows[q][r] > c]
                for k, q in enumerate(built):
                    p.circle(x + w - 16 - k * 14, ry + 28, 6, fill=seat_colour(q), stroke=INK)
    return y + 50 + cell_h * len(rows)


def _secrets(e, seat: int) -> list[str]:
    """What only ``seat`` knows, as view.seat_view lists it."""
    t, c = e.tables, e.config
    out = []
    if c.module_governors:
        if e.current_player == seat and e.decision == Decision.GOVERNOR:
            out.append("your governor cards to choose from: " + ", ".join(t.governors[g].name
                                                                           for g in e.governor_hand[seat]))
        elif not e.governors_revealed and e.governor[seat] >= 0:
            out.append(f"your governor (hidden until the reveal): {t.governors[e.governor[seat]].name}")
    if c.module_army_tokens:
        out.append("your army tokens: " + (", ".join(str(v) for v in e.army_tokens[seat]) or "none")
                   + (f";  committed (hidden until the reveal): {e.army_choice[seat]}" if e.army_choice[seat] >= 0
                      else ""))
    if e.peeked[seat] and not e.revealed:
        card = e.enemy_card()
        out.append(f"you peeked at this year's enemy: {card.type_name} strength {card.strength}")
    return out


def draw(engine, seat: int | None) -> Picture:
    e = engine
    p = Picture(WIDTH, 1, background=PAPER)
    mover = "game over" if e.is_over else f"seat {e.current_player} to move"
    y = header(p, "Kingsburg", seat,
               f"year {e.year} of 5  ·  phase {e.phase} ({PHASE_NAMES[e.phase]})  ·  turn {e.turn}  ·  {mover}",
               "decision: " + label(DECISION_NAMES[e.decision]))
    y = _council(p, e, y) + 10
    if e.revealed:
        card = e.enemy_card()
        p.rect(10, y, WIDTH - 20, 30, fill="#f6d5cf", stroke=EDGE, radius=6)
        p.text(24, y + 20, f"enemy this year: {card.type_name}, strength {card.strength}", size=14, bold=True)
        y += 40
    y = _seats(p, e, seat, y) + 10
    y = _province_sheet(p, e, y) + 10
    if seat is not None:
        secrets = _secrets(e, seat)
        if secrets:
            height = 30 + 18 * sum(len(s) // 110 + 1 for s in secrets)
            top = panel(p, 10, y, WIDTH - 20, height, fill="#fffbe8")
            lines(p, 24, top + 2, secrets, WIDTH - 50, size=13)
            y += height + 10
    if e.is_over:
        p.text(WIDTH / 2, y + 20, "winner(s): " + ", ".join(f"seat {q}" for q in e.winners), size=18,
               anchor="middle", bold=True)
        y += 34
    p.height = int(y + 6)
    return p
