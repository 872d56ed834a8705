"""The built site renders in a real browser: pictures load, code blocks and tables show.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver`` packages, which `.ci/run`
installs) opens the home page, the gridworld family page and an API page served from
localhost. Each page must finish loading with every ``<img>`` decoded (``naturalWidth > 0``),
at least one picture on the home and family pages, at least one code block, and the API
page's parameter table. The screenshots are kept as test artifacts in
``$HORIZAX_TEST_ARTIFACTS/docs-site`` (default ``test-artifacts/docs-site``, ignored by git).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import pathlib
import shutil
import threading
from collections.abc import Iterator

import pytest

from tests.docs.site_build import ROOT

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Flags for a closed network: no background connections, no first-run or sync traffic.
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1600",
)
PAGES = {
    "home": ("", True),
    "gridworld": ("gridworld/", True),
    "api-vector": ("api/horizax/vector/", False),
}
_PAGE_REPORT = """
return {
  ready: document.readyState,
  images: Array.from(document.images).map(i => [i.src, i.complete && i.naturalWidth > 0]),
  code: document.querySelectorAll('pre code').length,
  tables: Array.from(document.querySelectorAll('table th')).map(th => th.textContent.trim()),
  title: document.title,
};
"""
# What `_wait_until_loaded` waits for: the document and every picture loaded.
_LOADED = (
    "return document.readyState === 'complete'"
    " && Array.from(document.images).every(i => i.complete);"
)


def _artifacts() -> pathlib.Path:
    base = os.environ.get("HORIZAX_TEST_ARTIFACTS", str(ROOT / "test-artifacts"))
    folder = pathlib.Path(base) / "docs-site"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def served_site(built_site: pathlib.Path) -> Iterator[str]:
    site = built_site
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    assert not missing, (
        f"{missing} not found: the docs-site test needs Debian's browser "
        "(apt-get install chromium chromium-driver), which .ci/run installs"
    )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait_until_loaded(browser: object, seconds: float = 60.0) -> None:
    """Waits for the page and its pictures to finish loading, for at most ``seconds``.

    ``get`` returned with ``document.readyState`` still ``loading`` once, in a full suite run
    with both cores compiling; a page that never finishes still fails the test's checks.
    """
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    with contextlib.suppress(TimeoutException):
        WebDriverWait(browser, seconds).until(lambda driver: driver.execute_script(_LOADED))


@pytest.mark.parametrize("name", list(PAGES))
def test_page_renders_with_pictures_and_code(name: str, served_site: str, browser):
    path, needs_picture = PAGES[name]
    browser.get(served_site + path)
    _wait_until_loaded(browser)
    report = browser.execute_script(_PAGE_REPORT)
    browser.save_screenshot(str(_artifacts() / f"{name}.png"))
    assert report["ready"] == "complete", f"{name}: page did not finish loading"
    assert "horizax" in report["title"], f"{name}: unexpected title {report['title']!r}"
    broken = [src for src, ok in report["images"] if not ok]
    assert not broken, f"{name}: pictures that did not load: {broken}"
    if needs_picture:
        assert report["images"], f"{name}: the page shows no picture"
    assert report["code"] >= 1, f"{name}: no code block rendered"
    if name.startswith("api"):
        assert {"Name", "Type", "Default"} <= set(report["tables"]), (
            f"{name}: no parameter table with name, type and default: {report['tables']}"
        )
