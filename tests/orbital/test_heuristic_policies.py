"""horizax's scripted opponents against orbitalgym 0.1.0's, command for command.

``reference/make_goldens.py`` drove scenarios 32-63 of every case with orbitalgym's heuristic
policies in closed loop and recorded the commands they issued (``actions_guard`` /
``actions_bandit``) and the states. Here the same policies are rebuilt with horizax's
classes (the parameters are the script's; ``cases.json`` is read for the fleet sizes, the
step, orbitalgym's mean motion and which scenarios each policy drove, and its constructor
text is checked for the same ``max_dv_mps``). Each policy is fed, at every step of every
scripted scenario, the flat observation of the recorded state entering that step (the reset
state at t = 0), laid out as orbitalgym's `FullObservation` flattens it (checked bit for bit
against the recorded reset and last observations), with its own policy state threaded
through the steps. Tolerance (float32 on both sides): every command component within
``2e-6 m/s + 1e-5`` of the recorded one's size; commands are at most 0.5 m/s here.

A second check runs the opponent inside horizax's `SingleAgentView` in closed loop, the
controlled side replaying its recorded commands, over each episode (up to its first end; past
it the vehicles fly through the lady, where the law is ill-conditioned): the opponent's
applied impulse within ``5e-4 m/s`` of orbitalgym's, its position within ``1e-2 m + 5e-5``
of the distance from the lady and its velocity within ``2e-4 m/s + 5e-5`` of the speed (two
float32 simulators drift apart slowly under full thrust; test_reference_goldens.py bounds the
open loop).

The rest checks what the goldens do not reach: the avoidance push and RT (4-number) states
against numbers orbitalgym printed for fixed views, the phase schedule step by step, `jit` /
`vmap` / `lax.scan` against eager calls, float64 under x64, and the knob checks.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital import OrbitalGymEnv, SingleAgentView, make_game, make_lady_bandit_guard
from horizax.orbital.env.types import command_class
from horizax.orbital.policies.heuristic import (
    GlideslopeIntercept,
    GlideslopeToLady,
    LeadInterceptPursuer,
    OrthogonalEvader,
    PhasedBandit,
    PhasedBanditState,
)
from horizax.orbital.policies.heuristic.phased_bandit import COAST, COMMIT, HOLD, TRANSFER
from horizax.orbital.registry import GameKey

GOLDENS = Path(__file__).parent / "reference" / "goldens"
ATOL, RTOL = 2e-6, 1e-5
KEY = jax.random.PRNGKey(0)
CMD3 = command_class("HeuristicTestCommand", 3)
CMD2 = command_class("HeuristicTestCommandRT", 2)

# (case, side, policy label): every group of scenarios make_goldens.py scripted.
SCRIPTED = [
    ("nogame", "bandit", "GlideslopeToLady"),
    ("lbg_default", "bandit", "GlideslopeToLady"),
    ("lbg_default", "guard", "GlideslopeToLady"),
    ("lbg_events", "bandit", "GlideslopeToLady"),
    ("pursuit_evasion", "guard", "OrthogonalEvader"),
    ("pursuit_evasion", "bandit", "LeadInterceptPursuer"),
    ("pursuit_evasion", "bandit", "GlideslopeIntercept"),
    ("get_off_my_lawn", "bandit", "PhasedBandit"),
    ("get_off_my_lawn", "guard", "GlideslopeIntercept"),
]


# -- goldens ---------------------------------------------------------------------------------


def _load(case: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    path = GOLDENS / f"{case}.npz"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run tests/orbital/reference/make_goldens.py")
    with np.load(path) as data:
        gold = dict(data)
    return gold, json.loads((GOLDENS / "cases.json").read_text())[case]


def _groups(entry: dict[str, Any], side: str) -> dict[str, list[int]]:
    """``label -> [first, last]`` scenarios of one side (the key's name has varied)."""
    actions = entry["actions"][side]
    (key,) = [k for k in actions if k.startswith("scenarios")]
    return actions[key]


def _cap(entry: dict[str, Any], side: str) -> float:
    params = entry[f"{side}_params"]
    return float(params["max_thrust_n"]) * float(entry["dt"]) / float(params["dry_mass_kg"])


def _policy(label: str, side: str, entry: dict[str, Any], command_cls: Any) -> Any:
    """The horizax twin of the policy make_goldens.py built for ``label`` on ``side``."""
    own, other = ("guards", "bandits") if side == "guard" else ("bandits", "guards")
    common = {
        "mean_motion": entry["mean_motion"],
        "dt": entry["dt"],
        "n_vehicles": entry[f"n_{own}"],
        "n_opponents": entry[f"n_{other}"],
        "state_dim": 6,
        "command_cls": command_cls,
        "max_dv_mps": _cap(entry, side),
    }
    if label == "GlideslopeToLady":
        return GlideslopeToLady.build(**common)
    if label == "GlideslopeIntercept":
        return GlideslopeIntercept.build(**common)
    if label == "PhasedBandit":
        return PhasedBandit.build(**common, t_coast_s=100.0, standoff_m=300.0, t_hold_s=600.0)
    if label == "LeadInterceptPursuer":
        return LeadInterceptPursuer(
            max_dv_mps=_cap(entry, side),
            dt=entry["dt"],
            n_vehicles=entry[f"n_{own}"],
            command_cls=command_cls,
        )
    if label == "OrthogonalEvader":
        return OrthogonalEvader(
            max_dv_mps=0.5 * _cap(entry, side), n_vehicles=1, command_cls=command_cls
        )
    raise AssertionError(f"no twin for {label}")


def _entering(gold: dict[str, np.ndarray], name: str) -> np.ndarray:
    """f32[T, B, n, 6], the recorded state of side ``name`` entering each step."""
    return np.concatenate([gold[f"init_{name}_rtn"][None], gold[f"{name}_rtn"][:-1]], axis=0)


def _flat_views(own: np.ndarray, other: np.ndarray) -> np.ndarray:
    """f32[..., D]: every own-side observer sees all vehicles, own side first, flattened."""
    everyone = np.concatenate([own, other], axis=-2)
    n_self = own.shape[-2]
    per_observer = np.broadcast_to(
        everyone[..., None, :, :], (*own.shape[:-2], n_self, *everyone.shape[-2:])
    )
    return per_observer.reshape(*own.shape[:-2], -1)


def _views(gold: dict[str, np.ndarray], side: str) -> np.ndarray:
    """f32[T, B, D]: side ``side``'s flat observation entering each step."""
    other = "bandit" if side == "guard" else "guard"
    views = _flat_views(_entering(gold, side), _entering(gold, other))
    # The construction is orbitalgym's: its reset and last observations come out exactly.
    np.testing.assert_array_equal(views[0], gold[f"init_obs_{side}"])
    last = _flat_views(gold[f"{side}_rtn"][-1], gold[f"{other}_rtn"][-1])
    np.testing.assert_array_equal(last, gold[f"obs_{side}_last"])
    return views


def _init_state(policy: Any, n_scenarios: int) -> Any:
    if not hasattr(policy, "init_state"):
        return None
    one = policy.init_state()
    return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n_scenarios, *x.shape)), one)


