"""The Maze adapters, now `horizax.bench.maze` (they also run ``horizax bench --vs jumanji``).

This name keeps ``peers.py``'s ``from maze_peers import ...``.
"""

from horizax.bench.maze import *  # noqa: F403
