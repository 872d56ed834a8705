"""Lockstep episodes of a BabyAI level against MiniGrid 3.2.0 (shared by the level tests).

MiniGrid's layout and instruction are copied in (`level.begin` on MiniGrid's grid, so the
mission words are ours), then both sides take the same actions, compared at every step (grid,
agent, hand, image, mission string, max_steps, reward, terminated, truncated). The policies:

* ``bot``: MiniGrid's BabyAI bot, which must succeed (terminated, reward > 0);
* ``random``: uniform actions, whatever the outcome;
* ``fail``: turn to face an object (or door) no description of the instruction's first
  clause matches (of a composite: the clause to be done first), then ``done`` until the time
  limit (truncated, reward 0); on a strict level (``...Debug``) pick that object up, or
  toggle that door, instead, which must terminate with reward 0;
* ``key_in_box``: a scripted solution of KeyInBox, which the bot cannot play: open the box,
  pick up the key it leaves, unlock the door; it must succeed;
* ``drop_next``: a scripted solution of the PutNext ``…Carrying`` levels, which the bot
  cannot play: face a free cell next to the fixed object and drop the carried one there
  (never on the first step, which MiniGrid's verifier does not count); it must succeed.

A level starts with its own `level.begin_for` (action, composite or tree); MiniGrid's plain
action instruction in a composite level (OpenDoorsOrder's "open d1") is copied in as a
`sequences.Seq.SINGLE`, and every instruction of a grammar level as a `trees.tree`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax.grid import constants as C
from horizax.grid import mission_tokens, missions
from horizax.grid.babyai import level
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import verifiers as V
from horizax.grid.environment import Environment, Timestep
from horizax.grid.envs import babyai_putnext_across
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai.bridge import baby_ai_bot, descs_of, instr_array, tree_array, verifier


class Programs(NamedTuple):
    """A level's environment (no autoreset) and its jitted step, `level.begin` and view."""

    env: Environment
    step: Any
    begin: Any
    view: Any


@functools.cache
def programs(env_id: str) -> Programs:
    """``env_id``'s programs, jitted once (`level.begin` with the level's instruction kinds)."""
    env = horizax.make(env_id).disable_autoreset()
    room_size, kinds = level.level_room_size(env), level.level_kinds(env)
    start = level.begin_for(env)

    def begin(state, instr):
        return start(state, instr, room_size=room_size, kinds=kinds)

    return Programs(env, jax.jit(env.step), jax.jit(begin), jax.jit(env.observation_fn))


def assert_programs_shared(shared: dict[str, str]) -> None:
    """Each ``env_id -> other`` of ``shared`` may step on ``other``'s `programs`: the same
    step code, verdict recorder, view, grid size and time limit (the layouts alone differ)."""
    from tests import code_families

    for env_id, other in shared.items():
        a, b = horizax.make(env_id), horizax.make(other)
        assert code_families.code(a.step) == code_families.code(b.step), env_id
        assert a.post_action_fn is b.post_action_fn and a.observation_fn is b.observation_fn
        assert (a.width, a.height, a.max_steps) == (b.width, b.height, b.max_steps), env_id


def copied_in(mg: Any, progs: Programs) -> Timestep:
    """A first timestep holding MiniGrid's layout and instruction.

    A ``…Carrying`` PutNext level starts with the moved object in the hand, put there after
    MiniGrid reset the verifier: it is copied back to its cell for `level.begin`, then moved
    into the hand again (`babyai_putnext_across.into_hand`).
    """
    blank = np.zeros(mission_tokens.MISSION_LENGTH, np.int32)
    state = bridge.state_from_minigrid(mg, mission_fn=lambda _: blank)
    form = level.instruction_form(progs.env)
    instr = tree_array(mg.instrs) if form == "tree" else instr_array(mg.instrs)
    if form == "sequence" and instr.shape == (V.INSTR_SIZE,):
        instr = Q.sequence(Q.Seq.SINGLE, instr)
    held = getattr(mg, "start_carrying", False)
    if held:
        x, y = (int(v) for v in mg.obj_a.init_pos)
        grid = np.array(state.grid)
        grid[x, y] = state.carrying
        state = state.replace(grid=grid, carrying=np.asarray(C.EMPTY_CELL, np.uint8))
    state = progs.begin(state, instr)
    if progs.env.episode_max_steps is not None:  # the episode's own limit, as a reset sets it
        state = state.replace(max_steps=progs.env.episode_max_steps(state))
    if held:
        obj = jnp.asarray(mg.obj_a.encode(), jnp.int32)
        state = babyai_putnext_across.into_hand(state, obj[0], obj[1])
    return bridge.first_timestep(state, progs.view(state))


def first_clause(instr: Any) -> Any:
    """The part of MiniGrid's instruction to be done first (the whole of an ``and``)."""
    if isinstance(instr, verifier.BeforeInstr):
        return first_clause(instr.instr_a)
    if isinstance(instr, verifier.AfterInstr):
        return first_clause(instr.instr_b)
    return instr


