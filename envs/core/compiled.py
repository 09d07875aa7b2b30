"""Compiled builds of the pure-Python modules: used when present and built from the sources as they are.

``scripts/build_compiled.py`` compiles the modules of ``envs.core`` and of each game package with Cython into
``build/compiled/envs/<package>/`` and writes there a manifest of the sources' hashes. Each package's
``__init__`` calls ``use_compiled(__name__, __path__)`` before importing its modules: when the manifest matches
every compiled module's source, the build folder goes first on the package's ``__path__``, so the compiled
modules load in place of the sources (a module that was not compiled still loads from its source). With no
build, a source edited since the build, another Python version, or ``TABLETOP_GYM_PURE=1`` in the environment,
the sources load as usual. The compiled modules run the same code (tests/test_compiled.py compares seeded
games of every game with both); they only run faster.
"""
from __future__ import annotations

import hashlib
import json
import os
import sysconfig
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = ROOT / "build" / "compiled"
MANIFEST = "manifest.json"
PURE_VARIABLE = "TABLETOP_GYM_PURE"
# a profile-guided build's first stage is instrumented (slower, writes profiles at exit): only its training run,
# which sets this variable, may load it; left behind by an interrupted build, it is not used
PROFILING_VARIABLE = "TABLETOP_GYM_PROFILING"


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extension_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ""


def compiled_dir(package: str) -> Path:
    return BUILD_DIR.joinpath(*package.split("."))


def use_compiled(package: str, path: list[str]) -> bool:
    """Put the compiled build of ``package`` first on its ``__path__`` when it is current; True if it did."""
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return False
    target = compiled_dir(package)
    try:
        manifest = json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        return False  # no build (the usual case for a plain checkout)
    if manifest.get("suffix") != extension_suffix() or not isinstance(manifest.get("sources"), dict):
        return False
    if manifest.get("instrumented") and os.environ.get(PROFILING_VARIABLE) != "1":
        warnings.warn(f"{package}: the compiled build is the instrumented stage of an unfinished profile-guided "
                      f"build; running the sources. Rebuild with: python scripts/build_compiled.py", stacklevel=2)
        return False
    source = Path(path[0])
    stale = [name for name, digest in manifest["sources"].items()
             if not (source / name).is_file() or source_digest(source / name) != digest]
    if stale:
        warnings.warn(f"{package}: compiled modules older than their sources ({', '.join(sorted(stale))}); "
                      f"running the sources. Rebuild with: python scripts/build_compiled.py", stacklevel=2)
        return False
    path.insert(0, str(target))
    return True


def in_use(package: str) -> bool:
    """Whether ``package`` (imported) runs its compiled build."""
    import importlib

    module = importlib.import_module(package)
    return str(compiled_dir(package)) in list(module.__path__)
