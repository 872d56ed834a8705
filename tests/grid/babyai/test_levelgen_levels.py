"""BabyAI's grammar levels (GoToSeq, Synth, SynthLoc, SynthSeq, MiniBossLevel, BossLevel)
against MiniGrid 3.2.0: configuration, lockstep episodes, resets and rejection rates.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success), random episodes and
deliberate failures (facing an object or door the first clause does not describe, then
``done`` until the episode's own time limit); the levels on the same room grid share their
stepping programs. Then MiniGrid's resets against ours per level (`dist.sample_sizes`: 8,000
of ours, 1,000 of MiniGrid's): the objects, doors, locked door and key, the agent, and the
instruction (its shape, verbs, determiners, locations, colours and time limit, read off the
mission); and the share of whole levels each draws again, against MiniGrid's.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import signal
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import mission_tokens
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import trees as T
from horizax.grid.babyai import verifiers as V
from horizax.grid.envs import babyai_levelgen
from horizax.grid.mission_tokens import WORD
from tests import code_families
from tests.grid import batched_reset
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.bridge import tree_array

IDS = sorted(babyai_levelgen.ENVIRONMENTS)
N_RESETS = 2000
# Levels on 3 x 3 rooms of side 8 drawing every action kind step with BossLevel's programs.
SHARED = {
    f"BabyAI-{name}-v0": "BabyAI-BossLevel-v0"
    for name in ("Synth", "SynthLoc", "SynthSeq", "BossLevelNoUnlock")
}


def _config(env_id: str) -> babyai_levelgen.LevelGenConfig:
    return babyai_levelgen.CONFIGS[env_id.removeprefix("BabyAI-").removesuffix("-v0")]


def _nav_time(env_id: str) -> int:
    cfg = _config(env_id)
    return cfg.room_size**2 * cfg.num_rows * cfg.num_cols


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    """MiniGrid's size, actions and view; the time limit is the episode's: ``max_steps`` is
    the longest, and MiniGrid's limits are multiples of the navigation time below it."""
    env, mg = bridge.paired(env_id)
    assert (env.width, env.height) == (mg.width, mg.height)
    assert env.num_actions == mg.action_space.n and not mg.see_through_walls
    assert env.episode_max_steps is not None
    cfg = _config(env_id)
    assert env.max_steps == cfg.language.max_navs * _nav_time(env_id)
    with contextlib.redirect_stdout(io.StringIO()):  # MiniGrid prints its rejections
        for seed in range(20):
            mg.reset(seed=seed)
            assert mg.max_steps % _nav_time(env_id) == 0 and mg.max_steps <= env.max_steps


def test_grammar_levels_share_their_stepping_programs():
    for env_id, other in SHARED.items():
        a, b = horizax.make(env_id), horizax.make(other)
        assert code_families.code(a.step) == code_families.code(b.step), env_id
        assert a.post_action_fn is b.post_action_fn and a.observation_fn is b.observation_fn
        assert a.episode_max_steps is b.episode_max_steps
        assert (a.width, a.height) == (b.width, b.height)


def test_an_override_fixes_every_episodes_limit():
    env = horizax.make("BabyAI-GoToSeqS5R2-v0")
    # The id's compiled batched reset (shared in the process), not op by op.
    keys = jax.random.split(jax.random.PRNGKey(0), 64)
    limits = batched_reset.reset(env, keys).state.max_steps
    assert len(set(np.asarray(limits).tolist())) > 2, "limits vary with the instruction"
    assert (np.asarray(limits) % _nav_time("BabyAI-GoToSeqS5R2-v0") == 0).all()
    fixed = horizax.make("BabyAI-GoToSeqS5R2-v0", max_steps=7)
    assert fixed.episode_max_steps is None
    ts = fixed.reset(jax.random.PRNGKey(0))
    assert int(ts.state.max_steps) == 7
    step = jax.jit(fixed.disable_autoreset().step)
    for _ in range(7):
        ts = step(ts, np.int32(0))
    assert bool(ts.is_truncation())
    assert env.replace(max_steps=9).episode_max_steps is None


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    progs = lockstep.programs(SHARED.get(env_id, env_id))
    seed = 3 * IDS.index(env_id) + 1
    counts = lockstep.play(env_id, seed, progs, ("bot", "random", "fail", "bot"))
    assert counts["bot_success"] == 2 and counts["failure"] == 1


