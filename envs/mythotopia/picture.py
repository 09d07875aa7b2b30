"""The table of Mythotopia as one seat may see it: the map of 40 provinces and 4 seas (controllers, settlements,
castles, dragons, runestones, armies, mercenaries, ships, roads), the VP cards, each seat's pieces and card
counts, the improvement display, and the seat's own hand and secret setup choice, as ``view.seat_view`` tells
them in text.

The map data has no coordinates (data/map.json lists provinces, seas and borders only), so the map is a
schematic: ``graph_layout`` of the border graph, each sea pulled towards its coastal provinces."""
from __future__ import annotations

from functools import lru_cache

from ..core.picture import (
    EDGE, HIGHLIGHT, INK, MUTED, PAPER, WIDTH, Picture, fit, header, label, lines, panel, graph_layout, seat_colour, seat_swatch, text_width, wrap,
)
from .data import NUM_PROVINCES, NUM_SEAS, SYMBOLS, VP_CARD_NAMES, tables
from .engine import PHASE_NAMES

MAP_TOP, MAP_H = 10, 560
SETTLEMENTS = ("", "village", "city", "citadel")
TERRAIN_STROKES = (("#9e9e9e", 2), ("#a0703c", 4), ("#4a3b2f", 6))  # open, hills, mountains
LAND, SEA = "#e9dfc4", "#a9cbe3"


@lru_cache(maxsize=None)
def layout() -> tuple[tuple[float, float], ...]:
    """(x, y) in [0, 1]^2 of the 40 provinces, then the 4 seas, each sea joined to its coastal provinces."""
    t = tables()
    edges = [(a, b) for a, b, _ in t.borders]
    edges += [(NUM_PROVINCES + s, x) for s in range(NUM_SEAS) for x in t.sea_provinces[s]]
    room = [85.0 if i >= NUM_PROVINCES else 70.0 for i in range(NUM_PROVINCES + NUM_SEAS)]
    return graph_layout(NUM_PROVINCES + NUM_SEAS, edges, (WIDTH - 120, MAP_H - 80), room)


def _at(point: tuple[float, float]) -> tuple[float, float]:
    return 60 + point[0] * (WIDTH - 120), MAP_TOP + 40 + point[1] * (MAP_H - 80)


def _map(p: Picture, e, y0: float) -> None:
    t = e.T
    where = [_at(point) for point in layout()]
    where = [(x, y + y0) for x, y in where]
    p.rect(10, y0 + MAP_TOP, WIDTH - 20, MAP_H, fill="#dfe9ef", stroke=EDGE, radius=6)
    for s in range(NUM_SEAS):  # seas under everything, joined to their coasts
        sx, sy = where[NUM_PROVINCES + s]
        for x in t.sea_provinces[s]:
            p.line(sx, sy, *where[x], stroke="#b9d4e6", width=3)
    for k, (a, b, terrain) in enumerate(t.borders):
        colour, width = TERRAIN_STROKES[terrain]
        p.line(*where[a], *where[b], stroke=colour, width=width)
        if e.road[k]:
            p.line(*where[a], *where[b], stroke="#222222", width=2)
    for s in range(NUM_SEAS):
        sx, sy = where[NUM_PROVINCES + s]
        ships = ", ".join(f"{c}×seat {q}" for q, c in enumerate(e.ships[s]) if c)
        with p.group(f"{t.sea_names[s]}" + (f": ships {ships}" if ships else "")):
            p.circle(sx, sy, 34, fill=SEA, stroke="#5d8fb3")
            for i, word in enumerate(wrap(t.sea_names[s], 11, 60)[:2]):
                p.text(sx, sy - 6 + 12 * i, word, size=11, anchor="middle", bold=True, colour="#1f4e70")
            for i, (q, c) in enumerate((q, c) for q, c in enumerate(e.ships[s]) if c):
                p.text(sx - 18 + i * 18, sy + 24, f"{c}", size=12, anchor="middle", colour=seat_colour(q), bold=True)
    for x in range(NUM_PROVINCES):
        _province(p, e, x, *where[x])


