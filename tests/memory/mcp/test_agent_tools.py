"""The tools an agent expects: batch writes all or nothing with every wrong item
named, appending an observation, deleting many, every edge a page at a time, a response
budget, results not sent twice when large, loops named by their content, and
integer-valued numbers where integers are asked — on every backend."""

from __future__ import annotations

import json

import pytest

from bendscope.memory import InvalidInput, NotFound
from bendscope.memory.mcp.server import TEXT_LIMIT, text_of
from bendscope.memory.mcp.tools import BY_NAME, call
from tests.memory.core.test_service import memory_on


def test_store_many_stores_everything_in_one_call(store):
    memory = memory_on(store)
    nodes = [{"id": f"n{i}", "content": f"fact {i}"} for i in range(50)]
    edges = [{"source_id": f"n{i}", "target_id": f"n{(i + 1) % 50}", "edge_type": "causal"} for i in range(50)]
    answer = call(memory, "store_many", {"nodes": nodes, "edges": edges})
    assert answer["status"] == "stored" and len(answer["nodes"]) == 50 and len(answer["edges"]) == 50
    assert {a["status"] for a in answer["nodes"] + answer["edges"]} == {"created"}
    assert store.counts() == (50, 50)
    again = call(memory, "store_many", {"nodes": nodes})
    assert {a["status"] for a in again["nodes"]} == {"unchanged"}


def test_store_many_is_all_or_nothing_and_names_every_wrong_item(store):
    memory = memory_on(store)
    memory.store_node({"id": "kept", "content": "already here"})
    before = (store.counts(), store.get_node("kept"))
    batch = {
        "nodes": [{"id": "a", "content": "fine"}, {"id": "b"}, {"id": "c", "content": "fine", "confidence": 7}],
        "edges": [
            {"source_id": "a", "target_id": "nowhere", "edge_type": "related"},
            {"source_id": "a", "target_id": "kept", "edge_type": "causal"},
        ],
    }
    with pytest.raises(InvalidInput) as caught:
        call(memory, "store_many", batch)
    message = str(caught.value)
    assert "nothing was stored: 3 of the items are wrong" in message
    assert "nodes[1]: content is required" in message and "nodes[2]: confidence" in message
    assert "edges[0]:" in message and "nowhere" in message and "edges[1]" not in message
    assert (store.counts(), store.get_node("kept")) == before
    with pytest.raises(InvalidInput, match="give nodes and/or edges"):
        call(memory, "store_many", {})
    with pytest.raises(InvalidInput, match="must be a list of objects"):
        call(memory, "store_many", {"nodes": ["just text"]})


def test_store_many_refuses_one_node_id_given_twice_and_stores_nothing(store):
    memory = memory_on(store)
    memory.store_node({"id": "n1", "content": "kept"})
    before = (store.counts(), store.get_node("n1"), store.history(["n1"], []))
    nodes = [{"id": "n1", "content": "one"}, {"id": "n2", "content": "two"}, {"id": "n1", "content": "other"}]
    said = r"1 of the items are wrong: nodes\[2\]: the id 'n1' is given to nodes\[0\] too"
    for write in (memory.store_many, lambda given: call(memory, "store_many", given)):
        with pytest.raises(InvalidInput, match=said):
            write({"nodes": nodes})
        assert (store.counts(), store.get_node("n1"), store.history(["n1"], [])) == before


def test_append_observation(store):
    memory = memory_on(store)
    node = memory.store_node({"content": "Customer 28300 prefers email contact"})["node"]
    answer = call(memory, "append_observation", {"id": node["id"], "observation": "Confirmed by phone on 1 Dec."})
    assert answer["status"] == "appended"
    held = store.get_node(node["id"])
    assert held.content == "Customer 28300 prefers email contact\nConfirmed by phone on 1 Dec."
    assert held.created_at == node["created_at"] and held.updated_at != node["updated_at"]
    again = call(memory, "store_node", {"content": "Customer 28300 prefers email contact"})
    assert again == {"status": "unchanged", "id": node["id"], "merged_into": node["id"]}  # (a duplicate)
    assert store.get_node(node["id"]).content == held.content
    with pytest.raises(NotFound):
        call(memory, "append_observation", {"id": "nobody", "observation": "x"})
    with pytest.raises(InvalidInput, match="at most"):
        call(memory, "append_observation", {"id": node["id"], "observation": "y" * 99_990})
    assert store.get_node(node["id"]) == held


