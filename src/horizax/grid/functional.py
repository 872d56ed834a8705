"""`GridFunctional`: a gridworld behind the core protocol (`horizax.core.protocol`).

The view is an `Environment`'s stages (its state is the gridworld's `State`; the episode
engine decides when to reset), observed as MiniGrid's user-facing dict, so every adapter
shows what MiniGrid users expect without knowing the gridworld: ``image`` (the environment's
``observation_fn``), ``direction`` (`Discrete` 4) and ``mission`` (a core `Text` space:
i32[10] inside `jit`, MiniGrid's string once an adapter decodes it).

`Environment.as_functional` builds it, so this module names the environment class nowhere:
it checks what it wraps by the stages it reads, which keeps the import graph one way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from jax import Array

from horizax.core.protocol import Step
from horizax.core.spaces import Box, Dict, Discrete, check_action
from horizax.core.staged import staged_reset, staged_step
from horizax.grid.from_minigrid import MiniGridLayouts
from horizax.grid.minigrid_view import MiniGridObjectModel
from horizax.grid.missions import mission_space
from horizax.grid.state import State


def _is_gridworld(env: Any) -> bool:
    """Whether ``env`` has a gridworld `Environment`'s layout function and the members the
    view reads (a Maze or an orbital game has stages too, but no layout and no mission).
    Members are looked up on the class: reading ``mission_size`` would trace the layout."""
    members = ("mission_size", "initial_state", "transition", "observe", "disable_autoreset")
    kind = type(env)
    return callable(getattr(env, "layout_fn", None)) and all(hasattr(kind, m) for m in members)


@dataclasses.dataclass(frozen=True)
class GridFunctional:
    """A gridworld `Environment` as a `horizax.core.protocol.FunctionalEnv` (and a
    `horizax.core.episode.StagedEnv`, so the engine observes once per step).

    Attributes:
        env: the wrapped environment; its ``autoreset`` setting is ignored (the engine's
            autoreset mode decides).
    """

    env: Any  # an `Environment`; `Any` as this module does not import it (module doc)

    def __post_init__(self) -> None:
        if not _is_gridworld(self.env):
            raise TypeError(f"GridFunctional wraps a grid Environment, got {type(self.env)!r}")
        if self.env.autoreset:
            object.__setattr__(self, "env", self.env.disable_autoreset())

    @property
    def observation_space(self) -> Dict:
        """MiniGrid's dict: ``image`` (u8 images as MiniGrid declares them, ``Box(0, 255)``;
        other dtypes the environment's own space), ``direction`` `Discrete` (4) and
        ``mission`` (`horizax.grid.missions.mission_space`: i32[10], or a BabyAI level's
        i32[72] word ids)."""
        image = self.env.observation_space
        if np.dtype(image.dtype) == np.uint8:
            image = Box(0, 255, image.shape, np.uint8)
        mission = mission_space(self.env.mission_size)
        return Dict({"image": image, "direction": Discrete(4), "mission": mission})

    @property
    def action_space(self) -> Discrete:
        """`Discrete(num_actions)`."""
        return self.env.action_space

    @property
    def max_steps(self) -> int:
        """The time limit (the longest, where each episode has its own)."""
        return self.env.max_steps

    @property
    def episode_max_steps(self) -> Callable[[State], Array] | None:
        """The environment's per-episode time limit, or None (`Environment`)."""
        return self.env.episode_max_steps

    @property
    def env_id(self) -> str:
        """The registered id ("" if built by hand)."""
        return self.env.env_id

    @property
    def autoreset_rounds(self) -> bool:
        """Whether the engine draws new layouts in rounds under `vmap` (the environment's)."""
        return self.env.autoreset_rounds

    @property
    def above_range_action(self) -> int | None:
        """What a Discrete adapter takes for an action ``>= num_actions`` (the environment's
        ``invalid_action``: Dynamic-Obstacles' ``left``, as MiniGrid), or None: an error."""
        return self.env.invalid_action

    def object_model(self) -> MiniGridObjectModel:
        """MiniGrid's object model of this gridworld's states (`horizax.grid.minigrid_view`),
        which the Gymnasium adapter shows as env attributes (``grid``, ``agent_pos``, ...)."""
        return MiniGridObjectModel(self.env)

    def reference_layouts(self) -> MiniGridLayouts:
        """MiniGrid's layouts copied into this gridworld's states (`horizax.grid.from_minigrid`),
        for the Gymnasium adapter's ``layouts="minigrid"``.

        Raises:
            ValueError: a BabyAI level (not covered) or an environment without an id.
        """
        return MiniGridLayouts(self.env)

    def initial_state(self, key: Array) -> State:
        """The first `State` of the episode drawn from ``key``."""
        return self.env.initial_state(key)

    def transition(
        self, key: Array, state: State, action: Array
    ) -> tuple[State, Array, Array, Array]:
        """The environment's transition (``key`` unused: the randomness lives in ``state``)."""
        return self.env.transition(key, state, check_action(action, self.env.num_actions))

    def observe(self, state: State) -> tuple[dict[str, Array], dict[str, Any]]:
        """MiniGrid's dict observation of ``state`` and an empty info."""
        image, _ = self.env.observe(state)  # the fixed grid read as the step reads it
        return {"image": image, "direction": state.agent_dir, "mission": state.mission}, {}

    def reset(self, key: Array) -> tuple[State, Step]:
        """First `State` of an episode drawn from ``key`` and its `Step`."""
        return staged_reset(self, key)

    def step(self, key: Array, state: State, action: Array) -> tuple[State, Step]:
        """One step of the episode in ``state`` (no autoreset: the engine decides)."""
        return staged_step(self, key, state, action)

    def render(self, state: State, tile_size: int = 32, highlight: bool = True) -> np.ndarray:
        """u8[H*T, W*T, 3]: MiniGrid's ``render()`` frame of one unbatched `State`
        (`Environment.render`)."""
        return self.env.render(state, tile_size, highlight)

    def replace(self, **changes: Any) -> GridFunctional:
        """A view of the environment with some configuration changed."""
        return GridFunctional(self.env.replace(**changes))
