"""A picture of a game's table, described once and rendered two ways: SVG text and an RGB array.

A game's ``picture.draw(engine, seat)`` adds shapes to a ``Picture``; ``to_svg()`` is what a web page shows
(``env.seat_picture(seat)``) and ``to_rgb_array()`` what ``render_mode="rgb_array"`` returns. Both render the
same list of shapes in the order they were added, so the two are the same picture.

Coordinates are pixels from the top left. Colours are ``"#rrggbb"`` (or None for no fill / no outline), so
that both renderings read them alike. Text is placed on its baseline; ``anchor`` is "start", "middle" or
"end" as in SVG. ``group(title)`` gathers the shapes added inside it under a tooltip (SVG ``<title>``; the
array has no tooltips).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator, Sequence

import numpy as np

_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_ANCHORS = ("start", "middle", "end")
_PIL_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}  # Pillow: left/middle/right, on the baseline
# characters XML 1.0 does not allow in a document
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
FONT_FAMILY = "DejaVu Sans, Verdana, sans-serif"
#: a glyph's average advance, as a share of the font size: for laying text out without measuring it
CHAR_WIDTH = 0.56


_CHECKED: dict[str, str] = {}  # colours seen, as written -> lower case (a picture repeats a few colours)


def _colour(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    checked = _CHECKED.get(value) if isinstance(value, str) else None
    if checked is None:
        if not isinstance(value, str) or not _COLOUR.fullmatch(value):
            raise ValueError(f"{what} must be a colour '#rrggbb' or None, got {value!r}")
        checked = _CHECKED[value] = value.lower()
    return checked


def _rgb(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def _escape(text: str) -> str:
    text = _NOT_XML.sub("?", text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def _number(value: float) -> str:
    """A coordinate to a tenth of a pixel, without a trailing ".0"."""
    if type(value) is int:
        return str(value)
    return f"{value:.1f}".rstrip("0").rstrip(".")


def text_width(text: str, size: float) -> float:
    """About how wide ``text`` is at font size ``size`` (for layout; no font is measured)."""
    return len(text) * size * CHAR_WIDTH


def fit(text: str, size: float, width: float) -> str:
    """``text`` cut with an ellipsis to about ``width`` pixels at font size ``size``."""
    most = max(1, int(width / (size * CHAR_WIDTH)))
    return text if len(text) <= most else text[:max(0, most - 1)] + "…"


def wrap(text: str, size: float, width: float) -> list[str]:
    """``text`` broken at spaces into lines of about ``width`` pixels at font size ``size``."""
    most = max(1, int(width / (size * CHAR_WIDTH)))
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > most:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return [fit(line, size, width) for line in lines]


class Picture:
    """Shapes on a ``width`` x ``height`` canvas, rendered as SVG text or as an RGB array. A picture laid out from
    the top down may set ``height`` once its last shape is placed."""

    def __init__(self, width: int, height: int, background: str = "#ffffff"):
        if isinstance(width, bool) or isinstance(height, bool) or not (
                isinstance(width, int) and isinstance(height, int) and width > 0 and height > 0):
            raise ValueError(f"a picture's size must be positive integers, got {width!r} x {height!r}")
        self.width = width
        self.height = height
        self.background = _colour(background, "background")
        self._items: list[tuple] = []  # ("kind", {attributes}) in drawing order
        self.header_lines: tuple[int, int] | None = None  # the items of the header's status and decision lines

    # -- shapes ---------------------------------------------------------------------------------
    def rect(self, x: float, y: float, w: float, h: float, fill: str | None = None, stroke: str | None = None,
             stroke_width: float = 1, radius: float = 0) -> None:
        self._items.append(("rect", dict(x=x, y=y, w=max(0, w), h=max(0, h), fill=_colour(fill, "fill"),
                                         stroke=_colour(stroke, "stroke"), sw=stroke_width, r=radius)))

    def circle(self, cx: float, cy: float, r: float, fill: str | None = None, stroke: str | None = None,
               stroke_width: float = 1) -> None:
        self._items.append(("circle", dict(cx=cx, cy=cy, r=max(0, r), fill=_colour(fill, "fill"),
                                           stroke=_colour(stroke, "stroke"), sw=stroke_width)))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#000000", width: float = 1) -> None:
        self._items.append(("line", dict(x1=x1, y1=y1, x2=x2, y2=y2, stroke=_colour(stroke, "stroke"), sw=width)))

    def polygon(self, points: Sequence[tuple[float, float]], fill: str | None = None, stroke: str | None = None,
                stroke_width: float = 1) -> None:
        if len(points) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(points)}")
        self._items.append(("polygon", dict(points=[(float(x), float(y)) for x, y in points],
                                            fill=_colour(fill, "fill"), stroke=_colour(stroke, "stroke"),
                                            sw=stroke_width)))

    def text(self, x: float, y: float, text: str, size: float = 14, colour: str = "#000000",
             anchor: str = "start", bold: bool = False) -> None:
        """``text`` on one line with its baseline at ``y``; ``anchor`` says which end (or the middle) is at ``x``."""
        if anchor not in _ANCHORS:
            raise ValueError(f"anchor must be one of {_ANCHORS}, got {anchor!r}")
        self._items.append(("text", dict(x=x, y=y, text=str(text), size=size, fill=_colour(colour, "colour"),
                                         anchor=anchor, bold=bool(bold))))

    @contextmanager
    def group(self, title: str | None = None) -> Iterator[None]:
        """The shapes added inside belong together; ``title`` is their tooltip in the SVG."""
        self._items.append(("open", dict(title=title)))
        try:
            yield
        finally:
            self._items.append(("close", {}))

    # -- renderings -----------------------------------------------------------------------------
    def to_svg(self) -> str:
        """One ``<svg>`` element: no scripts, no external references."""
        w, h = self.width, self.height
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
               f'font-family="{FONT_FAMILY}">']
        if self.background is not None:
            out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="{self.background}"/>')
        n = _number
        for kind, a in self._items:
            if kind == "open":
                out.append("<g>" + (f"<title>{_escape(a['title'])}</title>" if a["title"] else ""))
            elif kind == "close":
                out.append("</g>")
            elif kind == "rect":
                rounded = f' rx="{n(a["r"])}"' if a["r"] else ""
                out.append(f'<rect x="{n(a["x"])}" y="{n(a["y"])}" width="{n(a["w"])}" height="{n(a["h"])}"'
                           f'{rounded}{_paint(a)}/>')
            elif kind == "circle":
                out.append(f'<circle cx="{n(a["cx"])}" cy="{n(a["cy"])}" r="{n(a["r"])}"{_paint(a)}/>')
            elif kind == "line":
                out.append(f'<line x1="{n(a["x1"])}" y1="{n(a["y1"])}" x2="{n(a["x2"])}" y2="{n(a["y2"])}" '
                           f'stroke="{a["stroke"]}" stroke-width="{n(a["sw"])}"/>')
            elif kind == "polygon":
                points = " ".join(f"{n(x)},{n(y)}" for x, y in a["points"])
                out.append(f'<polygon points="{points}"{_paint(a)}/>')
            elif kind == "text":
                weight = ' font-weight="bold"' if a["bold"] else ""
                out.append(f'<text x="{n(a["x"])}" y="{n(a["y"])}" font-size="{n(a["size"])}" '
                           f'text-anchor="{a["anchor"]}" fill="{a["fill"]}"{weight}>{_escape(a["text"])}</text>')
        out.append("</svg>")
        return "\n".join(out)

    def to_rgb_array(self) -> np.ndarray:
        """The picture drawn with Pillow: an array of shape (height, width, 3), dtype uint8."""
        try:
            from PIL import Image, ImageDraw
        except ImportError as error:  # pragma: no cover - pillow is a base dependency
            raise ImportError("render_mode='rgb_array' draws with Pillow: pip install pillow") from error
        image = Image.new("RGB", (self.width, self.height), _rgb(self.background or "#ffffff"))
        draw = ImageDraw.Draw(image)
        for kind, a in self._items:
            if kind in ("open", "close"):
                continue
            fill = _rgb(a["fill"]) if a.get("fill") else None
            outline = _rgb(a["stroke"]) if a.get("stroke") else None
            width = max(1, round(a["sw"])) if outline is not None else 0
            if kind == "rect":
                box = (a["x"], a["y"], a["x"] + a["w"], a["y"] + a["h"])
                if a["r"]:
                    draw.rounded_rectangle(box, radius=a["r"], fill=fill, outline=outline, width=width)
                else:
                    draw.rectangle(box, fill=fill, outline=outline, width=width)
            elif kind == "circle":
                cx, cy, r = a["cx"], a["cy"], a["r"]
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline, width=width)
            elif kind == "line":
                draw.line((a["x1"], a["y1"], a["x2"], a["y2"]), fill=outline, width=width)
            elif kind == "polygon":
                draw.polygon(a["points"], fill=fill, outline=outline, width=width)
            elif kind == "text":
                draw.text((a["x"], a["y"]), a["text"], fill=fill, font=_font(a["size"], a["bold"]),
                          anchor=_PIL_ANCHOR[a["anchor"]])
        return np.asarray(image, dtype=np.uint8).copy()


def _paint(a: dict) -> str:
    fill = f' fill="{a["fill"]}"' if a["fill"] else ' fill="none"'
    stroke = f' stroke="{a["stroke"]}" stroke-width="{_number(a["sw"])}"' if a["stroke"] else ""
    return fill + stroke


@lru_cache(maxsize=64)
def _font(size: float, bold: bool):
    """DejaVu Sans (bold) when the system has it, else Pillow's own font at that size."""
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    try:
        return ImageFont.truetype(name, size)
    except OSError:
        return ImageFont.load_default(size=size)


