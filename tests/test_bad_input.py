"""docs/bad-input.md's tables are the contract: every row's call does what its row says.

Each table row is ``| `call` | result |``. A result starting with an exception name in
backticks (`` `ValueError` naming `max_steps` ``) means the call raises exactly that class,
before anything is compiled, with every other backticked word of the cell in its message. A
result starting with "returns" means the call returns. The page's python block builds the
objects the calls use.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.markdown import python_blocks

PAGE = Path(__file__).resolve().parents[1] / "docs" / "bad-input.md"
ROW = re.compile(r"^\| `(?P<call>.+?)` \| (?P<result>.+) \|$")
CODE = re.compile(r"`([^`]+)`")


def table_rows(text: str) -> list[tuple[str, str]]:
    """``(call, result)`` for every table row of the page whose first cell is code."""
    return [(m["call"], m["result"]) for m in map(ROW.match, text.splitlines()) if m]


@pytest.fixture(scope="module")
def namespace() -> dict[str, Any]:
    for extra in ("gymnasium", "dm_env", "gymnax", "torchrl", "pettingzoo"):
        pytest.importorskip(extra)  # the adapters' rows; CI installs every extra
    names: dict[str, Any] = {}
    for block in python_blocks(PAGE.read_text()):
        exec(compile(block, str(PAGE), "exec"), names)
    return names


ROWS = table_rows(PAGE.read_text())


def test_the_page_has_a_row_for_every_entry_point_family():
    calls = " ".join(call for call, _ in ROWS)
    for entry in ("horizax.make(", "Maze(", "make_lady_bandit_guard(", ".reset(", ".step("):
        assert entry in calls, entry
    assert len(ROWS) >= 50


@pytest.mark.parametrize(("call", "result"), ROWS, ids=[call for call, _ in ROWS])
def test_row(namespace: dict[str, Any], call: str, result: str) -> None:
    expected = CODE.match(result)
    if result.startswith("returns"):
        eval(call, namespace)
        return
    assert expected, f"a result must start with `ExceptionName` or 'returns': {result!r}"
    name, *words = CODE.findall(result)
    with pytest.raises(BaseException) as caught:  # SystemExit too (the command line)
        eval(call, namespace)
    assert type(caught.value).__name__ == name, f"{call} raised {caught.value!r}"
    message = str(caught.value)
    for word in words:
        assert word in message, f"{call}: {word!r} not in {message!r}"
