"""The Sun's position and the Earth's orientation: analytic, jittable, exact enough in float32.

What two orbital game rewards need: the Sun's direction seen from low Earth orbit, and the ECI
position of a ground target. Both are closed-form functions of a static epoch (MJD, UTC) and a
traced offset ``t`` (s): they run under ``jit``, ``vmap`` and ``lax.scan``, no host callback.

- Sun: Montenbruck & Gill's low-precision series (Satellite Orbits, 3.3.2), astrojax's
  ``sun_position`` model, UTC standing in for TT as there. Against a true ephemeris it is
  good to about 0.1 deg; only agreement with astrojax is claimed here.
- Earth: IAU 2006/2000A, CIO based, zero Earth-orientation parameters (UT1 = UTC, no polar
  motion, no pole offsets): the exact Earth rotation angle; the CIP's X, Y from the IAU 2006
  polynomials plus 13 of their ~2900 periodic terms (IERS 2010 tables 5.2a/b); the CIO locator
  s within 0.2 mas; the TIO locator s' (under 30 microarcseconds before 2060) left out.

Measured against astrojax 0.8.0 in float64, MJD 51544 .. 66000: the CIP within 0.035 arcsec,
a surface point rotated ECEF -> ECI within 0.85 m, the Sun's direction within 5e-12 rad and
distance within 1e-13 (relative). With float32 ``t``: the surface point within 0.85 m up to
t = 5400 s and 2.8 m at t = 86400 s; the Sun within 6e-7 rad and 2e-7. Tests: 50 m, 1e-5, 1e-6.

Why float32 holds up: nothing absolute is formed in the traced dtype (a float32 MJD near 60000
resolves 337 s). Every angle is evaluated at the epoch on the host in float64, reduced mod
2 pi; traced code adds ``rate * t`` (or a polynomial in the offset) and turns the Earth by a
small angle on top of the epoch's.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import Array

__all__ = ["geodetic_to_ecef", "rotation_ecef_to_eci", "sun_position_eci"]

_TWO_PI = 2.0 * math.pi
_ARCSEC = math.pi / 648000.0
_MICROARCSEC = _ARCSEC * 1e-6
_MJD_J2000 = 51544.5  # JD 2451545.0
_SECONDS_PER_CENTURY = 86400.0 * 36525.0
_TT_MINUS_UTC_S = 69.184  # 37 leap seconds + 32.184 s; only the slow terms see it

# Montenbruck & Gill's Sun: mean anomaly (rev, rev per century), longitude offset (rev),
# distance terms (m) and the J2000 obliquity of the ecliptic.
_SUN_ANOMALY = (0.9931267, 99.9973583)
_SUN_LONGITUDE = 0.7859444
_SUN_DISTANCE = (149.619e9, -2.499e9, -0.021e9)
_OBLIQUITY = math.radians(23.43929111)

# Earth rotation angle (IERS 2010, eq. 5.15): turns, and turns per UT1 day.
_ERA_AT_J2000 = 0.7790572732640
_ERA_PER_DAY = 1.00273781191135448

# IAU 2006 CIP polynomial parts in microarcseconds, ascending powers of T (TT centuries).
_X_POLY = (-16617.0, 2004191898.0, -429782.9, -198618.34, 7.578, 5.9285)
_Y_POLY = (-6951.0, -25896.0, -22407274.7, 1900.59, 1112.526, 0.1358)
_S_POLY = (94.0, 3808.65, -122.68, -72574.11, 27.98, 15.62)  # s + XY/2 (table 5.2d)

# Delaunay arguments l, l', F, D, Omega (IERS 2003) in arcseconds, ascending powers of T;
# cubic terms move the nutation by less than a microarcsecond.
_DELAUNAY = (
    (485868.249036, 1717915923.2178, 31.8792),
    (1287104.793048, 129596581.0481, -0.5532),
    (335779.526232, 1739527262.8478, -12.7512),
    (1072260.703692, 1602961601.2090, -6.3706),
    (450160.398036, -6962890.5431, 7.4722),
)

# Nutation terms (j = 0), microarcseconds: multipliers of (l, l', F, D, Omega), then sin and cos
# amplitudes of X, Y (the ten largest of each, tables 5.2a/b) and s + XY/2 (5.2d). The largest
# term dropped is 6.4 mas; all those dropped come to about 0.03 arcsec.
_NUTATION = (
    ((0, 0, 0, 0, 1), -6844318.44, 1328.67, 1538.18, 9205236.26, -2640.73, 0.39),
    ((0, 0, 2, -2, 2), -523908.04, -544.75, -458.66, 573033.42, 0.0, 0.0),
    ((0, 0, 2, 0, 2), -90552.22, 111.23, 137.41, 97846.69, 0.0, 0.0),
    ((0, 0, 0, 0, 2), 82168.76, -27.64, -29.05, -89618.24, -63.53, 0.02),
    ((0, 1, 0, 0, 0), 58707.02, 470.05, -192.40, 7387.02, 0.0, 0.0),
    ((1, 0, 0, 0, 0), 28288.28, -34.69, 0.0, 0.0, 0.0, 0.0),
    ((0, 1, 2, -2, 2), -20557.78, -20.84, -17.40, 22438.42, 0.0, 0.0),
    ((0, 0, 2, 0, 1), -15406.85, 15.12, 31.80, 20069.50, 0.0, 0.0),
    ((1, 0, 2, 0, 2), -11991.74, 32.46, 36.70, 12902.66, 0.0, 0.0),
    ((0, 1, -2, 2, -2), -8584.95, 4.42, -13.20, -9592.72, 0.0, 0.0),
    ((0, 0, 2, -2, 1), 0.0, 0.0, 3.92, -6918.22, 0.0, 0.0),
)
# The same for the terms proportional to T (j = 1); these reach 0.2 arcsec a century out.
_NUTATION_T = (
    ((0, 0, 0, 0, 1), -3328.48, 205833.15, 153041.82, 878.89, 0.0, 0.0),
    ((0, 0, 2, -2, 2), 197.53, 12814.01, 11714.49, -289.32, 0.0, 0.0),
    ((0, 0, 2, 0, 2), 41.44, 2187.91, 2024.68, -50.99, 0.0, 0.0),
)


def _epoch(epoch_mjd_utc: float) -> float:
    try:
        epoch = float(epoch_mjd_utc)
    except TypeError as err:  # a tracer: the epoch is configuration, fixed at trace time
        raise TypeError(f"epoch_mjd_utc must be a static float, got {epoch_mjd_utc!r}") from err
    if not math.isfinite(epoch):
        raise ValueError(f"epoch_mjd_utc must be finite, got {epoch!r}")
    return epoch


def _time(t: Array) -> Array:
    """``t`` as a float array of at least float32 precision; the outputs follow its dtype."""
    t = jnp.asarray(t)
    if not jnp.issubdtype(t.dtype, jnp.floating):
        return t.astype(jnp.result_type(float))
    return t.astype(jnp.promote_types(t.dtype, jnp.float32))


def _recentre(coeffs: np.ndarray, x0: float) -> np.ndarray:
    """Coefficients of ``p(x0 + d)`` in powers of ``d``, for ``p`` given in powers of ``x``."""
    n = coeffs.shape[-1]
    return np.stack(
        [
            sum(coeffs[..., k] * math.comb(k, j) * x0 ** (k - j) for k in range(j, n))
            for j in range(n)
        ],
        axis=-1,
    )


def _horner(coeffs: np.ndarray, x: Array) -> Array:
    """``sum(coeffs[k] * x**k)`` in ``x``'s dtype (the Python-float coefficients stay weak)."""
    acc = jnp.zeros_like(x)
    for c in coeffs[::-1]:
        acc = acc * x + float(c)
    return acc


