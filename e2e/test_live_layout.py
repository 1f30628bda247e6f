"""While an agent writes to the open memory, the page gives the layout worker what changed (a
patch over the frame it last took) instead of the whole layout state: with the check on, the
worker makes from each patch the whole state the page would have sent, exactly, through a burst
of writes into a large loop (static/layout.js ``runner``, app/d3layout.py)."""

from __future__ import annotations

import json

from harness import new_context, open_page
from test_live_memory import TOKEN, live_state, wait_for

from bendscope.memory.core.service import Memory
from bendscope.memory.store.sqlite import SQLiteStore
from bendscope.memory.web.editor_site import Admission
from tests.memory.web.test_editor_site import _Served

CARDS = 300
WRITES = 40


def loop_document(cards: int) -> str:
    nodes = [{"id": f"p{i}", "text": f"Prior fact {i}"} for i in range(cards)]
    edges = [{"id": f"pe{i}", "a": f"p{i}", "b": f"p{(i + 1) % cards}", "props": {"kind": "causal"}}
             for i in range(cards)]  # fmt: skip
    return json.dumps({"format": "bendscope", "version": 1, "rootPlaneId": "r", "activePlaneId": "r",
                       "planes": [{"id": "r", "name": "Memory", "nodes": nodes, "edges": edges}]})  # fmt: skip


def test_a_burst_of_writes_gives_the_worker_patches_that_make_the_whole_state(browser, tmp_path):
    path = tmp_path / "m.sqlite3"
    writer = Memory(SQLiteStore(path))
    writer.import_document(loop_document(CARDS))
    served = _Served(path, "--token", TOKEN)
    try:
        base = f"http://127.0.0.1:{served.port}/"
        context = new_context(browser, reduced_motion="no-preference")
        context.add_init_script("window.bendscopeLayoutCheck = true")
        key = Admission(served.token, served.port).page_key.decode()
        context.add_cookies([{"name": f"bendscope_token_{served.port}", "value": key, "url": base}])
        app = open_page(context, base)
        page = app.page
        page.wait_for_function(f"window.bendscope.stats && window.bendscope.stats().nodes >= {CARDS}", timeout=60_000)
        page.wait_for_function("!window.bendscope.layout_active()", timeout=120_000)
        # (Python's cycle collector was held while the memory came in and its layout ran, then
        # given back at rest with one collection in a task of its own)
        page.wait_for_function("!window.bendscope.patch_state().collector.held", timeout=10_000)
        assert app.api("window.bendscope.patch_state()")["collector"]["runs"] >= 1
        for k in range(WRITES):  # (about 50 writes a second; the page's requests are served meanwhile)
            with writer.store.transaction():
                writer.store_node({"id": f"w{k}", "content": f"Observation {k} from the agent"})
                writer.store_edge({"id": f"we{k}", "source_id": f"w{k - 1}" if k else "p0", "target_id": f"w{k}",
                                   "edge_type": "causal"})  # fmt: skip
                # (and from a card of the loop: cards the layout held before are freed around it)
                writer.store_edge({"id": f"wp{k}", "source_id": f"p{37 * k % CARDS}", "target_id": f"w{k}",
                                   "edge_type": "causal"})  # fmt: skip
            page.wait_for_timeout(20)
        wait_for(app, lambda: all(f"w{k}" in json.loads(app.api("window.bendscope.live_arrivals()"))
                                  for k in range(WRITES)))  # fmt: skip
        page.wait_for_function("!window.bendscope.layout_active()", timeout=120_000)
        stats = page.evaluate("window.bendscopeLayoutHost.stats()")
        assert stats["failure"] is None
        patches = stats["patches"]
        assert patches["patched"] >= 3, patches  # (the changes reached the worker as patches)
        assert patches["checked"] == patches["patched"] and patches["mismatched"] == 0, patches
        assert live_state(app)["status"] == "live"
        assert page.evaluate("window.bendscope.stats().nodes") == CARDS + WRITES
        app.guard.check(page)
        context.close()
    finally:
        served.stop()
        writer.store.close()