def _replay(policy: Any, views: np.ndarray, t_entering: np.ndarray) -> tuple[jax.Array, Any]:
    """Commands f32[T, B, n, dim] and policy states [T, B, ...] issued on ``views`` [T, B, D]."""

    def one_scenario(ps: Any, view: jax.Array, t: jax.Array) -> tuple[Any, Any]:
        command, next_ps = policy(ps, view, KEY, t)
        return next_ps, (command.dv, ps)

    def step(ps: Any, inputs: tuple[jax.Array, jax.Array]) -> tuple[Any, Any]:
        view, t = inputs
        return jax.vmap(one_scenario)(ps, view, t)

    run = jax.jit(lambda ps, v, t: jax.lax.scan(step, ps, (v, t))[1])
    return run(_init_state(policy, views.shape[1]), jnp.asarray(views), jnp.asarray(t_entering))


def _assert_close(got: Any, want: np.ndarray, atol: float, rtol: float, what: str) -> float:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    err = np.abs(got - want)
    bad = err > atol + rtol * np.abs(want)
    assert not bad.any(), (
        f"{what}: {bad.sum()} of {bad.size} differ, worst {err.max():.3g} at "
        f"{np.unravel_index(np.argmax(err), err.shape)}"
    )
    return float(err.max())


# -- against the goldens ---------------------------------------------------------------------


