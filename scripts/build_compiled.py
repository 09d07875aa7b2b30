"""Compile the environments' pure-Python modules with Cython into build/compiled/ (see envs/core/compiled.py).

The sources stay the reference: the compiled modules are the same code, built from a copy of it, and are used
only while their manifest's hashes match the sources. A module that fails to compile is left to run from its
source. The copy reads named int constants (``Phase.MOVE``, ``changes.SEATS``) as their values
(``inline_constants``): the same code without an attribute lookup per use. Needs Cython and a C compiler;
without them nothing is built and everything runs from the sources.
Packages whose build is current are skipped. Run: ``python scripts/build_compiled.py [--jobs N] [--force | --clean]``.
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
import tempfile
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["TABLETOP_GYM_PURE"] = "1"  # the modules imported below to read constants: the sources, not a build

from envs.core.compiled import BUILD_DIR, MANIFEST, compiled_dir, extension_suffix, source_digest  # noqa: E402

PACKAGES = ["envs.core", "envs.catan_card", "envs.kingsburg", "envs.mythotopia", "envs.seventh_stone",
            "envs.medioevo_universale"]
# not compiled: package set-up, the compiled-build switch itself, test helpers, and modules that find their data
# files next to themselves (__file__ would point into the build folder)
SKIPPED = {"__init__.py", "compiled.py", "testing.py"}
# Python's semantics: annotations are not types to enforce (Cython would reject a tuple returned as ``-> list``)
DIRECTIVES = ["-X", "annotation_typing=False", "-X", "binding=True"]


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


def constant_table(value) -> bool:
    """A class used as a table of named ints (``Phase.MOVE``): its body assigns only int literals to upper-case
    names (so the values are those of the source, whatever the data files hold)."""
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
        if not (isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name)
                and item.targets[0].id.isupper() and _int_literal(item.value)):
            return False
        names.add(item.targets[0].id)
    return bool(names) and names == {name for name in vars(value) if not name.startswith("_")}


def self_contained(module: types.ModuleType) -> bool:
    """A module of ours whose constants follow from its own source: it imports nothing of the package and reads
    no files (``changes``; not ``moves``, whose numbers follow the map in the data files)."""
    tree = _source_tree(module.__name__) if module.__name__.startswith("envs.") else None
    if tree is None:
        return False
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and (n.level or (n.module or "").startswith("envs")):
            return False
        if isinstance(n, ast.Import) and any(a.name.startswith("envs") for a in n.names):
            return False
        if isinstance(n, ast.Name) and n.id in ("open", "__file__"):
            return False
    return True


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
    return manifest.get("suffix") == extension_suffix() and manifest.get("sources") == {
        p.name: source_digest(p) for p in modules}


def build(package: str, jobs: int, force: bool) -> tuple[int, int]:
    source = ROOT.joinpath(*package.split("."))
    modules = sorted(p for p in source.glob("*.py") if compilable(p))
    if not force and current(package, modules):
        return len(modules), len(modules)
    target = compiled_dir(package)
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        # the package's folders with their __init__ files, so Cython names the modules as Python does
        work = Path(tmp).joinpath(*package.split("."))
        work.mkdir(parents=True)
        for depth in range(1, len(package.split(".")) + 1):
            Path(tmp).joinpath(*package.split(".")[:depth], "__init__.py").touch()
        for p in modules:
            module = importlib.import_module(f"{package}.{p.stem}")
            (work / p.name).write_text(inline_constants(p.read_text(encoding="utf-8"), module), encoding="utf-8")
        env = dict(os.environ, CFLAGS=os.environ.get("CFLAGS", "-O2"))

        def compile_one(module: Path) -> None:  # one call per module: a failure leaves only that one to its source
            command = [sys.executable, "-m", "Cython.Build.Cythonize", "-i", "-3", "-q", *DIRECTIVES,
                       str(work / module.name)]
            result = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
            if result.returncode != 0:
                print(f"{package}.{module.stem}: not compiled, runs from its source\n{result.stderr[-3000:]}",
                      file=sys.stderr)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(compile_one, modules))
        suffix = extension_suffix()
        built = {}
        target.mkdir(parents=True)
        for p in modules:
            compiled = work / (p.stem + suffix)
            if compiled.is_file():
                shutil.move(str(compiled), target / compiled.name)
                built[p.name] = source_digest(p)
    (target / MANIFEST).write_text(json.dumps({"suffix": suffix, "sources": built}, indent=1, sort_keys=True))
    return len(built), len(modules)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel compilations")
    parser.add_argument("--clean", action="store_true", help="only remove the compiled build")
    parser.add_argument("--force", action="store_true", help="compile again packages whose build is current")
    args = parser.parse_args(argv)
    if args.clean:
        shutil.rmtree(BUILD_DIR, ignore_errors=True)
        return 0
    if importlib.util.find_spec("Cython") is None:
        print("Cython is not installed: nothing compiled, the environments run from their sources", file=sys.stderr)
        return 1
    failed = False
    for package in PACKAGES:
        built, total = build(package, args.jobs, args.force)
        print(f"{package}: {built} of {total} modules compiled")
        failed |= built < total
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
