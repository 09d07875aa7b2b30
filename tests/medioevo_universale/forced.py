"""The loop the forced fuzzes share: seeded random play with the state pushed towards a rare situation."""
import random

from envs.medioevo_universale import changes


def forced_decisions(env, seed: int, prepare):
    """Plays one seeded game of ``env`` to its end, yielding ``(agent, obs, pick)`` at every decision (the
    caller steps the env, picking with ``pick``, the game's own ``random.Random``); ``prepare(engine)`` edits
    the state once, when the setup is done. An edit from outside the rules gets a new ``revision`` (call
    ``touched`` after further edits), so the encoder looks at the whole state again (encoder.py)."""
    env.reset(seed=seed)
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


def exact_stamps(engine) -> None:
    """Make ``engine`` stamp exactly the domains each move changed, found by content (``changes.changed_bits``),
    and keep its ``revision`` across moves: the engine as it is once every rule reports its changes
    (changes.py), the tightest case for observers that look only at the stamped domains (encoder.py). Wraps
    the instance's ``apply``, so call it after each reset; clones and pickles of the engine are not wrapped."""
    apply = engine.apply

    def apply_and_stamp_exactly(move):
        before, stamps, revision = changes.snapshot(engine), engine.stamps[:], engine.revision
        apply(move)
        engine.stamps[:] = stamps
        engine.dirty = changes.changed_bits(before, engine)
        changes.stamp(engine)
        engine.revision = revision

    engine.apply = apply_and_stamp_exactly
