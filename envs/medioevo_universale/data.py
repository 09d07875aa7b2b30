"""Component tables of Medioevo Universale, loaded from data/*.json.

``map.json`` (the placeholder region graph, ASSUMPTION G57), ``events.json`` (the placeholder event
deck, G58), ``empire_cards.json`` (abilities from the rulebook; TP and goals are placeholders, G59)
and ``components.json`` (units, vehicles, buildings, technologies, tables). Every value the engine
uses is read from these files, so real data can replace the placeholders without code changes.
Indices used everywhere: nodes 0..N-1 in file order, empires, goods and colours in file order.
"""
from __future__ import annotations

import itertools
import json
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_DIR = Path(__file__).with_name("data")

# Fixed index conventions the engine relies on (the files must list these names in this order).
EMPIRES = ("HRE", "HUN", "BYZ", "MAM", "GH", "NOV")
COLOURS = ("blue", "yellow", "orange", "red", "green", "violet")  # = technology branches
UNIT_NAMES = ("LI", "HI", "AR", "CA", "CP1", "CP2", "CP3")
BUILDING_NAMES = ("village", "town", "city", "tower", "fortress", "castle", "cathedral")
VEHICLE_KINDS = ("caravan", "merchant_ship", "war_wagon", "galley", "siege_engine")
GOAL_KEYS = (
    "control_regions", "inhabited_outside_home", "civil_buildings", "civil_levels", "cathedrals",
    "military_buildings", "military_levels", "tech_levels", "tech_branch_level", "branches_level1",
    "transports", "transport_levels", "siege_levels", "units_on_board", "captain_levels", "net_money",
    "colours_on_vehicle", "market_factor", "route_stages", "barbarian_armies_destroyed",
    "inhabited_conquered", "military_chain", "foreign_home_regions", "cards_held",
)


def _load(name: str) -> dict:
    with open(DATA_DIR / name, encoding="utf-8") as fh:
        return json.load(fh)


