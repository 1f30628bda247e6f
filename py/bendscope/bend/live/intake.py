"""A change of the memory taken in between frames, so that a frame that draws does not also
take it in.

A change the page's fetch brings in (``bend.live.sync``: the merge, in the fetch's task)
is shown after two more pieces of work — κ's edit of the plane's topology
(``bend.kappa_view.topology_cache``: an incremental edit, at once) and the update of the
scene plan (``bend.render.sceneplan``: the new cards' and edges' arrays, their art, the
halos and flags) — and the paint. Done in one frame, the three overran the frame interval
during a burst of an agent's writes (each 4–9, 4–9 and 10–22 ms). So the page runs the
two pieces as :class:`Intake`'s steps, each in a task of its own between frames, κ's edit
first (the plan shows its halos and colours); a frame that comes while a step is left does
not draw — it keeps the picture, the layout still steps — and the frame after the last
step draws the change with nothing left to make.

The hold is bounded: at most ``hold_frames`` frames in a row, however many changes come (then
a frame draws, and makes what is left as before), and never while a gesture runs. κ's edit that is not an edit
(too many changes at once: the plane's whole computation) is not waited for: it goes on in
its own slices between frames and the topology shown meanwhile is the previous one marked
pending, as when a document opens.
"""

from __future__ import annotations

from collections.abc import Callable

KAPPA = "kappa"  # κ's edit of the plane's topology
PLAN = "plan"  # the scene plan's update
HOLD_FRAMES = 2  # frames that may keep the picture while one change is taken in


class Intake:
    """The steps of taking in the changes brought in, in order (module's words).

    ``kappa`` runs κ's edit (or a first slice of the plane's computation); ``plan`` updates
    the scene plan to the document as it is now.

    >>> done = []
    >>> intake = Intake(kappa=lambda: done.append("κ"), plan=lambda: done.append("plan"))
    >>> intake.arrived()
    >>> intake.holds(gesture=False), intake.run(), done, intake.holds(gesture=False)
    (True, True, ['κ'], True)
    >>> intake.run(), done, intake.holds(gesture=False)
    (False, ['κ', 'plan'], False)
    """

    def __init__(self, kappa: Callable[[], object], plan: Callable[[], object], hold_frames: int = HOLD_FRAMES) -> None:
        self._kappa = kappa
        self._plan = plan
        self.hold_frames = hold_frames
        self.steps: list[str] = []  # the steps left, in order
        self._held = 0  # frames held in a row
        self.counts = {"changes": 0, KAPPA: 0, PLAN: 0, "held": 0, "unheld": 0}  # (diagnostics)

    @property
    def pending(self) -> bool:
        """Whether a step is left (a task should run :meth:`run`)."""
        return bool(self.steps)

    def arrived(self) -> None:
        """A change was brought in: its steps are due (again, if some were still left: the
        document changed under them)."""
        self.steps = [KAPPA, PLAN]
        self.counts["changes"] += 1

    def run(self) -> bool:
        """Run the next step (in a task between frames); whether one is left after it. O(the
        step): κ's edit is O(the change) and the plan's update O(n + m) compared, O(the change)
        sent."""
        if not self.steps:
            return False
        step = self.steps.pop(0)
        self.counts[step] += 1
        if step == KAPPA:
            self._kappa()  # (a whole computation goes on in slices of its own: not waited for)
        else:
            self._plan()
        return bool(self.steps)

    def holds(self, gesture: bool) -> bool:
        """Asked by a frame about to draw: whether it should keep the picture instead (a step
        is left, no gesture runs, and fewer than ``hold_frames`` frames in a row were held,
        however many changes came meanwhile). A frame that draws makes what was left: no step
        is left after it. O(1)."""
        if not self.steps:
            self._held = 0
            return False
        if gesture or self._held >= self.hold_frames:
            self.steps = []
            self._held = 0
            self.counts["unheld"] += 1
            return False
        self._held += 1
        self.counts["held"] += 1
        return True
