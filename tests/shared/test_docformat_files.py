"""Files as other programs write them: UTF-16/UTF-32 text led by a byte order mark
(Excel's "Unicode Text", Notepad's "Unicode"), networkx's ``node_link_data`` with integer
ids, and a bare graph's refusal naming the keys its file uses."""

from __future__ import annotations

import json

import pytest

from bendscope.shared.docformat import DocumentError, decode_file, read_document

TSV = "id\tlabel\nα\tcafé — 咖啡\n"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16"])
def test_unicode_text_with_a_byte_order_mark_is_read(encoding: str) -> None:
    data = ("\ufeff" + TSV).encode(encoding) if encoding != "utf-16" else TSV.encode("utf-16")
    assert decode_file(data) == TSV


def test_a_byte_order_marked_json_document_imports() -> None:
    data = '\ufeff{"nodes": ["a", "b"], "edges": [{"source": "a", "target": "b"}]}'.encode("utf-16-le")
    doc = read_document(decode_file(data))
    assert [c.id for c in doc.planes[0].nodes] == ["a", "b"]


def test_utf16_without_a_mark_is_refused_with_how_to_save_it() -> None:
    for encoding in ("utf-16-le", "utf-16-be"):
        with pytest.raises(DocumentError, match=r"UTF-16 .*save it as UTF-8"):
            decode_file(TSV.encode(encoding))


def test_broken_utf16_is_refused_with_how_to_save_it() -> None:
    data = "\ufeffab".encode("utf-16-le") + b"\x00\xd8" + "c".encode("utf-16-le")  # an unpaired surrogate
    with pytest.raises(DocumentError, match=r"not valid UTF-16 text.*save it as UTF-8"):
        decode_file(data)


def test_binary_files_are_still_refused_as_not_text() -> None:
    zip_head = b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xb5" + bytes(range(256)) * 4
    with pytest.raises(DocumentError, match="not text"):
        decode_file(zip_head)
    with pytest.raises(DocumentError, match="not text"):
        decode_file(b"\xff\xfe\x00\x01\x00\x00\x00\x00\x07\x00" + bytes(200))


def _refusal(graph: dict) -> str:
    with pytest.raises(DocumentError) as caught:
        read_document(json.dumps(graph))
    return str(caught.value)


def test_a_links_file_is_refused_under_links_with_its_own_end_names() -> None:
    nodes = [{"id": "a"}]
    assert _refusal({"nodes": nodes, "links": [{"source": "a", "target": "z"}]}).startswith("links[0].target: refers")
    assert _refusal({"nodes": nodes, "links": [{"from": "a", "to": "z"}]}).startswith("links[0].to: refers")
    assert _refusal({"nodes": nodes, "edges": [{"from": "z", "to": "a"}]}).startswith("edges[0].from: refers")
    assert _refusal({"nodes": nodes, "links": [{"source": "a", "target": "a", "kind": "x"}]}).startswith(
        "links[0].kind: must be one of"
    )
    assert _refusal({"nodes": nodes, "edges": [{"source": "a", "target": "z"}]}).startswith("edges[0].target: refers")


def test_an_edge_in_document_form_keeps_its_names() -> None:
    nodes = [{"id": "a"}]
    edge = {"id": "e", "a": "a", "b": "z"}
    assert _refusal({"nodes": nodes, "edges": [edge]}).startswith("edges[0].b: refers")
    edge = {"id": "e", "a": "a", "b": "a", "props": {"kind": "x"}}
    assert _refusal({"nodes": nodes, "links": [edge]}).startswith("links[0].props.kind: must be one of")


def test_networkx_node_link_data_with_integer_ids_imports() -> None:
    # as networkx.node_link_data(nx.DiGraph([(0, 1), (1, 2), (2, 0)])) writes it
    graph = {
        "directed": True,
        "multigraph": False,
        "graph": {},
        "nodes": [{"id": 0}, {"id": 1}, {"id": 2, "label": "two"}],
        "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2}, {"source": 2, "target": 0}],
    }
    plane = read_document(json.dumps(graph)).planes[0]
    assert [(c.id, c.text) for c in plane.nodes] == [("0", "0"), ("1", "1"), ("2", "two")]
    assert [(e.a, e.b) for e in plane.edges] == [("0", "1"), ("1", "2"), ("2", "0")]


def test_integer_ids_mix_with_strings_and_are_kept_apart_from_none() -> None:
    plane = read_document(
        json.dumps({"nodes": [7, "x", {"id": -3}], "edges": [{"from": 7, "to": -3, "id": 5}]})
    ).planes[0]
    assert [c.id for c in plane.nodes] == ["7", "x", "-3"]
    assert [(e.id, e.a, e.b) for e in plane.edges] == [("5", "7", "-3")]
    assert "duplicate node id '1'" in _refusal({"nodes": [1, "1"]})


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        ({"nodes": [{"id": True}]}, "nodes[0].id: must be a string or an integer, got true"),
        ({"nodes": [{"id": 1.5}]}, "nodes[0].id: must be a string or an integer, got 1.5"),
        (
            {"nodes": [0, 1], "links": [{"source": 0, "target": 1.0}]},
            "links[0].target: must be a string or an integer, got 1.0",
        ),
        (
            {"nodes": [0, 1], "edges": [{"from": False, "to": 1}]},
            "edges[0].from: must be a string or an integer, got false",
        ),
    ],
)
def test_boolean_and_fractional_ids_are_refused_by_name(graph: dict, message: str) -> None:
    assert _refusal(graph) == message
