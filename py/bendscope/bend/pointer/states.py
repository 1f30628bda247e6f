"""The pointer state machine's states, one class each: what a pointer move and a release do
in that state, and what the scene draws for it. :class:`~bendscope.bend.pointer.machine.Tools`
holds the current state and hands each event to it (the touches it tracks first)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.layout.simulation import LayoutEngine
from bendscope.bend.model.elements import Plane
from bendscope.bend.pointer.inputs import DRAG_THRESHOLD, HANDLE_RADIUS, TOUCH_SLOP, PointerInput, Response
from bendscope.bend.render.scene import InteractionView, LinkView

if TYPE_CHECKING:
    from bendscope.bend.pointer.machine import Tools


class PointerState:
    """A state: by default a move and a release change nothing and nothing is drawn."""

    name = ""

    def move(self, tools: Tools, event: PointerInput) -> Response:
        """A pointer moved (the touches are tracked already)."""
        return Response()

    def up(self, tools: Tools, event: PointerInput) -> Response:
        """A pointer was released (the touches are tracked already)."""
        return Response()

    def view(self, tools: Tools) -> InteractionView:
        """The handle, rubber band or connection the scene draws in this state."""
        return InteractionView()


@dataclass
class Idle(PointerState):
    name = "idle"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        """A mouse or pen hovering: the hovered card's handle shows."""
        if event.pointer_type == "touch":
            return Response()
        editor = tools.editor
        node = editor.node_at(event.x, event.y)
        hover = node.id if node is not None else None
        on_handle = tools.hover is not None and editor.handle_at(event.x, event.y, tools.hover, HANDLE_RADIUS)
        if on_handle:
            return Response(cursor="connecting")
        changed = hover != tools.hover
        tools.hover = hover
        if changed:
            editor.needs_paint = True  # the handle moves to the hovered card
        return Response(repaint=changed, cursor="over-node" if hover is not None else "")

    def view(self, tools: Tools) -> InteractionView:
        return InteractionView(handle=tools.handle_node())


@dataclass
class PointingNode(PointerState):
    pointer_id: int
    node_id: str
    start: tuple[float, float]  # the node's world position when pressed
    at: tuple[float, float]  # the pointer, screen px
    plane: Plane  # where the press happened (the drag ends there, whatever happens meanwhile)
    sim: LayoutEngine
    group: dict[str, tuple[float, float]] = field(default_factory=dict)  # every node the drag moves: start
    click: list[str] | None = None  # the selection a click (no drag) leaves
    origin: tuple[float, float] = (0.0, 0.0)  # where the pointer went down (long press)
    name = "pointing-node"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        """Past the threshold (a finger's is larger: it jitters) the press becomes a drag."""
        if tools.lost(self):
            tools.abandon()  # the plane changed or the node went away under the pointer
            return Response(repaint=True, cursor="")
        if event.pointer_id != self.pointer_id:
            return Response()
        threshold = TOUCH_SLOP if event.pointer_type == "touch" else DRAG_THRESHOLD
        if math.hypot(event.x - self.at[0], event.y - self.at[1]) < threshold:
            return Response()
        dragging = DraggingNode(self.pointer_id, self.node_id, self.start, self.at, self.plane, self.sim, self.group)
        tools.state = dragging
        return dragging.move(tools, event)

    def up(self, tools: Tools, event: PointerInput) -> Response:
        return _release_node(self, tools, event)


