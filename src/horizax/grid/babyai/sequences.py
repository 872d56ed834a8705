"""BabyAI's composite instructions (and, then/before, after) over two action clauses.

A composite is ``i32[18]``: ``(kind, strict, instr_a[8], instr_b[8])`` with ``kind`` a
`Seq` code and each clause an action instruction of `horizax.grid.babyai.verifiers`.
`Seq.SINGLE` holds one action instruction in the same shape (clause b unused), for levels
that draw either an action or a composite (MiniGrid's OpenDoorsOrder).
`verify_sequence` reproduces MiniGrid 3.2.0's ``AndInstr``, ``BeforeInstr`` and
``AfterInstr``: which clause is verified on which step matters, since a clause's memory
(its pre-carrying, its last-step match) moves only when it is verified, while every clause
follows its objects on every step. Clauses that are themselves composites (MiniGrid allows
an ``and`` inside ``then``/``after``) are `horizax.grid.babyai.trees`, built on `join` and
`check_sequence` here.

MiniGrid's ``AndInstr`` fails on ``done`` only when the action it is given is the ``done``
enum member itself (it compares with ``is``); integer actions never trigger it, so here a
conjunction never fails.
"""

from __future__ import annotations

import enum
from typing import TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.grid.babyai import verifiers as V
from horizax.grid.state import State

SEQ_SIZE = 2 + 2 * V.INSTR_SIZE
_SUCCESS, _FAILURE, _CONTINUE = V.Status.SUCCESS, V.Status.FAILURE, V.Status.CONTINUE


class Seq(enum.IntEnum):
    """How a composite joins its clauses (MiniGrid's surface words in comments)."""

    AND = 0  # "a and b", in any order
    BEFORE = 1  # "a, then b"
    AFTER = 2  # "a after you b": b first
    SINGLE = 3  # "a": clause a alone, verified as the action instruction it is


def sequence(
    kind: Seq, instr_a: np.ndarray, instr_b: np.ndarray | None = None, *, strict: bool = False
):
    """i32[18]: a composite of two action instructions, checked on the host.

    Args:
        kind: the `Seq` code.
        instr_a: i32[8], the first action instruction (`verifiers.instruction`).
        instr_b: i32[8], the second action instruction; None exactly for `Seq.SINGLE`
            (stored as a GoTo that matches nothing).
        strict: MiniGrid's flag: for ``then``/``after``, completing the later clause
            first fails (``and`` ignores it).

    Raises:
        ValueError: naming the clause that is not an action instruction.
    """
    kind = Seq(kind)
    if (instr_b is None) != (kind == Seq.SINGLE):
        raise ValueError("instr_b: given exactly when the kind is not SINGLE")
    if instr_b is None:
        instr_b = np.array([V.Instr.GOTO, 0, 0, 0, 0, 0, 0, 0], np.int32)
    parts = []
    for name, instr in (("instr_a", instr_a), ("instr_b", instr_b)):
        instr = np.asarray(instr, np.int32)
        if instr.shape != (V.INSTR_SIZE,) or instr[0] not in tuple(V.Instr):
            raise ValueError(f"{name}: expected an action instruction i32[8], got {instr}")
        parts.append(instr)
    return np.concatenate([[int(kind), int(strict)], *parts]).astype(np.int32)


def clauses(seq: Array) -> Array:
    """i32[2, 8]: the two clauses."""
    return seq[2:].reshape(2, V.INSTR_SIZE)


@pytree_dataclass
class SeqProgress(Replaceable):
    """What a composite carries between steps.

    Attributes:
        clauses: `verifiers.Progress` of both clauses, stacked on a leading axis of 2.
        done: i32[2], the status each clause returned when last verified (MiniGrid's
            ``a_done``/``b_done``; `Status.CONTINUE` before the first).
    """

    clauses: V.Progress
    done: Array


def start_sequence(
    seq: Array, state: State, *, room_size: int, kinds: tuple[int, ...] = V.ALL_KINDS
) -> SeqProgress:
    """The composite's verifier state at reset (both clauses reset).

    Args:
        seq: i32[18], the composite.
        state: the episode's first state.
        room_size: the level's room side, walls included (static).
        kinds: static, the `verifiers.Instr` kinds the clauses may be (`verifiers.start`).
    """
    seq = jnp.asarray(seq, jnp.int32)
    progress = jax.vmap(lambda i: V.start(i, state, room_size=room_size, kinds=kinds))(clauses(seq))
    return SeqProgress(clauses=progress, done=jnp.asarray(np.full(2, _CONTINUE, np.int32)))


