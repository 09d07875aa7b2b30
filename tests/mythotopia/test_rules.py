"""Scenario tests of Mythotopia's rules on hand-built positions (rulebook examples quoted)."""
import numpy as np
import pytest

from envs.core.errors import IllegalActionError
from envs.core.testing import state_bytes
from envs.mythotopia import MythotopiaConfig, MythotopiaEngine, Phase
from envs.mythotopia import layout as M
from envs.mythotopia.data import NUM_PROVINCES, starting_card, tables
from envs.mythotopia.encoder import MythotopiaEncoder
from envs.mythotopia.engine import (
    CITY_S, V_CASTLE, V_CITY, V_DEFENDER, V_PATRONAGE, V_ROADS, V_SEA, V_SPOILS, VILLAGE_S, VP_INDEX,
)

T = tables()
P = {name: i for i, name in enumerate(T.province_names)}
ARMY, BUILD, MARKET, SHIP, MARKET2 = range(5)  # starting card slots (A-03 default deck)
NO_SETUP_CHOICES = ("Patronage", "Spoils of War", "Defender of the Realm", "Master of the Sea")


def blank(n=2, cards=NO_SETUP_CHOICES, **options):
    """An engine after setup with an empty board: every province neutral, no cards in any hand."""
    e = MythotopiaEngine(MythotopiaConfig(random_start_player=False, variable_vp_cards=cards, **options),
                         n, np.random.default_rng(0))
    for x in range(NUM_PROVINCES):
        if e.controller[x] >= 0:
            e.villages[e.controller[x]] += 1
        e.controller[x] = -1
        e.settle[x] = 0
        e.dragon[x] = e.rune[x] = False
    e.prov_count = [0] * n
    for p in range(n):
        for zone in (e.hand[p], e.draw[p], e.discard[p], e.reserve[p]):
            for c in list(zone):
                zone.remove(c)
                if c < 40:
                    e.pstack.append(c)
                elif c < 69:
                    e.display.append(c)
                else:
                    e.aside[p].append(c)
    e.display += [c for c in e.impdeck]
    e.impdeck = []
    e.display.sort()
    e.active = e.actor = 0
    e._start_turn()
    return e


def own(e, p, *names):
    for name in names:
        x = P[name]
        e._place_village(p, x)
        put(e, p, "draw", x)


def put(e, p, zone, *cards):
    """Move cards (ids) from wherever they are into seat p's zone."""
    for c in cards:
        for pile in [e.pstack, e.display, e.impdeck] + [z[q] for z in (e.hand, e.draw, e.discard, e.reserve, e.aside)
                                                        for q in range(e.num_players)]:
            if c in pile:
                pile.remove(c)
                break
        getattr(e, zone)[p].append(c)


def S(p, slot):
    return starting_card(p, slot)


def play(e, *names):
    from envs.mythotopia.codec import MythotopiaCodec
    e.stamp_everything()  # the tests edit the position directly: every cache looks again
    codec = MythotopiaCodec(e.config, e.num_players)
    for name in names:
        idx = codec.index(name)
        codec.apply(e, idx)


def legal_names(e):
    from envs.mythotopia.codec import MythotopiaCodec
    e.stamp_everything()  # the tests edit the position directly: every cache looks again
    codec = MythotopiaCodec(e.config, e.num_players)
    return {codec.action_name(i) for i in codec.legal_actions(e)}


def card(c):
    return f"CARD({T.card_names[c]})"


def prov(name):
    return f"PROVINCE({name})"


# ---------------------------------------------------------------------------------------- invade
def palmain_position():
    e = blank()
    own(e, 0, "Palmain", "Scombroid")
    put(e, 0, "hand", P["Palmain"], S(0, ARMY), P["Scombroid"], S(0, MARKET), S(0, SHIP))
    return e


def test_palmain_reach_over_land_and_by_sea():
    """Rulebook: 'Spieler Rot hat die Gebietskarte Palmain in der Hand und kann somit Nusus, Diclesium,
    Iracund oder Blore angreifen. (Er kontrolliert bereits Scombroid). Spielt er außerdem noch eine
    Schiffskarte, kann er auch Ictus, Camarine, Kinabra, Nesh, Eagre, Oxter oder Aporia angreifen.'"""
    e = palmain_position()
    palmain = P["Palmain"]
    opts = {t: e._loc_options(0, t, [palmain]).get(palmain, ()) for t in range(NUM_PROVINCES)}
    land = {T.province_names[t] for t, cl in opts.items() if any(s == 0 for s, _ in cl)}
    sea = {T.province_names[t] for t, cl in opts.items() if (1, 1) in cl} - land
    assert land == {"Nusus", "Diclesium", "Iracund", "Blore", "Scombroid"}
    assert sea == {"Ictus", "Camarine", "Kinabra", "Nesh", "Eagre", "Oxter", "Aporia"}
    targets = {T.province_names[t] for t in e._invade_targets(0)}
    # never your own province; the Scombroid card in hand adds Margent
    assert targets == (land - {"Scombroid"}) | sea | {"Margent"}
    put(e, 0, "discard", S(0, SHIP), P["Scombroid"])
    assert {T.province_names[t] for t in e._invade_targets(0)} == {"Nusus", "Diclesium", "Iracund", "Blore"}


