"""MiniGrid 3.2.0's random-policy episodes of every BabyAI level, recorded and checked live.

An episode is reduced to its outcome (`SUCCESS`, `FAILURE`, `TRUNCATED`, or `CUT` when it
still runs after `HORIZON` steps) and its length. MiniGrid's episode ``i`` of a level starts
from ``reset(seed=i)`` and plays the uniform random actions of
``numpy.random.default_rng([ACTION_SEED, i])``, so each episode is a function of its index
alone and any one of them can be replayed.

Playing `N_MINIGRID` episodes of the 96 levels is MiniGrid's level generation and its
instruction verifier at every step: about 5 minutes of one core, 6% of the whole test
suite's time. So they are played once, here, and kept in ``random_policy_minigrid.json``;
``tests/grid/babyai/test_random_policy.py`` compares horizax's episodes with them and
replays `LIVE_EPISODES` of every level in live MiniGrid, which must give exactly the
recorded outcome and length. Regenerate after a change of MiniGrid's version, `HORIZON`,
`ACTION_SEED` or `N_MINIGRID` (about 3 minutes on two cores)::

    PYTHONPATH=src python -m tests.grid.babyai.random_policy_reference
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
import json
import multiprocessing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from horizax.core.step_type import StepType
from tests.grid import minigrid_bridge as bridge

FIXTURE = Path(__file__).with_name("random_policy_minigrid.json")
N_MINIGRID = 400
HORIZON = 192  # steps played per episode at most (see test_random_policy's docstring)
ACTION_SEED = 0
# The recorded episodes replayed live for every level: the first, the last and two between.
LIVE_EPISODES = tuple(int(i) for i in np.linspace(0, N_MINIGRID - 1, 4))
SUCCESS, FAILURE, TRUNCATED, CUT = 0, 1, 2, 3


def outcome_of(reward: np.ndarray, step_type: np.ndarray) -> np.ndarray:
    """i32[N]: SUCCESS, FAILURE or TRUNCATED of episodes that ended."""
    return np.where(
        reward > 0, SUCCESS, np.where(step_type == StepType.TERMINATION, FAILURE, TRUNCATED)
    )


def minigrid_level(env_id: str) -> Any:
    """MiniGrid's raw env of ``env_id``, its image switched off: no observation is
    compared, and the image is about 90% of its step's time."""
    mg = bridge.minigrid_env(env_id)
    mg.gen_obs = lambda: None
    return mg


def minigrid_episode(mg: Any, index: int) -> tuple[int, int]:
    """Outcome and length of MiniGrid's random episode ``index`` of the level ``mg``."""
    rng = np.random.default_rng([ACTION_SEED, index])
    with contextlib.redirect_stdout(io.StringIO()):  # the level generators print rejections
        mg.reset(seed=index)
    horizon = min(mg.max_steps, HORIZON)
    for t in range(1, horizon + 1):
        _, reward, terminated, truncated, _ = mg.step(int(rng.integers(mg.action_space.n)))
        if terminated or truncated:
            kind = StepType.TERMINATION if terminated else StepType.TRUNCATION
            return int(outcome_of(np.asarray(reward), np.asarray(kind))), t
    if horizon == mg.max_steps:
        raise AssertionError(f"MiniGrid's episode {index} outlived its time limit")
    return CUT, horizon


def minigrid_episodes(env_id: str, indices: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes and lengths (i64[n] each) of MiniGrid's episodes ``indices`` of ``env_id``."""
    mg = minigrid_level(env_id)
    played = [minigrid_episode(mg, i) for i in indices]
    outcome, length = np.array(played, np.int64).reshape(-1, 2).T
    return outcome, length


def load() -> dict[str, Any]:
    """The recorded episodes: ``{"minigrid", "n", "horizon", "action_seed", "ids": {id:
    {"outcome": str of digits, "length": [int]}}}``."""
    return json.loads(FIXTURE.read_text())


def recorded(fixture: dict[str, Any], env_id: str) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes and lengths (i64[n] each) of ``env_id``'s recorded episodes."""
    entry = fixture["ids"][env_id]
    outcome = np.frombuffer(entry["outcome"].encode(), np.uint8).astype(np.int64) - ord("0")
    return outcome, np.asarray(entry["length"], np.int64)


def _record(env_id: str) -> tuple[str, dict[str, Any]]:
    outcome, length = minigrid_episodes(env_id, range(N_MINIGRID))
    return env_id, {"outcome": "".join(map(str, outcome)), "length": length.tolist()}


def main() -> None:
    """Plays every BabyAI level's episodes (one process per core) and writes `FIXTURE`."""
    import horizax

    ids = [i for i in horizax.registered_ids() if i.startswith("BabyAI-")]
    with multiprocessing.get_context("spawn").Pool() as pool:
        entries = dict(pool.imap_unordered(_record, ids))
    head = {
        "minigrid": importlib.metadata.version("minigrid"),
        "n": N_MINIGRID,
        "horizon": HORIZON,
        "action_seed": ACTION_SEED,
    }
    # One level per line: diffs of a regenerated file read level by level.
    lines = [f"  {json.dumps(i)}: {json.dumps(entries[i])}" for i in ids]
    text = json.dumps(head)[:-1] + ', "ids": {\n' + ",\n".join(lines) + "\n}}\n"
    FIXTURE.write_text(text)
    print(f"wrote {FIXTURE} ({len(ids)} levels, {N_MINIGRID} episodes each)")


if __name__ == "__main__":
    main()
