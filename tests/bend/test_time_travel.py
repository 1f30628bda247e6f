"""The live page's time control, DOM-free (``bend.time_travel``), against the real memory service
and the answers its server gives the page (``memory.web``), in CPython: what holds is what the
page counts (its topology equals analyze_topology after every write and invalidation), the
slider's scale, the view at a moment, editing off away from now, and the diff's and a loop's
words."""

from __future__ import annotations

import datetime
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bendscope.bend.editor.editor import Editor
from bendscope.bend.live.ended import GHOST_CHARS, GHOST_H, GHOST_W, MAX_GHOSTS, Ghosts, ended_of, place, with_ghosts
from bendscope.bend.live.sync import LiveSync
from bendscope.bend.live.time_travel import (
    MAX_MARKS,
    Scale,
    Shown,
    closure_words,
    diff_rows,
    edit_refusal,
    highlighted,
    holding_only,
    read_time,
    say_time,
)
from bendscope.memory.core.service import Memory
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.web.editor_site import graph_view
from bendscope.memory.web.timeline import Moment, diff, loop_closure, moments


def clocked() -> Memory:
    """A memory whose clock moves one second per reading, from a fixed start."""
    ticks = iter(range(100_000))
    return Memory(InMemoryStore(), clock=lambda: f"2026-12-01T{10 + (t := next(ticks)) // 3600:02d}:"
                  f"{t // 60 % 60:02d}:{t % 60:02d}.000Z")  # fmt: skip


