"""BabyAI's instruction trees: composites whose clauses may be composites themselves.

MiniGrid 3.2.0's grammar (``LevelGen.rand_instr``) nests one level deep: an instruction is
an action, an ``and`` of two actions, or a ``then``/``after`` of two clauses each of which is
an action or an ``and``. A tree is ``i32[38]``: ``(kind, strict, branch_a[18],
branch_b[18])`` with ``kind`` one of `Seq.BEFORE`, `Seq.AFTER` or `Seq.SINGLE` (branch a
alone: an action or an ``and``) and each branch a `horizax.grid.babyai.sequences` composite
of kind `Seq.AND` or `Seq.SINGLE`. So every sentence of the grammar has one encoding, with up
to four action instructions (the leaves, `leaves`).

`verify_tree` is MiniGrid's ``verify`` of the whole tree: the top composite decides which
branches are verified on a step (`sequences.join`), a verified branch decides which of its
leaves are, and only verified leaves move their memory, while every leaf follows its objects
on every step (`verifiers.track`), as MiniGrid's ``update_objs_poss`` walks the whole tree.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import verifiers as V
from horizax.grid.babyai.sequences import Seq
from horizax.grid.state import State

TREE_SIZE = 2 + 2 * Q.SEQ_SIZE
NUM_LEAVES = 4
_TOP_KINDS = (Seq.BEFORE, Seq.AFTER, Seq.SINGLE)
_BRANCH_KINDS = (Seq.AND, Seq.SINGLE)


def tree(
    kind: Seq, branch_a: np.ndarray, branch_b: np.ndarray | None = None, *, strict: bool = False
) -> np.ndarray:
    """i32[38]: an instruction tree, checked on the host.

    Args:
        kind: `Seq.BEFORE`, `Seq.AFTER`, or `Seq.SINGLE` (``branch_a`` is the instruction).
        branch_a: i32[18], a `sequences.sequence` of kind `Seq.AND` or `Seq.SINGLE`.
        branch_b: i32[18], the same; None exactly for `Seq.SINGLE` (stored as a single
            GoTo that matches nothing).
        strict: MiniGrid's flag of the top composite.

    Raises:
        ValueError: naming the argument that is not part of MiniGrid's grammar.
    """
    kind = Seq(kind)
    if kind not in _TOP_KINDS:
        raise ValueError(f"kind={kind.name}: a tree joins its branches by BEFORE, AFTER or SINGLE")
    if (branch_b is None) != (kind == Seq.SINGLE):
        raise ValueError("branch_b: given exactly when the kind is not SINGLE")
    if branch_b is None:
        branch_b = Q.sequence(Seq.SINGLE, np.array([V.Instr.GOTO, 0, 0, 0, 0, 0, 0, 0]))
    parts = []
    for name, branch in (("branch_a", branch_a), ("branch_b", branch_b)):
        branch = np.asarray(branch, np.int32)
        if branch.shape != (Q.SEQ_SIZE,) or branch[0] not in _BRANCH_KINDS:
            raise ValueError(f"{name}: expected an AND or SINGLE sequence i32[18], got {branch}")
        parts.append(branch)
    return np.concatenate([[int(kind), int(strict)], *parts]).astype(np.int32)


def branches(tree: Array) -> Array:
    """i32[2, 18]: the two branches."""
    return tree[2:].reshape(2, Q.SEQ_SIZE)


def leaves(tree: Array) -> Array:
    """i32[4, 8]: the action instructions: branch a's two clauses, then branch b's."""
    return branches(tree)[:, 2:].reshape(NUM_LEAVES, V.INSTR_SIZE)


def leaves_used(tree: Array) -> Array:
    """bool[4]: the leaves that are part of the sentence (a SINGLE leaves its clause b out)."""
    tree = jnp.asarray(tree, jnp.int32)
    kinds = branches(tree)[:, 0]
    branch_used = jnp.stack([jnp.bool_(True), tree[0] != Seq.SINGLE])
    second = kinds != Seq.SINGLE
    return jnp.stack([branch_used, branch_used & second], axis=1).reshape(NUM_LEAVES)


def num_navs(tree: Array) -> Array:
    """i32[]: MiniGrid's ``num_navs_needed``: 2 per PutNext leaf, 1 per other leaf."""
    tree = jnp.asarray(tree, jnp.int32)
    per_leaf = jnp.where(leaves(tree)[:, 0] == V.Instr.PUT_NEXT, 2, 1)
    return jnp.sum(jnp.where(leaves_used(tree), per_leaf, 0)).astype(jnp.int32)


@pytree_dataclass
class TreeProgress(Replaceable):
    """What a tree carries between steps.

    Attributes:
        branches: `sequences.SeqProgress` of both branches, stacked on a leading axis of 2
            (so ``branches.clauses`` has leading axes ``[branch, clause]``).
        done: i32[2], the status each branch returned when last verified (`Status.CONTINUE`
            before the first).
    """

    branches: Q.SeqProgress
    done: Array


def start_tree(
    tree: Array, state: State, *, room_size: int, kinds: tuple[int, ...] = V.ALL_KINDS
) -> TreeProgress:
    """The tree's verifier state at reset (every leaf reset).

    Args:
        tree: i32[38], the instruction.
        state: the episode's first state.
        room_size: the level's room side, walls included (static).
        kinds: static, the `verifiers.Instr` kinds the leaves may be.
    """
    tree = jnp.asarray(tree, jnp.int32)
    progress = jax.vmap(lambda b: Q.start_sequence(b, state, room_size=room_size, kinds=kinds))(
        branches(tree)
    )
    done = jnp.asarray(np.full(2, V.Status.CONTINUE, np.int32))  # not weakly typed
    return TreeProgress(branches=progress, done=done)


def verify_tree(
    tree: Array,
    progress: TreeProgress,
    prev_state: State,
    state: State,
    action: Array,
    *,
    done_actions: bool = False,
    kinds: tuple[int, ...] = V.ALL_KINDS,
) -> tuple[Array, TreeProgress]:
    """One step of MiniGrid's ``verify`` of the whole tree.

    Args:
        tree: i32[38], the instruction.
        progress: before the step (`start_tree` at reset).
        prev_state: the environment's state before the step.
        state: the environment's state after the step.
        action: i32[], the action taken.
        done_actions: static, MiniGrid's ``BABYAI_DONE_ACTIONS`` mode (`verifiers.verify`).
        kinds: static, the `verifiers.Instr` kinds the leaves may be.

    Returns:
        ``(status, progress)``: i32[] `Status` code and the next state.
    """
    tree = jnp.asarray(tree, jnp.int32)
    action = jnp.asarray(action, jnp.int32)
    track = jax.vmap(jax.vmap(lambda p: V.track(p, prev_state, state, action)))
    tracked = progress.branches.replace(clauses=track(progress.branches.clauses))
    status, checked = jax.vmap(
        lambda b, p: Q.check_sequence(b, p, state, action, done_actions=done_actions, kinds=kinds)
    )(branches(tree), tracked)
    out, done, called = Q.join(tree[0], tree[1] != 0, progress.done, status)
    return out, TreeProgress(branches=Q.keep_called(called, checked, tracked), done=done)
