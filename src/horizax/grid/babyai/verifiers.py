"""BabyAI's action instructions as arrays, and their step-by-step verifier.

An instruction is ``i32[8]``: ``(kind, strict, desc_a[3], desc_b[3])`` with ``kind`` an
`Instr` code, ``strict`` 0/1, ``desc_a`` the object acted on (the object to move for
PutNext) and ``desc_b`` the object to put it next to (PutNext only; unused otherwise).
`verify` reproduces MiniGrid 3.2.0's ``GoToInstr``, ``OpenInstr``, ``PickupInstr`` and
``PutNextInstr`` (``verify_action``, ``verify`` with and without done actions) and what
``RoomGridLevel.step`` does around them.

MiniGrid holds the objects a description matched at reset by identity and re-reads their
positions only on drop steps (``update_objs_poss``). Arrays have no identity, so `Progress`
carries it explicitly, per description, as masks over the grid:

* ``tracked``: where the matched objects are now. Objects move only through the hand (a
  pickup empties the front cell into it, a drop fills the front cell from it), and a box
  toggled open is replaced by its content, a different object.
* ``poss``: MiniGrid's ``obj_poss``, the positions GoTo and PutNext read; equal to
  ``tracked`` after a drop step and stale in between (a picked-up object still counts at
  the cell it left until the next drop, as in MiniGrid).
* ``carried``: the hand holds one of the matched objects.

plus what the instruction itself remembers between calls: ``pre_carrying`` (its
``preCarrying is not None``), ``pre_carried`` (its ``preCarrying`` is one of desc_a's
objects) and ``last_step_match`` (done-action mode).

The two masks are stored packed, 32 cells to a uint32 word (`horizax.grid.babyai.packed`):
a step changes at most the front cell, and every rule reads only the front cell or its four
neighbours, so each step's work is a few bitwise operations on a column's worth of words
per description instead of whole boolean grids. ``tracked`` and ``poss`` read them back as
``bool[2, W, H]``.
"""

from __future__ import annotations

import enum

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass, static_field
from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import packed as P
from horizax.grid.state import State, cell_at, front_pos

INSTR_SIZE = 2 + 2 * D.DESC_SIZE


class Instr(enum.IntEnum):
    """The action instruction kinds."""

    GOTO = 0
    OPEN = 1
    PICKUP = 2
    PUT_NEXT = 3


ALL_KINDS = (0, 1, 2, 3)  # every `Instr`; levels that draw fewer pass their own ``kinds``


class Status(enum.IntEnum):
    """What `verify` says about the instruction after a step (MiniGrid's strings)."""

    CONTINUE = 0
    SUCCESS = 1
    FAILURE = 2


def instruction(
    kind: Instr, desc_a: np.ndarray, desc_b: np.ndarray | None = None, *, strict: bool = False
) -> np.ndarray:
    """i32[8]: an action instruction, checked on the host with MiniGrid's asserts.

    Args:
        kind: the `Instr` code.
        desc_a: i32[3], the object acted on (`descriptions.describe`).
        desc_b: i32[3], the object to put next to; required for PutNext only.
        strict: MiniGrid's ``strict`` flag (Open, Pickup, PutNext; GoTo has none).

    Raises:
        ValueError: naming the argument that breaks MiniGrid's constraints.
    """
    kind = Instr(kind)
    desc_a = np.asarray(desc_a, np.int32)
    if desc_a.shape != (D.DESC_SIZE,):
        raise ValueError(f"desc_a has shape {desc_a.shape}: expected (3,)")
    if kind == Instr.OPEN and desc_a[0] != C.DOOR:
        raise ValueError("desc_a: Open needs a door description")
    if kind in (Instr.PICKUP, Instr.PUT_NEXT) and desc_a[0] == C.DOOR:
        raise ValueError(f"desc_a: {kind.name} cannot move a door")
    if (desc_b is None) != (kind != Instr.PUT_NEXT):
        raise ValueError("desc_b: given exactly when the kind is PUT_NEXT")
    if strict and kind == Instr.GOTO:
        raise ValueError("strict: GoTo has no strict mode in MiniGrid")
    b = np.zeros(D.DESC_SIZE, np.int32) if desc_b is None else np.asarray(desc_b, np.int32)
    if b.shape != (D.DESC_SIZE,):
        raise ValueError(f"desc_b has shape {b.shape}: expected (3,)")
    return np.concatenate([[int(kind), int(strict)], desc_a, b]).astype(np.int32)


def desc_a(instr: Array) -> Array:
    """i32[3]: the described object acted on."""
    return instr[2 : 2 + D.DESC_SIZE]


def desc_b(instr: Array) -> Array:
    """i32[3]: PutNext's fixed object description."""
    return instr[2 + D.DESC_SIZE :]