def test_blore_invasion_example():
    """Rulebook: 'Er spielt zunächst die Palmain-Karte ... Danach spielt er 2 Karten, die insgesamt
    3 Armeesymbole zeigen. Zuletzt spielt er noch 1 Karte mit 1 Nahrungssymbol. Er nimmt 3 Armeen aus
    seinem Persönlichen Vorrat und legt sie nach Blore.' -- 'Da Blore neutral ist, muss Spieler Rot den
    Verteidigungswert von 4 übertreffen ... Der Verteidigungsbonus für raues Gelände hat in diesem Fall
    keine Auswirkung.'"""
    e = palmain_position()
    play(e, "INVADE", prov("Blore"), card(P["Palmain"]))
    assert e.phase == Phase.ARMY_CARDS  # the only route is over land: chosen automatically
    assert legal_names(e) == {card(S(0, ARMY)), card(P["Scombroid"]), "MODE(CONVERT)"} - {"MODE(CONVERT)"}
    play(e, card(S(0, ARMY)), card(P["Scombroid"]))
    assert legal_names(e) == {"DONE"}
    play(e, "DONE")
    assert e.phase == Phase.PAY and e.pay_owed == 1
    assert legal_names(e) == {card(S(0, MARKET)), card(S(0, SHIP))}
    play(e, card(S(0, MARKET)))
    assert e.armies[P["Blore"]][0] == 3 and e.armies_pers[0] == 3
    assert e.strength(P["Blore"], -1) == 4 and e.strength(P["Blore"], 0) == 3
    assert e.actions_used == 1 and e.phase == Phase.CHOOSE
    assert e.hand[0] == [S(0, SHIP)]
    assert "END_WAR" not in legal_names(e)  # 3 < 4, and not the first action anyway


def test_place_armies_example_then_end_the_war():
    """Rulebook: 'Spieler Rot spielt 2 Karten mit je 1 Armeesymbol und legt 2 Armeen nach Blore. Da er
    diese nicht in ein Gebiet legt, das er kontrolliert, muss er zusätzlich noch eine Karte mit
    Nahrungssymbol ausspielen.' Then: 'Spieler Rot hat eine militärische Stärke von 5 in Blore. Die
    Kampfstärke des neutralen Gebiets beträgt lediglich 4. Spieler Rot erklärt den Krieg für beendet.
    Er entfernt alle seine Armeen aus dem Gebiet und legt eines seiner Dorfplättchen hinein. Er sucht
    die Blore-Karte ... und legt sie auf seinen Ablagestapel. Außerdem erhält er 3 SP.'"""
    e = palmain_position()
    play(e, "INVADE", prov("Blore"), card(P["Palmain"]), card(S(0, ARMY)), card(P["Scombroid"]), "DONE",
         card(S(0, MARKET)))
    own(e, 0, "Ambsace", "Darb")
    put(e, 0, "hand", P["Ambsace"], P["Darb"], S(0, MARKET2))
    play(e, "PLACE_ARMIES", prov("Blore"), card(P["Ambsace"]), card(P["Darb"]), "DONE")
    assert e.phase == Phase.PAY and e.pay_owed == 1  # reinforcing an attack costs 1 food
    play(e, card(S(0, MARKET2)))
    assert e.armies[P["Blore"]][0] == 5 and e.active == 1  # both actions used: the turn passed
    vp_before = e.vp(0)
    e.active = e.actor = 0
    e._start_turn()
    assert "END_WAR" in legal_names(e)
    play(e, "END_WAR", prov("Blore"))
    assert e.controller[P["Blore"]] == 0 and e.settle[P["Blore"]] == VILLAGE_S
    assert e.armies[P["Blore"]] == [0, 0] and e.armies_pers[0] == 6
    assert P["Blore"] in e.discard[0] and e.vp(0) == vp_before + 3


