"""One live graph for the agent and the person, end to end: a real memory server
(``serve --http 0 --editor``), the real page it serves, and an MCP client on the SDK's HTTP
transport with the server's token — on SQLite, and on PostgreSQL with two server processes
(the client writes through one, the page is served by the other)."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from harness import AppPage, new_context, open_page
from kappa_helpers import BUSINESS
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from playwright.sync_api import expect
from test_keyboard_a11y import serious

from bendscope.memory.web.editor_site import Admission
from tests.memory.core.test_service import BUSINESS_TEXT
from tests.memory.mcp.test_mcp import run_async
from tests.memory.web.test_editor_site import _Served

TOKEN = "e2e-live-token-0123456789abcdef"
LIVE_TARGET_S = 1.0  # the target for a change to reach the page (p95: see bench/bench_live.py)


def mcp_calls(port: int, calls: list[tuple[str, dict[str, Any]]], token: str = TOKEN) -> list[dict[str, Any]]:
    """Tool calls over the SDK's streamable HTTP client, with the token as a Bearer header."""
    answers: list[dict[str, Any]] = []

    async def main() -> None:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http_client:
            transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http_client)
            async with Client(transport, cache=None) as client:
                for name, arguments in calls:
                    result = await client.call_tool(name, arguments)
                    assert not result.is_error, result.content
                    answers.append(result.structured_content)

    run_async(main)
    return answers


def live_page(browser: Any, served: _Served, ready: str = "fetches >= 1") -> AppPage:
    """The page the server serves, opened as the printed URL opens it (its cookie set), once
    its live state says ``ready``."""
    base = f"http://127.0.0.1:{served.port}/"
    context = new_context(browser, reduced_motion="no-preference")
    key = Admission(served.token, served.port).page_key.decode()
    context.add_cookies([{"name": f"bendscope_token_{served.port}", "value": key, "url": base}])
    app = open_page(context, base)
    app.page.wait_for_function(f"JSON.parse(window.bendscope.live_state()).{ready}", timeout=30_000)
    return app


def live_state(app: AppPage) -> dict[str, Any]:
    return json.loads(app.api("window.bendscope.live_state()"))


