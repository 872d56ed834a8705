"""Colour only on a terminal: `horizax.terminal.use_colour` and what ``horizax play`` writes."""

from __future__ import annotations

import io
import os

import pytest

from horizax.play import play
from horizax.terminal import use_colour

ANSI_COLOUR = "\x1b[38;2;"
ESCAPE = "\x1b"


class FakeTerminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("is_tty", "environ", "expected"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"NO_COLOR": "1"}, False),
        (True, {"NO_COLOR": ""}, True),  # no-color.org: an empty value does not count
        (False, {"FORCE_COLOR": "1"}, True),
        (False, {"FORCE_COLOR": ""}, False),
        (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),  # asking for none wins
    ],
)
def test_use_colour_follows_the_terminal_and_the_conventions(is_tty, environ, expected):
    stream = FakeTerminal() if is_tty else io.StringIO()
    assert use_colour(stream, environ) is expected


def _play_and_quit(out: io.StringIO, monkeypatch, **environ: str) -> str:
    """``horizax play`` on Empty-5x5 with the keys 'up' then 'q' piped in; what it wrote."""
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    read_end, write_end = os.pipe()
    os.write(write_end, b"\x1b[Aq")
    os.close(write_end)
    try:
        assert play("MiniGrid-Empty-5x5-v0", stdin_fd=read_end, out=out) == 0
    finally:
        os.close(read_end)
    return out.getvalue()


def test_play_colours_a_terminal(monkeypatch):
    written = _play_and_quit(FakeTerminal(), monkeypatch)
    assert ANSI_COLOUR in written and "bye: 1 steps" in written


def test_play_writes_no_escape_codes_into_a_pipe(monkeypatch):
    written = _play_and_quit(io.StringIO(), monkeypatch)
    assert ESCAPE not in written and "▶" in written and "bye: 1 steps" in written


def test_play_honours_no_color_on_a_terminal(monkeypatch):
    written = _play_and_quit(FakeTerminal(), monkeypatch, NO_COLOR="1")
    assert ANSI_COLOUR not in written and "██" in written


def test_play_honours_force_color_into_a_pipe(monkeypatch):
    written = _play_and_quit(io.StringIO(), monkeypatch, FORCE_COLOR="1")
    assert ANSI_COLOUR in written
