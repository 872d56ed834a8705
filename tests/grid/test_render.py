"""The tile renderer: layout of tiles in the image, the agent overlay, the view, jit/vmap."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import observations, render
from horizax.grid.state import make_state, walled_grid


def doorkey_state(agent_pos=(2, 2), agent_dir=0, carrying=None):
    """An 8x8 DoorKey-like state: wall column x=4 with a yellow locked door, key and goal."""
    grid = walled_grid(8, 8)
    grid[4, :] = C.WALL_CELL
    grid[4, 3] = (C.DOOR, C.YELLOW, C.LOCKED)
    grid[2, 5] = (C.KEY, C.YELLOW, 0)
    grid[6, 6] = C.GOAL_CELL
    return make_state(grid, agent_pos, agent_dir, carrying=carrying)


def block(image, x, y, t):
    """u8[T, T, 3]: the tile of cell (x, y) of an image (rows = y)."""
    return np.asarray(image)[y * t : (y + 1) * t, x * t : (x + 1) * t]


def tile_of(encoding, t):
    return render.tile_atlas(t)[int(render.encoding_index(jnp.asarray(encoding, jnp.uint8)))]


def red_mask(tile):
    """bool[T, T]: the agent's (pure red) pixels of a tile whose background has no red."""
    tile = tile.astype(int)
    return (tile[..., 0] > 128) & (tile[..., 1] < 64) & (tile[..., 2] < 64)


@pytest.mark.parametrize("width, height", [(5, 5), (8, 8), (9, 5), (4, 11)])
@pytest.mark.parametrize("t", [4, 8, 32])
def test_shapes_and_dtypes(width, height, t):
    # Shapes come from tracing alone (eval_shape); the other tests execute the renderers.
    state = make_state(walled_grid(width, height), (1, 1), 0)
    image = jax.eval_shape(lambda s: render.render_grid(s, t), state)
    assert image.shape == (height * t, width * t, 3) and image.dtype == jnp.uint8
    view = jax.eval_shape(lambda s: render.render_view(s, t), state)
    assert view.shape == (7 * t, 7 * t, 3) and view.dtype == jnp.uint8
    assert render.tile_atlas(t).shape == (C.NUM_OBJECTS * C.NUM_COLORS * C.NUM_STATES, t, t, 3)


def test_default_tile_size_and_env_state():
    env = horizax.make("MiniGrid-Empty-8x8-v0")
    state = env.reset(jax.random.PRNGKey(0)).state
    assert render.TILE_SIZE == 32
    image = render.render_image(state)
    assert image.shape == (256, 256, 3) and image.dtype == np.uint8
    assert render.render_image(state, first_person=True).shape == (224, 224, 3)


@pytest.mark.parametrize("t", [8, 32])
def test_every_cell_shows_its_tile_at_row_y_column_x(t):
    # A non-square grid, so that swapping x and y could not go unnoticed.
    grid = walled_grid(9, 5)
    grid[7, 1] = C.GOAL_CELL
    grid[2, 3] = (C.BALL, C.BLUE, 0)
    grid[5, 2] = (C.DOOR, C.PURPLE, C.CLOSED)
    grid[6, 3] = C.LAVA_CELL
    state = make_state(grid, (3, 1), 1)
    image = render.render_image(state, t)
    for x in range(9):
        for y in range(5):
            if (x, y) != (3, 1):
                np.testing.assert_array_equal(block(image, x, y, t), tile_of(grid[x, y], t))
    agent = block(image, 3, 1, t)
    assert red_mask(agent).sum() > 0.15 * t * t
    assert not red_mask(np.delete(image, np.s_[1 * t : 2 * t], axis=0)).any(), "red elsewhere"


