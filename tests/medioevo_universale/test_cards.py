"""Empire-card abilities (spec 2.8) in their windows (spec 5.21): scenarios and a fuzz with cards."""
import numpy as np
import pytest

from envs.core import TabletopEnv
from envs.core.errors import IllegalActionError
from envs.medioevo_universale import SPEC
from envs.medioevo_universale.cards import ABILITY_WINDOWS, WarlordStep, ability_params
from envs.medioevo_universale.combat import BattleStep
from envs.medioevo_universale.constants import (
    AR, CASTLE, CIVIL, GREEN, HI, LI, RED, RELIGION_B, VIOLET, Ctrl, Head, Phase, Stage, Stake,
)
from envs.medioevo_universale.data import game_data
from envs.medioevo_universale.trade import Route

from .forced import touched
from .test_encoder_cache import assert_matches_fresh_encoder
from .test_fuzz import check_invariants
from .test_rules import BOARD, DONE, advance_to, buy, menu, new_engine, node

PLAY = (Head.CTRL, Ctrl.PLAY_CARD)
COMP = game_data().comp


def card(card_id):
    return (Head.CARD, card_id - 1)


def deal(e, p, *card_ids):
    """Give seat p exactly these cards (unrotated); every other hand is emptied into the deck."""
    for q in range(e.num_players):
        e.deck[:0] = e.hand[q]
        e.hand[q] = []
        e.rotated[q] = []
    for cid in card_ids:
        e.deck.remove(cid - 1)
        e.hand[p].append(cid - 1)


def give(e, p, *card_ids):
    for cid in card_ids:
        e.deck.remove(cid - 1)
        e.hand[p].append(cid - 1)


def engine_at_purchase():
    e = advance_to(new_engine(diplomacy_offers=0), Phase.PURCHASE)
    for q in range(e.num_players):
        e.deck[:0] = e.hand[q]
        e.hand[q] = []
    return e


def engine_at_tax():
    e = advance_to(new_engine(diplomacy_offers=0), Phase.TAX)
    deal(e, 0)
    return e


def choose_taxes(e):
    while e.phase == Phase.TAX:
        e.play((Head.TAX, 2))


# ------------------------------------------------------------------------------ framework ----
def test_every_window_card_has_parameters_where_it_needs_numbers():
    params = ability_params()
    for cid in (13, 15, 22, 23, 32, 33, 36, 37, 38, 45, 54, 57, 58, 60, 71, 72):
        assert str(cid) in params and cid - 1 in ABILITY_WINDOWS


def test_no_window_without_a_usable_card():
    e = engine_at_tax()
    choose_taxes(e)
    assert e.phase != Phase.CARD_WINDOW and e.stage == Stage.PURCHASES


def test_tax_window_asks_only_the_holder_and_done_resumes():
    e = engine_at_tax()
    holder = e.order[-1]
    give(e, holder, 38)
    choose_taxes(e)
    assert e.phase == Phase.CARD_WINDOW and e.actor == holder and e.stage == Stage.TAXES
    assert set(e.legal_moves()) == {DONE, PLAY}
    e.play(DONE)
    assert e.stage == Stage.PURCHASES and e.rotated[holder] == []


def test_illegal_card_move_raises_and_changes_nothing():
    e = engine_at_tax()
    give(e, 0, 38)
    choose_taxes(e)
    before = (list(e.money), e.prefix, e.phase, [list(r) for r in e.rotated])
    with pytest.raises(IllegalActionError):
        e.play(card(37))
    assert (list(e.money), e.prefix, e.phase, [list(r) for r in e.rotated]) == before


# ----------------------------------------------------------------------- W-TAX: 37, 38 ----
def test_magnat_38_pays_50_less_interest_and_37_collects_half_of_the_others():
    e = engine_at_tax()
    a, b = 0, 1
    give(e, a, 38)
    give(e, b, 37)
    e.loans[a] = 2  # 100 fl interest
    e.loans[b] = 0
    choose_taxes(e)
    assert e.phase == Phase.CARD_WINDOW
    upkeep_a, money_a = e.upkeep(a), e.money[a]
    upkeep_b, money_b = e.upkeep(b), e.money[b]
    while e.phase == Phase.CARD_WINDOW:
        p = e.actor
        buy(e, PLAY, card(38 if p == a else 37))
        assert e.actor != p or e.phase != Phase.CARD_WINDOW  # nothing left to play: the window moves on
    # a pays 100 - 50 = 50 interest, half of it (25) goes to b
    assert e.money[a] == money_a - upkeep_a - 50
    assert e.money[b] == money_b - upkeep_b + 25
    assert e.rotated[a] == [37] and e.rotated[b] == [36]


# ---------------------------------------------------------------- W-PURCHASE: 32, 33 ----
@pytest.mark.parametrize("cid, paid", [(32, 300 - 50), (33, 300 - 150)])
def test_architekt_discount_on_one_building(cid, paid):
    e = engine_at_purchase()
    p = 0
    prag = node("Prag")
    give(e, p, cid)
    e.tech[p][4] = 3
    e.money[p] = 1000
    e.tp[p][GREEN] = 3
    menu(e, p)
    buy(e, PLAY, card(cid), (Head.BUILD, CASTLE), (Head.NODE, prag))
    assert e.mil[prag] == 3 and e.money[p] == 1000 - paid and e.tp[p][GREEN] == 0
    assert cid - 1 in e.rotated[p]


# ---------------------------------------------------------------- W-PURCHASE: 69, 70 ----
def test_verwalter_69_upgrades_civil_below_a_higher_military_building():
    e = engine_at_purchase()
    p = 0
    prag = node("Prag")
    give(e, p, 69)
    e.civil[prag], e.civil_owner[prag] = 1, p  # village
    e.mil[prag], e.mil_owner[prag] = 2, p  # fortress
    money = e.money[p]
    menu(e, p)
    buy(e, PLAY, card(69), (Head.NODE, prag))
    assert e.civil[prag] == 2 and e.money[p] == money  # village -> town, free
    # a town next to a fortress cannot become a city (it needs a castle)
    e.rotated[p] = []
    menu(e, p)
    assert PLAY not in e.legal_moves()


def test_verwalter_70_upgrades_military_and_places_markers():
    e = engine_at_purchase()
    p = 0
    prag = node("Prag")
    give(e, p, 70)
    e.civil[prag], e.civil_owner[prag] = 3, p
    e.mil[prag], e.mil_owner[prag] = 2, p
    menu(e, p)
    ep = e.ep[p]
    buy(e, PLAY, card(70), (Head.NODE, prag))
    assert e.mil[prag] == 3 and e.ep[p] == ep + 1  # fortress -> castle, +1 EP (G12)
    assert e.phase in (Phase.PLACE_MARKER, Phase.PURCHASE)


# -------------------------------------------------------- W-PURCHASE: 57, 58, 71, 72 ----
def test_pirat_tp_and_mystiker_turns_tp_into_money():
    e = engine_at_purchase()
    p = 0
    give(e, p, 57, 58, 71)
    menu(e, p)
    buy(e, PLAY, card(57), (Head.COLOUR, RED), (Head.COLOUR, VIOLET))
    buy(e, PLAY, card(58), (Head.COLOUR, GREEN))
    assert e.tp[p] == [0, 0, 0, 1, 2, 1]
    money = e.money[p]
    buy(e, PLAY, card(71))
    assert e.phase == Phase.CARD_FOLLOW
    buy(e, (Head.COLOUR, GREEN))
    buy(e, (Head.COLOUR, GREEN))
    buy(e, DONE)
    assert e.money[p] == money + 2 * ability_params()["71"]["fl_per_tp"]
    assert e.tp[p] == [0, 0, 0, 1, 0, 1] and e.phase == Phase.PURCHASE


def test_mystiker_72_needs_four_colours_per_set():
    e = engine_at_purchase()
    p = 0
    give(e, p, 72)
    e.tp[p] = [1, 1, 1, 0, 0, 0]
    menu(e, p)
    assert PLAY not in e.legal_moves()
    e.tp[p] = [1, 1, 1, 2, 0, 0]
    menu(e, p)
    money = e.money[p]
    buy(e, PLAY, card(72))
    buy(e, (Head.COLOUR, 0), (Head.COLOUR, 1), (Head.COLOUR, 2), (Head.COLOUR, 3))
    assert e.money[p] == money + 100 and e.tp[p] == [0, 0, 0, 1, 0, 0]
    assert e.phase == Phase.PURCHASE  # no second set possible: the follow-up closed by itself


# -------------------------------------------------------------------- W-ANY: 36, 44, 59, 60 ----
def test_magnat_36_alternates_deposit_and_payout():
    e = engine_at_purchase()
    p = 0
    give(e, p, 36)
    e.money[p] = 1000
    menu(e, p)
    buy(e, PLAY, card(36))
    assert e.money[p] == 700 and e.card_money[35] == 300
    menu(e, p)
    assert PLAY not in e.legal_moves()  # used this round
    e.rotated[p] = []
    menu(e, p)
    buy(e, PLAY, card(36))
    assert e.money[p] == 700 + 300 + 150 and 35 not in e.card_money


def test_barde_uses_a_used_card_of_another_player():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 45)
    give(e, q, 58)
    e.rotated[q] = [57]  # q used the Pirate this round
    money = e.money[p]
    menu(e, p)
    buy(e, PLAY, card(45), card(58), (Head.COLOUR, RED))
    assert e.tp[p][RED] == 2 and e.money[p] == money - 50
    assert e.rotated[p] == [44] and e.rotated[q] == [57]