@pytree_dataclass
class Progress(Replaceable):
    """What the verifier carries between steps (see the module docstring).

    Attributes:
        tracked_bits: u32[2, W, N], `packed` ``tracked``: where desc_a's / desc_b's matched
            objects lie now.
        poss_bits: u32[2, W, N], `packed` ``poss``: MiniGrid's ``obj_poss`` of desc_a /
            desc_b.
        carried: bool[2], the hand holds one of desc_a's / desc_b's objects.
        pre_carrying: bool[], Pickup/PutNext's ``preCarrying is not None``.
        pre_carried: bool[], PutNext's ``preCarrying`` is one of desc_a's objects.
        last_step_match: bool[], done-action mode: the last verified step succeeded.
        height: static, the grid's height H (what unpacking the masks needs).
    """

    tracked_bits: Array
    poss_bits: Array
    carried: Array
    pre_carrying: Array
    pre_carried: Array
    last_step_match: Array
    height: int = static_field()

    @property
    def tracked(self) -> Array:
        """bool[..., 2, W, H]: ``tracked_bits`` unpacked (leading axes kept)."""
        return P.unpack(self.tracked_bits, self.height)

    @property
    def poss(self) -> Array:
        """bool[..., 2, W, H]: ``poss_bits`` unpacked (leading axes kept)."""
        return P.unpack(self.poss_bits, self.height)


def start(
    instr: Array, state: State, *, room_size: int, kinds: tuple[int, ...] = ALL_KINDS
) -> Progress:
    """The verifier's state at reset (MiniGrid's ``reset_verifier``).

    Args:
        instr: i32[8], the instruction.
        state: the episode's first state; its agent pose fixes the locations.
        room_size: the level's room side, walls included (static).
        kinds: static, the `Instr` kinds ``instr`` may be (a level's); without PutNext,
            desc_b is not matched at all.
    """
    instr = jnp.asarray(instr, jnp.int32)

    def matching(desc: Array) -> Array:
        return D.find_matching(
            desc, state.grid, state.agent_pos, state.agent_dir, room_size=room_size
        )

    match_a = matching(desc_a(instr))
    if Instr.PUT_NEXT in kinds:
        # desc_b is meaningless unless PutNext: nothing tracked keeps the arrays inert.
        match_b = matching(desc_b(instr)) & (instr[0] == Instr.PUT_NEXT)
    else:
        match_b = jnp.zeros_like(match_a)
    match = P.pack(jnp.stack([match_a, match_b]))
    false = jnp.zeros((), bool)
    return Progress(
        tracked_bits=match,
        poss_bits=match,
        carried=jnp.zeros(2, bool),
        pre_carrying=false,
        pre_carried=false,
        last_step_match=false,
        height=state.grid.shape[1],
    )


def track(progress: Progress, prev_state: State, state: State, action: Array) -> Progress:
    """Follows the matched objects through one step (identity, and ``obj_poss`` on drops).

    Args:
        progress: before the step.
        prev_state: the environment's state before the step.
        state: the environment's state after the step.
        action: i32[], the action taken.
    """
    width, height = state.grid.shape[0], state.grid.shape[1]
    # Objects change only in the faced cell, and only for pickup, drop and toggle, which
    # leave the agent's pose alone; after a turn or a move the faced cells agree anyway.
    front = P.cell(width, height, front_pos(state))
    had = prev_state.carrying[0] != C.EMPTY
    has = state.carrying[0] != C.EMPTY
    picked = ~had & has
    dropped = had & ~has
    front_prev = cell_at(prev_state.grid, front_pos(state))
    front_now = cell_at(state.grid, front_pos(state))
    replaced = front_prev[0] != front_now[0]  # a pickup, a drop or a box giving its content
    at_front = P.overlaps(progress.tracked_bits, front)
    carried = jnp.where(picked, at_front, jnp.where(dropped, False, progress.carried))
    tracked = progress.tracked_bits & ~jnp.where(replaced, front, jnp.uint32(0))
    arrives = (dropped & progress.carried)[:, None, None]
    tracked = tracked | jnp.where(arrives, front, jnp.uint32(0))
    poss = jnp.where(jnp.asarray(action) == C.DROP, tracked, progress.poss_bits)
    return progress.replace(tracked_bits=tracked, poss_bits=poss, carried=carried)


