"""Loads the component tables of data/cards.json and selects the cards in play for a player count."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_FILE = Path(__file__).with_name("data") / "cards.json"

RESOURCES = ("brick", "lumber", "ore", "wool", "grain")
BUILD_KINDS = ("road", "knight", "settlement", "city", "improvement")
IMPROVEMENT_KINDS = ("library", "church", "city_castle", "merchant_guild", "town_hall", "marketplace")
EVENTS = ("market_day", "robber_raid")

ROAD, KNIGHT, SETTLEMENT, CITY, IMPROVEMENT = range(5)
LIBRARY, CHURCH, CITY_CASTLE, MERCHANT_GUILD, TOWN_HALL, MARKETPLACE = range(6)
MARKET_DAY, ROBBER_RAID = range(2)


def _in_play(symbols: str, num_players: int) -> bool:
    """Setup rule: 2 players remove 3- and 4-symbol cards, 3 players remove 4-symbol cards."""
    if symbols == "base":
        return True
    return num_players >= int(symbols)


def _second_copy(symbols: str, num_players: int) -> bool:
    """5 players add the second copy's 3-symbol cards; 6 players its 3- and 4-symbol cards."""
    return (num_players == 5 and symbols == "3") or (num_players == 6 and symbols in ("3", "4"))


@dataclass(frozen=True)
class Setup:
    """The cards in play for one player count, as counts and ordered tables."""

    num_players: int
    copies: int
    resource_counts: tuple[int, ...]  # per resource, all copies together
    costs: tuple[tuple[int, ...], ...]  # per build kind, per resource
    roads: int
    knights: int
    settlement_events: tuple[int, ...]  # one entry per settlement card, unshuffled
    improvement_copies: tuple[int, ...]  # per improvement kind
    improvement_vp: tuple[int, ...]  # per improvement kind
    win_vp: int
    market_size: int
    starting_hand: int
    draw_per_turn: int
    substitution_rate: int
    robber_hand_limit: int
    church_protected_knights: int
    city_castle_protected_roads: int

    @property
    def total_resources(self) -> int:
        return sum(self.resource_counts)


@lru_cache(maxsize=None)
def load_raw(path: str = str(DATA_FILE)) -> dict:
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    if tuple(raw["resources"]) != RESOURCES:
        raise ValueError(f"{path}: resources must be {RESOURCES}")
    if tuple(raw["improvement_kinds"]) != IMPROVEMENT_KINDS:
        raise ValueError(f"{path}: improvement_kinds must be {IMPROVEMENT_KINDS}")
    return raw


@lru_cache(maxsize=None)
def setup_for(num_players: int, five_six_extra_building_cards: bool = False,
              path: str = str(DATA_FILE)) -> Setup:
    raw = load_raw(path)
    copies = 2 if num_players >= 5 else 1

    def count(cards: list[dict], building: bool) -> list[dict]:
        chosen = [c for c in cards if _in_play(c["symbols"], num_players)]
        if copies == 2 and (not building or five_six_extra_building_cards):
            chosen += [c for c in cards if _second_copy(c["symbols"], num_players)]
        return chosen

    impr = count(raw["improvements"], building=False)
    improvement_copies = [0] * len(IMPROVEMENT_KINDS)
    improvement_vp = [0] * len(IMPROVEMENT_KINDS)
    for kind_index, kind in enumerate(IMPROVEMENT_KINDS):
        vps = {c["vp"] for c in raw["improvements"] if c["kind"] == kind}
        if len(vps) > 1:
            raise ValueError(f"improvement kind {kind} has copies with different VP {sorted(vps)}")
        improvement_vp[kind_index] = vps.pop() if vps else 0
        improvement_copies[kind_index] = sum(1 for c in impr if c["kind"] == kind)
    prot = raw["protection"]
    return Setup(
        num_players=num_players,
        copies=copies,
        resource_counts=tuple(raw["resource_counts"][r] * copies for r in RESOURCES),
        costs=tuple(tuple(raw["costs"][k].get(r, 0) for r in RESOURCES) for k in BUILD_KINDS),
        roads=len(count(raw["roads"], building=True)),
        knights=len(count(raw["knights"], building=True)),
        settlement_events=tuple(EVENTS.index(c["event"]) for c in count(raw["settlements"], True)),
        improvement_copies=tuple(improvement_copies),
        improvement_vp=tuple(improvement_vp),
        win_vp=raw["win_vp"],
        market_size=raw["market_size"],
        starting_hand=raw["starting_hand"],
        draw_per_turn=raw["draw_per_turn"],
        substitution_rate=raw["substitution_rate"],
        robber_hand_limit=raw["robber_hand_limit"],
        church_protected_knights=prot["church_protected_knights"],
        city_castle_protected_roads=prot["city_castle_protected_roads"],
    )