def test_prinzessin_59_ability_and_tp_of_another_card():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 59)
    give(e, q, 57)  # TP of card 57 (placeholder data) plus its ability
    alts = e.cards[56].tp
    menu(e, p)
    opts = [o for o in e.tree if o[:3] == (PLAY, card(59), card(57))]
    assert opts
    buy(e, *opts[0])
    card_tp = len(alts[0]) if len(alts) == 1 else (1 if alts else 0)
    assert sum(e.tp[p]) == 2 + card_tp
    assert e.rotated[q] == []


def test_prinzessin_60_doubles_the_tp_of_an_own_card():
    e = engine_at_purchase()
    p = 0
    give(e, p, 60, 10)  # card 10 gives 1 green (KNOWN)
    menu(e, p)
    buy(e, PLAY, card(60), card(10))
    assert e.tp[p][GREEN] == 2 and set(e.rotated[p]) == {59, 9}


# ----------------------------------------------------------------------- W-END: 13 ----
def test_intrigant_13_keeps_cards_rotated_through_the_next_phase_7():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 13)
    give(e, q, 5, 7)
    e.rotated[q] = [4, 6]
    e.money[p] = 1000
    e.rng = np.random.default_rng(5)
    e.round = 2  # not the last round
    e._end_round()
    assert e.phase == Phase.CARD_WINDOW and e.actor == p
    buy(e, PLAY, card(13))
    assert e.money[p] == 900 and e.phase == Phase.CARD_FOLLOW
    e.play(card(5))
    if e.phase == Phase.CARD_FOLLOW:
        e.play(DONE)
    if e.phase == Phase.CARD_WINDOW:
        e.play(DONE)
    assert e.round == 3 and e.rotated[q] == [4] and e.rotated[p] == []
    e.rotated[q] = [4]
    e.hand[p] = []  # no window this time
    e.cw_done.pop("end")
    e._end_round()
    assert e.rotated[q] == []


# ------------------------------------------------------------------ Bishops 1-3 ----
def test_bischof_bans_trade_and_movement_for_the_round_not_twice_in_a_row():
    e = engine_at_purchase()
    p = 0
    give(e, p, 2, 3)
    prag, wien = node("Prag"), node("Franken")
    menu(e, p)
    buy(e, PLAY, card(2), (Head.NODE, prag))
    buy(e, PLAY, card(3), (Head.NODE, wien))
    assert e.banned(1, prag) and e.banned(2, wien)
    assert not e._trade_here_ok(p, prag)
    assert e._step_banned(p, wien, node("Aachen"), False)  # nobody leaves
    assert e._step_banned(p, node("Schwaben"), wien, True)  # nobody enters
    assert not e._step_banned(p, node("Schwaben"), node("Aachen"), False)
    e.round += 1
    e.rotated[p] = []
    menu(e, p)
    targets = {o[2] for o in e.tree if o[:2] == (PLAY, card(3))}
    assert (Head.NODE, wien) not in targets and (Head.NODE, prag) in targets


# --------------------------------------------------------- Templar 34, 35; Intrigant 15 ----
def test_tempelritter_34_fights_the_barbarian_resistance_at_once():
    e = engine_at_purchase()
    p = 0
    give(e, p, 34)
    menu(e, p)
    targets = sorted({o[3][1] for o in e.tree if o[:2] == (PLAY, card(34))})
    assert targets and not set(targets) & set(e.home_regions[p])
    nobody = next(n for n in targets if e.controller(n) < 0)
    buy(e, PLAY, card(34), (Head.UNIT, HI), (Head.NODE, nobody))
    assert nobody in e.battle_nodes  # the battle against the resistance started at once
    while e.stage == Stage.PURCHASES and e.phase != Phase.PURCHASE:
        e.play(e.legal_moves()[0])
    assert e.phase == Phase.PURCHASE and e.actor == p and e.bt is None


def test_tempelritter_35_only_where_a_battle_was_fought():
    e = engine_at_purchase()
    p = 0
    give(e, p, 35)
    menu(e, p)
    assert PLAY not in e.legal_moves()
    place = next(n for n in e.home_regions[p] if e.controller(n) == p)
    e.battle_nodes.add(place)
    menu(e, p)
    buy(e, PLAY, card(35), (Head.UNIT, LI), (Head.NODE, place))
    assert e.units[p][place * 7 + LI] >= 1


def test_intrigant_15_places_the_horde_near_own_land_and_fights():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 15)
    e.horde = [2, 1, 0]
    target = next(n for n in e.land_nodes if e.army[q][n] and e.playable[n])
    e.money[p] = 1000
    menu(e, p)
    nodes = {o[2][1] for o in e.tree if o[:2] == (PLAY, card(15))}
    assert target in nodes and all(
        any(BOARD.dist[m][n] <= 3 for m in e.controlled_regions(p)) for n in nodes)
    buy(e, PLAY, card(15), (Head.NODE, target))
    assert e.money[p] == 900 and target in e.battle_nodes
    while e.phase != Phase.PURCHASE:
        e.play(e.legal_moves()[0])
    assert e.actor == p and e.bt is None


# --------------------------------------------------------------- W-EVENT: 42, 43, 62 ----
def engine_at_event_choice(*cards_of_start_player):
    e = new_engine(diplomacy_offers=0)
    e = advance_to(e, Phase.PURCHASE)
    deal(e, e.order[0], *cards_of_start_player)
    e.round = 2
    e.stage = Stage.EVENTS
    e._start_event_card()
    return e


def test_pestarzt_43_protects_a_region_from_the_event():
    e = engine_at_event_choice(43)
    assert e.phase == Phase.CARD_WINDOW
    region = min(e.data.events[e.event_card].regions & set(e.land_nodes) & {n for n in e.land_nodes if e.playable[n]})
    buy(e, PLAY, card(43), (Head.NODE, region))
    assert e.phase == Phase.EVENT_CHOICE and region not in e._event_area()[0]


def test_weiser_62_redraws_the_event_card():
    e = engine_at_event_choice(62)
    first = e.event_card
    buy(e, PLAY, card(62))
    assert e.event_card != first and first in e.event_discard and e.event_card in e.event_discard
    assert e.phase == Phase.EVENT_CHOICE


# -------------------------------------------------------------------- W-TRADE: 22, 23 ----
def test_steuereintreiber_collects_per_cube_on_foreign_vehicles_in_own_regions():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 23)
    prag = node("Prag")
    oid = e._new_object(q, 0, 1, prag)  # a caravan of q in p's region
    e.goods[oid] = [2, 1, 0, 0, 0, 0, 0, 0]
    assert e._cubes_in_controlled(p) == 3
    e.stage = Stage.TRADE
    e.actor = p
    e.phase = Phase.TRADE_TURN
    assert PLAY in e.legal_moves()
    money = e.money[p]
    e.play(PLAY)
    buy(e, PLAY, card(23))  # nothing else to play: the window closes by itself
    assert e.money[p] == money + 60 and e.phase == Phase.TRADE_TURN and e.actor == p
    assert PLAY not in e.legal_moves()


# ------------------------------------------------------------------------ Missionare ----
def test_missionare_uses_a_neighbours_card_for_a_violet_tp():
    e = engine_at_purchase()
    p, q = 0, 1  # HRE and HUN are neighbours
    give(e, q, 58)
    e.tech[p][RELIGION_B] = 3
    money = e.money[p]
    menu(e, p)
    buy(e, PLAY, card(58), (Head.COLOUR, RED))
    assert e.tp[p][RED] == 2 and e.money[p] == money - 100  # the violet TP bought at 100 fl
    assert e.rotated[q] == [] and 57 in e.missionary_used[p]
    menu(e, p)
    assert not any(o[:2] == (PLAY, card(58)) for o in e.tree)  # once per card and round


# ----------------------------------------------------------------------------- fuzz ----
def test_random_play_with_many_cards_keeps_the_invariants():
    """Every seat starts with 8 extra cards with abilities, so random play exercises the windows;
    the package invariants hold after every step and the observation stays in [0, 1]."""
    env = TabletopEnv(SPEC, num_players=4, num_rounds=8, max_turns=100_000, diplomacy_offers=0)
    played = [0] * 72
    with_ability = sorted(ABILITY_WINDOWS)
    for g in range(3):
        env.reset(seed=300 + g)
        e = env.engine
        rng = np.random.default_rng(g)
        extra = [c for c in rng.permutation(with_ability).tolist() if c in e.deck][:8 * e.num_players]
        for i, c in enumerate(extra):
            e.deck.remove(c)
            e.hand[i % e.num_players].append(c)
        steps = 0
        while not e.is_over:
            legal = env.legal_actions()
            assert len(legal), f"seed {300 + g}: empty mask"
            env.step(int(legal[rng.integers(len(legal))]))
            check_invariants(env)
            steps += 1
            if steps % 50 == 0:
                obs = env.encoder.encode(e, e.current_player if e.current_player >= 0 else 0)
                assert obs.min() >= 0 and obs.max() <= 1
            assert steps < 100_000
        assert e.round == 8
        played = [a + b for a, b in zip(played, e.cards_played)]
    assert sum(1 for x in played if x) >= 15, played


# ------------------------------------------------------------------- battle windows ----
def battle_engine(holder, *card_ids):
    from .test_war import war_engine
    e = war_engine()
    deal(e, holder, *card_ids)
    return e


