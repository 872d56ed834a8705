"""The scripts of ``examples/`` run as users run them (``python examples/NAME.py``), small."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _run(name: str, *argv: str) -> str:
    """The script's stdout; fails the test on a non-zero exit, showing its stderr."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=EXAMPLES.parent,
    )
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stderr}"
    return done.stdout


def _count(label: str, out: str) -> int:
    match = re.search(rf"^\s*{label}\s+(\d+)", out, re.MULTILINE)
    assert match, f"no {label!r} line in:\n{out}"
    return int(match.group(1))


def test_random_rollout_counts_both_endings():
    out = _run("random_rollout.py", "--batch", "64", "--steps", "120")
    # Empty-5x5's limit is 100 steps: random walks reach the goal, and some run out of time.
    assert _count("terminated", out) > 0 and _count("truncated", out) > 0
    assert _count("episodes ended", out) == _count("terminated", out) + _count("truncated", out)
    assert re.search(r"throughput\s+[\d,]+ steps/s", out), out


@pytest.mark.reference
def test_gymnax_agent_bootstraps_at_truncation():
    pytest.importorskip("gymnax")  # the gymnax extra; CI installs every extra
    out = _run("gymnax_agent.py", "--batch", "16", "--steps", "100")
    assert _count("truncated", out) > 0
    exact = float(re.search(r"V\(start\)\s+([\d.]+) \(exact", out).group(1))  # type: ignore[union-attr]
    wrong = float(re.search(r"V\(start\) wrong\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    assert exact > wrong, out  # reading truncation as termination drags the values down


@pytest.mark.reference
def test_gymnasium_agent_plays_its_episodes():
    pytest.importorskip("gymnasium")  # the gymnasium extra; CI installs every extra
    out = _run("gymnasium_agent.py", "--episodes", "12", "--max-steps", "20")
    assert _count("episodes", out) == 12
    assert _count("terminated", out) + _count("truncated", out) == 12
    assert "mean return" in out