def test_distinct_encodings_give_distinct_tiles():
    encodings = [(C.EMPTY, 0, 0), (C.UNSEEN, 0, 0), (C.LAVA, C.RED, 0)]
    for colour in range(C.NUM_COLORS):
        for obj in (C.WALL, C.FLOOR, C.KEY, C.BALL, C.BOX, C.GOAL):
            encodings.append((obj, colour, 0))
        for door_state in (C.OPEN, C.CLOSED, C.LOCKED):
            encodings.append((C.DOOR, colour, door_state))
    for t in (8, 32):
        tiles = {tile_of(e, t).tobytes(): e for e in encodings}
        assert len(tiles) == len(encodings), f"tile size {t}: some encodings share a tile"


def test_unseen_is_black_and_walls_are_not_goals():
    atlas = render.tile_atlas(16)
    for colour in range(C.NUM_COLORS):
        for s in range(C.NUM_STATES):
            assert not tile_of((C.UNSEEN, colour, s), 16).any()
    # MiniGrid draws a green wall and the goal identically; horizax's bricks tell them apart.
    assert not np.array_equal(tile_of((C.WALL, C.GREEN, 0), 16), tile_of(C.GOAL_CELL, 16))
    assert not atlas.flags.writeable


def test_out_of_range_encodings_clamp_instead_of_failing():
    assert int(render.encoding_index(jnp.asarray([200, 200, 200], jnp.uint8))) == (
        C.NUM_OBJECTS * C.NUM_COLORS * C.NUM_STATES - 1
    )


@pytest.mark.parametrize("t", [8, 32])
def test_agent_rotates_with_its_direction(t):
    masks = []
    for d in range(4):
        image = render.render_image(make_state(walled_grid(5, 5), (2, 3), d), t)
        masks.append(red_mask(block(image, 2, 3, t)))
    right = masks[0]
    # Direction 0 points right (+x): the triangle is wide near its left edge, a tip at the right.
    assert right[:, int(0.25 * t)].sum() > 3 * max(1, right[:, int(0.8 * t)].sum())
    for d in range(4):  # quarter turns clockwise in the image: right, down (+y), left, up
        np.testing.assert_array_equal(masks[d], np.rot90(right, k=-d))
    assert masks[1][int(0.25 * t)].sum() > 3 * max(1, masks[1][int(0.8 * t)].sum())


def test_agent_is_composited_over_the_cell_it_stands_on():
    grid = walled_grid(5, 5)
    grid[2, 2] = C.GOAL_CELL
    t = 32
    image = render.render_image(make_state(grid, (2, 2), 0), t)
    agent = block(image, 2, 2, t)
    goal = tile_of(C.GOAL_CELL, t)
    outside = render.agent_alpha(t)[0] == 0
    np.testing.assert_array_equal(agent[outside], goal[outside])
    assert red_mask(agent).sum() > 0.15 * t * t


def stack(states):
    return jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *states)


def test_jit_and_vmap_trace_once():
    traces = []

    def fn(state):
        traces.append(None)
        return render.render_grid(state, 8), render.render_view(state, 8)

    batched = jax.jit(jax.vmap(fn))
    cells = [(x, y) for x in (1, 2, 3, 5, 6) for y in (1, 2, 3, 4)]
    states = stack([doorkey_state(p, i % 4) for i, p in enumerate(cells[:16])])
    grids, views = batched(states)
    assert grids.shape == (16, 64, 64, 3) and views.shape == (16, 56, 56, 3)
    batched(stack([doorkey_state(p, i % 4) for i, p in enumerate(cells[4:])]))
    assert len(traces) == 1
    assert len({np.asarray(v).tobytes() for v in views}) == 16
    for i in (0, 6, 15):  # vmapped rendering equals rendering each state alone
        one = jax.tree_util.tree_map(lambda a, i=i: a[i], states)
        np.testing.assert_array_equal(grids[i], render.render_image(one, 8))
        np.testing.assert_array_equal(views[i], render.render_image(one, 8, first_person=True))