# --- resets ------------------------------------------------------------------------------

_VERBS = [WORD[w] for w in ("go", "open", "pick", "put")]
_SIDES = [WORD[w] for w in ("left", "right", "front", "behind")]
_COLOURS = [WORD[c] for c in C.COLOR_NAMES]


class _HangError(Exception):
    pass


_ARMED = [False]  # whether a SIGALRM now means "this reset hung"


def _raise_hang(*_: Any) -> None:
    if _ARMED[0]:
        raise _HangError


def minigrid_levels(env_id: str, n: int) -> tuple[dist.Layouts, np.ndarray, float, int]:
    """``n`` MiniGrid resets (seeds from 0; a reset still running after 2 s, MiniGrid's
    endless ``place_agent`` loop, is skipped), their instructions as trees (i32[n, 38]), the
    share of whole levels MiniGrid drew again, and how many resets hung."""
    from minigrid.envs.babyai.core.levelgen import LevelGen

    calls = collections.Counter()
    original = LevelGen.gen_mission

    def counted(self: Any) -> None:
        calls["levels"] += 1
        original(self)

    mg = bridge.minigrid_env(env_id)
    out: dict[str, list[Any]] = {"grid": [], "pos": [], "dir": [], "mission": [], "tree": []}
    hangs, seed, finished_levels = 0, 0, 0
    previous = signal.signal(signal.SIGALRM, _raise_hang)
    LevelGen.gen_mission = counted  # type: ignore[method-assign]
    try:
        while len(out["grid"]) < n:
            before = calls["levels"]
            # After 2 s, and again every 0.5 s: a `_HangError` raised while Python runs a
            # finaliser (a `__del__`, a garbage-collection callback) is printed and dropped,
            # and a single alarm then left the loop running for good (seen once in a full
            # run: 40 minutes on BabyAI-SynthS5R2's seed 1741, which hangs in MiniGrid).
            _ARMED[0] = True
            signal.setitimer(signal.ITIMER_REAL, 2.0, 0.5)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    mg.reset(seed=seed)
            except _HangError:
                _ARMED[0] = False
                hangs += 1
                continue
            finally:
                _ARMED[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                seed += 1
            finished_levels += calls["levels"] - before
            out["grid"].append(bridge.grid_encoding(mg))
            out["pos"].append(np.asarray(mg.agent_pos))
            out["dir"].append(int(mg.agent_dir))
            out["mission"].append(mission_tokens.text_tokens(mg.mission))
            out["tree"].append(tree_array(mg.instrs))
    finally:
        LevelGen.gen_mission = original  # type: ignore[method-assign]
        signal.signal(signal.SIGALRM, previous)
    layouts = dist.Layouts(
        grid=np.stack(out["grid"]).astype(np.uint8),
        agent_pos=np.stack(out["pos"]).astype(np.int32),
        agent_dir=np.asarray(out["dir"], np.int32),
        mission=np.stack(out["mission"]).astype(np.int32),
    )
    return layouts, np.stack(out["tree"]), 1 - n / finished_levels, hangs


def _count(words: np.ndarray, ids: list[int]) -> np.ndarray:
    return np.isin(words, ids).sum(axis=1)


_ROOM_STEPS = {22: 7, 9: 4, 13: 4}  # grid width -> room_size - 1 (3 x 3 of 8; side-5 rooms)


def _room_step(width: int) -> int:
    return _ROOM_STEPS[width]


@functools.partial(jax.jit, static_argnames="room_size", compiler_options=dist.BATCH_OPTIONS)
def _putnext_gaps(layouts: tuple[jax.Array, ...], trees: jax.Array, *, room_size: int):
    """i32[N, 4]: per leaf, the least Manhattan distance between an object PutNext moves and
    one it puts next to (-1: no such leaf); MiniGrid refuses the levels where it is 1.

    The distance to the nearest fixed object is taken one axis at a time (x, then y): the
    whole cell-by-cell table ([W, H, W, H], 234,256 entries at 22 x 22) made this check 9 s
    of run time a level. Run over thousands of layouts, it compiles as the batched resets do
    (`dist.BATCH_OPTIONS`)."""
    width, height = layouts[0].shape[1:3]
    across_x = np.abs(np.arange(width)[:, None] - np.arange(width))  # [x, x']
    across_y = np.abs(np.arange(height)[:, None] - np.arange(height))  # [y, y']

    def one(grid, pos, direction, tree):
        def gap(leaf, used):
            move, fixed = (
                D.find_matching(d, grid, pos, direction, room_size=room_size)
                for d in (V.desc_a(leaf), V.desc_b(leaf))
            )
            # [x, y']: the x distance to the nearest fixed object in row y'; then [x, y].
            along_x = jnp.min(jnp.where(fixed[None], across_x[:, :, None], 99), axis=1)
            near = jnp.min(along_x[:, None, :] + across_y[None], axis=2)
            least = jnp.min(jnp.where(move, near, 99))
            return jnp.where(used & (leaf[0] == V.Instr.PUT_NEXT), jnp.minimum(least, 6), -1)

        return jax.vmap(gap)(T.leaves(tree), T.leaves_used(tree))

    return jax.vmap(one)(*layouts[:3], trees)


def _features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent = layouts.grid, layouts.agent_pos
    n, height = len(grid), grid.shape[2]
    kind, colour = grid[..., 0].astype(np.int32), grid[..., 1].astype(np.int32)
    state = grid[..., 2].astype(np.int32)
    objects, doors = np.isin(kind, (C.KEY, C.BALL, C.BOX)), kind == C.DOOR
    locked = doors & (state == C.LOCKED)
    rows = np.arange(n)
    front = agent + np.asarray(C.DIR_TO_VEC)[layouts.agent_dir]
    at, door_at = np.argwhere(objects), np.argwhere(doors)
    code = (kind - C.KEY) * C.NUM_COLORS + colour
    words = layouts.mission
    verbs = np.stack([(words == v).sum(axis=1) for v in _VERBS], axis=1)
    # Which rooms the agent's start room shares a wall with the locked door: it is never the
    # locked room itself, so it touches that door only from the room across it.
    step = _room_step(grid.shape[1])
    room = agent // step
    by_locked = np.full(n, -1)
    for i, x, y in np.argwhere(locked):
        lo = np.array([x, y]) // step - (np.array([x, y]) % step == 0)
        hi = np.array([x, y]) // step
        by_locked[i] = int(((room[i] >= lo) & (room[i] <= hi)).all())
    return {
        "agent_by_locked_door": by_locked,
        "agent_pose": dist.cell_index(agent, height) * 4 + layouts.agent_dir,
        "front_kind": kind[rows, front[:, 0], front[:, 1]],
        "object_count": objects.sum(axis=(1, 2)),
        "object_cell": at[:, 1] * height + at[:, 2],
        "object_code": code[objects],
        "door_count": doors.sum(axis=(1, 2)),
        "door_cell_colour": (door_at[:, 1] * height + door_at[:, 2]) * 8 + colour[doors],
        "locked_door": np.where(locked.any(axis=(1, 2)), (colour * locked).sum(axis=(1, 2)), -1),
        "verbs": verbs @ np.array([1, 5, 25, 125]),
        "joins": _count(words, [WORD["and"]]) * 3
        + (words == WORD["then"]).any(axis=1)
        + 2 * (words == WORD["after"]).any(axis=1),
        "navs": verbs.sum(axis=1) + verbs[:, 3],
        "mission_length": (words != 0).sum(axis=1),
        "determiners": _count(words, [WORD["a"]]) * 16 + _count(words, [WORD["the"]]),
        "sides": _count(words, _SIDES),
        "colour_words": _count(words, _COLOURS),
        "object_words": _count(words, [WORD["object"]]),
        "first_words": words[:, 0] * 128 + words[:, 2],
    }


def dist_arrays(layouts: dist.Layouts) -> tuple[np.ndarray, ...]:
    return (layouts.grid, layouts.agent_pos, layouts.agent_dir)


def our_attempts(env_id: str, n: int) -> tuple[dist.Layouts, np.ndarray, np.ndarray]:
    """``n`` whole levels drawn as a reset draws them, each begun (`level.begin_tree`), and
    which were accepted: the accepted ones are the reset's distribution (a reset keeps the
    first accepted of its independent draws), and the rest give our rejection rate; also
    their trees."""
    cfg = _config(env_id)

    def one(key: jax.Array) -> tuple[Any, jax.Array]:
        state, accepted, tree = babyai_levelgen._attempt(key, cfg)
        kinds = cfg.language.action_kinds
        return level.begin_tree(state, tree, room_size=cfg.room_size, kinds=kinds), accepted

    run = jax.jit(jax.vmap(one), compiler_options=dist.BATCH_OPTIONS)
    state, accepted = run(jax.random.split(jax.random.PRNGKey(5), n))
    arrays = (state.grid, state.agent_pos, state.agent_dir, state.mission)
    trees = np.asarray(state.extra.tree)
    return dist.Layouts(*(np.asarray(a) for a in arrays)), trees, np.asarray(accepted)


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    n_ours, n_minigrid = dist.sample_sizes(N_RESETS)
    theirs, their_trees, their_rate, hangs = minigrid_levels(env_id, n_minigrid)
    assert hangs <= 5, f"{hangs} MiniGrid resets hung"
    n_drawn = int(n_ours / (1 - their_rate) * 1.25) + 200  # enough accepted, surely
    drawn, drawn_trees, accepted = our_attempts(env_id, n_drawn)
    assert accepted.sum() >= n_ours
    ours = dist.Layouts(
        *(
            getattr(drawn, f)[accepted][:n_ours]
            for f in ("grid", "agent_pos", "agent_dir", "mission")
        )
    )
    dist.compare_layouts(_features, ours, theirs)
    # PutNext's objects never touch at the start (validate_instrs), and their gaps agree.
    our_trees = drawn_trees[accepted][:n_ours]
    gaps = [
        np.asarray(_putnext_gaps(dist_arrays(side), trees, room_size=_config(env_id).room_size))
        for side, trees in ((ours, our_trees), (theirs, their_trees))
    ]
    assert (gaps[0] != 1).all() and (gaps[1] != 1).all()
    codes = [np.sort(g, axis=1) @ (8 ** np.arange(4)) for g in gaps]
    _, _, p_gap = dist.chi_square_homogeneity(codes[0], codes[1])
    assert p_gap >= dist.P_MIN, f"PutNext gaps differ: p = {p_gap:.2e}"
    # The share of whole levels drawn again: a two-proportion z-test against MiniGrid's.
    our_rate = 1 - float(accepted.mean())
    n_theirs = n_minigrid / (1 - their_rate)
    pooled = (our_rate * n_drawn + their_rate * n_theirs) / (n_drawn + n_theirs)
    spread = np.sqrt(pooled * (1 - pooled) * (1 / n_drawn + 1 / n_theirs))
    assert abs(our_rate - their_rate) <= 4.5 * spread + 1e-9, (our_rate, their_rate)
    cfg = _config(env_id)
    assert our_rate**cfg.attempts < 2e-6, "the attempts budget leaves too many resets failed"
    features = _features(ours)
    assert not np.isin(features["front_kind"], (C.KEY, C.BALL, C.BOX, C.DOOR)).any()
    assert (features["object_count"] >= cfg.num_dists).all()


def test_levels_are_tree_levels():
    assert all(level.instruction_form(horizax.make(i)) == "tree" for i in IDS)
