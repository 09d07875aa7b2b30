"""Technology activations (spec 2.7, 5.8; G4, G13-G15, G29, G67, G70, G72, G79-G81).

Owning a technology gives nothing by itself: each use costs TP of the branch colour (G4: 1 TP per
unit of effect). This module holds

* the **TP payment** used in every window outside phase 4: ``tp_affordable`` / ``tp_pay`` (pool of
  the phase first, then violet TP through Mönchtum (G15), then 100 fl per missing TP) and the
  ``TP_PAY`` decision, where the payer rotates empire cards / flips goal tokens one at a time
  (only sources that help, and only while the cost stays payable) and ``DONE`` pays the rest in fl.
  TP left over stay in the pool until the phase of the round ends (G29: the ``stage`` setter).
  A technology activated outside phase 4 pays with ``start_tp_payment(p, fl, costs, option)``; once paid, the
  activation takes effect (``_tech_effect``).
* the **activations**: options are complete move tuples starting with ``TECH(t)`` (``TECH(Weltliche
  Macht)`` first when the technology is a neighbour's), offered only when legal, useful and payable:

  - purchases (phase 4 menu): Ingenieurskunst (G14); Weltliche Macht on the design technologies;
  - revolt step (a window right after a revolt lands in the own start empire, G67): Gesetze;
  - own trade activation: Handel, Markt (open sale or purchase), Beschaffung, Gilden, Logistik;
  - own completed movement: Logistik, Kartografie (a carrier without MP), Erlass;
  - own war turn: Nationalstaat (per barbarian unit, G13), Einfluss (a whole barbarian army),
    Kartografie (one unit steps without a transport: the turn's movement, G72);
  - battle rounds (a window per player side before step 2): Maschinenbau, Strategie, Einfluss (per
    unit), Kartografie (a unit joins from an adjacent region, G70), Ernennung (a unit of either side
    counts as another type for the rest of the battle); the winner's window before the combat result
    is assigned: Taktik;
  - after the mover won the battle its entry started: the movement goes on with the carrier (its
    units may board again), so that Kartografie can give it 1 MP (the rulebook's example);
  - W-INVADE, before another player's army takes over a region of the controller without a fight or
    fights there: the controller (when it has no army there), then each of its allies in turn order:
    Kartografie (one own unit from an adjacent region comes in, G70 / G72; the takeover becomes a battle,
    or the newcomer one more opponent of the multi-party sequence).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from .constants import (
    AR, B_AR, B_CP, B_LI, BLUE, CA, CARAVAN, CASTLE, CITY, CP1, FORTRESS, GALLEY, GREEN, HI, LI, MERCHANT_SHIP,
    NUM_UNIT_TYPES, O_KIND, O_LEVEL, O_MP, O_NODE, ORANGE, RED, RELIGION_B, SIEGE, TOWER, TOWN, VILLAGE, VIOLET,
    WAR_WAGON, YELLOW, Ctrl, Head, Phase,
)
from . import changes
from .combat import BattleAfter, BattleStep

NT = NUM_UNIT_TYPES
DONE = (Head.CTRL, Ctrl.DONE)


def tech_id(branch: int, level: int) -> int:
    """The TECH head argument of a technology (branch x level I-IV)."""
    return branch * 4 + level - 1


# the 18 activation technologies (spec 2.7 table)
LOGISTIK, MASCHINENBAU, KARTOGRAFIE = 1, 2, 3
HANDEL, MARKT, BESCHAFFUNG, GILDEN = 4, 5, 6, 7
ERLASS, GESETZE, NATIONALSTAAT, EINFLUSS = 8, 9, 10, 11
ERNENNUNG, TAKTIK, STRATEGIE = 13, 14, 15
INGENIEURSKUNST = 19
MOENCHTUM, MISSIONARE, WELTLICHE_MACHT = 21, 22, 23

# [SRC] Handel: extra fl per cube and TP in a village / town / city; Markt: fl per TP
HANDEL_BONUS = (0, 25, 50, 100)
MARKT_STEP = 50
UPGRADE_OF = {VILLAGE: TOWN, TOWN: CITY, TOWER: FORTRESS, FORTRESS: CASTLE}
BARB_AS_UNIT = {B_LI: LI, B_AR: AR, B_CP: CP1}  # barbarian captains are level I (G30)
UNIT_AS_BARB = {LI: B_LI, AR: B_AR, CP1: B_CP}
APPOINTED_TYPES = (LI, HI, AR, CA, CP1)  # Ernennung: what a unit may count as (a captain: level I)
STEP_DOWN = {HI: LI, CA: HI}  # one damage point on land (spec 2.4)
MAX_ALT_COMBOS = 512  # "/" cards enumerated for the best case of a payment; greedy beyond


class TechWindow:
    """The technology windows (``TechUse.window``, ``_WINDOW_TECHS``): where activations are offered. The values are
    the names the observation shows (observation/technologies.py ``WINDOW_KINDS``)."""
    NONE = ""  # no window inside the pending decision (``_embedded_window``)
    PURCHASE = "purchase"  # the phase 4 menu (no TECH_USE decision: activated in the menu itself)
    # inside a decision (``_embedded_window``): a TECH move opens the activation's sub-decisions (``_begin_tech_use``)
    TRADE = "trade"  # the own trade activation
    BUY = "buy"  # its open purchase
    SALE = "sale"  # its open sale
    MOVE = "move"  # the own completed movement
    WAR_TURN = "war_turn"  # the own war turn
    # stand-alone (``_open_tech_window``): a decision of their own, DONE goes on with the step they interrupted
    REVOLT = "revolt"  # G67: a revolt just landed in the own start empire (``TechContext.node``)
    BATTLE = "battle"  # before step 2 of a battle round (``TechContext.side``)
    TAKTIK = "taktik"  # battle step 9, the winner's (``TechContext.side``, ``loser``, ``points``)
    INVADE = "invade"  # W-INVADE before another player's army takes over or fights (``TechContext.node`` ..)


# the trade activation's open action (``trade_action``) -> its window
_TRADE_WINDOWS = {"": TechWindow.TRADE, "buy": TechWindow.BUY, "sell": TechWindow.SALE}


@dataclass(slots=True, frozen=True)
class TechContext:
    """What a stand-alone window is about (``engine.tech_ctx`` while its options are listed, ``TechUse.context`` while
    it is open: one record, never changed; a change is a new record, ``dataclasses.replace``); the defaults: about
    nothing more (a window inside a decision, the purchases)."""
    node: int = -1  # REVOLT: the region the revolt landed in; INVADE: the region invaded
    side: int = -1  # BATTLE: the deciding player's side; TAKTIK: the winner's side
    loser: int = -1  # TAKTIK: the side that assigns the rest of the combat result
    points: int = 0  # TAKTIK: the combat result's points not yet placed
    invader: int = -1  # INVADE: the seat whose army enters
    controller: int = -1  # INVADE: the region's controller
    opponents: tuple[int, ...] = ()  # INVADE: the armies the invader will fight there (-1: barbarians), in order
    deciders: tuple[int, ...] = ()  # INVADE: the seats whose window is still to come, in order


@dataclass(slots=True)
class TechUse:
    """The open activation window (``engine.tech_use``, phase TECH_USE and the payment and effect after it)."""
    window: str  # TechWindow
    seat: int  # the seat deciding
    return_phase: int  # the phase of the decision it interrupted
    context: TechContext  # what a stand-alone window is about (the defaults inside a decision)


@dataclass(slots=True)
class TradeBonus:
    """The technology counters of the open purchase or sale of a trade activation (``engine.trade_bonus``;
    ``trade_tech_reset`` starts them at zero)."""
    bought: int = 0  # cubes bought so far in the open purchase (trade.py)
    discount: int = 0  # Markt: fl off the open purchase
    handel: int = 0  # Handel activations in the open sale (at most one per cube sold, G80)


@dataclass(slots=True)
class TpPayment:
    """A TP cost being paid outside phase 4 (``engine.tp_payment``, ``start_tp_payment``)."""
    seat: int
    fl: int  # the fl part of the price
    costs: tuple  # (colour, TP) pairs
    option: tuple  # the technology activation it pays for (``_tech_effect``)


class TechnologyMixin:
    def _init_technologies(self) -> None:
        self.tp_payment: TpPayment | None = None  # a TP cost being paid outside phase 4
        self.tech_use: TechUse | None = None  # the open activation window
        self.tech_ctx = TechContext()  # what the stand-alone window whose options are listed is about
        self.tech_options_open: dict = {}  # activation moves -> (fl, TP costs) of the open window
        self.trade_bonus = TradeBonus()  # the open purchase or sale
        self.decree_step = False  # Erlass: the step in progress meets no barbarian resistance
        self.decree_steps = -1  # Erlass: the carrier stands in the decree region after this many steps
        self.logistik = -1  # Logistik: the vehicle of the current movement / trade activation
        self.machines_freed: dict[int, int] = {}  # Maschinenbau: siege engine -> round its crew fights
        self.won_entry: tuple[int, int] | None = None  # (region, movement steps) of a battle the mover won

    # ======================================================================= TP payment ====
    def has_tech(self, p: int, t: int) -> bool:
        return self.tech[p][t // 4] >= t % 4 + 1

    def _tp_plan(self, p: int, costs: tuple, pool: list[int]) -> int:
        """TP that would have to be bought for ``costs`` ((colour, count), ...) from ``pool``;
        violet TP cover other colours 1:1 with Mönchtum (G15)."""
        need = [0] * 6
        for c, k in costs:
            need[c] += k
        missing = [max(0, need[c] - pool[c]) for c in range(6)]
        buy = sum(missing)
        if self.tech[p][RELIGION_B] >= 2:
            spare = max(0, pool[VIOLET] - need[VIOLET])
            buy -= min(spare, buy - missing[VIOLET])
        return buy

    def tp_affordable(self, p: int, fl: int, costs: tuple) -> bool:
        if len(costs) == 1:  # the common case (every purchase), without the general plan
            return self.tp_affordable_one(p, fl, *costs[0])
        return self.money[p] >= fl + self.tp_price * self._tp_plan(p, costs, self.tp[p])

    def tp_affordable_one(self, p: int, fl: int, c: int, k: int) -> bool:
        """``tp_affordable`` for fl and k TP of one colour c."""
        pool = self.tp[p]
        missing = k - pool[c] if k > pool[c] else 0
        if missing and c != VIOLET and self.tech[p][RELIGION_B] >= 2:
            missing -= min(missing, pool[VIOLET])
        return self.money[p] >= fl + self.tp_price * missing

    def tp_pay(self, p: int, fl: int, costs: tuple) -> None:
        """Pay fl and the TP of ``costs``: pool of the colour, then violet (Mönchtum), then 100 fl each."""
        pool = self.tp[p]
        missing_other = 0
        for c, k in costs:
            use = min(k, pool[c])
            pool[c] -= use
            if c == VIOLET:
                fl += self.tp_price * (k - use)
            else:
                missing_other += k - use
        if missing_other and self.tech[p][RELIGION_B] >= 2:
            convert = min(pool[VIOLET], missing_other)
            pool[VIOLET] -= convert
            missing_other -= convert
        self._bank(p, -(fl + self.tp_price * missing_other))

    def _tp_gains_left(self, p: int) -> list[tuple[tuple, tuple]]:
        """The TP p may still gain (its unused TP sources): (moves, TP colours gained) per unrotated card
        alternative and per unflipped goal-token colour."""
        out = []
        rotated = self.rotated[p]
        for c in self.hand[p]:
            if c in rotated:
                continue
            alts = self.cards[c].tp
            if len(alts) == 1:
                out.append((((Head.CARD, c),), tuple(alts[0])))
            elif len(alts) > 1:
                out += [(((Head.CARD, c), (Head.COLOUR, alt[0])), tuple(alt)) for alt in alts]
        for k in range(6):
            if self.tokens[p][k] > self.tokens_flipped[p][k]:
                out.append((((Head.COLOUR, k),), (k,) * self.tp_per_token))
        return out

    def _tp_best_buy(self, p: int, costs: tuple, pool: list[int], skip_card: int = -1) -> int:
        """Fewest TP to buy when every remaining source is used in its best alternative."""
        groups: dict[int, list[tuple]] = {}
        fixed = list(pool)
        for moves, gain in self._tp_gains_left(p):
            head, arg = moves[0]
            if head == Head.CARD:
                if arg != skip_card:
                    groups.setdefault(arg, []).append(gain)
            else:
                for k in gain:
                    fixed[k] += 1
        choices = list(groups.values())
        combos = 1
        for alts in choices:
            combos *= len(alts)
        best = None
        if combos <= MAX_ALT_COMBOS:
            pick_sets = itertools.product(*choices)
        else:
            pick_sets = [tuple(alts[0] for alts in choices)]
        for picks in pick_sets:
            trial = list(fixed)
            for gain in picks:
                for k in gain:
                    trial[k] += 1
            buy = self._tp_plan(p, costs, trial)
            if best is None or buy < best:
                best = buy
                if best == 0:
                    break
        return best if best is not None else self._tp_plan(p, costs, fixed)

    def tp_payable(self, p: int, fl: int, costs: tuple) -> bool:
        """Whether p can pay, rotating cards and flipping tokens as needed."""
        if self.tp_affordable(p, fl, costs):
            return True
        return self.money[p] >= fl + self.tp_price * self._tp_best_buy(p, costs, self.tp[p])

    def start_tp_payment(self, p: int, fl: int, costs: tuple, option: tuple) -> None:
        """Pay the TP cost of the technology activation ``option`` outside phase 4; then it takes effect."""
        self.changed(changes.TECHNOLOGY)
        self.tp_payment = TpPayment(p, fl, costs, option)
        opts = self._tp_pay_options()
        if opts == [(DONE,)]:
            self._finish_tp_payment()
            return
        self.actor = p
        self.phase = Phase.TP_PAY
        self._open_tree(opts)

    def _tp_pay_options(self) -> list[tuple]:
        pay = self.tp_payment
        p, fl, costs = pay.seat, pay.fl, pay.costs
        pool = self.tp[p]
        now = self._tp_plan(p, costs, pool)
        opts = []
        if now == 0:
            return [(DONE,)]
        for moves, gain in self._tp_gains_left(p):
            trial = list(pool)
            for k in gain:
                trial[k] += 1
            if self._tp_plan(p, costs, trial) >= now:
                continue  # no help
            card = moves[0][1] if moves[0][0] == Head.CARD else -1
            if card < 0:  # the token counts as used for the best case of the rest
                self.tokens_flipped[p][moves[0][1]] += 1
                best = self._tp_best_buy(p, costs, trial)
                self.tokens_flipped[p][moves[0][1]] -= 1
            else:
                best = self._tp_best_buy(p, costs, trial, skip_card=card)
            if self.money[p] >= fl + self.tp_price * best:
                opts.append(moves)
        if self.money[p] >= fl + self.tp_price * now:
            opts.append((DONE,))
        return opts

    def _apply_tp_pay(self, opt: tuple) -> None:
        p = self.tp_payment.seat
        head, arg = opt[0]
        if head == Head.CARD:
            self.changed(changes.CARDS)
            alts = self.cards[arg].tp
            for k in (alts[0] if len(alts) == 1 else (opt[1][1],)):
                self.tp[p][k] += 1
            self.rotated[p].append(arg)
        elif head == Head.COLOUR:
            self.changed(changes.SEATS)
            self.tokens_flipped[p][arg] += 1
            self.tp[p][arg] += self.tp_per_token
        else:
            self._finish_tp_payment()
            return
        opts = self._tp_pay_options()
        if opts == [(DONE,)]:
            self._finish_tp_payment()
        else:
            self._open_tree(opts)

    def _finish_tp_payment(self) -> None:
        self.changed(changes.TECHNOLOGY)
        pay, self.tp_payment = self.tp_payment, None
        self.tp_pay(pay.seat, pay.fl, pay.costs)
        self._tech_effect(pay.seat, pay.option)

    @property
    def stage(self) -> int:
        """The phase of the round (``constants.Stage``)."""
        return self._stage

    @stage.setter
    def stage(self, value: int) -> None:
        if value != getattr(self, "_stage", value):
            for pool in self.tp:  # G29: TP not spent in the phase in which they were made are lost
                for k in range(6):
                    pool[k] = 0
        self._stage = value

    # ================================================================ access and windows ====
    def _neighbour_techs(self, p: int) -> list[int]:
        """Highest level per branch among players with a region neighbouring (<= 3) one of p's."""
        best = [0] * 6
        dist = self.board.dist
        reach = self.comp.raw["neighbouring_distance"]
        ctrl = self.control_map()
        mine = [n for n in self.land_nodes if ctrl[n] == p]
        for q in range(self.num_players):
            if q == p or self.eliminated[q] or all(best[b] >= self.tech[q][b] for b in range(6)):
                continue
            theirs = [n for n in self.land_nodes if ctrl[n] == q]
            if any(dist[a][b] <= reach for a in mine for b in theirs):
                best = [max(best[b], self.tech[q][b]) for b in range(6)]
        return best

    def _access(self, p: int, t: int, neighbours: list[int] | None) -> tuple | None:
        """(move prefix, extra TP cost) to use technology t, or None: own, or a neighbour's through
        Weltliche Macht for 1 violet TP per use."""
        if self.has_tech(p, t):
            return ((Head.TECH, t),), ()
        if neighbours is not None and neighbours[t // 4] >= t % 4 + 1:
            return ((Head.TECH, WELTLICHE_MACHT), (Head.TECH, t)), ((VIOLET, 1),)
        return None

    def _window_options(self, p: int, window: str) -> list[tuple]:
        """Every (moves, fl, costs) activation of the window that is legal now."""
        if not any(self.tech[p]):
            return []
        neighbours = self._neighbour_techs(p) if self.has_tech(p, WELTLICHE_MACHT) else None
        out = []
        for t, gen in self._WINDOW_TECHS.get(window, ()):
            acc = self._access(p, t, neighbours)
            if acc is None:
                continue
            prefix, extra = acc
            for moves, fl, costs in gen(self, p):
                out.append((prefix + moves, fl, costs + extra))
        return out

    def _payable_options(self, p: int, window: str) -> list[tuple]:
        payable: dict[tuple, bool] = {}
        out = []
        for moves, fl, costs in self._window_options(p, window):
            key = (fl, costs)
            if key not in payable:
                payable[key] = self.tp_payable(p, fl, costs)
            if payable[key]:
                out.append((moves, fl, costs))
        return out

    def _embedded_window(self) -> str:
        """The technology window inside the pending decision of another phase (``TechWindow.NONE``: none)."""
        ph = self.phase
        if ph == Phase.TRADE and self.trader >= 0:
            return _TRADE_WINDOWS[self.trade_action]
        if ph == Phase.MOVE and self.carrier >= 0:
            return TechWindow.MOVE
        if ph == Phase.WAR_TURN and not self.follow_up_active:
            return TechWindow.WAR_TURN
        return TechWindow.NONE

    def tech_adjusted_moves(self, moves: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The moves of MOVE / WAR_TURN / TRADE with the technologies: Logistik steps added, only
        steps while a carrier must move on (Erlass, Logistik), and the first moves of activations."""
        window = self._embedded_window()
        if not window:
            return moves
        if window in (TechWindow.MOVE, TechWindow.TRADE):
            extra = self._logistik_steps()
            if extra:
                moves = sorted(set(moves) | {(Head.NODE, y) for y in extra})
            if self.movement_locked():
                moves = [m for m in moves if m[0] == Head.NODE]
        entry = {m[0] for m, _, _ in self._payable_options(self.actor, window)}
        return moves + sorted(entry)

    def movement_locked(self) -> bool:
        """The carrier must move on: it stands in an Erlass region, or Logistik took it out of its
        environment (no DONE, no loading, trading or unloading there)."""
        if self.phase == Phase.MOVE and self.decree_steps >= 0 and self.decree_steps == self.move_steps:
            return True
        oid = self._moving_vehicle()
        return oid >= 0 and self.logistik == oid and not self._in_own_environment(oid)

    def _moving_vehicle(self) -> int:
        if self.phase == Phase.MOVE:
            return self.carrier
        if self.phase == Phase.TRADE:
            return self.trader
        return -1

    def _begin_tech_use(self, move: tuple[int, int]) -> None:
        """A TECH move inside MOVE / WAR_TURN / TRADE opens the activation's sub-decisions."""
        self.changed(changes.TECHNOLOGY)
        p = self.actor
        window = self._embedded_window()
        context = self.tech_ctx = TechContext()
        self.tech_use = TechUse(window, p, self.phase, context)
        self.tech_options_open = {moves: (fl, costs) for moves, fl, costs in self._payable_options(p, window)}
        self.phase = Phase.TECH_USE
        self._open_tree(list(self.tech_options_open))
        self._apply_tech_use(move)

    def _open_tech_window(self, p: int, window: str, context: TechContext) -> bool:
        """A stand-alone window (revolt, battle): True when p has a usable activation (now pending)."""
        self.tech_ctx = context
        opts = self._payable_options(p, window)
        if not opts:
            return False
        self.changed(changes.TECHNOLOGY)
        self.tech_use = TechUse(window, p, self.phase, context)
        self.tech_options_open = {moves: (fl, costs) for moves, fl, costs in opts}
        self.actor = p
        self.phase = Phase.TECH_USE
        self._open_tree([(DONE,)] + list(self.tech_options_open))
        return True

    def _apply_tech_use(self, move: tuple[int, int]) -> None:
        opt = self._tree_step(move)
        if opt is None:
            return
        p = self.tech_use.seat
        if opt == (DONE,):
            self._close_tech_window(p)
            return
        fl, costs = self.tech_options_open.pop(opt)
        self.tech_options_open = {}
        self.start_tp_payment(p, fl, costs, opt)

    def _tech_effect(self, p: int, opt: tuple) -> None:
        moves = opt[1:] if opt[0] == (Head.TECH, WELTLICHE_MACHT) else opt
        # an effect returns True when it has already moved the game on (revolt, battle)
        if not self._EFFECTS[moves[0][1]](self, p, moves[1:]):
            self._close_tech_window(p)

    def _close_tech_window(self, p: int) -> None:
        """Back to the interrupted decision; DONE of a stand-alone window continues its step."""
        self.changed(changes.TECHNOLOGY)
        use, self.tech_use = self.tech_use, None
        window, ctx = use.window, use.context
        self.actor = p
        if window == TechWindow.REVOLT:
            self._revolt_lands(p, ctx.node)
            return
        if window == TechWindow.BATTLE:
            self._battle_run()
            return
        if window == TechWindow.INVADE:  # the next ally's window, or the battles or the takeover go on
            self.phase = use.return_phase
            self._next_invasion_window(ctx)
            return
        if window == TechWindow.TAKTIK:  # the rest of the combat result is assigned by the loser
            self._push((BattleStep.DAMAGE, ctx.loser, ctx.points, True))
            self._battle_run()
            return
        self.phase = use.return_phase
        if window in (TechWindow.TRADE, TechWindow.BUY, TechWindow.SALE):
            self._trade_checkpoint()
        elif window == TechWindow.WAR_TURN and not self.legal_moves():
            self.turn += 1  # a raid by moved barbarians took the last carrier: the turn is a pass
            self._next_war_turn()

    # ====================================================================== phase 4 ====
    def purchase_tech_options(self, p: int) -> list[tuple]:
        """Activations in the purchase menu; TP come from the phase's pool (cards and tokens are
        rotated in the menu itself), the rest in fl."""
        opts = [moves for moves, fl, costs in self._window_options(p, TechWindow.PURCHASE)
                if self.tp_affordable(p, fl, costs)]
        return opts + self._borrowed_design_options(p)

    def _borrowed_design_options(self, p: int) -> list[tuple]:
        """Weltliche Macht on the design technologies (the rulebook's Militärwesen example): every
        purchase that needs a neighbour's design technology, for 1 violet TP more."""
        if not self.has_tech(p, WELTLICHE_MACHT):
            return []
        raised = [max(a, b) for a, b in zip(self.tech[p], self._neighbour_techs(p))]
        if raised == self.tech[p]:
            return []
        gens = (self._build_options, self._vehicle_upgrade_options, self._captain_upgrade_options)
        if not self.config.hidden_purchases:  # 8.5 places new units and vehicles behind the screen: not borrowed
            gens += (self._vehicle_options, self._unit_options)
        own = {o for g in gens for o in g(p)}
        tech, money, violet = self.tech[p], self.money[p], self.tp[p][VIOLET]
        if violet:  # the violet TP of the access is set aside before the purchase's own costs
            self.tp[p][VIOLET] -= 1
        else:
            self.money[p] -= self.tp_price
        self.tech[p] = raised
        try:
            borrowed = {o for g in gens for o in g(p)} if self.money[p] >= 0 else set()
        finally:
            self.tech[p], self.money[p], self.tp[p][VIOLET] = tech, money, violet
        return [((Head.TECH, WELTLICHE_MACHT),) + o for o in sorted(borrowed - own)]

    def activate_in_purchases(self, p: int, opt: tuple) -> None:
        if opt[0] == (Head.TECH, WELTLICHE_MACHT) and opt[1][0] == Head.PURCHASE:
            self.tp_pay(p, 0, ((VIOLET, 1),))
            self._do_purchase(p, opt[1][1], opt[1:])
            return
        self.tech_ctx = TechContext()
        fl, costs = next((fl, costs) for moves, fl, costs in self._window_options(p, TechWindow.PURCHASE)
                         if moves == opt)
        self.tp_pay(p, fl, costs)
        moves = opt[1:] if opt[0] == (Head.TECH, WELTLICHE_MACHT) else opt
        self._EFFECTS[moves[0][1]](self, p, moves[1:])

    def _at_peace_here(self, p: int, node: int) -> bool:
        """Ingenieurskunst: controlled by p and not at war (no battle this round, no opposing army)."""
        return self.controller(node) == p and node not in self.battle_nodes and not self._opposing_army(p, node)

    def _ingenieurskunst_options(self, p: int) -> list[tuple]:
        """Spec 2.7 / G14: per green TP one building or siege engine of p one level up, nothing else paid."""
        out = []
        cost = ((GREEN, 1),)
        for n in self.land_nodes:
            if not self._at_peace_here(p, n):
                continue
            for cls in (0, 1):
                if self.building_owner_at(n, cls) != p:
                    continue
                cur = self.building_kind_at(n, cls)
                nxt = UPGRADE_OF.get(cur, -1)
                lv = self.comp.building_level
                if nxt >= 0 and self.building_supply[nxt] > 0 and self.markers_allow(p, lv[nxt], lv[cur]):
                    out.append((((Head.NODE, n), (Head.BUILD, nxt)), 0, cost))
        for s, oid in enumerate(self.slots[p]):
            if oid < 0:
                continue
            o = self.objs[oid]
            n, level = o[O_NODE], o[O_LEVEL]
            if (o[O_KIND] != SIEGE or level >= 3 or n < 0 or self.siege_supply[level] <= 0
                    or not (self.board.inhabited[n] or self.mil[n]) or not self._at_peace_here(p, n)
                    or not self.markers_allow(p, level + 1, level)):
                continue
            out.append((((Head.OBJECT, s),), 0, cost))
        return out

    def _do_ingenieurskunst(self, p: int, moves: tuple) -> None:
        if moves[0][0] == Head.NODE:
            self._do_build(p, moves[1][1], moves[0][1], pay=False)
            return
        self.changed(changes.SUPPLY | changes.OBJECTS)
        o = self.objs[self.slots[p][moves[0][1]]]
        self.siege_supply[o[O_LEVEL] - 1] += 1
        self.siege_supply[o[O_LEVEL]] -= 1
        o[O_LEVEL] += 1

    # ================================================================== revolt step ====
    def revolt_relocation_pending(self, p: int, node: int) -> bool:
        """G67: right after a revolt lands in p's start empire, p may move it away with Gesetze."""
        if self.home_owner[node] != p:
            return False
        return self._open_tech_window(p, TechWindow.REVOLT, TechContext(node=node))

    def _gesetze_options(self, p: int) -> list[tuple]:
        """Per orange TP: a region adjacent to p's start empire, not controlled by p, without an army."""
        targets = set()
        for h in self.home_regions[p]:
            for y in self.board.land_adj[h]:
                if (self.land_playable[y] and self.playable[y] and self.home_owner[y] != p
                        and self.controller(y) != p and not self.barb_total[y]
                        and not any(self.army[q][y] for q in range(self.num_players))):
                    targets.add(y)
        return [(((Head.NODE, y),), 0, ((ORANGE, 1),)) for y in sorted(targets)]

    def _do_gesetze(self, p: int, moves: tuple) -> bool:
        self.changed(changes.TECHNOLOGY)
        self.tech_use = None
        self._revolt_lands(p, moves[0][1])
        return True

    def _revolt_lands(self, p: int, node: int) -> None:
        if not self._spawn_revolt(p, node):
            self._next_revolt()

    # ======================================================================== trade ====
    def trade_tech_reset(self) -> None:
        """A new purchase or sale opens: its Handel / Markt counters start at zero."""
        self.changed(changes.TECHNOLOGY)
        self.trade_bonus = TradeBonus()

    def _handel_options(self, p: int) -> list[tuple]:
        node = self.objs[self.trader][O_NODE]
        level = self.civil[node]
        if not level or self.trade_bonus.handel >= len(self.sold_now):  # G80: a civil building only
            return []
        return [((), 0, ((YELLOW, 1),))]

    def _do_handel(self, p: int, moves: tuple) -> None:
        self.changed(changes.TECHNOLOGY)
        self.trade_bonus.handel += 1
        self._bank(p, HANDEL_BONUS[self.civil[self.objs[self.trader][O_NODE]]])

    def _markt_sale_options(self, p: int) -> list[tuple]:
        return [((), 0, ((YELLOW, 1),))] if self.sold_now else []

    def _markt_buy_options(self, p: int) -> list[tuple]:
        tb = self.trade_bonus
        if tb.bought * self.cube_price - tb.discount - MARKT_STEP <= 0:
            return []  # a purchase never becomes free
        return [((), 0, ((YELLOW, 1),))]

    def _do_markt(self, p: int, moves: tuple) -> None:
        if self.trade_action == "buy":
            self.changed(changes.TECHNOLOGY)
            self.trade_bonus.discount += MARKT_STEP
        self._bank(p, MARKT_STEP)

    def _beschaffung_options(self, p: int) -> list[tuple]:
        """Per yellow TP one market cube to an inhabited region neighbouring (<= 3) its region; one of
        the two controlled by p, an own caravan / merchant ship in one of them; the destination must
        not have that colour yet (G81)."""
        board = self.board
        reach = self.comp.raw["neighbouring_distance"]
        traders = {self.objs[oid][O_NODE] for oid in self.slots[p]
                   if oid >= 0 and self.objs[oid][O_KIND] in (CARAVAN, MERCHANT_SHIP)}
        inhabited = [n for n in self.land_nodes if self.playable[n] and board.inhabited[n]]
        out = []
        for a in inhabited:
            goods = [g for g, c in enumerate(self.cubes[a]) if c]
            if not goods:
                continue
            ca = self.controller(a) == p
            for b in inhabited:
                if b == a or board.dist[a][b] > reach:
                    continue
                if not (ca or self.controller(b) == p) or not (a in traders or b in traders):
                    continue
                present = self._present(b)
                out += [(((Head.NODE, a), (Head.NODE, b), (Head.GOOD, g)), 0, ((YELLOW, 1),))
                        for g in goods if g not in present]
        return out

    def _do_beschaffung(self, p: int, moves: tuple) -> None:
        self.changed(changes.MARKET)
        a, b, g = moves[0][1], moves[1][1], moves[2][1]
        self.cubes[a][g] = 0
        self.cubes[b][g] = 1

    def _gilden_options(self, p: int) -> list[tuple]:
        """Per yellow TP one stage of p's route becomes established (never the destination)."""
        route = self.route_of(p)
        if route is None:
            return []
        return [(((Head.NODE, y),), 0, ((YELLOW, 1),))
                for y, done in zip(route.stages[:-1], route.established[:-1]) if not done]

    def _do_gilden(self, p: int, moves: tuple) -> None:
        self.changed(changes.ROUTES)
        route = self.route_of(p)
        route.established[route.stages.index(moves[0][1])] = True

    # ===================================================================== movement ====
    def _in_own_environment(self, oid: int, node: int | None = None) -> bool:
        """Land vehicles belong on land; ships at sea or docked in a coastal region."""
        o = self.objs[oid]
        x = o[O_NODE] if node is None else node
        if o[O_KIND] in (GALLEY, MERCHANT_SHIP):
            return self.board.is_sea[x] or bool(self.board.coast[x])
        return not self.board.is_sea[x]

    def _logistik_candidates(self, p: int, oid: int, x: int) -> list[int]:
        """Logistik steps into the other environment: land vehicles to and across sea zones without
        hostile galleys, ships from region to region through own regions without a foreign army."""
        b = self.board
        kind = self.objs[oid][O_KIND]
        if kind in (GALLEY, MERCHANT_SHIP):
            cand = [] if b.is_sea[x] else [y for y in b.land_adj[x]
                                           if self.controller(y) == p and not self._opposing_army(p, y)]
        else:
            cand = list(b.coast[x]) + (list(b.sea_adj[x]) if b.is_sea[x] else [])
            cand = [y for y in cand if not b.is_sea[y] or not self._hostile_galleys(p, y)]
            if b.is_sea[x]:  # landing again: the movement's normal rules for entering a region
                armed = sum(self.carrier_cargo()) > 0 if self.phase == Phase.MOVE else False
                cand = [y for y in cand if b.is_sea[y] or armed or (
                    not self._opposing_army(p, y) and self.controller(y) in (-1, p))]
        return [y for y in cand if self.playable[y]]

    def _can_return(self, p: int, oid: int, y: int, mp: int) -> bool:
        """From y, with mp left, the vehicle reaches its own environment again (Logistik's end rule)."""
        kind = self.objs[oid][O_KIND]
        frontier, seen = [(y, mp)], {y: mp}
        while frontier:
            x, left = frontier.pop()
            if self._in_own_environment(oid, x):
                return True
            for z in self._logistik_candidates(p, oid, x):
                rest = left - self.step_cost(kind, x, z)
                if rest >= 0 and seen.get(z, -1) < rest:
                    seen[z] = rest
                    frontier.append((z, rest))
        return False

    def _logistik_steps(self) -> list[int]:
        oid = self._moving_vehicle()
        if oid < 0 or self.logistik != oid or oid not in self.objs:
            return []
        return self._logistik_targets(self.actor, oid)

    def _logistik_targets(self, p: int, oid: int) -> list[int]:
        o = self.objs[oid]
        x, mp = o[O_NODE], o[O_MP]
        if self.phase == Phase.MOVE and self.escort:
            return []  # accompanying siege engines would follow it into the sea
        out = []
        for y in self._logistik_candidates(p, oid, x):
            rest = mp - self.step_cost(o[O_KIND], x, y)
            if rest >= 0 and self._can_return(p, oid, y, rest):
                out.append(y)
        return out

    def _logistik_options(self, p: int) -> list[tuple]:
        """Per blue TP the moving vehicle may use the other environment for this movement."""
        oid = self._moving_vehicle()
        if oid < 0 or self.logistik == oid or (self.phase == Phase.TRADE and self.trade_action):
            return []
        self.logistik, saved = oid, self.logistik
        try:
            useful = bool(self._logistik_targets(p, oid))
        finally:
            self.logistik = saved
        return [((), 0, ((BLUE, 1),))] if useful else []

    def _do_logistik(self, p: int, moves: tuple) -> None:
        self.changed(changes.TECHNOLOGY)
        self.logistik = self.carrier if self.tech_use.return_phase == Phase.MOVE else self.trader

    def _kartografie_options(self, p: int) -> list[tuple]:
        """Per blue TP the moving carrier gains 1 MP (offered when it has none and could step on)."""
        o = self.objs[self.carrier]
        armed = sum(self.carrier_cargo()) > 0
        if o[O_KIND] not in (WAR_WAGON, GALLEY, SIEGE) or self._step_targets(
                p, o[O_KIND], o[O_NODE], armed, mp=o[O_MP]):
            return []  # it can still step: the MP are not needed yet
        if not self._step_targets(p, o[O_KIND], o[O_NODE], armed, mp=o[O_MP] + 1):
            return []
        return [((), 0, ((BLUE, 1),))]

    def _kartografie_battle_options(self, p: int) -> list[tuple]:
        """G70 (the example): in a battle, 1 blue TP brings one own unit from an adjacent region (where
        no battle is going on) into the battle region; it joins p's side."""
        n = self.bt.node
        return [] if self.board.is_sea[n] else self._kartografie_unit_into(p, n)

    def _kartografie_unit_into(self, p: int, n: int) -> list[tuple]:
        """Per blue TP one own unstopped unit of a land region adjacent to ``n`` steps into it."""
        u, st = self.units[p], self.stopped[p]
        out = []
        for x in self.board.land_adj[n]:
            if not self.army[p][x] or not self.playable[x]:
                continue
            out += [(((Head.NODE, x), (Head.UNIT, t)), 0, ((BLUE, 1),)) for t in range(NT)
                    if u[x * NT + t] > st[x * NT + t]]
        return out

    def _do_kartografie(self, p: int, moves: tuple) -> bool:
        if self.tech_use.window == TechWindow.INVADE:
            return self._kartografie_defends(p, moves)
        if not moves:
            self.changed(changes.OBJECTS)
            self.objs[self.carrier][O_MP] += 1
            return False
        if len(moves) == 2:  # into the battle region: the unit joins the battle, stopped
            self.changed(changes.UNITS)
            x, t, n = moves[0][1], moves[1][1], self.bt.node
            self._add_units(p, x, t, -1)
            self._add_units(p, n, t, 1)
            self.stopped[p][n * NT + t] += 1
            self._resume_battle_window()
            return True
        # G72: one unit moves without a transport: a completed movement of an army of 1 (the war turn)
        self.changed(changes.TECHNOLOGY | changes.MOVE)
        n, t, y = moves[0][1], moves[1][1], moves[2][1]
        self.tech_use = None
        self.move_steps = 0
        self.mover = p
        self.carrier = -1
        self.escort = []
        self.foot_node, self.foot_stepped = n, False
        self.foot_cargo = [0] * NT
        self.foot_cargo[t] = 1
        self._add_units(p, n, t, -1)
        self.phase = Phase.MOVE
        self._step(p, y)
        if self.phase == Phase.MOVE and self.carrier == -1 and self.foot_node == y:
            self._end_movement()  # the step had no entry effect that ended it
        return True

    def kartografie_invasion_window(self, node: int, invader: int, controller: int,
                                    opponents: list[int] | tuple = ()) -> bool:
        """W-INVADE (G70): an army of ``invader`` enters ``node`` of ``controller``: a takeover, or battles
        against the armies there (``opponents``, spec 5.15). Before that, with Kartografie, each may bring one
        own unit in from an adjacent region, in this order: the controller when it has no army there (the
        takeover becomes a battle, or the controller one more opponent of the battle sequence; its battles
        against guests there conquer the region from it, movement.region_conquered, ASSUMPTION), then in turn
        order its allies (the rulebook's example: "Gelb überfällt ein grünes Gebiet. Blau ist mit Grün
        verbündet, zahlt [1 blue TP] und bewegt 1 Reiterei aus einem angrenzenden Gebiet in das
        Kriegsgebiet"). ASSUMPTION: an ally is a seat whose army may stand in the controller's regions (right
        of way or stationing, G24), already at war with the invader (its unit starts no war), not its treaty
        or ceasefire partner, without an army there; its unit is one more army of the region that the invader
        fights in the sequence (MEHRPARTEIENKRIEG: "Man muss nacheinander mit jedem Gegner kämpfen"; battle
        sides have one owner each). True when a window is open."""
        if controller < 0 or controller == invader or self.bt is not None or self.may_pass(invader, controller):
            return False  # no other player's region to take from it (G35: a partner's is a normal move)
        deciders = [] if self.army[controller][node] else [controller]
        deciders += [a for a in self.order if a not in (invader, controller) and not self.eliminated[a]
                     and self._guest_allowed(a, controller) and self.at_war[a][invader]
                     and not self.army[a][node] and not self.peaceful(invader, a)]
        if not deciders:
            return False
        ctx = TechContext(node=node, invader=invader, controller=controller, opponents=tuple(opponents),
                          deciders=tuple(deciders))
        self.tech_ctx = ctx
        return self._next_invasion_window(ctx, start=True)

    def _next_invasion_window(self, ctx: TechContext, start: bool = False) -> bool:
        """Open the next decider's W-INVADE window; when none is left (and the window sequence had begun),
        the entry goes on: the battles against the opponents and the units brought in, or the takeover.
        True when a window is open."""
        while ctx.deciders:
            p = ctx.deciders[0]
            ctx = replace(ctx, deciders=ctx.deciders[1:])  # p's window: the deciders after p are still to come
            if self._open_tech_window(p, TechWindow.INVADE, ctx):
                return True
        if start:
            return False  # nobody can bring a unit: the caller goes on as usual
        node, invader = ctx.node, ctx.invader
        self.actor = invader
        if ctx.opponents:  # one battle, or one after another (movement.py)
            self._attack_all(invader, node, list(ctx.opponents))
            return False
        self._remove_markers(node)
        self._start_conquest(node, invader, ctx.controller, buildings=True)
        return False

    def _kartografie_invade_options(self, p: int) -> list[tuple]:
        """Per blue TP one own unstopped unit of an adjacent land region steps into the invaded region."""
        return self._kartografie_unit_into(p, self.tech_ctx.node)

    def _kartografie_defends(self, p: int, moves: tuple) -> bool:
        """G72: the unit is an army of 1 entering the region (stopped) as the controller's or a guest of it;
        the invader will meet it there: one more opponent (the battle of an invasion, W-INVADE of the cards,
        when it is the only one). The next decider's window follows."""
        self.changed(changes.UNITS | changes.TECHNOLOGY)
        use, self.tech_use = self.tech_use, None
        ctx = use.context
        n = ctx.node
        x, t = moves[0][1], moves[1][1]
        self._add_units(p, x, t, -1)
        self._add_units(p, n, t, 1)
        self.stopped[p][n * NT + t] += 1
        self.phase = use.return_phase
        self._next_invasion_window(replace(ctx, opponents=ctx.opponents + (p,)))
        return True

    def _kartografie_unit_options(self, p: int) -> list[tuple]:
        """Own war turn: per blue TP one unstopped unit steps to an adjacent region on its own."""
        u, st = self.units[p], self.stopped[p]
        out = []
        for n in self.land_nodes:
            if not self.army[p][n] or self.barb_total[n] or any(
                    self.army[q][n] for q in range(self.num_players) if q != p):
                continue
            dests = [y for y in self.board.land_adj[n] if self.playable[y] and self._armed_entry_ok(p, y)]
            for t in range(NT):
                if u[n * NT + t] > st[n * NT + t]:
                    out += [(((Head.NODE, n), (Head.UNIT, t), (Head.NODE, y)), 0, ((BLUE, 1),)) for y in dests]
        return out

    def _erlass_options(self, p: int) -> list[tuple]:
        """Per orange TP the loaded carrier crosses a region controlled by nobody without barbarian
        resistance; no army there, and the movement goes on (2 MP needed)."""
        o = self.objs[self.carrier]
        if not sum(self.carrier_cargo()):
            return []
        out = []
        x, mp = o[O_NODE], o[O_MP]
        for y in self._step_targets(p, o[O_KIND], x, armed=True, mp=mp):
            if (self.board.is_sea[y] or self.controller(y) != -1 or self._opposing_army(p, y)
                    or self.army[p][y]):
                continue
            if self._step_targets(p, o[O_KIND], y, armed=True, mp=mp - self.step_cost(o[O_KIND], x, y)):
                out.append((((Head.NODE, y),), 0, ((ORANGE, 1),)))
        return out

    def _do_erlass(self, p: int, moves: tuple) -> None:
        self.changed(changes.TECHNOLOGY)
        self.decree_step = True
        self._step(p, moves[0][1])
        self.decree_step = False
        self.decree_steps = self.move_steps

    # ===================================================================== war turn ====
    def _nationalstaat_options(self, p: int) -> list[tuple]:
        """G13: per orange TP one barbarian unit moves to an adjacent land region without a player army."""
        out = []
        for n in self.land_nodes:
            if not self.barb_total[n] or not self.playable[n]:
                continue
            dests = [y for y in self.board.land_adj[n] if self.playable[y]
                     and not any(self.army[q][y] for q in range(self.num_players))]
            for k in (B_LI, B_AR, B_CP):
                if self.barb[n * 3 + k]:
                    out += [(((Head.NODE, n), (Head.UNIT, BARB_AS_UNIT[k]), (Head.NODE, y)), 0, ((ORANGE, 1),))
                            for y in dests]
        return out

    def _do_nationalstaat(self, p: int, moves: tuple) -> None:
        n, k, y = moves[0][1], UNIT_AS_BARB[moves[1][1]], moves[2][1]
        self._add_barb(n, k, -1)
        was_free = not self.barb_total[y]
        self._add_barb(y, k, 1)
        if was_free:  # barbarians alone in a region: markers go, buildings and objects are raided
            self._remove_markers(y)
            self._barbarian_raid(y)

    def _einfluss_region_ok(self, p: int, n: int, ctrl: list[int]) -> bool:
        """G79: barbarians inside or next to p's realm; the region itself belongs to nobody else."""
        owner = self.marker[n] if self.marker[n] >= 0 else self.home_owner[n]
        if owner not in (-1, p):
            return False
        return owner == p or any(ctrl[y] == p for y in self.board.land_adj[n])

    def _einfluss_army_options(self, p: int) -> list[tuple]:
        """Own war turn: a whole barbarian army becomes p's (1 orange TP per unit), so that a region
        never holds two armies outside a battle."""
        ctrl = self.control_map()
        sup = self.unit_supply[p]
        out = []
        for n in self.land_nodes:
            size = self.barb_total[n]
            if not size or not self.playable[n] or any(self.army[q][n] for q in range(self.num_players)):
                continue
            b = self.barb[n * 3:n * 3 + 3]
            if sup[LI] < b[B_LI] or sup[AR] < b[B_AR] or sup[4] < b[B_CP]:
                continue
            if self._einfluss_region_ok(p, n, ctrl):
                out.append((((Head.NODE, n),), 0, ((ORANGE, size),)))
        return out

    def _einfluss_battle_options(self, p: int) -> list[tuple]:
        """Battle against barbarians next to p's realm: one barbarian unit per orange TP changes side."""
        bt = self.bt
        n = bt.node
        side = self.tech_ctx.side
        if self.side_owner(1 - side) >= 0 or self.board.is_sea[n] or not self._einfluss_region_ok(
                p, n, self.control_map()):
            return []
        sup = self.unit_supply[p]
        return [(((Head.UNIT, BARB_AS_UNIT[k]),), 0, ((ORANGE, 1),)) for k in (B_LI, B_AR, B_CP)
                if self.barb[n * 3 + k] and sup[min(BARB_AS_UNIT[k], 4)] > 0]

    def _do_einfluss(self, p: int, moves: tuple) -> bool:
        self.changed(changes.SUPPLY)
        in_battle = moves[0][0] == Head.UNIT
        if not in_battle:
            n = moves[0][1]
            kinds = [(k, self.barb[n * 3 + k]) for k in (B_LI, B_AR, B_CP)]
        else:
            n = self.bt.node
            kinds = [(UNIT_AS_BARB[moves[0][1]], 1)]
        for k, count in kinds:
            if not count:
                continue
            t = BARB_AS_UNIT[k]
            self._add_barb(n, k, -count)
            self.barb_supply[k] += count
            self.unit_supply[p][min(t, 4)] -= count
            self._add_units(p, n, t, count)
        if in_battle:
            self._resume_battle_window()
        return in_battle

    # ======================================================================= battle ====
    def battle_tech_window(self, side: int) -> bool:
        """Before step 2 of each battle round, each player side may activate battle technologies."""
        p = self.side_owner(side)
        if not self.side_size(side) or not self.side_size(1 - side):
            if self.bt.tech_used:  # an activation wiped a side out: no melee this round
                self.bt.tasks = [(BattleStep.END_ROUND,)]
            return False
        if p < 0:
            return False
        for oid in self._crewed_engines(side):  # Maschinenbau paid earlier this round
            if self.machines_freed.get(oid) == self.round:
                self._free_crew(side, oid)
        return self._open_tech_window(p, TechWindow.BATTLE, TechContext(side=side))

    def _crewed_engines(self, side: int) -> list[int]:
        crew_of, r = self.bt.crew_of, self.bt.round
        return [oid for oid, crew, _ in self.bt.engines[side] if crew and crew_of.get((r, oid))]

    def _free_crew(self, side: int, oid: int) -> None:
        """The engine's crew also fights in steps 2-9 of this battle round."""
        crew = self.bt.crew[side]
        for t in self.bt.crew_of.pop((self.bt.round, oid)):
            if crew[t]:
                crew[t] -= 1

    def _maschinenbau_options(self, p: int) -> list[tuple]:
        """Per blue TP the crew of 1 siege engine fights normally too, until the end of the round."""
        side = self.tech_ctx.side
        return [(((Head.OBJECT, self.slots[p].index(oid)),), 0, ((BLUE, 1),))
                for oid in self._crewed_engines(side) if oid in self.slots[p]]

    def _do_maschinenbau(self, p: int, moves: tuple) -> bool:
        oid = self.slots[p][moves[0][1]]
        self.machines_freed[oid] = self.round
        self._free_crew(self.tech_use.context.side, oid)
        self._resume_battle_window()
        return True

    def _resume_battle_window(self, *tasks) -> None:
        """After a battle activation: its tasks, then the same side's window again."""
        self.changed(changes.TECHNOLOGY)
        side = self.tech_use.context.side
        self.tech_use = None
        self.bt.tech_used = True
        self._push(*tasks, (BattleStep.TECH_WINDOW, side))
        self._battle_run()

    def taktik_window(self, loser: int, points: int) -> bool:
        """Battle step 9: before the loser assigns the combat result, the winner may place points of
        it with Taktik (1 red TP each) on enemy units of its choice."""
        winner = 1 - loser
        p = self.side_owner(winner)
        if p >= 0 and points > 0 and self.side_size(loser) and self._open_tech_window(
                p, TechWindow.TAKTIK, TechContext(side=winner, loser=loser, points=points)):
            return True
        self._push((BattleStep.DAMAGE, loser, points, True))
        return False

    def _taktik_options(self, p: int) -> list[tuple]:
        loser = self.tech_ctx.loser
        return [(((Head.UNIT, t),), 0, ((RED, 1),)) for t in self.damage_targets(loser, restricted=False)]

    def _do_taktik(self, p: int, moves: tuple) -> bool:
        self.changed(changes.TECHNOLOGY)
        ctx, self.tech_use = self.tech_use.context, None
        self._hit(ctx.loser, moves[0][1])
        self._push((BattleStep.TAKTIK_WINDOW, ctx.loser, ctx.points - 1))
        self._battle_run()
        return True

    def _strategie_options(self, p: int) -> list[tuple]:
        """Per red TP one damage point to the enemy as if archers had fired (no roll)."""
        if not self.side_size(1 - self.tech_ctx.side):
            return []
        return [((), 0, ((RED, 1),))]

    def _do_strategie(self, p: int, moves: tuple) -> bool:
        enemy = 1 - self.tech_use.context.side
        self._resume_battle_window((BattleStep.DAMAGE, enemy, self._protected(enemy, 1, 1), False))
        return True

    # ==================================================================== Ernennung ====
    # Appointments are kept per battle side as {(real type, appointed type): units}. The battle reads
    # a side through ``side_units`` (combat.py), which shows appointed units as their new type, so every
    # ability, captain and damage rule sees them so; the pieces on the board keep their real type, and
    # nothing is left to undo when the battle ends (ASSUMPTION: "this round" = the rest of the battle).
    def _appointments(self, side: int, real: list[int]) -> list[tuple[int, int, int]]:
        """(real type, appointed type, units) of a side, each limited to the pieces still there: a piece
        another effect removes by its real type is an unappointed one while the side has one."""
        left = list(real)
        out = []
        for (a, b), k in sorted(self.bt.appointed[side].items()):
            k = min(k, left[a])
            if k > 0:
                left[a] -= k
                out.append((a, b, k))
        return out

    def appointed_view(self, side: int, real: list[int]) -> list[int]:
        view = list(real)
        for a, b, k in self._appointments(side, real):
            view[a] -= k
            view[b] += k
        return view

    def unappointed_pieces(self, side: int) -> list[int]:
        """Pieces per real type that keep their own type in this battle."""
        real = list(self.side_pieces(side))
        if self.bt.appointed is not None:
            for a, _, k in self._appointments(side, real):
                real[a] -= k
        return real

    def _settled_appointments(self, side: int) -> dict:
        """The side's stored appointments without those no piece backs any more."""
        apps = self.bt.appointed[side]
        kept = self._appointments(side, self.side_pieces(side))
        apps.clear()
        for a, b, k in kept:
            apps[(a, b)] = k
        return apps

    def _appointed_piece(self, side: int, t: int) -> int:
        """The real type of the appointed piece that counts as t and takes an effect meant for a unit of
        type t; -1 while the side has a piece really of type t (ASSUMPTION: those go first)."""
        apps = self._settled_appointments(side)
        if self.unappointed_pieces(side)[t]:
            return -1
        a = next((a for a, b in sorted(apps) if b == t), -1)
        if a >= 0:
            apps[(a, t)] -= 1
            if not apps[(a, t)]:
                del apps[(a, t)]
        return a

    def take_appointed_piece(self, side: int, t: int) -> int:
        """A unit counted as t leaves the battle (spy cards): the real type of the piece that goes."""
        a = self._appointed_piece(side, t)
        return t if a < 0 else a

    def appointed_hit(self, side: int, t: int) -> bool:
        """A damage point on type t that falls on an appointed unit (no piece really of type t left):
        it takes the point as a unit of type t. ASSUMPTION: on land HI and cavalry step down in the
        appointment (no figure from the supply), any other type dies and its real piece leaves (to the
        supply, or to the captor as a prisoner of its real type). True when it did."""
        a = self._appointed_piece(side, t)
        if a < 0:
            return False
        bt = self.bt
        down = None if bt.naval else STEP_DOWN.get(t)
        if down is not None:
            if down != a:
                apps = bt.appointed[side]
                apps[(a, down)] = apps.get((a, down), 0) + 1
        else:
            self._appointed_dies(side, a, t)
        crew, u = bt.crew[side], self.side_units(side)
        for k in range(NT):
            if crew[k] > u[k]:
                crew[k] = u[k]
        return True

    def _appointed_dies(self, side: int, a: int, t: int) -> None:
        bt = self.bt
        p, node = bt.owners[side], bt.node
        if p < 0:
            self.changed(changes.SUPPLY)
            k = UNIT_AS_BARB[a]
            self._add_barb(node, k, -1)
            self.barb_supply[k] += 1
            return
        captor = self._hit_captor(side, t)  # capture, Kerkermeister 39 (cards.py)
        self._note_loss(side, a, captor, dies=True)  # Chirurg 28 (cards.py)
        self._add_units(p, node, a, -1)
        if captor >= 0:
            self.prisoners[captor][p][a] += 1
            bt.taken.append((p, a))
        else:
            self.unit_supply[p][min(a, 4)] += 1

    def _ernennung_options(self, p: int) -> list[tuple]:
        """Per red TP one unit of either side (p's, an opponent's, barbarians') counts as another type
        for the rest of the battle: SIDE, its real type, the type it counts as. ASSUMPTION: a captain
        is one type (no other level); a unit counted as a captain is a level I captain; an appointed unit is not
        appointed again; units crewing a siege engine this round are not offered."""
        out = []
        for s in (0, 1):
            free, fighting = self.unappointed_pieces(s), self.fighting_units(s)
            for a in range(NT):
                if free[a] and fighting[a]:
                    out += [(((Head.SIDE, s), (Head.UNIT, a), (Head.UNIT, b)), 0, ((RED, 1),))
                            for b in APPOINTED_TYPES if b != a and not (a >= CP1 and b == CP1)]
        return out

    def _do_ernennung(self, p: int, moves: tuple) -> bool:
        side, a, b = moves[0][1], moves[1][1], moves[2][1]
        if self.bt.appointed is None:
            self.bt.appointed = [{}, {}]
        apps = self._settled_appointments(side)
        apps[(a, b)] = apps.get((a, b), 0) + 1
        self._resume_battle_window()
        return True

    # ========================================================== after a won battle ====
    def note_won_entry(self, node: int, alive: list[bool]) -> None:
        """End of a battle: remember it when the mover won the battle its entry started."""
        att = self.bt.owners[0]
        won = self.battle_after == BattleAfter.MOVE and att >= 0 and att == self.mover and alive[0] and not alive[1]
        self.won_entry = (node, self.move_steps) if won else None

    def kartografie_after_battle(self) -> bool:
        """``_end_movement`` hook, the rulebook's example ("you win the battle against the barbarian army,
        then pay 1 TP and may move the war wagon one region further"): when the mover won the battle
        its entry started and Kartografie can give the carrier the MP for one more step, the movement
        goes on instead of ending: the mover's units in the region may board again (their stop markers
        are lifted as they board), ``TECH(Kartografie)`` gives the carrier 1 MP, DONE ends the movement.
        True when it goes on."""
        won, self.won_entry = self.won_entry, None
        c, p = self.carrier, self.mover
        if won is None or won[1] != self.move_steps or c < 0 or c not in self.objs:
            return False
        o = self.objs[c]
        y = o[O_NODE]
        if o[0] != p or y != won[0] or o[O_MP] > 0 or o[O_KIND] not in (WAR_WAGON, GALLEY, SIEGE):
            return False
        access = self._access(p, KARTOGRAFIE, self._neighbour_techs(p) if self.has_tech(p, WELTLICHE_MACHT) else None)
        if access is None or not self.tp_payable(p, 0, ((BLUE, 1),) + access[1]):
            return False
        board_again = self.unit_capacity(c) > 0 and not self.board.is_sea[y] and self.army[p][y] > 0
        loads = {sum(self.carrier_cargo()) > 0} | ({True} if board_again else set())
        if not any(self._step_targets(p, o[O_KIND], y, armed, mp=1) for armed in loads):
            return False
        if board_again:  # the LOAD allowance of Kriegsfürst 6 (cards.py): stopped units may board
            self.changed(changes.CARD_EFFECTS)
            self.warlord_load = (y, self.army[p][y])
        self.actor = p
        self.phase = Phase.MOVE
        return True

    # Explicit tables (after the methods they name): the technologies offered in each window, with the method that
    # lists a technology's options there, and the method that carries out a technology's effect.
    _WINDOW_TECHS = {
        TechWindow.PURCHASE: ((INGENIEURSKUNST, _ingenieurskunst_options),),
        TechWindow.REVOLT: ((GESETZE, _gesetze_options),),
        TechWindow.SALE: ((HANDEL, _handel_options), (MARKT, _markt_sale_options)),
        TechWindow.BUY: ((MARKT, _markt_buy_options),),
        TechWindow.TRADE: ((BESCHAFFUNG, _beschaffung_options), (GILDEN, _gilden_options),
                           (LOGISTIK, _logistik_options)),
        TechWindow.MOVE: ((LOGISTIK, _logistik_options), (KARTOGRAFIE, _kartografie_options),
                          (ERLASS, _erlass_options)),
        TechWindow.WAR_TURN: ((NATIONALSTAAT, _nationalstaat_options), (EINFLUSS, _einfluss_army_options),
                              (KARTOGRAFIE, _kartografie_unit_options)),
        TechWindow.TAKTIK: ((TAKTIK, _taktik_options),),
        TechWindow.INVADE: ((KARTOGRAFIE, _kartografie_invade_options),),
        TechWindow.BATTLE: ((MASCHINENBAU, _maschinenbau_options), (STRATEGIE, _strategie_options),
                            (EINFLUSS, _einfluss_battle_options), (KARTOGRAFIE, _kartografie_battle_options),
                            (ERNENNUNG, _ernennung_options)),
    }

    _EFFECTS = {
        INGENIEURSKUNST: _do_ingenieurskunst, GESETZE: _do_gesetze, HANDEL: _do_handel, MARKT: _do_markt,
        BESCHAFFUNG: _do_beschaffung, GILDEN: _do_gilden, KARTOGRAFIE: _do_kartografie, ERLASS: _do_erlass,
        NATIONALSTAAT: _do_nationalstaat, EINFLUSS: _do_einfluss, STRATEGIE: _do_strategie,
        MASCHINENBAU: _do_maschinenbau, TAKTIK: _do_taktik, LOGISTIK: _do_logistik,
        ERNENNUNG: _do_ernennung,
    }


__all__ = ["TechContext", "TechUse", "TechWindow", "TechnologyMixin", "TradeBonus", "tech_id"]