@pytest.mark.parametrize(("case", "side", "label"), SCRIPTED)
def test_issues_orbitalgyms_recorded_commands(case, side, label):
    gold, entry = _load(case)
    first, last = _groups(entry, side)[label]
    # The script built the policy with the same budget as the twin below.
    text = entry["actions"][side]["policies"][label]
    cap = _cap(entry, side) * (0.5 if label == "OrthogonalEvader" else 1.0)
    assert f"max_dv_mps={cap!r}" in text, text

    policy = _policy(label, side, entry, CMD3)
    views = _views(gold, side)[:, first : last + 1]
    t_entering = np.concatenate([np.zeros_like(gold["t"][:1]), gold["t"][:-1]])[:, first : last + 1]
    dv, states = _replay(policy, views, t_entering)
    want = gold[f"actions_{side}"][:, first : last + 1]
    assert np.abs(want).max() > 0.1  # the policy did thrust
    _assert_close(dv, want, ATOL, RTOL, f"{case} {side} {label} commands")
    assert np.asarray(dv).dtype == np.float32

    if label == "PhasedBandit":
        phases = np.asarray(states.phase)[..., 0]  # [T, B] phase entering each step
        # Every scenario runs coast -> transfer -> hold -> commit, in order, one step at a time.
        assert (np.diff(phases, axis=0) >= 0).all() and (np.diff(phases, axis=0) <= 1).all()
        for phase in (COAST, TRANSFER, HOLD, COMMIT):
            assert (phases == phase).any(axis=0).all(), f"a scenario skipped phase {phase}"
        # Coast lasts t_coast_s = 100 s (10 steps), hold t_hold_s = 600 s (60 steps).
        assert ((phases == COAST).sum(axis=0) == 10).all()
        assert ((phases == HOLD).sum(axis=0) == 60).all()
        # Coast and hold thrust nothing; the transfer and commit phases do.
        coasting = np.isin(phases, (COAST, HOLD))
        assert (np.asarray(want)[coasting] == 0).all()
        assert (np.abs(np.asarray(want)[phases == TRANSFER]).max(axis=-1) > 0).any()


def test_every_scripted_group_is_checked():
    for case in sorted({c for c, _, _ in SCRIPTED}):
        _, entry = _load(case)
        for side in ("guard", "bandit"):
            labels = set(_groups(entry, side)) - {"random", "zero"}
            assert labels == {lab for c, s, lab in SCRIPTED if c == case and s == side}, case


BUILDERS = {
    "lbg_default": lambda: make_lady_bandit_guard(seed=0),
    "pursuit_evasion": lambda: make_game(GameKey.PURSUIT_EVASION),
    "get_off_my_lawn": lambda: make_game(GameKey.GET_OFF_MY_LAWN),
}


