"""``horizax bench`` (`horizax.bench.command`): its rows, the pairs with peers and its errors."""

from __future__ import annotations

import pytest

from horizax import cli
from horizax.bench.command import bench, format_report

SMALL = {"batch": 4, "steps": 8, "repeats": 1}


@pytest.mark.parametrize(
    ("env_id", "setting"),
    [
        ("MiniGrid-Empty-5x5-v0", "MiniGrid-Empty-5x5-v0, symbolic_first_person"),
        ("Maze-v0", "Maze-v0 10x10, batched autoreset"),
        ("Orbital-PursuitEvasion-v0", "Orbital-PursuitEvasion-v0, episode engine"),
        ("Orbital-GetOffMyLawn-v0", "Orbital-GetOffMyLawn-v0, VectorEnv"),
    ],
)
def test_every_family_is_measured(env_id, setting):
    (row,) = bench(env_id, **SMALL)
    assert row["library"] == "horizax" and row["what"] == setting
    assert (row["batch"], row["steps"]) == (4, 8)
    assert row["steps_per_s"] > 0 and row["compile_s"] > 0
    assert row["memory_per_env"] is None or row["memory_per_env"] > 0
    assert "ratio" not in row


def test_a_peer_runs_in_the_same_process_with_the_ratios():
    pytest.importorskip("jumanji")
    ours, peer = bench("Maze-v0", vs="jumanji", **SMALL)
    assert (ours["library"], peer["library"]) == ("horizax", "jumanji")
    assert peer["ratio"] == pytest.approx(ours["steps_per_s"] / peer["steps_per_s"])
    assert peer["compile_ratio"] == pytest.approx(ours["compile_s"] / peer["compile_s"])
    report = format_report([ours, peer])
    assert "horizax / jumanji:" in report and "B=4, T=8" in report


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"env_id": "MiniGrid-Empty-5x6-v0"}, ValueError, "Did you mean"),
        ({"env_id": "Maze-v0", "vs": "navix"}, ValueError, "navix has no counterpart of Maze-v0"),
        ({"env_id": "MiniGrid-Empty-5x5-v0", "vs": "jumanji"}, ValueError, "no counterpart"),
        ({"env_id": "Maze-v0", "vs": "gymnax"}, ValueError, "vs must be one of"),
        ({"env_id": "Maze-v0", "batch": 0}, ValueError, "batch"),
        ({"env_id": "Maze-v0", "steps": 1.5}, ValueError, "steps"),
    ],
)
def test_bad_input_is_refused_naming_it(kwargs, error, message):
    with pytest.raises(error, match=message):
        bench(**kwargs)


def test_a_missing_peer_says_how_to_install_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "navix", None)
    with pytest.raises(ImportError, match=r"navix is not installed here: pip install navix"):
        bench("MiniGrid-Empty-5x5-v0", vs="navix", **SMALL)


def test_the_command(capsys, monkeypatch):
    import sys

    args = ["bench", "--env", "MiniGrid-Empty-5x5-v0", "--batch", "4", "--steps", "8"]
    assert cli.main([*args, "--repeats", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("library") and "horizax" in printed and "B=4, T=8" in printed
    monkeypatch.setitem(sys.modules, "xminigrid", None)
    assert cli.main([*args, "--vs", "xminigrid"]) == 2
    assert "xminigrid is not installed here" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main([*args, "--vs", "gymnax"])