def join(kind: Array, strict: Array, done: Array, status: Array) -> tuple[Array, Array, Array]:
    """One step of a composite over two clauses whose answers, if verified now, are ``status``.

    The part of MiniGrid's ``AndInstr`` / ``BeforeInstr`` / ``AfterInstr`` ``verify`` that
    decides which clause is verified and what the composite answers; `verify_sequence`
    applies it to action clauses and `horizax.grid.babyai.trees` to composites of
    composites (an ``and`` inside ``then``/``after``).

    Args:
        kind: i32[], the `Seq` code.
        strict: bool[], MiniGrid's flag.
        done: i32[2], each clause's status when last verified (``a_done``/``b_done``).
        status: i32[2], what each clause's ``verify`` returns if it is called on this step.

    Returns:
        ``(status, done, called)``: i32[] the composite's answer, i32[2] the next ``done``
        and bool[2] which clauses MiniGrid verified (their memory moves; the others' not).
    """
    # AND: each clause until it succeeds; success when both have.
    and_called = done != _SUCCESS
    and_done = jnp.where(and_called, status, done)
    and_status = jnp.where(jnp.all(and_done == _SUCCESS), _SUCCESS, _CONTINUE)

    def ordered(first: int) -> tuple[Array, Array, Array]:
        """BEFORE (first = a) and AFTER (first = b): the first clause until it succeeds,
        then the second, verified on the very step the first succeeds."""
        second = 1 - first
        was_done = done[first] == _SUCCESS
        s1, s2 = status[first], status[second]
        now_done = ~was_done & (s1 == _SUCCESS)
        second_called = was_done | now_done | (~was_done & (s1 != _FAILURE) & strict)
        first_called = ~was_done
        out = jnp.where(
            was_done | now_done,
            s2,  # the second clause's answer, whatever it is
            jnp.where(
                s1 == _FAILURE, _FAILURE, jnp.where(strict & (s2 == _SUCCESS), _FAILURE, _CONTINUE)
            ),
        )
        new_done = done.at[first].set(jnp.where(first_called, s1, done[first]))
        # In the strict look-ahead MiniGrid discards the second clause's status.
        keep_second = was_done | now_done
        new_done = new_done.at[second].set(jnp.where(keep_second, s2, done[second]))
        called = jnp.zeros(2, bool).at[first].set(first_called).at[second].set(second_called)
        return out, new_done, called

    before_status, before_done, before_called = ordered(0)
    after_status, after_done, after_called = ordered(1)

    def pick(options: list[Array]) -> Array:
        return jnp.stack(options)[kind]

    # SINGLE: clause a on every step, as a level with that action instruction would.
    single_called = jnp.array([True, False])
    single_done = done.at[0].set(status[0])
    out = pick([and_status, before_status, after_status, status[0]])
    new_done = pick([and_done, before_done, after_done, single_done])
    called = pick([and_called, before_called, after_called, single_called])
    return out.astype(jnp.int32), new_done, called


_Tree = TypeVar("_Tree")


def keep_called(called: Array, checked: _Tree, tracked: _Tree) -> _Tree:
    """Per clause (leading axis), the verified progress where ``called`` (bool[n]), else the
    merely tracked one."""
    return jax.tree.map(
        lambda c, t: jnp.where(called.reshape(called.shape + (1,) * (c.ndim - 1)), c, t),
        checked,
        tracked,
    )


def verify_sequence(
    seq: Array,
    progress: SeqProgress,
    prev_state: State,
    state: State,
    action: Array,
    *,
    done_actions: bool = False,
    kinds: tuple[int, ...] = V.ALL_KINDS,
) -> tuple[Array, SeqProgress]:
    """One step of MiniGrid's composite ``verify`` (`Seq.SINGLE`: its clause's ``verify``).

    Args:
        seq: i32[18], the composite.
        progress: before the step (`start_sequence` at reset).
        prev_state: the environment's state before the step.
        state: the environment's state after the step.
        action: i32[], the action taken.
        done_actions: static, MiniGrid's ``BABYAI_DONE_ACTIONS`` mode (see `verifiers.verify`).
        kinds: static, the `verifiers.Instr` kinds the clauses may be (only their rules are
            compiled).

    Returns:
        ``(status, progress)``: i32[] `Status` code and the next state.
    """
    action = jnp.asarray(action, jnp.int32)
    tracked = jax.vmap(lambda p: V.track(p, prev_state, state, action))(progress.clauses)
    return check_sequence(
        seq,
        progress.replace(clauses=tracked),
        state,
        action,
        done_actions=done_actions,
        kinds=kinds,
    )


def check_sequence(
    seq: Array,
    progress: SeqProgress,
    state: State,
    action: Array,
    *,
    done_actions: bool = False,
    kinds: tuple[int, ...] = V.ALL_KINDS,
) -> tuple[Array, SeqProgress]:
    """The composite's ``verify`` alone, on clauses already `verifiers.track`ed through the
    step (what `verify_sequence` does after tracking; a composite of composites calls it
    only on the steps MiniGrid verifies this one).

    Returns:
        ``(status, progress)`` as `verify_sequence`.
    """
    seq = jnp.asarray(seq, jnp.int32)
    action = jnp.asarray(action, jnp.int32)
    tracked = progress.clauses
    # Each clause is verified at most once per step: compute both, keep what was called.
    status, checked = jax.vmap(
        lambda i, p: V.check(i, p, state, action, done_actions=done_actions, kinds=kinds)
    )(clauses(seq), tracked)
    out, new_done, called = join(seq[0], seq[1] != 0, progress.done, status)
    clause_progress = keep_called(called, checked, tracked)
    return out, SeqProgress(clauses=clause_progress, done=new_done)
