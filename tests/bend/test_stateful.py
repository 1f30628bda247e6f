"""A stateful property test of the Editor: random sequences of every action, with the
document's integrity checked after each step.

Invariants: ``export()`` parses and reloads to the same document; the cached topology
equals a fresh ``analyze``; undoing everything gives back the initial document and
redoing everything the latest one (checked by a rule at random moments and at the
end). Navigation (the active plane, cameras) and physics (velocities) are not
history, so they are left out of the comparison.
"""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bendscope.bend.actions import commands
from bendscope.bend.actions.commands import Target
from bendscope.bend.editor.editor import Editor
from bendscope.bend.kappa_view.topology_cache import plane_graph
from bendscope.bend.model.demo import demo_document
from bendscope.bend.model.document import parse_document
from bendscope.bend.model.elements import EDGE_KINDS
from bendscope.kappa import DEFAULT_EXACT_LIMIT, analyze

#: CI runs this many random programs (each up to STEPS actions); BENDSCOPE_STATEFUL_EXAMPLES raises it
EXAMPLES = int(os.environ.get("BENDSCOPE_STATEFUL_EXAMPLES", "500"))
STEPS = 40

TEXT = st.text(alphabet="ab #-\n*`", max_size=24)
PICK = st.integers(min_value=0, max_value=10_000)


def comparable(text: str) -> dict:
    """The exported document without navigation and physics."""
    data = json.loads(text)
    del data["activePlaneId"]
    for plane in data["planes"]:
        del plane["camera"]
        for node in plane["nodes"]:
            del node["vx"], node["vy"]
    return data


def import_text(pairs: list[tuple[int, int]], kinds: list[str]) -> str:
    nodes = sorted({f"n{a}" for pair in pairs for a in pair}) or ["n0"]
    edges = [
        {"source": f"n{a}", "target": f"n{b}", "kind": kinds[i % len(kinds)]}
        for i, (a, b) in enumerate(pairs)
        if a != b
    ]
    return json.dumps({"nodes": nodes, "edges": edges})


