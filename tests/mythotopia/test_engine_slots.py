"""The mythotopia engine keeps its instance attributes in slots (engine.py, ENGINE_ATTRIBUTES): every name a rule
assigns as ``self.<name>`` is one, so random games leave the instance dict empty; copies, clones and pickles
keep every attribute."""
import pickle
import random
from pathlib import Path

import envs
from envs.core.changes import ChangeLog
from envs.core.engine import RulesEngine, instance_state
from envs.core.testing import assigned_attributes
from envs.mythotopia.engine import ENGINE_ATTRIBUTES, MythotopiaEngine

SOURCE = Path(__file__).resolve().parents[2] / "envs" / "mythotopia" / "engine.py"  # the source, not the build


def test_engine_attributes_cover_every_rule():
    names = assigned_attributes([SOURCE])
    names = {n for n in names if not hasattr(MythotopiaEngine, n) or n in ENGINE_ATTRIBUTES}
    assert names <= set(ENGINE_ATTRIBUTES), sorted(names - set(ENGINE_ATTRIBUTES))
    assert set(ChangeLog.SLOTS) <= set(ENGINE_ATTRIBUTES)
    assert MythotopiaEngine.__mro__[1] is RulesEngine


def test_random_games_leave_the_instance_dict_empty_and_copies_whole():
    for n, options in ((2, {}), (3, dict(optional_start_choice=True)), (4, dict(optional_start_choice=True))):
        env = envs.make("mythotopia", num_players=n, **options)
        env.reset(seed=n)
        pick = random.Random(n)
        for _ in range(1500):
            if env.engine.is_over:
                break
            legal = env.legal_actions()
            env.step(legal[pick.randrange(len(legal))])
            assert vars(env.engine) == {}
        e = env.engine
        state = instance_state(e)
        assert set(state) == set(ENGINE_ATTRIBUTES)
        for copy in (e.clone(), pickle.loads(pickle.dumps(e))):
            assert set(instance_state(copy)) == set(ENGINE_ATTRIBUTES)
            assert copy.scores() == e.scores() and copy.current_player == e.current_player
            assert env.codec.legal_actions(copy) == env.codec.legal_actions(e)
