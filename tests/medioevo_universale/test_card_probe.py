"""The card-play check (cards.py ``_can_play_card``) asks each card only whether it has a choice
(``_card_has_choice``, which stops at the first Tempelritter region or borrowable card). Over random play it
always agrees with the full listing (``_card_play_options``), also with every card in every hand."""
from __future__ import annotations

import random

import pytest

import envs
from envs.medioevo_universale import cards
from envs.medioevo_universale.cards import BAN_FIGHT

GAMES = [
    (3, 30, {}),
    (4, 31, {"diplomacy_offers": 2}),
    (6, 32, {"teams": "pairs"}),
]
WINDOWS = (cards.W_PURCHASE, cards.W_END, cards.W_EVENT, cards.W_TAX, cards.W_TRADE_TURN, cards.W_MOVE,
           cards.W_ANY_WAR, cards.W_ANY_TRADE)


def templar_reference(e, p: int, cid: int) -> list[int]:
    """Tempelritter 34 / 35 regions written out as in the rule (cards.py ``_templar_regions``), node by node."""
    out = []
    for n in e.land_nodes:
        if not e.playable[n] or e.barb_total[n] or (cid == 34 and e.banned(BAN_FIGHT, n)):
            continue
        if any(e.army[q][n] for q in range(e.num_players) if q != p) or e.controller(n) not in (-1, p):
            continue
        if cid == 34 and (n in e.home_regions[p] or e.controller(n) < 0 and not e.horde_available()):
            continue
        if cid == 35 and n not in e.battle_nodes:
            continue
        out.append(n)
    return out


def check_state(e) -> tuple[int, int]:
    """Compare the check with the listing for every seat and window, as dealt and with every card in hand;
    returns how often a card could be played and how often not."""
    seen = [0, 0]
    every_card = e.clone()
    for q in range(e.num_players):
        every_card.hand[q] = [c for c in range(len(e.cards)) if c not in every_card.rotated[q]]
    for state in (e, every_card):
        for q in range(e.num_players):
            if state.eliminated[q]:
                continue
            windows = WINDOWS + ((cards.W_ANY_BATTLE,) if state.bt is not None else ()) + (
                (cards.W_ANY_PLUNDER,) if state.conquest is not None else ())  # W-ANY of the moment
            for w in windows:
                listed = bool(state._card_play_options(q, w))
                assert state._can_play_card(q, w) == listed, (q, w)
                seen[listed] += 1
            for cid in (34, 35):
                assert list(state._templar_regions(q, cid, cards.W_PURCHASE)) == templar_reference(state, q, cid), (
                    q, cid)
    return seen[1], seen[0]


@pytest.mark.parametrize("num_players,seed,options", GAMES)
def test_card_check_agrees_with_listing(num_players, seed, options):
    env = envs.make("medioevo_universale", num_players=num_players, **options)
    env.reset(seed=seed)
    pick = random.Random(seed)
    playable = unplayable = 0
    for step, agent in enumerate(env.agent_iter(max_iter=20000)):
        _, _, term, trunc, _ = env.last()
        if step % 40 == 0:
            yes, no = check_state(env.engine)
            playable, unplayable = playable + yes, unplayable + no
        if term or trunc:
            env.step(None)
            continue
        legal = env.legal_actions()
        env.step(legal[pick.randrange(len(legal))])
    assert playable and unplayable  # both answers were compared
