"""``horizax play``: a gridworld or the Maze by hand, in the terminal.

The level is drawn with coloured Unicode cells (24-bit ANSI colours, two columns per cell;
colour only on a terminal, see `play`)
under a header with the mission, the step count against the time limit, the last action's
reward, the episode's return and how it ended: *terminated* (the task ended it) or
*truncated* (the time limit cut it). Keys, as MiniGrid's ``manual_control``:

=================  =====================================  ===================
key                gridworld                              Maze
=================  =====================================  ===================
left / right       turn left / right                      move left / right
up                 forward                                move up
down               (nothing)                              move down
space              toggle                                 -
tab, page up       pickup                                 -
page down          drop                                   -
enter              done                                   -
r                  new episode (the next seed)            new episode
q, ctrl-c          quit                                   quit
=================  =====================================  ===================

After an episode ends, actions are ignored until ``r``. The environment runs through
`horizax.vector.VectorEnv` (one environment, autoreset off), the same programs as every
other path. POSIX terminals only (``termios``); input that is not a terminal is read as is.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

import numpy as np

__all__ = ["GRID_KEYS", "MAZE_KEYS", "Session", "parse_keys", "play"]

# Terminal byte sequences -> key names (xterm's; \x1bO* is the application cursor mode).
_SEQUENCES = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOB": "down",
    b"\x1bOC": "right",
    b"\x1bOD": "left",
    b"\x1b[5~": "pageup",
    b"\x1b[6~": "pagedown",
    b"\t": "tab",
    b" ": "space",
    b"\r": "enter",
    b"\n": "enter",
    b"\x03": "quit",
    b"q": "quit",
    b"r": "reset",
}
# MiniGrid's action indices (left 0, right 1, forward 2, pickup 3, drop 4, toggle 5, done 6).
GRID_KEYS = {"left": 0, "right": 1, "up": 2, "tab": 3, "pageup": 3, "pagedown": 4}
GRID_KEYS |= {"space": 5, "enter": 6}
# The Maze's actions: 0 up, 1 right, 2 down, 3 left.
MAZE_KEYS = {"up": 0, "right": 1, "down": 2, "left": 3}
GRID_HELP = "arrows turn/forward  space toggle  tab pickup  pgdn drop  enter done  r reset  q quit"
MAZE_HELP = "arrows move  r reset  q quit"

_RESET_STYLE = "\x1b[0m"
_ARROWS = ("▶", "▼", "◀", "▲")  # agent_dir 0 right, 1 down, 2 left, 3 up


def parse_keys(data: bytes) -> list[str]:
    """Key names in ``data`` (what one read from the terminal returned); unknown bytes are
    skipped."""
    keys, index = [], 0
    while index < len(data):
        for length in (4, 3, 2, 1):  # the longest known sequence first
            chunk = data[index : index + length]
            if chunk in _SEQUENCES:
                keys.append(_SEQUENCES[chunk])
                index += length
                break
        else:
            index += (
                4
                if data[index : index + 2] == b"\x1b[" and data[index + 3 : index + 4] == b"~"
                else 1
            )
    return keys


def _paint(text: str, rgb: Any, coloured: bool = True) -> str:
    if not coloured:
        return text
    r, g, b = (int(c) for c in rgb)
    return f"\x1b[38;2;{r};{g};{b}m{text}{_RESET_STYLE}"


def draw_grid(state: Any, coloured: bool = True) -> str:
    """The gridworld ``state`` (one, unbatched) as text, row by row, coloured if ``coloured``."""
    from horizax.grid import constants as C

    grid = np.asarray(state.grid)
    ax, ay = (int(v) for v in np.asarray(state.agent_pos))
    direction = int(np.asarray(state.agent_dir))
    rows = []
    for y in range(grid.shape[1]):
        cells = []
        for x in range(grid.shape[0]):
            kind, colour, door = (int(v) for v in grid[x, y])
            rgb = C.COLOR_RGB[colour]
            if (x, y) == (ax, ay):
                cells.append(_paint(_ARROWS[direction] + " ", C.COLOR_RGB[C.RED], coloured))
            elif kind == C.WALL:
                cells.append(_paint("██", rgb, coloured))
            elif kind == C.DOOR:
                cells.append(_paint(("□", "▣", "⊠")[door] + " ", rgb, coloured))
            elif kind in (C.KEY, C.BALL, C.BOX, C.GOAL, C.LAVA, C.FLOOR):
                symbol = {C.KEY: "⚷", C.BALL: "●", C.BOX: "▢", C.GOAL: "■", C.LAVA: "≈"}
                shade = (255, 128, 0) if kind == C.LAVA else rgb
                cells.append(_paint(symbol.get(kind, "·") + " ", shade, coloured))
            else:
                cells.append("  ")
        rows.append("".join(cells))
    return "\n".join(rows)


def draw_maze(state: Any, coloured: bool = True) -> str:
    """The Maze ``state`` (one, unbatched) as text: walls, agent ◆, target ★, coloured if
    ``coloured``."""
    walls = np.asarray(state.walls)
    agent = (int(np.asarray(state.agent_position.row)), int(np.asarray(state.agent_position.col)))
    target = (
        int(np.asarray(state.target_position.row)),
        int(np.asarray(state.target_position.col)),
    )
    rows = []
    for r in range(walls.shape[0]):
        cells = []
        for c in range(walls.shape[1]):
            if (r, c) == agent:
                cells.append(_paint("◆ ", (0, 200, 0), coloured))
            elif (r, c) == target:
                cells.append(_paint("★ ", (255, 0, 0), coloured))
            else:
                cells.append(_paint("██", (90, 90, 90), coloured) if walls[r, c] else "  ")
        rows.append("".join(cells))
    return "\n".join(rows)


class Session:
    """One playing session: the environment, its current episode and what the header shows.

    Args:
        env_id: a gridworld or Maze id (``horizax.make`` overrides in ``overrides``).
        seed: the first episode's seed; ``r`` plays seed + 1, seed + 2, ...

    Raises:
        ValueError: an unknown id, or a family that cannot be played by hand (the orbital
            games: continuous thrust).
    """

    def __init__(self, env_id: str, seed: int = 0, **overrides: Any) -> None:
        import jax

        from horizax.core.checks import int_in_range
        from horizax.core.registry import resolve
        from horizax.vector import VectorEnv

        self.env_id = resolve(env_id)
        self.seed = int_in_range(seed, "seed", minimum=0, maximum=2**32 - 1)
        self.venv = VectorEnv(self.env_id, 1, autoreset_mode="Disabled", devices=1, **overrides)
        kind = type(self.venv.fenv).__name__
        if kind not in ("GridFunctional", "MazeFunctional"):
            raise ValueError(f"horizax play takes a gridworld or the Maze, not {self.env_id}")
        self.is_grid = kind == "GridFunctional"
        self.keys = GRID_KEYS if self.is_grid else MAZE_KEYS
        self.max_steps = int(getattr(self.venv.fenv, "max_steps", 0))
        self._step = jax.jit(self.venv.step)
        self._unbatch = lambda tree: jax.tree.map(lambda x: x[0], tree)
        self.reset(self.seed)

    def reset(self, seed: int) -> None:
        """Starts the episode of ``seed``."""
        self.seed = seed
        self.env_state, _ = self.venv.reset(seed=seed)
        self.steps, self.total, self.reward, self.ending = 0, 0.0, 0.0, "running"
        self.last_action = "-"

    def press(self, key: str) -> bool:
        """Applies one key; False when it asks to quit."""
        if key == "quit":
            return False
        if key == "reset":
            self.reset(self.seed + 1)
        elif key in self.keys and self.ending == "running":
            action = np.asarray([self.keys[key]], np.int32)
            self.env_state, result, _ = self._step(self.env_state, action)
            self.steps += 1
            self.reward = float(np.asarray(result.reward)[0])
            self.total += self.reward
            self.last_action = key
            if bool(np.asarray(result.terminated)[0]):
                self.ending = "terminated"
            elif bool(np.asarray(result.truncated)[0]):
                self.ending = "truncated"
        return True

    def screen(self, coloured: bool = True) -> str:
        """The whole screen: header, level (coloured if ``coloured``), help line (no cursor
        movement)."""
        state = self._unbatch(self.env_state.state)
        lines = [f"{self.env_id}  seed {self.seed}"]
        if self.is_grid:
            from horizax.grid import constants as C
            from horizax.grid.missions import mission_text

            lines.append(f"mission: {mission_text(state)}")
            kind, colour, _ = (int(v) for v in np.asarray(state.carrying))
            held = (
                "nothing" if kind == C.EMPTY else f"{C.COLOR_NAMES[colour]} {C.OBJECT_NAMES[kind]}"
            )
            lines.append(f"carrying: {held}")
        lines.append(
            f"step {self.steps}/{self.max_steps}  last: {self.last_action}  "
            f"reward {self.reward:.4f}  return {self.total:.4f}"
        )
        if self.ending == "terminated":
            lines.append("episode TERMINATED (the task ended it): r for a new one, q quits")
        elif self.ending == "truncated":
            lines.append("episode TRUNCATED (time limit): r for a new one, q quits")
        else:
            lines.append("episode running")
        lines += ["", (draw_grid if self.is_grid else draw_maze)(state, coloured), ""]
        lines.append(GRID_HELP if self.is_grid else MAZE_HELP)
        return "\n".join(lines)


def play(
    env_id: str, seed: int = 0, *, stdin_fd: int | None = None, out: TextIO | None = None
) -> int:
    """Runs a session until ``q``: reads keys from ``stdin_fd`` (a terminal is switched to
    cbreak mode and restored), redraws on ``out`` after each key. Returns the exit status.

    Colours and screen clearing go only to a terminal: ``out`` that is not one (a pipe, a
    file) gets plain screens one after the other. ``NO_COLOR`` turns colour off and
    ``FORCE_COLOR`` on (`horizax.terminal.use_colour`).
    """
    from horizax.terminal import use_colour

    stream: TextIO = out if out is not None else sys.stdout
    coloured = use_colour(stream)
    clear = "\x1b[H\x1b[2J" if stream.isatty() else "\n"
    session = Session(env_id, seed)  # refuses a bad id or family before touching the terminal
    fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
    saved = None
    if os.isatty(fd):
        import termios
        import tty

        saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
    try:
        running = True
        while running:
            stream.write(clear + session.screen(coloured) + "\n")
            stream.flush()
            data = os.read(fd, 32)
            if not data:  # end of input
                break
            for key in parse_keys(data):
                if not session.press(key):
                    running = False
                    break
    except KeyboardInterrupt:
        pass
    finally:
        if saved is not None:
            import termios

            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    stream.write(f"\nbye: {session.steps} steps, return {session.total:.4f}, {session.ending}\n")
    stream.flush()
    return 0
