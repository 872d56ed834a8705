"""The two worked examples of the "Customize termination" page, verbatim but for the import
line (``orbitalgym`` -> ``horizax.orbital``), then stepped to show they behave."""

from __future__ import annotations

import jax

EXAMPLE_A = """
import dataclasses
from dataclasses import dataclass

import jax.numpy as jnp

from horizax.orbital import OrbitalGymEnv, SingleAgentView, make_lady_bandit_guard
from horizax.orbital.termination.reference import MaxStepsOnly

# The framework already ships `MaxStepsOnly` (reads `params.max_steps`
# at call time, no stored field). Wire it onto the cfg to drop LBG's
# event-driven termination and keep only the step-cap.
cfg = make_lady_bandit_guard(seed=0, max_horizon_s=200.0)
cfg = dataclasses.replace(cfg, termination_fn=MaxStepsOnly())
"""

EXAMPLE_B = """
@dataclass(frozen=True)
class AndComposite:
    \"\"\"Episode ends only when BOTH conditions are met (rare; usually OR).\"\"\"

    first: object
    second: object

    def __call__(self, prev_state, state, params, t):
        return jnp.logical_and(
            self.first(prev_state, state, params, t),
            self.second(prev_state, state, params, t),
        )

cfg = dataclasses.replace(
    cfg,
    termination_fn=AndComposite(MaxStepsOnly(), MaxStepsOnly()),
)
env = OrbitalGymEnv(cfg)
"""


def _run_to_the_end(env, steps):
    state, _ = env.reset(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    zero = env.identity_actions()
    ends = []
    for _ in range(steps):
        out = step(jax.random.PRNGKey(1), state, zero)
        ends.append((bool(out.episode_done), bool(out.terminated), bool(out.truncated)))
        state = out.state
    return ends


def test_example_a_keeps_only_the_step_cap():
    scope: dict = {}
    exec(EXAMPLE_A, scope)
    cfg = scope["cfg"]
    assert cfg.max_steps == 20 and type(cfg.termination_fn).__name__ == "MaxStepsOnly"
    assert type(cfg.game).__name__ == "LadyBanditGuard"
    assert type(cfg.reward_fn).__name__ == "LbgZeroSumReward"
    ends = _run_to_the_end(scope["OrbitalGymEnv"](cfg), 20)
    assert ends[:19] == [(False, False, False)] * 19
    assert ends[19] == (True, False, True)  # the cap truncates


def test_example_b_and_composite_wires_and_runs():
    scope: dict = {}
    exec(EXAMPLE_A, scope)
    exec(EXAMPLE_B, scope)
    env = scope["env"]
    assert type(env.config.termination_fn).__name__ == "AndComposite"
    ends = _run_to_the_end(env, 21)
    assert ends[18] == (False, False, False)
    # A user callable has no terminal_events: ending at the cap is a truncation.
    assert ends[19] == (True, False, True) and ends[20] == (True, False, True)
