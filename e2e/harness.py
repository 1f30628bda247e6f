"""Browser test harness: Chromium settings, guarded pages, the AppPage wrapper.

Every page aborts (and records) any request outside the test server's origin, and
each test fails on such a request, on a console error, on an uncaught page
error, or on PyScript's error box (.py-error).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from serve import start_in_thread  # noqa: E402

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "ROOT",
    "AppPage",
    "BootFailed",
    "Guard",
    "new_context",
    "open_app",
    "open_page",
    "start_in_thread",
    "wait_booted",
]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--font-render-hinting=none",
    "--disable-lcd-text",
    "--force-color-profile=srgb",
]
#: How long a page may take to boot before the test fails. Generous: on the shared two-core
#: machine a boot took 60–77 s at load 20–28 (10–15 CPU-s each), so a 60 s limit failed about
#: half the boots there. A page that fails while booting fails the wait at once instead
#: (``wait_booted``): the long limit only covers a page that is slow without saying why.
BOOT_TIMEOUT_MS = 300_000
#: how often a booting page is checked for a failure
BOOT_POLL_MS = 1_000
#: the boot banner's words for a slow start (static/boot.js): slow is not failed
SLOW_START = "Python did not start within"
#: ready, or visibly failed: PyScript's error box, or the boot banner saying anything but "slow"
READY_OR_FAILED = f"""(() => {{
  if (window.bendscope && window.bendscope.ready === true) return "ready";
  if (document.querySelector(".py-error") !== null) return "failed";
  const banner = document.getElementById("error-banner");
  const text = banner && !banner.hidden ? document.getElementById("error-text").textContent : "";
  return text && !text.startsWith({json.dumps(SLOW_START)}) ? "failed" : false;
}})()"""


#: a promise kept once the page has drawn two more animation frames (or after 2 s, for a page
#: that draws none): the app writes what input changed in the next frame it draws
NEXT_FRAME = """() => new Promise(done => {
  const timer = setTimeout(done, 2000);
  requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); done(null); }));
})"""


class BootFailed(AssertionError):
    """A page failed while booting (or did not boot within ``BOOT_TIMEOUT_MS``)."""


def boot_failure(page: Page, guard: Guard) -> str | None:
    """What says a booting page has failed, if anything: an uncaught page error, PyScript's
    error box, or the boot banner's message (console errors are left to ``Guard.check``:
    some tests expect one and clear it)."""
    if guard.page_errors:
        return f"uncaught page errors: {guard.page_errors}"
    if page.locator(".py-error").count():
        return f"PyScript error: {page.locator('.py-error').first.inner_text()}"
    banner = page.locator("#error-banner")
    if banner.count() and banner.is_visible() and not page.locator("#error-text").inner_text().startswith(SLOW_START):
        return f"boot banner: {page.locator('#error-text').inner_text()}"
    return None


def wait_booted(page: Page, guard: Guard, timeout_ms: float | None = None, poll_ms: float | None = None) -> None:
    """Wait until the page's app is ready; fail at once (``BootFailed``) when it fails while
    booting, and after ``timeout_ms`` (default ``BOOT_TIMEOUT_MS``) when it is neither ready
    nor failed. A crashed renderer raises Playwright's error as before."""
    limit = BOOT_TIMEOUT_MS if timeout_ms is None else timeout_ms
    step = BOOT_POLL_MS if poll_ms is None else poll_ms
    started = time.monotonic()
    while True:
        failure = boot_failure(page, guard)
        if failure is not None:
            raise BootFailed(f"the page failed while booting: {failure}")
        left = limit - (time.monotonic() - started) * 1000
        if left <= 0:
            raise BootFailed(f"the page was not ready after {limit / 1000:.0f} s and showed no failure")
        try:
            if page.wait_for_function(READY_OR_FAILED, timeout=max(1.0, min(step, left))).json_value() == "ready":
                return
        except PlaywrightTimeoutError:
            continue


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

    def next_frame(self) -> None:
        """Wait until the page has drawn the frame after what was done so far (``NEXT_FRAME``)."""
        self.page.evaluate(NEXT_FRAME)

    def pill(self, name: str) -> str:
        """A HUD pill's text as the frame after the last input shows it (the HUD is written by
        frames: read at once after a click it may still say what the frame before said)."""
        self.next_frame()
        return self.page.locator(f"#hud-{name}").inner_text()

    def node_xy(self, node_id: str) -> tuple[float, float]:
        x, y = self.api(f"window.bendscope.screen_position({node_id!r})")
        return x, y

    def click_node(self, node_id: str) -> None:
        """Click a node's centre (selects it)."""
        self.page.mouse.click(*self.node_xy(node_id))

    def dblclick_node(self, node_id: str) -> None:
        """Double-click a node's centre (edits it, or enters a stargate)."""
        self.page.mouse.dblclick(*self.node_xy(node_id))

    def right_click(self, node_id: str) -> None:
        """Right-click a node's centre and wait for its context menu."""
        self.page.mouse.click(*self.node_xy(node_id), button="right")
        self.page.locator("#menu-0").wait_for(state="visible")

    def wait_ready(self) -> None:
        """Wait for the app to be ready (``wait_booted``: a failure while booting fails at once)."""
        wait_booted(self.page, self.guard)

    def reload(self) -> None:
        self.page.reload()
        self.wait_ready()


