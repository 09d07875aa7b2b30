"""The change log: which parts of a game's state the rules changed, so that an observer need not look again.

A game declares its state domains once, as a ``Domains`` table (domain name -> the engine attributes it covers,
each attribute in one domain only). Its rules report a change with one call at their choke points:
``self.changed(UNITS)`` (a domain's bit, or several or-ed together), or ``self.changed_in(BOARD, cell)`` when
observers want to know which item of a domain changed (a cell, a seat), or ``self.changed_in_all(BOARD)`` when a
rule changes every item of it. A rule reports what it may change (a reset of what was already reset is allowed),
never less. The engine mixes in ``ChangeLog``, calls ``start_change_log(domains)`` when it is built and
``stamp_changes()`` at the end of every move:

* ``moves`` counts the stamped moves; ``stamps[i]`` is the move that last changed domain ``i``, ``stamped`` the
  latest stamp, ``stamped_bits`` the domains stamped then and ``stamped_before`` the stamp before it. An observer
  remembers the ``moves`` it last looked at and looks again only at the domains stamped later
  (``changed_since``); one that looked after ``stamped_before`` reads ``stamped_bits`` without a scan.
* ``item_log(bit)`` lists the items reported with ``changed_in`` in order; an observer remembers how far it read
  (a position) and the log's ``item_log_epoch``, which moves when the logs restart (every item may have
  changed: look at all of them). A move that puts items back as they were earlier in the same move (an undo)
  may drop what it logged since (``item_mark``, ``forget_items``).
* ``revisions[bit]`` counts the reports of a domain declared ``counted``, at once: a rules cache that must see a
  change made earlier in the same move (the stamps move only at its end) keys on the revisions it reads. Such an
  engine mixes in ``CountedChangeLog`` instead.

Two more kinds of stamp: ``stamp_at_once`` for a lazy update a query makes between two moves, and
``stamp_everything`` for an edit from outside the rules (tests, a loaded position).

Observers keep their caches in themselves, never on the engine. ``Domains.snapshot`` and
``Domains.changed_bits`` find changed domains by content: tests use them to check, at every step of random
games, that the rules reported every change (``check_reported``).
"""
from __future__ import annotations

import copy
from itertools import compress

#: the item logs restart (and ``item_log_epoch`` moves) when one has grown beyond ITEM_LOG_LIMIT entries at a
#: move that is a multiple of ITEM_LOG_CHECK (checking at every move costs a step about 1 %)
ITEM_LOG_LIMIT = 4096
ITEM_LOG_CHECK = 256


class Domains:
    """A game's state domains: name -> the engine attributes it covers; bit ``1 << i`` for the i-th name."""

    __slots__ = ("attributes", "names", "bit", "bits", "all", "itemized", "counted")

    def __init__(self, attributes: dict[str, tuple[str, ...]], itemized: tuple[str, ...] = (),
                 counted: tuple[str, ...] = ()):
        seen: set[str] = set()
        for name, attrs in attributes.items():
            if seen & set(attrs):
                raise ValueError(f"domain {name!r}: {sorted(seen & set(attrs))} already belong to another domain")
            seen.update(attrs)
        self.attributes = dict(attributes)
        self.names = tuple(attributes)
        self.bit = {name: 1 << i for i, name in enumerate(self.names)}
        self.bits = tuple(self.bit.values())
        self.all = (1 << len(self.names)) - 1
        unknown = set(itemized) - set(self.names)
        if unknown:
            raise ValueError(f"itemized domains {sorted(unknown)} are not declared")
        #: the bits of the domains whose changes name their items (``ChangeLog.changed_in``)
        self.itemized = tuple(self.bit[name] for name in itemized)
        unknown = set(counted) - set(self.names)
        if unknown:
            raise ValueError(f"counted domains {sorted(unknown)} are not declared")
        #: the bits of the domains whose reports also move their revision at once (``ChangeLog.revisions``)
        self.counted = sum(self.bit[name] for name in set(counted))

    def __len__(self) -> int:
        return len(self.names)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):  # fixed once declared: an engine's clone shares its game's table
        return self

    def names_of(self, bits: int) -> list[str]:
        return [name for i, name in enumerate(self.names) if bits >> i & 1]

    def snapshot(self, engine) -> list:
        """A deep copy of every domain's attributes (a missing attribute as a marker), for ``changed_bits``."""
        return [copy.deepcopy(tuple(getattr(engine, a, _MISSING) for a in attrs))
                for attrs in self.attributes.values()]

    def changed_bits(self, before: list, engine) -> int:
        """The bits of the domains whose content differs from the ``snapshot`` ``before``."""
        bits = 0
        for i, (attrs, old) in enumerate(zip(self.attributes.values(), before)):
            if tuple(getattr(engine, a, _MISSING) for a in attrs) != old:
                bits |= 1 << i
        return bits


_MISSING = "<missing attribute>"


