"""What the pointer state machine reads and answers, as plain records: a pointer event
(:class:`PointerInput`), what the browser layer does next (:class:`Response`), what it must
show (:class:`Request`), and the gestures' distances and times."""

from __future__ import annotations

from dataclasses import dataclass

from bendscope.bend.actions.commands import Target

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
    edit_new: str | None = None  # a card just made for the gesture: open its text editor (Esc takes it back)


@dataclass(frozen=True)
class Request:
    """Something the browser layer must show: the text editor, a menu, or an action to run."""

    kind: str  # "edit-text" | "menu" | "action"
    target: Target
    menu: str = ""  # "node" | "edge" | "background"
    action_id: str = ""
    fresh: bool = False  # edit-text on a node made for it: Esc discards the node
