"""Self-play MaskablePPO training for any registered game (or PPO on Ray RLlib with --backend rllib).

    python train.py --config configs/catan_card.yaml
    python train.py --game catan_card --num-players 3 --total-steps 2e6
    python train.py --config configs/catan_card.yaml --resume          # continue the latest checkpoint
    python train.py --config configs/catan_card.yaml --backend rllib   # on Ray RLlib (pip install -e '.[ray]')
    python train.py --config configs/catan_card.yaml --set ppo.learning_rate=1e-4 --set pool.max_snapshots=10

Without --config, configs/<game>.yaml is used if it exists, else the built-in defaults. Outputs go to
the run directory (default runs/<game>_<N>p): config.yaml, final_model.zip, checkpoints/,
snapshots/, tb/ (TensorBoard) and eval_history.csv. See docs/training.md.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# One BLAS thread (unless the variable is set): the policies' matrix products are small, and numpy's OpenBLAS
# otherwise keeps a second thread spinning between them, which takes CPU time from the games whenever every core
# is busy (two runs at once on 2 cores). Set before numpy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from envs.core.errors import TabletopError  # noqa: E402

# command-line flag -> config key
FLAG_KEYS = {
    "game": "game",
    "num_players": "num_players",
    "total_steps": "total_steps",
    "seed": "seed",
    "n_envs": "n_envs",
    "vec_env": "vec_env",
    "run_dir": "run_dir",
    "backend": "backend",
    "ray_address": "rllib.ray_address",
}
# flags whose value is text, kept as typed (others are read as YAML, e.g. 2e6)
TEXT_KEYS = ("game", "run_dir", "vec_env", "backend", "rllib.ray_address")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="YAML config (default: configs/<game>.yaml if it exists)")
    parser.add_argument("--game", help="registered game name (config key: game)")
    parser.add_argument("--num-players", help="players per game (config key: num_players)")
    parser.add_argument("--total-steps", help="learner steps to train, e.g. 2e6 (config key: total_steps)")
    parser.add_argument("--seed", help="config key: seed")
    parser.add_argument("--n-envs", help="environments stepped in lockstep (config key: n_envs)")
    parser.add_argument("--vec-env", help="auto, subproc (worker processes) or dummy (config key: vec_env)")
    parser.add_argument("--run-dir", help="output directory (config key: run_dir)")
    parser.add_argument("--backend", help="sb3 (default: MaskablePPO) or rllib (PPO on Ray RLlib, the `ray` extra) "
                                          "(config key: backend)")
    parser.add_argument("--ray-address", help="rllib backend: join a Ray cluster, 'auto' or 'ray://HOST:PORT'; "
                                              "without it Ray starts in this process (config key: rllib.ray_address)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="any config key, dotted: --set ppo.learning_rate=1e-4 (repeatable)")
    parser.add_argument("--resume", action="store_true", help="continue from the run directory's latest checkpoint")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing run in the run directory")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (config key: progress_bar)")
    parser.add_argument("--evaluate", type=int, default=0, metavar="GAMES",
                        help="afterwards, play a tournament of the final model against eval.opponents with GAMES "
                             "games per pairing; table on the terminal, CSV/JSON/PNG in the run directory")
    return parser


def config_from_args(args):
    from agents.training.config import load_config, parse_assignment

    overrides = {}
    for flag, key in FLAG_KEYS.items():
        value = getattr(args, flag)
        if value is not None:
            overrides[key] = value if key in TEXT_KEYS else parse_assignment(f"{key}={value}")[1]
    for item in args.set:
        key, value = parse_assignment(item)
        overrides[key] = value
    if args.no_progress:
        overrides["progress_bar"] = False
    return load_config(config_file(args, overrides.get("game")), overrides)


def config_file(args, game: str | None) -> str | None:
    """The YAML file the run's config starts from: --config, else configs/<game>.yaml if it exists (``game``:
    the game set on the command line, else the default one)."""
    from agents.training.config import default_config_path, load_config

    if args.config is not None:
        return args.config
    return default_config_path(game or load_config().game,
                               os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs"))


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = config_from_args(args)
        if config.backend == "rllib":
            from agents.training.rllib_backend import train_rllib as train
        else:
            from agents.training.trainer import train
        from agents.training.checkpoints import code_version

        trained_code = code_version()  # before training: the tree may change while it runs
        result = train(config, resume=args.resume, overwrite=args.overwrite)
    except TabletopError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    record_session(args, argv, config, result, trained_code)
    if result.interrupted:
        print(f"stopped by Ctrl-C after {result.num_timesteps:,} steps; the latest checkpoint is in "
              f"{os.path.join(result.run_dir, 'checkpoints')}. Continue with:\n"
              f"  {resume_command(argv if argv is not None else sys.argv[1:])}")
        return 130  # the shell's code for a run ended by Ctrl-C
    rate = f"{result.steps_per_second:,.0f} steps/s" if result.seconds > 0 else "no steps left to train"
    print(f"trained {result.num_timesteps:,} steps in {result.seconds:,.0f} s ({rate})")
    for name, value in result.latest_eval.items():
        print(f"last evaluation: win rate {value:.3f} vs {name}")
    print(f"final model: {result.final_model}")
    print(f"config:      {os.path.join(result.run_dir, 'config.yaml')}")
    print(f"tensorboard: tensorboard --logdir {os.path.join(result.run_dir, 'tb')}")
    if args.evaluate > 0:
        evaluate_final_model(config, result, args.evaluate)
    return 0


def resume_command(argv: list[str]) -> str:
    """The command that continues this run: its arguments, quoted for the shell, with --resume."""
    import shlex

    return shlex.join(["python", "train.py", *(a for a in argv if a not in ("--resume", "--overwrite")), "--resume"])


def record_session(args, argv, config, result, trained_code: str | None) -> None:
    """Note this session in the run's training.json: what a pretrained model's sidecar tells of its training
    (scripts/export_model.py). ``trained_code``: the code version when the session started."""
    import shlex

    from agents.training.checkpoints import record_session as record

    words = list(argv if argv is not None else sys.argv[1:])
    record(result.run_dir, {
        "command": shlex.join(["python", "train.py", *words]),
        "config_file": config_file(args, config.game),
        "code_version": trained_code,
        "seconds": round(result.seconds, 1),
        "steps": int(result.num_timesteps),
        "total_steps": int(config.total_steps),
        "seed": config.seed,
        "interrupted": bool(result.interrupted),
    }, resume=args.resume)


def evaluate_final_model(config, result, games: int) -> None:
    import agents
    from agents.training import tournament
    from agents.training.checkpoints import resolve

    num_players = resolve(config)[0]
    opponents = [o for o in config.eval.opponents if o != "heuristic" or config.game in agents.heuristic_games()]
    specs = [f"trained={result.final_model}", *opponents]
    print(f"evaluating: {games} games per pairing of {', '.join(['trained', *opponents])}", file=sys.stderr)
    outcome = tournament.run_tournament(config.game, num_players, specs, games, seed=config.seed,
                                        env_kwargs=config.env)
    tournament.print_table(outcome)
    paths = tournament.write_outputs(outcome, result.run_dir, stem="evaluation")
    print("wrote " + ", ".join(paths.values()))


if __name__ == "__main__":
    sys.exit(main())