@pytest.mark.parametrize(
    ("case", "label"),
    [
        ("lbg_default", "GlideslopeToLady"),
        ("pursuit_evasion", "LeadInterceptPursuer"),
        ("get_off_my_lawn", "PhasedBandit"),
    ],
)
def test_opponent_in_single_agent_view_follows_orbitalgym(case, label):
    """The env fills in the opponent's command class and fleet size (`dataclasses.replace`)
    and feeds it the state entering each step; the guard replays its recorded commands."""
    gold, entry = _load(case)
    first, last = _groups(entry, "bandit")[label]
    scenarios = slice(first, last + 1)
    opponent = _policy(label, "bandit", entry, None)
    cfg = dataclasses.replace(BUILDERS[case](), bandit_policy=opponent, controlled_side="guard")
    view = SingleAgentView(OrbitalGymEnv(cfg))
    assert view.opponent_policy.command_cls is view.env.bandit_command_cls

    def episode(reset_key: jax.Array, guard_dv: jax.Array) -> tuple[jax.Array, jax.Array]:
        state, _, opp_ps = view.reset(reset_key)
        if hasattr(view.opponent_policy, "init_state"):
            opp_ps = view.opponent_policy.init_state()

        def step(carry: Any, dv: jax.Array) -> tuple[Any, tuple[jax.Array, jax.Array]]:
            state, opp_ps = carry
            command = view.controlled_command_cls(dv=dv)
            state, _, _, _, opp_ps, info = view.step(KEY, state, command, opp_ps)
            return (state, opp_ps), (info["applied_dv"].bandit, state.bandits.rtn)

        return jax.lax.scan(step, (state, opp_ps), guard_dv)[1]

    run = jax.jit(jax.vmap(episode, in_axes=(0, 1), out_axes=1))
    applied, bandit_rtn = run(
        jnp.asarray(gold["reset_keys"][scenarios]), jnp.asarray(gold["actions_guard"][:, scenarios])
    )
    in_episode = gold["mask"][:, scenarios]  # [T, B]: up to and including the first end
    assert in_episode.sum() > 1000  # most of the 16 x 200 steps lie inside the episodes
    d_applied = np.abs(np.asarray(applied) - gold["applied_dv_bandit"][:, scenarios]).max(axis=-1)
    assert d_applied[in_episode].max() <= 5e-4, d_applied[in_episode].max()
    want = gold["bandit_rtn"][:, scenarios]
    got = np.asarray(bandit_rtn, np.float64)
    for cols, atol, what in ((slice(0, 3), 1e-2, "position"), (slice(3, 6), 2e-4, "velocity")):
        err = np.linalg.norm(got[..., cols] - want[..., cols], axis=-1)
        size = np.linalg.norm(want[..., cols], axis=-1)
        bad = (err > atol + 5e-5 * size) & in_episode[..., None]
        assert not bad.any(), f"{case} {what}: worst {err[in_episode].max():.3g}"


# -- fixed views, numbers from orbitalgym ------------------------------------------------------

MM = 1.1e-3
# 1 bandit, 1 guard, RTN: [own state, opponent state].
_1V1 = [[40, -25, 3, 0.1, 0.2, 0.0], [55, -10, 0, 0.0, 0.1, 0.0]]
VIEW_1V1 = np.array(_1V1, np.float32).reshape(-1)
# 2 v 2, RT states: both observers see [own 1, own 2, opponent 1, opponent 2].
_RT = np.array([[10, 5, 0.05, -0.1], [-20, 30, 0, 0.1], [12, 8, 0, 0], [-60, -40, 0.2, 0.1]])
VIEW_2V2_RT = np.broadcast_to(_RT[None], (2, 4, 4)).reshape(-1).astype(np.float32)


