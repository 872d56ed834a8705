"""mkdocs hook: every environment id on its family's page, with its picture and numbers.

A family page holds a marker line, ``<!-- catalogue: gridworld -->`` (or ``maze``,
``orbital``); at build time it becomes the catalogue of that family, read from the registry
and the family modules' docstrings, so it can never fall behind the code:

* gridworld: one section per task family (`horizax.grid.envs` module): the module docstring's
  first paragraph (the rules) and its ``reward``/``termination`` lines, then a table of the
  family's ids with picture, grid size, ``max_steps`` and default observation;
* maze and orbital: a table of the ids with picture, the time limit and the task.

The pictures are ``docs/images/envs/<id>.png``, made by ``tools/make_pictures.py`` with
``horizax render``; a missing picture fails the build (``--strict`` turns the warning into an
error).
"""

from __future__ import annotations

import importlib
import logging
import pathlib
import re
import sys
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
PICTURES = ROOT / "docs" / "images" / "envs"
MARKER = re.compile(r"^<!-- catalogue: (\w+) -->$", re.MULTILINE)
log = logging.getLogger("mkdocs.plugins.horizax_catalogue")


def _docstring_parts(module: Any) -> tuple[str, list[str]]:
    """The first paragraph of a module docstring and its ``* reward:``/``* termination:`` items."""
    text = (module.__doc__ or "").strip()
    paragraphs = re.split(r"\n\s*\n", text)
    first = " ".join(line.strip() for line in paragraphs[0].splitlines())
    items = []
    for paragraph in paragraphs[1:]:
        for item in re.split(r"\n(?=\* )", paragraph):
            if item.startswith(("* reward:", "* termination:")):
                items.append(" ".join(line.strip() for line in item.splitlines()))
    return first, items


def _picture(env_id: str, width: int = 96) -> str:
    if not (PICTURES / f"{env_id}.png").is_file():
        log.warning("no picture of %s: run tools/make_pictures.py", env_id)
    return f"![{env_id}](images/envs/{env_id}.png){{ width={width} }}"


def _gridworld() -> str:
    import horizax
    from horizax.grid import registry

    sections = []
    for module in registry.FAMILY_MODULES:
        ids = sorted(module.ENVIRONMENTS)
        first, items = _docstring_parts(module)
        title, _, rules = first.partition(": ")  # "DoorKey: pick up the key, ..."
        rules = rules[:1].upper() + rules[1:]
        rows = []
        for env_id in ids:
            env = horizax.make(env_id)
            rows.append(
                f"| {_picture(env_id)} | `{env_id}` | {env.width} x {env.height} | "
                f"{env.max_steps} | `{env.observation_fn.__name__}` |"
            )
        sections.append(
            f"### {title}\n\n{rules}\n\n"
            + "".join(f"{item}\n" for item in items)
            + "\n| picture | id | grid | `max_steps` | default observation |\n"
            + "|---|---|---|---|---|\n"
            + "\n".join(rows)
            + "\n"
        )
    return "\n".join(sections)


def _maze() -> str:
    import horizax
    from horizax.maze import registration

    rows = []
    for env_id in sorted(registration.ENVIRONMENTS):
        env = horizax.make(env_id)
        rows.append(
            f"| {_picture(env_id, 128)} | `{env_id}` | {env.num_rows} x {env.num_cols} | "
            f"{env.time_limit} |"
        )
    return "| picture | id | maze | time limit (steps) |\n|---|---|---|---|\n" + "\n".join(rows)


def _orbital() -> str:
    import horizax
    from horizax.orbital import registration

    rows = []
    for env_id in sorted(registration.ENVIRONMENTS):
        env = horizax.make(env_id)
        config = env.config
        game = importlib.import_module(type(config.game).__module__)
        summary = (game.__doc__ or "").strip().splitlines()[0]
        rows.append(
            f"| {_picture(env_id, 128)} | `{env_id}` | {summary} | {config.controlled_side} | "
            f"{config.max_steps} x {config.dt:g} s |"
        )
    return (
        "| picture | id | game | agent | `max_steps` x `dt` |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
    )


CATALOGUES = {"gridworld": _gridworld, "maze": _maze, "orbital": _orbital}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replaces each catalogue marker of a page with that family's catalogue."""
    if str(ROOT / "src") not in sys.path:
        sys.path.insert(0, str(ROOT / "src"))

    def replace(match: re.Match[str]) -> str:
        family = match.group(1)
        if family not in CATALOGUES:
            raise ValueError(f"{page.file.src_uri}: unknown catalogue {family!r}")
        return CATALOGUES[family]()

    return MARKER.sub(replace, markdown)
