"""Edge polarity: a documented, optional field of causal and temporal edges, set
by menu and key, kept by every edit that does not change it, by documents, the clipboard and
the agent memory; refused with a message where it does not belong."""

from __future__ import annotations

import json
import re

import pytest
from bend_helpers import editor_with

from bendscope.bend.actions.commands import run
from bendscope.bend.editor.editor import Editor
from bendscope.bend.keys.routing import KeyEvent
from bendscope.bend.menus.catalog import edge_menu
from bendscope.bend.model.document import parse_document, serialize_document
from bendscope.bend.model.elements import Edge, EdgeProps
from bendscope.bend.persist.clipboard import copy_fragment, paste
from bendscope.bend.pointer.machine import Tools
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.shared.docformat import DocumentError
from tests.memory.core.test_service import business, memory_on


def _sign(editor: Editor, edge_id: str) -> str | None:
    return editor.plane.edges[edge_id].props.polarity


def test_documents_keep_polarity_and_stay_as_they_were_without_it():
    editor = editor_with([("a", "b"), ("b", "a")])
    plain = editor.export()
    assert '"polarity"' not in plain  # (a document without polarities is written as before)
    editor.set_edge("e0", polarity="+")
    editor.set_edge("e1", polarity="-")
    again = Editor(parse_document(editor.export()))
    assert (_sign(again, "e0"), _sign(again, "e1")) == ("+", "-")
    bare = {"nodes": ["a", "b"], "edges": [{"source": "a", "target": "b", "kind": "causal", "polarity": "−"}]}
    doc = parse_document(json.dumps(bare))
    assert next(iter(doc.active.edges.values())).props.polarity == "-"  # (the minus sign read as "-")


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"kind": "causal", "polarity": "plus"}, r"polarity: must be '\+' or '-', got 'plus'"),
        ({"kind": "causal", "polarity": 1}, r"polarity: must be '\+' or '-', got 1"),
        ({"kind": "context", "polarity": "+"}, "is for causal and temporal edges, not context"),
    ],
)
def test_a_wrong_polarity_is_refused_by_name(props, message):
    doc = json.loads(serialize_document(editor_with([("a", "b")]).doc))
    doc["planes"][0]["edges"][0]["props"].update(props)
    with pytest.raises(DocumentError, match=message):
        parse_document(json.dumps(doc))
    editor = Editor()
    before = editor.export()
    assert re.search(message, editor.load(json.dumps(doc)))
    assert editor.export() == before


def test_edits_keep_polarity_and_data_and_a_kind_without_polarity_drops_it():
    editor = editor_with([("a", "b")])
    plane = editor.plane
    old = plane.edges["e0"]
    with editor.transaction("data"):
        plane.replace_edge(Edge("e0", old.a, old.b, EdgeProps("", "causal", 2, "+"), {"memory": {"weight": 0.5}}))
    editor.set_edge("e0", label="drives", strength=4)
    edge = plane.edges["e0"]
    assert edge.props.polarity == "+" and edge.data == {"memory": {"weight": 0.5}}  # (data used to be dropped)
    editor.reverse_edge("e0")
    assert plane.edges["e0"].data == {"memory": {"weight": 0.5}} and _sign(editor, "e0") == "+"
    editor.set_edge("e0", kind="temporal")
    assert _sign(editor, "e0") == "+"
    editor.set_edge("e0", kind="associative")
    assert _sign(editor, "e0") is None
    with pytest.raises(ValueError, match="has no polarity"):
        editor.set_edge("e0", polarity="-")
    with pytest.raises(ValueError, match="polarity must be"):
        editor.set_edge("e0", kind="causal", polarity="x")
    assert plane.edges["e0"].props.kind == "associative"  # (a refused edit changes nothing)
    editor.undo()
    assert plane.edges["e0"].props.kind == "temporal" and _sign(editor, "e0") == "+"


def test_the_menu_and_the_key_set_polarity_on_causal_and_temporal_edges_only():
    editor = editor_with([("a", "b"), ("b", "c")])
    editor.set_edge("e1", kind="context")
    tools = Tools(editor)
    editor.select_edge("e0")
    for expected in ("+", "-", None, "+"):
        command = tools.key(KeyEvent("s"))
        assert command is not None and command.action_id == "polarity-cycle"
        run(editor, command.action_id, command.target)
        assert _sign(editor, "e0") == expected
    items = {item.item_id: item for item in edge_menu(editor, "e0")}
    assert items["polarity"].label == "Polarity: +"
    assert [(i.item_id, i.checked) for i in items["polarity"].submenu()] == [
        ("polarity-plus", True), ("polarity-minus", False), ("polarity-none", False)]  # fmt: skip
    assert "polarity" not in {item.item_id for item in edge_menu(editor, "e1")}
    editor.select_edge("e1")
    command = tools.key(KeyEvent("s"))
    assert command is None or run(editor, command.action_id, command.target) is None
    assert _sign(editor, "e1") is None


def test_the_clipboard_keeps_polarity():
    editor = editor_with([("a", "b"), ("b", "a")])
    editor.set_edge("e0", polarity="-")
    text = copy_fragment(editor, ["a", "b"])
    added = paste(editor, text, (400.0, 400.0))
    signs = sorted(str(e.props.polarity) for e in editor.plane.edges.values() if e.a in added and e.b in added)
    assert signs == ["-", "None"]


def test_the_agent_memory_keeps_polarity_both_ways():
    memory = memory_on(InMemoryStore())
    business(memory)
    edges = memory.store.all_edges()
    first = next(e for e in edges if (e.source_id, e.target_id) == ("market-share", "revenue"))
    memory.store_edge({"source_id": first.source_id, "target_id": first.target_id, "edge_type": first.edge_type,
                       "metadata": {"polarity": "+", "note": "kept"}})  # fmt: skip
    doc = memory.export_document()
    by_ends = {(e["a"], e["b"]): e for e in doc["planes"][0]["edges"]}
    assert by_ends[("market-share", "revenue")]["props"]["polarity"] == "+"
    assert "polarity" not in by_ends[("revenue", "r-and-d")]["props"]
    editor = Editor(parse_document(json.dumps(doc)))
    ids = {(e.a, e.b): e.id for e in editor.plane.edges.values()}
    editor.set_edge(ids[("revenue", "r-and-d")], polarity="-")
    editor.set_edge(ids[("market-share", "revenue")], polarity=None)
    memory.import_document(editor.export())
    after = {(e.source_id, e.target_id): e.metadata for e in memory.store.all_edges()}
    assert after[("revenue", "r-and-d")].get("polarity") == "-"
    assert "polarity" not in after[("market-share", "revenue")] and after[("market-share", "revenue")]["note"] == "kept"
