"""Land battles (spec 5.10, 5.11, 5.15, 5.16 conquest EP, 5.20 barbarian AI).

Every battle has two parties; several armies in a region fight one battle after another (spec 5.15):
an entering army's sequence is in movement.py, barbarians fighting every army of a region here.

A battle is a list of tasks run in order, each (BattleStep kind, arguments...) run by the method
``BattleMixin._STEPS`` names; a task that needs a decision sets ``phase`` and ``actor`` and returns, and
the decision's ``apply`` resumes the run. Sides: 0 = attacker, 1 = defender; a side's owner is a seat or
-1 (barbarians). One battle round:

0. capture declarations, building protection  1. siege engines (crews, targets) fire
2. captain slots of the stronger side  3. archers fire
4. melee abilities fixed  5./6. LI sacrifices, roll d4 d6 d8, one reroll, attack and loss values
7. compare  8. combat result capped by the winner's melee units (G37)  9. loser's damage: result +
2 per active cavalry (also on a tie) + superiority choices  10. loss values, attacker first.
A retreat round (RÜCKZUG) picks the retreat region after step 9, adds that step's MP to the attacker's
loss value before step 10, and moves the army there at the end of the round.

Barbarians: the round's dice unchanged, no malus, no reroll; LI sacrifice and captain rules of
5.20; they take damage LI -> AR -> CP from every source (G51); superiority points always add damage.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .constants import (
    AR, B_AR, B_CP, B_LI, CA, CP1, GALLEY, HI, LI, NUM_UNIT_TYPES, O_KIND, O_NODE, SIEGE, WAR_WAGON,
    Ctrl, Head, Phase,
)
from . import changes

NT = NUM_UNIT_TYPES
# ability types in check order (spec 5.11): AR, LI, HI, CA -> index in CAPTAIN head = mode * 4 + i
ABIL = (AR, LI, HI, CA)
MAX_BATTLE_ROUNDS = 200


def attack_value(dice: list[int]) -> int:
    """Spec 5.10 step 5: the highest die, or the product of equal dice if that is higher."""
    best = max(dice)
    for v in set(dice):
        k = dice.count(v)
        if k >= 2 and v ** k > best:
            best = v ** k
    return best


def _pair(value):
    """A per-side pair (0 = attacker, 1 = defender) of an immutable start value."""
    return field(default_factory=lambda: [value, value])


def _per_type(value):
    """Per side, a value per unit type."""
    return field(default_factory=lambda: [[value] * NT, [value] * NT])


class BattleStep:
    """The kind of a battle task (``Battle.tasks``): a task is (kind, arguments...), run by the method
    ``BattleMixin._STEPS`` names. In the order of a battle round (``ROUND_TASKS``; spec 5.10)."""
    ANY_BATTLE_WINDOW = 0  # W-ANY before the round: Bischof 1, Tempelritter 35 (cards.py)
    ROUND_PRE_WINDOW = 1  # W-ROUND-PRE (cards.py)
    CAPTURE = 2  # (side): declarations: a capture attempt (spec 5.14, G44)
    PROTECTION = 3  # (side): declarations: what the military building protects against (spec 5.12, G41)
    SIEGE_CREWS = 4  # (side): step 1: the side crews its siege engines
    SIEGE_FIRE = 5  # step 1: the engines of both sides fire
    SIEGE_BUILDING_HIT = 6  # (side, points): step 1: a siege hit on an enemy building (G40)
    TECH_WINDOW = 7  # (side): battle technologies before step 2 (technologies.py)
    CAPTAINS = 8  # step 2: the captain slots
    ARCHERS = 9  # step 3
    MELEE_ABILITIES = 10  # step 4
    SACRIFICE = 11  # (side): steps 5 / 6: LI sacrifices
    BLOOD = 12  # (side): variant 8.3: blood markers before the side's roll (variants.py)
    ROLL = 13  # (side): steps 5 / 6: the attack roll
    ATTACK_WINDOW = 14  # W-ATTACK (cards.py)
    COMPARE = 15  # steps 7 / 8: the winner and the combat result
    SUPERIORITY = 16  # (side): step 9: the winner places its superiority points
    COMBAT_RESULT = 17  # (loser, points): step 9: the loser's damage
    TAKTIK_WINDOW = 18  # (loser, points): step 9: the winner's Taktik first (technologies.py)
    CAPTOR = 19  # (seat): G44: who takes the units the following damage kills prisoner (-1: none)
    DAMAGE = 20  # (side, points, restricted): the side assigns damage (spec 5.11)
    LOSS_VALUES = 21  # step 10
    FREED = 22  # spec 5.14: prisoners freed
    RETREAT_MOVE = 23  # RÜCKZUG: after step 9, the retreat region
    END_ROUND = 24  # after step 10: another round, a retreat or a capitulation


# the tasks of a battle round (``_new_battle_round``); blood markers go in before the rolls (``_add_blood_tasks``)
ROUND_TASKS = (
    (BattleStep.ANY_BATTLE_WINDOW,), (BattleStep.ROUND_PRE_WINDOW,),  # card windows: cards.py
    (BattleStep.CAPTURE, 0), (BattleStep.CAPTURE, 1), (BattleStep.PROTECTION, 0), (BattleStep.PROTECTION, 1),
    (BattleStep.SIEGE_CREWS, 0), (BattleStep.SIEGE_CREWS, 1), (BattleStep.SIEGE_FIRE,),
    (BattleStep.TECH_WINDOW, 0), (BattleStep.TECH_WINDOW, 1),  # technology windows before step 2 (technologies.py)
    (BattleStep.CAPTAINS,), (BattleStep.ARCHERS,), (BattleStep.MELEE_ABILITIES,),
    (BattleStep.SACRIFICE, 0), (BattleStep.ROLL, 0), (BattleStep.SACRIFICE, 1), (BattleStep.ROLL, 1),
    (BattleStep.ATTACK_WINDOW,), (BattleStep.COMPARE,), (BattleStep.LOSS_VALUES,), (BattleStep.END_ROUND,))


@dataclass(slots=True)
class Battle:
    """The battle in progress (``engine.bt``): two parties in one region (spec 5.10). A per-side value is a
    pair indexed by side, 0 = attacker, 1 = defender; "this round" values are reset by ``_new_battle_round``."""
    node: int
    owners: list[int]  # per side: a seat, or -1 for barbarians
    naval: bool  # SEEKRIEG: at sea
    home_barbarians: bool  # barbarians defend a region of the attacker's start empire (a revolt, spec 6.1)
    round: int = 0
    start_size: list[int] = _pair(0)  # units when the battle began (spec 6.1: a large army defeated)
    tasks: list = field(default_factory=list)  # the steps still to run, in order: (BattleStep, arguments...)
    # step 2: the captains' slots, each (mode, i): act as / enable own / cancel enemy (mode 0 / 1 / 2) ABIL[i]
    cap: list[list[tuple[int, int]]] = field(default_factory=lambda: [[], []])
    slots_left: int = 0  # captain slots the stronger side still has to place
    slot_side: int = -1
    active: list[list[bool]] = _per_type(False)  # per type: its ability works this round (spec 5.11)
    count: list[list[int]] = _per_type(0)  # per type: the units the abilities count (captains acting as it too)
    sac: list[int] = _pair(0)  # LI sacrificed this round
    dice: list[list[int]] = field(default_factory=lambda: [[0, 0, 0], [0, 0, 0]])  # d4, d6, d8
    av: list[int] = _pair(0)  # attack value
    lv: list[int] = _pair(0)  # loss value
    super_left: int = 0  # superiority points the winner still has to place
    super_reduce: list[int] = _pair(0)  # superiority points lowering the side's loss value this round
    super_damage: int = 0  # superiority points added to the loser's damage this round
    damage: list | None = None  # the damage being assigned: [side, points left, melee units first]
    retreat: bool = False  # RÜCKZUG: this round is the attacker's retreat round
    retreated: bool = False  # the attacker's army left (a retreat, or the withdrawal after a ceasefire)
    capitulated: int = -1  # the side that capitulated
    offer: int = -1  # the side that would capitulate, in CAPITULATION_ANSWER
    galleys: list[list[int]] | None = None  # at sea: the side's galleys in the zone when the battle began
    crewed: list[int] = field(default_factory=list)  # at sea: galleys with units aboard then (they may sink)
    # this round
    crew: list[list[int]] = _per_type(0)  # per type: units crewing siege engines (out of steps 2-9)
    protect: list[int] = _pair(-1)  # G41: the kind of damage the military building lowers (-1: none)
    engines: list[list[list]] = field(default_factory=lambda: [[], []])  # [object id, crew, targets buildings]
    capture: list[bool] = _pair(False)  # G44: the side attacks to capture
    captor_now: int = -1  # the seat taking the units the current damage kills prisoner
    taken: list[tuple[int, int]] = field(default_factory=list)  # (owner, type) captured
    card_bonus: list[int] = _pair(0)  # Kriegsfürst 5 (cards.py)
    blood: list[int] = _pair(0)  # variant 8.3: blood markers spent
    # the decision in progress: whose, and on what
    capture_side: int = -1
    protect_side: int = -1
    reroll_side: int = -1
    blood_side: int = -1
    crewing: list[int] | None = None  # [side, index in engines] of the engine being crewed
    building_hit: list[int] | None = None  # [side, points] of a siege hit the side places on a building
    winner: int = -1  # the side with the higher attack value in the last round that had one (-1: none yet)
    last_archer_hits: list[int] | None = None  # the hits each side's archers scored this round
    # RÜCKZUG: the retreat region; -1 while it is to be chosen in RETREAT_TO of a retreat round; None: no retreat
    # round asked for one, so RETREAT_TO is the withdrawal after a ceasefire or Bischof 1
    retreat_to: int | None = None
    crew_of: dict[tuple[int, int], list[int]] = field(default_factory=dict)  # Maschinenbau: (round, engine) -> crew
    tech_used: bool = False  # a battle technology was activated in this battle
    appointed: list[dict] | None = None  # Ernennung: per side, (real type, counts as) -> units; None: never used
    dip_round: int = 0  # DW-BATTLE: the round after which the diplomacy window was held
    # empire cards (cards.py)
    card_flags: dict[tuple[str, int], int | None] = field(default_factory=dict)  # (effect, side) -> round played
    card_protect: dict[tuple[int, int], int] = field(default_factory=dict)  # Wissenschaftler 12: (side, round) -> kind
    extra_crew: int = -1  # Kanonier 52: the siege engine with one crew unit more
    crossbow: list[int] = _pair(0)  # Armbrustschütze 7: the extra archer abilities rolled
    neutral: dict[tuple[int, int, int], int] = field(default_factory=dict)  # Spion 18: (side, type, round) -> units
    invaded: int = -1  # W-INVADE: the defender's seat when the battle is an invasion


@dataclass(slots=True)
class BarbarianWar:
    """Spec 5.15 (``engine.barbarian_war``, ``_barbarians_attack``): barbarians fight every army of a region,
    one battle after another."""
    node: int
    first: int  # the seat asked to fight first (the revolt's player), -1: none
    left: list[int]  # the seats still to fight
    fought: list[int]  # the seats fought so far, in order
    invade: bool  # each battle opens W-INVADE (cards.py)


class BattleAfter:
    """What a battle's end resumes (``battle_after``)."""
    MOVE = 0  # the movement or war turn it interrupted
    EVENTS = 1  # phase 2: the event or revolt whose barbarians fought (events.py)
    DEFICIT = 2  # a revolt placed to pay a deficit (economy.py): the seat's next action
    CARD = 3  # the card whose barbarians fought (cards.py: Intrigant 15, Tempelritter 34)


