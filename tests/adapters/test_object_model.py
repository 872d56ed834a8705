"""The Gymnasium adapter shows any family's object model and above-range rule, naming none.

A toy family (the corridor) offers the protocol's two optional members, ``object_model()``
and ``above_range_action``; the adapter must pick them up exactly as it does the gridworld's
(`horizax.grid.minigrid_view`), so a new family needs no branch in the adapter.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

pytest.importorskip("gymnasium")

from horizax.adapters import gymnasium as hg
from tests.adapters.corridor import Corridor


class Ruler:
    """A view object: a corridor drawn as text, with one settable option."""

    def __init__(self) -> None:
        self.position: int | None = None
        self.mark = "A"
        self.built_from: list[int] = []


class RulerModel:
    names = frozenset({"position", "mark", "picture"})
    settable = frozenset({"mark"})
    views_made = 0

    def __init__(self, length: int) -> None:
        self.length = length

    def new_view(self) -> Ruler:
        RulerModel.views_made += 1
        return Ruler()

    def update(self, view: Ruler, state: Any) -> Ruler:
        view.position = int(state.position)
        view.built_from.append(view.position)
        return view

    def read(self, view: Ruler, name: str) -> Any:
        if name == "picture":
            return "".join(view.mark if i == view.position else "." for i in range(self.length))
        return getattr(view, name)


@dataclasses.dataclass(frozen=True)
class CorridorWithModel(Corridor):
    above_range_action: int | None = 1  # any action >= 2 walks right

    def object_model(self) -> RulerModel:
        return RulerModel(self.length)


def test_object_model_attributes_follow_the_state():
    env = hg.GymnasiumEnv(CorridorWithModel())
    obs, _ = env.reset(seed=0)
    start = int(obs["position"][0])  # a scalar Box is (1,) in Gymnasium
    assert env.position == start
    assert env.picture == "".join("A" if i == start else "." for i in range(5))
    env.step(1)
    assert env.position == start + 1


def test_views_are_built_on_read_and_once_per_state():
    env = hg.GymnasiumEnv(CorridorWithModel())
    before = RulerModel.views_made
    env.reset(seed=0)
    env.step(1)
    assert RulerModel.views_made == before, "no view is built until an attribute is read"
    _ = env.position, env.picture, env.position
    assert RulerModel.views_made == before + 1
    assert len(env.object_view.built_from) == 1, "one update per state, however many reads"


def test_model_attributes_are_read_only_except_settable_options():
    env = hg.GymnasiumEnv(CorridorWithModel())
    env.reset(seed=0)
    with pytest.raises(AttributeError, match="read-only view of the horizax state"):
        env.position = 3
    env.mark = "B"
    env.step(1)
    assert "B" in env.picture and env.object_view.mark == "B"


def test_env_without_a_model_has_no_model_attributes():
    env = hg.GymnasiumEnv(Corridor())
    env.reset(seed=0)
    with pytest.raises(AttributeError, match="no attribute 'picture'"):
        _ = env.picture
    with pytest.raises(AttributeError, match="no object model"):
        _ = env.object_view
    env.position = 7  # not a model attribute: an ordinary attribute
    assert env.position == 7


def test_pickled_env_rebuilds_its_view_and_keeps_options():
    env = hg.GymnasiumEnv(CorridorWithModel())
    env.reset(seed=0)
    env.mark = "C"
    _ = env.picture
    clone = pickle.loads(pickle.dumps(env))
    assert clone.picture == env.picture and "C" in clone.picture


@pytest.mark.parametrize("make", [hg.GymnasiumEnv, lambda e: hg.GymnasiumVectorEnv(e, 2)])
def test_above_range_actions_take_the_family_rule(make):
    """Actions >= n become the family's ``above_range_action``; without one they raise."""
    import numpy as np

    env = make(CorridorWithModel())
    env.reset(seed=0)
    right = np.array(1 if isinstance(env, hg.GymnasiumEnv) else [1, 1])
    above = np.array(5 if isinstance(env, hg.GymnasiumEnv) else [5, 7])
    env.reset(seed=0)
    expected = env.step(right)[0]["position"]
    env.reset(seed=0)
    assert np.array_equal(env.step(above)[0]["position"], expected)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(-right)
    plain = make(Corridor())
    plain.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        plain.step(above)
