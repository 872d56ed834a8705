"""`horizax.train.advantages`: hand-worked GAE at both kinds of episode end."""

import jax.numpy as jnp
import numpy as np
import pytest

from horizax.train.advantages import bootstrap_values, gae

GAMMA, LAM = 0.9, 0.5
REWARDS = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)  # [T=4, N=1]
VALUES = np.array([[10.0], [20.0], [30.0], [40.0]], np.float32)
# The value of each step's real next observation. Step 1 ends an episode: its next
# observation is the episode's last one (value 5), not the next episode's first (value 30).
NEXT_VALUES = np.array([[20.0], [5.0], [40.0], [50.0]], np.float32)
NO = np.zeros((4, 1), bool)


def flags(*steps):
    out = NO.copy()
    out[list(steps), 0] = True
    return out


def run(terminated, truncated, **kwargs):
    adv, target = gae(
        REWARDS, VALUES, NEXT_VALUES, terminated, truncated, gamma=GAMMA, lam=LAM, **kwargs
    )
    return np.asarray(adv)[:, 0], np.asarray(target)[:, 0]


def test_a_truncation_in_the_middle_bootstraps_from_the_real_last_observation():
    # delta = [1 + .9*20 - 10, 2 + .9*5 - 20, 3 + .9*40 - 30, 4 + .9*50 - 40] = [9, -13.5, 9, 9]
    # adv3 = 9; adv2 = 9 + .45*9 = 13.05; adv1 = -13.5 (the episode ended: nothing flows
    # back across it); adv0 = 9 + .45*(-13.5) = 2.925
    adv, target = run(NO, flags(1))
    np.testing.assert_allclose(adv, [2.925, -13.5, 13.05, 9.0], rtol=1e-6)
    np.testing.assert_allclose(target, [12.925, 6.5, 43.05, 49.0], rtol=1e-6)


def test_the_same_truncation_taken_as_termination_bootstraps_from_zero():
    # delta1 = 2 - 20 = -18; adv0 = 9 + .45*(-18) = 0.9
    adv, _ = run(NO, flags(1), truncation_as_termination=True)
    np.testing.assert_allclose(adv, [0.9, -18.0, 13.05, 9.0], rtol=1e-6)


def test_a_termination_bootstraps_from_zero_either_way():
    for mistaken in (False, True):
        adv, _ = run(flags(1), NO, truncation_as_termination=mistaken)
        np.testing.assert_allclose(adv, [0.9, -18.0, 13.05, 9.0], rtol=1e-6)


def test_a_truncation_at_the_last_step():
    # Step 3 truncated: it bootstraps from its real last observation (value 50), as an
    # unfinished last step does; the mistake bootstraps from zero: delta3 = 4 - 40 = -36,
    # adv2 = 9 + .45*(-36) = -7.2, adv1 = -13.5 + .45*(-7.2) = -16.74, adv0 = 9 + .45*adv1.
    exact, _ = run(NO, flags(3))
    unfinished, _ = run(NO, NO)
    np.testing.assert_allclose(exact, unfinished, rtol=1e-6)
    np.testing.assert_allclose(
        exact, [9 + 0.45 * (-13.5 + 0.45 * 13.05), -13.5 + 0.45 * 13.05, 13.05, 9.0], rtol=1e-6
    )
    mistaken, _ = run(NO, flags(3), truncation_as_termination=True)
    np.testing.assert_allclose(mistaken, [9 + 0.45 * -16.74, -16.74, -7.2, -36.0], rtol=1e-5)


def test_a_truncation_mid_rollout_and_another_at_the_last_step():
    adv, _ = run(NO, flags(1, 3))
    np.testing.assert_allclose(adv, [2.925, -13.5, 13.05, 9.0], rtol=1e-6)


def test_bootstrap_values_picks_the_final_observation_where_an_episode_ended():
    got = bootstrap_values(
        jnp.array([[30.0, 1.0]]), jnp.array([[5.0, 7.0]]), jnp.array([[True, False]])
    )
    np.testing.assert_array_equal(np.asarray(got), [[5.0, 1.0]])


def test_columns_are_independent_environments():
    two = lambda a: np.concatenate([a, a[::-1]], axis=1)  # noqa: E731
    adv, _ = gae(
        two(REWARDS), two(VALUES), two(NEXT_VALUES), two(NO), two(flags(1)), gamma=GAMMA, lam=LAM
    )
    np.testing.assert_allclose(np.asarray(adv)[:, 0], run(NO, flags(1))[0], rtol=1e-6)


@pytest.mark.parametrize(("kwargs", "match"), [({"gamma": 1.5}, "gamma"), ({"lam": -0.1}, "lam")])
def test_bad_discounts_are_refused(kwargs, match):
    args = {"gamma": GAMMA, "lam": LAM, **kwargs}
    with pytest.raises(ValueError, match=match):
        gae(REWARDS, VALUES, NEXT_VALUES, NO, NO, **args)


def test_shapes_must_match():
    with pytest.raises(ValueError, match="next_values"):
        gae(REWARDS, VALUES, NEXT_VALUES[:3], NO, NO, gamma=GAMMA, lam=LAM)


def test_the_training_page_example_runs():
    from pathlib import Path

    from tests.markdown import python_blocks

    page = Path(__file__).resolve().parents[2] / "docs" / "training.md"
    namespace: dict = {}
    exec(compile(python_blocks(page.read_text(encoding="utf-8"))[0], str(page), "exec"), namespace)
    assert namespace["advantages"].shape == (64, 8)
    step, final = namespace["step"], namespace["final"]
    assert np.asarray(step.truncated).any()  # the 16-step limit cut episodes off
    np.testing.assert_array_equal(final.mask, step.terminated | step.truncated)
