"""The memory and the editor work on the same graph: export → editor → import gives back
the same store, the editor's topology equals ``analyze_topology``, a person's document
comes in with sensible defaults, and a bad document changes nothing."""

from __future__ import annotations

import json

import pytest

from bendscope.bend.editor.editor import Editor
from bendscope.bend.model.document import document_from_data, parse_document
from bendscope.memory import InvalidInput, MemoryNode
from bendscope.memory.io.documents import strength_to_weight, weight_to_strength
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.store.sqlite import SQLiteStore
from tests.memory.core.test_service import business, dump, memory_on


def facts(store) -> str:
    """The store's nodes and edges apart from when they were recorded (an import records its
    versions when it happens)."""
    blank = {"recorded_at": "", "recorded_until": None}
    nodes = store.get_nodes(store.node_ids())
    return json.dumps([n.to_dict() | blank for n in nodes.values()] + [e.to_dict() | blank for e in store.all_edges()])


def test_store_editor_store_round_trip(tmp_path):
    first = memory_on(SQLiteStore(tmp_path / "a.sqlite3"))
    business(first)
    first.store_node({"id": "revenue", "confidence": 0.8, "node_type": "episodic", "metadata": {"q": [1, "two"]}})
    first.store_edge({"source_id": "ceo-alice", "target_id": "company", "edge_type": "derived_from", "weight": 0.25})
    first.retrieve_context({"query": "revenue"})  # access counts and activation times to carry over
    doc = first.export_document()
    editor = Editor(document_from_data(json.loads(json.dumps(doc))))
    editor.settle()  # the person's editor lays it out and saves it
    saved = editor.export()
    second = memory_on(InMemoryStore())
    summary = second.import_document(saved)
    assert summary["nodes"] == 8 and summary["nodes_created"] == 8 and summary["edges"] == 10
    assert facts(second.store) == facts(first.store) and dump(second.store) != dump(first.store)
    # importing the same document again changes nothing, its times of recording included
    before = dump(second.store)
    again = second.import_document(saved)
    assert again["nodes_created"] == 0 and again["nodes_updated"] == 0 and dump(second.store) == before


def test_the_editor_and_the_server_agree_on_kappa():
    memory = memory_on(InMemoryStore())
    business(memory)
    memory.store_node({"id": "extra", "content": "an isolated fact"})
    editor = Editor(parse_document(json.dumps(memory.export_document())))
    server = memory.analyze_topology({})
    sccs = [{k: v for k, v in scc.items() if k != "feedback_arc_set"} for scc in server["sccs"]]  # (the agent's)
    assert editor.topology().result == {k: v for k, v in server.items() if k != "recommendation"} | {"sccs": sccs}
    part = memory.export_document({"node_ids": ["revenue", "r-and-d", "company"]})
    assert {n["id"] for n in part["planes"][0]["nodes"]} == {"revenue", "r-and-d", "company"}
    assert [e["a"] + ">" + e["b"] for e in part["planes"][0]["edges"]] == ["revenue>r-and-d"]


