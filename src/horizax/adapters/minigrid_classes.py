"""The Gymnasium env classes of the gridworld ids, named as Farama MiniGrid's classes.

`horizax.adapters.gymnasium.register_all` makes each gridworld id's env an instance of the
class named as MiniGrid's class for that id (`horizax.adapters.minigrid_ids.class_name`):
``gymnasium.make("horizax/MiniGrid-Empty-8x8-v0")`` builds an `EmptyEnv`, and ``str(env)``
reads ``<...<EmptyEnv<horizax/MiniGrid-Empty-8x8-v0>>>`` as MiniGrid's does. Each class is
`horizax.adapters.gymnasium.GymnasiumEnv` and nothing more: same constructor, same behaviour
(``isinstance(env.unwrapped, GymnasiumEnv)`` holds); only the name differs. They are defined
here one by one, not generated, so that pickling (process-based vector envs) finds them by
module and name and the entry points stay strings.
"""

from __future__ import annotations

from horizax.adapters.gymnasium import GymnasiumEnv

__all__ = [
    "ActionObjDoor",
    "BlockedUnlockPickup",
    "BlockedUnlockPickupEnv",
    "BossLevel",
    "BossLevelNoUnlock",
    "CrossingEnv",
    "DistShiftEnv",
    "DoorKeyEnv",
    "DynamicObstaclesEnv",
    "EmptyEnv",
    "FetchEnv",
    "FindObjS5",
    "FourRoomsEnv",
    "GoTo",
    "GoToDoor",
    "GoToDoorEnv",
    "GoToImpUnlock",
    "GoToLocal",
    "GoToObj",
    "GoToObjDoor",
    "GoToObjectEnv",
    "GoToRedBall",
    "GoToRedBallGrey",
    "GoToRedBallNoDists",
    "GoToRedBlueBall",
    "GoToSeq",
    "KeyCorridor",
    "KeyCorridorEnv",
    "KeyInBox",
    "LavaGapEnv",
    "LockedRoomEnv",
    "MemoryEnv",
    "MiniBossLevel",
    "MoveTwoAcross",
    "MultiRoomEnv",
    "ObstructedMaze_1Dlhb",
    "ObstructedMaze_Full",
    "ObstructedMaze_Full_V1",
    "OneRoomS8",
    "Open",
    "OpenDoor",
    "OpenDoorsOrder",
    "OpenRedDoor",
    "OpenTwoDoors",
    "Pickup",
    "PickupAbove",
    "PickupDist",
    "PickupLoc",
    "PlaygroundEnv",
    "PutNearEnv",
    "PutNext",
    "PutNextLocal",
    "RedBlueDoorEnv",
    "Synth",
    "SynthLoc",
    "SynthSeq",
    "UnblockPickup",
    "Unlock",
    "UnlockEnv",
    "UnlockLocal",
    "UnlockPickup",
    "UnlockPickupEnv",
    "UnlockToUnlock",
    "WFCDungeonMazeScaledEnv",
    "WFCMazeSimpleEnv",
    "WFCObstaclesAngularEnv",
    "WFCObstaclesBlackdotsEnv",
    "WFCObstaclesHogs3Env",
    "WFCRoomsFabricEnv",
]


class ActionObjDoor(GymnasiumEnv):
    """MiniGrid's ``ActionObjDoor`` ids, played by horizax."""


class BlockedUnlockPickup(GymnasiumEnv):
    """MiniGrid's BabyAI ``BlockedUnlockPickup`` ids, played by horizax."""


class BlockedUnlockPickupEnv(GymnasiumEnv):
    """MiniGrid's ``BlockedUnlockPickupEnv`` ids, played by horizax."""


class CrossingEnv(GymnasiumEnv):
    """MiniGrid's ``CrossingEnv`` ids, played by horizax."""


class DistShiftEnv(GymnasiumEnv):
    """MiniGrid's ``DistShiftEnv`` ids, played by horizax."""


class DoorKeyEnv(GymnasiumEnv):
    """MiniGrid's ``DoorKeyEnv`` ids, played by horizax."""


class DynamicObstaclesEnv(GymnasiumEnv):
    """MiniGrid's ``DynamicObstaclesEnv`` ids, played by horizax."""


class EmptyEnv(GymnasiumEnv):
    """MiniGrid's ``EmptyEnv`` ids, played by horizax."""


