"""Phase 6: trade (spec 5.18; G19, G46-G48).

Trade cycles in turn order (G19): PASS, or activate one own caravan or merchant ship with MP and act
with it until END or until its MP are gone. 1 MP moves it to an adjacent node (docking and
undocking 1 MP each), or performs one purchase or one sale:

* BUY (in an inhabited region): any number of cubes of the good produced there, 100 fl each, within
  the free capacity - the first ``BUY`` costs the MP, each further ``BUY`` adds a cube, ``DONE`` ends.
* SELL (in an inhabited region): ``GOOD(g)`` sells one cube of a good not present there (printed or
  as a market cube) for 100 fl + 20 x market factor; more ``GOOD`` add cubes to the same sale;
  ``DONE`` ends it. Then one cube (a colour sold or still aboard, not yet present) goes to the
  market (G48), and likewise whenever the loaded vehicle leaves an inhabited region.

Trade routes (G49): right after buying, the trader may declare a route of 4, 6 or 8 stages (inhabited
regions linked in the route graph: land routes through uninhabited land regions, sea routes through
sea zones; the last is the destination; ``DONE`` cancels the declaration). The marked vehicle
establishes a stage by reaching it (any order); selling at the destination with every other stage
established completes the route: 2 / 4 / 6 trade points, each 1 EP or +50 fl per cube of that sale,
and no market bonus on it (G91). Selling elsewhere first, abandoning, or losing the vehicle ends the
route without a bonus.

Trade is allowed only in regions the trader controls or nobody controls, and where no war is going
on (G47: a battle there this round, or two hostile parties' armies). Vehicles enter only regions
without an army or with an own army (entering an enemy army would get them plundered; neutral
armies cannot be entered, G46) - the suicide move is masked.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Resume
from .constants import (
    CARAVAN, MERCHANT_SHIP, NUM_UNIT_TYPES, O_KIND, O_MP, O_NODE, ROUTE_LENGTHS, Ctrl, Head, Phase, Stage,
)
from .data import route_graph
from .diplomacy import Treaty
from . import changes

TRADE_TREATY = Treaty.TRADE

NT = NUM_UNIT_TYPES
DONE = (Head.CTRL, Ctrl.DONE)
TRADERS = (CARAVAN, MERCHANT_SHIP)


@dataclass(slots=True)
class RouteDraft:
    """A trade route being declared (``engine.route_draft``): its length, then its stages one by one."""
    start: int  # the region where the vehicle just bought
    kind: str  # "land" / "sea": the route graph it follows (``route_graph``)
    stages: list[int] = field(default_factory=list)  # the stages chosen so far, the destination last
    length: int = 0  # 4, 6 or 8 stages (ROUTE_LENGTHS); 0 while to be chosen


@dataclass(slots=True)
class Route:
    """A seat's declared trade route (``engine.route[p]``, G49)."""
    vehicle: int  # the marked vehicle's object id; -1: lost, the route kept until the round's end (Verkäufer 30)
    stages: list[int]  # the destination last
    established: list[bool]  # per stage: reached by the vehicle
    points: int  # the trade points its completion gives
    start: int  # the region it was declared in (not a stage; Verkäufer 31 keeps its markers off it)
    kind: str  # "land" / "sea": the route graph Verkäufer 31 re-places its markers on
    orphaned: int = -1  # Verkäufer 30: the round its vehicle was lost (-1: never)


