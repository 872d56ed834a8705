"""The ``horizax`` command: ``list`` the ids, ``run`` a batched random rollout, ``render``.

``horizax run`` is the main job: it resets ``--batch`` environments (a `horizax.vector.VectorEnv`
sharded over ``--devices``, default all), then steps them with a
uniform random policy (autoreset on) inside one jitted `lax.scan` per chunk of steps, showing
a progress bar, and prints episode statistics, compile time and throughput. The random
actions are drawn from the environment's action space (``Discrete`` or ``Box``), so every
family runs the same way. ``horizax render`` draws one episode (random or a trained run's
policy) as a GIF or PNG frames (`horizax.recording`, extra ``render``); ``horizax play`` lets
you play a gridworld or the Maze by hand in the terminal (`horizax.play`); ``horizax bench``
measures an id, optionally against a peer library (`horizax.bench.command`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from horizax.cli_support import (
    HelpfulParser,
    at_least,
    did_you_mean,
    fail,
    list_command,
    progress,
    version,
)
from horizax.cli_train import add_train_commands, train_commands

DEFAULT_ENV = "MiniGrid-DoorKey-8x8-v0"


def rollout_stats(
    env_id: str,
    batch: int,
    steps: int,
    seed: int,
    chunks: int = 10,
    devices: int | None = None,
) -> dict[str, Any]:
    """Runs the random-policy rollout and returns its statistics.

    The environments are a `horizax.vector.VectorEnv` (NEXT_STEP autoreset) sharded over
    ``devices`` devices; each environment draws its actions from its own key, so the
    statistics do not depend on the number of devices.

    Args:
        env_id: a registered id.
        batch: number of environments (a multiple of the device count).
        steps: steps per environment.
        seed: PRNG seed.
        chunks: number of jitted scan calls (one progress update each).
        devices: how many of JAX's devices to shard the batch over (default: all).

    Returns:
        A dict with episodes, mean_return, success_rate, terminated, truncated, compile_s,
        run_s, steps_per_s and devices.
    """
    import jax
    import jax.numpy as jnp

    from horizax.core import threefry
    from horizax.vector import VectorEnv, random_policy

    if batch < 1 or steps < 1:
        raise ValueError(f"--batch and --steps must be >= 1 (got {batch}, {steps})")
    venv = VectorEnv(env_id, batch, devices=devices)
    policy = random_policy(venv)
    chunks = max(1, min(chunks, steps))
    chunk_len = -(-steps // chunks)
    total_steps = chunk_len * chunks

    def init(key: jax.Array) -> Any:
        state, _ = venv.reset(key)
        zeros_f = jnp.zeros((), jnp.float32)
        zeros_i = jnp.zeros((), jnp.int32)
        stats = (zeros_i, zeros_f, zeros_i, zeros_i, zeros_i)
        running = jax.lax.with_sharding_constraint(jnp.zeros(batch, jnp.float32), venv.sharding)
        return state, running, stats

    def run_chunk(carry: Any, key: jax.Array) -> Any:
        def body(inner: Any, step_key: jax.Array) -> tuple[Any, None]:
            state, running, (episodes, returns, terminated, truncated, successes) = inner
            actions = policy(threefry.split(step_key, batch), None)
            state, step, _ = venv.step(state, actions)
            running = running + step.reward  # a NEXT_STEP reset step pays 0
            ended = step.terminated | step.truncated
            stats = (
                episodes + ended.sum(dtype=jnp.int32),
                returns + jnp.where(ended, running, 0.0).sum(),
                terminated + step.terminated.sum(dtype=jnp.int32),
                truncated + step.truncated.sum(dtype=jnp.int32),
                # A success is a termination that paid (goal), not lava or a collision.
                successes + (step.terminated & (step.reward > 0)).sum(dtype=jnp.int32),
            )
            return (state, jnp.where(ended, 0.0, running), stats), None

        return jax.lax.scan(body, carry, threefry.split(key, chunk_len))[0]

    key = jax.random.PRNGKey(seed)
    init_key, run_key = jax.random.split(key)
    start = time.perf_counter()
    init_fn, chunk_fn = _compile_both(init, run_chunk, init_key, run_key)
    carry = init_fn(init_key)
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    for i, chunk_key in enumerate(jax.random.split(run_key, chunks)):
        carry = chunk_fn(carry, chunk_key)
        jax.block_until_ready(carry)
        progress((i + 1) * chunk_len, total_steps)
    run_s = time.perf_counter() - start
    episodes, returns, terminated, truncated, successes = (x.item() for x in carry[2])
    return {
        "env": env_id,
        "batch": batch,
        "steps": total_steps,
        "episodes": episodes,
        "mean_return": returns / episodes if episodes else float("nan"),
        "success_rate": successes / episodes if episodes else float("nan"),
        "terminated": terminated,
        "truncated": truncated,
        "compile_s": compile_s,
        "run_s": run_s,
        "steps_per_s": batch * total_steps / run_s,
        "devices": venv.mesh.size,
        "jax": jax.__version__,
        "backend": jax.default_backend(),
    }


# The reset program runs once, so it is compiled for compile time (XLA's backend optimisation
# level 0: about 0.2 s less for DoorKey-8x8 on a 2-core CPU, its single run still ~2 ms).
_ONE_SHOT_OPTIONS: dict[str, str | bool] = {"xla_backend_optimization_level": "0"}


def _compile_both(
    init: Callable[..., Any], run_chunk: Callable[..., Any], init_key: Any, run_key: Any
) -> tuple[Any, Any]:
    """The compiled reset and chunk programs.

    The chunk is traced and lowered (Python, holding the GIL) against the reset's output
    types while XLA compiles the reset in a worker thread (C++, without the GIL); only then
    is the chunk compiled, so the two XLA compiles never compete for the CPU. On a CPU, a
    program without float transcendentals (every gridworld and the Maze) compiles with
    XLA's older loop emitters (`horizax.core.compile_options`): faster to compile, the same
    results.
    """
    import jax

    from horizax.core.compile_options import quick_compile_options

    lowered_init = jax.jit(init).lower(init_key)
    init_options = quick_compile_options(lowered_init, _ONE_SHOT_OPTIONS)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        init_future = pool.submit(lowered_init.compile, init_options)
        lowered_chunk = jax.jit(run_chunk).lower(lowered_init.out_info, run_key)
        init_fn = init_future.result()
    return init_fn, lowered_chunk.compile(quick_compile_options(lowered_chunk))


def _cmd_run(args: argparse.Namespace) -> int:
    from horizax.core.registry import resolve

    try:
        env_id = resolve(args.env)
    except ValueError as err:
        return fail(err)
    try:
        stats = rollout_stats(env_id, args.batch, args.steps, args.seed, devices=args.devices)
    except ValueError as err:  # --devices beyond JAX's, or a batch they do not divide
        return fail(err)
    print(f"environment      {stats['env']}  (batch {stats['batch']}, {stats['steps']} steps)")
    print(f"episodes ended   {stats['episodes']}")
    print(f"  terminated     {stats['terminated']}")
    print(f"  truncated      {stats['truncated']}")
    print(f"mean return      {stats['mean_return']:.4f}")
    print(f"success rate     {stats['success_rate']:.4f}")
    print(f"compile time     {stats['compile_s']:.2f} s")
    print(f"throughput       {stats['steps_per_s']:,.0f} steps/s ({stats['run_s']:.2f} s)")
    print(f"jax              {stats['jax']} on {stats['devices']} {stats['backend']} device(s)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``horizax`` command."""
    parser = HelpfulParser(prog="horizax", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"horizax {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="print every environment id, or a family's")
    listing.add_argument(
        "--family",
        metavar="F",
        help="only family F (DoorKey, Maze, ...; or gridworld, maze, orbital), described",
    )
    listing.set_defaults(func=list_command)
    run = sub.add_parser("run", help="batched random rollout as one jitted scan")
    run.add_argument("--env", default=DEFAULT_ENV, help=f"environment id (default {DEFAULT_ENV})")
    run.add_argument("--batch", type=at_least(1), default=256, help="number of environments")
    run.add_argument("--steps", type=at_least(1), default=1000, help="steps per environment")
    run.add_argument("--seed", type=at_least(0), default=0, help="PRNG seed")
    run.add_argument(
        "--devices",
        type=at_least(1),
        default=None,
        help="devices to shard the batch over (default: all of JAX's; --batch a multiple)",
    )
    run.set_defaults(func=_cmd_run)
    render = sub.add_parser("render", help="draw one episode as a GIF or PNG frames")
    render.add_argument("--env", help="environment id (default: the --policy run's)")
    render.add_argument("--seed", type=at_least(0), default=0, help="environment and policy seed")
    render.add_argument(
        "--steps", type=at_least(1), help="at most this many steps (default: the time limit)"
    )
    render.add_argument(
        "--policy", default="random", help="'random' (default) or a `horizax train` run folder"
    )
    render.add_argument(
        "--out", help="a .gif file, or a folder for numbered PNGs (default: ENV.gif)"
    )
    render.add_argument("--fps", type=float, default=8.0, help="GIF frames per second")
    render.set_defaults(func=_cmd_render)
    play = sub.add_parser("play", help="play a gridworld or the Maze by hand in the terminal")
    play.add_argument("--env", default="MiniGrid-DoorKey-5x5-v0", help="a gridworld or Maze id")
    play.add_argument("--seed", type=at_least(0), default=0, help="the first episode's seed")
    play.set_defaults(func=_cmd_play)
    bench = sub.add_parser(
        "bench", help="steps/s, compile time and memory, optionally against a peer library"
    )
    bench.add_argument("--env", default=DEFAULT_ENV, help=f"environment id (default {DEFAULT_ENV})")
    bench.add_argument("--batch", type=at_least(1), default=1024, help="environments B")
    bench.add_argument("--steps", type=at_least(1), default=1000, help="steps per environment T")
    bench.add_argument(
        "--vs",
        choices=("navix", "xminigrid", "jumanji", "orbitalgym"),
        help="also run the peer's version of the task, in this process",
    )
    bench.add_argument("--repeats", type=at_least(1), default=3, help="timed calls (best counts)")
    bench.set_defaults(func=_cmd_bench)
    add_train_commands(sub)
    return parser


def _cmd_bench(args: argparse.Namespace) -> int:
    from horizax.bench.command import bench, format_report

    try:
        results = bench(args.env, args.batch, args.steps, vs=args.vs, repeats=args.repeats)
    except (ValueError, ImportError) as err:
        return fail(err)
    print(format_report(results))
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from horizax.play import play

    try:
        return play(args.env, args.seed)
    except ValueError as err:
        return fail(err)


def _cmd_render(args: argparse.Namespace) -> int:
    from horizax.core.registry import resolve
    from horizax.recording import record_episode, write_frames

    try:
        policy_fn, env_id = None, resolve(args.env) if args.env else None
        if args.policy != "random":
            if not Path(args.policy).is_dir():  # a typo of 'random', or a run that is not there
                raise ValueError(
                    f"unknown policy {args.policy!r}: 'random' or a `horizax train` run folder."
                    + did_you_mean(args.policy, ["random"])
                )
            commands = train_commands("render --policy RUN_DIR")
            if commands is None:
                return 2
            run, learner, state = commands.load_run(args.policy)
            if env_id not in (None, run["env"]):
                raise ValueError(f"the run at {args.policy} trained {run['env']}, not {env_id}")
            env_id, policy_fn = run["env"], learner.policy(state)
        env_id = env_id or DEFAULT_ENV
        recording = record_episode(env_id, seed=args.seed, steps=args.steps, policy_fn=policy_fn)
        paths = write_frames(recording.frames, args.out or f"{env_id}.gif", fps=args.fps)
    except (ValueError, TypeError, ImportError, FileNotFoundError) as err:
        return fail(err)
    print(f"environment      {env_id}  (seed {args.seed}, policy {args.policy})")
    print(f"steps            {recording.length} ({recording.ending})")
    print(f"return           {recording.total_return:.4f}")
    print(f"wrote            {paths[0]}" + (f" ... ({len(paths)} files)" if len(paths) > 1 else ""))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``horizax`` console script and ``python -m horizax``."""
    args = build_parser().parse_args(argv)  # usage errors exit 2 here, --version 0
    return args.func(args)
