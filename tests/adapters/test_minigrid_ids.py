"""The Gymnasium adapter as MiniGrid's stand-in: classes named as MiniGrid's,
`register_as_minigrid`, and ``layouts="minigrid"`` (MiniGrid's own layout per seed)."""

import pickle
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
minigrid = pytest.importorskip("minigrid")

from horizax.adapters import gymnasium as hg  # noqa: E402
from horizax.adapters import minigrid_ids  # noqa: E402
from horizax.core.registry import registered_ids, resolve  # noqa: E402
from horizax.grid import from_minigrid  # noqa: E402

pytestmark = pytest.mark.reference

GRID_IDS = [i for i in registered_ids() if i.startswith(("MiniGrid-", "BabyAI-"))]
MINIGRID_IDS = [i for i in GRID_IDS if i.startswith("MiniGrid-")]
WFC_IDS = [i for i in MINIGRID_IDS if i.startswith("MiniGrid-WFC-")]


def minigrid_spec(env_id):
    """MiniGrid's own registration of ``env_id`` (even while horizax's replaces it)."""
    return minigrid_ids._REPLACED.get(env_id) or gymnasium.spec(env_id)


@pytest.fixture
def minigrid_registry():
    """Restores Gymnasium's registry after a test that replaces MiniGrid's ids."""
    saved = dict(gymnasium.registry)
    yield
    gymnasium.registry.clear()
    gymnasium.registry.update(saved)


# ----------------------------------------------------------------------------- class names


def test_class_names_are_minigrids():
    aliases = [i for i in registered_ids(include_aliases=True) if i not in registered_ids()]
    grid_aliases = [a for a in aliases if resolve(a) in GRID_IDS]
    assert len(GRID_IDS) >= 95 and grid_aliases
    for env_id in GRID_IDS + grid_aliases:
        expected = minigrid_spec(resolve(env_id)).entry_point.split(":")[-1]
        spec = gymnasium.spec(f"horizax/{env_id}")
        assert isinstance(spec.entry_point, str)
        assert spec.entry_point.split(":")[-1] == expected, env_id
    env = gymnasium.make("horizax/MiniGrid-DoorKey-5x5-v0")
    assert type(env.unwrapped).__name__ == "DoorKeyEnv"
    assert isinstance(env.unwrapped, hg.GymnasiumEnv)
    assert (
        str(env)
        == "<OrderEnforcing<PassiveEnvChecker<DoorKeyEnv<horizax/MiniGrid-DoorKey-5x5-v0>>>>"
    )
    assert repr(env.unwrapped) == "DoorKeyEnv(MiniGrid-DoorKey-5x5-v0)"
    assert type(pickle.loads(pickle.dumps(env.unwrapped))).__name__ == "DoorKeyEnv"
    assert type(hg.GymnasiumEnv("MiniGrid-DoorKey-5x5-v0")) is hg.GymnasiumEnv
    assert gymnasium.spec("horizax/Maze-v0").entry_point.endswith(":GymnasiumEnv")


# ----------------------------------------------------------------------------- register_as_minigrid


def test_register_as_minigrid(minigrid_registry):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ids = hg.register_as_minigrid()
        assert hg.register_as_minigrid() == ids  # idempotent
    assert ids == GRID_IDS
    env = gymnasium.make("MiniGrid-Empty-8x8-v0")
    assert str(env) == "<OrderEnforcing<PassiveEnvChecker<EmptyEnv<MiniGrid-Empty-8x8-v0>>>>"
    assert isinstance(env.unwrapped, hg.GymnasiumEnv)
    spec = gymnasium.spec("MiniGrid-DoorKey-8x8-v0")
    assert gymnasium.envs.registration.EnvSpec.from_json(spec.to_json()) == spec
    # The WFC ids too, although MiniGrid's own cannot be made from its wheel.
    assert len(WFC_IDS) == 6 and set(WFC_IDS) <= set(ids)
    env = gymnasium.make("MiniGrid-WFC-MazeSimple-v0")
    assert type(env.unwrapped).__name__ == "WFCMazeSimpleEnv"
    # Other keyword arguments: registered again with them.
    hg.register_as_minigrid(max_steps=7)
    assert gymnasium.make("MiniGrid-Empty-5x5-v0").unwrapped.max_steps == 7
    # MiniGrid's own env stays reachable for layouts="minigrid".
    assert type(minigrid_ids.minigrid_env("MiniGrid-Empty-5x5-v0", {})).__module__.startswith(
        "minigrid"
    )


# ----------------------------------------------------------------------------- layouts


def same_as_minigrid(env, mg, obs, mg_obs, where):
    state = env._episode.state
    np.testing.assert_array_equal(state.grid, from_minigrid.grid_encoding(mg), err_msg=where)
    np.testing.assert_array_equal(state.agent_pos, mg.agent_pos, err_msg=where)
    assert int(state.agent_dir) == int(mg.agent_dir), where
    assert obs["mission"] == mg.mission, where
    np.testing.assert_array_equal(obs["image"], mg_obs["image"], err_msg=where)