# -- layout shared by the games' pictures ---------------------------------------------------------------------
WIDTH = 900  # every game's picture is this wide
INK = "#222222"
MUTED = "#666666"
PAPER = "#f6f1e7"  # the table
PANEL = "#fffdf8"
EDGE = "#b8ad98"
HIGHLIGHT = "#fff3b0"  # the seat to move, the viewing seat's own panel
SEAT_COLOURS = ("#c0392b", "#2c6fbb", "#2e8b57", "#d4861a", "#7d3c98", "#138d90")


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def header(picture: Picture, title: str, seat: int | None, status: str, decision: str) -> float:
    """The top band: the game, whose picture it is, whose turn and what is being decided; returns the y below."""
    picture.rect(0, 0, picture.width, 78, fill="#3b3226")
    picture.text(12, 24, title, size=18, colour="#ffffff", bold=True)
    who = "public view" if seat is None else f"seat {seat}'s view"
    picture.text(picture.width - 12, 24, who, size=14, colour="#ffe8a3", anchor="end", bold=seat is not None)
    picture.text(12, 47, fit(status, 14, picture.width - 24), size=14, colour="#f0e6d2")
    picture.text(12, 68, fit(decision, 14, picture.width - 24), size=14, colour="#ffe8a3", bold=True)
    # the status and decision lines, for ``cut_off``: a picture is drawn from the engine, which knows no max_turns
    picture.header_lines = (len(picture._items) - 2, len(picture._items) - 1)
    return 90


