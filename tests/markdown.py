"""Reading the python code blocks of a markdown page, for the tests that run the docs."""

from __future__ import annotations


def python_blocks(text: str) -> list[str]:
    """The bodies of the ```python fenced blocks of ``text``, in order."""
    blocks: list[str] = []
    inside, current = False, []
    for line in text.splitlines():
        if line.strip() == "```python":
            inside, current = True, []
        elif inside and line.strip() == "```":
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return blocks