def test_attentaeter_47_makes_5_4_2_a_critical_16():
    """Spec 2.8 card 47: 5, 4, 2 changed into 4, 4, 2 for a critical attack of 16."""
    from .test_war import fight, play, put
    e = battle_engine(0, 47)
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [4, 5, 2, 1, 2, 3])  # d4 d6 d8 of the attacker, then of the defender
    play(e, (Head.DICE, 0), (Head.DICE, 0))  # both keep their dice
    assert e.phase == Phase.CARD_WINDOW and e.actor == 0 and e.bt.av[0] == 5
    d6 = (Head.DICE, 2)
    assert (PLAY, card(47), (Head.SIDE, 0), d6, d6) in e.tree  # up to 2 off
    buy(e, PLAY, card(47), (Head.SIDE, 0), d6, DONE)
    assert e.bt.dice[0] == [4, 4, 2] and e.bt.av[0] == 16 and e.bt.winner == 0


def test_attentaeter_46_lowers_an_opponents_die_and_its_loss_value():
    from .test_war import fight, play, put
    e = battle_engine(0, 46)
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [1, 1, 1, 4, 6, 3])
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    assert (PLAY, card(46), (Head.SIDE, 0), (Head.DICE, 1)) not in e.tree  # a 1 cannot drop further
    av1 = e.bt.av[1]
    buy(e, PLAY, card(46), (Head.SIDE, 1), (Head.DICE, 4))  # the defender's d8: 3 -> 2
    assert e.bt.dice[1] == [4, 6, 2] and e.bt.av[1] == av1 and e.bt.lv[1] == 2


def test_kriegsfuerst_5_adds_2_before_the_capture_halving():
    """Spec 5.14 example: Blue attacks to capture with only 2:1, rolls 7/1, +2 (card 5) = 9, halved 5."""
    from .test_war import fight, play, put
    e = battle_engine(0, 5)
    put(e, 0, "Prag", HI=4)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [1, 3, 7, 2, 3, 3], captures=True)
    play(e, (Head.CTRL, Ctrl.CAPTURE), DONE, captures=True)  # Blue declares, the defender does not
    play(e, (Head.DICE, 0), (Head.DICE, 0), captures=True)
    assert e.bt.av[0] == 4  # 7 halved
    buy(e, PLAY, card(5), (Head.SIDE, 0))
    assert e.bt.av[0] == 5


def test_armbrustschuetze_8_five_archers_lower_every_roll_by_2():
    """Spec 2.8 card 8: 5 archers -> each of the 5 hit rolls is lowered by 2 (hits are 1-3)."""
    from .test_war import fight, put
    e = battle_engine(0, 8)
    put(e, 0, "Prag", AR=5)
    put(e, 1, "Prag", HI=3)
    fight(e, "Prag", 0, 1, [5, 5, 5, 6, 1, 1, 1, 1, 1, 1, 1])
    assert e.phase == Phase.CARD_WINDOW and e.actor == 0  # before step 1 of the battle round
    buy(e, PLAY, card(8))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    assert e.bt.last_archer_hits == [4, 0]  # 5-2, 5-2, 5-2, 1-2 hit; 6-2 misses


def test_armbrustschuetze_9_rerolls_the_misses_once():
    from .test_war import fight, put
    e = battle_engine(0, 9)
    put(e, 0, "Prag", AR=2)
    put(e, 1, "Prag", HI=3)
    fight(e, "Prag", 0, 1, [8, 2, 7, 7, 1, 1, 1, 1, 1, 1])
    buy(e, PLAY, card(9))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    assert e.bt.last_archer_hits == [1, 0]  # 8 -> 2 hits; 7 -> 7 misses


def test_heldin_67_gives_an_army_without_captain_a_level_i_captain():
    from .test_war import fight, put
    e = battle_engine(1, 67)
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [1] * 12)
    assert e.phase == Phase.CARD_WINDOW and e.actor == 1
    buy(e, PLAY, card(67), (Head.SIDE, 1))
    assert e.captain_levels(1) == 1 and e.captain_levels(0) == 0


def test_kriegsfuerst_4_lets_the_larger_archer_group_fire():
    """Spec 2.8 card 4 example: Blue 3 archers, Red 1: with the card Blue may still fire."""
    from .test_war import fight, put
    e = battle_engine(0, 4)
    put(e, 0, "Prag", AR=3)
    put(e, 1, "Prag", AR=1, HI=2)
    fight(e, "Prag", 0, 1, [1, 1, 1] + [1] * 12)
    buy(e, PLAY, card(4))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    assert e.bt.active[0][2] and not e.bt.active[1][2]
    assert e.bt.last_archer_hits == [3, 0]


# ------------------------------------------------------------ W-TRADE: 19, 20, 21, 63, 64 ----
def trade_turn(e, p, where, goods):
    oid = e._new_object(p, 0, 2, where)  # a caravan II (capacity 6 on the placeholder data)
    e.goods[oid] = list(goods)
    for g, k in enumerate(goods):
        e.goods_supply[g] -= k
    e.stage = Stage.TRADE
    e.actor = p
    e.phase = Phase.TRADE_TURN
    return e.slots[p].index(oid), oid


def test_kaufmann_19_sells_one_cube_in_a_barbarian_region_by_its_colour_count():
    e = engine_at_purchase()
    p = 0
    give(e, p, 19)
    where = next(n for n in e.land_nodes if BOARD.barbarian_symbol[n] and e.playable[n])
    for k in range(3):  # the barbarians there are gone
        e.barb_supply[k] += e.barb[where * 3 + k]
        e._add_barb(where, k, -e.barb[where * 3 + k])
    slot, oid = trade_turn(e, p, where, [1, 1, 1, 2, 0, 0, 0, 0])  # 4 colours
    money = e.money[p]
    e.play(PLAY)
    buy(e, PLAY, card(19), (Head.OBJECT, slot), (Head.GOOD, 3))
    assert e.money[p] == money + 300 and e.goods[oid] == [1, 1, 1, 1, 0, 0, 0, 0]


def test_kaufmann_20_sells_any_cubes_at_50_where_the_seller_has_no_control():
    e = engine_at_purchase()
    p = 0
    give(e, p, 20)
    where = node("Buda")  # Hungarian
    slot, oid = trade_turn(e, p, where, [2, 0, 0, 0, 0, 0, 0, 1])
    money = e.money[p]
    e.play(PLAY)
    buy(e, PLAY, card(20))
    assert e.phase == Phase.CARD_FOLLOW
    buy(e, (Head.OBJECT, slot), (Head.GOOD, 0))
    buy(e, (Head.OBJECT, slot), (Head.GOOD, 7))
    buy(e, DONE)
    assert e.money[p] == money + 100 and e.goods[oid] == [1, 0, 0, 0, 0, 0, 0, 0]
    assert e.phase == Phase.TRADE_TURN


def test_kaufmann_21_buys_any_good_for_150():
    e = engine_at_purchase()
    p = 0
    give(e, p, 21)
    slot, oid = trade_turn(e, p, node("Prag"), [0] * 8)
    money = e.money[p]
    e.play(PLAY)
    buy(e, PLAY, card(21), (Head.OBJECT, slot), (Head.GOOD, 5))
    assert e.money[p] == money - 150 and e.goods[oid][5] == 1


def test_kameltreiber_63_moves_a_market_cube_to_a_region_without_that_good():
    e = engine_at_purchase()
    p = 0
    give(e, p, 63)
    prag = node("Prag")
    g = next(k for k in range(8) if k not in e._present(prag))
    e.cubes[prag][g] += 1
    e.goods_supply[g] -= 1
    trade_turn(e, p, prag, [0] * 8)
    e.play(PLAY)
    dests = {o[4][1] for o in e.tree if o[:4] == (PLAY, card(63), (Head.NODE, prag), (Head.GOOD, g))}
    assert dests and all(BOARD.dist[prag][b] <= 3 and g not in e._present(b) for b in dests)
    b = min(dests)
    buy(e, PLAY, card(63), (Head.NODE, prag), (Head.GOOD, g), (Head.NODE, b))
    assert e.cubes[prag][g] == 0 and e.cubes[b][g] == 1


def test_kameltreiber_64_needs_a_route_and_keeps_the_market_bonus():
    e = engine_at_purchase()
    p = 0
    give(e, p, 64)
    slot, oid = trade_turn(e, p, node("Prag"), [1] + [0] * 7)
    assert PLAY not in e.legal_moves()  # no trade route in progress
    e.route[p] = Route(oid, [node("Franken")], [False], 1, node("Prag"), "land")
    e.play(PLAY)
    buy(e, PLAY, card(64))
    assert e.route_keeps_market_bonus(p) and not e.route_keeps_market_bonus(1)


def test_weiser_61_draws_three_and_keeps_one():
    e = engine_at_event_choice(61)
    first = e.event_card
    buy(e, PLAY, card(61))
    assert e.phase == Phase.CARD_FOLLOW and len(e.card_ctx.events) == 3
    drawn = list(e.card_ctx.events)
    env_obs = new_encoder_view(e, e.actor)
    assert env_obs.any()
    buy(e, (Head.EVENT, 2))
    assert e.event_card == drawn[2] and e.phase == Phase.EVENT_CHOICE
    assert first in e.event_discard and all(d in e.event_discard for d in drawn)


def new_encoder_view(e, seat):
    from envs.medioevo_universale.observation import MedioevoEncoder
    enc = MedioevoEncoder(e.config, e.num_players)
    return enc.encode(e, seat)[enc.layout.slices["my_card_choice"]]