def wait_for(app: AppPage, condition: Callable[[], bool], seconds: float = 20.0) -> float:
    """Seconds until ``condition()`` holds (asked every 20 ms); fails after ``seconds``."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < seconds, "the page did not show the change"
        app.page.wait_for_timeout(20)
    return time.monotonic() - started


def page_topology(app: AppPage) -> dict[str, Any]:
    return json.loads(app.api("window.bendscope.topology()"))


def business_calls() -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("store_node", {"id": node_id, "content": text}) for node_id, text in BUSINESS_TEXT.items()
    ]
    calls += [
        ("store_edge", {"id": f"{a}>{b}", "source_id": a, "target_id": b, "edge_type": "causal"}) for a, b in BUSINESS
    ]
    return calls


def raw(port: int, method: str, path: str, body: bytes = b"", **headers: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body or None, headers=headers)
    status = connection.getresponse().status
    connection.close()
    return status


def run_live_story(browser: Any, page_server: _Served, agent_server: _Served) -> dict[str, float]:
    """The issue's story; the page on ``page_server``, the agent on ``agent_server``."""
    app = live_page(browser, page_server)
    timings: dict[str, float] = {}
    assert live_state(app)["live"] is True and app.pill("nodes") == "nodes: 0"
    # the agent stores the spec's business loop: the page shows κ = 1 and the fault line
    mcp_calls(agent_server.port, business_calls())
    wait_for(app, lambda: page_topology(app)["max_kappa"] == 1 and app.pill("nodes") == f"nodes: {len(BUSINESS_TEXT)}")
    topology = page_topology(app)
    fault = [(e["source"], e["target"]) for scc in topology["sccs"] for e in scc["fault_line_edges"]]
    assert fault == [("product-quality", "market-share")]
    (server_topology,) = mcp_calls(agent_server.port, [("analyze_topology", {})])
    sccs = [{k: v for k, v in scc.items() if k != "feedback_arc_set"} for scc in server_topology["sccs"]]
    assert topology == {k: v for k, v in server_topology.items() if k != "recommendation"} | {"sccs": sccs}
    assert app.pill("kappa") == "κ: 1" and app.pill("mode") == "mode: DELIBERATION"
    # a second loop: the HUD changes within the target, and the view stays where it is
    camera = app.api("JSON.parse(window.bendscope.export()).planes[0].camera")
    started = time.monotonic()
    mcp_calls(
        agent_server.port,
        [
            ("store_node", {"id": "hiring", "content": "Hiring follows revenue"}),
            ("store_node", {"id": "morale", "content": "Team morale"}),
            ("store_edge", {"id": "h>m", "source_id": "hiring", "target_id": "morale", "edge_type": "causal"}),
            ("store_edge", {"id": "m>h", "source_id": "morale", "target_id": "hiring", "edge_type": "causal"}),
        ],
    )
    wait_for(app, lambda: app.pill("sccs") == "SCCs: 2")
    timings["second_loop_s"] = time.monotonic() - started
    # the camera is kept: a change from the agent does not move the view (nor the layout it starts)
    app.page.wait_for_function("!window.bendscope.layout_active()", timeout=60_000)
    assert app.api("JSON.parse(window.bendscope.export()).planes[0].camera") == camera
    # the person deletes the fault-line edge in the page: the agent's topology no longer has that loop
    app.api("window.bendscope.action('delete-edge', {edge_id: 'product-quality>market-share'})")
    wait_for(app, lambda: live_state(app)["writes"] >= 1 and live_state(app)["pending_ops"] == 0)
    (after,) = mcp_calls(agent_server.port, [("analyze_topology", {})])
    assert all("product-quality" not in scc["nodes"] for scc in after["sccs"]) and after["max_kappa"] == 1
    # undo is a write too: the loop comes back in the memory
    app.api("window.bendscope.undo()")
    wait_for(app, lambda: live_state(app)["writes"] >= 2 and live_state(app)["pending_ops"] == 0)
    (again,) = mcp_calls(agent_server.port, [("analyze_topology", {})])
    assert any("product-quality" in scc["nodes"] for scc in again["sccs"])
    # a conflicting edit: the person types in a card while the agent rewrites it → refused, shown
    app.api("window.bendscope.action('edit-text', {node_id: 'revenue'})")
    editor = app.page.locator("#text-editor")
    editor.wait_for(state="visible")
    mcp_calls(agent_server.port, [("store_node", {"id": "revenue", "content": "Revenue, as the agent now says"})])
    app.page.wait_for_timeout(600)  # (the page heard it, and holds it while the person types)
    app.page.keyboard.type(" (the person's words)")
    app.page.keyboard.press("Control+Enter")
    expect(app.page.locator("#toast")).to_contain_text("Not saved to the memory: the memory changed meanwhile")
    wait_for(app, lambda: "Revenue, as the agent now says" in app.api("window.bendscope.export()"))
    (found,) = mcp_calls(agent_server.port, [("query_graph", {"node_ids": ["revenue"]})])
    assert found["nodes"][0]["content"] == "Revenue, as the agent now says"
    assert live_state(app)["refusals"] == 1
    # (Chromium logs every answer that is not 2xx; this 409 is the refusal the test asked for)
    expected = "Failed to load resource: the server responded with a status of 409 (Conflict)"
    assert app.guard.console_errors == [expected]
    app.guard.console_errors.clear()
    # the person's new card reaches the agent's next retrieval
    card = app.api("window.bendscope.action('new-node', {x: 40, y: 40})")
    app.api(
        f"window.bendscope.action('edit-text', {{node_id: {card!r}}}, {{text: 'Pricing power lets us raise prices'}})"
    )
    wait_for(app, lambda: live_state(app)["pending_ops"] == 0 and live_state(app)["writes"] >= 3)
    # planes have no place in the memory: stargates are off, and say so
    assert app.api("window.bendscope.action('new-stargate', {x: 0, y: 0})") is None
    expect(app.page.locator("#toast")).to_contain_text("Stargates are off")
    (retrieved,) = mcp_calls(agent_server.port, [("retrieve_context", {"query": "pricing power"})])
    assert any("Pricing power" in r["content"] for r in retrieved["results"])
    app.guard.check(app.page)
    # positions are kept for this memory: reopened, the cards stand where they stood
    app.api("window.bendscope.settle()")
    before = {n: app.api(f"window.bendscope.world_box({n!r})") for n in ("revenue", "hiring")}
    app.page.evaluate("window.dispatchEvent(new Event('pagehide'))")
    app.page.reload()
    app.wait_ready()
    app.page.wait_for_function("JSON.parse(window.bendscope.live_state()).fetches >= 1", timeout=30_000)
    after_reload = {n: app.api(f"window.bendscope.world_box({n!r})") for n in ("revenue", "hiring")}
    assert all(after_reload[n] == pytest.approx(before[n], abs=0.1) for n in before)  # (kept to 0.1 px)
    app.guard.check(app.page)
    app.page.context.close()
    return timings


def test_the_agent_and_the_person_work_on_one_live_graph(browser, tmp_path):
    served = _Served(tmp_path / "m.sqlite3", "--token", TOKEN)
    try:
        timings = run_live_story(browser, served, served)
        assert timings["second_loop_s"] < 10  # (the target, 1 s, is benchmarked: a loaded CI machine is slower)
    finally:
        served.stop()


def test_two_server_processes_on_postgresql_share_one_live_graph(browser, postgres_url):
    page_server = _Served(postgres_url, "--token", TOKEN)  # type: ignore[arg-type]
    agent_server = _Served(postgres_url, "--token", TOKEN)  # type: ignore[arg-type]
    try:
        run_live_story(browser, page_server, agent_server)
    finally:
        page_server.stop()
        agent_server.stop()


