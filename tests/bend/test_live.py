"""The live editor's sync (``bend.live.sync``) against the real memory service and its
``/api/write`` logic, in CPython: the page's steps carried out by hand (the page's driver
moves the same data over HTTP), the agent writing through the service in between."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from bendscope.bend.actions import commands
from bendscope.bend.editor.editor import Editor
from bendscope.bend.live import delta
from bendscope.bend.live.delta import Reads, Remote, apply_to, holding_changes
from bendscope.bend.live.sync import LiveSync, known_of
from bendscope.bend.model.elements import Edge, EdgeProps, Node, empty_document
from bendscope.memory.core.errors import InvalidInput
from bendscope.memory.core.service import Memory
from bendscope.memory.store.inmemory import InMemoryStore
from bendscope.memory.web.deltas import ViewLog
from bendscope.memory.web.editor_site import versioned
from bendscope.memory.web.page_writes import Stale, check_body, write


class Page:
    """An editor live on ``memory``: ``settle`` runs the sync's steps until none is left,
    as the page's driver does (writes through page_writes, fetches through export)."""

    def __init__(self, memory: Memory, positions: dict[str, Any] | None = None, log: ViewLog | None = None) -> None:
        self.memory = memory
        self.editor = Editor()
        self.sync = LiveSync(self.editor)
        self.refused: list[str] = []
        self.positions = positions
        self.log = log  # the server's versions: fetches after the first ask only for what changed
        self.deltas = 0
        self.settle()

    def answer(self) -> tuple[str, dict[str, Any]]:
        """What the server answers a fetch now: (its clock, ``/api/graph``'s JSON)."""
        at = self.memory.clock()  # (before reading, as the server's view answer does)
        answer: dict[str, Any] = {"document": self.memory.export_document()}
        if self.log is not None:
            answer = versioned(answer, self.log, self.sync.since())
        return at, json.loads(json.dumps(answer))  # (as it crosses the network)

    def twin(self) -> LiveSync:
        """A copy of the page and its sync state."""
        editor = Editor()
        assert editor.load(self.editor.export()) is None
        twin = LiveSync(editor)
        twin.base, twin.force, twin.refused = self.sync.base, set(self.sync.force), self.sync.refused
        return twin

    def take(self, at: str, answer: dict[str, Any]) -> None:
        """Bring a fetch's answer in, as the page's driver does."""
        if "changes" in answer:
            self.deltas += 1
            twin = self.twin()  # the same page, brought the whole memory at that version instead
            assert self.sync.remote is not None
            reads = Reads()  # (one reading of the delta's records for both views, as the page's driver)
            whole = document_of(apply_to(self.sync.remote, answer["changes"], answer["version"], reads))
            self.sync.fetched_changes(answer["changes"], answer["version"], at, reads)
            twin.fetched(whole, None, at)
            assert page_knowledge_of(twin.editor) == page_knowledge(self)
            assert twin.base == self.sync.base and twin.force == self.sync.force
        else:
            self.sync.fetched(answer["document"], self.positions, at, answer.get("version"))

    def settle(self, limit: int = 20) -> None:
        for _ in range(limit):
            step = self.sync.next_step()
            if step is None:
                return
            kind, ops = step
            if kind == "write":
                try:  # (through the server's own reading of the request, as over HTTP)
                    body = {"ops": ops, "seen_at": self.sync.seen_at}
                    write(self.memory, check_body(json.dumps(body).encode()))
                except InvalidInput as exc:  # (409 and 400: refused, nothing written)
                    self.refused.append(str(exc))
                    self.sync.wrote(ops, accepted=False, stale=isinstance(exc, Stale))
                else:
                    self.sync.wrote(ops, accepted=True)
            else:
                self.take(*self.answer())
        raise AssertionError("the sync did not settle")

    def text(self, node_id: str) -> str:
        return self.editor.plane.nodes[node_id].text


def memory_knowledge(memory: Memory) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    doc = memory.export_document()
    plane = doc["planes"][0]
    return (
        {n["id"]: n["text"] for n in plane["nodes"]},
        {e["id"]: (e["a"], e["b"], e["props"]["kind"]) for e in plane["edges"]},
    )


