"""Alternating A/B of two source trees: process time per env step of the same seeded random games.

Speed work on this machine is noisy (shared cores, frequency changes): a single run of
``throughput.py`` moves by a few percent from run to run, which is the size of most single changes.
This tool runs each tree in its own subprocess, alternating A, B, A, B, ... and reports the median of
each and their ratio. Both trees play the same seeded games through the same loop as
``throughput.py`` (``throughput.play_one`` of this tool's tree), so the step
counts must be equal; a different count means the two trees behave differently (use
``fingerprint.py`` to check that properly). Each subprocess says whether its tree runs its compiled build
(``scripts/build_compiled.py``; build both trees first, or set ``TABLETOP_GYM_PURE=1`` for both).

Run: ``python benchmarks/ab.py TREE_A TREE_B [--game medioevo_universale] [--players 4] [--games 10]
[--runs 6]``, e.g. a ``git worktree`` of main against the working tree.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import importlib.util, json, random, sys, time
sys.path.insert(0, sys.argv[1])
import envs  # the tree's, imported before throughput.py (of this tool's tree) puts its own root first
from envs.core.compiled import in_use
spec = importlib.util.spec_from_file_location("ab_throughput", sys.argv[5])
throughput = importlib.util.module_from_spec(spec)
spec.loader.exec_module(throughput)
game, players, games = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
env = envs.make(game, num_players=players)
pick = random.Random(0)
start = time.process_time()
steps = sum(throughput.play_one(env, pick, 1000 + g) for g in range(games))
elapsed = time.process_time() - start
print(json.dumps({"us_per_step": elapsed / steps * 1e6, "steps": steps, "compiled": in_use("envs." + game),
                  "envs": envs.__file__}))
"""


def run(tree: Path, game: str, players: int, games: int) -> dict:
    loop = Path(__file__).resolve().with_name("throughput.py")  # the same loop for both trees
    result = subprocess.run([sys.executable, "-c", CHILD, str(tree), game, str(players), str(games), str(loop)],
                            cwd=tree, capture_output=True, text=True, check=True)
    out = json.loads(result.stdout.strip().splitlines()[-1])
    if not Path(out["envs"]).resolve().is_relative_to(tree):
        raise RuntimeError(f"{tree}: the run imported envs from {out['envs']}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree_a", type=Path)
    parser.add_argument("tree_b", type=Path)
    parser.add_argument("--game", default="medioevo_universale")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=10, help="seeded games per run")
    parser.add_argument("--runs", type=int, default=6, help="runs per tree, alternating")
    args = parser.parse_args(argv)
    trees = {"A": args.tree_a.resolve(), "B": args.tree_b.resolve()}
    times: dict[str, list[float]] = {"A": [], "B": []}
    seen: dict[str, tuple] = {}
    for _ in range(args.runs):
        for name, tree in trees.items():
            out = run(tree, args.game, args.players, args.games)
            times[name].append(out["us_per_step"])
            seen[name] = (out["steps"], out["compiled"])
    for name, tree in trees.items():
        steps, compiled = seen[name]
        print(f"{name} {tree}: median {statistics.median(times[name]):.2f} us/step over {args.runs} runs "
              f"({', '.join(f'{t:.2f}' for t in times[name])}); {steps} steps, compiled build: {compiled}")
    ratio = statistics.median(times["B"]) / statistics.median(times["A"])
    print(f"B / A = {ratio:.3f} (below 1: B is faster)")
    if seen["A"][0] != seen["B"][0]:
        print("the step counts differ: the two trees do not play the same games", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
