"""BabyAI's instruction grammar sampled inside `jit`: MiniGrid's ``LevelGen.rand_instr``.

MiniGrid 3.2.0 (``minigrid/envs/babyai/core/levelgen.py``) draws an instruction for a
finished layout: a kind among the level's ``instr_kinds`` ("action", "and", "seq"); an
action is a kind among its ``action_kinds`` on descriptions from ``rand_obj``; an "and"
joins two actions; a "seq" joins two clauses, each an action or an "and", by "then" or
"after". ``rand_obj`` draws a description -- a kind among the types the action allows, a
colour among none and the six, and (on levels with locations) with probability 1/2 one of
the four locations -- and draws again, up to 101 times, until at least one object matches
(and, without implicit unlocking, one outside the locked room). After 101 misses it raises,
and MiniGrid draws the whole level again.

Here every ``rand_obj`` draws from the prior restricted to the matching descriptions (a
weighted rank, `draw_description`), which is its distribution given that it succeeded, and
the level keeps the attempt with the probability that all of its ``rand_obj`` calls would
have succeeded, ``prod(1 - (1 - p_i) ** 101)`` (`survives`): so the kept instructions, and
the layouts they are drawn on, have MiniGrid's joint distribution. ``validate_instrs``'s
rejections (`valid`) are the level's to apply.

The descriptions are indexed ``(kind, colour, loc)`` over `DESC_KINDS` x (none + 6 colours)
x the five `Loc` codes: `NUM_DESCS` = 140.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import trees as T
from horizax.grid.babyai import verifiers as V
from horizax.grid.babyai.sequences import Seq
from horizax.grid.state import State

DESC_KINDS = (C.DOOR, C.KEY, C.BALL, C.BOX)  # consecutive object indices
NUM_COLOUR_WORDS = 1 + C.NUM_COLORS  # none, then the six colours
NUM_DESCS = len(DESC_KINDS) * NUM_COLOUR_WORDS * len(D.Loc)
RAND_OBJ_TRIES = 101  # rand_obj's ``num_tries > max_tries`` with max_tries = 100
INSTR_KINDS = ("action", "and", "seq")

# The types rand_obj may draw per action instruction kind (GoTo: all; Open: doors; Pickup
# and PutNext's moved object: not doors), and PutNext's fixed object (all).
_ALL, _DOORS, _NOT_DOORS = (True,) * 4, (True, False, False, False), (False, True, True, True)
_TYPES_BY_ACTION = {V.Instr.GOTO: _ALL, V.Instr.OPEN: _DOORS, V.Instr.PICKUP: _NOT_DOORS}
_TYPES_BY_ACTION[V.Instr.PUT_NEXT] = _NOT_DOORS


@dataclasses.dataclass(frozen=True)
class Grammar:
    """What a ``LevelGen`` level lets ``rand_instr`` draw.

    Attributes:
        action_kinds: the `verifiers.Instr` codes of its ``action_kinds``.
        instr_kinds: its ``instr_kinds``, a sub-tuple of `INSTR_KINDS`.
        locations: descriptions may carry a location (probability 1/2).
        implicit_unlock: False: a description must match an object outside the locked room.
    """

    action_kinds: tuple[int, ...] = V.ALL_KINDS
    instr_kinds: tuple[str, ...] = INSTR_KINDS
    locations: bool = True
    implicit_unlock: bool = True

    def __post_init__(self) -> None:
        if not self.action_kinds or not set(self.action_kinds) <= set(V.Instr):
            raise ValueError(f"action_kinds={self.action_kinds}: expected Instr codes")
        if not self.instr_kinds or not set(self.instr_kinds) <= set(INSTR_KINDS):
            raise ValueError(f"instr_kinds={self.instr_kinds}: expected some of {INSTR_KINDS}")

    @property
    def max_leaves(self) -> int:
        """The most action instructions one sentence holds."""
        return 4 if "seq" in self.instr_kinds else 2 if "and" in self.instr_kinds else 1

    @property
    def max_navs(self) -> int:
        """The largest ``num_navs_needed`` (2 per PutNext): MiniGrid's longest time limit."""
        return self.max_leaves * (2 if V.Instr.PUT_NEXT in self.action_kinds else 1)


def _loc_weights(locations: bool) -> np.ndarray:
    """i32[5]: rand_obj's prior over `Loc` codes in eighths (none 4/8, each side 1/8)."""
    return np.array([4, 1, 1, 1, 1] if locations else [1, 0, 0, 0, 0], np.int32)


def prior_weights(types: tuple[bool, ...], locations: bool) -> np.ndarray:
    """i32[140]: rand_obj's prior over the descriptions, as integers (kinds outside ``types``,
    bool[4] over `DESC_KINDS`, weigh 0; the rest are equally likely kinds and colours)."""
    kinds = np.asarray(types, np.int32)[:, None, None]
    colours = np.ones(NUM_COLOUR_WORDS, np.int32)[None, :, None]
    return (kinds * colours * _loc_weights(locations)[None, None, :]).reshape(-1)


