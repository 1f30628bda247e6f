"""Pointer and keyboard interaction as a state machine (tldraw's tools), DOM-free.

The browser layer turns DOM events into plain records (:class:`PointerInput`,
wheel deltas, double-clicks, context-menu requests, :class:`~bend.keys.KeyEvent`)
and carries out what comes back (:class:`Response`, :class:`Request`). All the
decisions live here, so they are tested under CPython.

States::

    Idle ──down on node──▶ PointingNode ──moved ≥ 3 px──▶ DraggingNode ──up──▶ Idle (move recorded)
      │                          └──up──▶ Idle (a click: the node stays selected)
      ├──down on background──▶ Panning ──up──▶ Idle
      ├──second touch──▶ Pinching ──a finger lifts──▶ Idle
      └──text editor opens──▶ EditingText ──closes──▶ Idle

``cancel`` (the browser took the pointer away) puts a dragged node back where the
drag started; nothing is recorded. A second finger during a drag cancels the drag
the same way and starts a pinch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .actions import Target
from .editor import Editor
from .keys import KeyCommand, KeyEvent, route
from .layout import LayoutEngine
from .model import Plane

DRAG_THRESHOLD = 3.0  # screen px a pointer must move before a press on a node becomes a drag
WHEEL_ZOOM = 0.0015  # zoom factor exp(-deltaY · WHEEL_ZOOM)
LINE_PX = 16.0  # a wheel "line" (deltaMode 1) in px


@dataclass(frozen=True)
class PointerInput:
    """A pointer event as a plain record; ``x``/``y`` in canvas CSS px."""

    kind: str  # "down" | "move" | "up" | "cancel"
    pointer_id: int
    x: float
    y: float
    button: int = 0
    pointer_type: str = "mouse"  # "mouse" | "pen" | "touch"
    shift: bool = False
    mod: bool = False
    alt: bool = False


@dataclass
class Response:
    """What the browser layer should do after a pointer event."""

    repaint: bool = False
    capture: bool = False  # capture this pointer (drags and pans continue outside the canvas)
    cursor: str | None = None  # None: unchanged; "" | "over-node" | "panning" | "dragging"
    commit_text: bool = False  # the open text editor must commit first


@dataclass(frozen=True)
class Request:
    """Something the browser layer must show: the text editor, a menu, or an action to run."""

    kind: str  # "edit-text" | "menu" | "action"
    target: Target
    menu: str = ""  # "node" | "edge" | "background"
    action_id: str = ""
    fresh: bool = False  # edit-text on a node made for it: Esc discards the node


# ---------------------------------------------------------------- states
@dataclass
class Idle:
    name = "idle"


@dataclass
class PointingNode:
    pointer_id: int
    node_id: str
    start: tuple[float, float]  # the node's world position when pressed
    at: tuple[float, float]  # the pointer, screen px
    plane: Plane  # where the press happened (the drag ends there, whatever happens meanwhile)
    sim: LayoutEngine
    name = "pointing-node"


@dataclass
class DraggingNode:
    pointer_id: int
    node_id: str
    start: tuple[float, float]
    at: tuple[float, float]
    plane: Plane
    sim: LayoutEngine
    name = "dragging-node"


@dataclass
class Panning:
    pointer_id: int
    at: tuple[float, float]
    name = "panning"


@dataclass
class Pinching:
    distance: float
    middle: tuple[float, float]
    name = "pinching"


@dataclass
class EditingText:
    node_id: str
    fresh: bool = False  # the node was created for this edit: cancelling discards it
    name = "editing-text"


State = Idle | PointingNode | DraggingNode | Panning | Pinching | EditingText


class Tools:
    """The interaction state of one editor."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.state: State = Idle()
        self.touches: dict[int, tuple[float, float]] = {}  # touch pointers down, by id

    @property
    def state_name(self) -> str:
        return self.state.name

    # ------------------------------------------------------------ pointer
    def pointer(self, event: PointerInput) -> Response:
        """Feed one pointer event; O(n) for hit testing on ``down``, O(1) otherwise."""
        handler = {"down": self._down, "move": self._move, "up": self._up, "cancel": self._cancel}.get(event.kind)
        if handler is None:
            raise ValueError(f"unknown pointer event {event.kind!r}")
        return handler(event)

    def _down(self, event: PointerInput) -> Response:
        response = Response(repaint=True)
        if isinstance(self.state, EditingText):
            response.commit_text = True
            self.state = Idle()
        if event.pointer_type == "touch":
            self.touches[event.pointer_id] = (event.x, event.y)
            if len(self.touches) == 2:
                self._abandon()  # a drag or pan with the first finger gives way to the pinch
                (x1, y1), (x2, y2) = self.touches.values()
                self.state = Pinching(math.hypot(x2 - x1, y2 - y1), ((x1 + x2) / 2, (y1 + y2) / 2))
                return response
            if len(self.touches) > 2:
                return response
        if event.button != 0 or not isinstance(self.state, Idle):
            return response
        editor = self.editor
        node = editor.node_at(event.x, event.y)
        response.capture = True
        if node is not None:
            editor.select([node.id])
            sim = editor.sim()
            sim.fixed.add(node.id)
            self.state = PointingNode(
                event.pointer_id, node.id, (node.x, node.y), (event.x, event.y), editor.plane, sim
            )
            return response
        edge = editor.edge_at(event.x, event.y)
        if edge is not None:
            editor.select_edge(edge.id)
            response.capture = False
            return response
        editor.select([])
        self.state = Panning(event.pointer_id, (event.x, event.y))
        response.cursor = "panning"
        return response

    def _move(self, event: PointerInput) -> Response:
        editor = self.editor
        state = self.state
        if event.pointer_type == "touch" and event.pointer_id in self.touches:
            self.touches[event.pointer_id] = (event.x, event.y)
            if isinstance(state, Pinching) and len(self.touches) >= 2:
                (x1, y1), (x2, y2) = list(self.touches.values())[:2]
                distance = math.hypot(x2 - x1, y2 - y1)
                mx, my = (x1 + x2) / 2, (y1 + y2) / 2
                # the world point under the fingers' old midpoint ends up under the new one:
                # zoom around the old midpoint, then follow the midpoint's move
                if state.distance > 0 and distance > 0:
                    editor.zoom_at(distance / state.distance, *state.middle)
                editor.pan_by(mx - state.middle[0], my - state.middle[1])
                self.state = Pinching(distance, (mx, my))
                return Response(repaint=True)
        if isinstance(state, Panning) and event.pointer_id == state.pointer_id:
            editor.pan_by(event.x - state.at[0], event.y - state.at[1])
            state.at = (event.x, event.y)
            return Response(repaint=True)
        if isinstance(state, (PointingNode, DraggingNode)) and self._lost(state):
            self._abandon()  # the plane changed or the node went away under the pointer
            return Response(repaint=True, cursor="")
        if isinstance(state, PointingNode) and event.pointer_id == state.pointer_id:
            if math.hypot(event.x - state.at[0], event.y - state.at[1]) < DRAG_THRESHOLD:
                return Response()
            self.state = state = DraggingNode(
                state.pointer_id, state.node_id, state.start, state.at, state.plane, state.sim
            )
        if isinstance(state, DraggingNode) and event.pointer_id == state.pointer_id:
            node = state.plane.nodes[state.node_id]
            zoom = editor.plane.camera.zoom
            node.x += (event.x - state.at[0]) / zoom  # live position: recorded on drop
            node.y += (event.y - state.at[1]) / zoom
            node.vx = node.vy = 0.0
            state.at = (event.x, event.y)
            state.sim.reheat(0.25)
            editor.needs_paint = True
            return Response(repaint=True, cursor="dragging")
        if isinstance(state, Idle) and event.pointer_type != "touch":
            return Response(cursor="over-node" if editor.node_at(event.x, event.y) is not None else "")
        return Response()

    def _up(self, event: PointerInput) -> Response:
        self.touches.pop(event.pointer_id, None)
        state = self.state
        editor = self.editor
        if isinstance(state, Pinching):
            if len(self.touches) < 2:
                self.state = Idle()
            return Response(repaint=True)
        if isinstance(state, (PointingNode, DraggingNode)) and event.pointer_id == state.pointer_id:
            if self._lost(state):  # nothing to record on a plane that is no longer shown
                self._abandon()
                return Response(repaint=True, cursor="")
            state.sim.fixed.discard(state.node_id)
            self.state = Idle()
            if isinstance(state, DraggingNode):
                node = state.plane.nodes[state.node_id]
                editor.move_node(state.node_id, node.x, node.y, from_xy=state.start)
            return Response(repaint=True, cursor="over-node")
        if isinstance(state, Panning) and event.pointer_id == state.pointer_id:
            self.state = Idle()
            return Response(repaint=True, cursor="")
        return Response()

    def _cancel(self, event: PointerInput) -> Response:
        self.touches.pop(event.pointer_id, None)
        state = self.state
        if isinstance(state, Pinching):
            if len(self.touches) < 2:
                self.state = Idle()
            return Response(repaint=True)
        if getattr(state, "pointer_id", None) == event.pointer_id:
            self._abandon()
            return Response(repaint=True, cursor="")
        return Response()

    def _lost(self, state: PointingNode | DraggingNode) -> bool:
        """Whether the pressed node is gone, or no longer on the plane shown."""
        return self.editor.plane is not state.plane or state.node_id not in state.plane.nodes

    def _abandon(self) -> None:
        """End the current gesture without recording it: a dragged node goes back to its start
        (on the plane it was dragged on) and is free for the layout again."""
        state = self.state
        if isinstance(state, (PointingNode, DraggingNode)):
            state.sim.fixed.discard(state.node_id)
            node = state.plane.nodes.get(state.node_id)
            if node is not None:
                node.x, node.y = state.start
                node.vx = node.vy = 0.0
            self.editor.needs_paint = True
        if not isinstance(state, EditingText):
            self.state = Idle()

    # ------------------------------------------------------------ other input
    def wheel(self, x: float, y: float, delta_y: float, delta_mode: int = 0) -> Response:
        """Zoom around (x, y); a "line" wheel (deltaMode 1) counts LINE_PX per line."""
        delta = float(delta_y) * (LINE_PX if delta_mode == 1 else 1.0)
        if not math.isfinite(delta):
            return Response()
        self.editor.zoom_at(math.exp(max(-50.0, min(50.0, -delta * WHEEL_ZOOM))), x, y)
        return Response(repaint=True)

    def double_click(self, x: float, y: float) -> Request:
        """Edit a node's text, enter a stargate, or create a node here and edit it."""
        editor = self.editor
        node = editor.node_at(x, y)
        if node is None:
            wx, wy = editor.screen_to_world(x, y)
            return Request("edit-text", Target(node_id=editor.add_node(wx, wy)), fresh=True)
        if node.type == "stargate":
            return Request("action", Target(node_id=node.id), action_id="enter-stargate")
        return Request("edit-text", Target(node_id=node.id))

    def context_menu(self, x: float, y: float) -> Request:
        """The menu for what is under (x, y): it also becomes the selection."""
        editor = self.editor
        if isinstance(self.state, EditingText):
            self.state = Idle()
        node = editor.node_at(x, y)
        if node is not None:
            editor.select([node.id])
            return Request("menu", Target(node_id=node.id), menu="node")
        edge = editor.edge_at(x, y)
        if edge is not None:
            editor.select_edge(edge.id)
            return Request("menu", Target(edge_id=edge.id), menu="edge")
        wx, wy = editor.screen_to_world(x, y)
        return Request("menu", Target(x=wx, y=wy), menu="background")

    def key(self, event: KeyEvent) -> KeyCommand | None:
        """The command for a key press; none while text is being edited or a gesture runs."""
        if isinstance(self.state, EditingText):
            return None
        if not isinstance(self.state, Idle) and event.key not in ("Escape",):
            return None
        if event.key == "Escape" and not isinstance(self.state, Idle):
            self._abandon()  # Esc during a drag puts the node back, as a cancel does
            return KeyCommand("action", "clear-selection")
        return route(self.editor, event)

    # ------------------------------------------------------------ the text editor
    def begin_text_edit(self, node_id: str, fresh: bool = False) -> None:
        """The text editor opens on ``node_id``; ``fresh``: the node was just created for it."""
        self._abandon()
        self.state = EditingText(node_id, fresh)

    def end_text_edit(self, cancelled: bool = False) -> None:
        """The text editor closed. Cancelling (Esc) on a fresh node discards the node,
        as if it had never been made (no undo or redo step remains)."""
        state = self.state
        if isinstance(state, EditingText):
            self.state = Idle()
            if cancelled and state.fresh:
                self.editor.discard_new_node(state.node_id)
