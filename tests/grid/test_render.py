"""The renderer: tiles in image layout, the agent, the highlight, the first-person view,
jit/vmap. Equality with MiniGrid's frames is `test_render_minigrid.py`'s (reference)."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import observations, raster, render, view
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


def tile_of(encoding, t, slot=render.NO_AGENT, highlight=False):
    index = render.tile_index(
        jnp.asarray(encoding, jnp.uint8), jnp.int32(slot), jnp.asarray(highlight)
    )
    return render.tile_atlas(t)[int(index)]


def red_mask(tile):
    """bool[T, T]: the agent's (pure red) pixels of a tile whose background has no red."""
    tile = tile.astype(int)
    return (tile[..., 0] > 128) & (tile[..., 1] < 64) & (tile[..., 2] < 64)


NUM_ENCODINGS = C.NUM_OBJECTS * C.NUM_COLORS * C.NUM_STATES


@pytest.mark.parametrize("width, height", [(5, 5), (8, 8), (9, 5), (4, 11)])
@pytest.mark.parametrize("t", [4, 8, 32])
def test_shapes_and_dtypes(width, height, t):
    # Shapes come from tracing alone (eval_shape); the other tests execute the renderers.
    state = make_state(walled_grid(width, height), (1, 1), 0)
    for highlight in (True, False):
        image = jax.eval_shape(lambda s, h=highlight: render.render_grid(s, t, h), state)
        assert image.shape == (height * t, width * t, 3) and image.dtype == jnp.uint8
    pov = jax.eval_shape(lambda s: render.render_view(s, t), state)
    assert pov.shape == (7 * t, 7 * t, 3) and pov.dtype == jnp.uint8
    assert render.tile_atlas(t).shape == (NUM_ENCODINGS * 5 * 2, t, t, 3)


def test_default_tile_size_and_env_state():
    env = horizax.make("MiniGrid-Empty-8x8-v0")
    state = env.reset(jax.random.PRNGKey(0)).state
    assert render.TILE_SIZE == 32
    image = render.render_image(state)
    assert image.shape == (256, 256, 3) and image.dtype == np.uint8
    assert render.render_image(state, first_person=True).shape == (224, 224, 3)


def test_atlas_rows_are_raster_tiles():
    # Spot checks of the index layout: encoding, then agent slot, then highlight.
    t = 8
    for encoding, slot, lit in [
        ((C.DOOR, C.PURPLE, C.LOCKED), 2, True),
        ((C.KEY, C.BLUE, 0), render.NO_AGENT, False),
        ((C.LAVA, C.RED, 0), 0, False),
        ((C.EMPTY, 0, 0), 3, True),
    ]:
        agent = None if slot == render.NO_AGENT else slot
        np.testing.assert_array_equal(
            tile_of(encoding, t, slot, lit), raster.tile(*encoding, agent, lit, t)
        )
    with pytest.raises(ValueError, match="tile_size"):
        render.tile_atlas(0)


@pytest.mark.parametrize("t", [8, 32])
def test_every_cell_shows_its_tile_at_row_y_column_x(t):
    # A non-square grid, so that swapping x and y could not go unnoticed.
    grid = walled_grid(9, 5)
    grid[7, 1] = C.GOAL_CELL
    grid[2, 3] = (C.BALL, C.BLUE, 0)
    grid[5, 2] = (C.DOOR, C.PURPLE, C.CLOSED)
    grid[6, 3] = C.LAVA_CELL
    state = make_state(grid, (3, 1), 1)
    image = render.render_image(state, t, highlight=False)
    for x in range(9):
        for y in range(5):
            slot = 1 if (x, y) == (3, 1) else render.NO_AGENT
            np.testing.assert_array_equal(block(image, x, y, t), tile_of(grid[x, y], t, slot))
    agent = block(image, 3, 1, t)
    assert red_mask(agent).sum() > 0.15 * t * t
    assert not red_mask(np.delete(image, np.s_[1 * t : 2 * t], axis=0)).any(), "red elsewhere"


def test_distinct_encodings_give_distinct_tiles_except_where_minigrid_draws_alike():
    encodings = [(C.EMPTY, 0, 0), (C.LAVA, C.RED, 0), C.GOAL_CELL]
    for colour in range(C.NUM_COLORS):
        for obj in (C.WALL, C.FLOOR, C.KEY, C.BALL, C.BOX):
            if (obj, colour) != (C.WALL, C.GREEN):
                encodings.append((obj, colour, 0))
        for door_state in (C.OPEN, C.CLOSED, C.LOCKED):
            encodings.append((C.DOOR, colour, door_state))
    for t in (8, 32):
        tiles = {tile_of(e, t).tobytes(): e for e in encodings}
        assert len(tiles) == len(encodings), f"tile size {t}: some encodings share a tile"
        # MiniGrid draws a green wall as the goal, and unseen or agent encodings as empty.
        np.testing.assert_array_equal(tile_of((C.WALL, C.GREEN, 0), t), tile_of(C.GOAL_CELL, t))
        for obj in (C.UNSEEN, C.AGENT):
            np.testing.assert_array_equal(tile_of((obj, 0, 0), t), tile_of(C.EMPTY_CELL, t))
    assert not render.tile_atlas(8).flags.writeable


def test_box_contents_are_not_drawn_and_out_of_range_fields_clamp():
    from horizax.grid import cells

    full_box = cells.box_cell(C.RED, (C.KEY, C.BLUE))
    np.testing.assert_array_equal(tile_of(full_box, 8), tile_of((C.BOX, C.RED, 0), 8))
    # Object, colour and agent slot clamp to their last values (the state channel's high bits
    # are box contents, masked off first).
    index = render.tile_index(jnp.asarray([200, 200, 2], jnp.uint8), jnp.int32(9), True)
    assert int(index) == NUM_ENCODINGS * 10 - 1


