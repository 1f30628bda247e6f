"""The person and the agent on one graph: the page opens what the agent memory exports and
shows the κ the MCP server computes (same topology JSON), with the memory's edge kinds."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from bendscope.memory.store.inmemory import InMemoryStore
from tests.memory.core.test_service import business, memory_on


def test_the_page_and_the_server_agree(app_factory):
    memory = memory_on(InMemoryStore())
    business(memory)
    memory.store_node({"id": "evidence", "content": "A study of churn", "node_type": "episodic", "confidence": 0.9})
    memory.store_edge({"source_id": "evidence", "target_id": "customer-retention", "edge_type": "supports"})
    server = memory.analyze_topology({})
    app = app_factory("seed=3&still=1")
    assert app.api("t => window.bendscope.load(t)", json.dumps(memory.export_document())) is None
    page_topology = json.loads(app.api("window.bendscope.topology()"))
    sccs = [{k: v for k, v in scc.items() if k != "feedback_arc_set"} for scc in server["sccs"]]  # (the agent's)
    assert page_topology == {k: v for k, v in server.items() if k != "recommendation"} | {"sccs": sccs}
    assert app.pill("kappa") == "κ: 1" and app.pill("mode") == "mode: DELIBERATION"
    assert "supports" in app.page.locator("#legend").inner_text()
    app.api("window.bendscope.action('fit-view')")
    app.click_node("evidence")
    expect(app.page.locator("#inspector")).to_contain_text("episodic · confidence 0.9")
    # what the person saves goes back to the memory unchanged
    summary = memory.import_document(app.api("window.bendscope.export()"))
    assert summary["nodes_updated"] == 0 and summary["nodes_created"] == 0