def description(index: Array) -> Array:
    """i32[3]: the description ``(kind, colour, loc)`` of a flat index in ``[0, 140)``."""
    kind, rest = index // (NUM_COLOUR_WORDS * len(D.Loc)), index % (NUM_COLOUR_WORDS * len(D.Loc))
    colour, loc = rest // len(D.Loc), rest % len(D.Loc)
    return jnp.stack([DESC_KINDS[0] + kind, colour - 1, loc]).astype(jnp.int32)


def matched_descriptions(
    state: State, *, room_size: int, outside: Array | np.ndarray | None = None
) -> Array:
    """bool[140]: the descriptions that match at least one object of ``state`` (its grid and
    agent pose: MiniGrid's ``find_matching_objs``), and one in ``outside`` (bool[W, H]) when
    given (MiniGrid's "not in the locked room").

    Args:
        state: the layout, agent placed.
        room_size: the level's room side, walls included (static).
        outside: bool[W, H], the cells an object must lie in; None: anywhere.
    """
    grid = state.grid
    kind, colour = grid[..., 0].astype(jnp.int32), grid[..., 1].astype(jnp.int32)
    if outside is not None:
        kind = jnp.where(jnp.asarray(outside), kind, C.EMPTY)
    # Per (kind, loc), the colours present as a bit set: an OR over the cells (a few
    # thousand elementwise operations, where a count by einsum is a slow batched dot).
    bits = jnp.left_shift(jnp.int32(1), jnp.clip(colour, 0, C.NUM_COLORS - 1))

    def colour_sets(kind: Array, bits: Array, where: Array | None) -> Array:  # i32[4, ...]
        present = jnp.stack([kind == k for k in DESC_KINDS])
        if where is not None:
            present = present[:, None] & where[None]
        cells = tuple(range(present.ndim - 2, present.ndim))
        return lax.reduce(jnp.where(present, bits, 0), jnp.int32(0), lax.bitwise_or, cells)

    anywhere = colour_sets(kind, bits, None)  # [4]: Loc.NONE, every cell
    # The four sides lie in the start room: read its window only (the grid padded with
    # cells no description matches, so the window never leaves it), not the whole grid.
    top = D.start_room_corner(state.agent_pos, room_size)
    padded = [jnp.pad(a, ((0, room_size), (0, room_size))) for a in (kind, bits)]
    near_kind, near_bits = (
        lax.dynamic_slice(a, (top[0], top[1]), (room_size, room_size)) for a in padded
    )
    sides = D.side_masks(room_size, room_size, state.agent_pos - top, state.agent_dir)
    by_side = colour_sets(near_kind, near_bits, sides)  # [4, 4]
    colours = jnp.concatenate([anywhere[:, None], by_side], axis=1)  # [4, 5]
    each = (colours[:, None, :] >> jnp.arange(C.NUM_COLORS)[None, :, None]) & 1
    table = jnp.concatenate([(colours != 0)[:, None, :], each != 0], axis=1)  # [4, 7, 5]
    return table.reshape(-1)


Draw = Callable[[Array | int, int], Array]
"""A layout's ``draw(radix, bound)`` (`horizax.grid.draws.sequential_draws`)."""


def draw_description(
    draw: Draw,
    matched: Array,
    types: Array,
    *,
    locations: bool,
    bound_types: tuple[bool, ...] = _ALL,
) -> tuple[Array, Array]:
    """One ``rand_obj`` given that it succeeds: ``(desc i32[3], p f32[])`` with ``p`` the
    chance that one of its tries matches.

    Args:
        draw: the layout's ``draw(radix, bound)`` (`draws.sequential_draws`).
        matched: bool[140], `matched_descriptions`.
        types: bool[4], the kinds it may draw (may be traced).
        locations: static, the level's flag.
        bound_types: static, the widest ``types`` it may be given (for the digit's bound).
    """
    loc_weights = jnp.asarray(_loc_weights(locations))
    prior = (
        types.astype(jnp.int32)[:, None, None]
        * jnp.ones((1, NUM_COLOUR_WORDS, 1), jnp.int32)
        * loc_weights[None, None, :]
    ).reshape(-1)
    weights = jnp.where(matched, prior, 0)
    total = jnp.sum(weights)
    bound = int(prior_weights(bound_types, locations).sum())
    rank = draw(jnp.maximum(total, 1), bound)
    index = jnp.sum(jnp.cumsum(weights) <= rank)
    p = total.astype(jnp.float32) / jnp.sum(prior).astype(jnp.float32)
    return description(jnp.minimum(index, NUM_DESCS - 1)), p


def survives(p: Array) -> Array:
    """f32[]: the chance that ``rand_obj`` finds a match within its 101 tries."""
    return 1.0 - (1.0 - p) ** RAND_OBJ_TRIES


