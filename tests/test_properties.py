"""Property-based tests of the episode contract (ARCHITECTURE.md, contracts 1 and 6).

For seeds and action sequences that hypothesis generates (in range, on the action space's
boundaries and out of range), on the registered ids of `tests/property_support.py` (a
sample per run; every id under ``--hypothesis-profile thorough``):

* ``terminated`` and ``truncated`` are bools, never both true; truncation happens exactly
  when the episode reaches its time limit and did not terminate (termination wins on the
  limit step); rewards are finite f32; every observation lies in its space, dtype included;
* NEXT_STEP: the step after an end is a reset (reward 0, no flag) that ignores its action,
  and the whole run is SAME_STEP's with such a step inserted after every end;
* SAME_STEP: the terminal observation it keeps is the DISABLED run's last observation, and
  the observation it returns is the first one of the episode DISABLED restarts;
* out-of-range actions do what the docs say (`test_out_of_range_actions_do_what_the_docs_say`);
* a batch plays each environment as it plays alone, and `jit` plays as eager execution.

The adapters are checked against the same runs in ``tests/adapters/test_adapter_properties.py``.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest
from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st

from horizax.core import episode as engine
from horizax.core.episode import AutoresetMode
from horizax.core.spaces import Box
from horizax.grid import constants as C
from horizax.orbital.actions.components import G0
from horizax.testing.harness import assert_in_space
from tests import property_support as ps

NEXT, SAME, DISABLED = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED
# The batch property (a new program per id, three runs an example) gets a fifth of the examples.
FEW = settings(max_examples=max(2, settings.default.max_examples // 5))


def pytest_generate_tests(metafunc):
    if "env_id" in metafunc.fixturenames:
        metafunc.parametrize("env_id", ps.contract_ids(metafunc.config))
    if "goto_id" in metafunc.fixturenames:
        goto = ["MiniGrid-GoToDoor-5x5-v0", "MiniGrid-GoToObject-6x6-N2-v0"]
        metafunc.parametrize("goto_id", goto if ps.is_thorough(metafunc.config) else goto[:1])
    if "code_id" in metafunc.fixturenames:
        metafunc.parametrize("code_id", ps.code_ids(metafunc.config))


def draw(data, env_id, *, out_of_range=True):
    seed = data.draw(ps.seeds, label="seed")
    space = ps.view(env_id).action_space
    return seed, data.draw(ps.actions(space, out_of_range=out_of_range), label="actions")


def reset_steps(run):
    """bool[LENGTH]: the NEXT_STEP steps that follow an end (the reset steps)."""
    done = run.steps.terminated | run.steps.truncated
    return np.concatenate([[False], done[:-1]])


# --- flags, rewards, spaces, the time limit -----------------------------------------------------


def check_run(fenv, mode, run):
    steps = run.steps
    term, trunc = steps.terminated, steps.truncated
    assert term.dtype == trunc.dtype == np.bool_, f"{mode}: flags must be bool"
    assert not (term & trunc).any(), f"{mode}: terminated and truncated on the same step"
    assert steps.reward.dtype == np.float32, f"{mode}: reward dtype {steps.reward.dtype}"
    assert np.isfinite(steps.reward).all(), f"{mode}: non-finite reward"
    first_done = run.first.terminated | run.first.truncated
    assert float(run.first.reward) == 0.0 and not first_done, "a reset: reward 0, no flag"

    space = fenv.observation_space
    assert_in_space(space, run.first.observation, 0, f"{mode}, reset")
    assert_in_space(space, steps.observation, 1, f"{mode}, steps")
    done = term | trunc
    if mode is SAME:
        np.testing.assert_array_equal(run.final.mask, done, "SAME_STEP: final.mask is not done")
        assert_in_space(space, ps.index(run.final.observation, done), 1, "final observations")
    if mode is DISABLED:
        assert_in_space(space, ps.index(run.restart, done), 1, f"{mode}, restarts")

    clock = ps.episode_clock(done, next_step=mode is NEXT)
    at_limit = clock == ps.LIMIT
    np.testing.assert_array_equal(
        trunc, at_limit & ~term, f"{mode}: truncated must be exactly (limit reached) & ~terminated"
    )
    counter = clock if mode is NEXT else np.where(done, 0, clock)
    np.testing.assert_array_equal(run.t, counter, f"{mode}: the engine's step counter")
    if (at_limit & term).any():
        event("terminated on the limit step")


@given(data=st.data())
def test_flags_rewards_and_observations_in_every_mode(env_id, data):
    seed, actions = draw(data, env_id)
    for mode, run in ps.run_modes(env_id, seed, actions).items():
        check_run(ps.view(env_id), mode, run)


# --- NEXT_STEP, SAME_STEP and DISABLED against each other ---------------------------------------


@given(data=st.data())
def test_next_step_after_an_end_is_a_reset_that_ignores_its_action(env_id, data):
    seed, actions = draw(data, env_id)
    run = ps.run_modes(env_id, seed, actions)[NEXT]
    reset = reset_steps(run)
    assert reset.any(), "the time limit must end an episode inside the run"
    assert (run.steps.reward[reset] == 0).all(), "a reset step has reward 0"
    assert not (run.steps.terminated | run.steps.truncated)[reset].any(), "a reset step ends"
    np.testing.assert_array_equal(run.t[reset], 0, "a reset step starts the clock again")

    other = actions.copy()
    space = ps.view(env_id).action_space
    other[reset] = data.draw(ps.actions(space, int(reset.sum())), label="other reset actions")
    again = ps.run_modes(env_id, seed, other)[NEXT]
    ps.assert_same(again, run, "NEXT_STEP: the action of a reset step changed the run")


@given(data=st.data())
def test_next_step_is_same_step_with_a_reset_step_after_each_end(env_id, data):
    seed, actions = draw(data, env_id)
    nxt = ps.run_modes(env_id, seed, actions)[NEXT]
    reset = reset_steps(nxt)
    # SAME_STEP plays the actions NEXT_STEP did not ignore (padded to the run's length).
    played = np.concatenate([actions[~reset], actions[: int(reset.sum())]])
    same = ps.run_modes(env_id, seed, played)[SAME]
    ps.assert_same(nxt.first, same.first, "the reset")
    j = 0
    for k in range(ps.LENGTH):
        got = ps.index(nxt.steps, k)
        if reset[k]:  # the new episode's first observation: SAME_STEP's at the end
            end = ps.index(same.steps, j - 1)
            expected = end.replace(
                reward=np.float32(0.0), terminated=np.False_, truncated=np.False_
            )
        else:
            expected = ps.index(same.steps, j)
            if same.final.mask[j]:
                final = ps.index(same.final, j)
                expected = expected.replace(observation=final.observation, info=final.info)
            j += 1
        ps.assert_same(got, expected, f"NEXT_STEP step {k} (SAME_STEP step {j})")


@given(data=st.data())
def test_same_step_keeps_the_last_observation_of_the_disabled_run(env_id, data):
    seed, actions = draw(data, env_id)
    runs = ps.run_modes(env_id, seed, actions)
    same, disabled = runs[SAME], runs[DISABLED]
    done = same.steps.terminated | same.steps.truncated
    for name in ("reward", "terminated", "truncated"):
        np.testing.assert_array_equal(
            getattr(same.steps, name), getattr(disabled.steps, name), f"SAME vs DISABLED {name}"
        )
    ps.assert_same(
        ps.index(same.final.observation, done),
        ps.index(disabled.steps.observation, done),
        "SAME_STEP's final observation is not the DISABLED run's last observation",
    )
    ps.assert_same(
        ps.index(same.final.info, done), ps.index(disabled.steps.info, done), "final info"
    )
    ps.assert_same(
        ps.index(same.steps.observation, done),
        ps.index(disabled.restart, done),
        "SAME_STEP's observation at an end is not the first one of the next episode",
    )
    ps.assert_same(
        ps.index(same.steps.observation, ~done),
        ps.index(disabled.steps.observation, ~done),
        "SAME_STEP and DISABLED differ on a step that ends nothing",
    )


# --- out-of-range actions ----------------------------------------------------------------------


def _changes_nothing_but_the_clock(run, k):
    before = run.first_state if k == 0 else ps.index(run.states, k - 1)
    after = ps.index(run.states, k)
    for field in dataclasses.fields(after):
        a, b = getattr(after, field.name), getattr(before, field.name)
        if field.name == "step_count":
            assert int(a) == int(b) + 1, f"step {k}: an out-of-range action must count a step"
        else:
            ps.assert_same(a, b, f"step {k}: an out-of-range action changed {field.name}")
    assert run.steps.reward[k] == 0, f"step {k}: an out-of-range action was rewarded"
    assert not run.steps.terminated[k], f"step {k}: an out-of-range action terminated"


def _thrust_limit(fenv, state):
    """f64[n]: the most velocity change a step can deliver to each controlled vehicle, by the
    rule of docs/orbital.md: ``min(max_thrust * dt / m_wet, Isp g0 ln(m_wet / dry))``."""
    side = fenv.view.controlled_side.value
    params = getattr(fenv.config, f"{side}_params")
    propellant = getattr(state[0], f"{side}s").propellant_mass
    dry = float(params.dry_mass_kg)
    wet = dry + (0.0 if propellant is None else np.asarray(propellant, np.float64))
    limit = float(params.max_thrust_n) * float(fenv.config.dt) / np.broadcast_to(wet, (1,))
    if propellant is not None:
        limit = np.minimum(limit, float(params.isp_s) * G0 * np.log(wet / dry))
    return limit


def _clipped_by_the_thrust_rule(fenv, actions, run, live):
    n, dim = fenv.view.n_controlled, fenv.env.truth_frame.dim
    for k in np.flatnonzero(live):
        before = run.first_state if k == 0 else ps.index(run.states, k - 1)
        command = actions[k][: n * dim].reshape(n, dim).astype(np.float64)
        applied = run.steps.info["applied_dv"][k][:, :dim].astype(np.float64)
        invalid = run.steps.info["invalid_action"][k]
        # Not finite: a non-finite component, or a float32 norm that overflows (docs).
        with np.errstate(over="ignore", invalid="ignore"):
            norm32 = np.linalg.norm(command.astype(np.float32), axis=-1)
        finite = np.isfinite(command).all(axis=-1) & np.isfinite(norm32)
        np.testing.assert_array_equal(invalid, ~finite, f"step {k}: invalid_action flags")
        command = np.where(finite[:, None], command, 0.0)  # not finite: no thrust
        size = np.linalg.norm(command, axis=-1)
        scale = np.minimum(1.0, _thrust_limit(fenv, before) / np.maximum(size, 1e-300))
        expected = command * scale[:, None]
        np.testing.assert_allclose(
            applied, expected, rtol=1e-5, atol=1e-7, err_msg=f"step {k}: command {command}"
        )
        if (finite & (scale < 1)).any():
            event("a command clipped by the thrust rule")


@given(data=st.data())
def test_out_of_range_actions_do_what_the_docs_say(env_id, data):
    """Gridworld (docs: `Environment`): inside `jit` an out-of-range action changes nothing
    but the step count, except where ``invalid_action`` names the action taken instead
    (Dynamic-Obstacles: left). Maze (docs/maze.md): a no-op that counts a step. Orbital
    (docs/orbital.md): commands are clipped by the thrust rule, direction kept, and a
    non-finite one (or one whose float32 norm overflows) is no thrust, flagged in
    ``info["invalid_action"]``."""
    fenv = ps.view(env_id)
    seed, actions = draw(data, env_id)
    run = ps.run_modes(env_id, seed, actions)[NEXT]
    live = ~reset_steps(run)  # a reset step ignores its action
    if isinstance(fenv.action_space, Box):
        _clipped_by_the_thrust_rule(fenv, actions, run, live)
        return
    bad = (actions < 0) | (actions >= fenv.action_space.n)
    event(f"out-of-range actions applied: {min(int((bad & live).sum()), 3)}+")
    substitute = getattr(getattr(fenv, "env", None), "invalid_action", None)
    if substitute is not None:
        mapped = np.where(bad, np.int32(substitute), actions)
        again = ps.run_modes(env_id, seed, mapped)[NEXT]
        ps.assert_same(again, run, f"out-of-range actions must act as action {substitute}")
        return
    assert getattr(getattr(fenv, "env", None), "dynamics_fn", None) is None, (
        "an environment with dynamics and no invalid_action: no documented rule to check"
    )
    for k in np.flatnonzero(bad & live):
        _changes_nothing_but_the_clock(run, k)


# --- the limit step --------------------------------------------------------------------------


@given(
    seed=ps.seeds,
    moves=st.lists(st.sampled_from([C.LEFT, C.RIGHT, C.FORWARD]), min_size=16, max_size=16),
)
def test_termination_wins_on_the_limit_step(goto_id, seed, moves):
    # In GoTo* every `done` terminates and moves never do: `done` on the limit step ends the
    # episode both ways at once.
    actions = np.asarray(moves, np.int32)
    actions[ps.LIMIT - 1] = C.DONE
    for mode, run in ps.run_modes(goto_id, seed, actions).items():
        step = ps.index(run.steps, ps.LIMIT - 1)
        assert bool(step.terminated) and not bool(step.truncated), f"{mode}: termination wins"


# --- batch, eager ---------------------------------------------------------------------------


@pytest.mark.slow
@FEW
@given(data=st.data())
def test_a_batch_plays_each_environment_as_it_plays_alone(code_id, data):
    batch = 3
    keys, acts = [], []
    for _ in range(batch):
        seed, actions = draw(data, code_id)
        keys.append(engine.seed_key(seed))
        acts.append(actions)
    keys, acts = np.stack(keys), np.stack(acts)
    per_mode = len(ps.MODES)
    batched = ps.program(code_id, batched=True)((keys,) * per_mode, (acts,) * per_mode)
    batched = ps.to_numpy(batched)
    for i in range(batch):
        alone = ps.to_numpy(ps.program(code_id)((keys[i],) * per_mode, (acts[i],) * per_mode))
        ps.assert_same(ps.index(batched, i), alone, f"environment {i} of the batch")


EAGER_STEPS = 6  # one time limit and the step after it: eager execution is slow


def random_actions(space, seed):
    """`LENGTH` random actions from ``seed``: in range for a ``Discrete`` space (eager
    execution sees concrete actions, and a concrete out-of-range one raises, as documented),
    up to twice the bounds for a ``Box`` (its out-of-range commands are applied)."""
    rng = np.random.default_rng(seed)
    if isinstance(space, Box):
        bound = np.max(np.abs(np.asarray(space.high)))
        return (rng.uniform(-2, 2, (ps.LENGTH, *space.shape)) * bound).astype(np.float32)
    return rng.integers(0, space.n, ps.LENGTH).astype(np.int32)


# An eager example takes half a minute or more: one, of one autoreset mode, not shrunk. Its
# actions come from its seed, so even the first, simplest example (seed 0) is not all zeros.
@pytest.mark.slow
@settings(max_examples=1, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(seed=ps.seeds)
def test_jit_plays_as_eager_execution(code_id, seed):
    fenv = ps.view(code_id, eager_size=True)
    actions = random_actions(fenv.action_space, seed)
    mode = ps.MODES[seed % len(ps.MODES)]
    jitted = ps.run_modes(code_id, seed, actions, eager_size=True)[mode]
    with jax.disable_jit():
        key = engine.seed_key(seed)
        eager = ps.to_numpy(ps.rollout(fenv, mode, key, actions[:EAGER_STEPS]))

    def head(tree):
        return None if tree is None else ps.index(tree, slice(EAGER_STEPS))

    jitted = jitted._replace(
        steps=head(jitted.steps),
        final=head(jitted.final),
        restart=head(jitted.restart),
        states=head(jitted.states),
        t=head(jitted.t),
    )
    ps.assert_same(jitted, eager, f"{mode}: jit and eager differ")
