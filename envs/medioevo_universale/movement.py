"""Phase 5: war cycles and completed movements (spec 4.3, 5.9, 5.15; G22, G32-G35, G85, G89).

A war turn is PASS or one completed movement. The mover picks a carrier: an own war wagon or
galley with MP, a siege engine (moving alone), or an army on foot out of a castle region (castle
rule: one free step). Inside the movement it repeats {load an unstopped unit, unload a unit, step to
an adjacent node for 1 MP (docking and undocking 1 MP each), switch to another own carrier in the
same place} until DONE or until an entry stops it. Loading and unloading are free ("Das Laden/Entladen
von Einheiten oder Waren ist kostenlos"), so a transport or siege engine that left the group (disembarked,
an escort left behind, the carrier changed from) rejoins it only after the group's next step
(``left_group``; ASSUMPTION: rejoining at once only undoes the move, and free moves that undo each other
would let a movement last forever). Entering a land region with cargo: an opposing army -> battle (several
opponents -> one battle after another, barbarians first, then the mover picks, spec 5.15; conquest only when
the mover's army is left alone); a barbarian region without an army -> a horde appears, battle; another
player's region without an army -> takeover (an act of war); own region -> carry on. A galley with units
entering a sea zone with hostile galleys fights their owners the same way, one after another (spec 5.13,
5.15). Empty carriers and siege engines may enter only own or barbarian regions without an army (G33).
Unloaded and arriving units get stop markers; so do siege engines that moved (G85). Transports keep unspent MP
for later war turns of the round (G32). Caravans and merchant ships do not move in phase 5 (G89).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Resume
from .constants import (
    CARAVAN, GALLEY, MERCHANT_SHIP, NUM_UNIT_TYPES, O_KIND, O_MP, O_NODE, O_STOP, SIEGE, WAR_WAGON, Ctrl,
    DiplomacyWindow, Head, Phase, Stage,
)
from . import changes
from .combat import BattleAfter

NT = NUM_UNIT_TYPES
DONE = (Head.CTRL, Ctrl.DONE)
FOOT = -1  # the carrier id of an army on foot (castle rule)


@dataclass(slots=True)
class MultiWar:
    """Spec 5.15 MEHRPARTEIENKRIEG (``engine.multi_war``): an entry's battles against several opponents, one
    after another."""
    node: int
    attacker: int
    left: list[int]  # the opponents still to fight (-1: barbarians)
    fought: list[int] = field(default_factory=list)  # the opponents fought so far, in order


class WarMixin:
    # --------------------------------------------------------------------- the loop ----
    def _start_war(self) -> None:
        self.stage = Stage.WAR
        if self._diplomacy_window(DiplomacyWindow.WAR):  # spec 10.5: a diplomacy window first
            return
        if not self._new_war_cycle():
            self._next_war_turn()

    def _new_war_cycle(self) -> bool:
        """Every seat in turn order; the W-ANY window first (cards.py). True when it opened (it resumes
        ``_next_war_turn``)."""
        self.cycle_moved = False
        self.queue = [p for p in self.order if not self.eliminated[p]]
        return self._jederzeit_window("any_war", Resume.WAR_TURN)

    def _next_war_turn(self) -> None:
        while True:
            while self.queue:
                p = self.queue.pop(0)
                if self.war_turn_moves(p, any_only=True):
                    self.actor = p
                    self.phase = Phase.WAR_TURN
                    return
            if not self.cycle_moved:  # a whole cycle of passes ends the phase (G22)
                self._after_war()
                return
            if self._new_war_cycle():
                return

    def _after_war(self) -> None:
        self._start_trade()

    def war_turn_moves(self, p: int, any_only: bool = False) -> list[tuple[int, int]]:
        moves = []
        if self.follow_up_active:  # after a retreat: only carriers in the retreat region
            y = self.follow_up[0]
            moves = [(Head.OBJECT, s) for s, oid in enumerate(self.slots[p])
                     if oid >= 0 and self.objs[oid][O_NODE] == y and self._carrier_usable(p, oid)]
            return [DONE] + moves if moves else []
        for s, oid in enumerate(self.slots[p]):
            if oid >= 0 and self._carrier_usable(p, oid):
                moves.append((Head.OBJECT, s))
                if any_only:
                    return moves
        for n in self.land_nodes:
            if self.mil[n] == 3 and self.controller(n) == p and self._unstopped_units(p, n) > 0:
                if any(self.playable[y] and self._armed_entry_ok(p, y) and not self._step_banned(p, n, y, True)
                       for y in self.board.land_adj[n]):  # Bischof 1 / 3 (cards.py)
                    moves.append((Head.NODE, n))
                    if any_only:
                        return moves
        if moves:
            moves.insert(0, DONE)
        return moves

    def _carrier_usable(self, p: int, oid: int) -> bool:
        o = self.objs[oid]
        kind = self.war_kind(oid)  # Wissenschaftler 11 (cards.py)
        movers = (WAR_WAGON, GALLEY, SIEGE) + ((CARAVAN, MERCHANT_SHIP) if self.config.trade_vehicles_in_war else ())
        if o[O_MP] < 1 or kind not in movers or o[O_NODE] < 0:
            return False
        if kind in (SIEGE, CARAVAN, MERCHANT_SHIP) and o[O_STOP]:
            return False
        if kind == GALLEY and self.cargo_stopped.get(oid):
            return False
        if self._step_targets(p, kind, o[O_NODE], armed=False, mp=o[O_MP]):
            return True
        if self.unit_capacity(oid) and (sum(self.cargo[oid]) or self._loadable(p, oid)):
            return bool(self._step_targets(p, kind, o[O_NODE], armed=True, mp=o[O_MP]))
        return False

    def _apply_war_turn(self, move: tuple[int, int]) -> None:
        p = self.actor
        head, arg = move
        if head == Head.CTRL:
            self.turn += 1
            if self.follow_up_active:
                self._stop_follow_up()
            self._next_war_turn()
            return
        self.changed(changes.MOVE)
        self.move_steps = 0
        self.left_group = []
        self.mover = p
        if head == Head.OBJECT:
            self.carrier = self.slots[p][arg]
        else:
            self.carrier = FOOT
            self.foot_node = arg
            self.foot_cargo = [0] * NT
            self.foot_stepped = False
        self.phase = Phase.MOVE

    # ------------------------------------------------------------------- queries ----
    def _unstopped_units(self, p: int, node: int) -> int:
        base = node * NT
        u, st = self.units[p], self.stopped[p]
        return sum(u[base + t] - st[base + t] for t in range(NT))

    def _loadable(self, p: int, oid: int) -> bool:
        o = self.objs[oid]
        node = o[O_NODE]
        if self.board.is_sea[node]:
            return False
        room = self.unit_capacity(oid) - sum(self.cargo[oid]) - len(self.aboard.get(oid, ()))
        return room > 0 and self._unstopped_units(p, node) > 0

    def _step_targets(self, p: int, kind: int, x: int, armed: bool, mp: int | None = None) -> list[int]:
        b = self.board
        if kind in (GALLEY, MERCHANT_SHIP):
            cand = b.coast[x] if not b.is_sea[x] else b.sea_adj[x] + b.coast[x]
        else:
            cand = b.land_adj[x]
        out = []
        for y in cand:
            if not self.playable[y] or (mp is not None and self.step_cost(kind, x, y) > mp):  # 8.2 terrain
                continue
            if self._step_banned(p, x, y, armed):  # Bischof 1 / 3 (cards.py)
                continue
            if b.is_sea[y]:
                if self._hostile_galleys(p, y) and not (armed and kind == GALLEY):
                    continue  # only a galley with units aboard may attack at sea (spec 5.13)
                out.append(y)
            elif armed:
                if self._armed_entry_ok(p, y):  # treaties: no attack on a ceasefire partner
                    out.append(y)
            elif not self._opposing_army(p, y):
                c = self.controller(y)
                if c in (-1, p) or self.may_pass(p, c):
                    out.append(y)
        return out

    def _hostile_galleys(self, p: int, sea: int) -> bool:
        if self.barb_total[sea]:  # a barbarian galley is always hostile
            return True
        return any(o[O_NODE] == sea and o[0] != p and o[O_KIND] == GALLEY and not self.peaceful(p, o[0])
                   for o in self.objs.values())

    def _opposing_army(self, p: int, node: int) -> bool:
        if self.barb_total[node]:
            return True
        army = self.army
        return any(army[q][node] and q != p and not self.may_pass(p, q) for q in range(self.num_players))

    def carrier_node(self) -> int:
        return self.foot_node if self.carrier == FOOT else self.objs[self.carrier][O_NODE]

    def carrier_cargo(self) -> list[int]:
        if self.carrier == FOOT:
            return self.foot_cargo
        return self.cargo.get(self.carrier) or [0] * NT  # a siege engine carries nothing

    # ---------------------------------------------------------------- movement ----
    def move_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        c = self.carrier
        if self.hunter_pending >= 0:  # Jäger 55 / 56: passing through, the cargo stays aboard (cards.py)
            return self.hunter_moves(p)
        moves = [DONE]
        node = self.carrier_node()
        cargo = self.carrier_cargo()
        base = node * NT
        u, st = self.units[p], self.stopped[p]
        if c == FOOT:
            if self.foot_stepped:
                return moves
            for t in range(NT):
                if u[base + t] - st[base + t] > 0:
                    moves.append((Head.LOAD, t))
            if sum(cargo):
                moves += [(Head.NODE, y) for y in self.board.land_adj[node]
                          if self.playable[y] and self._armed_entry_ok(p, y)
                          and not self._step_banned(p, node, y, True)]  # Bischof 1 / 3 (cards.py)
            return moves
        o = self.objs[c]
        kind = self.war_kind(c)  # Wissenschaftler 11 (cards.py)
        land = not self.board.is_sea[node]
        carries_units = self.unit_capacity(c) > 0  # Kanonier 54: a siege engine too (cards.py)
        if carries_units and land:
            room = self.unit_capacity(c) - sum(cargo) - len(self.aboard.get(c, ()))
            for t in range(NT):
                if room > 0 and (u[base + t] - st[base + t] > 0 or self.warlord_loads(p, node, t)):  # Kriegsfürst 6
                    moves.append((Head.LOAD, t))
            for t in range(NT):
                if cargo[t]:
                    moves.append((Head.UNLOAD, t))
            if kind == GALLEY:  # spec 2.5: galleys also carry empty war wagons and siege engines
                for s, oid in enumerate(self.slots[p]):
                    if oid < 0 or oid == c:
                        continue
                    o2 = self.objs[oid]
                    if room > 0 and o2[O_NODE] == node and oid not in self.left_group and (
                            (o2[O_KIND] == WAR_WAGON and not sum(self.cargo[oid]))
                            or (o2[O_KIND] == SIEGE and not o2[O_STOP] and not sum(self.cargo.get(oid, ())))):
                        moves.append((Head.EMBARK, s))
                    elif self.carried_by.get(oid) == c:
                        moves.append((Head.DISEMBARK, s))
            elif kind == WAR_WAGON:  # spec 5.9: siege engines may accompany the group, paying their MP
                for s, oid in enumerate(self.slots[p]):
                    if oid < 0:
                        continue
                    o2 = self.objs[oid]
                    if oid in self.escort:
                        moves.append((Head.DISEMBARK, s))
                    elif (o2[O_NODE] == node and o2[O_KIND] == SIEGE and not o2[O_STOP] and o2[O_MP] >= 1
                          and oid not in self.left_group):
                        moves.append((Head.EMBARK, s))
        if o[O_MP] >= 1:
            moves += [(Head.NODE, y) for y in self._step_targets(p, kind, node, armed=sum(cargo) > 0, mp=o[O_MP])]
        if carries_units and land:
            need = sum(cargo)
            for s, oid in enumerate(self.slots[p]):
                if oid < 0 or oid == c:
                    continue
                o2 = self.objs[oid]
                if (o2[O_NODE] == node and self.war_kind(oid) in (WAR_WAGON, GALLEY) and o2[O_MP] >= 1
                        and not self.cargo_stopped.get(oid) and oid not in self.left_group
                        and self.unit_capacity(oid)
                        >= need + sum(self.cargo[oid]) + len(self.aboard.get(oid, ()))):
                    moves.append((Head.OBJECT, s))
        return moves

    def _apply_move(self, move: tuple[int, int]) -> None:
        p = self.actor
        head, arg = move
        node = self.carrier_node()
        cargo = self.carrier_cargo()
        if head == Head.LOAD:
            self.changed(changes.OBJECTS | changes.MOVE)
            if self.warlord_load is not None:
                self.warlord_board(p, node, arg)  # Kriegsfürst 6 (cards.py)
            self._add_units(p, node, arg, -1)
            cargo[arg] += 1
        elif head == Head.UNLOAD:
            self.changed(changes.OBJECTS | changes.MOVE)
            cargo[arg] -= 1
            self._add_units(p, node, arg, 1)
            self.stopped[p][node * NT + arg] += 1  # units left behind get a stop marker
        elif head in (Head.EMBARK, Head.DISEMBARK) and self.war_kind(self.carrier) == WAR_WAGON:
            self.changed(changes.MOVE)
            oid = self.slots[p][arg]
            if head == Head.EMBARK:
                self.escort.append(oid)
            else:
                self.changed(changes.OBJECTS)
                self.escort.remove(oid)
                self.left_group.append(oid)
                self.objs[oid][O_STOP] = self.objs[oid][O_STOP] or self.move_steps > 0
        elif head == Head.EMBARK:
            self.changed(changes.OBJECTS)
            oid = self.slots[p][arg]
            self.objs[oid][O_NODE] = -1
            self.aboard.setdefault(self.carrier, []).append(oid)
            self.carried_by[oid] = self.carrier
        elif head == Head.DISEMBARK:
            self.changed(changes.OBJECTS | changes.MOVE)
            oid = self.slots[p][arg]
            self.left_group.append(oid)
            self.aboard[self.carrier].remove(oid)
            del self.carried_by[oid]
            o = self.objs[oid]
            o[O_NODE] = node
            if o[O_KIND] == SIEGE:
                o[O_STOP] = True  # it moved this round (G85)
        elif head == Head.OBJECT:
            self.changed(changes.OBJECTS | changes.MOVE)
            for oid in self.escort:  # accompanying engines stay here when the group changes carrier
                self.objs[oid][O_STOP] = self.objs[oid][O_STOP] or self.move_steps > 0
            self.escort = []
            self.left_group.append(self.carrier)
            new = self.slots[p][arg]
            target = self.cargo[new]
            for t in range(NT):
                target[t] += cargo[t]
                cargo[t] = 0
            self.carrier = new
        elif head == Head.NODE:
            self._step(p, arg)
        else:
            self._end_movement()

    def _step(self, p: int, y: int) -> None:
        # the carrier's place and MP, and what its entry sets off (``_entry_effects``: it stops, the cargo goes ashore)
        self.changed(changes.MOVE)
        self.move_steps += 1
        self.left_group = []
        if self.carrier == FOOT:
            self.foot_node = y
            self.foot_stepped = True
        else:
            self.changed(changes.OBJECTS)
            o = self.objs[self.carrier]
            x = o[O_NODE]
            o[O_MP] -= self.step_cost(o[O_KIND], x, y)
            o[O_NODE] = y
            for oid in list(self.escort):  # accompanying siege engines pay their own MP
                e = self.objs[oid]
                cost = 0 if self.escort_follows(oid) else self.step_cost(SIEGE, x, y)  # Kanonier 53 (cards.py)
                if e[O_MP] >= cost:
                    e[O_MP] -= cost
                    e[O_NODE] = y
                else:
                    e[O_STOP] = True  # out of MP: it stays behind
                    self.escort.remove(oid)
        if self.hunter_passes(p, y):  # Jäger 55 / 56: nobody reacts until the movement ends (cards.py)
            return
        if self.decree_step:  # Erlass: no barbarian resistance here (technologies.py)
            return
        self._entry_effects(p, y)

    def _entry_effects(self, p: int, y: int) -> None:
        """Spec 5.9: what entering y with the carrier's cargo sets off."""
        cargo = self.carrier_cargo()
        if not sum(cargo):
            return
        if self.board.is_sea[y]:
            if self._hostile_galleys(p, y):
                self._stop_carrier()
                self._attack_all(p, y, self._sea_opponents(p, y))
            return
        # entering a land region with an army (spec 5.9 entry effects)
        hostile = self._opposing_army(p, y)
        ctrl = self.controller(y)
        if not hostile and (ctrl == p or self.may_pass(p, ctrl)):  # G35: a normal move with right of way
            if self.carrier == FOOT:
                self._end_movement()
            return
        self.warlord_entry(p, y)  # Kriegsfürst 6: remember the MP the entry takes (cards.py)
        self.entry_host = ctrl  # whether the battles here can conquer the region (``conquers``)
        self._stop_carrier()
        self._disembark(p, y)
        if hostile:
            opponents = self._opponents_at(p, y)
            if self.kartografie_invasion_window(y, p, ctrl, opponents):  # W-INVADE of an absent controller
                return
            self._attack_all(p, y, opponents)
        elif ctrl < 0:
            if self._spawn_horde(y):
                self._start_battle(y, p, -1)
            else:
                self._end_movement()
        else:
            self._act_of_war(p, ctrl)
            if self.kartografie_invasion_window(y, p, ctrl):  # W-INVADE: a defender may come (technologies.py)
                return
            self._remove_markers(y)
            self._start_conquest(y, p, ctrl, buildings=True)  # same object decisions, no EP (G52)

    # --------------------------------------------------------- multi-party war (spec 5.15) ----
    def _opponents_at(self, p: int, y: int) -> list[int]:
        """The parties in land region y an army of p entering it fights: barbarians (-1) first, then every
        other player's army except those of right-of-way / stationing partners (their armies stand aside,
        G35). ``_armed_entry_ok`` keeps ceasefire partners out of this list."""
        army = self.army
        players = [q for q in range(self.num_players) if q != p and army[q][y] and not self.may_pass(p, q)]
        return [-1] + players if self.barb_total[y] else players

    def _sea_opponents(self, p: int, sea: int) -> list[int]:
        """The parties a galley with units of p entering ``sea`` fights (spec 5.13): barbarian galleys (-1)
        first, then every player with a galley there that is not peaceful with p (a treaty or a
        ceasefire); a player whose galleys there are all empty loses them without a battle (G42)."""
        players = [q for q in range(self.num_players) if q != p and not self.peaceful(p, q)
                   and self._galleys_at(q, sea)]
        return [-1] + players if self.barb_total[sea] else players

    def _galleys_at(self, q: int, sea: int) -> list[int]:
        return [oid for oid, o in self.objs.items() if o[O_NODE] == sea and o[0] == q and o[O_KIND] == GALLEY]

    def crews_at(self, q: int, sea: int) -> bool:
        """Whether q has a galley with units aboard in ``sea``: its fighting force there."""
        return any(sum(self.cargo[oid]) for oid in self._galleys_at(q, sea))

    def _party_at(self, q: int, node: int) -> bool:
        """Whether party q (-1: barbarians) is still in node: an army on land; at sea a galley, crewed or
        empty (empty ones are taken, G42)."""
        if q < 0:
            return bool(self.barb_total[node])
        return bool(self._galleys_at(q, node)) if self.board.is_sea[node] else bool(self.army[q][node])

    def _force_at(self, p: int, node: int) -> bool:
        """Whether player p can still fight in node: an army on land, a galley with units aboard at sea."""
        return self.crews_at(p, node) if self.board.is_sea[node] else bool(self.army[p][node])

    def _attack_all(self, p: int, y: int, opponents: list[int]) -> None:
        """Spec 5.15: one opponent -> one battle; several -> one battle after another (``multi_war``)."""
        if len(opponents) > 1:
            self.changed(changes.MULTI_WAR)  # it opens; apply reports every move made while it is open
            self.multi_war = MultiWar(y, p, opponents)
            self._next_opponent_battle()
        else:
            self._attack_opponent(p, y, opponents[0])

    def _attack_opponent(self, p: int, y: int, q: int) -> None:
        """A battle of p's army in y against q (-1: barbarians); an attack on a player is an act of war.
        At sea a player without units aboard loses its ships at once (G42: captured or plundered)."""
        if q >= 0:
            self._act_of_war(p, q)
        if not self.board.is_sea[y]:
            self._invaded(y, p, q)  # W-INVADE, then the battle (cards.py)
        elif q >= 0 and not self.crews_at(q, y):
            self._start_conquest(y, p, q, buildings=False)  # its end goes on with the sequence (conquest.py)
        else:
            self._naval_battle_vs(y, p, q)

    def in_multi_war(self, node: int, attacker: int) -> bool:
        """Whether a battle of ``attacker`` in ``node`` is one of the battles of the pending multi-party war."""
        mw = self.multi_war
        return mw is not None and mw.node == node and mw.attacker == attacker and self.battle_after == BattleAfter.MOVE

    def _next_opponent_battle(self) -> None:
        """Spec 5.15 "Man muss nacheinander mit jedem Gegner kämpfen": while the attacker can fight there
        and opponents are left, the next battle starts (barbarians first; among several players the
        attacker chooses, NEXT_OPPONENT); then the sequence ends."""
        mw = self.multi_war
        y, p = mw.node, mw.attacker
        left = mw.left = [q for q in mw.left if self._party_at(q, y)]
        if not left or not self._force_at(p, y):
            self._finish_multi_war()
        elif left[0] < 0 or len(left) == 1:
            self._fight_next(left[0])
        else:
            self.actor = p
            self.phase = Phase.NEXT_OPPONENT

    def _fight_next(self, q: int) -> None:
        mw = self.multi_war
        mw.left.remove(q)
        mw.fought.append(q)
        self._attack_opponent(mw.attacker, mw.node, q)

    def next_opponent_moves(self) -> list[tuple[int, int]]:
        p, n = self.actor, self.num_players
        return [(Head.PLAYER, (q - p) % n - 1) for q in sorted(self.multi_war.left, key=lambda q: (q - p) % n)]

    def _apply_next_opponent(self, move: tuple[int, int]) -> None:
        self._fight_next((self.actor + move[1] + 1) % self.num_players)

    def _finish_multi_war(self) -> None:
        """GEBIETE EROBERN: "Überlebt nur das angreifende Heer die Schlacht(en) ... erobert der Angreifer das
        Gebiet": the conquest (EP and decisions over every beaten player's objects) only when the attacker's
        army is the only one left; otherwise the movement just ends (ASSUMPTION, the docs). At sea nothing
        is conquered: each battle took the beaten side's empty ships at once (G42, ASSUMPTION)."""
        mw, self.multi_war = self.multi_war, None
        y, p = mw.node, mw.attacker
        if not self.board.is_sea[y] and self.conquers(y, p):
            beaten = [q for q in mw.fought if q >= 0]
            self.region_conquered(y, p)
            self._start_conquest(y, p, beaten[0] if beaten else -1, buildings=True, more_losers=beaten[1:])
            return
        self._end_movement()

    def entry_battle_over(self) -> None:
        """After a battle an entry started (and the ships it took at sea): the next battle of a pending
        multi-party war, or the end of the movement."""
        if self.multi_war is not None:
            self._next_opponent_battle()
        else:
            self._end_movement()

    def sole_army(self, node: int, p: int) -> bool:
        """Whether no other party than p has an army in ``node``."""
        return not self.barb_total[node] and not any(
            self.army[q][node] for q in range(self.num_players) if q != p)

    def conquers(self, node: int, p: int) -> bool:
        """GEBIETE EROBERN: p's army is the only one left in land region ``node``, and p did not enter it as
        the guest of its controller. G24 / G35 (ASSUMPTION): a right-of-way / stationing partner keeps
        control of its region while p's army stands there, also after p beat a third party's guest army
        in it: no conquest EP, no decisions over the host's buildings and cubes."""
        host = self.entry_host
        return bool(self.army[p][node]) and self.sole_army(node, p) and not (host >= 0 and self.may_pass(p, host))

    def region_conquered(self, node: int, p: int) -> None:
        """Conquest EP; a region whose controller had no army there (only its treaty guest's) is taken from
        that controller as well: an attack on it like a takeover (spec 5.9 case 3, ASSUMPTION)."""
        if self.entry_host != p:
            self._act_of_war(p, self.entry_host)  # nothing for -1 or a seat already at war with p
        self._conquest_ep(node, p)

    def _naval_battle_vs(self, sea: int, p: int, q: int) -> None:
        """Crews of both sides leave their galleys for the battle's bookkeeping (-1: barbarians)."""
        self.changed(changes.OBJECTS)
        self.naval_crewed = [oid for oid, o in self.objs.items()
                             if o[O_NODE] == sea and o[O_KIND] == GALLEY and sum(self.cargo[oid])]
        for r in (p, q):
            if r < 0:
                continue
            for oid in self._galleys_at(r, sea):
                cargo = self.cargo[oid]
                for t in range(NT):
                    if cargo[t]:
                        self._add_units(r, sea, t, cargo[t])
                        cargo[t] = 0
        self._start_battle(sea, p, q)

    def _stop_carrier(self) -> None:
        """Entering such a region makes the carrier lose all its remaining MP."""
        if self.carrier != FOOT:
            self.objs[self.carrier][O_MP] = 0

    def _disembark(self, p: int, node: int) -> None:
        cargo = self.carrier_cargo()
        st = self.stopped[p]
        for t in range(NT):
            k = cargo[t]
            if k:
                cargo[t] = 0
                self._add_units(p, node, t, k)
                st[node * NT + t] += k

    def _end_movement(self) -> None:
        # the carrier stops, its cargo goes ashore (also in the entry effects of a hunter's arrival, cards.py)
        self.changed(changes.MOVE if self.carrier == FOOT else changes.OBJECTS | changes.MOVE)
        self.entry_host = -1
        if self.hunter_arrival():  # Jäger 55 / 56: the end region reacts now (cards.py)
            return
        if self.warlord_resume():  # Kriegsfürst 6: half of the units move on (cards.py)
            return
        if self.kartografie_after_battle():  # after a won battle the carrier may move on (technologies.py)
            return
        p = self.actor = self.mover
        for oid in self.escort:  # siege engines that moved are stopped for the round (G85)
            if oid in self.objs:
                self.changed(changes.OBJECTS)
                self.objs[oid][O_STOP] = True
        self.escort = []
        self.left_group = []
        if self.carrier != FOOT and self.carrier not in self.objs:
            self.cycle_moved = True  # the carrier was lost in the battle; its army had disembarked
        else:
            self._finish_carrier(p)
        self.carrier = FOOT
        self.foot_node = -1
        self.turn += 1
        if self.follow_up is not None:
            if not self.follow_up_active:
                self.follow_up_active = True
                if self.war_turn_moves(p):
                    self.actor = p
                    self.phase = Phase.WAR_TURN
                    return
            self._stop_follow_up()
        self._next_war_turn()

    def _stop_follow_up(self) -> None:
        """The retreated units that stayed in the retreat region get their stop markers now."""
        self.changed(changes.UNITS)
        y, moved = self.follow_up
        p = self.mover
        st, u = self.stopped[p], self.units[p]
        for t in range(NT):
            i = y * NT + t
            st[i] = min(u[i], st[i] + moved[t])
        self.follow_up = None
        self.follow_up_active = False

    def _finish_carrier(self, p: int) -> None:
        node = self.carrier_node()
        cargo = self.carrier_cargo()
        if self.move_steps == 0:
            if self.board.is_sea[node]:
                return  # nothing moved at sea: the crew was aboard before (no loading at sea)
            for t in range(NT):  # nothing moved: the units go back unstopped
                if cargo[t]:
                    self._add_units(p, node, t, cargo[t])
                    cargo[t] = 0
        else:
            self.cycle_moved = True
            if self.carrier != FOOT and self.war_kind(self.carrier) in (SIEGE, CARAVAN, MERCHANT_SHIP):
                self.objs[self.carrier][O_STOP] = True
            if not self.board.is_sea[node]:
                self._disembark(p, node)
            elif sum(cargo):
                self.changed(changes.OBJECTS)
                self.cargo_stopped[self.carrier] = True  # the army stays aboard at sea

    # ------------------------------------------------------------- helpers ----
    def _act_of_war(self, p: int, q: int) -> None:
        """Spec 5.19 / G50: an attack on a player not at war costs -3 EP and starts the war."""
        if q < 0 or self.at_war[p][q]:
            return
        self.changed(changes.WAR)
        self._gain_ep(p, -3, "undeclared_attack")
        self.at_war[p][q] = self.at_war[q][p] = True
        self._war_breaks_treaties(p, q)  # diplomacy: -2 EP per treaty with q

    def _remove_markers(self, node: int) -> None:
        m = self.marker[node]
        if m >= 0:
            self.changed(changes.MARKERS | changes.SEATS)
            self.marker[node] = -1
            self.markers_left[m] += 1

    def _spawn_horde(self, node: int) -> int:
        """Barbarian resistance: an army of the round's horde composition, as far as the supply allows."""
        placed = 0
        for k in range(3):
            take = min(self.horde[k], self.barb_supply[k])
            if take:
                self.changed(changes.SUPPLY)
                self.barb_supply[k] -= take
                self._add_barb(node, k, take)
                placed += take
        return placed
