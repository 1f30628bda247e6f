"""Browser test fixtures: a static server on 127.0.0.1, Debian's Chromium, guarded pages.

Every page aborts (and records) any request outside the test server's origin, and
each test fails on such a request, on a console error, on an uncaught page
error, or on PyScript's error box (.py-error).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from serve import start_in_thread  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--font-render-hinting=none",
    "--disable-lcd-text",
    "--force-color-profile=srgb",
]
BOOT_TIMEOUT_MS = 60_000


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


@dataclass
class Guard:
    """What a page did that a test must not allow."""

    foreign: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    debug: list[str] = field(default_factory=list)

    def check(self, page: Page) -> None:
        assert not self.foreign, f"requests outside the origin: {self.foreign}"
        assert not self.page_errors, f"uncaught page errors: {self.page_errors}"
        assert not self.console_errors, f"console errors: {self.console_errors}"
        if not page.is_closed():
            assert page.locator(".py-error").count() == 0, page.locator(".py-error").first.inner_text()


@dataclass
class AppPage:
    page: Page
    guard: Guard
    base_url: str

    def api(self, expression: str, *args):
        return self.page.evaluate(expression, *args) if args else self.page.evaluate(expression)

    def stats(self) -> dict:
        return self.api("window.bendscope.stats()")

    def pill(self, name: str) -> str:
        return self.page.locator(f"#hud-{name}").inner_text()

    def node_xy(self, node_id: str) -> tuple[float, float]:
        x, y = self.api(f"window.bendscope.screen_position({node_id!r})")
        return x, y

    def wait_ready(self) -> None:
        self.page.wait_for_function("window.bendscope && window.bendscope.ready === true", timeout=BOOT_TIMEOUT_MS)

    def reload(self) -> None:
        self.page.reload()
        self.wait_ready()


def open_app(browser: Browser, base_url: str, query: str = "", *, context_args: dict | None = None) -> AppPage:
    context = browser.new_context(
        viewport={"width": 1280, "height": 800},
        device_scale_factor=1,
        locale="en-US",
        timezone_id="UTC",
        reduced_motion="reduce",
        **(context_args or {}),
    )
    page = context.new_page()
    guard = Guard()

    def route(route_obj) -> None:
        url = route_obj.request.url
        if url.startswith(base_url) or url.startswith("data:") or url.startswith("blob:"):
            route_obj.continue_()
        else:
            guard.foreign.append(url)
            route_obj.abort()

    page.route("**/*", route)
    page.on(
        "console", lambda m: guard.console_errors.append(m.text) if m.type == "error" else guard.debug.append(m.text)
    )
    page.on("pageerror", lambda e: guard.page_errors.append(str(e)))
    page.goto(f"{base_url}index.html{('?' + query) if query else ''}")
    app = AppPage(page, guard, base_url)
    app.wait_ready()
    return app


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
