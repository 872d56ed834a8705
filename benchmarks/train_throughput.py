"""Training throughput: horizax's PPO against PureJaxRL's PPO on navix, side by side.

PureJaxRL (github.com/luchris429/purejaxrl) trains navix gridworlds with its
``purejaxrl/ppo_minigrid.py``. This script runs that file unmodified, from a checkout given by
``--purejaxrl``, next to `horizax.train.ppo.PPO` on the same task, with the same network
(two 64-unit tanh MLPs, orthogonal initialisation) and the same hyperparameters (that file's:
16 environments x 128 steps, one epoch of 8 minibatches, learning rate 2.5e-4 annealed).

The same task: navix's ``Navix-<name>-v0`` observes the whole grid symbolically (u8[H, W, 3])
and cuts episodes at its own ``max_steps``, so horizax's ``MiniGrid-<name>-v0`` is made with
``observation_fn=observations.symbolic`` and navix's ``max_steps``; horizax's observation
normalisation is off (PureJaxRL has none). What differs is each library's rule, and is kept:
horizax bootstraps truncations from the real last observation (one more critic pass over
the rollout's final observations) and shuffles whole environments into minibatches; navix
spends one ignored-action step per episode on its deferred autoreset.

Reported per library (both in this interpreter, so on the same JAX): compile time of the
whole training program, training steps/s (environment + learner, after compilation, best of
``--repeats``, the libraries alternated), the same number of environment steps alone under
uniform random actions (each library's own batched autoreset), and the fraction of training
time that environment time is. Needs navix, flax, optax, distrax and gymnax (PureJaxRL's
imports; its ``wrappers.py`` also imports brax, stubbed here when absent, as only its brax
wrapper uses it). PureJaxRL's file stops in ``pdb.set_trace()`` inside ``train``; the stop
is made a no-op while it traces::

    git clone https://github.com/luchris429/purejaxrl /tmp/purejaxrl
    /work/venv312/bin/python benchmarks/train_throughput.py --purejaxrl /tmp/purejaxrl \\
        --env DoorKey-5x5 DoorKey-8x8 KeyCorridorS3R3 Fetch-8x8-N3 ObstructedMaze-2Dlh \\
        --num-envs 16 256 --total-steps 262144 --json benchmarks/results_train_throughput.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pdb
import platform
import sys
import time
import types
from pathlib import Path

import jax
import jax.numpy as jnp


def _stub_brax() -> None:
    """Empty brax modules for PureJaxRL's ``wrappers.py`` (only its brax wrapper uses them)."""
    try:
        import brax.envs  # noqa: F401
    except ImportError:
        training = types.ModuleType("brax.envs.wrappers.training")
        training.EpisodeWrapper = training.AutoResetWrapper = object  # type: ignore[attr-defined]
        for name in ("brax", "brax.envs", "brax.envs.wrappers"):
            sys.modules.setdefault(name, types.ModuleType(name))
        sys.modules["brax.envs.wrappers.training"] = training


