"""BabyAI-LevelGen: an instruction from BabyAI's whole grammar, in rooms full of distractors.

GoToSeq, Synth, SynthLoc, SynthSeq, MiniBossLevel and BossLevel: rooms, a locked room now and
then, distractors, and an instruction drawn from the grammar.

MiniGrid 3.2.0's ``LevelGen`` levels (``minigrid/envs/babyai/core/levelgen.py``,
``goto.py``'s ``GoToSeq`` and ``synth.py``), on a grid of rooms. MiniGrid's draws, in order:

* with probability ``locked_room_prob``, a locked room: a (room, wall) pair uniform among
  those whose wall has a neighbour, a locked door of a uniform colour in that wall's slot,
  and the key of its colour in a uniform other room (off the placeholder agent and its
  neighbours, as every object placed before the agent);
* ``connect_all`` (`horizax.grid.babyai.connect`): closed doors of uniform colours until
  every room is reachable, none on the locked room's walls;
* ``num_dists`` objects, each a uniform colour and kind (key, ball, box; repeats allowed)
  in a uniform room, on a uniform free cell of it;
* the agent in a uniform room other than the locked one, on a free cell, facing no object
  or door;
* without unblocking (GoToSeq), the whole level is drawn again when an object or door
  cannot be reached without moving an object (``check_objs_reachable``);
* the instruction (`horizax.grid.babyai.grammar`): a tree of up to four action
  instructions, on descriptions that match an object, drawn again (the whole level) when
  MiniGrid's ``validate_instrs`` refuses it: a PutNext whose two descriptions share an
  object or whose objects already touch, or (with unblocking) a key of the locked door's
  colour;
* each episode's time limit is its instruction's: ``room_size**2 * rooms`` per navigation,
  two for a PutNext (MiniGrid's ``num_navs_needed``), carried in ``State.max_steps``; the
  environment's ``max_steps`` is the longest.

MiniGrid draws again whatever fails: a room too full for an object (``place_obj`` gives up),
a description no object matches in 101 tries (``rand_obj``), the validation. Here each reset
draws up to ``attempts`` whole levels (`level.first_accepted`) and keeps the first accepted (the
last if none is: rates and budgets in docs/gridworld.md). A room with no pose left for the
agent, where MiniGrid would loop forever, rejects the level.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success (``max_steps`` the episode's own).
* termination: the verifier's success; truncation at the episode's limit.
* state: ``State.extra`` is a `horizax.grid.babyai.level.TreeLevelState`.

Example:
    >>> env = horizax.make("BabyAI-BossLevel-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import dataclasses
import functools

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.core import threefry
from horizax.grid import constants as C
from horizax.grid.babyai import connect, grammar, level
from horizax.grid.babyai import placement as P
from horizax.grid.babyai import verifiers as V
from horizax.grid.draws import sequential_draws
from horizax.grid.envs.babyai_goto import reachable
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, nth_free
from horizax.grid.state import State, make_state

KINDS = P.OBJECT_KINDS
NO_COLOUR = C.NUM_COLORS  # no locked door: a colour no key has
DEFAULT_LANGUAGE = grammar.Grammar()  # BossLevel's: every kind of instruction


@dataclasses.dataclass(frozen=True)
class LevelGenConfig:
    """One ``LevelGen`` level's arguments (MiniGrid's names).

    Attributes:
        room_size, num_rows, num_cols: the room grid.
        num_dists: the distractors.
        locked_room_quarters: ``locked_room_prob`` in quarters (0, 1 or 2).
        unblocking: False: every object must be reachable without moving another.
        language: what ``rand_instr`` draws.
        attempts: whole levels drawn per reset (the first accepted is kept).
    """

    room_size: int = 8
    num_rows: int = 3
    num_cols: int = 3
    num_dists: int = 18
    locked_room_quarters: int = 2
    unblocking: bool = True
    language: grammar.Grammar = DEFAULT_LANGUAGE
    attempts: int = 8

    @functools.cached_property
    def rooms(self) -> RoomGrid:
        return RoomGrid(room_size=self.room_size, num_rows=self.num_rows, num_cols=self.num_cols)


def _tables(rooms: RoomGrid) -> dict[str, np.ndarray]:
    """Static tables of a room grid: per room its interior, object cells and extent (walls
    included), the `connect.walls` index of each room's four walls (-1: no neighbour), and
    the (room, wall) pairs with a neighbour."""
    cols, rows = rooms.num_cols, rooms.num_rows
    index = {tuple(w): e for e, w in enumerate(connect.walls(cols, rows).tolist())}
    wall_edges = np.full((cols * rows, 4), -1, np.int32)
    step = rooms.room_size - 1
    extents = np.zeros((cols * rows, rooms.width, rooms.height), bool)
    for j in range(rows):
        for i in range(cols):
            keys = [(i, j, 0), (i, j, 1), (i - 1, j, 0), (i, j - 1, 1)]
            wall_edges[j * cols + i] = [index.get(k, -1) for k in keys]
            extents[j * cols + i, i * step : i * step + rooms.room_size,
                    j * step : j * step + rooms.room_size] = True  # fmt: skip
    pairs = np.argwhere(wall_edges >= 0).astype(np.int32)  # (room, wall), row-major
    return {
        "interiors": np.stack([P.interior(rooms, i, j) for j in range(rows) for i in range(cols)]),
        "object_cells": np.stack(
            [P.object_cells(rooms, i, j) for j in range(rows) for i in range(cols)]
        ),
        "extents": extents,
        "wall_edges": wall_edges,
        "pairs": pairs,
    }


def _attempt(key: Array, cfg: LevelGenConfig) -> tuple[State, Array, Array]:
    """One whole level: ``(state, accepted, tree i32[38])``."""
    rooms = cfg.rooms
    tables = _tables(rooms)
    cols, rows = rooms.num_cols, rooms.num_rows
    num_rooms = cols * rows
    side = rooms.room_size - 2
    shape = (rooms.width, rooms.height)
    edges = len(connect.walls(cols, rows))
    layout_key, priority_key, accept_key = threefry.split(key, 3)
    priority = threefry.random_bits(priority_key, (edges,))
    walls_of = jnp.asarray(tables["wall_edges"])
    pairs = jnp.asarray(tables["pairs"])
    # Per room, the cells an object may take (and, below, the agent's poses) as short
    # lists: a rank is found among a room's cells, not by a prefix count over the grid.
    cell_lists = P.listed(tables["object_cells"])
    pose_lists = jnp.asarray(P.listed(P.pose_masks(tables["interiors"]))[0])
    none = shape[0] * shape[1]

    def program(draw):
        if cfg.locked_room_quarters:
            has_locked = draw(4, 4) < cfg.locked_room_quarters
        else:
            has_locked = jnp.bool_(False)
        pair = pairs[draw(len(tables["pairs"]), len(tables["pairs"]))]
        locked, locked_edge = pair[0], walls_of[pair[0], pair[1]]
        door_colour = draw(C.NUM_COLORS, C.NUM_COLORS)
        taken = jnp.zeros(shape, bool)
        crowded = jnp.bool_(False)  # a room with no cell left: MiniGrid's place_obj gives up

        def place(room: Array, taken: Array) -> tuple[Array, Array]:
            cells, ok = P.open_listed(cell_lists, room, taken)
            free = jnp.sum(ok, dtype=jnp.int32)
            cell = P.nth_listed(cells, ok, draw(jnp.maximum(free, 1), side * side), none)
            return cell, free == 0

        key_room = nth_free(draw(num_rooms - 1, num_rooms - 1), [locked])
        key_cell, full = place(key_room, taken)
        crowded = crowded | (has_locked & full)
        taken = jnp.where(has_locked, P.taken_by([key_cell], shape), taken)
        offsets = [draw(side, side) for _ in range(edges)]
        colours = [draw(C.NUM_COLORS, C.NUM_COLORS) for _ in range(edges)]
        at_locked = has_locked & jnp.any(
            walls_of[locked][:, None] == jnp.arange(edges)[None, :], axis=0
        )
        already = has_locked & (jnp.arange(edges) == locked_edge)
        doors = connect.added_doors(priority, already, ~at_locked, cols, rows)
        grid = P.with_doors(rooms, jnp.asarray(rooms.walls()), doors, offsets, colours)
        locked_grid = P.put(
            grid, P.door_slots(rooms, offsets)[locked_edge], (C.DOOR, door_colour, C.LOCKED)
        )
        locked_grid = P.put(locked_grid, key_cell, (C.KEY, door_colour, 0))
        grid = jnp.where(has_locked, locked_grid, grid)
        # The distractors: their digits drawn here, their cells in a loop (one copy of the
        # placement to compile, not num_dists). A cell's rank is a 31-bit uniform modulo the
        # free cells left (bias below 2e-8), as its radix is known only inside the loop.
        digits = jnp.asarray(
            [
                jnp.stack(
                    [
                        draw(C.NUM_COLORS, C.NUM_COLORS),
                        draw(len(KINDS), len(KINDS)),
                        draw(num_rooms, num_rooms),
                        draw(1 << 16, 1 << 16) * (1 << 15) + draw(1 << 15, 1 << 15),
                    ]
                )
                for _ in range(cfg.num_dists)
            ],
            jnp.int32,
        ).reshape(cfg.num_dists, 4)

        def distractor(i: Array, carry: tuple[Array, Array, Array]) -> tuple[Array, ...]:
            grid, taken, crowded = carry
            colour, kind, room, uniform = digits[i, 0], digits[i, 1], digits[i, 2], digits[i, 3]
            cells, ok = P.open_listed(cell_lists, room, taken)
            free = jnp.sum(ok, dtype=jnp.int32)
            at = P.nth_listed(cells, ok, uniform % jnp.maximum(free, 1), none)
            grid = P.write_cell(grid, at, (KINDS[0] + kind, colour, 0))
            return grid, P.write_cell(taken, at, True), crowded | (free == 0)

        if cfg.num_dists:
            carry = (grid, taken, crowded)
            grid, taken, crowded = lax.fori_loop(0, cfg.num_dists, distractor, carry)
        rank = draw(jnp.where(has_locked, num_rooms - 1, num_rooms), num_rooms)
        agent_room = jnp.where(has_locked, nth_free(rank, [locked]), rank)
        poses = pose_lists[agent_room]  # 4 c + d for each interior cell c, direction d
        admissible = P.agent_poses(grid, np.ones(shape, bool))[poses]
        count = jnp.sum(admissible, dtype=jnp.int32)
        crowded = crowded | (count == 0)
        rank = draw(jnp.maximum(count, 1), side * side * 4)
        pose = P.nth_listed(poses, admissible, rank, 4 * none)
        agent = jnp.stack([pose // 4 // rooms.height, pose // 4 % rooms.height])
        direction = pose % 4
        state = make_state(grid, agent, direction)
        accepted = ~crowded
        if not cfg.unblocking:
            kind = grid[..., 0]
            walked = reachable((kind != C.EMPTY) & (kind != C.DOOR), agent)
            accepted = accepted & jnp.all(walked | (kind == C.EMPTY) | (kind == C.WALL))
        outside = None
        if not cfg.language.implicit_unlock and cfg.locked_room_quarters:
            outside = ~(has_locked & jnp.asarray(tables["extents"])[locked])
        matched = grammar.matched_descriptions(state, room_size=rooms.room_size, outside=outside)
        tree, keep = grammar.draw_tree(draw, matched, cfg.language)
        key_colour = jnp.where(has_locked, door_colour, NO_COLOUR) if cfg.unblocking else None
        accepted = accepted & grammar.valid(
            tree, state, room_size=rooms.room_size, locked_key_colour=key_colour
        )
        return state, accepted, tree, keep

    state, accepted, tree, keep = sequential_draws(layout_key, program, budget=WIDE_DIGIT_BUDGET)
    # Kept with the chance that every rand_obj would have found its match (24-bit uniform).
    uniform = (threefry.random_bits(accept_key) >> 8).astype(jnp.float32) * 2.0**-24
    return state, accepted & (uniform < keep), tree


def draw_level(key: Array, *, cfg: LevelGenConfig) -> State:
    """One reset: ``cfg.attempts`` whole levels (static), the first accepted kept, else the
    last; `level.begin_tree` applied."""
    attempt = functools.partial(_attempt, cfg=cfg)
    state, tree = level.first_accepted(attempt, key, cfg.attempts)
    return level.begin_tree(state, tree, room_size=cfg.room_size, kinds=cfg.language.action_kinds)


_GOTO = (int(V.Instr.GOTO),)
_ACTIONS_ONLY = ("action",)
_SYNTH = grammar.Grammar(instr_kinds=_ACTIONS_ONLY, locations=False, implicit_unlock=False)
# ``attempts``: whole levels per reset, so that all are rejected in under one reset in 10**6
# at MiniGrid's own rejection rate (docs/gridworld.md has the rates).
CONFIGS = {
    "GoToSeq": LevelGenConfig(
        locked_room_quarters=0,
        unblocking=False,
        language=grammar.Grammar(action_kinds=_GOTO, locations=False),
        attempts=21,
    ),
    "GoToSeqS5R2": LevelGenConfig(
        room_size=5,
        num_rows=2,
        num_cols=2,
        num_dists=4,
        locked_room_quarters=0,
        unblocking=False,
        language=grammar.Grammar(action_kinds=_GOTO, locations=False),
        attempts=25,
    ),
    "Synth": LevelGenConfig(language=_SYNTH, attempts=6),
    "SynthS5R2": LevelGenConfig(room_size=5, num_rows=2, language=_SYNTH, attempts=12),
    "SynthLoc": LevelGenConfig(
        language=grammar.Grammar(instr_kinds=_ACTIONS_ONLY, implicit_unlock=False), attempts=6
    ),
    "SynthSeq": LevelGenConfig(language=grammar.Grammar(implicit_unlock=False), attempts=7),
    "MiniBossLevel": LevelGenConfig(
        room_size=5, num_rows=2, num_cols=2, num_dists=7, locked_room_quarters=1, attempts=9
    ),
    "BossLevel": LevelGenConfig(attempts=7),
    "BossLevelNoUnlock": LevelGenConfig(
        locked_room_quarters=0, language=grammar.Grammar(implicit_unlock=False), attempts=6
    ),
}


def _entry(name: str):
    env_id = f"BabyAI-{name}-v0"
    cfg = CONFIGS[name]
    return env_id, level.level_factory(
        env_id,
        room_size=cfg.room_size,
        num_rows=cfg.num_rows,
        num_cols=cfg.num_cols,
        num_navs=cfg.language.max_navs,
        layout_fn=functools.partial(draw_level, cfg=cfg),
        kinds=cfg.language.action_kinds,
        grammar=True,
    )


ENVIRONMENTS = dict(_entry(name) for name in CONFIGS)