def test_end_war_only_as_first_thing_and_only_with_a_clear_winner():
    e = blank()
    own(e, 0, "Palmain")
    e.armies[P["Blore"]][0] = 4
    e.armies_pers[0] -= 4
    assert "END_WAR" not in legal_names(e)  # 4 against 4: a tie, no Hero
    put(e, 0, "hand", e.ID["Hero"])
    assert "END_WAR" in legal_names(e)  # Hero breaks the tie in my favour
    play(e, "END_WAR", prov("Blore"))
    assert e.controller[P["Blore"]] == 0 and e.ID["Hero"] in e.discard[0]
    e2 = blank()
    e2.armies[P["Blore"]][0] = 5
    e2.armies_pers[0] -= 5
    put(e2, 0, "hand", S(0, MARKET))
    play(e2, "DISCARD", card(S(0, MARKET)), "DONE")
    assert "END_WAR" not in legal_names(e2)


def test_hills_cost_two_food_and_mountains_block_unless_ranger():
    """Rulebook: 'Greifst du über eine Grenze mit Hügeln an, kostet dich das zusätzlich 1 Nahrung.' --
    'Über eine Grenze mit Bergen kannst du weder angreifen, noch eine Straße bauen.' -- Ranger: 'Alle
    Grenzen mit Hügeln gelten für dich als normale Grenzen ... und alle Grenzen mit Bergen gelten für
    dich als Hügel.'"""
    e = blank()
    own(e, 0, "Blore", "Diclesium")
    assert e._loc_options(0, P["Quean"], [P["Blore"]]) == {P["Blore"]: [(0, 2)]}
    assert e._loc_options(0, P["Fadge"], [P["Diclesium"]]) == {}
    put(e, 0, "reserve", e.ID["Ranger"])
    assert e._loc_options(0, P["Quean"], [P["Blore"]]) == {P["Blore"]: [(0, 1)]}
    assert e._loc_options(0, P["Fadge"], [P["Diclesium"]]) == {P["Diclesium"]: [(0, 2)]}


def supply(e, p, armies):
    """Leave `armies` armies in p's personal supply (the rest in the general supply)."""
    e.armies_gen[p] += e.armies_pers[p] - armies
    e.armies_pers[p] = armies


def test_one_army_left_may_still_play_the_army_card():
    """Rulebook: 'Einzige Ausnahme: Besitzt du nur noch 1 Armee in deinem Persönlichen Vorrat, darfst du
    die Karte „Army" (Armee) ausspielen und nutzen (obwohl sie 2 Armeesymbole hat).' -- it places that 1
    army, and nothing may be added to it."""
    e = palmain_position()
    supply(e, 0, 1)
    play(e, "INVADE", prov("Blore"), card(P["Palmain"]))
    assert legal_names(e) == {card(S(0, ARMY)), card(P["Scombroid"])}
    play(e, card(S(0, ARMY)))
    assert legal_names(e) == {"DONE"}  # the supply is covered: no further army card
    play(e, "DONE", card(S(0, MARKET)))
    assert e.armies[P["Blore"]][0] == 1 and e.armies_pers[0] == 0
    e2 = palmain_position()
    supply(e2, 0, 1)
    play(e2, "INVADE", prov("Blore"), card(P["Palmain"]), card(P["Scombroid"]))
    assert legal_names(e2) == {"DONE"}  # the exception is the Army card alone, not added to another


def test_army_symbols_played_never_exceed_the_armies_in_the_supply():
    """Rulebook: 'Für jedes Armeesymbol auf deinen ausgespielten Karten musst du eine Armee in deinem
    Persönlichen Vorrat haben.' -- 'Es ist nicht erlaubt, mehr Karten mit Armeesymbolen auszuspielen, als
    man Armeen in seinem Persönlichen Vorrat verfügbar hat.' Symbols count, not cards (else the Army-card
    exception would be needless), and an army card that would go beyond the supply may not be added."""
    e = palmain_position()
    e_army = e.ID["Army"]  # the improvement Army: 2 army symbols as well
    put(e, 0, "hand", e_army)
    supply(e, 0, 3)
    play(e, "INVADE", prov("Blore"), card(P["Palmain"]), card(S(0, ARMY)))
    assert legal_names(e) == {card(P["Scombroid"]), "DONE"}  # 2 + 2 > 3: the second Army card is refused
    before = state_bytes(e)
    with pytest.raises(IllegalActionError, match="illegal"):
        e.apply(M.CARD + e_army)
    assert state_bytes(e) == before
    play(e, card(P["Scombroid"]))
    assert legal_names(e) == {"DONE"}
    play(e, "DONE", card(S(0, MARKET)))
    assert e.armies[P["Blore"]][0] == 3 and e.armies_pers[0] == 0  # exactly the symbols played


