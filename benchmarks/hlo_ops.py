"""The operations of one compiled step program, counted by opcode and shape, for A/B checks.

Timing two source trees on a shared VM is noisy; comparing what XLA compiled is not. This
prints ``count opcode result-shape`` for every instruction of the compiled, batched
``VmapAutoReset(Maze()).step`` (or a gridworld id's vmapped ``Environment.step``), so two
trees can be diffed::

    PYTHONPATH=OLD/src python benchmarks/hlo_ops.py Maze-v0 1024 > old.ops
    PYTHONPATH=NEW/src python benchmarks/hlo_ops.py Maze-v0 1024 > new.ops
    diff old.ops new.ops   # empty: both trees compiled the same operations

Metadata (source lines, names, instruction numbers) is dropped: only what runs is compared.
"""

from __future__ import annotations

import collections
import re
import sys

import jax
import jax.numpy as jnp

_INSTRUCTION = re.compile(r"= ([a-z0-9]+\[[0-9,]*\])\S* ([a-z-]+)\(")


def compiled_step_text(env_id: str, batch: int) -> str:
    """The optimised HLO text of one batched step of ``env_id`` with autoreset on."""
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    actions = jnp.zeros(batch, jnp.int32)
    if env_id.startswith("Maze"):
        from horizax.maze import Maze
        from horizax.maze.autoreset import VmapAutoReset

        env = VmapAutoReset(Maze())
        state, _ = env.reset(keys)
        return jax.jit(env.step).lower(state, actions).compile().as_text()
    import horizax

    grid_env = horizax.make(env_id)
    timestep = jax.vmap(grid_env.reset)(keys)
    return jax.jit(jax.vmap(grid_env.step)).lower(timestep, actions).compile().as_text()


def operation_counts(hlo_text: str) -> collections.Counter[tuple[str, str]]:
    """``{(opcode, result shape): count}`` of an HLO module's instructions."""
    return collections.Counter((opcode, shape) for shape, opcode in _INSTRUCTION.findall(hlo_text))


def main(env_id: str, batch: int) -> None:
    """Prints the operation counts, sorted, one per line."""
    counts = operation_counts(compiled_step_text(env_id, batch))
    for (opcode, shape), count in sorted(counts.items()):
        print(f"{count:5d} {opcode} {shape}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
