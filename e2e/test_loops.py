"""In the page: polarity marked by key and menu, the Loops panel (R/B classes,
hover and choose to see a loop, the selection's loops), the inspector's loop counts,
κ explained in the HUD's tooltips and the help sheet, and a search on a giant SCC that
runs in slices while frames go on."""

from __future__ import annotations

import json

from playwright.sync_api import expect

#: a causal loop diagram of the kind a systems thinker draws: population and resources
CLD = {
    "nodes": [
        {"id": "births", "text": "Births"},
        {"id": "population", "text": "Population"},
        {"id": "deaths", "text": "Deaths"},
        {"id": "resources", "text": "Resources per person"},
        {"id": "pollution", "text": "Pollution"},
        {"id": "industry", "text": "Industry"},
    ],
    "edges": [
        {"id": "e1", "a": "births", "b": "population", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e2", "a": "population", "b": "births", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e3", "a": "population", "b": "deaths", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e4", "a": "deaths", "b": "population", "props": {"kind": "causal", "polarity": "-"}},
        {"id": "e5", "a": "population", "b": "resources", "props": {"kind": "causal", "polarity": "-"}},
        {"id": "e6", "a": "resources", "b": "births", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e7", "a": "population", "b": "industry", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e8", "a": "industry", "b": "pollution", "props": {"kind": "causal", "polarity": "+"}},
        {"id": "e9", "a": "pollution", "b": "deaths", "props": {"kind": "causal"}},
    ],
}


def _state(app) -> dict:
    return json.loads(app.api("window.bendscope.loops_state()"))


def _load(app, graph: dict) -> None:
    assert app.api("t => window.bendscope.load(t)", json.dumps(graph)) is None
    app.api("window.bendscope.paint()")


def test_the_loops_panel_lists_highlights_and_follows_polarity(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    _load(app, CLD)
    page.locator("#canvas").focus()
    page.keyboard.press("o")
    panel = page.locator("#loops-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#btn-loops")).to_have_attribute("aria-pressed", "true")
    # births⇄population (R), population⇄deaths (B), population→resources→births (B),
    # population→industry→pollution→deaths→population (? : pollution→deaths has no sign)
    expect(page.locator("#loops-summary")).to_have_text(
        "4 loops in 1 region: 1 reinforcing (R) · 2 balancing (B) · 1 without polarity (L: an edge on it has no + or "
        "−). 2 edges break every loop of the plane (the fewest)"
    )
    buttons = panel.locator("button.loop")
    expect(buttons).to_have_count(4)
    assert [buttons.nth(k).locator(".loop-class").inner_text() for k in range(4)] == ["R1", "B1", "B2", "L1"]
    expect(buttons.nth(0)).to_contain_text("Births → Population → Births")
    expect(panel.locator("h3")).to_contain_text("κ = ")
    # hovering a loop fades the other cards; leaving it brings them back
    buttons.nth(0).hover()
    page.wait_for_function("JSON.parse(window.bendscope.loops_state()).shown !== null")
    state = _state(app)
    assert sorted(state["shown"]) == ["births", "population"] and state["dimmed"] == 4
    page.mouse.move(900, 600)
    page.wait_for_function("JSON.parse(window.bendscope.loops_state()).shown === null")
    # choosing keeps it shown; Esc in the panel lets go, a second Esc closes the panel
    buttons.nth(3).click()
    expect(buttons.nth(3)).to_have_attribute("aria-pressed", "true")
    page.mouse.move(900, 600)
    assert sorted(_state(app)["shown"]) == ["deaths", "industry", "pollution", "population"]
    buttons.nth(3).focus()
    page.keyboard.press("Escape")
    expect(buttons.nth(3)).to_have_attribute("aria-pressed", "false")
    buttons.nth(3).blur()
    page.mouse.move(900, 600)
    assert _state(app)["shown"] is None
    page.locator("#loops-close").focus()
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(page.locator("#btn-loops")).to_have_attribute("aria-pressed", "false")


def test_polarity_by_key_changes_the_loop_class_and_the_inspector_counts(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    _load(app, CLD)
    app.api("window.bendscope.select_edge('e9')")
    page.locator("#canvas").focus()
    page.keyboard.press("o")
    expect(page.locator("#loops-summary")).to_contain_text("1 without polarity")
    inspector = page.locator("#inspector")
    expect(inspector).to_contain_text("polarity: not set")
    expect(inspector).to_contain_text("on 1 loop: 1 without polarity")
    page.keyboard.press("s")  # + then − then none
    expect(inspector).to_contain_text("polarity: + (same direction)")
    expect(page.locator("#loops-summary")).to_have_text(
        "4 loops in 1 region: 1 reinforcing (R) · 3 balancing (B). 2 edges break every loop of the plane (the fewest)"
    )
    page.keyboard.press("s")
    expect(inspector).to_contain_text("polarity: − (opposite direction)")
    expect(page.locator("#loops-summary")).to_have_text(
        "4 loops in 1 region: 2 reinforcing (R) · 2 balancing (B). 2 edges break every loop of the plane (the fewest)"
    )
    edges = json.loads(app.api("window.bendscope.export()"))["planes"][0]["edges"]
    assert [e["props"].get("polarity") for e in edges if e["id"] == "e9"] == ["-"]
    app.api("window.bendscope.undo()")
    app.api("window.bendscope.paint()")
    expect(page.locator("#loops-summary")).to_have_text(
        "4 loops in 1 region: 1 reinforcing (R) · 3 balancing (B). 2 edges break every loop of the plane (the fewest)"
    )
    # a card: how many loops pass through it, by class
    app.api("window.bendscope.select(['population'])")
    app.api("window.bendscope.paint()")
    expect(inspector).to_contain_text("on 4 loops: 1 reinforcing, 3 balancing")
    expect(inspector).to_contain_text("κ = ")


def test_the_selection_has_its_own_loops(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    _load(app, CLD)
    page.locator("#btn-loops").click()
    app.api("window.bendscope.select(['births', 'population', 'resources'])")
    app.api("window.bendscope.paint()")
    expect(page.locator("#loops-title")).to_have_text("Loops of the selection (3 cards)")
    expect(page.locator("#loops-summary")).to_have_text(
        "2 loops in 1 region: 1 reinforcing (R) · 1 balancing (B). 1 edge breaks every loop of the selection "
        "(the fewest)"
    )
    app.api("window.bendscope.select(['deaths', 'industry'])")
    app.api("window.bendscope.paint()")
    expect(page.locator("#loops-summary")).to_contain_text("No feedback loop in the selection")


def test_kappa_is_explained_where_it_is_shown(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    assert "fewest edges whose removal splits" in page.locator("#hud-kappa").get_attribute("title")
    assert "strongly connected" in page.locator("#hud-sccs").get_attribute("title")
    _load(app, CLD)
    assert page.locator("#hud-mode").get_attribute("title").startswith("DELIBERATION")
    page.locator("#btn-help").click()
    sheet = page.locator("#help")
    expect(sheet.locator("h3").first).to_have_text("What κ means")
    expect(sheet.locator("th", has_text="Fault line")).to_be_visible()
    expect(sheet.locator("td", has_text="Reinforcing")).to_be_visible()
    page.keyboard.press("Escape")


def test_touch_devices_read_the_gestures_before_the_keys(browser, base_url):
    from harness import open_app

    phone = {"has_touch": True, "is_mobile": True, "viewport": {"width": 390, "height": 844}}
    app = open_app(browser, base_url, "seed=1&still=1&fresh=1", context_args=phone)
    try:
        app.page.locator("#btn-help").click()
        titles = app.page.locator("#help h3").all_inner_texts()
        assert [t.lower() for t in titles[:3]] == ["what κ means", "touch and pointer", "anywhere"]
        app.guard.check(app.page)
    finally:
        app.page.context.close()


def test_a_giant_scc_is_searched_in_slices_while_frames_go_on(app_factory):
    """3,000 cards in one SCC (a ring with chords): the panel says it is looking, the search
    runs in slices between frames, and the list comes back bounded, shortest first."""
    app = app_factory("seed=1&fresh=1&layout=worker")
    n = 3000
    nodes = [{"id": f"n{i}", "text": f"card {i}", "x": (i % 60) * 200.0, "y": (i // 60) * 120.0} for i in range(n)]
    edges = [{"a": f"n{i}", "b": f"n{(i + 1) % n}", "props": {"kind": "causal"}} for i in range(n)]
    edges += [{"a": f"n{i}", "b": f"n{(i + 7) % n}", "props": {"kind": "causal"}} for i in range(0, n, 2)]
    # few backward chords: 100 short loops take a search of many slices (~80 ms in CPython)
    edges += [{"a": f"n{(i + 4) % n}", "b": f"n{i}", "props": {"kind": "causal"}} for i in range(0, n, 30)]
    _load(app, {"nodes": nodes, "edges": edges})
    app.page.wait_for_function("!window.bendscope.topology_state().pending", timeout=60_000)
    # frames as the user gets them, seen by a requestAnimationFrame loop of the test's own
    # (the page paints only what changed, so its paint count may rightly stand still): how
    # many ran while the search was pending, and what the panel said meanwhile
    app.api(
        "() => { window.__pending_frames = 0; window.__said = [];"
        " const t = () => { if (JSON.parse(window.bendscope.loops_state()).pending) {"
        " window.__pending_frames++;"
        " const s = document.querySelector('#loops-summary');"
        " if (s) window.__said.push(s.textContent); }"
        " requestAnimationFrame(t); }; requestAnimationFrame(t); }"
    )
    app.page.locator("#btn-loops").click()
    app.page.wait_for_function(
        "JSON.parse(window.bendscope.loops_state()).groups.length > 0 && "
        "!JSON.parse(window.bendscope.loops_state()).pending",
        timeout=60_000,
    )
    state = _state(app)
    (group,) = state["groups"]
    lengths = [len(loop["nodes"]) for loop in group["loops"]]
    assert len(lengths) == 100 and lengths == sorted(lengths) and not group["complete"]
    assert app.api("window.__pending_frames") >= 2  # (frames went on while it searched)
    assert "Looking for loops…" in app.api("window.__said")
    expect(app.page.locator("#loops-panel p.loops-note, #loops-panel button.loops-more").first).to_be_visible()


def test_a_drag_begins_no_loop_or_cut_search_in_its_frames_nor_while_the_layout_cools_after_it(app_factory):
    """Pressing a card of a loop region selects it, which asks for its loops and fewest cuts:
    the gesture's frames only show reports held already and begin no search (they would take
    the press's frame and the first moves'), nor do the release's frame and the frames of the
    layout cooling after it; the searches begin once the layout rests."""
    from harness import press_region_card  # (e2e/: the mixed graph of the benchmarks)

    app = app_factory("seed=1&fresh=1")
    _, x, y = press_region_card(app, 600)
    for k in range(1, 7):
        app.page.mouse.move(x + 6 * k, y + 2 * k)
        app.api("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(null))))")
        state = _state(app)
        assert state["searching"] == [False, False] and (state["searches"], state["cut_searches"]) == (0, 0), k
        assert state["pending"]  # (the inspector waits for them)
    app.page.mouse.up()
    for _ in range(2):  # (the release's frame and the next: the layout still cools)
        app.api("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(null))))")
        cooling, state = app.api("() => [window.bendscope.layout_active(), JSON.parse(window.bendscope.loops_state())]")
        assert cooling, "the layout rested already: the check proves nothing"
        assert state["searching"] == [False, False] and (state["searches"], state["cut_searches"]) == (0, 0), state
    app.page.wait_for_function(
        "(s => s.searches > 0 && s.cut_searches > 0 && !s.pending)(JSON.parse(window.bendscope.loops_state()))",
        timeout=60_000,
    )
    assert not app.api("window.bendscope.layout_active()")  # (they began at rest)
    app.guard.check(app.page)
