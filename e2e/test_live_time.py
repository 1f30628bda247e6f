"""The live page and the memory's time, end to end: a real memory server, the page it serves,
an MCP client. An ended edge leaves the page's κ, halos, loops and HUD; the time control
shows the loop again at an earlier moment, with editing off; the diff names the loop that
broke and when it closed; all by keyboard, axe-clean, and on a phone."""

from __future__ import annotations

import datetime
import json
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest
from harness import AppPage, new_context, open_page
from playwright.sync_api import expect
from test_devices import PHONE
from test_keyboard_a11y import serious
from test_live_memory import TOKEN, live_page, live_state, mcp_calls, page_topology, wait_for

from bendscope.memory.web.editor_site import Admission
from tests.memory.web.test_editor_site import _Served

LOOP = [
    ("store_node", {"id": "ice", "content": "Arctic sea ice"}),
    ("store_node", {"id": "albedo", "content": "Surface albedo"}),
    ("store_node", {"id": "warming", "content": "Regional warming"}),
    ("store_edge", {"id": "ice>albedo", "source_id": "ice", "target_id": "albedo", "edge_type": "causal"}),
    ("store_edge", {"id": "albedo>warming", "source_id": "albedo", "target_id": "warming", "edge_type": "causal"}),
    ("store_edge", {"id": "warming>ice", "source_id": "warming", "target_id": "ice", "edge_type": "causal"}),
]


def time_state(app: AppPage) -> dict[str, Any]:
    return live_state(app)["time"]


def same_as_the_memory(app: AppPage, port: int) -> bool:
    """The page's topology equals analyze_topology's (but for what the agent's adds)."""
    (server,) = mcp_calls(port, [("analyze_topology", {})])
    sccs = [{k: v for k, v in scc.items() if k != "feedback_arc_set"} for scc in server["sccs"]]
    return page_topology(app) == {k: v for k, v in server.items() if k != "recommendation"} | {"sccs": sccs}


def edge_ids(app: AppPage) -> set[str]:
    return {e["id"] for e in json.loads(app.api("window.bendscope.export()"))["planes"][0]["edges"]}