def test_place_armies_has_the_same_army_symbol_limit():
    """Rulebook (Armeen aufs Brett bringen): 'spielst du eine oder mehrere Karten mit Armeesymbolen aus.
    Dann nimmst du die entsprechende Anzahl Armeen aus deinem Persönlichen Vorrat' -- 2 armies left and
    1 symbol played: the Army card (2 more) would go beyond the supply."""
    e = blank()
    own(e, 0, "Blore")
    put(e, 0, "hand", P["Blore"], S(0, ARMY))
    supply(e, 0, 2)
    play(e, "PLACE_ARMIES", prov("Blore"), card(P["Blore"]))
    assert legal_names(e) == {"DONE"}
    play(e, "DONE")
    assert e.armies[P["Blore"]][0] == 1 and e.armies_pers[0] == 1


# ----------------------------------------------------------------------------------------- build
def test_build_castle_city_and_road_with_counters():
    """Rulebook (Build card): a city costs 2 stone, a castle 1, a road 2 -- '3 Steine, wenn du über
    Hügel (hills) baust'; each build takes a counter from its fixed VP card while one is left."""
    e = blank()
    own(e, 0, "Blore", "Quean")
    put(e, 0, "hand", S(0, BUILD), P["Blore"], S(0, MARKET))
    assert legal_names(e) >= {"BUILD"}
    play(e, "BUILD")
    assert legal_names(e) == {"OPTION(1)"}  # only a castle is affordable with 1 stone
    play(e, "OPTION(1)")
    assert legal_names(e) == {prov("Blore")}
    play(e, prov("Blore"), card(P["Blore"]), card(S(0, MARKET)))
    assert e.castle[P["Blore"]] and e.counters[0][2] == 1 and len(e.vp_cards[V_CASTLE]) == 5
    assert e.strength(P["Blore"], 0) == 0 + 2 + 1  # castle +2, rugged +1 for a player defender
    # road Blore-Quean crosses hills: 3 stone
    put(e, 0, "hand", S(0, BUILD), P["Quean"], S(0, MARKET), S(0, MARKET2))
    assert "BUILD" not in legal_names(e) or "OPTION(2)" not in legal_names(e)
    e2 = blank()
    own(e2, 0, "Blore", "Quean", "Margent")
    put(e2, 0, "hand", S(0, BUILD), P["Margent"], P["Quean"], S(0, MARKET))
    play(e2, "BUILD", "OPTION(2)")
    assert legal_names(e2) == {"BORDER(Blore-Margent)"}  # 2 stone; Blore-Quean would need 3
    play(e2, "BORDER(Blore-Margent)", card(P["Margent"]))
    assert e2.phase == Phase.PAY and e2.pay_owed == 2
    play(e2, card(P["Quean"]), card(S(0, MARKET)))
    assert e2.road[T.border_of[(P["Blore"], P["Margent"])]] and len(e2.vp_cards[V_ROADS]) == 5
    assert e2.roads_left == 8


def test_city_raises_reserve_capacity_and_returns_the_village():
    e = blank()
    own(e, 0, "Quean")
    put(e, 0, "hand", S(0, BUILD), P["Quean"], S(0, MARKET), S(0, MARKET2))
    villages = e.villages[0]
    assert e.capacity(0) == 2
    play(e, "BUILD")
    assert legal_names(e) == {"OPTION(0)", "OPTION(1)"}
    play(e, "OPTION(0)", prov("Quean"), card(P["Quean"]), card(S(0, MARKET)), card(S(0, MARKET2)))
    assert e.settle[P["Quean"]] == CITY_S and e.villages[0] == villages + 1
    assert e.capacity(0) == 3 and len(e.vp_cards[V_CITY]) == 5


def test_road_network_substitutes_province_cards():
    """Spec 5.2 / A-19: a province card stands for every province connected to it in your road network."""
    e = blank()
    own(e, 0, "Blore", "Margent", "Scombroid")
    for a, b in (("Blore", "Margent"), ("Margent", "Scombroid")):
        k = T.border_of[tuple(sorted((P[a], P[b])))]
        e.road[k] = True
        e.roads_built.append(k)
    opts = e._loc_options(0, P["Palmain"], [P["Margent"]])
    assert opts == {P["Margent"]: [(0, 1), (1, 1)]}  # via Blore (land) or Scombroid (Serpent Sea)


# ------------------------------------------------------------------------------- cards & deck
def test_counsellor_draws_one_more_than_discarded():
    """Rulebook: 'Du kannst eine oder mehrere Karten aus deiner Hand abwerfen. Für jede abgeworfene
    Karte und für den Berater ziehst du eine Ersatzkarte von deinem Zugstapel.'"""
    e = blank()
    own(e, 0, "Blore", "Quean", "Margent", "Trogle")
    put(e, 0, "hand", e.ID["Counsellor"], P["Blore"], P["Quean"])
    put(e, 0, "draw", S(0, ARMY), S(0, MARKET))
    play(e, "COUNSELLOR", card(P["Blore"]), card(P["Quean"]), "DONE")
    assert len(e.hand[0]) == 3 and len(e.draw[0]) == 1
    assert e.ID["Counsellor"] in e.discard[0] and P["Blore"] in e.discard[0]
    assert e.actions_used == 0 and e.any_action  # a free action: no END_WAR / END_GAME afterwards


