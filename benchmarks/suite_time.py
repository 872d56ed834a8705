"""Where the test suite's time goes: JAX's tracing, lowering and XLA compilation, per test.

A pytest plugin and its report. Loaded into a run, it listens to JAX's own duration events
(`jax.monitoring`) and charges each to the test running at the time, beside the test's
wall time (setup, call and teardown). Every process writes one JSON line per test into the
folder given, the xdist workers included; the report then sums them by file, by test
function and for the whole run::

    PYTHONPATH=benchmarks python3 -m pytest -n 2 -p suite_time --suite-time=DIR
    python3 benchmarks/suite_time.py DIR [--top 30]

Columns, in seconds of one process's time:

* ``trace``: ``jaxpr_trace_duration``. A `jax.jit` traced inside another's trace records its
  own event within the outer one's, so nested traces count twice: an upper bound.
* ``lower``: ``jaxpr_to_mlir_module_duration``, once per top-level program.
* ``compile``: ``backend_compile_duration``, XLA's compilation, once per compiled program;
  ``programs`` counts them.
* ``rest``: wall time less lowering and compilation: tracing, running the programs, the
  reference implementations, the test's own Python.

What it cannot see: programs compiled in subprocesses that a test starts (MiniGrid's own
suite, the multi-process checks). Their time is in the parent's wall time, under ``rest``.
Events outside any test (collection, module imports) are charged to ``<outside tests>``.
Nothing is recorded unless ``--suite-time`` is given.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from pathlib import Path
from typing import Any

EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "trace",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
    "/jax/core/compile/backend_compile_duration": "compile",
}
OUTSIDE = "<outside tests>"
COLUMNS = ("wall", "trace", "lower", "compile", "programs")


class Recorder:
    """Per-test sums of JAX's duration events and the tests' wall time, in one process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.current = OUTSIDE
        self.tests: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter
        )

    def listen(self, event: str, seconds: float, **_: Any) -> None:
        """A `jax.monitoring` duration listener."""
        column = EVENTS.get(event)
        if column is None:
            return
        sums = self.tests[self.current]
        sums[column] += seconds
        if column == "compile":
            sums["programs"] += 1

    def write(self) -> Path:
        """Writes this process's records, one JSON line per test; returns the file."""
        self.folder.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        path = self.folder / f"{worker}-{os.getpid()}.jsonl"
        with path.open("w") as out:
            for nodeid, sums in self.tests.items():
                out.write(json.dumps({"test": nodeid, **{c: sums[c] for c in COLUMNS}}) + "\n")
        return path


# --- the pytest plugin ----------------------------------------------------------------------

_recorder: Recorder | None = None  # this process's recorder, once configured


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--suite-time",
        metavar="DIR",
        default=None,
        help="write per-test JAX trace, lowering and compile seconds into DIR (suite_time.py)",
    )


def pytest_configure(config: Any) -> None:
    folder = config.getoption("--suite-time")
    if folder is None:
        return
    import jax

    global _recorder
    _recorder = Recorder(Path(folder))
    jax.monitoring.register_event_duration_secs_listener(_recorder.listen)


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    if _recorder is not None:
        _recorder.current = nodeid


def pytest_runtest_logreport(report: Any) -> None:
    # Under xdist the controller sees every worker's reports (they carry ``node``); only the
    # process that ran the test counts its time.
    if _recorder is not None and not hasattr(report, "node"):
        _recorder.tests[report.nodeid]["wall"] += report.duration


def pytest_runtest_logfinish(nodeid: str, location: Any) -> None:
    if _recorder is not None:
        _recorder.current = OUTSIDE


def pytest_unconfigure(config: Any) -> None:
    if _recorder is not None and _recorder.tests:
        _recorder.write()


# --- the report -------------------------------------------------------------------------------


def load(folder: Path) -> dict[str, collections.Counter[str]]:
    """Every process's records in ``folder``, summed per test."""
    tests: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            tests[record.pop("test")].update(record)
    return tests


def grouped(tests: dict[str, collections.Counter[str]], by: str) -> dict[str, Any]:
    """Sums per ``by``: ``file``, ``function`` (parameters dropped) or ``all``."""
    out: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for nodeid, sums in tests.items():
        if nodeid == OUTSIDE:
            continue
        if by == "file":
            key = nodeid.split("::")[0]
        elif by == "function":
            key = nodeid.split("[")[0]
        else:
            key = "all"
        out[key].update(sums)
        out[key]["tests"] += 1
    return out


def table(groups: dict[str, Any], top: int) -> str:
    """A Markdown table of the ``top`` groups by wall time (the rest summed into one row)."""
    header = "| | tests | wall s | trace s | lower s | compile s | programs | rest s |"
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    ranked = sorted(groups.items(), key=lambda kv: -kv[1]["wall"])
    shown, others = ranked[:top], ranked[top:]
    if others:
        rest: collections.Counter[str] = collections.Counter()
        for _, sums in others:
            rest.update(sums)
        shown.append((f"({len(others)} more)", rest))
    for name, s in shown:
        lines.append(
            f"| {name} | {s['tests']:,} | {s['wall']:,.1f} | {s['trace']:,.1f} | "
            f"{s['lower']:,.1f} | {s['compile']:,.1f} | {s['programs']:,} | "
            f"{s['wall'] - s['lower'] - s['compile']:,.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="the folder given to --suite-time")
    parser.add_argument("--top", type=int, default=25, help="rows per table (default 25)")
    args = parser.parse_args(argv)
    tests = load(args.folder)
    if not tests:
        sys.exit(f"no records in {args.folder}: was the run given --suite-time={args.folder}?")
    for by in ("all", "file", "function"):
        print(f"\n## By {by}\n\n{table(grouped(tests, by), args.top)}")
    outside = tests.get(OUTSIDE)
    if outside:
        print(
            f"\nOutside tests (collection, imports): trace {outside['trace']:,.1f} s, lower "
            f"{outside['lower']:,.1f} s, compile {outside['compile']:,.1f} s, "
            f"{outside['programs']:,} programs."
        )


if __name__ == "__main__":
    main()
