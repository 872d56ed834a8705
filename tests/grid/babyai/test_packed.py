"""The verifier's packed grid masks (`horizax.grid.babyai.packed`) against the boolean masks
they stand for: round trips, one-hot cells (off-grid ones clear), overlaps and counts."""

from __future__ import annotations

import numpy as np
import pytest

from horizax.grid import cells
from horizax.grid.babyai import packed as P


@pytest.mark.parametrize("shape", [(22, 22), (5, 32), (3, 40)])  # one word, full, two words
def test_pack_round_trips_and_counts(shape):
    rng = np.random.default_rng(0)
    masks = rng.random((4, *shape)) < 0.3
    bits = P.pack(masks)
    assert bits.shape == (4, shape[0], P.num_words(shape[1])) and bits.dtype == np.uint32
    np.testing.assert_array_equal(P.unpack(bits, shape[1]), masks)
    np.testing.assert_array_equal(P.count(bits), masks.sum(axis=(1, 2)))
    overlap = (masks[:, None] & masks[None, :]).any(axis=(2, 3))
    np.testing.assert_array_equal(P.overlaps(bits[:, None], bits[None, :]), overlap)


@pytest.mark.parametrize("shape", [(22, 22), (3, 40)])
def test_cell_is_the_packed_position_mask(shape):
    width, height = shape
    for x in (-1, 0, 1, width - 1, width):
        for y in (-1, 0, 1, 31, 32, height - 1, height):
            pos = np.array([x, y], np.int32)
            want = cells.position_mask(width, height, pos)
            got = P.cell(width, height, pos)
            np.testing.assert_array_equal(P.unpack(got, height), want, f"{(x, y)}")
            assert int(P.count(got)) == int(np.asarray(want).sum())