def test_remove_cards_keeps_seven_cards_in_the_deck():
    """Rulebook: 'Mit dieser Aktion kannst du dein Deck verkleinern, indem du 1 oder 2 Karten dahin
    zurücklegst, wo sie hergekommen sind ... Entfernst du eine Gebietskarte, so behältst du dennoch die
    Kontrolle über das Gebiet.' -- 'Dein Deck darf aber niemals weniger als 7 Karten haben!' (A-31)"""
    e = blank()
    own(e, 0, "Blore", "Quean")
    put(e, 0, "hand", P["Blore"], P["Quean"], S(0, ARMY), S(0, MARKET), S(0, SHIP), S(0, BUILD), S(0, MARKET2))
    assert e.deck_size(0) == 7 and "REMOVE_FROM_DECK" not in legal_names(e)
    put(e, 0, "draw", e.ID["Army"])
    play(e, "REMOVE_FROM_DECK", card(P["Blore"]))
    assert e.phase == Phase.CHOOSE and e.deck_size(0) == 7  # stopped at 7 cards
    assert P["Blore"] in e.pstack and e.controller[P["Blore"]] == 0  # control stays
    play(e, "DRAFT")
    assert card(P["Blore"]) not in legal_names(e)  # not in the turn it was removed (next tests)


def test_draft_takes_a_display_card_for_one_gold():
    e = blank()
    put(e, 0, "hand", S(0, ARMY))
    play(e, "DRAFT", card(e.ID["Queen"]))
    assert e.phase == Phase.PAY
    play(e, card(S(0, ARMY)))
    assert e.ID["Queen"] in e.discard[0] and e.ID["Queen"] not in e.display
    assert "DRAFT" not in legal_names(e)  # once per turn


def test_a_card_removed_in_this_turn_is_drafted_back_only_in_a_later_turn():
    """Rulebook (Eine Karte dem Deck hinzufügen): 'Mit dieser Aktion kannst du auch eine Karte deinem Deck
    hinzufügen, die du in einem früheren Zug aus deinem Deck entfernt hast. Das kann sowohl eine
    Startkarte als auch eine Gebietskarte sein, vorausgesetzt, du kontrollierst das Gebiet noch.'"""
    e = blank()
    own(e, 0, "Blore")
    put(e, 0, "hand", P["Blore"], S(0, BUILD), S(0, ARMY), S(0, MARKET))
    put(e, 0, "draw", *e.display[:6])
    play(e, "REMOVE_FROM_DECK", card(S(0, BUILD)), card(P["Blore"]))
    assert S(0, BUILD) in e.aside[0] and P["Blore"] in e.pstack
    play(e, "DRAFT")
    offered = legal_names(e)
    assert card(S(0, BUILD)) not in offered and card(P["Blore"]) not in offered
    assert card(S(0, SHIP)) in offered  # set aside before this turn: may come back
    play(e, card(S(0, SHIP)), card(S(0, ARMY)))
    assert e.active == 1
    play(e, "PASS", "PASS")
    assert e.active == 0
    put(e, 0, "hand", S(0, MARKET2))
    play(e, "DRAFT")
    offered = legal_names(e)
    assert card(S(0, BUILD)) in offered and card(P["Blore"]) in offered  # a later turn (A-41: Blore held)


def test_seed_10_build_card_removed_is_not_offered_by_draft_in_the_same_turn():
    """The reported case through the public API: 2 players, seed 10."""
    import envs
    env = envs.make("mythotopia", num_players=2)
    env.reset(seed=10)

    def step(name):
        index = env.codec.index(name)
        assert index in env.legal_actions(), (name, [env.action_name(i) for i in env.legal_actions()])
        env.step(index)

    for name in ("REMOVE_FROM_DECK", "CARD(Build(start0-2))", "DONE", "DRAFT"):
        step(name)
    offered = [env.action_name(i) for i in env.legal_actions()]
    assert offered and "CARD(Build(start0-2))" not in offered


def test_merchant_and_water_mill_pay_two_stone_with_one_food_card():
    """Merchant changes a card's resource, Water Mill doubles it (spec 2.9; A-34: both on one card)."""
    e = blank()
    own(e, 0, "Quean", "Palmain")
    put(e, 0, "hand", S(0, BUILD), P["Quean"], P["Palmain"], e.MERCHANT, e.WATERMILL)
    play(e, "BUILD", "OPTION(0)", prov("Quean"), card(P["Quean"]))
    assert legal_names(e) == {"MODE(MERCHANT)", "MODE(WATER_MILL)"}
    play(e, "MODE(MERCHANT)")
    assert legal_names(e) == {"MODE(WATER_MILL)"}  # Palmain alone would leave 1 stone unpaid
    play(e, "MODE(WATER_MILL)", card(P["Palmain"]))
    assert e.settle[P["Quean"]] == CITY_S


