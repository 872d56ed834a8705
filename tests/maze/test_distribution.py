"""Distribution test against jumanji 1.1.2's recursive-division generator.

5,000 mazes per size from each generator, drawn from independent keys (so the test does not
lean on the two drawing identical mazes), compared on: wall frequency per cell, the fraction
of free cells reachable from the agent (must be exactly 1: every maze is connected), and the
histogram of agent-target path distances. The same comparison is run on deliberately broken
generators (an off-by-one wall offset, an off-by-one passage, the orientation rule flipped on
square chambers, a stack one chamber short) and must reject each of them: the test has the
power it claims. This is the proof that `RandomGenerator` (the default, whose draws are not
jumanji's) has jumanji's law; `JumanjiRandomGenerator` passes it too (and equals jumanji key
for key in test_reference.py).
"""

import functools

import jax
import numpy as np
import pytest

from horizax.maze import division
from horizax.maze.generator import JumanjiRandomGenerator, RandomGenerator
from tests.maze.maze_stats import summarize

jumanji = pytest.importorskip("jumanji")
scipy_stats = pytest.importorskip("scipy.stats")

from jumanji.environments.routing.maze import generator as jgen  # noqa: E402

pytestmark = [pytest.mark.reference, pytest.mark.slow]

SIZES = [(5, 5), (10, 10), (11, 7)]
NUM_MAZES = 5000
MAX_Z = 5.0  # per-cell wall-frequency z-score; ~3e-5 two-sided false alarms per cell
MIN_P = 1e-4  # chi-square p-value of the distance histograms


def _draw(generator, seed):
    keys = jax.random.split(jax.random.PRNGKey(seed), NUM_MAZES)
    return summarize(jax.jit(jax.vmap(generator))(keys))


@functools.cache
def _reference(shape):
    return _draw(jgen.RandomGenerator(*shape), seed=101)


def _differences(ours, ref):
    """Reasons the two samples look drawn from different generators ([] if none)."""
    problems = []
    for name, stats in (("ours", ours), ("jumanji", ref)):
        if not (stats["reachable"] == 1.0).all():
            problems.append(f"{name}: {int((stats['reachable'] < 1).sum())} disconnected mazes")
    p1, p2 = ours["wall_freq"], ref["wall_freq"]
    pooled = (p1 + p2) / 2
    se = np.sqrt(pooled * (1 - pooled) * 2 / NUM_MAZES)
    z = np.where(se > 0, (p1 - p2) / np.where(se > 0, se, 1), 0.0)
    if np.abs(z).max() > MAX_Z:
        cell = np.unravel_index(np.abs(z).argmax(), z.shape)
        problems.append(f"wall frequency differs at {cell}: {p1[cell]:.3f} vs {p2[cell]:.3f}")
    # Bin 0 holds unreachable targets (-1), bin d + 1 path length d.
    top = max(ours["distance"].max(), ref["distance"].max()) + 2
    table = np.stack([np.bincount(s["distance"] + 1, minlength=top) for s in (ours, ref)])
    table = table.astype(float)
    table = table[:, table.sum(axis=0) >= 10]  # chi-square needs populated bins
    p_value = scipy_stats.chi2_contingency(table).pvalue
    if p_value < MIN_P:
        problems.append(f"distance histograms differ (chi-square p={p_value:.2e})")
    return problems


@pytest.mark.parametrize("kind", [RandomGenerator, JumanjiRandomGenerator])
@pytest.mark.parametrize("shape", SIZES)
def test_same_distribution_as_jumanji(shape, kind):
    ours = _draw(kind(*shape), seed=202)
    assert _differences(ours, _reference(shape)) == []


BROKEN = {
    "wall offset off by one": ("_wall_offset", lambda draw: draw * 2),
    "passage off by one": ("_passage_offset", lambda draw: draw * 2 + 1),
    "orientation rule": ("_splits_vertically", lambda width, height: width > height),
    "stack one chamber short": (
        "max_deferred",
        lambda r, c: max(division._most_deferred(c, r) - 1, 1),
    ),
}


@pytest.mark.parametrize("mutation", list(BROKEN))
def test_the_comparison_rejects_a_broken_generator(mutation, monkeypatch):
    name, rule = BROKEN[mutation]
    monkeypatch.setattr(division, name, rule)
    bounds = (division._most_splits, division._most_deferred)
    for bound in bounds:  # the trip and stack bounds follow the (broken) orientation rule
        bound.cache_clear()
    try:
        found = {s: _differences(_draw(RandomGenerator(*s), 202), _reference(s)) for s in SIZES}
    finally:
        for bound in bounds:
            bound.cache_clear()
    assert any(found.values()), f"{mutation} went unnoticed"
