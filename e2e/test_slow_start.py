"""A slow start is not a failed one: on a machine so busy that Python takes more than 60 s to
start, the page says so — and once Python is up, that banner (which covers the toolbar) goes."""

from __future__ import annotations

from harness import BOOT_TIMEOUT_MS, Guard, new_context
from playwright.sync_api import Browser, expect


def test_the_slow_start_banner_goes_once_python_is_up(browser: Browser, base_url: str) -> None:
    context = new_context(browser)
    page = context.new_page()
    guard = Guard()
    page.on("console", lambda m: guard.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: guard.page_errors.append(str(e)))
    page.clock.install()  # (the page's clock, moved on by hand: no test waits 60 s)
    page.goto(f"{base_url}index.html?still=1&fresh=1")
    page.clock.fast_forward(61_000)  # before Python is up (it takes seconds)
    banner = page.locator("#error-banner")
    expect(banner).to_be_visible()
    expect(page.locator("#error-text")).to_contain_text("Python did not start within 60 s")
    page.wait_for_function("window.bendscope && window.bendscope.ready === true", timeout=BOOT_TIMEOUT_MS)
    page.clock.fast_forward(1_000)
    expect(banner).to_be_hidden()
    page.locator("#btn-fit").click()  # the toolbar is reachable again
    guard.check(page)
    context.close()
