"""The ``horizax`` command's polish: --version, list --family, did-you-mean errors."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest

import horizax
from horizax import cli, cli_support
from horizax.families import family_catalog


def _status(argv: list[str]) -> int:
    """`cli.main`'s exit status, whether returned or raised (argparse exits on usage errors,
    as docs/bad-input.md documents)."""
    try:
        return cli.main(argv)
    except SystemExit as exit_:
        assert isinstance(exit_.code, int), exit_.code
        return exit_.code


def test_version_prints_the_installed_distributions_version(capsys):
    assert _status(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"horizax {metadata.version('horizax')}"


def test_version_falls_back_to_the_package_attribute(monkeypatch):
    """A source tree that was never installed has no metadata: the attribute answers."""

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    monkeypatch.setattr(horizax, "__version__", "9.9.9-test")
    assert cli_support.version() == "9.9.9-test"


def test_every_registered_id_is_in_exactly_one_family():
    """The catalog is what `list --family` shows: no id missing, none listed twice."""
    listed = [env_id for family in family_catalog() for env_id in family.env_ids]
    assert sorted(listed) == horizax.registered_ids()
    assert len(listed) == len(set(listed))
    names = [family.name for family in family_catalog()]
    assert len(names) == len(set(names)), "two families share a name"
    for family in family_catalog():
        assert family.group in ("gridworld", "maze", "orbital"), family
        assert family.summary[0].isupper() and family.summary.endswith("."), family


def test_list_family_describes_each_id_from_its_familys_docstring(capsys):
    from horizax.grid.envs import doorkey

    assert cli.main(["list", "--family", "doorkey"]) == 0  # any case
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == sorted(doorkey.ENVIRONMENTS)
    summary = doorkey.__doc__.splitlines()[0].removeprefix("DoorKey: ")
    assert all(line.endswith(summary[1:]) for line in lines), lines


@pytest.mark.parametrize(
    ("family", "count", "one_id"),
    [
        ("gridworld", 178, "MiniGrid-Empty-8x8-v0"),  # 82 MiniGrid + 96 BabyAI ids
        ("Maze", 1, "Maze-v0"),
        ("orbital", 5, "Orbital-SunBlocking-v0"),
        ("LadyBanditGuard", 1, "Orbital-LadyBanditGuard-v0"),
    ],
)
def test_list_family_takes_a_family_or_a_group(family, count, one_id, capsys):
    assert cli.main(["list", "--family", family]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == count and any(line.startswith(one_id + " ") for line in lines)
    assert all(len(line.split(None, 1)) == 2 for line in lines), "an id without a description"


def test_list_without_family_still_prints_bare_ids(capsys):
    assert cli.main(["list"]) == 0
    assert capsys.readouterr().out.split() == horizax.registered_ids()


# Each subcommand's user error: (argv, what stderr must say). Every one exits 2.
USER_ERRORS = [
    (["rn"], "Did you mean: run?"),
    (["bnch"], "Did you mean: bench?"),
    (["list", "--family", "Dorkey"], "unknown family 'Dorkey'. Did you mean: DoorKey?"),
    (["list", "--family", "Dorkey"], "The families: Crossing, DistShift, DoorKey"),
    (["run", "--env", "DorKey-8x8"], "MiniGrid-DoorKey-8x8-v0"),
    (["render", "--env", "DorKey-8x8"], "MiniGrid-DoorKey-8x8-v0"),
    (["render", "--policy", "randm"], "unknown policy 'randm'"),
    (["render", "--policy", "randm"], "Did you mean: random?"),
    (["play", "--env", "DorKey-8x8"], "MiniGrid-DoorKey-8x8-v0"),
    (["bench", "--env", "DorKey-8x8"], "MiniGrid-DoorKey-8x8-v0"),
    (["bench", "--vs", "navx"], "Did you mean: navix?"),
    (["train", "--env", "DorKey-8x8"], "MiniGrid-DoorKey-8x8-v0"),
    (["eval", "--run", "no/such/run"], "no/such/run"),
    (["run", "--batch", "0"], "--batch: must be an int >= 1"),
]


@pytest.mark.parametrize(("argv", "says"), USER_ERRORS, ids=[" ".join(a) for a, _ in USER_ERRORS])
def test_user_errors_exit_2_on_stderr_with_a_suggestion(argv, says, capsys):
    assert _status(argv) == 2
    captured = capsys.readouterr()
    assert says in captured.err, captured.err
    assert captured.out == "" and "Traceback" not in captured.err


def test_every_subcommand_has_an_error_case():
    """A new subcommand must add its user error to USER_ERRORS."""
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    assert set(sub.choices) <= {argv[0] for argv, _ in USER_ERRORS}


def test_the_console_script_reports_without_a_traceback():
    done = subprocess.run(
        [sys.executable, "-m", "horizax", "lst"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "Did you mean: list?" in done.stderr and "Traceback" not in done.stderr
