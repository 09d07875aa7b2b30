"""The table of Medioevo Universale as one seat may see it: the map (control, armies, barbarians, buildings,
transports, markers), the round, stage and phase, the barbarian horde, each seat's empire, EP, loans, tax rate,
technologies and counts, and the seat's own secrets (money, sealed bid, tax choice, the cards it chooses from,
its cards' goals, its purchases behind the screen), as ``view.seat_view`` tells them in text: other seats' money
only with ``reveal_money``, and with hidden purchases the seats behind the screen as phase 4 began, the board
left out.

The map data has no coordinates (data/map.json lists regions, sea zones and their borders only), so the map is a
schematic: ``graph_layout`` of the region graph."""
from __future__ import annotations

from functools import lru_cache

from ..core.picture import (
    EDGE, HIGHLIGHT, INK, MUTED, PAPER, WIDTH, Picture, fit, graph_layout, header, label, lines, panel, seat_colour,
    seat_swatch, text_width,
)
from .constants import NUM_UNIT_TYPES, PHASE_NAMES, STAGE_NAMES
from .data import BUILDING_NAMES, EMPIRES, UNIT_NAMES, VEHICLE_KINDS
from .view import behind_screen, own_secrets

MAP_H = 700
LAND, SEA = "#e9dfc4", "#a9cbe3"
BUILDING_MARKS = ("Vi", "To", "Ci", "Tw", "Fo", "Ca", "Ct")  # per BUILDING_NAMES


@lru_cache(maxsize=None)
def layout(board, playable: tuple[bool, ...]) -> tuple[dict[int, tuple[float, float]], tuple[tuple[int, int], ...]]:
    """(x, y) in [0, 1]^2 per region and sea zone of ``board`` in play (the empires in play decide which), and the
    borders between them."""
    nodes = [i for i in range(board.num_nodes) if playable[i]]
    index = {node: i for i, node in enumerate(nodes)}
    borders = tuple(sorted({(min(a, b), max(a, b)) for a in nodes for b in board.adj[a] if b in index}))
    room = [74.0 if board.is_sea[node] else 64.0 for node in nodes]
    where = graph_layout(len(nodes), [(index[a], index[b]) for a, b in borders], (WIDTH - 110, MAP_H - 80), room)
    return dict(zip(nodes, where)), borders


def _short(name: str) -> str:
    """A sea zone's name without its English gloss: 'Adria (Adriatic Sea)' -> 'Adria'."""
    return name.split(" (")[0]


def _map(p: Picture, e, y0: float) -> float:
    b = e.board
    n = e.num_players
    places, borders = layout(b, tuple(e.playable))
    where = {node: (55 + x * (WIDTH - 110), y0 + 45 + y * (MAP_H - 80)) for node, (x, y) in places.items()}
    p.rect(10, y0, WIDTH - 20, MAP_H, fill="#dfe9ef", stroke=EDGE, radius=6)
    for a, c in borders:
        sea = b.is_sea[a] or b.is_sea[c]
        strait = (a, c) in b.strait
        p.line(*where[a], *where[c], stroke="#b9d4e6" if sea else "#8d6e4a" if strait else "#a39e93",
               width=3 if sea or strait else 1.5)
    on_top = []  # (x, y, tooltip, boxes of armies and transports) per region
    for node, (x, y) in where.items():
        owner = e.controller(node)
        armies = [(q, sum(e.units[q][node * NUM_UNIT_TYPES:(node + 1) * NUM_UNIT_TYPES])) for q in range(n)]
        armies = [(q, size) for q, size in armies if size]
        buildings = [(BUILDING_NAMES[k], e.building_owner_at(node, cls))
                     for cls in range(3) if (k := e.building_kind_at(node, cls)) >= 0]
        objects = [e.objs[oid] for oid in e.objects_at(node)]
        tip = [b.names[node] + (f" (home of {EMPIRES[b.empire[node]]})" if b.empire[node] >= 0 else "")]
        if owner >= 0:
            tip.append(f"controlled by seat {owner}")
        tip += [f"seat {q}: " + " ".join(f"{UNIT_NAMES[t]}x{e.units[q][node * NUM_UNIT_TYPES + t]}"
                                         for t in range(NUM_UNIT_TYPES) if e.units[q][node * NUM_UNIT_TYPES + t])
                for q, _ in armies]
        if e.barb_size(node):
            tip.append(f"barbarians {e.barb_size(node)}")
        tip += [f"{kind} (seat {q})" for kind, q in buildings]
        tip += [f"{VEHICLE_KINDS[o[1]]} {o[2]} (seat {o[0]})" for o in objects]
        if e.marker[node] >= 0:
            tip.append(f"marker of seat {e.marker[node]}")
        with p.group(", ".join(tip)):
            ring = seat_colour(owner) if owner >= 0 else "#8a7f6a"
            p.circle(x, y, 18 if b.is_sea[node] else 13, fill=SEA if b.is_sea[node] else LAND, stroke=ring,
                     stroke_width=4 if owner >= 0 else 1)
            if buildings:
                p.text(x, y + 3, "".join(BUILDING_MARKS[BUILDING_NAMES.index(kind)] for kind, _ in buildings),
                       size=8 if len(buildings) > 1 else 10, anchor="middle", bold=True)
            name = _short(b.names[node])
            width = text_width(name, 10)
            p.rect(x - width / 2 - 2, y + 14, width + 4, 12, fill="#eef3f6", radius=3)
            p.text(x, y + 23, name, size=10, anchor="middle", colour="#1f4e70" if b.is_sea[node] else INK)
            if e.marker[node] >= 0:
                p.circle(x + 14, y - 10, 4, fill=seat_colour(e.marker[node]), stroke=INK)
        boxes = [(seat_colour(q), str(size)) for q, size in armies]
        if e.barb_size(node):
            boxes.append(("#333333", str(e.barb_size(node))))
        if objects:
            boxes.append(("#7a5c99", f"v{len(objects)}"))
        if boxes:
            on_top.append((x, y, ", ".join(tip), boxes))
    for x, y, tip, boxes in on_top:  # over every name
        with p.group(tip):
            for i, (colour, text) in enumerate(boxes):
                bx = x - 9 * (len(boxes) - 1) + i * 18
                p.rect(bx - 8, y - 30, 16, 14, fill=colour, stroke=INK, radius=3)
                p.text(bx, y - 19, text, size=9, anchor="middle", colour="#ffffff", bold=True)
    legend = ("ring: controller · letters: buildings (" + ", ".join(
        f"{mark} {name}" for mark, name in zip(BUILDING_MARKS, BUILDING_NAMES)) + ") · boxes: units per seat, "
        "barbarians (black), v: transports · dot: marker")
    return lines(p, 20, y0 + MAP_H + 14, [legend], WIDTH - 40, size=11, colour=MUTED)


