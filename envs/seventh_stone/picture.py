"""The table of Seventh Stone as one seat may see it: the board (terrain, portals, control, capitals, buildings,
lava, conflicts, armies with their units and the number of stones under them), the year, event and turn order,
the equipment offer, each seat's score and hand size, and the seat's own stones (in hand and under its armies)
and sealed allocation, as ``view.seat_view`` tells them in text."""
from __future__ import annotations

from ..core.picture import (
    EDGE, HIGHLIGHT, INK, MUTED, PAPER, WIDTH, Picture, fit, header, label, lines, panel, seat_colour, seat_swatch,
)
from .data import ALLOC_FIELDS, BUILDINGS, EVENTS, FOREST, GRID, OFF, PORTALS, TERRAINS, UNIT_TYPES, VOLCANO
from .engine import KINDS, PHASE_NAMES, Phase

TERRAIN_COLOURS = ("#f6f1e7", "#8fb8de", "#cfe3a1", "#5f9e58", "#a7a29a", "#e8d27a", "#ecd9ae", "#b0413e")
PORTAL_COLOURS = (None, "#2f6fd6", "#e3c21b", "#d03a2a")
OFFER_STATUS = ("available", "taken", "discarded")
CELL = 96
DARK = (FOREST, VOLCANO)  # terrains labelled in white


def _cell(p: Picture, e, cell: int, x: float, y: float) -> None:
    b = e.board
    terrain = b.terrain[cell]
    owner = e.controller[cell]
    armies = e.armies[cell]
    tip = [f"r{cell // GRID + 1}c{cell % GRID + 1} {TERRAINS[terrain]}"]
    if b.portal[cell]:
        tip.append(f"{PORTALS[b.portal[cell]]} portal")
    if owner >= 0:
        tip.append(f"controlled by seat {owner}")
    tip += [f"seat {a.owner} {UNIT_TYPES[a.utype]} {len(a.mil)}+{len(a.merc)} mercenaries, stones {len(a.stones)}"
            for a in armies]
    with p.group(", ".join(tip)):
        p.rect(x, y, CELL - 4, CELL - 4, fill=TERRAIN_COLOURS[terrain],
               stroke=seat_colour(owner) if owner >= 0 else EDGE, stroke_width=4 if owner >= 0 else 1, radius=4)
        p.text(x + 5, y + 14, TERRAINS[terrain], size=10, colour="#ffffff" if terrain in DARK else MUTED)
        if b.portal[cell]:
            p.circle(x + CELL - 16, y + 12, 6, fill=PORTAL_COLOURS[b.portal[cell]], stroke=INK)
        marks = []
        if e.capital_of[cell] >= 0:
            marks.append(f"capital {e.capital_of[cell]}")
        marks += [BUILDINGS[kind] + ("" if ready else "*") for kind, ready in e.buildings[cell]]
        if e.lava[cell]:
            marks.append("LAVA")
        if cell in e.conflicts:
            marks.append("conflict!")
        for i, mark in enumerate(marks[:2] if len(marks) <= 2 else [marks[0], ", ".join(marks[1:])]):
            p.text(x + 5, y + 28 + 12 * i, fit(mark, 10, CELL - 12), size=10, bold=True,
                   colour="#8b1a1a" if mark in ("LAVA", "conflict!") else "#ffffff" if terrain in DARK else INK)
        for i, a in enumerate(armies[:3]):
            ay = y + 60 + i * 13
            p.rect(x + 4, ay - 10, CELL - 12, 13, fill=seat_colour(a.owner), radius=2)
            stones = f" ●{len(a.stones)}" if a.stones else ""
            more = f"  (+{len(armies) - 3})" if i == 2 and len(armies) > 3 else ""
            p.text(x + 7, ay, f"{'MRC'[a.utype]} {len(a.mil)}+{len(a.merc)}{stones}{more}", size=10,
                   colour="#ffffff", bold=True)