def _ended_in_svg(app: AppPage) -> tuple[set[str], set[str]]:
    """The ended cards and edges the page's SVG image draws."""
    app.page.locator("#btn-png").click()
    with app.page.expect_download() as info:
        app.page.locator("#menu-0 [data-item='export-svg']").click()
    with open(info.value.path(), "rb") as handle:
        root = ElementTree.fromstring(handle.read())
    groups = list(root.iter("{http://www.w3.org/2000/svg}g"))
    return {g.get("data-ended-node") for g in groups if g.get("data-ended-node")}, {
        g.get("data-ended-edge") for g in groups if g.get("data-ended-edge")
    }


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_ended_edge_leaves_the_page_and_the_time_control_brings_its_loop_back(browser, tmp_path, request, backend):
    """(On PostgreSQL the agent writes through a server process of its own: the page's
    server hears of every change, the invalidation too, over LISTEN/NOTIFY.)"""
    where = tmp_path / "m.sqlite3" if backend == "sqlite" else request.getfixturevalue("postgres_url")
    served = _Served(where, "--token", TOKEN)
    agent = served if backend == "sqlite" else _Served(where, "--token", TOKEN)
    try:
        app = live_page(browser, served)
        page = app.page
        mcp_calls(agent.port, LOOP)
        wait_for(app, lambda: app.pill("kappa") == "κ: 1" and time_state(app)["halos"] == 1)
        assert app.pill("mode") == "mode: DELIBERATION" and same_as_the_memory(app, agent.port)

        # the agent ends an edge of the loop: κ, halos and the HUD follow, as analyze_topology says
        mcp_calls(agent.port, [("invalidate_edge", {"id": "warming>ice"})])
        # (how fast is measured by bench/bench_live_time.py: p95 0.4 s, the bound 3 s)
        wait_for(app, lambda: app.pill("kappa") == "κ: 0" and time_state(app)["halos"] == 0)
        assert app.pill("mode") == "mode: RETRIEVAL" and app.pill("sccs") == "SCCs: 0"
        assert app.pill("edges") == "edges: 2" and "warming>ice" not in edge_ids(app)
        assert same_as_the_memory(app, agent.port)

        # the time control, by keyboard: open it, step back one change on the recorded axis
        page.locator("#btn-time").focus()
        page.keyboard.press("Enter")
        expect(page.locator("#time-panel")).to_be_visible()
        wait_for(app, lambda: time_state(app)["stops"] >= 7)  # (3 cards, 3 edges, the invalidation)
        stops = time_state(app)["stops"]
        expect(page.locator("#time-slider")).to_be_focused()
        assert time_state(app)["index"] == stops and not time_state(app)["away"]
        page.keyboard.press("ArrowLeft")  # (now → the invalidation)
        page.keyboard.press("ArrowLeft")  # (→ the last change before it: the loop closed)
        wait_for(app, lambda: time_state(app)["away"] and app.pill("kappa") == "κ: 1")
        wait_for(app, lambda: time_state(app)["halos"] == 1 and "warming>ice" in edge_ids(app))
        assert app.pill("mode") == "mode: DELIBERATION"
        expect(page.locator("#time-banner")).to_be_visible()
        expect(page.locator("#time-banner-text")).to_contain_text("Editing is off")
        expect(page.locator("#live-status")).to_contain_text("in the past")
        # editing is off while away (moving a card is not an edit of the memory)
        assert app.api("window.bendscope.action('new-node', {x: 10, y: 10})") is None
        expect(page.locator("#toast")).to_contain_text("Editing is off")
        app.dblclick_node("ice")  # (the text editor stays shut)
        page.wait_for_timeout(300)
        expect(page.locator("#text-editor")).to_be_hidden()
        assert live_state(app)["pending_ops"] == 0
        # the loop shown: when it closed, and who wrote the edge that closed it
        loop = page.locator("#time-loops button").first
        expect(loop).to_contain_text("κ 1")
        loop.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#time-closure")).to_contain_text("closed at")
        closure = time_state(app)["closure"]
        assert "warming>ice" in closure and "written by" in closure
        # the diff from this moment to now: the loop that broke, by the edge that ended
        expect(page.locator("#time-since")).to_have_value(time_state(app)["shown"]["at"])
        page.locator("#time-since").focus()
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")  # (the "to" field, then Compare)
        page.keyboard.press("Enter")
        expect(page.locator("#time-diff")).to_contain_text("Loop broke")
        diff = time_state(app)["diff"]
        broke = [row for row in diff if row.startswith("Loop broke")]
        assert len(broke) == 1 and "warming>ice" in broke[0] and "“Arctic sea ice”" in broke[0], diff
        assert any(row.startswith("1 edge ended: warming>ice") for row in diff), diff
        assert sorted(json.loads(app.api("window.bendscope.interaction()"))["selection"]) == [
            "albedo",
            "ice",
            "warming",
        ]
        assert serious(app) == [], "the time panel, away from now"

        # the valid axis: what held before the edge ended (as known now) has the loop too
        page.locator("#time-axis-valid").check()
        wait_for(app, lambda: time_state(app)["shown"]["axis"] == "valid" and time_state(app)["stops"] == 2)
        page.locator("#time-slider").focus()
        page.keyboard.press("End")  # (now: the edge has ended)
        wait_for(app, lambda: not time_state(app)["away"] and app.pill("kappa") == "κ: 0")
        page.keyboard.press("Home")  # (the millisecond before it ended: the loop holds)
        wait_for(app, lambda: app.pill("kappa") == "κ: 1" and time_state(app)["index"] == 0)
        (history,) = mcp_calls(agent.port, [("history", {"id": "warming>ice"})])
        ended_at = datetime.datetime.strptime(history["versions"][-1]["valid_until"], "%Y-%m-%dT%H:%M:%S.%fZ")
        just_before = (ended_at - datetime.timedelta(milliseconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        assert time_state(app)["away"] and time_state(app)["query"] == {"as_of": just_before}
        page.keyboard.press("ArrowRight")  # (its end: what held then has no loop)
        wait_for(app, lambda: app.pill("kappa") == "κ: 0" and time_state(app)["away"])
        # back to now: the page is the memory of now again, and editable
        page.locator("#time-now").click()
        wait_for(app, lambda: not time_state(app)["away"] and app.pill("kappa") == "κ: 0")
        expect(page.locator("#time-banner")).to_be_hidden()
        assert same_as_the_memory(app, agent.port)
        card = app.api("window.bendscope.action('new-node', {x: 40, y: 40})")
        app.api(f"window.bendscope.action('edit-text', {{node_id: {card!r}}}, {{text: 'Melt ponds'}})")
        wait_for(app, lambda: live_state(app)["pending_ops"] == 0 and live_state(app)["writes"] >= 1)

        # what ended, shown on request: faded and struck through, in the image too, never counted
        mcp_calls(agent.port, [("invalidate_node", {"id": "warming"})])
        wait_for(app, lambda: time_state(app)["ended"]["cards"] == ["warming"] and app.pill("nodes") == "nodes: 3")
        assert time_state(app)["ended"]["edges"] == ["albedo>warming", "warming>ice"]
        assert time_state(app)["ended_drawn"] == 0 and _ended_in_svg(app) == (set(), set())
        page.locator("#time-show-ended").focus()
        page.keyboard.press("Space")
        wait_for(app, lambda: time_state(app)["ended_drawn"] == 3)
        assert _ended_in_svg(app) == ({"warming"}, {"albedo>warming", "warming>ice"})
        app.page.locator("#btn-png").click()
        with app.page.expect_download() as info:
            app.page.locator("#menu-0 [data-item='export-png']").click()
        with open(info.value.path(), "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"  # (the PNG painter draws the same marks)
        assert app.pill("nodes") == "nodes: 3" and app.pill("kappa") == "κ: 0" and same_as_the_memory(app, agent.port)
        assert serious(app) == [], "the time panel, ended items shown"
        page.locator("#btn-theme").click()  # (the dark theme: the panel, the banner, the marks)
        wait_for(app, lambda: app.api("document.documentElement.dataset.theme") == "dark")
        assert serious(app) == [], "the time panel in the dark theme"
        app.guard.check(app.page)
        app.page.context.close()
    finally:
        served.stop()
        if agent is not served:
            agent.stop()


def test_the_time_control_fits_a_phone(browser, tmp_path):
    served = _Served(tmp_path / "m.sqlite3", "--token", TOKEN)
    try:
        mcp_calls(served.port, LOOP)
        mcp_calls(served.port, [("invalidate_edge", {"id": "warming>ice"})])
        base = f"http://127.0.0.1:{served.port}/"
        context = new_context(browser, **PHONE)
        key = Admission(served.token, served.port).page_key.decode()
        context.add_cookies([{"name": f"bendscope_token_{served.port}", "value": key, "url": base}])
        app = open_page(context, base)
        app.page.wait_for_function("JSON.parse(window.bendscope.live_state()).fetches >= 1", timeout=30_000)
        page = app.page
        page.locator("#btn-time").tap()
        expect(page.locator("#time-panel")).to_be_visible()
        wait_for(app, lambda: time_state(app)["stops"] >= 7)
        for element in ("#time-panel", "#time-slider", "#time-date button", "#time-compare button"):
            box = page.locator(element).first.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, element
        # a date typed in the field: the last change before the invalidation
        history = json.loads(app.api("fetch('api/history').then(r => r.text())"))
        before = history["moments"][-2]["at"]
        page.locator("#time-field").fill(before)
        page.locator("#time-date button[type=submit]").tap()
        wait_for(app, lambda: time_state(app)["away"] and app.pill("kappa") == "κ: 1")
        expect(page.locator("#time-banner")).to_be_visible()
        assert serious(app) == [], "the time panel on a phone"
        page.locator("#btn-theme").tap()
        wait_for(app, lambda: app.api("document.documentElement.dataset.theme") == "dark")
        assert serious(app) == [], "the time panel and its banner on a phone, dark"
        app.guard.check(app.page)
        app.page.context.close()
    finally:
        served.stop()
