"""The probes' timing loop: every side's rollout at every batch size, in rounds.

`probe_empty.py`, `probe_memory.py` and `probe_babyai.py` time a bare program of a task next
to horizax's (and a peer's) in the same harness. Rounds over all the sides, rather than one
side after another, let a slow minute of a shared machine weigh on every side alike.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import jax
from harness import time_rollout


def timed_rounds(
    rollouts: Callable[[int], dict[str, Any]],
    batches: Sequence[int],
    steps: int,
    rounds: int,
    key: jax.Array,
    same: tuple[str, str] | None = None,
) -> dict[tuple[int, str], list[float]]:
    """Compiles and times each side's rollout (best of 5 calls) for every round and batch.

    Prints one JSON record per (round, batch size, side): steps/s, microseconds per
    environment step, compile seconds, episodes and the observation checksum.

    Args:
        rollouts: ``batch -> {side: un-jitted harness rollout}`` of ``steps`` steps.
        batches: the batch sizes, in order.
        steps: steps per rollout (T).
        rounds: how many times every (batch size, side) is measured.
        key: the key every rollout is called with.
        same: two sides that must play the same rollouts (equal episodes and checksum).

    Returns:
        ``{(batch, side): [steps/s of each round]}``.

    Raises:
        SystemExit: if the ``same`` sides played different rollouts.
    """
    speeds: dict[tuple[int, str], list[float]] = {}
    for round_index in range(rounds):
        for batch in batches:
            checks = {}
            for side, rollout in rollouts(batch).items():
                timing = time_rollout(rollout, key, repeats=5)
                checks[side] = (int(timing["episodes"]), int(timing["checksum"]))
                speed = batch * steps / timing["best_s"]
                speeds.setdefault((batch, side), []).append(speed)
                record = {
                    "round": round_index,
                    "side": side,
                    "B": batch,
                    "T": steps,
                    "steps_per_s": speed,
                    "us_per_env_step": 1e6 / speed,
                    "compile_s": timing["compile_s"],
                    "episodes": checks[side][0],
                    "checksum": checks[side][1],
                }
                print(json.dumps(record), flush=True)
            if same is not None and checks[same[0]] != checks[same[1]]:
                raise SystemExit(f"B={batch}: the sides played different rollouts: {checks}")
    return speeds


def probe_main(
    argv: list[str] | None,
    description: str,
    rollouts: Callable[[int, int, bool], dict[str, Any]],
    key: jax.Array,
    task: str,
) -> None:
    """The command line of a probe played key for key with horizax (and navix if asked).

    Times the rounds (`timed_rounds`, the ``horizax`` and ``probe`` sides checked equal),
    then prints one JSON summary per batch size: medians, horizax / probe, and horizax /
    navix with ``--navix``.

    Args:
        argv: the arguments (None: ``sys.argv``).
        description: the command's one-line description.
        rollouts: ``(batch, steps, navix) -> {side: un-jitted harness rollout}``.
        key: the key every rollout is called with.
        task: the task's name in ``--navix``'s help.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--navix", action="store_true", help=f"time navix's {task} too")
    args = parser.parse_args(argv)
    speeds = timed_rounds(
        lambda batch: rollouts(batch, args.steps, args.navix),
        args.batch,
        args.steps,
        args.rounds,
        key,
        same=("horizax", "probe"),
    )
    for batch in args.batch:
        ours = statistics.median(speeds[batch, "horizax"])
        probe = statistics.median(speeds[batch, "probe"])
        summary = {
            "B": batch,
            "horizax_median": ours,
            "probe_median": probe,
            "ratio": ours / probe,
            "jax": jax.__version__,
        }
        if args.navix:
            summary["navix_median"] = statistics.median(speeds[batch, "navix"])
            summary["ratio_to_navix"] = ours / summary["navix_median"]
        print(json.dumps(summary), flush=True)


def side_by_side(
    env_id: str,
    probe_rollout: Callable[[int, int], Any],
    batch: int,
    steps: int,
    navix: bool = False,
) -> dict[str, Any]:
    """The un-jitted harness rollouts of horizax's ``env_id`` (set up exactly as `compare.py`'s
    row, `peers.horizax_make_rollout`, full symbolic view), the probe's, and navix's
    ``Navix-`` twin if ``navix``."""
    from peers import horizax_make_rollout

    out = {
        "horizax": horizax_make_rollout(env_id, "symbolic")(batch, steps)[0],
        "probe": probe_rollout(batch, steps),
    }
    if navix:
        from peers import navix_make_rollout

        twin = env_id.replace("MiniGrid-", "Navix-", 1)
        out["navix"] = navix_make_rollout(twin, "symbolic")(batch, steps)[0]
    return out


def harness_rollout(
    reset: Callable[..., Any], step: Callable[..., Any], batch: int, steps: int
) -> Any:
    """A probe's un-jitted harness rollout (`harness.make_scan_rollout`, actions drawn from
    MiniGrid's seven) of its ``reset`` and ``step``, whose states hold ``observation`` and
    ``done``."""
    from harness import make_scan_rollout

    from horizax.grid.constants import NUM_ACTIONS

    return make_scan_rollout(
        reset, step, lambda s: s.observation, lambda s: s.done, NUM_ACTIONS, batch, steps
    )