def _board(p: Picture, e, y: float) -> float:
    b = e.board
    x0 = (WIDTH - b.num_cols * CELL) / 2
    for r in range(b.num_rows):
        for c in range(b.num_cols):
            cell = r * GRID + c
            if b.terrain[cell] != OFF:
                _cell(p, e, cell, x0 + c * CELL, y + r * CELL)
    return lines(p, 20, y + b.num_rows * CELL + 12, ["armies: M/R/C melee/ranged/cavalry, units + mercenaries, "
                 "● stones under the army · * a building not yet ready · coloured frame: controller"], WIDTH - 40,
                 size=11, colour=MUTED)


def _seats(p: Picture, e, seat: int | None, y: float) -> float:
    n = e.num_players
    row = 30
    top = panel(p, 10, y, WIDTH - 20, 40 + row * n, f"Seats (win at {e.win_ts} TS)")
    for q in range(n):
        ry = top - 14 + q * row
        if q == e.current_player:
            p.rect(14, ry, WIDTH - 28, row - 4, fill=HIGHLIGHT)
        seat_swatch(p, 20, ry + 6, q)
        p.text(42, ry + 18, f"seat {q}" + (" (you)" if q == seat else ""), size=13, bold=q == seat)
        p.text(140, ry + 18, f"TS {e.ts(q)}", size=15, bold=True)
        p.text(220, ry + 18, f"production {e.production(q)}   upkeep {e.upkeep(q)}   tournament stones "
               f"{e.tstones[q]}   tournament wins {e.tourn_wins[q]}   stones in hand {sum(e.hands[q])}", size=12)
    return y + 50 + row * n


def _own(e, seat: int) -> list[str]:
    """What only ``seat`` knows, as view.seat_view lists it."""
    hand = ", ".join(f"{KINDS[k].name} x{c}" for k, c in enumerate(e.hands[seat]) if c) or "empty"
    out = [f"your hand (seat {seat}): {hand}"]
    under = [f"r{cell // GRID + 1}c{cell % GRID + 1}: " + ", ".join(KINDS[k].name for k in a.stones)
             for cell, armies in enumerate(e.armies) for a in armies if a.owner == seat and a.stones]
    if under:
        out.append("your stones under your armies: " + "; ".join(under))
    if e.phase == Phase.ALLOC:
        alloc = ", ".join(f"{label(ALLOC_FIELDS[f])} {v}" for f, v in enumerate(e.alloc[seat]) if v) or "nothing yet"
        out.append(f"your sealed allocation: {alloc}  (budget left {e.budget_left(seat)})")
    return out


def draw(engine, seat: int | None) -> Picture:
    e = engine
    p = Picture(WIDTH, 1, background=PAPER)
    mover = "game over" if e.is_over else f"seat {e.current_player} to move"
    event = label(EVENTS[e.event]) if e.event >= 0 else "none"
    y = header(p, "Seventh Stone", seat,
               f"year {e.year}  ·  event: {event}  ·  order {' '.join(str(q) for q in e.order)}  ·  unit max "
               f"{e.unit_max}  ·  {mover}", "decision: " + label(PHASE_NAMES[e.phase]))
    y = _board(p, e, y) + 8
    y = _seats(p, e, seat, y) + 10
    texts = []
    if e.offer:
        texts.append("equipment offer: " + ", ".join(
            f"{KINDS[k].name} ({'taken by you' if seat is not None and taker == seat else OFFER_STATUS[status]})"
            for k, status, taker in zip(e.offer, e.offer_status, e.offer_taker)))
    texts.append(f"equipment stacks: {' '.join(str(len(s)) for s in e.stacks)}  ·  discarded: "
                 + (", ".join(f"{KINDS[k].name} x{c}" for k, c in enumerate(e.discard) if c) or "none"))
    if seat is not None:
        texts += _own(e, seat)
    height = 24 + 18 * sum(len(text) // 110 + 1 for text in texts)
    top = panel(p, 10, y, WIDTH - 20, height, fill="#fffbe8" if seat is not None else PAPER)
    lines(p, 24, top, texts, WIDTH - 50, size=13)
    y += height + 10
    if e.winners:
        p.text(WIDTH / 2, y + 20, "winner(s): " + ", ".join(f"seat {q}" for q in e.winners), size=18,
               anchor="middle", bold=True)
        y += 34
    p.height = int(y)
    return p
