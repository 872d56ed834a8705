"""Test-only bridge to Farama MiniGrid: copy its state into horizax and drive both in lockstep.

MiniGrid is the oracle. `state_from_minigrid` copies a MiniGrid env's grid (box contents
included), agent, hand and mission into a horizax `State` (the library's
`horizax.grid.from_minigrid`, which the lockstep tests thereby prove); `lockstep` then applies
the same actions to both and compares, at every step, everything the issues name: agent position and
direction, the full grid encoding with what each box holds, the egocentric image, the carried
object, reward, terminated, truncated and the mission text.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid import from_minigrid, missions
from horizax.grid.environment import Environment, Timestep
from horizax.grid.state import State

# The copy itself is the library's (`horizax.grid.from_minigrid`): the lockstep tests prove it.
carried_encoding = from_minigrid.carried_encoding
grid_encoding = from_minigrid.grid_encoding
object_encoding = from_minigrid.object_encoding

gymnasium = pytest.importorskip("gymnasium")
minigrid = pytest.importorskip("minigrid")


def minigrid_env(env_id: str, **kwargs: Any) -> Any:
    """A raw (unwrapped) MiniGrid env, made through gymnasium's registry; the WFC ids through
    the adapter's `minigrid_env`, whose presets read the pattern images horizax ships."""
    if env_id.startswith("MiniGrid-WFC-"):
        from horizax.adapters import minigrid_ids

        return minigrid_ids.minigrid_env(env_id, kwargs, from_minigrid.data_files(env_id))
    import minigrid as _  # noqa: F401  (registers the ids)

    return gymnasium.make(env_id, **kwargs).unwrapped


def paired(env_id: str, seed: int = 0) -> tuple[Environment, Any]:
    """horizax's environment and MiniGrid's (reset with ``seed``) for the same id."""
    import horizax

    mg = minigrid_env(env_id)
    mg.reset(seed=seed)
    return horizax.make(env_id), mg


def assert_same_configuration(env_id: str) -> None:
    """Size, time limit, action count, default view (occluded or not) and the
    ``see_through_walls`` that frames highlight with equal MiniGrid's."""
    from horizax.grid import observations

    env, mg = paired(env_id)
    assert (env.width, env.height, env.max_steps) == (mg.width, mg.height, mg.max_steps)
    assert env.num_actions == mg.action_space.n
    expected = (
        observations.symbolic_first_person_see_through
        if mg.see_through_walls
        else observations.symbolic_first_person
    )
    assert env.observation_fn is expected, "default view must follow see_through_walls"
    assert env.see_through_walls == mg.see_through_walls, "frames must follow see_through_walls"


MissionFn = Callable[[Any], Any]


_FIXED_MISSIONS = {text: template for template, text in missions._FIXED.items()}


def fixed_mission(mg: Any) -> np.ndarray:
    """The mission array of a family whose mission string never varies."""
    if mg.mission not in _FIXED_MISSIONS:
        raise AssertionError(f"no fixed template for {mg.mission!r}: pass mission_fn")
    return _encoded_template(_FIXED_MISSIONS[mg.mission])


@functools.cache
def _encoded_template(template: Any) -> np.ndarray:
    # Encoded once: eagerly, `missions.encode` dispatches a dozen primitives per call.
    return np.asarray(missions.encode(template), np.int32)


@functools.cache
def _default_key() -> np.ndarray:
    return np.asarray(jax.random.PRNGKey(0))


def state_from_minigrid(
    mg: Any,
    key: jax.Array | None = None,
    mission_fn: MissionFn | None = None,
    extra: Any = (),
) -> State:
    """The library's `horizax.grid.from_minigrid.state_from_minigrid`, stricter: by default
    the mission string must be a fixed template (families with parameters pass
    ``mission_fn``), and the key is ``PRNGKey(0)``."""
    return from_minigrid.state_from_minigrid(
        mg, _default_key() if key is None else key, mission_fn or fixed_mission, extra
    )


@functools.cache
def _jitted_observation(env: Environment) -> Callable[[State], jax.Array]:
    return jax.jit(env.observation_fn)


@functools.cache
def zero_extra(env: Environment) -> Any:
    """Zeros in the structure of ``env``'s `State.extra` (what its layouts return)."""
    shapes = jax.eval_shape(env.layout_fn, jax.random.PRNGKey(0)).extra
    return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)


def timestep_from_minigrid(
    env: Environment, mg: Any, key: jax.Array | None = None, mission_fn: MissionFn | None = None
) -> Timestep:
    """A first `Timestep` of ``env`` holding MiniGrid's current state (the family's private
    state zeroed, in the structure its layouts produce)."""
    state = state_from_minigrid(mg, key, mission_fn, zero_extra(env))
    return first_timestep(state, _jitted_observation(env)(state))


