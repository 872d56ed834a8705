"""`horizax run --env Maze-v0` drives the Maze through its protocol view."""

from horizax import cli


def test_rollout_stats_for_the_maze_are_consistent():
    stats = cli.rollout_stats("Maze-v0", batch=8, steps=240, seed=1, chunks=2)
    assert stats["steps"] == 240
    assert stats["episodes"] == stats["terminated"] + stats["truncated"]
    # 240 steps with a 100-step limit: every environment ended at least two episodes.
    assert stats["episodes"] >= 16 and stats["truncated"] > 0
    # A Maze termination pays 1.0 (the target) unless the agent is boxed in, which random
    # mazes never do: every termination is a success.
    assert round(stats["success_rate"] * stats["episodes"]) == stats["terminated"]


def test_run_command_prints_maze_statistics(capsys):
    assert cli.main(["run", "--env", "Maze-v0", "--batch", "4", "--steps", "20"]) == 0
    out = capsys.readouterr().out
    assert "Maze-v0" in out and "episodes ended" in out and "steps/s" in out