def test_reserve_capacity_and_converters():
    """Rulebook: 'Eine Stadt erhöht die Kapazität deiner Reserve um 1'; Warehouse +2 (spec 2.11);
    Quarry: once per turn any card counts as 1 stone (spec 5.6)."""
    e = blank()
    own(e, 0, "Quean")
    put(e, 0, "hand", e.ID["Warehouse"], e.ID["Quarry"], e.ID["Queen"], S(0, BUILD), P["Quean"])
    play(e, "RESERVE", card(e.ID["Warehouse"]), card(e.ID["Quarry"]))
    assert e.capacity(0) == 4
    play(e, card(e.ID["Queen"]), "DONE")
    assert len(e.reserve[0]) == 3 and e.hand_limit(0) == 6
    assert "BUILD" in legal_names(e)  # the castle's stone comes from the Quarry converting a card
    play(e, "BUILD", "OPTION(1)", prov("Quean"), card(P["Quean"]))
    assert legal_names(e) == {"MODE(CONVERT)"}
    put(e, 0, "hand", S(0, SHIP))
    assert legal_names(e) == {"MODE(CONVERT)"}
    play(e, "MODE(CONVERT)", card(S(0, SHIP)))
    assert e.castle[P["Quean"]] and e.ID["Quarry"] in e.reserve[0] and e.active == 1


# -------------------------------------------------------------------------- wars against players
def test_conquest_takes_the_card_from_the_hand_with_a_replacement_and_spoils():
    """Rulebook: 'Hat er das Gebiet einem anderen Spieler abgenommen, so muss dieser die Gebietskarte
    aus seinen Karten heraussuchen und sie dem Angreifer geben. Hatte er sie auf der Hand, zieht er
    eine Ersatzkarte von seinem Zugstapel.'"""
    e = blank()
    own(e, 1, "Blore", "Trogle")
    own(e, 0, "Margent")
    put(e, 1, "hand", P["Blore"])
    put(e, 1, "draw", S(1, ARMY))
    e.armies[P["Blore"]][0] = 5
    e.armies_pers[0] -= 5
    vp1 = e.vp(1)
    assert e.strength(P["Blore"], 1) == 1  # rugged, no armies
    play(e, "END_WAR", prov("Blore"))
    assert e.controller[P["Blore"]] == 0 and P["Blore"] in e.discard[0]
    assert P["Blore"] not in e.hand[1] and len(e.hand[1]) == 1  # the replacement card
    assert e.vp(1) == vp1 - 3 and e.counters[0][1] == 1 and len(e.vp_cards[V_SPOILS]) == 5


def test_defender_of_the_realm_when_a_player_defends_successfully():
    e = blank()
    own(e, 1, "Blore")
    e.armies[P["Blore"]][1] = 3
    e.armies[P["Blore"]][0] = 2
    e.armies_pers[0] -= 2
    e.armies_pers[1] -= 3
    e.active = e.actor = 1
    e._start_turn()
    play(e, "END_WAR", prov("Blore"))
    assert e.controller[P["Blore"]] == 1 and e.counters[1][1] == 1 and len(e.vp_cards[V_DEFENDER]) == 5
    assert e.armies_pers == [6, 6]


def test_reserve_army_blocks_a_second_conflict():
    e = blank()
    own(e, 1, "Blore", "Trogle")
    own(e, 0, "Margent", "Scombroid")
    put(e, 1, "reserve", e.ID["Reserve Army"])
    put(e, 0, "hand", P["Margent"], S(0, ARMY), S(0, MARKET))
    assert P["Blore"] in e._invade_targets(0)
    e.armies[P["Trogle"]][0] = 1  # already at war with seat 1 over Trogle
    e.armies_pers[0] -= 1
    e.stamp_everything()  # direct board edit: every cache looks again
    assert P["Blore"] not in e._invade_targets(0) and P["Iracund"] not in e._invade_targets(0)


# ------------------------------------------------------------------------------- VP and the end
def test_patronage_and_master_of_the_sea():
    e = blank()
    own(e, 0, "Camarine", "Custus", "Coryphee")
    put(e, 0, "hand", S(0, MARKET), S(0, MARKET2), S(0, SHIP))
    play(e, "PATRONAGE", card(S(0, MARKET)), card(S(0, MARKET2)))
    assert e.counters[0][1] == 1 and len(e.vp_cards[V_PATRONAGE]) == 4
    e.ships[0][0] = 1  # Beast
    e.ships[1][0] = 1  # Serpent
    e.ships_gen[0] -= 2
    play(e, "PLACE_SHIPS", "SEA(S2)", card(S(0, SHIP)), "DONE")
    assert e.counters[0][2] == 1 and e.sea_claimed == [0, -1] and len(e.vp_cards[V_SEA]) == 1


