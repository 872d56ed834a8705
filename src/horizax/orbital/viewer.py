"""Pictures of orbital states in the radial/along-track plane: a numpy frame, and a
matplotlib viewer with GIF animation.

Along-track runs left to right, radial bottom to top; the lady is the RTN origin. Guards are
blue, bandits red; the game's radii, where it has them, are drawn around the lady and guards.

`rgb_frame` needs numpy only. `OrbitalViewer` imports matplotlib when it first draws
(``pip install horizax[maze]`` brings it and Pillow); GIFs are written by matplotlib's Pillow
writer.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = ["RENDER_MODES", "OrbitalViewer", "rgb_frame"]

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


# -- the matplotlib viewer -------------------------------------------------------------------

RENDER_MODES = ("human", "rgb_array")
# The smallest half-width a fitted view takes, so a lone vehicle on the lady is not a
# zero-size window (matplotlib would warn and draw nothing useful).
_MIN_HALF_EXTENT_M = 20.0


def _rgb(color: tuple[int, int, int]) -> tuple[float, float, float]:
    return (color[0] / 255, color[1] / 255, color[2] / 255)


@dataclasses.dataclass(frozen=True)
class _Ring:
    """One of the game's radii as drawn: around the lady, every guard, or guard 0.

    ``hcw`` draws the 2:1 relative-orbit ellipse of radial half-size ``radius_m`` (along-track
    half-size twice that) instead of a circle: Get-Off-My-Lawn measures its standoff that way.
    """

    around: str  # "lady" | "guards" | "guard0"
    radius_m: float
    label: str
    color: tuple[float, float, float]
    hcw: bool = False


def _rings(config: Any) -> list[_Ring]:
    """The radii of ``config.game`` worth drawing (positive and finite), by attribute name."""
    game = getattr(config, "game", None)

    def radius(name: str) -> float:
        value = float(getattr(game, name, 0.0) or 0.0)
        return value if np.isfinite(value) and value > 0 else 0.0

    lady, guard, grey = _rgb(_LADY), _rgb(_GUARD), (0.45, 0.45, 0.45)
    candidates = [
        _Ring("lady", radius("breach_radius_m"), "breach radius", lady),
        _Ring("lady", radius("keep_out_radius_m"), "keep-out shell", grey, hcw=True),
        _Ring("lady", radius("r_min_keep_m"), "loiter band", lady, hcw=True),
        _Ring("lady", radius("r_max_keep_m"), "", lady, hcw=True),  # the band's outer edge
        _Ring("guards", radius("catch_radius_m"), "catch radius", guard),
        _Ring("guard0", radius("capture_distance_m"), "capture distance", guard),
    ]
    return [ring for ring in candidates if ring.radius_m > 0]


@dataclasses.dataclass(frozen=True)
class _Snapshot:
    """One state on the host, in plot coordinates (x along-track, y radial; metres).

    Attributes:
        t: seconds since the episode began.
        step: steps taken.
        guards: f64[n_guards, 2].
        bandits: f64[n_bandits, 2].
    """

    t: float
    step: int
    guards: np.ndarray
    bandits: np.ndarray


def _snapshot(state: Any) -> _Snapshot:
    from horizax.orbital.state.components import positions

    if np.ndim(state.t) != 0:
        raise ValueError(
            "render one unbatched state: state.t must be a scalar, got shape "
            f"{np.shape(state.t)} (index a batch or a time-stacked state first)"
        )
    # RTN columns are (radial, along-track, cross-track); the plot wants (along-track, radial).
    guards = np.asarray(positions(state.guards), np.float64)[:, [1, 0]]
    bandits = np.asarray(positions(state.bandits), np.float64)[:, [1, 0]]
    return _Snapshot(float(state.t), int(state.step), guards, bandits)


def _unstack(states: Any) -> list[Any]:
    """A list of unbatched states from a sequence of them or one time-stacked `EnvState`."""
    if hasattr(states, "t") and hasattr(states, "guards"):  # one EnvState, not a sequence
        ndim = np.ndim(states.t)
        if ndim == 0:
            return [states]
        if ndim != 1:
            raise ValueError(
                "animate takes unbatched states, or one state stacked over time only "
                f"(state.t f32[T]); got state.t of shape {np.shape(states.t)}"
            )
        import jax

        # One device-to-host copy, then cheap numpy slicing per frame.
        host = jax.tree_util.tree_map(np.asarray, states)
        return [jax.tree_util.tree_map(lambda x, i=i: x[i], host) for i in range(len(host.t))]
    return list(states)


def _limits(points: np.ndarray, extent_m: float | None) -> tuple[float, float, float, float]:
    """``(x0, x1, y0, y1)``: a square window, ``extent_m`` either side of the lady, else
    fitted around ``points`` f64[N, 2] and the lady with a margin."""
    if extent_m is not None:
        return (-extent_m, extent_m, -extent_m, extent_m)
    finite = points[np.all(np.isfinite(points), axis=1)]
    finite = np.concatenate([finite, np.zeros((1, 2))])  # the lady is always in view
    low, high = finite.min(axis=0), finite.max(axis=0)
    centre = (low + high) / 2
    half = max(0.6 * float(np.max(high - low)), _MIN_HALF_EXTENT_M)
    return (centre[0] - half, centre[0] + half, centre[1] - half, centre[1] + half)


class OrbitalViewer:
    """Draws orbital `EnvState`s of one scenario with matplotlib.

    The view is the radial/along-track plane of the lady's RTN frame: along-track (m) to the
    right, radial (m) up, equal aspect. The lady (the RTN origin) is a green star, guards blue
    and bandits red, labelled g0, b0, ...; the game's radii are dashed: the breach radius
    around the lady and the catch radius around every guard (Lady-Bandit-Guard), the
    keep-out shell and loiter band around the lady as 2:1 relative-orbit ellipses and the
    catch radius around every guard (Get-Off-My-Lawn), the capture distance around guard 0
    (Pursuit-Evasion); games without radii draw none. Cross-track is not shown.

    Args:
        config: the `ScenarioConfig` the states belong to (for the game's radii).
        name: the figure title.
        render_mode: "human" (draw in a window; `render` returns None) or "rgb_array"
            (`render` returns the figure as u8[H, W, 3]).
        extent_m: half the width shown, in metres, centred on the lady; default fitted to
            the vehicles (all frames, for an animation) with a margin.

    Raises:
        ValueError: an unknown render mode, or an ``extent_m`` that is not positive.
    """

    def __init__(
        self,
        config: Any,
        name: str = "Orbital",
        render_mode: str = "human",
        extent_m: float | None = None,
    ) -> None:
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, got {render_mode!r}")
        if extent_m is not None and not (np.isfinite(extent_m) and extent_m > 0):
            raise ValueError(f"extent_m must be positive and finite, got {extent_m!r}")
        self.config = config
        self.name = name
        self.render_mode = render_mode
        self.extent_m = extent_m
        self._rings = _rings(config)
        self._figure: Any = None
        self._animation: Any = None

    def __getstate__(self) -> dict[str, Any]:
        # A figure belongs to this process's GUI; an unpickled (or deep-copied) viewer opens
        # its own.
        return {**self.__dict__, "_figure": None, "_animation": None}

    def _title(self, snap: _Snapshot) -> str:
        game = type(getattr(self.config, "game", None)).__name__
        prefix = self.name if game in ("NoneType", "NoGame") else f"{self.name}: {game}"
        return f"{prefix}   t = {snap.t:.1f} s, step {snap.step}"

    def _draw(
        self,
        ax: Any,
        snap: _Snapshot,
        limits: tuple[float, float, float, float],
        trails: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Draws one frame; ``trails`` are the paths so far, (f64[k, n_guards, 2],
        f64[k, n_bandits, 2])."""
        from matplotlib.patches import Ellipse

        ax.clear()
        lady, guard, bandit = _rgb(_LADY), _rgb(_GUARD), _rgb(_BANDIT)
        for ring in self._rings:
            if ring.around == "lady":
                centres = np.zeros((1, 2))
            else:
                centres = snap.guards[:1] if ring.around == "guard0" else snap.guards
            centres = centres[np.all(np.isfinite(centres), axis=1)]
            width = 2 * ring.radius_m * (2 if ring.hcw else 1)
            for k, centre in enumerate(centres):
                ax.add_patch(
                    Ellipse(
                        (float(centre[0]), float(centre[1])),
                        width,
                        2 * ring.radius_m,
                        fill=False,
                        linestyle="--",
                        linewidth=1.0,
                        edgecolor=ring.color,
                        alpha=0.8,
                        label=ring.label if k == 0 and ring.label else None,
                    )
                )
        if trails is not None:
            for paths, color in ((trails[0], guard), (trails[1], bandit)):
                for i in range(paths.shape[1]):
                    ax.plot(paths[:, i, 0], paths[:, i, 1], color=color, lw=0.8, alpha=0.6)
        ax.plot([0.0], [0.0], marker="*", markersize=14, color=lady, linestyle="none")
        ax.annotate("lady", (0.0, 0.0), xytext=(6, -10), textcoords="offset points", color=lady)
        for points, color, tag in ((snap.guards, guard, "g"), (snap.bandits, bandit, "b")):
            ax.plot(points[:, 0], points[:, 1], "o", color=color, markersize=7)
            for i, (x, y) in enumerate(points):
                if np.isfinite(x) and np.isfinite(y):
                    ax.annotate(
                        f"{tag}{i}", (x, y), xytext=(5, 5), textcoords="offset points", color=color
                    )
        x0, x1, y0, y1 = limits
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.set_aspect("equal")
        ax.set_xlabel("along-track (m)")
        ax.set_ylabel("radial (m)")
        ax.grid(alpha=0.3)
        ax.set_title(self._title(snap), fontsize=10)
        if any(ring.label for ring in self._rings):
            ax.legend(loc="upper right", fontsize=7, framealpha=0.8)

    def _axes(self) -> Any:
        import matplotlib.pyplot as plt

        if self._figure is None or not plt.fignum_exists(self._figure.number):
            self._figure = plt.figure(self.name, figsize=(6.0, 6.0), layout="constrained")
        self._figure.clear()
        return self._figure.add_subplot(111)

    def render(self, state: Any, save_path: str | None = None) -> np.ndarray | None:
        """Draws ``state``.

        Args:
            state: one unbatched `EnvState` of the viewer's scenario.
            save_path: also save the figure as an image file here (the format from the
                suffix, e.g. ``.png``).

        Returns:
            u8[H, W, 3] in "rgb_array" mode, else None.

        Raises:
            ValueError: a batched state.
        """
        import matplotlib.pyplot as plt

        snap = _snapshot(state)  # before any figure exists: a batched state fails cleanly
        ax = self._axes()
        self._draw(ax, snap, _limits(np.concatenate([snap.guards, snap.bandits]), self.extent_m))
        figure = self._figure
        if save_path:
            figure.savefig(save_path, bbox_inches="tight", pad_inches=0.2)
        figure.canvas.draw()
        if self.render_mode == "rgb_array":
            return np.asarray(figure.canvas.buffer_rgba())[..., :3].copy()
        if plt.get_backend().lower() != "agg":  # a window to update; Agg has none
            plt.pause(0.001)
        return None

    def animate(self, states: Any, interval: int = 200, save_path: str | None = None) -> Any:
        """A `matplotlib.animation.FuncAnimation` with one frame per state, each vehicle's
        path so far drawn as a thin trail.

        Args:
            states: a sequence of unbatched `EnvState`s (an episode), or one `EnvState`
                stacked over time (leading axis T on every leaf, as `jax.lax.scan` returns).
            interval: milliseconds between frames (> 0).
            save_path: write the animation here as a GIF (matplotlib's Pillow writer).

        Returns:
            The animation (keep a reference while it is shown).

        Raises:
            ValueError: no states, a batched state, or ``interval <= 0``.
        """
        import matplotlib.animation
        import matplotlib.pyplot as plt

        if interval <= 0:
            raise ValueError(f"interval must be positive (ms), got {interval!r}")
        snaps = [_snapshot(state) for state in _unstack(states)]
        if not snaps:
            raise ValueError("animate needs at least one state")
        guards = np.stack([s.guards for s in snaps])  # f64[T, n_guards, 2]
        bandits = np.stack([s.bandits for s in snaps])  # f64[T, n_bandits, 2]
        everything = np.concatenate([guards.reshape(-1, 2), bandits.reshape(-1, 2)])
        limits = _limits(everything, self.extent_m)  # one window for all frames: no jumps
        figure = plt.figure(f"{self.name} animation", figsize=(6.0, 6.0), layout="constrained")
        ax = figure.add_subplot(111)
        plt.close(figure)  # drawn into the animation only, not shown as a window

        def frame(i: int) -> tuple[Any]:
            self._draw(ax, snaps[i], limits, (guards[: i + 1], bandits[: i + 1]))
            return (ax,)

        self._animation = matplotlib.animation.FuncAnimation(
            figure, frame, frames=len(snaps), interval=interval, cache_frame_data=False
        )
        if save_path:
            fps = max(1, round(1000 / interval))
            self._animation.save(save_path, writer=matplotlib.animation.PillowWriter(fps=fps))
        return self._animation

    def close(self) -> None:
        """Closes the viewer's figure."""
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None
