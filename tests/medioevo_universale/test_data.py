"""Component data: the placeholder map (Appendix A), decks (Appendices B, C), tables of the spec."""
import collections

from envs.medioevo_universale.data import (
    EMPIRES, STARTING_KITS, connected_empire_sets, game_data, markers_feasible, playable_nodes,
)


def _names(ids):
    board = game_data().board
    return {board.names[i] for i in ids}


def test_default_map_counts_match_appendix_a():
    b = game_data().board
    assert b.num_nodes == 65
    assert sum(b.is_sea) == 7
    assert sum(b.inhabited) == 36
    assert sum(b.port) == 17
    assert sum(b.barbarian_symbol) == 10
    for e in range(6):
        regions = b.empire_regions(e)
        assert len(regions) == 6, EMPIRES[e]
        assert sum(b.inhabited[r] for r in regions) == 4, EMPIRES[e]
        assert any(b.port[r] for r in regions), f"{EMPIRES[e]} needs a port (9.1 e)"


def test_goods_production_table():
    b, comp = game_data().board, game_data().comp
    count = collections.Counter(comp.goods[g] for g in b.good if g >= 0)
    assert count == {"weapons": 5, "salt": 4, "furs": 5, "grain": 5, "slaves": 4, "spices": 5, "cloth": 4, "wine": 4}
    assert comp.goods[b.good[b.index("Rom")]] == "grain"  # [SRC]
    assert comp.goods[b.good[b.index("Caffa")]] == "slaves"
    assert comp.goods[b.good[b.index("Saraj")]] == "spices"


def test_start_empire_distances_are_the_connection_graph():
    """Appendix A checks: HRE-HUN 1; HUN-BYZ 2; HUN-GH 2; BYZ-GH 2; BYZ-MAM 3; GH-NOV 1; others >= 4."""
    b = game_data().board
    expected = {("HRE", "HUN"): 1, ("HUN", "BYZ"): 2, ("HUN", "GH"): 2, ("BYZ", "GH"): 2, ("BYZ", "MAM"): 3,
                ("GH", "NOV"): 1}
    for i in range(6):
        for j in range(i + 1, 6):
            d = min(b.dist[x][y] for x in b.empire_regions(i) for y in b.empire_regions(j))
            key = (EMPIRES[i], EMPIRES[j])
            want = expected.get(key) or expected.get(key[::-1])
            if want is None:
                assert d >= 4, key
            else:
                assert d == want, key


def test_source_distances():
    b = game_data().board
    assert b.dist[b.index("Caffa")][b.index("Saraj")] == 3  # 3 caravan MP [SRC]
    assert b.dist[b.index("Rom")][b.index("Panormos")] == 2  # neighbouring by sea
    assert b.land_adj[b.index("Panormos")] == ()  # an island
    assert (b.index("Thrakien"), b.index("Troas")) in b.strait  # the Dardanelles


def test_connected_empire_sets_per_player_count():
    """Spec 3: 7 sets for 3 players, 6 for 4, 3 for 5, 1 for 6 (and 6 pairs for 2)."""
    assert [len(connected_empire_sets(k)) for k in (2, 3, 4, 5, 6)] == [6, 7, 6, 3, 1]
    three = {frozenset(EMPIRES[e] for e in s) for s in connected_empire_sets(3)}
    assert three == {frozenset(x.split("+")) for x in (
        "HRE+HUN+BYZ", "HRE+HUN+GH", "HUN+BYZ+MAM", "HUN+BYZ+GH", "HUN+GH+NOV", "BYZ+MAM+GH", "BYZ+GH+NOV")}
    five = {frozenset(set(EMPIRES) - {EMPIRES[e] for e in s}) for s in connected_empire_sets(5)}
    assert five == {frozenset({"NOV"}), frozenset({"MAM"}), frozenset({"HRE"})}


def test_board_restriction_hre_hun_byz():
    """Appendix A: {HRE, HUN, BYZ} excludes exactly 11 nodes (54 playable)."""
    play = playable_nodes((0, 1, 2))
    assert len(play) == 54
    excluded = _names(set(range(65)) - play)
    assert excluded == {"Nowgorod", "Pskow", "Newa", "Twer", "Karelien", "Wologda", "Bolgar", "Riga",
                        "Ostsee (Baltic Sea)", "Damaskus", "Kairo"}
    assert len(playable_nodes(tuple(range(6)))) == 65


def test_ownership_markers_halls_condition():
    """Spec 2.1 / G8: n1 <= 8, n2 <= 6, n3 <= 4, n2 + n3 <= 8, n1 + n2 + n3 <= 10."""
    for n1 in range(11):
        for n2 in range(11):
            for n3 in range(11):
                want = n1 <= 8 and n2 <= 6 and n3 <= 4 and n2 + n3 <= 8 and n1 + n2 + n3 <= 10
                assert markers_feasible((n1, n2, n3)) == want, (n1, n2, n3)


def test_starting_kits_are_fourteen():
    """S2: one level II transport (4) or two level I transports (10 unordered pairs)."""
    assert len(STARTING_KITS) == 14
    assert len(set(STARTING_KITS)) == 14
    assert all(sum(lv for _, lv in kit) == 2 for kit in STARTING_KITS)


def test_event_deck_backs_and_zones():
    events = game_data().events
    assert len(events) == 30
    assert collections.Counter(e.allowed_tax for e in events) == {10: 3, 20: 6, 30: 12, 40: 6, 50: 3}
    assert all(len(e.symbols) == 3 for e in events)
    covered = set().union(*(e.regions for e in events))
    assert len(covered) == 58


def test_empire_cards_known_values():
    cards = game_data().cards
    assert len(cards) == 72
    colours = ("blue", "yellow", "orange", "red", "green", "violet")
    assert [[colours[c] for c in alt] for alt in cards[4].tp] == [["red"], ["blue"]]  # card 5
    assert [[colours[c] for c in alt] for alt in cards[9].tp] == [["green"]]  # card 10
    assert colours[cards[45].token_colours[0]] == "red"  # card 46
    assert cards[45].goal_key == 21 and cards[45].goal_threshold == 5  # chain of 5 military buildings