def cut_off(picture: Picture, mover: int, message: str) -> None:
    """The header of a game cut off by the env (max_turns) says so: no seat is to move and nothing is decided."""
    if picture.header_lines is None:
        raise ValueError("cut_off needs a picture with a header")
    status, decision = picture.header_lines
    text = picture._items[status][1]["text"].replace(f"seat {mover} to move", "game cut off")
    picture._items[status][1]["text"] = fit(text, 14, picture.width - 24)
    picture._items[decision][1]["text"] = fit(message, 14, picture.width - 24)


def panel(picture: Picture, x: float, y: float, w: float, h: float, title: str | None = None,
          fill: str = PANEL) -> float:
    """A framed box with an optional title; returns the y of its first line of content."""
    picture.rect(x, y, w, h, fill=fill, stroke=EDGE, radius=6)
    if title is None:
        return y + 20
    picture.text(x + 10, y + 19, title, size=14, colour=INK, bold=True)
    return y + 40


def lines(picture: Picture, x: float, y: float, texts: Sequence[str], width: float, size: float = 13,
          colour: str = INK, gap: float = 4) -> float:
    """``texts`` one under another, each wrapped to ``width``; returns the y below the last."""
    for text in texts:
        for line in wrap(text, size, width):
            picture.text(x, y, line, size=size, colour=colour)
            y += size + gap
    return y


def seat_swatch(picture: Picture, x: float, y: float, seat: int, size: float = 14) -> None:
    """A square of the seat's colour, its top left at (x, y)."""
    picture.rect(x, y, size, size, fill=seat_colour(seat), stroke=INK, radius=2)


def label(name: str) -> str:
    """A rules constant's name as words: ``LIBRARY_PICK`` -> ``library pick``."""
    return name.replace("_", " ").lower()


def graph_layout(count: int, edges: Sequence[tuple[int, int]], size: tuple[float, float],
                 room: Sequence[float]) -> tuple[tuple[float, float], ...]:
    """A schematic map for map data without coordinates: (x, y) in [0, 1]^2 per node of a graph.

    A Fruchterman-Reingold layout of ``edges`` from a fixed start (so every picture places the map alike), then
    nodes pushed apart on a canvas of ``size`` pixels until node i keeps about ``room[i]`` pixels from the others
    (distances count height more than width: names under a node are wide, not tall). Costs about a second: cache it.
    """
    pos = np.random.default_rng(0).random((count, 2))
    ends = np.array(edges)
    k = 1.0 / np.sqrt(count)
    step = 0.1
    for _ in range(400):
        delta = pos[:, None, :] - pos[None, :, :]
        distance = np.maximum(np.linalg.norm(delta, axis=2), 1e-3)
        force = (delta / distance[..., None] * (k * k / distance)[..., None]).sum(axis=1)  # repulsion
        pull = pos[ends[:, 0]] - pos[ends[:, 1]]
        length = np.maximum(np.linalg.norm(pull, axis=1), 1e-3)[:, None]
        attraction = pull * length / k
        np.add.at(force, ends[:, 0], -attraction)
        np.add.at(force, ends[:, 1], attraction)
        strength = np.maximum(np.linalg.norm(force, axis=1), 1e-9)[:, None]
        pos += force / strength * np.minimum(strength, step)
        step *= 0.99
    pos -= pos.min(axis=0)
    pos /= np.maximum(pos.max(axis=0), 1e-9)
    scale = np.array(size, float)
    pos *= scale
    need = np.maximum.outer(np.asarray(room, float), np.asarray(room, float))
    np.fill_diagonal(need, 0.0)
    for _ in range(1000):
        delta = pos[:, None, :] - pos[None, :, :]
        distance = np.maximum(np.hypot(delta[..., 0], delta[..., 1] * 1.3), 1e-3)
        overlap = np.clip(need - distance, 0, None)
        if not overlap.any():
            break
        pos += (delta / distance[..., None] * overlap[..., None] * 0.3).sum(axis=1)
        pos = np.clip(pos, 0, scale)
    return tuple((float(x), float(y)) for x, y in pos / scale)