class TradeMixin:
    # --------------------------------------------------------------------- the loop ----
    def _start_trade(self) -> None:
        self.stage = Stage.TRADE
        if not self._new_trade_cycle():
            self._next_trade_turn()

    def _new_trade_cycle(self) -> bool:
        """Every seat in turn order; the W-ANY window first (cards.py). True when it opened (it resumes
        ``_next_trade_turn``)."""
        self.cycle_moved = False
        self.queue = [p for p in self.order if not self.eliminated[p]]
        return self._jederzeit_window("any_trade", Resume.TRADE_TURN)

    def _next_trade_turn(self) -> None:
        while True:
            while self.queue:
                p = self.queue.pop(0)
                if self._trade_vehicles(p):
                    self.actor = p
                    self.phase = Phase.TRADE_TURN
                    return
            if not self.cycle_moved:
                self._end_round()
                return
            if self._new_trade_cycle():
                return

    def _trade_vehicles(self, p: int) -> list[int]:
        """Slots of p's trade vehicles that can do something (they have MP)."""
        return [s for s, oid in enumerate(self.slots[p])
                if oid >= 0 and self.trade_kind(oid) in TRADERS and self.objs[oid][O_MP] >= 1]  # Wissenschaftler 11

    def trade_turn_moves(self) -> list[tuple[int, int]]:
        return ([DONE] + [(Head.OBJECT, s) for s in self._trade_vehicles(self.actor)]
                + self.card_turn_moves(self.actor, "trade_turn"))  # W-TRADE (cards.py)

    def _apply_trade_turn(self, move: tuple[int, int]) -> None:
        if move == (Head.CTRL, Ctrl.PLAY_CARD):
            self._open_turn_window(self.actor, "trade_turn")
            return
        if move[0] == Head.CTRL:
            self.turn += 1
            self._next_trade_turn()
            return
        self.changed(changes.TRADE)
        self.trader = self.slots[self.actor][move[1]]
        self.bought_at = -1
        self.trade_action = ""
        self.pending_step = -1
        self.phase = Phase.TRADE
        self._trade_checkpoint()

    # ------------------------------------------------------------------- queries ----
    def _trade_here_ok(self, p: int, node: int) -> bool:
        if self.board.is_sea[node] or not self.board.inhabited[node]:
            return False
        c = self.controller(node)
        if c not in (-1, p) and not self.has_treaty(p, c, TRADE_TREATY):
            return False
        if node in self.battle_nodes or self.banned(1, node):
            return False  # G47; Bischof 2 (cards.py)
        if self._blocking_army(p, node):  # barbarians or a non-allied player's army (G46, G47)
            return False
        return True

    def _present(self, node: int) -> set:
        goods = {g for g, c in enumerate(self.cubes[node]) if c}
        if self.board.good[node] >= 0:
            goods.add(self.board.good[node])
        return goods

    def _trade_steps(self, p: int, oid: int) -> list[int]:
        o = self.objs[oid]
        b = self.board
        x = o[O_NODE]
        if o[O_KIND] == MERCHANT_SHIP:
            cand = b.coast[x] if not b.is_sea[x] else b.sea_adj[x] + b.coast[x]
        else:
            cand = b.land_adj[x]
        out = []
        for y in cand:
            if not self.playable[y] or self.step_cost(o[O_KIND], x, y) > o[O_MP]:  # 8.2 terrain
                continue
            if self._step_banned(p, x, y, False):  # Bischof 3 (cards.py)
                continue
            if b.is_sea[y]:
                if not self._hostile_galleys(p, y):
                    out.append(y)
            elif not self._blocking_army(p, y):
                out.append(y)
        return out

    def placement_colours(self, oid: int, node: int, sold: list[int]) -> list[int]:
        present = self._present(node)
        aboard = {g for g, c in enumerate(self.goods[oid]) if c}
        return sorted(g for g in (aboard | set(sold)) if g not in present and self.goods_supply[g] > 0)

    # ------------------------------------------------------------------- actions ----
    def trade_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        oid = self.trader
        o = self.objs[oid]
        node = o[O_NODE]
        goods = self.goods[oid]
        if self.phase == Phase.PLACE_CUBE:
            return [(Head.GOOD, g) for g in self.placement_colours(oid, node, self.sold_now)]
        if self.phase == Phase.ROUTE_LENGTH:
            return [DONE] + [(Head.ROUTE, i) for i in range(len(ROUTE_LENGTHS))]
        if self.phase == Phase.ROUTE_STAGE:
            draft = self.route_draft
            prev = draft.stages[-1] if draft.stages else draft.start
            graph = self._route_graph(draft.kind)
            return [DONE] + [(Head.NODE, y) for y in sorted(graph.get(prev, ()))
                             if y != draft.start and y not in draft.stages]
        if self.phase == Phase.ROUTE_POINTS:
            return [(Head.CTRL, Ctrl.POINT_EP), (Head.CTRL, Ctrl.POINT_FL)]
        room = self.goods_capacity(oid) - sum(goods)  # cards.py: Wissenschaftler 11
        if self.trade_action == "buy":
            moves = [DONE]
            g = self.board.good[node]
            if room > 0 and self.goods_supply[g] > 0 and self.money[p] >= self.cube_price:
                moves.append((Head.CTRL, Ctrl.BUY))
            return moves
        if self.trade_action == "sell":
            present = self._present(node)
            return [DONE] + [(Head.GOOD, g) for g in range(8) if goods[g] and g not in present]
        moves = [DONE]
        route = self.route_of(p)
        if route is not None and route.vehicle == oid:
            moves.append((Head.CTRL, Ctrl.ABANDON_ROUTE))
        elif route is None and self.bought_at == node and self._route_graph(self._route_kind(oid)).get(node):
            moves.append((Head.CTRL, Ctrl.START_ROUTE))
        if o[O_MP] < 1:
            return moves
        if self._trade_here_ok(p, node):
            g = self.board.good[node]
            if (g >= 0 and room > 0 and self.goods_supply[g] > 0 and self.money[p] >= self.cube_price):
                moves.append((Head.CTRL, Ctrl.BUY))
            present = self._present(node)
            moves += [(Head.GOOD, g) for g in range(8) if goods[g] and g not in present]
        moves += [(Head.NODE, y) for y in self._trade_steps(p, oid)]
        return moves

    def _apply_trade(self, move: tuple[int, int]) -> None:
        p = self.actor
        oid = self.trader
        o = self.objs[oid]
        node = o[O_NODE]
        head, arg = move
        if self.phase in (Phase.ROUTE_LENGTH, Phase.ROUTE_STAGE, Phase.ROUTE_POINTS):
            self._apply_route(p, oid, move)
            return
        if self.phase == Phase.PLACE_CUBE:
            self._place_cube(node, arg)
            self.phase = Phase.TRADE
            if self.pending_step >= 0:
                y, self.pending_step = self.pending_step, -1
                self._trade_step(y)
            self._trade_checkpoint()
            return
        if self.trade_action == "buy":
            if head == Head.CTRL and arg == Ctrl.BUY:
                self._buy_cube(p, oid, node)
            else:
                self.changed(changes.TRADE)
                self.trade_action = ""
                self.bought_at = node  # a trade route may start here now
            self._trade_checkpoint()
            return
        if self.trade_action == "sell":
            if head == Head.GOOD:
                self._sell_cube(p, oid, node, arg)
                return
            self.changed(changes.TRADE)
            self.trade_action = ""
            if self.route_completing:
                self.changed(changes.ROUTES)
                self.route_points_left = self.route_of(p).points
                self.phase = Phase.ROUTE_POINTS
                return
            self._after_sale(node)
            return
        if head == Head.CTRL and arg == Ctrl.DONE:
            self._end_trade_turn()
            return
        if head == Head.CTRL and arg == Ctrl.START_ROUTE:
            self.changed(changes.ROUTES)
            self.route_draft = RouteDraft(node, self._route_kind(oid))
            self.phase = Phase.ROUTE_LENGTH
            return
        if head == Head.CTRL and arg == Ctrl.ABANDON_ROUTE:
            self.changed(changes.ROUTES)
            self.route[p] = None
            self._trade_checkpoint()
            return
        if head == Head.CTRL:  # BUY: the first cube costs the MP
            self.changed(changes.TRADE)  # the MP: _buy_cube
            o[O_MP] -= 1
            self.cycle_moved = True
            self.trade_action = "buy"
            self.trade_tech_reset()  # Markt counts this purchase (technologies.py)
            self._buy_cube(p, oid, node)
            self._trade_checkpoint()
            return
        if head == Head.GOOD:  # reported by _sell_cube
            o[O_MP] -= 1
            self.cycle_moved = True
            self.trade_action = "sell"
            self.trade_tech_reset()  # Handel / Markt count this sale (technologies.py)
            self.sold_now = []
            self.sale_factor = self.market_factor(node)  # counted before the new cube is placed
            self.route_completing = False
            route = self.route_of(p)
            if route is not None and route.vehicle == oid:
                if node == route.stages[-1] and all(route.established[:-1]):
                    self.route_completing = True
                    self.withheld_factor = self.sale_factor
                    self.sale_factor = 0  # G91: no market bonus on the route-completing sale
                else:
                    self.changed(changes.ROUTES)
                    self.route[p] = None  # selling before the destination ends the route
            self._sell_cube(p, oid, node, arg)
            self._charge_sale_fee(p, node)  # a trade treaty's fee per sale action
            return
        # a step: a loaded vehicle leaving an inhabited region leaves one cube (G48)
        self.cycle_moved = True
        if self.board.inhabited[node] and not self.board.is_sea[node] and sum(self.goods[oid]):
            colours = self.placement_colours(oid, node, [])
            if len(colours) > 1:
                self.changed(changes.TRADE)
                self.pending_step = arg
                self.sold_now = []
                self.phase = Phase.PLACE_CUBE
                return
            if colours:
                self._place_cube(node, colours[0])
        self._trade_step(arg)
        self._trade_checkpoint()

    def _trade_step(self, y: int) -> None:
        self.changed(changes.OBJECTS)
        o = self.objs[self.trader]
        o[O_MP] -= self.step_cost(o[O_KIND], o[O_NODE], y)
        o[O_NODE] = y
        route = self.route_of(o[0])
        if route is not None and route.vehicle == self.trader and y in route.stages[:-1]:
            self.changed(changes.ROUTES)
            route.established[route.stages.index(y)] = True

    # ----------------------------------------------------------------- routes ----
    def _route_kind(self, oid: int) -> str:
        return "sea" if self.objs[oid][O_KIND] == MERCHANT_SHIP else "land"

    def _route_graph(self, kind: str) -> dict:
        """The route graph of the playable board (computed once per game)."""
        graph = self.route_graphs.get(kind)
        if graph is None:
            graph = route_graph(kind, frozenset(i for i, ok in enumerate(self.playable) if ok))
            self.route_graphs[kind] = graph
        return graph

    def route_of(self, p: int) -> Route | None:
        """p's trade route, or None (a lost or taken-over vehicle ends it)."""
        route = self.route[p]
        if route is not None:
            oid = route.vehicle
            if oid not in self.objs or self.objs[oid][0] != p:
                self.stamp_at_once(changes.ROUTES)  # also a query may find it
                self.route[p] = route = self._orphaned_route(p, route)  # Verkäufer 30 (cards.py)
        return route

    def _apply_route(self, p: int, oid: int, move: tuple[int, int]) -> None:
        self.changed(changes.ROUTES)  # every route decision changes the declaration, the route or its points left
        head, arg = move
        node = self.objs[oid][O_NODE]
        if self.phase == Phase.ROUTE_POINTS:
            if arg == Ctrl.POINT_EP:
                self._gain_ep(p, 1, "trade_route")
            else:
                self._bank(p, self.route_point_fl * len(self.sold_now))
                self.route_fl_points += 1
            self.route_points_left -= 1
            if self.route_points_left:
                return
            self.changed(changes.SEATS)
            route = self.route[p]
            if (self.config.market_bonus_with_route_ep and self.route_fl_points == 0
                    or self.route_keeps_market_bonus(p)):  # Kameltreiber 64 (cards.py)
                self._bank(p, self.city_market_bonus * self.withheld_factor * len(self.sold_now))
            self.route_fl_points = 0
            self.stat_route_stages[p] = max(self.stat_route_stages[p], len(route.stages))
            self.route[p] = None
            self.phase = Phase.TRADE
            self._after_sale(node)
            return
        draft = self.route_draft
        if head == Head.CTRL:  # cancel the declaration
            self.route_draft = None
            self.phase = Phase.TRADE
            self._trade_checkpoint()
            return
        if self.phase == Phase.ROUTE_LENGTH:
            draft.length = ROUTE_LENGTHS[arg]
            self.phase = Phase.ROUTE_STAGE
            return
        draft.stages.append(arg)
        if len(draft.stages) < draft.length:
            return
        k = draft.length
        self.route[p] = Route(oid, list(draft.stages), [False] * k, self.route_points[ROUTE_LENGTHS.index(k)],
                              draft.start, draft.kind)
        self.route_draft = None
        self.bought_at = -1
        self.phase = Phase.TRADE
        self._trade_checkpoint()

    def _buy_cube(self, p: int, oid: int, node: int) -> None:
        self.changed(changes.OBJECTS | changes.TECHNOLOGY)
        g = self.board.good[node]
        self._bank(p, -self.cube_price)
        self.trade_bonus.bought += 1
        self.goods_supply[g] -= 1
        self.goods[oid][g] += 1

    def _sell_cube(self, p: int, oid: int, node: int, g: int) -> None:
        self.changed(changes.OBJECTS | changes.TRADE)
        self.goods[oid][g] -= 1
        self.goods_supply[g] += 1
        self.sold_now.append(g)
        self._bank(p, self.cube_price + self.city_market_bonus * self.sale_factor)  # market bonus

    def _after_sale(self, node: int) -> None:
        colours = self.placement_colours(self.trader, node, self.sold_now)
        if len(colours) > 1:
            self.phase = Phase.PLACE_CUBE
            return
        if colours:
            self._place_cube(node, colours[0])
        self._trade_checkpoint()

    def _place_cube(self, node: int, g: int) -> None:
        self.changed(changes.MARKET)
        self.goods_supply[g] -= 1
        self.cubes[node][g] = 1

    def _trade_checkpoint(self) -> None:
        """End the vehicle's activation when nothing is left to do with it."""
        if (self.phase == Phase.TRADE and self.trade_action == ""
                and self.tech_adjusted_moves(self.trade_moves()) == [DONE]):  # technologies.py
            self._end_trade_turn()

    def _end_trade_turn(self) -> None:
        self.changed(changes.TRADE)
        self.trader = -1
        self.trade_action = ""
        self.turn += 1
        self._next_trade_turn()
