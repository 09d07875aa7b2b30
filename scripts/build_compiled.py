"""Compile the environments' pure-Python modules with Cython into build/compiled/ (see envs/core/compiled.py).

The sources stay the reference: the compiled modules are the same code, built from a copy of it, and are used
only while their manifest's hashes match the sources. A module that fails to compile is left to run from its
source. Needs Cython and a C compiler; without them nothing is built and everything runs from the sources.
Packages whose build is current are skipped. Run: ``python scripts/build_compiled.py [--jobs N] [--force | --clean]``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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
            shutil.copy2(p, work / p.name)
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
