"""Ship a trained policy as a pretrained opponent: models/<game>_<N>p.zip and its sidecar models/<game>_<N>p.json.

    python scripts/export_model.py runs/kingsburg_2p --game kingsburg --players 2
    python scripts/export_model.py runs/kingsburg_2p/checkpoints/step_409600/model.zip --game kingsburg --players 2

The source is a run directory of train.py (its final_model.zip) or an SB3 checkpoint .zip inside one. The copy
holds the actor only: without the optimizer's state (``agents.training.checkpoints.copy_policy``, as the opponent
pool's snapshots) and without the critic, which acting never reads (``agents.ppo.drop_critic``: ``PPOAgent`` and
so ``pretrained`` load it, SB3's ``MaskablePPO.load`` does not; train further from the run's checkpoints). It is checked to load and fit the game at that player count before
it replaces anything. The sidecar says how the policy was trained, from the run's config.yaml and training.json
(the train.py sessions: command, config file, code version, seconds) and, when the run has one, the final
tournament of ``train.py --evaluate`` (evaluation.json). ``--models DIR`` (or TABLETOP_GYM_MODELS) writes
elsewhere than the repository's models/. Then ``--agents pretrained`` (evaluate.py) and ``--opponents pretrained``
(play.py) play it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from envs.core.errors import TabletopError  # noqa: E402

SIDECAR_FORMAT = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="a train.py run directory or an SB3 checkpoint .zip")
    parser.add_argument("--game", required=True, help="the game the policy plays")
    parser.add_argument("--players", type=int, required=True, help="the player count it plays at")
    parser.add_argument("--models", help="the models directory (default: $TABLETOP_GYM_MODELS, else models/)")
    return parser


def source_files(source: str) -> tuple[str, str | None]:
    """(the checkpoint .zip, its run directory or None): a run directory gives its final_model.zip; a .zip's run
    directory is the nearest folder above it, up to three levels (checkpoints/step_N/model.zip), holding the run's
    config.yaml."""
    from agents.training.checkpoints import CONFIG_FILE, FINAL_MODEL

    if os.path.isdir(source):
        model = os.path.join(source, FINAL_MODEL)
        if not os.path.isfile(model):
            raise ValueError(f"{source!r} holds no {FINAL_MODEL}: export a run that finished, or one of its "
                             "checkpoints' model.zip (an RLlib run cannot be exported: pretrained models are SB3 "
                             "zips)")
        return model, source
    if not os.path.isfile(source):
        raise ValueError(f"{source!r} does not exist")
    folder = os.path.dirname(os.path.abspath(source))
    for _ in range(3):
        if os.path.isfile(os.path.join(folder, CONFIG_FILE)):
            return source, folder
        folder = os.path.dirname(folder)
    return source, None


def _repository_path(path: str | None) -> str | None:
    """A path relative to the repository when inside it (as a command typed there would name it)."""
    if path is None:
        return None
    relative = os.path.relpath(os.path.abspath(path), ROOT)
    return path if relative.startswith(os.pardir) else relative


def sidecar(model: str, run_dir: str | None, game: str, num_players: int, metadata: dict) -> dict:
    """What the models' sidecar holds: how the policy was trained and how it did, as far as the run says."""
    from agents.training.checkpoints import RunPaths, read_sessions
    from agents.training.config import read_yaml

    config, sessions, evaluation = {}, [], None
    if run_dir is not None:
        paths = RunPaths(run_dir)
        config = read_yaml(paths.config) if os.path.isfile(paths.config) else {}
        sessions = read_sessions(run_dir)
        evaluation = _evaluation(os.path.join(run_dir, "evaluation.json"))
    finished = [s for s in sessions if not s.get("interrupted")]
    last = finished[-1] if finished else (sessions[-1] if sessions else {})
    seconds = [s.get("seconds") for s in sessions]
    return {
        "format": SIDECAR_FORMAT,
        "game": game,
        "num_players": num_players,
        "source": _repository_path(model),
        "training_command": last.get("command"),
        "config_file": _repository_path(last.get("config_file")),
        "total_steps": metadata.get("num_timesteps"),
        # the sum over the run's train.py sessions (a resumed run has several); unknown without training.json
        "wall_seconds": round(sum(seconds), 1) if seconds and None not in seconds else None,
        "sessions": len(sessions) or None,
        "seed": metadata.get("seed", config.get("seed")),
        "git_commit": last.get("code_version"),
        "backend": config.get("backend", "sb3"),
        "env_kwargs": metadata.get("env_kwargs", {}),
        "net_arch": (config.get("ppo") or {}).get("net_arch"),
        "evaluation": evaluation,
    }


def _evaluation(path: str) -> dict | None:
    """The pairings of the run's final tournament (train.py --evaluate), None without one."""
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as handle:
        result = json.load(handle)
    keys = ("agent", "opponent", "games", "wins", "draws", "losses", "win_rate", "win_rate_ci_low",
            "win_rate_ci_high")
    return {"games_per_pairing": result.get("games_per_pairing"), "seed": result.get("seed"),
            "pairings": [{k: row.get(k) for k in keys} for row in result.get("pairings", [])]}


def export(source: str, game: str, num_players: int, models: str | None = None) -> tuple[str, str]:
    """Write models/<game>_<N>p.zip and .json from ``source``; (zip path, sidecar path). Nothing is replaced
    unless the copy loads and fits ``game`` at ``num_players``."""
    import envs
    from agents import pretrained
    from agents.ppo import PPOAgent, drop_critic, read_checkpoint_metadata
    from agents.training.checkpoints import copy_policy

    spec = envs.spec(game)  # ConfigError naming the games for an unknown one
    if num_players not in spec.player_counts:
        raise ValueError(f"{game} is played by {list(spec.player_counts)} players, not {num_players}")
    model, run_dir = source_files(source)
    metadata = read_checkpoint_metadata(model)
    trained = (metadata.get("game"), metadata.get("num_players"))
    if None not in trained and trained != (game, num_players):
        raise ValueError(f"{model!r} was trained for {trained[0]} at {trained[1]} players, not {game} at "
                         f"{num_players}")
    directory = models or pretrained.models_dir()
    os.makedirs(directory, exist_ok=True)
    target = pretrained.model_path(game, num_players, directory)
    handle, staged = tempfile.mkstemp(prefix=".export-", suffix=".zip", dir=directory)  # not listed as a model
    os.close(handle)
    try:
        copy_policy(model, staged)
        drop_critic(staged)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staged, 0o666 & ~umask)  # as a file written the usual way (mkstemp makes it private)
        # loads, and fits the env's observation size and action count (CheckpointError otherwise)
        PPOAgent(staged, game=game, num_players=num_players, env_kwargs=metadata.get("env_kwargs"))
        os.replace(staged, target)
    finally:
        if os.path.exists(staged):
            os.remove(staged)
    info = sidecar(model, run_dir, game, num_players, metadata)
    info["size_bytes"] = os.path.getsize(target)
    side = pretrained.sidecar_path(game, num_players, directory)
    with open(side, "w", encoding="utf-8") as handle:
        json.dump(info, handle, indent=2)
        handle.write("\n")
    return target, side


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        target, side = export(args.source, args.game, args.players, args.models)
    except (TabletopError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {target} ({os.path.getsize(target):,} bytes) and {side}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
