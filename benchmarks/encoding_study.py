"""The action-encoding study: each encoding of each game trained with the same budget and seeds, evaluated
against the heuristic at fixed intervals (docs/encodings.md, "Study").

    python benchmarks/encoding_study.py --games kingsburg,catan_card,seventh_stone --seeds 3 --steps 200000

Every run is ``train.py`` with the game's config (``configs/<game>.yaml``, without its imitation warm start: every
encoding starts from scratch; and with ``ppo.policy: mlp``, as the entity policy is for flat only) and
``env.action_encoding``, its seed and ``--steps``, its periodic evaluation against the heuristic only
(``--eval-every`` updates, ``--eval-games`` games, deterministic policy, in the run's encoding). Runs go to
``--out``/<game>/<encoding>/seed<k>; a finished run is not run again and an interrupted one resumes from its
checkpoint, so the command can be repeated until it is done. Then it writes, per game, ``<game>.png`` (win rate
against env steps and against the CPU seconds of training, mean over seeds) and ``results.md``: per encoding the
final win rate against the heuristic over all seeds' last evaluations with a 95% Wilson interval, the mean of the
seeds' final rates, env steps per CPU second, and the budget and command. Time is the training process's CPU time
(eval_history.csv's ``cpu_seconds``), which other work on a shared machine stretches far less than the wall-clock.
``--docs`` also puts ``results.md`` into docs/encodings.md between its study markers.
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as train.py: no spinning second BLAS thread (before numpy)

import envs  # noqa: E402
from agents.training.config import load_config, to_dict  # noqa: E402
from agents.training.tournament import wilson_interval  # noqa: E402

START, END = "<!-- study:start -->", "<!-- study:end -->"


def run_dir(out: str, game: str, encoding: str, seed: int) -> str:
    return os.path.join(out, game, encoding, f"seed{seed}")


def study_config(game: str, encoding: str, seed: int, directory: str, args):
    """The game's config with the study's encoding, seed, budget and evaluation."""
    config_file = ROOT / "configs" / f"{game}.yaml"
    config_file = str(config_file) if config_file.is_file() else None
    own = to_dict(load_config(config_file, {"game": game}))  # an override replaces a whole section
    overrides = {
        "game": game, "seed": seed, "total_steps": args.steps, "run_dir": directory, "progress_bar": False,
        "env": {**own["env"], "action_encoding": encoding},
        "eval": {"every_updates": args.eval_every, "games": args.eval_games, "opponents": ["heuristic"]},
        # every encoding learns from scratch: imitating the heuristic exists for the flat encoding only
        "imitation": {"decisions": 0},
        # and with its own policy (MLP, MultiDiscrete MLP, pointer): the entity policy exists for flat only
        "ppo": {**own["ppo"], "policy": "mlp"},
    }
    if args.n_envs:
        overrides["n_envs"] = args.n_envs
    return load_config(config_file, overrides)


def run_one(game: str, encoding: str, seed: int, args):
    """Train one run (or resume it); the refusal (``trainer.RunTooLarge``) when it cannot be trained here, else
    None."""
    from agents.training.checkpoints import RunPaths
    from agents.training.trainer import RunTooLarge, train

    directory = run_dir(args.out, game, encoding, seed)
    paths = RunPaths(directory)
    if os.path.isfile(paths.final_model):
        return None
    config = study_config(game, encoding, seed, directory, args)
    resume = bool(paths.checkpoint_dirs())
    print(f"{game} {encoding} seed {seed}: {'resuming' if resume else 'training'} {args.steps:,} steps", flush=True)
    try:
        result = train(config, resume=resume, overwrite=not resume)
    except RunTooLarge as exc:  # a run too large for this machine is a result of the study, not its end
        print(f"{game} {encoding} seed {seed}: not trained: {exc}", flush=True)
        return exc
    if result.interrupted:  # Ctrl-C: the checkpoint is saved and the same command resumes the run
        raise SystemExit(130)
    history = read_history(paths.eval_history)
    if not history or history[-1]["step"] < result.run_timesteps:  # the final model's own point of the curve
        from agents.training.tournament import play_match

        match = play_match(game, config.num_players or envs.spec(game).default_players, result.final_model,
                           "heuristic", args.eval_games, seed=seed + 7_919, env_kwargs=config.env)
        write_header = not os.path.isfile(paths.eval_history)
        with open(paths.eval_history, "a", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["step", "seconds", "cpu_seconds", "win_rate_vs_heuristic"],
                                    extrasaction="ignore")
            if write_header:
                writer.writeheader()
            writer.writerow({"step": result.run_timesteps, "seconds": round(result.run_seconds, 1),
                             "cpu_seconds": round(result.run_cpu_seconds, 1),
                             "win_rate_vs_heuristic": round(match.win_rate, 4)})
    return None


def read_history(path: str) -> list[dict[str, float]]:
    if not os.path.isfile(path):
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return [{k: float(v) for k, v in row.items() if v not in ("", None)} for row in csv.DictReader(handle)]


def summarize(game: str, encodings: list[str], args, refused: dict | None = None) -> tuple[list[str], dict]:
    """The results table's rows for one game and the curves per encoding; ``refused``: (game, encoding) -> the
    refusal of its runs (``trainer.RunTooLarge``)."""
    rows, curves = [], {}
    for encoding in encodings:
        histories = [read_history(os.path.join(run_dir(args.out, game, encoding, seed), "eval_history.csv"))
                     for seed in range(args.seeds)]
        histories = [h for h in histories if h]
        if not histories:
            refusal = (refused or {}).get((game, encoding))
            if refusal is not None:
                rows.append(f"| {game} | {encoding} | 0 | — | not trained: needs at least "
                            f"{refusal.needed / 2**30:.1f} GiB to train |  |  |")
            continue
        curves[encoding] = histories
        finals = [h[-1]["win_rate_vs_heuristic"] for h in histories]
        wins = round(sum(rate * args.eval_games for rate in finals))
        low, high = wilson_interval(wins, args.eval_games * len(finals))
        speed = statistics.fmean(h[-1]["step"] / h[-1]["cpu_seconds"] for h in histories if h[-1].get("cpu_seconds"))
        rows.append(f"| {game} | {encoding} | {len(histories)} | {int(histories[0][-1]['step']):,} | "
                    f"{wins / (args.eval_games * len(finals)):.3f} [{low:.3f}, {high:.3f}] | "
                    f"{statistics.fmean(finals):.3f} | {speed:,.0f} |")
    return rows, curves


def plot(game: str, curves: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (by_steps, by_time) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for encoding, histories in curves.items():
        length = min(len(h) for h in histories)
        rate = [statistics.fmean(h[i]["win_rate_vs_heuristic"] for h in histories) for i in range(length)]
        steps = [histories[0][i]["step"] for i in range(length)]
        seconds = [statistics.fmean(h[i].get("cpu_seconds", 0.0) for h in histories) for i in range(length)]
        by_steps.plot(steps, rate, marker=".", label=encoding)
        by_time.plot(seconds, rate, marker=".", label=encoding)
    by_steps.set_xlabel("env steps")
    by_time.set_xlabel("CPU seconds of training")
    by_steps.set_ylabel("win rate against the heuristic (mean over seeds)")
    by_steps.set_ylim(0, 1)
    by_time.legend()
    figure.suptitle(f"{game}: learning curves by action encoding")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="kingsburg", help="comma-separated games")
    parser.add_argument("--encodings", default=None, help="comma-separated encodings (default: every one of "
                                                          "the first game)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200_000, help="env steps per run")
    parser.add_argument("--eval-every", type=int, default=10, help="PPO updates between evaluations")
    parser.add_argument("--eval-games", type=int, default=40, help="games per evaluation")
    parser.add_argument("--n-envs", type=int, default=None, help="override the config's n_envs")
    parser.add_argument("--out", default="results/encoding_study")
    parser.add_argument("--docs", action="store_true", help="write the results into docs/encodings.md")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    encodings = args.encodings.split(",") if args.encodings else envs.encodings(games[0])
    for game in games:
        missing = sorted(set(encodings) - set(envs.encodings(game)))
        if missing:
            raise SystemExit(f"{game} has no encoding {missing}; it has {envs.encodings(game)}")
    refused = {}
    for game in games:
        for encoding in encodings:
            for seed in range(args.seeds):
                refusal = run_one(game, encoding, seed, args)
                if refusal is not None:  # every seed would be refused alike
                    refused[game, encoding] = refusal
                    break
    command = "python benchmarks/encoding_study.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = [f"Budget: {args.steps:,} env steps per run, {args.seeds} seeds, evaluation every {args.eval_every} "
             f"updates over {args.eval_games} games against the heuristic. Command: `{command}`.", "",
             "| game | encoding | seeds | steps | final win rate vs heuristic, all seeds [95% CI] "
             "| mean of the seeds' final rates | env steps per CPU s |", "|---|---|---|---|---|---|---|"]
    os.makedirs(args.out, exist_ok=True)
    for game in games:
        rows, curves = summarize(game, encodings, args, refused)
        lines += rows
        if curves:
            plot(game, curves, os.path.join(args.out, f"{game}.png"))
    text = "\n".join(lines) + "\n"
    Path(args.out, "results.md").write_text(text)
    print(text)
    if args.docs:
        doc = ROOT / "docs" / "encodings.md"
        content = doc.read_text()
        if START not in content or END not in content:
            raise SystemExit(f"{doc} has no {START} ... {END} markers")
        head, rest = content.split(START, 1)
        doc.write_text(head + START + "\n" + text + END + rest.split(END, 1)[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