def page_knowledge(page: Page) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    known = known_of(page.editor.doc)
    return known.nodes, {k: (v["a"], v["b"], v["kind"]) for k, v in known.edges.items()}


def business(clock: Any = None) -> Memory:
    memory = Memory(InMemoryStore(), **({} if clock is None else {"clock": clock}))
    for node_id, text in (("q", "Product quality"), ("m", "Market share"), ("r", "Revenue")):
        memory.store_node({"id": node_id, "content": text})
    memory.store_edge({"id": "qm", "source_id": "q", "target_id": "m", "edge_type": "causal"})
    memory.store_edge({"id": "mr", "source_id": "m", "target_id": "r", "edge_type": "causal"})
    return memory


def test_the_page_opens_the_memory_and_the_persons_edits_reach_it():
    memory = business()
    page = Page(memory)
    assert page_knowledge(page) == memory_knowledge(memory)
    editor = page.editor
    new = editor.add_node(10, 10)  # a draft: nothing is written while it has no text
    page.settle()
    assert new not in memory_knowledge(memory)[0]
    editor.set_text(new, "R&D budget")
    edge = editor.add_edge("r", new, kind="causal")
    back = editor.add_edge(new, "q", kind="causal")
    editor.set_text("m", "Market share (EU)")
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory) and not page.refused
    assert memory.analyze_topology({})["max_kappa"] == 1  # the person closed a loop
    assert memory.store.get_node(new).source == "editor"  # type: ignore[union-attr]
    editor.delete_edge(edge)  # (break it again)
    editor.set_edge(back, kind="associative")
    page.settle()
    assert memory.analyze_topology({})["max_kappa"] == 0
    assert memory.store.get_edge(back).edge_type == "associative"  # type: ignore[union-attr]
    # undo is a write too
    editor.undo()
    editor.undo()
    page.settle()
    assert memory.analyze_topology({})["max_kappa"] == 1 and page_knowledge(page) == memory_knowledge(memory)
    editor.delete_nodes(["m"])
    page.settle()
    assert "m" not in memory_knowledge(memory)[0] and memory.store.get_edge("qm") is None


def test_bend_and_unbend_are_writes_through_the_same_checks():
    memory = business()
    page = Page(memory)
    editor = page.editor
    assert commands.run(editor, "bend", commands.Target(node_id="r")) is not None
    page.settle()
    assert memory.analyze_topology({})["max_kappa"] == 1
    commands.run(editor, "unbend", commands.Target(node_id="r"))
    page.settle()
    assert memory.analyze_topology({})["max_kappa"] == 0 and page_knowledge(page) == memory_knowledge(memory)


def test_the_agents_writes_arrive_keeping_camera_selection_and_positions():
    memory = business()
    page = Page(memory)
    editor = page.editor
    editor.settle()
    editor.pan_by(120, -40)
    editor.zoom_at(1.5)
    camera = editor.plane.camera.to_dict()
    editor.select(["q", "m"])
    where = {n.id: (n.x, n.y) for n in editor.plane.nodes.values()}
    # the agent: a new fact joined to revenue, a text edited, an edge closing the loop, one removed card
    memory.store_node({"id": "c", "content": "Customer trust"})
    memory.store_edge({"id": "rc", "source_id": "r", "target_id": "c", "edge_type": "causal"})
    memory.store_edge({"id": "cq", "source_id": "c", "target_id": "q", "edge_type": "causal"})
    memory.store_node({"id": "m", "content": "Market share, global"})
    page.sync.changed()
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory)
    assert editor.plane.camera.to_dict() == camera and editor.selection == ["q", "m"]
    assert all((editor.plane.nodes[i].x, editor.plane.nodes[i].y) == xy for i, xy in where.items())
    c, r, q = (editor.plane.nodes[i] for i in "crq")
    middle = ((r.x + q.x) / 2, (r.y + q.y) / 2)
    assert abs(c.x - middle[0]) <= 141 and abs(c.y - middle[1]) <= 141  # (beside its neighbours)
    assert editor.topology().max_kappa == 1 and not editor.history.can_undo  # (not the person's step)
    # the page's κ is the memory's for the same nodes
    assert editor.topology().max_kappa == memory.analyze_topology({})["max_kappa"]
    memory.delete_node("c")
    page.sync.changed()
    page.settle()
    assert "c" not in editor.plane.nodes and editor.topology().max_kappa == 0


