"""The live page's ended cards and edges follow each delta (``bend.live.ended.ended_after``)
instead of being read from the whole served state again: after any deltas they equal
``ended_of`` of that state."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.live.delta import Remote, apply_to
from bendscope.bend.live.ended import ended_after, ended_of


def card(node_id: str, holds: bool) -> dict[str, Any]:
    return {"id": node_id, "text": f"text of {node_id}", "data": {"memory": {"holds": holds}}}


def edge(edge_id: str, a: str, b: str, holds: bool) -> dict[str, Any]:
    return {"id": edge_id, "a": a, "b": b, "props": {"kind": "causal"}, "data": {"memory": {"holds": holds}}}


STEP = st.lists(
    st.tuples(
        st.sampled_from(["card", "edge", "drop_card", "drop_edge"]), st.integers(0, 9), st.integers(0, 9), st.booleans()
    ),
    max_size=6,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=8))
def test_the_ended_items_follow_the_deltas(steps):
    remote = Remote(0)
    ended = ended_of(remote.document())
    serial = 0
    for step in steps:
        changes: dict[str, Any] = {"nodes": [], "edges": [], "removed_nodes": [], "removed_edges": []}
        nodes, edges = dict(remote.nodes), dict(remote.edges)
        for what, x, y, holds in step:
            serial += 1
            if what == "card":
                nodes[f"n{x}"] = card(f"n{x}", holds)
            elif what == "edge" and f"n{x}" in nodes and f"n{y}" in nodes:
                edges[f"e{serial % 7}"] = edge(f"e{serial % 7}", f"n{x}", f"n{y}", holds)
            elif what == "drop_card" and f"n{x}" in nodes:
                del nodes[f"n{x}"]
                for edge_id in [i for i, e in edges.items() if f"n{x}" in (e["a"], e["b"])]:
                    del edges[edge_id]
            elif what == "drop_edge" and edges:
                del edges[sorted(edges)[x % len(edges)]]
        changes["nodes"] = [n for i, n in nodes.items() if remote.nodes.get(i) != n]
        changes["edges"] = [e for i, e in edges.items() if remote.edges.get(i) != e]
        changes["removed_nodes"] = [i for i in remote.nodes if i not in nodes]
        changes["removed_edges"] = [i for i in remote.edges if i not in edges]
        remote = apply_to(remote, changes, remote.version + 1)
        ended = ended_after(ended, {"nodes": remote.nodes, "edges": remote.edges}, changes)
        assert ended == ended_of(remote.document())
