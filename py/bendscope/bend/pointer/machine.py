"""Pointer and keyboard interaction as a state machine (tldraw's tools), DOM-free.

The browser layer turns DOM events into plain records (:class:`PointerInput`,
wheel deltas, double-clicks, context-menu requests, :class:`~bend.keys.KeyEvent`,
the long-press timer) and carries out what comes back (:class:`Response`,
:class:`Request`). All the decisions live here, so they are tested under CPython.

States::

    Idle ──down on node──▶ PointingNode ──moved ≥ 3 px──▶ DraggingNode ──up──▶ Idle (move recorded)
      │                          └──up──▶ Idle (a click: the node is selected)
      ├──down on a node's handle──▶ Connecting ──up on another node──▶ Idle (edge added)
      ├──down on background──▶ Panning ──up──▶ Idle
      ├──Shift+down on background──▶ Brushing ──up──▶ Idle (nodes in the box selected)
      ├──second touch──▶ Pinching ──a finger lifts──▶ Idle
      └──text editor opens──▶ EditingText ──closes──▶ Idle

Shift+click adds a node to the selection or takes it out; dragging a node of a
multi-selection moves them all (one undo step, each pinned where it lands). A
touch held still for ``LONG_PRESS_MS`` opens the context menu (``long_press``).
``cancel`` (the browser took the pointer away) puts dragged nodes back where the
drag started; nothing is recorded. A second finger during a drag cancels the drag
the same way and starts a pinch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from bendscope.bend.actions.commands import Target
from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.hit_testing import EDGE_TOLERANCE, TOUCH_EDGE_TOLERANCE
from bendscope.bend.kappa_view import kappa_ui
from bendscope.bend.keys.routing import KeyCommand, KeyEvent, route
from bendscope.bend.layout.simulation import LayoutEngine
from bendscope.bend.model.elements import Plane
from bendscope.bend.render.scene import InteractionView, LinkView

DRAG_THRESHOLD = 3.0  # screen px a pointer must move before a press on a node becomes a drag
TOUCH_SLOP = 10.0  # screen px a finger may wander and still be a long press
LONG_PRESS_MS = 500.0
HANDLE_RADIUS = 10.0  # screen px around a connection handle that grab it (mouse, pen)
TOUCH_HANDLE_RADIUS = 18.0
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
    cursor: str | None = None  # None: unchanged; "" | "over-node" | "panning" | "dragging" | "connecting"
    commit_text: bool = False  # the open text editor must commit first
    long_press: float = 0.0  # > 0: call ``Tools.long_press(pointer_id)`` after this many ms


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
    group: dict[str, tuple[float, float]] = field(default_factory=dict)  # every node the drag moves: start
    click: list[str] | None = None  # the selection a click (no drag) leaves
    origin: tuple[float, float] = (0.0, 0.0)  # where the pointer went down (long press)
    name = "pointing-node"


@dataclass
class DraggingNode:
    pointer_id: int
    node_id: str
    start: tuple[float, float]
    at: tuple[float, float]
    plane: Plane
    sim: LayoutEngine
    group: dict[str, tuple[float, float]] = field(default_factory=dict)
    name = "dragging-node"


@dataclass
class Panning:
    pointer_id: int
    at: tuple[float, float]
    origin: tuple[float, float] = (0.0, 0.0)
    name = "panning"


@dataclass
class Brushing:
    pointer_id: int
    origin: tuple[float, float]  # screen px
    at: tuple[float, float]
    keep: list[str] = field(default_factory=list)  # the selection before (Shift adds to it)
    name = "brushing"


@dataclass
class Connecting:
    pointer_id: int
    source: str
    at: tuple[float, float]  # screen px
    plane: Plane
    target: str | None = None
    label: str = ""
    changes: bool = False
    name = "connecting"


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


State = Idle | PointingNode | DraggingNode | Panning | Brushing | Connecting | Pinching | EditingText


class Tools:
    """The interaction state of one editor."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.state: State = Idle()
        self.touches: dict[int, tuple[float, float]] = {}  # touch pointers down, by id
        self.touch_origin: dict[int, tuple[float, float]] = {}  # where each of them went down
        self.hover: str | None = None  # the node under a mouse pointer (its handle shows)
        self.pointer_at: tuple[float, float] | None = None  # the last pointer position (paste goes there)

    @property
    def state_name(self) -> str:
        return self.state.name

    # ------------------------------------------------------------ what the scene shows
    def view(self) -> InteractionView:
        """The handle, rubber band or connection the scene draws for the current gesture."""
        editor = self.editor
        state = self.state
        if isinstance(state, Brushing):
            (ax, ay), (bx, by) = editor.screen_to_world(*state.origin), editor.screen_to_world(*state.at)
            return InteractionView(brush=(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
        if isinstance(state, Connecting):
            if state.source not in editor.plane.nodes:
                return InteractionView()
            to = editor.screen_to_world(*state.at)
            if state.target is not None and state.target in editor.plane.nodes:
                node = editor.plane.nodes[state.target]
                to = (node.x, node.y)
            link = LinkView(state.source, to, state.target, state.label, state.changes)
            return InteractionView(handle=state.source, link=link)
        if isinstance(state, Idle):
            return InteractionView(handle=self._handle_node())
        return InteractionView()

    def _handle_node(self) -> str | None:
        """The node whose handle shows: the hovered one, else the only selected one."""
        nodes = self.editor.plane.nodes
        if self.hover is not None and self.hover in nodes:
            return self.hover
        selection = self.editor.selection
        return selection[0] if len(selection) == 1 and selection[0] in nodes else None

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
        touch = event.pointer_type == "touch"
        if touch:
            self.touches[event.pointer_id] = (event.x, event.y)
            self.touch_origin[event.pointer_id] = (event.x, event.y)
            if len(self.touches) == 2:
                self._abandon()  # a drag or pan with the first finger gives way to the pinch
                (x1, y1), (x2, y2) = self.touches.values()
                self.state = Pinching(math.hypot(x2 - x1, y2 - y1), ((x1 + x2) / 2, (y1 + y2) / 2))
                return response
            if len(self.touches) > 2:
                return response
            response.long_press = LONG_PRESS_MS
        if event.button != 0 or not isinstance(self.state, Idle):
            return response
        editor = self.editor
        response.capture = True
        handle = self._handle_node()
        radius = TOUCH_HANDLE_RADIUS if touch else HANDLE_RADIUS
        if handle is not None and editor.handle_at(event.x, event.y, handle, radius):
            self.state = Connecting(event.pointer_id, handle, (event.x, event.y), editor.plane)
            response.cursor = "connecting"
            response.long_press = 0.0
            return response
        node = editor.node_at(event.x, event.y)
        if node is not None:
            return self._press_node(event, node.id, response)
        if event.shift:
            self.state = Brushing(event.pointer_id, (event.x, event.y), (event.x, event.y), list(editor.selection))
            response.long_press = 0.0
            return response
        edge = editor.edge_at(event.x, event.y, TOUCH_EDGE_TOLERANCE if touch else EDGE_TOLERANCE)
        if edge is not None:
            editor.select_edge(edge.id)
            response.capture = False
            return response
        editor.select([])
        self.state = Panning(event.pointer_id, (event.x, event.y), (event.x, event.y))
        response.cursor = "panning"
        return response

    def _press_node(self, event: PointerInput, node_id: str, response: Response) -> Response:
        editor = self.editor
        selection = list(editor.selection)
        click: list[str] | None = None
        if event.shift:
            if node_id in selection:
                editor.select([n for n in selection if n != node_id])  # Shift+click takes it out
                response.capture = False
                return response
            editor.select([*selection, node_id])
        elif node_id in selection and len(selection) > 1:
            click = [node_id]  # a drag moves the whole selection; a click keeps only this node
        else:
            editor.select([node_id])
        plane = editor.plane
        group_ids = editor.selection if node_id in editor.selection else [node_id]
        group = {n: (plane.nodes[n].x, plane.nodes[n].y) for n in group_ids if n in plane.nodes}
        sim = editor.sim()
        sim.fixed.update(group)
        node = plane.nodes[node_id]
        self.state = PointingNode(
            event.pointer_id, node_id, (node.x, node.y), (event.x, event.y), plane, sim, group, click,
            (event.x, event.y),
        )  # fmt: skip
        return response

    def _move(self, event: PointerInput) -> Response:
        editor = self.editor
        state = self.state
        self.pointer_at = (event.x, event.y)
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
        if isinstance(state, Brushing) and event.pointer_id == state.pointer_id:
            state.at = (event.x, event.y)
            found = editor.nodes_in_rect(*state.origin, *state.at)
            editor.select(list(dict.fromkeys([*state.keep, *found])))
            return Response(repaint=True)
        if isinstance(state, Connecting) and event.pointer_id == state.pointer_id:
            return self._connect_move(state, event)
        if isinstance(state, (PointingNode, DraggingNode)) and self._lost(state):
            self._abandon()  # the plane changed or the node went away under the pointer
            return Response(repaint=True, cursor="")
        if isinstance(state, PointingNode) and event.pointer_id == state.pointer_id:
            threshold = TOUCH_SLOP if event.pointer_type == "touch" else DRAG_THRESHOLD  # a finger jitters
            if math.hypot(event.x - state.at[0], event.y - state.at[1]) < threshold:
                return Response()
            self.state = state = DraggingNode(
                state.pointer_id, state.node_id, state.start, state.at, state.plane, state.sim, state.group
            )
        if isinstance(state, DraggingNode) and event.pointer_id == state.pointer_id:
            zoom = editor.plane.camera.zoom
            dx, dy = (event.x - state.at[0]) / zoom, (event.y - state.at[1]) / zoom
            for node_id in state.group:
                node = state.plane.nodes.get(node_id)
                if node is not None:
                    node.x += dx  # live position: recorded on drop
                    node.y += dy
                    node.vx = node.vy = 0.0
            state.at = (event.x, event.y)
            if not editor.layout_frozen:  # the neighbours follow; the rest of the graph stands still
                state.sim.reheat(around=state.group, moved=False)  # (only the held cards moved)
            editor.needs_paint = True
            return Response(repaint=True, cursor="dragging")
        if isinstance(state, Idle) and event.pointer_type != "touch":
            node = editor.node_at(event.x, event.y)
            hover = node.id if node is not None else None
            on_handle = self.hover is not None and editor.handle_at(event.x, event.y, self.hover, HANDLE_RADIUS)
            if on_handle:
                return Response(cursor="connecting")
            changed = hover != self.hover
            self.hover = hover
            if changed:
                editor.needs_paint = True  # the handle moves to the hovered card
            return Response(repaint=changed, cursor="over-node" if hover is not None else "")
        return Response()

    def _connect_move(self, state: Connecting, event: PointerInput) -> Response:
        editor = self.editor
        if editor.plane is not state.plane or state.source not in state.plane.nodes:
            self._abandon()  # the source went away (cut, undo, another plane): nothing to connect
            return Response(repaint=True, cursor="")
        state.at = (event.x, event.y)
        node = editor.node_at(event.x, event.y)
        target = node.id if node is not None and node.id != state.source else None
        if target != state.target:
            state.target = target
            state.label, state.changes = "", False
            if target is not None:
                preview = kappa_ui.connect_preview(editor, state.source, target)
                state.label, state.changes = preview.label, preview.tone == kappa_ui.CHANGE_TONE
        editor.needs_paint = True
        return Response(repaint=True, cursor="connecting")

    def _up(self, event: PointerInput) -> Response:
        self.touches.pop(event.pointer_id, None)
        self.touch_origin.pop(event.pointer_id, None)
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
            state.sim.fixed.difference_update(state.group)
            state.sim.fixed.discard(state.node_id)
            self.state = Idle()
            if isinstance(state, DraggingNode):
                nodes = state.plane.nodes
                moves = {n: (nodes[n].x, nodes[n].y) for n in state.group if n in nodes}
                editor.move_nodes(moves, state.group)
            elif state.click is not None:
                editor.select(state.click)
            return Response(repaint=True, cursor="over-node")
        if isinstance(state, Panning) and event.pointer_id == state.pointer_id:
            self.state = Idle()
            return Response(repaint=True, cursor="")
        if isinstance(state, Brushing) and event.pointer_id == state.pointer_id:
            self.state = Idle()
            return Response(repaint=True, cursor="")
        if isinstance(state, Connecting) and event.pointer_id == state.pointer_id:
            self.state = Idle()
            if state.target is not None and editor.plane is state.plane and state.source in editor.plane.nodes:
                kind = "temporal" if event.alt else editor.connect_kind
                if editor.add_edge(state.source, state.target, kind=kind) is not None:
                    editor.select([state.target])
            editor.needs_paint = True
            return Response(repaint=True, cursor="")
        return Response()

    def _cancel(self, event: PointerInput) -> Response:
        self.touches.pop(event.pointer_id, None)
        self.touch_origin.pop(event.pointer_id, None)
        state = self.state
        if isinstance(state, Pinching):
            if len(self.touches) < 2:
                self.state = Idle()
            return Response(repaint=True)
        if getattr(state, "pointer_id", None) == event.pointer_id:
            self._abandon()
            return Response(repaint=True, cursor="")
        return Response()

    def leave(self) -> Response:
        """The pointer left the canvas: no card is hovered any more (its handle hides)."""
        changed = self.hover is not None
        self.hover = None
        if changed:
            self.editor.needs_paint = True
        return Response(repaint=changed)

    def paste_point(self) -> tuple[float, float]:
        """Where pasted nodes go (world): under the pointer if it was seen over the canvas,
        else the middle of the view."""
        if self.pointer_at is not None:
            return self.editor.screen_to_world(*self.pointer_at)
        cam = self.editor.plane.camera
        return (cam.x, cam.y)

    def long_press(self, pointer_id: int) -> Request | None:
        """The long-press timer of a touch fired: if that finger is still down where it
        went down (no drag, pan or pinch began), the gesture ends and the context menu
        for what is under it opens. None otherwise."""
        state = self.state
        if pointer_id not in self.touches or len(self.touches) != 1:
            return None
        if isinstance(state, PointingNode) and state.pointer_id == pointer_id:
            x, y = state.origin
        elif isinstance(state, Panning) and state.pointer_id == pointer_id:
            x, y = state.origin
            if math.hypot(state.at[0] - x, state.at[1] - y) > TOUCH_SLOP:
                return None
        elif isinstance(state, Idle) and pointer_id in self.touch_origin:  # a press on an edge
            x, y = self.touch_origin[pointer_id]
            now = self.touches[pointer_id]
            if math.hypot(now[0] - x, now[1] - y) > TOUCH_SLOP:
                return None
        else:
            return None
        self._abandon()
        self.touches.pop(pointer_id, None)
        if isinstance(state, Panning):
            self.editor.pan_by(x - state.at[0], y - state.at[1])  # undo the slop's pan
        return self.context_menu(x, y, touch=True)

    def _lost(self, state: PointingNode | DraggingNode) -> bool:
        """Whether the pressed node is gone, or no longer on the plane shown."""
        return self.editor.plane is not state.plane or state.node_id not in state.plane.nodes

    def _abandon(self) -> None:
        """End the current gesture without recording it: dragged nodes go back to their start
        (on the plane they were dragged on) and are free for the layout again."""
        state = self.state
        if isinstance(state, (PointingNode, DraggingNode)):
            state.sim.fixed.difference_update(state.group)
            state.sim.fixed.discard(state.node_id)
            for node_id, start in (state.group or {state.node_id: state.start}).items():
                node = state.plane.nodes.get(node_id)
                if node is not None:
                    node.x, node.y = start
                    node.vx = node.vy = 0.0
            self.editor.needs_paint = True
        if isinstance(state, Brushing):
            self.editor.select(state.keep)
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
            return Request("edit-text", Target(node_id=editor.add_node(wx, wy, pinned=True)), fresh=True)
        if node.type == "stargate":
            return Request("action", Target(node_id=node.id), action_id="enter-stargate")
        return Request("edit-text", Target(node_id=node.id))

    def context_menu(self, x: float, y: float, touch: bool = False) -> Request:
        """The menu for what is under (x, y): it also becomes the selection (a node of a
        multi-selection keeps the selection: its menu is the selection's)."""
        editor = self.editor
        if isinstance(self.state, EditingText):
            self.state = Idle()
        elif not isinstance(self.state, Idle):
            self._abandon()  # a right-click during a drag, band or connection ends it unrecorded
        node = editor.node_at(x, y)
        if node is not None:
            if not (node.id in editor.selection and len(editor.selection) > 1):
                editor.select([node.id])
            return Request("menu", Target(node_id=node.id), menu="node")
        edge = editor.edge_at(x, y, TOUCH_EDGE_TOLERANCE if touch else EDGE_TOLERANCE)
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
        as if it had never been made (no undo or redo step remains); committing joins
        the text to the node's creation, so making a card and typing it is one step."""
        state = self.state
        if isinstance(state, EditingText):
            self.state = Idle()
            if cancelled and state.fresh:
                self.editor.discard_new_node(state.node_id)
            elif state.fresh:
                self.editor.fold_into_creation(state.node_id)