def _verify_action(
    instr: Array, progress: Progress, state: State, action: Array, kinds: tuple[int, ...]
) -> tuple[Array, Progress]:
    """MiniGrid's ``verify_action`` of the ``kinds`` (static), all computed, one selected;
    an instruction of another kind continues."""
    kind, strict = instr[0], instr[1] != 0
    width, height = state.grid.shape[0], state.grid.shape[1]
    fpos = front_pos(state)
    front = P.cell(width, height, fpos)
    front_cell = cell_at(state.grid, fpos)
    holding = state.carrying[0] != C.EMPTY
    go, succ, fail = Status.CONTINUE, Status.SUCCESS, Status.FAILURE

    goto = jnp.where(P.overlaps(progress.poss_bits[0], front), succ, go)

    is_door = front_cell[0] == C.DOOR
    opened = P.overlaps(progress.tracked_bits[0], front) & is_door & (front_cell[2] == C.OPEN)
    open_ = jnp.where(opened, succ, jnp.where(strict & is_door, fail, go))
    open_ = jnp.where(action == C.TOGGLE, open_, go)

    picked = ~progress.pre_carrying & progress.carried[0]
    pickup = jnp.where(picked, succ, jnp.where(strict & holding, fail, go))
    pickup = jnp.where(action == C.PICKUP, pickup, go)

    # The moved object is at the front cell only if the drop succeeded (MiniGrid leaves a
    # carried object at cur_pos (-1, -1), next to nothing). The neighbours on the grid of
    # a front cell on the grid (`P.cell` leaves off-grid ones out).
    neighbours = jnp.uint32(0)
    for step in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        neighbours = neighbours | P.cell(width, height, fpos + jnp.asarray(step, jnp.int32))
    on_grid = (fpos[0] >= 0) & (fpos[0] < width) & (fpos[1] >= 0) & (fpos[1] < height)
    neighbours = jnp.where(on_grid, neighbours, jnp.uint32(0))
    placed = progress.pre_carried & ~holding & P.overlaps(progress.poss_bits[1], neighbours)
    put = jnp.where((action == C.DROP) & placed, succ, go)
    put = jnp.where(strict & (action == C.PICKUP) & holding, fail, put)

    status = jnp.int32(Status.CONTINUE)
    for option, answer in enumerate((goto, open_, pickup, put)):
        if option in kinds:  # XLA drops the kinds left out
            status = jnp.where(kind == option, answer, status)
    # Pickup and PutNext record the hand after every verified step.
    remembers = (kind == Instr.PICKUP) | (kind == Instr.PUT_NEXT)
    progress = progress.replace(
        pre_carrying=jnp.where(remembers, holding, progress.pre_carrying),
        pre_carried=jnp.where(remembers, progress.carried[0], progress.pre_carried),
    )
    return status.astype(jnp.int32), progress


def verify(
    instr: Array,
    progress: Progress,
    prev_state: State,
    state: State,
    action: Array,
    *,
    done_actions: bool = False,
    kinds: tuple[int, ...] = ALL_KINDS,
) -> tuple[Array, Progress]:
    """One step of MiniGrid's ``RoomGridLevel.step`` verification.

    Args:
        instr: i32[8], the instruction.
        progress: the verifier's state before the step (`start` at reset).
        prev_state: the environment's state before the step.
        state: the environment's state after the step.
        action: i32[], the action taken.
        done_actions: static; MiniGrid's ``BABYAI_DONE_ACTIONS`` mode, where only the
            ``done`` action ends an episode: success if the step before it completed the
            instruction, failure otherwise. Other steps then always continue (MiniGrid's
            ``verify`` returns nothing for them, strict failures included).
        kinds: static, the `Instr` kinds ``instr`` may be (a level's, so that only their
            rules are compiled); an instruction of another kind always continues.

    Returns:
        ``(status, progress)``: i32[] `Status` code and the verifier's next state.
    """
    action = jnp.asarray(action, jnp.int32)
    progress = track(progress, prev_state, state, action)
    return check(instr, progress, state, action, done_actions=done_actions, kinds=kinds)


def check(
    instr: Array,
    progress: Progress,
    state: State,
    action: Array,
    *,
    done_actions: bool = False,
    kinds: tuple[int, ...] = ALL_KINDS,
) -> tuple[Array, Progress]:
    """MiniGrid's ``ActionInstr.verify`` alone, on a `track`ed progress.

    Composites call it only for the clauses MiniGrid verifies on a step, while every
    clause is tracked on every step.

    Args:
        instr: i32[8], the instruction.
        progress: the verifier's state, already tracked through this step.
        state: the environment after the step.
        action: i32[], the action taken.
        done_actions: static, as in `verify`.
        kinds: static, as in `verify`.

    Returns:
        ``(status, progress)``.
    """
    instr = jnp.asarray(instr, jnp.int32)
    action = jnp.asarray(action, jnp.int32)
    status, after = _verify_action(instr, progress, state, action, kinds)
    if not done_actions:
        return status, after
    is_done = action == C.DONE
    done_status = jnp.where(progress.last_step_match, Status.SUCCESS, Status.FAILURE)
    after = after.replace(last_step_match=status == Status.SUCCESS)
    # A done step does not run verify_action: nothing the instruction remembers changes.
    progress = jax.tree.map(lambda k, a: jnp.where(is_done, k, a), progress, after)
    return jnp.where(is_done, done_status, Status.CONTINUE).astype(jnp.int32), progress