def test_requests_without_the_token_or_from_elsewhere_are_refused_and_change_nothing(browser, tmp_path):
    served = _Served(tmp_path / "m.sqlite3", "--token", TOKEN)
    try:
        mcp_calls(served.port, [("store_node", {"id": "a", "content": "A fact"})])
        port = served.port
        write = json.dumps({"ops": [{"op": "delete_node", "id": "a", "was": "A fact"}]}).encode()
        host = f"127.0.0.1:{port}"
        key = Admission(TOKEN, port).page_key.decode()
        cookie = f"bendscope_token_{port}={key}"
        own = f"http://{host}"
        refused = {
            "no token": raw(port, "POST", "/api/write", write, Origin=own),
            "wrong token": raw(port, "POST", "/api/write", write, Authorization="Bearer wrong-token-0123456789"),
            "foreign Host": raw(
                port, "POST", "/api/write", write, Host=f"evil.example:{port}", Cookie=cookie, Origin=own
            ),
            "foreign Origin": raw(port, "POST", "/api/write", write, Cookie=cookie, Origin="http://evil.example"),
            "cookie into MCP": raw(port, "POST", "/mcp", b"{}", Cookie=cookie, Origin=own),
            "no token, events": raw(port, "GET", "/api/events"),
            "no token, graph": raw(port, "GET", "/api/graph"),
        }
        assert refused == {
            "no token": 401,
            "wrong token": 401,
            "foreign Host": 403,
            "foreign Origin": 403,
            "cookie into MCP": 401,
            "no token, events": 401,
            "no token, graph": 401,
        }
        with pytest.raises(Exception):  # noqa: B017 - the SDK's client fails on the 401 (an exception group)
            mcp_calls(port, [("delete_node", {"id": "a"})], token="wrong-token-0123456789")
        (found,) = mcp_calls(port, [("query_graph", {"node_ids": ["a"]})])
        assert found["nodes"][0]["content"] == "A fact"
    finally:
        served.stop()


def test_a_memory_too_large_to_open_whole_is_opened_by_a_search(browser, tmp_path):
    from bendscope.memory.core.service import Memory
    from bendscope.memory.store.sqlite import SQLiteStore
    from bendscope.memory.web.editor_site import LIVE_MAX_NODES

    path = tmp_path / "m.sqlite3"
    memory = Memory(SQLiteStore(path))
    cards = LIVE_MAX_NODES + 1
    nodes = [{"id": f"n{i}", "text": f"Routine log entry {i}"} for i in range(cards)]
    nodes[7]["text"] = "Churn rises when support is slow"
    nodes[8]["text"] = "Support staffing"
    edges = [{"id": "e1", "a": "n8", "b": "n7", "props": {"kind": "causal"}}]
    document = {"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r",
                "planes": [{"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}]}  # fmt: skip
    memory.import_document(json.dumps(document))
    memory.store.close()
    served = _Served(path, "--token", TOKEN)
    try:
        app = live_page(browser, served, ready="needs_query")
        expect(app.page.locator("#live-view")).to_have_text(f"{cards:,} cards: too many to open at once")
        app.page.locator("#live-query").fill("churn")
        app.page.locator("#live-search button").click()
        wait_for(app, lambda: live_state(app)["view"].get("query") == "churn")
        view = live_state(app)["view"]
        assert view["total"] == cards and 2 <= view["shown"] <= 60
        wait_for(app, lambda: app.pill("nodes") == f"nodes: {view['shown']}")  # (the HUD: in the next frame)
        assert "n7" in app.api("window.bendscope.export()") and "n8" in app.api("window.bendscope.export()")
        expect(app.page.locator("#live-view")).to_contain_text("“churn” and neighbours")
        # the agent's new card that the search finds arrives; the person's own card stays in the view
        mcp_calls(served.port, [("store_node", {"id": "c2", "content": "Churn doubled after the price change"})])
        wait_for(app, lambda: '"c2"' in app.api("window.bendscope.export()"))
        card = app.api("window.bendscope.action('new-node', {x: 60, y: 60})")
        app.api(f"window.bendscope.action('edit-text', {{node_id: {card!r}}}, {{text: 'Hire two support agents'}})")
        wait_for(app, lambda: live_state(app)["writes"] >= 1 and live_state(app)["pending_ops"] == 0)
        mcp_calls(served.port, [("store_node", {"id": "c3", "content": "Churn is seasonal"})])
        wait_for(app, lambda: '"c3"' in app.api("window.bendscope.export()"))
        assert card in app.api("window.bendscope.export()")
        assert serious(app) == []  # (the live controls too: axe-core finds no serious violation)
        app.guard.check(app.page)
        app.page.context.close()
    finally:
        served.stop()