def draw_tree(draw: Draw, matched: Array, grammar: Grammar) -> tuple[Array, Array]:
    """MiniGrid's ``rand_instr`` given that every ``rand_obj`` succeeds: ``(tree i32[38],
    keep f32[])`` with ``keep`` the chance that they all would.

    Args:
        draw: the layout's ``draw(radix, bound)``.
        matched: bool[140], `matched_descriptions` of the layout.
        grammar: the level's `Grammar` (static).
    """
    kinds = grammar.instr_kinds
    top = jnp.asarray([INSTR_KINDS.index(k) for k in kinds])[draw(len(kinds), len(kinds))]
    # A "seq": each branch an action or an "and", then "then" or "after".
    branch_and = [draw(2, 2) == 1 for _ in range(2)]
    after = draw(2, 2) == 1
    types_table = jnp.asarray([_TYPES_BY_ACTION[V.Instr(k)] for k in range(len(V.Instr))], bool)
    actions = jnp.asarray(grammar.action_kinds, jnp.int32)
    leaves, keep = [], []
    bound_a = (
        _NOT_DOORS if set(grammar.action_kinds) <= {V.Instr.PICKUP, V.Instr.PUT_NEXT} else _ALL
    )
    bound_a = _DOORS if set(grammar.action_kinds) == {V.Instr.OPEN} else bound_a
    for _ in range(T.NUM_LEAVES):
        action = actions[draw(len(actions), len(actions))]
        desc_a, p_a = draw_description(
            draw, matched, types_table[action], locations=grammar.locations, bound_types=bound_a
        )
        put = action == V.Instr.PUT_NEXT
        if V.Instr.PUT_NEXT in grammar.action_kinds:
            desc_b, p_b = draw_description(
                draw, matched, jnp.asarray(_ALL), locations=grammar.locations
            )
            desc_b = jnp.where(put, desc_b, 0)
        else:
            desc_b, p_b = jnp.zeros(D.DESC_SIZE, jnp.int32), jnp.float32(1)
        leaves.append(jnp.concatenate([jnp.stack([action, jnp.int32(0)]), desc_a, desc_b]))
        keep.append(survives(p_a) * jnp.where(put, survives(p_b), 1.0))

    def branch(first: int, is_and: Array) -> Array:
        kind = jnp.where(is_and, Seq.AND, Seq.SINGLE).astype(jnp.int32)
        return jnp.concatenate([jnp.stack([kind, jnp.int32(0)]), leaves[first], leaves[first + 1]])

    # "action": leaf 0 alone; "and": leaves 0 and 1; "seq": branches (0, 1) and (2, 3).
    is_seq = top == INSTR_KINDS.index("seq")
    first_and = jnp.where(is_seq, branch_and[0], top == INSTR_KINDS.index("and"))
    joined = jnp.where(after, Seq.AFTER, Seq.BEFORE)
    tree = jnp.concatenate(
        [
            jnp.stack([jnp.where(is_seq, joined, Seq.SINGLE), jnp.int32(0)]).astype(jnp.int32),
            branch(0, first_and),
            jnp.where(is_seq, branch(2, branch_and[1]), _EMPTY_BRANCH),
        ]
    )
    used = T.leaves_used(tree)
    return tree, jnp.prod(jnp.where(used, jnp.stack(keep), 1.0))


_EMPTY_BRANCH = Q.sequence(Seq.SINGLE, np.array([V.Instr.GOTO, 0, 0, 0, 0, 0, 0, 0]))


def valid(
    tree: Array, state: State, *, room_size: int, locked_key_colour: Array | None = None
) -> Array:
    """bool[]: MiniGrid's ``validate_instrs`` accepts the tree on ``state``.

    A PutNext leaf is rejected when an object matches both of its descriptions, or when an
    object to move already lies next to a fixed one; with ``locked_key_colour`` (the levels with
    unblocking), a leaf describing a key of the locked door's
    colour is rejected.

    Args:
        tree: i32[38], the instruction.
        state: the layout, agent placed.
        room_size: the level's room side, walls included (static).
        locked_key_colour: i32[], the locked door's colour, or a colour index no key has
            (``C.NUM_COLORS``) when there is no locked door; None: no such check.
    """
    grid = state.grid

    def refused(leaf: Array) -> Array:
        put = leaf[0] == V.Instr.PUT_NEXT
        move, fixed = (
            D.find_matching(d, grid, state.agent_pos, state.agent_dir, room_size=room_size)
            for d in (V.desc_a(leaf), V.desc_b(leaf))
        )
        bad = put & (jnp.any(move & fixed) | jnp.any(move & _neighbours(fixed)))
        if locked_key_colour is not None:
            descs = jnp.stack([V.desc_a(leaf), V.desc_b(leaf)])
            is_key = (descs[:, 0] == C.KEY) & (descs[:, 1] == locked_key_colour)
            bad = bad | is_key[0] | (put & is_key[1])
        return bad

    # One copy of the rule for the four leaves (vmapped): a quarter of the code to compile.
    return ~jnp.any(T.leaves_used(tree) & jax.vmap(refused)(T.leaves(tree)))


def _neighbours(mask: Array) -> Array:
    """bool[W, H]: the cells 4-adjacent to a cell of ``mask``."""
    padded = jnp.pad(mask, 1)
    return padded[2:, 1:-1] | padded[:-2, 1:-1] | padded[1:-1, 2:] | padded[1:-1, :-2]
