"""In the page: the fewest edges that break every loop — said in the inspector (exact for a
small region) and the Loops panel, drawn on request with the inspector's button or K — and κ
past the engine's work budget shown as a range of bounds in the HUD, the inspector, the Loops
panel and the Connect-to rows, never as the region's size; and the exact κ of a 3,000- and a
10,000-card region computed in the page, in slices between frames."""

from __future__ import annotations

import json
import random

from playwright.sync_api import expect
from test_loops_on_canvas import _near
from test_words import POPULATION

from bendscope.kappa import analyze

#: the colour of the edges shown as breaking every loop (bend.render.theme.CUT_COLOR, light)
CUT = (0xD6, 0x19, 0x8A)


def _load(app, graph: dict) -> None:
    assert app.api("t => window.bendscope.load(t)", json.dumps(graph)) is None
    app.api("window.bendscope.paint()")


def _cuts(app) -> dict:
    return json.loads(app.api("window.bendscope.loop_cuts()"))


def test_the_inspector_says_two_edges_and_shows_them_on_request(app_factory):
    app = app_factory("seed=1&still=1&fresh=1")
    page = app.page
    _load(app, POPULATION)
    app.api("window.bendscope.action('fit-view')")
    app.api("window.bendscope.select('population')")
    inspector = page.locator("#inspector")
    expect(inspector).to_contain_text("κ = 1: removing 1 edge (the fault line) splits this region")
    expect(inspector).to_contain_text("2 edges break every loop here (the fewest)")
    (region,) = _cuts(app)["regions"]
    assert (region["lower"], region["size"], region["exact"]) == (2, 2, True)
    assert sorted(region["edges"]) == ["e2", "e3"]  # population → births, population → deaths
    assert _cuts(app)["drawn"] == []
    button = inspector.locator("button[data-action='show-cuts']")
    expect(button).to_have_text("Show them (K)")
    button.focus()
    page.keyboard.press("Enter")  # (keyboard reachable: a button)
    expect(inspector.locator("button[data-action='show-cuts']")).to_have_text("Hide them (K)")
    app.api("window.bendscope.paint()")
    assert sorted(_cuts(app)["drawn"]) == ["e2", "e3"]
    assert sorted(json.loads(app.api("window.bendscope.loops_state()"))["shown_edges"]) == ["e2", "e3"]
    for edge_id in ("e2", "e3"):
        x, y = app.api(f"window.bendscope.edge_points({edge_id!r})")["middle"]
        assert _near(app, x, y, CUT), edge_id
    # K on the canvas hides them again; the Loops panel says the plane's count
    page.locator("#canvas").focus()
    page.keyboard.press("k")
    app.api("window.bendscope.paint()")
    assert _cuts(app)["drawn"] == [] and not _cuts(app)["shown"]
    page.keyboard.press("o")
    expect(page.locator("#loops-summary")).to_contain_text("2 edges break every loop of the plane (the fewest)")
    expect(page.locator("#loops-panel h3")).to_contain_text("· 2 edges break every loop")


