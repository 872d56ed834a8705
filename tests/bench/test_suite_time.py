"""`benchmarks/suite_time.py`: the per-test account of JAX's trace, lowering and compile time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.bench.probes import DIR, load

# Three tests: one compiles two programs, one compiles nothing, one fails after compiling.
# A jitted function at import is traced outside any test.
SAMPLE = """
import jax
import numpy as np

jax.jit(lambda x: x - 1).lower(1.0)


def test_compiles_two():
    jax.jit(lambda x: x + 1)(np.float32(1))
    jax.jit(lambda x: x * 3)(np.int32(1))


def test_compiles_nothing():
    assert 1 + 1 == 2


def test_fails_after_a_compile():
    jax.jit(lambda x: x / 2)(np.float32(1))
    assert False
"""


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(DIR), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "suite_time", "-p", "no:cacheprovider",
         "-p", "no:randomly", "--rootdir", str(tmp_path), "-c", os.devnull, *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.slow
def test_each_test_is_charged_its_own_compiles_under_xdist(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    folder = tmp_path / "times"
    workers = 2
    result = _run(tmp_path, "test_sample.py", f"--suite-time={folder}", "-n", str(workers))
    assert "1 failed, 2 passed" in result.stdout, result.stdout + result.stderr

    module = load("suite_time")
    tests = module.load(folder)
    name = "test_sample.py::"
    assert tests[name + "test_compiles_two"]["programs"] == 2
    assert tests[name + "test_compiles_nothing"]["programs"] == 0
    assert tests[name + "test_fails_after_a_compile"]["programs"] == 1
    for test in ("test_compiles_two", "test_fails_after_a_compile"):
        sums = tests[name + test]
        assert sums["compile"] > 0 and sums["lower"] > 0 and sums["trace"] > 0
        assert sums["wall"] >= sums["lower"] + sums["compile"]
    # The import's trace and lowering, outside any test (each worker's own).
    assert tests[module.OUTSIDE]["lower"] > 0 and tests[module.OUTSIDE]["programs"] == 0
    # Each test's wall time once: under xdist the controller records nothing.
    files = list(folder.glob("*.jsonl"))
    assert len(files) == workers, files
    lines = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert sum(r["test"] == name + "test_compiles_two" for r in lines) == 1

    by_file = module.grouped(tests, "file")
    assert set(by_file) == {"test_sample.py"} and by_file["test_sample.py"]["programs"] == 3
    assert by_file["test_sample.py"]["tests"] == 3


def test_the_report_prints_the_tables_and_refuses_an_empty_folder(tmp_path, capsys):
    module = load("suite_time")
    folder = tmp_path / "times"
    recorder = module.Recorder(folder)
    recorder.current = "tests/test_a.py::test_one[x]"
    recorder.listen("/jax/core/compile/backend_compile_duration", 2.0)
    recorder.listen("/jax/core/compile/jaxpr_to_mlir_module_duration", 0.5)
    recorder.listen("/jax/some/other/event", 9.0)
    recorder.tests[recorder.current]["wall"] += 3.0
    recorder.write()
    module.main([str(folder)])
    out = capsys.readouterr().out
    assert "| tests/test_a.py::test_one | 1 | 3.0 | 0.0 | 0.5 | 2.0 | 1 | 0.5 |" in out
    with pytest.raises(SystemExit, match="no records"):
        module.main([str(tmp_path)])