# ----------------------------------------------------------------------- W-REACT: 48, 49 ----
def test_narr_48_cancels_an_activation_right_after_it():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 58)
    give(e, q, 48)
    money_q = e.money[q]
    menu(e, p)
    buy(e, PLAY, card(58), (Head.COLOUR, RED))
    assert e.phase == Phase.CARD_WINDOW and e.actor == q  # the Narr holder reacts first
    buy(e, PLAY, card(48))
    assert e.money[q] == money_q - 50 and e.tp[p][RED] == 0 and 57 in e.rotated[p]
    assert e.phase == Phase.PURCHASE and e.actor == p


def test_narr_49_declined_lets_the_effect_happen():
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, p, 58)
    give(e, q, 49)
    menu(e, p)
    buy(e, PLAY, card(58), (Head.COLOUR, RED))
    assert e.phase == Phase.CARD_WINDOW and e.actor == q
    e.play(DONE)
    assert e.tp[p][RED] == 2 and e.phase == Phase.PURCHASE and e.rotated[q] == []


def test_chirurg_27_ignores_the_first_damage_point():
    from .test_war import fight, play, put
    e = battle_engine(1, 27)
    put(e, 0, "Prag", HI=3, LI=1)
    put(e, 1, "Prag", LI=5)
    fight(e, "Prag", 0, 1, [4, 6, 8, 1, 1, 1] + [1] * 12)
    assert e.phase == Phase.CARD_WINDOW and e.actor == 1
    buy(e, PLAY, card(27))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    # 8 - 1 = 7, capped by 4 melee units: 4 points, the first ignored (the loss values come next)
    assert e.units[1][node("Prag") * 7 + LI] == 5 - 3 and e.phase == Phase.DAMAGE and e.actor == 0


def test_intrigant_14_an_enemy_unit_defects_before_the_first_roll():
    from .test_war import fight, put
    e = battle_engine(0, 14)
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=1, AR=2)
    money = e.money[0]
    fight(e, "Prag", 0, 1, [1] * 12)
    buy(e, PLAY, card(14), (Head.UNIT, AR))
    prag = node("Prag") * 7
    assert e.units[0][prag + AR] == 1 and e.units[1][prag + AR] == 1 and e.money[0] == money - 100


@pytest.mark.parametrize("roll, enemy_li, own_hi", [(3, 1, 2), (5, 2, 2), (8, 2, 1)])
def test_spion_17_success_nothing_or_failure(roll, enemy_li, own_hi):
    from .test_war import ScriptedRng, fight, put
    e = battle_engine(0, 17)
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", LI=2)
    fight(e, "Prag", 0, 1, [])
    e.rng = ScriptedRng([roll] + [1] * 12)
    buy(e, PLAY, card(17), (Head.UNIT, LI))
    prag = node("Prag") * 7
    assert e.units[1][prag + LI] == enemy_li and e.units[0][prag + HI] == own_hi


def test_wissenschaftler_12_protects_against_a_second_kind():
    from .test_war import fight, put
    e = battle_engine(1, 12)
    prag = node("Prag")
    e.mil[prag], e.mil_owner[prag] = 2, 1
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [1] * 12)
    buy(e, PLAY, card(12), (Head.PROTECT, 1))  # archers
    assert e._protected(1, 1, 3) == 3 - COMP.building_protection[2 + 2]
    assert e._protected(0, 1, 3) == 3


def test_spion_18_a_neutralised_unit_sits_the_round_out_but_stays():
    from .test_war import ScriptedRng, fight, put
    e = battle_engine(0, 18)
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", LI=1, HI=1)
    fight(e, "Prag", 0, 1, [])
    e.rng = ScriptedRng([2] + [1] * 12)
    buy(e, PLAY, card(18), (Head.UNIT, HI))
    assert e.fighting_units(1)[HI] == 0 and e.side_units(1)[HI] == 1


def test_diplomat_51_an_object_survives_a_barbarian_raid():
    e = engine_at_purchase()
    p = 0
    give(e, p, 51)
    prag = node("Prag")
    kept = e._new_object(p, 0, 1, prag)
    lost = e._new_object(p, 0, 1, prag)
    menu(e, p)
    buy(e, PLAY, card(51), (Head.OBJECT, e.slots[p].index(kept)))
    e._barbarian_raid(prag)
    assert kept in e.objs and lost not in e.objs
    e.round += 1
    assert not e.plunder_protected(kept)


def test_kerkermeister_39_takes_the_first_killed_enemy_unit_prisoner():
    from .test_war import fight, play, put
    e = battle_engine(0, 39)
    put(e, 0, "Prag", HI=3, LI=1)
    put(e, 1, "Prag", LI=5)
    fight(e, "Prag", 0, 1, [4, 6, 8, 1, 1, 1] + [1] * 12)
    buy(e, PLAY, card(39))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    assert e.prisoners[0][1][LI] == 1  # one of the 4 LI killed by the combat result
    assert e.units[1][node("Prag") * 7 + LI] == 1


def test_missionare_tp_is_not_counted_twice():
    """The violet TP the Missionare use takes from the pool cannot also pay the borrowed ability."""
    e = engine_at_purchase()
    p, q = 0, 1
    give(e, q, 33)  # Architekt: 50 % off
    e.tech[p][RELIGION_B] = 3
    e.tp[p][VIOLET] = 1
    prag = node("Prag")
    cathedral = (PLAY, card(33), (Head.BUILD, 6), (Head.NODE, prag))  # 300 -> 150 fl + 1 violet TP
    e.money[p] = 200
    menu(e, p)
    assert cathedral not in e.tree  # 150 fl + the second violet TP at 100 fl > 200
    e.money[p] = 250
    menu(e, p)
    assert cathedral in e.tree
    buy(e, *cathedral)
    assert e.money[p] == 0 and e.cath_owner[prag] == p and e.tp[p][VIOLET] == 0


def test_miliz_24_a_free_unit_joins_the_defence_before_the_first_battle_round():
    from .test_war import ScriptedRng, put
    e = battle_engine(1, 24)
    n = put(e, 1, "Pressburg", HI=1)
    put(e, 0, "Pressburg", HI=2)  # the attacker has just entered
    e.stage = Stage.WAR
    e.carrier, e.foot_node, e.foot_cargo, e.move_steps = -1, n, [0] * 7, 1
    e.actor = e.mover = 0
    e.rng = ScriptedRng([1] * 12)
    e._invaded(n, 0, 1)
    assert e.phase == Phase.CARD_WINDOW and e.actor == 1 and e.bt.round == 1
    buy(e, PLAY, card(24), (Head.UNIT, AR))
    assert e.units[1][n * 7 + AR] == 1 and e.bt.owners == [0, 1]
    e.bt.round = 2  # only before the first battle round
    assert not e._card_subs(1, 23, "invade", 0)


def test_miliz_26_the_region_counts_as_having_a_tower():
    from .test_war import ScriptedRng, put
    e = battle_engine(1, 26)
    n = put(e, 1, "Pressburg", HI=1)
    put(e, 0, "Pressburg", HI=2)
    e.stage = Stage.WAR
    e.carrier, e.foot_node, e.foot_cargo, e.move_steps = -1, n, [0] * 7, 1
    e.actor = e.mover = 0
    e.rng = ScriptedRng([1] * 12)
    e._invaded(n, 0, 1)
    buy(e, PLAY, card(26))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    assert e.phase == Phase.PROTECT_CHOICE and e.actor == 1  # the virtual tower protects
    assert e.battle_military_level(1) == 1 and e.battle_military_level(0) == 0


def test_armbrustschuetze_7_gives_1d3_units_an_archer_shot():
    from .test_war import ScriptedRng, fight, put
    e = battle_engine(0, 7)
    put(e, 0, "Prag", HI=2, AR=1)
    put(e, 1, "Prag", HI=3)
    fight(e, "Prag", 0, 1, [])
    e.rng = ScriptedRng([6, 1, 1, 1] + [1] * 12)  # 1d3 = 3; three archer rolls of 1
    buy(e, PLAY, card(7))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    assert e.bt.last_archer_hits == [3, 0]  # 1 archer + 2 more (3 units in all, not 4)


def test_chirurg_29_archer_hits_wait_until_the_end_of_the_battle_round():
    from .test_war import ScriptedRng, fight, put
    e = battle_engine(1, 29)
    put(e, 0, "Prag", AR=2, HI=1)
    put(e, 1, "Prag", LI=3)
    fight(e, "Prag", 0, 1, [])
    e.rng = ScriptedRng([1, 1] + [1, 1, 1, 4, 6, 8] + [1] * 6)
    buy(e, PLAY, card(29))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    prag = node("Prag") * 7
    assert e.bt.last_archer_hits == [2, 0] and e.units[1][prag + LI] == 3  # still in melee
    tasks = e.bt.tasks
    assert tasks.index((BattleStep.DAMAGE, 1, 2, False)) == tasks.index((BattleStep.END_ROUND,)) - 1  # at the end


def test_kanonier_53_an_escorting_engine_follows_without_paying_mp():
    """Spec 2.8 card 53: the catapult with 1 MP left follows the war wagon two regions."""
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import SIEGE, WAR_WAGON
    e = war_engine()
    deal(e, 0, 53)
    aachen, franken, prag = node("Aachen"), node("Franken"), node("Prag")
    e._new_object(0, WAR_WAGON, 1, aachen)
    e._new_object(0, SIEGE, 1, aachen)
    e._add_units(0, aachen, HI, 1)
    e.objs[e.slots[0][1]][4] = 1
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI))
    assert PLAY not in e.legal_moves()  # no engine accompanies the group yet
    play(e, (Head.EMBARK, 1), PLAY)
    buy(e, PLAY, card(53), (Head.OBJECT, 1))
    assert e.phase == Phase.MOVE
    play(e, (Head.NODE, franken), (Head.NODE, prag), DONE)
    catapult = e.objs[e.slots[0][1]]
    assert catapult[3] == prag and catapult[4] == 1