def _fixed_cases() -> list[tuple[str, Any, np.ndarray, Any, list]]:
    """(name, policy, view, policy state, orbitalgym's dv) for views orbitalgym 0.1.0 ran on
    (printed by its own policies, unsaturated so the law's arithmetic shows)."""
    pb = PhasedBandit.build(
        mean_motion=MM,
        dt=10.0,
        n_vehicles=1,
        n_opponents=1,
        state_dim=6,
        command_cls=CMD3,
        max_dv_mps=1.0,
        t_coast_s=0.0,
        standoff_m=20.0,
        t_hold_s=0.0,
    )
    transfer = PhasedBanditState(phase=jnp.array([TRANSFER], jnp.int32), t_in_phase=jnp.zeros(1))
    rt = {"mean_motion": MM, "dt": 10.0, "n_vehicles": 2, "n_opponents": 2, "state_dim": 4}
    return [
        (
            "lady with avoidance, RTN",
            GlideslopeToLady.build(
                mean_motion=MM,
                dt=10.0,
                n_vehicles=1,
                n_opponents=1,
                state_dim=6,
                command_cls=CMD3,
                max_dv_mps=1.0,
                avoidance_gain_mps=0.05,
                avoidance_sigma_m=30.0,
            ),
            VIEW_1V1,
            None,
            [[-0.7819342613220215, 0.18146488070487976, 0.0]],
        ),
        (
            "phased transfer, RTN",
            pb,
            VIEW_1V1,
            transfer,
            [[-0.3156660795211792, -0.11130711436271667, 0.0]],
        ),
        (
            "intercept, RT 2v2",
            GlideslopeIntercept.build(**rt, command_cls=CMD2, max_dv_mps=1.0),
            VIEW_2V2_RT,
            None,
            [
                [0.13641005754470825, 0.37961509823799133],
                [0.5672125816345215, -0.48995864391326904],
            ],
        ),
        (
            "lady with avoidance, RT 2v2",
            GlideslopeToLady.build(
                **rt,
                command_cls=CMD2,
                max_dv_mps=1.0,
                avoidance_gain_mps=0.1,
                avoidance_sigma_m=20.0,
            ),
            VIEW_2V2_RT,
            None,
            [
                [-0.4728894829750061, -0.16601857542991638],
                [0.35391345620155334, -0.6409878730773926],
            ],
        ),
    ]


@pytest.mark.parametrize("index", range(4))
def test_fixed_views_match_orbitalgym(index):
    name, policy, view, state, want = _fixed_cases()[index]
    command, _ = jax.jit(lambda v: policy(state, v, KEY, 0.0))(jnp.asarray(view))
    assert command.dv.shape == np.shape(want), name
    _assert_close(command.dv, np.asarray(want, np.float32), 1e-6, 1e-6, name)


@pytest.mark.parametrize("relative_velocity", [(0.0, 0.0, 0.0), (0.0, 0.5, 0.0)])
def test_evader_thrusts_radially_when_along_track_is_not_across(relative_velocity):
    # orbitalgym's fallback: a zero or purely along-track relative velocity leaves nothing of
    # the along-track axis once projected, so the radial axis is used (orbitalgym gives
    # [0.2, 0, 0] on these views).
    view = VIEW_1V1.copy()
    view[9:12] = view[3:6] + np.asarray(relative_velocity, np.float32)
    evader = OrthogonalEvader(max_dv_mps=0.2, n_vehicles=2, command_cls=CMD3)
    command, _ = jax.jit(lambda v: evader(None, v, KEY, 0.0))(jnp.asarray(view))
    np.testing.assert_allclose(np.asarray(command.dv), [[0.2, 0.0, 0.0]] * 2, atol=1e-7)


# -- the phase schedule ----------------------------------------------------------------------


def _on_ring_view(standoff_m: float, theta: float) -> np.ndarray:
    """A 1v1 RTN view with the bandit exactly on the drift-free standoff ring at ``theta``
    and the guard far away."""
    a, n = standoff_m, MM
    own = [
        -a * np.cos(theta),
        2 * a * np.sin(theta),
        0,
        n * a * np.sin(theta),
        2 * n * a * np.cos(theta),
        0,
    ]
    return np.array([own, [5000, 5000, 0, 0, 0, 0]], np.float32).reshape(-1)


def _schedule(policy: PhasedBandit, view: np.ndarray, n_steps: int) -> tuple[list, list]:
    """Phases entering each step, and the commands, for a view held fixed."""
    decide = jax.jit(lambda state, v: policy(state, v, KEY, 0.0))
    state, phases, dvs = policy.init_state(), [], []
    for _ in range(n_steps):
        phases.append(int(state.phase[0]))
        command, state = decide(state, jnp.asarray(view))
        dvs.append(np.asarray(command.dv[0]))
    return phases, dvs