class BattleMixin:
    # ----------------------------------------------------------------- side access ----
    def side_owner(self, side: int) -> int:
        return self.bt.owners[side]

    def side_pieces(self, side: int) -> list[int]:
        """The pieces of a side in the battle region, per real type (barbarians: LI, AR, CP1)."""
        node = self.bt.node
        p = self.bt.owners[side]
        if p < 0:
            b = node * 3
            return [self.barb[b + B_LI], 0, self.barb[b + B_AR], 0, self.barb[b + B_CP], 0, 0]
        base = node * NT
        return self.units[p][base:base + NT]

    def side_units(self, side: int) -> list[int]:
        """Unit counts of a side per type as the battle treats them (Ernennung, technologies.py)."""
        u = self.side_pieces(side)
        return self.appointed_view(side, u) if self.bt.appointed is not None else u

    def side_size(self, side: int) -> int:
        p = self.bt.owners[side]
        return self.barb_total[self.bt.node] if p < 0 else self.army[p][self.bt.node]

    def fighting_units(self, side: int) -> list[int]:
        """Units taking part in steps 2-9: the side's units minus this round's siege crews (and the
        units a spy neutralised, Spion 18 in cards.py)."""
        u = self.side_units(side)
        crew = self.bt.crew[side]
        out = [u[t] - crew[t] if u[t] > crew[t] else 0 for t in range(NT)]
        return self._minus_neutralised(side, out) if self.bt.neutral else out

    def captain_levels(self, side: int) -> int:
        u = self.fighting_units(side)
        return u[4] + 2 * u[5] + 3 * u[6] + self._heroine_levels(side)  # Heldin 67 / 68 (cards.py)

    # ------------------------------------------------------------------------ start ----
    def _start_battle(self, node: int, attacker: int, defender: int) -> None:
        self.changed(changes.BATTLE)  # it opens; apply reports every move made while it is open
        self._remove_markers(node)  # a battle removes control markers there (spec 5.2)
        self.battle_nodes.add(node)  # G47: no trade there this round
        bt = self.bt = Battle(node, [attacker, defender], naval=self.board.is_sea[node],
                              home_barbarians=defender < 0 and self.home_owner[node] == attacker)
        if bt.naval:
            bt.galleys = [[oid for oid, o in self.objs.items() if o[O_NODE] == node and o[0] == owner
                           and o[O_KIND] == GALLEY] for owner in (attacker, defender)]
            bt.crewed = list(self.naval_crewed)
        bt.start_size = [self.side_size(0), self.side_size(1)]
        self._new_battle_round()
        self._battle_run()

    def _new_battle_round(self) -> None:
        bt = self.bt
        bt.round += 1
        bt.retreat = False
        bt.cap = [[], []]
        bt.sac = [0, 0]
        bt.super_reduce = [0, 0]
        bt.super_damage = 0
        bt.crew = [[0] * NT, [0] * NT]
        bt.protect = [-1, -1]
        bt.engines = [[], []]  # per side: [object id, crew, target building?]
        bt.capture = [False, False]
        bt.captor_now = -1
        bt.taken = []  # (owner, type) captured this round
        bt.card_bonus = [0, 0]  # Kriegsfürst 5 (cards.py)
        bt.tasks = list(ROUND_TASKS)
        bt.blood = [0, 0]  # variant 8.3: blood markers spent this round
        if self.config.blood_markers:
            self._add_blood_tasks()

    # -------------------------------------------------------------------- the run ----
    def _battle_run(self) -> None:
        bt = self.bt
        steps = self._STEPS
        while bt.tasks:
            task = bt.tasks.pop(0)
            if steps[task[0]](self, *task[1:]):
                return  # waiting for a decision
        # the battle ended inside END_ROUND

    def _push(self, *tasks) -> None:
        self.bt.tasks[:0] = list(tasks)

    # ------------------------------------------------------------------- the steps ----
    # One method per BattleStep (the table ``_STEPS`` at the class end): it takes the task's arguments and returns
    # True when a decision is now pending.
    def _any_battle_window(self) -> bool:
        """W-ANY before each battle round (cards.py: Bischof 1, Tempelritter 35)."""
        return self._battle_card_window("any_battle")

    def _round_pre_window(self) -> bool:
        """W-ROUND-PRE: the battle cards played before the round (cards.py)."""
        return self._battle_card_window("card_pre")

    def _capture_declaration(self, side: int) -> bool:
        """Before the round: the side may announce a capture attempt (spec 5.14, G44); never barbarians."""
        bt = self.bt
        if self.side_owner(side) >= 0 and self.side_owner(1 - side) >= 0:
            bt.capture_side = side
            self._decide(side, Phase.CAPTURE_DECLARE)
            return True
        return False

    def _protection_choice(self, side: int) -> bool:
        """Before the round: what the side's military building protects against (spec 5.12, G41)."""
        if self.side_owner(side) >= 0 and self.battle_military_level(side):  # Miliz 26 (cards.py)
            self.bt.protect_side = side
            self._decide(side, Phase.PROTECT_CHOICE)
            return True
        return False

    def _siege_crews(self, side: int) -> bool:
        """Step 1: the side crews its siege engines and picks their targets (spec 5.12)."""
        bt = self.bt
        p = self.side_owner(side)
        if p < 0 or not self.side_size(side):
            return False
        engines = [oid for oid in self.objects_at(bt.node) if self.objs[oid][0] == p
                   and self.objs[oid][O_KIND] == SIEGE]
        if bt.naval:  # D29: each galley uses engine levels up to its own level
            for g in bt.galleys[side]:
                budget = self.objs[g][2] if g in self.objs else 0
                for oid in self.aboard.get(g, ()):
                    if self.objs[oid][O_KIND] == SIEGE and self.objs[oid][2] <= budget:
                        engines.append(oid)
                        budget -= self.objs[oid][2]
        if not engines:
            return False
        bt.engines[side] = [[oid, 0, False] for oid in engines]
        bt.crewing = [side, 0]
        self._decide(side, Phase.SIEGE_CREW)
        return True

    def _siege_building_hit(self, side: int, points: int) -> bool:
        """Step 1: a siege hit of the side on an enemy building, which the side picks (G40)."""
        bt = self.bt
        targets = self._enemy_buildings(side)
        if not targets:
            return False
        if len(targets) == 1:
            self._damage_building(bt.node, targets[0], points)
            return False
        bt.building_hit = [side, points]
        self._decide(side, Phase.SIEGE_BUILDING)
        return True

    def _tech_window(self, side: int) -> bool:
        """Before step 2: the side's battle technologies (technologies.py)."""
        return self.battle_tech_window(side)

    def _captain_slots(self) -> bool:
        """Step 2: the stronger side's captain slots (spec 5.11); barbarian captains act as archers (5.20)."""
        bt = self.bt
        lv = [self.captain_levels(0), self.captain_levels(1)]
        if lv[0] == lv[1]:
            return False
        side = 0 if lv[0] > lv[1] else 1
        slots = lv[side] - lv[1 - side]
        if self.side_owner(side) < 0:
            bt.cap[side] = [(0, 0)] * slots  # barbarian captains act as archers (5.20)
            return False
        bt.slots_left = slots
        bt.slot_side = side
        self._decide(side, Phase.CAPTAIN_SLOT)
        return True

    def _archers_fire(self) -> bool:
        """Step 3: both sides' archers fire; the damage is assigned at once (spec 5.11)."""
        bt = self.bt
        self._fix_abilities()
        shots = [self._archer_shots(0), self._archer_shots(1)]
        hits = [self._archer_hits(s, shots[s]) for s in (0, 1)]  # 1d8 each, 1-3 hits; cards 8 / 9
        bt.last_archer_hits = hits
        self._push((BattleStep.DAMAGE, 0, self._deferred(0, self._protected(0, 1, hits[1])), False),  # Chirurg 29
                   (BattleStep.DAMAGE, 1, self._deferred(1, self._protected(1, 1, hits[0])), False))  # (cards.py)
        return False

    def _melee_abilities(self) -> bool:
        """Step 4: the LI, HI and CA abilities are fixed for the rest of the round."""
        self._fix_abilities()
        return False

    def _li_sacrifices(self, side: int) -> bool:
        """Steps 5 / 6: the side's LI sacrifices before its roll (spec 5.11; barbarians: 5.20)."""
        u = self.fighting_units(side)
        if not self.bt.active[side][LI] or not u[LI] or not self.sacrifices_left(side):
            return False  # appointed LI (Ernennung) are not sacrificed: sacrifices_left
        if self.side_owner(side) < 0:
            # 5.20: only with fewer units than the opponent and >= 2 LI: 2-3 LI -> 1, >= 4 -> 2
            if self.side_size(side) < self.side_size(1 - side) and u[LI] >= 2:
                k = min(1 if u[LI] <= 3 else 2, self.sacrifices_left(side))
                for _ in range(k):
                    self._sacrifice(side)
            return False
        self._decide(side, Phase.SACRIFICE)
        return True

    def _blood_markers(self, side: int) -> bool:
        """Variant 8.3: the side may spend blood markers before its roll (variants.py)."""
        return self._blood_task(side)

    def _attack_roll(self, side: int) -> bool:
        """Steps 5 / 6: the side rolls d4 d6 d8 and may reroll once; barbarians take the round's dice."""
        bt = self.bt
        if self.side_owner(side) < 0:
            bt.dice[side] = list(self.barb_dice)
            self._set_values(side)
            return False
        rng = self.rng
        bt.dice[side] = [int(rng.integers(1, 5)), int(rng.integers(1, 7)), int(rng.integers(1, 9))]
        bt.reroll_side = side
        self._decide(side, Phase.ATTACK_REROLL)
        return True

    def _attack_window(self) -> bool:
        """W-ATTACK: the battle cards played after the rolls (cards.py)."""
        return self._battle_card_window("card_attack")

    def _superiority(self, side: int) -> bool:
        """Step 9: the winner places its overwhelming superiority points; barbarians add them all to the damage."""
        bt = self.bt
        if self.side_owner(side) < 0:
            bt.super_damage += bt.super_left
            bt.super_left = 0
            return False
        self._decide(side, Phase.SUPERIORITY)
        return True

    def _combat_result(self, loser: int, points: int) -> bool:
        """Step 9: the loser's damage from the combat result (with the superiority points added)."""
        bt = self.bt
        points += bt.super_damage
        winner = 1 - loser
        # TAKTIK_WINDOW: the winner may place points with Taktik first (technologies.py), then DAMAGE
        if bt.capture[winner]:  # G44: units destroyed by the combat result become prisoners
            self._push((BattleStep.CAPTOR, self.side_owner(winner)),
                       (BattleStep.TAKTIK_WINDOW, loser, self._protected(loser, 2, points)), (BattleStep.CAPTOR, -1))
        else:
            self._push((BattleStep.TAKTIK_WINDOW, loser, self._protected(loser, 2, points)))
        return False

    def _taktik_step(self, loser: int, points: int) -> bool:
        """Step 9: the winner's Taktik before the loser assigns the combat result (technologies.py)."""
        return self.taktik_window(loser, points)

    def _captor(self, seat: int) -> bool:
        """G44: the seat taking the units the following damage kills prisoner (-1: none)."""
        self.bt.captor_now = seat
        return False

    def _loss_values(self) -> bool:
        """Step 10: both sides take their loss value, the attacker first."""
        bt = self.bt
        tasks = []
        for side in (0, 1):
            lv = bt.lv[side]
            if side == 0 and bt.retreat:
                lv += self.retreat_step_mp()  # RÜCKZUG: before the heavy infantry lowers it (the example)
            hi = bt.count[side][HI] if bt.active[side][HI] else 0
            lv = max(0, lv - hi - bt.super_reduce[side])
            if bt.capture[1 - side] and bt.winner == 1 - side:
                lv = 0  # G44: after a successful capture the loser's loss value is skipped
            tasks.append((BattleStep.DAMAGE, side, lv, False))
        tasks.append((BattleStep.FREED,))
        self._push(*tasks)
        return False

    def _prisoners_freed(self) -> bool:
        """Spec 5.14: a captor wiped out by its own loss value frees this round's prisoners."""
        bt = self.bt
        for owner, t in bt.taken:
            captor = bt.owners[1] if bt.owners[0] == owner else bt.owners[0]
            side = 0 if bt.owners[0] == captor else 1
            if not self.side_size(side) and self.prisoners[captor][owner][t] > 0:
                self.prisoners[captor][owner][t] -= 1
                self._add_units(owner, bt.node, t, 1)
        bt.taken = []
        return False

    def _retreat_move(self) -> bool:
        """RÜCKZUG: "Nach Schritt 9 darfst du dein komplettes Heer in ein angrenzendes Gebiet bewegen"; its pieces
        move at the end of the round, so that step 10 hits this army and not the own units already standing in
        the retreat region."""
        if not self.side_size(0) or not self.retreat_destinations():
            return False  # ASSUMPTION: the way back was lost during the round (Kartografie moved the unit
            # holding it): the army stays, no step's MP are added, and the battle goes on
        self.bt.retreat_to = -1  # chosen in RETREAT_TO
        self._decide(0, Phase.RETREAT_TO)
        return True

    def _end_of_round(self) -> bool:
        """After step 10 (spec 5.10): the battle ends, or the attacker chooses another round, a retreat or to
        capitulate."""
        bt = self.bt
        if bt.retreat and bt.retreat_to is not None and bt.retreat_to >= 0 and self.side_size(0):
            self._retreat(bt.retreat_to)  # RÜCKZUG: "Damit endet die Gefechtsrunde und auch dein Zug"
            self._end_battle()
            return False
        if self.side_size(0) and self.side_size(1) and bt.round < MAX_BATTLE_ROUNDS:
            if self.bishop_stops_battle() or self.battle_diplomacy():  # Bischof 1 (cards.py), DW-BATTLE
                return True
            if self.side_owner(0) >= 0:
                self._decide(0, Phase.AFTER_ROUND)  # spec 5.10: another round, retreat, capitulate
                return True
            self._new_battle_round()
            return False
        self._end_battle()
        return False

    def _decide(self, side: int, phase: int) -> None:
        self.actor = self.side_owner(side)
        self.phase = phase

    # --------------------------------------------------------------- abilities ----
    def _acting_as(self, side: int, t: int) -> int:
        return sum(1 for mode, i in self.bt.cap[side] if mode == 0 and ABIL[i] == t)

    def _fix_abilities(self) -> None:
        """Spec 5.11: a type's ability works only if the opponent has none of that type; captains
        act as a type (counting as present), enable an own type, or cancel an enemy type (G87)."""
        bt = self.bt
        units = [self.fighting_units(0), self.fighting_units(1)]
        for s in (0, 1):
            o = 1 - s
            count = [units[s][t] + (self._acting_as(s, t) if t in ABIL else 0) for t in range(NT)]
            bt.count[s] = count
        for s in (0, 1):
            o = 1 - s
            for t in ABIL:
                i = ABIL.index(t)
                enabled = any(mode == 1 and j == i for mode, j in bt.cap[s])
                cancelled = any(mode == 2 and j == i for mode, j in bt.cap[o])
                has = bt.count[s][t] > 0
                bt.active[s][t] = has and (bt.count[o][t] == 0 or enabled or self._warlord_beats(s, t)) \
                    and not cancelled  # Kriegsfürst 4 (cards.py)
                if bt.naval and t in (HI, CA):
                    bt.active[s][t] = False  # at sea only archer and LI abilities work
        if self.config.captains_per_unit:
            self._per_unit_abilities()

    def _archer_shots(self, side: int) -> int:
        bt = self.bt
        return (bt.count[side][AR] if bt.active[side][AR] else 0) + self._crossbow_shots(side)  # cards.py: 7

    # ------------------------------------------------------------ attack values ----
    def _sacrifice(self, side: int) -> None:
        p = self.side_owner(side)
        node = self.bt.node
        if p < 0:
            self.changed(changes.SUPPLY)
            self._add_barb(node, B_LI, -1)
            self.barb_supply[B_LI] += 1
        else:
            self._add_units(p, node, LI, -1)
            self.unit_supply[p][LI] += 1
        self.bt.sac[side] += 1

    def _set_values(self, side: int) -> None:
        bt = self.bt
        dice = bt.dice[side]
        p = self.side_owner(side)
        malus = self.comp.malus[self.num_players][self.position[p]] if p >= 0 else 0
        bonus = 0
        if bt.naval:  # the side with more galley levels gets the difference (G42)
            levels = [sum(self.objs[oid][2] for oid in bt.galleys[s] if oid in self.objs)
                      if bt.owners[s] >= 0 else 1 for s in (0, 1)]  # G42: a barbarian galley is level I
            bonus = max(0, levels[side] - levels[1 - side])
        av = max(0, attack_value(dice) + malus + 4 * bt.sac[side] + bt.blood[side] + bonus
                 + bt.card_bonus[side])  # G36; Kriegsfürst 5 (cards.py)
        if side == 0 and bt.retreat:
            av = (av + 1) // 2  # retreat: halved, rounded up (G73: after the bonuses)
        if bt.capture[side] and self.side_size(side) < self._capture_ratio(side) * self.side_size(1 - side):
            av = self._capture_penalty(side, av)  # without a 3:1 superiority: halved (Kerkermeister 40 / 41)
        bt.av[side] = av
        bt.lv[side] = min(dice)

    def _resolve_round(self) -> bool:
        """Steps 7 / 8: the higher attack value wins the round; the combat result is capped by the winner's
        melee units (G37); a tie only has the cavalry's damage."""
        bt = self.bt
        av = bt.av
        cav = [bt.count[s][CA] if bt.active[s][CA] else 0 for s in (0, 1)]
        if av[0] == av[1]:
            # a tie: no combat result; active cavalry still deals 2 per unit (step 7, 9)
            self._push((BattleStep.DAMAGE, 0, self._protected(0, 2, 2 * cav[1]), True),
                       (BattleStep.DAMAGE, 1, self._protected(1, 2, 2 * cav[0]), True))
            return False
        w = 0 if av[0] > av[1] else 1
        l = 1 - w
        diff = av[w] - av[l]
        fighting = self.fighting_units(w)
        melee = sum(fighting) - fighting[AR]  # G37: after sacrifices; no archers, no siege crews
        result = min(diff, melee)
        bt.winner = w
        bt.super_left = diff // 20
        tasks = []
        if bt.super_left:
            tasks.append((BattleStep.SUPERIORITY, w))
        tasks.append((BattleStep.COMBAT_RESULT, l, result + 2 * cav[w]))
        self._push(*tasks)
        return False

    # ------------------------------------------------------------------ damage ----
    def damage_targets(self, side: int, restricted: bool) -> list[int]:
        u = self.side_units(side)
        types = [t for t in range(NT) if u[t]]
        if restricted:
            fighting = self.fighting_units(side)
            melee = [t for t in types if t != AR and fighting[t]]
            if melee:
                return melee  # archers and siege crews only once no melee unit is left
        return types

    def _protected(self, side: int, kind: int, points: int) -> int:
        """G41: a military building's protection lowers one kind of damage per battle round."""
        bt = self.bt
        if bt.protect[side] != kind and self._card_protection(side) != kind or points <= 0:
            return points  # Wissenschaftler 12: a second kind (cards.py)
        level = self.battle_military_level(side)  # the own building's level; Miliz 26 (cards.py)
        if not level:
            return points
        return max(0, points - self.comp.building_protection[2 + level])

    def _enemy_buildings(self, side: int) -> list[int]:
        other = self.side_owner(1 - side)
        node = self.bt.node
        if other < 0:
            return []
        return [self.building_kind_at(node, cls) for cls in range(3) if self.building_owner_at(node, cls) == other]

    def _fire_engines(self) -> bool:
        """Step 1: every crewed engine rolls 1d8 per crew unit, 1-3 hits; both sides fire at once."""
        bt = self.bt
        hits_units = [0, 0]
        tasks = []
        for side in (0, 1):
            for oid, crew, at_buildings in bt.engines[side]:
                shots = self._siege_shots(side, oid, crew)  # 1 per crew unit; cards 10 / 52 (cards.py)
                if not shots or oid not in self.objs:
                    continue
                level = self.objs[oid][2]
                hits = sum(1 for _ in range(shots) if int(self.rng.integers(1, 9)) <= 3)
                if at_buildings:
                    per = self.comp.raw["vehicles"]["siege_hits_buildings"][level - 1]
                    tasks += [(BattleStep.SIEGE_BUILDING_HIT, side, per)] * (hits if per else 0)
                else:
                    hits_units[side] += hits * self.comp.raw["vehicles"]["siege_hits_units"][level - 1]
        tasks += [(BattleStep.DAMAGE, 0, self._deferred(0, self._protected(0, 0, hits_units[1])), False),  # Chirurg 29
                  (BattleStep.DAMAGE, 1, self._deferred(1, self._protected(1, 0, hits_units[0])), False)]  # (cards.py)
        self._push(*tasks)
        return False

    def _assign_damage(self, side: int, points: int, restricted: bool) -> bool:
        """Spec 5.11: assign damage one point at a time; the owner chooses unless only one type can take it."""
        while points > 0 and self.side_size(side):
            targets = self.damage_targets(side, restricted)
            if self.side_owner(side) < 0:
                u = self.side_units(side)
                # G51; HI and cavalry only by Ernennung (technologies.py)
                t = LI if u[LI] else AR if u[AR] else CP1 if u[CP1] else HI if u[HI] else CA
            elif len(targets) == 1:
                t = targets[0]
            else:
                self.bt.damage = [side, points, restricted]
                self._decide(side, Phase.DAMAGE)
                return True
            self._hit(side, t)
            points -= 1
        self.bt.damage = None
        return False

    def _hit(self, side: int, t: int) -> None:
        """One damage point: LI, AR, CP die; HI becomes LI and CA becomes HI (or LI) from the supply."""
        if self._surgeon_saves(side):  # Chirurg 27 (cards.py)
            return
        if self.bt.appointed is not None and self.appointed_hit(side, t):  # Ernennung (technologies.py)
            return
        captor = self._hit_captor(side, t)  # Kerkermeister 39 (cards.py)
        self._note_loss(side, t, captor)  # Chirurg 28 (cards.py)
        self._damage_unit(self.side_owner(side), self.bt.node, t, captor)
        crew = self.bt.crew[side]
        if crew[t]:
            u = self.side_units(side)
            for k in range(NT):
                if crew[k] > u[k]:
                    crew[k] = u[k]

    def _damage_unit(self, p: int, node: int, t: int, captor: int = -1) -> None:
        """One damage point to a unit of type t of p (-1: barbarians) at node (spec 2.4). A unit
        that dies becomes ``captor``'s prisoner when a capture succeeds."""
        if p < 0:
            self.changed(changes.SUPPLY)
            k = {LI: B_LI, AR: B_AR}.get(t, B_CP)
            self._add_barb(node, k, -1)
            self.barb_supply[k] += 1
            return
        sup = self.unit_supply[p]
        i = node * NT + t
        was_stopped = self.stopped[p][i] == self.units[p][i]  # the hit unit carries a stop marker
        self._add_units(p, node, t, -1)
        sup[min(t, 4)] += 1
        repl = -1
        if self.board.is_sea[node]:
            pass  # in naval battles HI and cavalry die from a single damage point
        elif t == HI and sup[LI] > 0:
            repl = LI
        elif t == CA:
            repl = HI if sup[HI] > 0 else LI if sup[LI] > 0 else -1
        if repl >= 0:
            sup[repl] -= 1
            self._add_units(p, node, repl, 1)
            if was_stopped:
                self.stopped[p][node * NT + repl] += 1
        elif captor >= 0:
            sup[min(t, 4)] -= 1
            self.prisoners[captor][p][t] += 1
            self.bt.taken.append((p, t))

    # ---------------------------------------------------------------- decisions ----
    def battle_moves(self) -> list[tuple[int, int]]:
        ph = self.phase
        bt = self.bt
        if ph == Phase.CAPTAIN_SLOT:
            return [(Head.CAPTAIN, k) for k in range(12)]
        if ph == Phase.SACRIFICE:
            side = 0 if self.side_owner(0) == self.actor else 1
            moves = [(Head.CTRL, Ctrl.DONE)]
            if self.sacrifices_left(side):
                moves.append((Head.CTRL, Ctrl.SACRIFICE))
            return moves
        if ph == Phase.ATTACK_REROLL:
            return [(Head.DICE, m) for m in range(8)]
        if ph == Phase.SUPERIORITY:
            return [(Head.CTRL, Ctrl.SUPER_REDUCE), (Head.CTRL, Ctrl.SUPER_DAMAGE)]
        if ph == Phase.DAMAGE:
            side, _, restricted = bt.damage
            return [(Head.UNIT, t) for t in self.damage_targets(side, restricted)]
        if ph == Phase.PROTECT_CHOICE:
            return [(Head.PROTECT, k) for k in range(3)]
        if ph == Phase.CAPTURE_DECLARE:
            return [(Head.CTRL, Ctrl.DONE), (Head.CTRL, Ctrl.CAPTURE)]
        if ph == Phase.SIEGE_CREW:
            side, i = bt.crewing
            crew_now = bt.engines[side][i][1]
            moves = [(Head.CTRL, Ctrl.DONE)]
            if crew_now < 3:
                free = self.fighting_units(side)
                moves += [(Head.UNIT, t) for t in range(NT) if free[t]]
            return moves
        if ph == Phase.SIEGE_TARGET:
            return [(Head.CTRL, Ctrl.TARGET_UNITS), (Head.CTRL, Ctrl.TARGET_BUILDINGS)]
        if ph == Phase.SIEGE_BUILDING:
            return [(Head.BUILD, k) for k in self._enemy_buildings(bt.building_hit[0])]
        if ph == Phase.AFTER_ROUND:
            moves = [(Head.CTRL, Ctrl.DONE)]
            if self.retreat_destinations() and self._retreat_transport():
                moves.append((Head.CTRL, Ctrl.RETREAT))
            if self.side_owner(1) >= 0:
                moves += [(Head.CTRL, Ctrl.CAPITULATE), (Head.CTRL, Ctrl.DEMAND_CAPITULATION)]
            return moves
        if ph == Phase.CAPITULATION_ANSWER:
            return [(Head.CTRL, Ctrl.ACCEPT), (Head.CTRL, Ctrl.REJECT)]
        if ph == Phase.RETREAT_TO:
            return [(Head.NODE, y) for y in self.retreat_destinations()]
        return []

    def _next_engine(self, side: int) -> bool:
        """Move on to the side's next engine; True while crewing decisions remain."""
        bt = self.bt
        bt.crewing[1] += 1
        if bt.crewing[1] < len(bt.engines[side]) and any(self.fighting_units(side)):
            self.phase = Phase.SIEGE_CREW
            return True
        return False

    def retreat_destinations(self) -> list[int]:
        """G76: adjacent regions the attacker controls (or a right-of-way partner's) without an opposing army."""
        bt = self.bt
        p = bt.owners[0]
        return [y for y in self.board.land_adj[bt.node]
                if self.playable[y] and (self.controller(y) == p or self.may_pass(p, self.controller(y)))
                and not self._opposing_army(p, y)]

    def retreat_step_mp(self) -> int:
        """RÜCKZUG: "Vor Schritt 10 addierst du zu deinem Verlustwert die BP, die du für den 1. Schritt deiner
        Rückzugsbewegung verbraucht hast": the war wagons' step into the retreat region (GELÄNDEARTEN in
        ``step_cost``); none when no region was left to retreat to."""
        y = self.bt.retreat_to
        return self.step_cost(WAR_WAGON, self.bt.node, y) if y is not None and y >= 0 else 0

    def _retreat_transport(self) -> bool:
        """G43: own war wagons in the region with room for the whole army (they go along, no MP)."""
        bt = self.bt
        p, node = bt.owners[0], bt.node
        room = sum(self.comp.capacity[o[O_KIND]] * o[2] for o in self.objs.values()
                   if o[0] == p and o[O_NODE] == node and o[O_KIND] == 2)
        return room >= self.army[p][node]

    def _apply_battle(self, move: tuple[int, int]) -> None:
        ph = self.phase
        bt = self.bt
        head, arg = move
        if ph == Phase.CAPTAIN_SLOT:
            bt.cap[bt.slot_side].append(divmod(arg, 4))
            bt.slots_left -= 1
            if bt.slots_left:
                return
        elif ph == Phase.SACRIFICE:
            side = 0 if self.side_owner(0) == self.actor else 1
            if arg == Ctrl.SACRIFICE:
                self._sacrifice(side)
                if self.sacrifices_left(side):
                    return
        elif ph == Phase.ATTACK_REROLL:
            side = bt.reroll_side
            sides = (4, 6, 8)
            for i in range(3):
                if arg >> i & 1:
                    bt.dice[side][i] = int(self.rng.integers(1, sides[i] + 1))
            self._set_values(side)
        elif ph == Phase.SUPERIORITY:
            w = bt.winner
            if arg == Ctrl.SUPER_REDUCE:
                bt.super_reduce[w] += 1
            else:
                bt.super_damage += 1
            bt.super_left -= 1
            if bt.super_left:
                return
        elif ph == Phase.DAMAGE:
            side, points, restricted = bt.damage
            self._hit(side, arg)
            if self._assign_damage(side, points - 1, restricted):
                return
        elif ph == Phase.PROTECT_CHOICE:
            bt.protect[bt.protect_side] = arg
        elif ph == Phase.CAPTURE_DECLARE:
            bt.capture[bt.capture_side] = arg == Ctrl.CAPTURE
        elif ph == Phase.SIEGE_CREW:
            side, i = bt.crewing
            engine = bt.engines[side][i]
            if head == Head.UNIT:
                engine[1] += 1
                bt.crew[side][arg] += 1
                bt.crew_of.setdefault((bt.round, engine[0]), []).append(arg)
                if engine[1] < 3 and any(self.fighting_units(side)):
                    return
            if engine[1] and self._enemy_buildings(side):
                self.phase = Phase.SIEGE_TARGET
                return
            if self._next_engine(side):
                return
        elif ph == Phase.SIEGE_TARGET:
            side, i = bt.crewing
            bt.engines[side][i][2] = arg == Ctrl.TARGET_BUILDINGS
            if self._next_engine(side):
                return
        elif ph == Phase.SIEGE_BUILDING:
            side, points = bt.building_hit
            self._damage_building(bt.node, arg, points)
        elif ph == Phase.AFTER_ROUND:
            if arg in (Ctrl.CAPITULATE, Ctrl.DEMAND_CAPITULATION):
                bt.offer = 0 if arg == Ctrl.CAPITULATE else 1  # the side that would capitulate
                self._decide(1, Phase.CAPITULATION_ANSWER)
                return
            self._new_battle_round()
            if arg == Ctrl.RETREAT:
                bt.retreat = True
                bt.tasks.insert(bt.tasks.index((BattleStep.LOSS_VALUES,)), (BattleStep.RETREAT_MOVE,))  # after step 9
        elif ph == Phase.CAPITULATION_ANSWER:
            if arg == Ctrl.ACCEPT:
                self._capitulate(bt.offer)
                self._end_battle()
                return
            self._new_battle_round()
        elif ph == Phase.RETREAT_TO:
            if bt.retreat_to != -1:  # the withdrawal after a ceasefire (diplomacy.battle_diplomacy)
                self._retreat(arg)
                self._end_battle()
                return
            bt.retreat_to = arg  # a retreat round: step 10 follows, then END_ROUND moves the army
        self._battle_run()

    def _retreat(self, y: int) -> None:
        self.changed(changes.OBJECTS)
        bt = self.bt
        p, node = bt.owners[0], bt.node
        base = node * NT
        moved = [0] * NT
        for t in range(NT):
            k = self.units[p][base + t]
            if k:
                self._add_units(p, node, t, -k)
                self._add_units(p, y, t, k)
                moved[t] = k
        for o in self.objs.values():
            if o[0] == p and o[O_NODE] == node and o[O_KIND] == 2:
                o[O_NODE] = y
        self.follow_up = [y, moved]  # spec 5.14: a normal movement from the retreat region may follow
        bt.retreated = True
        if bt.owners[1] < 0:
            self._gain_ep(p, -1, "retreat_from_barbarians")

    def _capitulate(self, side: int) -> None:
        """Spec 5.14 / G90: the capitulating side's units in this battle are set aside; from the
        next round they may be redeployed in the purchase phase."""
        self.changed(changes.UNITS)
        bt = self.bt
        p, node = bt.owners[side], bt.node
        base = node * NT
        for t in range(NT):
            k = self.units[p][base + t]
            if k:
                self._add_units(p, node, t, -k)
                self.capitulated[p][t] += k
        self.capitulated_round[p] = self.round
        bt.capitulated = side

    # --------------------------------------------------------------------- end ----
    def _end_battle(self) -> None:
        """Spec 5.15-5.16, 5.20, 6.1: survivors, conquest EP, barbarian raids, battle EP."""
        self.changed(changes.SEATS)
        bt = self.bt
        node = bt.node
        att, dfn = bt.owners
        alive = [self.side_size(0) > 0, self.side_size(1) > 0]
        for side in (0, 1):
            p, o = bt.owners[side], bt.owners[1 - side]
            if alive[side] or bt.start_size[side] == 0:
                continue
            if bt.capitulated == side or (side == 0 and bt.retreated):
                continue  # not destroyed
            if o >= 0 and alive[1 - side] and bt.start_size[side] >= 5:
                self._gain_ep(o, 1, "large_army_defeated")
            if p < 0 and o >= 0 and alive[1 - side]:
                self.stat_barbarians_destroyed[o] += 1
            if p >= 0 and o < 0:
                self._gain_ep(p, -1, "lost_to_barbarians")
        in_sequence = self.in_multi_war(node, att)  # one of several battles (spec 5.15, movement.py)
        conquers = alive[0] and not alive[1] and att >= 0 and not in_sequence and self.conquers(node, att)
        if alive[0] and not alive[1] and att >= 0 and bt.home_barbarians:
            self._gain_ep(att, 1, "revolt_suppressed")
        elif conquers:
            self.region_conquered(node, att)  # movement.py
        self.note_won_entry(node, alive)  # Kartografie may move the carrier on (technologies.py)
        if bt.naval:
            self._end_naval(bt)
        self.bt = None
        if self.battle_after != BattleAfter.MOVE:  # barbarians that fought every army there, one after another
            war = self.barbarian_war
            seat = war.first if war is not None and war.first >= 0 else dfn  # the seat a bankruptcy resumes
            if self._next_barbarian_battle(node):
                return
            after, self.battle_after = self.battle_after, BattleAfter.MOVE
            if self._barbarians_alone(node):
                self._barbarian_raid(node)
            if after == BattleAfter.EVENTS:
                self._resume_events()
            elif after == BattleAfter.CARD:
                self._card_battle_over()  # cards.py: Intrigant 15, Tempelritter 34
            else:
                self._after_deficit_action(seat)
            return
        if bt.naval:
            self._after_naval_entry_battle(node, att, dfn, alive)
            return
        if in_sequence:
            if self.army[att][node]:
                self._next_opponent_battle()  # the next battle, or the end of the sequence (movement.py)
                return
            self.multi_war = None  # the attacker is gone: the sequence ends, the remaining armies stay
        if self.barb_total[node] and not any(self.army[q][node] for q in range(self.num_players)):
            self._barbarian_raid(node)
        elif alive[0] != alive[1]:
            winner = att if alive[0] else dfn
            loser = dfn if alive[0] else att
            if winner >= 0 and (conquers or not alive[0]):  # G75: the defender decides over the attacker's transports
                self._start_conquest(node, winner, loser, buildings=alive[0])
                return
        self._end_movement()

    def _after_naval_entry_battle(self, node: int, att: int, dfn: int, alive: list[bool]) -> None:
        """G42: the winner captures or plunders the loser's ships left afloat at once, before the next battle
        of a multi-party war (ASSUMPTION: "jede Schlacht wird für sich komplett abgehandelt"); barbarians
        that are left alone destroy them."""
        if alive[0] != alive[1]:
            winner, loser = (att, dfn) if alive[0] else (dfn, att)
            if winner >= 0 and loser >= 0:
                self._start_conquest(node, winner, loser, buildings=False)  # its end: ``entry_battle_over``
                return
            if winner < 0 and self._barbarians_alone(node):
                self._barbarian_raid(node)
        self.entry_battle_over()  # the next battle of a multi-party war, or the end of the movement

    def _barbarians_alone(self, node: int) -> bool:
        """Barbarians and no player's fighting force (an army; at sea a galley with units aboard)."""
        return bool(self.barb_total[node]) and not any(self._force_at(q, node) for q in range(self.num_players))

    def _conquest_ep(self, node: int, att: int) -> None:
        """Spec 6: conquering an inhabited region outside the own start empire, once per region and round."""
        if self.board.inhabited[node] and self.home_owner[node] != att and node not in self.conquered_round:
            self.changed(changes.SEATS)
            levels = self.civil[node] + self.mil[node] + (3 if self.cath_owner[node] >= 0 else 0)
            ep = 1 + levels
            if node in self.special_nodes.values() and node not in self.special_conquered:
                self.special_conquered.add(node)
                ep += 2
            self.conquered_round.add(node)
            self.stat_conquered[att] += 1
            self._gain_ep(att, ep, "conquest")

    def _end_naval(self, bt: Battle) -> None:
        """Survivors go back aboard their galleys; a galley that lost all its units sinks on 1-3."""
        self.changed(changes.OBJECTS)
        node = bt.node
        for side in (0, 1):
            p = bt.owners[side]
            if p < 0:
                continue  # barbarians stay aboard their own galley
            galleys = sorted((oid for oid in bt.galleys[side] if oid in self.objs),
                             key=lambda oid: -self.objs[oid][2])
            for oid in galleys:
                room = self.comp.capacity[GALLEY] * self.objs[oid][2]
                cargo = self.cargo[oid]
                for t in range(NT):
                    k = min(room - sum(cargo), self.units[p][node * NT + t])
                    if k > 0:
                        cargo[t] += k
                        self._add_units(p, node, t, -k)
            for t in range(NT):  # no room left (cannot happen: the units came from these galleys)
                k = self.units[p][node * NT + t]
                if k:
                    self._add_units(p, node, t, -k)
                    self.unit_supply[p][min(t, 4)] += k
            for oid in galleys:
                if oid in bt.crewed and not sum(self.cargo[oid]) and int(self.rng.integers(1, 9)) <= 3:
                    self._remove_object(oid)

    def _barbarians_attack(self, node: int, first: int, after: int, invade: bool = False) -> bool:
        """Barbarians that appeared in ``node`` fight every player's army there (at sea: every player's
        galleys with units aboard, spec 5.13), one battle after another (spec 5.15: "Man muss nacheinander mit
        jedem Gegner kämpfen"): ``first`` (when it has an army there), then the others in turn order
        (ASSUMPTION); treaty guests fight as well. ``after`` is what the last battle's end resumes (``BattleAfter``); ``invade``:
        each battle opens W-INVADE (cards.py). True when one began."""
        defenders = [q for q in ([first] if first >= 0 else []) + [q for q in self.order if q != first]
                     if self._force_at(q, node)]
        if not defenders:
            return False
        self.battle_after = after
        self.barbarian_war = BarbarianWar(node, first, defenders[1:], defenders[:1], invade)
        self._barbarian_battle(node, defenders[0], invade)
        return True

    def _barbarian_battle(self, node: int, defender: int, invade: bool) -> None:
        if self.board.is_sea[node]:
            self._naval_battle_vs(node, -1, defender)  # movement.py
        elif invade:
            self._invaded(node, -1, defender)  # W-INVADE (cards.py), then the battle
        else:
            self._start_battle(node, -1, defender)

    def _next_barbarian_battle(self, node: int) -> bool:
        """After a battle of a barbarian war: while barbarians are left, the next army there; True when a
        battle began, otherwise the barbarian war is over."""
        war = self.barbarian_war
        if war is None or war.node != node:
            return False
        left = [q for q in war.left if self._force_at(q, node)]
        if self.barb_total[node] and left:
            war.left = left[1:]
            war.fought.append(left[0])
            self._barbarian_battle(node, left[0], war.invade)
            return True
        self.barbarian_war = None
        return False

    def _barbarian_raid(self, node: int) -> None:
        """Spec 5.20: barbarians alone destroy buildings, transports, siege engines and cubes."""
        for cls in range(3):
            if self.building_owner_at(node, cls) >= 0:
                self._remove_building(node, cls)
        for oid in self.objects_at(node):
            if not self.plunder_protected(oid):  # Diplomat 50 / 51 (cards.py)
                self._destroy_object(oid)
        for g, c in enumerate(self.cubes[node]):
            if c:
                self.changed(changes.MARKET)
                self.cubes[node][g] = 0
                self.goods_supply[g] += 1

    def _destroy_object(self, oid: int) -> None:
        self._remove_object(oid)

    # The explicit table (after the methods it names): each battle task's kind -> the method that runs it
    # (``_battle_run``), called with the task's arguments; True when a decision is now pending.
    _STEPS = {
        BattleStep.ANY_BATTLE_WINDOW: _any_battle_window,
        BattleStep.ROUND_PRE_WINDOW: _round_pre_window,
        BattleStep.CAPTURE: _capture_declaration,
        BattleStep.PROTECTION: _protection_choice,
        BattleStep.SIEGE_CREWS: _siege_crews,
        BattleStep.SIEGE_FIRE: _fire_engines,
        BattleStep.SIEGE_BUILDING_HIT: _siege_building_hit,
        BattleStep.TECH_WINDOW: _tech_window,
        BattleStep.CAPTAINS: _captain_slots,
        BattleStep.ARCHERS: _archers_fire,
        BattleStep.MELEE_ABILITIES: _melee_abilities,
        BattleStep.SACRIFICE: _li_sacrifices,
        BattleStep.BLOOD: _blood_markers,
        BattleStep.ROLL: _attack_roll,
        BattleStep.ATTACK_WINDOW: _attack_window,
        BattleStep.COMPARE: _resolve_round,
        BattleStep.SUPERIORITY: _superiority,
        BattleStep.COMBAT_RESULT: _combat_result,
        BattleStep.TAKTIK_WINDOW: _taktik_step,
        BattleStep.CAPTOR: _captor,
        BattleStep.DAMAGE: _assign_damage,
        BattleStep.LOSS_VALUES: _loss_values,
        BattleStep.FREED: _prisoners_freed,
        BattleStep.RETREAT_MOVE: _retreat_move,
        BattleStep.END_ROUND: _end_of_round,
    }


__all__ = ["BattleMixin", "BattleStep", "attack_value"]
