"""Python's cycle collector kept out of a gesture's frames.

The collector runs when enough container objects were allocated since it last ran; on a large
document a run of it (each one also scans a slice of the old objects) can take tens of ms, and
where it runs is chance: inside a drag's press or release frame it is a dropped frame. So while
a gesture runs (a button or finger down) automatic collection is off, and it is given back
once the gesture has ended and the layout rests (or a while after the gesture, if the layout
keeps running), with one collection run then, in a task of its own at rest. Memory stays
bounded: reference counting frees all garbage but cycles at once, and when a gesture has left
more than ``limit`` young objects the young generation is collected anyway.

The switch itself is one for the whole page (:data:`HOLD`, a :class:`GcHold`): a gesture, a
load and a live burst (``bend.live.burst_collector``) each hold it, and collection comes back
only when the last of them lets go — one giving it back never turns it on under another's hold.
"""

from __future__ import annotations

import gc

LIMIT = 100_000  # young objects a gesture may leave before they are collected anyway
LATEST_MS = 1000.0  # after a gesture, collection is given back by then even if the layout still runs


class GcHold:
    """Python's automatic collection, off while anything holds it: one switch for its holders.
    If the runtime had it off when the first hold came, nobody holds it and it stays off.

    >>> h, was = GcHold(), gc.isenabled()
    >>> gc.enable()
    >>> h.hold("drag"), h.hold("burst"), gc.isenabled()
    (True, True, False)
    >>> h.give_back("drag"), gc.isenabled()  # (the burst still holds it)
    (False, False)
    >>> h.give_back("burst"), gc.isenabled()  # (the last: on again; its holder runs a collection)
    (True, True)
    >>> _ = gc.enable() if was else gc.disable()
    """

    def __init__(self) -> None:
        self.holders: set[object] = set()

    def hold(self, holder: object) -> bool:
        """``holder`` holds collection off; whether it does (False: the runtime had it off). O(1)"""
        if not self.holders:
            if not gc.isenabled():
                return False
            gc.disable()
        self.holders.add(holder)
        return True

    def give_back(self, holder: object) -> bool:
        """``holder`` lets go; True when that turned collection on again (it was the last). O(1)"""
        if holder not in self.holders:
            return False
        self.holders.discard(holder)
        if self.holders:
            return False
        gc.enable()
        return True


#: the page's one switch of Python's automatic collection
HOLD = GcHold()


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

    def __init__(self, limit: int = LIMIT, latest_ms: float = LATEST_MS, hold: GcHold = HOLD) -> None:
        self.hold = hold
        self.limit = limit
        self.latest_ms = latest_ms
        self.held = False  # automatic collection is off because of a gesture
        self.ended: float | None = None  # when the gesture was seen ended (ms)
        self.forced = 0  # young collections run during gestures because of ``limit``
        self.runs = 0  # collections run at rest (``release``)

    def pressed(self) -> None:
        """A gesture may begin: automatic collection held off (unless the runtime has it off:
        then nothing is given back later either)."""
        if not self.held:
            self.held = self.hold.hold(self)
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
        """The gesture's hold given back; if no other holds collection off, it is on again and
        one collection runs now (at rest)."""
        if not self.held:
            return
        self.held = False
        self.ended = None
        if self.hold.give_back(self):
            gc.collect(1)
            self.runs += 1