def _phased(**knobs: Any) -> PhasedBandit:
    return PhasedBandit.build(
        mean_motion=MM,
        dt=10.0,
        n_vehicles=1,
        n_opponents=1,
        state_dim=6,
        command_cls=CMD3,
        max_dv_mps=0.5,
        **knobs,
    )


def test_phased_bandit_walks_through_its_phases():
    # On the ring the transfer settles on its first step; every phase lasts >= one step.
    policy = _phased(t_coast_s=0.0, standoff_m=300.0, t_hold_s=20.0)
    view = _on_ring_view(300.0, 0.7)
    phases, dvs = _schedule(policy, view, 6)
    assert phases == [COAST, TRANSFER, HOLD, HOLD, COMMIT, COMMIT]
    assert np.abs(dvs[0]).max() == 0 and np.abs(dvs[2]).max() == 0 and np.abs(dvs[3]).max() == 0
    assert np.abs(dvs[1]).max() < 1e-6  # already on the ring state: nothing to correct
    commit, _ = jax.jit(lambda v: policy.commit(None, v, KEY, 0.0))(jnp.asarray(view))
    np.testing.assert_array_equal(dvs[4], np.asarray(commit.dv[0]))
    assert np.linalg.norm(dvs[4]) > 0.1


def test_phased_bandit_transfer_times_out_and_clock_restarts():
    policy = _phased(t_coast_s=30.0, standoff_m=300.0, t_hold_s=10.0, t_transfer_max_s=40.0)
    view = _on_ring_view(900.0, 0.3)  # far off the 300 m ring: never settles
    phases, dvs = _schedule(policy, view, 10)
    assert phases == [COAST] * 3 + [TRANSFER] * 4 + [HOLD] + [COMMIT] * 2
    assert all(np.linalg.norm(dv) > 0.1 for dv in dvs[3:7])
    state = policy.init_state()
    decide = jax.jit(lambda state, v: policy(state, v, KEY, 0.0))
    for _ in range(3):
        _, state = decide(state, jnp.asarray(view))
    assert int(state.phase[0]) == TRANSFER and float(state.t_in_phase[0]) == 0.0


def test_phased_bandit_reads_a_missing_state_as_the_initial_one():
    policy = _phased(t_coast_s=0.0, standoff_m=300.0, t_hold_s=20.0)
    view = jnp.asarray(_on_ring_view(300.0, 0.7))
    from_none = jax.jit(lambda v: policy(None, v, KEY, 0.0))(view)
    from_init = jax.jit(lambda v: policy(policy.init_state(), v, KEY, 0.0))(view)
    same = jax.tree_util.tree_map(np.array_equal, from_none, from_init)
    assert all(jax.tree_util.tree_leaves(same))


def test_env_fills_phased_bandit_fleet_and_command_class_into_its_commit_policy():
    built = PhasedBandit.build(
        mean_motion=MM,
        dt=10.0,
        n_vehicles=1,
        n_opponents=2,
        state_dim=6,
        command_cls=None,
        max_dv_mps=0.5,
        t_coast_s=0.0,
        standoff_m=300.0,
        t_hold_s=0.0,
    )
    assert built.n_vehicles is None and built.command_cls is None
    filled = dataclasses.replace(built, n_vehicles=2, command_cls=CMD3)
    assert filled.commit.n_vehicles == 2 and filled.commit.command_cls is CMD3
    assert filled.init_state().phase.shape == (2,)
    view = jnp.zeros((2 * 4 * 6,), jnp.float32).at[0].set(100.0)
    command, state = jax.jit(lambda v: filled(filled.init_state(), v, KEY, 0.0))(view)
    assert command.dv.shape == (2, 3) and state.phase.shape == (2,)


# -- transformations, dtypes, knob checks ------------------------------------------------------


