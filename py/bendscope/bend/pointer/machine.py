"""Pointer and keyboard interaction as a state machine (tldraw's tools), DOM-free.

The browser layer turns DOM events into plain records (:class:`PointerInput`,
wheel deltas, double-clicks, context-menu requests, :class:`~bend.keys.routing.KeyEvent`,
the long-press timer) and carries out what comes back (:class:`Response`,
:class:`Request`). All the decisions live here, so they are tested under CPython.

States (one class each, in ``states``)::

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

from bendscope.bend.actions.commands import Target
from bendscope.bend.editor.editor import Editor
from bendscope.bend.editor.hit_testing import EDGE_TOLERANCE, TOUCH_EDGE_TOLERANCE
from bendscope.bend.keys.routing import KeyCommand, KeyEvent, route
from bendscope.bend.pointer.inputs import (
    HANDLE_RADIUS,
    LINE_PX,
    LONG_PRESS_MS,
    TOUCH_HANDLE_RADIUS,
    TOUCH_SLOP,
    WHEEL_ZOOM,
    PointerInput,
    Request,
    Response,
)
from bendscope.bend.pointer.states import (
    Brushing,
    Connecting,
    DraggingNode,
    EditingText,
    Idle,
    Panning,
    Pinching,
    PointerState,
    PointingNode,
)
from bendscope.bend.render.scene import InteractionView


class Tools:
    """The interaction state of one editor: the current state (``states``) gets each pointer
    event; the touches, the hovered card and the pointer's last position are kept here."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.state: PointerState = Idle()
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
        return self.state.view(self)

    def handle_node(self) -> str | None:
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
                self.abandon()  # a drag or pan with the first finger gives way to the pinch
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
        handle = self.handle_node()
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
        # (the selection stays: a pan keeps it, the release of a click or a tap clears it)
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
        self.pointer_at = (event.x, event.y)
        if event.pointer_type == "touch" and event.pointer_id in self.touches:
            self.touches[event.pointer_id] = (event.x, event.y)
        return self.state.move(self, event)

    def _up(self, event: PointerInput) -> Response:
        self.touches.pop(event.pointer_id, None)
        self.touch_origin.pop(event.pointer_id, None)
        return self.state.up(self, event)

    def _cancel(self, event: PointerInput) -> Response:
        self.touches.pop(event.pointer_id, None)
        self.touch_origin.pop(event.pointer_id, None)
        state = self.state
        if isinstance(state, Pinching):
            if len(self.touches) < 2:
                self.state = Idle()
            return Response(repaint=True)
        if getattr(state, "pointer_id", None) == event.pointer_id:
            self.abandon()
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
        self.abandon()
        self.touches.pop(pointer_id, None)
        if isinstance(state, Panning):
            self.editor.pan_by(x - state.at[0], y - state.at[1])  # undo the slop's pan
            self.editor.select([])  # (a press on the empty canvas, as a tap)
        return self.context_menu(x, y, touch=True)

    def lost(self, state: PointingNode | DraggingNode) -> bool:
        """Whether the pressed node is gone, or no longer on the plane shown."""
        return self.editor.plane is not state.plane or state.node_id not in state.plane.nodes

    def abandon(self) -> None:
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
        """Edit a node's text, enter a stargate, edit an edge's label, or create a node here and edit it."""
        editor = self.editor
        node = editor.node_at(x, y)
        edge = editor.edge_at(x, y) if node is None else None
        if edge is not None:  # (an edge's line or label: its label, as draw.io and Kumu do — not a card on it)
            editor.select_edge(edge.id)
            return Request("action", Target(edge_id=edge.id), action_id="edit-label")
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
            self.abandon()  # a right-click during a drag, band or connection ends it unrecorded
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
            self.abandon()  # Esc during a drag puts the node back, as a cancel does
            return KeyCommand("action", "clear-selection")
        return route(self.editor, event)

    # ------------------------------------------------------------ the text editor
    def begin_text_edit(self, node_id: str, fresh: bool = False) -> None:
        """The text editor opens on ``node_id``; ``fresh``: the node was just created for it."""
        self.abandon()
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
