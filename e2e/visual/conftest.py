"""Visual-regression fixtures: a deterministic page per module and a snapshot assertion."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from harness import AppPage, open_app
from snapshot import compare


@pytest.fixture(scope="module")
def visual_app(browser, base_url) -> Iterator[AppPage]:
    """One deterministic page per module: fixed seed, no animation, empty storage."""
    app = open_app(browser, base_url, "seed=1&still=1&fresh=1")
    yield app
    app.guard.check(app.page)
    app.page.context.close()


@pytest.fixture
def assert_snapshot(request) -> Callable[[AppPage, str], None]:
    """assert_snapshot(app, name): the viewport matches e2e/snapshots/<name>.png."""
    update = request.config.getoption("--update-snapshots")

    def check(app: AppPage, name: str) -> None:
        app.page.evaluate("window.bendscope.paint()")
        app.page.evaluate("document.fonts.ready")
        png = app.page.screenshot(animations="disabled", caret="hide", scale="css")
        result = compare(name, png, update=update)
        assert result.matched, result.message

    return check
