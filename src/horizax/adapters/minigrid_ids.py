"""What the Gymnasium adapter knows of Farama MiniGrid's ids: class names, specs, layouts.

* `class_name`: the name of MiniGrid's class for a gridworld id (``EmptyEnv``,
  ``DoorKeyEnv``, BabyAI's ``GoToLocal``, ...), which names the adapter's env class for that id
  (`horizax.adapters.minigrid_classes`), so ``str(env)`` reads as MiniGrid's.
* `minigrid_env`: MiniGrid's own env for one of its ids, built from MiniGrid's registration
  even after `horizax.adapters.gymnasium.register_as_minigrid` replaced it in Gymnasium's
  registry (`remember` keeps the replaced specs).
* `ReferenceLayouts`: ``gymnasium.make(id, layouts="minigrid")``: each reset lets MiniGrid's
  env generate the layout (``reset(seed=s)``: MiniGrid's layout for ``s``; ``reset()``:
  MiniGrid's next one, from its ``np_random``) and copies it into a horizax state through the
  protocol view's optional ``reference_layouts()`` (the gridworld's is
  `horizax.grid.from_minigrid.MiniGridLayouts`).

Only this module (and only when a MiniGrid env is built) imports ``minigrid``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["ReferenceLayouts", "class_name", "minigrid_env", "remember"]

_EXTRA = "pip install 'horizax[reference]' (or pip install minigrid==3.2.0)"

# Id prefix -> MiniGrid class (MiniGrid 3.2.0's registrations; the longest prefix wins).
_CLASSES = {
    "MiniGrid-BlockedUnlockPickup-": "BlockedUnlockPickupEnv",
    "MiniGrid-DistShift": "DistShiftEnv",
    "MiniGrid-DoorKey-": "DoorKeyEnv",
    "MiniGrid-Dynamic-Obstacles-": "DynamicObstaclesEnv",
    "MiniGrid-Empty-": "EmptyEnv",
    "MiniGrid-Fetch-": "FetchEnv",
    "MiniGrid-FourRooms-": "FourRoomsEnv",
    "MiniGrid-GoToDoor-": "GoToDoorEnv",
    "MiniGrid-GoToObject-": "GoToObjectEnv",
    "MiniGrid-KeyCorridor": "KeyCorridorEnv",
    "MiniGrid-LavaCrossing": "CrossingEnv",
    "MiniGrid-LavaGap": "LavaGapEnv",
    "MiniGrid-LockedRoom-": "LockedRoomEnv",
    "MiniGrid-Memory": "MemoryEnv",
    "MiniGrid-MultiRoom-": "MultiRoomEnv",
    "MiniGrid-ObstructedMaze-1D": "ObstructedMaze_1Dlhb",
    "MiniGrid-ObstructedMaze-": "ObstructedMaze_Full",  # "-v1" ids: ObstructedMaze_Full_V1
    "MiniGrid-Playground-": "PlaygroundEnv",
    "MiniGrid-PutNear-": "PutNearEnv",
    "MiniGrid-RedBlueDoors-": "RedBlueDoorEnv",
    "MiniGrid-SimpleCrossing": "CrossingEnv",
    "MiniGrid-Unlock-": "UnlockEnv",
    "MiniGrid-UnlockPickup-": "UnlockPickupEnv",
    "MiniGrid-WFC-MazeSimple-": "WFCMazeSimpleEnv",
    "MiniGrid-WFC-DungeonMazeScaled-": "WFCDungeonMazeScaledEnv",
    "MiniGrid-WFC-RoomsFabric-": "WFCRoomsFabricEnv",
    "MiniGrid-WFC-ObstaclesBlackdots-": "WFCObstaclesBlackdotsEnv",
    "MiniGrid-WFC-ObstaclesAngular-": "WFCObstaclesAngularEnv",
    "MiniGrid-WFC-ObstaclesHogs3-": "WFCObstaclesHogs3Env",
    "BabyAI-ActionObjDoor-": "ActionObjDoor",
    "BabyAI-BlockedUnlockPickup-": "BlockedUnlockPickup",
    "BabyAI-BossLevel-": "BossLevel",
    "BabyAI-BossLevelNoUnlock-": "BossLevelNoUnlock",
    "BabyAI-FindObjS": "FindObjS5",  # every room size: MiniGrid's class takes it
    "BabyAI-GoTo-": "GoTo",
    "BabyAI-GoToDoor-": "GoToDoor",
    "BabyAI-GoToImpUnlock-": "GoToImpUnlock",
    "BabyAI-GoToLocal": "GoToLocal",
    "BabyAI-GoToObj": "GoToObj",
    "BabyAI-GoToObjDoor-": "GoToObjDoor",
    "BabyAI-GoToObjMaze": "GoTo",  # every size, Open too
    "BabyAI-GoToOpen-": "GoTo",
    "BabyAI-GoToRedBall-": "GoToRedBall",
    "BabyAI-GoToRedBallGrey-": "GoToRedBallGrey",
    "BabyAI-GoToRedBallNoDists-": "GoToRedBallNoDists",
    "BabyAI-GoToRedBlueBall-": "GoToRedBlueBall",
    "BabyAI-GoToSeq": "GoToSeq",  # its S5R2 variant too
    "BabyAI-KeyCorridor": "KeyCorridor",  # every size
    "BabyAI-KeyInBox-": "KeyInBox",
    "BabyAI-MiniBossLevel-": "MiniBossLevel",
    "BabyAI-MoveTwoAcross": "MoveTwoAcross",  # S5N2 and S8N9
    "BabyAI-OneRoomS": "OneRoomS8",  # every room size: MiniGrid's class takes it
    "BabyAI-Open-": "Open",
    "BabyAI-OpenDoor-": "OpenDoor",
    "BabyAI-OpenDoorColor-": "OpenDoor",
    "BabyAI-OpenDoorDebug-": "OpenDoor",
    "BabyAI-OpenDoorLoc-": "OpenDoor",
    "BabyAI-OpenDoorsOrder": "OpenDoorsOrder",  # N2, N4 and their Debug variants
    "BabyAI-OpenRedBlueDoors": "OpenTwoDoors",  # its Debug variant too
    "BabyAI-OpenRedDoor-": "OpenRedDoor",
    "BabyAI-OpenTwoDoors-": "OpenTwoDoors",
    "BabyAI-Pickup-": "Pickup",
    "BabyAI-PickupAbove-": "PickupAbove",
    "BabyAI-PickupDist": "PickupDist",  # its Debug variant too
    "BabyAI-PickupLoc-": "PickupLoc",
    "BabyAI-PutNextLocal": "PutNextLocal",  # its S5N3 and S6N4 variants too
    "BabyAI-PutNextS": "PutNext",  # every size, the Carrying variants too
    "BabyAI-Synth-": "Synth",
    "BabyAI-SynthLoc-": "SynthLoc",
    "BabyAI-SynthS5R2-": "Synth",
    "BabyAI-SynthSeq-": "SynthSeq",
    "BabyAI-UnblockPickup-": "UnblockPickup",
    "BabyAI-Unlock-": "Unlock",
    "BabyAI-UnlockLocal": "UnlockLocal",  # its Dist variant too
    "BabyAI-UnlockPickup": "UnlockPickup",  # its Dist variant too
    "BabyAI-UnlockToUnlock-": "UnlockToUnlock",
}

# MiniGrid's specs that `register_as_minigrid` replaced, by id.
_REPLACED: dict[str, Any] = {}


def class_name(env_id: str) -> str | None:
    """MiniGrid's class name for a canonical horizax id, or None (not a MiniGrid id)."""
    matches = [prefix for prefix in _CLASSES if env_id.startswith(prefix)]
    if not matches:
        return None
    name = _CLASSES[max(matches, key=len)]
    if name == "ObstructedMaze_Full" and env_id.endswith("-v1"):
        return "ObstructedMaze_Full_V1"
    return name


