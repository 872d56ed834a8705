"""FourRooms: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs.fourrooms import fourrooms_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

ENV_ID = "MiniGrid-FourRooms-v0"
SIZE, MID = 19, 9
N_LAYOUTS = 4000
# The four wall arms, as (fixed coordinate is x?, cells along the arm).
ARMS = {
    "top": (MID, np.s_[1:MID]),  # column 9, rows 1..8
    "bottom": (MID, np.s_[MID + 1 : SIZE - 1]),  # column 9, rows 10..17
    "left": (MID, np.s_[1:MID]),  # row 9, columns 1..8
    "right": (MID, np.s_[MID + 1 : SIZE - 1]),  # row 9, columns 10..17
}


def arm_open(grid: np.ndarray, arm: str) -> np.ndarray:
    """bool[N, 8]: which cells of a wall arm are not wall (gap, or goal/agent-cleared cell)."""
    line, cells = ARMS[arm]
    kind = grid[..., 0]
    along = kind[:, line, cells] if arm in ("top", "bottom") else kind[:, cells, line]
    return along != C.WALL


def room_of(pos: np.ndarray) -> np.ndarray:
    """i32[N]: 0..3 for the four rooms, 4 for a cell of the wall cross (a gap)."""
    room = (pos[:, 0] > MID).astype(np.int32) + 2 * (pos[:, 1] > MID)
    return np.where((pos[:, 0] == MID) | (pos[:, 1] == MID), 4, room)


def fourrooms_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent = layouts.grid, layouts.agent_pos
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    features = {
        # The open cells of each arm as a bit pattern: one bit set when the arm has one gap.
        f"gap_{arm}": (arm_open(grid, arm) * (1 << np.arange(8))).sum(axis=1)
        for arm in ARMS
    }
    features.update(
        agent=dist.cell_index(agent, SIZE),
        agent_dir=layouts.agent_dir,
        goal=dist.cell_index(goal, SIZE),
        agent_room=room_of(agent),
        goal_room=room_of(goal),
        rooms=room_of(agent) * 5 + room_of(goal),
        goal_under_agent=(goal == agent).all(axis=1).astype(np.int32),
    )
    return features


@pytest.mark.reference
def test_configuration_matches_minigrid():
    bridge.assert_same_configuration(ENV_ID)
    env, mg = horizax.make(ENV_ID), bridge.minigrid_env(ENV_ID)
    assert (
        (env.width, env.height, env.max_steps)
        == (mg.width, mg.height, mg.max_steps)
        == (
            19,
            19,
            100,
        )
    )
    assert not mg.see_through_walls


@pytest.mark.reference
def test_lockstep_with_minigrid():
    """Random actions, then noisy shortest-path episodes through the gaps, in one run."""
    env = horizax.make(ENV_ID)
    mg = bridge.minigrid_env(ENV_ID)
    mg.reset(seed=0)
    prefix = bridge.random_actions(seed=1, n=2000, forward_bias=0.5)
    episodes = 20
    actions = dist.lockstep_script(mg, prefix, episodes, np.random.default_rng(0), noise=0.2)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == len(actions)
    assert counts["truncated"] >= 10, "random play should mostly hit the 100-step limit"
    assert counts["terminated"] == counts["reward_nonzero"] >= episodes - 2


@pytest.mark.slow
@pytest.mark.reference
def test_layout_distribution_matches_minigrid():
    ours = dist.horizax_layouts(horizax.make(ENV_ID), N_LAYOUTS)
    theirs = dist.minigrid_layouts(ENV_ID, N_LAYOUTS)
    dist.compare_layouts(fourrooms_features, ours, theirs)


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize(
    "agent_pos, goal_pos",
    [((MID, 4), None), (None, (17, 17)), ((1, 1), (2, 1))],
    ids=["agent-on-wall", "fixed-goal", "both-fixed"],
)
def test_fixed_positions_match_minigrid(agent_pos, goal_pos):
    """MiniGrid's constructor arguments: a fixed start clears its cell (here a wall of the top
    arm, opening a second hole there); a fixed goal is written after a random agent is placed,
    so the agent may start on it."""
    env = horizax.make(ENV_ID).replace(layout_fn=fourrooms_layout(agent_pos, goal_pos))
    n = 2000
    ours = dist.horizax_layouts(env, n)
    theirs = dist.minigrid_layouts(ENV_ID, n, agent_pos=agent_pos, goal_pos=goal_pos)
    dist.compare_layouts(fourrooms_features, ours, theirs)
    if agent_pos is not None:
        assert (ours.agent_pos == agent_pos).all()
    if goal_pos is None:
        return
    assert (ours.grid[:, goal_pos[0], goal_pos[1], 0] == C.GOAL).all()


def test_every_layout_is_well_formed():
    layouts = dist.horizax_layouts(horizax.make(ENV_ID), N_LAYOUTS)  # shared with the test above
    grid, agent = layouts.grid, layouts.agent_pos
    rows = np.arange(len(layouts))
    kind = grid[..., 0]
    assert set(np.unique(kind)) == {C.EMPTY, C.WALL, C.GOAL}
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    # Exactly one hole per arm, inside the arm's range; the rest of the cross and the border
    # are wall; the rooms' interiors are free.
    for arm in ARMS:
        assert (arm_open(grid, arm).sum(axis=1) == 1).all(), arm
    walls = kind == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    assert walls[:, MID, MID].all(), "the centre of the cross is never opened"
    assert (walls.sum(axis=(1, 2)) == 4 * (SIZE - 1) + 2 * (SIZE - 2) - 1 - 4).all()
    # The agent on a free cell, the goal elsewhere; every free cell reachable from the start.
    assert (kind[rows, agent[:, 0], agent[:, 1]] == C.EMPTY).all()
    assert (goal != agent).any(axis=1).all()
    for i in range(200):
        assert dist.reachable(grid[i], agent[i], ~walls[i])[~walls[i]].all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    "agent_pos, goal_pos", [((2, 2), (3, 3)), ((3, 3), (3, 3)), (None, (16, 1))]
)
def test_agent_and_goal_positions_are_overrides_like_minigrid(agent_pos, goal_pos):
    """``make(id, agent_pos=..., goal_pos=...)`` as MiniGrid's constructor takes them."""
    env = horizax.make("MiniGrid-FourRooms-v0", agent_pos=agent_pos, goal_pos=goal_pos)
    for seed in range(3):
        state = env.reset(jax.random.PRNGKey(seed)).state
        if agent_pos is not None:
            assert tuple(int(v) for v in state.agent_pos) == agent_pos
        assert tuple(int(v) for v in state.grid[goal_pos]) == C.GOAL_CELL
        assert int((np.asarray(state.grid)[..., 0] == C.GOAL).sum()) == 1
    with pytest.raises(ValueError, match="unknown override"):
        horizax.make("MiniGrid-FourRooms-v0", agent_position=(2, 2))