def _all_policies(command_cls: Any = CMD3) -> dict[str, tuple[Any, int]]:
    """Each policy, 2v2 where it supports fleets (1v1 for the flat-layout ones), with the
    number of vehicles per side its view holds."""
    fleet = {"mean_motion": MM, "dt": 10.0, "n_vehicles": 2, "n_opponents": 2, "state_dim": 6}
    return {
        "GlideslopeToLady": (
            GlideslopeToLady.build(
                **fleet,
                command_cls=command_cls,
                max_dv_mps=0.5,
                avoidance_gain_mps=0.2,
                avoidance_sigma_m=400.0,
            ),
            2,
        ),
        "GlideslopeIntercept": (
            GlideslopeIntercept.build(**fleet, command_cls=command_cls, max_dv_mps=0.5),
            2,
        ),
        "PhasedBandit": (
            PhasedBandit.build(
                **fleet,
                command_cls=command_cls,
                max_dv_mps=0.5,
                t_coast_s=10.0,
                standoff_m=300.0,
                t_hold_s=10.0,
                settle_tol_m=1e4,
                settle_tol_mps=1e3,
            ),
            2,
        ),
        "LeadInterceptPursuer": (
            LeadInterceptPursuer(max_dv_mps=0.5, n_vehicles=1, command_cls=command_cls),
            1,
        ),
        "OrthogonalEvader": (
            OrthogonalEvader(max_dv_mps=0.25, n_vehicles=1, command_cls=command_cls),
            1,
        ),
    }


def _random_views(n: int, shape: tuple[int, ...], dtype: Any = np.float32) -> np.ndarray:
    """Views [*shape, D] of ``n`` v ``n`` RTN states, positions ~1 km, speeds ~1 m/s."""
    rng = np.random.default_rng(3)
    states = np.concatenate(
        [rng.normal(0, 1000, (*shape, 2 * n, 3)), rng.normal(0, 1, (*shape, 2 * n, 3))], -1
    )
    per_observer = np.broadcast_to(states[..., None, :, :], (*shape, n, 2 * n, 6))
    return per_observer.reshape(*shape, -1).astype(dtype)


@pytest.mark.parametrize("name", sorted(_all_policies()))
def test_jit_vmap_scan_match_eager_calls(name):
    # The PhasedBandit's loose tolerances take it through all four phases in the four steps.
    policy, n = _all_policies()[name]
    n_steps, batch = 4, 2
    views = _random_views(n, (n_steps, batch))

    def start() -> Any:
        return policy.init_state() if hasattr(policy, "init_state") else None

    eager = np.zeros((n_steps, batch, n, 3), np.float32)
    for b in range(batch):
        state = start()
        for t in range(n_steps):
            command, state = policy(state, jnp.asarray(views[t, b]), KEY, jnp.float32(10.0 * t))
            eager[t, b] = np.asarray(command.dv)

    def step(ps: Any, view: jax.Array) -> tuple[Any, jax.Array]:
        command, ps = jax.vmap(lambda p, v: policy(p, v, KEY, jnp.float32(0.0)))(ps, view)
        return ps, command.dv

    start_b = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (batch, *x.shape)), start())
    final, traced = jax.jit(lambda ps, v: jax.lax.scan(step, ps, v))(start_b, jnp.asarray(views))
    assert traced.dtype == jnp.float32
    if final is not None:
        assert (np.asarray(final.phase) == COMMIT).all()
    _assert_close(traced, eager, 1e-6, 1e-6, f"{name} under jit(scan(vmap))")
    assert np.isfinite(eager).all() and np.abs(eager).max() > 0.1