class FetchEnv(GymnasiumEnv):
    """MiniGrid's ``FetchEnv`` ids, played by horizax."""


class FindObjS5(GymnasiumEnv):
    """MiniGrid's ``FindObjS5`` ids (every room size), played by horizax."""


class FourRoomsEnv(GymnasiumEnv):
    """MiniGrid's ``FourRoomsEnv`` ids, played by horizax."""


class GoTo(GymnasiumEnv):
    """MiniGrid's BabyAI ``GoTo`` ids (GoToOpen and the GoToObjMaze ids too), played by
    horizax."""


class GoToDoor(GymnasiumEnv):
    """MiniGrid's ``GoToDoor`` ids (BabyAI's), played by horizax."""


class GoToDoorEnv(GymnasiumEnv):
    """MiniGrid's ``GoToDoorEnv`` ids, played by horizax."""


class GoToImpUnlock(GymnasiumEnv):
    """MiniGrid's ``GoToImpUnlock`` ids, played by horizax."""


class GoToLocal(GymnasiumEnv):
    """MiniGrid's ``GoToLocal`` ids, played by horizax."""


class GoToObj(GymnasiumEnv):
    """MiniGrid's ``GoToObj`` ids, played by horizax."""


class GoToObjDoor(GymnasiumEnv):
    """MiniGrid's ``GoToObjDoor`` ids, played by horizax."""


class GoToObjectEnv(GymnasiumEnv):
    """MiniGrid's ``GoToObjectEnv`` ids, played by horizax."""


class GoToRedBall(GymnasiumEnv):
    """MiniGrid's ``GoToRedBall`` ids, played by horizax."""


class GoToRedBallGrey(GymnasiumEnv):
    """MiniGrid's ``GoToRedBallGrey`` ids, played by horizax."""


class GoToRedBallNoDists(GymnasiumEnv):
    """MiniGrid's ``GoToRedBallNoDists`` ids, played by horizax."""


class GoToRedBlueBall(GymnasiumEnv):
    """MiniGrid's ``GoToRedBlueBall`` ids, played by horizax."""


class KeyInBox(GymnasiumEnv):
    """MiniGrid's ``KeyInBox`` ids, played by horizax."""


class KeyCorridor(GymnasiumEnv):
    """MiniGrid's BabyAI ``KeyCorridor`` ids (every size), played by horizax."""


class KeyCorridorEnv(GymnasiumEnv):
    """MiniGrid's ``KeyCorridorEnv`` ids, played by horizax."""


class LavaGapEnv(GymnasiumEnv):
    """MiniGrid's ``LavaGapEnv`` ids, played by horizax."""


class LockedRoomEnv(GymnasiumEnv):
    """MiniGrid's ``LockedRoomEnv`` ids, played by horizax."""


class MemoryEnv(GymnasiumEnv):
    """MiniGrid's ``MemoryEnv`` ids, played by horizax."""


class MoveTwoAcross(GymnasiumEnv):
    """MiniGrid's ``MoveTwoAcross`` ids (both sizes), played by horizax."""


class MultiRoomEnv(GymnasiumEnv):
    """MiniGrid's ``MultiRoomEnv`` ids, played by horizax."""


class ObstructedMaze_1Dlhb(GymnasiumEnv):  # noqa: N801  (MiniGrid\'s name)
    """MiniGrid's ``ObstructedMaze_1Dlhb`` ids, played by horizax."""


class ObstructedMaze_Full(GymnasiumEnv):  # noqa: N801  (MiniGrid\'s name)
    """MiniGrid's ``ObstructedMaze_Full`` ids, played by horizax."""


class ObstructedMaze_Full_V1(GymnasiumEnv):  # noqa: N801  (MiniGrid\'s name)
    """MiniGrid's ``ObstructedMaze_Full_V1`` ids, played by horizax."""


class OneRoomS8(GymnasiumEnv):
    """MiniGrid's ``OneRoomS8`` ids (every room size), played by horizax."""


class Open(GymnasiumEnv):
    """MiniGrid's BabyAI ``Open`` ids, played by horizax."""


class OpenDoor(GymnasiumEnv):
    """MiniGrid's ``OpenDoor`` ids (its Debug, Color and Loc variants too), played by horizax."""


class OpenDoorsOrder(GymnasiumEnv):
    """MiniGrid's ``OpenDoorsOrder`` ids (two or four doors, Debug too), played by horizax."""


