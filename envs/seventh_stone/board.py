"""The map: building it from the tile stack (section 3.1, 10, 11.2), adjacency and eruption targets.

Cells are indexed on a fixed 7 x 7 grid, ``cell = row * 7 + col``; cells outside the board are OFF.
"""
from __future__ import annotations

import numpy as np

from .data import (
    DESERT, FOREST, GRID, MOUNTAIN, NUM_CELLS, OFF, PLAIN, TEMPLE, VOLCANO, WATER, columns, four_islands,
    rows, tile_stack, TERRAINS, PORTALS,
)

ORTHO = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAG = ((-1, -1), (-1, 1), (1, -1), (1, 1))
P_PLAIN, P_FOREST, P_MOUNTAIN, P_DESERT = range(4)


def _ray(cell: int, dr: int, dc: int) -> tuple[int, ...]:
    """The grid cells from cell (excluded) in direction (dr, dc) up to the grid's edge."""
    r, c = divmod(cell, GRID)
    out = []
    r, c = r + dr, c + dc
    while 0 <= r < GRID and 0 <= c < GRID:
        out.append(r * GRID + c)
        r, c = r + dr, c + dc
    return tuple(out)


# per cell, the rays in the order of ORTHO / DIAG: the same for every map, built once
_ORTHO_RAYS = [tuple(_ray(cell, dr, dc) for dr, dc in ORTHO) for cell in range(NUM_CELLS)]
_DIAG_RAYS = [tuple(_ray(cell, dr, dc) for dr, dc in DIAG) for cell in range(NUM_CELLS)]
_ORTHO_NEAR = [tuple(ray[0] for ray in rays if ray) for rays in _ORTHO_RAYS]
_DIAG_NEAR = [tuple(ray[0] for ray in rays if ray) for rays in _DIAG_RAYS]
_ORTHO_PAIRS = [tuple((ray[0], ray[1]) for ray in rays if len(ray) > 1) for rays in _ORTHO_RAYS]


class Board:
    """Static map data: terrain, printed terrain, portals, neighbours, eruption coordinates."""

    def __init__(self, terrain: list[int], printed: list[int], portal: list[int], num_cols: int, num_rows: int,
                 eruption_cells: list[list[int]] | None, rng: np.random.Generator | None = None):
        self.terrain = terrain
        self.printed = printed
        self.portal = portal
        self.num_cols = num_cols
        self.num_rows = num_rows
        self.volcano = terrain.index(VOLCANO) if VOLCANO in terrain else -1
        self.land = [t in (PLAIN, FOREST, MOUNTAIN, TEMPLE, DESERT) for t in terrain]
        self.controllable = [t in (PLAIN, FOREST, MOUNTAIN, TEMPLE) for t in terrain]
        self.yield_field = [t in (PLAIN, FOREST, MOUNTAIN) for t in terrain]
        on = [t != OFF for t in terrain]
        # neighbours and ranged lines follow the grid's rays, cut at the first cell off the board
        self.ortho: list[tuple[int, ...]] = [tuple([q for q in near if on[q]]) for near in _ORTHO_NEAR]
        self.diag: list[tuple[int, ...]] = [tuple([q for q in near if on[q]]) for near in _DIAG_NEAR]
        self.portal_cells = [cell for cell in range(NUM_CELLS) if portal[cell] > 0]
        # straight crossings over water (and, with Agility, the volcano): per cell, per direction
        self.crossing = self._crossings(False)
        self.crossing_agile = self._crossings(True)
        # ranged reach 2 from a mountain (advanced rules): (middle cell, far cell) per direction
        self.line2 = [tuple([pair for pair in pairs if on[pair[0]] and on[pair[1]]]) for pairs in _ORTHO_PAIRS]
        self.eruption_cells = eruption_cells  # four islands: fixed [h-1][v-1] -> cell
        if eruption_cells is None:
            self.eruption_corner_tie = self._corner_tie()

    def __deepcopy__(self, memo):  # static once built: an engine's clone shares its game's map
        return self

    def _crossings(self, agile: bool) -> list[tuple[int, ...]]:
        """Per cell, the land cells at the far end of a straight line of water (Agility: and the volcano)."""
        barrier = (WATER, VOLCANO) if agile else (WATER,)
        terrain, land = self.terrain, self.land
        out = []
        for cell in range(NUM_CELLS):
            ends = []
            if land[cell]:
                for ray in _ORTHO_RAYS[cell]:
                    if not ray or terrain[ray[0]] not in barrier:  # OFF is no barrier
                        continue
                    k = 1  # cells of barrier terrain in a row from cell
                    while k < len(ray) and terrain[ray[k]] in barrier:
                        k += 1
                    if k < len(ray) and land[ray[k]] and WATER in [terrain[q] for q in ray[:k]]:
                        ends.append(ray[k])  # a crossing goes over water; Agility may add the volcano
            out.append(tuple(ends))
        return out

    def _corner_tie(self) -> bool:
        vc = self.volcano % GRID
        return vc == self.num_cols - 1 - vc

    def eruption_targets(self, rng: np.random.Generator, count: int) -> list[int]:
        """Section 6.1: `count` (h, v) rolls from the corner nearest the volcano; misses are dropped (G13)."""
        hits = []
        if self.eruption_cells is not None:
            for _ in range(count):
                h, v = int(rng.integers(1, 7)), int(rng.integers(1, 7))
                cell = self.eruption_cells[h - 1][v - 1]
                if cell >= 0 and self.land[cell] and cell not in hits:
                    hits.append(cell)
            return hits
        vr, vc = divmod(self.volcano, GRID)
        left = vc < self.num_cols - 1 - vc
        if self.eruption_corner_tie:
            left = int(rng.integers(1, 7)) <= 3  # G13: 1-3 left, 4-6 right
        top = vr <= 2
        for _ in range(count):
            h, v = int(rng.integers(1, 7)), int(rng.integers(1, 7))
            col = h - 1 if left else self.num_cols - h
            row = v - 1 if top else self.num_rows - v
            if not (0 <= col < self.num_cols and 0 <= row < self.num_rows):
                continue
            cell = row * GRID + col
            if self.land[cell] and cell not in hits:
                hits.append(cell)
        return hits


