"""One seat's view of Medioevo Universale: ``render_text`` with what the seat may not see taken out (other
seats' money unless ``reveal_money``; with hidden purchases, the seats behind the screen as phase 4 began), and
the seat's own secrets: money, sealed bid, tax choice, the cards it is choosing from, its cards' goals and its
purchases behind the screen."""
from __future__ import annotations

import re

from .constants import Phase, Stage
from .data import GOAL_KEYS

_MONEY = re.compile(r"money +-?\d+")
_HEADER_LINES = 2  # render_text: two header lines, then one line per seat, then the board


def behind_screen(e, seat: int | None) -> set[int]:
    """Seats whose purchases ``seat`` may not see yet (variant 8.5, as the observation's snapshot)."""
    if not (e.config.hidden_purchases and e.stage == Stage.PURCHASES and e.purchase_snapshot is not None):
        return set()
    return {p for p in range(e.num_players) if p != seat and p not in e.revealed_seats}


def seat_view(engine, seat: int) -> str:
    e = engine
    n = e.num_players
    lines = e.render_text().split("\n")
    head, rows, board = lines[:_HEADER_LINES], lines[_HEADER_LINES:_HEADER_LINES + n], lines[_HEADER_LINES + n:]
    secret = behind_screen(e, seat)
    for p in range(n):
        if p != seat and not e.config.reveal_money:
            rows[p], found = _MONEY.subn("money     ?", rows[p])
            if found != 1:
                raise AssertionError(f"seat_view: render_text's seat row changed: {rows[p]!r}")
        if p in secret:
            snap = e.purchase_snapshot
            rows[p] = (f"seat {p} (purchases behind the screen; as phase 4 began) tech "
                       + "".join(str(x) for x in snap["tech"][p])
                       + f"  cards {len(snap['hand'][p])}  tokens {sum(snap['tokens'][p])}")
    if secret:
        board = ["  (the board is hidden while seats " + ", ".join(str(p) for p in sorted(secret))
                 + " have purchases behind the screen)"]
    return "\n".join(head + rows + board + own_secrets(e, seat))


def own_secrets(e, seat: int) -> list[str]:
    """What only ``seat`` knows, one line each."""
    out = [f"your money (seat {seat}): {e.money[seat]} fl"]
    if e.phase in (Phase.BID, Phase.TIE_BID) and (e.bids[seat] or e.tie_extra[seat]):
        out.append(f"your sealed bid: {e.bids[seat]} fl, extra tie bid {e.tie_extra[seat]} fl")
    if e.tax_pending[seat] >= 0:
        out.append(f"your tax choice (hidden until all chose): {e.tax_pending[seat]}")
    if e.current_player == seat and e.phase == Phase.KEEP_CARD:
        out.append("cards you are choosing from: " + ", ".join(_card(e, c) for c in e.drawn))
    if e.hand[seat]:
        out.append("goals of your cards: " + "; ".join(
            f"{_card(e, c)}: {GOAL_KEYS[key]} {threshold}" for c, (key, threshold) in
            ((c, e.goal_of[c]) for c in e.hand[seat])))
    if e.config.hidden_purchases and e.hidden_bought[seat]:
        out.append(f"behind your screen: {list(e.hidden_bought[seat])}")
    return out


def _card(e, c: int) -> str:
    card = e.cards[c]
    return f"{card.id} {card.person}"