#: a box on the screen: (left, top, right, bottom) or, for a card, (x, y, width, height)
Box = list[float]


def card_box(app: AppPage, node_id: str) -> Box:
    """A card's box on the screen (x, y, width, height)."""
    return app.api(f"window.bendscope.card_box({node_id!r})")


def edges(box: dict | Box) -> Box:
    """(left, top, right, bottom) of a Playwright box or a card box (x, y, w, h)."""
    if isinstance(box, dict):
        return [box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]]
    return [box[0], box[1], box[0] + box[2], box[1] + box[3]]


def overlaps(a: Box, b: Box) -> bool:
    """Whether two (left, top, right, bottom) boxes overlap by more than half a pixel."""
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def node_ids(app: AppPage) -> list[str]:
    """The ids of the first plane's cards, in the document's order."""
    return [n["id"] for n in json.loads(app.api("window.bendscope.export()"))["planes"][0]["nodes"]]


def region_by_centre(app: AppPage, cards: int) -> list[tuple[str, tuple[float, float]]]:
    """Load the benchmarks' mixed graph of ``cards`` cards (a giant loop region and tree-like
    parts), wait for rest and reset the zoom: the region's cards with their screen spots, the
    nearest the middle of the view first."""
    from graphs import giant_scc_document  # (bench/: on the tests' and the benchmarks' path)

    page = app.page
    assert app.api("t => window.bendscope.load(t)", json.dumps(giant_scc_document(cards))) is None
    page.wait_for_function("!window.bendscope.layout_active() && !window.bendscope.topology_state().pending",
                           timeout=120_000)  # fmt: skip
    app.api("window.bendscope.action('zoom-reset')")
    region = max(json.loads(app.api("window.bendscope.topology()"))["sccs"], key=lambda s: len(s["nodes"]))["nodes"]
    spots = app.api("ids => ids.map(id => window.bendscope.screen_position(id))", region)
    return sorted(zip(region, spots, strict=True), key=lambda c: abs(c[1][0] - 640) + abs(c[1][1] - 400))


def press_region_card(app: AppPage, cards: int) -> tuple[str, float, float]:
    """``region_by_centre``, then press the region's card nearest the middle of the view: its id
    and where it was pressed (the pointer stays down)."""
    node, (x, y) = region_by_centre(app, cards)[0]
    app.page.mouse.move(x, y)
    app.page.mouse.down()
    return node, x, y


def new_context(browser: Browser, **context_args) -> BrowserContext:
    """A browser context (its own storage) with the suite's fixed viewport, locale and motion."""
    settings = {
        "viewport": {"width": 1280, "height": 800},
        "device_scale_factor": 1,
        "locale": "en-US",
        "timezone_id": "UTC",
        "reduced_motion": "reduce",
    }
    return browser.new_context(**{**settings, **context_args})


def open_app(browser: Browser, base_url: str, query: str = "", *, context_args: dict | None = None) -> AppPage:
    """A guarded page in a fresh context. A renderer that crashes while the page boots (Chromium's
    "Target crashed", seen once in about 2,000 boots on a loaded two-core machine, never twice in
    a row) is reported on stderr and the page is opened once more in a new context; any other
    failure, or a second crash, fails the test."""
    context = new_context(browser, **(context_args or {}))
    try:
        return open_page(context, base_url, query)
    except PlaywrightError as error:
        if "crashed" not in str(error).lower():
            raise
        print(f"\nrenderer crashed while booting {query or 'the page'}; opening it once more", file=sys.stderr)
        context.close()
    return open_page(new_context(browser, **(context_args or {})), base_url, query)


def open_page(context: BrowserContext, base_url: str, query: str = "") -> AppPage:
    """A guarded page of the app in ``context`` (pages of one context share storage: two tabs)."""
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


#: a touch phone's browser context (390×844, touch, mobile, 2× pixels)
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}


class Finger:
    """One finger on the touch screen, driven through Chrome's touch events."""

    def __init__(self, app: AppPage) -> None:
        self.page = app.page
        self.cdp = app.page.context.new_cdp_session(app.page)

    def touch(self, kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        self.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def long_press(self, x: float, y: float, ms: int = 800) -> None:
        self.touch("touchStart", x, y)
        time.sleep(ms / 1000)
        self.touch("touchEnd", x, y)

    def tap(self, x: float, y: float) -> None:
        self.page.touchscreen.tap(x, y)

    def drag_to(self, start: tuple[float, float], end: tuple[float, float], steps: int = 10) -> None:
        """Put the finger down at ``start`` and slide it to ``end`` (it stays down)."""
        self.touch("touchStart", *start)
        for k in range(1, steps + 1):
            t = k / steps
            self.touch("touchMove", start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t)
            time.sleep(0.02)
