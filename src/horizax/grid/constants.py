"""MiniGrid's encodings, as small integers (Farama MiniGrid 3.2.0 values).

A grid cell is encoded as ``(object, colour, state)``; the grid array is indexed ``[x, y]``
like MiniGrid's ``Grid.encode()`` (x = column, y = row; shape ``[width, height, 3]``).
"""

from __future__ import annotations

import numpy as np

# Object types (OBJECT_TO_IDX).
UNSEEN = 0
EMPTY = 1
WALL = 2
FLOOR = 3
DOOR = 4
KEY = 5
BALL = 6
BOX = 7
GOAL = 8
LAVA = 9
AGENT = 10
NUM_OBJECTS = 11
OBJECT_NAMES = (
    "unseen", "empty", "wall", "floor", "door", "key", "ball", "box", "goal", "lava", "agent",
)  # fmt: skip

# Colours (COLOR_TO_IDX).
RED = 0
GREEN = 1
BLUE = 2
PURPLE = 3
YELLOW = 4
GREY = 5
NUM_COLORS = 6
COLOR_NAMES = ("red", "green", "blue", "purple", "yellow", "grey")
COLOR_RGB = np.array(
    [[255, 0, 0], [0, 255, 0], [0, 0, 255], [112, 39, 195], [255, 255, 0], [100, 100, 100]],
    dtype=np.uint8,
)

# Door states (STATE_TO_IDX).
OPEN = 0
CLOSED = 1
LOCKED = 2
NUM_STATES = 3

# Directions: 0 = right (+x), 1 = down (+y), 2 = left, 3 = up (DIR_TO_VEC).
DIR_TO_VEC = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], dtype=np.int32)

# Actions (MiniGrid's Actions enum).
LEFT = 0
RIGHT = 1
FORWARD = 2
PICKUP = 3
DROP = 4
TOGGLE = 5
DONE = 6
NUM_ACTIONS = 7
ACTION_NAMES = ("left", "right", "forward", "pickup", "drop", "toggle", "done")

# Default cell encodings.
EMPTY_CELL = (EMPTY, 0, 0)
WALL_CELL = (WALL, GREY, 0)
GOAL_CELL = (GOAL, GREEN, 0)
LAVA_CELL = (LAVA, RED, 0)

AGENT_VIEW_SIZE = 7
