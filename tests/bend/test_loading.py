"""A document read in slices (Editor.start_load): the same document as read at once, however
it is sliced; nothing of it is seen before it is whole; edits, undo and redo wait for it."""

from __future__ import annotations

import json
import sys

import pytest
from awkward_files import AWKWARD
from hypothesis import given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import LOADING, Editor
from bendscope.bend.editor.loading import LoadJob, run_to_end
from bendscope.bend.editor.loading import sliced as read_in_slices
from bendscope.bend.layout.forces import KernelAhead
from bendscope.bend.model.capacity import Capacity
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import serialize_document
from bendscope.bend.model.elements import Document
from bendscope.bend.render.sceneplan import ScenePlanner
from bendscope.bend.render.textlayout import approx_measure
from bendscope.kappa.steps import Steps
from bendscope.shared.docformat import DocumentError
from bendscope.shared.graphformats import read_graph, write_graph


def graph_text(n: int, arcs: list[tuple[int, int]], labels: bool = False) -> str:
    more = " with a longer text"
    nodes = [{"id": f"n{i}", "text": f"Card {i}" + (more * (i % 3) if labels else "")} for i in range(n)]
    edges = [{"source": f"n{a % n}", "target": f"n{b % n}", "kind": "causal"} for a, b in arcs]
    return json.dumps({"nodes": nodes, "edges": edges})


def sliced(editor: Editor) -> int:
    """Run the editor's load to its end in the smallest slices; how many it took."""
    slices = 0
    while editor.compute_load(0.0):
        slices += 1
    return slices + 1


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 400),
    arcs=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 10_000)), max_size=600),
    labels=st.booleans(),
)
def test_a_document_read_in_slices_is_the_document_read_at_once(n: int, arcs: list[tuple[int, int]], labels: bool):
    text = graph_text(n, arcs, labels)
    at_once = Editor(seed=3)
    assert at_once.load(text, label=None) is None
    in_slices = Editor(seed=3)
    in_slices.start_load(text, label=None)
    sliced(in_slices)
    assert in_slices.loading is None
    assert in_slices.export() == at_once.export()
    assert in_slices.capacity.size == len(serialize_document(in_slices.doc)) == at_once.capacity.size
    assert (in_slices.capacity.nodes, in_slices.capacity.edges) == (at_once.capacity.nodes, at_once.capacity.edges)
    for node in in_slices.plane.nodes.values():
        twin = at_once.plane.nodes[node.id]
        assert (node.width, node.height) == (twin.width, twin.height)
        assert in_slices.card(node) == at_once.card(twin)


def test_a_large_document_comes_in_many_slices():
    editor = Editor(seed=1)
    editor.start_load(graph_text(1_000, [(i, 7 * i + 1) for i in range(2_000)]), label=None)
    assert sliced(editor) > 20  # (a pause at least every 128 cards or edges read, checked or placed)
    assert len(editor.plane.nodes) == 1_000


def test_nothing_of_the_new_document_is_seen_before_it_is_whole():
    editor = Editor(demo_document(), seed=1)
    editor.add_node(5, 5, "before")  # (something to undo meanwhile)
    before = editor.export()
    editor.start_load(graph_text(300, [(i, i + 1) for i in range(600)]), label="Import")
    steps = 0
    while editor.loading is not None:
        assert editor.export() == before  # what is saved, shared and exported meanwhile: the old document, whole
        with pytest.raises(ValueError, match="still loading"):
            editor.add_node(0, 0, "meanwhile")
        with pytest.raises(ValueError, match="still loading"):
            editor.undo()
        assert editor.edit_refusal("Move node") == LOADING
        editor.compute_load(0.0)
        steps += 1
    assert steps > 3
    assert len(editor.plane.nodes) == 300
    assert editor.edit_refusal("Add node") is None
    made = editor.add_node(0, 0, "after")  # editable once whole
    assert made in editor.plane.nodes
    assert editor.undo() and editor.undo()  # the new card, then the import (one step)
    assert editor.export() == before