def sun_position_eci(epoch_mjd_utc: float, t: Array) -> Array:
    """The Sun's position in the ECI (EME2000/GCRF) frame, Montenbruck & Gill's analytic model.

    Args:
        epoch_mjd_utc: static Python float, the epoch as a UTC Modified Julian Date.
        t: f[] seconds after the epoch, traced (a batch of shape [...] gives [..., 3]).

    Returns:
        f[3] position in metres, in ``t``'s float dtype (at least float32).

    Raises:
        ValueError: ``epoch_mjd_utc`` is not finite.
    """
    epoch = _epoch(epoch_mjd_utc)
    t = _time(t)
    centuries = (epoch - _MJD_J2000) / 36525.0  # UTC taken as TT, as astrojax does
    anomaly0 = _TWO_PI * math.fmod(_SUN_ANOMALY[0] + _SUN_ANOMALY[1] * centuries, 1.0)
    rate = _TWO_PI * _SUN_ANOMALY[1] / _SECONDS_PER_CENTURY  # rad/s
    # The longitude is the anomaly plus a constant and the equation of centre; folding the
    # constant into the epoch's anomaly keeps the traced sum small.
    longitude0 = math.fmod(_TWO_PI * _SUN_LONGITUDE + anomaly0, _TWO_PI)
    anomaly = anomaly0 + rate * t
    centre = (6892.0 * jnp.sin(anomaly) + 72.0 * jnp.sin(2.0 * anomaly)) * _ARCSEC
    longitude = longitude0 + rate * t + centre
    d0, d1, d2 = _SUN_DISTANCE
    distance = d0 + d1 * jnp.cos(anomaly) + d2 * jnp.cos(2.0 * anomaly)
    x, y = distance * jnp.cos(longitude), distance * jnp.sin(longitude)  # ecliptic plane
    return jnp.stack([x, y * math.cos(_OBLIQUITY), y * math.sin(_OBLIQUITY)], axis=-1)


