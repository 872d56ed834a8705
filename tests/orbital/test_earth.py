"""``horizax.orbital.earth`` against astrojax 0.8.0, the reference it reimplements.

astrojax runs in float64 in a subprocess, once per module: in float32 its own epoch is
quantised (``Epoch.mjd()`` snaps to a quarter day), and its ``set_dtype(float64)`` turns on
x64 for the whole process, which this suite must not. horizax runs here in both dtypes.

Tolerances, with the worst cases measured here (float64 ``t`` / float32 ``t``):
- Sun direction within 1e-5 rad [4e-12 / 3.3e-7 rad], distance within 1e-6 relative
  [6.5e-14 / 1.3e-7]: the same model on both sides, so float32 rounding is all that differs;
- ECEF -> ECI applied to surface points within 50 m [0.54 m / 0.78 m; at t = 86400 s
  0.21 m / 2.2 m]: horizax truncates the nutation series to 0.03 arcsec;
- geodetic -> ECEF within 1 mm [0 m]: the same closed form.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.earth import geodetic_to_ecef, rotation_ecef_to_eci, sun_position_eci

GAME_EPOCH = 60067.0
GAME_OFFSETS = (0.0, 600.0, 2700.0, 5400.0, 86400.0)
# Thirty epochs over MJD 51544 .. 66000 (2000 .. 2039), at uneven fractions of a day.
EPOCHS = (
    51544.0,
    51544.5,
    *(round(51544.0 + 517.3 * k + 0.0137 * k * k, 6) for k in range(1, 28)),
    66000.0,
)
GEODETIC = (
    (0.0, 0.0, 0.0),
    (40.0, -105.0, 1600.0),
    (-33.9, 18.4, 10.0),
    (51.48, -0.0015, 45.0),
    (28.5, -80.6, 3.0),
    (-60.0, 150.0, 8848.0),
    (89.9, 45.0, 0.0),
    (-90.0, 0.0, -100.0),
)
SURFACE_POINTS = np.array([geodetic_to_ecef(*g) for g in GEODETIC[:6]])

_REFERENCE_SCRIPT = """
import json, math, sys
import jax, jax.numpy as jnp
import astrojax
astrojax.set_dtype(jnp.float64)
request = json.loads(sys.stdin.read())
eop = astrojax.zero_eop()

def at(jd_int, seconds):
    epoch = astrojax.Epoch._from_internal(jd_int, seconds, jnp.float64(0.0))
    sun = astrojax.orbit_dynamics.sun_position(epoch)
    return sun, astrojax.rotation_ecef_to_eci(eop, epoch)

