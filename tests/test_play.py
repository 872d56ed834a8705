"""``horizax play``: keys, drawing and episode ends, and the command driven in a pseudo-terminal."""

from __future__ import annotations

import sys

import pytest

from horizax import cli
from horizax.play import Session, draw_grid, parse_keys

EMPTY = "MiniGrid-Empty-5x5-v0"
# From (1, 1) facing east to the goal at (3, 3): forward, forward, right, forward, forward.
TO_THE_GOAL = ["up", "up", "right", "up", "up"]


def test_terminal_bytes_become_keys():
    data = b"\x1b[A\x1b[D\x1bOC\t\x1b[5~\x1b[6~ \r\nrqx\x1b[3~\x03"
    assert parse_keys(data) == [
        "up", "left", "right", "tab", "pageup", "pagedown", "space", "enter", "enter",
        "reset", "quit", "quit",
    ]  # fmt: skip


def test_a_session_plays_to_the_goal_and_says_terminated():
    session = Session(EMPTY, seed=0)
    assert "mission: get to the green goal square" in session.screen()
    for key in TO_THE_GOAL:
        assert session.press(key)
    assert (session.steps, session.ending) == (5, "terminated")
    assert session.total == pytest.approx(1 - 0.9 * 5 / 100)
    assert "TERMINATED" in session.screen() and "return 0.9550" in session.screen()
    session.press("up")  # ignored once the episode ended
    assert session.steps == 5
    session.press("reset")
    assert (session.seed, session.steps, session.ending) == (1, 0, "running")
    assert not session.press("quit")


def test_the_time_limit_says_truncated():
    session = Session(EMPTY, max_steps=2)
    session.press("left")
    session.press("left")
    assert session.ending == "truncated" and "TRUNCATED (time limit)" in session.screen()
    assert "step 2/2" in session.screen()


def test_pickup_and_the_door_keys_act_in_a_doorkey_level():
    session = Session("MiniGrid-DoorKey-5x5-v0", seed=0)
    for key in ("tab", "pagedown", "space", "enter"):  # pickup, drop, toggle, done
        session.press(key)
        assert session.last_action == key
    assert session.steps == 4
    picture = draw_grid(session._unbatch(session.env_state.state))
    assert "⚷" in picture or "carrying: yellow key" in session.screen()


def test_the_maze_moves_with_the_arrows():
    session = Session("Maze-v0", seed=3)
    for key in ("up", "right", "down", "left", "space"):  # space does nothing in the Maze
        session.press(key)
    assert session.steps == 4 and "◆" in session.screen() and "★" in session.screen()


def test_the_orbital_games_are_refused(capsys):
    with pytest.raises(ValueError, match="gridworld or the Maze"):
        Session("Orbital-LadyBanditGuard-v0")
    assert cli.main(["play", "--env", "Orbital-LadyBanditGuard-v0"]) == 2
    assert "gridworld or the Maze" in capsys.readouterr().err


# pexpect forks a pseudo-terminal that execs a fresh interpreter at once: JAX's threads in
# this process are never used by the child.
@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
def test_the_command_in_a_pseudo_terminal():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "horizax", "play", "--env", EMPTY],
        encoding="utf-8",
        timeout=120,
        dimensions=(40, 120),
    )
    child.expect("episode running")
    child.expect_exact("\x1b[38;2;")  # a terminal gets colour (tests/test_terminal.py: the rest)
    keys = {"up": "\x1b[A", "right": "\x1b[C"}
    for count, key in enumerate(TO_THE_GOAL, start=1):
        child.send(keys[key])
        child.expect(f"step {count}/100")
    child.expect("TERMINATED")
    child.send("r")
    child.expect("seed 1")
    child.expect("step 0/100")
    child.send("q")
    child.expect("bye: 0 steps")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