# MiniGrid's WFC resets take 0.1-2 s each: its quickest preset stands for the six.
SAMPLE = [i for i in MINIGRID_IDS if i not in WFC_IDS][::5]
SAMPLE += ["MiniGrid-LavaCrossingS9N1-v0", "MiniGrid-Dynamic-Obstacles-8x8-v0"]
SAMPLE += ["MiniGrid-WFC-ObstaclesBlackdots-v0"]


@pytest.mark.parametrize("env_id", SAMPLE)
def test_minigrid_layouts_are_minigrids(env_id):
    env = hg.make(env_id, layouts="minigrid")
    mg = minigrid_ids.minigrid_env(env_id, {}, from_minigrid.data_files(env_id))
    for seed in (0, 2, 12345):
        obs, _ = env.reset(seed=seed)
        same_as_minigrid(env, mg, obs, mg.reset(seed=seed)[0], f"{env_id} seed {seed}")
    for n in range(2):  # without a seed: MiniGrid's stream continues
        obs, _ = env.reset()
        same_as_minigrid(env, mg, obs, mg.reset()[0], f"{env_id} unseeded reset {n}")
    obs, *_ = env.step(0)  # steps are horizax's, from the copied state
    assert env.observation_space.contains(obs)


def test_minigrid_layouts_every_minigrid_id():
    """Every one of the 82 MiniGrid ids copies (one seed each). The six WFC ids share one
    copy (walls, goal, agent) and each costs a WFC compile here, so two of them stand for
    the six: the quickest and a wrapping one."""
    assert len(MINIGRID_IDS) == 82 and len(WFC_IDS) == 6
    wfc = ["MiniGrid-WFC-ObstaclesBlackdots-v0", "MiniGrid-WFC-DungeonMazeScaled-v0"]
    for env_id in [i for i in MINIGRID_IDS if i not in WFC_IDS or i in wfc]:
        env = hg.make(env_id, layouts="minigrid")
        mg = minigrid_ids.minigrid_env(env_id, {}, from_minigrid.data_files(env_id))
        obs, _ = env.reset(seed=3)
        same_as_minigrid(env, mg, obs, mg.reset(seed=3)[0], env_id)


def test_minigrid_layouts_ball_order_and_overrides():
    env = hg.make("MiniGrid-Dynamic-Obstacles-16x16-v0", layouts="minigrid", max_steps=9)
    mg = minigrid_ids.minigrid_env("MiniGrid-Dynamic-Obstacles-16x16-v0", {})
    env.reset(seed=4)
    mg.reset(seed=4)
    order = [o.cur_pos[0] * mg.height + o.cur_pos[1] for o in mg.obstacles]
    np.testing.assert_array_equal(env._episode.state.extra.cells, order)
    assert int(env._episode.state.max_steps) == env.unwrapped.max_steps == 9
    # Overrides MiniGrid's class takes reach its layouts too.
    env = hg.make("MiniGrid-FourRooms-v0", layouts="minigrid", agent_pos=(2, 3), goal_pos=(3, 3))
    env.reset(seed=0)
    assert tuple(env.agent_pos) == (2, 3) and tuple(env.goal_pos) == (3, 3)


def test_no_death_on_minigrid_layouts():
    """MiniGrid's ``NoDeath`` example (its seeds name its layouts)."""
    from minigrid.wrappers import NoDeath

    env = NoDeath(
        gymnasium.make("horizax/MiniGrid-LavaCrossingS9N1-v0", layouts="minigrid"), ("lava",), -1.0
    )
    env.reset(seed=2)
    env.step(1)
    assert env.step(2)[1:3] == (-1.0, False)
    env = gymnasium.make("horizax/MiniGrid-Dynamic-Obstacles-5x5-v0", layouts="minigrid")
    env.reset(seed=2)
    assert env.step(2)[1:3] == (-1.0, True)


def test_layouts_errors():
    with pytest.raises(ValueError, match="layouts must be 'horizax' or 'minigrid'"):
        hg.make("MiniGrid-Empty-5x5-v0", layouts="navix")
    with pytest.raises(ValueError, match=r"layouts='minigrid'.*BabyAI"):
        hg.make("BabyAI-GoToLocal-v0", layouts="minigrid")
    with pytest.raises(ValueError, match="layouts='minigrid' needs a MiniGrid id"):
        hg.make("Maze-v0", layouts="minigrid")
    copier = hg.make("MiniGrid-Empty-5x5-v0").fenv.reference_layouts()
    mg = minigrid_ids.minigrid_env("MiniGrid-Empty-6x6-v0", {})
    mg.reset(seed=0)
    with pytest.raises(ValueError, match="MiniGrid's MiniGrid-Empty-5x5-v0 is 6x6"):
        copier.state(mg, np.zeros(2, np.uint32))
