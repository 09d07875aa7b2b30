"""Loads the component tables of ``data/*.json`` into plain tuples the engine indexes by int.

Buildings are numbered ``row * 4 + column`` over the 7-row sheet (rows A..G = 0..6, columns
I..IV = 0..3); the base game uses rows B..F, module 1 adds rows A and G. Which rule a building
carries is named by its ``effect`` key, so replacing costs, VP or modifiers needs no code change.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")

GOODS = ("gold", "wood", "stone")
GOLD, WOOD, STONE = 0, 1, 2
ROWS = ("A", "B", "C", "D", "E", "F", "G")
COLUMNS = ("I", "II", "III", "IV")
NUM_ROWS, NUM_COLS = 7, 4
NUM_SLOTS = NUM_ROWS * NUM_COLS
BASE_ROWS = (1, 2, 3, 4, 5)
ALL_ROWS = (0, 1, 2, 3, 4, 5, 6)
NUM_ADVISORS = 18

# effect keys the engine implements (data may use only these)
BUILDING_EFFECTS = (
    "statue", "chapel", "cathedral", "inn", "market", "farms", "merchants_guild", "barracks",
    "stables", "stone_wall", "fortress", "crane", "town_hall", "embassy",
    "conversion", "mint", "recruiting_office", "training_camp", "military_academy",
)
# The buildings whose effect is a rule of the engine, by their names on the province sheet (spec 2.4, 2.6),
# numbered as their effect keys above. The three row-A conversions share one key: see Tables.conversion_slots.
(STATUE, CHAPEL, CATHEDRAL, INN, MARKET, FARMS, MERCHANTS_GUILD, BARRACKS, STABLES, STONE_WALL, FORTRESS, CRANE,
 TOWN_HALL, EMBASSY, CONVERSION, MINT, RECRUITING_OFFICE, TRAINING_CAMP,
 MILITARY_ACADEMY) = range(len(BUILDING_EFFECTS))
GOVERNOR_EFFECTS = ("start", "year_end", "free_column_builds", "no_build_vp", "set_dice", "opponent_builds")


def _goods(d: dict) -> tuple[int, int, int]:
    unknown = set(d) - set(GOODS)
    if unknown:
        raise ValueError(f"unknown goods {sorted(unknown)}; goods are {GOODS}")
    return tuple(int(d.get(g, 0)) for g in GOODS)


def _load(name: str) -> dict:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)


@dataclass(frozen=True)
class Building:
    slot: int  # row * 4 + column
    id: str
    name: str
    cost: tuple[int, int, int]
    vp: int
    effect: str | None
    strength: int  # battle modifier against every enemy
    strength_vs: tuple[int, ...]  # per enemy type: modifier (replaces `strength`) ; None-free
    strength_vs_max: tuple[int, int] | None  # (max printed enemy strength, modifier)
    params: dict  # further effect parameters (conversion pay/gain, cathedral rate, ...)


@dataclass(frozen=True)
class Advisor:
    rank: int
    name: str
    gain: tuple[int, int, int, int, int, int]  # gold, wood, stone, vp, soldiers, plus2
    picks: int
    pick_from: tuple[int, ...]
    optional_pay_vp: int
    exchange: bool
    peek: bool


@dataclass(frozen=True)
class EnemyCard:
    index: int
    year: int
    type: int
    type_name: str
    strength: int
    reward: tuple[int, int, int, int, int, int]  # gold, wood, stone, vp, goods of choice, buildings
    penalty: tuple[int, int, int, int, int]  # gold, wood, stone, vp, buildings


@dataclass(frozen=True)
class Governor:
    index: int
    id: str
    name: str
    effect: str
    params: dict


@dataclass(frozen=True)
class Tables:
    rows: tuple[int, ...]  # rows in play
    buildings: tuple[Building | None, ...]  # NUM_SLOTS entries; None = not in play
    slot_of: tuple[int, ...]  # per building of BUILDING_EFFECTS (STATUE, ...): its slot, -1 if not in play
    conversion_slots: tuple[int, ...]
    costs: tuple[tuple[int, int, int], ...]  # per slot: the building's cost, (0, 0, 0) if not in play
    max_cost: tuple[int, int, int]  # the most of each good any building costs (more never buys more)
    advisors: tuple[Advisor, ...]  # index rank - 1
    enemy_types: tuple[str, ...]
    enemies: tuple[EnemyCard, ...]
    enemies_by_year: tuple[tuple[int, ...], ...]  # year - 1 -> card indices
    year_range: tuple[tuple[int, int], ...]
    army_tokens: tuple[int, ...]  # one player's set
    army_values: tuple[int, ...]  # distinct values, ascending (action layout)
    governors: tuple[Governor, ...]
    governor_deal: int

    def __deepcopy__(self, memo):  # read-only and shared by every engine of the process: a clone shares it too
        return self

    def building(self, building: int) -> Building | None:
        """The card of ``building`` (STATUE, ...), None if it is not in play."""
        slot = self.slot_of[building]
        return self.buildings[slot] if slot >= 0 else None


def _building(raw: dict, slot: int, types: tuple[str, ...]) -> Building:
    effect = raw.get("effect")
    if effect is not None and effect not in BUILDING_EFFECTS:
        raise ValueError(f"building {raw['id']}: unknown effect {effect!r}; known: {BUILDING_EFFECTS}")
    vs = raw.get("strength_vs", {})
    unknown = set(vs) - set(types)
    if unknown:
        raise ValueError(f"building {raw['id']}: unknown enemy types {sorted(unknown)}")
    base = int(raw.get("strength", 0))
    params = {k: v for k, v in raw.items()
              if k not in ("id", "name", "name_de", "cost", "vp", "effect", "strength", "strength_vs",
                           "strength_vs_max")}
    if "pay" in params:
        params["pay"] = _goods(params["pay"])
        params["gain"] = _goods(params["gain"])
    svm = raw.get("strength_vs_max")
    return Building(slot=slot, id=raw["id"], name=raw["name"], cost=_goods(raw["cost"]),
                    vp=int(raw["vp"]), effect=effect, strength=base,
                    strength_vs=tuple(int(vs.get(t, base)) for t in types),
                    strength_vs_max=tuple(svm) if svm else None, params=params)


def _slot_of(building_id: str) -> int:
    row, col = building_id.split("-")
    return ROWS.index(row) * NUM_COLS + COLUMNS.index(col)


@lru_cache(maxsize=None)
def tables(more_buildings: bool = False) -> Tables:
    enemy_raw = _load("enemies.json")
    types = tuple(enemy_raw["types"])
    raw_buildings = list(_load("buildings.json")["buildings"])
    if more_buildings:
        raw_buildings += _load("module1_buildings.json")["buildings"]
    rows = ALL_ROWS if more_buildings else BASE_ROWS
    slots: list[Building | None] = [None] * NUM_SLOTS
    for raw in raw_buildings:
        slot = _slot_of(raw["id"])
        if slots[slot] is not None:
            raise ValueError(f"two buildings at {raw['id']}")
        slots[slot] = _building(raw, slot, types)
    for r in rows:
        for c in range(NUM_COLS):
            if slots[r * NUM_COLS + c] is None:
                raise ValueError(f"no building at {ROWS[r]}-{COLUMNS[c]}")
    slot_of = [-1] * len(BUILDING_EFFECTS)
    for b in slots:
        if b is not None and b.effect is not None:
            building = BUILDING_EFFECTS.index(b.effect)
            if slot_of[building] < 0:  # the first building with an effect key stands for it
                slot_of[building] = b.slot
    conversions = tuple(b.slot for b in slots if b is not None and b.effect == "conversion")

    advisors = []
    for i, raw in enumerate(_load("advisors.json")["advisors"]):
        if raw["rank"] != i + 1:
            raise ValueError("advisors.json must list ranks 1..18 in order")
        gain = raw.get("gain", {})
        unknown = set(gain) - {"gold", "wood", "stone", "vp", "soldiers", "plus2"}
        if unknown:
            raise ValueError(f"advisor {raw['rank']}: unknown gain {sorted(unknown)}")
        picks, pick_from = raw.get("choose", [0, []])
        advisors.append(Advisor(
            rank=raw["rank"], name=raw["name"],
            gain=tuple(int(gain.get(k, 0)) for k in ("gold", "wood", "stone", "vp", "soldiers", "plus2")),
            picks=int(picks), pick_from=tuple(GOODS.index(g) for g in pick_from),
            optional_pay_vp=int(raw.get("optional_pay_vp", 0)), exchange=bool(raw.get("exchange", False)),
            peek=bool(raw.get("peek", False))))
    if len(advisors) != NUM_ADVISORS:
        raise ValueError("advisors.json must list 18 advisors")

    enemies = []
    by_year: list[list[int]] = [[] for _ in range(5)]
    for i, raw in enumerate(enemy_raw["cards"]):
        rew, pen = raw["reward"], raw["penalty"]
        for part, keys in ((rew, ("gold", "wood", "stone", "vp", "goods", "buildings")),
                           (pen, ("gold", "wood", "stone", "vp", "buildings"))):
            unknown = set(part) - set(keys)
            if unknown:
                raise ValueError(f"enemy card {i}: unknown keys {sorted(unknown)}")
        enemies.append(EnemyCard(
            index=i, year=int(raw["year"]), type=types.index(raw["type"]), type_name=raw["type"],
            strength=int(raw["strength"]),
            reward=tuple(int(rew.get(k, 0)) for k in ("gold", "wood", "stone", "vp", "goods", "buildings")),
            penalty=tuple(int(pen.get(k, 0)) for k in ("gold", "wood", "stone", "vp", "buildings"))))
        by_year[int(raw["year"]) - 1].append(i)
    if any(not cards for cards in by_year):
        raise ValueError("enemies.json needs at least one card for each year I..V")
    year_range = tuple(tuple(enemy_raw["year_strength_range"][str(y)]) for y in range(1, 6))

    tokens = tuple(int(v) for v in _load("army_tokens.json")["tokens_per_player"])
    gov_raw = _load("governors.json")
    governors = []
    for i, raw in enumerate(gov_raw["cards"]):
        if raw["effect"] not in GOVERNOR_EFFECTS:
            raise ValueError(f"governor {raw['id']}: unknown effect {raw['effect']!r}")
        params = {k: v for k, v in raw.items() if k not in ("id", "name", "name_de", "effect")}
        governors.append(Governor(index=i, id=raw["id"], name=raw["name"], effect=raw["effect"], params=params))
    return Tables(
        rows=rows, buildings=tuple(slots), slot_of=tuple(slot_of), conversion_slots=conversions,
        costs=tuple(b.cost if b else (0, 0, 0) for b in slots),
        max_cost=tuple(max(b.cost[k] for b in slots if b) for k in range(3)),
        advisors=tuple(advisors), enemy_types=types, enemies=tuple(enemies),
        enemies_by_year=tuple(tuple(c) for c in by_year), year_range=year_range,
        army_tokens=tokens, army_values=tuple(sorted(set(tokens))),
        governors=tuple(governors), governor_deal=int(gov_raw["deal"]),
    )