def build_board(num_players: int, use_four_islands: bool, rng: np.random.Generator) -> Board:
    """Shuffle the tiles and lay them out, one water gap per column (section 3.1)."""
    terrain = [OFF] * NUM_CELLS
    printed = [-1] * NUM_CELLS
    portal = [0] * NUM_CELLS
    stack = list(tile_stack(num_players))
    if use_four_islands:
        fi = four_islands()
        size, w = fi["size"], fi["water_index"] - 1

        def cell_of(x: int, y: int) -> int:  # island coordinates skip the water cross
            col = x - 1 if x - 1 < w else x
            row = y - 1 if y - 1 < w else y
            return row * GRID + col

        for r in range(size):
            for c in range(size):
                terrain[r * GRID + c] = WATER
        for fixed in fi["fixed"]:
            kind = TERRAINS.index(fixed["kind"])
            port = PORTALS.index(fixed["portal"])
            match = next((i for i, t in enumerate(stack) if t.kind == kind and t.portal == port), None)
            if match is None:
                raise ValueError(f"four_islands.json: no tile {fixed} left in the stack")
            tile = stack.pop(match)
            cell = cell_of(fixed["x"], fixed["y"])
            terrain[cell], printed[cell], portal[cell] = tile.kind, tile.printed, tile.portal
        fixed_cells = {cell_of(f["x"], f["y"]) for f in fi["fixed"]} | {cell_of(f["x"], f["y"]) for f in fi["water"]}
        order = rng.permutation(len(stack))
        free = [cell_of(x, y) for y in range(1, 7) for x in range(1, 7) if cell_of(x, y) not in fixed_cells]
        if len(free) != len(stack):
            raise ValueError(f"four islands: {len(free)} free island cells for {len(stack)} tiles")
        for cell, i in zip(free, order):
            tile = stack[i]
            terrain[cell], printed[cell], portal[cell] = tile.kind, tile.printed, tile.portal
        eruption = [[cell_of(h, v) for v in range(1, 7)] for h in range(1, 7)]
        return Board(terrain, printed, portal, size, size, eruption)
    cols, nrows = columns(num_players), rows()
    if len(stack) != cols * (nrows - 1):
        raise ValueError(f"{len(stack)} tiles for a {cols} x {nrows} board with one gap per column")
    order = rng.permutation(len(stack))
    k = 0
    for c in range(cols):
        gap = int(rng.integers(1, 7)) - 1  # G28: row counted from the top
        for r in range(nrows):
            cell = r * GRID + c
            if r == gap:
                terrain[cell] = WATER
                continue
            tile = stack[order[k]]
            k += 1
            terrain[cell], printed[cell], portal[cell] = tile.kind, tile.printed, tile.portal
    return Board(terrain, printed, portal, cols, nrows, None)


def board_from_rows(rows_text: list[str]) -> Board:
    """A board from text rows, for tests: P plain, F forest, M mountain, T temple(plain), D desert,
    V volcano, ~ water, lower-case p/f/m a plain/forest/mountain with a portal (digit after = colour 1..3)."""
    terrain = [OFF] * NUM_CELLS
    printed = [-1] * NUM_CELLS
    portal = [0] * NUM_CELLS
    codes = {"P": (PLAIN, P_PLAIN), "F": (FOREST, P_FOREST), "M": (MOUNTAIN, P_MOUNTAIN), "T": (TEMPLE, P_PLAIN),
             "D": (DESERT, P_DESERT), "V": (VOLCANO, -1), "~": (WATER, -1)}
    num_cols = 0
    for r, line in enumerate(rows_text):
        tokens = line.split()
        num_cols = max(num_cols, len(tokens))
        for c, tok in enumerate(tokens):
            cell = r * GRID + c
            base = tok[0].upper()
            terrain[cell], printed[cell] = codes[base]
            if len(tok) > 1:
                portal[cell] = int(tok[1])
    return Board(terrain, printed, portal, num_cols, len(rows_text), None)
