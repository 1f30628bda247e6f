"""When work that takes part of a frame may begin after a gesture: not in its frames, nor in
the frames of the layout cooling after it.

A drag's press selects a card, which asks for its loop region's loops and fewest cuts; each
search begins with a slice of a few ms plus one long step. Begun in the release's frame (or in
the frames the layout then takes to cool) it is a frame the hand feels. So such work waits from
a press until the gesture has ended and the layout rests — or ``latest_ms`` after the gesture
ended, if the layout keeps running — and then begins, at rest.
"""

from __future__ import annotations

LATEST_MS = 1000.0  # after a gesture, the work waits no longer than this for the layout to rest


class Settling:
    """Whether work waits for a gesture to settle (see the module's text).

    >>> s = Settling()
    >>> s.waiting
    False
    >>> s.pressed(); s.waiting
    True
    >>> s.frame(gesture=True, resting=True, now_ms=0.0)  # the gesture runs
    False
    >>> s.frame(gesture=False, resting=False, now_ms=10.0)  # released, the layout cools
    False
    >>> s.waiting
    True
    >>> s.frame(gesture=False, resting=True, now_ms=300.0)  # at rest: the work may begin now
    True
    >>> s.waiting, s.frame(gesture=False, resting=True, now_ms=310.0)
    (False, False)
    >>> s.pressed(); s.frame(False, False, 0.0), s.frame(False, False, 999.0), s.frame(False, False, 1000.0)
    (False, False, True)
    """

    def __init__(self, latest_ms: float = LATEST_MS) -> None:
        self.latest_ms = latest_ms
        self.waiting = False  # a gesture was pressed and has not settled yet
        self.ended: float | None = None  # when its end was first seen (ms)

    def pressed(self) -> None:
        """A pointer went down: the work waits."""
        self.waiting = True
        self.ended = None

    def frame(self, gesture: bool, resting: bool, now_ms: float) -> bool:
        """Once per frame: whether a gesture runs, whether the layout rests. True once, when the
        wait ends (the caller lets the work begin). O(1)"""
        if not self.waiting:
            return False
        if gesture:
            self.ended = None
            return False
        if self.ended is None:
            self.ended = now_ms
        if resting or now_ms - self.ended >= self.latest_ms:
            self.waiting = False
            self.ended = None
            return True
        return False
