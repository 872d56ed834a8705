"""Forked worker processes and JAX: a clear error where JAX would deadlock.

Process-based vector envs (Gymnasium's ``AsyncVectorEnv``, Stable-Baselines3's
``SubprocVecEnv``) start one worker process per environment. With the ``fork`` start method
(Python's default on Linux before 3.14) a worker is a copy of its parent, threads excepted:
if the parent had started JAX's backend (ran any JAX computation) before forking, the copy
holds a backend whose thread pools are gone, and the worker's first JAX computation waits
for them forever.

The gridworld and Maze Gymnasium environments do no JAX computation when they are built,
only in ``reset``, ``step`` and ``render``, so a parent that only builds vector envs forks
safely. The orbital games are the exception: building one builds its scenario's JAX arrays,
which starts the backend, so their process-based vector envs need ``spawn`` or
``forkserver`` (Gymnasium's ``AsyncVectorEnv`` builds one env in the parent).
For the dangerous case, `install_fork_check` registers a hook that runs in every forked
child and notes whether the parent's backend had started; `check_jax_usable` (called by the
environments before their JAX work) then raises `JaxForkError`, which the vector env passes
back to the parent, instead of hanging. ``spawn`` and ``forkserver`` workers start a fresh
interpreter and are never affected.
"""

from __future__ import annotations

import os

__all__ = ["JaxForkError", "check_jax_usable", "install_fork_check"]

_forked_from_live_jax = False
_installed = False


class JaxForkError(RuntimeError):
    """JAX cannot run here: this process was forked after its parent had started JAX."""


def _backend_started() -> bool:
    """Whether this process's JAX backend has started (read without taking JAX's lock, which
    a thread that did not survive the fork may hold)."""
    try:
        from jax._src import xla_bridge
    except ImportError:  # pragma: no cover - a JAX without this module: nothing to detect
        return False
    return bool(getattr(xla_bridge, "_backends", None))


def _after_fork_in_child() -> None:
    global _forked_from_live_jax
    if _backend_started():
        _forked_from_live_jax = True


def install_fork_check() -> None:
    """Registers the after-fork hook that `check_jax_usable` reads (once; no-op off POSIX)."""
    global _installed
    if not _installed and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_in_child)
        _installed = True


def check_jax_usable() -> None:
    """Raises before JAX work in a process forked from a parent that had started JAX.

    Raises:
        JaxForkError: naming the start methods that work.
    """
    if _forked_from_live_jax:
        raise JaxForkError(
            f"process {os.getpid()} was forked after its parent had run JAX, so JAX cannot "
            "run in it (the parent's thread pools did not survive the fork; it would hang). "
            "Start the workers with 'spawn' or 'forkserver' (gymnasium.make_vec(..., "
            "vector_kwargs={'context': 'spawn'}); SubprocVecEnv(..., start_method='spawn')), "
            "or create the process-based vector env before the parent runs any JAX."
        )
