"""Packaging: the README's two commands, .ci/run, and the extras that .ci/fresh_venvs proves.

`.ci/fresh_venvs` installs the base package and each light extra into its own fresh virtual
environment and runs it (minutes, and it needs the package index), so CI runs it from
`.ci/run`; these tests are the cheap checks that keep the script, the README and
pyproject.toml in step.
"""

import os
import pathlib
import re
import shutil
import subprocess
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"
FRESH_VENVS = ROOT / ".ci" / "fresh_venvs"

# Extras that .ci/fresh_venvs leaves out: the test, reference and torch stacks are large (torch
# alone is hundreds of MB) and the README's test command installs and exercises them anyway.
HEAVY_EXTRAS = {"test", "reference", "torch"}


def _readme_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "the README has no bash block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]


def _extras():
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]["optional-dependencies"]


def _fresh_venv_cases():
    match = re.search(r"^ALL_CASES=\((.*)\)$", FRESH_VENVS.read_text(encoding="utf-8"), re.M)
    assert match, ".ci/fresh_venvs lost its ALL_CASES line"
    return match.group(1).split()


def test_readme_first_command_installs_only_the_base_package_and_runs_the_main_job():
    assert _readme_commands()[0] == "python3 -m pip install -e . && horizax run"


def test_readme_second_command_installs_the_test_extras_and_runs_the_suite():
    assert _readme_commands()[1] == (
        'python3 -m pip install -e ".[test,reference,docs]" && python3 -m pytest -n 2'
    )


def test_ci_runs_exactly_the_readme_test_command():
    lines = [line.strip() for line in CI_RUN.read_text(encoding="utf-8").splitlines()]
    assert _readme_commands()[1] in lines


def test_ci_runs_the_fresh_venv_check():
    assert ".ci/fresh_venvs" in CI_RUN.read_text(encoding="utf-8")


def test_extra_names_are_normalized():
    # setuptools writes PEP 685 names into the metadata; pip < 23.3 (bundled with Python 3.11's
    # venv) does not normalize a requested name, so `[dm_env]` would install nothing there.
    for name in _extras():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), name


def test_fresh_venvs_covers_every_light_extra():
    light = set(_extras()) - HEAVY_EXTRAS
    assert set(_fresh_venv_cases()) == {"base"} | light


def test_gymnax_extra_declares_six():
    # gymnax 0.0.9 imports six (gymnax/utils/load_mnist.py) without declaring it.
    for extra in ("gymnax", "reference"):
        assert "six" in _extras()[extra], extra


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_fresh_venvs_is_an_executable_bash_script():
    assert os.access(FRESH_VENVS, os.X_OK)
    subprocess.run(["bash", "-n", str(FRESH_VENVS)], check=True)
    unknown = subprocess.run(
        [str(FRESH_VENVS), "no-such-case"], capture_output=True, text=True, timeout=30
    )
    assert unknown.returncode == 2 and "unknown case" in unknown.stderr