@dataclass
class DraggingNode(PointerState):
    pointer_id: int
    node_id: str
    start: tuple[float, float]
    at: tuple[float, float]
    plane: Plane
    sim: LayoutEngine
    group: dict[str, tuple[float, float]] = field(default_factory=dict)
    name = "dragging-node"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        """The held cards follow the pointer (recorded on release); their neighbours follow."""
        if tools.lost(self):
            tools.abandon()  # the plane changed or the node went away under the pointer
            return Response(repaint=True, cursor="")
        if event.pointer_id != self.pointer_id:
            return Response()
        editor = tools.editor
        zoom = editor.plane.camera.zoom
        dx, dy = (event.x - self.at[0]) / zoom, (event.y - self.at[1]) / zoom
        for node_id in self.group:
            node = self.plane.nodes.get(node_id)
            if node is not None:
                node.x += dx  # live position: recorded on drop
                node.y += dy
                node.vx = node.vy = 0.0
        self.at = (event.x, event.y)
        if not editor.layout_frozen:  # the neighbours follow; the rest of the graph stands still
            self.sim.reheat(around=self.group, moved=False)  # (only the held cards moved)
        editor.needs_paint = True
        return Response(repaint=True, cursor="dragging")

    def up(self, tools: Tools, event: PointerInput) -> Response:
        return _release_node(self, tools, event)


def _release_node(state: PointingNode | DraggingNode, tools: Tools, event: PointerInput) -> Response:
    """The press on a card ends: a drag is recorded (one step), a click selects."""
    if event.pointer_id != state.pointer_id:
        return Response()
    if tools.lost(state):  # nothing to record on a plane that is no longer shown
        tools.abandon()
        return Response(repaint=True, cursor="")
    state.sim.fixed.difference_update(state.group)
    state.sim.fixed.discard(state.node_id)
    tools.state = Idle()
    if isinstance(state, DraggingNode):
        nodes = state.plane.nodes
        moves = {n: (nodes[n].x, nodes[n].y) for n in state.group if n in nodes}
        tools.editor.move_nodes(moves, state.group)
    elif state.click is not None:
        tools.editor.select(state.click)
    return Response(repaint=True, cursor="over-node")


@dataclass
class Panning(PointerState):
    """A press on the empty canvas: moved past the threshold (a finger's slop on a touch
    screen), it pans and the selection stays (the inspector with it); released without, it was
    a click or a tap and clears the selection."""

    pointer_id: int
    at: tuple[float, float]
    origin: tuple[float, float] = (0.0, 0.0)
    panned: bool = False
    name = "panning"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        if event.pointer_id != self.pointer_id:
            return Response()
        tools.editor.pan_by(event.x - self.at[0], event.y - self.at[1])
        self.at = (event.x, event.y)
        threshold = TOUCH_SLOP if event.pointer_type == "touch" else DRAG_THRESHOLD
        if math.hypot(event.x - self.origin[0], event.y - self.origin[1]) > threshold:
            self.panned = True
        return Response(repaint=True)

    def up(self, tools: Tools, event: PointerInput) -> Response:
        if event.pointer_id != self.pointer_id:
            return Response()
        tools.state = Idle()
        if not self.panned:
            tools.editor.select([])  # (a click or a tap on the empty canvas)
        return Response(repaint=True, cursor="")


@dataclass
class Brushing(PointerState):
    pointer_id: int
    origin: tuple[float, float]  # screen px
    at: tuple[float, float]
    keep: list[str] = field(default_factory=list)  # the selection before (Shift adds to it)
    name = "brushing"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        if event.pointer_id != self.pointer_id:
            return Response()
        editor = tools.editor
        self.at = (event.x, event.y)
        found = editor.nodes_in_rect(*self.origin, *self.at)
        editor.select(list(dict.fromkeys([*self.keep, *found])))
        return Response(repaint=True)

    def up(self, tools: Tools, event: PointerInput) -> Response:
        if event.pointer_id != self.pointer_id:
            return Response()
        tools.state = Idle()
        return Response(repaint=True, cursor="")

    def view(self, tools: Tools) -> InteractionView:
        editor = tools.editor
        (ax, ay), (bx, by) = editor.screen_to_world(*self.origin), editor.screen_to_world(*self.at)
        return InteractionView(brush=(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))