@pytest.mark.parametrize("t", [8, 32])
def test_agent_rotates_with_its_direction(t):
    masks = []
    for d in range(4):
        image = render.render_image(make_state(walled_grid(5, 5), (2, 3), d), t, highlight=False)
        masks.append(red_mask(block(image, 2, 3, t)))
    half = t // 2
    # The wide back of the triangle holds more of its pixels than the half with the tip:
    # direction 0 points right (+x), then quarter turns clockwise: down (+y), left, up.
    back_and_tip = [
        (masks[0][:, :half], masks[0][:, half:]),
        (masks[1][:half], masks[1][half:]),
        (masks[2][:, half:], masks[2][:, :half]),
        (masks[3][half:], masks[3][:half]),
    ]
    for d, (back, tip) in enumerate(back_and_tip):
        assert back.sum() > 1.5 * tip.sum() > 0, f"direction {d} points the wrong way"
        assert abs(int(masks[d].sum()) - int(masks[0].sum())) <= t // 4, "a turn changed size"


def test_agent_is_drawn_over_the_cell_it_stands_on():
    grid = walled_grid(5, 5)
    grid[2, 2] = (C.DOOR, C.BLUE, C.OPEN)
    t = 32
    agent = block(render.render_image(make_state(grid, (2, 2), 0), t, highlight=False), 2, 2, t)
    door = tile_of((C.DOOR, C.BLUE, C.OPEN), t)
    np.testing.assert_array_equal(agent, tile_of((C.DOOR, C.BLUE, C.OPEN), t, slot=0))
    assert red_mask(agent).sum() > 0.15 * t * t and not red_mask(door).any()
    # The triangle ends before the open door's leaf along the right edge, which stays.
    assert (agent[:, -2:, 2] > 150).any()
    np.testing.assert_array_equal(agent[:, -2:], door[:, -2:])


def highlighted_cells(state, t=8, see_through_walls=False):
    """bool[W, H]: the cells whose tile is the highlighted version of the plain one."""
    on = render.render_image(state, t, see_through_walls=see_through_walls)
    off = render.render_image(state, t, highlight=False)
    width, height = state.grid.shape[:2]
    return np.array(
        [
            [(block(on, x, y, t) != block(off, x, y, t)).any() for y in range(height)]
            for x in range(width)
        ]
    )


def test_highlight_lightens_the_cells_the_agent_sees():
    # Facing the wall column x=4 from (2, 3): the locked door and the wall are opaque, so the
    # right room stays plain; the view area (x 2..8, y 0..6) lights up up to the wall.
    state = doorkey_state(agent_pos=(2, 3), agent_dir=0)
    expected = np.asarray(render.highlight_mask(state))
    np.testing.assert_array_equal(highlighted_cells(state), expected)
    assert expected[2, 3] and expected[4, 3], "the agent's cell and the door it faces"
    assert not expected[5:].any(), "cells behind the wall are lit"
    assert expected[2:5, :7].all() and expected.sum() == 3 * 7, "x 2..4, y 0..6 only"
    # Seeing through walls, the whole view area within the grid lights up: x 2..8, y 0..6.
    through = np.asarray(render.highlight_mask(state, see_through_walls=True))
    np.testing.assert_array_equal(highlighted_cells(state, see_through_walls=True), through)
    assert through[2:, :7].all() and through.sum() == 6 * 7
    # Highlighting brightens: every lit pixel is at least as light as the plain one.
    on = render.render_image(state, 8).astype(int)
    off = render.render_image(state, 8, highlight=False).astype(int)
    assert (on >= off).all() and (on > off).any()


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


def test_view_draws_the_agent_at_the_bottom_centre_facing_up_over_what_it_carries():
    t = 8
    state = doorkey_state(agent_pos=(2, 2), agent_dir=0, carrying=(C.BALL, C.BLUE, 0))
    pov = render.render_image(state, t, first_person=True)
    np.testing.assert_array_equal(
        block(pov, 3, 6, t), tile_of((C.BALL, C.BLUE, 0), t, slot=3, highlight=True)
    )


@pytest.mark.parametrize("agent_pos, agent_dir", [((2, 2), 0), ((3, 3), 0), ((1, 6), 3)])
def test_view_shows_seen_cells_lit_and_occluded_cells_empty(agent_pos, agent_dir):
    t = 8
    state = doorkey_state(agent_pos=agent_pos, agent_dir=agent_dir)
    area = np.asarray(view.view_cells(state))
    symbolic = np.asarray(observations.symbolic_first_person(state))
    pov = render.render_image(state, t, first_person=True)
    unseen = 0
    for i in range(7):
        for j in range(7):
            if (i, j) == (3, 6):
                continue
            seen = symbolic[i, j, 0] != C.UNSEEN
            expected = tile_of(area[i, j] if seen else C.EMPTY_CELL, t, highlight=seen)
            np.testing.assert_array_equal(block(pov, i, j, t), expected, err_msg=f"{i, j}")
            unseen += not seen
    assert unseen >= 7, "the state should hide part of the view behind walls"
    # Seeing through walls, every view cell is drawn as it is, lit.
    pov = render.render_image(state, t, first_person=True, see_through_walls=True)
    for i, j in [(0, 0), (6, 0), (3, 3)]:
        np.testing.assert_array_equal(block(pov, i, j, t), tile_of(area[i, j], t, highlight=True))


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
        "assert r.raster.tile.cache_info().currsize == 0"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