class ChangeLog:
    """Mixin for a rules engine: the changes its rules report, stamped with the move that made them.

    The attributes (``SLOTS``) belong to the engine; an engine with ``__slots__`` lists ``ChangeLog.SLOTS``.
    """

    __slots__ = ()
    SLOTS = ("change_domains", "unstamped", "moves", "stamps", "stamped", "stamped_bits", "stamped_before",
             "item_logs", "item_log_epoch", "counted", "revisions")

    def start_change_log(self, domains: Domains) -> None:
        """A new engine: nothing reported yet (observers look at everything first)."""
        if domains.counted and type(self).changed is ChangeLog.changed:  # not isinstance: see core/engine.py flat_class
            raise TypeError(f"{type(self).__name__} declares counted domains: mix in CountedChangeLog")
        self.change_domains = domains
        self.unstamped = 0  # the domains reported since the last stamp
        self.moves = 0
        self.stamps = [0] * len(domains)
        self.stamped = self.stamped_bits = self.stamped_before = 0
        self.item_logs = {bit: [] for bit in domains.itemized}
        self.item_log_epoch = 0
        self.counted = domains.counted
        self.revisions = {bit: 0 for bit in domains.bits if bit & domains.counted}

    def changed(self, bits: int) -> None:
        """The rule in progress changed (or may have changed) the domains ``bits``."""
        self.unstamped |= bits

    def changed_in(self, bit: int, item) -> None:
        """The rule in progress changed ``item`` (a cell, a seat) of the itemized domain ``bit``."""
        self.unstamped |= bit
        self.item_logs[bit].append(item)

    def changed_in_all(self, bit: int) -> None:
        """The rule in progress changed (or may have changed) every item of the itemized domain ``bit``: the item
        logs restart (``item_log_epoch`` moves), so observers look at every item."""
        self.unstamped |= bit
        self.item_logs[bit].clear()  # the epoch sends observers of every log to every item; this one may go
        self.item_log_epoch += 1

    def count_revisions(self, bits: int) -> None:
        """Move the revisions of the counted domains among ``bits`` at once."""
        bits &= self.counted
        revisions = self.revisions
        while bits:
            low = bits & -bits
            revisions[low] += 1
            bits ^= low

    def stamp_changes(self) -> None:
        """End of a move: count it and stamp the domains reported during it."""
        self.moves = now = self.moves + 1
        bits = self.unstamped
        if bits:
            self.unstamped = 0
            self.stamped_before = self.stamped
            self.stamped = now
            self.stamped_bits = bits
            if bits & (bits - 1):
                stamps = self.stamps
                while bits:
                    low = bits & -bits
                    stamps[low.bit_length() - 1] = now
                    bits ^= low
            else:  # one domain, the usual move: no loop
                self.stamps[bits.bit_length() - 1] = now
        if not now % ITEM_LOG_CHECK:  # bounds the item logs; observers then look at every item
            for log in self.item_logs.values():
                if len(log) > ITEM_LOG_LIMIT:
                    self.restart_item_logs()
                    break

    def stamp_at_once(self, bits: int) -> None:
        """A lazy update, which a query between two moves may make: stamped at once as a move of its own
        (observers look again before the next move), and again at the end of the move in progress, if any."""
        in_progress = self.unstamped
        self.count_revisions(bits)
        self.unstamped = bits
        self.stamp_changes()
        self.unstamped = in_progress | bits

    def stamp_everything(self) -> None:
        """The state was edited from outside the rules (tests, a loaded position): every domain changed."""
        self.moves += 1
        self.stamps[:] = [self.moves] * len(self.stamps)
        self.stamped_before, self.stamped, self.stamped_bits = self.stamped, self.moves, self.change_domains.all
        self.count_revisions(self.counted)
        self.restart_item_logs()

    def restart_item_logs(self) -> None:
        for log in self.item_logs.values():
            log.clear()
        self.item_log_epoch += 1

    def item_log(self, bit: int) -> list:
        return self.item_logs[bit]

    def item_mark(self, bit: int) -> tuple[int, int, int]:
        """Where the item log of ``bit`` stands in the move in progress (for ``forget_items``)."""
        return self.moves, self.item_log_epoch, len(self.item_logs[bit])

    def forget_items(self, bit: int, mark: tuple[int, int, int]) -> bool:
        """The move in progress put every item it named since ``mark`` back as it was then (an undo within one
        move): the log drops them, as no observer has read them, and True is returned. False, with nothing
        dropped, for a mark of an earlier move: the caller reports what it puts back."""
        moves, epoch, length = mark
        if moves != self.moves or epoch != self.item_log_epoch:
            return False
        del self.item_logs[bit][length:]
        return True

    def changed_since(self, moves: int) -> int:
        """The bits of the domains stamped after move ``moves`` (an observer's last look)."""
        if self.stamped <= moves:
            return 0
        if self.stamped_before <= moves:
            return self.stamped_bits
        return sum(compress(self.change_domains.bits, [s > moves for s in self.stamps]))


class CountedChangeLog(ChangeLog):
    """The change log of an engine that declares counted domains: a report moves their revisions at once.
    Apart from ``ChangeLog`` so that the games without counted domains pay nothing for them."""

    __slots__ = ()

    def changed(self, bits: int) -> None:
        self.unstamped |= bits
        counted = bits & self.counted
        if counted:
            if counted & (counted - 1):
                self.count_revisions(counted)
            else:  # one domain, the usual case
                self.revisions[counted] += 1

    def changed_in(self, bit: int, item) -> None:
        self.unstamped |= bit
        self.item_logs[bit].append(item)
        if bit & self.counted:
            self.revisions[bit] += 1

    def changed_in_all(self, bit: int) -> None:
        ChangeLog.changed_in_all(self, bit)
        if bit & self.counted:
            self.revisions[bit] += 1


def check_reported(engine, domains: Domains, play_one_move) -> int:
    """Play one move (``play_one_move()``) and return the bits of the domains it changed without reporting
    them (0 when every change was reported). For tests, at every step of random games."""
    before = domains.snapshot(engine)
    moves_before = engine.moves
    play_one_move()
    changed = domains.changed_bits(before, engine)
    if engine.moves == moves_before:
        return changed
    reported = engine.changed_since(moves_before)
    return changed & ~reported