def face_other_object(mg: Any) -> int:
    """Towards facing an object no description of the instruction matches, then ``done``."""
    matched = {id(obj) for desc in descs_of(first_clause(mg.instrs)) for obj in desc.obj_set}
    width = mg.grid.width
    # MiniGrid's cell list is row-major (index y * width + x); sorted, the first is the
    # smallest (x, y), as a column-by-column scan finds it.
    others = sorted(
        (i % width, i // width)
        for i, obj in enumerate(mg.grid.grid)
        if obj is not None and obj.type in ("key", "ball", "box", "door") and id(obj) not in matched
    )
    fx, fy = mg.front_pos
    if not others or (int(fx), int(fy)) in others:
        return C.DONE
    action = dist._first_action_to_face(
        bridge.grid_encoding(mg), mg.agent_pos, int(mg.agent_dir), others[0]
    )
    return C.DONE if action is None else action


def open_box_then_door(mg: Any) -> int:
    """The next action of the ``key_in_box`` script (shortest paths by `dist`'s planner)."""
    grid = bridge.grid_encoding(mg)  # MiniGrid's encode, one pass (box states aside)
    holding_key = mg.carrying is not None and mg.carrying.type == "key"
    if holding_key:
        target, act = np.argwhere(grid[..., 0] == C.DOOR)[0], C.TOGGLE
    elif (grid[..., 0] == C.BOX).any():
        target, act = np.argwhere(grid[..., 0] == C.BOX)[0], C.TOGGLE
    else:
        target, act = np.argwhere(grid[..., 0] == C.KEY)[0], C.PICKUP
    if tuple(int(v) for v in mg.front_pos) == tuple(int(v) for v in target):
        return act
    action = dist._first_action_to_face(grid, mg.agent_pos, int(mg.agent_dir), target)
    return C.DONE if action is None else action


def drop_next_to_fixed(mg: Any) -> int:
    """The next action of the ``drop_next`` script."""
    grid = bridge.grid_encoding(mg)  # MiniGrid's encode, one pass (box states aside)
    bx, by = (int(v) for v in mg.instrs.desc_fixed.obj_set[0].cur_pos)
    width, height = grid.shape[:2]
    free = [
        (bx + dx, by + dy)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        if 0 <= bx + dx < width and 0 <= by + dy < height and grid[bx + dx, by + dy, 0] == C.EMPTY
    ]
    if tuple(int(v) for v in mg.front_pos) in free:
        return C.DROP if mg.step_count > 0 else C.LEFT
    for target in free:
        action = dist._first_action_to_face(grid, mg.agent_pos, int(mg.agent_dir), target)
        if action is not None:
            return action
    return C.DONE


def play(
    env_id: str,
    seed: int,
    progs: Programs,
    policies: Sequence[str] = ("bot", "random", "fail", "bot", "random", "fail"),
    *,
    bot_may_fail: bool = False,
) -> dict[str, int]:
    """``policies``' episodes of ``env_id`` in lockstep with MiniGrid; returns their counts.

    ``progs`` may be another level's programs when the two differ in their layouts alone
    (the caller checks that): one compile serves them all. ``bot_may_fail``: a bot episode
    may end in the verifier's failure (counted as ``bot_failure``), for the levels where
    MiniGrid's own rules defeat the bot.
    """
    env, step, _, view = progs
    strict = env_id.endswith("Debug-v0")
    mg = bridge.minigrid_env(env_id)
    rng = np.random.default_rng(seed)
    counts = {"bot_success": 0, "bot_failure": 0, "random": 0, "failure": 0, "steps": 0}
    counts["scripted_success"] = 0
    for episode, policy in enumerate(policies):
        mg.reset(seed=seed * 100 + episode)
        ts = copied_in(mg, progs)
        assert int(ts.state.max_steps) == mg.max_steps
        assert missions.mission_text(ts.state) == mg.mission
        np.testing.assert_array_equal(np.asarray(view(ts.state)), mg.gen_obs()["image"])
        bot = baby_ai_bot.BabyAIBot(mg) if policy == "bot" else None
        while True:
            if bot is not None:
                action = int(bot.replan())
            elif policy == "key_in_box":
                action = open_box_then_door(mg)
            elif policy == "drop_next":
                action = drop_next_to_fixed(mg)
            elif policy == "fail":
                action = face_other_object(mg)
                if strict and action == C.DONE:  # the wrong object or door, faced
                    front = mg.grid.get(*mg.front_pos)
                    door = front is not None and front.type == "door"
                    action = C.TOGGLE if door else C.PICKUP  # strict fails
            else:
                action = int(rng.integers(C.NUM_ACTIONS))
            where = f"{env_id} episode {episode} ({policy}) step {mg.step_count}"
            obs, reward, terminated, truncated, _ = mg.step(action)
            ts = step(ts, np.int32(action))  # a numpy scalar: no eager JAX op per step
            bridge.assert_same_state(env, ts, mg, where)
            np.testing.assert_array_equal(
                np.asarray(view(ts.state)), obs["image"], err_msg=f"image {where}"
            )
            assert np.float32(ts.reward) == np.float32(reward), f"reward {where}"
            assert bool(ts.is_termination()) == terminated, f"terminated {where}"
            assert bool(ts.is_truncation()) == (truncated and not terminated), where
            counts["steps"] += 1
            if terminated or truncated:
                break
        if policy == "bot" and bot_may_fail and terminated and reward == 0:
            counts["bot_failure"] += 1
        elif policy == "bot":
            assert terminated and reward > 0, f"{env_id}: the bot did not succeed"
            counts["bot_success"] += 1
        elif policy in ("key_in_box", "drop_next"):
            assert terminated and reward > 0, f"{env_id}: the script did not succeed"
            counts["scripted_success"] += 1
        elif policy == "fail":
            # strict: the wrong pickup terminates with 0; otherwise the time limit ends it
            ended = terminated if strict else truncated and not terminated
            assert reward == 0 and ended, f"{env_id}: the failure ended wrongly"
            counts["failure"] += 1
        else:
            counts["random"] += 1
    return counts