def test_an_edit_conflicting_with_the_agents_is_refused_and_the_page_shows_the_memory():
    memory = business()
    page = Page(memory)
    memory.store_node({"id": "q", "content": "Quality, per the agent"})  # (the page has not heard yet)
    page.editor.set_text("q", "Quality, per the person")
    page.settle()
    assert page.refused and "was edited" in page.refused[0]
    assert memory.store.get_node("q").content == "Quality, per the agent"  # type: ignore[union-attr]
    assert page.text("q") == "Quality, per the agent"  # (the page now shows what the memory holds)
    # undoing the refused step would overwrite the agent's text: refused with a reason
    with pytest.raises(ValueError, match="Cannot undo “Edit text”: that card was changed in the memory since"):
        page.editor.undo()
    memory.delete_node("r")  # a card deleted by the agent: the person's edit of it is refused
    page.editor.set_text("r", "Revenue (net)")
    page.settle()
    assert "was deleted" in page.refused[-1] and "r" not in page.editor.plane.nodes


def test_a_refused_write_changes_nothing_in_the_memory():
    memory = Memory(InMemoryStore(), acyclic_types=("derived_from",))
    memory.store_node({"id": "a", "content": "A"})
    memory.store_node({"id": "b", "content": "B"})
    memory.store_edge({"id": "ab", "source_id": "a", "target_id": "b", "edge_type": "derived_from"})
    page = Page(memory)
    page.editor.set_text("a", "A, renamed")
    page.editor.add_edge("b", "a", kind="derived_from")  # (would close a cycle the memory refuses)
    before = memory.export_document()
    page.settle()
    assert page.refused and "cycle" in page.refused[0]
    assert memory.export_document() == before
    assert page_knowledge(page) == memory_knowledge(memory)


def test_positions_kept_for_the_memory_are_used_when_it_is_opened_again():
    memory = business()
    page = Page(memory, positions={"q": [500.0, 20.0], "m": [-30.0, 7.5], "zz": [1, 2], "r": ["x", 1]})
    nodes = page.editor.plane.nodes
    assert (nodes["q"].x, nodes["q"].y) == (500.0, 20.0) and (nodes["m"].x, nodes["m"].y) == (-30.0, 7.5)