def _quartets() -> dict:
    """Two complete digraphs on four cards joined both ways (κ = 1, every degree 3 or more)."""
    names = [f"{g}{i}" for g in "ab" for i in range(4)]
    nodes = [{"id": n, "text": n.upper(), "x": (k % 4) * 180.0, "y": (k // 4) * 160.0} for k, n in enumerate(names)]
    pairs = [(f"{g}{i}", f"{g}{j}") for g in "ab" for i in range(4) for j in range(4) if i != j]
    pairs += [("a3", "b0"), ("b3", "a0")]
    edges = [{"id": f"e{k}", "a": a, "b": b, "props": {"kind": "causal"}} for k, (a, b) in enumerate(pairs)]
    nodes.append({"id": "loose", "text": "Loose", "x": 0.0, "y": 340.0})
    return {"nodes": nodes, "edges": edges}


def test_kappa_past_the_budget_is_a_range_on_every_surface(app_factory):
    app = app_factory("seed=1&still=1&fresh=1&exact_limit=3")  # (no cut search past 3 cards: bounds only)
    page = app.page
    _load(app, _quartets())
    (scc,) = json.loads(app.api("window.bendscope.topology()"))["sccs"]
    assert scc["approximate"] and scc["kappa_range"] == [1, 3] and len(scc["nodes"]) == 8
    assert app.pill("kappa") == "κ: 1–3"
    app.api("window.bendscope.select('a0')")
    expect(page.locator("#inspector")).to_contain_text("κ 1–3 (bounds: the exact κ is past the work budget)")
    app.right_click("a0")
    page.locator("#menu-0 [data-item='connect']").hover()
    rows = page.locator("#menu-1 [role='menuitem']")
    rows.first.wait_for(state="visible")
    previews = [t for t in rows.all_inner_texts() if "(κ: " in t]
    assert previews and all("κ: 1–3→" in t for t in previews), previews
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")
    page.locator("#btn-loops").click()
    expect(page.locator("#loops-panel h3")).to_contain_text("κ 1–3 · 8 cards")
    # (the automation API's loops said κ 3 with nothing to tell it an upper bound)
    page.wait_for_function(
        "(() => { const s = JSON.parse(window.bendscope.loops_state()); return s.groups.length && !s.pending; })()"
    )
    (group,) = json.loads(app.api("window.bendscope.loops_state()"))["groups"]
    assert group["kappa"] == 3 and group["approximate"] and group["kappa_range"] == [1, 3], group
    said = page.locator("#hud").inner_text() + page.locator("#inspector").inner_text()
    assert "κ: 8" not in said and "κ = 8" not in said


def _region(n: int, seed: int) -> dict:
    """One loop region of ``n`` cards: a cycle through all and 2n random causal arcs, laid out."""
    rng = random.Random(seed)
    arcs = {(i, (i + 1) % n) for i in range(n)} | {(rng.randrange(n), rng.randrange(n)) for _ in range(2 * n)}
    nodes = [{"id": f"n{i}", "text": f"card {i}", "x": (i % 100) * 200.0, "y": (i // 100) * 120.0} for i in range(n)]
    edges = [
        {"id": f"e{k}", "a": f"n{a}", "b": f"n{b}", "props": {"kind": "causal"}}
        for k, (a, b) in enumerate(sorted(arc for arc in arcs if arc[0] != arc[1]))
    ]
    return {"nodes": nodes, "edges": edges}


def test_large_regions_get_their_exact_kappa_in_the_page_in_slices(app_factory):
    for n in (3000, 10_000):
        app = app_factory("seed=1&fresh=1")
        graph = _region(n, seed=n)
        expected = analyze(
            [v["id"] for v in graph["nodes"]],
            [{"source": e["a"], "target": e["b"], "kind": "causal"} for e in graph["edges"]],
        )
        (want,) = expected["sccs"]
        assert not want["approximate"] and len(want["nodes"]) == n
        app.api(
            "() => { window.__frames = 0; const t = () => { if (window.bendscope.topology_state().pending)"
            " window.__frames++; requestAnimationFrame(t); }; requestAnimationFrame(t); }"
        )
        assert app.api("t => window.bendscope.load(t)", json.dumps(graph)) is None
        app.page.wait_for_function("!window.bendscope.topology_state().pending", timeout=300_000)
        # the frame that shows it comes after its halos' task (a document just loaded): then read
        app.api("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        state = app.api("window.bendscope.topology_state()")
        assert state["slices"] > 1, state  # computed in slices …
        assert app.api("window.__frames") >= 2  # … while frames went on
        (got,) = json.loads(app.api("window.bendscope.topology()"))["sccs"]
        assert got == want  # exact: the same κ and fault line as the engine here, no bounds
        assert "kappa_range" not in got
        expect(app.page.locator("#hud-kappa")).to_have_text(f"κ: {want['kappa']}")
        app.api("window.bendscope.select('n0')")
        expect(app.page.locator("#inspector")).to_contain_text(f"κ = {want['kappa']}: removing")
