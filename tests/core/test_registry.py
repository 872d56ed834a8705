import pytest

import horizax
from horizax.grid import observations


def test_unknown_id_suggests_close_ids():
    with pytest.raises(ValueError, match=r"Did you mean: .*MiniGrid-Empty-8x8-v0"):
        horizax.make("MiniGrid-Empty-8x9-v0")


def test_unknown_id_without_close_match_still_explains():
    with pytest.raises(ValueError, match="unknown environment id"):
        horizax.make("zzzz")


def test_navix_alias_resolves_to_the_same_environment():
    env = horizax.make("Navix-Empty-8x8-v0")
    assert env.env_id == "MiniGrid-Empty-8x8-v0"
    assert "Navix-Empty-8x8-v0" in horizax.registered_ids(include_aliases=True)
    assert "Navix-Empty-8x8-v0" not in horizax.registered_ids()


def test_overrides_apply_and_unknown_overrides_are_named():
    env = horizax.make("MiniGrid-Empty-8x8-v0", max_steps=7, observation_fn=observations.symbolic)
    assert env.max_steps == 7
    assert env.observation_space.shape == (8, 8, 3)
    with pytest.raises(ValueError, match="max_step"):
        horizax.make("MiniGrid-Empty-8x8-v0", max_step=7)


def test_invalid_override_values_raise_at_construction():
    with pytest.raises(ValueError, match="max_steps"):
        horizax.make("MiniGrid-Empty-8x8-v0", max_steps=0)
    with pytest.raises(ValueError, match="observation_fn"):
        horizax.make("MiniGrid-Empty-8x8-v0", observation_fn=3)


def test_import_has_no_registration_side_effect():
    import subprocess
    import sys

    code = (
        "import horizax, horizax.core.registry as r;"
        "assert not r._REGISTRY and not r._DISCOVERED, 'import registered environments'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
