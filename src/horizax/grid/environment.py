"""`Environment`: reset, step and autoreset shared by every gridworld family (`Timestep`s out).

A family only supplies a layout function ``key -> State``; the step rule, observations,
rewards, terminations and the time limit are wired here once.

Episode boundary: ``step_type`` is TERMINATION when ``termination_fn`` fires, TRUNCATION when
``t >= max_steps`` (and it did not), TRANSITION otherwise. With autoreset on (the default),
stepping a timestep that ended an episode ignores the action and returns the first timestep
of a new episode, so the last observation of every episode is seen once, in the timestep that
ended it. That is the episode engine's NEXT_STEP (`horizax.core.episode.staged_next_step`),
which `Environment.step` calls with the environment's stages (`initial_state`,
`transition`, `observe`): the rule, key schedule and sparse batched reset of every adapter.
Keys (`horizax.core.episode_keys`): the episode's key is the key the layout was drawn from
and stays in ``state.key``; the next episode's key is the next stream of it.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import episode as engine
from horizax.core import episode_keys, sparse_reset
from horizax.core.checks import check_key, check_unbatched, int_in_range
from horizax.core.spaces import Box, Discrete, check_action
from horizax.core.staged import staged_step
from horizax.core.step_type import StepType, check_truncation
from horizax.grid import constants as C
from horizax.grid import observations, rewards, terminations
from horizax.grid.actions import apply_action, can_edit
from horizax.grid.layout_facts import key_independent_fields
from horizax.grid.render import render_image
from horizax.grid.state import State
from horizax.grid.timestep import Timestep

if TYPE_CHECKING:
    from horizax.grid.functional import GridFunctional

LayoutFn = Callable[[Array], State]
StepFn = Callable[[State, Array, State], Array]
DynamicsFn = Callable[[State, Array, Array], State]


@dataclasses.dataclass(frozen=True)
class Environment:
    """A MiniGrid-style gridworld: immutable configuration plus pure `reset`/`step`.

    Build one with `Environment.create` or `horizax.make`. Every family shares:

    * observation: ``observation_fn(state)``; MiniGrid ids default to
      `observations.symbolic_first_person` (u8[7, 7, 3]).
    * action: i32[] in ``[0, num_actions)`` (MiniGrid's left, right, forward, pickup, drop,
      toggle, done; Dynamic-Obstacles has the first 3). Inside `jit` an out-of-range action
      cannot raise: it changes nothing but the step count, except where ``invalid_action``
      is set (Dynamic-Obstacles maps it to ``left``, as MiniGrid does). Concrete out-of-range
      values raise `ValueError`.
    * reward: f32[] from ``reward_fn(prev_state, action, state)``.
    * termination: ``termination_fn(prev_state, action, state)`` -> bool[].
    * truncation: ``t >= max_steps``, or the episode's own limit where ``episode_max_steps``
      is set.

    Attributes:
        width, height: grid size in cells (walls included).
        max_steps: time limit (>= 1).
        layout_fn: ``key -> State``, the family's layout generator.
        observation_fn, reward_fn, termination_fn: see above.
        dynamics_fn: optional ``(state, action, key) -> state`` applied before the agent acts
            (e.g. moving obstacles).
        post_action_fn: optional ``(prev_state, action, state) -> state`` applied after the
            agent acts and before rewards and terminations read the state: a family's own
            record of the step in ``State.extra`` (BabyAI's instruction verifier keeps its
            progress and the step's verdict there, `horizax.grid.babyai.level`). It sees the
            action rewards see.
        num_actions: size of the action space.
        invalid_action: action taken in place of an out-of-range one inside `jit` (None: no-op).
        action_map: optional remapping applied to every valid action before the step, one entry
            per action (MiniGrid's Memory turns ``pickup`` into ``toggle``); rewards and
            terminations see the remapped action.
        autoreset: step a finished timestep into a fresh episode (default True).
        autoreset_rounds: under `vmap`, autoreset draws layouts only for the environments that
            finished, in rounds (`horizax.core.sparse_reset.reset_where`; default True). False
            draws a layout for every environment at every step and selects: faster to
            compile, and as fast to run only where the layout is a few elementwise
            operations (Memory). The states are the same either way.
        observation_space_override: a space to report instead of the one derived from
            ``observation_fn`` (`observations.observation_space`: any function works, its
            bounds declared with `horizax.core.spaces.with_bounds` or its dtype's range).
        see_through_walls: MiniGrid's flag: the agent sees its whole view area. Frames
            (`render`, and an RGB ``observation_fn`` left to follow it, which is bound to it
            here) highlight accordingly; set by the families whose MiniGrid envs set it.
        episode_max_steps: optional ``state -> i32[]``, the time limit of the episode that
            starts in ``state``, for levels whose limit depends on what the layout drew
            (BabyAI's grammar levels: MiniGrid recomputes it from the instruction at every
            reset). ``max_steps`` is then the largest limit, which spaces and adapters report;
            each episode truncates at its own, carried in ``State.max_steps``. Overriding
            ``max_steps`` (`horizax.make`, `replace`) drops it: the override fixes every
            episode's limit, as MiniGrid's ``max_steps=`` argument does.
        layout_objects: the object kinds (`constants` indices: ``C.WALL``, ``C.GOAL``, ...)
            that ``layout_fn`` and ``dynamics_fn`` may put on the grid, the agent starting
            empty-handed; None (the default) for any, and any hands. Where no action can
            change any of them (`actions.can_edit`: Empty, FourRooms, the lava and crossing
            families and DistShift hold only walls, lava and the goal), the step skips the
            writes of pickup, drop and toggle. The episodes are the same; one Empty-8x8
            environment steps about 30% faster. If, besides, every key draws the same grid,
            the step reads the grid from the layout (`fixed_grid`). Replacing ``layout_fn``
            resets it to None unless it is given too.
        env_id: the registered id this was built from ("" if none).
    """

    width: int
    height: int
    max_steps: int
    layout_fn: LayoutFn
    observation_fn: Callable[[State], Array] = observations.symbolic_first_person
    reward_fn: StepFn = rewards.on_goal_reached_discounted
    termination_fn: StepFn = terminations.DEFAULT_TERMINATION
    dynamics_fn: DynamicsFn | None = None
    post_action_fn: Callable[[State, Array, State], State] | None = None
    num_actions: int = C.NUM_ACTIONS
    invalid_action: int | None = None
    action_map: tuple[int, ...] | None = None
    autoreset: bool = True
    autoreset_rounds: bool = True
    observation_space_override: Box | None = None
    see_through_walls: bool = False
    episode_max_steps: Callable[[State], Array] | None = None
    layout_objects: frozenset[int] | None = None
    env_id: str = ""

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 3:
                raise ValueError(f"{name} must be an int >= 3, got {value!r}")
        object.__setattr__(self, "max_steps", int_in_range(self.max_steps, "max_steps"))
        for name in ("autoreset", "autoreset_rounds", "see_through_walls"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not 1 <= self.num_actions <= C.NUM_ACTIONS:
            raise ValueError(f"num_actions must be in [1, 7], got {self.num_actions}")
        if self.action_map is not None and (
            len(self.action_map) != self.num_actions
            or not all(0 <= a < C.NUM_ACTIONS for a in self.action_map)
        ):
            raise ValueError(
                f"action_map must give one action in [0, 7) per action, got {self.action_map}"
            )
        for name in ("layout_fn", "observation_fn", "reward_fn", "termination_fn"):
            if not callable(getattr(self, name)):
                raise ValueError(f"{name} must be callable, got {getattr(self, name)!r}")
        if self.episode_max_steps is not None and not callable(self.episode_max_steps):
            raise ValueError(
                f"episode_max_steps must be callable or None, got {self.episode_max_steps!r}"
            )
        if self.layout_objects is not None:
            kinds = self.layout_objects
            if isinstance(kinds, str | bytes) or not all(
                isinstance(k, int | np.integer) and 0 <= k < C.NUM_OBJECTS for k in kinds
            ):
                raise ValueError(
                    f"layout_objects must be object kinds in [0, {C.NUM_OBJECTS}) or None, "
                    f"got {kinds!r}"
                )
            object.__setattr__(self, "layout_objects", frozenset(int(k) for k in kinds))
        if self.post_action_fn is not None and not callable(self.post_action_fn):
            raise ValueError(f"post_action_fn must be callable, got {self.post_action_fn!r}")
        if isinstance(self.observation_fn, observations.RGBObservation):
            # An RGB observation left to follow the environment sees what this one's agent sees.
            bound = self.observation_fn.bound_to(self.see_through_walls)
            object.__setattr__(self, "observation_fn", bound)

    @classmethod
    def create(cls, **kwargs: Any) -> Environment:
        """Builds an environment; unknown keyword arguments raise `TypeError`."""
        return cls(**kwargs)

    def replace(self, **changes: Any) -> Environment:
        """A copy with some configuration changed (validated again). A new ``max_steps``
        fixes every episode's limit (``episode_max_steps`` is dropped unless also given); a
        new ``layout_fn`` may place any object (``layout_objects`` is dropped likewise)."""
        if "max_steps" in changes:
            changes.setdefault("episode_max_steps", None)
        if "layout_fn" in changes:  # a new layout may place anything
            changes.setdefault("layout_objects", None)
        return dataclasses.replace(self, **changes)

    def disable_autoreset(self) -> Environment:
        """A copy whose `step` keeps applying actions after an episode ends."""
        return self.replace(autoreset=False)

    def as_functional(self) -> GridFunctional:
        """This environment behind the core protocol (`horizax.grid.functional.GridFunctional`)."""
        from horizax.grid.functional import GridFunctional  # it imports nothing of this module

        return GridFunctional(self)

    @property
    def action_space(self) -> Discrete:
        """`Discrete(num_actions)`."""
        return Discrete(self.num_actions)

    @functools.cached_property
    def agent_edits_grid(self) -> bool:
        """Whether pickup, drop or toggle can ever change a cell or the hands here
        (`actions.can_edit` of ``layout_objects`` and the actions a step may apply)."""
        applied = set(self.action_map or range(self.num_actions))
        applied.add(C.DONE if self.invalid_action is None else self.invalid_action)
        return can_edit(self.layout_objects, frozenset(applied))

    @functools.cached_property
    def fixed_grid(self) -> bool:
        """Whether the grid is configuration rather than state: every key draws the same grid
        (`horizax.grid.layout_facts`, read off ``layout_fn`` without running it) and nothing
        edits it (``layout_objects`` declared and no action can change them, no
        ``dynamics_fn``, no ``post_action_fn``): Empty-8x8, Empty-Random-6x6, DistShift.

        The step then reads the grid from ``layout_fn`` instead of from the state
        (`transition`, `observe`), so a compiled step holds it as a constant and never
        reads the carried one (one Empty-8x8 environment steps 1.3-1.6x as fast). A state
        whose grid was edited by hand is stepped as if it held the layout's grid: declare
        no ``layout_objects`` to step such states.
        """
        edited = self.agent_edits_grid or self.dynamics_fn is not None
        if edited or self.post_action_fn is not None:
            return False
        return "grid" in key_independent_fields(self.layout_fn)

    def _with_layout_grid(self, state: State) -> State:
        """``state`` holding the layout's grid where it is fixed (`fixed_grid`)."""
        if not self.fixed_grid:
            return state
        # Every key draws this grid: a constant key keeps it out of any vmapped batch.
        return state.replace(grid=self.layout_fn(jnp.zeros(2, jnp.uint32)).grid)

    @functools.cached_property
    def mission_size(self) -> int:
        """The length of ``State.mission``: `missions.MISSION_SIZE`, or a BabyAI level's
        `horizax.grid.mission_tokens.MISSION_LENGTH` word ids (read from the layout's
        shapes once, nothing run)."""
        # An abstract key: a concrete one would start JAX's backend, which forked
        # vector-env workers then could not use.
        key = jax.ShapeDtypeStruct((2,), jnp.uint32)
        return int(jax.eval_shape(self._layout, key).mission.shape[-1])

    @functools.cached_property
    def _layout(self) -> LayoutFn:
        """``layout_fn`` under `jax.jit`, so that one program's reset and autoreset (and
        `mission_size`) trace the layout once between them rather than once each: a BabyAI
        level's trace takes seconds. XLA inlines the call: the compiled program is the same.
        A callable `jax.jit` cannot hold (no weak reference) is traced at each use."""
        try:
            weakref.ref(self.layout_fn)
        except TypeError:
            return self.layout_fn
        return sparse_reset.shared_jit(self.layout_fn)

    @property
    def observation_space(self) -> Box:
        """The `Box` every observation lies in."""
        if self.observation_space_override is not None:
            return self.observation_space_override
        return observations.observation_space(self.observation_fn, self.width, self.height)

    # --- the stages the episode engine drives (`horizax.core.episode.StagedEnv`) ---------------

    def initial_state(self, key: Array) -> State:
        """The first `State` of the episode drawn from ``key`` (the layout, step count 0).

        Raises:
            TypeError, ValueError: if ``key`` is not one PRNG key (`checks.check_key`).
        """
        check_key(key)
        state = self._layout(key)
        limit = jnp.int32(self.max_steps)
        if self.episode_max_steps is not None:
            limit = jnp.asarray(self.episode_max_steps(state), jnp.int32)
        return state.replace(key=key, step_count=jnp.int32(0), max_steps=limit)

    def transition(
        self, key: Array | None, state: State, action: Array
    ) -> tuple[State, Array, Array, Array]:
        """``(state, reward, terminated, truncated)`` after ``action``; nothing observed.

        ``key`` is unused: the gridworld's randomness lives in its state.
        """
        del key
        state = self._with_layout_grid(state)
        prev_state = state
        valid = (action >= 0) & (action < self.num_actions)
        fallback = C.DONE if self.invalid_action is None else self.invalid_action
        if self.action_map is not None:
            # Selects for the entries that change an action (elementwise, fused with their
            # users) rather than a table lookup (a gather kernel of its own under `vmap`).
            mapped = action
            for original, target in enumerate(self.action_map):
                if original != target:
                    mapped = jnp.where(action == original, target, mapped)
            action = mapped
        effective = jnp.where(valid, action, fallback).astype(jnp.int32)
        # What rewards and terminations see: without an `invalid_action`, an out-of-range
        # action is no action at all (-1, as a reset's), not the `done` it is applied as, so
        # the rules that `done` triggers (GoTo*'s termination) stay silent.
        seen = effective if self.invalid_action is not None else jnp.where(valid, action, -1)
        seen = seen.astype(jnp.int32)
        state = prev_state
        if self.dynamics_fn is not None:
            # The episode key stays fixed (it seeds the next episode); per-step randomness is
            # derived from it and the step count, so steps without dynamics hash nothing.
            dynamics_key = jax.random.fold_in(
                episode_keys.dynamics_key(prev_state.key), prev_state.step_count
            )
            state = self.dynamics_fn(state, effective, dynamics_key)
        state = apply_action(state, effective, edits=self.agent_edits_grid)
        # The limit is configuration: a constant here lets XLA fold it into the rewards that
        # read it, whatever the batched reset did to the carried field. Only a per-episode
        # limit is carried.
        limit = jnp.int32(self.max_steps)
        if self.episode_max_steps is not None:
            limit = prev_state.max_steps
        state = state.replace(step_count=prev_state.step_count + 1, max_steps=limit)
        if self.post_action_fn is not None:
            state = self.post_action_fn(prev_state, seen, state)
        terminated = jnp.asarray(self.termination_fn(prev_state, seen, state), jnp.bool_)
        truncated = (state.step_count >= limit) & ~terminated
        reward = jnp.asarray(self.reward_fn(prev_state, seen, state), jnp.float32)
        return state, reward, terminated, truncated

    def observe(self, state: State) -> tuple[Array, dict[str, Any]]:
        """``(observation_fn(state), {})``."""
        return self.observation_fn(self._with_layout_grid(state)), {}

    # --- the documented Timestep API -------------------------------------------------------

    def reset(self, key: Array) -> Timestep:
        """First timestep of an episode drawn from ``key``.

        Under `jax.vmap` with autoreset on, a batch of up to 64 environments draws its
        layouts in chunks of the autoreset rounds' size (`horizax.core.sparse_reset.draw`),
        so a program that resets the batch and steps it compiles the layout once, not
        twice; the timesteps are ``vmap``'s, key for key.

        Args:
            key: a PRNG key (``jax.random.PRNGKey`` or ``jax.random.key``).
        """
        rounds = self.autoreset and self.autoreset_rounds
        state = sparse_reset.draw(self.initial_state, key, rounds=rounds)
        return Timestep(
            observation=self.observation_fn(state),
            action=jnp.int32(-1),
            reward=jnp.float32(0.0),
            step_type=jnp.int32(StepType.TRANSITION),
            state=state,
            info={},
        )

    def step(self, timestep: Timestep, action: Array) -> Timestep:
        """Advances one step (or starts a new episode after a finished one, see module doc).

        With autoreset on this is the episode engine's NEXT_STEP
        (`horizax.core.episode.staged_next_step`): the same rule, key schedule and sparse
        batched reset every adapter uses.

        Args:
            timestep: the current timestep.
            action: i32[] in ``[0, num_actions)``.

        Returns:
            The next `Timestep`.

        Raises:
            TypeError, ValueError: ``action`` is not an integer scalar, or a concrete value
                outside ``[0, num_actions)``; ``timestep`` holds a batch (use `jax.vmap`).
        """
        check_unbatched(timestep.state.step_count, "timestep")
        action = check_action(action, self.num_actions)
        if self.autoreset:
            done = timestep.is_done()
            state, step = engine.staged_next_step(
                self, done, timestep.state.key, timestep.state, action, timestep.state.key
            )
            action = jnp.where(done, jnp.int32(-1), action)
        else:
            state, step = staged_step(self, timestep.state.key, timestep.state, action)
        return Timestep(
            observation=step.observation,
            action=action,
            reward=step.reward,
            step_type=check_truncation(step.terminated, step.truncated),
            state=state,
            info=step.info,
        )

    def render(self, state: State, tile_size: int = 32, highlight: bool = True) -> np.ndarray:
        """u8[H*T, W*T, 3] numpy: MiniGrid's ``render()`` frame (``rgb_array``) of one
        unbatched state, ``get_frame(highlight, tile_size)`` pixel for pixel, with this
        environment's ``see_through_walls`` (`horizax.grid.render.render_grid`)."""
        return render_image(
            state, tile_size, highlight=highlight, see_through_walls=self.see_through_walls
        )

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickles a registry-made environment by id (its layout is a closure); see
        `horizax.core.pickling`."""
        from horizax.core.pickling import reduce_environment

        return reduce_environment(self)