@dataclass
class Connecting(PointerState):
    pointer_id: int
    source: str
    at: tuple[float, float]  # screen px
    plane: Plane
    target: str | None = None
    label: str = ""
    changes: bool = False
    kind: str | None = None  # the kind previewed: temporal with Alt held (as ``up`` makes it), else None
    name = "connecting"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        """The line follows the pointer; over another card it says what the edge does to κ."""
        if event.pointer_id != self.pointer_id:
            return Response()
        editor = tools.editor
        if editor.plane is not self.plane or self.source not in self.plane.nodes:
            tools.abandon()  # the source went away (cut, undo, another plane): nothing to connect
            return Response(repaint=True, cursor="")
        self.at = (event.x, event.y)
        node = editor.node_at(event.x, event.y)
        target = node.id if node is not None and node.id != self.source else None
        kind = "temporal" if event.alt else None
        if target != self.target or kind != self.kind:
            self.target, self.kind = target, kind
            self.label, self.changes = "", False
            if target is not None:
                preview = kappa_ui.connect_preview(editor, self.source, target, kind)
                self.label, self.changes = preview.label, preview.tone == kappa_ui.CHANGE_TONE
        editor.needs_paint = True
        return Response(repaint=True, cursor="connecting")

    def up(self, tools: Tools, event: PointerInput) -> Response:
        """Released on another card: the edge is added (Alt: a temporal one). Released on empty
        canvas: a new card there, joined by the edge, its text editor open (one step: Esc in the
        text editor takes both back) — as draw.io, Kumu and tldraw do."""
        if event.pointer_id != self.pointer_id:
            return Response()
        editor = tools.editor
        tools.state = Idle()
        # the gesture's handle goes with it: a mouse now hovers the card it was released on (or none)
        under = editor.node_at(event.x, event.y) if event.pointer_type != "touch" else None
        tools.hover = None if under is None else under.id
        made = None
        if editor.plane is self.plane and self.source in editor.plane.nodes:
            kind = "temporal" if event.alt else editor.connect_kind
            if self.target is not None:
                if editor.add_edge(self.source, self.target, kind=kind) is not None:
                    editor.select([self.target])
            elif editor.node_at(event.x, event.y) is None:  # (not back on the card it started from)
                with editor.transaction("Add node"):
                    made = editor.add_node(*editor.screen_to_world(event.x, event.y))
                    editor.add_edge(self.source, made, kind=kind)
        editor.needs_paint = True
        return Response(repaint=True, cursor="", edit_new=made)

    def view(self, tools: Tools) -> InteractionView:
        editor = tools.editor
        if self.source not in editor.plane.nodes:
            return InteractionView()
        to = editor.screen_to_world(*self.at)
        if self.target is not None and self.target in editor.plane.nodes:
            node = editor.plane.nodes[self.target]
            to = (node.x, node.y)
        link = LinkView(self.source, to, self.target, self.label, self.changes)
        return InteractionView(handle=self.source, link=link)


@dataclass
class Pinching(PointerState):
    distance: float
    middle: tuple[float, float]
    name = "pinching"

    def move(self, tools: Tools, event: PointerInput) -> Response:
        """Two fingers: the world point under their old midpoint ends up under the new one
        (zoom around the old midpoint, then follow the midpoint's move)."""
        if event.pointer_type != "touch" or event.pointer_id not in tools.touches or len(tools.touches) < 2:
            return Response()
        editor = tools.editor
        (x1, y1), (x2, y2) = list(tools.touches.values())[:2]
        distance = math.hypot(x2 - x1, y2 - y1)
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        if self.distance > 0 and distance > 0:
            editor.zoom_at(distance / self.distance, *self.middle)
        editor.pan_by(mx - self.middle[0], my - self.middle[1])
        tools.state = Pinching(distance, (mx, my))
        return Response(repaint=True)

    def up(self, tools: Tools, event: PointerInput) -> Response:
        if len(tools.touches) < 2:
            tools.state = Idle()
        return Response(repaint=True)


@dataclass
class EditingText(PointerState):
    node_id: str
    fresh: bool = False  # the node was created for this edit: cancelling discards it
    name = "editing-text"


#: the states of a gesture under way (a button or finger down): background searches wait for
#: them to end, so that their slices never take a drag's or a pan's frames
GESTURES = (
    PointingNode.name,
    DraggingNode.name,
    Panning.name,
    Brushing.name,
    Connecting.name,
    Pinching.name,
)