class LiveMachine(RuleBasedStateMachine):
    """A person and an agent edit one memory at random; whenever the page has settled, the
    page shows exactly what the memory holds, and every write the memory accepted stands
    (a refusal is the only way a person's change does not reach it, and it is reported)."""

    deltas = False  # fetches ask for the whole memory

    def __init__(self) -> None:
        super().__init__()
        ticks = itertools.count()  # (a clock of its own: the same steps give the same memory every run)

        def clock() -> str:
            k = next(ticks)
            return f"2026-01-01T{k // 3_600_000:02d}:{k // 60_000 % 60:02d}:{k // 1000 % 60:02d}.{k % 1000:03d}Z"

        self.memory = business(clock)
        self.page = Page(self.memory, log=ViewLog(keep=3) if self.deltas else None)
        self.count = 0
        self.pending: tuple[str, dict[str, Any]] | None = None  # a fetch under way: (its clock, its state)

    def _fresh(self) -> str:
        self.count += 1
        return f"x{self.count}"

    def _cards(self) -> list[str]:
        return sorted(n for n, node in self.page.editor.plane.nodes.items() if node.text.strip())

    @rule(text=st.text(alphabet="abc ", min_size=1, max_size=6).filter(str.strip))
    def person_adds_a_card(self, text: str) -> None:
        node = self.page.editor.add_node(0, 0)
        self.page.editor.set_text(node, text)

    @precondition(lambda self: len(self._cards()) >= 2)
    @rule(data=st.data())
    def person_connects(self, data: st.DataObject) -> None:
        cards = self._cards()
        a = data.draw(st.sampled_from(cards))
        b = data.draw(st.sampled_from(cards))
        self.page.editor.add_edge(a, b, kind=data.draw(st.sampled_from(["causal", "related"])))

    @precondition(lambda self: bool(self._cards()))
    @rule(data=st.data())
    def person_edits_or_deletes(self, data: st.DataObject) -> None:
        card = data.draw(st.sampled_from(self._cards()))
        if data.draw(st.booleans()):
            self.page.editor.set_text(card, f"{self.page.text(card)}!")
        else:
            self.page.editor.delete_nodes([card])

    @precondition(lambda self: self.pending is None)
    @rule()
    def person_undoes(self) -> None:
        try:
            self.page.editor.undo()
        except ValueError as exc:
            assert "Cannot undo" in str(exc)

    @rule(text=st.text(alphabet="xyz", min_size=1, max_size=4))
    def agent_stores(self, text: str) -> None:
        known = sorted(memory_knowledge(self.memory)[0])
        node_id = self._fresh()
        self.memory.store_node({"id": node_id, "content": text})
        if known:
            self.memory.store_edge(
                {"id": f"e{node_id}", "source_id": node_id, "target_id": known[0], "edge_type": "causal"}
            )

    @precondition(lambda self: bool(memory_knowledge(self.memory)[0]))
    @rule(data=st.data())
    def agent_edits_or_deletes(self, data: st.DataObject) -> None:
        node_id = data.draw(st.sampled_from(sorted(memory_knowledge(self.memory)[0])))
        if data.draw(st.booleans()):
            self.memory.store_node({"id": node_id, "content": f"agent {self._fresh()}"})
        else:
            self.memory.delete_node(node_id)

    @precondition(lambda self: self.pending is None)
    @rule()
    def page_starts_a_step(self) -> None:
        """One step of the page's driver; a fetch stays under way while others act."""
        self.page.sync.changed()
        step = self.page.sync.next_step()
        if step is None:
            return
        if step[0] == "fetch":
            self.pending = self.page.answer()
            return
        try:
            write(self.memory, check_body(json.dumps({"ops": step[1], "seen_at": self.page.sync.seen_at}).encode()))
        except InvalidInput as exc:
            self.page.refused.append(str(exc))
            self.page.sync.wrote(step[1], accepted=False, stale=isinstance(exc, Stale))
        else:
            self.page.sync.wrote(step[1], accepted=True)

    @precondition(lambda self: self.pending is not None)
    @rule()
    def page_finishes_the_fetch(self) -> None:
        assert self.pending is not None
        at, answer = self.pending
        self.pending = None
        self.page.take(at, answer)

    @rule()
    def page_syncs(self) -> None:
        if self.pending is not None:
            self.page_finishes_the_fetch()
        self.page.sync.changed()
        self.page.settle()
        assert page_knowledge(self.page) == memory_knowledge(self.memory)

    @invariant()
    def refusals_say_why(self) -> None:
        assert all(("meanwhile" in why or "no node" in why) for why in self.page.refused), self.page.refused


LiveMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestLiveSync = LiveMachine.TestCase


class LiveDeltaMachine(LiveMachine):
    """The same, the page asking only for what changed since the version it has (a server that
    keeps 3 versions: a page further behind gets the whole memory again)."""

    deltas = True


LiveDeltaMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestLiveSyncByChanges = LiveDeltaMachine.TestCase


def page_knowledge_of(editor: Editor) -> tuple[dict[str, str], dict[str, tuple[str, str, str]]]:
    known = known_of(editor.doc)
    return known.nodes, {k: (v["a"], v["b"], v["kind"]) for k, v in known.edges.items()}


