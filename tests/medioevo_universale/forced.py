"""The loop the forced fuzzes share: seeded random play with the state pushed towards a rare situation."""
import random

from envs.medioevo_universale import changes
from envs.medioevo_universale.constants import PHASE_NAMES

#: True: every move of the forced games is checked for unreported changes (``check_change_reports``)
CHECK_CHANGES = False


def forced_decisions(env, seed: int, prepare):
    """Plays one seeded game of ``env`` to its end, yielding ``(agent, obs, pick)`` at every decision (the
    caller steps the env, picking with ``pick``, the game's own ``random.Random``); ``prepare(engine)`` edits
    the state once, when the setup is done. An edit from outside the rules gets a new ``revision`` and
    stamps every change domain (call ``touched`` after further edits), so the encoder looks at the whole
    state again (encoder.py)."""
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
    changes.stamp_all(engine)


def assert_reported(before: list, engine, where: str) -> None:
    """Every domain whose content differs from the ``changes.snapshot`` ``before`` carries the stamp of
    the move just applied."""
    missing = [name for name in changes.names_of(changes.changed_bits(before, engine))
               if engine.stamps[changes.NAMES.index(name)] != engine.moves]
    assert not missing, f"{where}: changed but not reported: {', '.join(missing)}"


def check_change_reports(engine) -> None:
    """From now on every ``apply`` of ``engine`` checks that it reported all it changed (``assert_reported``)."""
    apply = engine.apply

    def checked_apply(move):
        before = changes.snapshot(engine)
        where = f"round {engine.round} phase {PHASE_NAMES[engine.phase]} move {engine.move_name(move)}"
        apply(move)
        assert_reported(before, engine, where)

    engine.apply = checked_apply
