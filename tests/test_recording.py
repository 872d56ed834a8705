"""`horizax.recording` and ``horizax render``: one episode of any family as pictures."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from horizax import cli
from horizax.recording import ENDINGS, record_episode, write_frames

Image = pytest.importorskip("PIL.Image")

EMPTY = "MiniGrid-Empty-5x5-v0"


def test_an_episode_is_its_frames_rewards_and_ending():
    truncated = record_episode(EMPTY, seed=0, max_steps=40)
    assert (truncated.length, truncated.ending, truncated.total_return) == (40, "truncated", 0.0)
    assert len(truncated.frames) == 41
    assert all(f.dtype == np.uint8 and f.shape == (160, 160, 3) for f in truncated.frames)
    # Seed 10's random walk reaches the goal: MiniGrid's 1 - 0.9 * 27 / 40 on the last step.
    reached = record_episode(EMPTY, seed=10, max_steps=40)
    assert (reached.length, reached.ending) == (27, "terminated")
    assert reached.rewards[-1] == pytest.approx(1 - 0.9 * 27 / 40) == reached.total_return
    cut = record_episode(EMPTY, seed=10, steps=5, max_steps=40)
    assert (cut.length, cut.ending) == (5, "running")
    for a, b in zip(cut.frames, reached.frames[:6], strict=True):
        np.testing.assert_array_equal(a, b)  # the same seed plays the same episode


@pytest.mark.parametrize(
    "env_id", ["Maze-v0", "Orbital-LadyBanditGuard-v0", "MiniGrid-Fetch-5x5-N2-v0"]
)
def test_every_family_records(env_id):
    recording = record_episode(env_id, seed=1, steps=4)
    assert recording.ending in ENDINGS and 1 <= recording.length <= 4
    assert len(recording.frames) == recording.length + 1
    assert {f.shape for f in recording.frames} == {recording.frames[0].shape}
    assert recording.frames[0].dtype == np.uint8 and recording.frames[0].shape[-1] == 3


def test_a_policy_function_drives_it():
    import jax.numpy as jnp

    forward = record_episode(EMPTY, policy_fn=lambda keys, obs: jnp.full(keys.shape[:1], 2))
    # Straight on from (1, 1) facing east: two cells, then the wall, until the time limit.
    assert forward.ending == "truncated" and forward.length == 100
    np.testing.assert_array_equal(forward.frames[3], forward.frames[-1])
    assert not np.array_equal(forward.frames[0], forward.frames[1])


def test_write_frames_as_a_gif_or_numbered_pngs(tmp_path):
    frames = record_episode(EMPTY, seed=10, max_steps=40).frames
    (gif,) = write_frames(frames, tmp_path / "sub" / "ep.gif", fps=20)
    with Image.open(gif) as image:
        assert image.size == (160, 160) and image.n_frames >= 2  # Pillow merges repeats
        assert image.info["duration"] == 50
    pngs = write_frames(frames[:3], tmp_path / "frames")
    assert [p.name for p in pngs] == ["frame_0000.png", "frame_0001.png", "frame_0002.png"]
    for path, frame in zip(pngs, frames[:3], strict=True):
        with Image.open(path) as image:
            np.testing.assert_array_equal(np.asarray(image.convert("RGB")), frame)


@pytest.mark.parametrize(
    ("frames", "kwargs", "message"),
    [
        ([], {}, "frames is empty"),
        ([np.zeros((4, 4, 3), np.float32)], {}, r"frames\[0\] is float32"),
        ([np.zeros((4, 4, 3), np.uint8), np.zeros((5, 4, 3), np.uint8)], {}, r"frames\[1\]"),
        ([np.zeros((4, 4, 3), np.uint8)], {"fps": 0}, "fps"),
    ],
)
def test_write_frames_refuses_bad_input(tmp_path, frames, kwargs, message):
    with pytest.raises(ValueError, match=message):
        write_frames(frames, tmp_path / "x.gif", **kwargs)


def test_write_frames_without_pillow_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"horizax\[render\]"):
        write_frames([np.zeros((4, 4, 3), np.uint8)], tmp_path / "x.gif")


def test_bad_arguments_are_refused_naming_them(tmp_path):
    with pytest.raises(ValueError, match="seed"):
        record_episode(EMPTY, seed=-1)
    with pytest.raises(ValueError, match="steps"):
        record_episode(EMPTY, steps=0)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        write_frames([np.zeros((4, 4, 3), np.uint8)], tmp_path / "file")


def test_the_render_command(tmp_path, capsys):
    out = tmp_path / "ep.gif"
    assert cli.main(["render", "--env", EMPTY, "--seed", "10", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "steps            27 (terminated)" in printed and str(out) in printed
    assert out.stat().st_size > 0
    folder = tmp_path / "pngs"
    assert cli.main(["render", "--env", "Maze-v0", "--steps", "2", "--out", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [f"frame_000{i}.png" for i in range(3)]
    assert "(3 files)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["render", "--env", "MiniGrid-Empty-5x6-v0"], "Did you mean"),
        (["render", "--env", EMPTY, "--fps", "0", "--steps", "1"], "fps"),
        (["render", "--policy", "/nonexistent-run"], "`horizax train` run folder"),
    ],
)
def test_render_errors_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
