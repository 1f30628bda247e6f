"""Browser test fixtures: a static server on 127.0.0.1, Debian's Chromium, guarded pages.

Every page aborts (and records) any request outside the test server's origin, and
each test fails on such a request, on a console error, on an uncaught page
error, or on PyScript's error box (.py-error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from harness import CHROMIUM, CHROMIUM_ARGS, ROOT, AppPage, open_app, start_in_thread
from playwright.sync_api import Browser, sync_playwright


def pytest_addoption(parser):
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        default=False,
        help="rewrite the visual-regression baselines in e2e/snapshots/ instead of comparing",
    )


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    if not (ROOT / "static" / "vendor" / ".stamp").exists():
        pytest.fail("static/vendor is missing: run `make vendor` (make test does it)")
    server, url = start_in_thread(ROOT)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def app_factory(browser: Browser, base_url: str) -> Iterator[Callable[..., AppPage]]:
    """Open fresh pages (each in its own context, so storage starts empty)."""
    opened: list[AppPage] = []

    def make(query: str = "", **kwargs) -> AppPage:
        app = open_app(browser, base_url, query, **kwargs)
        opened.append(app)
        return app

    yield make
    for app in opened:
        app.guard.check(app.page)
        app.page.context.close()


@pytest.fixture(scope="module")
def shared_app(browser: Browser, base_url: str) -> Iterator[AppPage]:
    """One page per module for tests that only read or that restore what they change."""
    app = open_app(browser, base_url, "seed=1&still=1")
    yield app
    app.guard.check(app.page)
    app.page.context.close()


@pytest.fixture
def app(shared_app: AppPage) -> Iterator[AppPage]:
    yield shared_app
    shared_app.guard.check(shared_app.page)
