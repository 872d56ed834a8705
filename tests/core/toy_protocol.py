"""A tiny protocol environment for the autoreset and adapter tests.

Unlike the gridworld it has a Dict observation with a `Discrete` entry, a non-empty info,
rewards that depend on the step ``key`` and a goal drawn from the reset key, so tests can see
infos, key plumbing and both episode ends without compiling a gridworld.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from horizax.core.protocol import make_step
from horizax.core.spaces import Box, Dict, Discrete

WIDTH = 8


@dataclasses.dataclass(frozen=True)
class Walk:
    """Walk right (1), stay (0) or left (2) on a line until the goal; noisy rewards.

    observation: {"pos": i32[1] in [0, 7], "goal": i32[] in [0, 7]};
    info: {"dist": f32[] distance to the goal, "hit": bool[] the goal was reached};
    reward: 1 on the goal, else -0.01 plus noise in [0, 0.001) drawn from the step key.
    """

    max_steps: int = 6
    env_id: str = ""
    extra_step_info: bool = False  # a broken variant: step's info has a key reset's lacks

    @property
    def observation_space(self) -> Dict:
        return Dict({"pos": Box(0, WIDTH - 1, (1,), jnp.int32), "goal": Discrete(WIDTH)})

    @property
    def action_space(self) -> Discrete:
        return Discrete(3)

    def _step(self, state, reward, terminated, truncated, extra=False):
        obs = {"pos": state["pos"][None], "goal": state["goal"]}
        info = {
            "dist": jnp.abs(state["goal"] - state["pos"]).astype(jnp.float32),
            "hit": terminated,
        }
        if extra:
            info["extra"] = jnp.float32(1.0)
        return make_step(obs, reward, terminated, truncated, info)

    def reset(self, key):
        goal = jax.random.randint(key, (), 2, WIDTH).astype(jnp.int32)
        state = {"pos": jnp.int32(0), "goal": goal, "t": jnp.int32(0)}
        return state, self._step(state, 0.0, False, False)

    def step(self, key, state, action):
        move = jnp.where(action == 1, 1, jnp.where(action == 2, -1, 0))
        pos = jnp.clip(state["pos"] + move, 0, WIDTH - 1).astype(jnp.int32)
        t = state["t"] + 1
        state = {"pos": pos, "goal": state["goal"], "t": t}
        terminated = pos == state["goal"]
        noise = jax.random.uniform(key, (), jnp.float32, 0.0, 0.001)
        reward = jnp.where(terminated, 1.0, -0.01 + noise)
        return state, self._step(
            state, reward, terminated, t >= self.max_steps, self.extra_step_info
        )

    def render(self, state):
        frame = np.zeros((4, WIDTH, 3), np.uint8)
        frame[:, int(state["goal"]), 1] = 255
        frame[:, int(state["pos"]), 0] = 255
        return frame
