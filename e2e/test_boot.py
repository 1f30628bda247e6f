"""The page boots offline: every request on 127.0.0.1, no errors, demo graph shown."""

from __future__ import annotations

import json

from harness import BOOT_TIMEOUT_MS, new_context, open_page
from playwright.sync_api import expect

from bendscope.kappa import analyze


def test_boot_offline_with_demo(app_factory):
    app = app_factory("seed=1")
    page = app.page
    assert page.locator("#loading").is_hidden()
    assert page.locator("#error-banner").is_hidden()
    assert app.stats() == {"nodes": 10, "edges": 10, "depth": 0, "zoom": 1}
    assert app.pill("nodes") == "nodes: 10" and app.pill("edges") == "edges: 10"
    assert app.pill("depth") == "depth: 0" and app.pill("zoom") == "zoom: 1.00"
    assert any(line.startswith("[κ] topology: ") and "maxκ=1, sccs=1" in line for line in app.guard.debug)
    app.guard.check(page)


def test_topology_is_canonical_engine_output(app):
    topo = json.loads(app.api("window.bendscope.topology()"))
    doc = json.loads(app.api("window.bendscope.export()"))
    plane = doc["planes"][0]
    expected = analyze(
        [n["id"] for n in plane["nodes"]],
        [{"source": e["a"], "target": e["b"], "kind": e["props"]["kind"]} for e in plane["edges"]],
    )
    assert topo == expected
    assert set(topo) == {"sccs", "dag_nodes", "routing", "max_kappa", "scc_count"}
    assert topo["sccs"][0]["fault_line_edges"] == [{"source": "product-quality", "target": "market-share"}]


def test_settle_is_deterministic_and_screen_positions(app_factory):
    first = app_factory("seed=7&still=1")
    second = app_factory("seed=7&still=1")
    assert first.api("window.bendscope.export()") == second.api("window.bendscope.export()")
    x, y = first.node_xy("company")
    assert 0 < x < 1280 and 0 < y < 800
    assert first.api("window.bendscope.screen_position('nope')") is None


def test_no_frames_while_idle(app_factory):
    app = app_factory("seed=3")
    app.api("window.bendscope.load(JSON.stringify({nodes: ['a', 'b'], edges: [{source: 'a', target: 'b'}]}))")
    app.api("window.bendscope.settle()")
    app.page.wait_for_timeout(300)
    before = len(app.api("window.bendscope.frame_times()"))
    app.page.wait_for_timeout(600)
    assert len(app.api("window.bendscope.frame_times()")) == before


