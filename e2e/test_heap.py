"""Python's heap in the page: once a document is open and at rest, what the page holds is left
out of cyclic garbage collections (a collection that walked a 2,000-card document took tens of
ms of a frame at a press); a document replaced by another can still be collected."""

from __future__ import annotations

import json
import sys

from harness import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from graphs import giant_scc_document

REST = """async () => {
  const b = window.bendscope, t0 = performance.now();
  while (b.layout_active() && performance.now() - t0 < 60000) await new Promise(r => setTimeout(r, 50));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def test_the_page_freezes_what_it_holds_at_rest_and_lets_a_replaced_document_go(app_factory):
    app = app_factory("seed=1&fresh=1")
    app.api(REST)
    first = app.api("window.bendscope.heap()")
    assert first["frozen"] > 0 and first["documents"] == 1
    for doc in (giant_scc_document(300, seed=3), giant_scc_document(40, seed=4)):
        assert app.api("text => window.bendscope.load(text)", json.dumps(doc)) is None
        app.api(REST)
        # the documents shown before were collected (the full collection the call makes lets
        # the page freeze what it holds again: it waits for one after a document is replaced)
        assert app.api("window.bendscope.heap()")["documents"] == 1
        app.api("window.bendscope.action('fit-view')")  # (a frame: at rest without motion none comes)
        app.api(REST)
        assert app.api("window.bendscope.heap()")["frozen"] > 0
    assert app.api("window.bendscope.stats()")["nodes"] == 40
