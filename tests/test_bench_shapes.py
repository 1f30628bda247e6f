"""The shape benchmark's graphs have the shapes it says, as the editor itself reads them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shape_graphs import (
    FORMATS,
    as_format,
    held_out_document,
    long_text_document,
    one_region_document,
    region_sizes,
    sparse_loops_document,
)

from bendscope.bend.editor.editor import Editor
from bendscope.bend.render.textlayout import approx_measure, layout_card
from bendscope.shared.graphformats import FORMATS as EDITOR_FORMATS


def editor_regions(text: str) -> tuple[Editor, list[int]]:
    """The editor's own loop regions (sizes, largest first) for a document text."""
    editor = Editor()
    assert editor.load(text, label=None) is None
    sccs = json.loads(editor.topology().json())["sccs"]
    return editor, sorted((len(s["nodes"]) for s in sccs), reverse=True)


def test_the_held_out_shape_has_one_region_of_1377_of_2000_cards():
    doc = held_out_document(2000)
    assert len(doc["nodes"]) == 2000 and len(doc["edges"]) == 4000
    _, regions = editor_regions(json.dumps(doc))
    assert regions == [1377] == region_sizes(doc)


def test_every_card_is_in_the_one_region():
    _, regions = editor_regions(json.dumps(one_region_document(2000)))
    assert regions == [2000]


def test_the_sparse_graph_has_many_small_loops_and_1_2_arcs_per_card():
    doc = sparse_loops_document(2000)
    editor, regions = editor_regions(json.dumps(doc))
    assert len(doc["edges"]) == 2400 and editor.stats()["edges"] == 2400
    assert regions == region_sizes(doc)
    assert max(regions) <= 6 and min(regions) >= 2 and sum(regions) == 2000  # (every card in a small loop)
    assert len(regions) >= 2000 // 6


def test_long_texts_are_cards_of_several_lines_on_the_held_out_graph():
    doc = long_text_document(2000)
    assert [(e["source"], e["target"]) for e in doc["edges"]] == [
        (e["source"], e["target"]) for e in held_out_document(2000)["edges"]
    ]
    lines = [len(layout_card(n["text"], approx_measure).lines) for n in doc["nodes"]]
    assert min(lines) >= 3 and sum(lines) / len(lines) >= 5
    assert all("\n" in n["text"] for n in doc["nodes"])


def test_the_formats_are_the_ones_the_editor_reads():
    assert set(FORMATS) == set(EDITOR_FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_import_format_gives_the_same_graph(fmt):
    doc = held_out_document(2000)
    editor, regions = editor_regions(as_format(doc, fmt))
    stats = editor.stats()
    assert (stats["nodes"], stats["edges"]) == (2000, 4000)
    assert regions == [1377]
    texts = sorted(n.text for n in editor.plane.nodes.values())
    assert texts == sorted(n["text"] for n in doc["nodes"])


@settings(max_examples=40, deadline=None)
@given(st.integers(10, 120), st.floats(0.05, 1.0), st.integers(0, 10_000))
def test_the_region_is_the_share_asked_for_at_any_size(n, share, seed):
    doc = held_out_document(n, share, seed=seed)
    assert region_sizes(doc) == [max(2, min(n, round(share * n)))]
    assert len({(e["source"], e["target"]) for e in doc["edges"]}) == len(doc["edges"]) == 2 * n


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 200), st.integers(0, 10_000))
def test_sparse_graphs_leave_no_card_alone(n, seed):
    doc = sparse_loops_document(n, seed=seed)
    regions = region_sizes(doc)
    assert sum(regions) == n and max(regions) <= 6


def test_the_same_seed_gives_the_same_document():
    assert held_out_document(500) == held_out_document(500)
    assert as_format(long_text_document(300), "graphml") == as_format(long_text_document(300), "graphml")
    assert held_out_document(500, seed=1) != held_out_document(500, seed=2)


def test_region_sizes_agree_with_the_editor_on_small_random_graphs():
    for seed in range(20):
        doc = held_out_document(60, 0.3 + seed / 40, arcs_per_card=1.5, seed=seed)
        doc["edges"] = doc["edges"][::2]  # (cut some loops open: several regions or none)
        _, regions = editor_regions(json.dumps(doc))
        assert region_sizes(doc) == regions