def test_a_merge_in_the_page_is_one_write_that_moves_the_edges():
    memory = business()
    memory.store_node({"id": "c", "content": "Cost"})
    memory.store_edge({"id": "cm", "source_id": "c", "target_id": "m", "edge_type": "causal"})
    page = Page(memory)
    page.editor.merge("q", "c")
    page.settle()
    assert not page.refused and memory.store.get_node("c") is None
    assert page_knowledge(page) == memory_knowledge(memory)


def test_a_refusal_costs_only_what_it_conflicted_with_and_edits_during_a_fetch_survive():
    memory = business()
    page = Page(memory)
    editor = page.editor
    memory.store_node({"id": "q", "content": "Quality, per the agent"})  # (not heard yet)
    editor.set_text("q", "Quality, per the person")
    fresh = editor.add_node(0, 0)
    editor.set_text(fresh, "An unrelated idea")
    page.settle()
    assert len(page.refused) == 1 and page.text("q") == "Quality, per the agent"
    assert memory.store.get_node(fresh) is not None  # (the unrelated card was written after the refusal)
    # an edit made while a fetch is under way is merged, not overwritten
    memory.store_node({"id": "r", "content": "Revenue, per the agent"})
    page.sync.changed()
    step = page.sync.next_step()
    assert step == ("fetch", [])
    document = memory.export_document()
    late = editor.add_node(10, 10)
    editor.set_text(late, "Typed while the state was on its way")
    page.sync.fetched(document)
    assert page.text(late) == "Typed while the state was on its way" and page.text("r") == "Revenue, per the agent"
    page.settle()
    assert memory.store.get_node(late) is not None and page_knowledge(page) == memory_knowledge(memory)


def test_undo_that_would_join_a_card_the_agent_deleted_is_refused():
    memory = business()
    page = Page(memory)
    page.editor.delete_edge("qm")
    page.settle()
    memory.delete_node("m")
    page.sync.changed()
    page.settle()
    with pytest.raises(ValueError, match="a card it joins was deleted in the memory since"):
        page.editor.undo()
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory)


def test_undo_that_would_leave_an_agents_edge_without_its_card_is_refused():
    """Undoing the person's new card after the agent joined an edge to it left that edge
    pointing at nothing (a document no editor could load again)."""
    memory = business()
    page = Page(memory)
    card = page.editor.add_node(0, 0)
    page.editor.set_text(card, "Prices")
    page.settle()
    memory.store_node({"id": "x", "content": "Demand"})
    memory.store_edge({"id": "xe", "source_id": "x", "target_id": card, "edge_type": "causal"})
    page.sync.changed()
    page.settle()
    with pytest.raises(ValueError, match="an edge joined that card in the memory since"):
        while page.editor.history.can_undo:
            page.editor.undo()
    assert Editor().load(page.editor.export()) is None
    page.settle()
    assert page_knowledge(page) == memory_knowledge(memory)


def test_undoing_the_deletion_of_an_agents_card_brings_back_its_fields():
    memory = business()
    memory.store_node({"id": "e", "content": "An observation", "node_type": "episodic", "confidence": 0.4,
                       "source": "agent-x"})  # fmt: skip
    memory.store_edge({"id": "er", "source_id": "e", "target_id": "r", "edge_type": "causal", "weight": 0.3})
    page = Page(memory)
    page.editor.delete_nodes(["e"])
    page.settle()
    assert memory.store.get_node("e") is None
    page.editor.undo()
    page.settle()
    node = memory.store.get_node("e")
    edge = memory.store.get_edge("er")
    assert node is not None and (node.node_type, node.confidence, node.source) == ("episodic", 0.4, "agent-x")
    assert edge is not None and edge.weight == 0.3


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d["planes"][0]["nodes"].append({"id": "q", "text": "again"}),
        lambda d: d["planes"][0]["nodes"].append({"id": "z", "text": 5}),
        lambda d: d["planes"][0]["edges"].append({"id": "zz", "a": "q", "b": "nowhere"}),
        lambda d: d["planes"][0]["edges"].append({"id": "zz", "a": "q", "b": "m", "props": {"kind": "telepathy"}}),
        lambda d: d.update(version=99),
        lambda d: d.update(planes="none"),
    ],
)
def test_a_damaged_state_from_the_server_changes_nothing_in_the_page(damage):
    from bendscope.bend.live.sync import bring_to
    from bendscope.shared.docformat import DocumentError

    memory = business()
    page = Page(memory)
    memory.store_node({"id": "c", "content": "Customer trust"})
    document = memory.export_document()
    damage(document)
    before = page.editor.export()
    with pytest.raises(DocumentError):
        bring_to(page.editor, document)
    assert page.editor.export() == before