def test_kerkermeister_40_and_41_soften_the_capture_rules():
    from .test_war import fight, put
    e = battle_engine(0, 40, 41)
    put(e, 0, "Prag", HI=4)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [1] * 12)
    assert e._capture_ratio(0) == 3 and e._capture_penalty(0, 9) == 5
    buy(e, PLAY, card(40))
    buy(e, PLAY, card(41))
    assert e._capture_ratio(0) == 2 and e._capture_penalty(0, 9) == 7 and e._capture_penalty(0, 1) == 0
    assert e._capture_ratio(1) == 3  # only the user's side


def test_wissenschaftler_10_and_kanonier_52_add_siege_shots():
    from envs.medioevo_universale.constants import SIEGE
    from .test_war import fight, put
    e = battle_engine(0, 10, 52)
    prag = node("Prag")
    engine = e._new_object(0, SIEGE, 1, prag)
    put(e, 0, "Prag", HI=3)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [1] * 30)
    assert e._siege_shots(0, engine, 2) == 2
    buy(e, PLAY, card(10))
    buy(e, PLAY, card(52), (Head.OBJECT, e.slots[0].index(engine)))
    assert e._siege_shots(0, engine, 2) == 2 * 2 + 1 and e._siege_shots(0, engine, 0) == 1


def test_spion_16_a_hit_siege_engine_loses_a_level():
    from envs.medioevo_universale.constants import SIEGE
    from .test_war import ScriptedRng, fight, put
    e = battle_engine(0, 16)
    prag = node("Prag")
    engine = e._new_object(1, SIEGE, 2, prag)
    e.siege_supply[1] -= 1
    put(e, 0, "Prag", HI=2)
    put(e, 1, "Prag", HI=2)
    fight(e, "Prag", 0, 1, [])
    e.rng = ScriptedRng([2] + [1] * 12)
    before = list(e.siege_supply)
    buy(e, PLAY, card(16), (Head.OBJECT, e.slots[1].index(engine)))
    assert e.objs[engine][2] == 1 and e.siege_supply == [before[0] - 1, before[1] + 1, before[2]]


def test_chirurg_28_lost_units_are_bought_back_at_half_price_next_round():
    from .test_war import fight, play, put
    e = battle_engine(1, 28)
    put(e, 0, "Prag", HI=3, LI=1)
    put(e, 1, "Prag", LI=5)
    fight(e, "Prag", 0, 1, [4, 6, 8, 1, 1, 1] + [1] * 12)
    buy(e, PLAY, card(28))
    while e.phase == Phase.CAPTURE_DECLARE:
        e.play(DONE)
    play(e, (Head.DICE, 0), (Head.DICE, 0))
    assert e.buyback[1][LI] == 4 and e.buyback_round[1] == e.round + 1  # the 4 LI of the combat result
    e.round += 1
    e.stage = Stage.PURCHASES
    e.bt = None
    e.units_bought[1] = 0
    money = e.money[1]
    menu(e, 1)
    place = next(n for n in e.land_nodes if e.unit_place_ok(1, n))
    buy(e, PLAY, card(28), (Head.UNIT, LI), (Head.NODE, place))
    assert e.money[1] == money - COMP.unit_cost[LI] // 2 and e.buyback[1][LI] == 3
    e.round += 1
    menu(e, 1)
    assert PLAY not in e.legal_moves()  # only in the next round's phase 4


def test_verkaeufer_30_keeps_the_route_of_a_lost_vehicle_for_another_vehicle():
    e = engine_at_purchase()
    p = 0
    give(e, p, 30)
    slot, oid = trade_turn(e, p, node("Prag"), [0] * 8)
    other = e._new_object(p, 0, 1, node("Aachen"))
    e.goods[other] = [0] * 8
    stages = [node("Franken"), node("Schwaben"), node("Mailand"), node("Genua")]
    e.route[p] = Route(oid, stages, [True, False, False, False], 1, node("Prag"), "land")
    e.play(PLAY)
    buy(e, PLAY, card(30))
    e._remove_object(oid)  # the vehicle is lost
    assert e.route_of(p) is not None and e.route[p].vehicle == -1
    e.phase, e.actor = Phase.TRADE_TURN, p
    e.play(PLAY)
    buy(e, PLAY, card(30), (Head.OBJECT, e.slots[p].index(other)))
    assert e.route[p].vehicle == other and e.route[p].established[0]
    e._remove_object(other)
    e.round += 1  # the markers stay only until the end of the round
    assert e.route_of(p) is None


def test_verkaeufer_31_rearranges_the_markers_of_an_unfinished_route():
    """Card 31: "Du darfst beliebige Straßenmarker einer unvollendeten Handelsstraße (von fertigen
    oder geplanten Etappen, unabhängig von der Position des Handelsfahrzeuges) neu auf dem Spielplan
    anordnen." Each stage marker moves at most once per activation and keeps its side; the
    destination (the clover marker) stays."""
    e = engine_at_purchase()
    p = 0
    give(e, p, 31)
    slot, oid = trade_turn(e, p, node("Prag"), [0] * 8)
    assert PLAY not in e.legal_moves()  # no route in progress
    graph = e._route_graph("land")
    start = node("Prag")
    stages = [node("Franken"), node("Schwaben"), node("Mailand"), node("Genua")]
    e.route[p] = Route(oid, list(stages), [True, False, False, False], 2, start, "land")
    e.play(PLAY)
    buy(e, PLAY, card(31))
    assert e.phase == Phase.CARD_FOLLOW
    markers = {o[0] for o in e.tree if o != (DONE,)}
    assert markers == {(Head.NODE, n) for n in stages[:3]}  # not the destination
    targets = {o[1][1] for o in e.tree if o[0] == (Head.NODE, stages[0])}
    assert targets and start not in targets and not targets & set(stages)
    assert all(graph[n] and BOARD.inhabited[n] for n in targets)
    a, b = sorted(targets)[:2]
    buy(e, (Head.NODE, stages[0]), (Head.NODE, a))  # the established marker moves and stays established
    assert (Head.NODE, a) not in {o[0] for o in e.tree}  # a marker is moved once per activation
    buy(e, (Head.NODE, stages[1]), (Head.NODE, b))
    buy(e, DONE)
    assert e.route[p].stages == [a, b, stages[2], stages[3]]
    assert e.route[p].established == [True, False, False, False]
    assert e.phase == Phase.TRADE_TURN and 30 in e.rotated[p]


def test_wissenschaftler_11_caravan_carries_units_and_war_wagon_trades_this_round():
    """Card 11: "In dieser Spielrunde bekommt 1 Karawane zusätzlich die Eigenschaften eines
    Kampfwagens der gleichen Stufe oder umgekehrt." A caravan I carries 3 units in phase 5 (a war
    wagon's capacity); a war wagon I trades with a caravan's capacity of 2 cubes in phase 6."""
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import CARAVAN, WAR_WAGON
    e = war_engine()
    deal(e, 0, 11)
    e.hand[0].append(e.deck.pop())  # a second copy is not in the deck: card 11 is used twice below
    aachen, franken, prag = node("Aachen"), node("Franken"), node("Prag")
    caravan = e._new_object(0, CARAVAN, 1, aachen)
    e.goods[caravan][0] = 1
    e.goods_supply[0] -= 1
    e._add_units(0, aachen, HI, 4)
    menu(e, 0)
    assert (PLAY, card(11), (Head.OBJECT, 0)) in {o[:3] for o in e.tree}
    buy(e, PLAY, card(11), (Head.OBJECT, 0))
    assert e.war_kind(caravan) == WAR_WAGON and e.unit_capacity(caravan) == 3
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.LOAD, HI), (Head.LOAD, HI))
    assert (Head.LOAD, HI) not in e.legal_moves()  # full at 3
    play(e, (Head.NODE, franken), DONE)
    assert e.units[0][franken * 7 + HI] == 3 and e.goods[caravan][0] == 1  # it is still a caravan
    e.round += 1
    assert e.war_kind(caravan) == CARAVAN and e.unit_capacity(caravan) == 0  # only this round
    # the reverse: a war wagon trades
    wagon = e._new_object(0, WAR_WAGON, 1, prag)
    e.rotated[0] = []
    e.stage, e.actor, e.phase = Stage.TRADE, 0, Phase.TRADE_TURN
    slot = e.slots[0].index(wagon)
    assert (Head.OBJECT, slot) not in e.legal_moves()  # not a trade vehicle
    e.play(PLAY)
    targets = {o[2] for o in e.tree if o[:2] == (PLAY, card(11))}
    assert targets == {(Head.OBJECT, slot)}  # in the trade turn only a war wagon gains anything
    buy(e, PLAY, card(11), (Head.OBJECT, slot))
    money = e.money[0]
    buy(e, (Head.OBJECT, slot), (Head.CTRL, Ctrl.BUY), (Head.CTRL, Ctrl.BUY))
    assert (Head.CTRL, Ctrl.BUY) not in e.legal_moves()  # a caravan I holds 2 cubes
    g = BOARD.good[prag]
    assert e.goods[wagon][g] == 2 and e.money[0] == money - 200
    supply = e.goods_supply[g]
    e._vehicle_cards_round_end()  # ASSUMPTION: cubes left on the war wagon go back to the supply
    assert wagon not in e.goods and e.goods_supply[g] == supply + 2


