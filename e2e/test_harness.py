"""The harness's boot wait: ready returns, a failure while booting fails at once with its
message, and a page that is only slow (the boot banner's slow-start note) fails only at the limit.
Plain pages stand in for the app (no Python boots here)."""

from __future__ import annotations

import pytest
from harness import SLOW_START, AppPage, BootFailed, Guard, new_context, wait_booted

BANNER = '<div id="error-banner" hidden><span id="error-text"></span></div>'


@pytest.fixture
def blank(browser):
    """A guarded blank page (uncaught errors recorded, as on the app's pages) and its guard."""
    context = new_context(browser)
    page = context.new_page()
    guard = Guard()
    page.on("pageerror", lambda e: guard.page_errors.append(str(e)))
    yield page, guard
    context.close()


def _app(blank, html: str) -> AppPage:
    page, guard = blank
    page.set_content(html)
    return AppPage(page, guard, "")


def test_ready_later_returns(blank):
    app = _app(blank, BANNER + "<script>setTimeout(() => { window.bendscope = {ready: true}; }, 1500);</script>")
    app.wait_ready()
    assert app.api("window.bendscope.ready") is True


@pytest.mark.parametrize(
    ("html", "said"),
    [
        (BANNER + '<div class="py-error">Traceback: boom in Python</div>', "PyScript error: Traceback: boom in Python"),
        (BANNER + "<script>setTimeout(() => { throw new Error('boom in JS'); }, 200);</script>", "boom in JS"),
        (
            '<div id="error-banner"><span id="error-text">RuntimeError: boom at boot</span></div>',
            "boot banner: RuntimeError: boom at boot",
        ),
    ],
    ids=["py-error", "page-error", "banner"],
)
def test_a_failure_while_booting_fails_the_wait_at_once(blank, html, said):
    """The failure's own words, not a timeout: the wait stops on it (the limit is 300 s)."""
    app = _app(blank, html)
    with pytest.raises(BootFailed, match="failed while booting") as failed:
        app.wait_ready()
    assert said in str(failed.value)


def test_a_slow_start_note_is_not_a_failure(blank):
    """The banner's slow-start note alone keeps the wait going: it fails at its limit, as slow."""
    page, guard = blank
    note = f"{SLOW_START} 60 s (61 s). Reload to try again."
    page.set_content(f'<div id="error-banner"><span id="error-text">{note}</span></div>')
    with pytest.raises(BootFailed, match="not ready after 2 s and showed no failure"):
        wait_booted(page, guard, timeout_ms=2_000, poll_ms=500)


def test_a_pill_is_read_as_the_frame_after_the_input_shows_it(blank):
    """A click whose effect a frame writes (as the app's HUD is written), after a long frame (as on
    a loaded machine): the pill read right after the click says what that frame wrote, not what
    the page said before it."""
    app = _app(
        blank,
        '<button id="b" style="width:200px;height:80px">select</button><span id="hud-selection">none</span>'
        "<script>let n = 0;"
        " const write = () => { document.getElementById('hud-selection').textContent = n + ' nodes'; };"
        " document.getElementById('b').onclick = () => { n += 1; requestAnimationFrame(() => {"
        " const end = performance.now() + 150; while (performance.now() < end) {} requestAnimationFrame(write); }); };"
        "</script>",
    )
    for clicks in (1, 2, 3):
        app.page.mouse.click(50, 20)
        assert app.pill("selection") == f"{clicks} nodes"
