"""The layout driver: one layout engine per plane, card sizes, ticks, freezing."""

from __future__ import annotations

from bendscope.bend.editor.kappa_driver import KappaDriver
from bendscope.bend.layout.simulation import LayoutEngine
from bendscope.bend.model.elements import (
    Node,
    Plane,
)
from bendscope.bend.render.textlayout import PLACEHOLDER, TOUCH_PLACEHOLDER, CardLayout, Measure, layout_card


class LayoutDriver(KappaDriver):
    """The layout driver, a part of ``Editor``: each plane's layout engine and card sizes."""

    def sim(self, plane: Plane | None = None) -> LayoutEngine:
        plane = plane or self.plane
        sim = self._sims.get(plane.id)
        if sim is None or sim.plane is not plane:
            if sim is not None:
                sim.close()  # its plane object was replaced (an undone deletion re-creates it)
            sim = self._sims[plane.id] = self.layout_factory(plane, self.seed)
        return sim

    def _close_gone_sims(self) -> None:
        """Free the layout engines of planes no longer in the document."""
        for plane_id in [p for p in self._sims if p not in self.doc.planes]:
            self._sims.pop(plane_id).close()

    def _leaving(self) -> None:
        """The active plane is about to change: its layout waits until it is shown again."""
        sim = self._sims.get(self.doc.active_plane_id)
        if sim is not None:
            sim.pause()

    def card(self, node: Node) -> CardLayout:
        cached = self._cards.get(node.id)
        if cached is None or cached[0] != node.text:
            cached = (node.text, layout_card(node.text, self.measure, self.placeholder))
            self._cards[node.id] = cached
        layout = cached[1]
        node.width = layout.width
        node.height = layout.height
        return layout

    def refresh_sizes(self, plane: Plane) -> None:
        for node in plane.nodes.values():
            self.card(node)

    def set_measure(self, measure: Measure) -> None:
        """Switch text measuring (e.g. once the web font is loaded) and re-size cards."""
        self.measure = measure
        self._cards.clear()
        for plane in self.doc.planes.values():
            self.refresh_sizes(plane)
        self.needs_paint = True

    def set_touch(self, touch: bool) -> None:
        """Name the finger's gestures (``touch``) or the mouse's in what the cards say; O(cards)
        when it changes (the empty cards are laid out again), O(1) otherwise."""
        placeholder = TOUCH_PLACEHOLDER if touch else PLACEHOLDER
        if placeholder == self.placeholder:
            return
        self.placeholder = placeholder
        for node_id in [k for k, (text, _) in self._cards.items() if not text.strip()]:
            del self._cards[node_id]
        for plane in self.doc.planes.values():
            for node in plane.nodes.values():
                if not node.text.strip():
                    self.card(node)
        self.needs_paint = True

    def tick(self, budget_ms: float = 0.0) -> bool:
        """Layout steps of the active plane (one, or as many as fit ``budget_ms`` where the
        engine can); returns whether it still moves. Nothing moves while the layout is
        frozen (``layout_frozen``)."""
        if self.layout_frozen:
            return False
        sim = self.sim()
        if self._ticked is not None and self._ticked is not sim:
            self._ticked.pause()  # another plane is shown now: its layout waits until it is again
        self._ticked = sim
        moving = sim.step(budget_ms)
        if moving:
            self.needs_paint = True
            self._moved = True
        elif self._moved and not sim.active:  # it has just come to rest (a worker's step
            # with no new frame yet moved nothing, but the layout still runs)
            self._moved = False
            self.rests += 1
            self.needs_paint = True
        return moving

    def settle(self) -> int:
        """Run the active plane's layout to rest; returns the steps taken."""
        steps = self.sim().settle()
        self.rests += 1
        self.needs_paint = True
        return steps

    @property
    def animating(self) -> bool:
        return not self.layout_frozen and self.sim().active

    def set_layout_frozen(self, frozen: bool) -> None:
        """Freeze the layout (cards stay exactly where they are; drags still move them) or
        let it run again: a run that was going when frozen (a first layout) goes on; edits
        made while frozen move nothing, then or later."""
        if frozen:
            for sim in self._sims.values():
                sim.pause()
        self.layout_frozen = frozen
        self.needs_paint = True