def test_kanonier_54_a_siege_engine_carries_3_units_this_round():
    """Card 54: "1 deiner Belagerungsmaschinen hat in dieser Spielrunde eine Transportkapazität von 3
    (statt 0)." Played in the engine's own movement (W-MOVE), it loads 3 units and moves them."""
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import SIEGE
    e = war_engine()
    deal(e, 0, 54)
    aachen, franken = node("Aachen"), node("Franken")
    engine = e._new_object(0, SIEGE, 1, aachen)
    e._add_units(0, aachen, LI, 4)
    e._start_war()
    play(e, (Head.OBJECT, 0))
    assert (Head.LOAD, LI) not in e.legal_moves()  # capacity 0
    play(e, PLAY)
    buy(e, PLAY, card(54), (Head.OBJECT, 0))
    assert e.phase == Phase.MOVE and e.unit_capacity(engine) == ability_params()["54"]["transport_capacity"]
    play(e, (Head.LOAD, LI), (Head.LOAD, LI), (Head.LOAD, LI))
    assert (Head.LOAD, LI) not in e.legal_moves()
    play(e, (Head.NODE, franken), DONE)
    assert e.units[0][franken * 7 + LI] == 3 and e.objs[engine][3] == franken
    assert e.round == 2 and e.unit_capacity(engine) == 0 and engine not in e.cargo  # nobody else moved: next round


def test_kriegsfuerst_6_half_the_units_move_on_after_entering_another_players_region():
    """Card 6: "Wenn du dich in das Gebiet eines anderen Spielers bewegst, behält die Hälfte
    (aufgerundet) deiner Einheiten ihre verbliebenen Bewegungspunkte und darf sich ggf.
    weiterbewegen. Die anderen Einheiten müssen wie üblich stoppen. Gilt nur für 1 Schritt in ein
    Gebiet." 3 HI take over Pressburg; 2 of them go on with the war wagon's MP to Buda."""
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import WAR_WAGON
    e = war_engine()
    deal(e, 0, 6)
    prag, pressburg, buda = node("Prag"), node("Pressburg"), node("Buda")
    wagon = e._new_object(0, WAR_WAGON, 1, prag)
    e._add_units(0, prag, HI, 3)
    e._new_object(2, WAR_WAGON, 1, node("Konstantinopel"))  # another seat can move: the phase goes on
    e._add_units(2, node("Konstantinopel"), LI, 1)
    e._start_war()
    play(e, (Head.OBJECT, 0))
    assert PLAY not in e.legal_moves()  # nothing aboard yet
    play(e, (Head.LOAD, HI), (Head.LOAD, HI), (Head.LOAD, HI), PLAY)
    buy(e, PLAY, card(6))
    assert e.warlord_step == WarlordStep() and e.warlord_step.armed  # until the step into another's region
    mp = e.objs[wagon][4]
    play(e, (Head.NODE, pressburg))  # a takeover (act of war), then the conquest decisions
    while e.phase == Phase.CONQUEST:
        e.play(e.legal_moves()[0])
    assert e.phase == Phase.MOVE and e.actor == 0 and e.objs[wagon][4] == mp - 1  # the MP from before the entry
    assert e.warlord_step is None  # the card is used up
    assert e.stopped[0][pressburg * 7 + HI] == 3
    play(e, (Head.LOAD, HI), (Head.LOAD, HI))
    assert (Head.LOAD, HI) not in e.legal_moves()  # half of 3, rounded up
    assert e.stopped[0][pressburg * 7 + HI] == 1 and e.units[0][pressburg * 7 + HI] == 1
    play(e, (Head.NODE, buda))  # only one step into a region: this entry stops as usual
    while e.phase == Phase.CONQUEST:
        e.play(e.legal_moves()[0])
    assert e.units[0][buda * 7 + HI] == e.stopped[0][buda * 7 + HI] == 2 and e.objs[wagon][4] == 0
    assert e.phase == Phase.WAR_TURN and e.actor == 2


def test_miliz_25_three_mp_bring_units_and_a_loaded_war_wagon_into_the_invaded_region():
    """Card 25: "... bekommst du 3 BP. Du darfst sie verwenden, um Transportmittel mit ihrer Ladung
    oder ausnahmsweise auch Einheiten ohne Transportmittel in dieses Gebiet zu verlegen; sie müssen
    das Gebiet aber mit dieser Bewegung tatsächlich erreichen. Die Bewegungskosten für Einheiten
    entsprechen denen des eigentlich nötigen Transportmittels." A HI from Buda (1 MP) and a war
    wagon from Slawonien with 2 LI (1 MP) join the defence of Pressburg; 1 MP is left."""
    from .test_war import ScriptedRng, put
    from envs.medioevo_universale.constants import WAR_WAGON
    e = battle_engine(1, 25)
    n = put(e, 1, "Pressburg", HI=1)
    buda = put(e, 1, "Buda", HI=2)
    slawonien = put(e, 1, "Slawonien", LI=3)
    wagon = e._new_object(1, WAR_WAGON, 1, slawonien)
    put(e, 0, "Pressburg", HI=2)  # the attacker has just entered
    e.stage = Stage.WAR
    e.carrier, e.foot_node, e.foot_cargo, e.move_steps = -1, n, [0] * 7, 1
    e.actor = e.mover = 0
    e.rng = ScriptedRng([1] * 12)
    e._invaded(n, 0, 1)
    assert e.phase == Phase.CARD_WINDOW and e.actor == 1
    buy(e, PLAY, card(25))
    assert e.phase == Phase.CARD_FOLLOW
    sources = {o[1][1] for o in e.tree if o[0][0] == Head.UNIT}
    assert {buda, slawonien} <= sources and all(BOARD.dist[s][n] <= 3 for s in sources)
    buy(e, (Head.UNIT, HI), (Head.NODE, buda))
    buy(e, (Head.OBJECT, e.slots[1].index(wagon)), (Head.LOAD, LI), (Head.LOAD, LI), DONE)
    assert e.units[1][n * 7 + HI] == 2 and e.units[1][n * 7 + LI] == 2 and e.objs[wagon][3] == n
    assert e.units[1][buda * 7 + HI] == 1 and e.units[1][slawonien * 7 + LI] == 1
    assert e.card_ctx.left == 1
    assert all(BOARD.dist[o[1][1]][n] == 1 for o in e.tree if o[0][0] == Head.UNIT)  # 1 MP left
    buy(e, DONE)
    assert e.phase != Phase.CARD_FOLLOW and e.bt.owners == [0, 1]


def test_jaeger_55_a_transport_passes_an_army_without_a_battle_and_the_end_region_reacts():
    """Card 55: "1 ... Transportmittel ... und ihre Ladung dürfen sich in der laufenden Spielrunde
    durch Gebiete hindurch bewegen, ohne dass andere Spieler oder Barbaren darauf reagieren können.
    Das gilt nicht für das Gebiet, in dem die Bewegung endet." The war wagon crosses Pressburg (a
    Hungarian army) without a battle; Buda, where the movement ends, is taken over."""
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import WAR_WAGON
    e = war_engine()
    deal(e, 0, 55)
    prag, pressburg, buda = node("Prag"), node("Pressburg"), node("Buda")
    wagon = e._new_object(0, WAR_WAGON, 1, prag)
    e._add_units(0, prag, HI, 2)
    e._add_units(1, pressburg, LI, 1)
    e._new_object(2, WAR_WAGON, 1, node("Konstantinopel"))  # another seat can move: the phase goes on
    e._add_units(2, node("Konstantinopel"), LI, 1)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.LOAD, HI), PLAY)
    buy(e, PLAY, card(55), (Head.OBJECT, 0))
    play(e, (Head.NODE, pressburg))
    assert e.phase == Phase.MOVE and e.bt is None and e.hunter_pending == pressburg
    legal = e.legal_moves()
    assert (Head.UNLOAD, HI) not in legal and (Head.NODE, buda) in legal and DONE in legal
    play(e, (Head.NODE, buda), DONE)  # the end region reacts: a takeover (act of war)
    while e.phase == Phase.CONQUEST:
        e.play(e.legal_moves()[0])
    assert e.units[0][buda * 7 + HI] == 2 and e.units[1][pressburg * 7 + LI] == 1
    assert e.objs[wagon][3] == buda and e.objs[wagon][4] == 0 and e.at_war[0][1]
    assert e.phase == Phase.WAR_TURN and e.actor == 2


def test_jaeger_56_a_movement_ending_in_a_passed_region_fights_there():
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import WAR_WAGON
    e = war_engine()
    deal(e, 0, 56)
    prag, pressburg = node("Prag"), node("Pressburg")
    e._new_object(0, WAR_WAGON, 1, prag)
    e._new_object(0, WAR_WAGON, 1, prag)
    e._add_units(0, prag, HI, 2)
    e._add_units(1, pressburg, LI, 1)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), PLAY)
    assert (PLAY, card(56), (Head.NODE, prag)) in {o[:3] for o in e.tree}
    buy(e, PLAY, card(56), (Head.NODE, prag))
    assert e.hunters == {e.slots[0][0]: e.round, e.slots[0][1]: e.round}
    play(e, (Head.NODE, pressburg))
    assert e.bt is None
    e.play(DONE)
    assert e.bt is not None and e.bt.node == pressburg and e.bt.owners == [0, 1]