class OpenRedDoor(GymnasiumEnv):
    """MiniGrid's ``OpenRedDoor`` ids, played by horizax."""


class OpenTwoDoors(GymnasiumEnv):
    """MiniGrid's ``OpenTwoDoors`` ids (OpenRedBlueDoors and its Debug too), played by
    horizax."""


class Pickup(GymnasiumEnv):
    """MiniGrid's BabyAI ``Pickup`` ids, played by horizax."""


class PickupAbove(GymnasiumEnv):
    """MiniGrid's ``PickupAbove`` ids, played by horizax."""


class PickupDist(GymnasiumEnv):
    """MiniGrid's ``PickupDist`` ids, played by horizax."""


class PickupLoc(GymnasiumEnv):
    """MiniGrid's ``PickupLoc`` ids, played by horizax."""


class PlaygroundEnv(GymnasiumEnv):
    """MiniGrid's ``PlaygroundEnv`` ids, played by horizax."""


class PutNearEnv(GymnasiumEnv):
    """MiniGrid's ``PutNearEnv`` ids, played by horizax."""


class PutNext(GymnasiumEnv):
    """MiniGrid's two-room ``PutNext`` ids (every size, Carrying too), played by horizax."""


class PutNextLocal(GymnasiumEnv):
    """MiniGrid's ``PutNextLocal`` ids, played by horizax."""


class RedBlueDoorEnv(GymnasiumEnv):
    """MiniGrid's ``RedBlueDoorEnv`` ids, played by horizax."""


class UnlockLocal(GymnasiumEnv):
    """MiniGrid's ``UnlockLocal`` ids (its Dist variant too), played by horizax."""


class UnlockPickup(GymnasiumEnv):
    """MiniGrid's BabyAI ``UnlockPickup`` ids (its Dist variant too), played by horizax."""


class UnblockPickup(GymnasiumEnv):
    """MiniGrid's ``UnblockPickup`` ids, played by horizax."""


class Unlock(GymnasiumEnv):
    """MiniGrid's BabyAI ``Unlock`` ids, played by horizax."""


class UnlockEnv(GymnasiumEnv):
    """MiniGrid's ``UnlockEnv`` ids, played by horizax."""


class UnlockPickupEnv(GymnasiumEnv):
    """MiniGrid's ``UnlockPickupEnv`` ids, played by horizax."""


class UnlockToUnlock(GymnasiumEnv):
    """MiniGrid's ``UnlockToUnlock`` ids, played by horizax."""


class BossLevel(GymnasiumEnv):
    """MiniGrid's ``BossLevel`` ids, played by horizax."""


class BossLevelNoUnlock(GymnasiumEnv):
    """MiniGrid's ``BossLevelNoUnlock`` ids, played by horizax."""


class GoToSeq(GymnasiumEnv):
    """MiniGrid's ``GoToSeq`` ids (its S5R2 variant too), played by horizax."""


class MiniBossLevel(GymnasiumEnv):
    """MiniGrid's ``MiniBossLevel`` ids, played by horizax."""


class Synth(GymnasiumEnv):
    """MiniGrid's ``Synth`` ids (SynthS5R2 too), played by horizax."""


class SynthLoc(GymnasiumEnv):
    """MiniGrid's ``SynthLoc`` ids, played by horizax."""


class SynthSeq(GymnasiumEnv):
    """MiniGrid's ``SynthSeq`` ids, played by horizax."""


class WFCMazeSimpleEnv(GymnasiumEnv):
    """MiniGrid's ``WFCMazeSimpleEnv`` id, played by horizax."""


class WFCDungeonMazeScaledEnv(GymnasiumEnv):
    """MiniGrid's ``WFCDungeonMazeScaledEnv`` id, played by horizax."""


class WFCRoomsFabricEnv(GymnasiumEnv):
    """MiniGrid's ``WFCRoomsFabricEnv`` id, played by horizax."""


class WFCObstaclesBlackdotsEnv(GymnasiumEnv):
    """MiniGrid's ``WFCObstaclesBlackdotsEnv`` id, played by horizax."""


class WFCObstaclesAngularEnv(GymnasiumEnv):
    """MiniGrid's ``WFCObstaclesAngularEnv`` id, played by horizax."""


class WFCObstaclesHogs3Env(GymnasiumEnv):
    """MiniGrid's ``WFCObstaclesHogs3Env`` id, played by horizax."""
