"""The docs hold current facts: each figure in one place or checked against its source, no diaries.

* The README's game table and speed table list exactly the registered games with their player counts
  (``envs.names()``, ``envs.spec(game).player_counts``), and the speed table has one figure per player count.
* Throughput ratios to ``connect_four_v3`` appear only in the README's *Speed* section; no doc gives a speed
  as an absolute time per step.
* The README's degenerate-policy bounds and counts are those of ``tests/test_degenerate_policies.py``.
* No session numbers, dates or other diary markers in the docs or in the code's comments, and no claimed
  test counts.
* Every repository path named in the docs, docstrings and comments exists, and every relative link in the
  docs resolves.

The rule specs (``docs/rules/``) restate the rulebooks and are left out.
"""
import ast
import re
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted(p for p in (ROOT / "docs").rglob("*.md") if (ROOT / "docs" / "rules") not in p.parents)
CODE = sorted(p for d in ("envs", "agents", "benchmarks", "scripts", "tests", "webplay")
              for p in (ROOT / d).rglob("*.py")) + [ROOT / "train.py", ROOT / "evaluate.py", ROOT / "play.py"]

# a ratio figure: 2.27×, ×1.14; or a whole number against the yardstick: 2× connect_four_v3
RATIO = re.compile(r"\d\.\d+ ?×|×\d\.\d|\d× (?:`?connect_four|the yardstick)")
# a speed given as an absolute time (per step, per call, ...)
ABSOLUTE_TIME = re.compile(r"\d ?(?:µs|ns)\b")
DIARY = re.compile(
    r"\bsess" r"ions? \d|\bsess" r"ion-\d|\b20\d\d-\d\d-\d\d\b|before the last change|for this note|\d+ tests\b",
    re.IGNORECASE)
REPO_PATH = re.compile(r"(?<![\w/.<-])((?:envs|agents|benchmarks|scripts|tests|docs|configs|webplay)/[\w./-]*[\w/])")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` (a line of the README) up to the next heading of the same level."""
    level = heading.split(" ")[0]
    start = text.index(f"\n{heading}\n")
    end = text.find(f"\n{level} ", start + len(heading) + 2)
    return text[start:end if end >= 0 else len(text)]


def _rows(text: str) -> list[list[str]]:
    """The cells of every table row of ``text`` (header and separator rows included)."""
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("|")]


def _players(spec: str) -> tuple[int, ...]:
    """'2–6' or '2 / 3 / 4' -> (2, 3, 4, ...)."""
    if "–" in spec:
        low, high = spec.split("–")
        return tuple(range(int(low), int(high) + 1))
    return tuple(int(n) for n in spec.split(" / "))


def _comments(path: Path) -> str:
    """The comments and docstrings of a Python file (string literals that are whole statements)."""
    source = path.read_text()
    parts = [line.split("#", 1)[1] for line in source.splitlines() if "#" in line]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            parts.append(node.value.value)
    return "\n".join(parts)


def test_the_readme_game_table_lists_the_registered_games_and_player_counts():
    rows = [r for r in _rows(_section(README.read_text(), "## Games")) if r[1].startswith("`")]
    listed = {r[1].strip("`"): _players(r[2]) for r in rows}
    assert sorted(listed) == sorted(envs.names())
    for game, counts in listed.items():
        assert counts == tuple(envs.spec(game).player_counts), game


def test_the_readme_speed_table_has_one_figure_per_game_and_player_count():
    rows = _rows(_section(README.read_text(), "## Speed"))
    assert "× connect_four_v3" in rows[0][2], rows[0]
    body = [r for r in rows[2:]]
    assert sorted(r[0] for r in body) == sorted(envs.names())
    for game, players, compiled, pure, target in body:
        counts = tuple(envs.spec(game).player_counts)
        assert _players(players) == counts, game
        for column in (compiled, pure):
            figures = [float(x) for x in column.split(" / ")]
            assert len(figures) == len(counts) and all(f > 0 for f in figures), (game, column)
        assert re.fullmatch(r"\d+×", target), (game, target)


@pytest.mark.parametrize("path", DOCS + [README], ids=lambda p: str(p.relative_to(ROOT)))
def test_speed_ratios_are_only_in_the_readme_speed_table(path):
    text = path.read_text()
    if path == README:
        speed = _section(text, "## Speed")
        text = text.replace(speed, "")
    lines = [line for line in text.splitlines() if RATIO.search(line) or ABSOLUTE_TIME.search(line)]
    assert not lines, f"{path.name}: speed figures belong in the README's Speed table: {lines}"


@pytest.mark.parametrize("path", DOCS + [README] + CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_session_numbers_dates_or_claimed_test_counts(path):
    if path == Path(__file__).resolve():
        return
    text = path.read_text() if path.suffix == ".md" else _comments(path)
    found = [m.group(0) for m in DIARY.finditer(text)]
    assert not found, f"{path.relative_to(ROOT)}: state current facts, not history: {found}"


def test_docs_and_docstrings_name_only_files_in_the_repository():
    missing = []
    for path in DOCS + [README] + CODE:
        text = path.read_text()
        for ref in REPO_PATH.findall(text):
            if not (ROOT / ref.rstrip(".")).exists():
                missing.append(f"{path.relative_to(ROOT)}: {ref}")
        if path != Path(__file__).resolve() and ("../" "shared/" in text or "shared/" "rules" in text):
            missing.append(f"{path.relative_to(ROOT)}: a path outside the repository")
        if path.suffix == ".md":
            for link in LINK.findall(text):
                if "://" not in link and not (path.parent / link).exists():
                    missing.append(f"{path.relative_to(ROOT)}: link {link}")
    assert not missing, missing


def test_the_readme_degenerate_policy_figures_are_the_tests():
    from tests.test_degenerate_policies import DECISION_BOUNDS, MEASURED, POLICIES

    section = _section(README.read_text(), "### Degenerate policies")
    rows = [r for r in _rows(section) if r[0].startswith("`")]
    counts = {(r[0].strip("`"), int(r[1])): r[2:] for r in rows if len(r) == 2 + len(POLICIES)}
    bounds = {r[0].strip("`"): r[1] for r in rows if len(r) == 3}
    assert sorted(bounds) == sorted(envs.names())
    for game in envs.names():
        assert int(bounds[game].replace(",", "")) == DECISION_BOUNDS[game], game
        for i, n in enumerate(envs.spec(game).player_counts):
            listed = [int(c.replace(",", "")) for c in counts.pop((game, n))]
            assert listed == [MEASURED[game][policy][i] for policy in POLICIES], (game, n)
    assert not counts, f"rows of no game and player count: {sorted(counts)}"