def load_purejaxrl(checkout: Path) -> types.ModuleType:
    """PureJaxRL's ``ppo_minigrid`` module, loaded from a checkout of the repository."""
    folder = checkout / "purejaxrl" if (checkout / "purejaxrl").is_dir() else checkout
    path = folder / "ppo_minigrid.py"
    if not path.is_file():
        raise SystemExit(f"--purejaxrl: no purejaxrl/ppo_minigrid.py under {checkout}")
    _stub_brax()
    sys.path.insert(0, str(folder))  # it imports its sibling ``wrappers``
    spec = importlib.util.spec_from_file_location("purejaxrl_ppo_minigrid", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def purejaxrl_config(env: str, num_envs: int, total_steps: int) -> dict:
    """``ppo_minigrid.py``'s own configuration, for ``env`` and the batch asked for."""
    return {
        "LR": 2.5e-4,
        "NUM_ENVS": num_envs,
        "NUM_STEPS": 128,
        "TOTAL_TIMESTEPS": total_steps,
        "UPDATE_EPOCHS": 1,
        "NUM_MINIBATCHES": 8,
        "GAMMA": 0.99,
        "GAE_LAMBDA": 0.95,
        "CLIP_EPS": 0.2,
        "ENT_COEF": 0.01,
        "VF_COEF": 0.5,
        "MAX_GRAD_NORM": 0.5,
        "ACTIVATION": "tanh",
        "ENV_NAME": f"Navix-{env}-v0",
        "ANNEAL_LR": True,
        "DEBUG": False,
    }


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - start


class PureJaxRLRun:
    """PureJaxRL's whole training as its one jitted program."""

    def __init__(self, module: types.ModuleType, config: dict) -> None:
        self.config = dict(config)
        train = module.make_train(self.config)  # fills NUM_UPDATES
        self.steps = self.config["NUM_UPDATES"] * config["NUM_STEPS"] * config["NUM_ENVS"]
        key = jax.random.PRNGKey(0)
        start = time.perf_counter()
        set_trace, pdb.set_trace = pdb.set_trace, lambda *a, **k: None
        try:
            self.program = jax.jit(train).lower(key).compile()
        finally:
            pdb.set_trace = set_trace
        self.compile_s = time.perf_counter() - start
        self.key = key

    def train_seconds(self) -> float:
        return _timed(self.program, self.key)

    def final_return(self) -> float:
        info = self.program(self.key)["metrics"]
        done = info["returned_episode"][-max(1, self.config["NUM_UPDATES"] // 10) :]
        returns = info["returned_episode_returns"][-done.shape[0] :]
        return float(jnp.sum(returns * done) / jnp.maximum(done.sum(), 1))


class HorizaxRun:
    """horizax's PPO, its updates in one jitted `lax.scan` (`PPO.run`)."""

    def __init__(self, env: str, num_envs: int, total_steps: int, max_steps: int) -> None:
        from horizax.grid import observations
        from horizax.train.ppo import PPO, PPOConfig

        config = PPOConfig(
            total_steps=total_steps,
            num_envs=num_envs,
            num_steps=128,
            update_epochs=1,
            num_minibatches=8,
            normalize_observations=False,
        )
        self.learner = PPO(
            f"MiniGrid-{env}-v0", config, observation_fn=observations.symbolic, max_steps=max_steps
        )
        self.updates = config.num_updates
        self.steps = config.num_updates * config.steps_per_update
        self.state = self.learner.init(seed=0)
        start = time.perf_counter()
        self.program = self.learner.compile_run(self.state, self.updates)
        self.compile_s = time.perf_counter() - start

    def train_seconds(self) -> float:
        return _timed(self.program, self.state)

    def final_return(self) -> float:
        metrics = self.program(self.state)[1]
        tail = slice(-max(1, self.updates // 10), None)
        return float(
            metrics["return_sum"][tail].sum() / max(float(metrics["episodes"][tail].sum()), 1)
        )


def env_seconds_navix(env: str, num_envs: int, steps: int) -> float:
    """Seconds for ``steps`` navix steps over ``num_envs`` environments, random actions."""
    import navix as nx

    nav = nx.make(f"Navix-{env}-v0")
    n_actions = int(nav.action_space.maximum) + 1

    def rollout(key):
        keys = jax.random.split(key, num_envs)
        timestep = jax.vmap(nav.reset)(keys)

        def body(ts, k):
            actions = jax.random.randint(k, (num_envs,), 0, n_actions)
            ts = jax.vmap(nav.step)(ts, actions)
            return ts, ts.reward.sum()

        return jax.lax.scan(body, timestep, jax.random.split(key, steps // num_envs))[1]

    program = jax.jit(rollout).lower(jax.random.PRNGKey(1)).compile()
    return min(_timed(program, jax.random.PRNGKey(1)) for _ in range(2))


def env_seconds_horizax(env: str, num_envs: int, steps: int, max_steps: int) -> float:
    """The same for horizax's `VectorEnv` (SAME_STEP autoreset, as its PPO uses)."""
    from horizax.grid import observations
    from horizax.vector import VectorEnv, random_policy

    venv = VectorEnv(
        f"MiniGrid-{env}-v0",
        num_envs,
        autoreset_mode="SameStep",
        observation_fn=observations.symbolic,
        max_steps=max_steps,
    )
    policy = random_policy(venv)
    key = jax.random.PRNGKey(1)
    venv.rollout(policy, key, steps // num_envs)  # compile
    return min(_timed(venv.rollout, policy, key, steps // num_envs) for _ in range(2))


def measure(module: types.ModuleType, env: str, num_envs: int, total_steps: int, repeats: int):
    """One row: both libraries training ``env`` with ``num_envs`` environments."""
    import navix as nx

    max_steps = int(nx.make(f"Navix-{env}-v0").max_steps)
    peer = PureJaxRLRun(module, purejaxrl_config(env, num_envs, total_steps))
    ours = HorizaxRun(env, num_envs, total_steps, max_steps)
    assert peer.steps == ours.steps, (peer.steps, ours.steps)
    times: dict[str, list[float]] = {"purejaxrl": [], "horizax": []}
    for _ in range(repeats):  # alternated, so load drifts hit both
        times["purejaxrl"].append(peer.train_seconds())
        times["horizax"].append(ours.train_seconds())
    env_time = {
        "purejaxrl": env_seconds_navix(env, num_envs, peer.steps),
        "horizax": env_seconds_horizax(env, num_envs, ours.steps, max_steps),
    }
    row: dict = {"env": env, "max_steps": max_steps, "num_envs": num_envs, "steps": ours.steps}
    for name, run in (("purejaxrl", peer), ("horizax", ours)):
        best = min(times[name])
        row[name] = {
            "compile_s": round(run.compile_s, 2),
            "train_s": round(best, 3),
            "steps_per_s": round(run.steps / best),
            "env_only_s": round(env_time[name], 3),
            "env_fraction": round(env_time[name] / best, 3),
            "final_return": round(run.final_return(), 3),
        }
    row["ratio"] = round(row["horizax"]["steps_per_s"] / row["purejaxrl"]["steps_per_s"], 2)
    # A zero-cost environment and horizax's learner as fast as PureJaxRL's bound the ratio.
    row["ratio_bound"] = round(1 / (1 - row["purejaxrl"]["env_fraction"]), 2)
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--purejaxrl", type=Path, required=True, help="a PureJaxRL checkout")
    parser.add_argument(
        "--env", nargs="+", default=["DoorKey-5x5"], help="names both libraries register"
    )
    parser.add_argument("--num-envs", type=int, nargs="+", default=[16, 256])
    parser.add_argument("--total-steps", type=int, default=262_144)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()

    module = load_purejaxrl(args.purejaxrl)
    print(
        f"JAX {jax.__version__}, {platform.processor() or platform.machine()}, "
        f"{jax.device_count()} {jax.default_backend()} device(s)"
    )
    rows = [
        measure(module, env, num_envs, args.total_steps, args.repeats)
        for env in args.env
        for num_envs in args.num_envs
    ]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