def test_a_refused_document_leaves_everything_as_it_was():
    editor = Editor(demo_document(), seed=1)
    before = editor.export()
    bad = json.dumps({"nodes": ["a"] * 300, "edges": []})
    expected = Editor(seed=1).load(bad, label=None)
    assert expected is not None and "duplicate" in expected
    job = editor.start_load(bad, label=None)
    sliced(editor)
    assert job.error == expected
    assert editor.export() == before
    assert editor.loading is None and editor.edit_refusal("Add node") is None


def test_the_latest_load_wins():
    editor = Editor(demo_document(), seed=1)
    first = editor.start_load(graph_text(200, []), label=None)
    editor.compute_load(0.0)
    second = editor.start_load(graph_text(3, [(0, 1)]), label=None)
    assert not first.pending and first.loaded is None  # dropped: nothing of it is kept
    sliced(editor)
    assert second.loaded is not None and sorted(editor.plane.nodes) == ["n0", "n1", "n2"]
    editor.start_load(graph_text(200, []), label=None)
    assert editor.load(graph_text(2, []), label=None) is None  # a load at once drops the running one
    assert editor.loading is None and sorted(editor.plane.nodes) == ["n0", "n1"]


def test_cards_measured_with_another_measure_are_measured_again():
    editor = Editor(seed=1)
    editor.start_load(graph_text(50, [], labels=True), label=None)
    editor.compute_load(0.0)

    def wider(text: str, font: str) -> float:
        return 2 * approx_measure(text, font)

    editor.set_measure(wider)  # (the web font came in meanwhile)
    sliced(editor)
    node = editor.plane.nodes["n7"]
    assert (
        editor.card(node).width == node.width
        and node.width
        > run_to_end(LoadJob(graph_text(50, [], labels=True), approx_measure))
        .loaded.doc.planes[editor.plane.id]
        .nodes["n7"]
        .width
    )


def test_capacity_in_steps_is_capacity_at_once():
    doc = demo_document()
    job = Capacity.steps(doc, chunk=1)
    while True:
        try:
            next(job)
        except StopIteration as done:
            capacity = done.value
            break
    assert capacity.size == Capacity(doc).size == len(serialize_document(doc))


def test_whoever_waits_for_a_load_is_told_once_how_it_ended():
    told: list[tuple[str, str | None]] = []
    editor = Editor(demo_document(), seed=1)
    editor.start_load(graph_text(200, []), label=None, done=lambda error: told.append(("first", error)))
    editor.compute_load(0.0)
    editor.start_load("[1, 2]", label=None, done=lambda error: told.append(("second", error)))
    assert told == [("first", "Another load replaced this one.")]
    sliced(editor)
    assert told[1][0] == "second" and told[1][1] is not None  # (refused: nothing changed)
    editor.start_load(graph_text(3, []), label=None, done=lambda error: told.append(("third", error)))
    sliced(editor)
    editor.start_load(graph_text(300, []), label=None, done=lambda error: told.append(("fourth", error)))
    assert editor.load(graph_text(2, []), label=None) is None  # (a load at once drops it too)
    assert told[2:] == [("third", None), ("fourth", "Another load replaced this one.")]


def test_the_steps_after_the_install_run_in_slices_of_their_own_before_the_waiter_is_told():
    """The page's first scene plan of a document coming in is sent in a slice of its own after
    the install's (``then``), and its waiter — who sets the view and paints — is told after it."""
    editor = Editor(demo_document(), seed=1)
    events: list[str] = []

    def then() -> Steps[None]:
        events.append(f"install slice: {len(editor.plane.nodes)} cards")
        yield
        events.append("plan slice")
        assert editor.edit_refusal("Edit text") == LOADING  # (edits still wait)

    editor.start_load(graph_text(200, []), label=None, then=then, done=lambda error: events.append(f"told {error}"))
    slices = []
    while editor.compute_load(0.0):
        slices.append(list(events))
    assert events == ["install slice: 200 cards", "plan slice", "told None"]
    assert slices[-2:] == [[], ["install slice: 200 cards"]]  # (read; installed; then the plan's slice)
    assert editor.loading is None and editor.edit_refusal("Edit text") is None
    # a load dropped during those steps was installed: its waiter is told so, and its steps stop
    events.clear()
    editor.start_load(graph_text(50, []), label=None, then=then, done=lambda error: events.append(f"told {error}"))
    while not events:
        editor.compute_load(0.0)
    editor.cancel_load()
    assert events == ["install slice: 50 cards", "told None"] and len(editor.plane.nodes) == 50


