"""Game state of Medioevo Universale as plain lists and ints, with the queries every rule needs.

Layout (N players, NN nodes):
* ``units[p]``: flat list, ``units[p][node * 7 + t]`` = p's units of type t (LI HI AR CA CP1 CP2 CP3);
  ``army[p][node]`` = their total (kept in step by ``_add_units``, read by the hot control query).
* ``barb``: flat list, ``barb[node * 3 + k]`` = barbarian LI, AR, CP; ``barb_total[node]`` their sum
  (kept by ``_add_barb``).
* ``objs``: object id -> ``[owner, kind, level, node, mp, stopped]`` (transports and siege engines);
  ``slots[p]``: 10 ownership slots holding object ids or -1 (the OBJECT head indexes these).
* buildings per node: ``civil``/``mil`` level 0..3 (0 = none) with ``civil_owner``/``mil_owner`` and
  damage markers ``civil_dmg``/``mil_dmg``; ``cath_owner`` (-1 = none) and ``cath_dmg``.
* ``marker[node]``: owner of the control marker there, or -1.
* ``cubes[node]``: list of 8 flags, the goods cubes of the market there (market factor = their sum).
No RL terms here; the engine in ``engine.py`` adds the phase machine.
"""
from __future__ import annotations

from .constants import (
    BUILDING_CLASS, CARAVAN, CATHEDRAL, CIVIL, GALLEY, MERCHANT_SHIP, MILITARY, NUM_UNIT_TYPES,
    O_LEVEL, O_NODE, SIEGE, WAR_WAGON,
)
from .data import markers_feasible
from .diplomacy import Treaty
from . import changes

FREE_TRADE, STATIONING = Treaty.FREE_TRADE, Treaty.STATIONING

NT = NUM_UNIT_TYPES


def positions(values: list, x) -> list[int]:
    """The indices where ``values`` holds x, found by ``list.count`` and ``list.index`` (C scans): fast for
    sparse lists such as building owners. Counted first: a missing value's ValueError costs more."""
    out = []
    i = -1
    for _ in range(values.count(x)):
        i = values.index(x, i + 1)
        out.append(i)
    return out


def vehicle_treaty(kind: int) -> int:
    """The treaty that lets a seat place a vehicle of ``kind`` in a partner's region."""
    return FREE_TRADE if kind in (CARAVAN, MERCHANT_SHIP) else STATIONING


