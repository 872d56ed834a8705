"""Layouts pinned key for key: the reset states of every registered id, and autoreset rollouts.

The hashes in ``layout_golden.json`` were taken from the code before layout sampling was
refactored; a refactor that changes no layout keeps them all. Regenerate them (only for a
deliberate, versioned layout change) with ``PYTHONPATH=src python -m tests.grid.layout_golden``.
Pin a newly registered id's layouts, every other hash kept, by adding ``--new``.
The rollout hashes of four ids were re-pinned once since, for rewards alone (states and step
types unchanged): the success reward became MiniGrid's value exactly rounded to float32.
"""

import json

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from tests.grid import layout_golden

pytestmark = pytest.mark.slow

GOLDEN = json.loads(layout_golden.DATA_FILE.read_text())


def _differing(kind: str, compute) -> list[str]:
    return [env_id for env_id, expected in GOLDEN[kind].items() if compute(env_id) != expected]


def test_golden_data_covers_every_registered_id():
    """A new id without a pinned layout would escape the check below."""
    assert GOLDEN["num_keys"] == layout_golden.NUM_KEYS
    assert sorted(GOLDEN["reset"]) == layout_golden.layout_ids()
    assert set(horizax.registered_ids()) - set(layout_golden.layout_ids()) == {
        "Orbital-GetOffMyLawn-v0",
        "Orbital-LadyBanditGuard-v0",
        "Orbital-ObservationBlocking-v0",
        "Orbital-PursuitEvasion-v0",
        "Orbital-SunBlocking-v0",
    }
    assert sorted(GOLDEN["rollout"]) == sorted(layout_golden.ROLLOUT_IDS)


@pytest.mark.parametrize("env_id", sorted(GOLDEN["reset"]))
def test_reset_layouts_are_unchanged_key_for_key(env_id):
    """Each id's vmapped reset over the golden keys gives the pinned states, bit for bit
    (one test per id, so the ids spread over the test workers)."""
    digest = layout_golden.digest(layout_golden.reset_states(env_id))
    assert digest == GOLDEN["reset"][env_id], f"reset states of {env_id} differ"


def _declared(env_id: str) -> frozenset[int] | None:
    return getattr(horizax.make(env_id), "layout_objects", None)


@pytest.mark.parametrize("env_id", [i for i in sorted(GOLDEN["reset"]) if _declared(i)])
def test_reset_layouts_hold_only_the_declared_objects(env_id):
    """An id that declares ``layout_objects`` may skip the writes of pickup, drop and toggle
    (`horizax.grid.actions.can_edit`); its golden resets must place nothing else on the
    grid (empty cells aside), and leave the agent's hands empty."""
    states = layout_golden.reset_states(env_id)
    placed = set(np.unique(states.grid[..., 0]))
    assert placed <= _declared(env_id) | {C.EMPTY}, f"{env_id} places {sorted(placed)}"
    assert (np.asarray(states.carrying) == C.EMPTY_CELL).all(), f"{env_id} starts carrying"


def test_autoreset_rollouts_are_unchanged():
    """Scans of vmapped steps with fixed actions (autoresets included) give the pinned states."""
    differing = _differing(
        "rollout", lambda env_id: layout_golden.digest(layout_golden.rollout_states(env_id))
    )
    assert not differing, f"rollout states differ for {len(differing)} ids: {differing}"
