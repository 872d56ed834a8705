"""Regenerates the documentation's pictures with ``horizax render``.

    python tools/make_pictures.py              # every id, plus the home page's episodes
    python tools/make_pictures.py --only Maze-v0 MiniGrid-DoorKey-8x8-v0

Each id's picture, ``docs/images/envs/<id>.png``, is the first frame of seed 0 as drawn by
``horizax render --env <id> --seed 0 --steps 1 --out <folder>`` (the command writes numbered
frames into a folder; the first is the reset). The command runs in this process, through
``horizax.cli.main``, so that JAX starts once for every picture. The home page's animations,
``docs/images/episodes/<id>.gif``, are random-policy episodes from the same command. Every
picture comes from the command users run, so the docs show what they will see.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import pathlib
import shutil
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENVS = ROOT / "docs" / "images" / "envs"
EPISODES = ROOT / "docs" / "images" / "episodes"
# The home page's animations: (id, steps).
ANIMATED = (
    ("MiniGrid-Dynamic-Obstacles-8x8-v0", 40),
    ("Maze-v0", 40),
    ("Orbital-LadyBanditGuard-v0", 20),
)


def _render(*args: str) -> None:
    """``horizax render ARGS``, run in this process (one JAX start-up for every picture)."""
    from horizax import cli

    with contextlib.redirect_stdout(io.StringIO()):
        status = cli.main(["render", *args])
    if status:
        raise RuntimeError(f"horizax render {' '.join(args)} exited with {status}")


def picture(env_id: str) -> pathlib.Path:
    """Renders ``env_id``'s seed-0 reset frame into ``docs/images/envs``."""
    with tempfile.TemporaryDirectory() as folder:
        _render("--env", env_id, "--seed", "0", "--steps", "1", "--out", folder)
        target = ENVS / f"{env_id}.png"
        shutil.copyfile(pathlib.Path(folder) / "frame_0000.png", target)
    return target


def episode(env_id: str, steps: int) -> pathlib.Path:
    """Renders a random-policy episode of ``env_id`` as a GIF into ``docs/images/episodes``."""
    target = EPISODES / f"{env_id}.gif"
    _render("--env", env_id, "--seed", "0", "--steps", str(steps), "--out", str(target))
    return target


def main(argv: list[str] | None = None) -> None:
    import horizax

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", help="these ids only (no animations)")
    args = parser.parse_args(argv)
    ids = args.only or horizax.registered_ids()
    unknown = sorted(set(ids) - set(horizax.registered_ids()))
    if unknown:
        parser.error(f"unknown ids: {unknown}")
    ENVS.mkdir(parents=True, exist_ok=True)
    EPISODES.mkdir(parents=True, exist_ok=True)
    for env_id in ids:
        print(picture(env_id).relative_to(ROOT), flush=True)
    for env_id, steps in () if args.only else ANIMATED:
        print(episode(env_id, steps).relative_to(ROOT), flush=True)


if __name__ == "__main__":
    main()