def test_random_play_with_the_movement_trade_and_militia_cards_keeps_the_invariants():
    """Cards 6, 11, 25, 31, 54, 55, 56 in random play: every seat starts with extra war wagons,
    siege engines, caravans and units on its borders; an unused card follows the seat deciding a
    movement or trade step (25: a random seat, it is a defender's card), and the random player prefers
    card plays, loading and trade routes, so the cards come up. The package invariants hold after every
    step and every seat's observation stays in [0, 1]."""
    from envs.medioevo_universale.constants import CARAVAN, SIEGE, WAR_WAGON
    new = [c - 1 for c in (6, 11, 25, 31, 54, 55, 56)]
    env = TabletopEnv(SPEC, num_players=4, num_rounds=8, max_turns=100_000, diplomacy_offers=0)
    played = [0] * 72
    for g in range(6):
        env.reset(seed=500 + g)
        e = env.engine
        rng = np.random.default_rng(g)
        for i, c in enumerate(new):
            e.deck.remove(c)
            e.hand[(i + g) % 4].append(c)
        for q in range(4):
            home = [n for n in e.land_nodes if e.controller(n) == q]
            home = [n for n in home if any(e.controller(y) not in (-1, q) for y in BOARD.land_adj[n])] or home
            for kind in (WAR_WAGON, SIEGE, CARAVAN, WAR_WAGON):
                supply = e.siege_supply if kind == SIEGE else e.vehicle_supply
                if e.free_slot(q) < 0 or supply[0 if kind == SIEGE else kind] == 0:
                    continue
                supply[0 if kind == SIEGE else kind] -= 1
                where = home[int(rng.integers(len(home)))]
                oid = e._new_object(q, kind, 1, where)
                graph = e._route_graph("land")
                if kind == CARAVAN and graph.get(where):  # a trade route in progress, for card 31
                    stages = [int(rng.choice(sorted(graph[where])))]
                    while len(stages) < 4 and [y for y in graph[stages[-1]] if y != where and y not in stages]:
                        stages.append(int(rng.choice(sorted(y for y in graph[stages[-1]]
                                                            if y != where and y not in stages))))
                    e.route[q] = Route(oid, stages, [False] * len(stages), 2, where, "land")
                if e.unit_supply[q][LI] >= 2:
                    e.unit_supply[q][LI] -= 2
                    e._add_units(q, where, LI, 2)
        steps = 0
        while not e.is_over:
            if e.phase in (Phase.MOVE, Phase.TRADE, Phase.TRADE_TURN):
                for c in new:  # live move lists only: no decision tree holds the card
                    to = int(rng.integers(4)) if c == 24 else e.actor
                    for q in range(4):
                        if q != to and c in e.hand[q] and c not in e.rotated[q]:
                            e.hand[q].remove(c)
                            e.hand[to].append(c)
                touched(e)  # an edit from outside the rules: observers look at everything again
                env._legal = None
            legal = env.legal_actions()
            assert len(legal), f"seed {500 + g}: empty mask"
            names = [env.action_name(int(a)) for a in legal]
            liked = [a for a, name in zip(legal, names) if "PLAY_CARD" in name or name.startswith(("CARD(", "LOAD"))
                     or name == "CTRL(BUY)" or ("ROUTE" in name and "ABANDON" not in name)]
            pool = liked if liked and rng.random() < 0.7 else legal
            env.step(int(pool[rng.integers(len(pool))]))
            check_invariants(env)
            steps += 1
            if steps % 25 == 0:
                for s in range(4):
                    obs = env.encoder.encode(e, s)
                    assert obs.min() >= 0 and obs.max() <= 1
            if steps % 25 == 0 or (e.warlord_step is not None or e.warlord_load is not None
                                   or e.hunter_pending >= 0 or e.card_ctx is not None):
                assert_matches_fresh_encoder(env, {e.current_player, (e.current_player + 1) % 4})
            assert steps < 100_000
        played = [a + b for a, b in zip(played, e.cards_played)]
    assert sum(1 for c in new if played[c]) >= 6, {c + 1: played[c] for c in new}


def test_kriegsfuerst_6_after_a_won_battle_half_the_survivors_move_on():
    """Card 6 when the entered region holds the other player's army: the battle is fought as usual;
    the mover wins it, and half (rounded up) of its survivors may go on with the war wagon's MP."""
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import WAR_WAGON
    e = war_engine()
    e.rng = np.random.default_rng(1)
    deal(e, 0, 6)
    prag, pressburg = node("Prag"), node("Pressburg")
    wagon = e._new_object(0, WAR_WAGON, 1, prag)
    e._add_units(0, prag, HI, 3)
    e._add_units(1, pressburg, LI, 1)
    e._new_object(2, WAR_WAGON, 1, node("Konstantinopel"))  # another seat can move: the phase goes on
    e._add_units(2, node("Konstantinopel"), LI, 1)
    e._start_war()
    play(e, (Head.OBJECT, 0), (Head.LOAD, HI), (Head.LOAD, HI), (Head.LOAD, HI), PLAY)
    buy(e, PLAY, card(6))
    mp = e.objs[wagon][4] - 1  # after the step into Pressburg
    e.play((Head.NODE, pressburg))
    assert e.bt is not None and e.bt.owners == [0, 1]
    assert e.warlord_step == WarlordStep(pressburg, mp) and not e.warlord_step.armed  # the entry and its MP
    while e.bt is not None or e.phase == Phase.CONQUEST:
        e.play(e.legal_moves()[0])
    survivors = e.army[0][pressburg]
    assert survivors and not e.army[1][pressburg]  # 3 HI against 1 LI: the mover holds the region
    assert e.phase == Phase.MOVE and e.actor == 0 and e.objs[wagon][4] == mp
    assert e.warlord_load == (pressburg, (survivors + 1) // 2)


# -------------------------------------------- W-ANY: "jederzeit, auch außerhalb deines Zuges" ----
# Rulebook, REICHSKARTEN: "Reichskarten darfst du jederzeit spielen, auch außerhalb deines Zuges." The cards
# whose text names no moment of their own are offered out of turn where their text can take effect.
def pressburg_battle(order=(0, 1, 2, 3), **hands):
    """HRE (0) attacks HUN's (1) 3 LI in Pressburg with 1 HI; Prag (HRE) is its way out. Round 1 is a tie
    at 3 (D31's dice): both sides stay. ``hands``: seat -> cards (``s0=(1,)``); every other hand is empty."""
    from .test_war import fight, put, war_engine
    e = war_engine(order=order)
    for q in range(e.num_players):
        e.deck[:0] = e.hand[q]
        e.hand[q], e.rotated[q] = [], []
    for key, cards in hands.items():
        give(e, int(key[1:]), *cards)
    put(e, 0, "Pressburg", HI=1)
    put(e, 1, "Pressburg", LI=3)
    e.unit_supply[0][HI] -= 1
    e.unit_supply[1][LI] -= 3
    fight(e, "Pressburg", 0, 1, [1, 2, 3, 1, 2, 4])
    return e


def test_bischof_1_played_by_an_outsider_ends_the_running_battle_after_the_battle_round():
    """Card 1: "Laufende Gefechte enden nach der aktuellen Gefechtsrunde." Before a battle round every
    holder may name the battle region, the battle's parties or not; after the round the attacker withdraws
    (as after a ceasefire) and no fight may take place there for the rest of the round."""
    from .test_war import decline_captures, play
    e = pressburg_battle(s2=(1,))
    pressburg, prag = node("Pressburg"), node("Prag")
    assert e.phase == Phase.CARD_WINDOW and e.actor == 2 and e.cw.window == "any_battle"
    assert e.legal_moves() == [DONE, PLAY]
    buy(e, PLAY, card(1))
    assert e.legal_moves() == [(Head.NODE, pressburg)]  # only the running battle's region in this window
    buy(e, (Head.NODE, pressburg))
    assert e.banned(0, pressburg) and e.rotated[2] == [0]
    decline_captures(e)
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))  # battle round 1 is fought to its end
    assert e.phase == Phase.RETREAT_TO and e.actor == 0 and e.legal_moves() == [(Head.NODE, prag)]
    play(e, (Head.NODE, prag))
    assert e.bt is None and e.army[0][pressburg] == 0 and e.army[0][prag] == 1 and e.army[1][pressburg] == 2


def test_without_the_bishop_the_battle_goes_on_and_nobody_is_asked():
    e = pressburg_battle(s2=(36,), s3=(2, 3))  # W-ANY cards whose text does not concern a battle
    assert e.phase == Phase.ATTACK_REROLL
    from .test_war import play
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.phase == Phase.AFTER_ROUND and e.actor == 0


def test_tempelritter_35_a_free_unit_joins_the_own_side_of_the_running_battle():
    """Card 35: "in ein beliebiges Gebiet ..., in dem bereits Krieg herrscht": the defender's free unit joins
    its army before the battle round."""
    e = pressburg_battle(s1=(35,))
    pressburg = node("Pressburg")
    assert e.phase == Phase.CARD_WINDOW and e.actor == 1
    supply = e.unit_supply[1][HI]
    buy(e, PLAY, card(35), (Head.UNIT, HI), (Head.NODE, pressburg))
    assert e.side_units(1)[HI] == 1 and e.side_size(1) == 4 and e.unit_supply[1][HI] == supply - 1
    assert e.phase == Phase.CAPTURE_DECLARE and e.bt.round == 1  # the battle round goes on


