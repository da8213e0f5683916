"""Browser tests: Debian's chromium driven by Playwright for Python against the real server.

They run whenever a chromium is installed (``CHROMIUM`` names another binary); without one they are
skipped with a plain message at the end of the run, unless ``REQUIRE_BROWSER=1`` (set by .ci/run), which
makes a missing browser a failure. ``playwright install`` is never run: the system browser is launched by
its path. Every request a page makes is recorded, and a test fails if one leaves the server under test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from service.runtime.settings import PROJECT_ROOT
from tests.e2e.conftest import start_server
from tests.support.databases import fresh_database

ARTIFACTS = PROJECT_ROOT / "artifacts" / "screenshots"


def chromium_path() -> str | None:
    """The system chromium (or $CHROMIUM), None when there is none."""
    configured = os.environ.get("CHROMIUM")
    return configured if configured and Path(configured).exists() else shutil.which("chromium")


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (make install)"
    if chromium_path() is None:
        return "no chromium on this machine (apt-get install chromium)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip (or, with REQUIRE_BROWSER=1, fail) the browser tests when no browser is installed."""
    reason = missing_browser()
    if reason is None:
        return
    here = Path(__file__).parent
    mine = [item for item in items if Path(str(item.fspath)).is_relative_to(here)]
    if mine and os.environ.get("REQUIRE_BROWSER") == "1":
        raise pytest.UsageError(f"REQUIRE_BROWSER=1 but the browser tests cannot run: {reason}")
    for item in mine:
        item.add_marker(pytest.mark.skip(reason=f"browser tests NOT run: {reason}"))
    config.stash[_SKIPPED] = f"{len(mine)} browser tests NOT run: {reason}"


_SKIPPED = pytest.StashKey[str]()


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Say plainly that the browser tests did not run (a skip line is easy to miss)."""
    message = config.stash.get(_SKIPPED, None)
    if message:
        terminalreporter.write_sep("!", message, yellow=True, bold=True)


@pytest.fixture(scope="session")
async def web(server_url: str, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """The base URL of a server on a database of its own (the pages list every game of it)."""
    async with fresh_database(server_url) as url:
        process, base = start_server(
            url, log_file=tmp_path_factory.mktemp("web") / "server.log", settings={"STREAM_POLL_SECONDS": "1"}
        )
        yield base
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Any]:
    """One headless chromium for the session (the system's, by its path)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=chromium_path(), args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        yield launched
        await launched.close()


class Visit:
    """A browser context for one test: its page, every URL it requested, every script error."""

    def __init__(self, context: Any, page: Any, base: str) -> None:
        """Record the context's requests and the page's errors."""
        self.context, self.page, self.base = context, page, base
        self.requests: list[str] = []
        self.errors: list[str] = []
        context.on("request", lambda request: self.requests.append(request.url))
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        """A script's console error (the browser's own note of a 4xx answer the page handles is none)."""
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(message.text)

    def outside(self) -> list[str]:
        """Requests that left the server under test."""
        host = urlsplit(self.base).netloc
        return [
            url
            for url in self.requests
            if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc != host
        ]


@pytest.fixture
async def visit(browser: Any, web: str) -> AsyncIterator[Visit]:
    """A fresh browser context on the server; afterwards: no request left 127.0.0.1, no script error."""
    context = await browser.new_context(viewport={"width": 1300, "height": 1000}, base_url=web)
    context.set_default_timeout(15_000)
    page = await context.new_page()
    recorded = Visit(context, page, web)
    yield recorded
    await context.close()
    assert recorded.requests, "the test made no request"
    assert not recorded.outside(), f"requests outside the service: {recorded.outside()}"
    assert urlsplit(web).hostname == "127.0.0.1"
    assert not recorded.errors, f"errors in the page: {recorded.errors}"


async def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under artifacts/screenshots/ (a test artifact, ignored by git)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path