class EditorMachine(RuleBasedStateMachine):
    """Drives one Editor the way the menus, keys and automation API do (``commands.run``)."""

    @initialize(start=st.sampled_from(["demo", "empty"]))
    def start(self, start: str) -> None:
        self.editor = Editor(demo_document()) if start == "demo" else Editor()
        self.initial = comparable(self.editor.export())

    # -- helpers
    def node_ids(self) -> list[str]:
        return list(self.editor.plane.nodes)

    def edge_ids(self) -> list[str]:
        return list(self.editor.plane.edges)

    def node(self, i: int) -> str:
        ids = self.node_ids()
        return ids[i % len(ids)]

    def edge(self, i: int) -> str:
        ids = self.edge_ids()
        return ids[i % len(ids)]

    def run(self, action_id: str, target: Target, args: dict | None = None) -> None:
        before = self.editor.export()
        depth = len(self.editor.history.undo_stack)
        try:
            commands.run(self.editor, action_id, target, args or {})
        except ValueError:
            # a refused command (e.g. merging two planes' stargates) changes nothing
            assert self.editor.export() == before
            assert len(self.editor.history.undo_stack) == depth

    def has_nodes(self) -> bool:
        return bool(self.editor.plane.nodes)

    def has_edges(self) -> bool:
        return bool(self.editor.plane.edges)

    # -- rules: nodes
    @rule(x=st.integers(-600, 600), y=st.integers(-400, 400), stargate=st.booleans())
    def create(self, x: int, y: int, stargate: bool) -> None:
        self.run("new-stargate" if stargate else "new-node", Target(x=float(x), y=float(y)))

    @precondition(has_nodes)
    @rule(i=PICK, text=TEXT)
    def edit_text(self, i: int, text: str) -> None:
        self.run("edit-text", Target(node_id=self.node(i)), {"text": text})

    @precondition(has_nodes)
    @rule(i=PICK, dx=st.integers(-300, 300), dy=st.integers(-300, 300))
    def move(self, i: int, dx: int, dy: int) -> None:
        node = self.editor.plane.nodes[self.node(i)]
        self.editor.move_node(node.id, node.x + dx, node.y + dy, from_xy=(node.x, node.y))

    @precondition(has_nodes)
    @rule(picks=st.lists(PICK, max_size=6), everything=st.booleans())
    def select(self, picks: list[int], everything: bool) -> None:
        if everything:
            self.run("select-all", Target())
        else:
            self.editor.select(list(dict.fromkeys(self.node(i) for i in picks)))

    @precondition(has_nodes)
    @rule(dx=st.integers(-300, 300), dy=st.integers(-300, 300))
    def move_selection(self, dx: int, dy: int) -> None:
        nodes = self.editor.plane.nodes
        starts = {n: (nodes[n].x, nodes[n].y) for n in self.editor.selection}
        self.editor.move_nodes({n: (x + dx, y + dy) for n, (x, y) in starts.items()}, starts)

    @precondition(has_nodes)
    @rule()
    def pin_selection(self) -> None:
        self.run("pin-selection", Target())
        self.run("unpin-selection", Target())

    @precondition(has_nodes)
    @rule()
    def delete_selection(self) -> None:
        self.run("delete-selection", Target())

    @precondition(has_nodes)
    @rule(i=PICK)
    def delete_node(self, i: int) -> None:
        self.run("delete-node", Target(node_id=self.node(i)))

    @precondition(has_nodes)
    @rule(i=PICK)
    def pin_toggle(self, i: int) -> None:
        node_id = self.node(i)
        self.run("unpin" if self.editor.plane.nodes[node_id].pinned else "pin", Target(node_id=node_id))

    @precondition(has_nodes)
    @rule(i=PICK, to_stargate=st.booleans())
    def convert(self, i: int, to_stargate: bool) -> None:
        self.run("to-stargate" if to_stargate else "to-normal", Target(node_id=self.node(i)))

    @precondition(has_nodes)
    @rule(i=PICK)
    def fork(self, i: int) -> None:
        self.run("fork", Target(node_id=self.node(i)))

    @precondition(lambda self: len(self.editor.plane.nodes) > 1)
    @rule(i=PICK, j=PICK)
    def merge(self, i: int, j: int) -> None:
        keep, other = self.node(i), self.node(j)
        if keep != other:
            self.run("merge", Target(node_id=keep), {"with": other})

    # -- rules: edges
    @precondition(lambda self: len(self.editor.plane.nodes) > 1)
    @rule(i=PICK, j=PICK, kind=st.sampled_from(EDGE_KINDS))
    def connect(self, i: int, j: int, kind: str) -> None:
        self.run("connect", Target(node_id=self.node(i)), {"to": self.node(j), "kind": kind})

    @precondition(has_edges)
    @rule(i=PICK, kind=st.sampled_from(EDGE_KINDS))
    def change_kind(self, i: int, kind: str) -> None:
        self.run(f"kind-{kind}", Target(edge_id=self.edge(i)))

    @precondition(has_edges)
    @rule(i=PICK)
    def reverse(self, i: int) -> None:
        self.run("reverse-edge", Target(edge_id=self.edge(i)))

    @precondition(has_edges)
    @rule(i=PICK, label=TEXT, strength=st.integers(1, 5))
    def label_and_strength(self, i: int, label: str, strength: int) -> None:
        edge_id = self.edge(i)
        self.run("edit-label", Target(edge_id=edge_id), {"text": label})
        self.run(f"strength-{strength}", Target(edge_id=edge_id))

    @precondition(has_edges)
    @rule(i=PICK)
    def delete_edge(self, i: int) -> None:
        self.run("delete-edge", Target(edge_id=self.edge(i)))

    # -- rules: κ
    @precondition(has_nodes)
    @rule(i=PICK)
    def bend(self, i: int) -> None:
        self.run("bend", Target(node_id=self.node(i)))

    @precondition(has_nodes)
    @rule(i=PICK)
    def unbend(self, i: int) -> None:
        self.run("unbend", Target(node_id=self.node(i)))

    # -- rules: Arrange
    @precondition(has_nodes)
    @rule(direction=st.sampled_from(["LR", "TB"]), stale=st.booleans())
    def arrange(self, direction: str, stale: bool) -> None:
        """Arrange with a stand-in for the worker's answer (a diagonal); a stale answer (the
        plane changed meanwhile) is refused and changes nothing."""
        editor = self.editor
        job = editor.arrange_job(direction)
        xy = [v for k in range(len(job.ids)) for v in (200.0 * k, 90.0 * k)]
        if stale:
            editor.add_node(0.0, 0.0, "meanwhile")
            before = editor.export()
            try:
                editor.apply_arrangement(job, xy)
            except ValueError:
                assert editor.export() == before
                return
            raise AssertionError("a stale arrangement was applied")
        editor.apply_arrangement(job, xy)
        assert all(node.pinned for node in editor.plane.nodes.values())

    # -- rules: planes
    @precondition(has_nodes)
    @rule(i=PICK)
    def enter(self, i: int) -> None:
        self.run("enter-stargate", Target(node_id=self.node(i)))

    @precondition(lambda self: self.editor.plane.parent_plane_id is not None)
    @rule()
    def leave(self) -> None:
        parent = self.editor.plane.parent_plane_id
        assert parent is not None
        self.editor.go_to_plane(parent)

    # -- rules: files and history
    @rule(
        pairs=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=8),
        kinds=st.lists(st.sampled_from(EDGE_KINDS), min_size=1, max_size=3),
    )
    def import_graph(self, pairs: list[tuple[int, int]], kinds: list[str]) -> None:
        assert self.editor.load(import_text(pairs, kinds)) is None

    @rule()
    def undo(self) -> None:
        self.run("undo", Target())

    @rule()
    def redo(self) -> None:
        self.run("redo", Target())

    @rule()
    def time_travel(self) -> None:
        self.check_time_travel()

    def check_time_travel(self) -> None:
        """Undo everything (→ the initial document), redo everything (→ the latest one), and
        return to where we were (redo entries pending before are pending again)."""
        editor = self.editor
        latest = comparable(editor.export())
        redo_depth = len(editor.history.redo_stack)
        while editor.undo():
            pass
        assert comparable(editor.export()) == self.initial, "undo-all did not restore the initial document"
        while editor.redo():
            pass
        if redo_depth == 0:
            assert comparable(editor.export()) == latest, "redo-all did not restore the latest document"
        for _ in range(redo_depth):
            assert editor.undo()
        assert comparable(editor.export()) == latest

    # -- invariants
    @invariant()
    def export_reloads_identically(self) -> None:
        if not hasattr(self, "editor"):
            return
        text = self.editor.export()
        doc = parse_document(text)  # raises DocumentError on any broken reference
        assert Editor(doc).export() == text

    @invariant()
    def topology_is_fresh(self) -> None:
        if not hasattr(self, "editor"):
            return
        editor = self.editor
        for plane in editor.doc.planes.values():
            nodes, edges = plane_graph(plane)
            assert editor.topology(plane).result == analyze(nodes, edges, exact_limit=DEFAULT_EXACT_LIMIT)

    @invariant()
    def selection_topology_is_the_induced_subgraph(self) -> None:
        if not hasattr(self, "editor"):
            return
        editor = self.editor
        chosen = editor.selection_topology()
        if len(editor.selection) < 2:
            assert chosen is None
            return
        inside = set(editor.selection)
        _, edges = plane_graph(editor.plane)
        induced = [e for e in edges if e["source"] in inside and e["target"] in inside]
        expected = analyze(list(editor.selection), induced, exact_limit=DEFAULT_EXACT_LIMIT)
        assert chosen.result == expected

    @invariant()
    def selection_is_on_the_plane(self) -> None:
        if not hasattr(self, "editor"):
            return
        assert all(n in self.editor.plane.nodes for n in self.editor.selection)
        assert self.editor.selected_edge is None or self.editor.selected_edge in self.editor.plane.edges

    def teardown(self) -> None:
        if hasattr(self, "editor"):
            self.check_time_travel()


EditorMachine.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEditorMachine = EditorMachine.TestCase