def import_minigrid(what: str) -> Any:
    """The ``minigrid`` package (registering its ids).

    Raises:
        ImportError: naming the extra that installs it.
    """
    try:
        import minigrid
    except ImportError as err:
        raise ImportError(
            f"{what} needs the optional dependency minigrid: {_EXTRA}. Original error: {err}"
        ) from err
    return minigrid


def remember(spec: Any) -> None:
    """Keeps MiniGrid's own spec of an id that is about to be replaced (the first one)."""
    if str(spec.entry_point).startswith("minigrid"):
        _REPLACED.setdefault(spec.id, spec)


def minigrid_env(
    env_id: str, overrides: dict[str, Any], data_files: Mapping[str, Path] | None = None
) -> Any:
    """MiniGrid's own unwrapped env for ``env_id``, with the ``overrides`` its class takes.

    Overrides its constructor does not name (horizax's ``observation_fn``, ...) are left out:
    they do not change layouts.

    Args:
        env_id: a MiniGrid id.
        overrides: `horizax.make` overrides.
        data_files: files MiniGrid's env reads that its wheel lacks, by file name (the WFC
            ids' pattern images: `horizax.grid.from_minigrid.MiniGridLayouts.data_files`).
            MiniGrid's WFC preset is pointed at the one of its image's name.

    Raises:
        ImportError: without ``minigrid`` (or, for a WFC id, its ``wfc`` extra).
        ValueError: MiniGrid has no such id.
    """
    import_minigrid("layouts='minigrid'")
    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    spec = _REPLACED.get(env_id) or gymnasium.registry.get(env_id)
    if spec is None or not str(spec.entry_point).startswith("minigrid"):
        raise ValueError(f"layouts='minigrid': MiniGrid has no id {env_id!r}")
    entry_point: Any = spec.entry_point
    creator: Any = load_env_creator(entry_point) if isinstance(entry_point, str) else entry_point
    accepted = _parameters(creator)
    kwargs = {**spec.kwargs, **{k: v for k, v in overrides.items() if k in accepted}}
    if isinstance(kwargs.get("wfc_config"), str):
        kwargs["wfc_config"] = _wfc_config(kwargs["wfc_config"], data_files or {})
    return creator(**kwargs).unwrapped


