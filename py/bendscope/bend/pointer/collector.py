"""Python's cycle collector kept out of a gesture's frames.

The collector runs when enough container objects were allocated since it last ran; on a large
document a run of it (each one also scans a slice of the old objects) can take tens of ms, and
where it runs is chance: inside a drag's press or release frame it is a dropped frame. So while
a gesture runs (a button or finger down) automatic collection is off, and it is given back
once the gesture has ended and the layout rests (or a while after the gesture, if the layout
keeps running), with one collection run then, in a task of its own at rest. Memory stays
bounded: reference counting frees all garbage but cycles at once, and when a gesture has left
more than ``limit`` young objects the young generation is collected anyway.
"""

from __future__ import annotations

import gc

LIMIT = 100_000  # young objects a gesture may leave before they are collected anyway
LATEST_MS = 1000.0  # after a gesture, collection is given back by then even if the layout still runs


class GestureCollector:
    """When automatic collection is off and when it is given back (see the module's text).

    >>> c = GestureCollector()
    >>> was = gc.isenabled()
    >>> c.pressed(); gc.isenabled()
    False
    >>> c.frame(gesture=False, resting=False, now_ms=0.0)  # released, the layout still moves
    False
    >>> c.frame(gesture=False, resting=True, now_ms=10.0)  # at rest: give it back (in a task)
    True
    >>> c.release(); gc.isenabled() == was
    True
    """

    def __init__(self, limit: int = LIMIT, latest_ms: float = LATEST_MS) -> None:
        self.limit = limit
        self.latest_ms = latest_ms
        self.held = False  # automatic collection is off because of a gesture
        self.ended: float | None = None  # when the gesture was seen ended (ms)
        self.forced = 0  # young collections run during gestures because of ``limit``
        self.runs = 0  # collections run at rest (``release``)

    def pressed(self) -> None:
        """A gesture may begin: automatic collection off (unless it was off already: then
        nothing is given back later either)."""
        if not self.held and gc.isenabled():
            gc.disable()
            self.held = True
        self.ended = None

    def frame(self, gesture: bool, resting: bool, now_ms: float) -> bool:
        """Once per frame: whether a gesture runs, whether the layout rests. True when the
        collection should be given back now (call :meth:`release` in a task of its own).
        O(1), or one young collection when a gesture left more than ``limit`` young objects."""
        if not self.held:
            return False
        if gesture:
            self.ended = None
            if gc.get_count()[0] > self.limit:
                gc.collect(0)
                self.forced += 1
            return False
        if self.ended is None:
            self.ended = now_ms
        return resting or now_ms - self.ended >= self.latest_ms

    def state(self) -> dict[str, int | bool]:
        """Diagnostics: held now, collections run at rest, young ones forced during gestures."""
        return {"held": self.held, "runs": self.runs, "forced": self.forced}

    def release(self) -> None:
        """Automatic collection on again, and one collection run now (at rest)."""
        if not self.held:
            return
        self.held = False
        self.ended = None
        gc.enable()
        gc.collect(1)
        self.runs += 1