def _province(p: Picture, e, x: int, cx: float, cy: float) -> None:
    t = e.T
    owner = e.controller[x]
    marks = [m for m, on in (("castle", e.castle[x]), ("dragon", e.dragon[x]), ("runestone", e.rune[x])) if on]
    armies = [(q, a, e.mercs[x][q]) for q, a in enumerate(e.armies[x]) if a or e.mercs[x][q]]
    tip = (f"{t.province_names[x]} ({SYMBOLS[t.province_symbol[x]]}, strength {t.strength[x]}"
           + (", rugged" if t.rugged[x] else "") + ")"
           + (f": seat {owner} {SETTLEMENTS[e.settle[x]]}" if owner >= 0 else "")
           + "".join(f", {m}" for m in marks)
           + "".join(f", seat {q} armies {a} mercenaries {m}" for q, a, m in armies))
    with p.group(tip):
        ring = seat_colour(owner) if owner >= 0 else "#8a7f6a"
        p.circle(cx, cy, 17, fill=LAND, stroke=ring, stroke_width=4 if owner >= 0 else 1)
        settlement = SETTLEMENTS[e.settle[x]][:1].upper() if owner >= 0 else ""
        p.text(cx, cy + 5, settlement or str(t.strength[x]), size=13 if settlement else 11, anchor="middle",
               bold=bool(settlement), colour=INK if settlement else MUTED)
        name_w = text_width(t.province_names[x], 11)
        p.rect(cx - name_w / 2 - 2, cy + 20, name_w + 4, 13, fill="#eef3f6", radius=3)  # over the lines
        p.text(cx, cy + 30, t.province_names[x], size=11, anchor="middle", colour=INK)
        if marks:
            p.text(cx + 20, cy - 10, "".join(m[0].upper() for m in marks), size=11, colour="#8b1a1a", bold=True)
        for i, (q, a, m) in enumerate(armies):
            bx = cx - 20 + i * 22
            p.rect(bx - 9, cy - 36, 18, 16, fill=seat_colour(q), stroke=INK, radius=3)
            p.text(bx, cy - 24, f"{a}" + (f"+{m}" if m else ""), size=10, anchor="middle", colour="#ffffff",
                   bold=True)


def _seats(p: Picture, e, seat: int | None, y: float) -> float:
    t = e.T
    n = e.num_players
    row = 38
    top = panel(p, 10, y, WIDTH - 20, 40 + row * n, "Seats (armies and ships: personal/general)")
    for q in range(n):
        ry = top - 14 + q * row
        if q == e.current_player:
            p.rect(14, ry, WIDTH - 28, row - 4, fill=HIGHLIGHT)
        seat_swatch(p, 20, ry + 10, q)
        p.text(42, ry + 20, f"seat {q}" + (" (you)" if q == seat else ""), size=13, bold=q == seat)
        if q == e.active:
            p.text(42, ry + 34, "active", size=11, colour=MUTED)  # under the name: beside it, it runs into the VP
        p.text(170, ry + 22, f"VP {e.vp(q)}", size=15, bold=True)
        p.text(240, ry + 15, f"armies {e.armies_pers[q]}/{e.armies_gen[q]}  ships {e.ships_pers[q]}/"
               f"{e.ships_gen[q]}  villages {e.villages[q]}  cities {e.cities[q]}", size=12)
        p.text(240, ry + 30, f"hand {len(e.hand[q])}  draw {len(e.draw[q])}  discard {len(e.discard[q])}", size=12,
               colour=MUTED)
        reserve = ", ".join(t.card_names[c] for c in e.reserve[q])
        p.text(560, ry + 22, fit("reserve: " + (reserve or "none"), 12, WIDTH - 580), size=12)
    return y + 50 + row * n


def draw(engine, seat: int | None) -> Picture:
    e = engine
    t = e.T
    p = Picture(WIDTH, 1, background=PAPER)
    mover = "game over" if e.is_over else f"seat {e.current_player} to move"
    y = header(p, "Mythotopia", seat,
               f"turn {e.turn}  ·  active seat {e.active}  ·  actions used {e.actions_used}  ·  {mover}",
               "decision: " + label(PHASE_NAMES[e.phase]))
    _map(p, e, y - MAP_TOP)
    y += MAP_H + 4
    y = lines(p, 20, y + 10, ["ring: controller · V/C/C: village/city/citadel, else the province's strength · "
                              "boxes: armies+mercenaries · C/D/R: castle/dragon/runestone · black line: road · "
                              "borders grey/brown/dark: open/hills/mountains"], WIDTH - 40, size=11,
              colour=MUTED) + 4
    y = _seats(p, e, seat, y) + 10
    vp = [f"{VP_CARD_NAMES[k]} {'/'.join(str(v) for v in vals) or '-'}" for k, vals in enumerate(e.vp_cards)
          if vals is not None]
    texts = ["VP cards (counters left): " + ",  ".join(vp),
             "improvement display: " + (", ".join(t.card_names[c] for c in e.display) or "empty"),
             f"improvement deck {len(e.impdeck)}  ·  province stack {len(e.pstack)}"]
    if e.played or e.limbo:
        texts.append("played in this action: " + ", ".join(t.card_names[c] for c in e.played + e.limbo))
    height = 24 + 17 * sum(len(text) // 120 + 1 for text in texts)
    top = panel(p, 10, y, WIDTH - 20, height)
    lines(p, 24, top, texts, WIDTH - 50, size=12)
    y += height + 10
    if seat is not None:
        own = [f"your hand (seat {seat}): " + (", ".join(t.card_names[c] for c in e.hand[seat]) or "empty")]
        if e.setup_choice[seat]:
            own.append("your secret setup choice: " + ", ".join(t.province_names[x] for x in e.setup_choice[seat]))
        height = 24 + 18 * sum(len(text) // 110 + 1 for text in own)
        top = panel(p, 10, y, WIDTH - 20, height, fill="#fffbe8")
        lines(p, 24, top, own, WIDTH - 50, size=13)
        y += height + 10
    if e.winner >= 0:
        p.text(WIDTH / 2, y + 20, f"seat {e.winner} wins", size=18, anchor="middle", bold=True)
        y += 34
    p.height = int(y)
    return p
