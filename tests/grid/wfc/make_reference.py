"""Regenerates ``minigrid_reference.json``: MiniGrid's WFC start-state statistics per id.

MiniGrid's WFC takes 0.2 to 2 s per reset on one core, too slow to sample thousands of
resets inside the suite, so its statistics are sampled once here and committed; the
``slow`` reference test ``test_fixture_matches_live_minigrid`` (tests/grid/envs/test_wfc.py)
reruns a small live sample against them, so the fixture stays checked.

    PYTHONPATH=src python -m tests.grid.wfc.make_reference --raw /tmp/wfc_raw --n 2000
    PYTHONPATH=src python -m tests.grid.wfc.make_reference --raw /tmp/wfc_raw --write

The first command samples MiniGrid (resumable: it appends to ``RAW/<id>.npz`` in chunks,
round-robin over the ids); the second reduces the raw samples to the feature histograms
(`tests.grid.wfc.features`) and writes the JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np

from tests.grid.wfc import reference

FIXTURE = Path(__file__).with_name("minigrid_reference.json")
CHUNK = 50


def _load(path: Path) -> dict[str, np.ndarray] | None:
    if not path.exists():
        return None
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def sample(raw: Path, n: int) -> None:
    """Appends MiniGrid samples (seeds ``0 .. n-1``) to ``raw/<id>.npz``, CHUNK at a time."""
    raw.mkdir(parents=True, exist_ok=True)
    ids = sorted(reference.PRESET_OF)
    while True:
        progress = False
        for env_id in ids:
            path = raw / f"{env_id}.npz"
            old = _load(path)
            done = 0 if old is None else len(old["agent_dir"])
            if done >= n:
                continue
            seeds = range(done, min(done + CHUNK, n))
            samples, seconds = reference.minigrid_samples(env_id, seeds)
            new = dataclasses.asdict(samples)
            new["seconds"] = np.full(len(seeds), seconds)
            if old is not None:
                new = {k: np.concatenate([old[k], new[k]]) for k in new}
            np.savez_compressed(path, **new)
            print(f"{env_id}: {done + len(seeds)}/{n} ({seconds:.2f} s/reset)", flush=True)
            progress = True
        if not progress:
            return


def write(raw: Path) -> None:
    """Writes `FIXTURE`: the feature histograms of every id's raw samples, with what they
    were sampled from (MiniGrid's version, the pattern files' SHA-256)."""
    import minigrid

    from horizax.grid.wfc import presets
    from tests.grid.wfc import features

    images = sorted({p.image for p in presets.PRESETS.values()})
    out: dict = {
        "minigrid": minigrid.__version__,
        "pattern_sha256": {
            image: hashlib.sha256(presets.pattern_file(image).read_bytes()).hexdigest()
            for image in images
        },
        "ids": {},
    }
    for env_id in sorted(reference.PRESET_OF):
        data = _load(raw / f"{env_id}.npz")
        assert data is not None, f"no raw samples for {env_id}"
        seconds = float(data.pop("seconds").mean())
        samples = reference.Samples(**data)
        free = (~samples.raw_walls).sum(axis=(1, 2))
        out["ids"][env_id] = {
            "n": len(samples),
            "seconds_per_reset": round(seconds, 4),
            "raw_free_mean": round(float(free.mean()), 3),
            "raw_free_std": round(float(free.std()), 3),
            "features": features.histograms(features.of(samples, env_id)),
        }
    FIXTURE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raw", type=Path, required=True, help="directory of raw samples")
    parser.add_argument("--n", type=int, default=0, help="sample MiniGrid up to n resets")
    parser.add_argument("--write", action="store_true", help="write the JSON fixture")
    args = parser.parse_args()
    if args.n:
        sample(args.raw, args.n)
    if args.write:
        write(args.raw)
