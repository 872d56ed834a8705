"""`rgb_frame`: a picture of one orbital state in the radial/along-track plane (numpy only).

Along-track runs left to right, radial bottom to top, centred on the lady (the RTN origin).
Guards are blue discs, bandits red ones; the game's catch and breach radii, where it has
them, are drawn as rings around every guard and around the lady.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["rgb_frame"]

_BACKGROUND = (250, 250, 250)
_LADY = (40, 160, 60)
_GUARD = (40, 90, 220)
_BANDIT = (220, 50, 40)
_RING = (150, 150, 150)


def _disc(frame: np.ndarray, centre: tuple[float, float], radius: float, color: Any) -> None:
    h, w, _ = frame.shape
    yy, xx = np.mgrid[0:h, 0:w]
    frame[(yy - centre[0]) ** 2 + (xx - centre[1]) ** 2 <= radius**2] = color


def _ring(frame: np.ndarray, centre: tuple[float, float], radius: float, color: Any) -> None:
    h, w, _ = frame.shape
    yy, xx = np.mgrid[0:h, 0:w]
    distance = np.sqrt((yy - centre[0]) ** 2 + (xx - centre[1]) ** 2)
    frame[np.abs(distance - radius) <= 0.7] = color


def rgb_frame(
    state: Any, config: Any, size: int = 256, extent_m: float | None = None
) -> np.ndarray:
    """u8[size, size, 3] picture of one unbatched `EnvState`.

    Args:
        state: the state.
        config: its `ScenarioConfig` (for the game's radii).
        size: the image side in pixels.
        extent_m: half the width shown, in metres (default: 1.2x the farthest vehicle, at
            least 100 m).
    """
    from horizax.orbital.state.components import positions

    guards = np.asarray(positions(state.guards), np.float64)[:, :2]
    bandits = np.asarray(positions(state.bandits), np.float64)[:, :2]
    if extent_m is None:
        farthest = float(np.max(np.abs(np.concatenate([guards, bandits])))) if guards.size else 0.0
        extent_m = max(100.0, 1.2 * farthest)
    scale = (size / 2) / extent_m

    def pixel(rt: np.ndarray) -> tuple[float, float]:
        return (size / 2 - rt[0] * scale, size / 2 + rt[1] * scale)

    frame = np.empty((size, size, 3), np.uint8)
    frame[...] = _BACKGROUND
    game = getattr(config, "game", None)
    catch = float(getattr(game, "catch_radius_m", 0.0) or 0.0)
    breach = float(getattr(game, "breach_radius_m", 0.0) or 0.0)
    centre = (size / 2, size / 2)
    if breach > 0:
        _ring(frame, centre, breach * scale, _RING)
    _disc(frame, centre, 3, _LADY)
    for g in guards:
        if catch > 0:
            _ring(frame, pixel(g), catch * scale, _RING)
        _disc(frame, pixel(g), 4, _GUARD)
    for b in bandits:
        _disc(frame, pixel(b), 4, _BANDIT)
    return frame
