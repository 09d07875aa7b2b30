"""Phase 1 (turn-order auction), phase 2.1 (barbarian horde), phase 3 (taxes, upkeep, deficits)
and loans (spec 5.3, 5.4, 5.5, 5.6)."""
from __future__ import annotations

from operator import itemgetter

from .cards import Resume
from .constants import (
    BUILDING_CLASS, COINS, NUM_UNIT_TYPES, Ctrl, Head, Phase, Stage, coin_moves,
)
from . import changes
from .combat import BattleAfter

NT = NUM_UNIT_TYPES
DONE = (Head.CTRL, Ctrl.DONE)
_FIRST = itemgetter(0)


class EconomyMixin:
    # ------------------------------------------------------------------------- loans ----
    def can_take_loan(self, p: int) -> bool:
        return not self.loan_taken[p] and self.loans[p] < self.max_loans

    def loan_moves(self, p: int, reserved: int = 0) -> list[tuple[int, int]]:
        # can_take_loan and the repayment's test written out: asked at every bid, tax choice and purchase menu
        moves = []
        loans = self.loans[p]
        if not self.loan_taken[p] and loans < self.max_loans:
            moves.append((Head.CTRL, Ctrl.TAKE_LOAN))
        if not self.loan_repaid[p] and loans > 0 and self.money[p] - reserved >= self.loan_amount:
            moves.append((Head.CTRL, Ctrl.REPAY_LOAN))
        return moves

    def _loan(self, p: int, ctrl: int) -> None:
        self.changed(changes.SEATS)
        if ctrl == Ctrl.TAKE_LOAN:
            self.loans[p] += 1
            self.loan_taken[p] = 1
            self._bank(p, self.loan_amount)
        else:
            self.loans[p] -= 1
            self.loan_repaid[p] = 1
            self._bank(p, -self.loan_amount)

    # ---------------------------------------------------------------------- auction ----
    def _start_auction(self) -> None:
        """Spec 5.3: sealed bids, collected one seat at a time in the previous turn order."""
        self.stage = Stage.TURN_ORDER
        n = self.num_players
        self.bids = [0] * n
        self.tie_extra = [0] * n
        self.tie_round = 0
        self.queue = [p for p in self.order if not self.eliminated[p]]
        self.phase = Phase.BID
        self.actor = self.queue.pop(0)

    def bid_moves(self) -> list[tuple[int, int]]:
        p = self.actor
        bid = self.bids[p] + self.tie_extra[p]
        cash = self.money[p]
        entered = self.tie_extra[p] if self.phase == Phase.TIE_BID else self.bids[p]  # or a tie round's addition
        moves = [DONE]
        moves += coin_moves(entered, cash - bid + entered)
        if self.phase == Phase.BID:
            moves += self.loan_moves(p, reserved=bid)
        return moves

    def _apply_bid(self, move: tuple[int, int]) -> None:
        head, arg = move
        p = self.actor
        if head == Head.COIN:
            if self.phase == Phase.BID:
                self.bids[p] += COINS[arg]
            else:
                self.tie_extra[p] += COINS[arg]
            return
        if head == Head.CTRL and arg != Ctrl.DONE:
            self._loan(p, arg)
            return
        self.turn += 1
        if self.queue:
            self.actor = self.queue.pop(0)
            return
        if self.phase == Phase.TIE_BID:
            for q in range(self.num_players):
                self.bids[q] += self.tie_extra[q]
                self.tie_extra[q] = 0
        self._resolve_auction()

    def _resolve_auction(self) -> None:
        self.changed(changes.ORDER)
        self.bids_revealed = list(self.bids)  # everyone reveals at once
        players = [p for p in self.order if not self.eliminated[p]]
        top = max(self.bids[p] for p in players)
        tied = [p for p in players if self.bids[p] == top]
        if len(tied) > 1 and self.tie_round < self.max_tie_rounds:
            # G25: further sealed rounds of additional amounts; random after the last one
            self.tie_round += 1
            self.queue = tied[:]
            self.phase = Phase.TIE_BID
            self.actor = self.queue.pop(0)
            return
        if len(tied) > 1:
            start = tied[int(self.rng.integers(len(tied)))]
        else:
            start = tied[0]
        rest = [p for p in players if p != start]
        prev_pos = {p: i for i, p in enumerate(self.order)}
        if self.round == 1:
            noise = self.rng.permutation(len(self.order))
            key = {p: int(noise[i]) for i, p in enumerate(self.order)}
        else:
            key = {p: -prev_pos[p] for p in rest}  # ties: the previous order reversed
        rest.sort(key=lambda p: (-self.bids[p], key[p]))
        eliminated = [p for p in self.order if self.eliminated[p]]
        new_order = [start] + rest + eliminated
        # only the start player pays, to the last-placed (non-eliminated) player
        last = rest[-1] if rest else start
        pay = self.bids[start]
        self._transfer(start, last, pay)
        self.order = new_order
        self.position = [0] * self.num_players
        for i, p in enumerate(new_order):
            self.position[p] = i
        if not self.setup_done:
            self._start_setup_placements()
        else:
            self._start_events()

    # ------------------------------------------------------------ phase 2: events ----
    def _start_events(self) -> None:
        """Phase 2.1: the start player rolls the three barbarian dice and may reroll any once."""
        self.changed(changes.HORDE)
        self.stage = Stage.EVENTS
        rng = self.rng
        self.barb_dice = [int(rng.integers(1, 5)), int(rng.integers(1, 7)), int(rng.integers(1, 9))]
        self.phase = Phase.HORDE_REROLL
        self.actor = self.order[0]
        if self.eliminated[self.actor]:
            self._set_horde()
            self._after_horde()

    def _apply_reroll(self, mask: int) -> None:
        self.changed(changes.HORDE)
        sides = (4, 6, 8)
        for i in range(3):
            if mask >> i & 1:
                self.barb_dice[i] = int(self.rng.integers(1, sides[i] + 1))
        self.turn += 1
        self._set_horde()
        self._after_horde()

    def _set_horde(self) -> None:
        self.changed(changes.HORDE)
        d4, d6, d8 = self.barb_dice
        self.horde = [1 + (d4 <= 3), int(d6 <= 3), int(d8 <= 3)]

    # ------------------------------------------------------------- phase 3: taxes ----
    def _start_taxes(self) -> None:
        self.stage = Stage.TAXES
        self.tax_pending = [-1] * self.num_players
        self.queue = [p for p in self.order if not self.eliminated[p]]
        self.phase = Phase.TAX
        self.actor = self.queue.pop(0)

    def tax_moves(self) -> list[tuple[int, int]]:
        return [(Head.TAX, i) for i in range(len(self.tax_rates))] + self.loan_moves(self.actor)

    def _apply_tax(self, move: tuple[int, int]) -> None:
        head, arg = move
        p = self.actor
        if head == Head.CTRL:
            self._loan(p, arg)
            return
        self.tax_pending[p] = self.tax_rates[arg]
        self.turn += 1
        if self.queue:
            self.actor = self.queue.pop(0)
            return
        # all chose: reveal, collect income, then pay expenses in turn order (G20)
        self.changed(changes.SEATS)
        for q in range(self.num_players):
            if not self.eliminated[q]:
                self.tax_rate[q] = self.tax_pending[q]
                self._bank(q, self.income(q))
        self.tax_pending = [-1] * self.num_players
        self.queue = [q for q in self.order if not self.eliminated[q]]
        self._next_expenses()

    def income(self, p: int) -> int:
        """Spec 5.5: rate x (controlled regions + civil levels) + 20 x market factor per controlled city."""
        regions = self.controlled_regions(p)
        if not regions and self.total_units(p) == 0:
            return self.income_floor
        levels = 0
        bonus = 0
        for n in regions:
            if self.civil_owner[n] == p:
                levels += self.civil[n]
                if self.civil[n] == 3:
                    bonus += self.city_market_bonus * self.market_factor(n)
        return self.tax_rate[p] * (len(regions) + levels) + bonus

    def expenses_due(self, p: int) -> int:
        return self.upkeep(p) + self.interest_due(p)

    def _next_expenses(self) -> None:
        if self._card_window("tax", Resume.EXPENSES):  # W-TAX (cards.py)
            return
        while self.queue:
            p = self.queue.pop(0)
            if self.money[p] >= self.expenses_due(p):
                self._pay_expenses(p)
                continue
            self.actor = p
            self.phase = Phase.DEFICIT
            self._open_tree(self._deficit_options(p))
            if self.tree:
                return
            self._settle_deficit(p)
        if self.pending_end:  # the game ended in this phase (``_eliminate``): ``apply`` starts the final scoring
            return
        self._start_purchases()

    def _pay_expenses(self, p: int) -> None:
        self.changed(changes.SEATS)
        share = self._share_interest(p)  # Magnat 37 (cards.py)
        self._bank(p, -(self.expenses_due(p) - share))
        self.missed_interest[p] = 0

    def _deficit_options(self, p: int) -> list[tuple]:
        """Spec 5.5-5.6: take a loan, give up units, or sell own transports, siege engines and
        buildings for half their price, until upkeep and interest are covered."""
        opts: list[tuple] = []
        if self.can_take_loan(p):
            opts.append(((Head.CTRL, Ctrl.TAKE_LOAN),))
        u, army = self.units[p], self.army[p]
        for n in range(self.board.num_nodes):
            if not army[n]:  # the sum of p's units there
                continue
            base = n * NT
            for t in range(NT):
                if u[base + t]:
                    opts.append(((Head.UNIT, t), (Head.NODE, n)))
        for s, oid in enumerate(self.slots[p]):
            if oid >= 0:
                opts.append(((Head.OBJECT, s),))
        for n in self.land_nodes:
            if p not in (self.civil_owner[n], self.mil_owner[n], self.cath_owner[n]):
                continue
            for cls in range(3):
                if self.building_owner_at(n, cls) == p:
                    opts.append(((Head.BUILD, self.building_kind_at(n, cls)), (Head.NODE, n)))
        if self.interest_due(p) and self.horde_available():
            # spec 5.6: a revolt in an own region by the phase 2 rules brings 100 fl
            opts += [((Head.NODE, n),) for n in self.revolt_candidates(p)]
        return opts

    def horde_available(self) -> bool:
        return any(min(self.horde[k], self.barb_supply[k]) for k in range(3))

    def _apply_deficit(self, opt: tuple) -> None:
        p = self.actor
        head, arg = opt[0]
        if head == Head.CTRL:
            self._loan(p, arg)
        elif head == Head.UNIT:
            self._disband_unit(p, arg, opt[1][1])
        elif head == Head.OBJECT:
            oid = self.slots[p][arg]
            o = self.objs[oid]
            self._bank(p, int(self.plunder_fraction * self.vehicle_cost_per_level * o[2]))
            self._remove_object(oid)
        elif head == Head.NODE:
            if any(self.barb_total[n] for n in self.home_regions[p]):
                self._gain_ep(p, -1, "additional_revolt")  # ASSUMPTION (5.6): the revolt penalty applies
            self.revolts_placed[p] += 1
            self._bank(p, self.self_revolt_money)
            self._spawn_horde(arg)
            self._remove_markers(arg)
            if self._barbarians_attack(arg, p, BattleAfter.DEFICIT):  # the own units there at once (phase 2 rules)
                return
            self._barbarian_raid(arg)
        else:
            node = opt[1][1]
            self._bank(p, int(self.plunder_fraction * self.comp.building_cost[arg]))
            self._remove_building(node, BUILDING_CLASS[arg])
        self._after_deficit_action(p)

    def _after_deficit_action(self, p: int) -> None:
        """Pay once the money covers upkeep and interest; otherwise offer the next cover."""
        self.actor = p
        self.phase = Phase.DEFICIT
        if self.money[p] >= self.expenses_due(p):
            self._pay_expenses(p)
            self.turn += 1
            self._next_expenses()
            return
        self._open_tree(self._deficit_options(p))
        if not self.tree:
            self._settle_deficit(p)
            self.turn += 1
            self._next_expenses()

    def _settle_deficit(self, p: int) -> None:
        """Nothing left to give up: upkeep is 0 (no units or objects), the interest is missed."""
        self._bank(p, -self.upkeep(p))  # 0 here
        interest = self.interest_due(p)
        if interest and self.money[p] < interest:
            self.changed(changes.SEATS)
            self.missed_interest[p] += 1
            if self.missed_interest[p] >= 2:
                self._eliminate(p)
        else:
            self._pay_expenses(p)

    def _disband_unit(self, p: int, t: int, node: int) -> None:
        self._add_units(p, node, t, -1)
        self.unit_supply[p][min(t, 4)] += 1

    def _remove_building(self, node: int, cls: int) -> None:
        self.changed(changes.SUPPLY | changes.BUILDINGS)
        kind = self.building_kind_at(node, cls)
        self.building_supply[kind] += 1
        if cls == 0:
            self.civil[node] = 0
            self.civil_owner[node] = -1
            self.civil_dmg[node] = 0
        elif cls == 1:
            self.changed(changes.MARKERS | changes.SEATS)
            owner = self.mil_owner[node]
            self.mil[node] = 0
            self.mil_owner[node] = -1
            self.mil_dmg[node] = 0
            # spec 5.12: the owner takes back the markers next to it that no other of their military
            # buildings adjacent to the marker can hold
            for m in self.board.land_adj[node]:
                if self.marker[m] == owner and owner >= 0 and not any(
                        self.mil_owner[b] == owner for b in self.board.land_adj[m]):
                    self.marker[m] = -1
                    self.markers_left[owner] += 1
        else:
            self.cath_owner[node] = -1
            self.cath_dmg[node] = 0

    def _eliminate(self, p: int) -> None:
        """Spec 5.6: all markers, pieces and cards go back to the supply."""
        self.changed(changes.SUPPLY | changes.UNITS | changes.MARKERS | changes.SEATS | changes.CARDS)
        self.eliminated[p] = True
        for n in range(self.board.num_nodes):
            for t in range(NT):
                while self.units[p][n * NT + t]:
                    self._disband_unit(p, t, n)
            if self.marker[n] == p:
                self.marker[n] = -1
                self.markers_left[p] += 1
        for oid in self.own_objects(p):
            self._remove_object(oid)
        for t in range(NT):
            self.unit_supply[p][min(t, 4)] += self.capitulated[p][t]
            self.capitulated[p][t] = 0
            for c in range(self.num_players):  # its prisoners go home; its own captured units stay
                q = self.prisoners[p][c][t]
                if q:
                    self.unit_supply[c][min(t, 4)] += q
                    self.prisoners[p][c][t] = 0
        for n in self.land_nodes:
            for cls in range(3):
                if self.building_owner_at(n, cls) == p:
                    self._remove_building(n, cls)
        self.deck[:0] = self.hand[p]
        self.hand[p] = []
        self.rotated[p] = []
        for c in range(6):
            self.token_supply[c] += self.tokens[p][c]
            self.tokens[p][c] = 0
            self.tokens_flipped[p][c] = 0
        if all(self.eliminated):
            # "Wer in zwei aufeinanderfolgenden Runden seine Zinsen nicht bezahlen kann, scheidet aus dem Spiel
            # aus" (D. Darlehen, Bankrott): with the last player out nobody is left to play on, so the game ends
            # at once; the Schlusswertung awards nothing to players out of the game (ASSUMPTION, spec 4.6).
            self.pending_end = True

    # ------------------------------------------------------------ generic choices ----
    def _open_tree(self, options: list[tuple], lazy: tuple = ()) -> None:
        """A decision made of sequential sub-decisions: ``options`` lists every complete choice as
        a tuple of moves; each step offers the distinct next moves of the options still open.
        ``lazy``: further first moves, each with at least one option, whose options are not in
        ``options`` but listed by ``_lazy_tree_options`` when the move is chosen."""
        self.tree = options
        self.tree_lazy = lazy
        self.prefix = ()

    def tree_moves(self) -> list[tuple[int, int]]:
        depth = len(self.prefix)
        if depth == 0 and self.tree_lazy:
            return sorted({*map(_FIRST, self.tree), *self.tree_lazy})
        return sorted(set(map(itemgetter(depth), self.tree)))

    def _tree_step(self, move: tuple[int, int]):
        """Advance the open choice; returns the complete option once it is determined."""
        depth = len(self.prefix)
        self.prefix = self.prefix + (move,)
        if self.tree_lazy:
            lazy, self.tree_lazy = self.tree_lazy, ()
            if move in lazy:
                self.tree = self._lazy_tree_options(move)
            else:
                self.tree = [opt for opt in self.tree if opt[0] == move]
        else:
            self.tree = [opt for opt in self.tree if opt[depth] == move]
        if len(self.tree) == 1 and len(self.tree[0]) == depth + 1:
            return self.tree[0]
        return None