def first_timestep(state: State, observation: Any) -> Timestep:
    """The `Timestep` that starts an episode at ``state`` (no action yet, reward 0)."""
    return Timestep(
        observation=observation,
        action=jnp.int32(-1),
        reward=jnp.float32(0.0),
        step_type=jnp.int32(0),
        state=state,
        info={},
    )


def assert_same_state(env: Environment, ts: Timestep, mg: Any, where: str) -> None:
    """Asserts that horizax's timestep shows exactly MiniGrid's state."""
    state = ts.state
    np.testing.assert_array_equal(
        np.asarray(state.agent_pos), np.asarray(mg.agent_pos), err_msg=f"agent_pos {where}"
    )
    assert int(state.agent_dir) == int(mg.agent_dir), f"agent_dir {where}"
    np.testing.assert_array_equal(
        np.asarray(state.grid), grid_encoding(mg), err_msg=f"grid {where}"
    )
    np.testing.assert_array_equal(
        np.asarray(state.carrying), carried_encoding(mg), err_msg=f"carrying {where}"
    )
    assert int(state.step_count) == int(mg.step_count), f"step_count {where}"
    assert missions.mission_text(state) == mg.mission, f"mission {where}"


@functools.lru_cache(maxsize=8)
def _jitted_step(env: Environment) -> Callable[[Timestep, jax.Array], Timestep]:
    # One per environment: `jax.jit(env.step)` of a fresh bound method compiled the step
    # again on every call, once per episode of the lockstep tests (52 times in
    # test_crossing.py alone).
    return jax.jit(env.step)


def lockstep(
    env: Environment,
    mg: Any,
    actions: np.ndarray,
    *,
    sync: Callable[[Timestep, Any], Timestep] | None = None,
    view_fn: Callable[[State], jax.Array] | None = None,
    mission_fn: MissionFn | None = None,
) -> dict[str, int]:
    """Drives horizax and MiniGrid with the same actions and compares every step.

    Autoreset is off on the horizax side; when MiniGrid's episode ends both are reset from a
    fresh MiniGrid layout copied across. Returns counts of what happened (for coverage asserts).

    Args:
        env: the horizax environment (its observation_fn is what gets compared with MiniGrid's
            ``image`` unless ``view_fn`` is given).
        mg: the unwrapped MiniGrid env, already reset.
        actions: i32[N] action sequence.
        sync: optional hook ``(timestep, mg) -> timestep`` applied after each step to copy
            MiniGrid-side randomness (e.g. obstacle moves) into horizax before comparing.
        view_fn: the horizax function whose output must equal MiniGrid's ``obs["image"]``.
        mission_fn: see `state_from_minigrid`.
    """
    env = env.disable_autoreset()
    view_fn = view_fn or env.observation_fn
    step = _jitted_step(env)
    view = jax.jit(view_fn)
    ts = timestep_from_minigrid(env, mg, mission_fn=mission_fn)
    counts = {"steps": 0, "episodes": 0, "terminated": 0, "truncated": 0, "reward_nonzero": 0}
    np.testing.assert_array_equal(np.asarray(view(ts.state)), mg.gen_obs()["image"])
    for n, action in enumerate(np.asarray(actions)):
        where = f"at step {n} (action {int(action)}, episode {counts['episodes']})"
        obs, reward, terminated, truncated, _ = mg.step(int(action))
        ts = step(ts, np.int32(action))  # a numpy scalar: no eager JAX op per step
        if sync is not None:
            ts = sync(ts, mg)
        assert_same_state(env, ts, mg, where)
        np.testing.assert_array_equal(
            np.asarray(view(ts.state)), obs["image"], err_msg=f"image {where}"
        )
        # Exact: horizax's float32 reward is MiniGrid's float64 reward correctly rounded.
        assert np.float32(ts.reward) == np.float32(reward), (
            f"reward {where}: {float(ts.reward)!r} != float32({reward!r})"
        )
        assert bool(ts.is_termination()) == bool(terminated), f"terminated {where}"
        assert bool(ts.is_truncation()) == (bool(truncated) and not bool(terminated)), (
            f"truncated {where}"
        )
        counts["steps"] += 1
        counts["reward_nonzero"] += int(reward != 0)
        if terminated or truncated:
            counts["episodes"] += 1
            counts["terminated"] += int(terminated)
            counts["truncated"] += int(truncated and not terminated)
            mg.reset(seed=int(n))
            ts = timestep_from_minigrid(env, mg, mission_fn=mission_fn)
    return counts


def random_actions(
    seed: int, n: int, num_actions: int = 7, forward_bias: float = 0.0
) -> np.ndarray:
    """i32[n] uniform actions; ``forward_bias`` extra probability of ``forward`` to explore."""
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, num_actions, size=n)
    forward = rng.random(n) < forward_bias
    return np.where(forward, C.FORWARD, actions).astype(np.int32)
