"""What the pointer state machine reads and answers, as plain records: a pointer event
(:class:`PointerInput`), what the browser layer does next (:class:`Response`), what it must
show (:class:`Request`), and the gestures' distances and times."""

from __future__ import annotations

import math
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


#: wheel events less than this many ms apart are one gesture (a swipe, a flick of the wheel)
WHEEL_GAP_MS = 150.0
#: a wheel gesture pans when its sideways part is more than this share of its up-and-down part
WHEEL_PAN_SHARE = 0.5


class WheelIntent:
    """Whether a wheel event pans or zooms, chosen once per wheel gesture: a run of events
    less than :data:`WHEEL_GAP_MS` apart keeps what its first event chose, so a mostly
    up-and-down trackpad swipe whose events carry a sideways part of 0 or 1 px by turns is
    not zoom, pan, zoom, pan. A gesture pans when its first event's ``|dx|`` is a real part
    of the motion (more than :data:`WHEEL_PAN_SHARE` × ``|dy|``): a sideways wheel or a
    two-finger swipe; it zooms otherwise (a mouse's wheel). With Ctrl (a trackpad's pinch)
    an event always zooms. O(1) per event.

    >>> w = WheelIntent()
    >>> [w.pans(t, dx, dy) for t, dx, dy in [(0, 0, 9), (16, 2, 9), (33, 0, 8), (50, 1, 9)]]
    [False, False, False, False]
    >>> [w.pans(t, dx, dy) for t, dx, dy in [(400, 6, 9), (416, 0, 9), (433, 0, 12)]]
    [True, True, True]
    >>> w.pans(450, 0, 5, ctrl=True), w.pans(700, 0, 100)
    (False, False)
    """

    def __init__(self) -> None:
        self.last_ms: float | None = None
        self.panning = False

    def pans(self, now_ms: float, dx: float, dy: float, ctrl: bool = False) -> bool:
        """Whether the wheel event at ``now_ms`` (its ``timeStamp``) with deltas ``dx``, ``dy``
        pans (else it zooms)."""
        fresh = self.last_ms is None or not 0.0 <= now_ms - self.last_ms < WHEEL_GAP_MS
        self.last_ms = now_ms
        if ctrl or not (math.isfinite(dx) and math.isfinite(dy)):
            self.panning = False  # (a pinch, or deltas the zoom refuses: the gesture zooms)
            return False
        if fresh:
            self.panning = abs(dx) > WHEEL_PAN_SHARE * abs(dy)
        return self.panning
