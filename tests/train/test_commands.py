"""``horizax train`` / ``horizax eval`` and their run directory; ``--resume`` is exact."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

from horizax import checkpoint, cli
from horizax.train import commands

ENV = "MiniGrid-Empty-5x5-v0"
SETTINGS = {"num_envs": 4, "num_steps": 16, "num_minibatches": 2, "total_steps": 6 * 64}
TIMING = {"wall_s", "steps_per_s"}


def _without_timing(rows):
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def _same_rows(a, b):
    assert len(a) == len(b)
    for x, y in zip(_without_timing(a), _without_timing(b), strict=True):
        assert x.keys() == y.keys()
        for key in x:
            assert x[key] == y[key] or (np.isnan(x[key]) and np.isnan(y[key])), (key, x, y)


def _checkpoint(run_dir):
    return np.load(run_dir / commands.CHECKPOINT_FILE, allow_pickle=False)


def test_a_run_writes_its_directory(tmp_path):
    rows = commands.train(ENV, tmp_path / "run", overrides=SETTINGS, checkpoint_every=2)
    run = tmp_path / "run"
    assert [r["update"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[-1]["env_steps"] == 6 * 64
    for name in (
        "run.json",
        "metrics.csv",
        "metrics.jsonl",
        "learning_curve.png",
        "checkpoint.hzx",
    ):
        assert (run / name).stat().st_size > 0, name
    record = json.loads((run / "run.json").read_text())
    assert record["env"] == ENV and record["config"]["num_envs"] == 4 and record["seed"] == 0
    assert len((run / "metrics.csv").read_text().splitlines()) == 7


def test_resume_continues_exactly(tmp_path):
    whole = commands.train(ENV, tmp_path / "whole", overrides=SETTINGS, checkpoint_every=2)
    # Interrupted after 3 updates (checkpoint at 2, and at 3 where it stopped), then resumed.
    commands.train(ENV, tmp_path / "cut", overrides=SETTINGS, checkpoint_every=2, stop_after=3)
    resumed = commands.train(None, tmp_path / "cut", resume=True, checkpoint_every=2)
    _same_rows(resumed, whole)
    a, b = _checkpoint(tmp_path / "whole"), _checkpoint(tmp_path / "cut")
    assert sorted(a.files) == sorted(b.files)
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_resume_may_extend_the_run_only(tmp_path):
    commands.train(ENV, tmp_path / "run", overrides=SETTINGS)
    more = commands.train(None, tmp_path / "run", resume=True, overrides={"total_steps": 8 * 64})
    assert [r["update"] for r in more] == list(range(1, 9))
    with pytest.raises(ValueError, match="only total_steps"):
        commands.train(None, tmp_path / "run", resume=True, overrides={"gamma": 0.5})


def test_checkpoints_hold_the_whole_train_state(tmp_path):
    commands.train(ENV, tmp_path / "run", overrides=SETTINGS)
    manifest = checkpoint.read_manifest(tmp_path / "run" / commands.CHECKPOINT_FILE)
    assert manifest["env_id"] == ENV


def test_eval_reports_and_writes_a_gif(tmp_path):
    commands.train(ENV, tmp_path / "run", overrides=SETTINGS)
    report = commands.evaluate(tmp_path / "run", episodes=3, gif=tmp_path / "ep.gif")
    assert report["episodes"] == 3 and 0.0 <= report["success_rate"] <= 1.0
    assert 0 < report["mean_length"] <= 100
    from PIL import Image

    with Image.open(tmp_path / "ep.gif") as gif:
        assert gif.n_frames >= 2


def test_unknown_settings_are_refused_naming_them(tmp_path):
    with pytest.raises(ValueError, match="learning_rat"):
        commands.train(ENV, tmp_path / "run", overrides={"learning_rat": 1e-3})


def test_the_command_line(tmp_path, capsys):
    config = tmp_path / "ppo.json"
    config.write_text(json.dumps({"num_steps": 16, "num_minibatches": 2}))
    out = tmp_path / "run"
    args = ["train", "--env", ENV, "--total-steps", "128", "--num-envs", "4"]
    assert cli.main([*args, "--config", str(config), "--out", str(out)]) == 0
    assert "updates          2 (128 steps)" in capsys.readouterr().out
    assert cli.main(["train", "--resume", str(out), "--total-steps", "192"]) == 0
    assert "updates          3 (192 steps)" in capsys.readouterr().out
    assert cli.main(["eval", "--run", str(out), "--episodes", "2", "--greedy"]) == 0
    assert "success_rate" in capsys.readouterr().out
    gif = tmp_path / "policy.gif"
    assert cli.main(["render", "--policy", str(out), "--steps", "3", "--out", str(gif)]) == 0
    assert f"{ENV}  (seed 0, policy {out})" in capsys.readouterr().out and gif.exists()
    assert cli.main(["render", "--policy", str(out), "--env", "MiniGrid-Empty-6x6-v0"]) == 2
    assert f"trained {ENV}, not MiniGrid-Empty-6x6-v0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", "--env", "MiniGrid-Empty-5x6-v0"], "Did you mean"),
        (["train", "--resume", "nowhere", "--env", ENV], "drop --env"),
        (["train", "--resume", "/nonexistent-run"], "run.json"),
        (["eval", "--run", "/nonexistent-run"], "run.json"),
    ],
)
def test_command_line_errors_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_training_page_ppo_example_runs():
    from pathlib import Path

    from tests.markdown import python_blocks

    page = Path(__file__).resolve().parents[2] / "docs" / "training.md"
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    namespace: dict = {}
    exec(compile(blocks[1], f"{page} block 1", "exec"), namespace)
    assert int(namespace["state"].update) == namespace["config"].num_updates == 16
