"""Python's cycle collector kept out of a live burst's frames.

While the memory's changes keep arriving (an agent writing many times a second), bringing
each one in — the merge, κ's edit, the scene plan's update — allocates containers, and the
collector's automatic runs land where the count says, by chance inside a frame. In the page's
Python (3.14) each automatic run collects the young objects and an increment of the old ones,
and on a document of thousands of cards an increment takes tens of ms: a dropped frame.

So from the first change brought in until the changes have stopped for ``quiet_ms``,
automatic collection is off (as during a gesture, ``bend.pointer.collector``). The young
objects are collected in tasks between frames — the page's intake tasks and a timer of the
burst's call :meth:`BurstCollector.between`, and a frame that finds more than ``young``
waiting (:meth:`waiting`) asks for such a task after it — so a young collection looks at
about ``young`` objects (a ms or so), and never at the old ones. When the burst is over, and no
gesture runs (a gesture's own holding decides then), collection is given back with one run,
in a task of its own at rest (:meth:`release`).
Memory stays bounded: reference counting frees everything but cycles at once, the young
cycles are freed between frames, and only the old objects' cycles wait for the burst's end.
"""

from __future__ import annotations

import gc

YOUNG = 5_000  # young objects a burst may leave before they are collected between frames
QUIET_MS = 1000.0  # the burst is over when no change came for this long


class BurstCollector:
    """When automatic collection is off for a live burst, and when it is given back (see the
    module's text). The page calls :meth:`arrived` when a change is brought in, :meth:`between`
    in tasks between frames, and :meth:`release` in a task of its own when :meth:`due`.

    >>> c = BurstCollector(quiet_ms=100.0)
    >>> was = gc.isenabled()
    >>> c.arrived(0.0); gc.isenabled()
    False
    >>> c.due(50.0, gesture=False), c.due(150.0, gesture=True), c.due(150.0, gesture=False)
    (False, False, True)
    >>> c.release(); gc.isenabled() == was
    True
    """

    def __init__(self, young: int = YOUNG, quiet_ms: float = QUIET_MS) -> None:
        self.young = young
        self.quiet_ms = quiet_ms
        self.held = False  # automatic collection is off because of a burst
        self.last = 0.0  # when the last change was brought in (ms)
        self.young_runs = 0  # young collections run between frames
        self.runs = 0  # collections run when a burst ended (``release``)

    def arrived(self, now_ms: float) -> None:
        """A change was brought in: automatic collection off (unless it is off already — a
        gesture's, or the runtime's: then nothing is given back later either). O(1)."""
        self.last = now_ms
        if not self.held and gc.isenabled():
            gc.disable()
            self.held = True

    def waiting(self) -> bool:
        """Whether more than ``young`` young objects wait for a collection between frames. O(1)."""
        return self.held and gc.get_count()[0] > self.young

    def between(self) -> bool:
        """In a task between frames: the young objects collected when more than ``young``
        wait (the old ones are not looked at); whether a collection ran. O(1), or one young
        collection."""
        if not self.waiting():
            return False
        gc.collect(0)
        self.young_runs += 1
        return True

    def due(self, now_ms: float, gesture: bool) -> bool:
        """Whether collection should be given back now: held, no change for ``quiet_ms``
        and no gesture running. O(1)."""
        return self.held and not gesture and now_ms - self.last >= self.quiet_ms

    def release(self) -> None:
        """Automatic collection on again, and one collection run now (at rest)."""
        if not self.held:
            return
        self.held = False
        gc.enable()
        gc.collect(1)
        self.runs += 1

    def state(self) -> dict[str, int | bool]:
        """Diagnostics: held now, young collections between frames, collections at a burst's end."""
        return {"held": self.held, "young_runs": self.young_runs, "runs": self.runs}
