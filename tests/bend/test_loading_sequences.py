"""Sliced loads mixed at random with loads at once, cancels, bad documents, edits, undo and
redo: the editor ends every sequence where an editor doing the same at once ends (the
document, its κ topology and its history), and while a load runs nothing of it is seen."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from bendscope.bend.editor.editor import Editor
from bendscope.kappa import analyze


def document(n: int, shift: int) -> str:
    nodes = [{"id": f"n{i}", "text": f"Card {i} of {shift}"} for i in range(n)]
    edges = [{"source": f"n{i}", "target": f"n{(i * shift + 1) % n}", "kind": "causal"} for i in range(n)]
    return json.dumps({"nodes": nodes, "edges": edges})


DOCUMENTS = st.one_of(
    st.builds(document, st.integers(1, 300), st.integers(1, 5)),
    st.sampled_from(["[1, 2]", '{"nodes": ["a", "a"], "edges": []}', "not a graph", ""]),
)


def topology(editor: Editor) -> dict:
    plane = editor.plane
    edges = [{"source": e.a, "target": e.b, "kind": e.props.kind} for e in plane.edges.values()]
    return analyze(list(plane.nodes), edges)


class LoadingMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.editor = Editor(seed=1)
        self.twin = Editor(seed=1)  # does every step at once
        self.running: tuple[str, str | None] | None = None  # the sliced load under way: (text, label)
        self.shown = self.editor.export()

    @rule(text=DOCUMENTS, label=st.sampled_from(["Import", None]))
    def start_a_sliced_load(self, text: str, label: str | None) -> None:
        self.editor.start_load(text, label=label)
        self.running = (text, label)

    @rule(slices=st.integers(1, 3))
    def let_it_run(self, slices: int) -> None:
        for _ in range(slices):
            if not self.editor.compute_load(0.0):
                break
        if self.editor.loading is None and self.running is not None:
            text, label = self.running
            self.running = None
            self.twin.load(text, label=label)

    @rule()
    def cancel(self) -> None:
        self.editor.cancel_load()
        self.running = None

    @rule(text=DOCUMENTS)
    def load_at_once(self, text: str) -> None:
        assert (self.editor.load(text) is None) == (self.twin.load(text) is None)
        self.running = None

    @rule(text=st.text(alphabet="xyz", min_size=1, max_size=4))
    def add_a_card(self, text: str) -> None:
        if self.running is not None:  # (refused: test_loading)
            return
        self.editor.add_node(0, 0, text)
        self.twin.add_node(0, 0, text)

    @rule(redo=st.booleans())
    def undo_or_redo(self, redo: bool) -> None:
        stack = self.editor.history.redo_stack if redo else self.editor.history.undo_stack
        if self.running is not None and stack:
            with pytest.raises(ValueError, match="still loading"):
                self.editor.redo() if redo else self.editor.undo()
            return
        done = self.editor.redo() if redo else self.editor.undo()
        assert done == (self.twin.redo() if redo else self.twin.undo())

    @invariant()
    def same_as_at_once(self) -> None:
        if self.running is not None:
            assert self.editor.export() == self.shown  # (the document shown stays whole meanwhile)
            return
        assert self.editor.export() == self.twin.export()
        assert self.editor.topology().result == topology(self.editor)
        assert [e.label for e in self.editor.history.undo_stack] == [e.label for e in self.twin.history.undo_stack]
        self.shown = self.editor.export()


LoadingMachine.TestCase.settings = settings(
    max_examples=30, stateful_step_count=20, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestLoadingSequences = LoadingMachine.TestCase
