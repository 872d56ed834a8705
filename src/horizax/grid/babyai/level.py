"""A BabyAI level's instruction in the environment: state, per-step verdict, reward, ends.

MiniGrid 3.2.0's ``RoomGridLevel`` gives the agent an instruction at reset, verifies it
after every step, and ends the episode on its verdict: success terminates with
``1 - 0.9 * step_count / max_steps``, failure terminates with 0, and the time limit
truncates (kept apart, as everywhere in horizax). Here:

* ``State.extra`` is a `LevelState`: the instruction (i32[8]), the verifier's `Progress`
  and the verdict of the last step (`Status`, i32[]).
* ``State.mission`` holds the mission as word ids, i32[72]
  (`horizax.grid.mission_tokens`): the same ``mission`` the adapters put in MiniGrid's
  observation dict (decoded to MiniGrid's exact string by the string-space adapters,
  passed on as word ids to the array ones) and `missions.mission_text` renders.
* `verdict_recorder` gives the environment's ``post_action_fn``: it runs the verifier once
  per step and stores the verdict, which `instruction_succeeded` / `instruction_failed` read
  (the one place the rule lives); `reward` and `termination` are views of them.
* Levels whose instructions are composites (and / then / after) keep a `SeqLevelState`
  instead, started by `begin_sequence` and verified by `sequence_recorder`; the verdict
  lives in the same ``status`` field, so rewards and terminations are shared.
* Levels that draw from the whole grammar (an ``and`` inside then / after,
  `horizax.grid.babyai.trees`) keep a `TreeLevelState`, started by `begin_tree` and verified
  by `tree_recorder`; their time limit is the instruction's (`tree_time_limit`).

Layouts build their first state with `begin`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array, lax

from horizax.core import threefry
from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.grid import observations, rewards
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import packed as P
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import trees as T
from horizax.grid.babyai import verifiers as V
from horizax.grid.babyai.tokens import instruction_tokens, sequence_tokens, tree_tokens
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory
from horizax.grid.state import State


@pytree_dataclass
class LevelState(Replaceable):
    """What a BabyAI level keeps in ``State.extra``.

    Attributes:
        instr: i32[8], the action instruction (`verifiers.instruction`).
        progress: the verifier's `verifiers.Progress` (packed object masks and flags).
        status: i32[], the `verifiers.Status` of the last step (CONTINUE at reset).
    """

    instr: Array
    progress: V.Progress
    status: Array


@pytree_dataclass
class SeqLevelState(Replaceable):
    """What a BabyAI level with composite instructions keeps in ``State.extra``.

    Attributes:
        seq: i32[18], the composite (`sequences.sequence`; `sequences.Seq.SINGLE` for a
            level that also draws plain actions).
        progress: the composite's `sequences.SeqProgress`.
        status: i32[], the `verifiers.Status` of the last step (CONTINUE at reset).
    """

    seq: Array
    progress: Q.SeqProgress
    status: Array


@pytree_dataclass
class TreeLevelState(Replaceable):
    """What a BabyAI level drawing from the whole grammar keeps in ``State.extra``.

    Attributes:
        tree: i32[38], the instruction (`trees.tree`).
        progress: its `trees.TreeProgress`.
        status: i32[], the `verifiers.Status` of the last step (CONTINUE at reset).
    """

    tree: Array
    progress: T.TreeProgress
    status: Array


def first_accepted(
    attempt: Callable[[Array], tuple[State, Array, Any]], key: Array, attempts: int
) -> tuple[State, Any]:
    """MiniGrid's "draw again until accepted", bounded: the first accepted of ``attempts``.

    Attempts are drawn from ``threefry.split(key, attempts)``'s keys in order, and the loop
    stops at the first accepted one (under `vmap`, once every environment has one: most
    rejection rates end a batch's loop after two or three attempts, not ``attempts``); when
    none is accepted the last one is kept. A `lax.while_loop` rather than the fixed loop
    that layouts otherwise use: its bound is the same, so under `vmap` it never does more
    work than drawing every attempt, and the kept layout is the same either way.

    Args:
        attempt: ``key -> (state, accepted bool[], payload)``, pure.
        key: the layout's key.
        attempts: static, at least 1.

    Returns:
        ``(state, payload)`` of the kept attempt.
    """
    keys = threefry.split(key, attempts)  # JAX's keys, without a Threefry loop to compile
    if attempts == 1:
        state, _, payload = attempt(keys[0])
        return state, payload

    def more(carry: tuple[Array, State, Any, Array]) -> Array:
        tried, _, _, found = carry
        return (tried < attempts) & ~found

    def redraw(carry: tuple[Array, State, Any, Array]) -> tuple[Array, State, Any, Array]:
        tried = carry[0]
        state, accepted, payload = attempt(keys[tried])
        return tried + 1, state, payload, accepted

    # Only the loop's body traces an attempt: one copy of it to compile.
    shapes = jax.eval_shape(attempt, keys[0])
    blank = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), (shapes[0], shapes[2]))
    _, state, payload, _ = lax.while_loop(more, redraw, (jnp.int32(0), *blank, jnp.zeros((), bool)))
    return state, payload


def action(kind: Array | int, strict: bool | Array, desc: Sequence[Array | int]) -> Array:
    """i32[8]: an action instruction on one description, built inside `jit` (the traced
    counterpart of `verifiers.instruction`, without its host checks; not PutNext).

    Args:
        kind: the `verifiers.Instr` code.
        strict: MiniGrid's ``strict`` flag.
        desc: ``(kind, colour, loc)`` of the object acted on.
    """
    parts = [kind, strict, *desc, *([0] * D.DESC_SIZE)]
    return jnp.stack([jnp.asarray(p, jnp.int32) for p in parts])


def begin(
    state: State, instr: Array, *, room_size: int, kinds: tuple[int, ...] = V.ALL_KINDS
) -> State:
    """The first state of an episode with ``instr``: mission words, verifier reset.

    Args:
        state: the layout's state (grid and agent pose final).
        instr: i32[8], the level's instruction.
        room_size: the level's room side, walls included (static).
        kinds: static, the `verifiers.Instr` kinds the level draws.
    """
    instr = jnp.asarray(instr, jnp.int32)
    progress = V.start(instr, state, room_size=room_size, kinds=kinds)
    extra = LevelState(instr=instr, progress=progress, status=jnp.int32(V.Status.CONTINUE))
    counts = P.count(progress.tracked_bits)
    return state.replace(mission=instruction_tokens(instr, counts, kinds=kinds), extra=extra)


def begin_sequence(
    state: State, seq: Array, *, room_size: int, kinds: tuple[int, ...] = V.ALL_KINDS
) -> State:
    """The first state of an episode with the composite ``seq``: mission words, verifier
    reset (`begin` for the levels whose instructions are composites).

    Args:
        state: the layout's state (grid and agent pose final).
        seq: i32[18], the level's composite instruction.
        room_size: the level's room side, walls included (static).
        kinds: static, the `verifiers.Instr` kinds the clauses may be.
    """
    seq = jnp.asarray(seq, jnp.int32)
    progress = Q.start_sequence(seq, state, room_size=room_size, kinds=kinds)
    extra = SeqLevelState(seq=seq, progress=progress, status=jnp.int32(V.Status.CONTINUE))
    counts = P.count(progress.clauses.tracked_bits)  # [clause, desc]
    return state.replace(mission=sequence_tokens(seq, counts, kinds=kinds), extra=extra)


def begin_tree(
    state: State, tree: Array, *, room_size: int, kinds: tuple[int, ...] = V.ALL_KINDS
) -> State:
    """The first state of an episode with the instruction tree ``tree``: mission words,
    verifier reset (`begin` for the levels drawing from the whole grammar).

    Args:
        state: the layout's state (grid and agent pose final).
        tree: i32[38], the level's instruction (`trees.tree`).
        room_size: the level's room side, walls included (static).
        kinds: static, the `verifiers.Instr` kinds the leaves may be.
    """
    tree = jnp.asarray(tree, jnp.int32)
    progress = T.start_tree(tree, state, room_size=room_size, kinds=kinds)
    extra = TreeLevelState(tree=tree, progress=progress, status=jnp.int32(V.Status.CONTINUE))
    # [branch, clause, desc]
    counts = P.count(progress.branches.clauses.tracked_bits)
    return state.replace(mission=tree_tokens(tree, counts, kinds=kinds), extra=extra)


@functools.cache  # one function per (kinds, room size): levels sharing it compare equal
def tree_recorder(
    kinds: tuple[int, ...] = V.ALL_KINDS, room_size: int | None = None
) -> Callable[[State, Array, State], State]:
    """`verdict_recorder` for the levels drawing from the whole grammar (`TreeLevelState`).

    Args:
        kinds: static, the `verifiers.Instr` kinds the leaves may be.
        room_size: as in `verdict_recorder`.
    """

    def record_tree_verdict(prev_state: State, action: Array, state: State) -> State:
        level: TreeLevelState = state.extra
        status, progress = T.verify_tree(
            level.tree, level.progress, prev_state, state, action, kinds=kinds
        )
        return state.replace(extra=level.replace(progress=progress, status=status))

    record_tree_verdict.kinds = kinds  # type: ignore[attr-defined]
    record_tree_verdict.room_size = room_size  # type: ignore[attr-defined]
    record_tree_verdict.form = "tree"  # type: ignore[attr-defined]  # `instruction_form`
    return record_tree_verdict


@functools.cache  # one per navigation time: levels sharing it compare equal
def tree_time_limit(nav_time: int) -> Callable[[State], Array]:
    """The ``episode_max_steps`` of a grammar level: MiniGrid's ``num_navs_needed`` of the
    episode's instruction (`trees.num_navs`) times ``nav_time = room_size**2 * rooms``."""

    def instruction_time_limit(state: State) -> Array:
        return T.num_navs(state.extra.tree) * jnp.int32(nav_time)

    return instruction_time_limit


@functools.cache  # one function per (kinds, room size): levels sharing it compare equal
def sequence_recorder(
    kinds: tuple[int, ...] = V.ALL_KINDS, room_size: int | None = None
) -> Callable[[State, Array, State], State]:
    """`verdict_recorder` for the levels whose instructions are composites
    (`SeqLevelState`): MiniGrid's composite ``verify`` after every step.

    Args:
        kinds: static, the `verifiers.Instr` kinds the clauses may be.
        room_size: as in `verdict_recorder`.
    """

    def record_sequence_verdict(prev_state: State, action: Array, state: State) -> State:
        level: SeqLevelState = state.extra
        status, progress = Q.verify_sequence(
            level.seq, level.progress, prev_state, state, action, kinds=kinds
        )
        return state.replace(extra=level.replace(progress=progress, status=status))

    record_sequence_verdict.kinds = kinds  # type: ignore[attr-defined]
    record_sequence_verdict.room_size = room_size  # type: ignore[attr-defined]
    record_sequence_verdict.form = "sequence"  # type: ignore[attr-defined]  # `instruction_form`
    return record_sequence_verdict


def instruction_form(env: Any) -> str:
    """How a BabyAI level holds its instruction: ``"action"`` (`LevelState`, `begin`),
    ``"sequence"`` (`SeqLevelState`, `begin_sequence`) or ``"tree"`` (`TreeLevelState`,
    `begin_tree`).

    Raises:
        ValueError: ``env`` is not a BabyAI level.
    """
    level_kinds(env)  # raises for a non-BabyAI env
    return str(getattr(env.post_action_fn, "form", "action"))


def is_composite(env: Any) -> bool:
    """True when a BabyAI level's instructions are composites of two action instructions
    (`SeqLevelState`, started with `begin_sequence`).

    Raises:
        ValueError: ``env`` is not a BabyAI level.
    """
    return instruction_form(env) == "sequence"


def begin_for(env: Any) -> Callable[..., State]:
    """`begin`, `begin_sequence` or `begin_tree`: the one that starts ``env``'s episodes.

    Raises:
        ValueError: ``env`` is not a BabyAI level.
    """
    return {"action": begin, "sequence": begin_sequence, "tree": begin_tree}[instruction_form(env)]


@functools.cache  # one function per (kinds, room size): levels sharing it compare equal
def verdict_recorder(
    kinds: tuple[int, ...] = V.ALL_KINDS, room_size: int | None = None
) -> Callable[[State, Array, State], State]:
    """The ``post_action_fn`` of a level drawing ``kinds``: MiniGrid's
    ``instrs.verify(action)`` after the step, its verdict stored in ``State.extra``.

    Args:
        kinds: static, the `verifiers.Instr` kinds the level draws (only their rules are
            compiled).
        room_size: the level's room side, walls included, which `begin` needs to give the
            level a new instruction (`level_room_size` reads it back; the verdict itself
            does not depend on it). None: the grid's width (a one-room level).
    """

    def record_verdict(prev_state: State, action: Array, state: State) -> State:
        level: LevelState = state.extra
        status, progress = V.verify(
            level.instr, level.progress, prev_state, state, action, kinds=kinds
        )
        return state.replace(extra=level.replace(progress=progress, status=status))

    record_verdict.kinds = kinds  # type: ignore[attr-defined]  # read back by `level_kinds`
    record_verdict.room_size = room_size  # type: ignore[attr-defined]  # `level_room_size`
    return record_verdict


def level_kinds(env: Any) -> tuple[int, ...]:
    """The `verifiers.Instr` kinds a BabyAI level draws, read off its verdict recorder.

    Args:
        env: a `horizax.grid.Environment` made from a BabyAI id.

    Raises:
        ValueError: ``env`` is not a BabyAI level (its ``post_action_fn`` is not a
            `verdict_recorder`).
    """
    kinds = getattr(getattr(env, "post_action_fn", None), "kinds", None)
    if kinds is None:
        raise ValueError(f"env: {getattr(env, 'env_id', env)!r} is not a BabyAI level")
    return kinds


def level_room_size(env: Any) -> int:
    """The side of a BabyAI level's rooms, walls included (what `begin` takes).

    Args:
        env: a `horizax.grid.Environment` made from a BabyAI id.

    Raises:
        ValueError: ``env`` is not a BabyAI level.
    """
    level_kinds(env)  # raises for a non-BabyAI env
    room_size = env.post_action_fn.room_size
    return env.width if room_size is None else room_size


def instruction_succeeded(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the verifier said success on this step."""
    del prev_state, action
    return state.extra.status == V.Status.SUCCESS


def instruction_failed(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the verifier said failure on this step (a strict instruction broken)."""
    del prev_state, action
    return state.extra.status == V.Status.FAILURE


reward = rewards.time_discounted(instruction_succeeded)
"""f32[]: ``1 - 0.9 * step_count / max_steps`` on success, 0 otherwise (failure included)."""


def termination(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the verifier decided (success or failure)."""
    del prev_state, action
    return state.extra.status != V.Status.CONTINUE


def one_room_level(
    env_id: str,
    *,
    room_size: int,
    layout_fn: LayoutFn,
    kinds: tuple[int, ...],
    num_navs: int = 1,
) -> Callable[..., Any]:
    """`level_factory` of a level in a single room (``num_rows = num_cols = 1``).

    Args:
        env_id: MiniGrid's id.
        room_size: the room side, walls included.
        layout_fn: ``key -> State`` built with `begin`.
        kinds: the `verifiers.Instr` kinds the level draws.
        num_navs: MiniGrid's ``num_navs_needed`` (1 for an action, 2 for PutNext).
    """
    return level_factory(
        env_id,
        room_size=room_size,
        num_rows=1,
        num_cols=1,
        num_navs=num_navs,
        layout_fn=layout_fn,
        kinds=kinds,
    )


def level_factory(
    env_id: str,
    *,
    room_size: int,
    num_rows: int,
    num_cols: int,
    num_navs: int,
    layout_fn: LayoutFn,
    kinds: tuple[int, ...] = V.ALL_KINDS,
    composite: bool = False,
    max_steps: int | None = None,
    grammar: bool = False,
) -> Callable[..., Any]:
    """The registered factory of a BabyAI level (MiniGrid's ``RoomGridLevel`` defaults).

    Args:
        env_id: MiniGrid's id.
        room_size: the room side, walls included.
        num_rows: rooms per column.
        num_cols: rooms per row.
        num_navs: MiniGrid's ``num_navs_needed`` of the level's instructions (1 for an
            action, 2 for PutNext); ``max_steps = num_navs * room_size**2 * rows * cols``.
        layout_fn: ``key -> State`` built with `begin`.
        kinds: the `verifiers.Instr` kinds the level draws.
        composite: the level's instructions are composites (`begin_sequence`,
            `sequence_recorder`).
        max_steps: MiniGrid's fixed time limit where the level sets one (OpenTwoDoors,
            OpenDoorsOrder); None: the formula above.
        grammar: the level draws instruction trees (`begin_tree`, `tree_recorder`) and each
            episode's limit is its instruction's (`tree_time_limit`); ``num_navs`` is then
            the largest ``num_navs_needed``, which sets ``max_steps``.
    """
    if grammar:
        recorder = tree_recorder(kinds, room_size)
    else:
        recorder = (sequence_recorder if composite else verdict_recorder)(kinds, room_size)
    nav_time = room_size**2 * num_rows * num_cols
    return factory(
        env_id,
        episode_max_steps=tree_time_limit(nav_time) if grammar else None,
        width=(room_size - 1) * num_cols + 1,
        height=(room_size - 1) * num_rows + 1,
        max_steps=num_navs * nav_time if max_steps is None else max_steps,
        layout_fn=layout_fn,
        observation_fn=observations.symbolic_first_person,
        see_through_walls=False,
        post_action_fn=recorder,
        reward_fn=reward,
        termination_fn=termination,
    )
