"""The core change log (envs/core/changes.py): stamps, item logs and the content check."""
import pytest

from envs.core.changes import ITEM_LOG_LIMIT, ChangeLog, Domains, check_reported

DOMAINS = Domains({"board": ("cells",), "money": ("money",), "seats": ("names",)}, itemized=("board",))
BOARD, MONEY, SEATS = DOMAINS.bits


class Toy(ChangeLog):
    def __init__(self):
        self.cells = [0] * 8
        self.money = 0
        self.names = ["a", "b"]
        self.start_change_log(DOMAINS)

    def put(self, cell, value, report=True):
        self.cells[cell] = value
        if report:
            self.changed_in(BOARD, cell)
        self.stamp_changes()

    def pay(self, amount):
        self.money += amount
        self.changed(MONEY)
        self.stamp_changes()


def test_domains_refuse_an_attribute_in_two_domains():
    with pytest.raises(ValueError, match="already belong"):
        Domains({"a": ("x",), "b": ("x", "y")})
    with pytest.raises(ValueError, match="not declared"):
        Domains({"a": ("x",)}, itemized=("b",))
    with pytest.raises(ValueError, match="not declared"):
        Domains({"a": ("x",)}, counted=("b",))


def test_a_move_stamps_what_it_reported_and_nothing_else():
    toy = Toy()
    assert toy.changed_since(0) == 0
    toy.pay(3)
    assert toy.moves == 1 and toy.stamps == [0, 1, 0]
    assert toy.changed_since(0) == MONEY and toy.changed_since(1) == 0
    toy.put(2, 5)
    toy.pay(1)
    # two stampings since move 1: found by scanning the stamps
    assert toy.changed_since(1) == BOARD | MONEY
    assert toy.changed_since(2) == MONEY
    assert toy.item_log(BOARD) == [2]


def test_a_move_without_a_report_advances_the_count_only():
    toy = Toy()
    toy.stamp_changes()
    assert toy.moves == 1 and toy.stamped == 0 and toy.changed_since(0) == 0


def test_the_item_log_restarts_beyond_its_limit():
    toy = Toy()
    for i in range(ITEM_LOG_LIMIT + 1):
        toy.changed_in(BOARD, i % 8)
    toy.stamp_changes()
    assert toy.item_log(BOARD) == [] and toy.item_log_epoch == 1


def test_stamp_at_once_and_stamp_everything():
    toy = Toy()
    toy.stamp_at_once(SEATS)
    assert toy.moves == 1 and toy.changed_since(0) == SEATS
    toy.stamp_everything()
    assert toy.changed_since(1) == DOMAINS.all and toy.item_log_epoch == 1


def test_a_counted_domain_moves_its_revision_at_once():
    """A rules cache keyed on a revision sees a change made earlier in the same move (the stamps wait for its
    end); only the counted domains have a revision."""
    toy = Toy()
    toy.start_change_log(Domains(DOMAINS.attributes, itemized=("board",), counted=("board", "money")))
    assert toy.revisions == {BOARD: 0, MONEY: 0}
    toy.changed(MONEY | SEATS)
    assert toy.revisions == {BOARD: 0, MONEY: 1} and toy.moves == 0
    toy.changed_in(BOARD, 3)
    toy.changed(BOARD | MONEY)
    assert toy.revisions == {BOARD: 2, MONEY: 2}
    toy.stamp_changes()
    assert toy.revisions == {BOARD: 2, MONEY: 2}
    toy.stamp_at_once(BOARD)
    toy.stamp_everything()
    assert toy.revisions == {BOARD: 4, MONEY: 3}


def test_check_reported_finds_an_unreported_change():
    toy = Toy()
    assert check_reported(toy, DOMAINS, lambda: toy.put(1, 7)) == 0
    assert check_reported(toy, DOMAINS, lambda: toy.put(3, 7, report=False)) == BOARD
    assert DOMAINS.names_of(BOARD | MONEY) == ["board", "money"]