def test_delete_many_is_all_or_nothing(store):
    memory = memory_on(store)
    for i in range(5):
        memory.store_node({"id": f"n{i}", "content": f"fact {i}"})
    for i in range(4):
        memory.store_edge({"id": f"e{i}", "source_id": f"n{i}", "target_id": f"n{i + 1}"})
    with pytest.raises(NotFound, match="'ghost'"):
        call(memory, "delete_many", {"node_ids": ["n0"], "edge_ids": ["e1", "ghost"]})
    assert store.counts() == (5, 4)
    answer = call(memory, "delete_many", {"node_ids": ["n0", "n4"], "edge_ids": ["e1"]})
    assert answer == {"status": "deleted", "nodes": 2, "edges": 1, "edges_with_the_nodes": 2}
    assert store.counts() == (3, 1)


def test_list_edges_pages_through_every_edge(store):
    memory = memory_on(store)
    memory.store_many({"nodes": [{"id": f"n{i:03d}", "content": f"fact {i}"} for i in range(120)]})
    edges = [
        {"source_id": f"n{i:03d}", "target_id": f"n{j:03d}", "edge_type": "causal" if (i + j) % 2 else "related"}
        for i in range(0, 120, 3)
        for j in range(i + 1, min(i + 9, 120))
    ]
    memory.store_many({"edges": edges})
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = call(memory, "list_edges", {"limit": 37, "offset": offset})
        assert page["total"] == len(edges) and page["count"] == len(page["edges"]) <= 37
        seen += [e["id"] for e in page["edges"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == len(edges) and seen == sorted(seen)
    # query_graph lists only the edges among its page of nodes; list_edges finds those leaving it too
    inside = call(memory, "query_graph", {"limit": 10})["edges"]
    touching = call(memory, "list_edges", {"node_ids": [f"n{i:03d}" for i in range(10)], "limit": 1000})
    assert len(touching["edges"]) > len(inside)
    causal = call(memory, "list_edges", {"edge_type": "causal", "limit": 1000})
    assert causal["total"] == sum(1 for e in edges if e["edge_type"] == "causal")


def test_a_response_budget_bounds_what_large_nodes_send(store):
    memory = memory_on(store)
    for i in range(12):
        memory.store_node({"id": f"big{i:02d}", "content": f"revenue report {i} " + "word " * 19_000})
    answer = call(memory, "retrieve_context", {"query": "revenue report"})
    contents = [r["content"] for r in answer["results"]]
    assert answer["count"] == 10 and all(len(c) == 2_000 and c.endswith("…") for c in contents)
    assert sum(map(len, contents)) <= 40_000 and answer["truncated"] == 10
    assert all(r["truncated"] > 90_000 for r in answer["results"])
    assert len(json.dumps(answer)) < 60_000  # (~250k tokens before)
    small = call(memory, "retrieve_context", {"query": "revenue report", "max_chars": 100, "max_total_chars": 250})
    assert [len(r["content"]) for r in small["results"]][:4] == [100, 100, 50, 0]
    listed = call(memory, "query_graph", {"limit": 12, "max_chars": 10})
    assert listed["truncated"] == 12 and all(len(n["content"]) == 10 for n in listed["nodes"])
    whole = call(memory, "query_graph", {"node_ids": ["big00"], "max_chars": 100_000, "max_total_chars": 100_000})
    assert whole["truncated"] == 0 and len(whole["nodes"][0]["content"]) == len("revenue report 0 ") + 95_000


def _big_metadata(i: int) -> dict:
    return {"tag": f"t{i}", "notes": "n" * 16_000}  # (close to the 16 KB a metadata object may hold)


def test_the_budget_counts_metadata_and_edges_too(store):
    """Before, metadata (up to 16 KB a node or an edge) and edges were never cut: ten
    results carried 160 KB of metadata past a 40,000-character budget, and list_edges
    1,000 edges of 16 MB."""
    memory = memory_on(store)
    nodes = [{"id": f"m{i:02d}", "content": f"churn driver {i}", "metadata": _big_metadata(i)} for i in range(12)]
    nodes.append({"id": "small", "content": "churn driver small", "metadata": {"tag": "kept"}})
    edges = [
        {"id": f"e{i:02d}", "source_id": f"m{i:02d}", "target_id": f"m{(i + 1) % 12:02d}", "metadata": _big_metadata(i)}
        for i in range(12)
    ]
    memory.store_many({"nodes": nodes, "edges": edges})
    answer = call(memory, "retrieve_context", {"query": "churn driver", "limit": 13})
    assert len(json.dumps(answer)) < 45_000 and answer["truncated"] == 12
    small = next(r for r in answer["results"] if r["id"] == "small")
    assert small["metadata"] == {"tag": "kept"} and "metadata_omitted" not in small
    omitted = [r for r in answer["results"] if r["id"] != "small"]
    assert all(r["metadata"] == {} and r["metadata_omitted"] > 16_000 for r in omitted)
    assert all(r["content"].startswith("churn driver") and "truncated" not in r for r in omitted)
    listed = call(memory, "query_graph", {"limit": 20})
    assert len(json.dumps(listed)) < 45_000 and listed["truncated"] == 24 and listed["edges_total"] == 12
    paged = call(memory, "list_edges", {"limit": 1000})
    assert len(json.dumps(paged)) < 45_000 and paged["truncated"] == 12
    assert all(e["metadata"] == {} and e["metadata_omitted"] > 16_000 for e in paged["edges"])
    # asked for, all of it comes, in the order the answer lists it, and nothing more
    whole = call(memory, "list_edges", {"limit": 3, "max_chars": 20_000, "max_total_chars": 40_000})
    assert [e["metadata"] for e in whole["edges"][:2]] == [_big_metadata(0), _big_metadata(1)]
    assert whole["edges"][2]["metadata"] == {} and whole["truncated"] == 1
    one = call(memory, "query_graph", {"node_ids": ["m03"], "max_chars": 20_000})
    assert one["nodes"][0]["metadata"] == _big_metadata(3) and one["truncated"] == 0
    appended = call(memory, "append_observation", {"id": "m04", "observation": "seen again"})
    assert appended == {"status": "appended", "id": "m04", "length": len("churn driver 4\nseen again")}
    assert store.get_node("m04").metadata == _big_metadata(4)


def test_query_graph_lists_at_most_a_page_of_edges_and_says_how_many(store):
    memory = memory_on(store)
    memory.store_many({"nodes": [{"id": f"n{i:02d}", "content": f"fact {i}"} for i in range(48)]})
    pairs = [(i, j) for i in range(48) for j in range(48) if i != j][:1_100]
    for start in range(0, len(pairs), 1_000):
        chunk = pairs[start : start + 1_000]
        memory.store_many({"edges": [{"source_id": f"n{i:02d}", "target_id": f"n{j:02d}"} for i, j in chunk]})
    listed = call(memory, "query_graph", {"limit": 48})
    assert listed["edges_total"] == 1_100 and len(listed["edges"]) == 1_000
    assert [e["id"] for e in listed["edges"]] == sorted(e["id"] for e in listed["edges"])


def test_large_answers_are_not_sent_twice():
    small = {"status": "ok", "n": 1}
    assert text_of("t", small) == json.dumps(small, separators=(",", ":"))
    large = {"blob": "x" * (TEXT_LIMIT + 10)}
    text = text_of("t", large)
    assert len(text) < 300 and "structured content" in text
    # the hint names only arguments the tool takes (it named limit and max_total_chars for analyze_topology)
    assert "ask with fewer node_ids or a smaller limit to" in text_of("analyze_topology", large)
    assert "fewer node_ids or a smaller limit or a smaller max_total_chars" in text_of("query_graph", large)


def test_loops_are_named_by_their_content(store):
    memory = memory_on(store)
    memory.store_node({"id": "rev", "content": "Revenue follows market share and customer retention"})
    memory.store_node({"id": "rnd", "content": "R&D is funded from revenue"})
    memory.store_edge({"source_id": "rev", "target_id": "rnd", "edge_type": "causal"})
    memory.store_edge({"source_id": "rnd", "target_id": "rev", "edge_type": "causal"})
    found = call(memory, "retrieve_context", {"query": "why does R&D funding keep growing", "limit": 1})
    assert found["routing"] == "deliberate" and [r["id"] for r in found["results"]] == ["rnd"]
    # the members the results do not hold are named by their content
    assert found["loops"][0]["names"] == {"rev": "Revenue follows market share and customer retention"}
    assert found["topology"]["sccs"][0]["nodes"] == ["rev", "rnd"] and found["loops"][0]["scc"] == "scc-0"
    analysis = call(memory, "analyze_topology", {})
    assert 'rnd "R&D is funded from revenue"' in analysis["recommendation"]


def test_integer_valued_numbers_count_as_integers(store):
    memory = memory_on(store)
    for i in range(5):
        memory.store_node({"content": f"market note {i}"})
    assert call(memory, "retrieve_context", {"query": "market", "limit": 2.0})["count"] == 2
    assert call(memory, "query_graph", {"limit": 3.0, "offset": 1.0})["count"] == 3
    with pytest.raises(InvalidInput, match="whole number"):
        call(memory, "retrieve_context", {"query": "market", "limit": 2.5})


def test_every_tool_has_a_schema_for_its_arguments():
    for name in ("store_many", "append_observation", "delete_many", "list_edges"):
        assert BY_NAME[name].input_schema["type"] == "object"


def test_store_many_refuses_a_misspelt_field_as_store_node_does(store):
    """Adversarial run F9: {"confidance": 0.9, "metdata": {...}} was stored with the
    defaults, silently; store_node refuses the same item."""
    memory = memory_on(store)
    with pytest.raises(InvalidInput) as caught:
        call(memory, "store_many", {"nodes": [{"content": "typo node", "confidance": 0.9, "metdata": {"a": 1}}]})
    assert "nodes[0]: no field 'confidance'" in str(caught.value) and store.counts() == (0, 0)
    with pytest.raises(InvalidInput, match="no field 'created_at'"):
        call(memory, "store_many", {"nodes": [{"content": "x", "created_at": "1999-01-01T00:00:00.000Z"}]})
    with pytest.raises(InvalidInput, match="edges\\[0\\]: no field 'wieght'"):
        call(memory, "store_many", {"edges": [{"source_id": "a", "target_id": "b", "wieght": 2}]})
    from bendscope.memory.core.records import EDGE_FIELDS, NODE_FIELDS
    from bendscope.memory.core.service.writing import EDGE_KEYS, NODE_KEYS

    # an item takes what the tool takes, but the namespace: the call's
    assert {*NODE_FIELDS, *NODE_KEYS, "namespace"} == set(BY_NAME["store_node"].input_schema["properties"])
    assert {*EDGE_FIELDS, *EDGE_KEYS, "namespace"} == set(BY_NAME["store_edge"].input_schema["properties"])


def test_a_larger_max_chars_alone_gives_one_node_whole(store):
    """Second adversarial run: the README said a larger max_chars gives one node whole; it
    gave 40,000 characters and left out the metadata (max_total_chars kept its default)."""
    memory = memory_on(store)
    memory.store_node({"id": "big", "content": "y" * 99_000, "metadata": {"notes": "n" * 16_000}})
    whole = call(memory, "query_graph", {"node_ids": ["big"], "max_chars": 100_000})
    node = whole["nodes"][0]
    assert len(node["content"]) == 99_000 and node["metadata"] == {"notes": "n" * 16_000} and whole["truncated"] == 0


def test_an_answer_past_the_largest_is_refused_saying_how_to_ask():
    """Second adversarial run: a whole-graph analyze_topology over 60,000 long ids was a
    46 MB answer, and 12 clients that never read such answers took 2.8 GB."""
    from bendscope.memory.mcp.server import MAX_ANSWER, too_large

    assert too_large("analyze_topology", "x" * 1000) is None
    message = too_large("analyze_topology", "😀" * (MAX_ANSWER // 4 + 1))
    assert message is not None and "at most 8 MB" in message and "node_ids" in message