jd = [mjd + 2400000.5 for mjd in request["mjd"]]
jd_int = [math.floor(x) for x in jd]
seconds = [(x - i) * 86400.0 for x, i in zip(jd, jd_int)]
sun, rot = jax.jit(jax.vmap(at))(jnp.asarray(jd_int, jnp.int32), jnp.asarray(seconds, jnp.float64))
ecef = [
    astrojax.position_geodetic_to_ecef(jnp.array([math.radians(lon), math.radians(lat), alt]))
    for lat, lon, alt in request["geodetic"]
]
print(json.dumps({"sun": sun.tolist(), "rot": rot.tolist(), "ecef": [e.tolist() for e in ecef]}))
"""


def _cases() -> list[tuple[float, float]]:
    return [(epoch, 0.0) for epoch in EPOCHS] + [(GAME_EPOCH, t) for t in GAME_OFFSETS]


@pytest.fixture(scope="module")
def reference() -> dict:
    """astrojax's results: ``sun``, ``rot`` per (epoch, t) case, ``ecef`` per geodetic point."""
    cases = _cases()
    request = {"mjd": [epoch + t / 86400.0 for epoch, t in cases], "geodetic": GEODETIC}
    done = subprocess.run(
        [sys.executable, "-c", _REFERENCE_SCRIPT],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    return {
        "sun": dict(zip(cases, np.array(out["sun"]), strict=True)),
        "rot": dict(zip(cases, np.array(out["rot"]), strict=True)),
        "ecef": np.array(out["ecef"]),
    }


def _angle(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(np.cross(a, b)) / (np.linalg.norm(a) * np.linalg.norm(b)))


def _check(reference, cases, dtype, sun_angle, surface_m) -> None:
    """Every case against astrojax, both functions evaluated with ``t`` of ``dtype``."""
    for epoch, t in cases:
        sun_ref, rot_ref = reference["sun"][(epoch, t)], reference["rot"][(epoch, t)]
        sun = np.asarray(sun_position_eci(epoch, jnp.asarray(t, dtype)), np.float64)
        rot = np.asarray(rotation_ecef_to_eci(epoch, jnp.asarray(t, dtype)), np.float64)
        where = f"epoch {epoch} t {t} ({jnp.dtype(dtype).name})"
        assert _angle(sun, sun_ref) < sun_angle, where
        assert abs(np.linalg.norm(sun) / np.linalg.norm(sun_ref) - 1.0) < 1e-6, where
        error = np.linalg.norm(SURFACE_POINTS @ rot.T - SURFACE_POINTS @ rot_ref.T, axis=-1)
        assert error.max() < surface_m, (where, error.max())


@pytest.mark.reference
def test_float32_matches_astrojax(reference) -> None:
    _check(reference, _cases(), jnp.float32, sun_angle=1e-5, surface_m=50.0)


@pytest.mark.reference
def test_float64_matches_astrojax(reference) -> None:
    # jax.experimental.enable_x64 is gone in JAX 0.10; jax.enable_x64 is its successor.
    with jax.enable_x64(True):
        assert sun_position_eci(GAME_EPOCH, jnp.asarray(1.0, jnp.float64)).dtype == jnp.float64
        _check(reference, _cases(), jnp.float64, sun_angle=1e-5, surface_m=50.0)


@pytest.mark.reference
def test_float32_holds_at_large_offsets_under_jit_and_vmap(reference) -> None:
    offsets = np.array(GAME_OFFSETS, np.float32)
    sun = jax.jit(jax.vmap(lambda t: sun_position_eci(GAME_EPOCH, t)))(offsets)
    rot = jax.jit(jax.vmap(lambda t: rotation_ecef_to_eci(GAME_EPOCH, t)))(offsets)
    assert sun.shape == (len(offsets), 3) and sun.dtype == jnp.float32
    assert rot.shape == (len(offsets), 3, 3) and rot.dtype == jnp.float32
    for i, t in enumerate(GAME_OFFSETS):
        sun_ref, rot_ref = reference["sun"][(GAME_EPOCH, t)], reference["rot"][(GAME_EPOCH, t)]
        assert _angle(np.asarray(sun[i], np.float64), sun_ref) < 2e-6, t
        moved = SURFACE_POINTS @ np.asarray(rot[i], np.float64).T
        assert np.linalg.norm(moved - SURFACE_POINTS @ rot_ref.T, axis=-1).max() < 5.0, t


@pytest.mark.reference
def test_geodetic_matches_astrojax(reference) -> None:
    ours = np.array([geodetic_to_ecef(*g) for g in GEODETIC])
    assert ours.dtype == np.float64
    np.testing.assert_allclose(ours, reference["ecef"], rtol=0.0, atol=1e-3)


def test_scan_matches_direct_calls() -> None:
    def step(carry, t):
        return carry, (sun_position_eci(GAME_EPOCH, t), rotation_ecef_to_eci(GAME_EPOCH, t))

    times = jnp.arange(0.0, 5400.0, 900.0, dtype=jnp.float32)
    _, (sun, rot) = jax.lax.scan(step, 0, times)
    for i in (0, len(times) - 1):
        np.testing.assert_allclose(sun[i], sun_position_eci(GAME_EPOCH, times[i]), rtol=1e-6)
        np.testing.assert_allclose(rot[i], rotation_ecef_to_eci(GAME_EPOCH, times[i]), atol=1e-6)


def test_rotation_is_orthonormal() -> None:
    for epoch in (51544.5, GAME_EPOCH, 66000.0):
        for t in (0.0, 5400.0, 86400.0, 3.0e7):
            rot = np.asarray(rotation_ecef_to_eci(epoch, jnp.float32(t)), np.float64)
            np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-6)
            assert abs(np.linalg.det(rot) - 1.0) < 1e-6


def test_earth_turns_at_the_sidereal_rate() -> None:
    # One sidereal day later the Earth-fixed frame is back where it was, up to precession.
    day = 86400.0 / 1.00273781191135448
    start, later = (np.asarray(rotation_ecef_to_eci(GAME_EPOCH, t), np.float64) for t in (0.0, day))
    assert math.dist(start @ SURFACE_POINTS[1], later @ SURFACE_POINTS[1]) < 10.0


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: sun_position_eci(math.nan, 0.0), "epoch_mjd_utc"),
        (lambda: rotation_ecef_to_eci(math.inf, 0.0), "epoch_mjd_utc"),
        (lambda: geodetic_to_ecef(90.5, 0.0, 0.0), "lat_deg"),
        (lambda: geodetic_to_ecef(math.nan, 0.0, 0.0), "lat_deg"),
        (lambda: geodetic_to_ecef(0.0, math.inf, 0.0), "lon_deg"),
        (lambda: geodetic_to_ecef(0.0, 0.0, math.nan), "alt_m"),
    ],
)
def test_invalid_inputs_raise(call, argument) -> None:
    with pytest.raises(ValueError, match=argument):
        call()


def test_traced_epoch_is_refused() -> None:
    with pytest.raises(TypeError, match="epoch_mjd_utc"):
        jax.jit(lambda epoch: sun_position_eci(epoch, 0.0))(GAME_EPOCH)