class Page:
    """A live page's editor and sync, fetching as the page's driver does: the server's
    ``/api/graph`` answer at the moment shown, with what does not hold left out."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.editor = Editor()
        self.sync = LiveSync(self.editor)
        self.shown = Shown()
        self.fetch()

    def fetch(self) -> dict[str, Any]:
        moment = Moment(**{"as_of": None, "known_at": None, **self.shown.query()})
        status, answer = graph_view(self.memory, None, moment=moment)
        assert status == 200
        kept, _ = holding_only(answer["document"])
        self.sync.fetched(kept, None, answer["at"])
        return answer

    def travel(self, shown: Shown) -> None:
        self.shown = shown
        self.editor.edit_guard = None if shown.live else lambda label: edit_refusal(self.shown, label)
        self.fetch()

    def topology(self) -> dict[str, Any]:
        return self.editor.topology().result


def the_memorys(memory: Memory, **times: str) -> dict[str, Any]:
    """analyze_topology's answer but for what only the agent's analysis adds."""
    found = memory.analyze_topology(dict(times))
    sccs = [{k: v for k, v in scc.items() if k != "feedback_arc_set"} for scc in found["sccs"]]
    return {k: v for k, v in found.items() if k != "recommendation"} | {"sccs": sccs}


def loop_memory() -> Memory:
    memory = clocked()
    memory.store_many({"nodes": [{"id": "x", "content": "Ice melts"}, {"id": "y", "content": "Albedo falls"}]})
    memory.store_edge({"id": "xy", "source_id": "x", "target_id": "y", "edge_type": "causal", "source": "agent-a"})
    memory.store_edge({"id": "yx", "source_id": "y", "target_id": "x", "edge_type": "causal", "source": "agent-b"})
    return memory


def test_an_ended_edge_leaves_the_pages_topology_and_travel_brings_it_back():
    memory = loop_memory()
    page = Page(memory)
    assert page.topology()["max_kappa"] == 1 and page.topology() == the_memorys(memory)
    closed = memory.history({"id": "yx"})["versions"][0]["recorded_at"]
    memory.invalidate_edge({"id": "yx"})
    answer = page.fetch()
    assert answer["view"]["ended"] == 1 and "yx" not in page.editor.plane.edges
    assert page.topology()["max_kappa"] == 0 and page.topology() == the_memorys(memory)
    assert page.sync.local_ops() == []  # (an ended edge left out is not a deletion of the person's)
    # the recorded axis: the memory as it was when the loop closed
    scale = Scale.of(moments(memory), "recorded")
    index = scale.index_of(closed)
    assert scale.stops[index] == closed and scale.shown(index) == Shown("recorded", closed)
    page.travel(scale.shown(index))
    assert "yx" in page.editor.plane.edges and page.topology() == the_memorys(memory, known_at=closed)
    assert page.topology()["max_kappa"] == 1
    # away from now, editing is refused (nothing written), moving is not
    with pytest.raises(ValueError, match="Editing is off"):
        page.editor.add_node(0, 0, "A new fact")
    with pytest.raises(ValueError, match="Editing is off"):
        page.editor.delete_edge("xy")
    page.editor.move_node("x", 50, 50)
    assert page.sync.local_ops() == []
    # the valid axis: the stop before the edge's end shows the loop; its end, none
    valid = Scale.of(moments(memory), "valid")
    assert valid.last == 2
    page.travel(valid.shown(0))
    assert page.topology()["max_kappa"] == 1
    page.travel(valid.shown(1))
    assert page.topology()["max_kappa"] == 0
    # back to now: the memory's state, and editable
    page.travel(Shown("valid"))
    assert page.topology() == the_memorys(memory) and page.editor.edit_guard is None
    page.editor.add_node(0, 0, "A new fact")
    assert [op["op"] for op in page.sync.local_ops()] == ["put_node"]


def test_the_diff_names_the_loop_that_broke_and_when_it_closed():
    memory = loop_memory()
    closed = memory.history({"id": "yx"})["versions"][0]["recorded_at"]
    memory.invalidate_edge({"id": "yx"})
    texts = {"x": "Ice melts", "y": "Albedo falls"}
    rows = diff_rows(diff(memory, Moment(known_at=closed), Moment()), texts)
    assert [row.kind for row in rows] == ["edges", "broke"]
    assert rows[0].text == "1 edge ended: yx" and rows[0].edges == ("yx",)
    assert rows[1].text.startswith("Loop broke (κ 1): “Albedo falls”, “Ice melts” — by yx: Albedo falls → Ice melts")
    assert "written by agent-b" in rows[1].text and rows[1].loop == ("x", "y")
    assert highlighted(rows) == ["x", "y"]
    named = diff_rows(diff(memory, Moment(known_at=closed), Moment()), texts, {"yx": ("y", "x")})
    assert named[0].text == "1 edge ended: yx (Albedo falls → Ice melts)" and named[0].nodes == ("y", "x")
    words = closure_words(loop_closure(memory, ["x", "y"], Moment(known_at=closed)), texts)
    assert words.startswith(f"The loop “Ice melts”, “Albedo falls” closed at {say_time(closed)}, by edge yx")
    assert "written by agent-b" in words
    # the other way round: the loop closed
    back = diff_rows(diff(memory, Moment(), Moment(known_at=closed)), texts)
    assert [row.kind for row in back] == ["edges", "closed"] and back[0].text == "1 edge added: yx"
    assert diff_rows(diff(memory, Moment(), Moment()), texts)[0].kind == "none"


def test_a_diff_names_cards_by_their_text_and_counts_what_it_does_not_name():
    answer = {
        "nodes": {"added": {"count": 12, "ids": [f"n{i}" for i in range(10)]}},
        "edges": {"changed": {"count": 11, "ids": [f"e{i}" for i in range(11)]}},
        "loops": {"closed": [{"nodes": ["a", "b"], "kappa": 1, "closed_by": []}]},
    }
    rows = diff_rows(answer, {"n0": "  The   first\ncard  ", "n1": "x" * 60})
    assert rows[0].text.startswith("12 cards added: “The first card”, “" + "x" * 39 + "…”, “n2”")
    assert rows[0].text.endswith("and 4 more") and len(rows[0].nodes) == 10
    assert rows[1].text == "11 edges changed: e0, e1, e2, e3, e4, e5, e6, e7 and 3 more"
    assert rows[2].text == "Loop closed (κ 1): “a”, “b”" and rows[2].loop == ("a", "b")


def test_a_loop_closed_since_its_cards_were_first_recorded_says_so():
    words = closure_words(
        {"nodes": ["a", "b"], "closed_at": None, "first_recorded": "2026-01-01T00:00:00.000Z", "closed_by": []}
    )
    assert words == "The loop “a”, “b” has been one since its cards were first recorded (2026-01-01 00:00:00 UTC)."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-01-31", "2026-01-31T00:00:00.000Z"),
        ("2026-01-31T12:30", "2026-01-31T12:30:00.000Z"),
        ("2026-01-31T12:30:05Z", "2026-01-31T12:30:05.000Z"),
        ("2026-01-31T12:30:05.5 UTC", "2026-01-31T12:30:05.500Z"),
        ("2026-01-31T00:30:00-0100", "2026-01-31T01:30:00.000Z"),
        ("2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000Z"),
        ("NOW", None),
        ("", None),
    ],
)
def test_a_typed_date_is_read_as_the_memory_writes_times(text, expected):
    assert read_time(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "2026-02-30", "2026-01-31T25:00", "31.01.2026"])
def test_a_date_that_is_not_one_is_refused_with_a_clear_message(text):
    with pytest.raises(ValueError, match="is not a date: write 2026-01-31"):
        read_time(text)


@given(st.datetimes(min_value=datetime.datetime(1900, 1, 1)))
def test_a_time_the_page_says_reads_back_as_the_same_time(when):
    iso = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    assert read_time(say_time(iso).removesuffix(" UTC")) == iso
    assert read_time(iso) == iso


def test_the_scale_marks_every_change_and_thins_its_ticks_evenly():
    history = {"now": "2026-12-02T00:00:00.000Z", "more": True, "valid": ["2027-01-01", "2026-06-01T00:00:00.000Z"],
               "moments": [{"at": f"2026-12-01T10:{m // 60:02d}:{m % 60:02d}.000Z", "changes": 1 + m % 3}
                           for m in range(1000)]}  # fmt: skip
    scale = Scale.of(history, "recorded")
    assert scale.last == 1000 and scale.more and scale.shown(5000).live and scale.shown(-3).at == scale.stops[0]
    assert scale.label(1000) == "now" and scale.label(2) == "2026-12-01 10:00:02 UTC (change 3 of 1000, 3 changes)"
    marks = scale.marks()
    assert len(marks) <= MAX_MARKS + 1 and marks[0] == 0 and marks[-1] == 1000 and marks == sorted(set(marks))
    valid = Scale.of(history, "valid")  # (a bound still to come is past the slider's end: now)
    assert valid.stops == ("2026-05-31T23:59:59.999Z", "2026-06-01T00:00:00.000Z")
    assert valid.label(1) == "2026-06-01 00:00:00 UTC (validity bound 2 of 2)"
    assert Scale.of({"now": "2026-12-02T00:00:00.000Z", "moments": [], "valid": []}, "valid").last == 0
    with pytest.raises(ValueError, match="the axis is one of recorded, valid"):
        Scale.of(history, "both")
    with pytest.raises(ValueError, match="the axis is one of"):
        Shown("when")


def test_the_moment_shown_says_where_it_is():
    assert Shown().query() == {} and Shown().words() == "now" and Shown().live
    past = Shown("recorded", "2026-01-01T00:00:00.000Z")
    assert past.query() == {"known_at": "2026-01-01T00:00:00.000Z"}
    assert past.banner() == (
        "Showing the memory as it was at 2026-01-01 00:00:00 UTC (what it knew then). "
        "Editing is off until you go back to now."
    )
    assert Shown("valid", "2026-01-01T00:00:00.000Z").query() == {"as_of": "2026-01-01T00:00:00.000Z"}
    for label in ("Move node", "Move nodes", "Pin", "Unpin", "Arrange left to right"):
        assert edit_refusal(past, label) is None
    for label in ("Edit text", "Connect", "Delete", "Merge", "Add node", "Edit edge"):
        assert edit_refusal(past, label) is not None and edit_refusal(Shown(), label) is None


def test_an_undo_away_from_now_is_refused_and_changes_nothing():
    memory = loop_memory()
    page = Page(memory)
    page.editor.set_text("x", "Sea ice melts")
    page.travel(Shown("recorded", memory.history({"id": "xy"})["versions"][0]["recorded_at"]))
    with pytest.raises(ValueError, match="Editing is off"):
        page.editor.undo()
    assert page.editor.history.undo_stack[-1].label == "Edit text"


def test_holding_only_leaves_what_it_cannot_read_to_the_documents_checks():
    document = {"format": "bendscope", "planes": ["not a plane", {"nodes": [{"id": "a"}, "odd"], "edges": None}]}
    kept, ended = holding_only(document)
    assert kept["planes"] == ["not a plane", {"nodes": [{"id": "a"}, "odd"], "edges": []}] and ended == []
    assert kept["format"] == "bendscope" and document["planes"][1]["edges"] is None  # (the answer is not changed)


WRITES = st.lists(
    st.tuples(st.sampled_from(["edge", "end-edge", "end-node", "node"]), st.integers(0, 4), st.integers(0, 4)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(WRITES)
def test_the_pages_topology_equals_analyze_topology_after_every_write_and_invalidation(writes):
    memory = clocked()
    memory.store_many({"nodes": [{"id": f"n{i}", "content": f"Fact {i}"} for i in range(5)]})
    page = Page(memory)
    for kind, a, b in writes:
        edge_id = f"e{a}{b}"
        if kind == "edge" and a != b and memory.store.get_nodes([f"n{a}", f"n{b}"]).keys() == {f"n{a}", f"n{b}"}:
            memory.store_edge({"id": edge_id, "source_id": f"n{a}", "target_id": f"n{b}", "edge_type": "causal"})
        elif kind == "end-edge" and any(e.id == edge_id for e in memory.store.all_edges()):
            memory.invalidate_edge({"id": edge_id})
        elif kind == "end-node" and f"n{a}" in memory.store.get_nodes([f"n{a}"]):
            memory.invalidate_node({"id": f"n{a}"})
        elif kind == "node":
            memory.store_node({"id": f"n{a}", "content": f"Fact {a}, again"})
        page.fetch()
        assert page.topology() == the_memorys(memory)
        assert page.sync.local_ops() == []


def test_ended_cards_and_edges_are_drawn_where_the_page_had_them_and_never_counted():
    memory = loop_memory()
    memory.store_node({"id": "z", "content": "Cloud cover over the pack ice, measured weekly"})
    memory.store_edge({"id": "yz", "source_id": "y", "target_id": "z", "edge_type": "associative"})
    page = Page(memory)
    memory.invalidate_node({"id": "y"})
    status, answer = graph_view(memory, None)
    assert status == 200
    cards, edges = ended_of(answer["document"])
    assert cards == {"y": "Albedo falls"} and edges == {"xy": ("x", "y", "causal"), "yx": ("y", "x", "causal"),
                                                       "yz": ("y", "z", "associative")}  # fmt: skip
    last = {n: (node.x, node.y) for n, node in page.editor.plane.nodes.items()}
    page.fetch()
    assert "y" not in page.editor.plane.nodes and page.topology() == the_memorys(memory)
    boxes = {i: (n.x, n.y, n.width, n.height) for i, n in page.editor.plane.nodes.items()}
    ghosts = place(boxes, cards, edges, last)
    (card,) = ghosts.cards
    assert (card.x + card.w / 2, card.y + card.h / 2) == pytest.approx(last["y"]) and card.text == "Albedo falls"
    assert [e.id for e in ghosts.edges] == ["xy", "yx", "yz"] and len(ghosts) == 4
    for edge in ghosts.edges:  # (from box edge to box edge, never inside a card)
        for x, y in ((edge.x1, edge.y1), (edge.x2, edge.y2)):
            inside = [i for i, (cx, cy, w, h) in {**boxes, "y": (*last["y"], GHOST_W, GHOST_H)}.items()
                      if abs(x - cx) < w / 2 - 0.01 and abs(y - cy) < h / 2 - 0.01]  # fmt: skip
            assert inside == [], (edge.id, inside)
    # without a place of its own, beside its neighbours; without either, not drawn (nor its edges)
    beside = place(boxes, cards, edges, {})
    assert len(beside.cards) == 1 and abs(beside.cards[0].x + GHOST_W / 2 - (boxes["x"][0] + boxes["z"][0]) / 2) <= 151
    assert place({}, {"q": "Alone"}, {"qr": ("q", "r", "causal")}, {}) == Ghosts()
    # the image: the same marks, over the graph and under the legend, text as text
    svg = with_ghosts('<svg xmlns="http://www.w3.org/2000/svg"><g id="cards"/><g id="legend"/></svg>', ghosts)
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert [g.get("id") for g in root.findall(f"{ns}g")] == ["cards", "ended", "legend"]
    assert [t.text for t in root.iter(f"{ns}text")] == ["Albedo falls"]
    assert {g.get("data-ended-edge") for g in root.iter(f"{ns}g") if g.get("data-ended-edge")} == {"xy", "yx", "yz"}
    assert with_ghosts("<svg/>", Ghosts()) == "<svg/>"


def test_an_ended_cards_long_text_is_cut_and_no_more_than_the_cap_is_drawn():
    cards = {f"c{i}": "A very long card text that goes on and on" for i in range(MAX_GHOSTS + 10)}
    ghosts = place({}, cards, {}, {i: (float(k), 0.0) for k, i in enumerate(cards)})
    assert len(ghosts.cards) == MAX_GHOSTS and ghosts.cards[0].text == "A very long card text t…"
    assert len(ghosts.cards[0].text) == GHOST_CHARS
