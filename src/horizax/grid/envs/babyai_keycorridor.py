"""BabyAI-KeyCorridor: find the key, unlock the side room, pick up the ball, as instructed.

MiniGrid 3.2.0's BabyAI ``KeyCorridor`` (``minigrid/envs/babyai/other.py``), registered as
``BabyAI-KeyCorridor-v0`` (rooms of side 6, three rows) and ``BabyAI-KeyCorridorS{S}R{R}-v0``.
Its ``gen_mission`` is the classic ``KeyCorridorEnv``'s layout code, draw for draw: the middle
column made a corridor, a locked door on the left wall of a uniform side room of the right
column with the ball behind it, the key of the door's colour in a uniform room of the left
column, the agent in the corridor's middle room, then ``connect_all``. So the layout is
`horizax.grid.envs.keycorridor.keycorridor_layout` (MiniGrid's distribution, its closed-form
``connect_all`` included) and only the instruction differs: BabyAI's "pick up the ball"
(``PickupInstr(ObjDesc("ball"))``; the layout holds one ball), verified every step, where
the classic id says "pick up the COLOUR ball" and checks the pickup itself.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the ball is picked up, else 0.
* termination: the verifier's success; truncation at ``max_steps = 30 * S**2``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-KeyCorridorS3R3-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import verifiers as V
from horizax.grid.environment import LayoutFn
from horizax.grid.envs.keycorridor import CONFIGS, NUM_COLS, keycorridor_layout
from horizax.grid.state import State

PICKUP = (V.Instr.PICKUP,)


def babyai_keycorridor_layout(room_size: int, num_rows: int) -> LayoutFn:
    """``key -> State``: the classic KeyCorridor layout with BabyAI's instruction.

    Args:
        room_size: side of each room, walls included (>= 3).
        num_rows: rows of rooms (>= 1); there are always three columns.
    """
    layout = keycorridor_layout(room_size, num_rows)

    def draw(key: Array) -> State:
        instr = level.action(V.Instr.PICKUP, False, (C.BALL, D.ANY, D.Loc.NONE))
        return level.begin(layout(key), instr, room_size=room_size, kinds=PICKUP)

    return draw


def _entry(name: str, room_size: int, num_rows: int):
    env_id = f"BabyAI-{name}-v0"
    return env_id, level.level_factory(
        env_id,
        room_size=room_size,
        num_rows=num_rows,
        num_cols=NUM_COLS,
        num_navs=1,
        layout_fn=babyai_keycorridor_layout(room_size, num_rows),
        kinds=PICKUP,
        max_steps=30 * room_size**2,
    )


ENVIRONMENTS = dict(
    [
        _entry("KeyCorridor", 6, 3),
        *(_entry(f"KeyCorridorS{size}R{rows}", size, rows) for size, rows in CONFIGS),
    ]
)
