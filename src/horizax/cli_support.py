"""What every ``horizax`` subcommand shares: its parser, errors with suggestions, the version.

Errors the user can fix (an unknown id, family, peer, policy or subcommand, a bad number) are
one line on stderr naming the bad argument, with the closest valid names when there are any,
and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "HelpfulParser",
    "at_least",
    "did_you_mean",
    "fail",
    "list_command",
    "progress",
    "version",
]


def version() -> str:
    """horizax's version: the installed distribution's metadata, else ``horizax.__version__``
    (a source tree on ``PYTHONPATH`` that was never installed has no metadata)."""
    from importlib import metadata

    try:
        return metadata.version("horizax")
    except metadata.PackageNotFoundError:
        import horizax

        return horizax.__version__


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" Did you mean: a, b?"`` naming the choices closest to ``word``, or ``""``.

    Matching ignores case, so ``doorkey`` finds ``DoorKey``; the choices keep their spelling.
    """
    by_folded = {choice.casefold(): choice for choice in choices}
    close = difflib.get_close_matches(word.casefold(), list(by_folded), n=3, cutoff=0.6)
    return f" Did you mean: {', '.join(by_folded[c] for c in close)}?" if close else ""


def fail(message: object) -> int:
    """Prints ``horizax: message`` on stderr; returns the usage-error exit status, 2."""
    print(f"horizax: {message}", file=sys.stderr)
    return 2


class HelpfulParser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose invalid-choice errors (a subcommand, ``--vs``)
    suggest the closest choices.

    Python 3.14's ``suggest_on_error`` does this; horizax supports 3.11, so the choice check
    is extended here. Subparsers are made with the parent's class, so they suggest too.
    """

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and value not in choices:
            names = [str(choice) for choice in choices]
            raise argparse.ArgumentError(
                action,
                f"invalid choice: {value!r} (choose from {', '.join(names)})."
                + did_you_mean(str(value), names),
            )


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type``: an int >= ``minimum`` (argparse reports anything else as a usage
    error naming the option, exit status 2, instead of a traceback)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an int >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an int >= {minimum}, got {value}")
        return value

    return parse


def progress(done: int, total: int, width: int = 30) -> None:
    """Redraws a ``[####----] done/total steps`` bar on stderr (a newline once done)."""
    filled = int(width * done / total)
    bar = "#" * filled + "-" * (width - filled)
    sys.stderr.write(f"\r[{bar}] {done}/{total} steps")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def list_command(args: argparse.Namespace) -> int:
    """``horizax list [--family F]``: every id, or a family's ids with one-line summaries.

    ``F`` is a family (``DoorKey``, ``Maze``, ``LadyBanditGuard``, ...) or a group of them
    (``gridworld``, ``maze``, ``orbital``), in any case.
    """
    from horizax.core.registry import registered_ids

    if args.family is None:
        for env_id in registered_ids():
            print(env_id)
        return 0
    from horizax.families import family_catalog

    catalog = family_catalog()
    wanted = args.family.casefold()
    chosen = [f for f in catalog if wanted in (f.name.casefold(), f.group.casefold())]
    if not chosen:
        names = list(dict.fromkeys([f.name for f in catalog] + [f.group for f in catalog]))
        return fail(
            f"unknown family {args.family!r}.{did_you_mean(args.family, names)} "
            f"The families: {', '.join(names)}."
        )
    rows = [(env_id, family.summary) for family in chosen for env_id in family.env_ids]
    width = max(len(env_id) for env_id, _ in rows)
    for env_id, summary in rows:
        print(f"{env_id:<{width}}  {summary}")
    return 0
