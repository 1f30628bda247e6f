"""The selection: the cards, or the edge, selected on the active plane."""

from __future__ import annotations

from bendscope.bend.editor.editor_state import EditorState


class SelectionControl(EditorState):
    """The selection, a part of ``Editor``."""

    def _prune_selection(self) -> None:
        self.selection = [n for n in self.selection if n in self.plane.nodes]
        if self.selected_edge not in self.plane.edges:
            self.selected_edge = None

    def select(self, node_ids: list[str]) -> None:
        self.selection = [n for n in node_ids if n in self.plane.nodes]
        self.selected_edge = None
        self.needs_paint = True

    def select_edge(self, edge_id: str | None) -> None:
        self.selected_edge = edge_id if edge_id in self.plane.edges else None
        self.selection = []
        self.needs_paint = True
