"""The WFC generator's parts: the PNG reader, MiniGrid's tables, block propagation, restarts
and the largest component. The family's levels are tested in tests/grid/envs/test_wfc.py."""

from __future__ import annotations

import struct
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid.wfc import level, patterns, png, presets, program, propagation, solver
from tests.grid import distribution as dist

IMAGES = sorted({p.image for p in presets.PRESETS.values()})


# ----------------------------------------------------------------------------- PNG reader


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    return min((abs(p - a), 0, a), (abs(p - b), 1, b), (abs(p - c), 2, c))[2]


def _encode_png(image: np.ndarray, filters: list[int]) -> bytes:
    """An 8-bit RGB PNG of u8[H, W, 3] ``image``, row ``r`` filtered with ``filters[r]``."""
    h, w, _ = image.shape
    rows, prev = [], bytes(3 * w)
    for r in range(h):
        line = image[r].tobytes()
        out = bytearray()
        for i, x in enumerate(line):
            left = line[i - 3] if i >= 3 else 0
            up, up_left = prev[i], prev[i - 3] if i >= 3 else 0
            predict = [0, left, up, (left + up) // 2, _paeth(left, up, up_left)][filters[r]]
            out.append((x - predict) & 0xFF)
        rows.append(bytes([filters[r]]) + bytes(out))
        prev = line

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"tEXt", b"Comment\x00skipped")
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("image", IMAGES)
def test_png_reader_reads_the_shipped_patterns_as_pillow(image):
    from PIL import Image

    path = presets.pattern_file(image)
    expected = np.asarray(Image.open(path).convert("RGB"))
    np.testing.assert_array_equal(png.read_rgb(path), expected)


def test_png_reader_undoes_every_filter(tmp_path):
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (10, 7, 3), dtype=np.uint8)
    path = tmp_path / "filters.png"
    path.write_bytes(_encode_png(image, [r % 5 for r in range(10)]))
    np.testing.assert_array_equal(png.read_rgb(path), image)


def test_png_reader_refuses_what_it_cannot_read(tmp_path):
    from PIL import Image

    path = tmp_path / "palette.png"
    Image.new("P", (3, 3)).save(path)
    with pytest.raises(ValueError, match="colour type 3"):
        png.read_rgb(path)
    bad = bytearray(presets.pattern_file("Fabric.png").read_bytes())
    bad[-20] ^= 1  # a byte inside the IDAT chunk
    (tmp_path / "corrupt.png").write_bytes(bytes(bad))
    with pytest.raises(ValueError, match="corrupt"):
        png.read_rgb(tmp_path / "corrupt.png")
    rgba = tmp_path / "rgba.png"
    pixels = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    Image.fromarray(pixels, "RGBA").save(rgba)
    np.testing.assert_array_equal(png.read_rgb(rgba), pixels[..., :3])


# ----------------------------------------------------------------------------- tables


