"""The canonical topology is the same, field for field and in the same order, from every
output: the page's (``window.bendscope.topology()`` is the editor's topology JSON), the CLI's
on the page's export and on the bare graph, and the memory's ``analyze_topology`` (which adds
each region's ``feedback_arc_set``) — on graphs with every edge kind, self-loops and parallel
edges."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.kappa.cli import main
from bendscope.memory.core.service import Memory
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.shared.docformat import EDGE_KINDS

TOP = ["sccs", "dag_nodes", "routing", "max_kappa", "scc_count"]
SCC = ["id", "nodes", "kappa", "approximate", "fault_line_edges", "routing", "deliberation_budget"]
KAPPA_KINDS = ("causal", "temporal")  # (the others are in no loop: the memory stores them as related)


def cli(path: Path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["analyze", str(path)]) == 0
    return json.loads(out.getvalue())


def canonical(result: dict) -> dict:
    assert list(result)[: len(TOP)] == TOP
    for scc in result["sccs"]:
        assert list(scc)[: len(SCC)] == SCC
        assert all(list(arc) == ["source", "target"] for arc in scc["fault_line_edges"])
    return {**{k: result[k] for k in TOP}, "sccs": [{k: s[k] for k in SCC} for s in result["sccs"]]}


GRAPHS = st.integers(1, 10).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from(EDGE_KINDS)), max_size=30),
    )
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(graph=GRAPHS)
def test_the_page_the_cli_and_the_memory_give_one_topology(graph, tmp_path_factory):
    n, arcs = graph
    ids = [f"m{i}" for i in range(n)]
    bare = {
        "nodes": [{"id": i, "text": f"card {i}"} for i in ids],
        "edges": [{"source": ids[a], "target": ids[b], "kind": t} for a, b, t in arcs],
    }
    editor = Editor(seed=1)
    assert editor.load(json.dumps(bare), label=None) is None
    page = canonical(json.loads(editor.topology().json()))
    folder = tmp_path_factory.mktemp("outputs")
    (folder / "page.json").write_text(editor.export())
    (folder / "bare.json").write_text(json.dumps(bare))
    assert canonical(cli(folder / "page.json")) == page
    assert canonical(cli(folder / "bare.json")) == page
    memory = Memory(InMemoryStore())
    for i in ids:
        memory.store_node({"id": i, "content": f"card {i}"})
    for k, (a, b, t) in enumerate(arcs):
        if ids[a] != ids[b]:  # (the memory refuses a self-loop; κ ignores it anyway)
            memory.store_edge(
                {
                    "id": f"e{k}",
                    "source_id": ids[a],
                    "target_id": ids[b],
                    "edge_type": t if t in KAPPA_KINDS else "related",
                }
            )
    assert canonical(memory.analyze_topology({})) == page