def _wfc_config(name: str, data_files: Mapping[str, Path]) -> Any:
    """MiniGrid's WFC preset ``name``, its pattern image read from ``data_files`` if there.

    MiniGrid 3.2.0's wheel leaves its pattern images out, so its own ``MiniGrid-WFC-*`` envs
    raise FileNotFoundError on construction; horizax ships byte-identical copies, which the
    gridworld hands over as data files (no adapter imports a family).
    """
    import dataclasses

    try:
        from minigrid.envs.wfc.config import WFC_PRESETS
    except ImportError as err:  # networkx and imageio: MiniGrid's own "wfc" extra
        raise ImportError(
            f"MiniGrid's WFC envs need minigrid[wfc]: {_EXTRA}. Original error: {err}"
        ) from err

    config = WFC_PRESETS[name]
    path = data_files.get(config.pattern_path.name)
    return config if path is None else dataclasses.replace(config, pattern_path=path)


def _parameters(creator: Any) -> set[str]:
    """The keyword names a MiniGrid class takes (its base's too where it passes **kwargs)."""
    names: set[str] = set()
    for cls in inspect.getmro(creator) if inspect.isclass(creator) else (creator,):
        init = getattr(cls, "__init__", None)
        if init is None or cls is object:
            continue
        params = inspect.signature(init).parameters.values()
        names |= {p.name for p in params if p.kind is not p.VAR_KEYWORD}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return names - {"self"}


class ReferenceLayouts:
    """The layouts of a reference library for one adapter env (``layouts="minigrid"``).

    Args:
        fenv: the protocol view; it must offer ``reference_layouts()``.
        overrides: the `horizax.make` overrides the env was made with.

    Raises:
        ValueError: a view without reference layouts (not a gridworld), or one that refuses
            (a BabyAI level).
    """

    def __init__(self, fenv: Any, overrides: dict[str, Any]) -> None:
        make = getattr(fenv, "reference_layouts", None)
        if make is None:
            raise ValueError(
                f"layouts='minigrid' needs a MiniGrid id; {fenv.env_id or fenv!r} has no "
                "MiniGrid layouts (use layouts='horizax')"
            )
        self.copier = make()
        self._overrides = dict(overrides)
        self._mg: Any = None

    def state(self, seed: int | None, key: Any) -> Any:
        """A protocol state holding MiniGrid's layout: for ``seed``, or MiniGrid's next one."""
        if self._mg is None:
            data = getattr(self.copier, "data_files", None)
            self._mg = minigrid_env(self.copier.reference_id, self._overrides, data)
        self._mg.reset(seed=seed)
        return self.copier.state(self._mg, key)
