"""``horizax bench``: the benchmark harness as a command, with a peer library in the same run.

`bench` measures one id the way ``benchmarks/`` does (`horizax.bench.harness`: one jitted
program resets ``B`` environments and scans ``T`` random steps with autoreset on, the
observations reduced to a checksum so that XLA keeps them): compile time, steps/s (best of
``repeats`` calls after a warm-up) and XLA's memory for the program per environment. With
``vs``, the peer's version of the same task runs next, in the same process, and the ratios
are reported:

=============  ==========================================================================
``vs``         the pair measured
=============  ==========================================================================
navix          ``MiniGrid-X-v0`` / ``Navix-X-v0``, both the full symbolic grid
xminigrid      ``MiniGrid-X-v0`` / xland-minigrid's ``MiniGrid-X``, its 7x7 view without
               occlusion on both sides (horizax's ``symbolic_first_person_see_through``)
jumanji        ``Maze-v0`` / jumanji's ``Maze`` (10x10), each with its batched autoreset
orbitalgym     ``Orbital-LadyBanditGuard-v0`` or ``-PursuitEvasion-v0`` / orbitalgym's game
               (50 steps of 10 s, zero-thrust opponent); horizax under its episode engine,
               orbitalgym under a select autoreset (it has none of its own)
=============  ==========================================================================

The peer must be installed in the same environment (navix and orbitalgym need Python 3.12).
Without ``vs`` any id runs: gridworlds with their default observation, the Maze and the two
orbital games as above, other ids through `horizax.vector.VectorEnv`.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from horizax.bench import gridworld, harness, maze, orbital

__all__ = ["PEERS", "bench", "format_report"]

PEERS = ("navix", "xminigrid", "jumanji", "orbitalgym")
_ORBITAL_GAMES = {f"Orbital-{name}-v0": game for game, name in orbital.GAMES.items()}
_INSTALL = {
    "navix": "pip install navix (Python 3.12)",
    "xminigrid": "pip install xminigrid",
    "jumanji": "pip install jumanji==1.1.2",
    "orbitalgym": "pip install orbitalgym (Python 3.12)",
}


def _vector_rollout(env_id: str, batch: int, steps: int) -> harness.RolloutFn:
    """Any id: `VectorEnv` (NEXT_STEP autoreset), uniform random actions."""
    from horizax.vector import VectorEnv, random_policy

    venv = VectorEnv(env_id, batch, devices=1)
    policy = random_policy(venv)

    def rollout(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        reset_key, run_key = jax.random.split(key)
        state, _ = venv.reset(reset_key)

        def body(carry: Any, step_key: jax.Array) -> tuple[Any, None]:
            state, episodes, checksum = carry
            state, step, _ = venv.step(state, policy(jax.random.split(step_key, batch), None))
            episodes = episodes + (step.terminated | step.truncated).sum(dtype=jnp.int32)
            return (
                state,
                episodes,
                checksum + harness.observation_checksum(step.observation),
            ), None

        init = (state, jnp.int32(0), jnp.int32(0))
        (_, episodes, checksum), _ = jax.lax.scan(body, init, jax.random.split(run_key, steps))
        return episodes, checksum

    return rollout


def _pair(env_id: str, vs: str | None, batch: int, steps: int) -> list[tuple[str, str, Any]]:
    """``[(library, description, rollout_fn)]``: horizax first, then the peer if any."""
    from horizax.core.registry import resolve

    env_id = resolve(env_id)
    is_grid = env_id.startswith("MiniGrid-")
    if vs not in (None, *PEERS):
        raise ValueError(f"vs must be one of {PEERS}, got {vs!r}")
    wrong = {"navix": not is_grid, "xminigrid": not is_grid, "jumanji": env_id != "Maze-v0"}
    wrong["orbitalgym"] = env_id not in _ORBITAL_GAMES
    if vs is not None and wrong[vs]:
        raise ValueError(f"{vs} has no counterpart of {env_id} here; see `horizax bench --help`")
    if vs is not None:
        try:
            __import__(vs)
        except ImportError as err:
            raise ImportError(f"{vs} is not installed here: {_INSTALL[vs]} ({err})") from err
    rows: list[tuple[str, str, Any]] = []
    if is_grid:
        obs = {"navix": "symbolic", "xminigrid": "symbolic_first_person_see_through"}.get(
            vs or "", "symbolic_first_person"
        )
        rows.append(
            (
                "horizax",
                f"{env_id}, {obs}",
                gridworld.horizax_make_rollout(env_id, obs)(batch, steps)[0],
            )
        )
        name = env_id.removeprefix("MiniGrid-").removesuffix("-v0")
        if vs == "navix":
            make = gridworld.navix_make_rollout(f"Navix-{name}-v0", "symbolic")
            rows.append(("navix", f"Navix-{name}-v0, symbolic", make(batch, steps)[0]))
        elif vs == "xminigrid":
            make = gridworld.xminigrid_make_rollout(f"MiniGrid-{name}", "gym")
            rows.append(("xminigrid", f"MiniGrid-{name}, its 7x7 view", make(batch, steps)[0]))
    elif env_id == "Maze-v0":
        make = maze.horizax_maze_make_rollout("autoreset")
        rows.append(("horizax", "Maze-v0 10x10, batched autoreset", make(batch, steps)[0]))
        if vs == "jumanji":
            make = maze.jumanji_maze_make_rollout("autoreset")
            rows.append(("jumanji", "Maze 10x10, batched autoreset", make(batch, steps)[0]))
    elif env_id in _ORBITAL_GAMES:
        game = _ORBITAL_GAMES[env_id]
        rows.append(
            ("horizax", f"{env_id}, episode engine", orbital.engine_rollout(game, batch, steps))
        )
        if vs == "orbitalgym":
            select = orbital.select_rollout("orbitalgym", game, batch, steps)
            rows.append(("orbitalgym", f"{orbital.GAMES[game]}, select autoreset", select))
    else:
        rows.append(("horizax", f"{env_id}, VectorEnv", _vector_rollout(env_id, batch, steps)))
    return rows


def bench(
    env_id: str, batch: int = 1024, steps: int = 1000, vs: str | None = None, repeats: int = 3
) -> list[dict[str, Any]]:
    """Measures ``env_id`` (and the peer ``vs``'s counterpart) with the harness.

    Args:
        env_id: a registered id.
        batch: environments ``B`` (>= 1).
        steps: steps per environment ``T`` (>= 1).
        vs: a peer (`PEERS`) to run next in the same process, or None.
        repeats: timed calls per library; the best counts.

    Returns:
        One dict per library: library, what (id and setting), batch, steps, steps_per_s,
        compile_s, memory_per_env (XLA's temp + argument + output bytes over ``B``, or None
        where the backend does not say), episodes, jax; the peer's row also ``ratio``
        (horizax's steps/s over the peer's) and ``compile_ratio`` (horizax's compile time
        over the peer's).

    Raises:
        ValueError: an unknown id or peer, a peer with no counterpart of the id, or a size
            below 1.
        ImportError: the peer is not installed.
    """
    from horizax.core.checks import int_in_range

    batch, steps = int_in_range(batch, "batch"), int_in_range(steps, "steps")
    repeats = int_in_range(repeats, "repeats", maximum=100)
    results = []
    for library, what, rollout in _pair(env_id, vs, batch, steps):
        timing = harness.time_rollout(rollout, jax.random.PRNGKey(0), repeats=repeats)
        memory = timing["memory"]
        per_env = None
        if memory:
            used = memory["temp"] + memory["argument"] + memory["output"] - memory["alias"]
            per_env = used / batch
        results.append(
            {
                "library": library,
                "what": what,
                "batch": batch,
                "steps": steps,
                "steps_per_s": batch * steps / timing["best_s"],
                "compile_s": timing["compile_s"],
                "memory_per_env": per_env,
                "episodes": timing["episodes"],
                "jax": jax.__version__,
            }
        )
    if len(results) == 2:
        ours, peer = results
        peer["ratio"] = ours["steps_per_s"] / peer["steps_per_s"]
        peer["compile_ratio"] = ours["compile_s"] / peer["compile_s"]
    return results


def format_report(results: list[dict[str, Any]]) -> str:
    """The rows of `bench` as the command prints them."""
    lines = [f"{'library':<11} {'steps/s':>14} {'compile s':>10} {'bytes/env':>11}  setting"]
    for row in results:
        memory = row["memory_per_env"]
        memory_text = "-" if memory is None else f"{memory:,.0f}"
        lines.append(
            f"{row['library']:<11} {row['steps_per_s']:>14,.0f} {row['compile_s']:>10.2f} "
            f"{memory_text:>11}  {row['what']}"
        )
    first = results[0]
    lines.append(f"B={first['batch']}, T={first['steps']}, JAX {first['jax']}")
    if len(results) == 2:
        peer = results[1]
        lines.append(
            f"horizax / {peer['library']}: {peer['ratio']:.2f}x steps/s, "
            f"compile time {peer['compile_ratio']:.2f}x"
        )
    return "\n".join(lines)
