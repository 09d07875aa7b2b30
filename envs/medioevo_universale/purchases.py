"""Phase 4: purchases (spec 2.4-2.8, 5.7, 5.8) and the TP economy.

Each player in turn order makes any number of purchases, one complete item at a time, then DONE
(G21). An item is chosen as sequential sub-decisions (category, item, place); the mask offers only
sub-decisions that lead to at least one affordable, legal item. TP come from rotated empire cards
and flipped goal tokens and live until the end of the phase (G29); missing TP cost 100 fl each and
are paid automatically, pool first.
"""
from __future__ import annotations

from collections.abc import Iterator
from itertools import compress

from .data import BUILDING_NAMES
from .constants import (
    BLUE, BUILDING_CLASS, CATHEDRAL, CIVIL, COMBAT_B, CONSTRUCTION_B, CP1, GREEN, MILITARY,
    NUM_UNIT_TYPES, O_KIND, O_LEVEL, O_NODE, RED, RELIGION_B, SIEGE, TRANSPORT_B, VIOLET, Ctrl,
    DiplomacyWindow, Head, Phase, Purchase, Stage,
)
from . import changes
from .diplomacy import Treaty

NT = NUM_UNIT_TYPES
P = Head.PURCHASE
STATIONING = Treaty.STATIONING


