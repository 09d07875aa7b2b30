"""The compiled build (envs/core/compiled.py, scripts/build_compiled.py) runs the same games as the sources, and is
used only while it was built from the sources as they are."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import envs
from envs.core import compiled

ROOT = Path(__file__).resolve().parents[1]

# seeded random play, every observation, mask, reward and info hashed
FINGERPRINT = r"""
import hashlib, json, random, sys
import envs
from envs.core.compiled import in_use
result = {}
for name in envs.names():
    spec = envs.spec(name)
    h = hashlib.sha256()
    for n in spec.player_counts:
        env = envs.make(name, num_players=n)
        env.reset(seed=n)
        pick = random.Random(n)
        for agent in env.agent_iter(max_iter=3000):
            obs, reward, term, trunc, info = env.last()
            h.update(obs["observation"].tobytes()); h.update(obs["action_mask"].tobytes())
            h.update(repr((agent, reward, term, trunc, sorted(info.items()))).encode())
            legal = obs["action_mask"].nonzero()[0]
            env.step(None if term or trunc else int(legal[pick.randrange(legal.size)]))
    result[name] = (h.hexdigest(), in_use("envs." + name))
# the subpackages (as envs.medioevo_universale.observation): whether each runs its build
result["subpackages"] = {m: in_use(m) for m in sorted(sys.modules) if m.count(".") == 2 and m.startswith("envs.")
                         and hasattr(sys.modules[m], "__path__")}
