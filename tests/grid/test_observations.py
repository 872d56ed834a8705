"""Observations: MiniGrid's visibility rule, view geometry, full-grid encodings."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import observations as O
from horizax.grid import view
from horizax.grid.state import make_state, walled_grid


@pytest.mark.reference
def test_visibility_mask_equals_minigrid_process_vis_on_random_occluders():
    grid_mod = pytest.importorskip("minigrid.core.grid")
    from minigrid.core.world_object import Wall

    rng = np.random.default_rng(0)
    masks = []
    expected = []
    for _ in range(400):
        density = rng.uniform(0.05, 0.6)
        walls = rng.random((7, 7)) < density
        walls[3, 6] = False
        g = grid_mod.Grid(7, 7)
        for i, j in zip(*np.nonzero(walls), strict=True):
            g.set(int(i), int(j), Wall())
        expected.append(g.process_vis(agent_pos=(3, 6)))
        masks.append(~walls)
    ours = jax.jit(jax.vmap(view.visibility_mask))(jnp.asarray(np.stack(masks)))
    np.testing.assert_array_equal(np.asarray(ours), np.stack(expected))


def test_view_geometry_per_direction():
    grid = walled_grid(9, 9)
    grid[6, 4] = (C.KEY, C.RED, 0)  # two cells right of the agent at (4, 4)
    for direction, expected in [(0, (3, 4)), (1, (1, 6)), (2, None), (3, (5, 6))]:
        s = make_state(grid, jnp.array([4, 4]), jnp.int32(direction))
        view = np.asarray(O.symbolic_first_person_see_through(s))
        hits = np.argwhere(view[..., 0] == C.KEY)
        assert (tuple(hits[0]) if len(hits) else None) == expected, direction


def test_view_shows_carried_object_at_the_agent_cell_and_off_grid_as_wall():
    carried = jnp.array((C.BALL, C.BLUE, 0), jnp.uint8)
    s = make_state(walled_grid(5, 5), jnp.array([1, 1]), jnp.int32(3), carrying=carried)
    view = np.asarray(O.symbolic_first_person_see_through(s))
    np.testing.assert_array_equal(view[3, 6], carried)
    np.testing.assert_array_equal(view[3, 0], C.WALL_CELL)  # 6 cells up: off-grid


def test_symbolic_marks_agent_like_fully_obs_wrapper():
    s = make_state(walled_grid(6, 5), jnp.array([2, 3]), jnp.int32(2))
    obs = np.asarray(O.symbolic(s))
    assert obs.shape == (6, 5, 3)
    np.testing.assert_array_equal(obs[2, 3], (C.AGENT, C.RED, 2))
    assert O.categorical(s).shape == (6, 5) and O.categorical_first_person(s).shape == (7, 7)


@pytest.mark.parametrize(
    "fn", [O.symbolic, O.categorical, O.symbolic_first_person, O.categorical_first_person]
)
def test_observation_functions_stay_inside_their_spaces(fn):
    env = horizax.make("MiniGrid-Empty-Random-6x6-v0", observation_fn=fn)
    ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 16))
    space = env.observation_space
    assert ts.observation.shape[1:] == space.shape
    assert all(bool(space.contains(o)) for o in ts.observation)


def test_undeclared_bounds_are_the_dtypes_range_and_an_override_still_wins():
    from horizax.core.spaces import Box

    env = horizax.make("MiniGrid-Empty-5x5-v0", observation_fn=lambda s: s.grid)
    space = env.observation_space
    assert space.shape == (5, 5, 3) and int(space.low) == 0 and int(space.high) == 255
    override = Box(0, 10, (5, 5, 3), jnp.uint8)
    env = horizax.make(
        "MiniGrid-Empty-5x5-v0",
        observation_fn=lambda s: s.grid,
        observation_space_override=override,
    )
    assert env.observation_space is override


@pytest.mark.parametrize("size", [(5, 5), (8, 8), (7, 9)])
def test_put_inside_writes_one_cell_and_drops_off_grid(size):
    # Both forms (scatter for areas that are multiples of 64, select otherwise) must agree.
    from horizax.grid import cells

    width, height = size
    grid = jnp.arange(width * height * 3, dtype=jnp.uint8).reshape(width, height, 3)
    cell = jnp.asarray([9, 8, 7], jnp.uint8)
    for pos in [(0, 0), (width - 1, height - 1), (2, 3)]:
        expected = np.asarray(grid).copy()
        expected[pos] = [9, 8, 7]
        out = jax.jit(cells.put_inside)(grid, jnp.asarray(pos), cell)
        np.testing.assert_array_equal(np.asarray(out), expected, f"write at {pos}")
    for pos in [(-1, 0), (width, 0), (0, height), (0, -1)]:
        out = jax.jit(cells.put_inside)(grid, jnp.asarray(pos), cell)
        np.testing.assert_array_equal(np.asarray(out), np.asarray(grid), f"off-grid {pos}")


def test_any_observation_function_carries_its_space_through_make_and_gymnasium():
    import functools
    import warnings

    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    from horizax.adapters.gymnasium import GymnasiumEnv

    def scaled(state):
        return state.grid.astype(jnp.float32) / 10.0

    cases = {
        "partial of symbolic": (functools.partial(O.symbolic), (5, 5, 3), np.uint8, 10),
        "lambda returning floats": (lambda state: scaled(state), (5, 5, 3), np.float32, np.inf),
    }
    for what, (fn, shape, dtype, high) in cases.items():
        env = horizax.make("MiniGrid-DoorKey-5x5-v0", observation_fn=fn)
        space = env.observation_space
        assert space.shape == shape and np.dtype(space.dtype) == dtype, what
        assert np.max(space.high) == high, what
        timestep = env.reset(jax.random.PRNGKey(0))
        assert bool(space.contains(timestep.observation)), what
        gym_env = GymnasiumEnv("MiniGrid-DoorKey-5x5-v0", observation_fn=fn)
        image = gym_env.observation_space["image"]
        assert isinstance(image, gymnasium.spaces.Box) and image.shape == shape, what
        obs, _ = gym_env.reset(seed=0)
        assert obs["image"] in image and obs["image"].dtype == dtype, what
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Gymnasium warns about unbounded float Boxes
            check_env(gym_env, skip_render_check=True)


def test_observation_spaces_of_the_builtin_functions():
    expected = {
        O.symbolic: ((6, 5, 3), 10),
        O.symbolic_first_person: ((7, 7, 3), 10),
        O.symbolic_first_person_see_through: ((7, 7, 3), 10),
        O.categorical: ((6, 5), C.NUM_OBJECTS - 1),
        O.categorical_first_person: ((7, 7), C.NUM_OBJECTS - 1),
        O.rgb: ((5 * 8, 6 * 8, 3), 255),
        O.rgb_first_person: ((7 * 8, 7 * 8, 3), 255),
        O.rgb_observation(tile_size=32): ((5 * 32, 6 * 32, 3), 255),
        O.rgb_observation(tile_size=5, highlight=False): ((5 * 5, 6 * 5, 3), 255),
        O.rgb_first_person_observation(tile_size=9): ((7 * 9, 7 * 9, 3), 255),
    }
    for fn, (shape, high) in expected.items():
        space = O.observation_space(fn, 6, 5)
        assert space.shape == shape and np.dtype(space.dtype) == np.uint8, fn.__name__
        assert int(np.max(space.high)) == high and int(np.min(space.low)) == 0, fn.__name__
    with pytest.raises(TypeError, match="must return one array"):
        O.observation_space(lambda state: (state.grid, state.grid), 5, 5)


def test_rgb_observations_follow_the_environments_see_through_walls():
    # Unbound (None), an RGB observation takes the environment's flag; explicit ones stay.
    assert O.rgb.see_through_walls is None and O.rgb.tile_size == O.RGB_TILE_SIZE == 8
    assert O.rgb.highlight and not O.rgb.first_person and O.rgb_first_person.first_person
    for env_id, see_through in [
        ("MiniGrid-Fetch-5x5-N2-v0", True),
        ("MiniGrid-DoorKey-5x5-v0", False),
    ]:
        env = horizax.make(env_id, observation_fn=O.rgb_first_person)
        assert env.see_through_walls is see_through
        assert env.observation_fn == O.rgb_first_person_observation(see_through_walls=see_through)
        pinned = O.rgb_first_person_observation(see_through_walls=not see_through)
        assert horizax.make(env_id, observation_fn=pinned).observation_fn is pinned
    # What the flag changes: off-grid walls beyond the border are lit only when seen through.
    state = make_state(walled_grid(5, 5), (1, 1), 3)  # facing the top wall from a corner
    t = O.RGB_TILE_SIZE
    occluded = np.asarray(O.rgb_first_person_observation(t, see_through_walls=False)(state))
    through = np.asarray(O.rgb_first_person_observation(t, see_through_walls=True)(state))
    assert np.asarray(O.rgb_first_person(state)).tobytes() == occluded.tobytes()
    assert (through.astype(int) >= occluded).all() and (through != occluded).any()
    assert O.rgb.__name__ == "rgb" and O.rgb_first_person.__name__ == "rgb_first_person"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tile_size": 0}, "tile_size"),
        ({"tile_size": 8.0}, "tile_size"),
        ({"highlight": 1}, "highlight"),
        ({"see_through_walls": "yes"}, "see_through_walls"),
    ],
)
def test_rgb_observation_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        O.rgb_observation(**kwargs)
