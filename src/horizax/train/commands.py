"""``horizax train`` and ``horizax eval``: PPO runs in a directory, resumable exactly.

A run directory holds:

* ``run.json``: the id, seed, `PPOConfig`, devices and versions (what ``--resume`` and
  ``eval`` rebuild the learner from);
* ``metrics.csv`` and ``metrics.jsonl``: one row per update (environment steps, wall time,
  steps/s, mean return and success rate of the episodes that ended in it, episode counts,
  losses, the mean value at truncations);
* ``learning_curve.png``: mean return against environment steps (needs matplotlib);
* ``checkpoint.hzx``: the whole `TrainState` (parameters, optimizer, observation
  statistics, the environments' state and keys) in `horizax.checkpoint`'s format, written
  every ``--checkpoint-every`` updates and at the end.

``--resume DIR`` loads the checkpoint and continues with the same programs: the updates
after it are the ones an uninterrupted run makes, bit for bit (metric rows written after the
checkpoint are dropped and made again).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["config_overrides", "evaluate", "train"]

RUN_FILE, CHECKPOINT_FILE = "run.json", "checkpoint.hzx"
CSV_FILE, JSONL_FILE, CURVE_FILE = "metrics.csv", "metrics.jsonl", "learning_curve.png"


def config_overrides(overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` checked against `PPOConfig`'s fields (``hidden`` as a tuple).

    Raises:
        ValueError: an unknown field, named with the known ones.
    """
    from horizax.train.ppo import PPOConfig

    known = {f.name for f in dataclasses.fields(PPOConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ValueError(f"unknown PPO settings {unknown}; known: {sorted(known)}")
    if "hidden" in overrides:
        overrides = {**overrides, "hidden": tuple(overrides["hidden"])}
    return overrides


def _learner(env_id: str, config: Any, devices: int | None) -> Any:
    from horizax.train.ppo import PPO

    return PPO(env_id, config, devices=devices)


def _row(update: int, config: Any, metrics: dict[str, float], wall_s: float) -> dict[str, Any]:
    episodes = metrics["episodes"]
    return {
        "update": update,
        "env_steps": update * config.steps_per_update,
        "wall_s": round(wall_s, 4),
        "steps_per_s": round(config.steps_per_update / wall_s, 1) if wall_s > 0 else 0.0,
        "mean_return": metrics["return_sum"] / episodes if episodes else float("nan"),
        "success_rate": metrics["successes"] / episodes if episodes else float("nan"),
        **{k: v for k, v in metrics.items() if k != "return_sum"},
    }


def _read_rows(out: Path, up_to: int) -> list[dict[str, Any]]:
    path = out / JSONL_FILE
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line]
    return [row for row in rows if row["update"] <= up_to]


def _write_rows(out: Path, rows: list[dict[str, Any]]) -> None:
    (out / JSONL_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))
    if rows:
        with (out / CSV_FILE).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def _plot(out: Path, rows: list[dict[str, Any]], env_id: str) -> bool:
    """Writes the learning curve; False where matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axis = plt.subplots(figsize=(6, 3.5))
    axis.plot([r["env_steps"] for r in rows], [r["mean_return"] for r in rows])
    axis.set_xlabel("environment steps")
    axis.set_ylabel("mean episode return")
    axis.set_title(env_id)
    figure.tight_layout()
    figure.savefig(out / CURVE_FILE, dpi=100)
    plt.close(figure)
    return True


def _save(out: Path, state: Any, env_id: str) -> None:
    import jax

    from horizax import checkpoint

    checkpoint.save(out / CHECKPOINT_FILE, jax.device_get(state), env_id=env_id)


def _load(out: Path, learner: Any, seed: int, env_id: str) -> Any:
    """The checkpoint, placed as a fresh state is (parameters replicated, batch sharded)."""
    import jax

    from horizax import checkpoint

    fresh = learner.init(seed)
    loaded = checkpoint.load(out / CHECKPOINT_FILE, like=fresh, env_id=env_id)
    return jax.tree.map(lambda x, like: jax.device_put(x, like.sharding), loaded, fresh)


def _progress(row: dict[str, Any], total_updates: int) -> None:
    sys.stderr.write(
        f"\rupdate {row['update']}/{total_updates}  {row['env_steps']:,} steps  "
        f"{row['steps_per_s']:,.0f} steps/s  return {row['mean_return']:.3f}  "
        f"success {row['success_rate']:.2f}   "
    )
    if row["update"] == total_updates:
        sys.stderr.write("\n")
    sys.stderr.flush()


def train(
    env_id: str | None,
    out: str | Path,
    *,
    seed: int = 0,
    overrides: dict[str, Any] | None = None,
    devices: int | None = None,
    resume: bool = False,
    checkpoint_every: int = 10,
    stop_after: int | None = None,
) -> list[dict[str, Any]]:
    """Trains PPO and writes the run directory ``out`` (module docstring).

    Args:
        env_id: a registered id (None with ``resume``: the run's own).
        out: the run directory (created).
        seed: the run's seed (environments ``seed + i``, parameters from ``seed``).
        overrides: `PPOConfig` fields over `default_config`'s per-family defaults.
        devices: devices to shard the environments over (default: all).
        resume: continue the run in ``out`` from its checkpoint (its run.json decides the
            id, seed and config; ``overrides`` may raise ``total_steps`` only).
        checkpoint_every: updates between checkpoints.
        stop_after: stop after this many updates of this call (the checkpoint is written),
            as an interrupted job would.

    Returns:
        The metric rows of the whole run.
    """
    from horizax.train.ppo import PPOConfig, default_config

    out = Path(out)
    overrides = dict(overrides or {})
    if resume:
        run = json.loads((out / RUN_FILE).read_text())
        env_id, seed = str(run["env"]), int(run["seed"])
        kept = {**run["config"], "hidden": tuple(run["config"]["hidden"])}
        extra = set(overrides) - {"total_steps"}
        if extra:
            raise ValueError(
                f"--resume keeps the run's config; only total_steps may change, got {sorted(extra)}"
            )
        config = PPOConfig(**{**kept, **overrides})
        devices = run.get("devices") if devices is None else devices
    elif env_id is None:
        raise ValueError("env_id is needed to start a run")
    else:
        config = default_config(env_id, **config_overrides(overrides))
    learner = _learner(env_id, config, devices)
    out.mkdir(parents=True, exist_ok=True)
    state = _load(out, learner, seed, env_id) if resume else learner.init(seed)
    start = int(state.update)
    rows = _read_rows(out, start)
    record = {
        "env": env_id,
        "seed": seed,
        "config": dataclasses.asdict(config),
        "devices": learner.venv.mesh.size,
        "versions": _versions(),
    }
    (out / RUN_FILE).write_text(json.dumps(record, indent=2))
    last = config.num_updates if stop_after is None else min(config.num_updates, start + stop_after)
    for update in range(start + 1, last + 1):
        began = time.perf_counter()
        state, metrics = learner.update(state)
        rows.append(_row(update, config, metrics, time.perf_counter() - began))
        _progress(rows[-1], config.num_updates)
        if update % checkpoint_every == 0 or update == last:
            _save(out, state, env_id)
            _write_rows(out, rows)
    _write_rows(out, rows)
    _plot(out, rows, env_id)
    return rows


def _versions() -> dict[str, str]:
    import jax

    import horizax

    return {"horizax": horizax.__version__, "jax": jax.__version__}


def load_run(run_dir: str | Path) -> tuple[dict[str, Any], Any, Any]:
    """A training run's record, its `PPO` learner (one device) and its checkpointed state.

    Raises:
        FileNotFoundError: ``run_dir`` has no ``run.json`` or no checkpoint.
    """
    from horizax.train.ppo import PPOConfig

    run_dir = Path(run_dir)
    run = json.loads((run_dir / RUN_FILE).read_text())
    config = PPOConfig(**{**run["config"], "hidden": tuple(run["config"]["hidden"])})
    learner = _learner(run["env"], config, 1)
    return run, learner, _load(run_dir, learner, run["seed"], run["env"])


def evaluate(
    run_dir: str | Path,
    *,
    episodes: int = 16,
    seed: int = 12345,
    greedy: bool = False,
    gif: str | Path | None = None,
) -> dict[str, Any]:
    """Plays ``episodes`` episodes with the run's policy (one per environment, in parallel).

    Returns:
        A dict with episodes, mean_return, success_rate, mean_length, and the GIF's path (the
        first environment's episode, drawn by the family's ``render``) when ``gif`` is set.
    """
    import jax
    import numpy as np

    from horizax.core.checks import int_in_range
    from horizax.recording import write_frames
    from horizax.vector import VectorEnv

    int_in_range(episodes, "episodes")
    run, learner, state = load_run(run_dir)
    venv = VectorEnv(run["env"], episodes, autoreset_mode="Disabled", devices=1)
    env_state, first = venv.reset(seed=seed)
    observation = first.observation
    act = jax.jit(lambda s, o, k: learner.act(s, o, k, greedy))
    step = jax.jit(venv.step)
    limit = int(getattr(venv.fenv, "max_steps", 10_000))
    returns, lengths = np.zeros(episodes), np.zeros(episodes, np.int64)
    ended, success = np.zeros(episodes, bool), np.zeros(episodes, bool)
    frames = [venv.fenv.render(jax.tree.map(lambda x: x[0], env_state.state))] if gif else []
    key = jax.random.PRNGKey(seed)
    for _ in range(limit):
        key, act_key = jax.random.split(key)
        env_state, result, _ = step(env_state, act(state, observation, act_key))
        observation = result.observation
        reward, term, trunc = (
            np.asarray(x) for x in (result.reward, result.terminated, result.truncated)
        )
        running = ~ended
        returns += np.where(running, reward, 0.0)
        lengths += running
        success |= running & term & (reward > 0)
        if gif and running[0]:
            frames.append(venv.fenv.render(jax.tree.map(lambda x: x[0], env_state.state)))
        ended |= term | trunc
        if ended.all():
            break
    report: dict[str, Any] = {
        "env": run["env"],
        "episodes": episodes,
        "mean_return": float(returns.mean()),
        "success_rate": float(success.mean()),
        "mean_length": float(lengths.mean()),
    }
    if gif:
        report["gif"] = str(write_frames(frames, gif, fps=8)[0])
    return report
