import ast
import inspect
import pathlib
import pkgutil

import pytest

import horizax
from horizax.core import registry
from horizax.grid import observations


@pytest.fixture
def empty_registry(monkeypatch):
    """A registry with no ids, so collision tests cannot disturb the real one."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_ALIASES", {})


def _factory():
    return None


def _other_factory():
    return None


def test_unknown_id_suggests_close_ids():
    with pytest.raises(ValueError, match=r"Did you mean: .*MiniGrid-Empty-8x8-v0"):
        horizax.make("MiniGrid-Empty-8x9-v0")


def test_unknown_id_without_close_match_still_explains():
    with pytest.raises(ValueError, match="unknown environment id"):
        horizax.make("zzzz")


def test_navix_alias_resolves_to_the_same_environment():
    env = horizax.make("Navix-Empty-8x8-v0")
    assert env.env_id == "MiniGrid-Empty-8x8-v0"
    assert "Navix-Empty-8x8-v0" in horizax.registered_ids(include_aliases=True)
    assert "Navix-Empty-8x8-v0" not in horizax.registered_ids()


def test_overrides_apply_and_unknown_overrides_are_named():
    env = horizax.make("MiniGrid-Empty-8x8-v0", max_steps=7, observation_fn=observations.symbolic)
    assert env.max_steps == 7
    assert env.observation_space.shape == (8, 8, 3)
    with pytest.raises(ValueError, match="max_step"):
        horizax.make("MiniGrid-Empty-8x8-v0", max_step=7)


def test_invalid_override_values_raise_at_construction():
    with pytest.raises(ValueError, match="max_steps"):
        horizax.make("MiniGrid-Empty-8x8-v0", max_steps=0)
    with pytest.raises(ValueError, match="observation_fn"):
        horizax.make("MiniGrid-Empty-8x8-v0", observation_fn=3)


def test_import_has_no_registration_side_effect():
    import subprocess
    import sys

    code = (
        "import sys, horizax, horizax.core.registry as r;"
        "assert not r._REGISTRY and not r._ALIASES and r._LOADED == 0, 'import registered ids';"
        "prefixes = ('horizax.grid', 'horizax.maze', 'horizax.orbital');"
        "families = [m for m in sys.modules if m.startswith(prefixes)];"
        "assert not families, f'import loaded {families}'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_id_and_alias_of_the_explicit_lists_is_registered():
    """82 MiniGrid ids (6 of them WFC), 96 BabyAI levels, Maze-v0 and 5 orbital games;
    every classic MiniGrid id but one has a Navix alias (navix has no BabyAI or WFC level)."""
    ids = horizax.registered_ids()
    minigrid = [i for i in ids if i.startswith("MiniGrid-")]
    local = [f"S{s}N{n}" for s, n in [(5, 2), (6, 2), (6, 3), (6, 4), (7, 4), (7, 5)]]
    local += [f"S8N{n}" for n in range(2, 8)]
    goto = ["Local", *(f"Local{v}" for v in local), "Obj", "ObjS4", "RedBall"]
    goto += ["RedBallGrey", "RedBallNoDists", "RedBlueBall"]
    babyai = {f"BabyAI-GoTo{v}-v0" for v in goto} | {"BabyAI-GoToObjS6-v1"}
    babyai |= {"BabyAI-PickupDist-v0", "BabyAI-PickupDistDebug-v0", "BabyAI-PickupLoc-v0"}
    babyai |= {f"BabyAI-PutNextLocal{v}-v0" for v in ("", "S5N3", "S6N4")}
    babyai |= {f"BabyAI-OneRoomS{s}-v0" for s in (8, 12, 16, 20)}
    babyai |= {f"BabyAI-OpenDoor{v}-v0" for v in ("", "Debug", "Color", "Loc")}
    babyai |= {f"BabyAI-{v}-v0" for v in ("OpenRedDoor", "GoToDoor", "GoToObjDoor")}
    babyai |= {"BabyAI-ActionObjDoor-v0"}
    babyai |= {f"BabyAI-Open{v}-v0" for v in ("TwoDoors", "RedBlueDoors", "RedBlueDoorsDebug")}
    babyai |= {f"BabyAI-OpenDoorsOrderN{n}{d}-v0" for n in (2, 4) for d in ("", "Debug")}
    babyai |= {f"BabyAI-Unlock{v}-v0" for v in ("Local", "LocalDist", "Pickup", "PickupDist")}
    babyai |= {f"BabyAI-{v}-v0" for v in ("KeyInBox", "BlockedUnlockPickup", "UnlockToUnlock")}
    put_next = ["S4N1", "S5N1", "S5N2", "S6N3", "S7N4", "S5N2Carrying", "S6N3Carrying"]
    babyai |= {f"BabyAI-PutNext{v}-v0" for v in [*put_next, "S7N4Carrying"]}
    babyai |= {"BabyAI-MoveTwoAcrossS5N2-v0", "BabyAI-MoveTwoAcrossS8N9-v0"}
    corridors = ["", "S3R1", "S3R2", "S3R3", "S4R3", "S5R3", "S6R3"]
    babyai |= {f"BabyAI-KeyCorridor{v}-v0" for v in corridors}
    babyai |= {f"BabyAI-FindObjS{s}-v0" for s in (5, 6, 7)} | {"BabyAI-PickupAbove-v0"}
    mazes = ["", "Open", "S4R2", "S4", "S5", "S6", "S7"]
    babyai |= {"BabyAI-GoTo-v0", "BabyAI-GoToOpen-v0"}
    babyai |= {"BabyAI-Open-v0", "BabyAI-Pickup-v0", "BabyAI-UnblockPickup-v0"}
    babyai |= {"BabyAI-Unlock-v0", "BabyAI-GoToImpUnlock-v0"}
    babyai |= {f"BabyAI-GoToObjMaze{v}-v0" for v in mazes}
    grammar = ["GoToSeq", "GoToSeqS5R2", "Synth", "SynthS5R2", "SynthLoc", "SynthSeq"]
    grammar += ["MiniBossLevel", "BossLevel", "BossLevelNoUnlock"]
    babyai |= {f"BabyAI-{v}-v0" for v in grammar}
    orbital = {
        "Orbital-GetOffMyLawn-v0",
        "Orbital-LadyBanditGuard-v0",
        "Orbital-ObservationBlocking-v0",
        "Orbital-PursuitEvasion-v0",
        "Orbital-SunBlocking-v0",
    }
    wfc = ["MazeSimple", "DungeonMazeScaled", "RoomsFabric", "ObstaclesBlackdots"]
    wfc += ["ObstaclesAngular", "ObstaclesHogs3"]
    assert {f"MiniGrid-WFC-{v}-v0" for v in wfc} <= set(minigrid)
    assert len(minigrid) == 82 and set(ids) == {*minigrid, *babyai, "Maze-v0", *orbital}
    aliases = set(horizax.registered_ids(include_aliases=True)) - set(ids)
    assert len(aliases) == 75
    # navix registers its N4-S5-v0 with the 4 rooms its name promises: MiniGrid's v1.
    renamed = {"Navix-MultiRoom-N4-S5-v0": "MiniGrid-MultiRoom-N4-S5-v1"}
    for alias in aliases:
        expected = renamed.get(alias, "MiniGrid-" + alias.removeprefix("Navix-"))
        assert registry.resolve(alias) == expected


def test_grid_registry_lists_every_family_module():
    """A family module missing from `horizax.grid.registry` would silently lose its ids."""
    from horizax.grid import envs
    from horizax.grid import registry as grid_registry

    listed = {m.__name__.rsplit(".", 1)[-1] for m in grid_registry.FAMILY_MODULES}
    defining = set()
    for info in pkgutil.iter_modules(envs.__path__):
        tree = ast.parse(pathlib.Path(envs.__path__[0], f"{info.name}.py").read_text())
        names = {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        if "ENVIRONMENTS" in names:
            defining.add(info.name)
    assert listed == defining


def test_core_registry_names_no_family_and_discovers_nothing():
    """The registry is generic: no family module names, no package scanning."""
    source = inspect.getsource(registry)
    for word in ("pkgutil", "importlib", "horizax.grid", "horizax.maze", "__import__"):
        assert word not in source, word


def test_an_alias_equal_to_an_id_is_rejected_naming_both(empty_registry):
    registry.register("A-v0", _factory)
    registry.register("B-v0", _other_factory)
    with pytest.raises(ValueError, match="'A-v0' -> 'B-v0' collides with the id 'A-v0'"):
        registry.register_alias("A-v0", "B-v0")
    registry.register_alias("Alias-v0", "A-v0")
    with pytest.raises(ValueError, match="'Alias-v0' is already an alias of 'A-v0'"):
        registry.register("Alias-v0", _other_factory)


def test_an_alias_with_two_targets_is_rejected_naming_both(empty_registry):
    registry.register_all({"A-v0": _factory, "B-v0": _other_factory}, {"Alias-v0": "A-v0"})
    with pytest.raises(ValueError, match="points to both 'A-v0' and 'B-v0'"):
        registry.register_all({}, {"Alias-v0": "B-v0"})
    with pytest.raises(ValueError, match="'Missing-v0', which is not registered"):
        registry.register_alias("Other-v0", "Missing-v0")


def test_registering_the_same_lists_twice_is_a_no_op_but_a_new_factory_is_not(empty_registry):
    environments, aliases = {"A-v0": _factory}, {"Alias-v0": "A-v0"}
    registry.register_all(environments, aliases)
    registry.register_all(environments, aliases)
    assert registry.resolve("Alias-v0") == "A-v0"
    with pytest.raises(ValueError, match="'A-v0' is already registered"):
        registry.register("A-v0", _other_factory)


def test_sources_run_once_lazily(empty_registry, monkeypatch):
    calls = []
    monkeypatch.setattr(registry, "_SOURCES", [])
    monkeypatch.setattr(registry, "_LOADED", 0)
    registry.add_source(lambda: calls.append(registry.register("A-v0", _factory)))
    assert calls == []
    assert registry.registered_ids() == ["A-v0"] and registry.resolve("A-v0") == "A-v0"
    assert len(calls) == 1