def compact_graph(n: int) -> tuple[list[dict], list[dict]]:
    """``n`` cards of short ids and texts, two edges each: a format's most compact file."""
    nodes = [{"id": f"n{i}", "text": f"C{i}"} for i in range(n)]
    edges = [{"a": f"n{i % n}", "b": f"n{(7 * i + 1) % n}", "props": {"kind": "causal"}} for i in range(2 * n)]
    return nodes, edges


@pytest.mark.parametrize("fmt", ["json", "csv", "graphml", "dot", "mermaid"])
def test_a_page_reads_a_document_of_150_cards_in_slices_and_a_small_one_at_once(fmt):
    for n, expected in ((150, True), (1_000, True), (20, False)):
        nodes, edges = compact_graph(n)
        if fmt == "json":
            bare = {
                "nodes": [node["id"] for node in nodes],
                "edges": [{"source": e["a"], "target": e["b"]} for e in edges],
            }
            text = json.dumps(bare, separators=(",", ":"))
        else:
            text = write_graph(nodes, edges, fmt)
        assert read_in_slices(text) is expected, (n, len(text))
        assert read_in_slices(text.encode(), "g." + {"mermaid": "mmd"}.get(fmt, fmt)) is expected


def calls_per_step(job: LoadJob) -> list[int]:
    """The function calls (Python and C) each step of ``job`` makes: its work, in units that
    do not depend on the machine."""
    counted = [0]

    def count(_frame: object, event: str, _arg: object) -> None:
        if event in ("call", "c_call"):
            counted[0] += 1

    calls = []
    going = True
    while going:
        counted[0] = 0
        sys.setprofile(count)
        try:
            going = job.advance(0.0)
        finally:
            sys.setprofile(None)
        calls.append(counted[0])
    return calls


def page_prepare(doc: Document) -> Steps[None]:
    """What the page makes ahead of a document's first frame in the load's slices (its first
    plan's edge and card arrays, the layout worker's graph)."""
    plane = doc.planes[doc.active_plane_id]
    yield from ScenePlanner().prepare_edges(plane, approx_measure)
    yield
    yield from KernelAhead.steps(plane, 8.0)


#: the most calls one step of a load may make: some 1–2 ms of CPython, a few in Pyodide
MOST_CALLS = 12_000


@pytest.mark.parametrize("fmt", ["json", "csv", "graphml", "dot", "mermaid"])
def test_no_step_of_importing_3000_cards_does_more_than_a_bounded_work(fmt):
    """(Some 8,000 calls a step at most, the page's preparation of the first frame included;
    read in one step, a 3,000-card file's reader alone made several hundred thousand, and
    the layout's graph was made in one step of 30,000.)"""
    nodes, edges = compact_graph(3_000)
    text = json.dumps({"nodes": nodes, "edges": edges}) if fmt == "json" else write_graph(nodes, edges, fmt)
    job = LoadJob(text, approx_measure, name=f"g.{fmt}", prepare=page_prepare)
    calls = calls_per_step(job)
    assert job.error is None and job.loaded is not None and len(job.loaded.cards) == 3_000
    assert max(calls) <= MOST_CALLS, (max(calls), len(calls))
    assert sum(calls) > 30 * MOST_CALLS  # (the whole load is much more work than any one step)


@pytest.mark.parametrize("name", sorted(AWKWARD))
def test_no_step_of_importing_an_awkward_file_does_more_than_a_bounded_work(name):
    """Files the exporter never writes: DOT ``{…} -> {…}`` groups (1,600 edges a statement),
    everything on one line, Mermaid ``&`` groups and a chain through every card, GraphML with
    40 attributes a card, CSV with quoted multi-line fields or long texts, unicode."""
    fmt, make = AWKWARD[name]
    job = LoadJob(make(2_000), approx_measure, name="g." + {"mermaid": "mmd"}.get(fmt, fmt), prepare=page_prepare)
    calls = calls_per_step(job)
    assert job.error is None and job.loaded is not None and len(job.loaded.cards) == 2_000
    assert max(calls) <= MOST_CALLS, (max(calls), calls.index(max(calls)), len(calls))


