"""Component tables of Mythotopia, loaded from data/map.json and data/cards.json.

Card instances: C0..C39 province cards (= province index), C40..C68 improvements I0..I28,
C69..C88 starting cards (seat s, slot k -> 69 + 5 s + k). Every placeholder value lives in the JSON
files (their headers say which); nothing here hard-codes a map or card value.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")

FOOD, STONE, GOLD, ARMY, SHIP = range(5)
SYMBOLS = ("food", "stone", "gold", "army", "ship")
OPEN, HILLS, MOUNTAINS = range(3)
TERRAINS = ("open", "hills", "mountains")
NUM_PROVINCES = 40
NUM_SEAS = 4
NUM_BORDERS = 79
NUM_IMPROVEMENTS = 29
FIRST_IMPROVEMENT = 40
FIRST_STARTING = 69
NUM_CARDS = 89
STARTING_SLOTS = 5
MAX_SEATS = 4
KIND_PROVINCE, KIND_IMPROVEMENT, KIND_STARTING = range(3)

FIXED_VP_CARDS = ("City", "Castle", "Roads")
VARIABLE_VP_CARDS = ("Citadel", "Defender of the Realm", "Guilded City", "Here be Dragons", "Lord of the Isles",
                     "Master of the Sea", "Patronage", "Roadside Inns", "Runestones", "Spoils of War")
VP_CARD_NAMES = FIXED_VP_CARDS + VARIABLE_VP_CARDS


@dataclass(frozen=True)
class Tables:
    province_names: tuple
    province_symbol: tuple  # symbol index per province
    strength: tuple
    rugged: tuple
    island: tuple  # 0 none, 1 larger, 2 smaller
    sea_names: tuple
    sea_provinces: tuple  # per sea: tuple of provinces
    province_seas: tuple  # per province: tuple of seas
    sea_adjacent: tuple  # per sea: tuple of seas
    borders: tuple  # (a, b, terrain) per border index
    border_of: dict  # (a, b) with a < b -> border index
    card_names: tuple  # readable name per card instance
    card_kind: tuple
    card_symbols: tuple  # per card: 5-tuple of counts (food, stone, gold, army, ship), alternatives
    improvement: dict  # improvement name -> card id
    raw: dict


def _load(name: str) -> dict:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)


def _symbols(pairs) -> tuple:
    out = [0] * 5
    for kind, count in pairs:
        out[SYMBOLS.index(kind)] = int(count)
    return tuple(out)


@lru_cache(maxsize=None)
def tables(fifth_starting_card: str = "Market") -> Tables:
    m = _load("map.json")
    c = _load("cards.json")
    provs = m["provinces"]
    if len(provs) != NUM_PROVINCES or len(m["seas"]) != NUM_SEAS or len(m["borders"]) != NUM_BORDERS:
        raise ValueError("map.json must list 40 provinces, 4 seas and 79 borders")
    names = tuple(p["name"] for p in provs)
    idx = {nm: i for i, nm in enumerate(names)}
    sea_names = tuple(s["name"] for s in m["seas"])
    sea_provs = tuple(tuple(sorted(idx[x] for x in s["provinces"])) for s in m["seas"])
    prov_seas = tuple(tuple(s for s in range(NUM_SEAS) if p in sea_provs[s]) for p in range(NUM_PROVINCES))
    sea_adj = tuple(tuple(sorted(sea_names.index(x) for x in s["adjacent_seas"])) for s in m["seas"])
    borders = []
    border_of = {}
    for k, (a, b, t) in enumerate(m["borders"]):
        ia, ib = sorted((idx[a], idx[b]))
        borders.append((ia, ib, TERRAINS.index(t)))
        border_of[(ia, ib)] = k
    starting = c["starting_cards"]
    if fifth_starting_card not in starting:
        raise ValueError(f"fifth_starting_card must be one of {sorted(starting)}, got {fifth_starting_card!r}")
    slots = tuple(c["starting_deck"]) + (fifth_starting_card,)
    card_names, kinds, syms = [], [], []
    for p in provs:
        card_names.append(p["name"])
        kinds.append(KIND_PROVINCE)
        syms.append(_symbols([[p["symbol"], 1]]))
    improvement = {}
    for i, imp in enumerate(c["improvements"]):
        improvement[imp["name"]] = FIRST_IMPROVEMENT + i
        card_names.append(f"{imp['name']}(I{i})")
        kinds.append(KIND_IMPROVEMENT)
        syms.append(_symbols(imp["symbols"]))
    for s in range(MAX_SEATS):
        for k, nm in enumerate(slots):
            card_names.append(f"{nm}(start{s}-{k + 1})")
            kinds.append(KIND_STARTING)
            syms.append(_symbols(starting[nm]["symbols"]))
    assert len(card_names) == NUM_CARDS
    island = tuple({"larger": 1, "smaller": 2}.get(p["island"], 0) for p in provs)
    return Tables(
        province_names=names, province_symbol=tuple(SYMBOLS.index(p["symbol"]) for p in provs),
        strength=tuple(int(p["strength"]) for p in provs), rugged=tuple(bool(p["rugged"]) for p in provs),
        island=island, sea_names=sea_names, sea_provinces=sea_provs, province_seas=prov_seas,
        sea_adjacent=sea_adj, borders=tuple(borders), border_of=border_of, card_names=tuple(card_names),
        card_kind=tuple(kinds), card_symbols=tuple(syms),
        improvement=improvement, raw=c,
    )


def starting_card(seat: int, slot: int) -> int:
    return FIRST_STARTING + STARTING_SLOTS * seat + slot
