"""The Seventh Stone's hidden information sampled again for one seat (``envs.core.determinize``).

Hidden from a seat (tests/seventh_stone/test_env.py): the other hands (their sizes are public), the stones under
other seats' armies, the order of the equipment stacks, who of the others took which drafted stone, and the other
seats' sealed allocations before the reveal (sampled as allocations the rules allow: each seat's fields within its
public budget, ALLOC_COSTS), and the kind of the stone another seat has chosen to place but not yet placed (it is
still in that seat's hand: drawn with the hand, among the kinds that seat's armies can take).
"""
from __future__ import annotations

from ..core.determinize import fresh_generator, shuffled
from .engine import ALLOC_COSTS, ITEM_STONE, Phase


def determinize(engine, seat: int, rng):
    """A clone of ``engine`` with everything ``seat`` must not know drawn again from ``rng``."""
    e = engine.clone()
    n = e.num_players
    others = [p for p in range(n) if p != seat]
    under = [a for cell in e.armies for a in cell if a.owner != seat and a.stones]
    pool = [k for p in others for k in range(len(e.hands[p])) for _ in range(e.hands[p][k])]
    pool += [k for a in under for k in a.stones]
    pool += [k for s in e.stacks for k in s]
    pool = shuffled(pool, rng)
    placing = e.current_player
    chosen = None
    if e.phase == Phase.PLACE_CELL and placing != seat and e.sel_item >= ITEM_STONE and not e.is_over:
        # the chosen stone left no trace but the step: any stone of the pool the placing seat's armies can take
        chosen = pool.pop(next(j for j, k in enumerate(pool) if e._place_cells(placing, ITEM_STONE + k)))
        e.sel_item = ITEM_STONE + chosen
    i = 0
    for p in others:
        size = sum(e.hands[p])
        hand = [0] * len(e.hands[p])
        if p == placing and chosen is not None:
            hand[chosen] += 1
            size -= 1
        for k in pool[i:i + size]:
            hand[k] += 1
        e.hands[p] = hand
        i += size
    for a in under:
        a.stones = pool[i:i + len(a.stones)]
        i += len(a.stones)
    for s in e.stacks:
        s[:] = pool[i:i + len(s)]
        i += len(s)
    takers = shuffled([t for t in e.offer_taker if t not in (-1, seat)], rng)
    e.offer_taker = [t if t in (-1, seat) else takers.pop() for t in e.offer_taker]
    if not e.revealed:
        for p in others:
            if e.committed[p] or (e.phase == Phase.ALLOC and e.actor == p):
                e.alloc[p] = _sealed_allocation(e, p, rng)
    e.rng = fresh_generator(rng)
    # the legal moves listed for the real game offer its hidden stones (ITEM(stone:...) of the real hand): listed
    # again from the sample
    e._legal = None
    e.stamp_everything()  # edited from outside the rules: observers look again
    return e


def _sealed_allocation(e, p: int, rng) -> list[int]:
    """An allocation seat ``p`` could have made: +1 or +5 on a field it can still pay for, until it stops (each
    choice, stopping included, equally likely, as a random player allocates)."""
    e.alloc[p] = alloc = [0] * 8
    while True:
        left = e.budget_left(p)
        steps = [(field, amount) for field in range(8) for amount in (1, 5) if amount * ALLOC_COSTS[field] <= left]
        pick = int(rng.integers(len(steps) + 1))
        if pick == len(steps):
            return alloc
        field, amount = steps[pick]
        alloc[field] += amount
