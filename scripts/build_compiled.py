"""Compile the environments' pure-Python modules with Cython into build/compiled/ (see envs/core/compiled.py).

The sources stay the reference: the compiled modules are the same code, built from a copy of it, and are used
only while their manifest's hashes match the sources. A module that fails to compile is left to run from its
source. The copy reads named int constants (``Phase.MOVE``, ``changes.SEATS``) as their values
(``inline_constants``): the same code without an attribute lookup per use. Needs Cython and a C compiler;
without them nothing is built and everything runs from the sources.
With GCC the build is profile-guided (PGO): an instrumented build first plays every game at every player count
for a few seconds (random masked play, ``TRAIN``), then the modules are compiled again with those profiles, which
tell the compiler which branches the games take. That makes the games run 5-10 % faster and doubles the build
time; ``--no-pgo`` (or ``TABLETOP_GYM_PGO=0``) builds once, without profiles. The instrumented first stage is marked
in its manifest, so a build interrupted before its second stage is neither used nor taken as current. ``CFLAGS``
replaces the default -O3 (2-5 % faster than -O2 here, with profiles).
Packages whose build is current are skipped. Run:
``python scripts/build_compiled.py [--jobs N] [--no-pgo] [--force | --clean]``.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["TABLETOP_GYM_PURE"] = "1"  # the modules imported below to read constants: the sources, not a build

from envs.core.compiled import (BUILD_DIR, MANIFEST, PROFILING_VARIABLE, compiled_dir, extension_suffix,  # noqa: E402
                                source_digest)

PACKAGES = ["envs.core", "envs.catan_card", "envs.kingsburg", "envs.mythotopia", "envs.seventh_stone",
            "envs.medioevo_universale"]  # each with its subpackages (``packages``)
# not compiled: package set-up, the compiled-build switch itself, test helpers, modules that find their data
# files next to themselves (__file__ would point into the build folder), and what no speed target runs (the
# move encodings and their grains, game records, text views, the pictures of the table, the determinizations of a
# search, the naming of moves in play): compiling them only lengthens the set-up
SKIPPED = {"__init__.py", "compiled.py", "testing.py", "encodings.py", "moves.py", "records.py", "view.py",
           "picture.py", "determinize.py", "visibility.py"}
# Python's semantics: annotations are not types to enforce (Cython would reject a tuple returned as ``-> list``)
DIRECTIVES = ["-X", "annotation_typing=False", "-X", "binding=True"]


def packages() -> list[str]:
    """PACKAGES and their subpackages (folders with an ``__init__.py``, as ``envs.medioevo_universale.observation``),
    each package before its subpackages. A subpackage's ``__init__`` calls ``use_compiled`` as its package's does."""
    return [".".join(init.parent.relative_to(ROOT).parts) for package in PACKAGES
            for init in sorted(ROOT.joinpath(*package.split(".")).rglob("__init__.py"), key=lambda p: p.parent.parts)]


def compilable(path: Path) -> bool:
    return path.name not in SKIPPED and "__file__" not in path.read_text(encoding="utf-8")


def _int_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _source_tree(module_name: str) -> ast.Module | None:
    """The parsed source of one of our modules, read from the sources whether or not its build is loaded."""
    path = ROOT.joinpath(*module_name.split(".")).with_suffix(".py")
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return None


def _numbered_names(item: ast.stmt) -> list[str] | None:
    """The names of ``(A, B, ...) = range(k)`` with a literal k (numbered by their order), else None."""
    if not (isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Tuple)
            and isinstance(item.value, ast.Call) and isinstance(item.value.func, ast.Name)
            and item.value.func.id == "range" and len(item.value.args) == 1 and not item.value.keywords
            and _int_literal(item.value.args[0])):
        return None
    names = [n.id if isinstance(n, ast.Name) else "" for n in item.targets[0].elts]
    return names if all(name.isupper() for name in names) else None


def constant_table(value) -> bool:
    """A class used as a table of named ints (``Phase.MOVE``): its body assigns only int literals to upper-case
    names, or numbers them by their order (``(A, B) = range(2)``), so the values are those of the source, whatever
    the data files hold."""
    if not isinstance(value, type) or not value.__module__.startswith("envs."):
        return False
    tree = _source_tree(value.__module__)
    body = next((n.body for n in (tree.body if tree else ()) if isinstance(n, ast.ClassDef)
                 and n.name == value.__name__), None)
    if body is None:
        return False
    names = set()
    for item in body:
        if isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant) and isinstance(item.value.value, str):
            continue  # the docstring
        numbered = _numbered_names(item)
        if numbered is not None:
            names.update(numbered)
            continue
        if not (isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name)
                and item.targets[0].id.isupper() and _int_literal(item.value)):
            return False
        names.add(item.targets[0].id)
    return bool(names) and names == {name for name in vars(value) if not name.startswith("_")}


def self_contained(module: types.ModuleType, _open: frozenset = frozenset()) -> bool:
    """A module of ours whose constants follow from the sources alone: it reads no files, and imports of the
    package only modules that are self-contained too (medioevo's ``changes``, built on ``envs.core.changes``;
    not mythotopia's ``layout``, whose numbers follow the map in the data files)."""
    tree = _source_tree(module.__name__) if module.__name__.startswith("envs.") else None
    if tree is None:
        return False
    _open |= {module.__name__}  # a cycle of imports is judged by the rest of its modules
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and (n.level or (n.module or "").startswith("envs")):
            if not all(m.__name__ in _open or self_contained(m, _open) for m in _imported_modules(module, n)):
                return False
        if isinstance(n, ast.Import) and any(a.name.startswith("envs") for a in n.names):
            return False
        if isinstance(n, ast.Name) and n.id in ("open", "__file__"):
            return False
    return True


def _imported_modules(module: types.ModuleType, node: ast.ImportFrom) -> list[types.ModuleType]:
    """The modules of ours that ``from X import a, b`` in ``module`` reads: X, or the submodules a and b of the
    package X when X is only their package (``from .. import changes``)."""
    name = importlib.util.resolve_name("." * node.level + (node.module or ""), module.__package__)
    base = importlib.import_module(name)
    submodules = [v for a in node.names if isinstance(v := getattr(base, a.name, None), types.ModuleType)]
    return submodules if node.module is None or len(submodules) == len(node.names) else [base] + submodules


def constant_value(module: types.ModuleType, owner: str, name: str) -> int | None:
    """The int that ``owner.name`` read in ``module`` always stands for, or None: an upper-case int of a constant
    table (``constant_table``) or of a self-contained module of ours (``changes.SEATS``)."""
    if not name.isupper():
        return None
    target = vars(module).get(owner)
    if isinstance(target, types.ModuleType):
        if not self_contained(target):
            return None
    elif not constant_table(target):
        return None
    value = vars(target).get(name)
    return value if type(value) is int else None


def inline_constants(source: str, module: types.ModuleType) -> str:
    """``source`` with each read of a named int constant (``constant_value``) replaced by its value, which spares
    the compiled code an attribute lookup per use and lets Cython fold tuples of them into constants. Names bound
    anywhere in the module besides the imports and class definitions (a parameter or local of the same name) are
    left alone, as is any constant the sources assign to."""
    tree = ast.parse(source)
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in n.posonlyargs + n.args + n.kwonlyargs + [n.vararg, n.kwarg] if a is not None}
    assigned = {(n.value.id, n.attr) for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and not isinstance(n.ctx, ast.Load)}
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                and n.lineno == n.end_lineno and n.value.id not in bound and (n.value.id, n.attr) not in assigned):
            continue
        value = constant_value(module, n.value.id, n.attr)
        if value is not None:
            edits.setdefault(n.lineno, []).append((n.col_offset, n.end_col_offset, f"({value})"))
    lines = source.splitlines(keepends=True)
    for lineno, spans in edits.items():
        line = lines[lineno - 1].encode("utf-8")  # the offsets count bytes
        for start, end, text in sorted(spans, reverse=True):
            line = line[:start] + text.encode() + line[end:]
        lines[lineno - 1] = line.decode("utf-8")
    return "".join(lines)