def test_view_draws_the_agent_at_the_bottom_centre_pointing_up_over_what_it_carries():
    t = 8
    state = doorkey_state(agent_pos=(2, 2), agent_dir=0, carrying=(C.BALL, C.BLUE, 0))
    agent = block(render.render_image(state, t, first_person=True), 3, 6, t)
    alpha_up = render.agent_alpha(t)[3]
    assert (alpha_up == 1).sum() >= 4 and (agent[alpha_up == 1] == (255, 0, 0)).all()
    # Around the triangle: the carried blue ball, as MiniGrid's view shows it.
    ball = tile_of((C.BALL, C.BLUE, 0), t)
    np.testing.assert_array_equal(agent[alpha_up == 0], ball[alpha_up == 0])
    assert ((agent[..., 2] > 200) & (agent[..., 0] < 50)).any()
    # Pointing up is the right-pointing triangle turned a quarter counter-clockwise.
    np.testing.assert_array_equal(alpha_up, np.rot90(render.agent_alpha(t)[0], k=1))


@pytest.mark.parametrize("agent_pos, agent_dir", [((2, 2), 0), ((3, 3), 0), ((1, 6), 3)])
def test_view_matches_the_symbolic_view_and_unseen_cells_are_dark(agent_pos, agent_dir):
    t = 8
    state = doorkey_state(agent_pos=agent_pos, agent_dir=agent_dir)
    symbolic = np.asarray(observations.symbolic_first_person(state))
    view = render.render_image(state, t, first_person=True)
    unseen = 0
    for i in range(7):
        for j in range(7):
            if (i, j) == (3, 6):
                continue
            np.testing.assert_array_equal(block(view, i, j, t), tile_of(symbolic[i, j], t))
            if symbolic[i, j, 0] == C.UNSEEN:
                unseen += 1
                assert not block(view, i, j, t).any(), "an unseen cell is not dark"
    assert unseen >= 7, "the state should hide part of the view behind walls"


@pytest.mark.parametrize(
    "env_id, fn",
    [
        ("MiniGrid-Empty-5x5-v0", observations.rgb),
        ("MiniGrid-Empty-8x8-v0", observations.rgb),
        ("MiniGrid-Empty-8x8-v0", observations.rgb_first_person),
    ],
)
def test_rgb_observations_lie_in_their_spaces(env_id, fn):
    env = horizax.make(env_id, observation_fn=fn)
    space = env.observation_space
    actions = jnp.asarray([C.FORWARD, C.RIGHT, C.FORWARD, C.FORWARD, C.LEFT, C.FORWARD])

    @jax.jit
    def rollout(key):  # one compile for the reset and every step
        first = env.reset(key)
        _, later = jax.lax.scan(lambda ts, a: (env.step(ts, a),) * 2, first, actions)
        return first.observation, later.observation

    first, later = rollout(jax.random.PRNGKey(3))
    assert bool(space.contains(first))
    assert all(bool(space.contains(obs)) for obs in later)
    assert len({np.asarray(obs).tobytes() for obs in later}) > 1, "the agent never moved"


def test_render_image_and_save_png(tmp_path, monkeypatch):
    state = doorkey_state()
    image = render.render_image(state, 8)
    assert isinstance(image, np.ndarray) and image.shape == (64, 64, 3)
    assert render.render_image(state, 8, first_person=True).shape == (56, 56, 3)
    with pytest.raises(ValueError, match="u8"):
        render.save_png(tmp_path / "bad.png", image.astype(np.float32))
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    with pytest.raises(ImportError, match="render"):
        render.save_png(tmp_path / "x.png", image)


def test_save_png_round_trips(tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    image = render.render_image(doorkey_state(), 8)
    render.save_png(tmp_path / "doorkey.png", image)
    np.testing.assert_array_equal(np.asarray(image_module.open(tmp_path / "doorkey.png")), image)


def test_atlas_is_built_lazily_not_at_import():
    code = (
        "import horizax.grid.render as r, horizax.grid.observations;"
        "assert r.tile_atlas.cache_info().currsize == 0;"
        "assert r.agent_alpha.cache_info().currsize == 0"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