class StateMixin:
    """Queries over the state. Attributes are created by the engine's ``__init__``."""

    # ------------------------------------------------------------------------- units ----
    def _add_units(self, p: int, node: int, t: int, k: int) -> None:
        """The only way units change on the board (keeps ``army`` and stop markers in step)."""
        self.changed(changes.UNITS)
        i = node * NT + t
        self.units[p][i] += k
        army = self.army[p]
        before = army[node]
        army[node] = before + k
        if not before or not army[node]:  # control depends only on which armies are present
            self._forget_control(node)
        if k < 0 and self.stopped[p][i] > self.units[p][i]:
            self.stopped[p][i] = self.units[p][i]

    def _add_barb(self, node: int, k_type: int, k: int) -> None:
        self.changed(changes.BARBARIANS)
        self.barb[node * 3 + k_type] += k
        before = self.barb_total[node]
        self.barb_total[node] = before + k
        if not before or not self.barb_total[node]:
            self._forget_control(node)

    def army_size(self, p: int, node: int) -> int:
        return self.army[p][node]

    def total_units(self, p: int) -> int:
        """Units on the board and aboard p's carriers."""
        aboard = 0
        for oid in self.slots[p]:
            if oid >= 0:
                c = self.cargo.get(oid)
                if c:
                    aboard += sum(c)
        return sum(self.army[p]) + aboard

    def barb_size(self, node: int) -> int:
        return self.barb_total[node]

    # ---------------------------------------------------------------------- control ----
    def controller(self, node: int) -> int:
        """Spec 5.2: the seat controlling a land region, or -1 (sea zones, barbarian regions)."""
        if not self.land_playable[node] or self.barb_total[node]:
            return -1
        if self.guest_treaties:  # G24: treaty guests leave control with their host (diplomacy.py)
            return self._treaty_controller(node)
        present = -1
        army = self.army
        for p in range(self.num_players):
            if army[p][node]:
                if present >= 0:
                    return -1  # two players' armies: contested
                present = p
        if present >= 0:
            return present
        m = self.marker[node]
        if m >= 0:
            return m
        return self.home_owner[node]

    def controlled_regions(self, p: int) -> list[int]:
        return [n for n in self.land_nodes if self.controller(n) == p]

    def control_map(self) -> list[int]:
        """The controller of every node (one pass; for observations and scoring)."""
        return [self.controller(n) for n in range(self.board.num_nodes)]

    # -------------------------------------------------------------------- ownership ----
    def owned_levels(self, p: int) -> list[int]:
        """Owned objects needing an ownership marker, counted per level I, II, III (G8, G77)."""
        levels = [0, 0, 0]
        for oid in self.slots[p]:
            if oid >= 0:
                levels[self.objs[oid][O_LEVEL] - 1] += 1
        # buildings stand only on the playable land, so the owner lists are searched whole
        civil, mil = self.civil, self.mil
        for n in positions(self.civil_owner, p):
            levels[civil[n] - 1] += 1
        for n in positions(self.mil_owner, p):
            levels[mil[n] - 1] += 1
        levels[2] += self.cath_owner.count(p)
        if self.hidden_bought[p]:  # variant 8.5: vehicles behind the screen hold their markers
            levels = [a + b for a, b in zip(levels, self.hidden_levels(p))]
        return levels

    def markers_allow(self, p: int, add_level: int = 0, remove_level: int = 0, owned: list[int] | None = None) -> bool:
        """Whether p's owned objects still fit the ownership markers after adding/removing one.
        ``owned``: ``owned_levels(p)`` when the caller already has it (it is not changed)."""
        levels = self.owned_levels(p) if owned is None else owned[:]
        if remove_level:
            levels[remove_level - 1] -= 1
        if add_level:
            levels[add_level - 1] += 1
        return markers_feasible(tuple(levels))

    def free_slot(self, p: int) -> int:
        slots = self.slots[p]  # object ids, -1 where free
        return slots.index(-1) if -1 in slots else -1

    def own_objects(self, p: int) -> list[int]:
        return [oid for oid in self.slots[p] if oid >= 0]

    # -------------------------------------------------------------------- buildings ----
    def building_level_at(self, node: int, cls: int) -> int:
        if cls == CIVIL:
            return self.civil[node]
        if cls == MILITARY:
            return self.mil[node]
        return 3 if self.cath_owner[node] >= 0 else 0

    def building_owner_at(self, node: int, cls: int) -> int:
        if cls == CIVIL:
            return self.civil_owner[node]
        if cls == MILITARY:
            return self.mil_owner[node]
        return self.cath_owner[node]

    def building_kind_at(self, node: int, cls: int) -> int:
        """The BUILD index (village .. cathedral) standing in class ``cls`` at node, or -1."""
        if cls == CIVIL:
            return self.civil[node] - 1 if self.civil[node] else -1
        if cls == MILITARY:
            return 2 + self.mil[node] if self.mil[node] else -1
        return CATHEDRAL if self.cath_owner[node] >= 0 else -1

    def count_buildings(self, p: int, kind: int, controlled_only: bool = True) -> int:
        cls = BUILDING_CLASS[kind]
        count = 0
        for n in self.land_nodes:
            if self.building_owner_at(n, cls) == p and self.building_kind_at(n, cls) == kind:
                if not controlled_only or self.controller(n) == p:
                    count += 1
        return count

    def civil_levels_owned(self, p: int) -> int:
        """Sum of civil-building levels p owns in regions p controls (G78: no benefit elsewhere)."""
        civil, control = self.civil, self._cached_control_map()
        return sum([civil[n] for n in positions(self.civil_owner, p) if control[n] == p])

    def market_factor(self, node: int) -> int:
        return sum(self.cubes[node])

    # ------------------------------------------------------------------------ money ----
    def _bank(self, p: int, amount: int) -> None:
        """Money between a seat and the bank; every such flow is tallied (conservation invariant)."""
        self.changed(changes.MONEY)
        self.money[p] += amount
        self.bank_net[p] += amount

    def _transfer(self, a: int, b: int, amount: int) -> None:
        """Money from seat a to seat b (the auction payment, ransoms, treaties)."""
        self.changed(changes.MONEY)
        self.money[a] -= amount
        self.money[b] += amount
        self.transfer_net[a] -= amount
        self.transfer_net[b] += amount

    def upkeep(self, p: int) -> int:
        """Spec 5.5 / G61: 20 fl per unit, transport and siege engine, whatever the type and level."""
        if self.config.terrain:
            return self.terrain_upkeep(p)
        return self.upkeep_per_item * (self.total_units(p) + len(self.own_objects(p)))

    def interest_due(self, p: int) -> int:
        """Loans taken in an earlier round pay interest (the loan of this round does not)."""
        return max(0, self.loan_interest * max(0, self.loans[p] - self.loan_taken[p]) - self._interest_relief(p))

    def net_money(self, p: int) -> int:
        return self.money[p] - self.final_loan_deduction * self.loans[p]

    def unit_limit(self, p: int) -> int:
        return self.unit_limit_base + self.civil_levels_owned(p)

    def unit_limit_reached(self, p: int) -> bool:
        """``units_bought[p] >= unit_limit(p)``; the civil levels are counted only past the base they raise."""
        bought = self.units_bought[p]
        return bought >= self.unit_limit_base and bought >= self.unit_limit(p)

    # ---------------------------------------------------------------------- helpers ----
    def vehicle_mp(self, kind: int, level: int) -> int:
        return self.comp.siege_mp[level - 1] if kind == SIEGE else self.comp.transport_mp[level - 1]

    def vehicle_place_ok(self, p: int, kind: int, node: int) -> bool:
        """Spec 2.5: where a transport or siege engine can be built or upgraded (controlled region)."""
        if node < 0:  # aboard a galley
            return False
        # the region first: it is cheaper than the treaty test
        return self.vehicle_site_ok(kind, node) and self._may_place(p, node, vehicle_treaty(kind))

    def vehicle_site_ok(self, kind: int, node: int) -> bool:
        """The region part of ``vehicle_place_ok``: inhabited, a port or a military building, by kind."""
        inh = self.board.inhabited[node]
        if kind == CARAVAN:
            return inh
        if kind in (MERCHANT_SHIP, GALLEY):
            return inh and self.board.port[node]
        if kind in (WAR_WAGON, SIEGE):
            return inh or self.mil[node] > 0
        return False

    def vehicle_places(self, p: int, kind: int) -> list[int]:
        """Every region where ``vehicle_place_ok(p, kind, region)`` holds (one pass, the tests of
        ``vehicle_site_ok`` written out)."""
        regions = self._placement_regions(p, vehicle_treaty(kind))
        inhabited = self.board.inhabited
        if kind == CARAVAN:
            return [n for n in regions if inhabited[n]]
        if kind in (MERCHANT_SHIP, GALLEY):
            port = self.board.port
            return [n for n in regions if inhabited[n] and port[n]]
        if kind in (WAR_WAGON, SIEGE):
            mil = self.mil
            return [n for n in regions if inhabited[n] or mil[n] > 0]
        return []

    def unit_place_ok(self, p: int, node: int) -> bool:
        """Spec 2.4: units are bought in controlled regions (or a stationing partner's) that are inhabited or
        hold a military building."""
        return (self.board.inhabited[node] or self.mil[node] > 0) and self._may_place(p, node, STATIONING)

    def unit_places(self, p: int) -> list[int]:
        """Every region where ``unit_place_ok(p, region)`` holds (one pass)."""
        inhabited, mil = self.board.inhabited, self.mil
        return [n for n in self._placement_regions(p, STATIONING) if inhabited[n] or mil[n] > 0]

    def objects_at(self, node: int) -> list[int]:
        return [oid for oid, o in self.objs.items() if o[O_NODE] == node]
