"""The core change log (envs/core/changes.py): stamps, item logs and the content check."""
import copy

import pytest

from envs.core.changes import ITEM_LOG_CHECK, ITEM_LOG_LIMIT, ChangeLog, CountedChangeLog, Domains, check_reported

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


class CountedToy(CountedChangeLog, Toy):
    pass


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


def test_a_move_stamps_every_domain_it_reported():
    toy = Toy()
    toy.changed(MONEY | SEATS)
    toy.changed_in(BOARD, 4)
    toy.stamp_changes()
    assert toy.stamps == [1, 1, 1] and toy.stamped_bits == DOMAINS.all
    toy.pay(2)
    assert toy.stamps == [1, 2, 1] and toy.changed_since(1) == MONEY


def test_a_move_without_a_report_advances_the_count_only():
    toy = Toy()
    toy.stamp_changes()
    assert toy.moves == 1 and toy.stamped == 0 and toy.changed_since(0) == 0


def test_the_item_log_restarts_beyond_its_limit():
    toy = Toy()
    for i in range(ITEM_LOG_LIMIT + 1):
        toy.changed_in(BOARD, i % 8)
    for _ in range(ITEM_LOG_CHECK - 1):  # checked every ITEM_LOG_CHECK moves only
        toy.stamp_changes()
        assert toy.item_log_epoch == 0
    toy.stamp_changes()
    assert toy.item_log(BOARD) == [] and toy.item_log_epoch == 1


def test_stamp_at_once_and_stamp_everything():
    toy = Toy()
    toy.stamp_at_once(SEATS)
    assert toy.moves == 1 and toy.changed_since(0) == SEATS
    toy.stamp_everything()
    assert toy.changed_since(1) == DOMAINS.all and toy.item_log_epoch == 1


def test_changed_in_all_sends_observers_to_every_item():
    toy = Toy()
    toy.put(1, 7)
    read, epoch = len(toy.item_log(BOARD)), toy.item_log_epoch
    toy.cells[:] = [9] * 8
    toy.changed_in_all(BOARD)
    toy.stamp_changes()
    assert toy.changed_since(1) == BOARD
    # the items are not named: the epoch moved, so an observer that read the log looks at every cell
    assert toy.item_log_epoch == epoch + 1 and toy.item_log(BOARD) == [] and read == 1


def test_a_counted_domain_moves_its_revision_at_once():
    """A rules cache keyed on a revision sees a change made earlier in the same move (the stamps wait for its
    end); only the counted domains have a revision."""
    counted = Domains(DOMAINS.attributes, itemized=("board",), counted=("board", "money"))
    with pytest.raises(TypeError, match="CountedChangeLog"):
        Toy().start_change_log(counted)
    toy = CountedToy()
    toy.start_change_log(counted)
    assert toy.revisions == {BOARD: 0, MONEY: 0}
    toy.changed(MONEY | SEATS)
    assert toy.revisions == {BOARD: 0, MONEY: 1} and toy.moves == 0
    toy.changed_in(BOARD, 3)
    toy.changed(BOARD | MONEY)
    assert toy.revisions == {BOARD: 2, MONEY: 2}
    toy.stamp_changes()
    assert toy.revisions == {BOARD: 2, MONEY: 2}
    toy.changed_in_all(BOARD)
    assert toy.revisions == {BOARD: 3, MONEY: 2}
    toy.stamp_at_once(BOARD)
    toy.stamp_everything()
    assert toy.revisions == {BOARD: 5, MONEY: 3}


def test_check_reported_finds_an_unreported_change():
    toy = Toy()
    assert check_reported(toy, DOMAINS, lambda: toy.put(1, 7)) == 0
    assert check_reported(toy, DOMAINS, lambda: toy.put(3, 7, report=False)) == BOARD
    assert DOMAINS.names_of(BOARD | MONEY) == ["board", "money"]


def test_a_copied_engine_shares_the_domains():
    toy = Toy()
    toy.pay(2)
    twin = copy.deepcopy(toy)
    assert twin.change_domains is DOMAINS and twin.stamps == toy.stamps and twin.stamps is not toy.stamps


def test_an_undo_within_one_move_forgets_its_items():
    toy = Toy()
    toy.put(1, 7)
    mark = toy.item_mark(BOARD)
    toy.cells[2] = 5
    toy.changed_in(BOARD, 2)
    toy.cells[2] = 0  # put back within the same move: the log drops the item
    assert toy.forget_items(BOARD, mark) and toy.item_log(BOARD) == [1]
    toy.stamp_changes()
    # a mark of an earlier move: observers may have read the items since, nothing is dropped
    toy.put(3, 4)
    assert not toy.forget_items(BOARD, mark) and toy.item_log(BOARD) == [1, 3]