def test_edits_made_in_the_editor_come_back():
    memory = memory_on(InMemoryStore())
    business(memory)
    editor = Editor(parse_document(json.dumps(memory.export_document())))
    editor.set_text("revenue", "Revenue: what we earn")
    fault = next(e for e in editor.plane.edges.values() if (e.a, e.b) == ("product-quality", "market-share"))
    editor.delete_edge(fault.id)  # Unbend by hand
    drives = next(e for e in editor.plane.edges.values() if (e.a, e.b) == ("market-share", "revenue"))
    editor.set_edge(drives.id, label="drives")
    person = editor.add_node(0, 0, "A person's note")
    editor.add_edge(person, "revenue", kind="supports", strength=5)
    before = memory.store.get_node("revenue")
    memory.import_document(editor.export())
    after = memory.store.get_node("revenue")
    assert after.content == "Revenue: what we earn" and after.updated_at > before.updated_at
    assert after.created_at == before.created_at and after.access_count == before.access_count
    note = memory.store.get_node(person)
    assert (note.node_type, note.confidence, note.source) == ("semantic", 1.0, "editor")
    supports = [e for e in memory.store.all_edges() if e.edge_type == "supports"]
    assert len(supports) == 1 and supports[0].weight == 1.0
    labelled = memory.store.get_edge(drives.id)
    assert labelled.metadata == {"label": "drives"}  # the drawn label is the edge's metadata "label"
    exported = memory.export_document()["planes"][0]["edges"]
    assert next(e for e in exported if e["id"] == drives.id)["props"]["label"] == "drives"
    # a plain import upserts: the edge deleted in the editor is still in the store …
    assert memory.analyze_topology({})["max_kappa"] == 1
    editor.delete_nodes(["ceo-alice"])
    summary = memory.import_document(editor.export(), replace=True)  # … an import with replace mirrors it
    assert (summary["nodes_deleted"], summary["edges_deleted"]) == (1, 2)
    assert memory.analyze_topology({})["max_kappa"] == 0
    assert Editor(parse_document(json.dumps(memory.export_document()))).topology().result == (editor.topology().result)


def test_a_bad_document_changes_nothing():
    memory = memory_on(InMemoryStore())
    business(memory)
    before = dump(memory.store)
    for text in ("not json", '{"nodes": ["a"], "edges": [{"source": "a", "target": "ghost"}]}', "[" * 100_000):
        with pytest.raises(InvalidInput, match="not a usable Bendscope document"):
            memory.import_document(text)
    bad_data = {"nodes": [{"id": "z", "text": "z", "data": {"memory": {"confidence": 7}}}]}
    with pytest.raises(InvalidInput, match="node 'z': confidence must be between 0 and 1"):
        memory.import_document(json.dumps(bad_data))
    assert dump(memory.store) == before


def test_strength_and_weight():
    assert [weight_to_strength(strength_to_weight(s)) for s in range(1, 6)] == [1, 2, 3, 4, 5]


def test_exports_past_what_the_editor_opens_are_refused():
    memory = memory_on(InMemoryStore())
    with memory.store.transaction():
        for i in range(20_001):
            memory.store.put_node(MemoryNode(f"n{i}", "x", created_at="t", updated_at="t"))
    with pytest.raises(InvalidInput, match="the editor opens at most 20,000 nodes"):
        memory.export_document()


def test_edge_labels_the_editor_cannot_draw_survive_the_round_trip():
    """Adversarial run F6: export → import lost an edge's metadata "label" that was not
    text ({"label": 12345}) or longer than 500 characters (drawn as "", then taken as the
    person having cleared it)."""
    first = memory_on(InMemoryStore())
    for node_id in ("a", "b", "c", "d"):
        first.store_node({"id": node_id, "content": f"fact {node_id}"})
    odd = [
        {"id": "e1", "source_id": "a", "target_id": "b", "metadata": {"label": 12345}},
        {"id": "e2", "source_id": "b", "target_id": "c", "metadata": {"label": "L" * 600, "k": "v"}},
        {"id": "e3", "source_id": "c", "target_id": "d", "metadata": {"label": "drives"}},
    ]
    first.store_many({"edges": odd})
    second = memory_on(InMemoryStore())
    second.import_document(json.dumps(first.export_document()))
    assert facts(second.store) == facts(first.store)
    # a label changed in the editor still replaces the metadata's (even one it could not draw)
    doc = first.export_document()
    for edge in doc["planes"][0]["edges"]:
        edge["props"]["label"] = {"e1": "new", "e2": "", "e3": "drives"}[edge["id"]]
    third = memory_on(InMemoryStore())
    third.import_document(json.dumps(doc))
    labels = {e: third.store.get_edge(e).metadata for e in ("e1", "e2", "e3")}
    assert labels == {"e1": {"label": "new"}, "e2": {"label": "L" * 600, "k": "v"}, "e3": {"label": "drives"}}
