"""Instructions per env step under callgrind, for one or more source trees: the measure that other jobs on the
machine do not disturb.

``throughput.py`` and ``ab.py`` time the games, so on a shared machine a change of a few percent needs many
alternating runs. An instruction count repeats from run to run to about 0.1 %, whatever else runs, so it can
compare commits while the machine is busy. It is not a time: callgrind over-counts memory copies and knows
nothing of code layout or caches (docs/performance.md, "Measuring"), so a close call is settled by ``ab.py`` on
a quiet machine.

Each tree plays ``--warm-up`` seeded games first (caches filled, not counted), then ``--games`` seeded games of
random masked play through the same loop as ``throughput.py`` (``throughput.play_one`` of this tool's tree),
counted alone (callgrind's ``--toggle-collect`` on a ``pow()`` that wraps each game). Compare trees per step only
when they play the same games (the step counts say so): a rule change alters the mix of steps. Each tree runs
its compiled build if it has a current one (``scripts/build_compiled.py``), or its sources with ``--pure``; the
process has no address randomisation (``setarch -R``) and one BLAS thread, so that the count repeats.

Run: ``python benchmarks/instructions.py TREE [TREE ...] [--game kingsburg] [--players 2] [--games 10]
[--warm-up 20] [--pure]``, e.g. a ``git worktree`` of an earlier commit against the working tree. Needs valgrind
and setarch (util-linux).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import importlib.util, random, sys
tree, game, players, games, warm_up, loop = sys.argv[1:7]
sys.path.insert(0, tree)
import envs  # the tree's, before throughput.py (of this tool's tree) puts its own root first
from envs.core.compiled import in_use
spec = importlib.util.spec_from_file_location("instructions_throughput", loop)
throughput = importlib.util.module_from_spec(spec)
spec.loader.exec_module(throughput)
env = envs.make(game, num_players=int(players))
warm_pick = random.Random(99)
for g in range(int(warm_up)):
    throughput.play_one(env, warm_pick, 1000 + g)
pick, steps = random.Random(0), [0]


class Game:  # callgrind counts only inside pow(): --toggle-collect='builtin_pow*'
    def __init__(self, seed):
        self.seed = seed

    def __pow__(self, other):
        steps[0] += throughput.play_one(env, pick, self.seed)
        return 1


for seed in range(int(games)):
    pow(Game(seed), 1)
print("RESULT", steps[0], in_use("envs." + game), envs.__file__)
"""


def summary_instructions(callgrind_output: str) -> int:
    """The total instruction count of a callgrind output file's text (its ``summary:`` or ``totals:`` line)."""
    match = re.search(r"^(?:summary|totals):\s+(\d+)", callgrind_output, re.MULTILINE)
    if match is None:
        raise ValueError("no summary line in the callgrind output")
    return int(match.group(1))


def count(tree: Path, game: str, players: int, games: int, warm_up: int, pure: bool) -> dict:
    """Instructions and steps of ``games`` seeded games in ``tree``, under callgrind."""
    loop = Path(__file__).resolve().with_name("throughput.py")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TABLETOP_GYM_PURE="1" if pure else "0")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "callgrind.out"
        command = ["setarch", "-R", "valgrind", "--tool=callgrind", "--collect-atstart=no",
                   "--toggle-collect=builtin_pow*", f"--callgrind-out-file={out}",
                   sys.executable, "-c", CHILD, str(tree), game, str(players), str(games), str(warm_up), str(loop)]
        result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
        lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
        if result.returncode != 0 or not lines:
            raise RuntimeError(f"{tree}: the run failed\n{result.stderr[-3000:]}")
        _, steps, compiled, envs_file = lines[-1].split(" ", 3)
        if not Path(envs_file).resolve().is_relative_to(tree):
            raise RuntimeError(f"{tree}: the run imported envs from {envs_file}")
        instructions = summary_instructions(out.read_text())
    return {"instructions": instructions, "steps": int(steps), "compiled": compiled == "True"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--game", default="kingsburg")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=10, help="seeded games counted")
    parser.add_argument("--warm-up", type=int, default=20, help="seeded games played first, not counted")
    parser.add_argument("--pure", action="store_true", help="run the sources, not the compiled builds")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("valgrind", "setarch") if shutil.which(tool) is None]
    if missing:
        print(f"error: {' and '.join(missing)} not found (install valgrind and util-linux)", file=sys.stderr)
        return 2
    results = [count(tree.resolve(), args.game, args.players, args.games, args.warm_up, args.pure)
               for tree in args.trees]
    first = results[0]["instructions"] / results[0]["steps"]
    for tree, result in zip(args.trees, results):
        per_step = result["instructions"] / result["steps"]
        print(f"{tree}: {result['instructions']:,} instructions over {result['steps']:,} steps = "
              f"{per_step:,.0f} per step ({per_step / first:.3f} x the first tree); "
              f"compiled build: {result['compiled']}")
    if len({result["steps"] for result in results}) > 1:
        print("the step counts differ: the trees do not play the same games", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