def _seats(p: Picture, e, seat: int | None, secret: set[int], y: float) -> float:
    n = e.num_players
    row = 38
    top = panel(p, 10, y, WIDTH - 20, 40 + row * n, "Seats (technologies by branch)")
    for q in range(n):
        ry = top - 14 + q * row
        if q == e.current_player:
            p.rect(14, ry, WIDTH - 28, row - 4, fill=HIGHLIGHT)
        seat_swatch(p, 20, ry + 10, q)
        empire = EMPIRES[e.empire_of[q]] if e.empire_of[q] >= 0 else "?"
        p.text(42, ry + 22, f"seat {q} {empire}" + (" (you)" if q == seat else ""), size=12, bold=q == seat)
        p.text(172, ry + 22, f"EP {e.ep[q]}", size=15, bold=True)
        money = e.money[q] if q == seat or e.config.reveal_money else "?"
        if q in secret:
            snap = e.purchase_snapshot
            first = (f"behind the screen; as phase 4 began: tech {''.join(str(x) for x in snap['tech'][q])}  "
                     f"cards {len(snap['hand'][q])}  tokens {sum(snap['tokens'][q])}")
        else:
            first = (f"money {money}  loans {e.loans[q]}  tax {e.tax_rate[q]}  tech "
                     f"{''.join(str(x) for x in e.tech[q])}  cards {len(e.hand[q])}  tokens {sum(e.tokens[q])}")
        p.text(240, ry + 15, fit(first, 12, WIDTH - 260), size=12)
        if q not in secret:
            p.text(240, ry + 30, f"units {e.total_units(q)}  objects {len(e.own_objects(q))}"
                   + ("  ELIMINATED" if e.eliminated[q] else ""), size=12, colour=MUTED)
    return y + 50 + row * n


def draw(engine, seat: int | None) -> Picture:
    e = engine
    p = Picture(WIDTH, 1, background=PAPER)
    mover = "game over" if e.is_over else f"seat {e.current_player} to move"
    y = header(p, "Medioevo Universale", seat,
               f"round {e.round}/{e.num_rounds}  ·  stage {label(STAGE_NAMES[e.stage])}  ·  turn order "
               f"{' '.join(str(q) for q in e.order)}  ·  {mover}", "decision: " + label(PHASE_NAMES[e.phase]))
    secret = behind_screen(e, seat)
    p.text(20, y + 6, f"barbarian horde: LI {e.horde[0]}  AR {e.horde[1]}  CP {e.horde[2]}   ·   barbarian dice "
           + " ".join(str(d) for d in e.barb_dice), size=13)
    y += 16
    if secret:
        p.rect(10, y, WIDTH - 20, 40, fill="#e6e1d6", stroke=EDGE, radius=6)
        p.text(WIDTH / 2, y + 25, "the board is hidden while seats " + ", ".join(str(q) for q in sorted(secret))
               + " have purchases behind the screen", size=14, anchor="middle")
        y += 50
    else:
        y = _map(p, e, y) + 10
    y = _seats(p, e, seat, secret, y) + 10
    if seat is not None:
        own = own_secrets(e, seat)
        height = 24 + 18 * sum(len(text) // 110 + 1 for text in own)
        top = panel(p, 10, y, WIDTH - 20, height, fill="#fffbe8")
        lines(p, 24, top, own, WIDTH - 50, size=13)
        y += height + 10
    if e.final_breakdown is not None:
        p.text(WIDTH / 2, y + 20, "final EP: " + ", ".join(f"seat {q} {ep}" for q, ep in enumerate(e.ep)), size=16,
               anchor="middle", bold=True)
        y += 34
    p.height = int(y)
    return p
