"""`OrbitalViewer` and `OrbitalGymEnv.render/animate`: pictures, GIFs, errors and pickling."""

import copy
import pickle

import jax
import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
Image = pytest.importorskip("PIL.Image")

matplotlib.use("Agg")  # no display on the test machines

import horizax  # noqa: E402
from horizax.orbital import OrbitalGymEnv, make_game, make_lady_bandit_guard  # noqa: E402
from horizax.orbital.games import make_sun_blocking  # noqa: E402
from horizax.orbital.viewer import OrbitalViewer  # noqa: E402

# The viewer's marker colours (u8 RGB): lady green, guards blue, bandits red.
GREEN, BLUE, RED = (40, 160, 60), (40, 90, 220), (220, 50, 40)

BUILDERS = {
    "lady_bandit_guard": make_lady_bandit_guard,
    "get_off_my_lawn": lambda: make_game("get_off_my_lawn"),
    "pursuit_evasion": lambda: make_game("pursuit_evasion"),
    "sun_blocking": make_sun_blocking,
}
# Dashed radii each game draws with one guard: LBG breach + catch; GOML keep-out, the loiter
# band's two edges and catch; PE capture around guard 0; Sun-Blocking none.
RING_COUNT = {"lady_bandit_guard": 2, "get_off_my_lawn": 4, "pursuit_evasion": 1, "sun_blocking": 0}


@pytest.fixture(scope="module")
def started():
    """{game: (env, first state)}, each reset once for the whole module."""
    out = {}
    for name, build in BUILDERS.items():
        env = OrbitalGymEnv(build())
        state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
        out[name] = (env, state)
    yield out
    for env, _ in out.values():
        env.close()


@pytest.fixture(scope="module")
def episode(started):
    """(env, EnvState stacked over 10 steps) of Lady-Bandit-Guard without thrust."""
    env, state = started["lady_bandit_guard"]

    def body(s, key):
        nxt = env.step(key, s, env.identity_actions()).state
        return nxt, nxt

    keys = jax.random.split(jax.random.PRNGKey(1), 10)
    _, states = jax.jit(lambda s: jax.lax.scan(body, s, keys))(state)
    return env, states


def _has_colour(image: np.ndarray, colour: tuple[int, int, int], min_pixels: int = 10) -> bool:
    distance = np.abs(image.astype(np.int32) - np.array(colour)).sum(axis=-1)
    return int((distance < 40).sum()) >= min_pixels


@pytest.mark.parametrize("game", list(BUILDERS))
def test_render_draws_lady_guards_bandits_and_the_games_radii(started, game):
    env, state = started[game]
    image = env.render(state)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert _has_colour(image, GREEN), "no green lady"
    assert _has_colour(image, BLUE), "no blue guard"
    assert _has_colour(image, RED), "no red bandit"
    ax = env._viewer._figure.axes[0]
    assert len(ax.patches) == RING_COUNT[game], [p.get_label() for p in ax.patches]
    assert ax.get_title().endswith("t = 0.0 s, step 0")


def test_get_off_my_lawn_draws_its_band_as_two_to_one_relative_orbits(started):
    env, state = started["get_off_my_lawn"]
    env.render(state)
    game = env.config.game
    sizes = {(p.width, p.height) for p in env._viewer._figure.axes[0].patches}
    for radius in (game.keep_out_radius_m, game.r_min_keep_m, game.r_max_keep_m):
        assert (4 * radius, 2 * radius) in sizes  # along-track half-size twice the radial
    assert (2 * game.catch_radius_m, 2 * game.catch_radius_m) in sizes  # a Euclidean catch


def test_extent_and_save_path(started, tmp_path):
    env, state = started["lady_bandit_guard"]
    viewer = OrbitalViewer(env.config, render_mode="rgb_array", extent_m=2000.0)
    path = tmp_path / "frame.png"
    image = viewer.render(state, save_path=str(path))
    assert image is not None and image.dtype == np.uint8
    ax = viewer._figure.axes[0]
    assert ax.get_xlim() == (-2000.0, 2000.0) and ax.get_ylim() == (-2000.0, 2000.0)
    with Image.open(path) as png:
        assert png.format == "PNG"
    viewer.close()
    assert viewer._figure is None


def test_fitted_extent_is_never_zero_size(started):
    env, state = started["pursuit_evasion"]
    # Every vehicle on the lady: a fitted window still has a size.
    at_lady = jax.tree_util.tree_map(np.zeros_like, state).replace(t=state.t, step=state.step)
    viewer = OrbitalViewer(env.config, render_mode="rgb_array")
    viewer.render(at_lady)
    x0, x1 = viewer._figure.axes[0].get_xlim()
    assert x1 - x0 > 0
    viewer.close()


def test_animate_writes_a_gif_with_one_frame_per_state(episode, tmp_path):
    env, states = episode
    path = tmp_path / "episode.gif"
    animation = env.animate(states, interval=100, save_path=str(path))
    assert animation is not None
    with Image.open(path) as gif:
        assert gif.format == "GIF" and gif.n_frames == 10


def test_animate_takes_a_sequence_of_unbatched_states(episode, tmp_path):
    env, states = episode
    sequence = [jax.tree_util.tree_map(lambda x, i=i: x[i], states) for i in range(3)]
    path = tmp_path / "three.gif"
    OrbitalViewer(env.config, render_mode="rgb_array").animate(sequence, save_path=str(path))
    with Image.open(path) as gif:
        assert gif.n_frames == 3


def test_clear_errors(started, episode):
    env, _ = started["lady_bandit_guard"]
    _, states = episode
    with pytest.raises(ValueError, match="render_mode"):
        OrbitalViewer(env.config, render_mode="window")
    with pytest.raises(ValueError, match="extent_m"):
        OrbitalViewer(env.config, extent_m=0.0)
    viewer = OrbitalViewer(env.config, render_mode="rgb_array")
    with pytest.raises(ValueError, match="at least one state"):
        viewer.animate([])
    with pytest.raises(ValueError, match="render one unbatched state"):
        viewer.render(states)
    with pytest.raises(ValueError, match="render one unbatched state"):
        env.render(states)
    batched = jax.tree_util.tree_map(lambda x: np.stack([x, x]), states)  # [2, T, ...]
    with pytest.raises(ValueError, match="stacked over time only"):
        viewer.animate(batched)
    with pytest.raises(ValueError, match="interval"):
        viewer.animate(states, interval=0)


def test_environment_with_a_viewer_still_pickles_copies_and_renders(started):
    _, state = started["lady_bandit_guard"]
    view = horizax.make("Orbital-LadyBanditGuard-v0")  # the picklable form of the core
    view.env.render(state)  # creates the cached viewer and its figure
    assert "_viewer" in view.env.__dict__
    data = pickle.dumps(view)
    assert b"matplotlib" not in data, "the pickle drags the matplotlib figure along"
    back = pickle.loads(data)
    assert back == view and "_viewer" not in back.env.__dict__
    assert back.env.render(state).dtype == np.uint8
    # A deep copy (the core itself) carries a viewer without the figure, which redraws.
    twin = copy.deepcopy(view.env)
    assert twin._viewer._figure is None
    assert twin.render(state).dtype == np.uint8
    viewer_data = pickle.dumps(view.env._viewer)
    assert b"matplotlib" not in viewer_data
    for env in (view.env, back.env, twin):
        env.close()