def end_position():
    e = blank()
    for k in (V_CITY, V_CASTLE, V_ROADS, V_PATRONAGE):
        e.vp_cards[k] = []
    own(e, 0, "Blore", "Quean")
    own(e, 1, "Margent")
    return e


def test_end_the_game_needs_four_empty_cards_first_action_and_the_strict_lead():
    """Rulebook: 'Sobald auf 4 Siegpunktkarten keine Plättchen mehr liegen, ist das Spielende nah. Denn
    ab jetzt kann jeder Spieler die Aktion „Das Spiel beenden“ wählen.' (first action, strict leader
    after resolving every war: spec 5.3.15)"""
    e = end_position()
    assert "END_GAME" in legal_names(e)
    e.vp_cards[V_PATRONAGE] = [1]
    assert "END_GAME" not in legal_names(e)  # only 3 empty cards
    e.vp_cards[V_PATRONAGE] = []
    own(e, 1, "Trogle")
    assert "END_GAME" not in legal_names(e)  # 6 : 6 is no strict lead
    # seat 1 would lose Trogle in the final evaluation of the war there: seat 0 leads afterwards
    e.armies[P["Trogle"]][0] = 5
    e.armies_pers[0] -= 5
    assert "END_GAME" in legal_names(e)
    before = state_bytes(e)
    play(e, "END_GAME")
    assert e.is_over and e.winner == 0 and e.controller[P["Trogle"]] == 0 and e.scores() == [10, 3]  # Trogle conquered from a player: Spoils of War
    assert state_bytes(e) != before


def test_end_game_ties_in_the_evaluation_go_to_the_defender():
    e = end_position()
    own(e, 1, "Trogle")
    e.armies[P["Trogle"]][0] = 4  # Trogle: rugged, player defender with 0 armies has strength 1 ... tie needs 1
    e.armies[P["Trogle"]][0] = 1
    e.armies_pers[0] -= 1
    assert e.strength(P["Trogle"], 0) == e.strength(P["Trogle"], 1) == 1
    assert "END_GAME" not in legal_names(e)  # the tie keeps Trogle with seat 1: 6 : 6


def test_illegal_moves_raise_and_leave_the_engine_unchanged():
    e = palmain_position()
    before = state_bytes(e)
    with pytest.raises(IllegalActionError, match="illegal"):
        e.apply(M.DONE)
    with pytest.raises(IllegalActionError, match="illegal"):
        e.apply(M.PROVINCE + P["Blore"])
    assert state_bytes(e) == before


def test_marauders_names_players_relative_to_the_actor():
    """Marauders: 'Remove one army from any province' (A-39); the PLAYER segment is seat-relative."""
    e = blank(3)
    e.active = e.actor = 1
    e._start_turn()
    e.armies[P["Blore"]][0] = 2
    e.armies[P["Blore"]][2] = 1
    e.armies_pers[0] -= 2
    e.armies_pers[2] -= 1
    put(e, 1, "hand", e.ID["Marauders"])
    play(e, "MARAUDERS", prov("Blore"))
    assert legal_names(e) == {"PLAYER(+2)", "PLAYER(+1)"}  # seat 0 is +2 from seat 1, seat 2 is +1
    play(e, "PLAYER(+2)")
    assert e.armies[P["Blore"]] == [1, 0, 1] and e.armies_pers[0] == 5 and e.any_action


# ------------------------------------------------------------------------------------- Scribe
def scribe_position(n=2):
    """Seat 0 to act with 2 gold in hand for Patronage; the tests put the Scribe into a reserve."""
    e = blank(n)
    own(e, 0, "Camarine")
    put(e, 0, "hand", S(0, MARKET), S(0, MARKET2))
    return e


@pytest.mark.parametrize("source", ["card", "spare"])
def test_scribe_owner_chooses_where_an_earned_counter_comes_from(source):
    """Scribe: 'Immer wenn du ein Siegpunktplättchen von einer Siegpunktkarte nehmen darfst, kannst du
    stattdessen ein entsprechendes Plättchen aus dem Vorrat der ungenutzten Siegpunktplättchen nehmen.'"""
    e = scribe_position()
    put(e, 0, "reserve", e.ID["Scribe"])
    spare = e.spare[1]
    play(e, "PATRONAGE", card(S(0, MARKET)), card(S(0, MARKET2)))
    assert e.phase == Phase.SCRIBE_SOURCE and e.current_player == 0
    assert legal_names(e) == {"OPTION(0)", "OPTION(1)"}
    assert e.counters[0][1] == 1  # the counter is earned either way; only its source is open
    play(e, "OPTION(0)" if source == "card" else "OPTION(1)")
    assert e.phase == Phase.CHOOSE and e.actions_used == 1 and e.counters[0][1] == 1
    if source == "card":
        assert len(e.vp_cards[V_PATRONAGE]) == 4 and e.spare[1] == spare
    else:
        assert len(e.vp_cards[V_PATRONAGE]) == 5 and e.spare[1] == spare - 1


