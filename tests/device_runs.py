"""Runs on forced CPU devices and joined processes, for the sharding and data-parallel tests.

A process gets several CPU devices only from ``XLA_FLAGS`` set before JAX starts, and joins
others only through `jax.distributed`, so these runs are fresh interpreters:

* the test side (`start`, `finish`, `free_port`) launches ``python -m MODULE --out FILE
  ...`` in its own process group and kills the group when it overruns;
* the runner side (`runner_args`, `start_jax`) reads the common flags (``--devices``,
  ``--processes``, ``--process-id``, ``--port``, ``--out``) and brings JAX up accordingly.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A free TCP port on 127.0.0.1, for `jax.distributed`'s coordinator."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(module: str, out: Path, *flags: str) -> subprocess.Popen:
    """Starts ``python -m module --out out *flags`` with this checkout's horizax and tests."""
    import horizax

    src = str(Path(horizax.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, str(ROOT)])}
    return subprocess.Popen(
        [sys.executable, "-m", module, "--out", str(out), *flags],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(processes: list[subprocess.Popen], timeout_s: float) -> None:
    """Waits for all; on a timeout kills every process group; fails on a non-zero exit."""
    try:
        outputs = [p.communicate(timeout=timeout_s) for p in processes]
    except subprocess.TimeoutExpired:
        for p in processes:
            os.killpg(p.pid, signal.SIGKILL)
        pytest.fail(f"a run on several devices gave no result within {timeout_s} s")
    for p, (_, err) in zip(processes, outputs, strict=True):
        assert p.returncode == 0, err[-3000:]


def runner_args() -> argparse.Namespace:
    """The runner's flags: ``--devices`` per process, ``--processes``, ``--process-id``,
    ``--port``, ``--out``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, required=True, help="CPU devices per process")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--process-id", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--out", required=True)
    return parser.parse_args()


def start_jax(args: argparse.Namespace) -> Any:
    """Forces the CPU devices (keeping the test run's other XLA flags), joins the processes,
    and returns the `jax` module."""
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={args.devices}"
    import jax

    if args.processes > 1:
        jax.distributed.initialize(
            coordinator_address=f"127.0.0.1:{args.port}",
            num_processes=args.processes,
            process_id=args.process_id,
            initialization_timeout=60,
        )
    assert len(jax.devices()) == args.devices * args.processes, jax.devices()
    return jax