def document_of(remote: Remote) -> dict[str, Any]:
    """The whole document a memory's records make (as ``/api/graph`` would send it)."""
    plane = {
        "id": "memory",
        "name": "Memory",
        "nodes": list(remote.nodes.values()),
        "edges": list(remote.edges.values()),
    }
    return {"format": "bendscope", "version": 1, "rootPlaneId": "memory", "activePlaneId": "memory", "planes": [plane]}


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["add", "kind", "label", "remove", "text"]), st.integers(0, 3)), max_size=25
    )
)
def test_the_knowledge_made_again_from_the_edge_views_before_is_the_knowledge_made_afresh(steps):
    doc = empty_document()
    plane = doc.root
    for k in range(4):
        plane.add_node(Node(f"n{k}", f"card {k}"))
    views: dict[str, Any] = {}
    for what, k in steps:
        edge_id = f"e{k}"
        edge = plane.edges.get(edge_id)
        if what == "add" and edge is None:
            plane.add_edge(Edge(edge_id, f"n{k}", f"n{(k + 1) % 4}"))
        elif what in ("kind", "label") and edge is not None:
            props = EdgeProps(**{**edge.props.to_dict(), what: "temporal" if what == "kind" else f"l{k}"})
            plane.replace_edge(Edge(edge.id, edge.a, edge.b, props, edge.data))
        elif what == "remove" and edge is not None:
            plane.remove_edge(edge_id)
        elif what == "text":
            plane.update_node(f"n{k}", text="" if plane.nodes[f"n{k}"].text else f"card {k}")
        assert known_of(doc, views) == known_of(doc)


def test_a_deltas_records_are_read_once_for_the_memorys_view_and_the_pages(monkeypatch):
    """The page applies a delta to the memory's whole view and to its own (the ended items
    left out), then merges it: each card and edge the delta brings is checked once, not once
    per view and again by the merge (the same result as reading them every time)."""
    memory = business()
    page = Page(memory, log=ViewLog())
    read: list[str] = []
    for name in ("read_card", "read_link"):
        real = getattr(delta, name)
        monkeypatch.setattr(delta, name, lambda raw, *rest, real=real: read.append(raw["id"]) or real(raw, *rest))
    for k in range(5):
        memory.store_node({"id": f"w{k}", "content": f"Observation {k}"})
        memory.store_edge({"id": f"e{k}", "source_id": "r" if k == 0 else f"w{k - 1}", "target_id": f"w{k}",
                           "edge_type": "causal"})  # fmt: skip
    memory.store_node({"id": "m", "content": "Market share, global"})
    at, answer = page.answer()
    assert "changes" in answer and page.sync.remote is not None
    remote = page.sync.remote
    served = Remote(remote.version, dict(remote.nodes), dict(remote.edges))  # (nothing ended: the same)
    reads = Reads()  # (as app.live_mode: the memory's view, then the page's)
    served = apply_to(served, answer["changes"], answer["version"], reads)
    changes = holding_changes(answer["changes"], page.sync.remote)
    brought = page.sync.fetched_changes(changes, answer["version"], at, reads)
    assert sorted(read) == sorted([*(f"w{k}" for k in range(5)), "m", *(f"e{k}" for k in range(5))])
    assert sorted(brought.added) == [f"w{k}" for k in range(5)] and brought.edited == ["m"]
    assert page_knowledge(page) == memory_knowledge(memory) and set(served.nodes) == set(memory_knowledge(memory)[0])
