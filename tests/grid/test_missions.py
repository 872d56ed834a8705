"""Mission arrays and MiniGrid's mission strings."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.missions import Template


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        (dict(template=Template.NONE), ""),
        (dict(template=Template.GREEN_GOAL), "get to the green goal square"),
        (dict(template=Template.GO_TO_DOOR, color=C.PURPLE), "go to the purple door"),
        (dict(template=Template.GO_TO_OBJECT, color=C.GREY, kind=C.BOX), "go to the grey box"),
        (
            dict(template=Template.FETCH, color=C.RED, kind=C.KEY, variant=4),
            "you must fetch a red key",
        ),
        (
            dict(template=Template.PUT_NEAR, color=C.RED, kind=C.KEY, color2=C.BLUE, kind2=C.BALL),
            "put the red key near the blue ball",
        ),
        (dict(template=Template.PICK_UP, color=C.YELLOW, kind=C.BALL), "pick up the yellow ball"),
        (
            dict(template=Template.LOCKED_ROOM, color=C.GREEN, color2=C.BLUE),
            "get the green key from the blue room, unlock the green door and go to the goal",
        ),
        (dict(template=Template.MEMORY), "go to the matching object at the end of the hallway"),
    ],
)
def test_mission_text(kwargs, text):
    template = kwargs.pop("template")
    assert missions.mission_text(missions.encode(template, **kwargs)) == text


def test_encode_is_jittable_and_batches_render_as_lists():
    @jax.vmap
    def make(colour):
        return missions.encode(Template.GO_TO_DOOR, color=colour, kind=C.DOOR, pos=(colour, 1))

    batch = jax.jit(make)(jnp.arange(3))
    assert batch.shape == (3, missions.MISSION_SIZE) and batch.dtype == jnp.int32
    assert missions.mission_text(batch) == [f"go to the {c} door" for c in C.COLOR_NAMES[:3]]
    np.testing.assert_array_equal(batch[:, missions.X], [0, 1, 2])


def test_concrete_arguments_give_the_traced_mission():
    """Concrete values take a numpy path (one transfer): the same i32 array as the traced one,
    whatever mix of Python, numpy and JAX scalars, and a value beyond int32 still raises."""
    kwargs = dict(color=np.int64(3), kind=jnp.int32(C.KEY), color2=np.uint8(2), kind2=6)
    positions = dict(pos=(np.int64(7), 8), pos2=jnp.array([4, 5]))
    eager = missions.encode(Template.PUT_NEAR, variant=1, **kwargs, **positions)
    traced = jax.jit(lambda kw, ps: missions.encode(Template.PUT_NEAR, variant=1, **kw, **ps))(
        kwargs, positions
    )
    assert isinstance(eager, jax.Array) and eager.dtype == traced.dtype == jnp.int32
    np.testing.assert_array_equal(eager, traced)
    np.testing.assert_array_equal(eager, [Template.PUT_NEAR, 3, C.KEY, 2, 6, 1, 7, 8, 4, 5])
    with pytest.raises(OverflowError):
        missions.encode(Template.FETCH, color=2**40)


def test_mission_text_errors():
    with pytest.raises(ValueError, match="colour"):
        missions.mission_text(missions.encode(Template.GO_TO_DOOR, color=9))
    with pytest.raises(ValueError, match="shape"):
        missions.mission_text(jnp.zeros(4, jnp.int32))
    with pytest.raises(TypeError, match="outside jit"):
        jax.jit(lambda m: missions.mission_text(m) and m)(missions.encode(Template.NONE))