@dataclass(frozen=True)
class Board:
    """The region graph. Land regions and sea zones are nodes; edges carry their kind."""

    names: tuple[str, ...]
    is_sea: tuple[bool, ...]
    empire: tuple[int, ...]  # start empire index, -1 for none
    inhabited: tuple[bool, ...]
    good: tuple[int, ...]  # good index, -1 for none
    port: tuple[bool, ...]
    barbarian_symbol: tuple[bool, ...]
    terrain: tuple[str, ...]
    land_adj: tuple[tuple[int, ...], ...]  # land-land borders, the strait included
    coast: tuple[tuple[int, ...], ...]  # land -> its sea zones, sea -> its coastal regions
    sea_adj: tuple[tuple[int, ...], ...]  # sea-sea
    adj: tuple[tuple[int, ...], ...]  # every adjacency (for distances)
    strait: frozenset  # frozenset of (a, b) pairs, both orders
    dist: tuple[tuple[int, ...], ...]  # shortest path over all nodes (G5)

    @property
    def num_nodes(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        return self.names.index(name)

    def empire_regions(self, e: int) -> tuple[int, ...]:
        return tuple(i for i, x in enumerate(self.empire) if x == e)


def load_board(raw: dict) -> Board:
    nodes = raw["nodes"]
    names = tuple(n["name"] for n in nodes)
    idx = {n: i for i, n in enumerate(names)}
    if len(idx) != len(names):
        raise ValueError("map.json: duplicate node names")
    nn = len(names)
    land_adj = [set() for _ in range(nn)]
    coast = [set() for _ in range(nn)]
    sea_adj = [set() for _ in range(nn)]
    strait = set()
    is_sea = tuple(n["kind"] == "sea" for n in nodes)
    for e in raw["edges"]:
        a, b, kind = idx[e["a"]], idx[e["b"]], e["kind"]
        if kind in ("land", "strait"):
            if is_sea[a] or is_sea[b]:
                raise ValueError(f"map.json: {kind} edge {e} touches a sea zone")
            land_adj[a].add(b)
            land_adj[b].add(a)
            if kind == "strait":
                strait.update({(a, b), (b, a)})
        elif kind == "coast":
            if is_sea[a] == is_sea[b]:
                raise ValueError(f"map.json: coast edge {e} must join a land region and a sea zone")
            coast[a].add(b)
            coast[b].add(a)
        elif kind == "sea":
            sea_adj[a].add(b)
            sea_adj[b].add(a)
        else:
            raise ValueError(f"map.json: unknown edge kind {kind!r}")
    adj = [land_adj[i] | coast[i] | sea_adj[i] for i in range(nn)]
    dist = []
    for s in range(nn):
        d = [10 ** 6] * nn
        d[s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for v in adj[u]:
                if d[v] > d[u] + 1:
                    d[v] = d[u] + 1
                    q.append(v)
        dist.append(tuple(d))
    goods = _load("components.json")["goods"]
    return Board(
        names=names,
        is_sea=is_sea,
        empire=tuple(EMPIRES.index(n["empire"]) if n["empire"] else -1 for n in nodes),
        inhabited=tuple(bool(n["inhabited"]) for n in nodes),
        good=tuple(goods.index(n["good"]) if n["good"] else -1 for n in nodes),
        port=tuple(bool(n["port"]) for n in nodes),
        barbarian_symbol=tuple(bool(n["barbarian_symbol"]) for n in nodes),
        terrain=tuple(n["terrain"] or "sea" for n in nodes),
        land_adj=tuple(tuple(sorted(s)) for s in land_adj),
        coast=tuple(tuple(sorted(s)) for s in coast),
        sea_adj=tuple(tuple(sorted(s)) for s in sea_adj),
        adj=tuple(tuple(sorted(s)) for s in adj),
        strait=frozenset(strait),
        dist=tuple(dist),
    )


@dataclass(frozen=True)
class Components:
    raw: dict
    goods: tuple[str, ...]
    unit_cost: tuple[int, ...]
    unit_supply: tuple[int, ...]  # LI, HI, AR, CA, captains (any level)
    building_level: tuple[int, ...]
    building_gp: tuple[int, ...]
    building_cost: tuple[int, ...]
    building_tp: tuple[int, ...]
    building_supply: tuple[int, ...]
    building_markers: tuple[int, ...]
    building_protection: tuple[int, ...]
    building_ep: tuple[int, ...]
    vehicle_supply: tuple[int, ...]  # caravan, merchant ship, war wagon, galley
    siege_supply: tuple[int, ...]  # per level I..III
    capacity: tuple[int, ...]  # per vehicle kind, per level
    transport_mp: tuple[int, ...]
    siege_mp: tuple[int, ...]
    marker_options: tuple[tuple[int, ...], ...]  # one entry per physical ownership marker
    malus: dict
    goal_token_ep: tuple[int, ...]
    technologies: tuple[tuple[str, ...], ...]


def load_components(raw: dict) -> Components:
    if tuple(raw["empires"]) != EMPIRES:
        raise ValueError(f"components.json: empires must be {EMPIRES}")
    if tuple(raw["colours"]) != COLOURS:
        raise ValueError(f"components.json: colours must be {COLOURS}")
    if tuple(raw["units"]["names"]) != UNIT_NAMES:
        raise ValueError(f"components.json: units must be {UNIT_NAMES}")
    if tuple(raw["buildings"]["names"]) != BUILDING_NAMES:
        raise ValueError(f"components.json: buildings must be {BUILDING_NAMES}")
    if tuple(raw["vehicles"]["kinds"]) != VEHICLE_KINDS:
        raise ValueError(f"components.json: vehicle kinds must be {VEHICLE_KINDS}")
    u, v, b = raw["units"], raw["vehicles"], raw["buildings"]
    sup = u["per_player_supply"]
    markers = []
    for m in raw["ownership_markers"]:
        markers += [tuple(m["levels"])] * m["count"]
    return Components(
        raw=raw,
        goods=tuple(raw["goods"]),
        unit_cost=tuple(u["cost"]),
        unit_supply=(sup["LI"], sup["HI"], sup["AR"], sup["CA"], sup["CP"]),
        building_level=tuple(b["level"]),
        building_gp=tuple(b["gp"]),
        building_cost=tuple(b["cost"]),
        building_tp=tuple(b["design_tp"]),
        building_supply=tuple(b["supply"]),
        building_markers=tuple(b["control_markers"]),
        building_protection=tuple(b["protection"]),
        building_ep=tuple(b["ep_when_built"]),
        vehicle_supply=tuple(v["supply"][k] for k in VEHICLE_KINDS[:4]),
        siege_supply=tuple(v["siege_supply_per_level"]),
        capacity=tuple(v["capacity_per_level"][k] for k in VEHICLE_KINDS),
        transport_mp=tuple(v["mp"]["transport"]),
        siege_mp=tuple(v["mp"]["siege_engine"]),
        marker_options=tuple(markers),
        malus={int(k): tuple(r) for k, r in raw["turn_order_malus"].items()},
        goal_token_ep=tuple(raw["goal_token_ep"]),
        technologies=tuple(tuple(t) for t in raw["technologies"]),
    )


@dataclass(frozen=True)
class EmpireCard:
    id: int  # 1..72
    person: str
    token_colours: tuple[int, ...]  # () = any colour
    tp: tuple[tuple[int, ...], ...]  # alternatives, each a tuple of colours produced together
    goal_key: int  # index into GOAL_KEYS
    goal_threshold: int


@dataclass(frozen=True)
class EventCard:
    id: str
    regions: frozenset  # affected land regions (node indices)
    seas: frozenset  # sea zones adjacent to them
    symbols: tuple[str, ...]
    allowed_tax: int


@dataclass(frozen=True)
class GameData:
    board: Board
    comp: Components
    cards: tuple[EmpireCard, ...]  # index = card id - 1
    events: tuple[EventCard, ...]


@lru_cache(maxsize=None)
def game_data() -> GameData:
    board = load_board(_load("map.json"))
    comp = load_components(_load("components.json"))
    rc = _load("empire_cards.json")
    templates = {t["key"]: t for t in rc["goal_templates"]}
    if set(templates) != set(GOAL_KEYS):
        raise ValueError(f"empire_cards.json: goal templates must be {GOAL_KEYS}")
    cards = []
    for i, c in enumerate(rc["cards"]):
        if c["id"] != i + 1:
            raise ValueError(f"empire_cards.json: card {i + 1} out of order")
        cards.append(EmpireCard(
            id=c["id"], person=c["person"],
            token_colours=tuple(COLOURS.index(x) for x in c["token_colours"]),
            tp=tuple(tuple(COLOURS.index(x) for x in alt) for alt in c["tp"]),
            goal_key=GOAL_KEYS.index(c["goal"]["template"]),
            goal_threshold=int(c["goal"]["threshold"]),
        ))
    re_ = _load("events.json")
    zones = {z["id"]: frozenset(board.index(r) for r in z["regions"]) for z in re_["zones"]}
    events = []
    for c in re_["cards"]:
        regions = zones[c["zone"]]
        seas = frozenset(s for r in regions for s in board.coast[r])
        events.append(EventCard(c["id"], regions, seas, tuple(c["symbols"]), int(c["allowed_tax"])))
    return GameData(board, comp, tuple(cards), tuple(events))


# ------------------------------------------------------------------------------ derived tables --
def empire_graph_edges(comp: Components) -> set[tuple[int, int]]:
    edges = set()
    for a, b in comp.raw["empire_connections"]:
        i, j = EMPIRES.index(a), EMPIRES.index(b)
        edges.update({(i, j), (j, i)})
    return edges


def _connected(subset: tuple[int, ...], edges: set) -> bool:
    if not subset:
        return True
    seen = {subset[0]}
    stack = [subset[0]]
    while stack:
        a = stack.pop()
        for b in subset:
            if b not in seen and (a, b) in edges:
                seen.add(b)
                stack.append(b)
    return len(seen) == len(subset)


@lru_cache(maxsize=None)
def connected_empire_sets(k: int) -> tuple[tuple[int, ...], ...]:
    """Spec 1.2 / G3: the sets of k empires that induce a connected subgraph."""
    edges = empire_graph_edges(game_data().comp)
    return tuple(s for s in itertools.combinations(range(len(EMPIRES)), k) if _connected(s, edges))


@lru_cache(maxsize=None)
def playable_nodes(empires: tuple[int, ...]) -> frozenset:
    """Spec 1.4 / G5: start regions of the chosen empires plus every node within distance 3."""
    d = game_data()
    board = d.board
    reach = d.comp.raw["neighbouring_distance"]
    if len(empires) == len(EMPIRES):
        return frozenset(range(board.num_nodes))
    home = [i for i in range(board.num_nodes) if board.empire[i] in empires]
    return frozenset(i for i in range(board.num_nodes) if any(board.dist[h][i] <= reach for h in home))


@lru_cache(maxsize=None)
def markers_feasible(levels: tuple[int, int, int]) -> bool:
    """Spec 2.1 / G8: n1, n2, n3 owned objects of level I, II, III fit the ownership markers
    (Hall's condition: every set of levels needs at least as many markers able to show one of them)."""
    options = game_data().comp.marker_options
    for mask in range(1, 8):
        need = sum(levels[lv] for lv in range(3) if mask >> lv & 1)
        have = sum(1 for opt in options if any(mask >> (lv - 1) & 1 for lv in opt))
        if need > have:
            return False
    return True


def starting_kits() -> tuple[tuple[tuple[int, int], ...], ...]:
    """S2: transports worth 2 levels: one level II transport (4) or two level I transports (10 pairs).
    Each kit is a tuple of (vehicle kind, level)."""
    kits = [((k, 2),) for k in range(4)]
    kits += [((a, 1), (b, 1)) for a in range(4) for b in range(a, 4)]
    return tuple(kits)


STARTING_KITS = starting_kits()


@lru_cache(maxsize=None)
def route_graph(kind: str, playable: frozenset) -> dict:
    """G49: inhabited region -> the inhabited regions one route stage away. ``land``: through
    uninhabited land regions only; ``sea``: through sea zones only (coastal regions)."""
    b = game_data().board
    out: dict[int, frozenset] = {}
    for a in range(b.num_nodes):
        if b.is_sea[a] or not b.inhabited[a] or a not in playable:
            continue
        found = set()
        if kind == "land":
            seen = {a}
            stack = [a]
            while stack:
                x = stack.pop()
                for y in b.land_adj[x]:
                    if y in seen or y not in playable:
                        continue
                    seen.add(y)
                    if b.inhabited[y]:
                        found.add(y)
                    else:
                        stack.append(y)
        else:
            seas = {s for s in b.coast[a] if s in playable}
            stack = list(seas)
            while stack:
                x = stack.pop()
                for y in b.sea_adj[x]:
                    if y not in seas and y in playable:
                        seas.add(y)
                        stack.append(y)
            found = {c for s in seas for c in b.coast[s] if c != a and b.inhabited[c] and c in playable}
        out[a] = frozenset(found)
    return out
