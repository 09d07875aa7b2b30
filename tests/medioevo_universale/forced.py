"""The loop the forced fuzzes share: seeded random play with the state pushed towards a rare situation."""
import random

from envs.medioevo_universale.changes import DOMAINS
from envs.medioevo_universale.constants import PHASE_NAMES

#: True: every move of the forced games is checked for unreported changes (``check_change_reports``)
CHECK_CHANGES = False


def forced_decisions(env, seed: int, prepare):
    """Plays one seeded game of ``env`` to its end, yielding ``(agent, obs, pick)`` at every decision (the
    caller steps the env, picking with ``pick``, the game's own ``random.Random``); ``prepare(engine)`` edits
    the state once, when the setup is done. An edit from outside the rules gets a new ``revision`` and
    stamps every change domain (call ``touched`` after further edits), so the encoder looks at the whole
    state again (observation/encoder.py)."""
    env.reset(seed=seed)
    if CHECK_CHANGES:
        check_change_reports(env.engine)
    pick = random.Random(seed)
    prepared = False
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        e = env.engine
        if not prepared and e.setup_done:
            prepare(e)
            touched(e)
            prepared = True
        yield agent, obs, pick


def touched(engine) -> None:
    """Tell observers that the state was edited from outside the rules (see ``MedioevoEngine.apply``)."""
    engine.revision = object()
    engine.stamp_everything()


def assert_reported(before: list, engine, where: str) -> None:
    """Every domain whose content differs from the ``DOMAINS.snapshot`` ``before`` carries the stamp of
    the move just applied."""
    missing = [name for name in DOMAINS.names_of(DOMAINS.changed_bits(before, engine))
               if engine.stamps[DOMAINS.names.index(name)] != engine.moves]
    assert not missing, f"{where}: changed but not reported: {', '.join(missing)}"
    assert_stamp_summary(engine, where)


def assert_stamp_summary(engine, where: str) -> None:
    """``stamped``, ``stamped_bits`` and ``stamped_before`` summarise the stamps as the encoder reads them: no
    stamp is later than ``stamped``, and every domain stamped after ``stamped_before`` is in ``stamped_bits``."""
    stamps = engine.stamps
    assert engine.stamped >= max(stamps), f"{where}: stamped {engine.stamped} < the stamps {stamps}"
    later = sum(1 << i for i, s in enumerate(stamps) if s > engine.stamped_before)
    assert not later & ~engine.stamped_bits, \
        f"{where}: stamped after {engine.stamped_before} but not in stamped_bits: " \
        f"{', '.join(DOMAINS.names_of(later & ~engine.stamped_bits))}"


def assert_query_reported(before: list, count: int, engine, where: str) -> None:
    """After a query (the legal moves): what it changed (a lazy update) is stamped at once, and a query
    that tries a change and undoes it reports nothing (the next move would stamp it). ``count``: the
    ``moves`` of the engine before the query."""
    assert_reported(before, engine, f"{where}: finding the legal moves")
    assert engine.moves > count or not engine.unstamped, \
        f"{where}: finding the legal moves reported {', '.join(DOMAINS.names_of(engine.unstamped))}"


def check_change_reports(engine) -> None:
    """From now on every ``apply`` and ``legal_moves`` of ``engine`` checks that it reported all it
    changed (``assert_reported``, ``assert_query_reported``)."""
    apply, legal_moves = engine.apply, engine.legal_moves
    applying = []

    def where():
        return f"round {engine.round} phase {PHASE_NAMES[engine.phase]}"

    def checked_apply(move):
        before = DOMAINS.snapshot(engine)
        here = f"{where()} move {engine.move_name(move)}"
        applying.append(move)
        try:
            apply(move)
        finally:
            applying.pop()
        assert_reported(before, engine, here)

    def checked_legal_moves():
        if applying:  # a rule asking inside a move: the move's own check covers it
            return legal_moves()
        before, count = DOMAINS.snapshot(engine), engine.moves
        moves = legal_moves()
        assert_query_reported(before, count, engine, where())
        return moves

    engine.apply = checked_apply
    engine.legal_moves = checked_legal_moves


def exact_stamps(engine) -> None:
    """Make ``engine`` stamp exactly the domains each move changed, found by content (``DOMAINS.changed_bits``),
    and keep its ``revision`` across moves: the engine as it is once every rule reports its changes
    (changes.py), the tightest case for observers that look only at the stamped domains
    (observation/encoder.py). Wraps the instance's ``apply``, so call it after each reset; clones and pickles of
    the engine are not wrapped."""
    apply = engine.apply

    def apply_and_stamp_exactly(move):
        before, stamps, revision = DOMAINS.snapshot(engine), engine.stamps[:], engine.revision
        log = engine.moves, engine.stamped, engine.stamped_bits, engine.stamped_before
        apply(move)
        # the move's stamping undone, then done again with exactly the domains it changed
        engine.stamps[:] = stamps
        engine.moves, engine.stamped, engine.stamped_bits, engine.stamped_before = log
        engine.unstamped = DOMAINS.changed_bits(before, engine)
        engine.stamp_changes()
        engine.revision = revision

    engine.apply = apply_and_stamp_exactly