def test_any_time_window_asks_the_holders_in_turn_order_and_skips_the_others():
    """Turn order 2, 3, 0, 1: the Bishop's holder 2 (not a party) first, then the defender 1 with card 35;
    seat 3 (Magnat 36, which names no battle) and seat 0 (no card) get no decision."""
    e = pressburg_battle(order=(2, 3, 0, 1), s1=(35,), s2=(1,), s3=(36,))
    asked = []
    while e.phase == Phase.CARD_WINDOW:
        asked.append(e.actor)
        e.play(DONE)
    assert asked == [2, 1] and e.bt is not None and e.bt.round == 1


def test_barde_re_activates_a_pestarzt_just_used_when_the_event_strikes():
    """Card 44: "eine bereits benutzte Reichskarte sofort aktivieren": after the start player used Pestarzt 43
    in W-EVENT, the next holder re-activates it and spares a second region from the event."""
    e = engine_at_event_choice(43)
    first, bard = e.order[0], e.order[1]
    give(e, bard, 44)
    regions = sorted(n for n in e.data.events[e.event_card].regions if e.playable[n] and not e.board.is_sea[n])
    assert e.phase == Phase.CARD_WINDOW and e.actor == first
    buy(e, PLAY, card(43), (Head.NODE, regions[0]))
    assert e.phase == Phase.CARD_WINDOW and e.actor == bard
    buy(e, PLAY, card(44), card(43), (Head.NODE, regions[1]))
    assert e.event_protected == {regions[0], regions[1]} and e.rotated[bard] == [43]
    assert e.phase == Phase.EVENT_CHOICE


def test_diplomat_51_protects_a_caravan_before_the_conquest_decides_over_it():
    """Card 51: "Schützt ... 1 Objekt ... vor Plünderungen jeder Art": the beaten defender plays it when the
    conquest is about to decide over its objects; the caravan stays its own."""
    from .test_war import fight, play, put, war_engine
    e = war_engine()
    give(e, 1, 51)
    buda = node("Buda")
    e.civil[buda], e.civil_owner[buda] = 1, 1
    caravan = e._new_object(1, 0, 2, buda)
    put(e, 0, "Buda", HI=3)
    put(e, 1, "Buda", LI=1)
    fight(e, "Buda", 0, 1, [4, 6, 8, 1, 1, 1])
    play(e, (Head.DICE, 0), DONE, (Head.DICE, 0))
    assert e.phase == Phase.CARD_WINDOW and e.actor == 1 and e.cw.window == "any_plunder"
    assert e.conquest.items == [(Stake.BUILDING, CIVIL), (Stake.OBJECT, caravan)]  # what is at stake is shown
    buy(e, PLAY, card(51))
    assert e.legal_moves() == [(Head.OBJECT, e.slots[1].index(caravan))]  # only an object at stake
    buy(e, (Head.OBJECT, e.slots[1].index(caravan)))
    assert e.phase == Phase.CONQUEST and e.actor == 0 and e.conquest.items == [(Stake.BUILDING, CIVIL)]
    play(e, (Head.CTRL, Ctrl.PLUNDER))
    assert e.objs[caravan][0] == 1 and e.civil[buda] == 0


def test_bischof_3_in_the_war_cycle_window_stops_another_players_movement():
    """Card 3: "Niemand darf es betreten oder verlassen": offered at the start of every war cycle (also the
    first), before the other players' moves; a holder who passed is asked again in the next cycle."""
    from .test_war import play, put, war_engine
    from envs.medioevo_universale.constants import WAR_WAGON
    e = war_engine()
    give(e, 2, 3)
    give(e, 3, 36)  # Magnat: no decision
    aachen, franken, prag = node("Aachen"), node("Franken"), node("Prag")
    put(e, 0, "Aachen", LI=1)
    e._new_object(0, WAR_WAGON, 1, aachen)
    e._start_war()
    assert e.phase == Phase.CARD_WINDOW and e.actor == 2 and e.cw.window == "any_war"
    play(e, DONE)
    assert e.phase == Phase.WAR_TURN and e.actor == 0
    play(e, (Head.OBJECT, 0), (Head.LOAD, LI), (Head.NODE, franken), DONE)
    assert e.phase == Phase.CARD_WINDOW and e.actor == 2  # the next cycle
    buy(e, PLAY, card(3), (Head.NODE, prag))
    assert e.phase == Phase.WAR_TURN and e.actor == 0
    play(e, (Head.OBJECT, 0))
    assert (Head.NODE, prag) not in e.legal_moves() and (Head.NODE, aachen) in e.legal_moves()  # nobody enters Prag


def test_bischof_2_in_the_trade_cycle_window_bans_trade_before_the_trade_turns():
    from .test_war import play, war_engine
    from envs.medioevo_universale.constants import CARAVAN
    e = war_engine()
    give(e, 3, 2)
    rom = node("Rom")
    e._new_object(0, CARAVAN, 1, rom)
    e._start_trade()
    assert e.phase == Phase.CARD_WINDOW and e.actor == 3 and e.cw.window == "any_trade"
    assert e._trade_here_ok(0, rom)
    buy(e, PLAY, card(2), (Head.NODE, rom))
    assert e.phase == Phase.TRADE_TURN and e.actor == 0 and not e._trade_here_ok(0, rom)
    play(e, (Head.OBJECT, 0))
    assert (Head.CTRL, Ctrl.BUY) not in e.legal_moves()


def test_any_time_windows_show_in_the_observation_of_every_seat():
    """The seat to act (and every other seat: card plays are public) sees which W-ANY window is open."""
    from envs.medioevo_universale.cards import JEDERZEIT_WINDOWS
    from envs.medioevo_universale.observation import MedioevoEncoder
    e = pressburg_battle(s2=(1,))
    enc = MedioevoEncoder(e.config, e.num_players)
    for seat in range(e.num_players):
        shown = enc.encode(e, seat)[enc.layout.slices["card_window"]]
        assert list(shown) == [float(w == "any_battle") for w in JEDERZEIT_WINDOWS]
    e.play(DONE)
    assert not enc.encode(e, 0)[enc.layout.slices["card_window"]].any()


def test_random_play_with_the_any_time_cards_opens_every_window_and_keeps_the_invariants():
    """The W-ANY cards 1, 2, 3, 15, 34, 35, 44, 45, 50, 51 dealt round the table, every seat at war with every
    other with armies by its war wagons and beside them (``test_diplomacy.force_battles``, without Missionare)
    and a caravan in each region it holds on a border; Diplomat 50 / 51 follow the defender of the battle in
    progress (so a beaten holder meets the plunder window); the random player plays a card in half of its
    W-ANY decisions. Every W-ANY window opens and sees card plays; the package invariants hold after every
    step, and the cached encoder equals a fresh one whenever a W-ANY window is open."""
    from envs.medioevo_universale.cards import JEDERZEIT_WINDOWS
    from envs.medioevo_universale.constants import CARAVAN
    from .test_diplomacy import force_battles
    anytime = [c - 1 for c in (1, 2, 3, 15, 34, 35, 44, 45, 50, 51)]
    diplomats = (49, 50)
    env = TabletopEnv(SPEC, num_players=4, num_rounds=8, max_turns=100_000, diplomacy_offers=0)
    opened = {w: 0 for w in JEDERZEIT_WINDOWS}
    played = {w: 0 for w in JEDERZEIT_WINDOWS}
    for g in range(16):
        env.reset(seed=700 + g)
        e = env.engine
        rng = np.random.default_rng(g)
        for i, c in enumerate(anytime):
            for q in range(4):
                if c in e.hand[q]:
                    e.hand[q].remove(c)
            if c in e.deck:
                e.deck.remove(c)
            e.hand[(i + g) % 4].append(c)
        prepared = False
        seen = {}  # id -> the window itself, kept alive so that a later window cannot reuse its id
        steps = 0
        while not e.is_over:
            if not prepared and e.setup_done:
                prepared = True
                force_battles(e)
                for q in range(4):
                    e.tech[q][RELIGION_B] = 2  # no Missionare: the W-ANY cards are the holders' own
                    for n in e.controlled_regions(q):
                        if e.free_slot(q) >= 0 and e.vehicle_supply[CARAVAN] and any(
                                e.controller(y) not in (-1, q) for y in BOARD.land_adj[n]):
                            e.vehicle_supply[CARAVAN] -= 1
                            e._new_object(q, CARAVAN, 1, n)
                touched(e)
                env._legal = None
            if e.bt is not None and e.bt.owners[1] >= 0 and e.phase != Phase.CARD_WINDOW:
                to = e.bt.owners[1]
                for c in diplomats:
                    for q in range(4):
                        if q != to and c in e.hand[q] and c not in e.rotated[q]:
                            e.hand[q].remove(c)
                            e.hand[to].append(c)
                touched(e)
                env._legal = None
            cw = e.cw
            window = cw.window if cw is not None and e.phase == Phase.CARD_WINDOW else None
            legal = env.legal_actions()
            if window in opened:
                if id(cw) not in seen:
                    seen[id(cw)] = cw
                    opened[window] += 1
                assert_matches_fresh_encoder(env, {e.current_player, (e.current_player + 1) % 4})
            names = [env.action_name(int(a)) for a in legal]
            plays = [a for a, name in zip(legal, names) if "PLAY_CARD" in name]
            if window in opened and plays and rng.random() < 0.5:
                played[window] += 1
                env.step(int(plays[0]))
            else:
                env.step(int(legal[rng.integers(len(legal))]))
            check_invariants(env)
            steps += 1
            assert steps < 100_000
        if all(opened.values()) and all(played.values()):
            break
    assert all(opened.values()) and all(played.values()), (opened, played)
