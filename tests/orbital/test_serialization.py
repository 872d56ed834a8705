"""ScenarioConfig.to_json / from_json: every bundled component round-trips by its key."""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest

from horizax.orbital import OrbitalGymEnv, make_game, make_lady_bandit_guard
from horizax.orbital.config import ScenarioConfig
from horizax.orbital.games.base import NoGame
from horizax.orbital.registry import GameKey
from horizax.orbital.rewards.base import RewardScope
from horizax.orbital.rewards.lbg_zero_sum import LbgZeroSumReward
from horizax.orbital.sampling import ICSpec, MaxRange, MinSeparation, RelativeEllipse, UniformMass
from horizax.orbital.sampling.validators import SeparationScope, SideSelector
from horizax.orbital.termination.max_distance import (
    AllOfTermination,
    AnyOfTermination,
    MaxDistanceTermination,
)
from horizax.orbital.termination.reference import MaxStepsOnly
from tests.orbital.helpers import plain_config


def _every_component() -> ScenarioConfig:
    spec = ICSpec(
        guard_sampler=RelativeEllipse(
            radial_ellipse_m=500.0, phase_rad=None, mass_sampler=UniformMass(1.0, 2.0)
        ),
        bandit_sampler=RelativeEllipse(radial_ellipse_m=900.0, cross_track_m=50.0),
        validators=(
            MinSeparation(100.0, SeparationScope.CROSS),
            MaxRange(5000.0, SideSelector.BANDITS),
        ),
        max_attempts=7,
    )
    termination = AnyOfTermination(
        (MaxStepsOnly(), AllOfTermination((MaxDistanceTermination(3000.0), MaxStepsOnly())))
    )
    return plain_config(ic_sampler=spec, termination_fn=termination, controlled_side="bandit")


CONFIGS = {
    "lady_bandit_guard": lambda: make_lady_bandit_guard(seed=0, catch_dwell_steps=2),
    "pursuit_evasion": lambda: make_game(GameKey.PURSUIT_EVASION),
    "get_off_my_lawn": lambda: make_game(GameKey.GET_OFF_MY_LAWN),
    "every_component": _every_component,
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_round_trip_is_exact_and_plays_the_same(name):
    cfg = CONFIGS[name]()
    text = cfg.to_json()
    back = ScenarioConfig.from_json(text)
    assert back.to_json() == text
    assert back.game == cfg.game and back.termination_fn == cfg.termination_fn
    assert (
        back.reward_fn == cfg.reward_fn and back.ic_sampler.validators == cfg.ic_sampler.validators
    )
    a, _ = OrbitalGymEnv(cfg).reset(jax.random.PRNGKey(4))
    b, _ = OrbitalGymEnv(back).reset(jax.random.PRNGKey(4))
    np.testing.assert_array_equal(np.asarray(a.bandits.rtn), np.asarray(b.bandits.rtn))


def test_an_explicitly_set_reward_keeps_its_scope_through_json():
    # A reward set by hand is written with its fields, `scope` (a RewardScope) among them.
    cfg = make_lady_bandit_guard(seed=0)
    cfg = dataclasses.replace(cfg, reward_fn=LbgZeroSumReward(shaping_gain=1.0))
    back = ScenarioConfig.from_json(cfg.to_json())
    assert back.reward_fn == cfg.reward_fn and back.reward_fn.scope is RewardScope.PER_SIDE


def test_filled_defaults_stay_defaults_after_a_round_trip():
    cfg = make_lady_bandit_guard(seed=0)
    back = ScenarioConfig.from_json(cfg.to_json())
    switched = dataclasses.replace(back, game=NoGame())
    assert switched.termination_fn == MaxStepsOnly()  # refreshed: it was the game's default
    chosen = ScenarioConfig.from_json(
        dataclasses.replace(cfg, termination_fn=MaxStepsOnly()).to_json()
    )
    assert isinstance(dataclasses.replace(chosen, game=NoGame()).termination_fn, MaxStepsOnly)
    assert type(chosen.game).__name__ == "LadyBanditGuard"


@dataclasses.dataclass(frozen=True)
class AndComposite:
    first: object
    second: object

    def __call__(self, prev_state, state, params, t):
        return self.first(prev_state, state, params, t) & self.second(prev_state, state, params, t)


def test_an_unregistered_callable_is_a_clear_error():
    cfg = dataclasses.replace(
        make_lady_bandit_guard(seed=0), termination_fn=AndComposite(MaxStepsOnly(), MaxStepsOnly())
    )
    with pytest.raises(ValueError, match=r"termination_fn.*AndComposite.*register"):
        cfg.to_json()


def test_foreign_json_is_rejected():
    with pytest.raises(ValueError, match="ScenarioConfig"):
        ScenarioConfig.from_json('{"n_guards": 1}')