def rotation_ecef_to_eci(epoch_mjd_utc: float, t: Array) -> Array:
    """The rotation taking ECEF (ITRF) vectors to ECI (GCRF), IAU 2006/2000A with zero EOP.

    Args:
        epoch_mjd_utc: static Python float, the epoch as a UTC Modified Julian Date.
        t: f[] seconds after the epoch, traced (a batch of shape [...] gives [..., 3, 3]).

    Returns:
        f[3, 3] rotation matrix, ``r_eci = R @ r_ecef``, in ``t``'s float dtype.

    Raises:
        ValueError: ``epoch_mjd_utc`` is not finite.
    """
    epoch = _epoch(epoch_mjd_utc)
    t = _time(t)

    def const(values: np.ndarray) -> Array:  # host float64 -> traced dtype, once per trace
        return jnp.asarray(values, t.dtype)

    # Slow terms: polynomials recentred on the epoch on the host, evaluated in the offset.
    centuries0 = (epoch + _TT_MINUS_UTC_S / 86400.0 - _MJD_J2000) / 36525.0
    dc = t / _SECONDS_PER_CENTURY
    rows = _NUTATION + _NUTATION_T
    amplitudes = np.array([row[1:] for row in rows]) * _MICROARCSEC
    multipliers = np.array([row[0] for row in rows], dtype=np.float64)
    phase = _recentre(multipliers @ np.array(_DELAUNAY) * _ARCSEC, centuries0)
    phase[:, 0] = np.mod(phase[:, 0], _TWO_PI)
    dcn = dc[..., None]  # against the terms' axis
    angle = const(phase[:, 0]) + dcn * (const(phase[:, 1]) + dcn * const(phase[:, 2]))
    sin_a, cos_a = jnp.sin(angle), jnp.cos(angle)
    n0 = len(_NUTATION)

    def series(poly: tuple[float, ...], column: int) -> Array:
        terms = sin_a * const(amplitudes[:, column]) + cos_a * const(amplitudes[:, column + 1])
        periodic = terms[..., :n0].sum(-1) + (centuries0 + dc) * terms[..., n0:].sum(-1)
        return _horner(_recentre(np.array(poly) * _MICROARCSEC, centuries0), dc) + periodic

    x, y = series(_X_POLY, 0), series(_Y_POLY, 2)
    s = series(_S_POLY, 4) - 0.5 * x * y

    # Earth rotation angle with UT1 = UTC, split so the day count's integer part drops out.
    days0 = epoch - _MJD_J2000
    era0 = _TWO_PI * math.fmod(_ERA_AT_J2000 + (_ERA_PER_DAY - 1.0) * days0 + days0 % 1.0, 1.0)
    # cos/sin of (ERA - s) by the angle sum: the epoch's part exact from the host, the traced
    # part small, so float32 keeps its resolution in the episode's short offsets.
    delta = (_TWO_PI * _ERA_PER_DAY / 86400.0) * t - s
    cos0, sin0, cos_d, sin_d = math.cos(era0), math.sin(era0), jnp.cos(delta), jnp.sin(delta)
    c, sn = cos0 * cos_d - sin0 * sin_d, sin0 * cos_d + cos0 * sin_d

    # GCRS <- CIRS from the CIP (IERS 2010 eq. 5.10); 1/(1 + Z) to second order in X, Y.
    a = 0.5 + 0.125 * (x * x + y * y)
    q = [
        [1.0 - a * x * x, -a * x * y, x],
        [-a * x * y, 1.0 - a * y * y, y],
        [-x, -y, 1.0 - a * (x * x + y * y)],
    ]
    # ... times R3(-(ERA - s)): ITRS (= TIRS with no polar motion) -> CIRS.
    rows_out = [jnp.stack([r[0] * c + r[1] * sn, r[1] * c - r[0] * sn, r[2]], axis=-1) for r in q]
    return jnp.stack(rows_out, axis=-2)


def geodetic_to_ecef(lat_deg: float, lon_deg: float, alt_m: float) -> np.ndarray:
    """A WGS-84 geodetic position to ECEF, on the host in float64.

    Args:
        lat_deg: geodetic latitude in degrees, in [-90, 90].
        lon_deg: longitude in degrees, east positive.
        alt_m: height above the ellipsoid in metres.

    Returns:
        f64[3] ECEF (ITRF) position in metres.

    Raises:
        ValueError: ``lat_deg`` is outside [-90, 90], or ``lon_deg`` or ``alt_m`` is not finite.
    """
    lat, lon, alt = float(lat_deg), float(lon_deg), float(alt_m)
    if not -90.0 <= lat <= 90.0:  # also rejects NaN
        raise ValueError(f"lat_deg must be in [-90, 90], got {lat!r}")
    if not math.isfinite(lon):
        raise ValueError(f"lon_deg must be finite, got {lon!r}")
    if not math.isfinite(alt):
        raise ValueError(f"alt_m must be finite, got {alt!r}")
    a, f = 6378137.0, 1.0 / 298.257223563
    e2 = f * (2.0 - f)
    phi, lam = math.radians(lat), math.radians(lon)
    n = a / math.sqrt(1.0 - e2 * math.sin(phi) ** 2)  # prime-vertical radius of curvature
    rho = (n + alt) * math.cos(phi)  # distance from the polar axis
    z = (n * (1.0 - e2) + alt) * math.sin(phi)
    return np.array([rho * math.cos(lam), rho * math.sin(lam), z], dtype=np.float64)