def test_python_failure_shows_a_readable_banner(browser, base_url):
    """If the Python app raises while starting, the page says so instead of staying blank."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.route(
            "**/py/bendscope/app/app.py",
            lambda route: route.fulfill(
                status=200, content_type="text/plain", body="raise RuntimeError('boom at boot')\n"
            ),
        )
        page.goto(f"{base_url}index.html?fresh=1")
        banner = page.locator("#error-banner")
        # (a busy machine may show the slow-start note first: the failure replaces it)
        expect(banner).to_contain_text("RuntimeError: boom at boot", timeout=BOOT_TIMEOUT_MS)
        assert banner.is_visible()
        assert page.locator("#loading").is_hidden()
        assert page.evaluate("!(window.bendscope && window.bendscope.ready)") is True
    finally:
        context.close()


def test_a_slow_start_note_goes_once_python_starts(browser, base_url):
    """A start slower than the page's limit (here 1 ms instead of 60 s) shows the slow-start
    note over the toolbar; once Python is up the note goes, the page is usable."""
    context = new_context(browser)
    context.add_init_script("window.bendscopeSlowStartMs = 1;")
    try:
        app = open_page(context, base_url, "seed=1&still=1")
        assert app.page.locator("#error-text").text_content().startswith("Python did not start within")  # (shown)
        assert app.page.locator("#error-banner").is_hidden()
        assert app.stats()["nodes"] == 10
        app.guard.check(app.page)
    finally:
        context.close()


def _export(app, item: str, name: str = "bendscope.png") -> bytes:
    app.page.locator("#btn-png").click()
    with app.page.expect_download() as info:
        app.page.locator(f"#menu-0 [data-item='{item}']").click()
    download = info.value
    assert download.suggested_filename == name
    with open(download.path(), "rb") as handle:
        data = handle.read()
    if name.endswith(".png"):
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    return data


def test_export_png_leaves_pins_and_the_selection_out_unless_asked(app_factory):
    """Every created node showed PINNED and a red dot, in PNG exports too. A new
    card shows only a quiet dot now, and the image of the graph leaves it (and the selection)
    out; "the screen as it is" keeps them."""
    import io

    from PIL import Image

    app = app_factory("seed=1&still=1")
    app.page.mouse.dblclick(640, 640)  # a new card (pinned where it was made)
    app.page.keyboard.type("Made here")
    app.page.keyboard.press("Control+Enter")
    new = app.api("JSON.parse(window.bendscope.export()).planes[0].nodes.find(n => n.text === 'Made here')")
    assert new["pinned"] is True
    left, top, width, _ = app.api(f"window.bendscope.card_box({new['id']!r})")
    zoom = app.api("JSON.parse(window.bendscope.export()).planes[0].camera.zoom")
    pin = (round(left + width - 10 * zoom), round(top + 7 * zoom))

    def darkest_near(data: bytes, spot: tuple[int, int]) -> int:
        image = Image.open(io.BytesIO(data)).convert("L")
        return min(image.getpixel((spot[0] + dx, spot[1] + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1))

    def darkest_near_pin(data: bytes) -> int:
        return darkest_near(data, pin)

    app.click_node(new["id"])  # selected: a ring round it on the screen
    marked = _export(app, "export-png-marks")
    plain = _export(app, "export-png")  # the whole graph with its legend, at 1×
    box = app.api("window.bendscope.image_box()")  # the image's top-left in the world, its size
    card = app.api(f"window.bendscope.world_box({new['id']!r})")
    spot = (round(card[0] + card[2] - 10 - box[0]), round(card[1] + 7 - box[1]))  # the pin mark's place
    assert darkest_near_pin(marked) < 200 <= darkest_near(plain, spot)
    assert darkest_near(plain, (round(card[0] + 1 - box[0]), round(card[1] + card[3] / 2 - box[1]))) < 240  # (the card)
    assert marked != plain
    # the screen shows the marks again after the plain export
    assert json.loads(app.api("window.bendscope.interaction()"))["selection"] == [new["id"]]
    screen = app.page.screenshot()
    assert darkest_near_pin(screen) < 200


def test_pulse_only_frames_redraw_the_kept_image_not_the_scene(app_factory):
    """With motion allowed and a loop at rest, frames only redraw the pulsing borders over a
    kept copy of the last paint: no scene, no full paint; the borders do change."""
    app = app_factory("seed=3&fresh=1", context_args={"reduced_motion": "no-preference"})
    edges = [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}, {"source": "b", "target": "c"}]
    assert app.api("t => window.bendscope.load(t)", json.dumps({"nodes": ["a", "b", "c"], "edges": edges})) is None
    app.api("window.bendscope.settle()")
    app.page.wait_for_timeout(300)
    before = app.api("window.bendscope.render_counts()")
    x, y = app.node_xy("a")
    shots = []
    for _ in range(3):
        shots.append(app.page.screenshot(clip={"x": x - 120, "y": y - 60, "width": 240, "height": 120}))
        app.page.wait_for_timeout(500)
    after = app.api("window.bendscope.render_counts()")
    assert after["paints"] == before["paints"]
    assert after["pulse_frames"] - before["pulse_frames"] >= 10  # ~15 fps for 1.5 s
    assert len(set(shots)) > 1  # the border pulses
    # an edit still repaints everything (the kept image is not reused for it)
    app.api("window.bendscope.select('c')")
    app.page.wait_for_timeout(100)
    assert app.api("window.bendscope.render_counts()")["paints"] > after["paints"]
