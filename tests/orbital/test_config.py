"""ScenarioConfig: derived step cap, validation before tracing, and game defaults."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import pytest

from horizax.orbital.config import VehicleParamsSpec
from horizax.orbital.games.base import Game, NoGame
from horizax.orbital.reference_orbit import ReferenceOrbitState
from horizax.orbital.registry import StateComponentKey as K
from horizax.orbital.rewards.reference import ZeroReward
from horizax.orbital.sampling import ICSpec, RelativeEllipse
from horizax.orbital.termination.reference import MaxStepsOnly
from tests.orbital.helpers import plain_config


@dataclasses.dataclass(frozen=True)
class _OtherTermination:
    def __call__(self, prev_state, state, params, t):
        return state.step >= 3


@dataclasses.dataclass(frozen=True)
class _OtherReward:
    def __call__(self, prev_state, actions, next_state, side, cfg, t):
        return jnp.ones(())


@dataclasses.dataclass(frozen=True)
class _GameA(Game):
    def default_termination_fn(self):
        return _OtherTermination()

    def default_reward_fn(self):
        return _OtherReward()


def test_max_steps_is_the_ceiling_of_horizon_over_dt():
    assert plain_config(max_horizon_s=200.0).max_steps == 20
    assert plain_config(max_horizon_s=205.0).max_steps == 21
    assert plain_config(dt=10.0, max_horizon_s=10.0).max_steps == 1


def test_defaults_are_filled_from_nogame():
    cfg = plain_config()
    assert isinstance(cfg.game, NoGame)
    assert cfg.termination_fn == MaxStepsOnly()
    assert cfg.reward_fn == ZeroReward()
    assert cfg.controlled_side == "guard"


def test_termination_by_constructor_and_by_replace():
    by_kwarg = plain_config(game=_GameA(), termination_fn=MaxStepsOnly())
    assert by_kwarg.termination_fn == MaxStepsOnly()
    assert by_kwarg.reward_fn == _OtherReward()  # still the game's
    by_replace = dataclasses.replace(plain_config(game=_GameA()), termination_fn=MaxStepsOnly())
    assert by_replace.termination_fn == MaxStepsOnly()
    assert isinstance(by_replace.game, _GameA) and by_replace.reward_fn == _OtherReward()


def test_replacing_the_game_refreshes_the_defaults_it_filled():
    """The deliberate fix: orbitalgym keeps the old game's reward and termination here."""
    cfg = plain_config()  # NoGame defaults
    switched = dataclasses.replace(cfg, game=_GameA())
    assert switched.termination_fn == _OtherTermination()
    assert switched.reward_fn == _OtherReward()
    back = dataclasses.replace(switched, game=NoGame())
    assert back.termination_fn == MaxStepsOnly() and back.reward_fn == ZeroReward()


def test_replacing_the_game_keeps_what_the_user_chose():
    mine = _OtherTermination()
    cfg = plain_config(termination_fn=mine)
    switched = dataclasses.replace(cfg, game=_GameA())
    assert switched.termination_fn is mine
    assert switched.reward_fn == _OtherReward()  # the reward was a filled default
    chosen_later = dataclasses.replace(plain_config(), termination_fn=mine)
    assert dataclasses.replace(chosen_later, game=_GameA()).termination_fn is mine


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"dt": 0.0}, "dt"),
        ({"dt": -1.0}, "dt"),
        ({"dt": float("nan")}, "dt"),
        ({"max_horizon_s": 5.0}, "max_horizon_s"),
        ({"n_guards": 0}, "n_guards"),
        ({"n_bandits": 0}, "n_bandits"),
        ({"n_guards": 1.5}, "n_guards"),
        ({"truth_dynamics": "j2_eci"}, "truth_dynamics"),
        ({"controlled_side": "lady"}, "controlled_side"),
        ({"guard_components": (K.MASS,)}, "guard_components"),
        ({"action_frame": "rt"}, "action_frame"),
        ({"game": "lbg"}, "game"),
        ({"termination_fn": 3}, "termination_fn"),
        (
            {
                "reference_orbit": ReferenceOrbitState(
                    jnp.array([7000e3, 0.0, 0.0]), jnp.array([0.0, 20e3, 0.0])
                )
            },
            "reference_orbit",
        ),
    ],
)
def test_invalid_values_raise_naming_the_field(overrides, field):
    with pytest.raises(ValueError, match=field):
        plain_config(**overrides)


def test_mass_without_a_mass_sampler_is_rejected():
    spec = ICSpec(RelativeEllipse(radial_ellipse_m=1.0), RelativeEllipse(radial_ellipse_m=1.0))
    with pytest.raises(ValueError, match="mass_sampler"):
        plain_config(ic_sampler=spec)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((0.0, 220.0, 5.0), "dry_mass_kg"),
        ((-1.0, 220.0, 5.0), "dry_mass_kg"),
        ((100.0, 0.0, 5.0), "isp_s"),
        ((100.0, 220.0, -5.0), "max_thrust_n"),
        ((100.0, 220.0, float("inf")), "max_thrust_n"),
    ],
)
def test_vehicle_params_are_validated(args, field):
    with pytest.raises(ValueError, match=field):
        VehicleParamsSpec(*args)


def test_a_failing_game_validate_raises():
    @dataclasses.dataclass(frozen=True)
    class Picky(Game):
        def validate(self, cfg):
            raise ValueError("game: needs two guards")

    with pytest.raises(ValueError, match="two guards"):
        plain_config(game=Picky())
