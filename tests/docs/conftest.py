"""One documentation build shared by every docs test of the run, xdist workers included."""

from __future__ import annotations

import fcntl
import pathlib

import pytest

from tests.docs.site_build import build_site


@pytest.fixture(scope="session")
def built_site(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> pathlib.Path:
    """The site built once with ``mkdocs build --strict``: under xdist the workers share
    the parent of their base temporary folders, and a file lock lets the first one build
    while the others wait (a build takes about half a minute)."""
    root = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # an xdist worker: share with the others
        root = root.parent
    site, done = root / "docs-site", root / "docs-site.done"
    with open(root / "docs-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            build_site(site)
            done.write_text("built\n")
    return site