def current(package: str, modules: list[Path]) -> bool:
    """Whether the build of ``package`` holds every module, compiled from the sources as they are."""
    try:
        manifest = json.loads((compiled_dir(package) / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return manifest.get("suffix") == extension_suffix() and not manifest.get("instrumented") and manifest.get(
        "sources") == {p.name: source_digest(p) for p in modules}


# One module's compilation, in a subprocess: Cython's C, then the C compiler through setuptools, with a fixed
# folder for the object files (the profiles of a PGO build are found next to them).
COMPILE = r"""
import sys
from setuptools import setup
from Cython.Build import cythonize
module, temp = sys.argv[1], sys.argv[2]
directives = {k: v == "True" for k, v in (d.split("=") for d in sys.argv[3:])}
setup(script_args=["-q", "build_ext", "--inplace", "--force", "--build-temp", temp],
      ext_modules=cythonize([module], quiet=True, language_level=3, compiler_directives=directives))
"""

# The PGO training run: random masked play of each game at each player count, in the build just made.
TRAIN = r"""
import dataclasses, random, sys, time
sys.path.insert(0, sys.argv[1])
import envs
from envs.core.compiled import in_use


def play(env, seconds):
    pick, seed, deadline = random.Random(0), 0, time.process_time() + seconds
    while time.process_time() < deadline:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            legal = obs["action_mask"].nonzero()[0]
            env.step(None if terminated or truncated else int(legal[pick.randrange(legal.size)]))


seconds = float(sys.argv[3])
for game in sys.argv[2].split(","):
    assert in_use("envs." + game), game
    spec = envs.spec(game)
    for n in spec.player_counts:  # the default rules at every player count
        play(envs.make(game, num_players=n), seconds)
    for field in dataclasses.fields(spec.config_cls):  # then each option that is off by default, switched on
        if field.default is False:
            try:
                env = envs.make(game, **{field.name: True})
            except Exception:  # an option that needs others (or another player count) is left out
                continue
            play(env, seconds / 4)
"""
WORK = BUILD_DIR / "work"  # the copies, C files, object files and profiles while building
TRAIN_SECONDS = 2.0  # per game and player count


def gcc() -> bool:
    """Whether the C compiler is GCC, whose profile-guided optimisation the build uses (other compilers build
    without it)."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "clang" not in version.lower() and ("gcc" in version.lower() or "Free Software Foundation" in version)


def prepare(package: str) -> list[Path]:
    """The package's compilable modules, copied with their constants inlined into WORK (as the package's folders
    with their __init__ files, so Cython names the modules as Python does)."""
    source = ROOT.joinpath(*package.split("."))
    modules = sorted(p for p in source.glob("*.py") if compilable(p))
    work = WORK.joinpath(*package.split("."))
    work.mkdir(parents=True, exist_ok=True)  # WORK is emptied before (a subpackage's folder is inside its package's)
    for depth in range(1, len(package.split(".")) + 1):
        WORK.joinpath(*package.split(".")[:depth], "__init__.py").touch()
    for p in modules:
        module = importlib.import_module(f"{package}.{p.stem}")
        (work / p.name).write_text(inline_constants(p.read_text(encoding="utf-8"), module), encoding="utf-8")
    return modules


def compile_modules(stale: dict[str, list[Path]], jobs: int, cflags: str) -> None:
    """Compile the prepared copies of the ``stale`` packages' modules in WORK with ``cflags``, ``jobs`` at a
    time; a failure leaves only that module to run from its source."""
    env = dict(os.environ, CFLAGS=cflags)
    directives = [d for d in DIRECTIVES if d != "-X"]

    def compile_one(item: tuple[str, Path]) -> None:
        package, module = item
        relative = str(WORK.joinpath(*package.split("."), module.name).relative_to(WORK))
        command = [sys.executable, "-c", COMPILE, relative, str(WORK / "temp"), *directives]
        result = subprocess.run(command, cwd=WORK, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{package}.{module.stem}: not compiled, runs from its source\n{result.stderr[-3000:]}",
                  file=sys.stderr)

    # the largest modules first, so that the last ones to finish are short
    items = sorted(((package, m) for package, modules in stale.items() for m in modules),
                   key=lambda item: -item[1].stat().st_size)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(compile_one, items))


def install(package: str, modules: list[Path], instrumented: bool = False) -> int:
    """Copy the compiled modules of ``package`` from WORK into its build folder, with the manifest (marked
    ``instrumented`` for a PGO build's first stage, which only the training run loads); returns how many there
    are."""
    work = WORK.joinpath(*package.split("."))
    target = compiled_dir(package)
    target.mkdir(parents=True, exist_ok=True)
    for old in target.iterdir():
        if old.is_file():  # a subpackage's build is a folder inside, installed on its own
            old.unlink()
    suffix = extension_suffix()
    built = {}
    for p in modules:
        compiled = work / (p.stem + suffix)
        if compiled.is_file():
            shutil.copy2(compiled, target / compiled.name)
            built[p.name] = source_digest(p)
    manifest = {"suffix": suffix, "sources": built, **({"instrumented": True} if instrumented else {})}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return len(built)


def remove_compiled(stale: dict[str, list[Path]]) -> None:
    """Remove the compiled modules of the ``stale`` packages from WORK, so that a module the next compilation
    fails leaves nothing behind to install."""
    for package, modules in stale.items():
        for p in modules:
            WORK.joinpath(*package.split("."), p.stem + extension_suffix()).unlink(missing_ok=True)


def train(packages: list[str]) -> bool:
    """Run the games of ``packages`` in their instrumented build, which writes the profiles at exit."""
    games = list(dict.fromkeys(p.split(".")[1] for p in packages if p.split(".")[1] != "core")) or ["catan_card"]
    env = {k: v for k, v in os.environ.items() if k != "TABLETOP_GYM_PURE"} | {PROFILING_VARIABLE: "1"}
    result = subprocess.run([sys.executable, "-c", TRAIN, str(ROOT), ",".join(games), str(TRAIN_SECONDS)],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"PGO training failed, building without profiles\n{result.stderr[-3000:]}", file=sys.stderr)
    return result.returncode == 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel compilations")
    parser.add_argument("--clean", action="store_true", help="only remove the compiled build")
    parser.add_argument("--force", action="store_true", help="compile again packages whose build is current")
    parser.add_argument("--no-pgo", action="store_true", help="one compilation, without profile-guided optimisation")
    args = parser.parse_args(argv)
    if args.clean:
        shutil.rmtree(BUILD_DIR, ignore_errors=True)
        return 0
    if importlib.util.find_spec("Cython") is None:
        print("Cython is not installed: nothing compiled, the environments run from their sources", file=sys.stderr)
        return 1
    cflags = os.environ.get("CFLAGS", "-O3")
    stale = {}
    for package in packages():
        source = ROOT.joinpath(*package.split("."))
        modules = sorted(p for p in source.glob("*.py") if compilable(p))
        if args.force or not current(package, modules):
            stale[package] = modules
        else:
            print(f"{package}: {len(modules)} of {len(modules)} modules compiled (current)")
    if not stale:
        return 0
    shutil.rmtree(WORK, ignore_errors=True)
    try:
        for package in stale:
            prepare(package)
        pgo = not args.no_pgo and os.environ.get("TABLETOP_GYM_PGO", "1") != "0" and gcc()
        if pgo:
            # profile-guided: an instrumented build plays the games, then the build that uses the profiles
            compile_modules(stale, args.jobs, cflags + " -fprofile-generate -fprofile-update=single")
            for package, modules in stale.items():
                install(package, modules, instrumented=True)
            pgo = train(list(stale))
            remove_compiled(stale)  # a module the final compilation fails must not stay instrumented
        # partial training: code the games did not run is compiled as without profiles, not for size
        final = (cflags + " -fprofile-use -fprofile-partial-training -fprofile-correction -Wno-missing-profile"
                 if pgo else cflags)
        compile_modules(stale, args.jobs, final)
        failed = False
        for package, modules in stale.items():
            built = install(package, modules)
            print(f"{package}: {built} of {len(modules)} modules compiled{' (PGO)' if pgo else ''}")
            failed |= built < len(modules)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