def test_symmetry_walk_visits_four_orientations_twice():
    grid = np.arange(6).reshape(2, 3)  # no symmetry of its own
    walk = patterns.symmetry_walk(grid)
    distinct = {(g.shape, g.tobytes()) for g in walk}
    assert len(distinct) == 4
    for first, second in zip(walk[:4], walk[4:], strict=True):
        np.testing.assert_array_equal(first, second)
    expected = [grid, np.fliplr(grid), np.rot90(np.fliplr(grid), -1), np.rot90(grid, 1)]
    for got, want in zip(walk[:4], expected, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.reference
@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_tables_are_minigrids(name):
    """The same patterns, weights and adjacency as MiniGrid's wfclogic, fed the same image."""
    pytest.importorskip("minigrid")
    from minigrid.envs.wfc.wfclogic.adjacency import adjacency_extraction
    from minigrid.envs.wfc.wfclogic.patterns import make_pattern_catalog_with_rotations
    from minigrid.envs.wfc.wfclogic.tiles import make_tile_catalog

    preset = presets.PRESETS[name]
    image = png.read_rgb(presets.pattern_file(preset.image))
    k = preset.pattern_width
    tile_catalog, tile_grid, _, _ = make_tile_catalog(image, 1)
    catalog, weights, _, pattern_grid = make_pattern_catalog_with_rotations(
        tile_grid, k, input_is_periodic=preset.periodic_input, rotations=7
    )
    directions = list(enumerate(patterns.DIRECTIONS))
    legal = adjacency_extraction(pattern_grid, catalog, directions, (k, k))

    ours = patterns.tables(name)
    colours = np.unique(image.reshape(-1, 3), axis=0)
    index = {p.tobytes(): i for i, p in enumerate(colours[ours.patterns])}
    theirs = {
        h: index[np.stack([tile_catalog[t][0, 0] for t in p.ravel()]).reshape(k, k, 3).tobytes()]
        for h, p in catalog.items()
    }
    assert sorted(theirs.values()) == list(range(ours.num_patterns))
    for h, i in theirs.items():
        assert ours.weights[i] == weights[h]
    expected = np.zeros_like(ours.compatible)
    d_of = {offset: d for d, offset in directions}
    for offset, a, b in legal:
        expected[d_of[offset], theirs[a], theirs[b]] = True
    np.testing.assert_array_equal(ours.compatible, expected)
    np.testing.assert_array_equal(ours.pattern_walls, colours[ours.patterns[:, 0, 0], 0] == 0)


# ----------------------------------------------------------------------------- propagation

# (preset, output size, window, sweeps): wrapping or not, windows from a single cell to
# the whole output, one sweep or several.
PROPAGATION_CASES = [
    ("MazeSimple", 9, 3, 2),
    ("RoomsFabric", 8, 8, 1),
    ("ObstaclesAngular", 9, 4, 1),
    ("DungeonMazeScaled", 7, 1, 3),
]


@pytest.mark.parametrize("name, size, window, sweeps", PROPAGATION_CASES)
def test_block_propagation_reaches_minigrids_fixed_point(name, size, window, sweeps):
    """Random partial waves: block revisions end where whole-grid sweeps do."""
    tables = patterns.tables(name)
    periodic = presets.PRESETS[name].periodic_output
    prog = program.build(tables, size, periodic, window=window, sweeps=sweeps, max_iterations=1)
    rng = np.random.default_rng(size)
    n = tables.num_patterns
    waves = []
    for case in range(48):
        sets = np.ones((size, size, n), bool)
        for _ in range(1 + case % 5):
            x, y = rng.integers(0, size, 2)
            if case % 2:  # a random subset, perhaps empty
                sets[x, y] &= rng.random(n) < 0.3
            else:  # a collapse to one pattern
                sets[x, y] &= np.arange(n) == rng.integers(0, n)
        waves.append(sets)
    bits = np.stack([program.to_bits(program.with_ring(w, periodic), prog.words) for w in waves])
    run = jax.jit(jax.vmap(lambda w: propagation.propagate(prog, w)))
    got, contradiction = (np.asarray(x) for x in run(jnp.asarray(bits)))
    outcomes = set()
    for sets, wave, flag in zip(waves, got, contradiction, strict=True):
        expected, _ = program.host_propagate(sets, tables.compatible, periodic)
        empty = not expected.any(axis=2).all()
        assert bool(flag) == empty
        outcomes.add(empty)
        if not empty:
            inner = program.from_bits(wave[1:-1, 1:-1], n)
            np.testing.assert_array_equal(inner, expected)
            ring = program.from_bits(wave, n)
            np.testing.assert_array_equal(ring, program.with_ring(expected, periodic))
    assert outcomes == {False, True}, "both consistent and contradictory waves are covered"


def test_weighted_choice_follows_the_weights():
    tables = patterns.tables("ObstaclesHogs3")  # weights 2, 4, 6 and 8
    prog = program.build(tables, 5, True, window=5, sweeps=1, max_iterations=1)
    n = tables.num_patterns
    allowed = np.arange(n) % 3 != 1
    cell = jnp.asarray(program.to_bits(allowed, prog.words))
    bits = jax.random.bits(jax.random.PRNGKey(0), (40_000,), jnp.uint32)
    one = np.asarray(jax.jit(jax.vmap(lambda b: solver.choose(prog, cell, b)))(bits))
    chosen = program.from_bits(one, n)
    assert (chosen.sum(axis=1) == 1).all() and not chosen[:, ~allowed].any()
    expected = np.where(allowed, tables.weights, 0) / np.where(allowed, tables.weights, 0).sum()
    reference = np.random.default_rng(1).choice(n, len(bits), p=expected)
    _, _, p = dist.chi_square_homogeneity(chosen.argmax(axis=1), reference)
    assert p > dist.P_MIN


# ----------------------------------------------------------------------------- restarts


@pytest.fixture(scope="module")
def hogs2():
    """MiniGrid's unregistered ObstaclesHogs2 (Hogs.png, 2 x 2 patterns, wrapping), whose
    attempts contradict often ("can require many attempts"), on a 16 x 16 output."""
    tables = patterns.build(png.read_rgb(presets.pattern_file("Hogs.png")), 2)
    return tables, program.build(tables, 16, True, window=5, sweeps=3, max_iterations=2500)


def _windows_are_patterns(tables, assignment: np.ndarray, periodic: bool) -> bool:
    """Whether every output cell's pattern agrees with its right and lower neighbours'."""
    ok = True
    for d in (1, 2):  # right (1, 0) and down (0, 1)
        dx, dy = patterns.DIRECTIONS[d]
        a = (
            assignment
            if periodic
            else assignment[: assignment.shape[0] - dx, : assignment.shape[1] - dy]
        )
        b = np.roll(assignment, (-dx, -dy), axis=(0, 1))[: a.shape[0], : a.shape[1]]
        ok &= bool(tables.compatible[d][a, b].all())
    return ok


def test_contradictions_restart_until_a_consistent_solution(hogs2):
    tables, prog = hogs2
    run = jax.jit(jax.vmap(lambda k: solver.solve(prog, k)))
    out = run(jax.random.split(jax.random.PRNGKey(0), 128))
    attempts, solved = np.asarray(out.attempts), np.asarray(out.solved)
    assert (attempts > 1).mean() > 0.05, "these patterns should contradict often"
    assert solved.mean() > 0.9
    for assignment in np.asarray(out.patterns)[solved]:
        assert _windows_are_patterns(tables, assignment, periodic=True)


def test_an_exhausted_budget_falls_back_to_the_open_room(hogs2):
    tables, _ = hogs2
    starved = program.build(tables, 16, True, window=5, sweeps=3, max_iterations=30)
    state, solution = jax.jit(lambda k: level.generate(starved, k))(jax.random.PRNGKey(3))
    assert not bool(solution.solved)
    grid = np.asarray(state.grid)[..., 0]
    assert set(np.unique(grid[1:-1, 1:-1])) == {1, 8}  # empty and the goal
    assert (grid[[0, -1], :] == 2).all() and (grid[:, [0, -1]] == 2).all()
    assert tuple(np.asarray(state.agent_pos)) != tuple(np.argwhere(grid == 8)[0])


# ----------------------------------------------------------------------------- components


def test_component_labels_are_scipys():
    from scipy import ndimage

    rng = np.random.default_rng(0)
    grids = [rng.random((23, 23)) < p for p in (0.3, 0.5, 0.6, 0.8) for _ in range(8)]
    snake = np.zeros((23, 23), bool)
    snake[::2] = True
    snake[1::4, -1] = snake[3::4, 0] = True  # one path through every other row
    grids += [snake, np.zeros((23, 23), bool), np.ones((23, 23), bool)]
    labels = np.asarray(jax.jit(jax.vmap(level.component_labels))(jnp.asarray(np.stack(grids))))
    for free, got in zip(grids, labels, strict=True):
        ref, count = ndimage.label(free)
        assert (got[~free] == 23 * 23).all()
        for c in range(1, count + 1):
            cells = np.flatnonzero(ref == c)
            assert (got.reshape(-1)[cells] == cells.min()).all()


def test_largest_component_ties_go_to_the_first_cell():
    free = np.zeros((6, 6), bool)
    free[4, 1:4] = True  # three cells, first cell 4 * 6 + 1
    free[1, 2:5] = True  # three cells, first cell 1 * 6 + 2: kept
    free[3, 5] = True
    kept, size = jax.jit(level.largest_component)(jnp.asarray(free))
    assert int(size) == 3
    np.testing.assert_array_equal(np.asarray(kept), np.pad(np.ones((1, 3), bool), ((1, 4), (2, 1))))


def test_levels_do_not_depend_on_the_propagation_schedule():
    """Blocks and sweeps only schedule the propagation: any choice gives the same solves."""
    tables = patterns.tables("ObstaclesAngular")
    keys = jax.random.split(jax.random.PRNGKey(1), 16)
    outs = []
    for window, sweeps in ((3, 1), (6, 4), (12, 2)):
        prog = program.build(tables, 12, True, window=window, sweeps=sweeps, max_iterations=4000)
        outs.append(jax.jit(jax.vmap(lambda k, p=prog: solver.solve(p, k)))(keys))
    assert all(np.asarray(o.solved).all() for o in outs)
    for other in outs[1:]:
        np.testing.assert_array_equal(outs[0].patterns, other.patterns)
        np.testing.assert_array_equal(outs[0].attempts, other.attempts)
    assert len({int(np.asarray(o.iterations).sum()) for o in outs}) == 3
