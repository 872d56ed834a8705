"""The ``horizax`` command: list, run, errors."""

import json
import os
import subprocess
import sys

import pytest

import horizax
from horizax import cli


def test_list_prints_every_registered_id(capsys):
    assert cli.main(["list"]) == 0
    assert capsys.readouterr().out.split() == horizax.registered_ids()


def test_run_reports_episode_statistics(capsys):
    assert cli.main(["run", "--env", "MiniGrid-Empty-5x5-v0", "--batch", "4", "--steps", "60"]) == 0
    out = capsys.readouterr().out
    for field in ("episodes ended", "terminated", "truncated", "mean return", "success rate"):
        assert field in out
    assert "compile time" in out and "steps/s" in out


def test_rollout_stats_counts_are_consistent():
    stats = cli.rollout_stats("MiniGrid-Empty-5x5-v0", batch=8, steps=120, seed=1, chunks=3)
    assert stats["steps"] == 120
    assert stats["episodes"] == stats["terminated"] + stats["truncated"]
    assert stats["episodes"] > 0 and 0.0 <= stats["success_rate"] <= 1.0
    assert stats["mean_return"] > 0.0  # Empty-5x5 random walks do reach the goal


def test_unknown_env_exits_2_with_suggestions(capsys):
    assert cli.main(["run", "--env", "MiniGrid-Empty-5x6-v0"]) == 2
    assert "Did you mean" in capsys.readouterr().err


def test_bad_batch_is_a_clear_error():
    with pytest.raises(ValueError, match="--batch"):
        cli.rollout_stats("MiniGrid-Empty-5x5-v0", batch=0, steps=10, seed=0)


def test_python_dash_m_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "horizax", "list"], check=True, capture_output=True, text=True
    ).stdout
    assert "MiniGrid-Empty-8x8-v0" in out


def test_run_devices_beyond_jaxs_exit_2(capsys):
    import jax

    too_many = str(len(jax.devices()) + 1)
    assert cli.main(["run", "--env", "MiniGrid-Empty-5x5-v0", "--devices", too_many]) == 2
    assert "devices must be" in capsys.readouterr().err


def test_run_on_four_devices_gives_the_one_device_statistics():
    """Each environment draws from its own key: the statistics do not depend on sharding."""
    script = (
        "import json, sys; from horizax import cli; "
        "s = cli.rollout_stats('MiniGrid-Empty-5x5-v0', batch=8, steps=60, seed=3, "
        "devices=int(sys.argv[1])); print(json.dumps(s))"
    )

    def stats(devices: int) -> dict:
        env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
        out = subprocess.run(
            [sys.executable, "-c", script, str(devices)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
            timeout=240,
        ).stdout
        return json.loads(out.splitlines()[-1])

    one, four = stats(1), stats(4)
    assert four["devices"] == 4 and one["devices"] == 1
    keys = ("episodes", "terminated", "truncated", "success_rate", "mean_return")
    assert {k: one.get(k) for k in keys} == {k: four.get(k) for k in keys}
    assert one["episodes"] > 0


@pytest.mark.parametrize("command", [["train"], ["eval", "--run", "x"]])
def test_train_and_eval_without_the_extra_say_which_to_install(command, monkeypatch, capsys):
    import horizax.train

    # The import fails, even where another test imported the module before.
    monkeypatch.setitem(sys.modules, "horizax.train.commands", None)
    monkeypatch.delattr(horizax.train, "commands", raising=False)
    assert cli.main(command) == 2
    assert "pip install 'horizax[train]'" in capsys.readouterr().err