json.dump(result, sys.stdout)
"""


def play(pure: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop(compiled.PURE_VARIABLE, None)
    if pure:
        env[compiled.PURE_VARIABLE] = "1"
    out = subprocess.run([sys.executable, "-c", FINGERPRINT], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def test_compiled_modules_play_exactly_as_the_sources():
    if not any(compiled.in_use(f"envs.{name}") for name in envs.names()):
        pytest.skip("no current compiled build (python scripts/build_compiled.py)")
    built, pure = play(pure=False), play(pure=True)
    built_subpackages, pure_subpackages = built.pop("subpackages"), pure.pop("subpackages")
    # TABLETOP_GYM_PURE=1 runs the sources
    assert not any(used for _, used in pure.values()) and not any(pure_subpackages.values())
    for name in envs.names():
        assert built[name][0] == pure[name][0], f"{name}: the compiled build plays differently"
    assert "envs.medioevo_universale.observation" in built_subpackages
    for package, used in built_subpackages.items():  # a built game's subpackages run their build too
        assert used or not built[package.split(".")[1]][1], f"{package}: not compiled"


def fake_build(tmp_path: Path, monkeypatch, sources: dict[str, bytes], recorded: dict[str, bytes]) -> tuple:
    """A package folder with ``sources`` and a build whose manifest records ``recorded``."""
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    for name, text in sources.items():
        (package / name).write_bytes(text)
    monkeypatch.setattr(compiled, "BUILD_DIR", tmp_path / "build")
    target = compiled.compiled_dir("pkg")
    target.mkdir(parents=True)
    digests = {name: hashlib.sha256(text).hexdigest() for name, text in recorded.items()}
    (target / compiled.MANIFEST).write_text(json.dumps({"suffix": compiled.extension_suffix(), "sources": digests}))
    return [str(package)], target


def test_a_current_build_goes_first_on_the_package_path(tmp_path, monkeypatch):
    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    path, target = fake_build(tmp_path, monkeypatch, {"a.py": b"x = 1\n"}, {"a.py": b"x = 1\n"})
    assert compiled.use_compiled("pkg", path) and path[0] == str(target)


def test_a_stale_or_foreign_build_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    path, _ = fake_build(tmp_path, monkeypatch, {"a.py": b"x = 2\n"}, {"a.py": b"x = 1\n"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not compiled.use_compiled("pkg", path)
    assert len(path) == 1 and "older than their sources" in str(caught[0].message)
    path, target = fake_build(tmp_path / "2", monkeypatch, {"a.py": b"x = 1\n"}, {"a.py": b"x = 1\n"})
    manifest = json.loads((target / compiled.MANIFEST).read_text())
    (target / compiled.MANIFEST).write_text(json.dumps(dict(manifest, suffix=".other-python.so")))
    assert not compiled.use_compiled("pkg", path) and len(path) == 1
    (target / compiled.MANIFEST).write_text("{not json")
    assert not compiled.use_compiled("pkg", path) and len(path) == 1


def test_the_pure_switch_wins(tmp_path, monkeypatch):
    path, _ = fake_build(tmp_path, monkeypatch, {"a.py": b"x = 1\n"}, {"a.py": b"x = 1\n"})
    monkeypatch.setenv(compiled.PURE_VARIABLE, "1")
    assert not compiled.use_compiled("pkg", path) and len(path) == 1


def test_an_instrumented_build_is_loaded_only_by_its_training_run(tmp_path, monkeypatch):
    # a profile-guided build interrupted between its two stages left its instrumented modules, twice as slow
    # as the sources, with a manifest that matched them
    monkeypatch.delenv(compiled.PURE_VARIABLE, raising=False)
    monkeypatch.delenv(compiled.PROFILING_VARIABLE, raising=False)
    path, target = fake_build(tmp_path, monkeypatch, {"a.py": b"x = 1\n"}, {"a.py": b"x = 1\n"})
    manifest = json.loads((target / compiled.MANIFEST).read_text())
    (target / compiled.MANIFEST).write_text(json.dumps(dict(manifest, instrumented=True)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not compiled.use_compiled("pkg", path)
    assert len(path) == 1 and "unfinished profile-guided build" in str(caught[0].message)
    monkeypatch.setenv(compiled.PROFILING_VARIABLE, "1")
    assert compiled.use_compiled("pkg", path) and path[0] == str(target)


def test_the_build_script_finishes_an_interrupted_profile_guided_build(tmp_path, monkeypatch):
    build = _build_script()
    monkeypatch.setattr(compiled, "BUILD_DIR", tmp_path / "build")
    monkeypatch.setattr(build, "WORK", tmp_path / "work")
    source = tmp_path / "pkg"
    source.mkdir()
    module = source / "a.py"
    module.write_text("x = 1\n")
    stale = {"pkg": [module]}
    instrumented = build.WORK / "pkg" / ("a" + compiled.extension_suffix())
    instrumented.parent.mkdir(parents=True)
    instrumented.write_bytes(b"instrumented")
    assert build.install("pkg", [module], instrumented=True) == 1
    assert not build.current("pkg", [module])  # so the next run builds it again
    # the final stage: a module it fails to compile is not installed in its instrumented form
    build.remove_compiled(stale)
    assert build.install("pkg", [module]) == 0 and not list(compiled.compiled_dir("pkg").glob("*.so"))
    instrumented.write_bytes(b"final")
    assert build.install("pkg", [module]) == 1 and build.current("pkg", [module])


def test_no_build_means_the_sources(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "BUILD_DIR", tmp_path / "nothing")
    path = [str(tmp_path)]
    assert not compiled.use_compiled("pkg", path) and path == [str(tmp_path)]


def _build_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_compiled", ROOT / "scripts" / "build_compiled.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_build_inlines_only_constants_fixed_by_the_sources():
    import types

    build = _build_script()
    from envs.medioevo_universale import changes, constants, engine
    from envs.mythotopia import layout

    assert build.constant_table(constants.Phase) and not build.constant_table(engine.MedioevoConfig)
    assert build.self_contained(changes)  # it builds on envs.core.changes, self-contained too
    assert not build.self_contained(engine)  # it imports data, which reads the data files
    assert not build.self_contained(layout)  # its numbers follow the map in the data files
    module = types.ModuleType("envs.example")
    module.Phase, module.changes, module.M = constants.Phase, changes, layout
    source = ("def f(e, Stage):\n"
              "    x = 'Phase.MOVE'  # Phase.MOVE\n"
              "    return e.phase == Phase.MOVE, Phase.MOVE.bit_length(), changes.SEATS | changes.UNITS, M.CARD,"
              " Stage.X\n")
    out = build.inline_constants(source, module)
    assert out == ("def f(e, Stage):\n"
                   "    x = 'Phase.MOVE'  # Phase.MOVE\n"
                   f"    return e.phase == ({constants.Phase.MOVE}), ({constants.Phase.MOVE}).bit_length(), "
                   f"({changes.SEATS}) | ({changes.UNITS}), M.CARD, Stage.X\n")
    shadowed = "def g(Phase):\n    return Phase.MOVE\n"
    assert build.inline_constants(shadowed, module) == shadowed


def test_names_numbered_by_their_order_are_inlined_too():
    import types

    from envs.medioevo_universale.observation import encoder

    build = _build_script()
    seen = encoder._Seen  # (TURN, PRIVATE, ...) = range(k)
    assert build.constant_table(seen)
    assert [getattr(seen, name.upper()) for name in encoder._SEEN_KEYS] == list(range(len(encoder._SEEN_KEYS)))
    module = types.ModuleType("envs.example")
    module._Seen = seen
    assert build.inline_constants("x = seen[_Seen.OFFER]\n", module) == f"x = seen[({seen.OFFER})]\n"


def test_the_build_covers_the_subpackages():
    build = _build_script()
    assert "envs.medioevo_universale.observation" in build.packages()
    assert build.packages().index("envs.medioevo_universale") < build.packages().index(
        "envs.medioevo_universale.observation")