class PurchaseMixin:
    # --------------------------------------------------------------------------- TP ----
    def _pay(self, p: int, fl: int, colour: int = 0, tp: int = 0) -> None:
        self.tp_pay(p, fl, ((colour, tp),))

    def _card_tp_options(self, p: int) -> list[tuple]:
        opts = []
        rotated = self.rotated[p]
        for c in self.hand[p]:
            if c in rotated:
                continue
            alts = self.cards[c].tp
            if len(alts) == 1:
                opts.append(((Head.CARD, c),))
            elif len(alts) > 1:
                opts += [((Head.CARD, c), (Head.COLOUR, alt[0])) for alt in alts]
        return opts

    def _goal_claim_options(self, p: int) -> list[tuple]:
        """Spec 5.8 C / G31: an unrotated card whose goal is met, while a fitting token is left."""
        opts = []
        rotated = self.rotated[p]
        for c in self.hand[p]:
            if c in rotated or not self.goal_met(p, self.goal_of[c]):
                continue
            colours = self.cards[c].token_colours or tuple(range(6))
            avail = [k for k in colours if self.token_supply[k] > 0]
            if len(colours) == 1:
                if avail:
                    opts.append(((Head.CTRL, Ctrl.CLAIM_GOAL), (Head.CARD, c)))
            else:
                opts += [((Head.CTRL, Ctrl.CLAIM_GOAL), (Head.CARD, c), (Head.COLOUR, k)) for k in avail]
        return opts

    # ---------------------------------------------------------------- the menu ----
    def _start_purchases(self) -> None:
        self.stage = Stage.PURCHASES
        if self._diplomacy_window(DiplomacyWindow.PURCHASES):  # spec 10.5: a diplomacy window first
            return
        self.queue = [p for p in self.order if not self.eliminated[p]]
        self._next_purchaser()

    def _next_purchaser(self) -> None:
        if not self.queue:
            self._after_purchases()
            return
        if self.config.hidden_purchases and self.purchase_snapshot is None:
            self._snapshot_public()  # variant 8.5: what the others see until the reveal
        p = self.actor = self.queue.pop(0)
        if self.units_bought[p] or self.card_bought[p]:  # set back below
            self.changed(changes.SEATS)
        self.units_bought[p] = 0
        self.card_bought[p] = False
        self.tp[p] = [0] * 6
        self.phase = Phase.PURCHASE
        self._open_purchase_menu(p)

    def _after_purchases(self) -> None:
        if self.config.hidden_purchases:
            self._start_reveal()  # variant 8.5: reveal and place in turn order, then phase 5
            return
        self._start_war()

    def _open_purchase_menu(self, p: int) -> None:
        """Open p's purchase menu. The options of its larger parts (``_MENU_PARTS``) are listed only once
        the part is chosen (``_lazy_tree_options``): most menus are left by DONE, a loan, TP or another part."""
        if self.config.hidden_purchases:  # variant 8.5: whether a part is left once its places are hidden
            parts = tuple(first for first in self._MENU_PARTS if self._menu_part(p, first))
        else:
            owned = [None]  # owned_levels(p) once one of the parts needs it, for the others
            offered = (next(iter(self._build_options(p, owned=owned)), None) is not None,
                       self._can_buy_vehicle(p, owned), self._can_buy_unit(p), self._can_play_card(p, "purchase"),
                       self._can_remove(p))
            parts = tuple(compress(self._MENU_PARTS, offered))
            self._open_tree(self._menu_listed_options(p, owned), parts)
            return
        self._open_tree(self._menu_listed_options(p), parts)

    def _owned(self, p: int, kept: list | None) -> list[int]:
        """``owned_levels(p)``, taken from and kept in ``kept`` (a list of one item, None until known) if given:
        one menu asks it several times, and nothing changes it in between."""
        if kept is None:
            return self.owned_levels(p)
        if kept[0] is None:
            kept[0] = self.owned_levels(p)
        return kept[0]

    def _purchase_options(self, p: int) -> list[tuple]:
        """Every complete option of p's purchase menu (``_open_purchase_menu``'s menu, listed whole)."""
        opts = self._menu_listed_options(p)
        for first in self._MENU_PARTS:
            opts += self._menu_part(p, first)
        return opts

    def _menu_listed_options(self, p: int, owned: list | None = None) -> list[tuple]:
        """The options of p's purchase menu outside ``_MENU_PARTS``, listed when the menu opens (``owned``: see
        ``_owned``)."""
        opts: list[tuple] = [((Head.CTRL, Ctrl.DONE),)]
        opts += [((Head.CTRL, c),) for _, c in self.loan_moves(p)]
        opts += self._card_tp_options(p)
        tokens, flipped = self.tokens[p], self.tokens_flipped[p]
        opts += [((Head.COLOUR, k),) for k in range(6) if tokens[k] > flipped[k]]
        opts += self._goal_claim_options(p)
        opts += self._tech_options(p)
        opts += self._repair_options(p)
        opts += self._vehicle_upgrade_options(p, owned)
        opts += self._captain_upgrade_options(p)
        opts += self._redeploy_options(p)
        opts += self._ransom_options(p)
        opts += self.purchase_tech_options(p)  # technology activations (technologies.py)
        if (not self.card_bought[p] and self.deck
                and self.money[p] >= self.card_price(p)):
            opts.append(((P, Purchase.CARD),))
        if self.config.hidden_purchases:
            return self._hide_placements(p, opts)
        return opts

    def _menu_part(self, p: int, first: tuple[int, int]) -> list[tuple]:
        """The options of p's purchase menu that start with ``first``, one of ``_MENU_PARTS``."""
        opts = list(self._MENU_PARTS[first](self, p))
        if self.config.hidden_purchases:
            return self._hide_placements(p, opts)
        return opts

    def _lazy_tree_options(self, first: tuple[int, int]) -> list[tuple]:
        """The options of the open tree that start with ``first`` (economy.py): a part of the purchase menu,
        or of the barbarian build-up (events.py)."""
        if self.phase == Phase.BUILDUP:
            return self._buildup_part(first)
        return self._menu_part(self.actor, first)

    def _card_play_purchase_options(self, p: int) -> list[tuple]:
        return self._card_play_options(p, "purchase")

    def _can_remove(self, p: int) -> bool:
        """Whether ``_removal_options`` is not empty: an own unit (``army`` counts them) or object."""
        return any(self.army[p]) or max(self.slots[p]) >= 0

    def card_price(self, p: int) -> int:
        cp = self.comp.raw["card_price"]
        return cp["base"] + cp["per_card_held"] * len(self.hand[p])

    # ------------------------------------------------------------ technologies ----
    def _tech_options(self, p: int) -> list[tuple]:
        opts = []
        tech, bought, money, price = self.tech[p], self.tech_bought[p], self.money[p], self.tech_price
        for b in range(6):
            level = tech[b] + 1
            if level <= 4 and not bought[b] and money >= price * level:
                opts.append(((P, Purchase.TECH), (Head.TECH, b * 4 + level - 1)))
        return opts

    # --------------------------------------------------------------- buildings ----
    def _build_options(self, p: int, card: int = -1, reserve: int = 0, owned: list | None = None) -> Iterator[tuple]:
        """New buildings and upgrades (also by two levels): TP and fl of the level difference.
        ``card``: an Architekt discount (cards.py); ``reserve``: fl already committed elsewhere; ``owned``: see
        ``_owned``."""
        comp = self.comp
        tech = self.tech[p]
        can = (tech[CONSTRUCTION_B] >= 1, tech[CONSTRUCTION_B] >= 2, tech[RELIGION_B] >= 1)
        if not any(can):
            return
        kept, owned = owned, None  # owned_levels(p), found at the first marker check
        allowed: dict[tuple[int, int], bool] = {}  # (level added, level removed) -> markers_allow
        buildable: dict[tuple[int, int], list] = {}  # (class, current) -> the BUILD moves: alike everywhere
        category = (P, Purchase.BUILD)
        inhabited = self.board.inhabited
        civil, civil_owner, mil, mil_owner, cath_owner = (self.civil, self.civil_owner, self.mil, self.mil_owner,
                                                          self.cath_owner)
        classes = [cls for cls in range(3) if can[cls]]
        supply = self.building_supply
        free = (-1, p)  # the owners a building may be raised under
        for n in self._seat_regions()[p]:
            for cls in classes:
                # building_owner_at / building_kind_at written out: this is the menu's hottest loop
                if cls == CIVIL:
                    if not inhabited[n] or civil_owner[n] not in free:
                        continue
                    cur = civil[n] - 1 if civil[n] else -1
                elif cls == MILITARY:
                    if mil_owner[n] not in free:
                        continue
                    cur = 2 + mil[n] if mil[n] else -1
                else:
                    if cath_owner[n] not in free:
                        continue
                    cur = CATHEDRAL if cath_owner[n] >= 0 else -1
                moves = buildable.get((cls, cur))
                if moves is None:
                    if cls == 2:
                        targets = () if cur >= 0 else (CATHEDRAL,)
                    else:
                        first = 0 if cls == CIVIL else 3
                        targets = range(first if cur < 0 else cur + 1, first + 3)
                    moves = buildable[(cls, cur)] = []
                    for k in targets:
                        if supply[k] <= 0:
                            continue
                        fl, tp = self.build_cost(k, cur)
                        if card >= 0:  # no card: the plain price
                            fl, tp = self.card_build_cost(card, fl, tp)
                        if not self.tp_affordable_one(p, fl + reserve, VIOLET if k == CATHEDRAL else GREEN, tp):
                            continue
                        levels = (comp.building_level[k], comp.building_level[cur] if cur >= 0 else 0)
                        ok = allowed.get(levels)
                        if ok is None:
                            if owned is None:
                                owned = self._owned(p, kept)
                            ok = allowed[levels] = self.markers_allow(p, levels[0], levels[1], owned)
                        if ok:
                            moves.append((Head.BUILD, k))
                if moves:
                    place = (Head.NODE, n)
                    yield from [(category, move, place) for move in moves]

    def build_cost(self, kind: int, current: int) -> tuple[int, int]:
        """(fl, TP) to build ``kind`` where ``current`` (a BUILD index or -1) stands."""
        comp = self.comp
        if current < 0:
            return comp.building_cost[kind], comp.building_tp[kind]
        return (comp.building_cost[kind] - comp.building_cost[current],
                comp.building_tp[kind] - comp.building_tp[current])

    def _do_build(self, p: int, kind: int, node: int, card: int = -1, pay: bool = True) -> None:
        """``pay=False``: Ingenieurskunst raises the level with no other cost (paid by the caller)."""
        self.changed(changes.SUPPLY | changes.BUILDINGS)
        comp = self.comp
        cls = BUILDING_CLASS[kind]
        cur = self.building_kind_at(node, cls)
        fl, tp = self.card_build_cost(card, *self.build_cost(kind, cur))
        if pay:
            self._pay(p, fl, VIOLET if kind == CATHEDRAL else GREEN, tp)
        gained_markers = comp.building_markers[kind] - (comp.building_markers[cur] if cur >= 0 else 0)
        if cur >= 0:
            self.building_supply[cur] += 1
        self.building_supply[kind] -= 1
        level = comp.building_level[kind]
        if cls == CIVIL:
            self.civil[node] = level
            self.civil_owner[node] = p
        elif cls == MILITARY:
            self.mil[node] = level
            self.mil_owner[node] = p
        else:
            self.cath_owner[node] = p
        if comp.building_ep[kind]:
            self._gain_ep(p, comp.building_ep[kind], "built_" + BUILDING_NAMES[kind])  # G12: upgrades too
        if gained_markers > 0:
            self.markers_to_place = gained_markers
            self.marker_origin = node
            if self.marker_moves():
                self.phase = Phase.PLACE_MARKER
                return
            self.markers_to_place = 0

    def marker_moves(self) -> list[tuple[int, int]]:
        """Spec 5.7: adjacent regions with no opposing army, not controlled by another player."""
        p = self.actor
        if self.markers_to_place <= 0 or self.markers_left[p] <= 0:
            return []
        moves = [(Head.CTRL, Ctrl.DONE)]
        for n in self.board.land_adj[self.marker_origin]:
            if not self.playable[n] or self.marker[n] >= 0 or self.barb_size(n):
                continue
            if any(self.army_size(q, n) for q in range(self.num_players) if q != p):
                continue
            c = self.controller(n)
            if c < 0 or c == p:
                moves.append((Head.NODE, n))
        return moves if len(moves) > 1 else []

    def _apply_marker(self, move: tuple[int, int]) -> None:
        p = self.actor
        if move[0] == Head.NODE:
            self.changed(changes.MARKERS | changes.SEATS)
            self.marker[move[1]] = p
            self.markers_left[p] -= 1
            self.markers_to_place -= 1
            if self.marker_moves():
                return
        self.markers_to_place = 0  # the rest go back (spec 5.7)
        self.phase = Phase.PURCHASE
        self._open_purchase_menu(p)

    def _repair_options(self, p: int) -> list[tuple]:
        if self.money[p] < self.repair_price:
            return []
        opts = []
        damage = (self.civil_dmg, self.mil_dmg, self.cath_dmg)
        civil_dmg, mil_dmg, cath_dmg = damage
        for n in self._seat_regions()[p]:
            if not (civil_dmg[n] or mil_dmg[n] or cath_dmg[n]):  # the common case: one test per region
                continue
            for cls, dmg in enumerate(damage):
                if dmg[n] and self.building_owner_at(n, cls) == p:
                    opts.append(((P, Purchase.REPAIR), (Head.NODE, n), (Head.BUILD, self.building_kind_at(n, cls))))
        return opts

    # ---------------------------------------------------------------- vehicles ----
    def _vehicle_options(self, p: int) -> list[tuple]:
        opts = []
        category = (P, Purchase.VEHICLE)
        for kind, levels in self._vehicle_levels(p):
            places = [(Head.NODE, n) for n in self.vehicle_places(p, kind)]
            for level in levels:
                vehicle = (Head.VEHICLE, kind * 3 + level - 1)
                opts += [(category, vehicle, place) for place in places]
        return opts

    def _can_buy_vehicle(self, p: int, owned: list | None = None) -> bool:
        """Whether ``_vehicle_options`` is not empty (up to the first kind with a place; ``owned``: see
        ``_owned``)."""
        for kind, _ in self._vehicle_levels(p, owned):
            if self.vehicle_places(p, kind):
                return True
        return False

    def _vehicle_levels(self, p: int, owned: list | None = None) -> Iterator[tuple[int, list[int]]]:
        """(kind, levels) of the new vehicles p may buy (technology, a free slot, supply, price,
        ownership markers), leaving out kinds without a level; where is not asked. Lazily, kind by kind."""
        tech = self.tech[p]
        kinds = ([0, 1, 2, 3] if tech[TRANSPORT_B] >= 1 else []) + ([SIEGE] if tech[CONSTRUCTION_B] >= 3 else [])
        if not kinds or -1 not in self.slots[p]:  # no free slot
            return
        kept, owned = owned, None  # owned_levels(p) (see _owned), found at the first marker check
        fits: dict[tuple[int, int], bool] = {}  # (colour, level) -> affordable within the markers
        for kind in kinds:
            colour = GREEN if kind == SIEGE else BLUE
            in_supply = self.siege_supply if kind == SIEGE else (self.vehicle_supply[kind],) * 3  # by level
            levels = []
            for level in (1, 2, 3):
                if in_supply[level - 1] <= 0:
                    continue
                ok = fits.get((colour, level))
                if ok is None:  # the price depends on the colour and level only
                    ok = self.tp_affordable_one(p, self.vehicle_cost_per_level * level, colour, level)
                    if ok:
                        if owned is None:
                            owned = self._owned(p, kept)
                        ok = self.markers_allow(p, level, 0, owned)
                    fits[(colour, level)] = ok
                if ok:
                    levels.append(level)
            if levels:
                yield kind, levels

    def _vehicle_upgrade_options(self, p: int, owned: list | None = None) -> list[tuple]:
        tech = self.tech[p]
        opts = []
        kept, owned = owned, None  # owned_levels(p) (see _owned), found at the first marker check
        for s, oid in enumerate(self.slots[p]):
            if oid < 0:
                continue
            o = self.objs[oid]
            kind, level, node = o[O_KIND], o[O_LEVEL], o[O_NODE]
            if (tech[CONSTRUCTION_B] < 3) if kind == SIEGE else (tech[TRANSPORT_B] < 1):
                continue
            if not self.vehicle_place_ok(p, kind, node):
                continue
            colour = GREEN if kind == SIEGE else BLUE
            for target in range(level + 1, 4):
                diff = target - level
                if (kind == SIEGE and self.siege_supply[target - 1] <= 0):
                    continue
                if not self.tp_affordable_one(p, self.vehicle_cost_per_level * diff, colour, diff):
                    continue
                if owned is None:
                    owned = self._owned(p, kept)
                if self.markers_allow(p, target, level, owned):
                    opts.append(((P, Purchase.UPGRADE_VEHICLE), (Head.OBJECT, s),
                                 (Head.VEHICLE, kind * 3 + target - 1)))
        return opts

    # ------------------------------------------------------------------- units ----
    def _unit_options(self, p: int) -> list[tuple]:
        types = self._unit_types(p)
        if not types:
            return []
        category = (P, Purchase.UNIT)
        places = [(Head.NODE, n) for n in self.unit_places(p)]
        return [(category, (Head.UNIT, t), place) for t in types for place in places]

    def _can_buy_unit(self, p: int) -> bool:
        """Whether ``_unit_options`` is not empty: ``unit_places`` up to the first place."""
        if not self._unit_types(p):
            return False
        inhabited, mil = self.board.inhabited, self.mil
        for n in self._placement_regions(p, STATIONING):
            if inhabited[n] or mil[n] > 0:
                return True
        return False

    def _unit_types(self, p: int) -> list[int]:
        """The unit types p may buy now (supply, price, the unit limit); where is not asked."""
        sup = self.unit_supply[p]
        cost = self.comp.unit_cost
        money = self.money[p]
        types = [t for t in range(4) if sup[t] > 0 and money >= cost[t]]
        if self.tech[p][COMBAT_B] >= 1 and sup[4] > 0:
            affordable = self.tp_affordable_one  # fl and TP of one colour, Mönchtum included (technologies.py)
            types += [CP1 + lv - 1 for lv in (1, 2, 3) if affordable(p, cost[CP1 + lv - 1], RED, lv)]
        if types and self.unit_limit_reached(p):
            return []
        return types

    def _redeploy_options(self, p: int) -> list[tuple]:
        """Spec 5.7 / 5.14: capitulated units return from the next round on, free, within the unit
        limit, into own inhabited regions or regions with a military building."""
        cap = self.capitulated[p]
        if not any(cap) or self.capitulated_round[p] >= self.round or self.unit_limit_reached(p):
            return []
        nodes = self.unit_places(p)
        return [((P, Purchase.REDEPLOY), (Head.UNIT, t), (Head.NODE, n)) for t in range(NT) if cap[t] for n in nodes]

    def _ransom_captor(self, p: int, t: int) -> int:
        """The captor a ransom of type t goes to: the first in turn order holding one (ASSUMPTION)."""
        return next((c for c in self.order if self.prisoners[c][p][t]), -1)

    def _ransom_options(self, p: int) -> list[tuple]:
        """Spec 5.7: own captured units at twice their price, paid to the captor (G28, G83); within
        the unit limit; placed in an own military building or controlled inhabited region."""
        if not any(map(any, [held[p] for held in self.prisoners])):
            return []
        if self.unit_limit_reached(p):
            return []
        types = [t for t in range(NT) if self._ransom_captor(p, t) >= 0
                 and self.money[p] >= 2 * self.comp.unit_cost[t]]
        if not types:
            return []
        nodes = self.unit_places(p)
        return [((P, Purchase.RANSOM), (Head.UNIT, t), (Head.NODE, n)) for t in types for n in nodes]

    def _captain_upgrade_options(self, p: int) -> list[tuple]:
        if self.tech[p][COMBAT_B] < 1:
            return []
        opts = []
        u = self.units[p]
        if not (any(u[4::NT]) or any(u[5::NT])):  # no CP1 or CP2 anywhere
            return opts
        cost = self.comp.unit_cost
        for n in self.unit_places(p):
            base = n * NT
            if not (u[base + 4] or u[base + 5]):
                continue
            for frm in (4, 5):
                if not u[base + frm]:
                    continue
                for to in range(frm + 1, 7):
                    if self.tp_affordable_one(p, cost[to] - cost[frm], RED, to - frm):
                        opts.append(((P, Purchase.UPGRADE_CAPTAIN), (Head.NODE, n), (Head.UNIT, frm), (Head.UNIT, to)))
        return opts

    # ------------------------------------------------------------------ apply ----
    def _apply_purchase_option(self, opt: tuple) -> None:
        p = self.actor
        head, arg = opt[0]
        if head == Head.CTRL:
            if arg == Ctrl.DONE:
                self.tp[p] = [0] * 6  # unspent TP are lost at the end of the phase (G29)
                self.turn += 1
                self._next_purchaser()
                return
            if arg == Ctrl.CLAIM_GOAL:
                self._claim_goal(p, opt)
            elif arg == Ctrl.PLAY_CARD:
                self._play_card(p, opt[1:])  # cards.py
            elif arg == Ctrl.REMOVE:
                self._remove_own(p, opt[1:])
            else:
                self._loan(p, arg)
        elif head == Head.CARD:
            self.changed(changes.CARDS)
            alts = self.cards[arg].tp
            colours = alts[0] if len(alts) == 1 else (opt[1][1],)
            for k in colours:
                self.tp[p][k] += 1
            self.rotated[p].append(arg)
        elif head == Head.COLOUR:
            self.changed(changes.SEATS)
            self.tokens_flipped[p][arg] += 1
            self.tp[p][arg] += self.tp_per_token
        elif head == Head.TECH:  # a technology activation (technologies.py)
            self.activate_in_purchases(p, opt)
            if self.phase != Phase.PURCHASE:  # marker placement pending
                return
        else:
            self._do_purchase(p, arg, opt)
            if self.phase != Phase.PURCHASE:  # marker placement or card choice pending
                return
        if self.phase == Phase.PURCHASE:
            self._open_purchase_menu(p)

    def _do_purchase(self, p: int, cat: int, opt: tuple) -> None:
        comp = self.comp
        if self.config.hidden_purchases and len(opt) == 2 and cat in (
                Purchase.UNIT, Purchase.VEHICLE, Purchase.RANSOM, Purchase.REDEPLOY):
            self._buy_hidden(p, cat, opt)  # variant 8.5: behind the screen until the reveal
            return
        if cat == Purchase.TECH:
            self.changed(changes.SEATS)
            b, lvl = divmod(opt[1][1], 4)
            self._bank(p, -self.tech_price * (lvl + 1))
            self.tech[p][b] = lvl + 1
            self.tech_bought[p][b] = True
        elif cat == Purchase.BUILD:
            self._do_build(p, opt[1][1], opt[2][1])
        elif cat == Purchase.REPAIR:
            self.changed(changes.BUILDINGS)
            node, kind = opt[1][1], opt[2][1]
            cls = BUILDING_CLASS[kind]
            dmg = (self.civil_dmg, self.mil_dmg, self.cath_dmg)[cls]
            dmg[node] -= 1
            self._bank(p, -self.repair_price)
        elif cat == Purchase.VEHICLE:
            self.changed(changes.SUPPLY)
            kind, lvl = divmod(opt[1][1], 3)
            level = lvl + 1
            self._pay(p, self.vehicle_cost_per_level * level, GREEN if kind == SIEGE else BLUE, level)
            if kind == SIEGE:
                self.siege_supply[lvl] -= 1
            else:
                self.vehicle_supply[kind] -= 1
            self._new_object(p, kind, level, opt[2][1])
        elif cat == Purchase.UPGRADE_VEHICLE:
            self.changed(changes.OBJECTS)
            oid = self.slots[p][opt[1][1]]
            o = self.objs[oid]
            kind, target = o[O_KIND], opt[2][1] % 3 + 1
            diff = target - o[O_LEVEL]
            self._pay(p, self.vehicle_cost_per_level * diff, GREEN if kind == SIEGE else BLUE, diff)
            if kind == SIEGE:  # the old figure goes back to the supply
                self.changed(changes.SUPPLY)
                self.siege_supply[o[O_LEVEL] - 1] += 1
                self.siege_supply[target - 1] -= 1
            o[O_LEVEL] = target
        elif cat == Purchase.UNIT:
            self.changed(changes.SEATS)
            t, node = opt[1][1], opt[2][1]
            if t >= CP1:
                level = t - CP1 + 1
                self._pay(p, comp.unit_cost[t], RED, level)
                self.unit_supply[p][4] -= 1
            else:
                self._bank(p, -comp.unit_cost[t])
                self.unit_supply[p][t] -= 1
            self._add_units(p, node, t, 1)
            self.units_bought[p] += 1
        elif cat == Purchase.RANSOM:
            self.changed(changes.SEATS)
            t, node = opt[1][1], opt[2][1]
            captor = self._ransom_captor(p, t)
            self.prisoners[captor][p][t] -= 1
            self._transfer(p, captor, 2 * comp.unit_cost[t])
            self._add_units(p, node, t, 1)
            self.units_bought[p] += 1
        elif cat == Purchase.REDEPLOY:
            self.changed(changes.UNITS | changes.SEATS)
            t, node = opt[1][1], opt[2][1]
            self.capitulated[p][t] -= 1
            self._add_units(p, node, t, 1)
            self.units_bought[p] += 1
        elif cat == Purchase.UPGRADE_CAPTAIN:
            node, frm, to = opt[1][1], opt[2][1], opt[3][1]
            self._pay(p, comp.unit_cost[to] - comp.unit_cost[frm], RED, to - frm)
            self._add_units(p, node, frm, -1)
            self._add_units(p, node, to, 1)
        elif cat == Purchase.CARD:
            self.changed(changes.SEATS | changes.CARDS)
            self._bank(p, -self.card_price(p))
            self.card_bought[p] = True
            cp = comp.raw["card_price"]
            k = cp["draw_base"] + cp["draw_per_cathedral"] * self.count_buildings(p, CATHEDRAL, controlled_only=False)
            k = min(k, len(self.deck))  # G82
            self.drawn = [self.deck.pop() for _ in range(k)]
            self.phase = Phase.KEEP_CARD

    def keep_card_moves(self) -> list[tuple[int, int]]:
        return [(Head.CARD, c) for c in sorted(self.drawn)]

    def _apply_keep_card(self, card: int) -> None:
        self.changed(changes.CARDS)
        p = self.actor
        self.hand[p].append(card)
        if not self.setup_done:
            self.turn += 1
            self._setup_card_kept(card)
            return
        # the rest go face down under the deck (spec 5.7)
        rest = [c for c in self.drawn if c != card]
        self.deck[:0] = rest
        self.drawn = []
        self.phase = Phase.PURCHASE
        self._open_purchase_menu(p)

    # ------------------------------------------------------------------ removal (5.17) ----
    def _removal_options(self, p: int) -> list[tuple]:
        """Spec 5.17: in the own turn a player may put own units (``UNIT``, ``NODE``), transports and
        siege engines (``OBJECT``) and goods cubes (``GOOD``, ``OBJECT`` of the vehicle) back into the
        supply, one at a time; never units in a battle (there is none in phase 4). ASSUMPTION: offered
        in the own purchase turn, which reaches every effect (upkeep, unit limit, ownership markers,
        cargo space before phase 6). Units aboard go with their carrier."""
        remove = (Head.CTRL, Ctrl.REMOVE)
        u = self.units[p]
        opts = [(remove, (Head.UNIT, t), (Head.NODE, n)) for n, size in enumerate(self.army[p]) if size
                for t in range(NT) if u[n * NT + t]]
        for s, oid in enumerate(self.slots[p]):
            if oid >= 0:
                opts.append((remove, (Head.OBJECT, s)))
                opts += [(remove, (Head.GOOD, g), (Head.OBJECT, s)) for g, k in enumerate(self.goods.get(oid, ())) if k]
        return opts

    def _remove_own(self, p: int, moves: tuple) -> None:
        head, arg = moves[0]
        if head == Head.UNIT:
            self._add_units(p, moves[1][1], arg, -1)
            self.unit_supply[p][min(arg, 4)] += 1  # captains: one supply of figures for every level
        elif head == Head.GOOD:
            self.changed(changes.OBJECTS)
            self.goods[self.slots[p][moves[1][1]]][arg] -= 1
            self.goods_supply[arg] += 1
        else:
            self._remove_object(self.slots[p][arg])

    def _claim_goal(self, p: int, opt: tuple) -> None:
        self.changed(changes.SUPPLY | changes.SEATS | changes.CARDS)
        card = opt[1][1]
        colours = self.cards[card].token_colours or tuple(range(6))
        colour = opt[2][1] if len(opt) > 2 else colours[0]
        self.token_supply[colour] -= 1
        self.tokens[p][colour] += 1
        self.hand[p].remove(card)
        self._card_leaves_hand(p, card)
        self.deck.insert(0, card)  # face down under the deck
        self.goals_claimed[p] += 1

    # The menu's larger parts by their first move, with the method that lists a part's options once it is chosen
    # (after the methods it names).
    _MENU_PARTS = {
        (P, Purchase.BUILD): _build_options,
        (P, Purchase.VEHICLE): _vehicle_options,
        (P, Purchase.UNIT): _unit_options,
        (Head.CTRL, Ctrl.PLAY_CARD): _card_play_purchase_options,  # W-PURCHASE (cards.py)
        (Head.CTRL, Ctrl.REMOVE): _removal_options,  # spec 5.17
    }


__all__ = ["PurchaseMixin"]