@pytest.mark.parametrize("name", sorted(_all_policies()))
def test_float64_under_x64(name):
    def decide(policy: Any, view: jax.Array) -> jax.Array:
        state = policy.init_state() if hasattr(policy, "init_state") else None
        if state is not None:
            # Straight to the commit phase, whose command is the one that thrusts.
            state = state.replace(phase=jnp.full_like(state.phase, COMMIT))
        return policy(state, view, KEY, 0.0)[0].dv

    policy, n = _all_policies()[name]
    view = _random_views(n, (), np.float64)
    with jax.enable_x64(True):
        if hasattr(policy, "init_state"):
            assert policy.init_state().t_in_phase.dtype == jnp.float64
        dv64 = jax.jit(lambda v: decide(policy, v))(jnp.asarray(view))
        assert dv64.dtype == jnp.float64, name
        dv64 = np.asarray(dv64)
    dv32 = jax.jit(lambda v: decide(policy, v))(jnp.asarray(view, jnp.float32))
    assert dv32.dtype == jnp.float32
    _assert_close(dv64, dv32, 2e-6, 1e-5, f"{name} float64 against float32")


def _glide(**bad: Any) -> Any:
    kw = {
        "mean_motion": MM,
        "dt": 10.0,
        "n_vehicles": 1,
        "n_opponents": 1,
        "state_dim": 6,
        "command_cls": CMD3,
        "max_dv_mps": 0.5,
    }
    return GlideslopeToLady.build(**{**kw, **bad})


BAD_KNOBS = [
    (lambda: _glide(mean_motion=0.0), "mean_motion"),
    (lambda: _glide(dt=-1.0), "dt"),
    (lambda: _glide(max_dv_mps=float("nan")), "max_dv_mps"),
    (lambda: _glide(slope_s=0.0), "slope_s"),
    (lambda: _glide(brake_fraction=-0.5), "brake_fraction"),
    (lambda: _glide(avoidance_sigma_m=0.0), "avoidance_sigma_m"),
    (lambda: _glide(avoidance_gain_mps="strong"), "avoidance_gain_mps"),
    (lambda: _glide(n_vehicles=0), "n_vehicles"),
    (lambda: _glide(state_dim=3), "state_dim"),
    (
        lambda: GlideslopeIntercept.build(
            mean_motion=MM,
            dt=10.0,
            n_vehicles=1,
            n_opponents=0,
            state_dim=6,
            command_cls=CMD3,
            max_dv_mps=0.5,
        ),
        "n_opponents",
    ),
    (lambda: _phased(t_coast_s=-1.0, standoff_m=300.0, t_hold_s=0.0), "t_coast_s"),
    (lambda: _phased(t_coast_s=0.0, standoff_m=float("inf"), t_hold_s=0.0), "standoff_m"),
    (
        lambda: _phased(t_coast_s=0.0, standoff_m=300.0, t_hold_s=0.0, settle_tol_mps=-1.0),
        "settle_tol_mps",
    ),
    (
        lambda: dataclasses.replace(
            _phased(t_coast_s=0.0, standoff_m=1.0, t_hold_s=0.0), n_vehicles=0
        ),
        "n_vehicles",
    ),
    (lambda: LeadInterceptPursuer(max_dv_mps=-0.1), "max_dv_mps"),
    (lambda: LeadInterceptPursuer(n_vehicles=True), "n_vehicles"),
    (lambda: OrthogonalEvader(max_dv_mps=float("inf")), "max_dv_mps"),
]


@pytest.mark.parametrize(("make", "field"), BAD_KNOBS, ids=[f for _, f in BAD_KNOBS])
def test_bad_knobs_are_rejected_naming_the_field(make, field):
    with pytest.raises(ValueError, match=field):
        make()


def test_misuse_is_caught_before_tracing_ends():
    # Without the env's command class, and with a view too short for the layout.
    view = jnp.zeros((12,), jnp.float32)
    with pytest.raises(ValueError, match="command_cls"):
        jax.jit(lambda v: LeadInterceptPursuer()(None, v, KEY, 0.0))(view)
    with pytest.raises(ValueError, match="flat observation"):
        OrthogonalEvader(n_vehicles=1, command_cls=CMD3)(None, view[:6], KEY, 0.0)
    with pytest.raises(ValueError, match="full-state"):
        _glide()(None, jnp.zeros((7,), jnp.float32), KEY, 0.0)
