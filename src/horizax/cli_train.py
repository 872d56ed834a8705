"""``horizax train`` and ``horizax eval``: the reference PPO as commands (extra ``train``).

The learner is imported when a command runs, so the other commands work without the extra;
without it, these say which extra to install (exit status 2).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from horizax.cli_support import at_least, fail

DEFAULT_TRAIN_ENV = "MiniGrid-Empty-8x8-v0"


def add_train_commands(sub: Any) -> None:
    """``train`` and ``eval`` (PPO, extra ``train``; imported when run)."""
    train = sub.add_parser("train", help="train PPO on an id (extra 'train')")
    train.add_argument("--env", help="environment id (not with --resume)")
    train.add_argument("--total-steps", type=at_least(1), help="environment steps in all")
    train.add_argument("--num-envs", type=at_least(1), help="environments stepped together")
    train.add_argument("--seed", type=at_least(0), default=0, help="PRNG seed")
    train.add_argument("--out", default="runs/ppo", help="run directory (default runs/ppo)")
    train.add_argument("--config", help="a JSON file of PPO settings (PPOConfig fields)")
    train.add_argument(
        "--truncation-as-termination",
        action="store_true",
        help="bootstrap from zero on truncations (the common mistake), for ablations",
    )
    train.add_argument("--devices", type=at_least(1), help="devices (default: all)")
    train.add_argument("--resume", metavar="DIR", help="continue the run in DIR exactly")
    train.add_argument("--checkpoint-every", type=at_least(1), default=10, help="updates")
    train.set_defaults(func=_cmd_train)
    evaluate = sub.add_parser("eval", help="evaluate a trained run (extra 'train')")
    evaluate.add_argument("--run", required=True, metavar="DIR", help="a run directory")
    evaluate.add_argument("--episodes", type=at_least(1), default=16)
    evaluate.add_argument("--seed", type=at_least(0), default=12345)
    evaluate.add_argument("--greedy", action="store_true", help="argmax / mean actions")
    evaluate.add_argument("--gif", metavar="PATH", help="write the first episode as a GIF")
    evaluate.set_defaults(func=_cmd_eval)


def train_commands(command: str) -> Any:
    """`horizax.train.commands`, or None after saying which extra ``command`` needs."""
    try:
        from horizax.train import commands
    except ImportError as err:
        print(
            f"horizax: {command} needs the extra: pip install 'horizax[train]' ({err})",
            file=sys.stderr,
        )
        return None
    return commands


def _cmd_train(args: argparse.Namespace) -> int:
    import json

    from horizax.core.registry import resolve

    try:  # a bad id is reported before a missing extra: both are the user's to fix
        env_id = None if args.resume else resolve(args.env or DEFAULT_TRAIN_ENV)
    except ValueError as err:
        return fail(err)
    commands = train_commands("train")
    if commands is None:
        return 2
    try:
        overrides = json.loads(Path(args.config).read_text()) if args.config else {}
        if args.total_steps is not None:
            overrides["total_steps"] = args.total_steps
        if args.num_envs is not None:
            overrides["num_envs"] = args.num_envs
        if args.truncation_as_termination:
            overrides["truncation_as_termination"] = True
        if args.resume:
            if args.env:
                raise ValueError("--resume continues the run's own env; drop --env")
            rows = commands.train(
                None,
                args.resume,
                overrides=overrides,
                devices=args.devices,
                resume=True,
                checkpoint_every=args.checkpoint_every,
            )
            out = args.resume
        else:
            rows = commands.train(
                env_id,
                args.out,
                seed=args.seed,
                overrides=overrides,
                devices=args.devices,
                checkpoint_every=args.checkpoint_every,
            )
            out = args.out
    except (ValueError, TypeError, FileNotFoundError) as err:
        return fail(err)
    last = rows[-1] if rows else {}
    print(f"run              {out}")
    print(f"updates          {last.get('update', 0)} ({last.get('env_steps', 0):,} steps)")
    print(f"mean return      {last.get('mean_return', float('nan')):.4f} (last update)")
    print(f"success rate     {last.get('success_rate', float('nan')):.4f} (last update)")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    commands = train_commands("eval")
    if commands is None:
        return 2
    try:
        report = commands.evaluate(
            args.run, episodes=args.episodes, seed=args.seed, greedy=args.greedy, gif=args.gif
        )
    except (ValueError, TypeError, FileNotFoundError) as err:
        return fail(err)
    for name, value in report.items():
        print(f"{name:<16} {value:.4f}" if isinstance(value, float) else f"{name:<16} {value}")
    return 0