#: a file of each format whose fault is near its end (found many slices in), and the fault
LATE_FAULTS = {
    "csv": ("n1999,n5,causal,,+", "n1999,n5,causal,,up"),
    "graphml": ("</graph>", "<graph>"),
    "dot": ('polarity="+"', 'polarity="up"'),
    "mermaid": ('-->|"+"| n5', '-->|"+"| n5["'),
    "json": ('"polarity": "+"', '"polarity": "up"'),
}


@pytest.mark.parametrize("fmt", sorted(LATE_FAULTS))
def test_a_fault_late_in_any_format_is_refused_with_its_message_and_nothing_changes(fmt):
    nodes, edges = compact_graph(2_000)
    edges[-1] = {"a": "n1999", "b": "n5", "props": {"kind": "causal", "polarity": "+"}}
    good = json.dumps({"nodes": nodes, "edges": edges}) if fmt == "json" else write_graph(nodes, edges, fmt)
    where, fault = LATE_FAULTS[fmt]
    at = good.rindex(where)
    bad = good[:at] + fault + good[at + len(where) :]
    assert len(bad) - at < len(bad) // 10  # (the fault is in the last tenth of the file)
    editor = Editor(seed=2)
    before = editor.export()
    at_once = Editor(seed=2).load(bad, name=f"g.{fmt}")
    told: list[str | None] = []
    editor.start_load(bad, name=f"g.{fmt}", done=told.append)
    assert sliced(editor) > 20
    assert at_once is not None and told == [at_once], (told, at_once)
    assert editor.loading is None and editor.export() == before


def test_a_bad_file_read_in_slices_is_refused_with_read_graph_s_message_and_nothing_changes():
    nodes, edges = compact_graph(1_000)
    good = write_graph(nodes, edges, "dot")
    bad = good.replace("n999 [label", "n999 [label=", 1)  # (near the end: found many slices in)
    with pytest.raises(DocumentError) as refused:
        read_graph(bad, "dot")
    editor = Editor(seed=2)
    before = editor.export()
    told: list[str | None] = []
    editor.start_load(bad, name="g.dot", done=told.append)
    assert sliced(editor) > 20
    assert told == [str(refused.value)] and "DOT line" in told[0]
    assert editor.loading is None and editor.export() == before


def test_a_step_after_the_install_that_fails_ends_the_load_and_its_waiter_is_told():
    """The page's steps after the install (the worker's graph, the plan) raising: the document
    stays installed, the load ends (edits are no longer refused), the waiter is told — the
    automation API's promise resolves, Import's message shows — and the error goes on to be
    reported."""
    editor = Editor(demo_document(), seed=1)
    told: list[str | None] = []

    def then() -> Steps[None]:
        yield
        raise RuntimeError("the plan could not be sent")

    editor.start_load(graph_text(120, []), label=None, then=then, done=told.append)
    with pytest.raises(RuntimeError, match="plan could not be sent"):
        while editor.compute_load(0.0):
            pass
    assert told == [None] and editor.loading is None and len(editor.plane.nodes) == 120
    assert editor.edit_refusal("Edit text") is None

    def failing_at_once() -> Steps[None]:
        raise RuntimeError("no worker")
        yield

    told.clear()
    editor.start_load(graph_text(60, []), label=None, then=failing_at_once, done=told.append)
    with pytest.raises(RuntimeError, match="no worker"):
        while editor.compute_load(0.0):
            pass
    assert told == [None] and editor.loading is None and len(editor.plane.nodes) == 60


def test_a_text_file_of_no_format_it_reads_is_refused_naming_the_formats():
    """A notes.txt (none of the formats): refused by naming what Import… reads, not only as
    "Not JSON" (JSON is the last guess for a text of no known shape); nothing changes."""
    editor = Editor(demo_document(), seed=1)
    before = len(editor.plane.nodes)
    error = editor.load("Meeting notes\nrain causes floods\n", name="notes.txt")
    assert error is not None and "Import… reads" in error and "CSV" in error and "Mermaid" in error
    assert "not JSON" in error and len(editor.plane.nodes) == before
    broken = editor.load('{"nodes": [', name="graph.json")  # (JSON that is broken: said as before)
    assert broken is not None and broken.startswith("Not JSON")
