"""Loads the component tables of data/*.json: tiles, equipment, the four-islands map, numeric rules.

Every value marked PLACEHOLDER / INVENTED DATA lives in those files (their headers say which), so
real values replace them without code changes.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")

# board geometry: every board is laid on a 7 x 7 index grid, cell = row * GRID + col
GRID = 7
NUM_CELLS = GRID * GRID

# terrain codes of a cell (plain ints, used in hot paths)
OFF, WATER, PLAIN, FOREST, MOUNTAIN, TEMPLE, DESERT, VOLCANO = range(8)
TERRAINS = ("off", "water", "plain", "forest", "mountain", "temple", "desert", "volcano")
PORTALS = ("none", "blue", "yellow", "red")
PRINTED = ("plain", "forest", "mountain", "desert")  # printed terrain of a land tile (temples)

# unit types
MELEE, RANGED, CAVALRY = range(3)
UNIT_TYPES = ("melee", "ranged", "cavalry")
# buildings
BARRACKS, MANUFACTORY, WALL = range(3)
BUILDINGS = ("barracks", "manufactory", "wall")
# events (G04: one per die face)
VOLCANO_ERUPTION, QUICKSAND, TROOP_EXPANSION, MERCENARY_DISCHARGE, WATER_CROSSING, PORTAL_OPENING = range(6)
EVENTS = ("volcanic_eruption", "quicksand", "troop_expansion", "mercenary_discharge", "water_crossing",
          "opening_of_the_portals")
# markets / allocation fields (the player sheet)
ALLOC_FIELDS = ("building", "melee", "ranged", "cavalry", "bid_mercenaries", "bid_equipment", "bid_movement",
                "bid_tournament")
F_BUILDING, F_MELEE, F_RANGED, F_CAVALRY, F_MERC, F_EQUIP, F_MOVE, F_TOURN = range(8)

# equipment effects
EFFECTS = ("teleport", "speed", "agility", "master_strike", "precision", "power_strike", "shield", "suppression",
           "bribery", "explosive", "tear_stone")
(E_TELEPORT, E_SPEED, E_AGILITY, E_MASTER, E_PRECISION, E_POWER, E_SHIELD, E_SUPPRESSION, E_BRIBERY,
 E_EXPLOSIVE, E_TEAR) = range(len(EFFECTS))
MOVEMENT_EFFECTS = frozenset((E_TELEPORT, E_SPEED, E_AGILITY))


@dataclass(frozen=True)
class StoneKind:
    name: str
    effect: int
    value: int
    types: tuple[bool, bool, bool]  # which army types may carry it
    count: int

    @property
    def is_movement(self) -> bool:
        return self.effect in MOVEMENT_EFFECTS

    @property
    def is_combat(self) -> bool:
        return self.effect not in MOVEMENT_EFFECTS and self.effect != E_TEAR


@lru_cache(maxsize=None)
def _load(name: str) -> dict:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=None)
def rules() -> dict:
    return _load("rules.json")


@lru_cache(maxsize=None)
def stone_kinds() -> tuple[StoneKind, ...]:
    out = []
    for row in _load("equipment.json")["kinds"]:
        effect = row["effect"]
        if effect not in EFFECTS:
            raise ValueError(f"equipment.json: unknown effect {effect!r} of {row['name']}; known: {EFFECTS}")
        types = row.get("types", list(UNIT_TYPES))
        out.append(StoneKind(row["name"], EFFECTS.index(effect), int(row.get("value", 0)),
                             tuple(t in types for t in UNIT_TYPES), int(row["count"])))
    if sum(1 for k in out if k.effect == E_TEAR) != 1:
        raise ValueError("equipment.json: exactly one kind must have the tear_stone effect")
    return tuple(out)


def num_stacks() -> int:
    return int(_load("equipment.json")["stacks"])


@dataclass(frozen=True)
class Tile:
    kind: int  # terrain code: PLAIN, FOREST, MOUNTAIN, TEMPLE, DESERT, VOLCANO
    printed: int  # index into PRINTED (volcano: -1)
    portal: int  # index into PORTALS


def _tile(kind: str, terrain: str, portal: str) -> Tile:
    return Tile(TERRAINS.index(kind), PRINTED.index(terrain) if terrain in PRINTED else -1, PORTALS.index(portal))


@lru_cache(maxsize=None)
def tile_stack(num_players: int) -> tuple[Tile, ...]:
    """The land tiles in play for a player count, after the 2-/3-player removals (section 10)."""
    raw = _load("tiles.json")
    out = []
    for row in raw["tiles"]:
        remove = row.get(f"remove_{num_players}p", 0) if num_players < 4 else 0
        out += [_tile(row["kind"], row["terrain"], row["portal"])] * (row["count"] - remove)
    return tuple(out)


def columns(num_players: int) -> int:
    return int(_load("tiles.json")["columns"][str(num_players)])


def rows() -> int:
    return int(_load("tiles.json")["rows"])


def four_islands() -> dict:
    return _load("four_islands.json")