def test_scribe_choice_only_when_both_sources_have_the_counter():
    # no Scribe: from the card, no decision
    e = scribe_position()
    play(e, "PATRONAGE", card(S(0, MARKET)), card(S(0, MARKET2)))
    assert e.phase == Phase.CHOOSE and len(e.vp_cards[V_PATRONAGE]) == 4
    # Scribe, but the spare stock has no 1-VP counter: from the card, no decision
    e = scribe_position()
    put(e, 0, "reserve", e.ID["Scribe"])
    e.counter_total[1] -= e.spare[1]
    e.spare[1] = 0
    play(e, "PATRONAGE", card(S(0, MARKET)), card(S(0, MARKET2)))
    assert e.phase == Phase.CHOOSE and len(e.vp_cards[V_PATRONAGE]) == 4
    # Scribe and an empty card: from the spare stock, no decision
    e = scribe_position()
    put(e, 0, "reserve", e.ID["Scribe"])
    e.vp_cards[V_PATRONAGE] = []
    spare = e.spare[1]
    play(e, "PATRONAGE", card(S(0, MARKET)), card(S(0, MARKET2)))
    assert e.phase == Phase.CHOOSE and e.counters[0][1] == 1 and e.spare[1] == spare - 1


def test_scribe_choice_of_a_defender_who_is_not_the_active_player():
    e = blank()
    own(e, 1, "Blore")
    put(e, 1, "reserve", e.ID["Scribe"])
    e.armies[P["Blore"]][1] = 3
    e.armies[P["Blore"]][0] = 2
    e.armies_pers[0] -= 2
    e.armies_pers[1] -= 3
    play(e, "END_WAR", prov("Blore"))
    assert e.phase == Phase.SCRIBE_SOURCE and e.current_player == 1 and e.active == 0
    encoder = MythotopiaEncoder(e.config, 2)
    raw = encoder.unscale(encoder.encode(e, 1))
    scribe = raw[encoder.layout["scribe_choice"]]
    assert scribe[VP_INDEX["Defender of the Realm"]] == 1 and scribe[-1] == 1 and scribe.sum() == 2
    assert raw[encoder.layout["phase"]][Phase.SCRIBE_SOURCE] == 1
    assert encoder.unscale(encoder.encode(e, 0))[encoder.layout["phase"]][-1] == 1  # not seat 0's decision
    play(e, "OPTION(1)")
    assert e.current_player == 0 and e.phase == Phase.CHOOSE and len(e.vp_cards[V_DEFENDER]) == 6
    assert e.counters[1][1] == 1


def test_scribe_and_master_of_the_sea_from_the_spare_stock_with_a_village_marker():
    """Scribe: 'Wenn du die erste Bedingung der „Master of the Sea”-Siegpunktkarte erfüllst, darfst du ein
    entsprechendes Plättchen aus dem Vorrat ... nehmen. Allerdings musst du eines deiner Dorfplättchen auf
    die Siegpunktkarte legen' -- and the condition stays open for the others."""
    e = blank()
    own(e, 0, "Camarine", "Custus", "Coryphee")
    put(e, 0, "hand", S(0, SHIP))
    put(e, 0, "reserve", e.ID["Scribe"])
    e.ships[0][0] = 1  # Beast
    e.ships[1][0] = 1  # Serpent
    e.ships_gen[0] -= 2
    villages, spare = e.villages[0], e.spare[2]
    play(e, "PLACE_SHIPS", "SEA(S2)", card(S(0, SHIP)), "DONE")
    assert e.phase == Phase.SCRIBE_SOURCE and legal_names(e) == {"OPTION(0)", "OPTION(1)"}
    assert e.counters[0][2] == 1 and e.sea_claimed == [0, -1]  # from the card until decided
    play(e, "OPTION(1)")
    assert e.phase == Phase.CHOOSE and e.counters[0][2] == 1 and len(e.vp_cards[V_SEA]) == 2
    assert e.sea_claimed == [-1, -1] and e.spare[2] == spare - 1
    assert e.villages[0] == villages - 1 and e.villages_on_card[0] == 1
    e._check_sea(0)  # the condition is met once per player: no second counter from the card
    assert e.counters[0][2] == 1 and len(e.vp_cards[V_SEA]) == 2
